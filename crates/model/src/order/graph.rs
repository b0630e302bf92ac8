//! The variable graph (two variables adjacent when some event touches both) and the BFS
//! helpers the bandwidth orders (Sloan, Cuthill-McKee) share.

use super::Hypergraph;

/// The variable graph: sorted, deduplicated adjacency lists.
pub(super) fn place_graph(hg: &Hypergraph) -> Vec<Vec<usize>> {
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
pub(super) fn bfs_distances(adj: &[Vec<usize>], root: usize) -> Vec<usize> {
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
pub(super) fn pseudo_peripheral(adj: &[Vec<usize>], root: usize) -> (usize, usize) {
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
