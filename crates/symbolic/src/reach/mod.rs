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

mod bfs;
mod events;
mod limits;
mod saturation;

use events::{reverse_local, Ev, RelMdds};

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

/// Forward (successors, `N`) or backward (predecessors, `P`) exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
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
}
