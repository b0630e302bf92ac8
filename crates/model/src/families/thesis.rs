//! The six families of the saturation papers (see the module documentation of `families`).

use super::builder::Builder;
use crate::PetriNet;

pub(super) fn kanban(n: u32) -> PetriNet {
    let mut b = Builder::new(format!("kanban-{n}"));
    for c in 1..=4 {
        b.place(format!("pm{c}"), 0);
        b.place(format!("pback{c}"), 0);
        b.place(format!("pkan{c}"), u64::from(n));
        b.place(format!("pout{c}"), 0);
    }
    for t in [
        "tin1", "tr1", "tb1", "tg1", "ts1_23", "tr2", "tb2", "tg2", "tr3", "tb3", "tg3", "ts23_4",
        "tr4", "tb4", "tg4", "tout4",
    ] {
        b.trans(t.to_string());
    }
    // Each cell: pm -tr-> pback -tb-> pm (redo), pm -tg-> pout.
    for c in 1..=4 {
        let (pm, pback, pout) = (format!("pm{c}"), format!("pback{c}"), format!("pout{c}"));
        let (tr, tb, tg) = (format!("tr{c}"), format!("tb{c}"), format!("tg{c}"));
        b.input(&pm, &tr);
        b.output(&tr, &pback);
        b.input(&pback, &tb);
        b.output(&tb, &pm);
        b.input(&pm, &tg);
        b.output(&tg, &pout);
    }
    // Cell 1 takes its kanban in; cell 1 feeds cells 2 and 3 (synchronised), which feed 4.
    b.input("pkan1", "tin1");
    b.output("tin1", "pm1");
    b.input("pout1", "ts1_23");
    b.output("ts1_23", "pkan1");
    for c in [2, 3] {
        b.input(&format!("pkan{c}"), "ts1_23");
        b.output("ts1_23", &format!("pm{c}"));
        b.input(&format!("pout{c}"), "ts23_4");
        b.output("ts23_4", &format!("pkan{c}"));
    }
    b.input("pkan4", "ts23_4");
    b.output("ts23_4", "pm4");
    b.input("pout4", "tout4");
    b.output("tout4", "pkan4");
    b.net
}

pub(super) fn philosophers(n: u32) -> PetriNet {
    let mut b = Builder::new(format!("philosophers-{n}"));
    // per philosopher: Fork, Idle, WaitL, HasL, WaitR, HasR; GoEat, GetL, GetR, Release
    let mut places = Vec::with_capacity(n as usize);
    let mut trans = Vec::with_capacity(n as usize);
    for i in 0..n {
        let mut ps = [0usize; 6];
        ps[0] = b.place(format!("Fork_{i}"), 1);
        ps[1] = b.place(format!("Idle_{i}"), 1);
        for (k, p) in ["WaitL", "HasL", "WaitR", "HasR"].into_iter().enumerate() {
            ps[2 + k] = b.place(format!("{p}_{i}"), 0);
        }
        let mut ts = [0usize; 4];
        for (k, t) in ["GoEat", "GetL", "GetR", "Release"].into_iter().enumerate() {
            ts[k] = b.trans(format!("{t}_{i}"));
        }
        places.push(ps);
        trans.push(ts);
    }
    for i in 0..n as usize {
        let [fork, idle, wait_l, has_l, wait_r, has_r] = places[i];
        let [go_eat, get_l, get_r, release] = trans[i];
        let right_fork = places[(i + 1) % n as usize][0];
        b.input_at(idle, go_eat);
        b.output_at(go_eat, wait_l);
        b.output_at(go_eat, wait_r);
        b.input_at(wait_l, get_l);
        b.input_at(fork, get_l);
        b.output_at(get_l, has_l);
        b.input_at(wait_r, get_r);
        b.input_at(right_fork, get_r);
        b.output_at(get_r, has_r);
        b.input_at(has_l, release);
        b.input_at(has_r, release);
        b.output_at(release, idle);
        b.output_at(release, fork);
        b.output_at(release, right_fork);
    }
    b.net
}

pub(super) fn slot(n: u32) -> PetriNet {
    let mut b = Builder::new(format!("slot-{n}"));
    for i in 0..n {
        for p in ["A", "B", "C", "D", "E", "F", "G", "H"] {
            let initial = u64::from(p == "C" || p == "E");
            b.place(format!("p{p}_{i}"), initial);
        }
        for t in [
            "other", "owner", "write", "go", "give", "put", "used", "free",
        ] {
            b.trans(format!("{t}_{i}"));
        }
    }
    for i in 0..n {
        let next = (i + 1) % n;
        let p = |s: &str| format!("p{s}_{i}");
        let t = |s: &str| format!("{s}_{i}");
        let tn = |s: &str| format!("{s}_{next}");
        b.output(&tn("used"), &p("A"));
        b.input(&p("A"), &t("other"));
        b.input(&p("A"), &t("owner"));
        b.output(&tn("free"), &p("B"));
        b.output(&t("owner"), &p("B"));
        b.input(&p("B"), &t("go"));
        b.input(&p("B"), &t("write"));
        b.output(&t("give"), &p("C"));
        b.output(&t("put"), &p("C"));
        b.input(&p("C"), &tn("free"));
        b.input(&p("C"), &tn("used"));
        b.output(&t("write"), &p("D"));
        b.output(&t("other"), &p("D"));
        b.input(&p("D"), &t("put"));
        b.output(&t("give"), &p("E"));
        b.input(&p("E"), &t("free"));
        b.output(&t("free"), &p("F"));
        b.output(&t("used"), &p("F"));
        b.input(&p("F"), &t("give"));
        b.input(&p("F"), &t("put"));
        b.output(&t("put"), &p("G"));
        b.input(&p("G"), &t("used"));
        b.output(&t("go"), &p("H"));
        b.input(&p("H"), &t("give"));
    }
    b.net
}

pub(super) fn queens(n: u32) -> PetriNet {
    let mut b = Builder::new(format!("queens-{n}"));
    let p = |i: u32, j: u32| format!("p_{i}_{j}");
    let t = |i: u32, j: u32| format!("t_{i}_{j}");
    for i in 1..=n {
        for j in 0..=n {
            b.place(p(i, j), u64::from(j == 0));
        }
        for j in 1..=n {
            b.trans(t(i, j));
        }
    }
    for i in 1..=n {
        for j in 1..=n {
            b.input(&p(i, 0), &t(i, j));
            b.output(&t(i, j), &p(i, j));
        }
    }
    for i in 2..=n {
        for j in 1..=n {
            // queens are placed in order: queen i-1 first
            b.inhibit(&p(i - 1, 0), &t(i, j));
            for k in 1..i {
                b.inhibit(&p(i - k, j), &t(i, j)); // same column
                if j > k {
                    b.inhibit(&p(i - k, j - k), &t(i, j)); // diagonal
                }
                if j + k <= n {
                    b.inhibit(&p(i - k, j + k), &t(i, j)); // anti-diagonal
                }
            }
        }
    }
    b.net
}

pub(super) fn fms(n: u32) -> PetriNet {
    let mut b = Builder::new(format!("fms-{n}"));
    let n = u64::from(n);
    for (id, m0) in [
        ("P1", n),
        ("P1wM1", 0),
        ("P1M1", 0),
        ("M1", 3),
        ("P1d", 0),
        ("P1s", 0),
        ("P1wP2", 0),
        ("P12", 0),
        ("P12wM3", 0),
        ("P12M3", 0),
        ("M3", 2),
        ("P12s", 0),
        ("P2", n),
        ("P2wM2", 0),
        ("P2M2", 0),
        ("M2", 1),
        ("P2d", 0),
        ("P2wP1", 0),
        ("P2s", 0),
        ("P3", n),
        ("P3M2", 0),
        ("P3s", 0),
    ] {
        b.place(id.to_string(), m0);
    }
    for t in [
        "tM1", "tM2", "tM3", "tx", "tP1e", "tP1j", "tP2e", "tP2j", "tP1", "tP1M1", "tP1s", "tP2",
        "tP2M2", "tP2s", "tP12", "tP12M3", "tP12s", "tP3", "tP3M2", "tP3s",
    ] {
        b.trans(t.to_string());
    }
    let arcs: &[(&str, &str)] = &[
        ("P1", "tP1"),
        ("tP1", "P1wM1"),
        ("P1wM1", "tM1"),
        ("M1", "tM1"),
        ("tM1", "P1M1"),
        ("P1M1", "tP1M1"),
        ("tP1M1", "M1"),
        ("tP1M1", "P1d"),
        ("P1d", "tP1e"),
        ("tP1e", "P1s"),
        ("P1d", "tP1j"),
        ("tP1j", "P1wP2"),
        ("P1s", "tP1s"),
        ("tP1s", "P1"),
        ("P2", "tP2"),
        ("tP2", "P2wM2"),
        ("P2wM2", "tM2"),
        ("M2", "tM2"),
        ("tM2", "P2M2"),
        ("P2M2", "tP2M2"),
        ("tP2M2", "M2"),
        ("tP2M2", "P2d"),
        ("P2d", "tP2e"),
        ("tP2e", "P2s"),
        ("P2d", "tP2j"),
        ("tP2j", "P2wP1"),
        ("P2s", "tP2s"),
        ("tP2s", "P2"),
        ("P2wP1", "tx"),
        ("P1wP2", "tx"),
        ("tx", "P12"),
        ("P12", "tP12"),
        ("tP12", "P12wM3"),
        ("P12wM3", "tM3"),
        ("M3", "tM3"),
        ("tM3", "P12M3"),
        ("P12M3", "tP12M3"),
        ("tP12M3", "P12s"),
        ("tP12M3", "M3"),
        ("P12s", "tP12s"),
        ("tP12s", "P1"),
        ("tP12s", "P2"),
        ("P3", "tP3"),
        ("tP3", "P3M2"),
        ("P3M2", "tP3M2"),
        ("M2", "tP3M2"),
        ("tP3M2", "M2"),
        ("tP3M2", "P3s"),
        ("P3s", "tP3s"),
        ("tP3s", "P3"),
    ];
    for &(src, tgt) in arcs {
        if src.starts_with('t') {
            b.output(src, tgt);
        } else {
            b.input(src, tgt);
        }
    }
    b.net
}

pub(super) fn robin(n: u32) -> PetriNet {
    let mut b = Builder::new(format!("robin-{n}"));
    b.place("Res".to_string(), 1);
    for i in 0..n {
        for (p, m0) in [
            ("R", 0),
            ("bufidle", 1),
            ("buffull", 0),
            ("pwait", u64::from(i != 0)),
            ("pask", u64::from(i == 0)),
            ("pok", 0),
            ("pload", 0),
            ("psend", 0),
        ] {
            b.place(format!("{p}_{i}"), m0);
        }
        for t in ["task", "tbuf", "t1load", "t2load", "t1send", "t2send"] {
            b.trans(format!("{t}_{i}"));
        }
    }
    for i in 0..n {
        let next = (i + 1) % n;
        let x = |s: &str| format!("{s}_{i}");
        let y = |s: &str| format!("{s}_{next}");
        // the process with the turn takes the resource
        b.input("Res", &x("task"));
        b.input(&x("pask"), &x("task"));
        b.output(&x("task"), &x("R"));
        b.output(&x("task"), &x("pok"));
        // reads the channel into its buffer and frees the resource
        b.input(&x("R"), &x("tbuf"));
        b.input(&x("bufidle"), &x("tbuf"));
        b.output(&x("tbuf"), &x("buffull"));
        b.output(&x("tbuf"), "Res");
        // empties the buffer before passing the turn ...
        b.input(&x("buffull"), &x("t1load"));
        b.input(&x("pok"), &x("t1load"));
        b.output(&x("t1load"), &x("bufidle"));
        b.output(&x("t1load"), &x("psend"));
        // ... or after
        b.input(&x("buffull"), &x("t2load"));
        b.input(&x("pload"), &x("t2load"));
        b.output(&x("t2load"), &x("bufidle"));
        b.output(&x("t2load"), &x("pwait"));
        b.input(&x("pok"), &x("t1send"));
        b.input(&y("pwait"), &x("t1send"));
        b.output(&x("t1send"), &x("pload"));
        b.output(&x("t1send"), &y("pask"));
        b.input(&x("psend"), &x("t2send"));
        b.input(&y("pwait"), &x("t2send"));
        b.output(&x("t2send"), &x("pwait"));
        b.output(&x("t2send"), &y("pask"));
    }
    b.net
}
