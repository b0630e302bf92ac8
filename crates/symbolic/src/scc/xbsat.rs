//! The Xie-Beerel algorithm with saturation (thesis Figures 4.3 and 4.4): from a seed, forward
//! saturation, then backward (constrained) saturation, on the context's set forest with two
//! generators of one model, forward and backward, that share node ids and keep their compute
//! caches from seed to seed.

use saturn_dd::{Dd, NodeId, Pin};

use super::{Progress, SccSet, SccStats};
use crate::limits::{Interrupted, Limits};
use crate::reach::{Reach, Suspended};

/// The XBSat engine: a forward and a backward generator of one model on one context.
pub struct XbSat<'a> {
    dd: &'a mut Dd,
    fwd: Option<Suspended>,
    bwd: Option<Suspended>,
    limits: Limits,
    progress: Option<Progress<'a>>,
    reported: u64,
    pub stats: SccStats,
}

impl<'a> XbSat<'a> {
    /// An engine over `dd` with the forward generator `fwd` and the backward one `bwd` (made on
    /// `dd`; the backward one capped at the local states of the reachable states, so that it
    /// never leaves the reachable local domains).
    pub fn new(dd: &'a mut Dd, fwd: Suspended, bwd: Suspended) -> XbSat<'a> {
        XbSat {
            dd,
            fwd: Some(fwd),
            bwd: Some(bwd),
            limits: Limits::none(),
            progress: None,
            reported: 0,
            stats: SccStats::default(),
        }
    }

    /// Limits checked between seeds (the generators check their own).
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// A callback receiving a one-line progress message now and then.
    pub fn set_progress(&mut self, f: Progress<'a>) {
        self.progress = Some(f);
    }

    /// The generators back (to park them elsewhere or drop them).
    pub fn into_parts(self) -> (Suspended, Suspended) {
        (
            self.fwd.expect("forward generator parked"),
            self.bwd.expect("backward generator parked"),
        )
    }

    /// Run `f` on the forward (`back` false) or backward generator.
    fn with<R>(
        &mut self,
        back: bool,
        f: impl FnOnce(&mut Reach<'_>) -> Result<R, Interrupted>,
    ) -> Result<R, Interrupted> {
        let slot = if back { &mut self.bwd } else { &mut self.fwd };
        let parked = slot.take().expect("generator parked");
        let mut r = Reach::resume(self.dd, parked);
        let out = f(&mut r);
        *slot = Some(r.suspend());
        out
    }

    /// `Intersect(Image(s), p)`, forward or backward.
    fn image_in(&mut self, back: bool, s: NodeId, p: NodeId) -> Result<NodeId, Interrupted> {
        self.stats.images += 1;
        let t = self.with(back, |r| r.image(s))?;
        Ok(self.dd.sets.intersect(t, p))
    }

    /// `Intersect(Saturate(s), p)`, forward or backward (EMPTY for an empty `s`).
    fn saturate_in(&mut self, back: bool, s: NodeId, p: NodeId) -> Result<NodeId, Interrupted> {
        if s.is_empty() {
            return Ok(s);
        }
        let t = self.with(back, |r| r.saturate(s))?;
        Ok(self.dd.sets.intersect(t, p))
    }

    fn pin(&self, n: NodeId) -> Pin {
        self.dd.pin(n)
    }

    /// `PickState(p)` as a singleton set.
    fn pick(&mut self, p: NodeId) -> NodeId {
        self.stats.seeds += 1;
        let s = self.dd.sets.pick(p).expect("pick from a non-empty set");
        self.dd.sets.singleton(&s)
    }

    /// Between seeds: limits, progress, and a collection when due (every set the engine holds
    /// is pinned).
    fn safe_point(&mut self) -> Result<(), Interrupted> {
        self.limits.check()?;
        if self.stats.seeds >= 2 * self.reported.max(512) {
            self.reported = self.stats.seeds;
            if let Some(p) = self.progress.as_mut() {
                p(&format!(
                    "XBSat: {} seeds, {} images",
                    self.stats.seeds, self.stats.images
                ));
            }
        }
        self.dd.maybe_collect();
        Ok(())
    }

    /// Trimming (Bloem, Gabow and Somenzi; Ravi, Bloem and Somenzi): the states of `p` on no
    /// cycle within `p` because they have no predecessor, or no successor, in `p` are removed,
    /// round after round until none is left. `p` stays a union of SCCs (only trivial ones go),
    /// and the seeds of [`XbSat::xb_sat`] are no longer spent one by one on the acyclic parts
    /// of a state space (queens, leader: one seed per state otherwise).
    fn trim(&mut self, p: NodeId) -> Result<NodeId, Interrupted> {
        let mut p = self.pin(p);
        loop {
            let cur = p.get();
            if cur.is_empty() {
                return Ok(cur);
            }
            let has_pred = self.image_in(false, cur, cur)?;
            let _h = self.pin(has_pred);
            let has_succ = self.image_in(true, cur, has_pred)?;
            if has_succ == cur {
                return Ok(cur);
            }
            p.set(has_succ);
            self.dd.maybe_collect();
        }
    }

    /// `XBSat(p)` for SCCs (Figure 4.3): the states of `p` on nontrivial cycles within `p`,
    /// and the number of nontrivial SCCs. `p` must be a union of SCCs (the reachable states
    /// are). From a seed `s`: `f`, the states of `p` reachable from `s` by a nonempty path
    /// (forward saturation from `ImageF(s) ∩ p`), bounds the backward constrained saturation
    /// from `ImageB(s) ∩ f`, which is then the SCC of `s` (empty when `s` is on no cycle). The
    /// recursions on `f \ b` and `p \ f` go to a work list.
    ///
    /// Two departures from the figure's text: the backward search starts from `b' ∩ f` rather
    /// than `b'` (a predecessor of `s` that `s` does not reach is not in its SCC, and
    /// `ConsSatB` keeps its starting states), and the second recursion is on
    /// `p \ (f ∪ {s})` (as in Lockstep), since a seed on no cycle is not in `f` and would be
    /// picked again. And each set taken from the work list is trimmed first ([`XbSat::trim`]).
    pub fn xb_sat(&mut self, p: NodeId) -> Result<SccSet, Interrupted> {
        let mut answer = self.pin(NodeId::EMPTY);
        let mut count = 0u64;
        let mut work: Vec<Pin> = vec![self.pin(p)];
        while let Some(pp) = work.pop() {
            let p = self.trim(pp.get())?;
            if p.is_empty() {
                continue;
            }
            let _p = self.pin(p);
            let s = self.pick(p);
            let _s = self.pin(s);
            let fp = self.image_in(false, s, p)?;
            let _fp = self.pin(fp);
            let bp = self.image_in(true, s, p)?;
            let _bp = self.pin(bp);
            let f = self.saturate_in(false, fp, p)?;
            let _f = self.pin(f);
            let seeds = self.dd.sets.intersect(bp, f);
            let b = if seeds.is_empty() {
                seeds
            } else {
                let t = self.with(true, |r| r.cons_saturate(f, seeds))?;
                self.dd.sets.intersect(t, p)
            };
            if !b.is_empty() {
                count += 1;
                let a = self.dd.sets.union(answer.get(), b);
                answer.set(a);
            }
            let rest = self.dd.sets.minus(f, b);
            work.push(self.pin(rest));
            let fs = self.dd.sets.union(f, s);
            let outside = self.dd.sets.minus(p, fs);
            work.push(self.pin(outside));
            drop(pp);
            self.safe_point()?;
        }
        Ok(SccSet {
            states: answer.get(),
            count,
        })
    }

    /// `XBSat(p)` for terminal SCCs (Figure 4.4): each terminal SCC within `p`, as a set. `p`
    /// must be closed under successors (the reachable states are, and so is every set the loop
    /// leaves, as it only removes sets closed under predecessors). From a seed `s`: `f`, the
    /// states reachable from `s` by a nonempty path (forward saturation), and `b`, the states
    /// reaching `s` (backward saturation); when `f` is not empty and `f ⊆ b`, `f` is the SCC of
    /// `s` and it is terminal; either way no state of `b` is in another terminal SCC, and `b`
    /// leaves `p`. The recursion of the figure is a loop.
    ///
    /// Two departures from the figure's text: `b` is saturated from `s` itself rather than from
    /// `ImageB(s) ∩ p`, so that a seed on no cycle leaves `p` (the figure would pick it again);
    /// and the backward saturation is constrained to `p` (`ConsSatB(p, s)`), which gives the
    /// same set (a path from a state of `p` stays in `p`) without exploring the unreachable
    /// predecessors of the potential state space (on LamportFastMutEx-PT-3 the unconstrained
    /// search did not finish in 5 minutes; the constrained one takes seconds). Before the first
    /// seed, the states that reach a deadlock leave `p` at once; and each seed after the first is
    /// picked among the states the previous one reaches without being reached back from them
    /// (when there are any), which walks down to a terminal SCC instead of picking at random.
    pub fn xb_sat_terminal(&mut self, p: NodeId) -> Result<Vec<Pin>, Interrupted> {
        let mut classes: Vec<Pin> = Vec::new();
        let mut p = self.pin(p);
        // the deadlocks of `p` and every state that reaches one are in no terminal SCC: one
        // preimage and one backward saturation remove them all (on an acyclic state space,
        // such as queens, everything), where seeds would remove one backward cone at a time
        if !p.get().is_empty() {
            let live = self.image_in(true, p.get(), p.get())?;
            let dead = self.dd.sets.minus(p.get(), live);
            if !dead.is_empty() {
                let _dead = self.pin(dead);
                let pn = p.get();
                let b = self.with(true, |r| r.cons_saturate(pn, dead))?;
                let rest = self.dd.sets.minus(pn, b);
                p.set(rest);
            }
        }
        // where the next seed is picked: the states the last seed reaches but that do not
        // reach it back (they lie downstream, nearer a terminal SCC), or anywhere in `p`
        let mut next = self.pin(NodeId::EMPTY);
        while !p.get().is_empty() {
            let from = if next.get().is_empty() {
                p.get()
            } else {
                next.get()
            };
            let s = self.pick(from);
            let _s = self.pin(s);
            let fp = self.image_in(false, s, p.get())?;
            let f = self.saturate_in(false, fp, p.get())?;
            let _f = self.pin(f);
            let pn = p.get();
            let b = self.with(true, |r| r.cons_saturate(pn, s))?;
            let below = self.dd.sets.minus(f, b);
            if !f.is_empty() && below.is_empty() {
                classes.push(self.pin(f));
            }
            next.set(below);
            let rest = self.dd.sets.minus(p.get(), b);
            p.set(rest);
            self.safe_point()?;
        }
        Ok(classes)
    }
}
