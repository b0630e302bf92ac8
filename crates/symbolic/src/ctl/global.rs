//! UpperBounds and the contest's five global properties, on the MDD of the reachable states.

use rustc_hash::FxHashSet;
use saturn_dd::NodeId;
use saturn_logic::{LinExpr, StateFormula};

use super::{Checker, CtlError};

/// The contest's global properties (its GenericProperties examinations), by their names:
/// `ReachabilityDeadlock` (some reachable marking enables no transition), `QuasiLiveness`
/// (every transition is enabled in some reachable marking), `Liveness` (from every reachable
/// marking every transition can become enabled), `OneSafe` (no place ever holds more than one
/// token), `StableMarking` (some place holds the same number of tokens in every reachable
/// marking).
pub const GLOBAL_PROPERTIES: [&str; 5] = [
    "ReachabilityDeadlock",
    "QuasiLiveness",
    "Liveness",
    "OneSafe",
    "StableMarking",
];

impl Checker<'_> {
    /// UpperBounds: the maximum of `expr` over the reachable states, by one bottom-up pass over
    /// the MDD (`None` when there is no reachable state).
    pub fn upper_bound(&self, expr: &LinExpr) -> Result<Option<i128>, CtlError> {
        let r = self.range(self.rch, expr)?;
        Ok(r.map(|(_, hi)| hi))
    }

    /// `ReachabilityDeadlock`.
    pub fn reachability_deadlock(&self) -> bool {
        !self.dead.is_empty()
    }

    /// `QuasiLiveness`: every one of the `transitions` events is enabled in a reachable state.
    pub fn quasi_liveness(&mut self, transitions: usize) -> Result<bool, CtlError> {
        for t in 0..transitions {
            if self.sat(&StateFormula::Enabled(vec![t]))?.is_empty() {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// `Liveness`: `AG EF enabled(t)` for every transition `t`, i.e. `EF enabled(t)` covers the
    /// reachable states. A reachable deadlock or a transition never enabled settles it at once.
    /// Then one backward search: when the initial state is a home state (`EF init` covers the
    /// reachable states), every reachable state goes back to it and, the net being quasi-live,
    /// on to a state enabling any transition, so the net is live. Otherwise one `EF` per
    /// transition. The backward searches are the checker's EU method (saturation by default).
    pub fn liveness(&mut self, transitions: usize) -> Result<bool, CtlError> {
        if transitions == 0 {
            return Ok(true);
        }
        if self.reachability_deadlock() || !self.quasi_liveness(transitions)? {
            return Ok(false);
        }
        let mark = self.pins.len();
        let r = self.live_after_quasi_live(transitions);
        self.pins.truncate(mark);
        r
    }

    /// [`Checker::liveness`] past its first checks.
    fn live_after_quasi_live(&mut self, transitions: usize) -> Result<bool, CtlError> {
        let (rch, init) = (self.rch, self.init);
        if self.eu(None, rch, init)? == rch {
            return Ok(true);
        }
        for t in 0..transitions {
            let en = self.sat(&StateFormula::Enabled(vec![t]))?;
            self.pin(en);
            if self.eu(None, rch, en)? != rch {
                return Ok(false);
            }
            self.collect(&[]);
        }
        Ok(true)
    }

    /// `visit(level, local state)` for every edge of every node of `rch`.
    fn for_each_local(&self, mut visit: impl FnMut(usize, u32)) {
        let forest = self.forest();
        let mut seen: FxHashSet<NodeId> = FxHashSet::default();
        let mut stack = vec![self.rch];
        while let Some(n) = stack.pop() {
            if n.is_terminal() || !seen.insert(n) {
                continue;
            }
            let l = forest.level(n);
            for e in forest.edges(n) {
                visit(l, e.idx);
                stack.push(e.child);
            }
        }
    }

    /// Per level `1..=K`: the smallest and largest local state over the reachable states (the
    /// edges of the nodes of `rch` at that level).
    pub fn local_ranges(&self) -> Vec<Option<(u32, u32)>> {
        let mut out = vec![None; self.forest().num_levels() + 1];
        self.for_each_local(|l, i| {
            let r: &mut Option<(u32, u32)> = &mut out[l];
            *r = Some(r.map_or((i, i), |(a, b)| (a.min(i), b.max(i))));
        });
        out
    }

    /// `StableMarking` and `OneSafe` from the levels' reachable local states. A place of its
    /// own is stable when its level has one reachable local state and one-safe when none
    /// exceeds 1. A one-hot group's places hold 0 or 1 token (one-safe); its place `j` is
    /// stable when the token is never on it (`j` not a reachable local state) or always (`j`
    /// the only one).
    fn stable_and_one_safe(&self) -> (bool, bool) {
        // one traversal: each level's range of local states and, on the one-hot levels,
        // which local states occur
        let levels = &self.model.levels;
        let k = self.forest().num_levels();
        let mut ranges: Vec<Option<(u32, u32)>> = vec![None; k + 1];
        let mut states: Vec<Vec<bool>> = vec![Vec::new(); k + 1];
        self.for_each_local(|l, i| {
            let r = &mut ranges[l];
            *r = Some(r.map_or((i, i), |(a, b)| (a.min(i), b.max(i))));
            if levels.get(l - 1).is_some_and(|v| v.one_hot) {
                let bits = &mut states[l];
                if bits.len() <= i as usize {
                    bits.resize(i as usize + 1, false);
                }
                bits[i as usize] = true;
            }
        });
        let (mut stable, mut safe) = (false, true);
        for (l, r) in ranges.iter().enumerate().skip(1) {
            let Some((lo, hi)) = *r else { continue };
            match self.model.levels.get(l - 1).filter(|v| v.one_hot) {
                None => {
                    stable |= lo == hi;
                    safe &= hi <= 1;
                }
                Some(level) => {
                    let bits = &states[l];
                    let places = level.group.len().max(hi as usize + 1);
                    let reached = bits.iter().filter(|&&b| b).count();
                    stable |= reached == 1 || reached < places;
                }
            }
        }
        (stable, safe)
    }

    /// The global property `name` (one of [`GLOBAL_PROPERTIES`]) of a net with `transitions`
    /// transitions; `None` for another name.
    pub fn global_property(
        &mut self,
        name: &str,
        transitions: usize,
    ) -> Result<Option<bool>, CtlError> {
        Ok(Some(match name {
            "ReachabilityDeadlock" => self.reachability_deadlock(),
            "QuasiLiveness" => self.quasi_liveness(transitions)?,
            "Liveness" => self.liveness(transitions)?,
            "OneSafe" => self.stable_and_one_safe().1,
            "StableMarking" => self.stable_and_one_safe().0,
            _ => return Ok(None),
        }))
    }
}
