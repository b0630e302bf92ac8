//! The relational product (thesis Figure 2.8): image and preimage of a set of states under a
//! relation.
//!
//! The set lives in a set forest (quasi- or fully-reduced, `K` levels) and the relation in a
//! separate identity-reduced relation forest (`2K` levels, see [`Reduction::Identity`]); the
//! result is built in the set forest. The compute caches live in the set forest, keyed by
//! (set node, relation node). They are cleared when the set forest collects garbage, and
//! automatically at the next call when the relation forest has collected since (or when a
//! different relation forest is passed): both forests' [`Epoch`](crate::Epoch)s are checked.

use crate::forest::Edge;
use crate::relation::{is_unprimed, var_of_level};
use crate::{Forest, NodeId, Reduction};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Image,
    Preimage,
}

/// `RelProd(s, r)` (thesis Figure 2.8): the image `N(B(s)) = { y : ∃x ∈ B(s), (x, y) ∈ B(r) }`
/// of the set `s` of `sets` under the relation `r` of `rels`, as a node of `sets`.
///
/// Levels the relation skips (identity pairs) are copied through from the set, recursing below
/// them. For a fully-reduced set forest a level the set skips stands for every index of the set
/// forest's current domain at that level; declare the set forest's domains to cover the
/// relation's first (a result index beyond a domain grows it, which changes the meaning of
/// nodes reduced earlier at that level). Quasi-reduced set forests have no such caveat.
///
/// ```
/// use saturn_dd::{image, preimage, Forest, Reduction};
/// // two variables; the relation moves variable 1 from 0 to 1 and leaves variable 2 alone
/// let mut sets = Forest::new(2, Reduction::Quasi);
/// let mut rels = Forest::new(4, Reduction::Identity);
/// let r = rels.relation_from_local(&[(1, vec![(0, 1)])]);
/// let s = sets.singleton(&[0, 5]); // x1 = 0, x2 = 5
/// let t = image(&mut sets, &rels, s, r);
/// assert_eq!(t, sets.singleton(&[1, 5]));
/// assert_eq!(preimage(&mut sets, &rels, t, r), s);
/// ```
///
/// # Panics
/// If `sets` is not a set forest of `K` levels and `rels` an identity-reduced forest of `2K`
/// levels.
pub fn image(sets: &mut Forest, rels: &Forest, s: NodeId, r: NodeId) -> NodeId {
    prepare(sets, rels);
    rel_prod_rec(sets, rels, Dir::Image, s, r)
}

/// The preimage `{ x : ∃y ∈ B(s), (x, y) ∈ B(r) }` of the set `s` under the relation `r` (the
/// relational product with the inverse relation), as a node of `sets`. Same conventions as
/// [`image`].
///
/// # Panics
/// As [`image`].
pub fn preimage(sets: &mut Forest, rels: &Forest, s: NodeId, r: NodeId) -> NodeId {
    prepare(sets, rels);
    rel_prod_rec(sets, rels, Dir::Preimage, s, r)
}

fn prepare(sets: &mut Forest, rels: &Forest) {
    assert!(
        sets.reduction() != Reduction::Identity
            && rels.reduction() == Reduction::Identity
            && rels.num_levels() == 2 * sets.num_levels(),
        "relational product needs a set forest of K levels and an identity-reduced relation \
         forest of 2K levels"
    );
    let e = rels.epoch();
    if sets.caches.rel_epoch != Some(e) {
        sets.caches.clear_rel();
        sets.caches.rel_epoch = Some(e);
    }
}

/// The child of set node `s` at index `idx`, scanning its sorted edges from position `*pos`
/// (advanced past smaller indices, so a sequence of increasing `idx` costs one pass).
#[inline]
fn seek(sets: &Forest, s: NodeId, pos: &mut usize, idx: u32) -> NodeId {
    let es = sets.edges(s);
    while *pos < es.len() && es.idx(*pos) < idx {
        *pos += 1;
    }
    match es.get(*pos) {
        Some(e) if e.idx == idx => e.child,
        _ => NodeId::EMPTY,
    }
}

fn rel_prod_rec(sets: &mut Forest, rels: &Forest, dir: Dir, s: NodeId, r: NodeId) -> NodeId {
    if s.is_empty() || r.is_empty() {
        return NodeId::EMPTY;
    }
    if r == NodeId::ONE {
        return s; // the identity on every remaining level
    }
    let key = (s, r);
    let hit = match dir {
        Dir::Image => sets.caches.image.get(key),
        Dir::Preimage => sets.caches.preimage.get(key),
    };
    if let Some(t) = hit {
        return t;
    }
    let ls = sets.level(s);
    let lr = var_of_level(rels.level(r));
    debug_assert!(
        is_unprimed(rels.level(r)),
        "relation node at a primed level used as a relation"
    );
    let level = ls.max(lr);
    let mut buf = sets.take_scratch(level);
    if ls > lr {
        // the relation is the identity on this level: copy the set's level through
        for x in 0..sets.edges(s).len() {
            let e = sets.edges(s).at(x);
            let t = rel_prod_rec(sets, rels, dir, e.child, r);
            if !t.is_empty() {
                buf.push(Edge::new(e.idx, t));
            }
        }
    } else {
        // ls == lr, or the set is redundant at lr (fully-reduced set forests only)
        let redundant = ls < lr;
        debug_assert!(
            !redundant || sets.reduction() == Reduction::Fully,
            "relation above the set's top level in a quasi-reduced set forest"
        );
        let dom = sets.domain(level);
        // the set's child at index i (both for i increasing along `pos`)
        let child = |sets: &Forest, pos: &mut usize, i: u32| {
            if redundant {
                if i < dom {
                    s
                } else {
                    NodeId::EMPTY
                }
            } else {
                seek(sets, s, pos, i)
            }
        };
        match dir {
            Dir::Image => {
                // t[i'] = ∪_i RelProd(s[i], r[i][i'])
                let mut pos = 0;
                for e in rels.edges(r) {
                    let (i, p) = (e.idx, e.child);
                    let si = child(sets, &mut pos, i);
                    if si.is_empty() {
                        continue;
                    }
                    for e in rels.edges(p) {
                        let (j, c) = (e.idx, e.child);
                        let t = rel_prod_rec(sets, rels, dir, si, c);
                        if !t.is_empty() {
                            buf.push(Edge::new(j, t));
                        }
                    }
                }
                merge_by_index(sets, &mut buf);
            }
            Dir::Preimage => {
                // t[i] = ∪_i' RelProd⁻¹(s[i'], r[i][i'])
                for e in rels.edges(r) {
                    let (i, p) = (e.idx, e.child);
                    let mut acc = NodeId::EMPTY;
                    let mut pos = 0;
                    for e in rels.edges(p) {
                        let (j, c) = (e.idx, e.child);
                        let sj = child(sets, &mut pos, j);
                        if sj.is_empty() {
                            continue;
                        }
                        let t = rel_prod_rec(sets, rels, dir, sj, c);
                        acc = sets.union(acc, t);
                    }
                    if !acc.is_empty() {
                        buf.push(Edge::new(i, acc));
                    }
                }
            }
        }
    }
    let t = sets.make_node(level, &buf);
    sets.put_scratch(level, buf);
    match dir {
        Dir::Image => sets.caches.image.insert(key, t),
        Dir::Preimage => sets.caches.preimage.insert(key, t),
    }
    t
}

/// Sort `buf` by index and union the children of equal indices, in place.
pub(crate) fn merge_by_index(sets: &mut Forest, buf: &mut Vec<Edge>) {
    if buf.windows(2).all(|w| w[0].idx < w[1].idx) {
        return;
    }
    buf.sort_unstable_by_key(|e| e.idx);
    let mut w = 0usize;
    for x in 0..buf.len() {
        let e = buf[x];
        if w > 0 && buf[w - 1].idx == e.idx {
            buf[w - 1].child = sets.union(buf[w - 1].child, e.child);
        } else {
            buf[w] = e;
            w += 1;
        }
    }
    buf.truncate(w);
}
