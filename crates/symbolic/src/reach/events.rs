//! Where events come from: each model event prepared for implicit firing (its local functions by
//! level, reversed for backward exploration), and, for [`Relations::Mdd`], its relation MDD built
//! on the fly in the context's relation forest over the local states the set forest knows:
//! from the local functions of a Petri-style event, or by Shannon expansion of a general event
//! (guards, updates and rates over several variables, e.g. a lowered PRISM command). The
//! relations of the events with the same Top are united into the thesis's `N_k` (Figure 2.10),
//! which the local fixpoint of level `k` fires in one pass.

use saturn_dd::{NodeId, Pin, RelAlg};
use saturn_model::{GeneralModel, LocalFn};

use super::kernel::Kernel;
use super::{Groups, Reach, Relations};
use crate::limits::Interrupted;

/// The relation MDDs of [`Relations::Mdd`], in the context's relation forest.
pub(super) struct RelMdds {
    /// Each event's relation, pinned (None until first built). A rebuilt relation replaces
    /// the old one in its pin, so the old one is freed at the next collection.
    pub(super) rel: Vec<Option<Pin>>,
    /// The set forest's domain size of each support level when the relation was built
    /// (empty: never built).
    pub(super) covered: Vec<Vec<u32>>,
    /// Per level `k`, `N_k`: the union of the relations of the events whose Top is `k`
    /// (None until first built), and the sum of the domains of their support levels when it
    /// was checked (domains only grow, so an equal sum means no relation of `k` is stale).
    pub(super) top: Vec<Option<Pin>>,
    pub(super) top_sig: Vec<u64>,
    /// Per level `k`, the support levels of the events whose Top is `k` (sorted, distinct).
    pub(super) top_levels: Vec<Vec<u32>>,
    /// Relations built (and rebuilt after a domain grew).
    pub(super) builds: u64,
    /// The relations were given ([`Reach::cons_nsf`]): never rebuilt.
    pub(super) fixed: bool,
}

impl RelMdds {
    /// The relations `rel` (pinned), each built over the domains `covered` of its support
    /// levels; `fixed`: never rebuilt. No `N_k` yet: see [`RelMdds::regroup_tops`].
    pub(super) fn new(rel: Vec<Option<Pin>>, covered: Vec<Vec<u32>>, fixed: bool) -> RelMdds {
        RelMdds {
            rel,
            covered,
            top: Vec::new(),
            top_sig: Vec::new(),
            top_levels: Vec::new(),
            builds: 0,
            fixed,
        }
    }

    /// Forget every `N_k` and group the events afresh: `by_top.at(k)` fire at level `k`.
    pub(super) fn regroup_tops(&mut self, by_top: &Groups<u32>, support: &Groups<u32>) {
        let levels = by_top.len();
        self.top = (0..levels).map(|_| None).collect();
        self.top_sig = vec![0; levels];
        self.top_levels = (0..levels)
            .map(|k| {
                let mut ls: Vec<u32> = by_top
                    .at(k)
                    .iter()
                    .flat_map(|&e| support.at(e as usize).iter().copied())
                    .collect();
                ls.sort_unstable();
                ls.dedup();
                ls
            })
            .collect();
    }
}

/// An event prepared for firing: its Top. Its local functions by level, highest first (none
/// for a general event, which fires through its relation only), are the engine's
/// `parts.at(e)`, its support levels (highest first) the engine's `levels.at(e)`.
pub(super) struct Ev {
    pub(super) top: u32,
    /// Where its local functions start in the engine's `parts`, and how many there are (the
    /// firing loop's view of `parts.at(e)`).
    pub(super) first: u32,
    pub(super) len: u32,
}

/// General events (a [`GeneralModel`]'s): their relations come from Shannon expansion over
/// their supports ([`crate::encode`]), never from local functions.
pub(super) struct GeneralSource {
    pub(super) model: GeneralModel,
    /// `level_of[v]`: the level of variable `v`.
    pub(super) level_of: Vec<usize>,
    /// Build the transposed relations (backward exploration).
    pub(super) backward: bool,
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
    /// Apply events implicitly (the default) or through relation MDDs. General events have
    /// no local functions: they always fire through their relations.
    pub fn set_relations(&mut self, mode: Relations) {
        let mode = if self.eng.general.is_some() {
            Relations::Mdd
        } else {
            mode
        };
        let n = self.eng.events.len();
        self.eng.rels = match mode {
            Relations::Implicit | Relations::Auto => None,
            Relations::Mdd => {
                let mut rm =
                    RelMdds::new((0..n).map(|_| None).collect(), vec![Vec::new(); n], false);
                rm.regroup_tops(&self.eng.by_top, &self.eng.levels);
                Some(rm)
            }
        };
    }

    /// The number of relation MDDs built so far (0 for implicit relations).
    pub fn relation_builds(&self) -> u64 {
        self.eng.rels.as_ref().map_or(0, |r| r.builds)
    }
}

/// A level with more local states than this is wide: building a relation over it counts as
/// work ([`Kernel::fresh_event`]).
const WIDE_RELATION_LEVEL: u32 = 64;

impl Kernel<'_> {
    /// The relation MDD of event `e`, (re)built if a level it reads has gained local states
    /// since it was built (see [`Kernel::fresh_event`]). EMPTY for implicit events.
    pub(super) fn fresh_relation(&mut self, e: u32) -> NodeId {
        self.fresh_event(e);
        self.e
            .rels
            .as_ref()
            .and_then(|rm| rm.rel[e as usize].as_ref())
            .map_or(NodeId::EMPTY, Pin::get)
    }

    /// (Re)build event `e`'s relation if a level it reads has gained local states since it
    /// was built: it then relates every local state the set forest knows now (built "on the
    /// fly", as saturation discovers local states).
    pub(super) fn fresh_event(&mut self, e: u32) {
        let Some(rm) = self.e.rels.as_ref() else {
            return;
        };
        let support = self.e.levels.at(e as usize);
        let cov = &rm.covered[e as usize];
        let sets = &self.dd.sets;
        let general = self.e.general.is_some();
        let parts = self.e.parts.range(e as usize).start;
        // a part built over local states `0..c` that is disabled from `c - 1` up (an inhibitor
        // at most `c - 1`: a one-hot group's "place i marked") relates no new local state, and
        // related no state `c - 1`, so it was not mistaken for the identity: it stays as built
        let settled = |x: usize, c: u32| {
            !general
                && c > 0
                && self
                    .e
                    .parts
                    .item(parts + x)
                    .is_some_and(|(_, f)| f.disabled_from(c - 1))
        };
        let stale = !rm.fixed
            && (cov.is_empty()
                || support
                    .iter()
                    .zip(cov)
                    .enumerate()
                    .any(|(x, (&l, &c))| sets.domain(l as usize) > c && !settled(x, c)));
        if !stale {
            return;
        }
        // a relation over wide levels takes long to build: not once a limit is reached
        if let Err(why) = self.e.limits.check() {
            self.e.interrupted = Some(why);
            return;
        }
        let doms: Vec<u32> = support
            .iter()
            .map(|&l| self.dd.sets.domain(l as usize).max(1))
            .collect();
        // a relation is dense over its levels' local states from 0: a level whose states are
        // all large (a place holding billions of tokens) cannot have one
        if doms.iter().any(|&d| d as usize > self.e.max_index) {
            self.e.interrupted = Some(Interrupted::IndexTooLarge);
            return;
        }
        let (r, visited) = match self.e.general.take() {
            Some(g) => {
                let r = self.general_relation(&g, e as usize, &doms);
                self.e.general = Some(g);
                (r, doms.clone())
            }
            None => self.local_relation(e as usize, &doms),
        };
        // building it visits every local state of its levels: on a wide level, work too, and
        // relation work (such an attempt rebuilds its relations over the whole domain each
        // time it grows). On narrow levels it is next to nothing beside the firings, and left
        // out, so the rounds of the portfolio stay as they were (HirschbergSinclair-PT-30, at
        // most 29 tokens a place: counted, its winning attempt came a round later, 21 -> 42 s)
        let built: u64 = doms
            .iter()
            .zip(&visited)
            .filter(|(&d, _)| d > WIDE_RELATION_LEVEL)
            .map(|(_, &v)| u64::from(v))
            .sum();
        self.e.work += built;
        self.e.union_work += built;
        let rm = self.e.rels.as_mut().expect("relation mode");
        match &mut rm.rel[e as usize] {
            Some(p) => p.set(r),
            slot @ None => *slot = Some(self.dd.pin_rel(r)),
        }
        rm.covered[e as usize] = doms;
        rm.builds += 1;
    }

    /// The relation of a Petri-style event from its local functions, over the local states
    /// `doms` (per support level, highest first) and within each level's cap.
    fn local_relation(&mut self, e: usize, doms: &[u32]) -> (NodeId, Vec<u32>) {
        let mut parts: Vec<(usize, Vec<(u32, u32)>)> = Vec::with_capacity(doms.len());
        let mut visited = Vec::with_capacity(doms.len());
        for x in self.e.parts.range(e) {
            let (Some(&(l, f)), Some(&dom)) = (self.e.parts.item(x), doms.get(parts.len())) else {
                break;
            };
            let l = l as usize;
            let cap = self.e.cap[l];
            // the relation forest must know the whole domain, or a part relating only some
            // local states to themselves would look like the identity and be skipped
            self.dd.rels.set_domain(saturn_dd::unprimed_level(l), dom);
            // only the local states where the event is enabled are visited (one for a
            // one-hot group's "place i marked", however wide the group)
            let enabled = f.enabled_below(dom);
            visited.push(enabled.len() as u32);
            let pairs: Vec<(u32, u32)> = enabled
                .filter_map(|i| f.fire(i).filter(|&j| j < cap).map(|j| (i, j)))
                .collect();
            // pairs relating every local state so far to itself would be reduced to a skipped
            // level, the identity for states yet to come too; a part that does not hold for
            // the next state (an inhibitor: "place 0 marked" of a one-hot group while only
            // place 0 has been) is kept explicit by declaring that state, which it does not
            // relate (saturation fires it before the rebuild a new state calls for)
            let identity = pairs.len() == dom as usize && pairs.iter().all(|&(i, j)| i == j);
            if identity && dom < cap && f.fire(dom) != Some(dom) {
                self.dd
                    .rels
                    .set_domain(saturn_dd::unprimed_level(l), dom + 1);
            }
            parts.push((l, pairs));
        }
        let r = if parts.is_empty() {
            NodeId::ONE
        } else {
            self.dd.rels.relation_from_local(&parts)
        };
        (r, visited)
    }

    /// The relation of general event `e` by Shannon expansion over its support, relating the
    /// states whose support values are among the local states `doms` (per support level,
    /// highest first); transposed for backward exploration.
    fn general_relation(&mut self, g: &GeneralSource, e: usize, doms: &[u32]) -> NodeId {
        let k = self.dd.num_levels();
        let mut known = vec![Vec::new(); k + 1];
        for (&l, &dom) in self.e.levels.at(e).iter().zip(doms) {
            let size = self.e.cap[l as usize];
            known[l as usize] = (0..dom.min(size)).collect();
        }
        let r = crate::encode::event_relation(
            &mut self.dd.rels,
            &g.model,
            e,
            &g.level_of,
            Some(&known),
        );
        if g.backward {
            RelAlg::new().transpose(&mut self.dd.rels, r)
        } else {
            r
        }
    }

    /// `N_k`: the union of the relations of the events whose Top is `k` (`evs`), rebuilt
    /// when one of them is stale. Checked by the sum of the support levels' domains, so an
    /// unchanged `N_k` costs one pass over those levels.
    pub(super) fn fresh_top(&mut self, k: usize) -> NodeId {
        // (only called with relation MDDs; without them nothing fires through one)
        let Some(rm) = self.e.rels.as_ref() else {
            return NodeId::EMPTY;
        };
        let sets = &self.dd.sets;
        let sig: u64 = rm.top_levels[k]
            .iter()
            .map(|&l| u64::from(sets.domain(l as usize)))
            .sum();
        if let Some(p) = &rm.top[k] {
            if rm.top_sig[k] == sig || rm.fixed {
                return p.get();
            }
        }
        // a domain of N_k's levels grew (or there is no N_k yet): the union is built anew even
        // when no relation of it is, since a union expands the identity of a relation that
        // skips a level over that level's domain at the time (Reduction::Identity)
        for x in self.e.by_top.range(k) {
            let Some(&e) = self.e.by_top.item(x) else {
                break;
            };
            self.fresh_event(e);
            if self.e.interrupted.is_some() {
                // stopped before every relation of N_k was built: no union to keep
                return NodeId::EMPTY;
            }
        }
        {
            let evs = self.e.by_top.at(k);
            let rels: Vec<NodeId> = self.e.rels.as_ref().map_or(Vec::new(), |rm| {
                evs.iter()
                    .map(|&e| rm.rel[e as usize].as_ref().map_or(NodeId::EMPTY, Pin::get))
                    .collect()
            });
            let Some(u) = self.union_within_limits(&rels) else {
                // stopped: the relations were rebuilt but not their union, so the union from
                // before is stale; dropped, it is rebuilt on the next call (a resumed engine
                // would otherwise fire it, missing the new local states)
                if let Some(rm) = self.e.rels.as_mut() {
                    rm.top[k] = None;
                }
                return NodeId::EMPTY;
            };
            if let Some(rm) = self.e.rels.as_mut() {
                match &mut rm.top[k] {
                    Some(p) => p.set(u),
                    slot @ None => *slot = Some(self.dd.pin_rel(u)),
                }
            }
        }
        // a relation rebuilt above declared no domain: the sum is read afresh
        let Some(rm) = self.e.rels.as_mut() else {
            return NodeId::EMPTY;
        };
        let sets = &self.dd.sets;
        rm.top_sig[k] = rm.top_levels[k]
            .iter()
            .map(|&l| u64::from(sets.domain(l as usize)))
            .sum();
        rm.top[k].as_ref().map_or(NodeId::EMPTY, Pin::get)
    }

    /// The union of the relations `rels`, within the limits and the step budget: its steps
    /// count as work, and the relation forest is polled while it runs, so a union that blows
    /// up stops the run like any other step (`None`, with the reason in `interrupted`).
    fn union_within_limits(&mut self, rels: &[NodeId]) -> Option<NodeId> {
        let limits = self.e.limits;
        let start = self.dd.rels.op_steps();
        let left = self.e.step_budget.saturating_sub(self.spent());
        self.dd.rels.set_poll(Some(Box::new(move |steps: u64| {
            steps - start > left || limits.check().is_err()
        })));
        let u = self.dd.rels.union_all(rels);
        self.dd.rels.set_poll(None);
        self.e.work += self.dd.rels.op_steps() - start;
        self.e.union_work += self.dd.rels.op_steps() - start;
        if self.dd.rels.stopped() {
            self.dd.rels.clear_stop();
            let why = self.e.limits.check().err().unwrap_or(Interrupted::Budget);
            self.e.interrupted = Some(why);
            return None;
        }
        Some(u)
    }
}

impl Reach<'_> {
    /// Turn a forward generator around after generation, so that [`Reach::image`] and
    /// [`Reach::explore`] compute predecessors (`P`) in the same forest as the states found:
    /// what CTL model checking needs. Every event's local functions are reversed (a general
    /// event's relation is transposed); each level is capped at the local states the forest
    /// knows now (the generated domains), so backward steps never invent token counts beyond
    /// them; the compute caches of the other direction are dropped (relation MDDs are rebuilt
    /// on demand).
    pub fn reverse(&mut self) {
        for part in self.eng.parts.items_mut() {
            part.1 = reverse_local(&part.1);
        }
        for tp in self.eng.top_parts.items_mut() {
            tp.f = reverse_local(&tp.f);
        }
        if let Some(g) = self.eng.general.as_deref_mut() {
            g.backward = !g.backward;
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
            rm.top.iter_mut().for_each(|p| *p = None);
        }
    }
}
