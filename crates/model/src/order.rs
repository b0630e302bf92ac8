//! Static variable orders, for Petri nets and for any model given by its event supports.
//!
//! An order is a permutation `order[k] = place at level k+1` (level 1 is the bottom).
//! Every heuristic works on a [`Hypergraph`] (one vertex per variable, one hyperedge per event:
//! the variables it reads or writes); the `PetriNet` functions build it from the net's arcs,
//! [`Hypergraph::new`] from any model's supports (e.g. [`crate::GeneralModel::supports`]).
//! The `*_with` variants poll a stop callback in their loops (for `--timeout`): when it returns
//! true they return the best order found so far (still a permutation).
//!
//! * [`file_order`]: the first place of the file at the top level, as most MCC tools do.
//! * [`file_rev_order`]: the first place of the file at the bottom level.
//! * [`force`]: the FORCE heuristic (Aloul, Markov, Sakallah, "FORCE: a fast and easy-to-implement
//!   variable-ordering heuristic", GLSVLSI 2003) on the hypergraph whose hyperedges are the
//!   place sets of the transitions, minimising the total span ([`total_span`]).
//! * [`sloan`]: Sloan's profile-reduction ordering (S. W. Sloan, "An algorithm for profile and
//!   wavefront reduction of sparse matrices", IJNME 1986) on the place graph (two places are
//!   adjacent when some transition touches both); the first numbered place is at the top.

use crate::PetriNet;

/// The names accepted by [`by_name`].
pub const ORDER_NAMES: &[&str] = &["file", "file-rev", "force", "sloan"];

/// Iterations [`by_name`] gives to FORCE.
pub const DEFAULT_FORCE_ITERATIONS: usize = 200;

/// Variables and the supports of the events: what the order heuristics work on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hypergraph {
    /// Number of variables.
    pub n: usize,
    /// One sorted, deduplicated list of variables per event (out-of-range entries dropped).
    pub edges: Vec<Vec<usize>>,
}

impl Hypergraph {
    /// The hypergraph of `n` variables and the given event supports.
    pub fn new(n: usize, supports: &[Vec<usize>]) -> Hypergraph {
        let edges = supports
            .iter()
            .map(|e| {
                let mut e: Vec<usize> = e.iter().copied().filter(|&v| v < n).collect();
                e.sort_unstable();
                e.dedup();
                e
            })
            .collect();
        Hypergraph { n, edges }
    }

    /// The hypergraph of a net: one hyperedge per transition (its input, output and inhibitor
    /// places).
    pub fn of_net(net: &PetriNet) -> Hypergraph {
        Hypergraph {
            n: net.places.len(),
            edges: hyperedges(net),
        }
    }
}

/// The file order: the first place of the file at the top level, as most MCC tools do.
pub fn file_order(net: &PetriNet) -> Vec<usize> {
    (0..net.places.len()).rev().collect()
}

/// The reversed file order: the first place of the file at the bottom level.
pub fn file_rev_order(net: &PetriNet) -> Vec<usize> {
    (0..net.places.len()).collect()
}

/// The order called `name` (one of [`ORDER_NAMES`]).
pub fn by_name(net: &PetriNet, name: &str) -> Result<Vec<usize>, String> {
    by_name_with(&Hypergraph::of_net(net), name, &mut || false)
}

/// The order called `name` for any model's hypergraph, polling `stop` in the heuristics' loops.
pub fn by_name_with(
    hg: &Hypergraph,
    name: &str,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Vec<usize>, String> {
    match name {
        "file" => Ok((0..hg.n).rev().collect()),
        "file-rev" => Ok((0..hg.n).collect()),
        "force" => Ok(force_with(hg, DEFAULT_FORCE_ITERATIONS, stop)),
        "sloan" => Ok(sloan_with(hg, stop)),
        _ => Err(format!(
            "unknown variable order '{name}'; known orders: {}",
            ORDER_NAMES.join(", ")
        )),
    }
}

/// The distinct places each transition touches (inputs, outputs, inhibitors): the hyperedges.
fn hyperedges(net: &PetriNet) -> Vec<Vec<usize>> {
    let n = net.places.len();
    net.transitions
        .iter()
        .map(|t| {
            let mut e: Vec<usize> = t
                .inputs
                .iter()
                .chain(&t.outputs)
                .chain(&t.inhibitors)
                .map(|a| a.place)
                .filter(|&p| p < n)
                .collect();
            e.sort_unstable();
            e.dedup();
            e
        })
        .collect()
}

/// Sum over the transitions of (highest level − lowest level) of the places each touches.
///
/// `order` should be a permutation of the places; entries that are out of range or repeated
/// are ignored (the first occurrence counts) and places missing from it do not contribute.
pub fn total_span(net: &PetriNet, order: &[usize]) -> u64 {
    let level = levels_of(net.places.len(), order);
    span_of(&hyperedges(net), &level)
}

/// `level[p]` = the 0-based position of place `p` in `order` (`usize::MAX` when absent).
fn levels_of(n: usize, order: &[usize]) -> Vec<usize> {
    let mut level = vec![usize::MAX; n];
    for (k, &p) in order.iter().enumerate() {
        if p < n && level[p] == usize::MAX {
            level[p] = k;
        }
    }
    level
}

fn span_of(edges: &[Vec<usize>], level: &[usize]) -> u64 {
    edges
        .iter()
        .map(|e| {
            let mut lo = usize::MAX;
            let mut hi = 0;
            for &p in e {
                let l = level[p];
                if l != usize::MAX {
                    lo = lo.min(l);
                    hi = hi.max(l);
                }
            }
            if lo == usize::MAX {
                0
            } else {
                (hi - lo) as u64
            }
        })
        .sum()
}

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

/// The variable graph: sorted, deduplicated adjacency lists.
fn place_graph(hg: &Hypergraph) -> Vec<Vec<usize>> {
    let n = hg.n;
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in &hg.edges {
        for &a in e {
            for &b in e {
                if a != b {
                    adj[a].push(b);
                }
            }
        }
    }
    for l in &mut adj {
        l.sort_unstable();
        l.dedup();
    }
    adj
}

/// BFS distances from `root` inside its component (`usize::MAX` elsewhere).
fn bfs_distances(adj: &[Vec<usize>], root: usize) -> Vec<usize> {
    let mut dist = vec![usize::MAX; adj.len()];
    let mut queue = std::collections::VecDeque::from([root]);
    dist[root] = 0;
    while let Some(v) = queue.pop_front() {
        for &w in &adj[v] {
            if dist[w] == usize::MAX {
                dist[w] = dist[v] + 1;
                queue.push_back(w);
            }
        }
    }
    dist
}

/// A pseudo-peripheral pair `(start, end)` of the component of `root` (the usual iteration:
/// jump to a farthest node of smallest degree while the eccentricity grows).
fn pseudo_peripheral(adj: &[Vec<usize>], root: usize) -> (usize, usize) {
    let farthest = |dist: &[usize]| -> (usize, usize) {
        let ecc = dist
            .iter()
            .filter(|&&d| d != usize::MAX)
            .max()
            .copied()
            .unwrap_or(0);
        let end = (0..adj.len())
            .filter(|&v| dist[v] == ecc)
            .min_by_key(|&v| (adj[v].len(), v))
            .unwrap_or(root);
        (ecc, end)
    };
    let mut start = root;
    let (mut ecc, mut end) = farthest(&bfs_distances(adj, start));
    for _ in 0..adj.len() {
        let (e2, end2) = farthest(&bfs_distances(adj, end));
        if e2 <= ecc {
            break;
        }
        start = end;
        ecc = e2;
        end = end2;
    }
    (start, end)
}

/// Sloan's ordering of the places (weights W1 = 1, W2 = 2), component by component in file
/// order; ties go to the lower place index. Deterministic.
pub fn sloan(net: &PetriNet) -> Vec<usize> {
    sloan_with(&Hypergraph::of_net(net), &mut || false)
}

/// [`sloan`] on any hypergraph. When `stop` returns true (polled per component), the
/// variables not yet numbered are appended in index order.
pub fn sloan_with(hg: &Hypergraph, stop: &mut dyn FnMut() -> bool) -> Vec<usize> {
    use std::collections::BinaryHeap;
    const W1: i64 = 1;
    const W2: i64 = 2;
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Status {
        Inactive,
        Preactive,
        Active,
        Numbered,
    }
    let adj = place_graph(hg);
    let n = adj.len();
    let mut status = vec![Status::Inactive; n];
    let mut prio = vec![0i64; n];
    let mut numbered: Vec<usize> = Vec::with_capacity(n);
    for root in 0..n {
        if status[root] != Status::Inactive {
            continue;
        }
        if stop() {
            for (v, st) in status.iter_mut().enumerate() {
                if *st != Status::Numbered {
                    *st = Status::Numbered;
                    numbered.push(v);
                }
            }
            break;
        }
        let (start, end) = pseudo_peripheral(&adj, root);
        let dist = bfs_distances(&adj, end);
        for v in 0..n {
            if dist[v] != usize::MAX && status[v] == Status::Inactive {
                prio[v] = W1 * dist[v] as i64 - W2 * (adj[v].len() as i64 + 1);
            }
        }
        // max-heap of (priority, lower index first); stale entries are skipped
        let mut heap: BinaryHeap<(i64, std::cmp::Reverse<usize>)> = BinaryHeap::new();
        status[start] = Status::Preactive;
        heap.push((prio[start], std::cmp::Reverse(start)));
        while let Some((p, std::cmp::Reverse(v))) = heap.pop() {
            if status[v] == Status::Numbered || p != prio[v] {
                continue;
            }
            if status[v] == Status::Preactive {
                for &w in &adj[v] {
                    if status[w] == Status::Numbered {
                        continue;
                    }
                    prio[w] += W2;
                    if status[w] == Status::Inactive {
                        status[w] = Status::Preactive;
                    }
                    heap.push((prio[w], std::cmp::Reverse(w)));
                }
            }
            status[v] = Status::Numbered;
            numbered.push(v);
            for &w in &adj[v] {
                if status[w] != Status::Preactive {
                    continue;
                }
                status[w] = Status::Active;
                prio[w] += W2;
                heap.push((prio[w], std::cmp::Reverse(w)));
                for &x in &adj[w] {
                    if status[x] == Status::Numbered {
                        continue;
                    }
                    prio[x] += W2;
                    if status[x] == Status::Inactive {
                        status[x] = Status::Preactive;
                    }
                    heap.push((prio[x], std::cmp::Reverse(x)));
                }
            }
        }
    }
    // the first numbered place goes to the top level
    numbered.reverse();
    numbered
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Arc, Place, Transition};

    /// A chain p0 - p1 - ... - p{n-1} written in a scrambled file order.
    fn scrambled_chain(perm: &[usize]) -> PetriNet {
        let places = perm
            .iter()
            .map(|&i| Place {
                id: format!("p{i}"),
                name: format!("p{i}"),
                initial: 0,
            })
            .collect::<Vec<_>>();
        let idx = |i: usize| perm.iter().position(|&x| x == i).unwrap_or(0);
        let transitions = (0..perm.len() - 1)
            .map(|i| Transition {
                id: format!("t{i}"),
                name: format!("t{i}"),
                inputs: vec![Arc {
                    place: idx(i),
                    weight: 1,
                }],
                outputs: vec![Arc {
                    place: idx(i + 1),
                    weight: 1,
                }],
                inhibitors: vec![],
            })
            .collect();
        PetriNet {
            name: "chain".into(),
            places,
            transitions,
        }
    }

    #[test]
    fn span_of_a_chain() {
        let net = scrambled_chain(&[0, 1, 2, 3]);
        assert_eq!(total_span(&net, &[0, 1, 2, 3]), 3);
        assert_eq!(total_span(&net, &[3, 2, 1, 0]), 3);
        assert_eq!(total_span(&net, &[0, 2, 1, 3]), 1 + 2 + 2); // spans 2 (0-1), 1 (1-2), 2 (2-3)
    }

    #[test]
    fn force_untangles_a_scrambled_chain() {
        let net = scrambled_chain(&[0, 5, 2, 7, 1, 4, 6, 3]);
        let start = total_span(&net, &file_order(&net));
        let order = force(&net, 50);
        let span = total_span(&net, &order);
        assert!(span < start, "force {span} vs file {start}");
        assert!(span >= 7, "the optimum for a chain of 8 places is 7");
    }

    #[test]
    fn by_name_knows_its_orders() {
        let net = scrambled_chain(&[1, 0, 2]);
        assert_eq!(by_name(&net, "file").unwrap(), vec![2, 1, 0]);
        assert_eq!(by_name(&net, "file-rev").unwrap(), vec![0, 1, 2]);
        assert_eq!(by_name(&net, "force").unwrap().len(), 3);
        let err = by_name(&net, "sideways").unwrap_err();
        assert!(err.contains("sideways") && err.contains("force"), "{err}");
    }
}

/// The orders the `auto` portfolio tries in turn (no static metric predicts saturation's cost
/// reliably: on the MCC models and the thesis families each of these wins somewhere).
pub const PORTFOLIO: &[&str] = &["sloan", "force", "file-rev"];
