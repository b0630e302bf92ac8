//! Span minimisation by local search: starting from the better (by total span) of FORCE and
//! Sloan, each place in turn is moved to the position that minimises the spans of its own
//! transitions with every other place fixed, which is a median of those transitions' extents
//! (the span of a transition as a function of one of its places' position is convex and
//! piecewise linear, flat between the other places' lowest and highest levels). Rounds repeat
//! while the total span ([`super::total_span`]) decreases, within a work budget.

use super::{force_with, levels_of, sloan_with, span_of, Hypergraph, DEFAULT_FORCE_ITERATIONS};
use crate::PetriNet;

/// Elementary steps (edge entries read, positions shifted) the search may spend.
const WORK_BUDGET: u64 = 200_000_000;

/// Rounds at most.
const MAX_ROUNDS: usize = 50;

/// The local-search order of a net's places.
pub fn span_search(net: &PetriNet) -> Vec<usize> {
    span_search_with(&Hypergraph::of_net(net), &mut || false)
}

/// [`span_search`] on any hypergraph; when `stop` returns true, the best order so far.
pub fn span_search_with(hg: &Hypergraph, stop: &mut dyn FnMut() -> bool) -> Vec<usize> {
    let a = force_with(hg, DEFAULT_FORCE_ITERATIONS, stop);
    let b = sloan_with(hg, stop);
    let span = |o: &[usize]| span_of(&hg.edges, &levels_of(hg.n, o));
    let start = if span(&b) < span(&a) { b } else { a };
    improve(hg, start, WORK_BUDGET, stop)
}

/// Local search from `order`: never returns an order of larger total span.
pub fn improve(
    hg: &Hypergraph,
    mut order: Vec<usize>,
    budget: u64,
    stop: &mut dyn FnMut() -> bool,
) -> Vec<usize> {
    let n = hg.n;
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in hg.edges.iter().enumerate() {
        if e.len() > 1 {
            for &p in e {
                incident[p].push(i);
            }
        }
    }
    let mut pos = levels_of(n, &order);
    let mut best = order.clone();
    let mut best_span = span_of(&hg.edges, &pos);
    let mut work: u64 = 0;
    let mut points: Vec<usize> = Vec::new();
    let mut extents: Vec<(usize, usize)> = Vec::new();
    'rounds: for _ in 0..MAX_ROUNDS {
        let mut moved = false;
        for v in order.clone() {
            if work > budget || (work & 0xff == 0 && stop()) {
                break 'rounds;
            }
            // the extents of v's transitions without v, in the order with v removed
            extents.clear();
            let at = |u: usize| if pos[u] > pos[v] { pos[u] - 1 } else { pos[u] };
            for &e in &incident[v] {
                let (mut lo, mut hi) = (usize::MAX, 0);
                for &u in &hg.edges[e] {
                    if u != v {
                        lo = lo.min(at(u));
                        hi = hi.max(at(u));
                    }
                }
                work += hg.edges[e].len() as u64;
                extents.push((lo, hi));
            }
            if extents.is_empty() {
                continue;
            }
            points.clear();
            points.extend(extents.iter().flat_map(|&(lo, hi)| [lo, hi]));
            points.sort_unstable();
            let k = points.len() / 2;
            // the spans of v's transitions with v at x: convex in x, minimal anywhere between
            // the two middle points; take the one nearest the current position
            let target = pos[v].clamp(points[k - 1], points[k]);
            let cost =
                |x: usize| -> usize { extents.iter().map(|&(lo, hi)| hi.max(x) - lo.min(x)).sum() };
            if target == pos[v] || cost(target) >= cost(pos[v]) {
                continue;
            }
            let from = pos[v];
            order.remove(from);
            order.insert(target, v);
            let (lo, hi) = (from.min(target), from.max(target));
            for (k, &u) in order.iter().enumerate().take(hi + 1).skip(lo) {
                pos[u] = k;
            }
            work += (hi - lo + 1) as u64;
            moved = true;
        }
        let span = span_of(&hg.edges, &pos);
        if span < best_span {
            best_span = span;
            best.clone_from(&order);
        } else {
            break;
        }
        if !moved {
            break;
        }
    }
    best
}
