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
//! 1 (or 0: a deadlock, PRISM's self-loop). A state where several commands are enabled at once
//! has more: PRISM then picks one uniformly at random, which [`check_distributions`] refuses
//! (not supported yet) rather than compute something else.

use saturn_model::GeneralModel;

use super::check::CheckError;
use crate::chain::Chain;

/// Tolerance on a state's total outgoing probability.
const TOLERANCE: f64 = 1e-9;

/// Check that the events of `model` give each state of `chain` a probability distribution:
/// the probabilities of the enabled events (self-loops included) add up to 1, or no event is
/// enabled. Names the first state where they do not.
pub fn check_distributions(model: &GeneralModel, chain: &dyn Chain) -> Result<(), CheckError> {
    chain.for_each_state(&mut |_, s| {
        let mut total = 0.0;
        let mut enabled = 0usize;
        for e in 0..model.events.len() {
            if let Some(p) = model
                .rate(e, s)
                .map_err(|err| CheckError::Eval(err.to_string()))?
            {
                total += p;
                enabled += 1;
            }
        }
        if enabled == 0 || (total - 1.0).abs() <= TOLERANCE {
            return Ok(());
        }
        let state = model.show_state(s);
        Err(CheckError::Eval(
            if total > 1.0 + TOLERANCE && (total - total.round()).abs() <= TOLERANCE {
                format!(
                    "in state {state} of the dtmc {total} commands are enabled at once (PRISM \
                 chooses among them uniformly): not supported yet"
                )
            } else {
                format!("in state {state} of the dtmc the probabilities add up to {total}, not 1")
            },
        ))
    })
}
