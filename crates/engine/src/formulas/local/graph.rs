//! The reachability graph of the on-the-fly search, built as far as the searches ask: the
//! markings in a [`MarkingSet`] (each as its marked places), each state's successors computed
//! on its first visit, within a budget of bytes; the time and the caller's stop polled as it
//! grows.

use std::time::Instant;

use saturn_explicit::{Firing, MarkingSet};
use saturn_model::PetriNet;

use super::Cut;

/// The bytes a state costs beside its marking: its successors' range (8), its successors (4
/// each, a few) and its memos (a byte per temporal operator).
const PER_STATE: usize = 8 + 4 * 4 + 8;

pub(super) struct Graph<'a> {
    net: &'a PetriNet,
    set: MarkingSet,
    /// Per state: its successors in `succ` (`u32::MAX` as the start: not yet computed).
    span: Vec<(u32, u32)>,
    succ: Vec<u32>,
    firing: Firing,
    /// The most states.
    pub(super) most: usize,
    /// The state read last and its marking.
    read: (u32, Vec<u64>),
    /// Until when the current question may search.
    pub(super) until: Option<Instant>,
    polls: u32,
}

impl<'a> Graph<'a> {
    /// The graph of `net`'s initial marking (state 0), to grow within about `bytes`; `None`
    /// when not even that marking fits.
    pub(super) fn new(net: &'a PetriNet, bytes: usize) -> Option<Graph<'a>> {
        let m0 = net.initial_marking();
        let mut set = MarkingSet::new((bytes / 2).max(1 << 16));
        let s0 = set.insert(&m0).ok()?;
        debug_assert_eq!(s0, 0);
        Some(Graph {
            net,
            set,
            firing: Firing::new(net),
            span: vec![(u32::MAX, 0)],
            succ: Vec::new(),
            most: (bytes / 2 / PER_STATE).max(1),
            read: (0, m0),
            until: None,
            polls: 0,
        })
    }

    pub(super) fn net(&self) -> &'a PetriNet {
        self.net
    }

    /// The states built so far.
    #[cfg(test)]
    pub(super) fn states(&self) -> usize {
        self.span.len()
    }

    /// The marking of state `s`.
    pub(super) fn marking(&mut self, s: u32) -> &[u64] {
        if self.read.0 != s {
            self.set.get(s, self.net.places.len(), &mut self.read.1);
            self.read.0 = s;
        }
        &self.read.1
    }

    /// The `k`th entry of the successor lists (see [`Graph::successors`]).
    pub(super) fn succ(&self, k: usize) -> u32 {
        self.succ[k]
    }

    /// The number of marking `m`, added when new (`Cut::States` past the most).
    pub(super) fn intern(&mut self, m: &[u64]) -> Result<u32, Cut> {
        let before = self.set.len();
        if before >= self.most {
            return self.set.find(m).ok_or(Cut::States);
        }
        let i = self.set.insert(m).map_err(|_| Cut::States)?;
        if self.set.len() > before {
            self.span.push((u32::MAX, 0));
        }
        Ok(i)
    }

    /// The numbers of `m`'s successors, added when new.
    fn expand(&mut self, m: &[u64]) -> Result<Vec<u32>, Cut> {
        let (mut enabled, mut fired) = (Vec::new(), Vec::new());
        self.firing.enabled(m, &mut enabled);
        let mut next = Vec::with_capacity(enabled.len());
        for t in enabled {
            // a count past 2^64 - 1: the graph cannot grow there
            self.firing
                .fire(t, m, &mut fired)
                .map_err(|_| Cut::States)?;
            next.push(self.intern(&fired)?);
        }
        Ok(next)
    }

    /// The successors of `s` (their range in the lists read by [`Graph::succ`]), computed on
    /// first use.
    pub(super) fn successors(
        &mut self,
        s: u32,
        stop: &dyn Fn() -> bool,
    ) -> Result<(usize, usize), Cut> {
        // every visit polls, a state seen before too: a search over a region built earlier
        // expands nothing new
        self.polls = self.polls.wrapping_add(1);
        if self.polls.is_multiple_of(128)
            && (stop() || self.until.is_some_and(|u| Instant::now() >= u))
        {
            return Err(Cut::Time);
        }
        let (start, len) = self.span[s as usize];
        if start != u32::MAX {
            return Ok((start as usize, (start + len) as usize));
        }
        // the marking read stays where it is (no copy); the successors never read another
        self.marking(s);
        let m = std::mem::take(&mut self.read.1);
        let next = self.expand(&m);
        self.read.1 = m;
        let mut next = next?;
        next.sort_unstable();
        next.dedup();
        let start = self.succ.len();
        self.succ.extend_from_slice(&next);
        self.span[s as usize] = (start as u32, next.len() as u32);
        Ok((start, start + next.len()))
    }
}
