//! The ranking certificate ([`super::certify`]) for the markings its single steps leave: runs
//! of a few steps that gain in all.
//!
//! Take weights `w` and the markings `L` of the polytope `P` that no transition gaining under
//! `w` (`w·C(t) > 0`) reaches from a marking of `P`. By induction on `w`: when every marking of
//! `P` of weight below `v` is reachable, so is every marking of weight `v` outside `L` (it has
//! a predecessor of lower weight), and so is a marking `m` of `L` that some run reaches from a
//! marking of lower weight, whatever the weights the run passes (the run is a firing sequence
//! from a reachable marking), and so is a marking of `L` that transitions neither gaining nor
//! losing reach from one already proved at weight `v`. When that covers `L`, every marking of
//! `P` is reachable. The steps of a cascade of reactions that go up one cycle and down
//! another (MAPK: phosphorylate a kinase, use it, dephosphorylate it) are such runs: each step
//! may lose, the run gains.
//!
//! The runs are followed forwards from every marking of `P`, their gain so far kept apart, but
//! only through markings that can still reach `L` in the steps left (found backwards from
//! `L`, which is small where the rankings nearly hold): every set stays near `L`'s size.

use std::collections::BTreeMap;

use saturn_dd::{image, preimage, Dd, NodeId};

/// The most steps of a run.
const RUN_STEPS: usize = 6;

/// The most nodes a set of markings near `L` may take before the proof gives up.
const MAX_NODES: usize = 2_000_000;

/// Do the markings `left` of `p` (with gains `g[t] = w·C(t)` and transition relations `rels`,
/// `left` those no gaining transition reaches) all follow by runs that gain, or by steps that
/// neither gain nor lose from those proved (see the module's doc)?
pub fn runs_close(
    dd: &mut Dd,
    rels: &[NodeId],
    g: &[i128],
    p: NodeId,
    left: NodeId,
    stop: &dyn Fn() -> bool,
) -> bool {
    let Some(proven) = gaining_runs(dd, rels, g, p, left, stop) else {
        return false;
    };
    let left = dd.sets.minus(left, proven);
    left.is_empty() || level_steps_close(dd, rels, g, p, left, stop)
}

/// The markings of `left` that a run of at most [`RUN_STEPS`] steps with a positive gain
/// reaches from a marking of `p`; `None` when stopped or too large.
fn gaining_runs(
    dd: &mut Dd,
    rels: &[NodeId],
    g: &[i128],
    p: NodeId,
    left: NodeId,
    stop: &dyn Fn() -> bool,
) -> Option<NodeId> {
    let live: Vec<usize> = (0..rels.len()).filter(|&t| !rels[t].is_empty()).collect();
    // near[j]: the markings of p that reach `left` in at most j steps
    let mut near = vec![left];
    for j in 1..=RUN_STEPS {
        let prev = near[j - 1];
        let mut pre = prev;
        for &t in &live {
            if stop() {
                return None;
            }
            let x = preimage(&mut dd.sets, &dd.rels, prev, rels[t]);
            pre = dd.sets.union(pre, x);
        }
        let pre = dd.sets.intersect(pre, p);
        if dd.sets.count_nodes(&[pre]) > MAX_NODES {
            return None;
        }
        near.push(pre);
    }
    let top = g.iter().copied().filter(|&x| x > 0).max().unwrap_or(0);
    // the ends of the runs so far, by their gain
    let mut ends: BTreeMap<i128, NodeId> = BTreeMap::new();
    ends.insert(0, near[RUN_STEPS]);
    let mut proven = NodeId::EMPTY;
    for k in 1..=RUN_STEPS {
        let rest = (RUN_STEPS - k) as i128;
        let mut next: BTreeMap<i128, NodeId> = BTreeMap::new();
        for (&d, &from) in &ends {
            for &t in &live {
                if stop() {
                    return None;
                }
                let nd = d.saturating_add(g[t]);
                // a gain too low to turn positive in the steps left
                if nd.saturating_add(rest.saturating_mul(top)) <= 0 {
                    continue;
                }
                let img = image(&mut dd.sets, &dd.rels, from, rels[t]);
                let img = dd.sets.intersect(img, near[RUN_STEPS - k]);
                if img.is_empty() {
                    continue;
                }
                let e = next.entry(nd).or_insert(NodeId::EMPTY);
                *e = dd.sets.union(*e, img);
            }
        }
        for (&d, &e) in &next {
            if d > 0 {
                let hit = dd.sets.intersect(e, left);
                proven = dd.sets.union(proven, hit);
            }
            if dd.sets.count_nodes(&[e]) > MAX_NODES {
                return None;
            }
        }
        if proven == left {
            break;
        }
        ends = next;
    }
    Some(proven)
}

/// Do the markings `left` all follow, by transitions that neither gain nor lose (`g[t] = 0`),
/// from the other markings of `p`? Found one step at a time from the markings just proved,
/// within `left`.
fn level_steps_close(
    dd: &mut Dd,
    rels: &[NodeId],
    g: &[i128],
    p: NodeId,
    mut left: NodeId,
    stop: &dyn Fn() -> bool,
) -> bool {
    let zero: Vec<usize> = (0..rels.len())
        .filter(|&t| g[t] == 0 && !rels[t].is_empty())
        .collect();
    let mut new = dd.sets.minus(p, left);
    while !new.is_empty() {
        let mut found = NodeId::EMPTY;
        for &t in &zero {
            if stop() {
                return false;
            }
            let img = image(&mut dd.sets, &dd.rels, new, rels[t]);
            let hit = dd.sets.intersect(img, left);
            found = dd.sets.union(found, hit);
        }
        left = dd.sets.minus(left, found);
        if left.is_empty() {
            return true;
        }
        new = found;
    }
    false
}
