//! The explicit CTL checker, SCC helpers and global properties against independent references:
//! hand-made nets with hand-computed answers (the deadlock readings), and on random small nets
//! naive fixpoint iteration over the explored successor lists (no worklists, no SCCs),
//! reachability closures, brute force over state subsets for Streett-fair cycles, and the CTL
//! definitions of the global properties.

use proptest::prelude::*;
use saturn_logic::{Atom, CmpOp, LinExpr, StateFormula as F};
use saturn_model::PetriNet;
use saturn_reference::strategies::{
    boolean_formula, config, ctl_formula, discard, petri_net, random_net,
};
use saturn_reference::{
    explore_petri, global_properties, streett_fair_states, CtlChecker, Deadlocks,
    ExplicitStateSpace, Graph, Sccs, StreettPair,
};

fn net(places: &[u64], transitions: &[(&[usize], &[usize])]) -> PetriNet {
    let arcs = |v: &[usize]| v.iter().map(|&p| (p, 1)).collect();
    petri_net(
        places,
        transitions
            .iter()
            .map(|(i, o)| (arcs(i), arcs(o), vec![]))
            .collect(),
    )
}

/// `m(p) >= 1`.
fn marked(p: usize) -> F {
    F::Atom(Atom {
        lhs: LinExpr {
            terms: vec![(p, 1)],
            constant: 0,
        },
        op: CmpOp::Ge,
        bound: 1,
    })
}

fn bx(f: F) -> Box<F> {
    Box::new(f)
}

#[test]
fn deadlock_readings_on_a_two_state_chain() {
    // p0 --t0--> p1; (0,1) is a deadlock.
    let n = net(&[1, 0], &[(&[0], &[1])]);
    let space = explore_petri(&n, 10).unwrap();
    let max = CtlChecker::new(&n, &space, Deadlocks::Maximal);
    let lp = CtlChecker::new(&n, &space, Deadlocks::SelfLoop);
    let at_dead = |c: &CtlChecker, f: F| c.sat(&f).unwrap()[1];
    // maximal: EX false, AX true at the deadlock; self-loop: both are the argument
    assert!(!at_dead(&max, F::EX(bx(F::Const(true)))));
    assert!(at_dead(&max, F::AX(bx(F::Const(false)))));
    assert!(at_dead(&lp, F::EX(bx(marked(1)))));
    assert!(!at_dead(&lp, F::AX(bx(marked(0)))));
    for c in [&max, &lp] {
        // EG and AF reduce to their argument, EU / AU need the right operand
        assert!(at_dead(c, F::EG(bx(marked(1)))));
        assert!(!at_dead(c, F::AF(bx(marked(0)))));
        assert!(at_dead(c, F::AF(bx(marked(1)))));
        assert!(!at_dead(c, F::AU(bx(F::Const(true)), bx(marked(0)))));
        // from the initial state: AF p1, EG true, AG EF p1, not EG p0
        assert!(c.holds(&F::AF(bx(marked(1)))).unwrap());
        assert!(c.holds(&F::EG(bx(F::Const(true)))).unwrap());
        assert!(c.holds(&F::AG(bx(F::EF(bx(marked(1)))))).unwrap());
        assert!(!c.holds(&F::EG(bx(marked(0)))).unwrap());
    }
    // AX AX false: maximal true (the path ends), self-loop false
    let axax = F::AX(bx(F::AX(bx(F::Const(false)))));
    assert!(max.holds(&axax).unwrap());
    assert!(!lp.holds(&axax).unwrap());
}

#[test]
fn fair_eg_needs_an_infinite_path_through_every_fair_set() {
    // a cycle p0 <-> p1 (t0, t1), and t2: p0 -> p2, a deadlock.
    let n = net(&[1, 0, 0], &[(&[0], &[1]), (&[1], &[0]), (&[0], &[2])]);
    let space = explore_petri(&n, 10).unwrap();
    // states: 0 = p0, 1 = p1, 2 = p2
    let eg_true = F::EG(bx(F::Const(true)));
    let max = CtlChecker::new(&n, &space, Deadlocks::Maximal);
    let fair_p2 = |d| {
        CtlChecker::new(&n, &space, d)
            .with_fairness(&[marked(2)])
            .unwrap()
    };
    assert_eq!(max.sat(&eg_true).unwrap(), vec![true; 3]);
    // fairness p2: only the deadlock's loop visits p2, and only under the self-loop reading
    assert_eq!(
        fair_p2(Deadlocks::Maximal).sat(&eg_true).unwrap(),
        vec![false; 3]
    );
    assert_eq!(
        fair_p2(Deadlocks::SelfLoop).sat(&eg_true).unwrap(),
        vec![true; 3]
    );
    // fairness p1: the cycle is fair; the deadlock is not
    let fair_p1 = CtlChecker::new(&n, &space, Deadlocks::SelfLoop)
        .with_fairness(&[marked(1)])
        .unwrap();
    let s = fair_p1.sat(&eg_true).unwrap();
    assert_eq!(s, vec![true, true, false]);
    // AF under fairness by duality: every fair path from p0 meets p1
    assert!(fair_p1.holds(&F::AF(bx(marked(1)))).unwrap());
    assert!(!max.holds(&F::AF(bx(marked(1)))).unwrap());
}

#[test]
fn streett_pairs_need_one_common_cycle() {
    // Two cycles through state 0: 0 <-> 1 and 0 <-> 2. Pair 1 forbids 2 (R = {2}, C = {}),
    // pair 2 forbids 1. Each cycle violates one pair and their union violates both, so no state
    // lies on a fair cycle, while the per-pair intersection of thesis Figure 4.8 keeps state 0.
    let g = Graph::from_edges(3, vec![(0, 1), (1, 0), (0, 2), (2, 0)]);
    let pairs = [
        StreettPair {
            r: vec![false, false, true],
            c: vec![false; 3],
        },
        StreettPair {
            r: vec![false, true, false],
            c: vec![false; 3],
        },
    ];
    assert_eq!(streett_fair_states(&g, &pairs), vec![false; 3]);
    assert_eq!(
        streett_fair_states(&g, &pairs[..1]),
        vec![true, true, false]
    );
    assert_eq!(streett_fair_states(&g, &[]), vec![true; 3]);
}

// ------------------------------------------------------------------ naive references

/// Naive checker: every operator as a fixpoint iterated to stability over the successor lists
/// of the explored space.
struct Naive<'a> {
    net: &'a PetriNet,
    space: &'a ExplicitStateSpace<Vec<u64>>,
    deadlocks: Deadlocks,
    fair: Vec<Vec<bool>>,
}

impl Naive<'_> {
    fn n(&self) -> usize {
        self.space.states
    }
    fn succ(&self, s: usize) -> impl Iterator<Item = usize> + '_ {
        self.space.successors[s].iter().map(|e| e.1)
    }
    fn dead(&self, s: usize) -> bool {
        self.space.successors[s].is_empty()
    }
    fn map(&self, f: impl Fn(usize) -> bool) -> Vec<bool> {
        (0..self.n()).map(f).collect()
    }
    /// Successor in `z` (a deadlock's own loop counts when `loops`).
    fn post_in(&self, s: usize, z: &[bool], loops: bool) -> bool {
        self.succ(s).any(|t| z[t]) || (loops && self.dead(s) && z[s])
    }
    fn lfp(&self, f: impl Fn(&[bool]) -> Vec<bool>) -> Vec<bool> {
        let mut z = vec![false; self.n()];
        loop {
            let next = f(&z);
            if next == z {
                return z;
            }
            z = next;
        }
    }
    fn gfp(&self, f: impl Fn(&[bool]) -> Vec<bool>) -> Vec<bool> {
        let mut z = vec![true; self.n()];
        loop {
            let next = f(&z);
            if next == z {
                return z;
            }
            z = next;
        }
    }
    fn eu(&self, a: &[bool], b: &[bool]) -> Vec<bool> {
        self.lfp(|z| self.map(|s| b[s] || (a[s] && self.post_in(s, z, false))))
    }
    /// Emerson-Lei: `νZ. a ∧ EX Z ∧ ⋀_i EX E[a U (Z ∧ F_i)]` over infinite paths.
    fn eg_fair(&self, a: &[bool]) -> Vec<bool> {
        let loops = self.deadlocks == Deadlocks::SelfLoop;
        self.gfp(|z| {
            let reach: Vec<Vec<bool>> = self
                .fair
                .iter()
                .map(|f| {
                    let zf: Vec<bool> = self.map(|s| z[s] && f[s]);
                    self.eu(a, &zf)
                })
                .collect();
            self.map(|s| {
                a[s] && self.post_in(s, z, loops) && reach.iter().all(|r| self.post_in(s, r, loops))
            })
        })
    }
    fn eg(&self, a: &[bool]) -> Vec<bool> {
        if !self.fair.is_empty() {
            return self.eg_fair(a);
        }
        self.gfp(|z| self.map(|s| a[s] && (self.dead(s) || self.post_in(s, z, false))))
    }
    fn sat(&self, f: &F) -> Vec<bool> {
        let not = |v: Vec<bool>| v.into_iter().map(|x| !x).collect::<Vec<_>>();
        let loops = self.deadlocks == Deadlocks::SelfLoop;
        match f {
            F::Const(b) => vec![*b; self.n()],
            F::Deadlock => self.map(|s| self.dead(s)),
            F::Atom(a) => self.map(|s| a.eval(&self.space.markings[s])),
            F::Enabled(ts) => self.map(|s| {
                let m = &self.space.markings[s];
                ts.iter().any(|&t| {
                    let tr = &self.net.transitions[t];
                    tr.inputs.iter().all(|a| m[a.place] >= a.weight)
                        && tr.inhibitors.iter().all(|a| m[a.place] < a.weight)
                })
            }),
            F::Not(a) => not(self.sat(a)),
            F::And(v) => {
                let sets: Vec<_> = v.iter().map(|a| self.sat(a)).collect();
                self.map(|s| sets.iter().all(|x| x[s]))
            }
            F::Or(v) => {
                let sets: Vec<_> = v.iter().map(|a| self.sat(a)).collect();
                self.map(|s| sets.iter().any(|x| x[s]))
            }
            F::Implies(a, b) => {
                let (a, b) = (self.sat(a), self.sat(b));
                self.map(|s| !a[s] || b[s])
            }
            F::Iff(a, b) => {
                let (a, b) = (self.sat(a), self.sat(b));
                self.map(|s| a[s] == b[s])
            }
            F::EX(a) => {
                let a = self.sat(a);
                self.map(|s| self.post_in(s, &a, loops))
            }
            F::AX(a) => {
                let a = self.sat(a);
                self.map(|s| {
                    if self.dead(s) {
                        !loops || a[s]
                    } else {
                        self.succ(s).all(|t| a[t])
                    }
                })
            }
            F::EF(a) => self.eu(&vec![true; self.n()], &self.sat(a)),
            F::AG(a) => not(self.eu(&vec![true; self.n()], &not(self.sat(a)))),
            F::EU(a, b) => self.eu(&self.sat(a), &self.sat(b)),
            F::EG(a) => self.eg(&self.sat(a)),
            F::AF(a) => not(self.eg(&not(self.sat(a)))),
            F::AU(a, b) => {
                let (a, b) = (self.sat(a), self.sat(b));
                if self.fair.is_empty() {
                    // μZ. b ∨ (a ∧ ¬deadlock ∧ every successor in Z)
                    self.lfp(|z| {
                        self.map(|s| b[s] || (a[s] && !self.dead(s) && self.succ(s).all(|t| z[t])))
                    })
                } else {
                    let nb: Vec<bool> = not(b.clone());
                    let stop: Vec<bool> = self.map(|s| !a[s] && !b[s]);
                    let e1 = self.eu(&nb, &stop);
                    let e2 = self.eg(&nb);
                    self.map(|s| !e1[s] && !e2[s])
                }
            }
            F::A(_) | F::E(_) => unreachable!("the strategies make CTL only"),
        }
    }
}

/// `reach[s][t]`: is `t` reachable from `s` in one or more steps?
fn closure(g: &Graph) -> Vec<Vec<bool>> {
    let n = g.num_states();
    (0..n)
        .map(|s| {
            let mut seen = vec![false; n];
            let mut stack: Vec<usize> = g.succ(s).iter().map(|&t| t as usize).collect();
            while let Some(t) = stack.pop() {
                if !seen[t] {
                    seen[t] = true;
                    stack.extend(g.succ(t).iter().map(|&u| u as usize));
                }
            }
            seen
        })
        .collect()
}

/// A random net and a random formula over its places and transitions.
fn net_and(formula: fn(usize, usize) -> BoxedStrategy<F>) -> impl Strategy<Value = (PetriNet, F)> {
    random_net(8, 10).prop_flat_map(move |net| {
        let f = formula(net.places.len(), net.transitions.len());
        (Just(net), f)
    })
}

fn explored(net: &PetriNet) -> Option<ExplicitStateSpace<Vec<u64>>> {
    explore_petri(net, 300).ok()
}

proptest! {
    #![proptest_config(config(300))]

    /// The checker equals naive fixpoint iteration, in both deadlock readings.
    #[test]
    fn checker_matches_naive_fixpoints((net, f) in net_and(ctl_formula), self_loop in any::<bool>()) {
        let Some(space) = explored(&net) else { return Err(discard("unbounded or too large for the reference")) };
        let d = if self_loop { Deadlocks::SelfLoop } else { Deadlocks::Maximal };
        let checker = CtlChecker::new(&net, &space, d);
        let naive = Naive { net: &net, space: &space, deadlocks: d, fair: vec![] };
        prop_assert_eq!(checker.sat(&f).unwrap(), naive.sat(&f));
    }

    /// Under weak fairness (EG, and AF / AU through their dualities) the checker equals the
    /// Emerson-Lei fixpoint.
    #[test]
    fn fair_checker_matches_emerson_lei(
        (net, f, fair) in net_and(ctl_formula).prop_flat_map(|(net, f)| {
            let fair = proptest::collection::vec(
                boolean_formula(net.places.len(), net.transitions.len()), 1..=2);
            (Just(net), Just(f), fair)
        }),
        self_loop in any::<bool>(),
    ) {
        let Some(space) = explored(&net) else { return Err(discard("unbounded or too large for the reference")) };
        let d = if self_loop { Deadlocks::SelfLoop } else { Deadlocks::Maximal };
        let plain = CtlChecker::new(&net, &space, d);
        let fair_sets: Vec<Vec<bool>> = fair.iter().map(|g| plain.sat(g).unwrap()).collect();
        let checker = CtlChecker::new(&net, &space, d).with_fairness(&fair).unwrap();
        let naive = Naive { net: &net, space: &space, deadlocks: d, fair: fair_sets };
        prop_assert_eq!(checker.sat(&f).unwrap(), naive.sat(&f));
    }

    /// Fair EG with no fair set is EG over infinite paths: plain EG minus the paths that end in
    /// a deadlock (maximal reading), plain EG itself (self-loop reading).
    #[test]
    fn eg_fair_without_sets_is_infinite_eg((net, g) in net_and(boolean_formula)) {
        let Some(space) = explored(&net) else { return Err(discard("unbounded or too large for the reference")) };
        let max = CtlChecker::new(&net, &space, Deadlocks::Maximal);
        let lp = CtlChecker::new(&net, &space, Deadlocks::SelfLoop);
        let a = max.sat(&g).unwrap();
        let dead = max.deadlock_set();
        let a_dead: Vec<bool> = a.iter().zip(&dead).map(|(x, y)| *x && *y).collect();
        let mut expect = max.eg_fair(&a, &[]);
        for (e, x) in expect.iter_mut().zip(max.eu(&a, &a_dead)) {
            *e |= x;
        }
        prop_assert_eq!(max.eg(&a), expect);
        prop_assert_eq!(lp.eg_fair(&a, &[]), lp.eg(&a));
    }

    /// EU distances: zero exactly on `b`, defined exactly on `E[a U b]`, and one more than the
    /// nearest successor elsewhere (the Bellman equation of shortest paths).
    #[test]
    fn eu_distances_are_shortest((net, f) in net_and(boolean_formula), g in any::<u8>()) {
        let Some(space) = explored(&net) else { return Err(discard("unbounded or too large for the reference")) };
        let c = CtlChecker::new(&net, &space, Deadlocks::Maximal);
        let b = c.sat(&f).unwrap();
        let a: Vec<bool> = (0..c.num_states()).map(|s| !(s as u8 ^ g).is_multiple_of(3)).collect();
        let dist = c.eu_distances(&a, &b);
        let eu = c.eu(&a, &b);
        for s in 0..c.num_states() {
            prop_assert_eq!(dist[s].is_some(), eu[s]);
            if b[s] {
                prop_assert_eq!(dist[s], Some(0));
            } else if let Some(d) = dist[s] {
                prop_assert!(a[s]);
                let best = c.graph().succ(s).iter().filter_map(|&t| dist[t as usize]).min();
                prop_assert_eq!(Some(d), best.map(|x| x + 1));
            }
        }
    }

    /// SCC helpers against the reachability closure: cycle states, the number of nontrivial
    /// SCCs, terminal and bottom SCCs.
    #[test]
    fn sccs_match_the_closure(net in random_net(8, 10)) {
        let Some(space) = explored(&net) else { return Err(discard("unbounded or too large for the reference")) };
        let g = Graph::new(&space);
        let reach = closure(&g);
        let n = g.num_states();
        let sccs = Sccs::new(&g);
        let on_cycle: Vec<bool> = (0..n).map(|s| reach[s][s]).collect();
        prop_assert_eq!(sccs.cycle_states(), on_cycle.clone());
        // classes of mutual reachability among cycle states
        let mut rep: Vec<usize> = (0..n).collect();
        for s in 0..n {
            rep[s] = (0..n).find(|&t| t == s || (reach[s][t] && reach[t][s])).unwrap();
        }
        let classes: std::collections::BTreeSet<usize> =
            (0..n).filter(|&s| on_cycle[s]).map(|s| rep[s]).collect();
        prop_assert_eq!(sccs.nontrivial_count(), classes.len());
        // a class is closed when everything reachable from it is in it
        let closed = |s: usize| (0..n).all(|t| !reach[s][t] || rep[t] == rep[s]);
        let members = |r: usize| (0..n).filter(|&s| rep[s] == r).map(|s| s as u32).collect::<Vec<_>>();
        let terminal: Vec<Vec<u32>> = classes.iter().copied().filter(|&r| closed(r)).map(members).collect();
        let mut got = sccs.terminal();
        got.sort();
        let mut want = terminal;
        want.sort();
        prop_assert_eq!(got, want);
        let reps: std::collections::BTreeSet<usize> = rep.iter().copied().collect();
        let mut bottom: Vec<Vec<u32>> = reps.into_iter().filter(|&r| closed(r)).map(members).collect();
        bottom.sort();
        let mut got = sccs.bottom();
        got.sort();
        prop_assert_eq!(got, bottom);
    }

    /// Streett-fair cycle states against brute force: a state is on a fair cycle iff it belongs
    /// to a set of states whose induced subgraph is strongly connected, holds a cycle, and
    /// satisfies every pair.
    #[test]
    fn streett_matches_brute_force(
        n in 1usize..=7,
        edges in proptest::collection::vec((0u32..7, 0u32..7), 0..=14),
        pairs in proptest::collection::vec((any::<u8>(), any::<u8>()), 0..=3),
    ) {
        let edges: Vec<(u32, u32)> = edges.into_iter().filter(|e| (e.0 as usize) < n && (e.1 as usize) < n).collect();
        let g = Graph::from_edges(n, edges);
        let bits = |m: u8| (0..n).map(|s| m >> s & 1 == 1).collect::<Vec<bool>>();
        let pairs: Vec<StreettPair> = pairs.into_iter().map(|(r, c)| StreettPair { r: bits(r), c: bits(c) }).collect();
        let mut want = vec![false; n];
        for mask in 1u32..(1 << n) {
            let inside = |s: usize| mask >> s & 1 == 1;
            let members: Vec<usize> = (0..n).filter(|&s| inside(s)).collect();
            // strongly connected with a cycle: every member reaches every member (itself
            // included) in one or more steps inside the set
            let strongly = members.iter().all(|&s| {
                let mut seen = vec![false; n];
                let mut stack = vec![s];
                while let Some(x) = stack.pop() {
                    for &t in g.succ(x) {
                        let t = t as usize;
                        if inside(t) && !seen[t] {
                            seen[t] = true;
                            stack.push(t);
                        }
                    }
                }
                members.iter().all(|&t| seen[t])
            });
            let fair = pairs.iter().all(|p| !members.iter().any(|&s| p.r[s]) || members.iter().any(|&s| p.c[s]));
            if strongly && fair {
                members.iter().for_each(|&s| want[s] = true);
            }
        }
        prop_assert_eq!(streett_fair_states(&g, &pairs), want);
    }

    /// The global properties equal their CTL definitions.
    #[test]
    fn global_properties_match_ctl(net in random_net(8, 10)) {
        let Some(space) = explored(&net) else { return Err(discard("unbounded or too large for the reference")) };
        let c = CtlChecker::new(&net, &space, Deadlocks::Maximal);
        let p = global_properties(&net, &space, c.graph());
        let nt = net.transitions.len();
        let holds = |f: F| c.holds(&f).unwrap();
        let en = |t: usize| F::Enabled(vec![t]);
        prop_assert_eq!(p.reachability_deadlock, holds(F::EF(bx(F::Deadlock))));
        prop_assert_eq!(p.quasi_liveness, (0..nt).all(|t| holds(F::EF(bx(en(t))))));
        prop_assert_eq!(p.liveness, (0..nt).all(|t| holds(F::AG(bx(F::EF(bx(en(t))))))));
        let le1 = |q: usize| F::Not(bx(F::Atom(Atom { lhs: LinExpr { terms: vec![(q, 1)], constant: 0 }, op: CmpOp::Gt, bound: 1 })));
        prop_assert_eq!(p.one_safe, (0..net.places.len()).all(|q| holds(F::AG(bx(le1(q))))));
        let stable = (0..net.places.len()).any(|q| {
            let k = space.markings[0][q] as i64;
            holds(F::AG(bx(F::Atom(Atom { lhs: LinExpr { terms: vec![(q, 1)], constant: 0 }, op: CmpOp::Eq, bound: k }))))
        });
        prop_assert_eq!(p.stable_marking, stable);
    }
}
