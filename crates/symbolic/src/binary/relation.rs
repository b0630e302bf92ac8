//! A transition's relation over binary place counters: the pairs (marking, successor) read
//! bit by bit, least significant bits first, by an automaton whose state per support place is
//! the part of the token change still to add (a carry) and how the bits read so far compare
//! with the arc weights. Small whatever the token counts: a few states per place, never a
//! count.

use std::cmp::Ordering;

use hashbrown::HashMap;
use saturn_dd::{primed_level, unprimed_level, Edge, Forest, NodeId};

use super::Layout;

/// What a transition does to one place: enabled only when the place holds at least `need`
/// tokens and (with an inhibitor arc) fewer than `inhibit`; firing adds `delta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaceArcs {
    pub place: usize,
    pub need: u64,
    pub inhibit: Option<u64>,
    pub delta: i64,
}

/// The automaton's state for one place after reading its bits up to some bit `b`: the change
/// `r` still to add at bit `b + 1` (in units of `2^(b+1)`), and how the bits `0..=b` of the
/// marking compare with those of `need` and of `inhibit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct PlaceState {
    r: i64,
    need: Ordering,
    inhibit: Ordering,
}

/// One reading step: the state of a place after its bit `b` (of `bits`) reads `x` in the
/// marking and `xp` in the successor, or `None` when no completion can satisfy the arcs.
fn step(s: PlaceState, a: &PlaceArcs, b: u32, bits: u32, x: u64, xp: u64) -> Option<PlaceState> {
    let v = i128::from(s.r) + i128::from(x) - i128::from(xp);
    if v.rem_euclid(2) != 0 {
        return None;
    }
    let r = v.div_euclid(2);
    // the bits above must make up x'_hi = x_hi + r, both in [0, 2^rest)
    let rest = bits - 1 - b;
    if r.unsigned_abs() >= 1u128 << rest {
        return None;
    }
    let cmp = |old: Ordering, w: u64| match x.cmp(&((w >> b) & 1)) {
        Ordering::Equal => old,
        o => o,
    };
    let need = cmp(s.need, a.need);
    let inhibit = cmp(s.inhibit, a.inhibit.unwrap_or(0));
    if rest == 0 && (need == Ordering::Less || (a.inhibit.is_some() && inhibit != Ordering::Less)) {
        return None;
    }
    Some(PlaceState {
        r: r as i64,
        need,
        inhibit,
    })
}

/// The relation of a transition with the given arcs (one entry per place it touches or
/// tests) as an identity-reduced relation node of `rels` (levels `2l`, `2l-1` for level `l`
/// of `layout`; every level's domain must be declared 2 beforehand): EMPTY when it can never
/// fire within the layout's bits.
pub fn transition_relation(rels: &mut Forest, layout: &Layout, arcs: &[PlaceArcs]) -> NodeId {
    let mut arcs = arcs.to_vec();
    let mut init = Vec::with_capacity(arcs.len());
    for a in &mut arcs {
        let bits = layout.bits[a.place];
        let top = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        if a.need > top || a.delta.unsigned_abs() > top {
            return NodeId::EMPTY;
        }
        // an inhibitor above every representable count never blocks
        a.inhibit = a.inhibit.filter(|&h| h <= top);
        init.push(PlaceState {
            r: a.delta,
            need: Ordering::Equal,
            inhibit: Ordering::Equal,
        });
    }
    // the support's levels, highest first, with the arc each one reads
    let mut support: Vec<(usize, usize, u32)> = Vec::new();
    for (l, &(p, b)) in layout.levels.iter().enumerate().rev() {
        if let Some(j) = arcs.iter().position(|a| a.place == p) {
            support.push((l + 1, j, b));
        }
    }
    let mut memo = HashMap::new();
    build(rels, layout, &arcs, &support, 0, init, &mut memo)
}

type Memo = HashMap<(usize, Vec<PlaceState>), NodeId>;

fn build(
    rels: &mut Forest,
    layout: &Layout,
    arcs: &[PlaceArcs],
    support: &[(usize, usize, u32)],
    at: usize,
    state: Vec<PlaceState>,
    memo: &mut Memo,
) -> NodeId {
    let Some(&(l, j, b)) = support.get(at) else {
        return NodeId::ONE;
    };
    if let Some(&r) = memo.get(&(at, state.clone())) {
        return r;
    }
    let bits = layout.bits[arcs[j].place];
    let mut from = Vec::with_capacity(2);
    for x in 0..2u64 {
        let mut to = Vec::with_capacity(2);
        for xp in 0..2u64 {
            if let Some(s) = step(state[j], &arcs[j], b, bits, x, xp) {
                let mut next = state.clone();
                next[j] = s;
                let c = build(rels, layout, arcs, support, at + 1, next, memo);
                if !c.is_empty() {
                    to.push(Edge::new(xp as u32, c));
                }
            }
        }
        if !to.is_empty() {
            let p = rels.make_node(primed_level(l), &to);
            from.push(Edge::new(x as u32, p));
        }
    }
    let r = if from.is_empty() {
        NodeId::EMPTY
    } else {
        rels.make_node(unprimed_level(l), &from)
    };
    memo.insert((at, state), r);
    r
}
