//! Partial-order reduction of a Petri net's successors for stutter-insensitive formulas (LTL
//! without `X`): stubborn sets (Valmari), computed from the net's structure at each marking.
//!
//! A set `S` of transitions is stubborn in marking `m` when
//! - every disabled `t ∈ S` has a reason to stay disabled while only transitions outside `S`
//!   fire: an input place `p` with `m(p) < W(p,t)` whose raisers (the transitions that add
//!   tokens to `p`) are all in `S`, or an inhibitor place `p` with `m(p) ≥ I(p,t)` whose
//!   lowerers are all in `S`;
//! - every enabled `t ∈ S` commutes with every transition outside `S` and cannot be disabled
//!   by one: `S` holds the transitions that take tokens from an input place `t` takes tokens
//!   from, those that lower an input place of `t` (a read arc's place), those that raise an
//!   inhibitor place of `t`, and those with an inhibitor on a place `t` raises;
//! - `S` holds an enabled transition.
//!
//! Firing only the enabled transitions of a stubborn set keeps every deadlock and, when none of
//! them is *visible* (can change the truth of an atom of the formula: it changes the token
//! count of a place an atom reads, or of a place that decides the enabling of a transition an
//! `is-fireable` atom names), a stutter-equivalent run for every run of the net, provided the
//! search never closes a cycle made of reduced states only: the cycle proviso, which the
//! emptiness check applies (a state whose reduced successors reach the depth-first stack is
//! fully expanded, [`crate::emptiness`]). A marking where every stubborn set found holds an
//! enabled visible transition is fully expanded.

use saturn_logic::StateFormula;
use saturn_model::PetriNet;

/// The seeds tried per marking (each an enabled invisible transition whose stubborn closure is
/// computed; the smallest closure wins).
const MAX_SEEDS: usize = 16;

/// The net's structure as the stubborn-set closure reads it, with scratch space.
pub struct Stubborn {
    /// Per transition: input places (weight), inhibitor places (weight), effect (non-zero).
    pre: Vec<Vec<(usize, u64)>>,
    inh: Vec<Vec<(usize, u64)>>,
    effect: Vec<Vec<(usize, i64)>>,
    /// Per place: the transitions with an input arc from it, those that lower it, those that
    /// raise it, those with an inhibitor arc from it.
    consumers: Vec<Vec<u32>>,
    lowerers: Vec<Vec<u32>>,
    raisers: Vec<Vec<u32>>,
    inhibited: Vec<Vec<u32>>,
    /// Can the transition change an atom's truth?
    visible: Vec<bool>,
    /// Scratch: the closure's membership stamps, its work list, the enabled transitions.
    stamp: Vec<u32>,
    generation: u32,
    work: Vec<u32>,
    members: Vec<u32>,
}

impl Stubborn {
    /// The closure rules of `net`, visibility read from the atoms of the formula.
    pub fn new(net: &PetriNet, atoms: &[StateFormula]) -> Self {
        let (np, nt) = (net.places.len(), net.transitions.len());
        let mut s = Stubborn {
            pre: Vec::with_capacity(nt),
            inh: Vec::with_capacity(nt),
            effect: Vec::with_capacity(nt),
            consumers: vec![Vec::new(); np],
            lowerers: vec![Vec::new(); np],
            raisers: vec![Vec::new(); np],
            inhibited: vec![Vec::new(); np],
            visible: vec![false; nt],
            stamp: vec![0; nt],
            generation: 0,
            work: Vec::new(),
            members: Vec::new(),
        };
        for (t, tr) in net.transitions.iter().enumerate() {
            let mut eff: Vec<(usize, i64)> = Vec::new();
            let mut add = |p: usize, w: i64| match eff.iter_mut().find(|e| e.0 == p) {
                Some(e) => e.1 += w,
                None => eff.push((p, w)),
            };
            for a in &tr.inputs {
                add(a.place, -(a.weight as i64));
            }
            for a in &tr.outputs {
                add(a.place, a.weight as i64);
            }
            eff.retain(|e| e.1 != 0);
            let t32 = t as u32;
            for a in &tr.inputs {
                s.consumers[a.place].push(t32);
            }
            for a in &tr.inhibitors {
                s.inhibited[a.place].push(t32);
            }
            for &(p, e) in &eff {
                if e < 0 {
                    s.lowerers[p].push(t32);
                } else {
                    s.raisers[p].push(t32);
                }
            }
            s.pre
                .push(tr.inputs.iter().map(|a| (a.place, a.weight)).collect());
            s.inh
                .push(tr.inhibitors.iter().map(|a| (a.place, a.weight)).collect());
            s.effect.push(eff);
        }
        let mut watched = vec![false; np];
        for f in atoms {
            s.watch(f, &mut watched);
        }
        for t in 0..nt {
            s.visible[t] = s.effect[t].iter().any(|&(p, _)| watched[p]);
        }
        s
    }

    /// Marks the places whose token counts `f`'s truth depends on.
    fn watch(&self, f: &StateFormula, watched: &mut [bool]) {
        use StateFormula as S;
        let deciding = |t: usize, watched: &mut [bool]| {
            for &(p, _) in self.pre[t].iter().chain(&self.inh[t]) {
                watched[p] = true;
            }
        };
        match f {
            S::Const(_) => {}
            S::Atom(a) => a.lhs.places().for_each(|p| watched[p] = true),
            S::Enabled(ts) => ts.iter().for_each(|&t| deciding(t, watched)),
            S::Deadlock => (0..self.pre.len()).for_each(|t| deciding(t, watched)),
            S::Not(a) => self.watch(a, watched),
            S::And(v) | S::Or(v) => v.iter().for_each(|g| self.watch(g, watched)),
            S::Implies(a, b) | S::Iff(a, b) => {
                self.watch(a, watched);
                self.watch(b, watched);
            }
            // temporal atoms are refused before (net::check_atom): all places, to be safe
            _ => watched.fill(true),
        }
    }

    /// The number of visible transitions.
    pub fn visible_count(&self) -> usize {
        self.visible.iter().filter(|v| **v).count()
    }

    /// The transitions to fire in `m`, whose enabled transitions are `enabled` (ascending): the
    /// enabled transitions of the smallest stubborn set found without an enabled visible
    /// transition, into `out`; `false` (and `out` untouched) when there is no proper reduction.
    pub fn reduce(&mut self, m: &[u64], enabled: &[u32], out: &mut Vec<u32>) -> bool {
        if enabled.len() < 2 {
            return false;
        }
        let mut best = enabled.len();
        let mut best_set: Vec<u32> = Vec::new();
        let is_enabled = |t: u32| enabled.binary_search(&t).is_ok();
        let seeds: Vec<u32> = enabled
            .iter()
            .copied()
            .filter(|&t| !self.visible[t as usize])
            .take(MAX_SEEDS)
            .collect();
        for seed in seeds {
            if let Some(n) = self.closure(m, seed, &is_enabled, best) {
                best = n;
                best_set.clear();
                best_set.extend(self.members.iter().copied().filter(|&t| is_enabled(t)));
                if best == 1 {
                    break;
                }
            }
        }
        if best_set.is_empty() {
            return false;
        }
        best_set.sort_unstable();
        out.extend(best_set);
        true
    }

    /// The stubborn closure of `seed` in `m` (into `members`): its number of enabled
    /// transitions, or `None` when it holds an enabled visible transition or `bound` enabled
    /// ones.
    fn closure(
        &mut self,
        m: &[u64],
        seed: u32,
        is_enabled: &dyn Fn(u32) -> bool,
        bound: usize,
    ) -> Option<usize> {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.generation = 1;
        }
        let g = self.generation;
        let Stubborn {
            pre,
            inh,
            effect,
            consumers,
            lowerers,
            raisers,
            inhibited,
            visible,
            stamp,
            work,
            members,
            ..
        } = self;
        work.clear();
        members.clear();
        stamp[seed as usize] = g;
        work.push(seed);
        members.push(seed);
        let mut count = 1;
        while let Some(t) = work.pop() {
            let t = t as usize;
            let mut adds: Vec<&[u32]> = Vec::new();
            if is_enabled(t as u32) {
                for &(p, _) in &pre[t] {
                    let takes = effect[t].iter().any(|&(q, e)| q == p && e < 0);
                    adds.push(if takes { &consumers[p] } else { &lowerers[p] });
                }
                for &(p, _) in &inh[t] {
                    adds.push(&raisers[p]);
                }
                for &(p, e) in &effect[t] {
                    if e > 0 {
                        adds.push(&inhibited[p]);
                    }
                }
            } else {
                // the reason with the fewest transitions that could remove it
                let reasons = pre[t]
                    .iter()
                    .filter(|&&(p, w)| m[p] < w)
                    .map(|&(p, _)| &raisers[p])
                    .chain(
                        inh[t]
                            .iter()
                            .filter(|&&(p, w)| m[p] >= w)
                            .map(|&(p, _)| &lowerers[p]),
                    );
                if let Some(r) = reasons.min_by_key(|r| r.len()) {
                    adds.push(r);
                }
            }
            for list in adds {
                for &u in list {
                    if stamp[u as usize] == g {
                        continue;
                    }
                    stamp[u as usize] = g;
                    members.push(u);
                    work.push(u);
                    if is_enabled(u) {
                        if visible[u as usize] {
                            return None;
                        }
                        count += 1;
                        if count >= bound {
                            return None;
                        }
                    }
                }
            }
        }
        Some(count)
    }
}
