//! Long-run averages (`S` and `R{..}=? [ S ]`): the bottom SCCs, each class's stationary
//! estimate, and the guaranteed bounds on its average from the Poisson equation (thesis 7.1's
//! bounding semantics for steady state), with the regenerative bounds as the fallback.

use super::*;

impl Checker<'_> {
    /// The bottom SCCs (computed once).
    pub(super) fn bottom(&mut self) -> Result<&[Vec<u32>], CheckError> {
        let b = self.take_bottom()?;
        Ok(self.bsccs.insert(b))
    }

    /// The bottom SCCs taken out of the checker (computed if they were not there); put them
    /// back in `bsccs` when done.
    pub(super) fn take_bottom(&mut self) -> Result<Vec<Vec<u32>>, CheckError> {
        match self.bsccs.take() {
            Some(b) => Ok(b),
            None => self.ctmc.bottom_sccs(),
        }
    }

    /// The bottom SCCs and their stationary distributions (computed once): each class's
    /// stationary estimate, from which [`Checker::long_run`] bounds the averages it needs
    /// through the Poisson equation ([`poisson_bounds`]). A class whose estimate does not
    /// converge gets the regenerative bounds instead: with a state `r` of the class, the
    /// stationary probability of `j` is `y[j] / sum(y)` where `y[j]` is the expected time
    /// spent in `j` between two visits to `r`, the unique solution of `y[r] = 1 / h[r]`,
    /// `y[j] = sum_i y[i] R[i][j] / h[j]`: the system of [`absorbing_bounds`] with `R` in place
    /// of its transpose (the sweeps go over the incoming rates), solved by interval iteration.
    pub(super) fn recurrent(&mut self) -> Result<(), CheckError> {
        // solved to this epsilon or a smaller one: as good
        let eps = self.options.epsilon;
        if self.pis.as_ref().is_some_and(|(e, _)| *e <= eps) {
            return Ok(());
        }
        // taken out while the classes are solved (not copied: a list of the chain's size)
        let bsccs = self.take_bottom()?;
        let mut pis = Vec::with_capacity(bsccs.len());
        let options = Options {
            epsilon: self.options.epsilon / 4.0,
            max_iters: self.options.max_iters.min(REGENERATIVE_BUDGET),
            ..self.options
        };
        for b in &bsccs {
            if b.len() == 1 {
                pis.push(Cycle {
                    lo: vec![1.0],
                    hi: vec![1.0],
                    guaranteed: true,
                });
                continue;
            }
            let progress = &mut self.progress;
            let mut cb = |m: &Method, it: usize, d: f64| progress("steady state", m, it, d);
            let mut sol = None;
            let mut fallback = None;
            let plain = self.options;
            // the chain's own exit rates when the class is the whole chain (a bottom class
            // keeps all its rates: the same values), not a copy of them
            let whole = b.len() == self.ctmc.len();
            let chain_exit = self.ctmc.exit();
            self.ctmc.with_restricted(b, &mut |m| {
                let own;
                let h: &[f64] = if whole {
                    chain_exit
                } else {
                    own = m.exit_rates();
                    &own
                };
                let c = vec![0.0; h.len()];
                let regenerate = |r: usize| {
                    let mut fixed = vec![None; h.len()];
                    fixed[r] = Some(1.0 / h[r]);
                    fixed
                };
                // The stationary solver's estimate: the long-run averages are then bounded
                // from it through the Poisson equation ([`Checker::poisson`]; 10x faster than
                // the regenerative bounds on kanban t=3 and polling N=14, and it reaches
                // kanban t=4, fms n=5 and unstructured chains that return to no state often).
                // Without an estimate, the regenerative bounds from the first state.
                let estimate = match steady_state(m, &plain, &mut cb) {
                    Ok(e) => Some(e),
                    Err(SolveError::NotConverged { .. }) => None,
                    Err(e) => return Err(e.into()),
                };
                if let Some(e) = estimate {
                    fallback = Some(e);
                    return Ok(());
                }
                let got = absorbing_bounds(
                    m,
                    &h,
                    &regenerate(0),
                    &c,
                    None,
                    Gap::Total,
                    &options,
                    &mut cb,
                );
                match got {
                    Ok(s) if s.hi.iter().all(|x| x.is_finite()) => sol = Some(s),
                    Ok(_) | Err(SolveError::NotConverged { .. }) => {
                        // neither: the solver's own error
                        steady_state(m, &plain, &mut cb)?;
                    }
                    Err(e) => return Err(e.into()),
                }
                Ok(())
            })?;
            if let Some(f) = fallback {
                self.stats.iterations += f.iterations;
                self.stats.methods.push(f.method.name());
                pis.push(Cycle {
                    hi: f.x.clone(),
                    lo: f.x,
                    guaranteed: false,
                });
                continue;
            }
            let sol = sol.expect("solved");
            self.stats.iterations += sol.iterations;
            if sol.iterations > 0 {
                self.stats.methods.push(sol.method.name());
            }
            if sol.direct {
                self.stats.methods.push("lu (verified)".into());
            }
            if !sol.within {
                self.stats.note_wide("steady state");
            }
            pis.push(Cycle {
                lo: sol.lo,
                hi: sol.hi,
                guaranteed: true,
            });
        }
        self.bsccs = Some(bsccs);
        self.pis = Some((eps, pis));
        Ok(())
    }

    /// The long-run average of the state weights `w` from every state (thesis 2.3.1): in a
    /// bottom SCC its stationary average; elsewhere the average over the bottom SCCs weighted
    /// by the probabilities of reaching them (interval iteration from the bounds of the SCCs'
    /// averages: the lower ends give the lower bounds, the upper ends the upper ones).
    pub(super) fn long_run(&mut self, w: &[f64]) -> Result<Numbers, CheckError> {
        self.recurrent()?;
        let n = w.len();
        let bsccs = self.bsccs.as_ref().expect("computed");
        let pis = &self.pis.as_ref().expect("computed").1;
        self.stats.bsccs = Some(bsccs.len());
        let mut values: Vec<Interval> = bsccs
            .iter()
            .zip(pis)
            .map(|(b, y)| y.average(b, w))
            .collect();
        let loose: Vec<usize> = (0..pis.len()).filter(|&k| !pis[k].guaranteed).collect();
        if loose.len() < pis.len() && bsccs.iter().any(|b| b.len() > 1) {
            self.stats
                .note_bounding("regenerative interval iteration (steady state)");
        }
        if !loose.is_empty() {
            let bsccs = self.bsccs.take().expect("computed");
            let got = self.poisson(&bsccs, &loose, w, &mut values);
            self.bsccs = Some(bsccs);
            got?;
        }
        let bsccs = self.bsccs.as_ref().expect("computed");
        if let ([b], [v]) = (bsccs.as_slice(), values.as_slice()) {
            if b.len() == n {
                // an irreducible chain: one value everywhere, no linear system
                return Ok(Numbers::Everywhere(*v));
            }
        }
        let mut fixed_lo = vec![None; n];
        let mut fixed_hi = vec![None; n];
        for (b, v) in bsccs.iter().zip(&values) {
            for &s in b {
                fixed_lo[s as usize] = Some(v.lo);
                fixed_hi[s as usize] = Some(v.hi);
            }
        }
        let range = values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v.lo), b.max(v.hi))
            });
        let c = vec![0.0; n];
        if fixed_lo == fixed_hi {
            let (lo, hi) = self.solve_linear("long-run average", &fixed_lo, &c, Some(range))?;
            return Ok(Numbers::PerState(lo, hi));
        }
        let (lo, _) = self.solve_linear("long-run average", &fixed_lo, &c, Some(range))?;
        let (_, hi) = self.solve_linear("long-run average", &fixed_hi, &c, Some(range))?;
        Ok(Numbers::PerState(lo, hi))
    }
}

impl Checker<'_> {
    /// Bounds on the long-run averages of `w` in the bottom SCCs `loose` (indices into
    /// `bsccs`) whose regenerative bounds were not reached: [`poisson_bounds`] from their
    /// stationary estimates in `values`, which the bounds replace. Bounds wider than epsilon
    /// are kept and said to be wide; only a failed iteration leaves an estimate, said to be one.
    pub(super) fn poisson(
        &mut self,
        bsccs: &[Vec<u32>],
        loose: &[usize],
        w: &[f64],
        values: &mut [Interval],
    ) -> Result<(), CheckError> {
        let n = w.len();
        let mut class = vec![NO_CLASS; n];
        for (c, &k) in loose.iter().enumerate() {
            for &s in &bsccs[k] {
                class[s as usize] = c as u32;
            }
        }
        // the stationary estimates, each normalised over its class (the estimate itself, not
        // a copy, when one class is the whole chain)
        let cycles = &self.pis.as_ref().expect("computed").1;
        let own;
        let pi: &[f64] = match loose {
            [k] if bsccs[*k].len() == n => &cycles[*k].lo,
            _ => {
                let mut v = vec![0.0; n];
                for &k in loose {
                    let est = &cycles[k].lo;
                    let total: f64 = est.iter().sum();
                    for (&s, &p) in bsccs[k].iter().zip(est) {
                        v[s as usize] = p / total;
                    }
                }
                own = v;
                &own
            }
        };
        let options = Options {
            epsilon: self.options.epsilon / 4.0,
            ..self.options
        };
        let exit = self.ctmc.exit();
        let progress = &mut self.progress;
        let mut got = None;
        self.ctmc.with_transposed(&mut |rows| {
            let mut cb = |m: &Method, it: usize, d: f64| progress("steady state bounds", m, it, d);
            got = Some(poisson_bounds(rows, exit, &class, w, pi, &options, &mut cb));
            Ok(())
        })?;
        match got.expect("solved") {
            Ok(b) => {
                self.stats.iterations += b.iterations;
                self.stats.methods.push("gs (poisson bounds)".into());
                self.stats
                    .note_bounding("Poisson-equation bounds (steady state)");
                if !b.within {
                    self.stats.note_wide("steady state");
                }
                for (c, &k) in loose.iter().enumerate() {
                    values[k] = Interval::new(b.lo[c], b.hi[c]);
                }
            }
            Err(SolveError::NotConverged { .. }) => self.stats.note_unguaranteed(
                "steady state (no bounds: the Poisson-equation iteration failed; stationary \
                 solver's estimate)",
            ),
            Err(e) => return Err(e.into()),
        }
        Ok(())
    }
}

/// Bounds on the expected time spent in each state of a bottom SCC between two visits to its
/// first state, or the stationary estimate (see [`Checker::recurrent`]).
pub(super) struct Cycle {
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// False when `lo = hi` is the stationary solver's estimate (the averages are then
    /// bounded by [`Checker::poisson`]).
    guaranteed: bool,
}

impl Cycle {
    /// Bounds on the stationary average of `w` over the SCC `b` (states of the chain):
    /// `sum w y / sum y` with `y` in `[lo, hi]`, each sum bounded end by end, intersected with
    /// the range of `w` (an average lies within it).
    fn average(&self, b: &[u32], w: &[f64]) -> Interval {
        let (mut a_lo, mut a_hi, mut t_lo, mut t_hi) = (0.0, 0.0, 0.0, 0.0);
        let (mut w_min, mut w_max) = (f64::INFINITY, f64::NEG_INFINITY);
        for (k, &s) in b.iter().enumerate() {
            let x = w[s as usize];
            let (l, h) = (self.lo[k], self.hi[k]);
            w_min = w_min.min(x);
            w_max = w_max.max(x);
            t_lo += l;
            t_hi += h;
            if x >= 0.0 {
                a_lo += x * l;
                a_hi += x * h;
            } else {
                a_lo += x * h;
                a_hi += x * l;
            }
        }
        if w_min == w_max {
            return Interval::exact(w_min);
        }
        let q = [a_lo / t_lo, a_lo / t_hi, a_hi / t_lo, a_hi / t_hi];
        let lo = q.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = q.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !(lo <= hi) {
            return Interval::new(w_min, w_max);
        }
        Interval::new(lo.max(w_min), hi.min(w_max))
    }
}
