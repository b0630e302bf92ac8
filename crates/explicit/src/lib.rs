//! Explicit-state exploration of P/T nets: the contest's StateSpace figures (states, edges of
//! the reachability graph, the most tokens in a place and in a marking) by breadth-first search
//! over packed markings.
//!
//! Decision diagrams win when the state space is huge and regular; some nets have a few million
//! markings or fewer but no variable order that keeps their diagrams small (N-queens, peg
//! solitaire, unfolded coloured nets with tens of thousands of places). There a plain search
//! answers in seconds, so the CLI races this engine against saturation (`crates/engine/src/race.rs`).
//!
//! Each marking is stored once, packed: every place gets a bit field as wide as its structural
//! bound needs (a safe place takes one bit), or [`Config::unknown_width`] bits when no bound is
//! known, widened (every marking repacked) when a count outgrows it. The markings sit side by
//! side in one array in the order found, which is also the search's queue; a hash table holds
//! their indices. The search stops cleanly before the markings would outgrow
//! [`Config::max_bytes`] (checked before anything grows) or when the caller's `stop` says so;
//! it never prints.

mod bytes_store;
mod layout;
mod marking_set;
mod sparse;
mod store;
mod table;

use layout::{bits, Layout};
pub use marking_set::MarkingSet;
use saturn_model::PetriNet;
use store::Store;

/// Budgets of an exploration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Give up ([`GaveUp::Memory`]) once the stored markings and their table take more bytes.
    pub max_bytes: usize,
    /// Bits of a place without a structural bound, until one of its counts needs more.
    pub unknown_width: u8,
    /// How markings are stored.
    pub packing: Packing,
}

/// How an exploration stores its markings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// Sparse when the initial marking's sparse record is less than half its packed size (nets
    /// with thousands of places and few tokens), else packed.
    Auto,
    /// Every place's count in a bit field of its own width ([`Config::unknown_width`] bits for
    /// a place without a bound, widened as counts grow).
    Packed,
    /// The marked places only, each as its gap from the previous one and its count.
    Sparse,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_bytes: 1 << 30,
            unknown_width: 2,
            packing: Packing::Auto,
        }
    }
}

/// The contest's StateSpace figures of a net.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Reachable markings.
    pub states: u64,
    /// Edges of the reachability graph: pairs of a reachable marking and a transition enabled
    /// in it.
    pub transitions: u64,
    /// The most tokens in one place of a reachable marking.
    pub max_tokens_place: u64,
    /// The most tokens in all places of a reachable marking.
    pub max_tokens_marking: u64,
}

/// Why an exploration gave up (never a wrong answer: there is none then).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GaveUp {
    #[error("the markings outgrew the budget of {max_bytes} bytes")]
    Memory { max_bytes: usize },
    #[error("stopped by the caller")]
    Stopped,
    #[error("a token count does not fit in 64 bits")]
    Overflow,
    #[error("more than 2^32 - 2 markings")]
    TooManyStates,
}

/// Check the stop condition once per this much work (places decoded, transitions tried, words
/// of successors hashed): a few milliseconds, whatever the size of the net (a marking of a net
/// with 32,000 transitions may take a thousand times longer to expand than one of a small net).
const CHECK_EVERY: u64 = 1 << 22;

/// A progress line every this many stop checks.
const REPORT_EVERY: u64 = 64;

/// When a search checks its stop condition (once per [`CHECK_EVERY`] work) and reports (once per
/// [`REPORT_EVERY`] checks).
struct Pace {
    work: u64,
    checks: u64,
}

impl Pace {
    fn new() -> Pace {
        Pace {
            work: CHECK_EVERY,
            checks: 0,
        }
    }

    #[inline]
    fn add(&mut self, work: usize) {
        self.work += work as u64;
    }

    /// Stop when the caller says so; now and then report the markings `found`, `expanded` and
    /// the store's `bytes` (`what`: the kind of search).
    #[inline]
    fn check(
        &mut self,
        stop: &dyn Fn() -> bool,
        progress: &mut dyn FnMut(&str),
        what: &str,
        (found, expanded, bytes): (usize, usize, usize),
    ) -> Result<(), GaveUp> {
        if self.work < CHECK_EVERY {
            return Ok(());
        }
        if stop() {
            return Err(GaveUp::Stopped);
        }
        if self.checks.is_multiple_of(REPORT_EVERY) {
            progress(&format!(
                "{what}: {found} markings found, {expanded} expanded, {} MiB",
                bytes >> 20
            ));
        }
        (self.work, self.checks) = (0, self.checks + 1);
        Ok(())
    }
}

/// One transition, ready to fire on unpacked markings.
struct Trans {
    inputs: Vec<(usize, u64)>,
    inhibitors: Vec<(usize, u64)>,
    /// Per place touched: tokens taken, tokens put.
    delta: Vec<(usize, u64, u64)>,
}

impl Trans {
    #[inline]
    fn enabled(&self, m: &[u64]) -> bool {
        self.inputs.iter().all(|&(p, w)| m[p] >= w)
            && self.inhibitors.iter().all(|&(p, w)| m[p] < w)
    }
}

/// The transitions, and which to try in a marking: those whose key input place is marked, and
/// those without inputs. The key is the input of largest weight, and among those the place
/// fewest transitions take from (the least likely to be marked: on an unfolded coloured net
/// whose places have up to 600 takers, the search took 3.8 s instead of 24 s).
struct Compiled {
    trans: Vec<Trans>,
    by_key: Vec<Vec<u32>>,
    free: Vec<u32>,
}

fn compile(net: &PetriNet) -> Compiled {
    let mut by_key = vec![Vec::new(); net.places.len()];
    let mut free = Vec::new();
    // a place many transitions take from is likely a shared resource, marked in most markings
    let mut takers = vec![0usize; net.places.len()];
    for a in net.transitions.iter().flat_map(|t| &t.inputs) {
        takers[a.place] += 1;
    }
    let trans = net
        .transitions
        .iter()
        .enumerate()
        .map(|(t, tr)| {
            let key = tr
                .inputs
                .iter()
                .max_by_key(|a| (a.weight, std::cmp::Reverse(takers[a.place])));
            match key {
                Some(a) => by_key[a.place].push(t as u32),
                None => free.push(t as u32),
            }
            let mut delta: Vec<(usize, u64, u64)> = Vec::new();
            for a in &tr.inputs {
                delta.push((a.place, a.weight, 0));
            }
            for a in &tr.outputs {
                match delta.iter_mut().find(|d| d.0 == a.place) {
                    Some(d) => d.2 += a.weight,
                    None => delta.push((a.place, 0, a.weight)),
                }
            }
            // a place taken from and given back as much is unchanged
            delta.retain(|d| d.1 != d.2);
            // in place order (the sparse search merges it with a marking's marked places)
            delta.sort_unstable_by_key(|d| d.0);
            Trans {
                inputs: tr.inputs.iter().map(|a| (a.place, a.weight)).collect(),
                inhibitors: tr.inhibitors.iter().map(|a| (a.place, a.weight)).collect(),
                delta,
            }
        })
        .collect();
    Compiled {
        trans,
        by_key,
        free,
    }
}

/// A net's transitions compiled for firing on plain markings, for searches outside this crate
/// (the formulas' on-the-fly CTL graph): the same keys as this crate's searches (only the
/// transitions whose key input place is marked, and those without inputs, are tried) and
/// checked token counts.
pub struct Firing(Compiled);

impl Firing {
    pub fn new(net: &PetriNet) -> Firing {
        Firing(compile(net))
    }

    /// The transitions enabled in `m`, into `out` (cleared first).
    pub fn enabled(&self, m: &[u64], out: &mut Vec<u32>) {
        let c = &self.0;
        out.clear();
        let keyed = m.iter().enumerate().filter(|&(_, &v)| v > 0);
        let cands = keyed.flat_map(|(p, _)| &c.by_key[p]).chain(&c.free);
        out.extend(cands.filter(|&&t| c.trans[t as usize].enabled(m)));
    }

    /// `m` after firing `t` (enabled in `m`), into `out`; [`GaveUp::Overflow`] when a count
    /// would pass 2^64 - 1.
    pub fn fire(&self, t: u32, m: &[u64], out: &mut Vec<u64>) -> Result<(), GaveUp> {
        out.clear();
        out.extend_from_slice(m);
        for &(p, sub, add) in &self.0.trans[t as usize].delta {
            out[p] = (m[p] - sub).checked_add(add).ok_or(GaveUp::Overflow)?;
        }
        Ok(())
    }
}

/// The bits of each place's field at the start of [`explore`] (fields only widen later).
fn widths(net: &PetriNet, bounds: &[Option<u64>], cfg: &Config) -> Vec<u8> {
    let m0 = net.initial_marking();
    (0..net.places.len())
        .map(|p| {
            let b = bounds.get(p).copied().flatten();
            bits(m0[p]).max(b.map_or(cfg.unknown_width, bits))
        })
        .collect()
}

/// The most markings [`explore`] can store within `cfg.max_bytes`: each takes its packed words
/// and more than a word of the table (kept at most three quarters full), and fields only
/// widen, so a net with more reachable markings makes it give up, however long it runs.
pub fn most_markings(net: &PetriNet, bounds: &[Option<u64>], cfg: &Config) -> u64 {
    let most = if sparse_wins(net, bounds, cfg) {
        sparse::most_markings(cfg.max_bytes)
    } else {
        let words = Layout::new(widths(net, bounds, cfg)).words as u64;
        cfg.max_bytes as u64 / (8 * (words + 1))
    };
    most.min(u64::from(u32::MAX))
}

/// Does the search store sparse markings ([`Packing`])?
fn sparse_wins(net: &PetriNet, bounds: &[Option<u64>], cfg: &Config) -> bool {
    match cfg.packing {
        Packing::Packed => false,
        Packing::Sparse => true,
        Packing::Auto => {
            let packed = Layout::new(widths(net, bounds, cfg)).words * 8;
            2 * sparse::record_len(&net.initial_marking()) + 8 < packed
        }
    }
}

/// Explore the reachable markings of `net` breadth first and count the StateSpace figures.
///
/// `bounds[p]` (when `Some`) must be an upper bound on place `p`'s tokens in every reachable
/// marking, e.g. a structural one; it sets the width of the place's field. A shorter slice
/// leaves the remaining places without bounds.
///
/// `progress` receives a one-line account now and then (markings found and expanded, bytes).
pub fn explore(
    net: &PetriNet,
    bounds: &[Option<u64>],
    cfg: &Config,
    stop: &dyn Fn() -> bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Counts, GaveUp> {
    explore_visiting(net, bounds, cfg, stop, progress, &mut |_, _| false)
}

/// What [`explore_visiting`] tells its visitor about each reachable marking, once, when it is
/// expanded: the marking (a count per place) and whether it is a deadlock (no transition
/// enabled). The visitor returns `true` to stop the search ([`GaveUp::Stopped`]).
pub type Visit<'a> = dyn FnMut(&[u64], bool) -> bool + 'a;

/// [`explore`], with every reachable marking shown to `visit` (for the formula examinations:
/// atoms evaluated on markings).
pub fn explore_visiting(
    net: &PetriNet,
    bounds: &[Option<u64>],
    cfg: &Config,
    stop: &dyn Fn() -> bool,
    progress: &mut dyn FnMut(&str),
    visit: &mut Visit<'_>,
) -> Result<Counts, GaveUp> {
    let np = net.places.len();
    let c = compile(net);
    let m0 = net.initial_marking();
    if sparse_wins(net, bounds, cfg) {
        return sparse::explore_sparse(np, &c, &m0, cfg, stop, progress, visit);
    }
    let widths = widths(net, bounds, cfg);
    let unknown: Vec<bool> = (0..np)
        .map(|p| bounds.get(p).copied().flatten().is_none())
        .collect();
    let mut layout = Layout::new(widths);
    let mut store = Store::new(layout.words, cfg.max_bytes);
    let mut rec = vec![0u64; layout.words];
    layout.encode(&m0, &mut rec);
    store.insert(&rec, store::hash(&rec))?;

    let mut m = vec![0u64; np];
    let mut cands: Vec<u32> = Vec::new();
    let (mut batch, mut hashes): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
    let (mut edges, mut max_place, mut max_sum) = (0u64, 0u64, 0u64);
    let (mut i, mut pace) = (0, Pace::new());
    while i < store.len() {
        let now = (store.len(), i, store.bytes());
        pace.check(stop, progress, "explicit search", now)?;
        rec.clear();
        rec.extend_from_slice(store.get(i));
        layout.decode(&rec, &mut m);
        cands.clear();
        for (p, &v) in m.iter().enumerate() {
            if v > 0 {
                cands.extend_from_slice(&c.by_key[p]);
            }
        }
        cands.extend_from_slice(&c.free);
        // the successors first, their table slots read together (their cache misses overlap),
        // then inserted
        batch.clear();
        hashes.clear();
        let mut grow = None;
        'fire: for &t in &cands {
            let tr = &c.trans[t as usize];
            if !tr.enabled(&m) {
                continue;
            }
            let at = batch.len();
            batch.extend_from_slice(&rec);
            for &(p, sub, add) in &tr.delta {
                let v = (m[p] - sub).checked_add(add).ok_or(GaveUp::Overflow)?;
                if !layout.fits(p, v) {
                    grow = Some((p, v));
                    break 'fire;
                }
                layout.set(&mut batch[at..], p, v);
            }
            let h = store::hash(&batch[at..]);
            store.touch(h);
            hashes.push(h);
        }
        if grow.is_none() {
            for (k, &h) in hashes.iter().enumerate() {
                let succ = &batch[k * layout.words..(k + 1) * layout.words];
                store.insert(succ, h)?;
            }
        }
        let local = hashes.len() as u64;
        pace.add(np + cands.len() + hashes.len() * layout.words);
        if let Some((p, v)) = grow {
            // repack every marking with a wider field for `p`, then expand marking `i` again
            (layout, store) = widen(&layout, &store, (p, v), &unknown, cfg, stop)?;
            rec.resize(layout.words, 0);
            continue;
        }
        if visit(&m, local == 0) {
            return Err(GaveUp::Stopped);
        }
        edges += local;
        let mut sum = 0u64;
        for &v in &m {
            max_place = max_place.max(v);
            sum = sum.saturating_add(v);
        }
        max_sum = max_sum.max(sum);
        i += 1;
    }
    Ok(Counts {
        states: store.len() as u64,
        transitions: edges,
        max_tokens_place: max_place,
        max_tokens_marking: max_sum,
    })
}

/// The markings of `store` repacked with place `p`'s field wide enough for `v`, at least
/// doubled, and every other place without a bound (`unknown`) and no wider doubled too: counts
/// of unbounded places tend to grow together, and each repack reads every marking, so a few
/// repacks in all rather than one per place. Gives up like the search (`stop`, the budget).
fn widen(
    layout: &Layout,
    store: &Store,
    (p, v): (usize, u64),
    unknown: &[bool],
    cfg: &Config,
    stop: &dyn Fn() -> bool,
) -> Result<(Layout, Store), GaveUp> {
    let np = unknown.len();
    let wp = layout.width(p);
    let w: Vec<u8> = (0..np)
        .map(|q| {
            let w = layout.width(q);
            if q == p {
                bits(v).max((2 * w).min(64))
            } else if unknown[q] && w <= wp {
                (2 * w).clamp(1, 64)
            } else {
                w
            }
        })
        .collect();
    let nl = Layout::new(w);
    let mut ns = Store::new(nl.words, cfg.max_bytes.saturating_sub(store.bytes()));
    let (mut m, mut rec) = (vec![0u64; np], vec![0u64; nl.words]);
    let mut work = 0u64;
    for i in 0..store.len() {
        work += np as u64;
        if work >= CHECK_EVERY {
            if stop() {
                return Err(GaveUp::Stopped);
            }
            work = 0;
        }
        layout.decode(store.get(i), &mut m);
        nl.encode(&m, &mut rec);
        ns.insert(&rec, store::hash(&rec)).map_err(|e| match e {
            // the new store's budget is what the old one leaves: report the search's
            GaveUp::Memory { .. } => GaveUp::Memory {
                max_bytes: cfg.max_bytes,
            },
            e => e,
        })?;
    }
    // the old store goes: the new one has the whole budget
    Ok((nl, ns.with_budget(cfg.max_bytes)))
}
