//! A forest's poll stops a long set operation within one polling period, and after
//! `clear_stop` the same operation gives the right answer again.

use saturn_dd::{Forest, NodeId, Reduction, POLL_EVERY};

/// Two sets of pseudo-random states over 16 levels of 16 local states each.
fn two_sets(f: &mut Forest) -> (NodeId, NodeId) {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut sets = [NodeId::EMPTY; 2];
    for set in sets.iter_mut() {
        for _ in 0..36_000 {
            let state: Vec<u32> = (0..16)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % 16) as u32
                })
                .collect();
            let s = f.singleton(&state);
            *set = f.union(*set, s);
        }
    }
    (sets[0], sets[1])
}

#[test]
fn poll_stops_a_union_and_clear_stop_recovers() {
    // the reference: the union's answer and how many steps it takes
    let mut f = Forest::new(16, Reduction::Fully);
    let (a, b) = two_sets(&mut f);
    let s0 = f.op_steps();
    let want = f.union(a, b);
    let steps = f.op_steps() - s0;
    let card = f.cardinality(want);
    assert!(
        steps > POLL_EVERY,
        "the union must outlast a polling period ({steps} steps)"
    );

    // a poll that never stops: same answer, and it sees the steps grow
    let mut g = Forest::new(16, Reduction::Fully);
    let (a, b) = two_sets(&mut g);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let s = seen.clone();
    g.set_poll(Some(Box::new(move |n| {
        s.lock().map(|mut v| v.push(n)).is_err()
    })));
    let r = g.union(a, b);
    assert!(!g.stopped());
    assert_eq!(g.cardinality(r), card);
    let seen = seen.lock().unwrap().clone();
    // called once per period of the union's steps, with the steps done so far (a step counts
    // its node's edges, at most 16 here, so a poll may come up to 16 steps late)
    let n = seen.len() as u64;
    assert!(
        n <= steps / POLL_EVERY && n >= steps / (POLL_EVERY + 16),
        "{n} polls"
    );
    assert!(seen
        .windows(2)
        .all(|w| (POLL_EVERY..=POLL_EVERY + 16).contains(&(w[1] - w[0]))));

    // a poll that stops at once: the union ends within one period, flagged
    let mut h = Forest::new(16, Reduction::Fully);
    let (a, b) = two_sets(&mut h);
    h.set_poll(Some(Box::new(|_| true)));
    let s0 = h.op_steps();
    let _wrong = h.union(a, b);
    assert!(h.stopped());
    // after the stop, only the calls still on the stack finish (each returns at once)
    let after = h.op_steps() - s0;
    assert!(
        after <= POLL_EVERY + 16 * 17 + 16 * 17,
        "stopped at once: {after} of {steps} steps"
    );
    // cleared: the caches hold nothing computed after the stop, the answer is right again
    h.set_poll(None);
    h.clear_stop();
    assert!(!h.stopped());
    let r = h.union(a, b);
    assert_eq!(h.cardinality(r), card);
}

#[test]
fn a_step_counts_the_edges_of_its_node() {
    // one level of 1000 local states: the union of the two halves is one cache miss that
    // makes a node of 1000 edges, and counts as a thousand steps of work, not one
    let mut f = Forest::new(1, Reduction::Fully);
    f.set_domain(1, 1000);
    let (mut a, mut b) = (NodeId::EMPTY, NodeId::EMPTY);
    for i in 0..500 {
        let s = f.singleton(&[i]);
        a = f.union(a, s);
        let s = f.singleton(&[500 + i]);
        b = f.union(b, s);
    }
    let s0 = f.op_steps();
    let u = f.union(a, b);
    assert_eq!(f.cardinality_u128(u), Some(1000));
    assert_eq!(f.op_steps() - s0, 1 + 1000);
}
