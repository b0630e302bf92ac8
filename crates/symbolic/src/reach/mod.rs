//! State-space generation: BFS (thesis Figure 2.9), BFS with a frontier set, saturation
//! (Figure 2.10) and constrained saturation (Figure 3.3), forward or backward, on a shared
//! [`Dd`] context.
//!
//! A [`Reach`] borrows the context (`&mut Dd`): its results are nodes of the context's set
//! forest, so forward and backward searches and constraint sets share node ids. Its compute
//! caches are registered with the context, so any collection purges them by the context's one
//! rule. Within one top-level call the engine checks its caches out and works on a [`kernel`]
//! that holds the context, the caches and its own state directly (no lookups through the
//! context in the hot loops).
//!
//! Next-state functions are applied *implicitly* by default: an event is a product of local
//! functions (`saturn_model::LocalFn`), and firing it on an MDD node walks the node from the
//! event's Top down to its bottom level, mapping local states on the way (Meddly's "implicit
//! relation"). Or through relation MDDs ([`Relations::Mdd`]) built on the fly in the context's
//! relation forest. Both go through the same firing walk. Local domains grow as firing
//! discovers new local states (the forest's domains follow the node indices).

use saturn_dd::{CacheSlot, Dd, NodeId};
use saturn_model::{GeneralModel, LocalFn, Model};

use crate::limits::{Interrupted, Limits, Progress};

mod bfs;
mod caches;
mod events;
mod groups;
mod kernel;
mod limits;
mod search;
mod select;

use caches::EngineCaches;
use events::{reverse_local, Ev, GeneralSource, RelMdds};
use groups::Groups;
use kernel::{Free, Kernel, Within};
pub use search::Search;

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
    /// Both, as candidates of a portfolio ([`crate::statespace::generate_portfolio`]): each
    /// order is tried with implicit events and with relation MDDs. Implicit firing is the
    /// faster on nets with few events per level; the union of the relations with the same Top
    /// (Figure 2.10's `N_k`) wins by orders of magnitude where many events share a Top
    /// (ARMCacheCoherence: 33,676 transitions over 87 places). Outside a portfolio: implicit.
    Auto,
}

impl Relations {
    pub fn name(self) -> &'static str {
        match self {
            Relations::Implicit => "implicit",
            Relations::Mdd => "mdd",
            Relations::Auto => "auto",
        }
    }
    pub fn parse(s: &str) -> Option<Relations> {
        match s {
            "implicit" => Some(Relations::Implicit),
            "mdd" => Some(Relations::Mdd),
            "auto" => Some(Relations::Auto),
            _ => None,
        }
    }
}

/// Forward (successors, `N`) or backward (predecessors, `P`) exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

/// Working storage for one recursion frame at one level (at most one frame per level is
/// active at any time, so one per level suffices). Everything a suspended recursion holds
/// lives in a frame, so the frames are the roots of a collection in the middle of saturation.
#[derive(Default)]
struct Frame {
    /// The node this frame reads (saturates or fires on); EMPTY when the frame is idle.
    src: NodeId,
    /// The constraint node of this level (EMPTY: unconstrained).
    cons: NodeId,
    /// The relation node this frame fires (EMPTY when firing implicitly).
    rel: NodeId,
    /// Where this level's marks start in [`Engine::queued`] while its local fixpoint runs.
    marks: u32,
    /// The children of the node under construction, dense by local index from `lo` on: a
    /// window, so a level whose local states are all large (thousands of tokens, or billions,
    /// in a place that never empties) costs its width, not its largest index.
    buf: Vec<NodeId>,
    /// The local index of `buf[0]`.
    lo: u32,
}

impl Frame {
    #[inline(always)]
    fn get(&self, i: usize) -> NodeId {
        // below the window, the wrapped offset is past its end
        self.buf
            .get(i.wrapping_sub(self.lo as usize))
            .copied()
            .unwrap_or(NodeId::EMPTY)
    }
    /// Would storing local index `i` make the window wider than `max` entries (it is at most
    /// `max` wide already)?
    #[inline(always)]
    fn too_wide(&self, i: usize, max: usize) -> bool {
        // at or above the window's start: as wide as `i - lo + 1` at most
        i.wrapping_sub(self.lo as usize) >= max && self.too_wide_slow(i, max)
    }
    #[cold]
    #[inline(never)]
    fn too_wide_slow(&self, i: usize, max: usize) -> bool {
        if self.buf.is_empty() {
            return false;
        }
        let lo = self.lo as usize;
        let hi = lo + self.buf.len();
        hi.max(i + 1) - lo.min(i) > max
    }
    /// `buf[i] = n`, widening the window as needed; returns how many entries were put before
    /// its old start (downward growth doubles the window at least, so it is amortised).
    #[inline(always)]
    fn set(&mut self, i: usize, n: NodeId) -> usize {
        let x = i.wrapping_sub(self.lo as usize);
        if x >= self.buf.len() {
            // at or past the end of a window: grow it upwards (below its start, the wrapped
            // offset is past any local index)
            if self.buf.is_empty() || x > u32::MAX as usize {
                return self.set_outside(i, n);
            }
            self.buf.resize(x + 1, NodeId::EMPTY);
        }
        self.buf[x] = n;
        0
    }
    /// [`Frame::set`] on an empty window (it starts at `i`) or below its start (and, for
    /// completeness, anywhere else).
    #[inline(never)]
    fn set_outside(&mut self, i: usize, n: NodeId) -> usize {
        let lo = self.lo as usize;
        if self.buf.is_empty() {
            self.lo = i as u32;
            self.buf.push(n);
            return 0;
        }
        if i < lo {
            let d = (lo - i).max(self.buf.len()).min(lo);
            self.buf.splice(0..0, std::iter::repeat_n(NodeId::EMPTY, d));
            self.lo = (lo - d) as u32;
            self.buf[i - (lo - d)] = n;
            return d;
        }
        self.buf
            .resize((i - lo + 1).max(self.buf.len()), NodeId::EMPTY);
        self.buf[i - lo] = n;
        0
    }
    fn release(&mut self) {
        self.buf.clear();
        self.lo = 0;
        self.src = NodeId::EMPTY;
        self.cons = NodeId::EMPTY;
        self.rel = NodeId::EMPTY;
    }
}

/// An event with Top `k`, as the local fixpoint at level `k` fires it.
#[derive(Clone, Copy)]
struct TopPart {
    e: u32,
    f: LocalFn,
    /// The event has no part below its Top.
    single: bool,
}

impl Engine {
    /// Level `l`'s image buffer (the buffers are made when BFS first needs them: saturation
    /// never does, and a model may have 60,000 levels).
    fn take_img_buf(&mut self, l: usize) -> Vec<NodeId> {
        self.img_bufs
            .get_mut(l)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn put_img_buf(&mut self, l: usize, buf: Vec<NodeId>) {
        if self.img_bufs.len() <= l {
            self.img_bufs.resize_with(l + 1, Vec::new);
        }
        self.img_bufs[l] = buf;
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

/// Everything an engine owns besides the context and its caches.
#[derive(Default)]
struct Engine {
    events: Vec<Ev>,
    /// `parts.at(e)`: event `e`'s local functions by level, highest first.
    parts: Groups<(u32, LocalFn)>,
    /// `levels.at(e)`: the levels event `e` reads or writes, highest first.
    levels: Groups<u32>,
    /// `by_top.at(k)`: events whose Top is level `k`.
    by_top: Groups<u32>,
    /// `top_parts[k]`: the same events with their local function at level `k` (the local
    /// fixpoint's hot loop reads them without going through the events).
    top_parts: Groups<TopPart>,
    /// Per level: local states beyond `cap[k]-1` are never produced (u32::MAX: unbounded).
    cap: Vec<u32>,
    frames: Vec<Frame>,
    /// The local fixpoints' queues of changed local states, as one stack: a fixpoint's
    /// segment starts where the stack stood when it began (fixpoints nest one level down at a
    /// time, and a level queues only while its fixpoint is the innermost). Kept in each frame,
    /// two vectors per level held about 100 bytes per level (6 MB on philosophers N=10000).
    queue: Vec<u32>,
    /// `queued[frame.marks + i - frame.lo]`: local state `i` of the fixpoint's level is in its
    /// queue.
    queued: Vec<bool>,
    /// Successors `(j, what to fire below)` of the local states being fired through relation
    /// MDDs, as one stack: each firing loop owns the range it pushed (in each frame before,
    /// a vector per level that implicit firing never used).
    succ: Vec<(u32, kernel::Tok)>,
    /// Child buffers of the BFS image, one per level.
    img_bufs: Vec<Vec<NodeId>>,
    limits: Limits,
    /// Local states at or beyond this index are never stored in a dense frame: reaching one
    /// stops the run with [`Interrupted::IndexTooLarge`] before the allocation is made.
    max_index: usize,
    interrupted: Option<Interrupted>,
    steps: u64,
    /// Work done: edges visited by the recursions (with the context's set-operation steps,
    /// what the step budget limits).
    work: u64,
    /// The part of `work` spent building relations: the events' own (a step per local state
    /// of their levels) and their unions (`N_k`).
    union_work: u64,
    step_budget: u64,
    /// `tick` does its periodic work when `steps & tick_mask == 0`.
    tick_mask: u64,
    progress: Option<Progress>,
    /// Relation MDDs, when events are applied through them.
    rels: Option<RelMdds>,
    /// General events, whose relations come from Shannon expansion (None: Petri-style events
    /// with local functions).
    general: Option<Box<GeneralSource>>,
    /// Fire only the events marked here ([`Reach::restrict_events`]).
    only: Option<Vec<bool>>,
    /// How events were applied before [`Reach::cons_nsf`] installed fixed relations.
    restore: Option<Relations>,
    stats: ReachStats,
    /// `last_sat[k]`: the last node saturated at level `k` in this top-level call (EMPTY:
    /// none yet).
    last_sat: Vec<NodeId>,
    /// log10 of the most states proven reachable at a budget stop ([`Suspended::proven`]).
    proven: f64,
}

/// The state-space generator for one model, working on a borrowed [`Dd`] context.
///
/// ```
/// use saturn_dd::Dd;
/// use saturn_symbolic::{Direction, Method, Reach};
/// let net = saturn_model::families::generate("philosophers", 3).unwrap();
/// let order = saturn_model::order::by_name(&net, "file").unwrap();
/// let model = net.to_model(&order).unwrap();
/// let mut dd = Dd::new(model.num_levels());
/// let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
/// let init = reach.state_set(&model.initial);
/// let states = reach.explore(init, Method::Saturation).unwrap();
/// let pin = reach.dd().pin(states); // keep the result across later collections
/// let bfs = reach.explore(init, Method::Bfs).unwrap();
/// assert_eq!(bfs, pin.get()); // one context: equal sets are one node
/// drop(reach);
/// assert!(dd.sets.cardinality(pin.get()) > 1u32.into());
/// ```
pub struct Reach<'d> {
    dd: &'d mut Dd,
    /// The engine's compute caches, registered with the context.
    slot: Option<CacheSlot<EngineCaches>>,
    eng: Engine,
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

impl<'d> Reach<'d> {
    /// A generator for `model` in the given direction, on the context `dd` (whose set forest
    /// must have the model's number of levels). For backward exploration of a model with
    /// unbounded local domains, pass `caps` (per level, from a forward run) so the potential
    /// state space stays finite.
    ///
    /// # Panics
    /// If the context's number of levels differs from the model's.
    pub fn new(dd: &'d mut Dd, model: &Model, dir: Direction, caps: Option<Vec<u32>>) -> Self {
        let k = model.num_levels();
        assert_eq!(
            dd.num_levels(),
            k,
            "the context and the model must have the same number of levels"
        );
        let mut events = Vec::with_capacity(model.events.len());
        let mut by_top = Vec::with_capacity(model.events.len());
        let mut parts = Groups::default();
        let mut levels = Groups::default();
        let mut top_parts = Vec::with_capacity(model.events.len());
        for e in &model.events {
            let local = |f: &LocalFn| match dir {
                Direction::Forward => *f,
                Direction::Backward => reverse_local(f),
            };
            let top = e.parts.first().map_or(0, |p| p.0 as u32);
            let id = events.len() as u32;
            by_top.push((top, id));
            if let Some((_, f)) = e.parts.first() {
                let single = e.parts.len() == 1;
                top_parts.push((
                    top,
                    TopPart {
                        e: id,
                        f: local(f),
                        single,
                    },
                ));
            }
            parts.push(e.parts.iter().map(|(l, f)| (*l as u32, local(f))));
            levels.push(e.parts.iter().map(|p| p.0 as u32));
            let r = parts.range(id as usize);
            events.push(Ev {
                top,
                first: r.start as u32,
                len: r.len() as u32,
            });
        }
        let by_top = Groups::new(k + 1, by_top);
        let top_parts = Groups::new(k + 1, top_parts);
        let mut cap = caps.unwrap_or_else(|| vec![u32::MAX; k + 1]);
        cap.resize(k + 1, u32::MAX);
        for (lvl, level) in model.levels.iter().enumerate() {
            if let Some(b) = level.bound {
                cap[lvl + 1] = cap[lvl + 1].min(b.saturating_add(1));
            }
        }
        Reach::with_engine(
            dd,
            Engine {
                events,
                parts,
                levels,
                by_top,
                top_parts,
                cap,
                ..Engine::default()
            },
        )
    }

    /// A forward generator for a model with general events (guards, updates and rates over
    /// several variables, e.g. a lowered PRISM program), variable `order[k-1]` at level `k`,
    /// on the context `dd`. Its events fire through relation MDDs built by Shannon expansion
    /// over their supports, on the fly over the local states known so far, united per Top
    /// (`N_k`); a local state of level `k` is `value - low` of its variable, and never
    /// exceeds the variable's range.
    ///
    /// # Panics
    /// If `order` is not a permutation of the model's variables, or the context's number of
    /// levels differs from the model's number of variables.
    pub fn general(dd: &'d mut Dd, model: &GeneralModel, order: &[usize]) -> Self {
        let k = model.vars.len();
        assert_eq!(dd.num_levels(), k, "one level per variable");
        assert_eq!(
            order.len(),
            k,
            "the order is a permutation of the variables"
        );
        let mut level_of = vec![0; k];
        for (i, &v) in order.iter().enumerate() {
            level_of[v] = i + 1;
        }
        let mut cap = vec![u32::MAX; k + 1];
        for (i, &v) in order.iter().enumerate() {
            cap[i + 1] = u32::try_from(model.vars[v].size()).unwrap_or(u32::MAX);
        }
        let mut events = Vec::with_capacity(model.events.len());
        let mut by_top = Vec::with_capacity(model.events.len());
        let mut parts = Groups::default();
        let mut support = Groups::default();
        for ev in &model.events {
            let mut levels: Vec<u32> = ev.support().iter().map(|&v| level_of[v] as u32).collect();
            levels.sort_unstable_by(|a, b| b.cmp(a));
            let top = levels.first().copied().unwrap_or(0);
            by_top.push((top, events.len() as u32));
            parts.push([]);
            support.push(levels);
            events.push(Ev {
                top,
                first: 0,
                len: 0,
            });
        }
        let by_top = Groups::new(k + 1, by_top);
        let top_parts = Groups::new(k + 1, Vec::new());
        let mut r = Reach::with_engine(
            dd,
            Engine {
                events,
                parts,
                levels: support,
                by_top,
                top_parts,
                cap,
                general: Some(Box::new(GeneralSource {
                    model: model.clone(),
                    level_of,
                    backward: false,
                })),
                ..Engine::default()
            },
        );
        r.set_relations(Relations::Mdd);
        r
    }

    /// The generator over `eng` (events, Tops and caps filled in), its caches registered.
    fn with_engine(dd: &'d mut Dd, eng: Engine) -> Self {
        let k = dd.num_levels();
        let slot = Some(dd.register(EngineCaches::new()));
        Reach {
            dd,
            slot,
            eng: Engine {
                frames: (0..=k).map(|_| Frame::default()).collect(),
                img_bufs: Vec::new(),
                limits: Limits::none(),
                max_index: max_dense_index(None),
                step_budget: u64::MAX,
                tick_mask: 0xfff,
                ..eng
            },
        }
    }

    /// The context this engine works on.
    pub fn dd(&self) -> &Dd {
        self.dd
    }

    /// The context, mutably (set operations, pins, collections: the engine's caches are
    /// registered with it, so a collection keeps them valid).
    pub fn dd_mut(&mut self) -> &mut Dd {
        self.dd
    }

    /// Counters of the runs so far.
    pub fn stats(&self) -> ReachStats {
        self.eng.stats
    }

    /// The set holding the single state `state` (`state[k-1]` is level `k`'s local state).
    pub fn state_set(&mut self, state: &[u32]) -> NodeId {
        self.dd.sets.singleton(state)
    }

    /// Run `f` on a kernel holding the context, the engine's caches (checked out of the
    /// context for the duration) and its state.
    fn with_kernel<R>(&mut self, f: impl FnOnce(&mut Kernel<'_>) -> R) -> R {
        let slot = self.slot.as_ref().expect("caches registered");
        let c = self.dd.take(slot);
        let mut k = Kernel {
            dd: &mut *self.dd,
            c,
            e: std::mem::take(&mut self.eng),
        };
        k.e.interrupted = None;
        // the nodes of an earlier call may have been collected since
        k.e.last_sat.clear();
        let r = f(&mut k);
        if k.e.interrupted == Some(Interrupted::Budget) {
            k.e.proven = k.e.proven.max(k.proven_now());
        }
        let Kernel { c, e, .. } = k;
        self.eng = e;
        self.dd.put(slot, c);
        r
    }

    /// The states reachable from `init` (or reaching it, backward) with the given method.
    /// The result is not pinned: pin it ([`Dd::pin`]) before the next collection.
    pub fn explore(&mut self, init: NodeId, method: Method) -> Result<NodeId, Interrupted> {
        self.with_kernel(|k| match method {
            Method::Saturation => {
                let top = k.dd.num_levels();
                let r = k.saturate(top, Free, init);
                k.finish(r)
            }
            Method::Bfs => k.bfs(init, false).and_then(|r| k.finish(r)),
            Method::BfsFrontier => k.bfs(init, true).and_then(|r| k.finish(r)),
        })
    }

    /// Saturate (thesis Figure 2.10): every state reachable from `s` (reaching `s`, backward).
    pub fn saturate(&mut self, s: NodeId) -> Result<NodeId, Interrupted> {
        self.explore(s, Method::Saturation)
    }

    /// ConsSaturate (thesis Figure 3.3): `s` together with every state reachable from it
    /// (reaching it, backward) along paths whose every state after the first lies in the
    /// constraint set `a`. Firings that leave `a` are cut at every level. `EU(a, b)` is the
    /// backward `cons_saturate(a, b)` intersected with the reachable states.
    pub fn cons_saturate(&mut self, a: NodeId, s: NodeId) -> Result<NodeId, Interrupted> {
        self.with_kernel(|k| {
            let top = k.dd.num_levels();
            let r = k.saturate(top, Within(a), s);
            k.finish(r)
        })
    }

    /// `N(s)` (or `P(s)` backward): one step of the whole next-state function.
    pub fn image(&mut self, s: NodeId) -> Result<NodeId, Interrupted> {
        self.with_kernel(|k| {
            let r = k.image(s);
            k.finish(r)
        })
    }
}

/// An engine put aside between two top-level calls ([`Reach::suspend`]): its compute caches stay
/// registered with its context (so collections keep purging them) and its counters (work
/// done, the step budget) go on when it is resumed ([`Reach::resume`]) on the same context.
/// Saturation resumed after a [`Interrupted::Budget`] stop finds the sub-results it finished
/// in its caches instead of computing them again. Drop it with (or before) its context.
pub struct Suspended {
    slot: Option<CacheSlot<EngineCaches>>,
    eng: Engine,
}

impl Suspended {
    /// log10 of the number of states this attempt has proven reachable so far, measured at
    /// each budget stop (`Kernel::proven_now`): in a forward run from the initial state, a
    /// lower bound on the state count, which is the same for every order and event mode, so
    /// that attempts can be compared by it (the portfolio does).
    pub fn proven(&self) -> f64 {
        self.eng.proven
    }

    /// The recursions' work so far (the budget also counts the context's set-operation steps)
    /// and the part of it spent building relations (the events' own and their unions `N_k`).
    pub fn work(&self) -> (u64, u64) {
        (self.eng.work, self.eng.union_work)
    }

    /// A suspended engine that did `work` steps, `unions` of them on building relations (for
    /// the portfolio's tests).
    #[cfg(test)]
    pub(crate) fn with_work(work: u64, unions: u64) -> Suspended {
        Suspended {
            slot: None,
            eng: Engine {
                work,
                union_work: unions,
                ..Engine::default()
            },
        }
    }
}

impl<'d> Reach<'d> {
    /// Put the engine aside, keeping its caches in the context (see [`Suspended`]).
    pub fn suspend(mut self) -> Suspended {
        Suspended {
            slot: self.slot.take(),
            eng: std::mem::take(&mut self.eng),
        }
    }

    /// Take up an engine put aside by [`Reach::suspend`], on the context it worked on.
    pub fn resume(dd: &'d mut Dd, s: Suspended) -> Reach<'d> {
        Reach {
            dd,
            slot: s.slot,
            eng: s.eng,
        }
    }
}

impl Drop for Reach<'_> {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            self.dd.unregister(slot);
        }
        // relation pins are dropped with the engine, freeing its relations at the next
        // collection
    }
}
