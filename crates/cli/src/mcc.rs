//! `saturn mcc MODEL_DIR --examination E`: the Model Checking Contest's conventions. The answer
//! lines go to stdout; `DO_NOT_COMPETE` for a coloured net; `CANNOT_COMPUTE` (exit 3) when a limit stops the generation. Formula
//! examinations and global properties: see [`crate::mcc_check`].

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use crate::args::{
    BoundednessArg, EuMethodArg, ExplicitArg, LevelsArg, LimitArgs, MethodArg, OrderArg,
    PolytopeArg, RelationsArg, ScalingArg,
};
use crate::load::{load_net, lower_levels};
use crate::out;
use crate::report::{ok_object, Failure};
use crate::statespace::MCC_ORDER;
use crate::witness::WitnessFormat;
use saturn_engine::Answer;

/// Every examination of the contest (its `BK_EXAMINATION` values).
pub const EXAMINATIONS: &[&str] = &[
    "StateSpace",
    "GlobalProperties",
    "ReachabilityDeadlock",
    "QuasiLiveness",
    "StableMarking",
    "Liveness",
    "OneSafe",
    "UpperBounds",
    "ReachabilityCardinality",
    "ReachabilityFireability",
    "CTLCardinality",
    "CTLFireability",
    "LTLCardinality",
    "LTLFireability",
];

/// Does Saturn answer this examination today (all of them)?
pub fn answered(exam: &str) -> bool {
    EXAMINATIONS.contains(&exam)
}

/// The contest's word for "this tool does not take part in this examination".
pub const DO_NOT_COMPETE: &str = "DO_NOT_COMPETE";

#[derive(clap::Args, Debug)]
pub struct MccArgs {
    /// The model directory (holding model.pnml and the formula files).
    pub model_dir: PathBuf,
    /// The examination; defaults to the BK_EXAMINATION environment variable.
    #[arg(long)]
    pub examination: Option<String>,
    /// The generation algorithm.
    #[arg(long, value_enum, default_value_t = MethodArg::Saturation)]
    pub method: MethodArg,
    /// The variable order.
    #[arg(long, value_enum, default_value_t = MCC_ORDER)]
    pub order: OrderArg,
    /// How events are applied (auto: each candidate order both ways).
    #[arg(long, value_enum, default_value_t = RelationsArg::Auto)]
    pub relations: RelationsArg,
    /// What a level holds (every examination but the LTL ones, which keep one place per
    /// level): one place, or a one-hot group of places.
    #[arg(long, value_enum, default_value_t = LevelsArg::Auto)]
    pub levels: LevelsArg,
    /// The EU algorithm of the CTL and reachability examinations.
    #[arg(long, value_enum, default_value_t = EuMethodArg::ConsSatRch)]
    pub eu_method: EuMethodArg,
    /// How the LTL examinations' formulas are decided (as `saturn check --ltl-method`).
    #[arg(long, value_enum, default_value_t = crate::ltl_run::LtlMethodArg::Auto)]
    pub ltl_method: crate::ltl_run::LtlMethodArg,
    /// Where the symbolic LTL product puts the automaton's level.
    #[arg(long, value_enum, default_value_t = crate::ltl_run::LtlLevelArg::Bottom)]
    pub ltl_level: crate::ltl_run::LtlLevelArg,
    /// Partial-order reduction (stubborn sets) in the explicit LTL product, for the
    /// stutter-insensitive formulas (as `saturn check --por`).
    #[arg(long, value_enum, default_value_t = crate::ltl_run::PorArg::On)]
    pub por: crate::ltl_run::PorArg,
    /// Decide boundedness alongside generation (an unbounded net answers +inf).
    #[arg(long, value_enum, default_value_t = BoundednessArg::Race)]
    pub boundedness: BoundednessArg,
    /// Figures of a net with many tokens per place from the same net with few (auto: when
    /// they are provably polynomials in the scale of the initial marking).
    #[arg(long, value_enum, default_value_t = ScalingArg::Auto)]
    pub scaling: ScalingArg,
    /// Figures of a bounded net with many tokens per place from the polytope of its
    /// P-semiflows, when every marking of it is proved reachable (auto), or always generate;
    /// for GlobalProperties, deadlock and (quasi-)liveness from it when its reverse proves
    /// the initial marking a home state.
    #[arg(long, value_enum, default_value_t = PolytopeArg::Auto)]
    pub polytope: PolytopeArg,
    /// Race an explicit-state search beside the generation (StateSpace, the formula
    /// examinations and the global properties); `only`: the explicit search alone.
    #[arg(long, value_enum, default_value_t = ExplicitArg::Auto)]
    pub explicit: ExplicitArg,
    /// Print one JSON object (with the contest lines under "lines") instead of the lines.
    #[arg(long)]
    pub json: bool,
    /// Limits; without --timeout, the BK_TIME_CONFINEMENT environment variable (seconds).
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Levenshtein distance (case-insensitive), for suggesting the examination meant.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The examination named `name`, or an error suggesting the nearest known name.
pub fn examination(name: &str) -> Result<&'static str, Failure> {
    if let Some(e) = EXAMINATIONS.iter().find(|e| **e == name) {
        return Ok(e);
    }
    let nearest = EXAMINATIONS
        .iter()
        .min_by_key(|e| distance(name, e))
        .copied()
        .unwrap_or("StateSpace");
    Err(Failure::error(format!(
        "unknown examination '{name}'; did you mean '{nearest}'? (the contest's examinations: {})",
        EXAMINATIONS.join(", ")
    )))
}

/// The limits of a contest run: `--timeout`, else `BK_TIME_CONFINEMENT` seconds.
fn contest_limits(a: &MccArgs) -> Result<LimitArgs, Failure> {
    let mut l = a.limits.clone();
    if l.timeout.is_none() {
        if let Ok(v) = std::env::var("BK_TIME_CONFINEMENT") {
            let secs: u64 = v.trim().parse().ok().filter(|&s| s > 0).ok_or_else(|| {
                Failure::error(format!(
                    "BK_TIME_CONFINEMENT='{v}': expected a positive number of seconds"
                ))
            })?;
            l.timeout = Some(secs);
        }
    }
    Ok(l)
}

/// Is this contest directory a coloured model (the contest's `iscolored` file says TRUE)?
fn marked_coloured(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("iscolored")).is_ok_and(|s| s.trim() == "TRUE")
}

/// Print the contest lines (or the JSON object holding them).
fn answer(
    a: &MccArgs,
    exam: &str,
    lines: &[String],
    extra: serde_json::Value,
) -> anyhow::Result<ExitCode> {
    if a.json {
        let mut v = ok_object(
            "mcc",
            &a.model_dir.display().to_string(),
            json!({ "examination": exam, "lines": lines }),
        );
        if let (Some(o), serde_json::Value::Object(x)) = (v.as_object_mut(), extra) {
            o.extend(x);
        }
        out::println(v)?;
    } else {
        out::print(&lines.iter().map(|l| format!("{l}\n")).collect::<String>())?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run(a: &MccArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let given = match &a.examination {
        Some(e) => e.clone(),
        None => match std::env::var("BK_EXAMINATION") {
            Ok(e) if !e.is_empty() => e,
            _ => {
                return Err(Failure::error(
                    "no examination: pass --examination or set BK_EXAMINATION",
                )
                .into())
            }
        },
    };
    let exam = examination(&given)?;
    let limits = contest_limits(a)?;
    let dnc = || vec![DO_NOT_COMPETE.to_string()];
    if !answered(exam) || marked_coloured(&a.model_dir) {
        return answer(a, exam, &dnc(), json!({}));
    }
    let spec = a.model_dir.to_string_lossy().into_owned();
    let net = match load_net(&spec) {
        Ok((net, _)) => net,
        Err(e) => match e.downcast_ref::<saturn_pnml::PnmlError>() {
            Some(saturn_pnml::PnmlError::Coloured { .. }) => {
                return answer(a, exam, &dnc(), json!({}))
            }
            _ => return Err(e),
        },
    };
    // LTL: the explicit on-the-fly product with the formula's automaton (crate::mcc_ltl)
    if exam.starts_with("LTL") {
        let budget = crate::mcc_ltl::budget(limits.max_memory);
        let generation = crate::ltl_run::Generation {
            order: a.order,
            method: a.method.method(),
            relations: a.relations.relations(),
            progress: a.limits.progress,
        };
        let run = crate::mcc_ltl::contest_run(
            &net,
            limits.limits(start),
            budget,
            generation,
            a.ltl_method,
            a.ltl_level,
            a.por,
        );
        let lines = crate::mcc_ltl::lines(exam, &a.model_dir, &run).map_err(Failure::error)?;
        return answer(a, exam, &lines, json!({}));
    }
    // StateSpace: the engine's strategy (closed form, scaling, the race)
    if exam == "StateSpace" {
        return statespace(a, net, &limits, start);
    }
    // what a formula examination asks, read before the state space is generated
    debug_assert!(crate::mcc_check::answers(exam));
    let items = crate::mcc_check::items(exam, &a.model_dir, &net).map_err(Failure::error)?;
    // one-hot groups on one level as for StateSpace: the atoms read a group's places off its
    // level (saturn_engine::formulas::symbolic::atoms_for)
    let models: Vec<_> = lower_levels(&net, a.order, limits.timeout, a.levels.grouping(a.order))?
        .into_iter()
        .map(|(_, m)| m)
        .collect();
    let opts = saturn_engine::formulas::FormulaOptions {
        engine: saturn_engine::Options {
            method: a.method.method(),
            relations: a.relations.relations(),
            portfolio: a.order == OrderArg::Auto,
            boundedness: a.boundedness == BoundednessArg::Race,
            polytope: a.polytope == PolytopeArg::Auto,
            explicit: a.explicit.mode(),
            ..saturn_engine::Options::default()
        },
        eu_method: a.eu_method.eu_method(),
        // EF φ / AG φ: a forward search that meets a φ-state answers without the whole state
        // space (an eighth of the time)
        early: matches!(exam, "ReachabilityCardinality" | "ReachabilityFireability"),
    };
    let progress = crate::progress::reporter(exam, a.limits.progress, net.places.len());
    // in text, each answer is printed as it is decided (a run cut short keeps it; a closed
    // pipe is met again by the last print, which reports it); the JSON object comes at the end
    let print_now = |n: usize, d: &saturn_engine::formulas::Decided| {
        if !a.json {
            let _ = out::println(crate::mcc_check::decided_line(&items[n], d));
        }
    };
    let got = saturn_engine::formulas::check_streaming(
        &net,
        &models,
        &items,
        &opts,
        limits.limits(start),
        progress,
        &print_now,
    );
    let (mut lines, failed) = crate::mcc_check::lines(&items, &got);
    if !a.json {
        // the decided ones are printed already
        lines = lines
            .into_iter()
            .zip(&got.verdicts)
            .filter(|(_, v)| v.decided.is_none())
            .map(|(l, _)| l)
            .collect();
    }
    use saturn_engine::formulas::{Ended, Technique};
    let extra = json!({
        "cannot_compute": failed,
        "early": got.count(Technique::EarlySearch),
        "symbolic": got.count(Technique::Symbolic),
        "explicit": got.count(Technique::Explicit),
        "state_equation": got.count(Technique::StateEquation),
        "partial_order": got.count(Technique::PartialOrder),
        "structural_reduction": got.count(Technique::Reduction),
    });
    match got.ended {
        Ended::Done => answer(a, exam, &lines, extra),
        Ended::Unbounded(_) => {
            eprintln!(
                "saturn: {spec}: the net is unbounded; {failed} of its {} {exam} formulas \
                 unanswered (CANNOT_COMPUTE: the walks, the state equation and the on-the-fly \
                 search did not decide them, and the whole state space is infinite)",
                items.len()
            );
            answer(a, exam, &lines, extra)
        }
        Ended::Stopped(i) => {
            // the formulas answered before the stop are printed; the others are CANNOT_COMPUTE
            let mut f = Failure::with(
                crate::report::status_of(i),
                vec![crate::report::Diagnostic::plain(format!(
                    "saturn: {spec}: {exam}: the state space stopped, {}; {failed} of its {} \
                     formulas unanswered (CANNOT_COMPUTE)",
                    limits.describe(i),
                    items.len()
                ))],
                3,
            );
            f.stdout_line = (!lines.is_empty()).then(|| lines.join("\n"));
            Err(f.into())
        }
    }
}

/// The StateSpace examination: [`saturn_engine::statespace`], its answer as the contest's four
/// lines (`CANNOT_COMPUTE` when a limit stops it).
fn statespace(
    a: &MccArgs,
    net: saturn_model::PetriNet,
    limits: &LimitArgs,
    start: Instant,
) -> anyhow::Result<ExitCode> {
    let exam = "StateSpace";
    let spec = a.model_dir.to_string_lossy().into_owned();
    let opts = saturn_engine::Options {
        method: a.method.method(),
        relations: a.relations.relations(),
        portfolio: a.order == OrderArg::Auto,
        boundedness: a.boundedness == BoundednessArg::Race,
        scaling: a.scaling == ScalingArg::Auto,
        polytope: a.polytope == PolytopeArg::Auto,
        explicit: a.explicit.mode(),
    };
    let grouping = a.levels.grouping(a.order);
    // the candidate orders' names, for the JSON's `order_used`
    let orders = std::cell::RefCell::new(Vec::new());
    let lower = |net: &saturn_model::PetriNet| -> anyhow::Result<Vec<saturn_model::Model>> {
        let (names, models) = lower_levels(net, a.order, limits.timeout, grouping)?
            .into_iter()
            .unzip();
        *orders.borrow_mut() = names;
        Ok(models)
    };
    let progress = crate::progress::reporter("StateSpace", a.limits.progress, net.places.len());
    let got = match saturn_engine::statespace(net, lower, &opts, limits.limits(start), progress) {
        Ok(got) => got,
        Err(saturn_engine::Error::Lower(e)) => return Err(e),
        Err(saturn_engine::Error::Stopped(i)) => {
            let mut f = Failure::interrupted(
                i,
                &format!("saturn: {spec}: StateSpace"),
                limits.describe(i),
            );
            f.stdout_line = Some("CANNOT_COMPUTE".into());
            return Err(f.into());
        }
    };
    let words = got.technique().contest_words();
    let names = [
        "STATES",
        "TRANSITIONS",
        "MAX_TOKEN_IN_PLACE",
        "MAX_TOKEN_PER_MARKING",
    ];
    let values = match got.figures() {
        Some(f) => [
            f.states.to_string(),
            f.transitions.to_string(),
            f.max_local.to_string(),
            f.max_sum.to_string(),
        ],
        None => [
            "+inf".to_string(),
            "+inf".into(),
            "+inf".into(),
            "+inf".into(),
        ],
    };
    let lines: Vec<String> = names
        .iter()
        .zip(&values)
        .map(|(n, v)| format!("STATE_SPACE {n} {v} TECHNIQUES {words}"))
        .collect();
    let extra = match &got {
        Answer::ClosedForm(f) => crate::figures::closed_form_json(f),
        Answer::Scaled { scaling, figures } => crate::figures::scaled_json(scaling, figures),
        Answer::Polytope(p) => crate::figures::polytope_json(p),
        Answer::Unbounded(w) => json!({ "states": "+inf", "witness": w.json() }),
        Answer::Counted(c) => json!({
            "engine": "explicit",
            "states": c.states.to_string(),
            "transitions": c.transitions.to_string(),
            "max_tokens_place": c.max_tokens_place,
            "max_tokens_marking": c.max_tokens_marking,
        }),
        Answer::Generated { ss, won, .. } => {
            let m = &ss.metrics;
            json!({
                "engine": "symbolic",
                "order_used": orders.borrow().get(*won),
                "states": m.states.to_string(),
                "transitions": m.transitions.to_string(),
                "max_tokens_place": m.max_local,
                "max_tokens_marking": m.max_sum,
            })
        }
    };
    answer(a, exam, &lines, extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_is_levenshtein() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("StateSpace", "statespace"), 0);
        assert_eq!(distance("", "abc"), 3);
    }

    #[test]
    fn misspelt_names_suggest_the_nearest() {
        for (typo, meant) in [
            ("StateSpce", "StateSpace"),
            ("CTLFireabilty", "CTLFireability"),
            ("ReachabilityDeadlok", "ReachabilityDeadlock"),
            ("upperbounds", "UpperBounds"),
        ] {
            let msg = examination(typo).unwrap_err().to_string();
            assert!(msg.contains(&format!("did you mean '{meant}'")), "{msg}");
        }
        assert_eq!(examination("LTLCardinality").unwrap(), "LTLCardinality");
    }
}
