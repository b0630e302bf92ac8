//! Sloan's profile-reduction ordering (S. W. Sloan, "An algorithm for profile and wavefront
//! reduction of sparse matrices", IJNME 1986).

use super::graph::{bfs_distances, place_graph, pseudo_peripheral};
use super::Hypergraph;
use crate::PetriNet;

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
