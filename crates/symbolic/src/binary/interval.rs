//! Boxes of markings on binary counters: `{x : lo_p ≤ x_p ≤ hi_p}` for a few places, the
//! others free, read least significant bits first with one comparison per bound and place.
//!
//! They make the two sets a transition's figures need an intersection instead of a relational
//! product over every boolean level: the markings where `t` is enabled (its [`enabled_box`]),
//! and, within the polytope `P`, the successors by `t` of markings of `P` (its
//! [`successor_box`]: `m` is one exactly when `m - C(t)` enables `t` and fits the counters,
//! since `m - C(t)` keeps every P-semiflow's sum).

use std::cmp::Ordering;

use hashbrown::HashMap;
use saturn_dd::{Edge, Forest, NodeId};

use super::{Layout, PlaceArcs};

/// `lo ≤ x_place ≤ hi`, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    pub place: usize,
    pub lo: u64,
    pub hi: u64,
}

/// The largest count of `place` the layout holds.
fn top(layout: &Layout, place: usize) -> u64 {
    let bits = layout.bits[place];
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The markings where a transition with these arcs ([`super::place_arcs`]) is enabled;
/// `None` when there are none. (On reachable markings the successor always fits the
/// counters: they hold every reachable marking.)
pub fn enabled_box(layout: &Layout, arcs: &[PlaceArcs]) -> Option<Vec<Bound>> {
    arcs.iter()
        .map(|a| {
            let mut hi = top(layout, a.place);
            if let Some(h) = a.inhibit {
                hi = hi.min(h.checked_sub(1)?);
            }
            (a.need <= hi).then_some(Bound {
                place: a.place,
                lo: a.need,
                hi,
            })
        })
        .collect()
}

/// The markings `m` such that `m - C(t)` enables the transition with these arcs and fits the
/// counters (within `P`: the successors of `P`'s markings); `None` when there are none.
pub fn successor_box(layout: &Layout, arcs: &[PlaceArcs]) -> Option<Vec<Bound>> {
    arcs.iter()
        .map(|a| {
            let top = top(layout, a.place);
            let d = i128::from(a.delta);
            // m - C enables t: m ≥ need + C (the output weight), m - C < inhibit
            let lo = (i128::from(a.need) + d).max(0);
            let mut hi = (i128::from(top) + d).min(i128::from(top));
            if let Some(h) = a.inhibit {
                hi = hi.min(i128::from(h) + d - 1);
            }
            (lo <= hi).then_some(Bound {
                place: a.place,
                lo: lo as u64,
                hi: hi as u64,
            })
        })
        .collect()
}

/// The set of markings within `bounds` (one per place at most), over the layout's levels in
/// the quasi-reduced `sets`.
pub fn box_set(sets: &mut Forest, layout: &Layout, bounds: &[Bound]) -> NodeId {
    let mut at = vec![None; layout.bits.len()];
    for (i, b) in bounds.iter().enumerate() {
        at[b.place] = Some(i);
    }
    let init = vec![(Ordering::Equal, Ordering::Equal); bounds.len()];
    let mut memo = HashMap::new();
    build(
        sets,
        layout,
        bounds,
        &at,
        layout.levels.len(),
        init,
        &mut memo,
    )
}

type Memo = HashMap<(usize, Vec<(Ordering, Ordering)>), NodeId>;

/// The node at level `l`, with how the bits read so far of each bounded place compare with
/// its `lo` and its `hi`.
fn build(
    sets: &mut Forest,
    layout: &Layout,
    bounds: &[Bound],
    at: &[Option<usize>],
    l: usize,
    s: Vec<(Ordering, Ordering)>,
    memo: &mut Memo,
) -> NodeId {
    if l == 0 {
        return NodeId::ONE;
    }
    if let Some(&n) = memo.get(&(l, s.clone())) {
        return n;
    }
    let (p, b) = layout.levels[l - 1];
    let mut edges = Vec::with_capacity(2);
    for x in 0..2u64 {
        let mut next = s.clone();
        if let Some(i) = at[p] {
            let bd = &bounds[i];
            let cmp = |old: Ordering, w: u64| match x.cmp(&((w >> b) & 1)) {
                Ordering::Equal => old,
                o => o,
            };
            let (lo, hi) = (cmp(s[i].0, bd.lo), cmp(s[i].1, bd.hi));
            // the place's last bit: the whole count is read
            if b + 1 == layout.bits[p] && (lo == Ordering::Less || hi == Ordering::Greater) {
                continue;
            }
            next[i] = (lo, hi);
        }
        let c = build(sets, layout, bounds, at, l - 1, next, memo);
        if !c.is_empty() {
            edges.push(Edge::new(x as u32, c));
        }
    }
    let n = if edges.is_empty() {
        NodeId::EMPTY
    } else {
        sets.make_node(l, &edges)
    };
    memo.insert((l, s), n);
    n
}
