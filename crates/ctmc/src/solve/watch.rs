//! Giving up early an iteration that cannot reach its target within its budget.
//!
//! A linear system whose iteration converges slowly (a rare event between frequent ones; the
//! regenerative steady-state bounds of a chain whose regeneration state is seldom visited)
//! used to run its whole budget before it was declared not converged, and the automatic method
//! then tried the next method for as long: kanban t=4's steady state spent 6,000 sweeps (47 s)
//! to end with the estimate it had after 146 (1.3 s). The difference of a converging
//! iteration falls geometrically; [`Watch`] measures the rate over the last stretch and stops
//! when, at that rate, the target lies beyond what is left of the budget. The outcome is the
//! one the budget would have given (not converged), sooner; an iteration that is not falling
//! at all is left alone (a plateau can end). Used by the plain iterations of a linear system
//! (`linear::absorbing_from`), not by the interval bracketing, whose gap can fall slowly for a
//! long stretch and then fast (polling N=14's steady state: given up at the extrapolated rate,
//! its bounds stayed 0.23 wide where the whole budget closes them to 1.5e-7).

/// How many iterations a measured stretch has.
const STRETCH: usize = 100;
/// No decision before this many iterations.
const FIRST: usize = 300;

/// The differences of an iteration, every [`STRETCH`] iterations.
#[derive(Default)]
pub(super) struct Watch {
    last: Option<f64>,
}

impl Watch {
    /// At iteration `it` (from 1) of `budget`, with difference `d` and target `eps`: whether
    /// the target lies beyond the budget at the rate of the last stretch.
    pub(super) fn hopeless(&mut self, it: usize, budget: usize, d: f64, eps: f64) -> bool {
        if it % STRETCH != 0 {
            return false;
        }
        let Some(prev) = self.last.replace(d) else {
            return false;
        };
        if it < FIRST || !(d.is_finite() && prev.is_finite()) || d <= eps || d <= 0.0 {
            return false;
        }
        let rate = d / prev;
        if !(rate > 0.0 && rate < 1.0) {
            return false;
        }
        let need = STRETCH as f64 * (eps / d).ln() / rate.ln();
        need > budget.saturating_sub(it) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::Watch;

    /// A difference falling by half every 100 iterations: from 1 to 1e-6 takes about 2,000.
    fn gives_up(budget: usize) -> Option<usize> {
        let mut w = Watch::default();
        (1..=budget).find(|&it| w.hopeless(it, budget, 0.5f64.powf(it as f64 / 100.0), 1e-6))
    }

    #[test]
    fn stops_only_when_the_budget_cannot_be_met() {
        assert_eq!(gives_up(1_000), Some(300));
        assert_eq!(gives_up(2_100), None);
        // a plateau is left alone
        let mut w = Watch::default();
        assert!((1..=1_000).all(|it| !w.hopeless(it, 1_000, 1e-3, 1e-6)));
    }
}
