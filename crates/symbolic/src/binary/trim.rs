//! The markings of the polytope `P` that are provably unreachable: those without a
//! predecessor in `P`, then those whose every predecessor in `P` is already known unreachable.
//!
//! Every reachable marking but `m0` has a reachable predecessor, and every reachable marking
//! is in `P`. So a marking `m != m0` of `P` whose predecessors in `P` all lie in a set of
//! unreachable markings is unreachable too, and the least set `U` closed under that rule
//! holds only unreachable markings. `P \ U` is then a smaller over-approximation of the state
//! space for the ranking certificate ([`super::certify`]) to prove reachable. Nets whose
//! invariants allow markings that no firing produces (ClientsAndServers in the contest: a
//! server waiting for a grant no manager can have sent) lose them here.
//!
//! Within `P`, the successors by `t` of the markings of `P` are `P` within `t`'s successor box
//! ([`super::interval`]), and firing `t` is one-to-one, so the successors by `t` of `P \ U`
//! are `P ∩ box_t` minus the successors by `t` of `U`: only images of `U`, which is small, are
//! computed.

use saturn_dd::{image, Dd, NodeId};

/// The most nodes the unreachable markings may take before trimming gives up.
const MAX_NODES: usize = 2_000_000;

/// The markings found unreachable, and per transition the successors of the remaining ones.
pub struct Trimmed {
    /// `U`: markings of `P` proved unreachable.
    pub unreachable: NodeId,
    /// Per transition `t`: the successors by `t` of the markings of `U`.
    pub images: Vec<NodeId>,
    /// Per transition `t`: the markings of `P` that are successors by `t` of markings of
    /// `P \ U`, as a set to intersect with `P` (the successor box minus `images[t]`).
    pub covered: Vec<NodeId>,
}

/// The least set `U` of markings of `p` but `init` whose predecessors in `p` all lie in `U`
/// (see the module's doc), grown from `none`, the markings of `p` but `init` that no
/// transition produces from a marking of `p`, with transition relations `rels` and successor
/// boxes `boxes`. `None` when stopped or when `U` grows past [`MAX_NODES`] nodes.
pub fn trim_unreachable(
    dd: &mut Dd,
    rels: &[NodeId],
    boxes: &[NodeId],
    none: NodeId,
    init: NodeId,
    stop: &dyn Fn() -> bool,
) -> Option<Trimmed> {
    let mut u = none;
    // images[t]: the successors by t of U, kept up to date as U grows
    let mut images = vec![NodeId::EMPTY; rels.len()];
    let mut new = u;
    let mut rounds = 0usize;
    while !new.is_empty() {
        let mut cand = NodeId::EMPTY;
        for (t, &r) in rels.iter().enumerate() {
            if stop() {
                return None;
            }
            let img = image(&mut dd.sets, &dd.rels, new, r);
            images[t] = dd.sets.union(images[t], img);
            cand = dd.sets.union(cand, img);
        }
        // candidates: successors of the markings just found, not yet known, not m0
        cand = dd.sets.minus(cand, u);
        cand = dd.sets.minus(cand, init);
        // a candidate stays when no transition produces it from a marking of p \ U: within
        // p, the successors by t of p \ U are boxes[t] less images[t]
        for (t, &b) in boxes.iter().enumerate() {
            if cand.is_empty() {
                break;
            }
            // stopped: `cand` may hold markings some transition produces from `p \ U`, which
            // must never be taken for unreachable (issue 50)
            if stop() {
                return None;
            }
            let produced = dd.sets.intersect(cand, b);
            if produced.is_empty() {
                continue;
            }
            let produced = dd.sets.minus(produced, images[t]);
            cand = dd.sets.minus(cand, produced);
        }
        u = dd.sets.union(u, cand);
        rounds += 1;
        if rounds.is_multiple_of(16) && dd.sets.count_nodes(&[u]) > MAX_NODES {
            return None;
        }
        new = cand;
    }
    if dd.sets.count_nodes(&[u]) > MAX_NODES {
        return None;
    }
    let covered = boxes
        .iter()
        .zip(&images)
        .map(|(&b, &i)| dd.sets.minus(b, i))
        .collect();
    Some(Trimmed {
        unreachable: u,
        images,
        covered,
    })
}
