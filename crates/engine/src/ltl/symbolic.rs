//! The symbolic side of [`super::decide_all`]: the net's state space generated once, each
//! formula by the CTL engines when it is CTL in disguise, else by the symbolic product with the
//! automaton of its negation; and the product's shortest counterexamples.

use std::time::Instant;

use saturn_logic::PathFormula;
use saturn_ltl::{ctl_equivalent, Counterexample, Deadlocks};
use saturn_model::{Model, PetriNet};
use saturn_symbolic::ctl::{Deadlocks as CtlDeadlocks, FairMethod};
use saturn_symbolic::ltl::{check_product, NetSpace, ProductVerdict};
use saturn_symbolic::ltl_lasso::NetLasso;
use saturn_symbolic::statespace::StateSpace;
use saturn_symbolic::Limits;

use super::{share, Decided, Engine, Method, Run, Slots};
use crate::formulas::symbolic::{atoms_for, checker_within};
use crate::Reachable;

/// The net's generated state space.
pub(super) struct Symbolic {
    ss: Box<StateSpace>,
    model: Model,
}

/// The symbolic engines on every open formula: the state space generated once (within
/// `1/fraction` of the time left), then each formula with an equal share of `1/fraction` of
/// the time left.
pub(super) fn symbolic_round(run: &Run, slots: &Slots, fraction: u32) -> Option<Symbolic> {
    if slots.open_from(0) == 0 {
        return None;
    }
    let gen_limits = Limits {
        deadline: share(run.limits.deadline, 1, fraction),
        ..run.limits
    };
    let mut sym = match generate(run, gen_limits) {
        Ok(s) => s,
        Err(e) => {
            for n in 0..slots.phis.len() {
                if slots.open(n) {
                    slots.offer(n, Err(e.clone()));
                }
            }
            return None;
        }
    };
    for n in 0..slots.phis.len() {
        let Some(phi) = slots.phis[n].as_ref().filter(|_| slots.open(n)) else {
            continue;
        };
        // the formula's flag stops the product when the explicit search decides it first
        let limits = Limits {
            deadline: share(run.limits.deadline, slots.open_from(n), fraction),
            cancel: run.limits.cancel.or(run.limits.cancel_also),
            cancel_also: Some(slots.decided[n]),
            ..run.limits
        };
        let r = symbolic(run, &mut sym, phi, limits);
        slots.offer(n, r);
    }
    Some(sym)
}

/// A shortest counterexample from the symbolic product (module `saturn_symbolic::ltl_lasso`)
/// for each formula found false without one, within the time left; the net's state space
/// generated if the race did not.
pub(super) fn shortest_counterexamples(
    run: &Run,
    phis: &[Option<PathFormula>],
    out: &mut [Result<Decided, String>],
    sym: Option<Symbolic>,
) {
    let wanted = |d: &Result<Decided, String>| d.as_ref().is_ok_and(|d| !d.holds && !d.shortest);
    if !out.iter().any(wanted) {
        return;
    }
    let mut sym = match sym.map_or_else(|| generate(run, run.limits), Ok) {
        Ok(s) => s,
        Err(e) => {
            for d in out.iter_mut().filter_map(|d| d.as_mut().ok()) {
                if !d.holds && !d.shortest {
                    d.note = Some(format!("no shortest counterexample: {e}"));
                }
            }
            return;
        }
    };
    for (n, d) in out.iter_mut().enumerate() {
        let (Ok(d), Some(phi)) = (d, &phis[n]) else {
            continue;
        };
        if d.holds || d.shortest {
            continue;
        }
        match product_counterexample(run, &mut sym, phi, run.limits) {
            Ok(c) => {
                d.counterexample = Some(c);
                d.shortest = true;
            }
            Err(e) => d.note = Some(format!("no shortest counterexample: {e}")),
        }
    }
}

/// The shortest counterexample of `phi` from the symbolic product (an error when `phi` holds
/// or the product gave none within `limits`).
fn product_counterexample(
    run: &Run,
    sym: &mut Symbolic,
    phi: &PathFormula,
    limits: Limits,
) -> Result<Counterexample, String> {
    let v = product(run, sym, phi, run.fair(), limits, true)?;
    let c = v
        .verdict
        .counterexample
        .ok_or("the symbolic product found no counterexample")?
        .map_err(|e| e.to_string())?;
    if !c.shortest {
        return Err("the lasso search did not finish".into());
    }
    Ok(net_counterexample(run.net, &sym.model, &c))
}

/// A counterexample of the product (states by the model's levels) as markings of the net.
fn net_counterexample(net: &PetriNet, model: &Model, c: &NetLasso) -> Counterexample {
    // `model.levels[k]` holds the place with that id
    let place: Vec<usize> = model
        .levels
        .iter()
        .map(|l| net.place_index(&l.name).unwrap_or(0))
        .collect();
    let markings = c
        .states
        .iter()
        .map(|s| {
            let mut m = vec![0u64; net.places.len()];
            for (k, &p) in place.iter().enumerate() {
                m[p] = u64::from(s[k]);
            }
            m
        })
        .collect();
    Counterexample {
        markings,
        loop_start: c.loop_start,
    }
}

/// The net's state space, as `saturn check` generates it for CTL.
fn generate(run: &Run, limits: Limits) -> Result<Symbolic, String> {
    let g = run.generation;
    let timeout = limits
        .deadline
        .map(|d| d.saturating_duration_since(Instant::now()).as_secs().max(1));
    let models: Vec<Model> = (g.lower)(timeout)?;
    let opts = crate::Options {
        method: g.method,
        relations: g.relations,
        portfolio: g.portfolio,
        ..crate::Options::default()
    };
    let outcome = crate::reachable(run.net, &models, &opts, limits, (g.progress)())
        .map_err(|i| format!("state-space generation: {i}"))?;
    match outcome {
        Reachable::Generated { won, ss } => Ok(Symbolic {
            ss,
            model: models[won].clone(),
        }),
        Reachable::Unbounded(_) => {
            Err("the net is unbounded: the symbolic engines need a finite state space".into())
        }
    }
}

/// One formula by the CTL engines (when it is CTL in disguise and the method allows it) or the
/// symbolic product.
fn symbolic(
    run: &Run,
    sym: &mut Symbolic,
    phi: &PathFormula,
    limits: Limits,
) -> Result<Decided, String> {
    let markings = sym.ss.metrics.states.to_string();
    let fair = run.fair();
    if run.method == Method::Auto {
        if let Some(f) = ctl_equivalent(phi, run.deadlocks) {
            let cdl = match run.deadlocks {
                Deadlocks::Stutter => CtlDeadlocks::SelfLoop,
                Deadlocks::Maximal => CtlDeadlocks::Maximal,
            };
            let mut checker = checker_within(&mut sym.ss, &sym.model, run.net, cdl, limits)
                .map_err(|i| i.to_string())?;
            let holds = checker.holds(&f).map_err(|e| e.to_string())?;
            return Ok(Decided {
                holds,
                engine: Engine::Ctl,
                markings,
                product_states: None,
                automaton_states: None,
                partial_order: false,
                counterexample: None,
                shortest: false,
                note: None,
            });
        }
    }
    let v = product(run, sym, phi, fair, limits, run.witness)?;
    // a shortest counterexample when asked for and found in the limits (else the explicit
    // search's, later)
    let counterexample = v
        .verdict
        .counterexample
        .and_then(Result::ok)
        .filter(|c| c.shortest)
        .map(|c| net_counterexample(run.net, &sym.model, &c));
    Ok(Decided {
        holds: v.verdict.holds,
        engine: Engine::Product(fair),
        markings,
        product_states: Some(v.verdict.product_states.to_string()),
        automaton_states: Some(v.automaton_states),
        partial_order: false,
        shortest: counterexample.is_some(),
        counterexample,
        note: None,
    })
}

/// The symbolic product's verdict on `phi`, and the size of the automaton.
struct ProductRun {
    verdict: ProductVerdict,
    automaton_states: usize,
}

/// The symbolic product of the net's state space with the automaton of `¬phi`.
fn product(
    run: &Run,
    sym: &mut Symbolic,
    phi: &PathFormula,
    fair: FairMethod,
    limits: Limits,
    witness: bool,
) -> Result<ProductRun, String> {
    let p = saturn_ltl::negated(phi, run.deadlocks).map_err(|e| e.to_string())?;
    let atoms = atoms_for(&sym.model, run.net);
    let verdict = check_product(
        NetSpace {
            dd: &mut sym.ss.dd,
            states: sym.ss.states,
            model: &sym.model,
            atoms: &atoms,
        },
        &p.atoms.formulas,
        &p.automaton,
        run.deadlocks,
        fair,
        run.placement,
        limits,
        witness,
    )
    .map_err(|e| e.to_string())?;
    Ok(ProductRun {
        verdict,
        automaton_states: p.automaton.states.len(),
    })
}
