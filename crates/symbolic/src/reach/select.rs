//! Choosing what a generator fires, for the EU algorithms of thesis chapter 3: a subset of the
//! events (EUsat's safe events, Figure 3.1), one event's image, and next-state functions
//! constrained on their target side (ConsNSF, Figure 3.2), installed as fixed relation MDDs
//! grouped by their new Top.

use saturn_dd::NodeId;
use saturn_dd::{RelAlg, Side};

use super::events::RelMdds;
use super::kernel::Tok;
use super::{Groups, Reach, Relations, TopPart};
use crate::limits::Interrupted;

impl Reach<'_> {
    /// Fire only the events `e` with `keep[e]` from now on (`None`: every event again), in
    /// saturation and in [`Reach::image`]. The compute caches are cleared (saturated nodes
    /// depend on the events fired).
    pub fn restrict_events(&mut self, keep: Option<Vec<bool>>) {
        self.eng.only = keep;
        self.regroup();
    }

    /// `N_e(s)` (or `P_e(s)` backward): the image of `s` under event `e` alone.
    pub fn image_event(&mut self, e: usize, s: NodeId) -> Result<NodeId, Interrupted> {
        self.with_kernel(|k| {
            let top = k.dd.num_levels();
            let r = if k.e.rels.is_some() {
                let r = k.fresh_relation(e as u32);
                saturn_dd::image(&mut k.dd.sets, &k.dd.rels, s, r)
            } else {
                k.image_event(top, s, Tok::Ev(e as u32, 0))
            };
            k.finish(r)
        })
    }

    /// The number of events of the model.
    pub fn num_events(&self) -> usize {
        self.eng.events.len()
    }

    /// ConsNSF (thesis Figure 3.2) for every event: its relation MDD (over the local states the
    /// forest knows now) restricted to pairs whose target lies in `a` — for a backward
    /// generator, `P_{α,a}`: the predecessors inside `a` — by the relation algebra's
    /// restriction of the range ([`RelAlg::restrict`] with [`Side::To`], the figure's
    /// recursion over the relation and the set together). From now on saturation and images
    /// fire these fixed relations, each at its own Top (`max(Top(a), Top(α))` at most), until
    /// [`Reach::unconstrain_relations`].
    pub fn cons_nsf(&mut self, a: NodeId) {
        let n = self.eng.events.len();
        let mode = if self.eng.rels.is_some() {
            Relations::Mdd
        } else {
            Relations::Implicit
        };
        self.set_relations(Relations::Mdd);
        let rels: Vec<NodeId> =
            self.with_kernel(|k| (0..n as u32).map(|e| k.fresh_relation(e)).collect());
        let mut alg = RelAlg::new();
        let dd = &mut *self.dd;
        let cons: Vec<NodeId> = rels
            .iter()
            .map(|&r| alg.restrict(&mut dd.rels, &dd.sets, r, Side::To, a))
            .collect();
        let pins = cons.iter().map(|&r| Some(dd.pin_rel(r))).collect();
        let doms = (1..=dd.num_levels())
            .map(|k| dd.sets.domain(k))
            .collect::<Vec<u32>>();
        self.eng.rels = Some(RelMdds::new(pins, vec![doms; n], true));
        self.eng.restore = Some(mode);
        self.regroup();
    }

    /// Back to the model's own next-state functions after [`Reach::cons_nsf`].
    pub fn unconstrain_relations(&mut self) {
        if let Some(mode) = self.eng.restore.take() {
            self.set_relations(mode);
            self.regroup();
        }
    }

    /// Rebuild the per-Top event lists from the events, the event subset and (for fixed
    /// relations) the relations' own Tops; clear the caches.
    fn regroup(&mut self) {
        let k = self.dd.num_levels();
        let mut by_top = Vec::new();
        let mut top_parts = Vec::new();
        for (e, ev) in self.eng.events.iter().enumerate() {
            if self.eng.only.as_ref().is_some_and(|m| !m[e]) {
                continue;
            }
            let top = match self.eng.rels.as_ref() {
                Some(rm) if rm.fixed => {
                    let r = rm.rel[e].as_ref().map_or(NodeId::EMPTY, |p| p.get());
                    if r.is_terminal() {
                        // never fires (EMPTY) or changes nothing (the identity)
                        continue;
                    }
                    self.dd.rels.relation_top(r)
                }
                _ => ev.top as usize,
            };
            by_top.push((top as u32, e as u32));
            let parts = self.eng.parts.at(e);
            if let Some(&(_, f)) = parts.first() {
                let single = parts.len() == 1;
                top_parts.push((
                    top as u32,
                    TopPart {
                        e: e as u32,
                        f,
                        single,
                    },
                ));
            }
        }
        let by_top = Groups::new(k + 1, by_top);
        let top_parts = Groups::new(k + 1, top_parts);
        if let Some(rm) = self.eng.rels.as_mut() {
            rm.regroup_tops(&by_top, &self.eng.levels);
        }
        self.eng.by_top = by_top;
        self.eng.top_parts = top_parts;
        let slot = self.slot.as_ref().expect("caches registered");
        if let Some(c) = self.dd.cache(slot) {
            c.clear();
        }
    }
}
