//! The ranking certificate that the invariants' polytope `P` is reachable: weights `w` per
//! place such that every marking of `P` but `m0` is the successor, by a transition `t` with
//! `w·C(t) > 0`, of a marking of `P`.

use std::collections::VecDeque;

use saturn_dd::{Dd, NodeId};
use saturn_model::PetriNet;

use super::drawn::Drawn;
use super::interval::Bound;
use super::{trim, Layout};

/// The weights tried, by name: `distance`, each place's distance (in transitions) from the
/// places marked initially, so that moving tokens away from where they started ranks higher
/// (diffusion, chains of reactions); `unmarked`, one per token in a place empty initially.
pub fn rankings(net: &PetriNet) -> Vec<(&'static str, Vec<i128>)> {
    let n = net.places.len();
    let mut dist = vec![i128::MAX; n];
    let mut queue = VecDeque::new();
    for (p, pl) in net.places.iter().enumerate() {
        if pl.initial > 0 {
            dist[p] = 0;
            queue.push_back(p);
        }
    }
    // place -> transitions consuming from it -> their output places
    let mut consumers = vec![Vec::new(); n];
    for (t, tr) in net.transitions.iter().enumerate() {
        for a in &tr.inputs {
            consumers[a.place].push(t);
        }
    }
    while let Some(p) = queue.pop_front() {
        for &t in &consumers[p] {
            for a in &net.transitions[t].outputs {
                if dist[a.place] == i128::MAX {
                    dist[a.place] = dist[p] + 1;
                    queue.push_back(a.place);
                }
            }
        }
    }
    let distance = dist
        .iter()
        .map(|&d| if d == i128::MAX { 0 } else { d })
        .collect();
    // formation: a place first produced by a transition whose inputs all have weights weighs
    // one more than those inputs together, so each step of a chain of reactions gains
    let mut form = vec![None::<i128>; n];
    for (p, pl) in net.places.iter().enumerate() {
        if pl.initial > 0 {
            form[p] = Some(0);
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for tr in &net.transitions {
            let Some(sum) = tr.inputs.iter().try_fold(0i128, |acc, a| {
                form[a.place].map(|w| acc.saturating_add(w.saturating_mul(i128::from(a.weight))))
            }) else {
                continue;
            };
            for a in &tr.outputs {
                if form[a.place].is_none() {
                    form[a.place] = Some(sum.saturating_add(1).min(1 << 60));
                    changed = true;
                }
            }
        }
    }
    let formation = form.iter().map(|w| w.unwrap_or(0)).collect();
    let unmarked = net
        .places
        .iter()
        .map(|pl| i128::from(pl.initial == 0))
        .collect();
    vec![
        ("distance", distance),
        ("formation", formation),
        ("unmarked", unmarked),
    ]
}

/// `w·C(t)` per transition, in checked arithmetic: `None` when one overflows `i128` (a wrapped
/// gain could make a transition that loses look as if it gained, and the ranking circular).
pub fn gains(net: &PetriNet, w: &[i128]) -> Option<Vec<i128>> {
    let side = |arcs: &[saturn_model::Arc]| {
        arcs.iter().try_fold(0i128, |acc, a| {
            acc.checked_add(w[a.place].checked_mul(i128::from(a.weight))?)
        })
    };
    net.transitions
        .iter()
        .map(|tr| side(&tr.outputs)?.checked_sub(side(&tr.inputs)?))
        .collect()
}

/// The transitions as the certificate needs them: `rels[t]`, transition `t`'s relation;
/// `boxes[t]`, its successor box ([`super::interval::successor_box`]) as a set, and
/// `bounds[t]` the same box as bounds (`None`: no successor), to test drawn markings against.
#[derive(Clone, Copy)]
pub struct Moves<'a> {
    pub rels: &'a [NodeId],
    pub boxes: &'a [NodeId],
    pub bounds: &'a [Option<Vec<Bound>>],
    /// Where each place's bits are, to read the drawn markings.
    pub layout: &'a Layout,
}

/// What [`certify`] proved.
pub struct Proof {
    /// The ranking's name ([`rankings`]).
    pub ranking: &'static str,
    /// Whether runs that gain were needed ([`super::runs`]).
    pub runs: bool,
    /// The markings proved reachable: `p`, less the markings proved unreachable
    /// ([`super::trim`]) when some are.
    pub states: NodeId,
    /// The markings of `p` proved unreachable and taken out (empty when none are).
    pub unreachable: NodeId,
}

/// The most nodes of the markings a ranking's single steps leave for which the runs that gain
/// are tried before the next ranking.
const FEW_LEFT: usize = 4096;

/// A proof that every marking of `p` is reachable from `m0` (the singleton `init`): a set `S`
/// of transitions such that every marking of `p` but `m0` is the successor, by a transition of
/// `S`, of a marking of `p`, and some weights `w` make every transition of `S` gain
/// (`w·C(t) > 0`). Then from any marking one can go back within `p`, `w` strictly decreasing,
/// and that walk (in the finite `p`) can only end at `m0`. `S` starts as the transitions
/// that gain under a ranking of [`rankings`]; when markings are left uncovered, it grows by
/// transitions that cover some of them, as long as it holds no T-semiflow's support (by
/// Gordan's theorem exactly when weights making all of `S` gain exist; `t_flows` must then
/// be every minimal T-semiflow's support, `None` when they are not known, and `S` stays the
/// ranking's). Last, for the rankings themselves, runs of a few steps that gain in all
/// ([`super::runs::runs_close`]): at once when the single steps leave few markings, else
/// after the growth, fewest markings left first.
///
/// The rankings are tried in the order of how many of a few markings drawn from `p` they
/// leave uncovered, and each one's transitions greedily by how many drawn markings they
/// cover (so the set left shrinks early). When the first ranking leaves markings that no
/// transition at all produces, they and the markings they alone lead to are unreachable
/// ([`super::trim`]): they are taken out of `p` and the proof goes on with the rest, `p` being
/// any set that holds every reachable marking and is closed under successors.
pub fn certify(
    dd: &mut Dd,
    net: &PetriNet,
    p: NodeId,
    init: NodeId,
    moves: Moves<'_>,
    t_flows: Option<&[Vec<usize>]>,
    stop: &dyn Fn() -> bool,
) -> Option<Proof> {
    let Moves {
        rels,
        bounds,
        layout,
        ..
    } = moves;
    let mut boxes = moves.boxes.to_vec();
    let (mut p, mut unreachable, mut trim_tried) = (p, NodeId::EMPTY, false);
    let drawn = Drawn::new(dd, layout, p, bounds);
    let mut order: Vec<_> = rankings(net)
        .into_iter()
        .filter_map(|(name, w)| {
            let g = gains(net, &w)?;
            let in_s: Vec<bool> = g.iter().map(|&x| x > 0).collect();
            let (seq, uncovered) = drawn.greedy(&in_s);
            Some((name, g, in_s, seq, uncovered))
        })
        .collect();
    // fewest drawn markings uncovered first, then most transitions gaining
    order.sort_by_key(|x| (x.4, x.2.iter().filter(|&&s| !s).count()));
    // a loop that `stop` cuts short leaves its set partial: each returns `None` at once, and
    // no proof is given once `stop` has answered true (issue 50)
    let proof = |name, runs, states, unreachable| {
        if stop() {
            return None;
        }
        Some(Proof {
            ranking: name,
            runs,
            states,
            unreachable,
        })
    };
    // per ranking: its gains, S, and the markings no transition of S reaches (a marking of
    // `p` is a successor by `t` of one of `p` exactly when it lies in `boxes[t]`)
    let mut tried = Vec::new();
    for (name, g, in_s, seq, _) in order {
        if stop() {
            return None;
        }
        // from all of p, m0 taken out of what is left (small) rather than of p (large)
        let mut left = p;
        for &t in &seq {
            if left.is_empty() {
                break;
            }
            // stopped: `left` holds markings S covers, and the markings no transition
            // produces would be taken from it below; never use it
            if stop() {
                return None;
            }
            left = dd.sets.minus(left, boxes[t]);
        }
        left = dd.sets.minus(left, init);
        if !left.is_empty() && !trim_tried {
            // markings no transition produces: they (and what they alone lead to) are
            // unreachable, the same for every ranking
            trim_tried = true;
            let mut none = left;
            for t in (0..rels.len()).filter(|&t| !in_s[t]) {
                if none.is_empty() {
                    break;
                }
                // stopped: `none` may hold markings some transition produces
                if stop() {
                    return None;
                }
                none = dd.sets.minus(none, boxes[t]);
            }
            if !none.is_empty() {
                if let Some(tr) = trim::trim_unreachable(dd, rels, &boxes, none, init, stop) {
                    let u = tr.unreachable;
                    p = dd.sets.minus(p, u);
                    // markings of p \ U that only U produced by a transition of S
                    let mut only_u = NodeId::EMPTY;
                    for &t in &seq {
                        only_u = dd.sets.union(only_u, tr.images[t]);
                    }
                    only_u = dd.sets.minus(only_u, u);
                    for &t in &seq {
                        only_u = dd.sets.minus(only_u, tr.covered[t]);
                    }
                    left = dd.sets.minus(left, u);
                    left = dd.sets.union(left, only_u);
                    left = dd.sets.minus(left, init);
                    boxes = tr.covered;
                    unreachable = u;
                }
            }
        }
        if left.is_empty() {
            return proof(name, false, p, unreachable);
        }
        // a few markings left: the runs that gain, at once (before the next ranking's pass
        // over all of `p`)
        if dd.sets.count_nodes(&[left]) <= FEW_LEFT
            && super::runs::runs_close(dd, rels, &g, p, left, stop)
        {
            return proof(name, true, p, unreachable);
        }
        tried.push((name, g, in_s, left));
    }
    if let Some(flows) = t_flows {
        for (name, g, in_s, left) in &tried {
            let (mut in_s, mut left) = (in_s.clone(), *left);
            // grow S, the transitions that lose least first
            let mut rest: Vec<usize> = (0..rels.len()).filter(|&t| !in_s[t]).collect();
            rest.sort_by_key(|&t| std::cmp::Reverse(g[t]));
            for t in rest {
                if left.is_empty() {
                    break;
                }
                if stop() {
                    return None;
                }
                let now = dd.sets.minus(left, boxes[t]);
                if now == left {
                    continue;
                }
                in_s[t] = true;
                let cycle = flows
                    .iter()
                    .any(|f| f.contains(&t) && f.iter().all(|&u| in_s[u]));
                if cycle {
                    in_s[t] = false;
                } else {
                    left = now;
                }
            }
            if left.is_empty() {
                return proof(name, false, p, unreachable);
            }
        }
    }
    tried.sort_by_cached_key(|x| dd.sets.cardinality(x.3));
    for (name, g, _, left) in tried {
        if stop() {
            return None;
        }
        if dd.sets.count_nodes(&[left]) <= FEW_LEFT {
            continue; // tried above
        }
        if super::runs::runs_close(dd, rels, &g, p, left, stop) {
            return proof(name, true, p, unreachable);
        }
    }
    None
}
