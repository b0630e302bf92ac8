//! One SCC query on a model, start to finish: the reachable states by saturation, then the
//! chosen method within them (the glue the CLI and the tests call).

use saturn_dd::{Dd, Forest, NodeId, Pin, Reduction};
use saturn_logic::StateFormula;
use saturn_model::Model;

use super::{
    fair_scc_tc, scc_tc, tscc_tc, NextState, Progress, Scc, SccMethod, SccOptions, SccOutcome,
    SccSet, SccStats, XbSat,
};
use crate::atoms::Atoms;
use crate::closure::{Closure, ClosureRelations};
use crate::limits::Interrupted;
use crate::reach::{Direction, Method, Reach};

/// Why [`scc_of_model`] gave no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SccError {
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    /// The method does not answer this query.
    #[error("method {method} does not compute {query}")]
    Unsupported {
        method: &'static str,
        query: &'static str,
    },
    /// A fairness set could not be built.
    #[error("Streett pair {pair}: {message}")]
    Formula { pair: usize, message: String },
}

/// Strong (Streett) fairness: pairs `(R_i, C_i)` of state formulas over a model's atoms; a fair
/// cycle visits no state of `R_i` or some state of `C_i`, for every `i`.
pub struct Streett<'x> {
    pub atoms: &'x Atoms,
    pub pairs: &'x [(StateFormula, StateFormula)],
}

/// The states in SCCs or in terminal SCCs of the reachability graph of `model`: the reachable
/// states by forward saturation, then the method within them. The model must have a finite
/// state space (stop an unbounded one with the limits).
pub fn scc_of_model(
    model: &Model,
    opts: SccOptions,
    progress: Option<Progress<'_>>,
) -> Result<SccOutcome, SccError> {
    run(model, opts, None, progress)
}

/// The reachable states on a nontrivial cycle that satisfies every Streett pair (thesis
/// section 4.4), by the transitive closure ([`SccMethod::Tc`], Figure 4.8 iterated) or by
/// Lockstep with SCC refinement ([`SccMethod::Lockstep`], which also counts the fair
/// components it finds).
pub fn fair_of_model(
    model: &Model,
    streett: Streett<'_>,
    opts: SccOptions,
    progress: Option<Progress<'_>>,
) -> Result<SccOutcome, SccError> {
    run(model, opts, Some(streett), progress)
}

fn run(
    model: &Model,
    opts: SccOptions,
    streett: Option<Streett<'_>>,
    progress: Option<Progress<'_>>,
) -> Result<SccOutcome, SccError> {
    let SccOptions {
        method,
        terminal,
        limits,
        gc_always,
    } = opts;
    let query = match (&streett, terminal) {
        (Some(_), _) => "Streett-fair cycles",
        (None, true) => "terminal SCCs",
        (None, false) => "SCCs",
    };
    let supported = match (method, &streett) {
        (SccMethod::Lockstep, Some(_)) | (SccMethod::Tc, Some(_)) => true,
        (_, Some(_)) => false,
        (SccMethod::Lockstep, None) => !terminal,
        (SccMethod::XbBfs, None) => terminal,
        (SccMethod::XbSat | SccMethod::Tc, None) => true,
    };
    if !supported {
        return Err(SccError::Unsupported {
            method: method.name(),
            query,
        });
    }
    let mut dd = Dd::new(model.num_levels());
    if gc_always {
        dd.set_gc_every(Some(64));
    }
    let mut reach = Reach::new(&mut dd, model, Direction::Forward, None);
    reach.set_limits(limits);
    let init = reach.state_set(&model.initial);
    let reachable = reach.explore(init, Method::Saturation)?;
    let fwd = reach.suspend();
    let reachable_pin = dd.pin(reachable);
    // the Streett pairs as sets of reachable states
    let mut pair_pins: Vec<(Pin, Pin)> = Vec::new();
    if let Some(st) = &streett {
        for (i, (r, c)) in st.pairs.iter().enumerate() {
            let mut set = |f: &StateFormula| -> Result<Pin, SccError> {
                let s = st
                    .atoms
                    .eval(&mut dd.sets, f)
                    .map_err(|e| SccError::Formula {
                        pair: i + 1,
                        message: e.to_string(),
                    })?;
                let s = dd.sets.intersect(s, reachable);
                Ok(dd.pin(s))
            };
            let r = set(r)?;
            let c = set(c)?;
            pair_pins.push((r, c));
        }
    }
    let pairs: Vec<(NodeId, NodeId)> = pair_pins.iter().map(|(r, c)| (r.get(), c.get())).collect();
    dd.collect();
    let take_sets = |dd: &mut Dd| std::mem::replace(&mut dd.sets, Forest::new(0, Reduction::Quasi));
    let finish = |sets: Forest, states: NodeId, count: Option<u64>, classes, stats| {
        let state_count = sets.cardinality(states);
        SccOutcome {
            sets,
            reachable,
            states,
            state_count,
            count,
            classes,
            stats,
        }
    };
    if method == SccMethod::Tc {
        drop(fwd);
        let rels = ClosureRelations::of_reachable(&mut dd, model);
        let mut tc = Closure::new(&mut dd, &rels);
        tc.set_limits(limits);
        let states = match (&streett, terminal) {
            (Some(_), _) => fair_scc_tc(&mut tc, reachable, &pairs)?,
            (None, true) => tscc_tc(&mut tc, reachable)?,
            (None, false) => scc_tc(&mut tc, reachable)?,
        };
        let stats = SccStats {
            closure_steps: tc.steps(),
            ..SccStats::default()
        };
        drop(tc);
        if dd.overflowed() {
            return Err(Interrupted::TooManyNodes.into());
        }
        drop(rels);
        drop(reachable_pin);
        drop(pair_pins);
        let sets = take_sets(&mut dd);
        return Ok(finish(sets, states, None, Vec::new(), stats));
    }
    if method == SccMethod::XbSat {
        // reachable local states only, for the backward generator
        let caps: Vec<u32> = (0..=model.num_levels())
            .map(|k| {
                if k == 0 {
                    u32::MAX
                } else {
                    dd.sets.domain(k).max(1)
                }
            })
            .collect();
        let mut back = Reach::new(&mut dd, model, Direction::Backward, Some(caps));
        back.set_limits(limits);
        let bwd = back.suspend();
        let mut engine = XbSat::new(&mut dd, fwd, bwd);
        engine.set_limits(limits);
        if let Some(p) = progress {
            engine.set_progress(p);
        }
        let (found, pins) = if terminal {
            (None, engine.xb_sat_terminal(reachable)?)
        } else {
            (Some(engine.xb_sat(reachable)?), Vec::new())
        };
        let stats = engine.stats;
        drop(engine);
        if dd.overflowed() {
            return Err(Interrupted::TooManyNodes.into());
        }
        let classes: Vec<NodeId> = pins.iter().map(Pin::get).collect();
        let (states, count) = match found {
            Some(f) => (f.states, f.count),
            None => (dd.sets.union_all(&classes), classes.len() as u64),
        };
        drop(reachable_pin);
        let sets = take_sets(&mut dd);
        return Ok(finish(sets, states, Some(count), classes, stats));
    }
    drop(fwd);
    // the BFS engines work on a bare set forest: take it out of the context
    let mut sets = take_sets(&mut dd);
    sets.add_root(reachable);
    for &(r, c) in &pairs {
        sets.add_root(r);
        sets.add_root(c);
    }
    sets.gc(&[]);
    let domains: Vec<u32> = (1..=model.num_levels()).map(|k| sets.domain(k)).collect();
    let next = NextState::new(model, &domains);
    let mut engine = Scc::new(&mut sets, &next);
    engine.set_limits(limits);
    engine.set_gc_always(gc_always);
    if let Some(p) = progress {
        engine.set_progress(p);
    }
    let (found, classes) = if terminal && streett.is_none() {
        let classes = engine.xb_tscc(reachable)?;
        let states = engine.sets.union_all(&classes);
        let count = classes.len() as u64;
        (SccSet { states, count }, classes)
    } else {
        (engine.lockstep_streett(reachable, &pairs)?, Vec::new())
    };
    let stats = engine.stats;
    drop(engine);
    if sets.overflowed() {
        return Err(Interrupted::TooManyNodes.into());
    }
    Ok(finish(
        sets,
        found.states,
        Some(found.count),
        classes,
        stats,
    ))
}
