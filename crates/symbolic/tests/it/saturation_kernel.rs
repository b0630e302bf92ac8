//! The one saturation kernel against the explicit reference (crates/reference), on random nets
//! that are bounded by construction: saturation, constrained saturation (Figure 3.3), forward and
//! backward, implicit events and relation MDDs, BFS, all on one shared context that collects
//! every 64 nodes (in the middle of saturation and BFS). Plus an interrupted engine reused, and
//! collections while an engine holds handles.

use std::collections::{BTreeSet, HashSet, VecDeque};

use saturn_dd::{Dd, Forest, NodeId};
use saturn_model::{Model, PetriNet};
use saturn_reference::explore_petri;
use saturn_reference::strategies::petri_net;
use saturn_symbolic::{Direction, Interrupted, Method, Reach, Relations};

/// SplitMix64: deterministic, so every case and every discarded case is reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A net bounded by construction: 8-12 places split into 2-4 conservative components (each
/// holding 2-4 tokens, its places on a cycle of transitions); every transition moves one token
/// within each of the 1-2 components it touches (so each component's token count is
/// invariant), sometimes with a read arc or an inhibitor arc elsewhere.
fn bounded_net(rng: &mut Rng) -> PetriNet {
    let np = 8 + rng.below(5);
    let nc = 2 + rng.below(3);
    let comp: Vec<usize> = (0..np)
        .map(|p| if p < nc { p } else { rng.below(nc) })
        .collect();
    let members = |c: usize| -> Vec<usize> { (0..np).filter(|&p| comp[p] == c).collect() };
    let mut initial = vec![0u64; np];
    for c in 0..nc {
        let m = members(c);
        for _ in 0..2 + rng.below(3) {
            initial[m[rng.below(m.len())]] += 1;
        }
    }
    let mut transitions = Vec::new();
    for c in 0..nc {
        let m = members(c);
        for (i, &p) in m.iter().enumerate() {
            let q = m[(i + 1) % m.len()];
            if p != q {
                transitions.push((vec![(p, 1)], vec![(q, 1)], vec![]));
            }
        }
    }
    let nt = np / 2 + rng.below(np);
    for _ in 0..nt {
        let (mut inp, mut out, mut inh) = (Vec::new(), Vec::new(), Vec::new());
        let first = rng.below(nc);
        let mut cs = vec![first];
        if rng.below(3) == 0 {
            let second = rng.below(nc);
            if second != first {
                cs.push(second);
            }
        }
        for c in cs {
            let m = members(c);
            inp.push((m[rng.below(m.len())], 1));
            out.push((m[rng.below(m.len())], 1));
        }
        match rng.below(6) {
            0 => {
                let p = rng.below(np);
                inp.push((p, 1));
                out.push((p, 1)); // a read arc
            }
            1 => inh.push((rng.below(np), 1 + rng.below(2) as u64)),
            _ => {}
        }
        transitions.push((inp, out, inh));
    }
    petri_net(&initial, transitions)
}

/// Markings of a set (vectors indexed by place).
fn markings(f: &Forest, n: NodeId, order: &[usize]) -> BTreeSet<Vec<u64>> {
    let mut out = BTreeSet::new();
    f.for_each_state(n, usize::MAX, |t| {
        let mut m = vec![0u64; order.len()];
        for (k, &p) in order.iter().enumerate() {
            m[p] = t[k] as u64;
        }
        out.insert(m);
    });
    out
}

/// The set of the given markings.
fn set_of<'a>(dd: &mut Dd, ms: impl Iterator<Item = &'a Vec<u64>>, order: &[usize]) -> NodeId {
    let mut acc = NodeId::EMPTY;
    for m in ms {
        let t: Vec<u32> = order.iter().map(|&p| m[p] as u32).collect();
        let s = dd.sets.singleton(&t);
        acc = dd.sets.union(acc, s);
    }
    acc
}

/// A random constraint: a product of random local subsets (over the box `[0, cap)` of each
/// level, mostly unreachable states) united with a random half of the reachable markings.
fn constraint(
    dd: &mut Dd,
    rng: &mut Rng,
    reach: &[Vec<u64>],
    caps: &[u32],
    order: &[usize],
) -> NodeId {
    let mut n = NodeId::ONE;
    for (k, &cap) in caps.iter().enumerate().take(order.len() + 1).skip(1) {
        let edges: Vec<saturn_dd::Edge> = (0..cap)
            .filter(|_| rng.below(3) != 0)
            .map(|i| saturn_dd::Edge::new(i, n))
            .collect();
        n = dd.sets.make_node(k, &edges);
    }
    let half: Vec<&Vec<u64>> = reach.iter().filter(|_| rng.below(2) == 0).collect();
    let some = set_of(dd, half.into_iter(), order);
    dd.sets.union(n, some)
}

/// Is marking `m` in the set `a`?
fn member(f: &Forest, a: NodeId, m: &[u64], order: &[usize]) -> bool {
    let mut n = a;
    for k in (1..=order.len()).rev() {
        n = f.child_at(n, k, m[order[k - 1]] as u32);
        if n.is_empty() {
            return false;
        }
    }
    n == NodeId::ONE
}

/// Explicit search over the reachability graph from `from`, along `edges`, adding only states
/// that satisfy `ok`.
fn explicit_closure(
    from: &[usize],
    edges: &[Vec<(usize, usize)>],
    ok: &dyn Fn(usize) -> bool,
) -> HashSet<usize> {
    let mut seen: HashSet<usize> = from.iter().copied().collect();
    let mut queue: VecDeque<usize> = from.iter().copied().collect();
    while let Some(s) = queue.pop_front() {
        for &(_, t) in &edges[s] {
            if ok(t) && seen.insert(t) {
                queue.push_back(t);
            }
        }
    }
    seen
}

/// Every engine configuration: (direction-independent) relation source.
const SOURCES: [Relations; 2] = [Relations::Implicit, Relations::Mdd];

/// Check one net in one shared context; returns the number of reachable states.
fn check_net(net: &PetriNet, rng: &mut Rng, case: usize) -> usize {
    let space = explore_petri(net, 100_000).expect("bounded by construction");
    let n = net.places.len();
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let model: Model = net.to_model(&order).unwrap();
    let mut dd = Dd::new(n);
    dd.set_gc_every(Some(64));
    let want: BTreeSet<Vec<u64>> = space.markings.iter().cloned().collect();
    let mut caps = vec![u32::MAX; n + 1];
    for (k, &p) in order.iter().enumerate() {
        caps[k + 1] = space.markings.iter().map(|m| m[p]).max().unwrap_or(0) as u32 + 1;
    }
    // forward: every method and source gives the reachable set, as one node of the context
    let mut rch = None;
    for rel in SOURCES {
        for method in [Method::Saturation, Method::Bfs, Method::BfsFrontier] {
            let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
            reach.set_relations(rel);
            let init = reach.state_set(&model.initial);
            let s = reach.explore(init, method).unwrap();
            drop(reach);
            assert_eq!(
                markings(&dd.sets, s, &order),
                want,
                "case {case}: forward {method:?} {rel:?}"
            );
            let p = rch.get_or_insert_with(|| dd.pin(s));
            assert_eq!(p.get(), s, "case {case}: one set, one node");
        }
    }
    let rch = rch.unwrap();
    let pred = space.predecessors();
    // backward from a few reachable targets, intersected with the reachable states
    let targets: Vec<usize> = (0..1 + rng.below(3))
        .map(|_| rng.below(space.markings.len()))
        .collect();
    let b = set_of(&mut dd, targets.iter().map(|&t| &space.markings[t]), &order);
    let b_pin = dd.pin(b);
    let want_b: BTreeSet<Vec<u64>> = explicit_closure(&targets, &pred, &|_| true)
        .into_iter()
        .map(|s| space.markings[s].clone())
        .collect();
    // a random constraint, and the explicit EU / forward constrained closures under it
    let a = constraint(&mut dd, rng, &space.markings, &caps, &order);
    let a_pin = dd.pin(a);
    let in_a: Vec<bool> = space
        .markings
        .iter()
        .map(|m| member(&dd.sets, a, m, &order))
        .collect();
    let want_eu: BTreeSet<Vec<u64>> = explicit_closure(&targets, &pred, &|s| in_a[s])
        .into_iter()
        .map(|s| space.markings[s].clone())
        .collect();
    let want_fwd_cons: BTreeSet<Vec<u64>> = explicit_closure(&[0], &space.successors, &|s| in_a[s])
        .into_iter()
        .map(|s| space.markings[s].clone())
        .collect();
    for rel in SOURCES {
        let mut back = Reach::new(&mut dd, &model, Direction::Backward, Some(caps.clone()));
        back.set_relations(rel);
        for method in [Method::Saturation, Method::BfsFrontier] {
            let s = back.explore(b_pin.get(), method).unwrap();
            let s = back.dd_mut().sets.intersect(s, rch.get());
            let got = markings(&back.dd().sets, s, &order);
            assert_eq!(got, want_b, "case {case}: backward {method:?} {rel:?}");
        }
        let s = back.cons_saturate(a_pin.get(), b_pin.get()).unwrap();
        let s = back.dd_mut().sets.intersect(s, rch.get());
        let got = markings(&back.dd().sets, s, &order);
        assert_eq!(got, want_eu, "case {case}: backward constrained {rel:?}");
        drop(back);
        let mut fwd = Reach::new(&mut dd, &model, Direction::Forward, None);
        fwd.set_relations(rel);
        let init = fwd.state_set(&model.initial);
        let s = fwd.cons_saturate(a_pin.get(), init).unwrap();
        let got = markings(&fwd.dd().sets, s, &order);
        assert_eq!(
            got, want_fwd_cons,
            "case {case}: forward constrained {rel:?}"
        );
    }
    assert!(
        dd.collections() > 0,
        "case {case}: the context never collected"
    );
    space.markings.len()
}

// sixteen nets in two tests of eight (other seeds), which run side by side on two cores
#[test]
fn kernel_matches_explicit_reference_on_bounded_random_nets() {
    bounded_random_nets(0x5a7);
}

#[test]
fn kernel_matches_explicit_reference_on_more_bounded_random_nets() {
    bounded_random_nets(0x7a5);
}

/// Eight random bounded nets from `seed`, each checked by [`check_net`].
fn bounded_random_nets(seed: u64) {
    let mut rng = Rng(seed);
    let (mut checked, mut discarded, mut sizes) = (0, 0, Vec::new());
    let mut seed = 0;
    while checked < 8 {
        seed += 1;
        assert!(
            seed <= 20,
            "too many discarded cases: {discarded} of {seed} (sizes {sizes:?})"
        );
        let net = bounded_net(&mut rng);
        let states = explore_petri(&net, 100_000)
            .expect("bounded")
            .markings
            .len();
        // hundreds to thousands of states
        if !(100..=6000).contains(&states) {
            eprintln!("discarded: {states} states");
            discarded += 1;
            continue;
        }
        sizes.push(check_net(&net, &mut rng, seed));
        checked += 1;
    }
    assert!(
        discarded * 2 <= seed,
        "more than half the generated nets discarded: {discarded} of {seed}"
    );
    eprintln!("{checked} nets checked (states {sizes:?}), {discarded} discarded");
}

/// A net whose saturation takes many steps (kanban), its number of states, and per level one
/// more than the largest reachable local state (caps for backward searches).
fn kanban() -> (Model, usize, Vec<u32>) {
    let net = saturn_model::families::generate("kanban", 3).expect("kanban");
    let order: Vec<usize> = (0..net.places.len()).rev().collect();
    let space = explore_petri(&net, 1_000_000).unwrap();
    let mut caps = vec![u32::MAX; order.len() + 1];
    for (k, &p) in order.iter().enumerate() {
        caps[k + 1] = space.markings.iter().map(|m| m[p]).max().unwrap_or(0) as u32 + 1;
    }
    (net.to_model(&order).unwrap(), space.markings.len(), caps)
}

#[test]
fn interrupted_engine_is_reused_and_gives_right_answers() {
    let (model, states, _) = kanban();
    for rel in SOURCES {
        let mut dd = Dd::new(model.num_levels());
        dd.set_gc_every(Some(64));
        let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
        reach.set_relations(rel);
        let init = reach.state_set(&model.initial);
        let init_pin = reach.dd().pin(init);
        let mut interrupted = 0;
        for budget in [1u64, 100, 1000, 5000, 20_000] {
            for method in [Method::Saturation, Method::Bfs] {
                reach.set_step_budget(budget);
                match reach.explore(init_pin.get(), method) {
                    Err(Interrupted::Budget) => interrupted += 1,
                    Ok(s) => assert_eq!(reach.dd().sets.cardinality(s), states.into()),
                    Err(e) => panic!("{rel:?} {method:?}: {e:?}"),
                }
                // the same engine, caches and all, now without a budget
                reach.set_step_budget(u64::MAX);
                let s = reach.explore(init_pin.get(), method).unwrap();
                assert_eq!(
                    reach.dd().sets.cardinality(s),
                    states.into(),
                    "{rel:?} {method:?} after an interrupt at budget {budget}"
                );
                // constrained by the whole reachable set: the same set
                let pin = reach.dd().pin(s);
                reach.set_step_budget(budget);
                let _ = reach.cons_saturate(pin.get(), init_pin.get());
                reach.set_step_budget(u64::MAX);
                assert_eq!(
                    reach.cons_saturate(pin.get(), init_pin.get()).unwrap(),
                    pin.get()
                );
            }
        }
        assert!(interrupted >= 1, "{rel:?}: never interrupted");
    }
}

#[test]
fn collections_while_an_engine_holds_handles() {
    let (model, states, caps) = kanban();
    let mut dd = Dd::new(model.num_levels());
    let mut fwd = Reach::new(&mut dd, &model, Direction::Forward, None);
    let init = fwd.state_set(&model.initial);
    let init_pin = fwd.dd().pin(init);
    let s = fwd.explore(init, Method::Saturation).unwrap();
    let s_pin = fwd.dd().pin(s);
    // garbage, then a collection from outside the engine: its caches are registered, so they
    // are purged, and its next answers are right although freed ids are reused
    for i in 0..200u32 {
        let t: Vec<u32> = (0..model.num_levels() as u32)
            .map(|k| (k + i) % 3)
            .collect();
        fwd.dd_mut().sets.singleton(&t);
    }
    let freed = fwd.dd_mut().collect();
    assert!(freed > 0);
    assert_eq!(fwd.dd().sets.cardinality(s_pin.get()), states.into());
    for _ in 0..3 {
        let s2 = fwd.explore(init_pin.get(), Method::Bfs).unwrap();
        assert_eq!(s2, s_pin.get(), "the same set is the same node");
        fwd.dd_mut().collect();
    }
    drop(fwd);
    // a backward engine on the same context: its results share node ids with the forward set
    let mut back = Reach::new(&mut dd, &model, Direction::Backward, Some(caps));
    back.dd_mut().set_gc_every(Some(64));
    let b = back.saturate(init_pin.get()).unwrap();
    let b = back.dd_mut().sets.intersect(b, s_pin.get());
    // kanban's initial state is a home state: every reachable state reaches it
    assert_eq!(b, s_pin.get());
    assert!(back.dd().collections() >= 4);
}
