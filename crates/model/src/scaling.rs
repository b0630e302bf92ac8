//! Nets whose StateSpace figures are polynomials in the scale of the initial marking (issue 12,
//! nets with many tokens per place).
//!
//! A net qualifies ([`polynomial_scaling`]) when
//! 1. it is ordinary (every arc weight 1) and has no inhibitor arcs;
//! 2. every place has at most one input and at most one output transition;
//! 3. every transition has an input place;
//! 4. its place/transition graph is acyclic;
//! 5. its initial marking is `N·v` for a non-zero integer vector `v` (`N` the gcd of the counts).
//!
//! Then, with `C` the incidence matrix and `P = {x ≥ 0 : v + Cx ≥ 0}` over the reals:
//! - an acyclic net reaches exactly the markings `M0 + Cσ ≥ 0` with `σ` a vector of natural
//!   numbers (the state equation is exact on acyclic nets: Murata, "Petri nets: properties,
//!   analysis and applications", Proc. IEEE 1989, section VII; Hiraishi and Ichikawa 1988);
//! - `σ ↦ M0 + Cσ` is one-to-one: taking the transitions in topological order, each one's firing
//!   count is read off an input place it alone empties (2, 3), from the counts of that place's
//!   producer, earlier in the order; the same argument bounds `P`;
//! - every row of `[I; C]` holds at most one `+1` and one `-1` (1, 2), so the matrix is totally
//!   unimodular and `P` and each of its faces are integral polytopes;
//! - so the reachable markings of the net at scale `N` are in one-to-one correspondence with the
//!   integer points of `N·P`, and by Ehrhart's theorem their number is a polynomial in `N` of
//!   degree at most `dim P ≤ |T|`, exact for every `N ≥ 0`;
//! - a transition of an ordinary net is enabled iff none of its input places is empty; by
//!   inclusion and exclusion over the sets `J` of its input places, the markings enabling it are
//!   a signed sum of the integer points of `N·F_J`, `F_J` the face of `P` where the places of
//!   `J` are empty: the reachability graph's edges are a polynomial in `N` of degree at most
//!   `|T|` too;
//! - the most tokens in a place and in a marking are maxima of linear forms over `N·P`, reached at
//!   an integral vertex: `N` times their value at scale 1.
//!
//! So the figures at scale `N` follow from those at scales `0..=|T|` (`|T| + 1` small state
//! spaces) by interpolation; the engine computes one more scale as a check.
//! This module decides the conditions; `saturn_symbolic::statespace::scaled` interpolates.

use crate::bounded::gcd;
use crate::PetriNet;

/// A net at scale `factor` of the initial marking `unit` (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scaling {
    /// `N`: the initial marking is `factor · unit`.
    pub factor: u64,
    /// `v`: the initial marking divided by `factor` (per place).
    pub unit: Vec<u64>,
    /// A bound on the degree of the figures as polynomials in the scale: the number of
    /// transitions.
    pub degree: usize,
}

impl Scaling {
    /// The net with initial marking `k · unit`.
    pub fn net_at(&self, net: &PetriNet, k: u64) -> PetriNet {
        let mut n = net.clone();
        for (p, &u) in n.places.iter_mut().zip(&self.unit) {
            p.initial = u * k;
        }
        n
    }
}

/// The scaling of `net` when it meets the conditions of the module documentation (its figures
/// are then polynomials in the scale), else `None`.
pub fn polynomial_scaling(net: &PetriNet) -> Option<Scaling> {
    let (np, nt) = (net.places.len(), net.transitions.len());
    let mut producers = vec![0usize; np];
    let mut consumers = vec![0usize; np];
    for t in &net.transitions {
        if !t.inhibitors.is_empty() || t.inputs.is_empty() {
            return None;
        }
        for a in t.inputs.iter().chain(&t.outputs) {
            if a.weight != 1 {
                return None;
            }
        }
        for a in &t.inputs {
            consumers[a.place] += 1;
        }
        for a in &t.outputs {
            producers[a.place] += 1;
        }
    }
    if producers.iter().chain(&consumers).any(|&c| c > 1) || !acyclic(net) {
        return None;
    }
    let factor = net.places.iter().fold(0u64, |g, p| {
        gcd(u128::from(g), u128::from(p.initial)) as u64
    });
    if factor == 0 {
        return None;
    }
    let unit = net.places.iter().map(|p| p.initial / factor).collect();
    Some(Scaling {
        factor,
        unit,
        degree: nt,
    })
}

/// Is the place/transition graph free of cycles? (Kahn's algorithm on the transitions: `t`
/// precedes `u` when an output place of `t` is an input place of `u`.)
fn acyclic(net: &PetriNet) -> bool {
    let nt = net.transitions.len();
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); net.places.len()];
    for (u, t) in net.transitions.iter().enumerate() {
        for a in &t.inputs {
            readers[a.place].push(u);
        }
    }
    let mut indegree = vec![0usize; nt];
    for t in &net.transitions {
        for a in &t.outputs {
            for &u in &readers[a.place] {
                indegree[u] += 1;
            }
        }
    }
    let mut ready: Vec<usize> = (0..nt).filter(|&u| indegree[u] == 0).collect();
    let mut seen = 0;
    while let Some(t) = ready.pop() {
        seen += 1;
        for a in &net.transitions[t].outputs {
            for &u in &readers[a.place] {
                indegree[u] -= 1;
                if indegree[u] == 0 {
                    ready.push(u);
                }
            }
        }
    }
    seen == nt
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Arc, Place, Transition};

    /// A fork and a join: p0 -t0-> (p1, p2), p1 -t1-> p3, (p2, p3) -t2-> (), `k` tokens on p0.
    fn fork_join(k: u64) -> PetriNet {
        let place = |i: usize, initial| Place {
            id: format!("p{i}"),
            name: format!("p{i}"),
            initial,
        };
        let arcs = |ps: &[usize]| {
            ps.iter()
                .map(|&place| Arc { place, weight: 1 })
                .collect::<Vec<_>>()
        };
        let tr = |i: usize, ins: &[usize], outs: &[usize]| Transition {
            id: format!("t{i}"),
            name: format!("t{i}"),
            inputs: arcs(ins),
            outputs: arcs(outs),
            inhibitors: Vec::new(),
        };
        PetriNet {
            name: "fork-join".into(),
            places: vec![place(0, k), place(1, 0), place(2, 0), place(3, 0)],
            transitions: vec![tr(0, &[0], &[1, 2]), tr(1, &[1], &[3]), tr(2, &[2, 3], &[])],
        }
    }

    #[test]
    fn a_fork_join_net_scales_and_its_unit_is_the_marking_over_the_gcd() {
        let mut net = fork_join(12);
        net.places[3].initial = 8;
        let s = polynomial_scaling(&net).expect("qualifies");
        assert_eq!(
            (s.factor, s.unit.clone(), s.degree),
            (4, vec![3, 0, 0, 2], 3)
        );
        let at = s.net_at(&net, 5);
        assert_eq!(at.initial_marking(), vec![15, 0, 0, 10]);
        assert_eq!(s.net_at(&net, s.factor), net);
    }

    #[test]
    fn each_condition_refuses_a_net_that_breaks_it() {
        assert!(polynomial_scaling(&fork_join(0)).is_none(), "empty marking");
        let mut w = fork_join(3);
        w.transitions[1].outputs[0].weight = 2;
        assert!(polynomial_scaling(&w).is_none(), "weight 2");
        let mut inh = fork_join(3);
        inh.transitions[1].inhibitors.push(Arc {
            place: 0,
            weight: 1,
        });
        assert!(polynomial_scaling(&inh).is_none(), "inhibitor arc");
        let mut source = fork_join(3);
        source.transitions[1].inputs.clear();
        assert!(polynomial_scaling(&source).is_none(), "no input place");
        let mut two = fork_join(3);
        two.transitions[1].inputs.push(Arc {
            place: 2,
            weight: 1,
        });
        assert!(polynomial_scaling(&two).is_none(), "a place read twice");
        let mut cycle = fork_join(3);
        cycle.transitions[2].outputs.push(Arc {
            place: 0,
            weight: 1,
        });
        assert!(polynomial_scaling(&cycle).is_none(), "a cycle");
    }
}
