//! Explicit LTL model checking: the whole reachability graph of a net, its product with the
//! automaton of `¬φ` built breadth-first, and emptiness by Tarjan's SCCs (an SCC whose inner
//! transitions meet every acceptance set is a counterexample). The oracle of the on-the-fly
//! product of `saturn-ltl`; the atoms are labelled by the explicit CTL checker.
//!
//! Paths that reach a deadlock: [`LtlDeadlocks::Stutter`] repeats the deadlock forever (the
//! contest's convention); [`LtlDeadlocks::Maximal`] ends the path there, modelled by one extra
//! sink state where no atom (and not the automaton's "alive" atom) holds.

use saturn_logic::StateFormula;
use saturn_ltl::formula::ALIVE;
use saturn_ltl::Tgba;
use saturn_model::PetriNet;

use crate::ctl::{CtlChecker, CtlError, Deadlocks};
use crate::explore::ExplicitStateSpace;
use crate::scc::Graph;

/// What happens on a path that reaches a deadlock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtlDeadlocks {
    Stutter,
    Maximal,
}

/// Is there a run of the net (state 0 of `space` initial) accepted by `aut`, whose atom `i` is
/// `atoms[i]`?
pub fn accepting_run(
    net: &PetriNet,
    space: &ExplicitStateSpace<Vec<u64>>,
    aut: &Tgba,
    atoms: &[StateFormula],
    deadlocks: LtlDeadlocks,
) -> Result<bool, CtlError> {
    let ctl = CtlChecker::new(net, space, Deadlocks::Maximal);
    let labels: Vec<Vec<bool>> = atoms.iter().map(|a| ctl.sat(a)).collect::<Result<_, _>>()?;
    let n = space.num_states();
    // system successors; `n` is the sink after a deadlock (Maximal)
    let succ = |s: usize| -> Vec<usize> {
        if s == n {
            return vec![n];
        }
        let mut v: Vec<usize> = space.successors[s].iter().map(|&(_, t)| t).collect();
        if v.is_empty() {
            v.push(match deadlocks {
                LtlDeadlocks::Stutter => s,
                LtlDeadlocks::Maximal => n,
            });
        }
        v
    };
    let value = |s: usize, a: u32| -> bool {
        if s == n {
            false
        } else if a == ALIVE {
            true
        } else {
            labels[a as usize][s]
        }
    };
    // the product, breadth-first from (0, 0)
    let q = aut.states.len();
    let id = |s: usize, a: usize| s * q + a;
    let mut index = vec![u32::MAX; (n + 1) * q];
    let mut nodes = vec![(0usize, 0usize)];
    index[id(0, 0)] = 0;
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut accs: Vec<(u32, u32, u64)> = Vec::new();
    let mut k = 0;
    while k < nodes.len() {
        let (s, a) = nodes[k];
        for e in &aut.edges[a] {
            if !e.enabled(|x| value(s, x)) {
                continue;
            }
            for t in succ(s) {
                let j = id(t, e.to as usize);
                if index[j] == u32::MAX {
                    index[j] = nodes.len() as u32;
                    nodes.push((t, e.to as usize));
                }
                edges.push((k as u32, index[j]));
                accs.push((k as u32, index[j], e.acc));
            }
        }
        k += 1;
    }
    let graph = Graph::from_edges(nodes.len(), edges);
    let mut component = vec![usize::MAX; nodes.len()];
    let sccs = graph.sccs(None);
    for (c, members) in sccs.iter().enumerate() {
        for &m in members {
            component[m as usize] = c;
        }
    }
    // the acceptance sets met by the inner edges of each SCC (an inner edge: a cycle)
    let mut met: Vec<Option<u64>> = vec![None; sccs.len()];
    for (x, y, acc) in accs {
        let c = component[x as usize];
        if c == component[y as usize] {
            *met[c].get_or_insert(0) |= acc;
        }
    }
    let all = aut.all_acc();
    Ok(met.iter().flatten().any(|m| m & all == all))
}
