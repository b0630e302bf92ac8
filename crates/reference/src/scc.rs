//! The reachability graph as compressed adjacency (successors and predecessors, one edge per
//! pair of distinct markings `(m, m')`, self-loops kept) and its strongly connected components by
//! Tarjan's algorithm (petgraph): states on nontrivial cycles, the number of nontrivial SCCs,
//! terminal SCCs, bottom SCCs and strongly (Streett) fair cycles. The oracle of the symbolic SCC
//! engines (issue 10) and the building block of the explicit CTL checker.
//!
//! Vocabulary (thesis section 4.1): an SCC is *nontrivial* when it holds a cycle (two or more
//! states, or one state with a self-loop); a *terminal* SCC is a nontrivial SCC with no edge
//! leaving it (a deadlock is not one); a *bottom* SCC (used for liveness) is any SCC with no edge
//! leaving it, deadlocks included.

use petgraph::algo::TarjanScc;
use petgraph::csr::Csr;
use petgraph::visit::NodeFiltered;
use petgraph::Directed;

use crate::explore::ExplicitStateSpace;

/// Petgraph's Tarjan is recursive (one frame per state on the DFS path): it runs on a thread
/// with this much stack.
const TARJAN_STACK_BYTES: usize = 1 << 30;

/// A set of states of an explicit graph: `set[s]` for state `s`.
pub type StateSet = Vec<bool>;

type Adjacency = Csr<(), (), Directed, u32>;

/// The reachability graph as successor and predecessor adjacency (state 0 is the initial state).
#[derive(Clone, Debug)]
pub struct Graph {
    succ: Adjacency,
    pred: Adjacency,
}

impl Graph {
    /// The graph of an explored state space; parallel edges (two transitions leading from `m`
    /// to the same `m'`) are merged, self-loops kept.
    pub fn new<S>(space: &ExplicitStateSpace<S>) -> Graph {
        let n = space.successors.len();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (s, succ) in space.successors.iter().enumerate() {
            let start = edges.len();
            edges.extend(succ.iter().map(|&(_, t)| (s as u32, t as u32)));
            edges[start..].sort_unstable();
        }
        edges.dedup();
        Self::from_edges(n, edges)
    }

    /// A graph over states `0..n` with the given edges (any order, duplicates allowed).
    pub fn from_edges(n: usize, mut edges: Vec<(u32, u32)>) -> Graph {
        edges.sort_unstable();
        edges.dedup();
        let succ = adjacency(n, &edges);
        for e in &mut edges {
            *e = (e.1, e.0);
        }
        edges.sort_unstable();
        let pred = adjacency(n, &edges);
        Graph { succ, pred }
    }

    /// The number of states.
    pub fn num_states(&self) -> usize {
        self.succ.node_count()
    }
    /// The distinct successors of `s`, sorted.
    #[inline]
    pub fn succ(&self, s: usize) -> &[u32] {
        self.succ.neighbors_slice(s as u32)
    }
    /// The distinct predecessors of `s`, sorted.
    #[inline]
    pub fn pred(&self, s: usize) -> &[u32] {
        self.pred.neighbors_slice(s as u32)
    }
    /// Does `s` have no successor?
    #[inline]
    pub fn is_deadlock(&self, s: usize) -> bool {
        self.succ(s).is_empty()
    }
    /// Has `s` an edge to itself?
    #[inline]
    pub fn has_self_loop(&self, s: usize) -> bool {
        self.succ(s).binary_search(&(s as u32)).is_ok()
    }

    /// The SCCs of the subgraph induced by `within` (all states when `None`), in reverse
    /// topological order (an SCC comes before every SCC that reaches it).
    pub fn sccs(&self, within: Option<&[bool]>) -> Vec<Vec<u32>> {
        let mut out: Vec<Vec<u32>> = Vec::new();
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("tarjan".into())
                .stack_size(TARJAN_STACK_BYTES)
                .spawn_scoped(scope, || {
                    let mut tarjan = TarjanScc::new();
                    let mut push = |c: &[u32]| out.push(c.to_vec());
                    match within {
                        None => tarjan.run(&self.succ, &mut push),
                        Some(w) => {
                            let g = NodeFiltered::from_fn(&self.succ, |n: u32| w[n as usize]);
                            tarjan.run(&g, &mut push)
                        }
                    }
                })
                .expect("spawn the Tarjan thread")
                .join()
                .expect("Tarjan thread panicked")
        });
        out
    }

    /// Does `component` hold a cycle (two or more states, or a self-loop)? With
    /// `deadlock_loops`, a deadlock counts as a self-loop.
    pub fn is_nontrivial(&self, component: &[u32], deadlock_loops: bool) -> bool {
        match component {
            [s] => {
                let s = *s as usize;
                self.has_self_loop(s) || (deadlock_loops && self.is_deadlock(s))
            }
            c => c.len() > 1,
        }
    }
}

fn adjacency(n: usize, sorted_edges: &[(u32, u32)]) -> Adjacency {
    let mut g = Adjacency::from_sorted_edges(sorted_edges).expect("edges are sorted and unique");
    while g.node_count() < n {
        g.add_node(());
    }
    g
}

/// The SCC decomposition of a whole graph, with per-state component numbers.
#[derive(Clone, Debug)]
pub struct Sccs {
    /// The components in reverse topological order.
    pub components: Vec<Vec<u32>>,
    /// `component_of[s]`: the index in `components` of the component holding `s`.
    pub component_of: Vec<u32>,
    /// `nontrivial[c]`: does component `c` hold a cycle?
    pub nontrivial: Vec<bool>,
    /// `closed[c]`: does no edge leave component `c`?
    pub closed: Vec<bool>,
}

impl Sccs {
    /// Decompose `graph` (Tarjan).
    pub fn new(graph: &Graph) -> Sccs {
        let components = graph.sccs(None);
        let mut component_of = vec![0u32; graph.num_states()];
        for (c, comp) in components.iter().enumerate() {
            for &s in comp {
                component_of[s as usize] = c as u32;
            }
        }
        let nontrivial = components
            .iter()
            .map(|c| graph.is_nontrivial(c, false))
            .collect();
        let closed = components
            .iter()
            .enumerate()
            .map(|(c, comp)| {
                comp.iter().all(|&s| {
                    graph
                        .succ(s as usize)
                        .iter()
                        .all(|&t| component_of[t as usize] == c as u32)
                })
            })
            .collect();
        Sccs {
            components,
            component_of,
            nontrivial,
            closed,
        }
    }

    /// The number of nontrivial SCCs.
    pub fn nontrivial_count(&self) -> usize {
        self.nontrivial.iter().filter(|&&b| b).count()
    }

    /// The states on a nontrivial cycle (members of nontrivial SCCs).
    pub fn cycle_states(&self) -> StateSet {
        self.component_of
            .iter()
            .map(|&c| self.nontrivial[c as usize])
            .collect()
    }

    /// The terminal SCCs: nontrivial, no edge leaving (deadlocks excluded), as sorted state lists.
    pub fn terminal(&self) -> Vec<Vec<u32>> {
        self.select(|c| self.nontrivial[c] && self.closed[c])
    }

    /// The bottom SCCs: no edge leaving, deadlocks included.
    pub fn bottom(&self) -> Vec<Vec<u32>> {
        self.select(|c| self.closed[c])
    }

    fn select(&self, keep: impl Fn(usize) -> bool) -> Vec<Vec<u32>> {
        self.components
            .iter()
            .enumerate()
            .filter(|&(c, _)| keep(c))
            .map(|(_, comp)| {
                let mut v = comp.clone();
                v.sort_unstable();
                v
            })
            .collect()
    }
}

/// One Streett pair `(R, C)`: a cycle that visits `R` must visit `C`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreettPair {
    pub r: StateSet,
    pub c: StateSet,
}

/// The states lying on a nontrivial cycle that satisfies every Streett pair: for each pair, the
/// cycle visits no state of `R` or some state of `C` (thesis section 4.4). Weak (Büchi) fairness
/// with sets `F_i` is the special case `R_i = all states`, `C_i = F_i`.
///
/// Exact, by SCC refinement: an SCC that meets `R_m` but not `C_m` loses its `R_m` states and is
/// decomposed again. (Thesis Figure 4.8 intersects per-pair answers, which is exact for one pair
/// but may over-approximate for several: see the test `streett_pairs_need_one_common_cycle`.)
pub fn streett_fair_states(graph: &Graph, pairs: &[StreettPair]) -> StateSet {
    let n = graph.num_states();
    let mut fair = vec![false; n];
    // Refined parts of distinct SCCs share no cycle, so each round decomposes them all at once.
    let mut within = vec![true; n];
    loop {
        let mut next = vec![false; n];
        let mut refined = false;
        for comp in graph.sccs(Some(&within)) {
            if !graph.is_nontrivial(&comp, false) {
                continue;
            }
            let bad = pairs.iter().find(|p| {
                comp.iter().any(|&s| p.r[s as usize]) && !comp.iter().any(|&s| p.c[s as usize])
            });
            match bad {
                None => comp.iter().for_each(|&s| fair[s as usize] = true),
                Some(p) => {
                    for &s in &comp {
                        next[s as usize] = !p.r[s as usize];
                        refined |= next[s as usize];
                    }
                }
            }
        }
        if !refined {
            break;
        }
        within = next;
    }
    fair
}
