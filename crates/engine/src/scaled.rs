//! The StateSpace figures of a net with many tokens from the same net with few (issue 12): when
//! [`saturn_model::scaling::polynomial_scaling`] proves the figures polynomials in the scale of
//! the initial marking, the state spaces at scales `0..=d+1` are generated (the same candidate
//! orders, the initial state scaled) and
//! [`saturn_symbolic::statespace::figures_by_scaling`] interpolates; a net whose own scale is
//! not well beyond those is generated directly.

use std::sync::{Arc, Mutex};

use saturn_model::scaling::{polynomial_scaling, Scaling};
use saturn_model::{Model, PetriNet};
use saturn_symbolic::statespace::{figures_by_scaling, ScaledFigures};
use saturn_symbolic::{Interrupted, Limits, Method, Progress, Relations};

use crate::race::{generate_raced, Outcome, Racers};
use crate::ExplicitMode;

/// Scaling pays when the net's own scale is at least this many times the number of scales it
/// generates (HouseConstruction-PT-00020, 18 transitions, is generated directly in 1.8 s; its
/// 20 small scales would take 7 s).
const WORTH: u64 = 2;

/// The largest degree bound (transitions) tried: beyond it the small scales are too many.
const MOST_DEGREE: usize = 64;

/// The net's scaling, when `scaling` asks for it, the run is not the explicit search alone
/// ([`ExplicitMode::Only`]), and the net qualifies and scaling pays.
pub fn worth_scaling(net: &PetriNet, scaling: bool, explicit: ExplicitMode) -> Option<Scaling> {
    if !scaling || explicit == ExplicitMode::Only {
        return None;
    }
    polynomial_scaling(net)
        .filter(|s| s.degree <= MOST_DEGREE && s.factor >= WORTH * (s.degree as u64 + 2))
}

/// The figures of the net lowered to `models` (its initial marking `scaling.factor` times
/// `scaling.unit`) by interpolation; `Ok(None)` when a check refuses (then the caller generates
/// directly).
pub fn scaled_figures(
    scaling: &Scaling,
    models: &[Model],
    method: Method,
    relations: Relations,
    limits: Limits,
    progress: Option<Progress>,
) -> Result<Option<ScaledFigures>, Interrupted> {
    // a one-hot level holds one token at every scale: its local state is not a token count
    // (a net that scales has no place with one token, so this does not happen)
    if models.iter().any(|m| m.levels.iter().any(|l| l.one_hot)) {
        return Ok(None);
    }
    let progress = progress.map(|p| Arc::new(Mutex::new(p)));
    let last = scaling.degree + 1;
    let factor = scaling.factor;
    let mut at = |k: u64| {
        // every model holds the initial marking in its own level order: divide and multiply
        let scaled: Vec<Model> = models
            .iter()
            .map(|m| Model {
                initial: m
                    .initial
                    .iter()
                    .map(|&x| (u64::from(x) / factor * k) as u32)
                    .collect(),
                ..m.clone()
            })
            .collect();
        let shown = progress.clone().map(|p| -> Progress {
            Box::new(move |msg: &str| {
                if let Ok(mut p) = p.lock() {
                    p(&format!("scale {k} of 0..={last}: {msg}"))
                }
            })
        });
        match generate_raced(Racers::none(), &scaled, method, relations, limits, shown)? {
            Outcome::Generated { ss, .. } => Ok(ss.metrics),
            // generation alone gives nothing else
            _ => Err(Interrupted::Cancelled),
        }
    };
    figures_by_scaling(factor, scaling.degree, &mut at)
}
