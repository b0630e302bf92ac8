//! Where events come from: each model event prepared for implicit firing (its local functions by
//! level, reversed for backward exploration), and, for [`Relations::Mdd`], its relation MDD built
//! on the fly over the local states the set forest knows.

use saturn_dd::{Cache, Forest, NodeId, Reduction};
use saturn_model::LocalFn;

use super::{Reach, Relations};

/// The relation MDDs of [`Relations::Mdd`].
pub(super) struct RelMdds {
    /// Identity-reduced, 2K levels (variable `k` is the pair `2k`, `2k-1`).
    pub(super) forest: Forest,
    /// Each event's relation (NodeId::EMPTY until first built).
    pub(super) rel: Vec<NodeId>,
    /// The set forest's domain size of each support level when the relation was built
    /// (empty: never built).
    pub(super) covered: Vec<Vec<u32>>,
    /// Saturated results of firing a relation node on a set node: `(q, r) -> result`.
    pub(super) fire_cache: Cache<(NodeId, NodeId), NodeId>,
    /// Relations built (and rebuilt after a domain grew).
    pub(super) builds: u64,
}

/// An event prepared for firing: its local functions by level, highest first.
pub(super) struct Ev {
    pub(super) parts: Vec<(u32, LocalFn)>,
    pub(super) top: u32,
}

pub(super) fn reverse_local(f: &LocalFn) -> LocalFn {
    match *f {
        // forward: i >= need, i < inhibit, j = i + delta.
        // backward from j: i = j - delta must satisfy need <= i < inhibit.
        LocalFn::Petri {
            need,
            inhibit,
            delta,
        } => {
            let need_b = (need as i64 + delta).max(0);
            let need_b = need_b.max(delta); // i = j - delta >= 0
            let inhibit_b = if inhibit == u32::MAX {
                u32::MAX
            } else {
                (inhibit as i64 + delta).clamp(0, u32::MAX as i64) as u32
            };
            LocalFn::Petri {
                need: need_b.min(u32::MAX as i64) as u32,
                inhibit: inhibit_b,
                delta: -delta,
            }
        }
    }
}

impl Reach {
    /// Apply events implicitly (the default) or through relation MDDs.
    pub fn set_relations(&mut self, mode: Relations) {
        self.rels = match mode {
            Relations::Implicit => None,
            Relations::Mdd => {
                let k = self.forest.num_levels();
                Some(RelMdds {
                    forest: Forest::new(2 * k, Reduction::Identity),
                    rel: vec![NodeId::EMPTY; self.events.len()],
                    covered: vec![Vec::new(); self.events.len()],
                    fire_cache: Cache::new(12),
                    builds: 0,
                })
            }
        };
    }

    /// The number of relation MDDs built so far (0 for implicit relations).
    pub fn relation_builds(&self) -> u64 {
        self.rels.as_ref().map_or(0, |r| r.builds)
    }

    /// The relation MDD of event `e`, (re)built if a level it reads has gained local states
    /// since it was built: it then relates every local state the set forest knows now (built
    /// "on the fly", as saturation discovers local states).
    pub(super) fn fresh_relation(&mut self, e: u32) -> NodeId {
        let Some(rm) = self.rels.as_mut() else {
            return NodeId::EMPTY;
        };
        let ev = &self.events[e as usize];
        let cov = &rm.covered[e as usize];
        let stale = cov.is_empty()
            || ev
                .parts
                .iter()
                .zip(cov)
                .any(|((l, _), &c)| self.forest.domain(*l as usize) > c);
        if !stale {
            return rm.rel[e as usize];
        }
        let mut doms = Vec::with_capacity(ev.parts.len());
        let mut parts: Vec<(usize, Vec<(u32, u32)>)> = Vec::with_capacity(ev.parts.len());
        for (l, f) in &ev.parts {
            let l = *l as usize;
            let dom = self.forest.domain(l).max(1);
            let cap = self.cap[l];
            doms.push(dom);
            // the relation forest must know the whole domain, or a part relating only some
            // local states to themselves would look like the identity and be skipped
            rm.forest.set_domain(saturn_dd::unprimed_level(l), dom);
            parts.push((
                l,
                (0..dom)
                    .filter_map(|i| f.fire(i).filter(|&j| j < cap).map(|j| (i, j)))
                    .collect(),
            ));
        }
        let r = if parts.is_empty() {
            NodeId::ONE
        } else {
            rm.forest.relation_from_local(&parts)
        };
        rm.rel[e as usize] = r;
        rm.covered[e as usize] = doms;
        rm.builds += 1;
        r
    }

    /// The successors of local state `i` of level `l` under the relation node `r` (an
    /// unprimed node at or below level `2l`), with the relation to apply below each:
    /// `(i, r)` when `r` skips level `l` (identity there), else the edges of `r[i]` below `cap`.
    pub(super) fn rel_successors(
        &self,
        r: NodeId,
        l: usize,
        i: u32,
        cap: u32,
        out: &mut Vec<(u32, NodeId)>,
    ) {
        out.clear();
        let Some(rm) = self.rels.as_ref() else { return };
        if rm.forest.level(r) < 2 * l {
            out.push((i, r));
            return;
        }
        let p = rm.forest.child_at(r, 2 * l, i);
        out.extend(
            rm.forest
                .edges(p)
                .iter()
                .filter(|e| e.idx < cap)
                .map(|e| (e.idx, e.child)),
        );
    }
}

impl Reach {
    /// Turn a forward generator around after generation, so that [`Reach::image`] and
    /// [`Reach::explore`] compute predecessors (`P`) in the same forest as the states found:
    /// what CTL model checking needs. Every event's local functions are reversed; each level is
    /// capped at the local states the forest knows now (the generated domains), so backward
    /// steps never invent token counts beyond them; the compute caches of the other direction
    /// are dropped (relation MDDs are rebuilt on demand).
    pub fn reverse(&mut self) {
        for ev in &mut self.events {
            for part in &mut ev.parts {
                part.1 = reverse_local(&part.1);
            }
        }
        for k in 1..self.cap.len() {
            self.cap[k] = self.cap[k].min(self.forest.domain(k).max(1));
        }
        self.sat_cache.clear();
        self.fire_cache.clear();
        self.img_cache.clear();
        self.img_all_cache.clear();
        if let Some(rm) = self.rels.as_mut() {
            rm.rel.fill(NodeId::EMPTY);
            rm.covered.iter_mut().for_each(Vec::clear);
            rm.fire_cache.clear();
        }
    }
}
