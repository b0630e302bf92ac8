//! State-space generation: BFS (thesis Figure 2.9), BFS with a frontier set, and saturation
//! (Figure 2.10), forward or backward.
//!
//! Next-state functions are applied *implicitly*: an event is a product of local functions
//! (`saturn_model::LocalFn`), and firing it on an MDD node walks the node from the event's Top
//! down to its bottom level, mapping local states on the way. This is Meddly's "implicit
//! relation" idea; the relation MDDs it avoids are never built. Local domains grow as firing
//! discovers new local states (the forest's domains follow the node indices).

use saturn_dd::{Cache, Forest, NodeId, Reduction};
use saturn_model::{LocalFn, Model};

use crate::limits::{Interrupted, Limits};

/// A state-space generation algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Breadth-first: `S ← S ∪ N(S)` until no change (Figure 2.9).
    Bfs,
    /// Breadth-first with a frontier: `F ← N(F) \ S; S ← S ∪ F`.
    BfsFrontier,
    /// Saturation (Figure 2.10).
    Saturation,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Bfs => "bfs",
            Method::BfsFrontier => "bfs-frontier",
            Method::Saturation => "saturation",
        }
    }
    pub fn parse(s: &str) -> Option<Method> {
        match s {
            "bfs" => Some(Method::Bfs),
            "bfs-frontier" | "frontier" => Some(Method::BfsFrontier),
            "saturation" | "sat" => Some(Method::Saturation),
            _ => None,
        }
    }
}

/// How next-state functions are applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relations {
    /// Events fire directly on MDD nodes from their local functions (no relation diagrams).
    Implicit,
    /// Each event is a 2L-level identity-reduced relation MDD, built from its local functions
    /// over the local states known so far and rebuilt when a level it reads gains local states.
    Mdd,
}

impl Relations {
    pub fn name(self) -> &'static str {
        match self {
            Relations::Implicit => "implicit",
            Relations::Mdd => "mdd",
        }
    }
    pub fn parse(s: &str) -> Option<Relations> {
        match s {
            "implicit" => Some(Relations::Implicit),
            "mdd" => Some(Relations::Mdd),
            _ => None,
        }
    }
}

/// The relation MDDs of [`Relations::Mdd`].
struct RelMdds {
    /// Identity-reduced, 2K levels (variable `k` is the pair `2k`, `2k-1`).
    forest: Forest,
    /// Each event's relation (NodeId::EMPTY until first built).
    rel: Vec<NodeId>,
    /// The set forest's domain size of each support level when the relation was built
    /// (empty: never built).
    covered: Vec<Vec<u32>>,
    /// Saturated results of firing a relation node on a set node: `(q, r) -> result`.
    fire_cache: Cache<(NodeId, NodeId), NodeId>,
    /// Relations built (and rebuilt after a domain grew).
    builds: u64,
}

/// Forward (successors, `N`) or backward (predecessors, `P`) exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

/// An event prepared for firing: its local functions by level, highest first.
struct Ev {
    parts: Vec<(u32, LocalFn)>,
    top: u32,
}

/// Working storage for one recursion frame at one level (at most one frame per level is
/// active at any time, so one per level suffices).
#[derive(Default)]
struct Frame {
    /// The node this frame reads (saturates or fires on); EMPTY when the frame is idle.
    src: NodeId,
    /// The children of the node under construction, dense by local index.
    buf: Vec<NodeId>,
    queued: Vec<bool>,
    queue: Vec<u32>,
}

impl Frame {
    #[inline]
    fn get(&self, i: usize) -> NodeId {
        self.buf.get(i).copied().unwrap_or(NodeId::EMPTY)
    }
    #[inline]
    fn set(&mut self, i: usize, n: NodeId) {
        if self.buf.len() <= i {
            self.buf.resize(i + 1, NodeId::EMPTY);
        }
        self.buf[i] = n;
    }
    fn release(&mut self) {
        self.buf.clear();
        self.src = NodeId::EMPTY;
    }
}

/// Counters of one generation run.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReachStats {
    /// BFS iterations (0 for saturation).
    pub iterations: usize,
    /// Events fired (calls that reached a fresh computation).
    pub firings: u64,
}

/// The state-space generator for one model.
pub struct Reach {
    pub forest: Forest,
    events: Vec<Ev>,
    /// `by_top[k]`: events whose Top is level `k`.
    by_top: Vec<Vec<u32>>,
    /// Per level: local states beyond `cap[k]-1` are never produced (u32::MAX: unbounded).
    cap: Vec<u32>,
    frames: Vec<Frame>,
    sat_cache: Cache<NodeId, NodeId>,
    fire_cache: Cache<(u32, NodeId), NodeId>,
    img_cache: Cache<(u32, NodeId), NodeId>,
    /// The image of a node under every event with Top at or below its level.
    img_all_cache: Cache<NodeId, NodeId>,
    /// Child buffers of [`Reach::image_all`], one per level.
    img_bufs: Vec<Vec<NodeId>>,
    /// Successor buffers of the relation-MDD firing, one per level.
    rel_bufs: Vec<Vec<(u32, NodeId)>>,
    limits: Limits,
    /// Local states at or beyond this index are never stored in a dense frame: reaching one
    /// stops the run with [`Interrupted::IndexTooLarge`] before the allocation is made.
    max_index: usize,
    interrupted: Option<Interrupted>,
    steps: u64,
    /// Work done: edges visited by the recursions (what the step budget limits).
    work: u64,
    step_budget: u64,
    progress: Option<Box<dyn FnMut(&str)>>,
    /// Relation MDDs, when events are applied through them.
    rels: Option<RelMdds>,
    pub stats: ReachStats,
}

fn reverse_local(f: &LocalFn) -> LocalFn {
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

/// The largest local index a dense frame may hold: a frame of index `i` costs about
/// `5 * (i + 1)` bytes, and a run must stop *before* such an allocation exceeds its memory
/// limit (a quarter of it; without a limit, 2^28 entries, i.e. about 1.3 GB per frame).
pub fn max_dense_index(max_memory: Option<u64>) -> usize {
    const NO_LIMIT: usize = 1 << 28;
    match max_memory {
        Some(m) => ((m / 4 / 5) as usize).min(NO_LIMIT),
        None => NO_LIMIT,
    }
}

impl Reach {
    /// Is local index `j` too large for a dense frame? Marks the run interrupted if so.
    #[inline]
    fn index_too_large(&mut self, j: usize) -> bool {
        if j >= self.max_index {
            self.interrupted = Some(Interrupted::IndexTooLarge);
            true
        } else {
            false
        }
    }

    /// A generator for `model` in the given direction. For backward exploration of a model with
    /// unbounded local domains, pass `caps` (per level, from a forward run) so the potential
    /// state space stays finite.
    pub fn new(model: &Model, dir: Direction, caps: Option<Vec<u32>>) -> Reach {
        let k = model.num_levels();
        let mut events = Vec::with_capacity(model.events.len());
        let mut by_top = vec![Vec::new(); k + 1];
        for e in &model.events {
            let parts: Vec<(u32, LocalFn)> = e
                .parts
                .iter()
                .map(|(l, f)| {
                    (
                        *l as u32,
                        if dir == Direction::Forward {
                            f.clone()
                        } else {
                            reverse_local(f)
                        },
                    )
                })
                .collect();
            let top = parts.first().map_or(0, |p| p.0);
            by_top[top as usize].push(events.len() as u32);
            events.push(Ev { parts, top });
        }
        let mut cap = caps.unwrap_or_else(|| vec![u32::MAX; k + 1]);
        cap.resize(k + 1, u32::MAX);
        for (lvl, level) in model.levels.iter().enumerate() {
            if let Some(b) = level.bound {
                cap[lvl + 1] = cap[lvl + 1].min(b.saturating_add(1));
            }
        }
        Reach {
            forest: Forest::new(k, Reduction::Quasi),
            events,
            by_top,
            cap,
            frames: (0..=k).map(|_| Frame::default()).collect(),
            sat_cache: Cache::new(12),
            fire_cache: Cache::new(12),
            img_cache: Cache::new(12),
            img_all_cache: Cache::new(12),
            img_bufs: vec![Vec::new(); k + 1],
            rel_bufs: vec![Vec::new(); k + 1],
            limits: Limits::none(),
            max_index: max_dense_index(None),
            interrupted: None,
            steps: 0,
            work: 0,
            step_budget: u64::MAX,
            progress: None,
            rels: None,
            stats: ReachStats::default(),
        }
    }

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
    fn fresh_relation(&mut self, e: u32) -> NodeId {
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

    /// The set holding the single state `state` (`state[k-1]` is level `k`'s local state).
    pub fn state_set(&mut self, state: &[u32]) -> NodeId {
        self.forest.singleton(state)
    }

    /// The states reachable from `init` (or reaching it, backward) with the given method.
    pub fn explore(&mut self, init: NodeId, method: Method) -> Result<NodeId, Interrupted> {
        self.interrupted = None;
        let r = match method {
            Method::Saturation => {
                let k = self.forest.num_levels();
                let r = self.saturate(k, init);
                self.finish(r)
            }
            Method::Bfs => self.bfs(init, false),
            Method::BfsFrontier => self.bfs(init, true),
        }?;
        Ok(r)
    }

    fn finish(&mut self, r: NodeId) -> Result<NodeId, Interrupted> {
        match self.interrupted {
            Some(i) => Err(i),
            None => Ok(r),
        }
    }

    /// Periodic bookkeeping inside the recursions: limits, cache growth, progress.
    #[inline]
    fn tick(&mut self, level: usize) -> bool {
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
    fn purge_caches(&mut self) {
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
    fn collect(&mut self, keep: &[NodeId]) {
        if self.forest.maybe_gc(keep) {
            self.purge_caches();
        }
    }

    // ------------------------------------------------------------------------------ saturation

    /// SaturateF (thesis Figure 2.10): the least fixpoint of `s` (a node at level `k`) under every
    /// event whose Top is at most `k`.
    pub fn saturate(&mut self, k: usize, s: NodeId) -> NodeId {
        if k == 0 || s.is_empty() {
            return s;
        }
        if let Some(r) = self.sat_cache.get(s) {
            return r;
        }
        if self.tick(k) {
            return NodeId::EMPTY;
        }
        self.frames[k].src = s;
        let n = self.forest.edges(s).len();
        self.work += n as u64 + 1;
        for x in 0..n {
            let e = self.forest.edges(self.frames[k].src)[x];
            if self.index_too_large(e.idx as usize) {
                break;
            }
            let c = self.saturate(k - 1, e.child);
            self.frames[k].set(e.idx as usize, c);
        }
        if self.interrupted.is_none() {
            self.local_fixpoint(k);
        }
        if self.interrupted.is_some() {
            // a partial result: never cached, never returned as an answer
            self.frames[k].release();
            return NodeId::EMPTY;
        }
        let s = self.frames[k].src;
        let r = self.forest.make_node_dense(k, &self.frames[k].buf);
        self.frames[k].release();
        self.sat_cache.insert(s, r);
        self.sat_cache.insert(r, r);
        r
    }

    /// Fire every event with Top = `k` on the node under construction in frame `k` until nothing
    /// changes, re-firing only from local states whose child grew (Meddly's queue of changes).
    /// This is the engine's only safe point for garbage collection (see [`Reach::collect_in_flight`]).
    fn local_fixpoint(&mut self, k: usize) {
        if self.by_top[k].is_empty() {
            return;
        }
        let evs = std::mem::take(&mut self.by_top[k]);
        {
            let fr = &mut self.frames[k];
            fr.queued.clear();
            fr.queued.resize(fr.buf.len(), false);
            fr.queue.clear();
            for (i, c) in fr.buf.iter().enumerate().rev() {
                if !c.is_empty() {
                    fr.queue.push(i as u32);
                    fr.queued[i] = true;
                }
            }
        }
        let cap = self.cap[k];
        while let Some(i) = self.frames[k].queue.pop() {
            self.frames[k].queued[i as usize] = false;
            // an unbounded level grows here forever: the limits are checked in this loop too
            if self.tick(k) {
                break;
            }
            if self.forest.gc_due() {
                self.collect_in_flight();
            }
            if self.rels.is_some() {
                for &e in &evs {
                    self.fire_relation_at(e, k, i, cap);
                }
                if self.interrupted.is_some() {
                    break;
                }
                continue;
            }
            for &e in &evs {
                let (fired, single) = {
                    let ev = &self.events[e as usize];
                    (ev.parts[0].1.fire(i), ev.parts.len() == 1)
                };
                let Some(j) = fired else { continue };
                if j >= cap {
                    continue;
                }
                let src = self.frames[k].buf[i as usize];
                let r = if single {
                    src
                } else {
                    self.rec_fire(e, k - 1, src, 1)
                };
                self.merge_into_frame(k, j as usize, r);
            }
            if self.interrupted.is_some() {
                break;
            }
        }
        self.by_top[k] = evs;
    }

    /// Garbage collection in the middle of saturation, at the safe point of
    /// [`Reach::local_fixpoint`]: every node the recursion still holds lives in a frame (the node
    /// being saturated or fired on, and the children built so far), so the frames are the roots.
    /// Compute-cache entries over collected nodes are purged; the rest stay.
    fn collect_in_flight(&mut self) {
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

    /// RecFire / RelProdSat (Figure 2.10): fire event `e` on the saturated node `q` at level `l`
    /// (the event's parts from index `pi` on lie at or below `l`) and saturate the result.
    fn rec_fire(&mut self, e: u32, l: usize, q: NodeId, pi: usize) -> NodeId {
        if q.is_empty() {
            return q;
        }
        if let Some(r) = self.fire_cache.get((e, q)) {
            return r;
        }
        if self.tick(l) {
            return NodeId::EMPTY;
        }
        self.stats.firings += 1;
        let (part, next_pi, last) = {
            let ev = &self.events[e as usize];
            if ev.parts[pi].0 as usize == l {
                (
                    Some(ev.parts[pi].1.clone()),
                    pi + 1,
                    pi + 1 == ev.parts.len(),
                )
            } else {
                (None, pi, false)
            }
        };
        let cap = self.cap[l];
        self.frames[l].src = q;
        let n = self.forest.edges(q).len();
        self.work += n as u64 + 1;
        for x in 0..n {
            let ed = self.forest.edges(self.frames[l].src)[x];
            let j = match &part {
                None => ed.idx,
                Some(f) => match f.fire(ed.idx) {
                    Some(j) if j < cap => j,
                    _ => continue,
                },
            };
            if self.index_too_large(j as usize) {
                break;
            }
            let r = if last {
                ed.child
            } else {
                self.rec_fire(e, l - 1, ed.child, next_pi)
            };
            if r.is_empty() {
                continue;
            }
            let j = j as usize;
            let old = self.frames[l].get(j);
            let u = self.forest.union(old, r);
            self.frames[l].set(j, u);
        }
        if self.interrupted.is_none() {
            self.local_fixpoint(l);
        }
        if self.interrupted.is_some() {
            self.frames[l].release();
            return NodeId::EMPTY;
        }
        let q = self.frames[l].src;
        let r = self.forest.make_node_dense(l, &self.frames[l].buf);
        self.frames[l].release();
        self.fire_cache.insert((e, q), r);
        self.sat_cache.insert(r, r);
        r
    }

    /// Add to frame `k`, in place, the successors of local state `i` under the relation of
    /// event `e` (Top `k`): `buf[j] ∪= RecFire(buf[i], r[i][j])` for each `j`, queueing the
    /// local states whose child grew.
    fn fire_relation_at(&mut self, e: u32, k: usize, i: u32, cap: u32) {
        // Local states of level k found by this fixpoint are in the frame, not yet in a node:
        // declare them, so the relation is (re)built to cover them.
        let len = self.frames[k].buf.len() as u32;
        if self.forest.domain(k) < len {
            self.forest.set_domain(k, len);
        }
        let r = self.fresh_relation(e);
        // A snapshot: states added to buf[i] meanwhile re-queue i and are fired then, with a
        // relation covering them.
        let src = self.frames[k].buf[i as usize];
        if r.is_empty() || src.is_empty() {
            return;
        }
        let mut succ = std::mem::take(&mut self.rel_bufs[k]);
        self.rel_successors(r, k, i, cap, &mut succ);
        for &(j, r2) in &succ {
            let res = self.rec_fire_rel(k - 1, src, r2);
            self.merge_into_frame(k, j as usize, res);
        }
        self.rel_bufs[k] = succ;
    }

    /// The successors of local state `i` of level `l` under the relation node `r` (an
    /// unprimed node at or below level `2l`), with the relation to apply below each:
    /// `(i, r)` when `r` skips level `l` (identity there), else the edges of `r[i]` below `cap`.
    fn rel_successors(&self, r: NodeId, l: usize, i: u32, cap: u32, out: &mut Vec<(u32, NodeId)>) {
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

    /// `buf[j] ∪= r` in frame `k`, queueing `j` if it grew.
    fn merge_into_frame(&mut self, k: usize, j: usize, r: NodeId) {
        if r.is_empty() || self.index_too_large(j) {
            return;
        }
        let old = self.frames[k].get(j);
        let u = self.forest.union(old, r);
        if u != old {
            let fr = &mut self.frames[k];
            fr.set(j, u);
            if fr.queued.len() <= j {
                fr.queued.resize(j + 1, false);
            }
            if !fr.queued[j] {
                fr.queued[j] = true;
                fr.queue.push(j as u32);
            }
        }
    }

    /// RelProdSat (Figure 2.10) with a relation MDD: the image of the saturated node `q` (level
    /// `l`) under the relation node `r` (an unprimed node at or below level `2l`, or ONE for the
    /// identity), saturated.
    fn rec_fire_rel(&mut self, l: usize, q: NodeId, r: NodeId) -> NodeId {
        if q.is_empty() || r.is_empty() {
            return NodeId::EMPTY;
        }
        if r == NodeId::ONE || l == 0 {
            // identity on every remaining level; q is saturated already
            return q;
        }
        if let Some(res) = self.rels.as_mut().and_then(|rm| rm.fire_cache.get((q, r))) {
            return res;
        }
        if self.tick(l) {
            return NodeId::EMPTY;
        }
        self.stats.firings += 1;
        let cap = self.cap[l];
        self.frames[l].src = q;
        let n = self.forest.edges(q).len();
        self.work += n as u64 + 1;
        let mut succ = std::mem::take(&mut self.rel_bufs[l]);
        for x in 0..n {
            let ed = self.forest.edges(self.frames[l].src)[x];
            self.rel_successors(r, l, ed.idx, cap, &mut succ);
            for &(j, r2) in &succ {
                if self.index_too_large(j as usize) {
                    break;
                }
                let res = self.rec_fire_rel(l - 1, ed.child, r2);
                if res.is_empty() {
                    continue;
                }
                let old = self.frames[l].get(j as usize);
                let u = self.forest.union(old, res);
                self.frames[l].set(j as usize, u);
            }
        }
        self.rel_bufs[l] = succ;
        if self.interrupted.is_none() {
            self.local_fixpoint(l);
        }
        if self.interrupted.is_some() {
            self.frames[l].release();
            return NodeId::EMPTY;
        }
        let q = self.frames[l].src;
        let res = self.forest.make_node_dense(l, &self.frames[l].buf);
        self.frames[l].release();
        if let Some(rm) = self.rels.as_mut() {
            rm.fire_cache.insert((q, r), res);
        }
        self.sat_cache.insert(res, res);
        res
    }

    // ------------------------------------------------------------------------------ BFS

    /// The image of `q` (a node at level `l`) under event `e` alone, without saturation.
    fn image_event(&mut self, e: u32, l: usize, q: NodeId, pi: usize) -> NodeId {
        if q.is_empty() {
            return q;
        }
        let (part, next_pi) = {
            let ev = &self.events[e as usize];
            if pi == ev.parts.len() {
                return q;
            }
            if ev.parts[pi].0 as usize == l {
                (Some(ev.parts[pi].1.clone()), pi + 1)
            } else {
                (None, pi)
            }
        };
        if let Some(r) = self.img_cache.get((e, q)) {
            return r;
        }
        if self.tick(l) {
            return NodeId::EMPTY;
        }
        let cap = self.cap[l];
        let mut fr = std::mem::take(&mut self.frames[l]);
        let n = self.forest.edges(q).len();
        self.work += n as u64 + 1;
        for x in 0..n {
            let ed = self.forest.edges(q)[x];
            let j = match &part {
                None => ed.idx,
                Some(f) => match f.fire(ed.idx) {
                    Some(j) if j < cap => j,
                    _ => continue,
                },
            };
            if self.index_too_large(j as usize) {
                break;
            }
            let r = self.image_event(e, l - 1, ed.child, next_pi);
            if r.is_empty() {
                continue;
            }
            let j = j as usize;
            if fr.buf.len() <= j {
                fr.buf.resize(j + 1, NodeId::EMPTY);
            }
            fr.buf[j] = self.forest.union(fr.buf[j], r);
        }
        if self.interrupted.is_some() {
            fr.buf.clear();
            self.frames[l] = fr;
            return NodeId::EMPTY;
        }
        let r = self.forest.make_node_dense(l, &fr.buf);
        fr.buf.clear();
        self.frames[l] = fr;
        self.img_cache.insert((e, q), r);
        r
    }

    /// `N(s)` (or `P(s)` backward): the relational product of Figure 2.8 with the whole
    /// next-state function, partitioned by Top (see [`Reach::image_all`]).
    pub fn image(&mut self, s: NodeId) -> NodeId {
        let k = self.forest.num_levels();
        if self.rels.is_some() {
            // relational products of Figure 2.8, one per event relation
            let mut acc = NodeId::EMPTY;
            for e in 0..self.events.len() as u32 {
                let r = self.fresh_relation(e);
                let Some(rm) = self.rels.as_ref() else { break };
                let img = saturn_dd::image(&mut self.forest, &rm.forest, s, r);
                acc = self.forest.union(acc, img);
            }
            return acc;
        }
        let mut acc = self.image_all(k, s);
        if self.events.iter().any(|e| e.top == 0) {
            // an event with empty support maps every state to itself
            acc = self.forest.union(acc, s);
        }
        acc
    }

    /// The image of `q` (a node at level `l`) under `N_{<=l}`, the union of the events whose
    /// Top is at most `l`: below `l` by recursion on the children (events with a lower Top
    /// leave level `l` unchanged), at `l` by firing each event with Top `l`. Every node of
    /// the set is visited once per image, whatever the number of events.
    fn image_all(&mut self, l: usize, q: NodeId) -> NodeId {
        if l == 0 || q.is_empty() {
            return NodeId::EMPTY;
        }
        if let Some(r) = self.img_all_cache.get(q) {
            return r;
        }
        if self.tick(l) {
            return NodeId::EMPTY;
        }
        let mut buf = std::mem::take(&mut self.img_bufs[l]);
        buf.clear();
        let n = self.forest.edges(q).len();
        self.work += n as u64 + 1;
        for x in 0..n {
            let ed = self.forest.edges(q)[x];
            if self.index_too_large(ed.idx as usize) {
                break;
            }
            let r = self.image_all(l - 1, ed.child);
            if r.is_empty() {
                continue;
            }
            let i = ed.idx as usize;
            if buf.len() <= i {
                buf.resize(i + 1, NodeId::EMPTY);
            }
            buf[i] = self.forest.union(buf[i], r);
        }
        let evs = std::mem::take(&mut self.by_top[l]);
        for &e in &evs {
            let r = self.image_event(e, l, q, 0);
            let m = self.forest.edges(r).len();
            for x in 0..m {
                let ed = self.forest.edges(r)[x];
                let j = ed.idx as usize;
                if self.index_too_large(j) {
                    break;
                }
                if buf.len() <= j {
                    buf.resize(j + 1, NodeId::EMPTY);
                }
                buf[j] = self.forest.union(buf[j], ed.child);
            }
        }
        self.by_top[l] = evs;
        if self.interrupted.is_some() {
            buf.clear();
            self.img_bufs[l] = buf;
            return NodeId::EMPTY;
        }
        let r = self.forest.make_node_dense(l, &buf);
        buf.clear();
        self.img_bufs[l] = buf;
        self.img_all_cache.insert(q, r);
        r
    }

    /// Figure 2.9 (and its frontier variant).
    fn bfs(&mut self, init: NodeId, frontier: bool) -> Result<NodeId, Interrupted> {
        let mut s = init;
        let mut f = init;
        loop {
            self.stats.iterations += 1;
            let img = self.image(if frontier { f } else { s });
            if let Some(i) = self.interrupted {
                return Err(i);
            }
            let next = self.forest.union(s, img);
            if frontier {
                f = self.forest.minus(img, s);
            }
            if next == s {
                break;
            }
            s = next;
            if let Some(p) = self.progress.as_mut() {
                p(&format!("BFS iteration {}", self.stats.iterations));
            }
            self.collect(&[s, f, init]);
            if let Err(i) = self.limits.check() {
                return Err(i);
            }
        }
        Ok(s)
    }
}
