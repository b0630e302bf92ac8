//! The StateSpace figures of a strongly connected state machine in closed form (issue 12, nets
//! with many tokens per place: Diffusion2D and its kind).
//!
//! A net is a *state machine* when every transition has exactly one input and one output arc,
//! both of weight 1, and no inhibitor arc: each firing moves one token along an edge of the
//! graph of places. When every connected component of that graph is *strongly* connected, the
//! tokens of a component can be moved anywhere within it, one at a time along a path, so the
//! reachable markings are exactly the distributions of each component's `N_c` initial tokens
//! over its `k_c` places (Murata, "Petri nets: properties, analysis and applications", Proc.
//! IEEE 1989, section V: a strongly connected marked state machine is live and reversible; the
//! token count of a component is its only invariant). Hence, with `D(N, k) = C(N + k - 1,
//! k - 1)` the number of distributions:
//! - states: the product over components of `D(N_c, k_c)`;
//! - edges: per transition (from place `p` of component `c`), the markings with a token in `p`,
//!   `D(N_c - 1, k_c)` (one token set aside), times the other components' distributions;
//! - the most tokens in a place: the largest `N_c` (all of a component's tokens in one place);
//!   in a marking: the sum of the `N_c`, always.
//!
//! Places that no transition touches are components of one place, with their initial count.

use num_bigint::BigUint;

use crate::PetriNet;

/// The four StateSpace figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figures {
    pub states: BigUint,
    pub transitions: BigUint,
    pub max_local: u64,
    pub max_sum: u64,
}

/// The figures of `net` when it is a state machine whose components are all strongly
/// connected (see the module documentation), else `None`.
pub fn state_machine_figures(net: &PetriNet) -> Option<Figures> {
    let n = net.places.len();
    let mut succ = vec![Vec::new(); n];
    let mut pred = vec![Vec::new(); n];
    let mut from = Vec::with_capacity(net.transitions.len());
    for t in &net.transitions {
        match (&t.inputs[..], &t.outputs[..]) {
            ([i], [o]) if i.weight == 1 && o.weight == 1 && t.inhibitors.is_empty() => {
                succ[i.place].push(o.place);
                pred[o.place].push(i.place);
                from.push(i.place);
            }
            _ => return None,
        }
    }
    // components of the undirected graph, each checked strongly connected: every place is
    // reached from the component's first place forwards and backwards
    let mut comp = vec![usize::MAX; n];
    let mut comps: Vec<Vec<usize>> = Vec::new();
    for s in 0..n {
        if comp[s] != usize::MAX {
            continue;
        }
        let c = comps.len();
        let mut members = vec![s];
        comp[s] = c;
        let mut i = 0;
        while i < members.len() {
            let p = members[i];
            i += 1;
            for &q in succ[p].iter().chain(&pred[p]) {
                if comp[q] == usize::MAX {
                    comp[q] = c;
                    members.push(q);
                }
            }
        }
        for edges in [&succ, &pred] {
            if reached(s, edges) != members.len() {
                return None;
            }
        }
        comps.push(members);
    }
    let tokens: Vec<u64> = comps
        .iter()
        .map(|m| {
            m.iter()
                .try_fold(0u64, |a, &p| a.checked_add(net.places[p].initial))
        })
        .collect::<Option<_>>()?;
    let dist: Vec<BigUint> = comps
        .iter()
        .zip(&tokens)
        .map(|(m, &t)| distributions(t, m.len()))
        .collect();
    let states: BigUint = dist.iter().product();
    // per component, the transitions leaving its places, each enabled in D(N_c - 1, k_c)
    // distributions of the component times the others' (states / D(N_c, k_c))
    let mut leaving = vec![0u64; comps.len()];
    for &p in &from {
        leaving[comp[p]] += 1;
    }
    let mut transitions = BigUint::ZERO;
    for (c, &l) in leaving.iter().enumerate() {
        if l == 0 || tokens[c] == 0 {
            continue;
        }
        let others = &states / &dist[c];
        transitions += distributions(tokens[c] - 1, comps[c].len()) * others * l;
    }
    Some(Figures {
        states,
        transitions,
        max_local: tokens.iter().copied().max().unwrap_or(0),
        max_sum: tokens.iter().try_fold(0u64, |a, &t| a.checked_add(t))?,
    })
}

/// How many places `reached` from `s` along `edges`.
fn reached(s: usize, edges: &[Vec<usize>]) -> usize {
    let mut seen = vec![false; edges.len()];
    seen[s] = true;
    let mut stack = vec![s];
    let mut count = 1;
    while let Some(p) = stack.pop() {
        for &q in &edges[p] {
            if !seen[q] {
                seen[q] = true;
                count += 1;
                stack.push(q);
            }
        }
    }
    count
}

/// The distributions of `tokens` tokens over `places` places: `C(tokens + places - 1,
/// places - 1)`, exactly.
fn distributions(tokens: u64, places: usize) -> BigUint {
    let k = places.saturating_sub(1) as u64;
    // C(tokens + k, k) = C(tokens + k, tokens): the product over the smaller of the two,
    // prod_{i=1..m} (n - m + i) / i, each prefix an integer
    let m = k.min(tokens);
    let base = BigUint::from(tokens.max(k));
    let mut c = BigUint::from(1u32);
    for i in 1..=m {
        c = c * (&base + i) / BigUint::from(i);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_are_binomials() {
        assert_eq!(distributions(0, 5), BigUint::from(1u32));
        assert_eq!(distributions(3, 1), BigUint::from(1u32));
        assert_eq!(distributions(40, 5), BigUint::from(135_751u32));
        assert_eq!(distributions(2, 3), BigUint::from(6u32));
    }
}
