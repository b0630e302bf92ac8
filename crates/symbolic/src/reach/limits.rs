//! The engine's glue to limits and memory: periodic checks inside the recursions, cache sizing,
//! progress messages, and garbage collection at safe points with cache purging.

use saturn_dd::NodeId;

use super::{max_dense_index, Reach};
use crate::limits::{Interrupted, Limits};

impl Reach {
    /// Is local index `j` too large for a dense frame? Marks the run interrupted if so.
    #[inline]
    pub(super) fn index_too_large(&mut self, j: usize) -> bool {
        if j >= self.max_index {
            self.interrupted = Some(Interrupted::IndexTooLarge);
            true
        } else {
            false
        }
    }

    /// Limits checked during generation.
    pub fn set_limits(&mut self, limits: Limits) {
        self.max_index = max_dense_index(limits.max_memory);
        self.limits = limits;
    }

    /// Give up (with [`Interrupted::Budget`]) after visiting about `steps` edges.
    pub fn set_step_budget(&mut self, steps: u64) {
        self.step_budget = steps;
    }

    /// Recursion steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// A callback receiving a one-line progress message now and then.
    pub fn set_progress(&mut self, f: Box<dyn FnMut(&str)>) {
        self.progress = Some(f);
    }

    /// Periodic bookkeeping inside the recursions: limits, cache growth, progress.
    #[inline]
    pub(super) fn tick(&mut self, level: usize) -> bool {
        self.steps += 1;
        if self.steps & 0xfff != 0 {
            return self.interrupted.is_some();
        }
        if let Err(i) = self.limits.check() {
            self.interrupted = Some(i);
        } else if self.work > self.step_budget {
            self.interrupted = Some(Interrupted::Budget);
        }
        let n = self.forest.nodes_now();
        if n > self.sat_cache.len_slots() && self.sat_cache.len_slots() < (1 << 24) {
            let want = n.next_power_of_two().min(1 << 24);
            self.sat_cache.grow_to(want);
            self.fire_cache.grow_to(want);
            self.img_cache.grow_to(want);
            self.img_all_cache.grow_to(want);
            if let Some(rm) = self.rels.as_mut() {
                rm.fire_cache.grow_to(want);
            }
            self.forest.tune_caches();
        }
        // Growth on evictions stops at sixteen entries per live node: at four, Railroad-PT-010
        // (force order) ran 8x slower; past sixteen, kanban and Railroad gained nothing.
        let ceil = n.saturating_mul(16);
        self.sat_cache.set_ceiling(ceil);
        self.fire_cache.set_ceiling(ceil);
        self.img_cache.set_ceiling(ceil);
        self.img_all_cache.set_ceiling(ceil);
        if let Some(rm) = self.rels.as_mut() {
            rm.fire_cache.set_ceiling(ceil);
        }
        if self.steps & 0x3ffff == 0 {
            if let Some(p) = self.progress.as_mut() {
                p(&format!("level {level}, {n} nodes"));
            }
        }
        self.interrupted.is_some()
    }

    /// A one-paragraph account of the memory held by the forest and the engine's caches.
    pub fn memory_report(&self) -> String {
        let fs = self.forest.stats();
        format!(
            "forest: {} nodes now, {} peak, {} collections, {:.1} MiB ({}); engine caches: sat {} fire {} img {} slots, {:.1} MiB",
            fs.nodes_now,
            fs.nodes_peak,
            fs.collections,
            fs.bytes as f64 / 1048576.0,
            self.forest.memory_breakdown(),
            self.sat_cache.len_slots(),
            self.fire_cache.len_slots(),
            self.img_cache.len_slots(),
            (self.sat_cache.bytes() + self.fire_cache.bytes() + self.img_cache.bytes()) as f64
                / 1048576.0
        )
    }

    /// Drop the engine's cache entries that mention a node the last collection freed.
    pub(super) fn purge_caches(&mut self) {
        let f = &self.forest;
        self.sat_cache.retain(|k, v| f.is_live(*k) && f.is_live(*v));
        self.fire_cache
            .retain(|k, v| f.is_live(k.1) && f.is_live(*v));
        self.img_cache
            .retain(|k, v| f.is_live(k.1) && f.is_live(*v));
        self.img_all_cache
            .retain(|k, v| f.is_live(*k) && f.is_live(*v));
        if let Some(rm) = self.rels.as_mut() {
            rm.fire_cache.retain(|k, v| f.is_live(k.0) && f.is_live(*v));
        }
    }

    /// Collect garbage between top-level steps, keeping `keep` (and registered roots).
    pub fn collect(&mut self, keep: &[NodeId]) {
        if self.forest.maybe_gc(keep) {
            self.purge_caches();
        }
    }

    /// Garbage collection in the middle of saturation, at the safe point of
    /// [`Reach::local_fixpoint`]: every node the recursion still holds lives in a frame (the node
    /// being saturated or fired on, and the children built so far), so the frames are the roots.
    /// Compute-cache entries over collected nodes are purged; the rest stay.
    pub(super) fn collect_in_flight(&mut self) {
        let mut roots: Vec<NodeId> = Vec::new();
        for fr in &self.frames {
            if !fr.src.is_empty() {
                roots.push(fr.src);
            }
            roots.extend(fr.buf.iter().copied().filter(|n| !n.is_terminal()));
        }
        self.forest.gc(&roots);
        self.purge_caches();
        if let Some(p) = self.progress.as_mut() {
            p(&format!(
                "collected garbage, {} nodes live",
                self.forest.nodes_now()
            ));
        }
    }
}
