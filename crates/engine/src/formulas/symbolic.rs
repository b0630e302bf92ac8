//! The symbolic side of [`super::check`]: the early forward search for `EF φ` / `AG φ`, then the
//! reachable states ([`crate::reachable`]) and a CTL checker over them, each question within
//! an equal share of the time left, and a second pass for the questions stopped by their share.
//! Also the glue from a generated state space to a checker (used by `saturn check` too).

use std::time::Instant;

use num_bigint::BigUint;
use saturn_logic::{ResolvedQuery, StateFormula};
use saturn_model::{Model, PetriNet};
use saturn_symbolic::atoms::Atoms;
use saturn_symbolic::ctl::{Checker, CtlError, Deadlocks};
use saturn_symbolic::statespace::StateSpace;
use saturn_symbolic::{Direction, Limits, Progress, Reach};

use super::{Board, Ended, FormulaOptions, Item, Question, Technique, Value};
use crate::Reachable;

/// The atoms of `net`'s formulas over `model` (the net lowered with some place order).
pub fn atoms_for(model: &Model, net: &PetriNet) -> Atoms {
    // `model.levels[k]` holds the place with that id
    let order: Vec<usize> = model
        .levels
        .iter()
        .map(|l| net.place_index(&l.name).unwrap_or(0))
        .collect();
    Atoms::for_petri(model, &order)
}

/// A checker over a generated state space of `net`, lowered to `model`.
pub fn checker<'a>(
    ss: &'a mut StateSpace,
    model: &Model,
    net: &PetriNet,
    deadlocks: Deadlocks,
) -> Checker<'a> {
    let atoms = atoms_for(model, net);
    let reach = Reach::new(&mut ss.dd, model, Direction::Forward, None);
    Checker::new(reach, model, atoms, ss.states, deadlocks)
}

/// The answer to one query.
pub enum Answer {
    /// A formula's truth at the initial marking, with the number of reachable states
    /// satisfying it.
    Bool { holds: bool, states: BigUint },
    /// An UpperBounds query.
    Bound(i128),
}

impl Answer {
    /// The contest's word for it: `TRUE`, `FALSE` or the bound.
    pub fn word(&self) -> String {
        self.value().word()
    }

    /// The value alone.
    pub fn value(&self) -> Value {
        match self {
            Answer::Bool { holds, .. } => Value::Bool(*holds),
            Answer::Bound(b) => Value::Bound(*b),
        }
    }
}

/// Answer one query.
pub fn answer(c: &mut Checker, q: &ResolvedQuery) -> Result<Answer, CtlError> {
    match q {
        ResolvedQuery::Formula(f) => {
            let set = c.sat(f)?;
            let holds = c.holds(f)?;
            Ok(Answer::Bool {
                holds,
                states: c.count(set),
            })
        }
        // the state space is never empty: it holds the initial marking
        ResolvedQuery::Bound(e) => Ok(Answer::Bound(c.upper_bound(e)?.unwrap_or(0))),
    }
}

/// `EF φ` → (true, φ); `AG φ` → (false, ¬φ): the target a forward search looks for.
pub(super) fn reach_target(f: &StateFormula) -> Option<(bool, StateFormula)> {
    match f {
        StateFormula::EF(phi) => Some((true, phi.as_ref().clone())),
        StateFormula::AG(phi) => Some((false, StateFormula::Not(phi.clone()))),
        _ => None,
    }
}

/// The symbolic side: decides on `board` what it can within `limits` (whose `cancel` is the
/// board's "all decided" flag), the portfolio's second worker waiting while `busy`, `proven`
/// told what the generation proves; returns how it ended and why each question it tried is
/// undecided.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    net: &PetriNet,
    models: &[Model],
    items: &[Item],
    board: &Board,
    opts: &FormulaOptions,
    limits: Limits,
    progress: Option<Progress>,
    (busy, proven): (&(dyn Fn() -> bool + Sync), &(dyn Fn(f64) + Sync)),
    why: &mut [Option<String>],
) -> Ended {
    if opts.early {
        if let Some(m) = models.first() {
            let mut l = limits;
            l.deadline = l.deadline.map(|d| {
                let now = Instant::now();
                now + d.saturating_duration_since(now) / 8
            });
            early_reachability(items, m, net, board, l);
        }
    }
    if board.all_decided() {
        return Ended::Done;
    }
    match crate::reachable_beside(net, models, &opts.engine, limits, progress, busy, proven) {
        Ok(Reachable::Unbounded(w)) => Ended::Unbounded(w),
        Ok(Reachable::Generated { won, mut ss }) => {
            let mut checker = checker(&mut ss, &models[won], net, Deadlocks::Maximal);
            checker.set_eu_method(opts.eu_method);
            answer_rest(&mut checker, items, board, net, limits, why);
            Ended::Done
        }
        Err(_) if board.all_decided() => Ended::Done,
        Err(i) => Ended::Stopped(i),
    }
}

/// The contest's reachability formulas answered without the whole state space: for each item
/// `EF φ` (`AG φ`) with `φ` free of temporal operators, a forward breadth-first search
/// ([`saturn_symbolic::Reach::search`]) that meets a `φ`-state (`¬φ`-state) answers TRUE
/// (FALSE); a search that completes answers the others. Stops at `limits`.
fn early_reachability(
    items: &[Item],
    model: &Model,
    net: &PetriNet,
    board: &Board,
    limits: Limits,
) {
    let mut dd = saturn_dd::Dd::new(model.num_levels());
    let atoms = atoms_for(model, net);
    // (item, is EF, target formula)
    let mut targets: Vec<(usize, bool, StateFormula)> = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let Question::Formula(ResolvedQuery::Formula(f)) = &item.question else {
            continue;
        };
        let Some((ef, phi)) = reach_target(f) else {
            continue;
        };
        if atoms.eval(&mut dd.sets, &phi).is_ok() {
            targets.push((n, ef, phi));
        }
    }
    if targets.is_empty() {
        return;
    }
    let mut reach = Reach::new(&mut dd, model, Direction::Forward, None);
    reach.set_limits(limits);
    let init = reach.state_set(&model.initial);
    let mut build = |f: &mut saturn_dd::Forest| {
        targets
            .iter()
            .map(|t| atoms.eval(f, &t.2).unwrap_or(saturn_dd::NodeId::EMPTY))
            .collect()
    };
    let r = reach.search(init, &mut build);
    for ((n, ef, _), found) in targets.iter().zip(&r.found) {
        let holds = match (found, r.complete) {
            // a target state is reachable: EF holds, AG fails
            (Some(_), _) => *ef,
            // none is: EF fails, AG holds
            (None, true) => !*ef,
            (None, false) => continue,
        };
        board.decide(*n, Value::Bool(holds), Technique::EarlySearch);
    }
}

/// Answer every item not yet decided on `board` with `checker`, each within an equal share of
/// the time left (a formula finished early leaves its time to the next ones); then the items
/// stopped by their share are tried again, in order, each with an equal share of what is left
/// (the checker keeps what it computed for them). An item decided meanwhile (by the explicit
/// search) cancels the checker's work on it. `why[n]`: why item `n` stays undecided.
fn answer_rest(
    checker: &mut Checker,
    items: &[Item],
    board: &Board,
    net: &PetriNet,
    limits: Limits,
    why: &mut [Option<String>],
) {
    let mut todo: Vec<usize> = (0..items.len()).filter(|&n| !board.decided(n)).collect();
    for pass in 0..2 {
        let mut again = Vec::new();
        for (k, &n) in todo.iter().enumerate() {
            if board.decided(n) {
                continue;
            }
            let share = limits.deadline.map(|d| {
                let left = d.saturating_duration_since(Instant::now());
                Instant::now() + left / (todo.len() - k) as u32
            });
            checker.set_limits(Limits {
                deadline: share,
                cancel: Some(board.flag(n)),
                cancel_also: limits.cancel_also,
                ..limits
            });
            let item = &items[n];
            let last = pass == 1;
            let got = match &item.question {
                Question::Unreadable(e) => {
                    why[n] = Some(e.clone());
                    continue;
                }
                Question::Formula(q) => answer(checker, q).map(|a| Some(a.value())),
                Question::Global(p) => checker
                    .global_property(p, net.transitions.len())
                    .map(|b| b.map(Value::Bool)),
            };
            match got {
                Ok(Some(v)) => {
                    board.decide(n, v, Technique::Symbolic);
                }
                Ok(None) => again.push(n),
                Err(_) if board.decided(n) => {}
                Err(e) => {
                    if last {
                        why[n] = Some(e.to_string());
                    }
                    again.push(n);
                }
            }
        }
        todo = again;
        if pass == 0 && !todo.is_empty() && limits.deadline.is_some_and(|d| Instant::now() >= d) {
            for &n in &todo {
                why[n] = Some("not answered within the time limit".into());
            }
            break;
        }
    }
    checker.set_limits(limits);
}
