//! `EF φ` and `AG φ` (`φ` free of temporal operators) one formula at a time, by a depth-first
//! search reduced by stubborn sets, as LoLA and TAPAAL search reachability: at each marking
//! only the enabled transitions of a stubborn set none of whose enabled transitions is visible
//! to `φ` are fired ([`saturn_ltl::por::Stubborn`], built from `φ`'s atoms alone), and a
//! marking whose reduced successors reach the depth-first stack is fully expanded (the cycle
//! proviso). These are the conditions under which every run of the net has a
//! stutter-equivalent run in the reduced graph (the ample-set conditions C0-C3 of Peled, the
//! stubborn sets of Valmari), so a `φ`-marking is reachable in the reduced graph exactly when
//! it is in the net; a complete reduced search that met none proves `EF φ` false (`AG ¬φ`
//! true) while visiting only part of the markings.
//!
//! Where the breadth-first search of [`super::explicit`] decides every reachability formula at
//! once over all the markings, this search takes one formula and fewer markings: the formula
//! examinations give it a share of their time before the breadth-first search, which still
//! decides what it left open.

use std::time::Instant;

use saturn_explicit::{Firing, GaveUp, MarkingSet};
use saturn_logic::StateFormula;
use saturn_ltl::por::Stubborn;
use saturn_model::PetriNet;

/// Why a search ended without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cut {
    /// Every transition is visible to the formula: no marking could be reduced, the
    /// breadth-first search does the same work for every formula at once.
    Useless,
    /// The deadline passed or the caller said stop.
    Time,
    /// The markings outgrew the memory given, or a count passed 2^64 - 1.
    Memory,
}

/// One marking on the depth-first stack: its number, the transitions to fire from it and the
/// next one to fire.
struct Frame {
    id: u32,
    fire: Vec<u32>,
    next: usize,
}

/// The bytes a frame holds.
fn frame_bytes(f: &Frame) -> usize {
    std::mem::size_of::<Frame>() + 4 * f.fire.capacity()
}

/// How often (in transitions fired) the search looks at the clock, the stop and the memory.
const POLL: u32 = 128;

/// The reduced search for one formula, with the net's compiled transitions.
pub(super) struct PorReach<'n> {
    net: &'n PetriNet,
    firing: &'n Firing,
    /// Markings visited in the last search.
    pub(super) visited: usize,
    /// The cycle proviso applies (not for a deadlock).
    proviso: bool,
}

impl<'n> PorReach<'n> {
    pub(super) fn new(net: &'n PetriNet, firing: &'n Firing) -> Self {
        PorReach {
            net,
            firing,
            visited: 0,
            proviso: true,
        }
    }

    /// Is a marking satisfying `target` reachable? Searched within `max_bytes` of markings
    /// until `deadline` or `stop`. With `full`, a net to which every transition is visible is
    /// searched in full rather than left ([`Cut::Useless`]).
    pub(super) fn reachable(
        &mut self,
        target: &StateFormula,
        max_bytes: usize,
        deadline: Instant,
        stop: &dyn Fn() -> bool,
        full: bool,
    ) -> Result<bool, Cut> {
        let net = self.net;
        let np = net.places.len();
        // every stubborn set keeps every reachable deadlock (Valmari): for a deadlock alone,
        // no transition need be visible, nor a cycle fully expanded
        let deadlock = *target == StateFormula::Deadlock;
        let atoms = if deadlock {
            &[]
        } else {
            std::slice::from_ref(target)
        };
        self.proviso = !deadlock;
        let mut stubborn = Stubborn::new(net, atoms);
        let nt = net.transitions.len();
        if !full && nt > 0 && stubborn.visible_count() == nt {
            return Err(Cut::Useless);
        }
        let holds = |m: &[u64]| saturn_ltl::net::eval(net, target, m);
        let m0 = net.initial_marking();
        self.visited = 1;
        if holds(&m0) {
            return Ok(true);
        }
        let mut set = MarkingSet::new(max_bytes);
        let id0 = set.insert(&m0).map_err(|_| Cut::Memory)?;
        let mut on_stack = vec![false; 1];
        let mut stack: Vec<Frame> = Vec::new();
        // the marking of the top frame, and scratch
        let mut m = m0;
        let mut next = Vec::new();
        let mut enabled = Vec::new();
        let mut reduced = Vec::new();
        let mut polls = 0u32;
        self.expand(
            id0,
            &m,
            &mut set,
            &mut on_stack,
            &mut stubborn,
            (&mut enabled, &mut reduced, &mut next),
            &mut stack,
        )?;
        // the depth-first stack counts against the budget too (a deep search holds a frame
        // per marking on its path)
        let mut stack_bytes = stack.iter().map(frame_bytes).sum::<usize>();
        while let Some(top) = stack.last_mut() {
            polls += 1;
            if polls == POLL {
                polls = 0;
                if stop() || Instant::now() >= deadline {
                    return Err(Cut::Time);
                }
                if set.bytes() + stack_bytes + on_stack.len() > max_bytes {
                    return Err(Cut::Memory);
                }
            }
            if top.next == top.fire.len() {
                on_stack[top.id as usize] = false;
                stack_bytes -= frame_bytes(top);
                stack.pop();
                if let Some(parent) = stack.last() {
                    set.get(parent.id, np, &mut m);
                }
                continue;
            }
            let t = top.fire[top.next];
            top.next += 1;
            self.firing
                .fire(t, &m, &mut next)
                .map_err(|_| Cut::Memory)?;
            if set.find(&next).is_some() {
                continue;
            }
            if holds(&next) {
                self.visited = set.len() + 1;
                return Ok(true);
            }
            let id = set.insert(&next).map_err(|_| Cut::Memory)?;
            on_stack.push(false);
            std::mem::swap(&mut m, &mut next);
            self.expand(
                id,
                &m,
                &mut set,
                &mut on_stack,
                &mut stubborn,
                (&mut enabled, &mut reduced, &mut next),
                &mut stack,
            )?;
            stack_bytes += stack.last().map_or(0, frame_bytes);
        }
        self.visited = set.len();
        Ok(false)
    }

    /// Push the frame of marking `id` (`m`): the enabled transitions of a stubborn set, or all
    /// of them when there is no reduction or a reduced successor is on the stack.
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &self,
        id: u32,
        m: &[u64],
        set: &mut MarkingSet,
        on_stack: &mut [bool],
        stubborn: &mut Stubborn,
        (enabled, reduced, scratch): (&mut Vec<u32>, &mut Vec<u32>, &mut Vec<u64>),
        stack: &mut Vec<Frame>,
    ) -> Result<(), Cut> {
        self.firing.enabled(m, enabled);
        enabled.sort_unstable();
        reduced.clear();
        // on the stack before the proviso looks: a reduced self-loop is a cycle too
        on_stack[id as usize] = true;
        // the cycle proviso: a reduced successor on the stack closes a cycle of reduced
        // markings, which could ignore a transition forever
        let reduce = stubborn.reduce(m, enabled, reduced)
            && (!self.proviso || !self.closes_cycle(m, reduced, set, on_stack, scratch)?);
        let fire = if reduce {
            reduced.clone()
        } else {
            enabled.clone()
        };
        stack.push(Frame { id, fire, next: 0 });
        Ok(())
    }
}

impl PorReach<'_> {
    /// Does firing one of `reduced` in `m` lead to a marking on the depth-first stack?
    fn closes_cycle(
        &self,
        m: &[u64],
        reduced: &[u32],
        set: &mut MarkingSet,
        on_stack: &[bool],
        scratch: &mut Vec<u64>,
    ) -> Result<bool, Cut> {
        for &t in reduced {
            self.firing
                .fire(t, m, scratch)
                .map_err(|_: GaveUp| Cut::Memory)?;
            if set.find(scratch).is_some_and(|j| on_stack[j as usize]) {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use saturn_reference::strategies;
    use std::time::Duration;

    /// `m(p) >= bound`.
    fn at_least(p: usize, bound: i64) -> StateFormula {
        StateFormula::Atom(saturn_logic::Atom {
            lhs: saturn_logic::LinExpr {
                terms: vec![(p, 1)],
                constant: 0,
            },
            op: saturn_logic::CmpOp::Ge,
            bound,
        })
    }

    /// A random net with a random state formula over it, or (half the time, where reductions
    /// happen most) with more places and an atom or an `enabled` on one or two of them.
    fn net_and_formula() -> BoxedStrategy<(PetriNet, StateFormula)> {
        let any_formula = strategies::random_net(5, 6).prop_flat_map(|net| {
            let (np, nt) = (net.places.len(), net.transitions.len());
            (Just(net), strategies::boolean_formula(np, nt))
        });
        let narrow = strategies::random_net(8, 8).prop_flat_map(|net| {
            let (np, nt) = (net.places.len(), net.transitions.len());
            let atom = (any::<bool>(), 0..np, 1i64..=3, 0..nt.max(1)).prop_map(
                move |(fireable, p, bound, t)| {
                    if fireable && nt > 0 {
                        StateFormula::Enabled(vec![t])
                    } else {
                        at_least(p, bound)
                    }
                },
            );
            (Just(net), atom)
        });
        prop_oneof![any_formula, narrow].boxed()
    }

    proptest! {
        #![proptest_config(strategies::config(600))]
        /// On random nets and random state formulas (cardinality, fireability and deadlock
        /// atoms), the reduced search finds a target exactly when some reachable marking
        /// satisfies it, visiting no more markings than there are.
        #[test]
        fn the_reduced_search_agrees_with_every_marking((net, f) in net_and_formula()) {
            let Ok(all) = saturn_reference::explore_petri(&net, 1 << 12) else {
                return Err(strategies::discard("unbounded or large"));
            };
            let want = all.markings.iter().any(|m| saturn_ltl::net::eval(&net, &f, m));
            let firing = Firing::new(&net);
            let mut search = PorReach::new(&net, &firing);
            let far = Instant::now() + Duration::from_secs(60);
            match search.reachable(&f, 1 << 24, far, &|| false, false) {
                Ok(got) => {
                    prop_assert_eq!(got, want, "{:?}", f);
                    prop_assert!(search.visited <= all.states);
                }
                Err(Cut::Useless) => {}
                Err(e) => prop_assert!(false, "cut: {:?}", e),
            }
        }
    }

    /// A random net whose transitions may empty it: half the time five to eight places and
    /// as many transitions, each of one or two arcs in and at most one out.
    fn dying_net() -> BoxedStrategy<PetriNet> {
        let draining = (5usize..=8).prop_flat_map(|np| {
            let arc = (0..np, 1u64..=2);
            let t = (
                proptest::collection::vec(arc.clone(), 1..=2),
                proptest::collection::vec(arc, 0..=1),
            );
            (
                proptest::collection::vec(0u64..=2, np),
                proptest::collection::vec(t, 1..=np),
            )
                .prop_map(|(m0, ts)| {
                    let ts = ts.into_iter().map(|(i, o)| (i, o, vec![])).collect();
                    strategies::petri_net(&m0, ts)
                })
        });
        prop_oneof![strategies::random_net(5, 6), draining].boxed()
    }

    proptest! {
        #![proptest_config(strategies::config(600))]
        /// A deadlock as the whole target: no transition is visible, every stubborn set keeps
        /// the deadlocks, and the search finds one exactly when the net has one.
        #[test]
        fn the_reduced_search_finds_a_deadlock_when_there_is_one(net in dying_net()) {
            let Ok(all) = saturn_reference::explore_petri(&net, 1 << 12) else {
                return Err(strategies::discard("unbounded or large"));
            };
            let want = all.markings.iter().any(|m| {
                (0..net.transitions.len()).all(|t| !net.enabled(t, m))
            });
            let firing = Firing::new(&net);
            let mut search = PorReach::new(&net, &firing);
            let far = Instant::now() + Duration::from_secs(60);
            let got = search.reachable(&StateFormula::Deadlock, 1 << 24, far, &|| false, false);
            prop_assert_eq!(got, Ok(want));
            prop_assert!(search.visited <= all.states);
        }
    }

    /// Twelve independent processes, each of which stops after two steps: 3^12 = 531,441
    /// markings, one deadlock at the end; the reduced search runs the processes one after
    /// the other and finds it after a few dozen.
    #[test]
    fn a_deadlock_is_found_without_the_interleavings() {
        let mut m0 = Vec::new();
        let mut ts = Vec::new();
        for k in 0..12 {
            m0.extend([1, 0, 0]);
            ts.push((vec![(3 * k, 1)], vec![(3 * k + 1, 1)], vec![]));
            ts.push((vec![(3 * k + 1, 1)], vec![(3 * k + 2, 1)], vec![]));
        }
        let net = strategies::petri_net(&m0, ts.clone());
        let firing = Firing::new(&net);
        let mut search = PorReach::new(&net, &firing);
        let far = Instant::now() + Duration::from_secs(60);
        let got = search.reachable(&StateFormula::Deadlock, 1 << 24, far, &|| false, false);
        assert_eq!(got, Ok(true));
        assert!(search.visited <= 100, "{} markings visited", search.visited);
        // and the same net kept alive by a loop on the last process: no deadlock, proven
        // without the interleavings either
        let mut ts2 = ts;
        ts2.push((vec![(35, 1)], vec![(35, 1)], vec![]));
        let net = strategies::petri_net(&m0, ts2);
        let firing = Firing::new(&net);
        let mut search = PorReach::new(&net, &firing);
        let got = search.reachable(&StateFormula::Deadlock, 1 << 24, far, &|| false, false);
        assert_eq!(got, Ok(false));
        // no cycle proviso for a deadlock: the loop at the end is not expanded in full
        assert!(search.visited <= 100, "{} markings visited", search.visited);
    }

    /// Two million markings along a deep chain, a budget of 64 KiB: the search ends cut for memory
    /// (its markings and its depth-first stack both count), soon, without an answer.
    #[test]
    fn a_deep_search_stops_at_its_budget() {
        // and a token going round two places beside it (transitions the target does not see)
        let net = strategies::petri_net(
            &[1_000_000, 0, 1, 0],
            vec![
                (vec![(0, 1)], vec![(1, 1)], vec![]),
                (vec![(2, 1)], vec![(3, 1)], vec![]),
                (vec![(3, 1)], vec![(2, 1)], vec![]),
            ],
        );
        let target = at_least(1, 2_000_000);
        let firing = Firing::new(&net);
        let mut search = PorReach::new(&net, &firing);
        let far = Instant::now() + Duration::from_secs(60);
        let started = Instant::now();
        assert_eq!(
            search.reachable(&target, 1 << 16, far, &|| false, false),
            Err(Cut::Memory)
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    /// Two independent counters and a target on the first: the reduced search leaves the
    /// second alone and visits a few markings where the net has many.
    #[test]
    fn independent_moves_are_not_interleaved() {
        // p0 -> p1 (t0) one token at a time, and ten tokens moving q0 -> q1 (t1): 11 x 11
        // markings, of which a search for p1 >= 10 needs the eleven of the first counter
        let net = strategies::petri_net(
            &[10, 0, 10, 0],
            vec![
                (vec![(0, 1)], vec![(1, 1)], vec![]),
                (vec![(2, 1)], vec![(3, 1)], vec![]),
            ],
        );
        let target = at_least(1, 11);
        let firing = Firing::new(&net);
        let mut search = PorReach::new(&net, &firing);
        let far = Instant::now() + Duration::from_secs(60);
        assert_eq!(
            search.reachable(&target, 1 << 20, far, &|| false, false),
            Ok(false)
        );
        assert!(search.visited <= 22, "{} markings visited", search.visited);
    }
}
