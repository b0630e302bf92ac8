//! The StateSpace figures of a set of markings on binary counters in one sweep of its diagram,
//! bottom level first, each level's values dropped once the level above has read them.
//!
//! Per node the sweep keeps the number of markings below it with every place of a group
//! empty, for each group of places some transition's enabling needs (inclusion-exclusion
//! then gives the markings where a transition needing one token from each place of a group
//! is enabled), and the largest count of each place and of all tokens. A transition with
//! heavier arcs or an inhibitor has its enabled markings counted on their own
//! ([`saturn_dd::Forest::cardinality_of_intersection`]).

use std::ops::AddAssign;

use hashbrown::HashMap;
use num_bigint::{BigInt, BigUint};
use num_traits::{One, Zero};
use saturn_dd::{Dd, Forest, NodeId};

use super::{Layout, PlaceArcs};
use crate::metrics::StateSpaceMetrics;
use crate::{Interrupted, Limits};

/// At most this many places a transition needs a token from for inclusion-exclusion (`2^k`
/// groups each).
const MAX_NEEDED: usize = 4;

/// The figures of `states` (reachable markings: every successor fits the counters), with
/// `arcs[t]` transition `t`'s arcs ([`super::place_arcs`]) and `enabled[t]` the markings where it
/// is enabled as a set ([`super::interval::enabled_box`]).
pub fn figures(
    dd: &mut Dd,
    layout: &Layout,
    states: NodeId,
    arcs: &[Vec<PlaceArcs>],
    enabled: &[NodeId],
    limits: &Limits,
) -> Result<StateSpaceMetrics, Interrupted> {
    // the groups of places that must all be empty, per transition with single arcs
    let mut groups: HashMap<Vec<usize>, usize> = HashMap::new();
    groups.insert(Vec::new(), 0);
    let mut simple: Vec<Option<Vec<usize>>> = Vec::with_capacity(arcs.len());
    for a in arcs {
        let ok = a.iter().all(|x| x.inhibit.is_none() && x.need <= 1);
        let needed: Vec<usize> = a.iter().filter(|x| x.need == 1).map(|x| x.place).collect();
        if !ok || needed.len() > MAX_NEEDED {
            simple.push(None);
            continue;
        }
        for mask in 1u32..(1 << needed.len()) {
            let g: Vec<usize> = (0..needed.len())
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| needed[i])
                .collect();
            let n = groups.len();
            groups.entry(g).or_insert(n);
        }
        simple.push(Some(needed));
    }
    let mut by_index = vec![Vec::new(); groups.len()];
    for (g, &i) in &groups {
        by_index[i] = g.clone();
    }
    let fits = dd.sets.cardinality_u128(states).is_some();
    let sweep = if fits {
        sweep::<u128>(&dd.sets, layout, states, &by_index, limits)?
            .map(|(c, m)| (c.into_iter().map(BigUint::from).collect::<Vec<_>>(), m))
    } else {
        sweep::<BigUint>(&dd.sets, layout, states, &by_index, limits)?
    };
    let (counts, maxes) = sweep.unwrap_or_else(|| {
        (
            vec![BigUint::zero(); groups.len()],
            vec![0; layout.bits.len() + 1],
        )
    });
    let mut transitions = BigUint::zero();
    for (t, s) in simple.iter().enumerate() {
        limits.check()?;
        match s {
            Some(needed) => {
                // markings with every needed place marked: inclusion-exclusion on the empty ones
                let mut sum = BigInt::zero();
                for mask in 0u32..(1 << needed.len()) {
                    let g: Vec<usize> = (0..needed.len())
                        .filter(|i| mask >> i & 1 == 1)
                        .map(|i| needed[i])
                        .collect();
                    let c = BigInt::from(counts[groups[&g]].clone());
                    if mask.count_ones() % 2 == 0 {
                        sum += c;
                    } else {
                        sum -= c;
                    }
                }
                transitions += sum.to_biguint().unwrap_or_default();
            }
            None => transitions += dd.sets.cardinality_of_intersection(states, enabled[t]),
        }
    }
    let places = layout.bits.len();
    let max_local = maxes[..places].iter().copied().max().unwrap_or(0);
    Ok(StateSpaceMetrics {
        states: counts[0].clone(),
        transitions,
        max_local: u64::try_from(max_local).unwrap_or(u64::MAX),
        max_sum: u64::try_from(maxes[places]).unwrap_or(u64::MAX),
        nodes: dd.sets.count_nodes(&[states]),
    })
}

/// One sweep: per group, the markings of `root` with the group's places all empty; per place
/// and for all places together, the largest count. `None` for the empty set.
#[allow(clippy::type_complexity)]
fn sweep<T>(
    sets: &Forest,
    layout: &Layout,
    root: NodeId,
    groups: &[Vec<usize>],
    limits: &Limits,
) -> Result<Option<(Vec<T>, Vec<u128>)>, Interrupted>
where
    T: Clone + Zero + One + for<'a> AddAssign<&'a T>,
{
    if root.is_empty() {
        return Ok(None);
    }
    let places = layout.bits.len();
    // in_group[g][p]: place p is in group g
    let mut in_group = vec![vec![false; places]; groups.len()];
    for (g, ps) in groups.iter().enumerate() {
        for &p in ps {
            in_group[g][p] = true;
        }
    }
    // the nodes of each level
    let top = sets.level(root);
    let mut at: Vec<Vec<NodeId>> = vec![Vec::new(); top + 1];
    let mut seen: hashbrown::HashSet<NodeId> = hashbrown::HashSet::new();
    let mut stack = vec![root];
    seen.insert(root);
    let mut walked = 0usize;
    while let Some(n) = stack.pop() {
        if n.is_terminal() {
            continue;
        }
        walked += 1;
        if walked.is_multiple_of(1 << 16) {
            limits.check()?;
        }
        at[sets.level(n)].push(n);
        for e in sets.edges(n).iter() {
            if seen.insert(e.child) {
                stack.push(e.child);
            }
        }
    }
    drop(seen);
    // the level below's values: counts per group, then maxima per place and of the sum
    let mut below: HashMap<NodeId, (Vec<T>, Vec<u128>)> = HashMap::new();
    below.insert(
        NodeId::ONE,
        (vec![T::one(); groups.len()], vec![0; places + 1]),
    );
    for (l, nodes) in at.iter().enumerate().skip(1) {
        // a level of a large diagram is a second's work: the limits are checked at each
        limits.check()?;
        let (p, b) = layout.levels[l - 1];
        let mut here = HashMap::with_capacity(nodes.len());
        for (i, &n) in nodes.iter().enumerate() {
            if i % (1 << 16) == (1 << 16) - 1 {
                limits.check()?;
            }
            let mut counts = vec![T::zero(); groups.len()];
            let mut maxes = vec![0u128; places + 1];
            for e in sets.edges(n).iter() {
                let Some((cc, cm)) = below.get(&e.child) else {
                    continue;
                };
                for (g, c) in counts.iter_mut().enumerate() {
                    if e.idx == 1 && in_group[g][p] {
                        continue;
                    }
                    *c += &cc[g];
                }
                let add = u128::from(e.idx) << b;
                for (q, m) in maxes.iter_mut().enumerate() {
                    let v = cm[q] + if q == p || q == places { add } else { 0 };
                    *m = (*m).max(v);
                }
            }
            here.insert(n, (counts, maxes));
        }
        below = here;
    }
    Ok(below.remove(&root))
}
