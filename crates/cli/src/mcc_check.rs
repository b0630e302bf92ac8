//! The contest's formula examinations (`CTLCardinality`, `CTLFireability`,
//! `ReachabilityCardinality`, `ReachabilityFireability`, `UpperBounds`) and its global
//! properties (`ReachabilityDeadlock`, `QuasiLiveness`, `Liveness`, `OneSafe`, `StableMarking`,
//! and `GlobalProperties` for all five), answered on one generated state space: one line
//! `FORMULA <id> <answer> TECHNIQUES ...` per formula, `FORMULA <id> CANNOT_COMPUTE` for one
//! that cannot be read or finished within its share of the time (the others are still
//! answered).

use std::path::Path;
use std::time::Instant;

use saturn_logic::ResolvedQuery;
use saturn_model::PetriNet;
use saturn_symbolic::ctl::{Checker, GLOBAL_PROPERTIES};
use saturn_symbolic::Limits;

use crate::queries;

/// The examinations with a formula file `<exam>.xml`.
pub const FORMULA_EXAMS: [&str; 5] = [
    "CTLCardinality",
    "CTLFireability",
    "ReachabilityCardinality",
    "ReachabilityFireability",
    "UpperBounds",
];

/// The techniques named on every answer line.
pub const TECHNIQUES: &str = "TECHNIQUES DECISION_DIAGRAMS";

/// One answer line to give.
pub struct Item {
    /// The formula id, or the property's name.
    pub id: String,
    what: What,
}

enum What {
    /// A formula, or why it cannot be checked.
    Query(Result<ResolvedQuery, String>),
    /// A global property by name.
    Global(&'static str),
}

/// Does `exam` name a formula examination or a global property?
pub fn answers(exam: &str) -> bool {
    FORMULA_EXAMS.contains(&exam) || exam == "GlobalProperties" || GLOBAL_PROPERTIES.contains(&exam)
}

/// What `exam` asks on the net of `dir`: its formula file's formulas (each resolved on its
/// own), or the global properties. A formula file that does not read is an error (message).
pub fn items(exam: &str, dir: &Path, net: &PetriNet) -> Result<Vec<Item>, String> {
    if FORMULA_EXAMS.contains(&exam) {
        let jobs = queries::from_file_each(&dir.join(format!("{exam}.xml")), net)?;
        return Ok(jobs
            .into_iter()
            .map(|j| Item {
                id: j.id,
                what: What::Query(j.query),
            })
            .collect());
    }
    Ok(GLOBAL_PROPERTIES
        .iter()
        .filter(|p| exam == "GlobalProperties" || **p == exam)
        .map(|p| Item {
            id: p.to_string(),
            what: What::Global(p),
        })
        .collect())
}

/// The lines of `items`: an early answer where there is one, CANNOT_COMPUTE elsewhere.
pub fn early_or_cannot(items: &[Item], early: &[Option<bool>]) -> Vec<String> {
    items
        .iter()
        .zip(early)
        .map(|(i, e)| match e {
            Some(b) => format!("FORMULA {} {} {TECHNIQUES}", i.id, word(*b)),
            None => format!("FORMULA {} CANNOT_COMPUTE", i.id),
        })
        .collect()
}

fn word(b: bool) -> &'static str {
    if b {
        "TRUE"
    } else {
        "FALSE"
    }
}

/// The contest's reachability formulas answered without the whole state space: for each item
/// `EF φ` (`AG φ`) with `φ` free of temporal operators, a forward breadth-first search
/// ([`saturn_symbolic::Reach::search`]) that meets a `φ`-state (`¬φ`-state) answers TRUE
/// (FALSE); a search that completes answers the others. Stops at `limits`; `None` where no
/// answer was found.
pub fn early_reachability(
    items: &[Item],
    model: &saturn_model::Model,
    net: &PetriNet,
    limits: Limits,
) -> Vec<Option<bool>> {
    use saturn_logic::StateFormula as F;
    let mut dd = saturn_dd::Dd::new(model.num_levels());
    let atoms = queries::atoms_for(model, net);
    // (item, is EF, target formula)
    let mut targets: Vec<(usize, bool, F)> = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let What::Query(Ok(ResolvedQuery::Formula(f))) = &item.what else {
            continue;
        };
        let (ef, phi) = match f {
            F::EF(phi) => (true, phi.as_ref().clone()),
            F::AG(phi) => (false, F::Not(phi.clone())),
            _ => continue,
        };
        if atoms.eval(&mut dd.sets, &phi).is_ok() {
            targets.push((n, ef, phi));
        }
    }
    let mut out = vec![None; items.len()];
    if targets.is_empty() {
        return out;
    }
    let mut reach =
        saturn_symbolic::Reach::new(&mut dd, model, saturn_symbolic::Direction::Forward, None);
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
        out[*n] = match (found, r.complete) {
            // a target state is reachable: EF holds, AG fails
            (Some(_), _) => Some(*ef),
            // none is: EF fails, AG holds
            (None, true) => Some(!*ef),
            (None, false) => None,
        };
    }
    out
}

/// Answer every item without an early answer (`early[n]`, used as it is) with `checker`, each
/// within an equal share of the time left (a formula finished early leaves its time to the next
/// ones); then the items stopped by their share are tried again, in order, each with an equal
/// share of what is left (the checker keeps what it computed for them). Returns the lines and
/// how many items could not be answered.
pub fn answer_rest(
    checker: &mut Checker,
    items: &[Item],
    early: &[Option<bool>],
    net: &PetriNet,
    limits: Limits,
) -> (Vec<String>, usize) {
    let mut words: Vec<Option<String>> = early.iter().map(|e| e.map(|b| word(b).into())).collect();
    let mut todo: Vec<usize> = (0..items.len()).filter(|&n| early[n].is_none()).collect();
    for pass in 0..2 {
        let mut again = Vec::new();
        for (k, &n) in todo.iter().enumerate() {
            let share = limits.deadline.map(|d| {
                let left = d.saturating_duration_since(Instant::now());
                Instant::now() + left / (todo.len() - k) as u32
            });
            checker.set_limits(Limits {
                deadline: share,
                ..limits
            });
            let item = &items[n];
            let last = pass == 1;
            words[n] = match &item.what {
                What::Query(Err(e)) => {
                    eprintln!("error: {e}");
                    continue;
                }
                What::Query(Ok(q)) => match queries::answer(checker, q) {
                    Ok(a) => Some(a.word()),
                    Err(e) => {
                        if last {
                            eprintln!("{}: {e}", item.id);
                        }
                        None
                    }
                },
                What::Global(p) => match checker.global_property(p, net.transitions.len()) {
                    Ok(Some(b)) => Some(word(b).into()),
                    Ok(None) => None,
                    Err(e) => {
                        if last {
                            eprintln!("{}: {e}", item.id);
                        }
                        None
                    }
                },
            };
            if words[n].is_none() {
                again.push(n);
            }
        }
        todo = again;
        if pass == 0 && !todo.is_empty() && limits.deadline.is_some_and(|d| Instant::now() >= d) {
            for &n in &todo {
                eprintln!("{}: not answered within the time limit", items[n].id);
            }
            break;
        }
    }
    checker.set_limits(limits);
    let mut failed = 0;
    let lines = items
        .iter()
        .zip(&words)
        .map(|(item, w)| match w {
            Some(w) => format!("FORMULA {} {w} {TECHNIQUES}", item.id),
            None => {
                failed += 1;
                format!("FORMULA {} CANNOT_COMPUTE", item.id)
            }
        })
        .collect();
    (lines, failed)
}
