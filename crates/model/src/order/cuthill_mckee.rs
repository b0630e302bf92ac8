//! The Cuthill-McKee ordering (E. Cuthill, J. McKee, "Reducing the bandwidth of sparse symmetric
//! matrices", ACM National Conference 1969) of the place graph: a breadth-first numbering from
//! a pseudo-peripheral place, each place's unnumbered neighbours taken by increasing degree.

use super::graph::{place_graph, pseudo_peripheral};
use super::Hypergraph;
use crate::PetriNet;

/// The Cuthill-McKee order of a net's places, component by component in file order; the first
/// numbered place is at the top (so the levels read bottom-up give the reverse Cuthill-McKee
/// numbering). Deterministic: ties go to the lower place index.
pub fn cuthill_mckee(net: &PetriNet) -> Vec<usize> {
    cuthill_mckee_with(&Hypergraph::of_net(net), &mut || false)
}

/// [`cuthill_mckee`] on any hypergraph. When `stop` returns true (polled per component), the
/// variables not yet numbered are appended in index order.
pub fn cuthill_mckee_with(hg: &Hypergraph, stop: &mut dyn FnMut() -> bool) -> Vec<usize> {
    let adj = place_graph(hg);
    let n = adj.len();
    let mut numbered = vec![false; n];
    let mut out: Vec<usize> = Vec::with_capacity(n);
    let mut next: Vec<usize> = Vec::new();
    for root in 0..n {
        if numbered[root] {
            continue;
        }
        if stop() {
            out.extend((0..n).filter(|&v| !numbered[v]));
            break;
        }
        let (start, _) = pseudo_peripheral(&adj, root);
        numbered[start] = true;
        let first = out.len();
        out.push(start);
        let mut head = first;
        while head < out.len() {
            let v = out[head];
            head += 1;
            next.clear();
            next.extend(adj[v].iter().copied().filter(|&w| !numbered[w]));
            next.sort_unstable_by_key(|&w| (adj[w].len(), w));
            for &w in &next {
                numbered[w] = true;
                out.push(w);
            }
        }
    }
    out.reverse();
    out
}
