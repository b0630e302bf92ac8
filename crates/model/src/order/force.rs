//! The FORCE heuristic (Aloul, Markov, Sakallah, "FORCE: a fast and easy-to-implement
//! variable-ordering heuristic", GLSVLSI 2003).

use super::{levels_of, span_of, Hypergraph};
use crate::PetriNet;

/// The FORCE heuristic, started from [`file_order`], run for at most `iterations` rounds.
///
/// Each round computes every hyperedge's centre of gravity (mean level of its places), moves
/// every place to the mean of the centres of its hyperedges (places in no hyperedge stay put),
/// and re-sorts the places by their new positions (ties broken by the old level). The order
/// with the smallest total span seen, the start included, is returned, so the result is never
/// worse than the file order. Deterministic; stops early when an order repeats.
pub fn force(net: &PetriNet, iterations: usize) -> Vec<usize> {
    force_with(&Hypergraph::of_net(net), iterations, &mut || false)
}

/// [`force`] on any hypergraph, started from the file order (variable 0 on top); stops early,
/// with the best order so far, when `stop` returns true.
pub fn force_with(
    hg: &Hypergraph,
    iterations: usize,
    stop: &mut dyn FnMut() -> bool,
) -> Vec<usize> {
    force_pulled(hg, iterations, false, stop)
}

/// [`force_with`], each place moved instead to the mean of its hyperedges' centres weighted by
/// the inverse squares of their sizes: a transition of 2,001 places (a writer taking every
/// reader's lock in RwMutex-PT-r2000w0010) pulls each of them a millionth as much as a
/// transition of two does, so the places it shares stay beside their other neighbours instead
/// of gathering at its centre. Weighted by the inverse sizes only, each lock still drifted some
/// thirty levels from its reader's other places, past other readers' (reader transitions
/// spanning 23 levels on average instead of 2), and the diagram grew past a million nodes.
pub fn force_weighted_with(
    hg: &Hypergraph,
    iterations: usize,
    stop: &mut dyn FnMut() -> bool,
) -> Vec<usize> {
    force_pulled(hg, iterations, true, stop)
}

fn force_pulled(
    hg: &Hypergraph,
    iterations: usize,
    weighted: bool,
    stop: &mut dyn FnMut() -> bool,
) -> Vec<usize> {
    let n = hg.n;
    let edges = &hg.edges;
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        if e.len() > 1 {
            for &p in e {
                incident[p].push(i);
            }
        }
    }
    let mut order: Vec<usize> = (0..n).rev().collect();
    let mut level = levels_of(n, &order);
    let mut best = order.clone();
    let mut best_span = span_of(edges, &level);
    let mut cog = vec![0.0f64; edges.len()];
    let mut pos = vec![0.0f64; n];
    for _ in 0..iterations {
        if stop() {
            break;
        }
        for (c, e) in cog.iter_mut().zip(edges) {
            if e.len() > 1 {
                *c = e.iter().map(|&p| level[p] as f64).sum::<f64>() / e.len() as f64;
            }
        }
        for p in 0..n {
            pos[p] = if incident[p].is_empty() {
                level[p] as f64
            } else if weighted {
                let w = |i: usize| (edges[i].len() as f64).powi(-2);
                incident[p].iter().map(|&i| w(i) * cog[i]).sum::<f64>()
                    / incident[p].iter().map(|&i| w(i)).sum::<f64>()
            } else {
                incident[p].iter().map(|&i| cog[i]).sum::<f64>() / incident[p].len() as f64
            };
        }
        let mut next = order.clone();
        next.sort_by(|&a, &b| pos[a].total_cmp(&pos[b]).then(level[a].cmp(&level[b])));
        if next == order {
            break; // a fixed point: further rounds change nothing
        }
        order = next;
        level = levels_of(n, &order);
        let span = span_of(edges, &level);
        if span < best_span {
            best_span = span;
            best.clone_from(&order);
        }
    }
    best
}
