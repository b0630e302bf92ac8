//! Generators for the thesis benchmark families of Petri nets.
//!
//! The nets follow the SMART tool's models (asminer/smart, `Models/*.sm`, `Tests/*.sm` and the
//! manual's examples), which are the nets behind the state counts published in the saturation
//! papers (Ciardo, Lüttgen, Siminiceanu, Marmorstein and others):
//!
//! * `kanban` — Kanban manufacturing system, 16 places (`pm`, `pback`, `pkan`, `pout` for 4 cells),
//!   16 transitions, `N` kanban tokens per cell. States: `((N+1)(N+2)(N+3)/6)^2 ·
//!   (3N^5+30N^4+115N^3+210N^2+182N+60)/60` (the closed form in SMART's `kanban.sm`).
//! * `philosophers` — dining philosophers, 6 places and 4 transitions per philosopher (`Fork`,
//!   `Idle`, `WaitL`, `HasL`, `WaitR`, `HasR`; `GoEat`, `GetL`, `GetR`, `Release`). States:
//!   the Lucas number `L(3N)` = `fib(3N+1) + fib(3N-1)` (SMART's `phils.sm`).
//! * `slot` — slotted-ring protocol (Pastor, Roig, Cortadella, Badia), 8 places and 8
//!   transitions per slot, as in SMART's `slot.sm` and Meddly's `slot.cc`.
//! * `queens` — N-queens with sequential placement, `N(N+1)` places `p_i_j` (queen `i` unplaced
//!   for `j = 0`, on column `j` otherwise) and `N²` transitions guarded by inhibitor arcs
//!   (SMART's `Tests/queens-expl.sm`, `queensSEQ`).
//! * `fms` — flexible manufacturing system (Ciardo and Trivedi), 22 places, 20 transitions, `N`
//!   parts of each type; the P/T version of SMART's `fms.sm` where the marking-dependent
//!   "flush" arcs move one token per firing. This is exactly the MCC's `FMS` net.
//! * `robin` — round-robin mutual exclusion (Graf, Steffen, Lüttgen), one resource place and 8
//!   places / 6 transitions per process (SMART manual, "A round-robin mutual exclusion
//!   protocol").

use crate::{Arc, PetriNet, Place, Transition};

/// The known family names, in a fixed order.
pub const FAMILIES: &[&str] = &["philosophers", "kanban", "slot", "queens", "fms", "robin"];

/// The allowed range of `N` for each family.
pub fn range(family: &str) -> Option<std::ops::RangeInclusive<u32>> {
    Some(match family {
        "philosophers" => 1..=100_000,
        "kanban" => 1..=100_000,
        "slot" => 1..=10_000,
        "queens" => 1..=20,
        "fms" => 1..=10_000,
        "robin" => 1..=10_000,
        _ => return None,
    })
}

/// Published reachable-state counts: `(family, N, count)`. A count is either exact decimal
/// digits, or a scientific prefix `d.ddde<k>` meaning "the count has `k+1` digits and its
/// leading digits, rounded, are `d.ddd`" (use [`count_matches`] to compare).
///
/// Sources: kanban and philosophers: the closed forms above (SMART) and the saturation papers'
/// tables (kanban 1.006e9 / 1.04e16 / 3.17e22 for N = 10 / 50 / 200, philosophers 4.97e62 /
/// 9.18e626 for N = 100 / 1000); kanban 1..3: PRISM / Storm / SMART (160, 4600, 58400); slot:
/// the saturation papers (8.29e9, 2.73e20, 1.72e52 for N = 10, 20, 50); queens: SMART's
/// `Tests/queens-expl.sm.out` (sequential placement, N = 5..10); fms: the MCC 2025 oracles of
/// `FMS-PT-00002/5/10` (same net); kanban 5 and 10: MCC oracles of `Kanban-PT-00005/10`;
/// robin: the saturation papers (2.30e4, 4.72e7, 2.85e32 for N = 10, 20, 100).
pub const KNOWN_COUNTS: &[(&str, u32, &str)] = &[
    ("kanban", 1, "160"),
    ("kanban", 2, "4600"),
    ("kanban", 3, "58400"),
    ("kanban", 5, "2546432"),
    ("kanban", 10, "1005927208"),
    ("kanban", 50, "1.04e16"),
    ("kanban", 200, "3.17e22"),
    ("philosophers", 100, "4.97e62"),
    ("philosophers", 1000, "9.18e626"),
    ("slot", 10, "8.29e9"),
    ("slot", 20, "2.73e20"),
    ("slot", 50, "1.72e52"),
    ("queens", 5, "54"),
    ("queens", 6, "153"),
    ("queens", 7, "552"),
    ("queens", 8, "2057"),
    ("queens", 9, "8394"),
    ("queens", 10, "35539"),
    ("fms", 2, "3444"),
    ("fms", 5, "2895018"),
    ("fms", 10, "2501413200"),
    ("robin", 10, "2.30e4"),
    ("robin", 20, "4.72e7"),
    ("robin", 100, "2.85e32"),
];

/// Does the decimal number `digits` match the known count `known` (exact digits, or a
/// scientific prefix such as `1.006e9`)? Returns `false` for a malformed `known`.
pub fn count_matches(digits: &str, known: &str) -> bool {
    let Some((mantissa, exp)) = known.split_once('e') else {
        return digits == known;
    };
    let Ok(exp) = exp.parse::<usize>() else {
        return false;
    };
    if digits.len() != exp + 1 || digits.starts_with('0') {
        return false;
    }
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let want: String = format!("{int}{frac}");
    let k = want.len();
    if k == 0 || k > digits.len() || !want.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    // Round the first k digits of `digits` (half up) and compare.
    let head: u128 = match digits[..k].parse() {
        Ok(v) => v,
        Err(_) => return false,
    };
    let round_up = digits.as_bytes().get(k).is_some_and(|&d| d >= b'5');
    let rounded = head + u128::from(round_up);
    want.parse::<u128>().is_ok_and(|w| w == rounded)
}

/// Why a family cannot be generated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FamilyError {
    #[error("unknown model family '{name}'; known families: {}", FAMILIES.join(", "))]
    Unknown { name: String },
    #[error("N = {n} is out of range for family '{family}': allowed {min}..={max}")]
    OutOfRange {
        family: String,
        n: u32,
        min: u32,
        max: u32,
    },
}

/// Generate the net of `family` with parameter `n`.
pub fn generate(family: &str, n: u32) -> Result<PetriNet, FamilyError> {
    let r = range(family).ok_or_else(|| FamilyError::Unknown {
        name: family.to_string(),
    })?;
    if !r.contains(&n) {
        return Err(FamilyError::OutOfRange {
            family: family.to_string(),
            n,
            min: *r.start(),
            max: *r.end(),
        });
    }
    Ok(match family {
        "philosophers" => philosophers(n),
        "kanban" => kanban(n),
        "slot" => slot(n),
        "queens" => queens(n),
        "fms" => fms(n),
        "robin" => robin(n),
        _ => unreachable!("range() accepted an unknown family"),
    })
}

/// A small builder: places and transitions by name, arcs merged by kind.
struct Builder {
    net: PetriNet,
    place_ix: std::collections::HashMap<String, usize>,
    trans_ix: std::collections::HashMap<String, usize>,
}

#[derive(Clone, Copy)]
enum Dir {
    In,
    Out,
    Inhibit,
}

impl Builder {
    fn new(name: String) -> Self {
        Builder {
            net: PetriNet {
                name,
                ..PetriNet::default()
            },
            place_ix: Default::default(),
            trans_ix: Default::default(),
        }
    }
    fn place(&mut self, id: String, initial: u64) {
        self.place_ix.insert(id.clone(), self.net.places.len());
        self.net.places.push(Place {
            name: id.clone(),
            id,
            initial,
        });
    }
    fn trans(&mut self, id: String) {
        self.trans_ix.insert(id.clone(), self.net.transitions.len());
        self.net.transitions.push(Transition {
            name: id.clone(),
            id,
            ..Transition::default()
        });
    }
    fn arc(&mut self, dir: Dir, place: &str, trans: &str, weight: u64) {
        let p = self.place_ix[place];
        let t = &mut self.net.transitions[self.trans_ix[trans]];
        let list = match dir {
            Dir::In => &mut t.inputs,
            Dir::Out => &mut t.outputs,
            Dir::Inhibit => &mut t.inhibitors,
        };
        match list.iter_mut().find(|a| a.place == p) {
            Some(a) => a.weight += weight,
            None => list.push(Arc { place: p, weight }),
        }
    }
    /// Input arc place -> transition, weight 1.
    fn input(&mut self, place: &str, trans: &str) {
        self.arc(Dir::In, place, trans, 1);
    }
    /// Output arc transition -> place, weight 1.
    fn output(&mut self, trans: &str, place: &str) {
        self.arc(Dir::Out, place, trans, 1);
    }
    /// Inhibitor arc of weight 1: `trans` needs `place` empty.
    fn inhibit(&mut self, place: &str, trans: &str) {
        self.arc(Dir::Inhibit, place, trans, 1);
    }
}

fn kanban(n: u32) -> PetriNet {
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

fn philosophers(n: u32) -> PetriNet {
    let mut b = Builder::new(format!("philosophers-{n}"));
    for i in 0..n {
        b.place(format!("Fork_{i}"), 1);
        b.place(format!("Idle_{i}"), 1);
        for p in ["WaitL", "HasL", "WaitR", "HasR"] {
            b.place(format!("{p}_{i}"), 0);
        }
        for t in ["GoEat", "GetL", "GetR", "Release"] {
            b.trans(format!("{t}_{i}"));
        }
    }
    for i in 0..n {
        let right = (i + 1) % n;
        let p = |s: &str| format!("{s}_{i}");
        b.input(&p("Idle"), &p("GoEat"));
        b.output(&p("GoEat"), &p("WaitL"));
        b.output(&p("GoEat"), &p("WaitR"));
        b.input(&p("WaitL"), &p("GetL"));
        b.input(&p("Fork"), &p("GetL"));
        b.output(&p("GetL"), &p("HasL"));
        b.input(&p("WaitR"), &p("GetR"));
        b.input(&format!("Fork_{right}"), &p("GetR"));
        b.output(&p("GetR"), &p("HasR"));
        b.input(&p("HasL"), &p("Release"));
        b.input(&p("HasR"), &p("Release"));
        b.output(&p("Release"), &p("Idle"));
        b.output(&p("Release"), &p("Fork"));
        b.output(&p("Release"), &format!("Fork_{right}"));
    }
    b.net
}

fn slot(n: u32) -> PetriNet {
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

fn queens(n: u32) -> PetriNet {
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

fn fms(n: u32) -> PetriNet {
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

fn robin(n: u32) -> PetriNet {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_prefixes() {
        assert!(count_matches("1005927208", "1.006e9"));
        assert!(count_matches("1005927208", "1005927208"));
        assert!(!count_matches("1005927208", "1.005e9"));
        assert!(!count_matches("100592720", "1.006e9"));
        assert!(count_matches("10400000000000000", "1.04e16"));
        assert!(count_matches("10449999999999999", "1.04e16"));
        assert!(!count_matches("10450000000000000", "1.04e16"));
        assert!(!count_matches("12", "x"));
        assert!(!count_matches("12", "1.2eq"));
    }
}
