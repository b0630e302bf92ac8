//! The greedy "gradient" orders of Noack (A. Noack, "A ZBDD package for efficient model
//! checking of Petri nets", 1999) and of Tovchigrechko's variant of it (A. Tovchigrechko,
//! "Model checking using interval decision diagrams", PhD thesis, BTU Cottbus 2008), as the
//! contest's DD tools use them (Marcie; LTSmin's `--noack=1|2`).
//!
//! Places are chosen one at a time, bottom level first. Each unchosen place `p` gets the weight
//! of the transitions it is attached to, each transition weighing more the more of its places
//! are already chosen, divided by the number of `p`'s arcs; the heaviest place comes next (ties,
//! to 10^-9: the lower index). With `S` the chosen places, `•t`/`t•` a transition's input/output places
//! and `|•t∩S|` counting the chosen ones, a transition `t` adds to
//!
//! * an output place `p ∈ t•`: Noack `g(t)/|•t| + 2|t•∩S|/|t•|`, Tovchigrechko
//!   `g(t)/|•t| + g'(t)/|t•|`, with `g = |•t∩S|` (0.1 when zero), `g' = 2|t•∩S|` (0.1 when zero),
//!   Noack skipping transitions without inputs or outputs, Tovchigrechko only the terms whose
//!   denominator is zero;
//! * an input place `p ∈ •t` (both): `h(t)/|t•| + (|•t∩S| + 1)/|•t|` with `h = 2|t•∩S|` (0.2 when
//!   zero), for transitions with inputs and outputs.
//!
//! Contributions are kept per transition and places' sums updated by differences around the
//! place just chosen, so a choice costs the size of its neighbourhood, not of the net.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Hypergraph;
use crate::PetriNet;

/// Elementary steps (places updated) a gradient order may spend; past it, the places not yet
/// chosen follow in index order.
const WORK_BUDGET: u64 = 200_000_000;

/// Which of the two gradient heuristics.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Noack,
    Tovchigrechko,
}

/// Noack's order of a net's places.
pub fn noack(net: &PetriNet) -> Vec<usize> {
    noack_with(&Hypergraph::of_net(net), &mut || false)
}

/// Tovchigrechko's variant of Noack's order.
pub fn tovchigrechko(net: &PetriNet) -> Vec<usize> {
    tovchigrechko_with(&Hypergraph::of_net(net), &mut || false)
}

/// [`noack`] on any hypergraph; when `stop` returns true the variables not yet chosen are
/// appended in index order.
pub fn noack_with(hg: &Hypergraph, stop: &mut dyn FnMut() -> bool) -> Vec<usize> {
    gradient(hg, Variant::Noack, stop)
}

/// [`tovchigrechko`] on any hypergraph; stops like [`noack_with`].
pub fn tovchigrechko_with(hg: &Hypergraph, stop: &mut dyn FnMut() -> bool) -> Vec<usize> {
    gradient(hg, Variant::Tovchigrechko, stop)
}

/// The two contributions of a transition, to its output places and to its input places, given
/// its sizes and how many of its input/output places are chosen.
fn contributions(v: Variant, nin: usize, nout: usize, ain: usize, aout: usize) -> (f64, f64) {
    let (nin_f, nout_f, ain_f, aout_f) = (nin as f64, nout as f64, ain as f64, aout as f64);
    let g = if ain == 0 { 0.1 } else { ain_f };
    let h = if aout == 0 { 0.2 } else { 2.0 * aout_f };
    let both = nin > 0 && nout > 0;
    let to_input = if both {
        h / nout_f + (ain_f + 1.0) / nin_f
    } else {
        0.0
    };
    let to_output = match v {
        Variant::Noack if both => g / nin_f + 2.0 * aout_f / nout_f,
        Variant::Noack => 0.0,
        Variant::Tovchigrechko => {
            let g2 = if aout == 0 { 0.1 } else { 2.0 * aout_f };
            (if nin > 0 { g / nin_f } else { 0.0 }) + (if nout > 0 { g2 / nout_f } else { 0.0 })
        }
    };
    (to_output, to_input)
}

/// A score in units of 10^-9 (weights are small sums of small fractions).
pub fn quantize(x: f64) -> i64 {
    (x * 1e9).round() as i64
}

fn gradient(hg: &Hypergraph, v: Variant, stop: &mut dyn FnMut() -> bool) -> Vec<usize> {
    let n = hg.n;
    let m = hg.pre.len().min(hg.post.len());
    // per place, its (transition, is_input) arcs
    let mut arcs: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n];
    for t in 0..m {
        for &p in &hg.pre[t] {
            arcs[p].push((t, true));
        }
        for &p in &hg.post[t] {
            arcs[p].push((t, false));
        }
    }
    let (mut ain, mut aout) = (vec![0usize; m], vec![0usize; m]);
    let contrib = |t: usize, ain: &[usize], aout: &[usize]| {
        contributions(v, hg.pre[t].len(), hg.post[t].len(), ain[t], aout[t])
    };
    let mut c: Vec<(f64, f64)> = (0..m).map(|t| contrib(t, &ain, &aout)).collect();
    // per place, the sum of its arcs' contributions, kept up to date by differences
    let mut w: Vec<f64> = (0..n)
        .map(|p| {
            arcs[p]
                .iter()
                .map(|&(t, input)| if input { c[t].1 } else { c[t].0 })
                .sum()
        })
        .collect();
    // scores in units of 1e-9, so that ties do not depend on the order of a float sum
    let score = |p: usize, w: &[f64]| -> i64 {
        if arcs[p].is_empty() {
            0
        } else {
            quantize(w[p] / arcs[p].len() as f64)
        }
    };
    let mut current: Vec<i64> = (0..n).map(|p| score(p, &w)).collect();
    // the largest score first, then the lowest index; stale entries are skipped
    let mut heap: BinaryHeap<(i64, Reverse<usize>)> =
        (0..n).map(|p| (current[p], Reverse(p))).collect();
    let mut chosen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut touched: Vec<usize> = Vec::new();
    let mut work: u64 = 0;
    while let Some((s, Reverse(p))) = heap.pop() {
        if chosen[p] || s != current[p] {
            continue;
        }
        if work > WORK_BUDGET || (order.len() % 64 == 0 && stop()) {
            break;
        }
        chosen[p] = true;
        order.push(p);
        touched.clear();
        for &(t, input) in &arcs[p] {
            if input {
                ain[t] += 1;
            } else {
                aout[t] += 1;
            }
            touched.push(t);
        }
        touched.sort_unstable();
        touched.dedup();
        for &t in &touched {
            let old = c[t];
            c[t] = contrib(t, &ain, &aout);
            let (d_out, d_in) = (c[t].0 - old.0, c[t].1 - old.1);
            work += (hg.pre[t].len() + hg.post[t].len()) as u64;
            for (places, d) in [(&hg.post[t], d_out), (&hg.pre[t], d_in)] {
                if d == 0.0 {
                    continue;
                }
                for &q in places {
                    if !chosen[q] {
                        w[q] += d;
                    }
                }
            }
        }
        for &t in &touched {
            for &q in hg.pre[t].iter().chain(&hg.post[t]) {
                if !chosen[q] {
                    let s = score(q, &w);
                    if s != current[q] {
                        current[q] = s;
                        heap.push((s, Reverse(q)));
                    }
                }
            }
        }
    }
    order.extend((0..n).filter(|&p| !chosen[p]));
    order
}
