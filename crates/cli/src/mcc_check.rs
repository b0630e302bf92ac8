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

/// `FORMULA <id> CANNOT_COMPUTE` for every item.
pub fn cannot_compute(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| format!("FORMULA {} CANNOT_COMPUTE", i.id))
        .collect()
}

/// Answer every item with `checker`, each within an equal share of the time left (a formula
/// finished early leaves its time to the next ones). Returns the lines and how many items
/// could not be answered.
pub fn answer_all(
    checker: &mut Checker,
    items: &[Item],
    net: &PetriNet,
    limits: Limits,
) -> (Vec<String>, usize) {
    let mut lines = Vec::with_capacity(items.len());
    let mut failed = 0;
    for (n, item) in items.iter().enumerate() {
        let share = limits.deadline.map(|d| {
            let left = d.saturating_duration_since(Instant::now());
            Instant::now() + left / (items.len() - n) as u32
        });
        checker.set_limits(Limits {
            deadline: share,
            ..limits
        });
        let word = match &item.what {
            What::Query(Err(e)) => {
                eprintln!("error: {e}");
                None
            }
            What::Query(Ok(q)) => match queries::answer(checker, q) {
                Ok(a) => Some(a.word()),
                Err(e) => {
                    eprintln!("{}: {e}", item.id);
                    None
                }
            },
            What::Global(p) => match checker.global_property(p, net.transitions.len()) {
                Ok(Some(b)) => Some(if b { "TRUE" } else { "FALSE" }.to_string()),
                Ok(None) => None,
                Err(e) => {
                    eprintln!("{}: {e}", item.id);
                    None
                }
            },
        };
        lines.push(match word {
            Some(w) => format!("FORMULA {} {w} {TECHNIQUES}", item.id),
            None => {
                failed += 1;
                format!("FORMULA {} CANNOT_COMPUTE", item.id)
            }
        });
    }
    checker.set_limits(limits);
    (lines, failed)
}
