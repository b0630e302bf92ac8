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
    // called once per period of the union's steps, with the steps done so far
    assert_eq!(seen.len() as u64, steps / POLL_EVERY);
    assert!(seen.windows(2).all(|w| w[0] + POLL_EVERY == w[1]));

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
        after <= POLL_EVERY + 16 * 16,
        "stopped at once: {after} of {steps} steps"
    );
    // cleared: the caches hold nothing computed after the stop, the answer is right again
    h.set_poll(None);
    h.clear_stop();
    assert!(!h.stopped());
    let r = h.union(a, b);
    assert_eq!(h.cardinality(r), card);
}
