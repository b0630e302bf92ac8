//! Discrete-time Markov chains (PCTL) on the CTMC engines.
//!
//! A DTMC over the reachable states is given to the engines as a chain whose "rates" are the
//! one-step probabilities: the off-diagonal `R[i][j] = P[i][j]` (events between the same pair
//! added, self-loops dropped as for a CTMC), so `h[i] = 1 - P[i][i]`. The embedded chain
//! `R[i][j] / h[i]` is then the DTMC's jump chain, and the CTMC with rate matrix `R` has the
//! DTMC's stationary distribution (its Cesàro limit when periodic); the checker's
//! [`crate::props::Checker::discrete_time`] handles what differs (`X`, step bounds).
//!
//! That reading needs every state's outgoing probabilities, self-loops included, to add up to
//! 1 (or 0: a deadlock, PRISM's self-loop), which [`check_distributions`] checks. A state where
//! `k` commands (or synchronised products of commands) are enabled at once has `k`: PRISM
//! then picks one of them uniformly at random, and [`uniform_choice`] rewrites the model so
//! (every probability divided by the state's total).

use saturn_model::expr::{BinOp, Expr, Real};
use saturn_model::GeneralModel;

use super::check::CheckError;
use crate::chain::Chain;

/// Tolerance on a state's total outgoing probability.
const TOLERANCE: f64 = 1e-9;

/// What [`check_distributions`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    /// Every state has one distribution (or none: a deadlock).
    Stochastic,
    /// Some state has several commands enabled at once: [`uniform_choice`] gives PRISM's chain.
    Choices,
}

/// Check that the events of `model` give each state of `chain` a probability distribution:
/// the probabilities of the enabled events (self-loops included) add up to 1, or no event is
/// enabled; or a whole number of them (several commands enabled: [`Rows::Choices`]). Names
/// the first state where they add up to anything else.
pub fn check_distributions(model: &GeneralModel, chain: &dyn Chain) -> Result<Rows, CheckError> {
    let mut rows = Rows::Stochastic;
    chain.for_each_state(&mut |_, s| {
        let mut total = 0.0;
        for e in 0..model.events.len() {
            if let Some(p) = model
                .rate(e, s)
                .map_err(|err| CheckError::Eval(err.to_string()))?
            {
                total += p;
            }
        }
        if total == 0.0 || (total - 1.0).abs() <= TOLERANCE {
            return Ok(());
        }
        if total > 1.0 && (total - total.round()).abs() <= TOLERANCE {
            rows = Rows::Choices;
            return Ok(());
        }
        Err(CheckError::Eval(format!(
            "in state {} of the dtmc the probabilities add up to {total}, not 1",
            model.show_state(s)
        )))
    })?;
    Ok(rows)
}

/// PRISM's DTMC with several commands enabled in a state: each is chosen with the same
/// probability. Every event's probability is divided by the total probability of the events
/// enabled in the state (the number of enabled commands, each a distribution): one more rate
/// factor, `1 / sum_e (guard_e ? p_e : 0)`. The factor reads every guard, so the symbolic
/// engine's matrices of such a model are larger than the plain ones.
pub fn uniform_choice(model: &GeneralModel) -> GeneralModel {
    let product = |rates: &[Expr]| {
        rates
            .iter()
            .cloned()
            .reduce(|a, b| Expr::bin(BinOp::Mul, a, b))
            .unwrap_or(Expr::Real(Real::new(1.0)))
    };
    let total = model
        .events
        .iter()
        .map(|ev| {
            Expr::Ite(
                Box::new(ev.guard.clone()),
                Box::new(product(&ev.rates)),
                Box::new(Expr::Real(Real::new(0.0))),
            )
        })
        .reduce(|a, b| Expr::bin(BinOp::Add, a, b))
        .unwrap_or(Expr::Real(Real::new(1.0)));
    let share = Expr::bin(BinOp::Div, Expr::Real(Real::new(1.0)), total);
    let mut out = model.clone();
    for ev in &mut out.events {
        ev.rates.push(share.clone());
    }
    out
}
