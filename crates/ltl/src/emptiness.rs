//! On-the-fly emptiness of the product of a system (a Kripke structure given by its successor
//! function) with a [`Tgba`]: Couvreur's SCC-based algorithm (FM'99) for generalized Büchi
//! acceptance, one depth-first search that merges the roots of a cycle and stops at the first
//! strongly connected component whose transitions meet every acceptance set. The product is
//! built as the search goes, so a counterexample is often found long before the system's
//! state space is complete.

use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::tgba::Tgba;

/// A transition system whose states are labelled with atoms.
pub trait System {
    type State: Clone + Eq + Hash;
    fn initial(&mut self) -> Self::State;
    /// The successors of `s` (never empty: a system with deadlocks gives them a successor by
    /// its deadlock convention).
    fn successors(&mut self, s: &Self::State, out: &mut Vec<Self::State>);
    /// Some of the successors of `s`, for a partial-order reduction: `true` when some were
    /// left out. The search fully expands a state whose reduced successors close a cycle on
    /// its depth-first stack (the cycle proviso). A system without reduction gives them all.
    fn reduced_successors(&mut self, s: &Self::State, out: &mut Vec<Self::State>) -> bool {
        self.successors(s, out);
        false
    }
    /// The truth of each atom of `atoms` in `s`, into `out` (as long as `atoms`).
    fn values(&mut self, s: &Self::State, atoms: &[u32], out: &mut [bool]);
    /// The bytes a stored state takes (for the memory limit).
    fn bytes(&self, s: &Self::State) -> usize;
}

/// When to give up.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    pub deadline: Option<Instant>,
    /// The memory the stored states may take (estimate, bytes).
    pub max_bytes: Option<usize>,
    /// Stop with [`Stopped::Cancelled`] once this flag is raised (a race: another engine
    /// decided the formula first).
    pub cancel: Option<&'static AtomicBool>,
}

/// Why the search stopped without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Stopped {
    #[error("the time limit was reached")]
    Deadline,
    #[error("the memory limit was reached")]
    Memory,
    #[error("cancelled (another engine decided first)")]
    Cancelled,
}

/// What the search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome<S> {
    /// Is there an accepting run (the language of the product is not empty)?
    pub accepting: bool,
    /// Product states and system states stored.
    pub product_states: usize,
    pub system_states: usize,
    /// Product states expanded with a reduced set of successors (partial-order reduction).
    pub reduced_states: usize,
    /// The accepting run found, as the system states it passes (when `accepting`).
    pub run: Option<Run<S>>,
}

/// An accepting lasso of the product projected on the system: `states[0]` is the initial
/// state, each state is followed by a successor of it, and the last one by
/// `states[loop_start]` (the cycle `states[loop_start..]`, at least one step, is repeated
/// forever and meets every acceptance set of the automaton).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run<S> {
    pub states: Vec<S>,
    pub loop_start: usize,
}

/// A shortest path (breadth-first) from `from` through the states `inside` admits to a state
/// `stop` accepts, at least one step long; the states after `from`, up to the one accepted.
fn bfs_path(
    from: u32,
    inside: &dyn Fn(u32) -> bool,
    succ: &mut dyn FnMut(u32) -> Vec<(u32, u64)>,
    stop: &dyn Fn(u32, u32, u64) -> bool,
) -> Option<Vec<u32>> {
    let mut parent: rustc_hash::FxHashMap<u32, u32> = Default::default();
    let mut queue = std::collections::VecDeque::from([from]);
    let mut seen: rustc_hash::FxHashSet<u32> = Default::default();
    seen.insert(from);
    while let Some(x) = queue.pop_front() {
        for (y, acc) in succ(x) {
            if !inside(y) {
                continue;
            }
            if stop(x, y, acc) {
                let mut path = vec![y];
                let mut z = x;
                while z != from {
                    path.push(z);
                    z = parent[&z];
                }
                path.reverse();
                return Some(path);
            }
            if seen.insert(y) {
                parent.insert(y, x);
                queue.push_back(y);
            }
        }
    }
    None
}

/// The system's states seen so far, numbered.
struct Interned<S> {
    states: Vec<S>,
    table: HashTable<u32>,
    hasher: FxBuildHasher,
    bytes: usize,
}

impl<S: Clone + Eq + Hash> Interned<S> {
    fn new() -> Self {
        Interned {
            states: Vec::new(),
            table: HashTable::new(),
            hasher: FxBuildHasher,
            bytes: 0,
        }
    }
    /// The number of `s`, and whether it is new.
    fn intern(&mut self, s: &S, bytes: impl FnOnce(&S) -> usize) -> (u32, bool) {
        let h = self.hasher.hash_one(s);
        let states = &self.states;
        if let Some(&i) = self.table.find(h, |&i| states[i as usize] == *s) {
            return (i, false);
        }
        let i = self.states.len() as u32;
        self.bytes += bytes(s) + 16;
        self.states.push(s.clone());
        let (states, hasher) = (&self.states, &self.hasher);
        self.table
            .insert_unique(h, i, |&j| hasher.hash_one(&states[j as usize]));
        (i, true)
    }
}

/// A product state on the search stack, with its successors (product number, acceptance).
struct Frame {
    id: u32,
    succ: Vec<(u32, u64)>,
    pos: usize,
}

/// Is there a run of `sys` accepted by `aut`? (`aut` is the automaton of the negation of the
/// property: an accepting run is a counterexample.)
pub fn accepting_run<Sys: System>(
    sys: &mut Sys,
    aut: &Tgba,
    limits: Limits,
) -> Result<Outcome<Sys::State>, Stopped> {
    // the atoms the automaton reads, densely numbered
    let mut atoms: Vec<u32> = aut
        .edges
        .iter()
        .flatten()
        .flat_map(|e| e.label.iter().map(|l| l.0))
        .collect();
    atoms.sort_unstable();
    atoms.dedup();
    let all = aut.all_acc();
    let mut system: Interned<Sys::State> = Interned::new();
    // per system state: its valuation of `atoms` (bitset) and successors (when computed)
    let words = atoms.len().div_ceil(64).max(1);
    let mut values: Vec<u64> = Vec::new();
    let mut product: FxHashMapU64 = FxHashMapU64::default();
    // per product state: (system state, automaton state), dfs number (0: dead)
    let mut pstate: Vec<(u32, u32)> = Vec::new();
    let mut num: Vec<u32> = Vec::new();
    let mut live: Vec<u32> = Vec::new();
    let mut roots: Vec<(u32, u64)> = Vec::new();
    let mut arcs: Vec<u64> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut counter = 0u32;
    let mut buf = Vec::new();
    // per system state: its successors, maybe reduced ([`System::reduced_successors`]), and
    // whether they are; all its successors when a product state over it needed them
    let mut succ_of: Vec<Option<Box<[u32]>>> = Vec::new();
    let mut partial: Vec<bool> = Vec::new();
    let mut full_of: rustc_hash::FxHashMap<u32, Box<[u32]>> = Default::default();
    // per product state: on the depth-first stack?
    let mut on_stack: Vec<bool> = Vec::new();
    let mut reduced_states = 0usize;

    let add_system = |sys: &mut Sys,
                      system: &mut Interned<Sys::State>,
                      values: &mut Vec<u64>,
                      s: &Sys::State|
     -> u32 {
        let (i, new) = system.intern(s, |s| sys.bytes(s));
        if new {
            let base = values.len();
            values.resize(base + words, 0);
            let mut v = vec![false; atoms.len()];
            sys.values(s, &atoms, &mut v);
            for (k, _) in v.iter().enumerate().filter(|x| *x.1) {
                values[base + k / 64] |= 1 << (k % 64);
            }
        }
        i
    };
    // the states of `buf` numbered (drained), as a successor list
    let intern_all = |sys: &mut Sys,
                      system: &mut Interned<Sys::State>,
                      values: &mut Vec<u64>,
                      buf: &mut Vec<Sys::State>|
     -> Box<[u32]> {
        let v: Vec<u32> = buf
            .drain(..)
            .map(|t| add_system(sys, system, values, &t))
            .collect();
        system.bytes += 4 * v.len() + 16;
        v.into_boxed_slice()
    };
    let init = sys.initial();
    let s0 = add_system(sys, &mut system, &mut values, &init);
    let mut steps = 0u64;
    // push product state (s, q) reached by an arc with acceptance `acc`
    macro_rules! push {
        ($id:expr, $acc:expr) => {{
            let id: u32 = $id;
            counter += 1;
            num[id as usize] = counter;
            live.push(id);
            roots.push((counter, 0));
            arcs.push($acc);
            let (s, q) = pstate[id as usize];
            on_stack[id as usize] = true;
            // the system's successors of s, computed once per system state
            if succ_of.len() <= s as usize {
                succ_of.resize(s as usize + 1, None);
                partial.resize(s as usize + 1, false);
            }
            if succ_of[s as usize].is_none() {
                let state = system.states[s as usize].clone();
                buf.clear();
                partial[s as usize] = sys.reduced_successors(&state, &mut buf);
                let v = intern_all(sys, &mut system, &mut values, &mut buf);
                succ_of[s as usize] = Some(v);
            }
            let mut succ = Vec::new();
            let mut full = false;
            loop {
                let succ_sys = match full {
                    false => succ_of[s as usize].as_deref().unwrap_or(&[]),
                    true => full_of.get(&s).map_or(&[][..], |v| &v[..]),
                };
                let holds = |a: u32| atom_holds(&values, words, &atoms, s, a);
                let mut closes = false;
                for e in &aut.edges[q as usize] {
                    if !e.enabled(holds) {
                        continue;
                    }
                    for &t in succ_sys {
                        let key = (t as u64) << 32 | e.to as u64;
                        let next = pstate.len() as u32;
                        let p = *product.entry(key).or_insert(next);
                        if p == next {
                            pstate.push((t, e.to));
                            num.push(u32::MAX);
                            on_stack.push(false);
                        }
                        closes |= on_stack[p as usize];
                        succ.push((p, e.acc));
                    }
                }
                // the cycle proviso: a reduced state that closes a cycle on the stack is
                // expanded fully
                if full || !partial[s as usize] || !closes {
                    break;
                }
                if !full_of.contains_key(&s) {
                    let state = system.states[s as usize].clone();
                    buf.clear();
                    sys.successors(&state, &mut buf);
                    let v = intern_all(sys, &mut system, &mut values, &mut buf);
                    full_of.insert(s, v);
                }
                succ.clear();
                full = true;
            }
            if partial[s as usize] && !full {
                reduced_states += 1;
            }
            stack.push(Frame { id, succ, pos: 0 });
        }};
    }
    product.insert((s0 as u64) << 32, 0);
    pstate.push((s0, 0));
    num.push(u32::MAX);
    on_stack.push(false);
    push!(0, 0);
    // num: u32::MAX = never visited, 0 = dead (its SCC is done), else the dfs number
    while let Some(top) = stack.last_mut() {
        steps += 1;
        if steps.is_multiple_of(4096) {
            if limits.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(Stopped::Deadline);
            }
            if limits.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(Stopped::Cancelled);
            }
            let bytes = system.bytes + pstate.len() * 40 + values.len() * 8;
            if limits.max_bytes.is_some_and(|m| bytes > m) {
                return Err(Stopped::Memory);
            }
        }
        if top.pos < top.succ.len() {
            let (t, acc) = top.succ[top.pos];
            top.pos += 1;
            match num[t as usize] {
                u32::MAX => push!(t, acc),
                0 => {}
                nt => {
                    // a cycle: merge the roots above t's
                    let mut a = acc;
                    while roots.last().is_some_and(|r| r.0 > nt) {
                        let (_, racc) = roots.pop().unwrap_or((0, 0));
                        a |= racc | arcs.pop().unwrap_or(0);
                    }
                    if let Some(r) = roots.last_mut() {
                        r.1 |= a;
                        if r.1 & all == all {
                            // the lasso: the depth-first stack down to the component's root
                            // (a path of the product), then a cycle through the component
                            // that meets every acceptance set
                            let root = r.0;
                            let depth = stack
                                .iter()
                                .position(|f| num[f.id as usize] == root)
                                .expect("a component's root is on the stack");
                            let stem: Vec<u32> = stack[..=depth].iter().map(|f| f.id).collect();
                            let root_id = stem[depth];
                            let num = &num;
                            let inside = |x: u32| {
                                let n = num[x as usize];
                                n != 0 && n != u32::MAX && n >= root
                            };
                            // the product successors of a state of the component (every one
                            // of them was expanded, so its system successors are known)
                            let mut succ = |x: u32| -> Vec<(u32, u64)> {
                                let (s, q) = pstate[x as usize];
                                let holds = |a: u32| atom_holds(&values, words, &atoms, s, a);
                                let mut out = Vec::new();
                                for e in &aut.edges[q as usize] {
                                    if !e.enabled(holds) {
                                        continue;
                                    }
                                    // (every arc the search took, and maybe more: all
                                    // are arcs of the product)
                                    let succ_sys = match full_of.get(&s) {
                                        Some(v) => &v[..],
                                        None => succ_of[s as usize].as_deref().unwrap_or(&[]),
                                    };
                                    for &t in succ_sys {
                                        if let Some(&p) =
                                            product.get(&((t as u64) << 32 | e.to as u64))
                                        {
                                            out.push((p, e.acc));
                                        }
                                    }
                                }
                                out
                            };
                            let mut cycle: Vec<u32> = Vec::new();
                            let (mut cur, mut need) = (root_id, all);
                            while need != 0 {
                                let n = need;
                                let leg =
                                    bfs_path(cur, &inside, &mut succ, &|_, _, acc| acc & n != 0)
                                        .expect("the component meets every acceptance set");
                                cur = *leg.last().expect("a leg has a step");
                                // the acceptance met on the leg's last arc
                                let prev = match leg.len() {
                                    1 => cycle.last().copied().unwrap_or(root_id),
                                    l => leg[l - 2],
                                };
                                // (one arc: the run takes one of its parallel arcs)
                                let met = succ(prev)
                                    .iter()
                                    .find(|&&(y, acc)| y == cur && acc & n != 0)
                                    .map_or(0, |&(_, acc)| acc & n);
                                need &= !met;
                                cycle.extend(leg);
                            }
                            if cur != root_id || cycle.is_empty() {
                                let back =
                                    bfs_path(cur, &inside, &mut succ, &|_, y, _| y == root_id)
                                        .expect("the component is strongly connected");
                                cycle.extend(back);
                            }
                            cycle.pop(); // the root again
                            let states = stem
                                .iter()
                                .chain(&cycle)
                                .map(|&x| system.states[pstate[x as usize].0 as usize].clone())
                                .collect();
                            return Ok(Outcome {
                                accepting: true,
                                product_states: pstate.len(),
                                system_states: system.states.len(),
                                reduced_states,
                                run: Some(Run {
                                    states,
                                    loop_start: depth,
                                }),
                            });
                        }
                    }
                }
            }
        } else {
            let id = top.id;
            stack.pop();
            on_stack[id as usize] = false;
            if roots.last().is_some_and(|r| r.0 == num[id as usize]) {
                roots.pop();
                arcs.pop();
                // the SCC rooted at id is done: every live state from id up
                while let Some(x) = live.pop() {
                    num[x as usize] = 0;
                    if x == id {
                        break;
                    }
                }
            }
        }
    }
    Ok(Outcome {
        accepting: false,
        product_states: pstate.len(),
        system_states: system.states.len(),
        reduced_states,
        run: None,
    })
}

type FxHashMapU64 = rustc_hash::FxHashMap<u64, u32>;

/// The value of atom `a` in system state `s`: the states' atom values are packed `words` 64-bit
/// words per state, in the order of `atoms` (sorted).
fn atom_holds(values: &[u64], words: usize, atoms: &[u32], s: u32, a: u32) -> bool {
    let k = atoms
        .binary_search(&a)
        .expect("every atom of the automaton is listed");
    values[s as usize * words + k / 64] >> (k % 64) & 1 == 1
}
