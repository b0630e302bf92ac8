//! The length of a shortest LTL counterexample, explicitly: the oracle of the symbolic
//! product's shortest counterexamples (`saturn_symbolic::ltl_lasso`).
//!
//! The product of the reachability graph with the automaton of `¬φ`: a node `(s, q)` is a
//! marking and the automaton state about to read it; a step fires a transition of the net
//! while the automaton takes an edge enabled by `s`'s letter (acceptance is on that edge). A
//! counterexample is either a lasso of the product, a stem of `d` steps from `(m₀, 0)` to a knot
//! and a cycle of `c` steps back to it whose edges meet every acceptance set (`d + c` steps),
//! or a path of `d` steps to a node `(s, q)` at a deadlock `s` from which the automaton accepts
//! the rest of the word: `s`'s letter forever under [`LtlDeadlocks::Stutter`] (`d + 1` steps,
//! the stutter closes the lasso), `s`'s letter then the sink's all-false one forever under
//! [`LtlDeadlocks::Maximal`] (`d` steps, a maximal finite path). Stems by one breadth-first
//! search; the cycle of every knot by a breadth-first search over (node, acceptance sets met).

use std::collections::VecDeque;

use saturn_logic::StateFormula;
use saturn_ltl::formula::ALIVE;
use saturn_ltl::Tgba;
use saturn_model::PetriNet;

use crate::ctl::{CtlChecker, CtlError, Deadlocks};
use crate::explore::ExplicitStateSpace;
use crate::ltl::LtlDeadlocks;

/// The least number of steps of a counterexample (a run of the net, state 0 of `space`
/// initial, accepted by `aut`, whose atom `i` is `atoms[i]`); `None` when there is none.
pub fn shortest_counterexample(
    net: &PetriNet,
    space: &ExplicitStateSpace<Vec<u64>>,
    aut: &Tgba,
    atoms: &[StateFormula],
    deadlocks: LtlDeadlocks,
) -> Result<Option<usize>, CtlError> {
    let ctl = CtlChecker::new(net, space, Deadlocks::Maximal);
    let labels: Vec<Vec<bool>> = atoms.iter().map(|a| ctl.sat(a)).collect::<Result<_, _>>()?;
    let letter = |s: usize| -> Vec<bool> { labels.iter().map(|l| l[s]).collect() };
    let q = aut.states.len();
    let n = space.num_states();
    let id = |s: usize, a: usize| s * q + a;
    // the product's successors: (node, acceptance of the edge taken)
    let succ = |node: usize| -> Vec<(usize, u64)> {
        let (s, a) = (node / q, node % q);
        let l = letter(s);
        let mut v = Vec::new();
        for e in &aut.edges[a] {
            if e.enabled(|x| x == ALIVE || l[x as usize]) {
                for &(_, t) in &space.successors[s] {
                    v.push((id(t, e.to as usize), e.acc));
                }
            }
        }
        v
    };
    let all = aut.all_acc();
    // stems
    let mut dist = vec![usize::MAX; n * q];
    dist[id(0, 0)] = 0;
    let mut queue = VecDeque::from([id(0, 0)]);
    let mut order = Vec::new();
    while let Some(u) = queue.pop_front() {
        order.push(u);
        for (v, _) in succ(u) {
            if dist[v] == usize::MAX {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        }
    }
    let mut best: Option<usize> = None;
    for &node in &order {
        let (s, a) = (node / q, node % q);
        let d = dist[node];
        let total = if space.successors[s].is_empty() {
            let l = letter(s);
            let (tail, extra) = match deadlocks {
                LtlDeadlocks::Stutter => (l.clone(), 1),
                LtlDeadlocks::Maximal => (vec![false; l.len()], 0),
            };
            let alive_tail = deadlocks == LtlDeadlocks::Stutter;
            let after: Vec<usize> = aut.edges[a]
                .iter()
                .filter(|e| e.enabled(|x| x == ALIVE || l[x as usize]))
                .map(|e| e.to as usize)
                .collect();
            let ok = after
                .iter()
                .any(|&b| accepts_forever(aut, b, &tail, alive_tail));
            ok.then_some(d + extra)
        } else {
            fair_cycle(&succ, node, all).map(|c| d + c)
        };
        if let Some(t) = total {
            best = Some(best.map_or(t, |b| b.min(t)));
        }
    }
    Ok(best)
}

/// The length of a shortest cycle of the product through `k` whose edges meet every
/// acceptance set of `all`: breadth-first over (node, sets met).
fn fair_cycle(succ: &impl Fn(usize) -> Vec<(usize, u64)>, k: usize, all: u64) -> Option<usize> {
    let mut seen = std::collections::HashSet::new();
    let mut queue = VecDeque::from([(k, 0u64, 0usize)]);
    while let Some((u, f, d)) = queue.pop_front() {
        for (v, acc) in succ(u) {
            let g = (f | acc) & all;
            if v == k && g == all {
                return Some(d + 1);
            }
            if seen.insert((v, g)) {
                queue.push_back((v, g, d + 1));
            }
        }
    }
    None
}

/// Does the automaton, from state `b`, accept the letter `letter` (`alive` the value of
/// [`ALIVE`]) repeated forever: is there a cycle of enabled edges, reachable from `b`, whose
/// edges meet every acceptance set? (For each state `x` reachable from `b`, a closed walk
/// from `x` meeting every set.)
fn accepts_forever(aut: &Tgba, b: usize, letter: &[bool], alive: bool) -> bool {
    let value = |x: u32| {
        if x == ALIVE {
            alive
        } else {
            letter[x as usize]
        }
    };
    let succ = |x: usize| -> Vec<(usize, u64)> {
        aut.edges[x]
            .iter()
            .filter(|e| e.enabled(value))
            .map(|e| (e.to as usize, e.acc))
            .collect()
    };
    let mut seen = vec![false; aut.states.len()];
    seen[b] = true;
    let mut stack = vec![b];
    while let Some(x) = stack.pop() {
        if fair_cycle(&succ, x, aut.all_acc()).is_some() {
            return true;
        }
        for (y, _) in succ(x) {
            if !seen[y] {
                seen[y] = true;
                stack.push(y);
            }
        }
    }
    false
}
