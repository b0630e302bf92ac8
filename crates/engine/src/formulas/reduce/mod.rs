//! Structural reductions of a net for reachability questions (`EF φ` / `AG ¬φ`, `φ` free of
//! temporal operators; or an UpperBounds expression), as TAPAAL and ITS-Tools apply them before a search: the reduced net
//! reaches a marking satisfying the rewritten `φ` exactly when the net reaches one satisfying
//! `φ`. Every rule keeps the set of reachable markings projected on the *support* (the places
//! `φ` reads, a fireability atom read as the places of its transitions' arcs):
//! - **dead transitions, never-marked places**: a place no sequence can mark (outside the
//!   forward closure of the initially marked places, inhibitor arcs ignored) is constant 0, and
//!   a transition that needs it never fires;
//! - **constant places**: a place every transition gives back what it takes holds its initial
//!   count; a transition that needs more, or is inhibited by it, never fires;
//! - **sink places** outside the support: no transition reads them, so they constrain nothing;
//! - **neutral transitions** (they give back what they take) change no marking; **duplicate
//!   transitions** (the same arcs) reach the same markings;
//! - **pre-agglomeration** (Haddad and Pradat-Peyre): a place `p` outside the support, empty
//!   initially, fed only by transitions `h` whose only output is one token on `p` and whose
//!   inputs lie outside the support; each `h` may be delayed until a consumer `f` of `p` fires,
//!   so `h; f` becomes one transition;
//! - **post-agglomeration**: `p` as above, consumed only by transitions `f` whose only input is
//!   one token of `p` and whose outputs lie outside the support; each `f` may fire at once
//!   after the `h` that marked `p`, so `h; f` becomes one transition.
//!
//! The agglomerations rest on monotonicity (more tokens never disable a transition), so they
//! are applied only to nets without inhibitor arcs, and only where one side of `p` has a single
//! transition (no product blow-up). The neutral-transition rule changes deadlocks: these
//! reductions are for reachability questions only.

use std::collections::HashSet;

use saturn_logic::{Atom, CmpOp, LinExpr, StateFormula};
use saturn_model::{Arc, PetriNet, Place, Transition};

/// A net reduced for one reachability target, and the target over its places.
pub(crate) struct Reduced {
    pub net: PetriNet,
    pub target: StateFormula,
    /// Per place of the net: its index in the reduced net, if kept.
    pub kept: Vec<Option<usize>>,
    /// Per place of the net: the count it always holds, if removed as constant.
    pub value: Vec<Option<u64>>,
}

/// Arcs as `(place, weight)`, sorted by place.
type Arcs = Vec<(usize, u64)>;

/// A transition under reduction: arcs as `(place, weight)` sorted by place.
#[derive(Clone)]
struct Tr {
    id: String,
    name: String,
    inputs: Vec<(usize, u64)>,
    outputs: Vec<(usize, u64)>,
    inhibitors: Vec<(usize, u64)>,
    alive: bool,
}

fn arcs(v: &[Arc]) -> Vec<(usize, u64)> {
    let mut a: Vec<(usize, u64)> = v.iter().map(|a| (a.place, a.weight)).collect();
    a.sort_unstable();
    a
}

fn weight(arcs: &[(usize, u64)], p: usize) -> u64 {
    arcs.iter().find(|a| a.0 == p).map_or(0, |a| a.1)
}

/// Per place of `net`: does some transition change its count? A place none changes is
/// constant (the rule of [`Work::constant_places`], on the whole net).
pub(crate) fn moved_places(net: &PetriNet) -> Vec<bool> {
    let mut moves = vec![false; net.places.len()];
    for t in &net.transitions {
        let (i, o) = (arcs(&t.inputs), arcs(&t.outputs));
        for a in i.iter().chain(&o) {
            if weight(&i, a.0) != weight(&o, a.0) {
                moves[a.0] = true;
            }
        }
    }
    moves
}

/// The sum of two arc lists (sorted by place), without place `skip`.
fn merge(a: &[(usize, u64)], b: &[(usize, u64)], skip: usize) -> Vec<(usize, u64)> {
    let mut m: Vec<(usize, u64)> = a.iter().chain(b).copied().filter(|x| x.0 != skip).collect();
    m.sort_unstable();
    let mut out: Vec<(usize, u64)> = Vec::with_capacity(m.len());
    for (p, w) in m {
        match out.last_mut() {
            Some(last) if last.0 == p => last.1 = last.1.saturating_add(w),
            _ => out.push((p, w)),
        }
    }
    out
}

/// The net under reduction.
struct Work {
    initial: Vec<u64>,
    alive: Vec<bool>,
    /// The count a removed place always holds, when it is constant.
    value: Vec<Option<u64>>,
    visible: Vec<bool>,
    trs: Vec<Tr>,
    changed: bool,
}

impl Work {
    /// Remove the places `gone` (with the count each holds, when constant): a transition that
    /// needs more than a constant place holds, or is inhibited by it, never fires; the other
    /// arcs on removed places go.
    fn remove(&mut self, gone: &[(usize, Option<u64>)]) {
        if gone.is_empty() {
            return;
        }
        for &(p, v) in gone {
            self.alive[p] = false;
            self.value[p] = v;
        }
        let value = &self.value;
        let alive = &self.alive;
        for t in self.trs.iter_mut().filter(|t| t.alive) {
            let dead = t.inputs.iter().any(|a| value[a.0].is_some_and(|v| a.1 > v))
                || t.inhibitors
                    .iter()
                    .any(|a| value[a.0].is_some_and(|v| a.1 <= v));
            if dead {
                t.alive = false;
                continue;
            }
            t.inputs.retain(|a| alive[a.0]);
            t.outputs.retain(|a| alive[a.0]);
            t.inhibitors.retain(|a| alive[a.0]);
        }
        self.changed = true;
    }

    /// A place never marked is constant 0; a transition needing it never fires.
    fn never_marked(&mut self) {
        let mut markable: Vec<bool> = self.initial.iter().map(|&m| m > 0).collect();
        let mut fired = vec![false; self.trs.len()];
        loop {
            let mut more = false;
            for (i, t) in self.trs.iter().enumerate() {
                if t.alive && !fired[i] && t.inputs.iter().all(|a| markable[a.0]) {
                    fired[i] = true;
                    more = true;
                    for a in &t.outputs {
                        markable[a.0] = true;
                    }
                }
            }
            if !more {
                break;
            }
        }
        for (i, t) in self.trs.iter_mut().enumerate() {
            if t.alive && !fired[i] {
                t.alive = false;
                self.changed = true;
            }
        }
        let gone: Vec<(usize, Option<u64>)> = (0..markable.len())
            .filter(|&p| self.alive[p] && !markable[p])
            .map(|p| (p, Some(0)))
            .collect();
        self.remove(&gone);
    }

    /// Places every live transition gives back what it takes hold their initial count.
    fn constant_places(&mut self) {
        let mut moves = vec![false; self.initial.len()];
        for t in self.trs.iter().filter(|t| t.alive) {
            for a in t.inputs.iter().chain(&t.outputs) {
                if weight(&t.inputs, a.0) != weight(&t.outputs, a.0) {
                    moves[a.0] = true;
                }
            }
        }
        let gone: Vec<(usize, Option<u64>)> = (0..moves.len())
            .filter(|&p| self.alive[p] && !moves[p])
            .map(|p| (p, Some(self.initial[p])))
            .collect();
        self.remove(&gone);
    }

    /// Places outside the support that no transition reads.
    fn sink_places(&mut self) {
        let mut read = vec![false; self.initial.len()];
        for t in self.trs.iter().filter(|t| t.alive) {
            for a in t.inputs.iter().chain(&t.inhibitors) {
                read[a.0] = true;
            }
        }
        let gone: Vec<(usize, Option<u64>)> = (0..read.len())
            .filter(|&p| self.alive[p] && !self.visible[p] && !read[p])
            .map(|p| (p, None))
            .collect();
        self.remove(&gone);
    }

    /// Neutral transitions, and every duplicate but the first.
    fn neutral_and_duplicates(&mut self) {
        let mut seen: HashSet<(Arcs, Arcs, Arcs)> = HashSet::new();
        for t in self.trs.iter_mut().filter(|t| t.alive) {
            let key = (t.inputs.clone(), t.outputs.clone(), t.inhibitors.clone());
            if t.inputs == t.outputs || !seen.insert(key) {
                t.alive = false;
                self.changed = true;
            }
        }
    }

    /// Pre- and post-agglomerations (see the module comment), each transition in at most one
    /// per pass.
    fn agglomerations(&mut self) {
        if self.trs.iter().any(|t| t.alive && !t.inhibitors.is_empty()) {
            return;
        }
        let np = self.initial.len();
        let mut feeds: Vec<Vec<usize>> = vec![Vec::new(); np];
        let mut takes: Vec<Vec<usize>> = vec![Vec::new(); np];
        for (i, t) in self.trs.iter().enumerate().filter(|(_, t)| t.alive) {
            for a in &t.outputs {
                feeds[a.0].push(i);
            }
            for a in &t.inputs {
                takes[a.0].push(i);
            }
        }
        let mut touched = vec![false; self.trs.len()];
        for p in 0..np {
            let (hs, fs) = (&feeds[p], &takes[p]);
            if !self.alive[p]
                || self.visible[p]
                || self.initial[p] != 0
                || hs.is_empty()
                || fs.is_empty()
                || (hs.len() > 1 && fs.len() > 1)
                || hs.iter().chain(fs).any(|&t| touched[t])
                || hs.iter().any(|h| fs.contains(h))
                || hs.iter().any(|&h| weight(&self.trs[h].outputs, p) != 1)
                || fs.iter().any(|&f| weight(&self.trs[f].inputs, p) != 1)
            {
                continue;
            }
            let vis = |arcs: &[(usize, u64)]| arcs.iter().any(|a| self.visible[a.0]);
            let pre = hs.iter().all(|&h| {
                let h = &self.trs[h];
                h.outputs.len() == 1 && !vis(&h.inputs)
            });
            let post = !pre
                && fs.iter().all(|&f| {
                    let f = &self.trs[f];
                    f.inputs.len() == 1 && !vis(&f.outputs)
                });
            if !pre && !post {
                continue;
            }
            let mut made = Vec::with_capacity(hs.len() * fs.len());
            for &h in hs {
                for &f in fs {
                    let (th, tf) = (&self.trs[h], &self.trs[f]);
                    let (inputs, outputs) = if pre {
                        (merge(&th.inputs, &tf.inputs, p), tf.outputs.clone())
                    } else {
                        (th.inputs.clone(), merge(&th.outputs, &tf.outputs, p))
                    };
                    made.push(Tr {
                        id: format!("{}.{}", th.id, tf.id),
                        name: format!("{}.{}", th.name, tf.name),
                        inputs,
                        outputs,
                        inhibitors: Vec::new(),
                        alive: true,
                    });
                }
            }
            for &t in hs.iter().chain(fs) {
                touched[t] = true;
                self.trs[t].alive = false;
            }
            touched.extend(std::iter::repeat_n(true, made.len()));
            self.trs.extend(made);
            self.alive[p] = false;
            self.changed = true;
        }
    }
}

/// `φ` with every fireability atom replaced by the markings that enable its transitions, or
/// `None` when `φ` is not a state formula over markings.
fn over_markings(net: &PetriNet, f: &StateFormula) -> Option<StateFormula> {
    use StateFormula as S;
    let all = |v: &[StateFormula]| -> Option<Vec<StateFormula>> {
        v.iter().map(|g| over_markings(net, g)).collect()
    };
    Some(match f {
        S::Const(b) => S::Const(*b),
        S::Atom(a) => S::Atom(a.clone()),
        S::Enabled(ts) => S::Or(
            ts.iter()
                .map(|&t| {
                    let tr = &net.transitions[t];
                    let need = (tr.inputs.iter()).map(|a| place_atom(a.place, CmpOp::Ge, a.weight));
                    let not =
                        (tr.inhibitors.iter()).map(|a| place_atom(a.place, CmpOp::Lt, a.weight));
                    S::And(need.chain(not).map(S::Atom).collect())
                })
                .collect(),
        ),
        S::Not(g) => S::Not(Box::new(over_markings(net, g)?)),
        S::And(v) => S::And(all(v)?),
        S::Or(v) => S::Or(all(v)?),
        S::Implies(a, b) => S::Implies(
            Box::new(over_markings(net, a)?),
            Box::new(over_markings(net, b)?),
        ),
        S::Iff(a, b) => S::Iff(
            Box::new(over_markings(net, a)?),
            Box::new(over_markings(net, b)?),
        ),
        _ => return None,
    })
}

/// `m(p) op w`.
fn place_atom(p: usize, op: CmpOp, w: u64) -> Atom {
    Atom {
        lhs: LinExpr {
            terms: vec![(p, 1)],
            constant: 0,
        },
        op,
        bound: i64::try_from(w).unwrap_or(i64::MAX),
    }
}

fn support(f: &StateFormula, out: &mut [bool]) {
    use StateFormula as S;
    match f {
        S::Atom(a) => a.lhs.places().for_each(|p| out[p] = true),
        S::Not(g) => support(g, out),
        S::And(v) | S::Or(v) => v.iter().for_each(|g| support(g, out)),
        S::Implies(a, b) | S::Iff(a, b) => {
            support(a, out);
            support(b, out);
        }
        _ => {}
    }
}

/// `f` over the reduced places: `new[p]` the index of a kept place, `value[p]` the count of a
/// removed constant one. `None` on an arithmetic overflow.
fn rewrite(f: &StateFormula, new: &[Option<usize>], value: &[Option<u64>]) -> Option<StateFormula> {
    use StateFormula as S;
    let all = |v: &[StateFormula]| -> Option<Vec<StateFormula>> {
        v.iter().map(|g| rewrite(g, new, value)).collect()
    };
    Some(match f {
        S::Atom(a) => {
            let mut bound = i128::from(a.bound);
            let mut terms = Vec::new();
            for &(p, c) in &a.lhs.terms {
                match (new[p], value[p]) {
                    (Some(q), _) => terms.push((q, c)),
                    (None, Some(v)) => bound -= i128::from(c) * i128::from(v),
                    // a place of the support is never removed but as a constant
                    (None, None) => return None,
                }
            }
            if terms.is_empty() {
                S::Const(a.op.holds(0, bound))
            } else {
                terms.sort_unstable();
                S::Atom(Atom {
                    lhs: LinExpr { terms, constant: 0 },
                    op: a.op,
                    bound: i64::try_from(bound).ok()?,
                })
            }
        }
        S::Const(b) => S::Const(*b),
        S::Not(g) => S::Not(Box::new(rewrite(g, new, value)?)),
        S::And(v) => S::And(all(v)?),
        S::Or(v) => S::Or(all(v)?),
        S::Implies(a, b) => S::Implies(
            Box::new(rewrite(a, new, value)?),
            Box::new(rewrite(b, new, value)?),
        ),
        S::Iff(a, b) => S::Iff(
            Box::new(rewrite(a, new, value)?),
            Box::new(rewrite(b, new, value)?),
        ),
        _ => return None,
    })
}

/// The net reduced for the reachability target `target` (see the module comment), or `None`
/// when no rule applies or `target` is not a state formula over markings.
pub(crate) fn reduce(
    net: &PetriNet,
    target: &StateFormula,
    stop: &dyn Fn() -> bool,
) -> Option<Reduced> {
    let f = over_markings(net, target)?;
    let np = net.places.len();
    let mut visible = vec![false; np];
    support(&f, &mut visible);
    let mut w = Work {
        initial: net.initial_marking(),
        alive: vec![true; np],
        value: vec![None; np],
        visible,
        trs: net
            .transitions
            .iter()
            .map(|t| Tr {
                id: t.id.clone(),
                name: t.name.clone(),
                inputs: arcs(&t.inputs),
                outputs: arcs(&t.outputs),
                inhibitors: arcs(&t.inhibitors),
                alive: true,
            })
            .collect(),
        changed: false,
    };
    let mut any = false;
    // each pass removes a place or a transition, or is the last
    for _ in 0..np + net.transitions.len() + 1 {
        if stop() {
            return None;
        }
        w.changed = false;
        w.never_marked();
        w.constant_places();
        w.sink_places();
        w.neutral_and_duplicates();
        w.agglomerations();
        if !w.changed {
            break;
        }
        any = true;
    }
    if !any {
        return None;
    }
    let mut new = vec![None; np];
    let mut places = Vec::new();
    for (p, pl) in net.places.iter().enumerate() {
        if w.alive[p] {
            new[p] = Some(places.len());
            places.push(Place {
                id: pl.id.clone(),
                name: pl.name.clone(),
                initial: pl.initial,
            });
        }
    }
    let renum = |v: &[(usize, u64)]| -> Vec<Arc> {
        v.iter()
            .filter_map(|&(p, weight)| new[p].map(|place| Arc { place, weight }))
            .collect()
    };
    let transitions = w
        .trs
        .iter()
        .filter(|t| t.alive)
        .map(|t| Transition {
            id: t.id.clone(),
            name: t.name.clone(),
            inputs: renum(&t.inputs),
            outputs: renum(&t.outputs),
            inhibitors: renum(&t.inhibitors),
        })
        .collect();
    let target = rewrite(&f, &new, &w.value)?;
    Some(Reduced {
        net: PetriNet {
            name: net.name.clone(),
            places,
            transitions,
        },
        target,
        kept: new,
        value: w.value,
    })
}

impl Reduced {
    /// A linear expression of the net's marking over the reduced net (the removed constants'
    /// share in its constant), when its places are all in the support.
    pub fn expr_of(&self, e: &LinExpr) -> Option<LinExpr> {
        let mut terms = Vec::new();
        let mut constant = i128::from(e.constant);
        for &(p, c) in &e.terms {
            match (self.kept[p], self.value[p]) {
                (Some(q), _) => terms.push((q, c)),
                (None, Some(v)) => constant += i128::from(c) * i128::from(v),
                (None, None) => return None,
            }
        }
        Some(LinExpr {
            terms,
            constant: i64::try_from(constant).ok()?,
        })
    }
}

/// A formula whose support is the places of `expr`.
pub(crate) fn support_of(expr: &LinExpr) -> StateFormula {
    let mut terms: Vec<(usize, i64)> = expr.terms.iter().copied().filter(|t| t.1 != 0).collect();
    terms.sort_unstable();
    terms.dedup_by_key(|t| t.0);
    StateFormula::Atom(Atom {
        lhs: LinExpr { terms, constant: 0 },
        op: CmpOp::Ge,
        bound: 0,
    })
}

#[cfg(test)]
mod tests;
