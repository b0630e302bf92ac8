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
use saturn_symbolic::{Direction, Interrupted, Limits, Progress, Reach};

use super::{Board, Ended, FormulaOptions, Item, Question, Technique, Value};
use crate::Reachable;

/// The atoms of `net`'s formulas over `model`: the net lowered with some order, each level a
/// place (its name the place's id) or a one-hot group of places ([`saturn_model::OneHot`]:
/// [`saturn_model::Level::group`] lists them).
pub fn atoms_for(model: &Model, net: &PetriNet) -> Atoms {
    if !model.levels.iter().any(|l| l.one_hot) {
        // `model.levels[k]` holds the place with that id
        let order: Vec<usize> = model
            .levels
            .iter()
            .map(|l| net.place_index(&l.name).unwrap_or(0))
            .collect();
        return Atoms::for_petri(model, &order);
    }
    let n = net.places.len();
    let mut level_of_place = vec![0; n];
    let mut in_group = vec![None; n];
    for (k, l) in model.levels.iter().enumerate() {
        if l.one_hot {
            for (j, &p) in l.group.iter().enumerate() {
                if p < n {
                    level_of_place[p] = k + 1;
                    in_group[p] = Some(j as u32);
                }
            }
        } else if let Some(p) = net.place_index(&l.name) {
            level_of_place[p] = k + 1;
        }
    }
    Atoms::with_groups(model, level_of_place, in_group)
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

/// [`checker`] within `limits` ([`Checker::new_within`]): `Err` when a limit stops it.
pub fn checker_within<'a>(
    ss: &'a mut StateSpace,
    model: &Model,
    net: &PetriNet,
    deadlocks: Deadlocks,
    limits: Limits,
) -> Result<Checker<'a>, Interrupted> {
    let atoms = atoms_for(model, net);
    let reach = Reach::new(&mut ss.dd, model, Direction::Forward, None);
    Checker::new_within(reach, model, atoms, ss.states, deadlocks, limits)
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
            let within = checker_within(&mut ss, &models[won], net, Deadlocks::Maximal, limits);
            let mut checker = match within {
                Ok(c) => c,
                Err(_) if board.all_decided() => return Ended::Done,
                Err(i) => return Ended::Stopped(i),
            };
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;
    use saturn_logic::LinExpr;
    use saturn_model::order::semiflow_supports;
    use saturn_model::OneHot;
    use saturn_reference::strategies::{
        config, ctl_formula, discard, net_with_processes, petri_net,
    };
    use saturn_reference::{explore_petri, global_properties, upper_bound, CtlChecker, Graph};
    use saturn_symbolic::ctl::GLOBAL_PROPERTIES;
    use saturn_symbolic::statespace::generate_with;
    use saturn_symbolic::{Method, Relations};

    use super::*;

    /// A net with planted processes, an order of its units (a rotation, maybe reversed), CTL
    /// formulas over it (atoms over any places, fireability, deadlock) and sums of places.
    #[allow(clippy::type_complexity)]
    fn case() -> impl Strategy<
        Value = (
            PetriNet,
            (usize, bool),
            Vec<StateFormula>,
            Vec<Vec<(usize, i64)>>,
        ),
    > {
        net_with_processes(6, 8).prop_flat_map(|net| {
            let (np, nt) = (net.places.len(), net.transitions.len());
            let fs = proptest::collection::vec(ctl_formula(np, nt), 4);
            let sums = proptest::collection::vec(
                proptest::collection::vec((0..np, 1i64..=3), 1..=np.min(5)),
                3,
            );
            (Just(net), (0usize..64, any::<bool>()), fs, sums)
        })
    }

    proptest! {
        #![proptest_config(config(150))]

        /// Every formula kind, UpperBounds of sums mixing group and plain places, and the five
        /// global properties, answered on one-hot group levels ([`atoms_for`], [`checker`]) as
        /// the explicit reference checker answers them on the net.
        #[test]
        fn one_hot_levels_answer_as_the_explicit_checker(
            (net, (rot, rev), fs, sums) in case()
        ) {
            let Ok(space) = explore_petri(&net, 3_000) else {
                return Err(discard("unbounded or too large for the reference"));
            };
            let groups = OneHot::find(&net, &semiflow_supports(&net, &|| false));
            prop_assert!(!groups.groups.is_empty());
            let mut order: Vec<usize> = (0..groups.units()).collect();
            let len = order.len();
            order.rotate_left(rot % len);
            if rev {
                order.reverse();
            }
            let model = groups.to_model(&net, &order).unwrap();
            let mut ss = generate_with(&model, Method::Saturation, Relations::Implicit, Limits::none(), None).unwrap();
            let mut c = checker(&mut ss, &model, &net, Deadlocks::Maximal);
            let explicit = CtlChecker::new(&net, &space, saturn_reference::Deadlocks::Maximal);
            for f in &fs {
                let set = c.sat(f).unwrap();
                let sat = explicit.sat(f).unwrap();
                let want: BTreeSet<Vec<u64>> = space.markings.iter().zip(&sat)
                    .filter(|(_, &b)| b).map(|(m, _)| m.clone()).collect();
                let got: BTreeSet<Vec<u64>> = c.states(set, usize::MAX).iter()
                    .map(|t| groups.marking(&order, t)).collect();
                prop_assert_eq!(c.holds(f).unwrap(), sat[0], "{:?}", f);
                prop_assert_eq!(got, want, "{:?}", f);
            }
            for terms in sums {
                let expr = LinExpr { terms, constant: 0 };
                let got = c.upper_bound(&expr).unwrap();
                prop_assert_eq!(got, Some(upper_bound(&space.markings, &expr)), "{:?}", expr);
            }
            let graph = Graph::new(&space);
            let want = global_properties(&net, &space, &graph);
            for name in GLOBAL_PROPERTIES {
                let got = c.global_property(name, net.transitions.len()).unwrap();
                prop_assert_eq!(got, want.by_name(name), "{}", name);
            }
        }
    }

    /// The global properties of a net lowered with its groups, and its StateSpace figures.
    fn grouped_globals(net: &PetriNet) -> Vec<Option<bool>> {
        let groups = OneHot::find(net, &semiflow_supports(net, &|| false));
        assert_eq!(groups.groups, vec![vec![0, 1, 2]]);
        let model = groups.to_model(net, &[0]).unwrap();
        let mut ss = generate_with(
            &model,
            Method::Saturation,
            Relations::Implicit,
            Limits::none(),
            None,
        )
        .unwrap();
        let mut c = checker(&mut ss, &model, net, Deadlocks::Maximal);
        GLOBAL_PROPERTIES
            .iter()
            .map(|p| c.global_property(p, net.transitions.len()).unwrap())
            .collect()
    }

    #[test]
    fn a_groups_place_never_marked_is_stable_and_one_always_marked_too() {
        // a <-> b, and c -> a with c never marked: c is stable, the net one-safe and live
        // but for c -> a
        let arcs = |i: usize, o: usize| (vec![(i, 1)], vec![(o, 1)], vec![]);
        let net = petri_net(&[1, 0, 0], vec![arcs(0, 1), arcs(1, 0), arcs(2, 0)]);
        let got = grouped_globals(&net);
        // ReachabilityDeadlock, QuasiLiveness, Liveness, OneSafe, StableMarking
        assert_eq!(
            got,
            vec![
                Some(false),
                Some(false),
                Some(false),
                Some(true),
                Some(true)
            ]
        );
        // a -> b -> c -> a: every place marked and unmarked in turn, none stable
        let net = petri_net(&[1, 0, 0], vec![arcs(0, 1), arcs(1, 2), arcs(2, 0)]);
        assert_eq!(
            grouped_globals(&net),
            vec![Some(false), Some(true), Some(true), Some(true), Some(false)]
        );
    }
}
