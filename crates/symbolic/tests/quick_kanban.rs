use saturn_model::{Arc, PetriNet, Place, Transition};
use saturn_symbolic::{statespace, Limits, Method};

fn kanban(n: u64) -> PetriNet {
    let mut net = PetriNet::default();
    let mut p = |name: String, init: u64, net: &mut PetriNet| {
        net.places.push(Place {
            id: name.clone(),
            name,
            initial: init,
        });
        net.places.len() - 1
    };
    let mut st = vec![];
    for i in 1..=4 {
        let m = p(format!("pm{i}"), 0, &mut net);
        let b = p(format!("pback{i}"), 0, &mut net);
        let k = p(format!("pkan{i}"), n, &mut net);
        let o = p(format!("pout{i}"), 0, &mut net);
        st.push((m, b, k, o));
    }
    let t = |name: &str, ins: &[usize], outs: &[usize]| Transition {
        id: name.into(),
        name: name.into(),
        inputs: ins
            .iter()
            .map(|&p| Arc {
                place: p,
                weight: 1,
            })
            .collect(),
        outputs: outs
            .iter()
            .map(|&p| Arc {
                place: p,
                weight: 1,
            })
            .collect(),
        inhibitors: vec![],
    };
    let (m1, b1, k1, o1) = st[0];
    let (m2, b2, k2, o2) = st[1];
    let (m3, b3, k3, o3) = st[2];
    let (m4, b4, k4, o4) = st[3];
    net.transitions.push(t("in1", &[k1], &[m1]));
    for (i, &(m, b, _, o)) in st.iter().enumerate() {
        net.transitions.push(t(&format!("redo{i}"), &[m], &[b]));
        net.transitions.push(t(&format!("ok{i}"), &[m], &[o]));
        net.transitions.push(t(&format!("back{i}"), &[b], &[m]));
    }
    net.transitions
        .push(t("s1_23", &[o1, k2, k3], &[k1, m2, m3]));
    net.transitions
        .push(t("s4_23", &[o2, o3, k4], &[k2, k3, m4]));
    net.transitions.push(t("out4", &[o4], &[k4]));
    let _ = (b2, b3, b4, m4, o4);
    net
}

#[test]
fn kanban_counts_all_methods() {
    for (n, want) in [(1u64, 160u64), (2, 4600), (3, 58400)] {
        let net = kanban(n);
        let order: Vec<usize> = (0..net.places.len()).rev().collect();
        let model = net.to_model(&order).unwrap();
        for m in [Method::Saturation, Method::Bfs, Method::BfsFrontier] {
            let ss = statespace::generate(&model, m, Limits::none(), None).unwrap();
            assert_eq!(
                ss.metrics.states.to_string(),
                want.to_string(),
                "n={n} {m:?}"
            );
        }
    }
}
