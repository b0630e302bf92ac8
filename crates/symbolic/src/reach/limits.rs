//! The engine's glue to limits and memory: periodic checks inside the recursions, cache sizing,
//! progress messages, and garbage collection at safe points (through the context, whose one
//! rule purges every cache, the engine's checked-out caches included).

use saturn_dd::{NodeId, Purge};

use super::kernel::{Kernel, Tok};
use super::{max_dense_index, Reach};
use crate::limits::{Interrupted, Limits, Progress};

/// The size up to which the engine's caches may always grow on evictions (slots of each cache;
/// 12-16 MiB for a cache of 12-16-byte entries, allocated only when evictions ask for it).
const CACHE_FLOOR: usize = 1 << 20;

impl Reach<'_> {
    /// Limits checked during generation. A memory limit also lowers the context's collection
    /// floor ([`saturn_dd::gc_floor_for`]).
    pub fn set_limits(&mut self, limits: Limits) {
        self.eng.max_index = max_dense_index(limits.max_memory);
        self.dd
            .set_gc_floor(saturn_dd::gc_floor_for(limits.max_memory));
        self.eng.limits = limits;
    }

    /// Give up (with [`Interrupted::Budget`]) after about `steps` steps of work: the edges the
    /// recursions visit, plus the steps of the set operations on the context (a step there
    /// counts its node's edges).
    pub fn set_step_budget(&mut self, steps: u64) {
        self.eng.step_budget = steps;
        // with a budget, the periodic check comes every 64 steps instead of every 4096
        self.eng.tick_mask = if steps == u64::MAX { 0xfff } else { 0x3f };
    }

    /// Recursion steps taken so far.
    pub fn steps(&self) -> u64 {
        self.eng.steps
    }

    /// A callback receiving a one-line progress message now and then.
    pub fn set_progress(&mut self, f: Progress) {
        self.eng.progress = Some(f);
    }

    /// Collect garbage between top-level steps when the context says one is due, keeping
    /// `keep` (and every pin). The engine's caches are registered with the context, so the
    /// collection purges them.
    pub fn collect(&mut self, keep: &[NodeId]) {
        if self.dd.gc_due() {
            self.dd.collect_with(keep, &[], &mut []);
        }
    }

    /// A one-paragraph account of the memory held by the forest and the engine's caches.
    pub fn memory_report(&mut self) -> String {
        let fs = self.dd.sets.stats();
        let breakdown = self.dd.sets.memory_breakdown();
        let slot = self.slot.as_ref().expect("caches registered");
        let (slots, bytes, each) = self.dd.cache(slot).map_or((0, 0, String::new()), |c| {
            (c.len_slots(), c.bytes(), c.breakdown())
        });
        format!(
            "forest: {} nodes now, {} peak, {} collections, {:.1} MiB ({}); engine caches: grown ahead to {} slots, {:.1} MiB ({}); work: {} recursion steps ({} of them building relation unions), {} set-operation steps",
            fs.nodes_now,
            fs.nodes_peak,
            fs.collections,
            fs.bytes as f64 / 1048576.0,
            breakdown,
            slots,
            bytes as f64 / 1048576.0,
            each,
            self.eng.work,
            self.eng.union_work,
            self.dd.sets.op_steps()
        )
    }
}

impl Kernel<'_> {
    /// The work the step budget counts: the recursions' edges (and relation unions) and the
    /// set operations' steps on the context. The unions of the frames take a fifth to a half
    /// of the time on some nets (FlexibleBarrier-PT-04b, file-rev order: 65 million set
    /// steps for 76 million edges), next to nothing on others, so leaving them out made
    /// equal budgets cost up to 3x different times.
    pub(super) fn spent(&self) -> u64 {
        self.e.work + self.dd.sets.op_steps()
    }

    /// Is local index `j` too large for a dense buffer from index 0 (the BFS image's)? Marks
    /// the run interrupted if so.
    #[inline]
    pub(super) fn index_too_large(&mut self, j: usize) -> bool {
        if j >= self.e.max_index {
            self.e.interrupted = Some(Interrupted::IndexTooLarge);
            true
        } else {
            false
        }
    }

    /// Would local index `j` make level `l`'s frame window too wide? Marks the run
    /// interrupted if so.
    #[inline]
    pub(super) fn window_too_wide(&mut self, l: usize, j: usize) -> bool {
        if self.e.frames[l].too_wide(j, self.e.max_index) {
            self.e.interrupted = Some(Interrupted::IndexTooLarge);
            true
        } else {
            false
        }
    }

    /// Send a progress message to the callback, if there is one.
    pub(super) fn report(&mut self, msg: impl FnOnce() -> String) {
        if let Some(p) = self.e.progress.as_mut() {
            p(&msg());
        }
    }

    /// Periodic bookkeeping inside the recursions: limits, cache growth, progress.
    #[inline]
    pub(super) fn tick(&mut self, level: usize) -> bool {
        self.e.steps += 1;
        if self.e.steps & self.e.tick_mask != 0 {
            return self.e.interrupted.is_some();
        }
        self.tick_slow(level)
    }

    #[cold]
    fn tick_slow(&mut self, level: usize) -> bool {
        if self.spent() > self.e.step_budget {
            self.e.interrupted = Some(Interrupted::Budget);
        }
        if self.e.steps & 0xfff != 0 {
            // a step budget is checked more often than the rest
            return self.e.interrupted.is_some();
        }
        if let Err(i) = self.e.limits.check() {
            self.e.interrupted = Some(i);
        } else if self.dd.overflowed() {
            self.e.interrupted = Some(Interrupted::TooManyNodes);
        }
        let n = self.dd.sets.nodes_now();
        // Caches are sized ahead to half to one entry per live node; evictions grow them
        // further (below). At one to two entries per node (the rule before), philosophers
        // N=10000 and slotted ring N=50 peaked 3.6 and 4 MB higher for no gain in time.
        if n > 2 * self.c.len_slots() && self.c.len_slots() < (1 << 24) {
            let want = (n.next_power_of_two() / 2).min(1 << 24);
            self.c.grow_ahead(want);
            self.dd.sets.tune_caches();
        }
        // Growth on evictions stops at sixteen entries per live node: at four, Railroad-PT-010
        // (force order) ran 8x slower; past sixteen, kanban and Railroad gained nothing. But
        // never below a floor: a net with thousands of events and few nodes needs an entry per
        // (event, node) pair (GlobalResAllocation-PT-03: 4791 events, 1837 nodes, never
        // finished with 29k slots).
        self.c.set_ceiling(n.saturating_mul(16).max(CACHE_FLOOR));
        if self.e.steps & 0x3ffff == 0 {
            self.report(|| format!("level {level}, {n} nodes"));
        }
        self.e.interrupted.is_some()
    }

    /// Collect between top-level steps, keeping `keep` (and every pin).
    pub(super) fn collect_between(&mut self, keep: &[NodeId]) {
        let held: &mut dyn Purge = &mut *self.c;
        self.dd.collect_with(keep, &[], &mut [held]);
    }

    /// Garbage collection in the middle of saturation, at the safe point of
    /// [`Kernel::local_fixpoint`]: every node the recursion still holds lives in a frame (the
    /// node being saturated or fired on, its constraint, the relation it fires, the children
    /// built so far and the relation successors being fired), so the frames are the roots.
    /// Cache entries over collected nodes are purged; the rest stay.
    pub(super) fn collect_in_flight(&mut self) {
        let mut sets: Vec<NodeId> = Vec::new();
        let mut rels: Vec<NodeId> = Vec::new();
        for fr in &self.e.frames {
            sets.extend([fr.src, fr.cons].into_iter().filter(|n| !n.is_terminal()));
            sets.extend(fr.buf.iter().copied().filter(|n| !n.is_terminal()));
            if !fr.rel.is_terminal() {
                rels.push(fr.rel);
            }
        }
        rels.extend(self.e.succ.iter().filter_map(|&(_, t)| match t {
            Tok::Rel(r) if !r.is_terminal() => Some(r),
            _ => None,
        }));
        let held: &mut dyn Purge = &mut *self.c;
        self.dd.collect_in_flight(&sets, &rels, &mut [held]);
        let live = self.dd.sets.nodes_now();
        self.report(|| format!("collected garbage, {live} nodes live"));
    }
}
