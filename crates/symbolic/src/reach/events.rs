//! Where events come from: each model event prepared for implicit firing (its local functions by
//! level, reversed for backward exploration), and, for [`Relations::Mdd`], its relation MDD built
//! on the fly in the context's relation forest over the local states the set forest knows.

use saturn_dd::{NodeId, Pin};
use saturn_model::LocalFn;

use super::kernel::Kernel;
use super::{Reach, Relations};

/// The relation MDDs of [`Relations::Mdd`], in the context's relation forest.
pub(super) struct RelMdds {
    /// Each event's relation, pinned (None until first built). A rebuilt relation replaces
    /// the old one in its pin, so the old one is freed at the next collection.
    pub(super) rel: Vec<Option<Pin>>,
    /// The set forest's domain size of each support level when the relation was built
    /// (empty: never built).
    pub(super) covered: Vec<Vec<u32>>,
    /// Relations built (and rebuilt after a domain grew).
    pub(super) builds: u64,
    /// The relations were given ([`Reach::cons_nsf`]): never rebuilt.
    pub(super) fixed: bool,
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

impl Reach<'_> {
    /// Apply events implicitly (the default) or through relation MDDs.
    pub fn set_relations(&mut self, mode: Relations) {
        let n = self.eng.events.len();
        self.eng.rels = match mode {
            Relations::Implicit => None,
            Relations::Mdd => Some(RelMdds {
                rel: (0..n).map(|_| None).collect(),
                covered: vec![Vec::new(); n],
                builds: 0,
                fixed: false,
            }),
        };
    }

    /// The number of relation MDDs built so far (0 for implicit relations).
    pub fn relation_builds(&self) -> u64 {
        self.eng.rels.as_ref().map_or(0, |r| r.builds)
    }
}

impl Kernel<'_> {
    /// The relation MDD of event `e`, (re)built if a level it reads has gained local states
    /// since it was built: it then relates every local state the set forest knows now (built
    /// "on the fly", as saturation discovers local states). EMPTY for implicit events.
    pub(super) fn fresh_relation(&mut self, e: u32) -> NodeId {
        let Some(rm) = self.e.rels.as_mut() else {
            return NodeId::EMPTY;
        };
        let ev = &self.e.events[e as usize];
        let cov = &rm.covered[e as usize];
        let sets = &self.dd.sets;
        let stale = !rm.fixed
            && (cov.is_empty()
                || ev
                    .parts
                    .iter()
                    .zip(cov)
                    .any(|((l, _), &c)| sets.domain(*l as usize) > c));
        if !stale {
            return rm.rel[e as usize].as_ref().map_or(NodeId::EMPTY, Pin::get);
        }
        let mut doms = Vec::with_capacity(ev.parts.len());
        let mut parts: Vec<(usize, Vec<(u32, u32)>)> = Vec::with_capacity(ev.parts.len());
        for (l, f) in &ev.parts {
            let l = *l as usize;
            let dom = self.dd.sets.domain(l).max(1);
            let cap = self.e.cap[l];
            doms.push(dom);
            // the relation forest must know the whole domain, or a part relating only some
            // local states to themselves would look like the identity and be skipped
            self.dd.rels.set_domain(saturn_dd::unprimed_level(l), dom);
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
            self.dd.rels.relation_from_local(&parts)
        };
        match &mut rm.rel[e as usize] {
            Some(p) => p.set(r),
            slot @ None => *slot = Some(self.dd.pin_rel(r)),
        }
        rm.covered[e as usize] = doms;
        rm.builds += 1;
        r
    }
}

impl Reach<'_> {
    /// Turn a forward generator around after generation, so that [`Reach::image`] and
    /// [`Reach::explore`] compute predecessors (`P`) in the same forest as the states found:
    /// what CTL model checking needs. Every event's local functions are reversed; each level is
    /// capped at the local states the forest knows now (the generated domains), so backward
    /// steps never invent token counts beyond them; the compute caches of the other direction
    /// are dropped (relation MDDs are rebuilt on demand).
    pub fn reverse(&mut self) {
        for ev in &mut self.eng.events {
            for part in &mut ev.parts {
                part.1 = reverse_local(&part.1);
            }
        }
        for tp in self.eng.top_parts.iter_mut().flatten() {
            tp.f = reverse_local(&tp.f);
        }
        for k in 1..self.eng.cap.len() {
            self.eng.cap[k] = self.eng.cap[k].min(self.dd.sets.domain(k).max(1));
        }
        let slot = self.slot.as_ref().expect("caches registered");
        if let Some(c) = self.dd.cache(slot) {
            c.clear();
        }
        if let Some(rm) = self.eng.rels.as_mut() {
            // dropping the pins frees the forward relations at the next collection
            rm.rel.iter_mut().for_each(|p| *p = None);
            rm.covered.iter_mut().for_each(Vec::clear);
        }
    }
}
