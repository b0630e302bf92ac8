//! One-hot groups of places on one level (issue 12: unfolded counters such as
//! BridgeAndVehicles' `NB_ATTENTE_A_0..80`, and the local states of a process).
//!
//! A *one-hot group* is a set of places that always holds exactly one token: the support of a
//! P-semiflow whose weights are all 1 (every transition takes from the group as many tokens as
//! it gives back) with one token in the initial marking, and no inhibitor arc on its places.
//! Its reachable sub-markings are "place `i` marked" for the places `i` of the group, so it is
//! one variable whose local state is the index of its marked place: the thesis's
//! decomposition of a model into submodels with local state spaces (Chapter 2, Definition 5),
//! instead of one binary level per place. A transition that moves the token from place `i` to
//! place `j` is the local function "enabled in `i`, to `j`" (`need = i`, `inhibit = i + 1`,
//! `delta = j - i`), a test of place `i` is the same with `j = i`; one that needs two tokens
//! of a group is never enabled.
//!
//! Orders are computed on the [`OneHot::quotient`] net, where each group is one place holding
//! one token, and [`OneHot::to_model`] lowers the net with such an order. A one-hot level
//! records its places ([`crate::Level::group`]): the StateSpace figures count its one token,
//! and a formula's atoms read place `group[j]` as `[i == j]` at local state `i`. Transition `t`
//! stays event `t`.

use crate::petri::{check_initial, LowerError};
use crate::{Arc, Event, Level, LocalFn, Model, PetriNet, Place, Transition};

/// The one-hot groups chosen for a net, and its places grouped into units (a unit is one
/// level: a place of its own, or a group).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OneHot {
    /// The groups, each its places in increasing index (local state `i` is its `i`-th place).
    pub groups: Vec<Vec<usize>>,
    /// Per place of the net: its unit (a place of the quotient net) and its index in its group
    /// (0 for a place of its own).
    unit_of: Vec<(usize, u32)>,
    /// Per unit: its group, if it is one.
    group_of_unit: Vec<Option<usize>>,
    /// Per unit: its first place (the place itself for a place of its own).
    first_place: Vec<usize>,
    /// The net's number of places. With no groups the three tables above stay empty (every
    /// place is its own unit, in place order), so plain lowering allocates none of them.
    places: usize,
}

/// Is `support` a one-hot group of `net`? Every place has no inhibitor arc, the initial
/// marking puts one token on it, and every transition takes as many tokens from it as it
/// gives (weights 1: a P-semiflow). `touching[p]` lists the transitions with an arc on `p`.
fn is_one_hot(net: &PetriNet, support: &[usize], touching: &[Vec<usize>]) -> bool {
    if support.len() < 2 || support.iter().any(|&p| p >= net.places.len()) {
        return false;
    }
    let initial: u64 = support.iter().map(|&p| net.places[p].initial.min(2)).sum();
    if initial != 1 {
        return false;
    }
    let mut ts: Vec<usize> = support
        .iter()
        .flat_map(|&p| touching[p].iter().copied())
        .collect();
    ts.sort_unstable();
    ts.dedup();
    let inside = |a: &&Arc| support.binary_search(&a.place).is_ok();
    ts.iter().all(|&t| {
        let tr = &net.transitions[t];
        let take: u64 = tr.inputs.iter().filter(inside).map(|a| a.weight).sum();
        let give: u64 = tr.outputs.iter().filter(inside).map(|a| a.weight).sum();
        take == give && !tr.inhibitors.iter().any(|a| inside(&a))
    })
}

impl OneHot {
    /// The one-hot groups among `supports` (P-semiflow supports, sorted), chosen greedily
    /// largest first among those disjoint from the groups already chosen. No groups when none
    /// qualifies.
    pub fn find(net: &PetriNet, supports: &[Vec<usize>]) -> OneHot {
        let n = net.places.len();
        let mut touching = vec![Vec::new(); n];
        for (t, tr) in net.transitions.iter().enumerate() {
            for a in tr.inputs.iter().chain(&tr.outputs).chain(&tr.inhibitors) {
                if a.place < n {
                    touching[a.place].push(t);
                }
            }
        }
        let mut candidates: Vec<&Vec<usize>> = supports
            .iter()
            .filter(|s| s.windows(2).all(|w| w[0] < w[1]) && is_one_hot(net, s, &touching))
            .collect();
        candidates.sort_by_key(|s| std::cmp::Reverse(s.len()));
        let mut taken = vec![false; n];
        let mut groups = Vec::new();
        for s in candidates {
            if s.iter().all(|&p| !taken[p]) {
                for &p in s {
                    taken[p] = true;
                }
                groups.push(s.clone());
            }
        }
        OneHot::new(n, groups)
    }

    /// No groups: every place a unit of its own ([`PetriNet::to_model`]).
    pub fn none(n: usize) -> OneHot {
        OneHot::new(n, Vec::new())
    }

    /// The units of `n` places with the given groups (disjoint, each sorted): a group's unit
    /// stands where its first place stands among the places, so the file order of the
    /// quotient is the file order of the net with each group gathered at its first place.
    fn new(n: usize, groups: Vec<Vec<usize>>) -> OneHot {
        if groups.is_empty() {
            return OneHot {
                groups,
                unit_of: Vec::new(),
                group_of_unit: Vec::new(),
                first_place: Vec::new(),
                places: n,
            };
        }
        let mut unit_of = vec![(usize::MAX, 0u32); n];
        let mut group_at = vec![usize::MAX; n];
        for (g, places) in groups.iter().enumerate() {
            group_at[places[0]] = g;
        }
        let mut group_of_unit = Vec::new();
        let mut first_place = Vec::new();
        for p in 0..n {
            if group_at[p] != usize::MAX {
                let g = group_at[p];
                for (i, &q) in groups[g].iter().enumerate() {
                    unit_of[q] = (group_of_unit.len(), i as u32);
                }
                group_of_unit.push(Some(g));
                first_place.push(p);
            } else if unit_of[p].0 == usize::MAX {
                unit_of[p] = (group_of_unit.len(), 0);
                group_of_unit.push(None);
                first_place.push(p);
            }
        }
        OneHot {
            groups,
            unit_of,
            group_of_unit,
            first_place,
            places: n,
        }
    }

    /// Place `p`'s unit and its index in its group.
    #[inline]
    fn unit(&self, p: usize) -> (usize, u32) {
        if self.groups.is_empty() {
            (p, 0)
        } else {
            self.unit_of[p]
        }
    }

    /// Unit `u`'s group, if it is one.
    #[inline]
    fn group(&self, u: usize) -> Option<usize> {
        if self.groups.is_empty() {
            None
        } else {
            self.group_of_unit[u]
        }
    }

    /// Unit `u`'s first place.
    #[inline]
    fn first(&self, u: usize) -> usize {
        if self.groups.is_empty() {
            u
        } else {
            self.first_place[u]
        }
    }

    /// The number of units (levels of a model lowered with these groups).
    pub fn units(&self) -> usize {
        if self.groups.is_empty() {
            self.places
        } else {
            self.group_of_unit.len()
        }
    }

    /// Sets of places as sets of units (each sorted, without repeats): the P-semiflow
    /// supports of the net as hyperedges of the [`OneHot::quotient`] net, for its orders.
    pub fn units_of(&self, sets: &[Vec<usize>]) -> Vec<Vec<usize>> {
        sets.iter()
            .map(|s| {
                let mut u: Vec<usize> = s
                    .iter()
                    .filter(|&&p| p < self.places)
                    .map(|&p| self.unit(p).0)
                    .collect();
                u.sort_unstable();
                u.dedup();
                u
            })
            .collect()
    }

    /// The net's marking of a state of a model lowered with these groups: `order` as given to
    /// [`OneHot::to_model`], `state[k]` the local state of level `k + 1`.
    pub fn marking(&self, order: &[usize], state: &[u32]) -> Vec<u64> {
        let mut m = vec![0u64; self.places];
        for (&u, &i) in order.iter().zip(state) {
            if u >= self.units() {
                continue;
            }
            match self.group(u) {
                None => m[self.first(u)] = u64::from(i),
                Some(g) => {
                    if let Some(&p) = self.groups[g].get(i as usize) {
                        m[p] = 1;
                    }
                }
            }
        }
        m
    }

    /// The net with each group replaced by one place that holds one token: a transition takes
    /// from it (and gives to it) the tokens it takes from (gives to) the group. Orders computed
    /// on it are orders of the units.
    pub fn quotient(&self, net: &PetriNet) -> PetriNet {
        let places = (0..self.units())
            .map(|u| {
                let p = &net.places[self.first(u)];
                Place {
                    id: p.id.clone(),
                    name: p.name.clone(),
                    initial: if self.group(u).is_some() {
                        1
                    } else {
                        p.initial
                    },
                }
            })
            .collect();
        let fold = |arcs: &[Arc]| -> Vec<Arc> {
            let mut out: Vec<Arc> = Vec::with_capacity(arcs.len());
            for a in arcs {
                let u = self.unit(a.place).0;
                match out.iter_mut().find(|b| b.place == u) {
                    Some(b) => b.weight += a.weight,
                    None => out.push(Arc {
                        place: u,
                        weight: a.weight,
                    }),
                }
            }
            out
        };
        let transitions = net
            .transitions
            .iter()
            .map(|t| Transition {
                id: t.id.clone(),
                name: t.name.clone(),
                inputs: fold(&t.inputs),
                outputs: fold(&t.outputs),
                inhibitors: fold(&t.inhibitors),
            })
            .collect();
        PetriNet {
            name: net.name.clone(),
            places,
            transitions,
        }
    }

    /// Lower `net` to a [`Model`] whose levels are the units, `order[k]` the unit at level
    /// `k + 1` (an order of the [`OneHot::quotient`] net). A place of its own is lowered as
    /// [`PetriNet::to_model`] lowers it; a group is a level whose local state is the index of
    /// its marked place (see the module documentation).
    pub fn to_model(&self, net: &PetriNet, order: &[usize]) -> Result<Model, LowerError> {
        let units = self.units();
        let bad = || LowerError::BadOrder {
            got: order.len(),
            places: units,
        };
        if order.len() != units {
            return Err(bad());
        }
        let mut level_of = vec![usize::MAX; units];
        for (k, &u) in order.iter().enumerate() {
            if u >= units || level_of[u] != usize::MAX {
                return Err(bad());
            }
            level_of[u] = k + 1;
        }
        // the places of the units, in the quotient's order: lower the net of the places of
        // their own with the groups' places left out, then give the groups their functions
        let mut levels = Vec::with_capacity(units);
        let mut initial = Vec::with_capacity(units);
        for &u in order {
            let first = &net.places[self.first(u)];
            match self.group(u) {
                None => {
                    check_initial(first)?;
                    levels.push(Level {
                        name: first.id.clone(),
                        bound: None,
                        one_hot: false,
                        group: Vec::new(),
                    });
                    initial.push(first.initial as u32);
                }
                Some(g) => {
                    let places = &self.groups[g];
                    levels.push(Level {
                        name: format!("{}+{}", first.id, places.len() - 1),
                        bound: Some(places.len() as u32 - 1),
                        one_hot: true,
                        group: places.clone(),
                    });
                    let marked = places.iter().position(|&p| net.places[p].initial > 0);
                    initial.push(marked.unwrap_or(0) as u32);
                }
            }
        }
        let mut events = Vec::with_capacity(net.transitions.len());
        for tr in &net.transitions {
            let mut parts = self.parts(net, tr, &level_of)?;
            parts.sort_by_key(|p| std::cmp::Reverse(p.0));
            events.push(Event {
                name: tr.id.clone(),
                parts,
            });
        }
        Ok(Model {
            levels,
            initial,
            events,
        })
    }

    /// The `(level, local function)` parts of transition `tr`, unsorted.
    fn parts(
        &self,
        net: &PetriNet,
        tr: &Transition,
        level_of: &[usize],
    ) -> Result<Vec<(usize, LocalFn)>, LowerError> {
        // per unit: (need, inhibit, delta) for a place of its own; for a group: the local
        // state it takes the token from and the one it gives it to, and the tokens taken
        struct Acc {
            unit: usize,
            need: u64,
            inhibit: u64,
            delta: i64,
            from: u32,
            to: u32,
            taken: u64,
        }
        /// The accumulator of unit `u` (appended when new).
        fn slot(acc: &mut Vec<Acc>, u: usize) -> &mut Acc {
            let i = match acc.iter().position(|x| x.unit == u) {
                Some(i) => i,
                None => {
                    acc.push(Acc {
                        unit: u,
                        need: 0,
                        inhibit: u64::MAX,
                        delta: 0,
                        from: 0,
                        to: 0,
                        taken: 0,
                    });
                    acc.len() - 1
                }
            };
            &mut acc[i]
        }
        let arcs = tr.inputs.len() + tr.outputs.len() + tr.inhibitors.len();
        let mut acc: Vec<Acc> = Vec::with_capacity(arcs);
        for a in &tr.inputs {
            net.check_weight(tr, a)?;
            let (u, i) = self.unit(a.place);
            let x = slot(&mut acc, u);
            x.need = x.need.max(a.weight);
            x.delta -= a.weight as i64;
            x.from = i;
            x.taken += a.weight;
        }
        for a in &tr.outputs {
            net.check_weight(tr, a)?;
            let (u, i) = self.unit(a.place);
            let x = slot(&mut acc, u);
            x.delta += a.weight as i64;
            x.to = i;
        }
        for a in &tr.inhibitors {
            net.check_weight(tr, a)?;
            let x = slot(&mut acc, self.unit(a.place).0);
            x.inhibit = x.inhibit.min(a.weight);
        }
        Ok(acc
            .into_iter()
            .filter_map(|x| {
                let f = match self.group(x.unit) {
                    None => {
                        // arcs that cancel out and impose no condition: not in the support
                        if x.need == 0 && x.inhibit == u64::MAX && x.delta == 0 {
                            return None;
                        }
                        LocalFn::Petri {
                            need: x.need as u32,
                            inhibit: x.inhibit.min(u32::MAX as u64) as u32,
                            delta: x.delta,
                        }
                    }
                    // two tokens of a group: never enabled (no local state is that large)
                    Some(g) if x.taken > 1 => LocalFn::Petri {
                        need: self.groups[g].len() as u32,
                        inhibit: u32::MAX,
                        delta: 0,
                    },
                    Some(_) => {
                        if x.taken == 0 {
                            // neither takes nor gives (one-hot groups have no inhibitor arcs)
                            return None;
                        }
                        LocalFn::Petri {
                            need: x.from,
                            inhibit: x.from + 1,
                            delta: x.to as i64 - x.from as i64,
                        }
                    }
                };
                Some((level_of[x.unit], f))
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arc(place: usize, weight: u64) -> Arc {
        Arc { place, weight }
    }

    fn transition(id: &str, inputs: Vec<Arc>, outputs: Vec<Arc>) -> Transition {
        Transition {
            id: id.into(),
            name: id.into(),
            inputs,
            outputs,
            inhibitors: Vec::new(),
        }
    }

    /// A process with local states `idle` (p0), `wait` (p2), `crit` (p3) and a counter `done`
    /// (p1) that grows with each visit of `crit`; `clash` needs two tokens of the process.
    fn process() -> PetriNet {
        let place = |id: &str, initial| Place {
            id: id.into(),
            name: id.into(),
            initial,
        };
        PetriNet {
            name: "process".into(),
            places: vec![
                place("idle", 1),
                place("done", 0),
                place("wait", 0),
                place("crit", 0),
            ],
            transitions: vec![
                transition("ask", vec![arc(0, 1)], vec![arc(2, 1)]),
                transition("enter", vec![arc(2, 1)], vec![arc(3, 1)]),
                transition("leave", vec![arc(3, 1)], vec![arc(0, 1), arc(1, 1)]),
                transition("look", vec![arc(3, 1)], vec![arc(3, 1)]),
                transition(
                    "clash",
                    vec![arc(0, 1), arc(2, 1)],
                    vec![arc(0, 1), arc(2, 1)],
                ),
            ],
        }
    }

    #[test]
    fn finds_the_process_and_not_the_counter() {
        let net = process();
        // the process's support, the counter with it (not a semiflow), a lone place
        let g = OneHot::find(&net, &[vec![0, 2, 3], vec![0, 1, 2, 3], vec![1]]);
        assert_eq!(g.groups, vec![vec![0, 2, 3]]);
        assert_eq!(g.units(), 2);
        // a group with no token, or two, is not one-hot
        let mut empty = net.clone();
        empty.places[0].initial = 0;
        assert!(OneHot::find(&empty, &[vec![0, 2, 3]]).groups.is_empty());
        let mut two = net;
        two.places[2].initial = 1;
        assert!(OneHot::find(&two, &[vec![0, 2, 3]]).groups.is_empty());
    }

    #[test]
    fn a_group_is_one_level_of_its_marked_place() {
        let net = process();
        let g = OneHot::find(&net, &[vec![0, 2, 3]]);
        let q = g.quotient(&net);
        // the group stands where its first place stood, with one token
        assert_eq!(q.places.len(), 2);
        assert_eq!((q.places[0].id.as_str(), q.places[0].initial), ("idle", 1));
        assert_eq!(q.transitions[2].inputs, vec![arc(0, 1)]);
        assert_eq!(q.transitions[2].outputs, vec![arc(0, 1), arc(1, 1)]);
        // the group on level 2, the counter on level 1
        let m = g.to_model(&net, &[1, 0]).unwrap();
        assert!(m.levels[1].one_hot && !m.levels[0].one_hot);
        assert_eq!(m.levels[1].bound, Some(2));
        assert_eq!(m.initial, vec![0, 0]);
        let f = |need, inhibit, delta| LocalFn::Petri {
            need,
            inhibit,
            delta,
        };
        // ask: idle (0) -> wait (1); enter: wait (1) -> crit (2)
        assert_eq!(m.events[0].parts, vec![(2, f(0, 1, 1))]);
        assert_eq!(m.events[1].parts, vec![(2, f(1, 2, 1))]);
        // leave: crit (2) -> idle (0), and one more in the counter
        assert_eq!(
            m.events[2].parts,
            vec![(2, f(2, 3, -2)), (1, f(0, u32::MAX, 1))]
        );
        // look tests crit; clash needs two tokens of the group: never enabled
        assert_eq!(m.events[3].parts, vec![(2, f(2, 3, 0))]);
        assert!(!(0..3).any(|i| m.events[4].parts[0].1.enabled(i)));
        // a state decodes to the net's marking
        assert_eq!(g.marking(&[1, 0], &[4, 2]), vec![0, 4, 0, 1]);
        assert!(matches!(
            g.to_model(&net, &[0]),
            Err(LowerError::BadOrder { .. })
        ));
    }

    #[test]
    fn enabled_below_and_disabled_from_follow_the_interval() {
        let f = LocalFn::Petri {
            need: 2,
            inhibit: 3,
            delta: -2,
        };
        assert_eq!(f.enabled_below(10), 2..3);
        assert_eq!(f.enabled_below(2), 2..2);
        assert!(f.disabled_from(3) && !f.disabled_from(2));
        let g = LocalFn::Petri {
            need: 1,
            inhibit: u32::MAX,
            delta: 1,
        };
        assert_eq!(g.enabled_below(5), 1..5);
        assert!(!g.disabled_from(1 << 30));
    }
}
