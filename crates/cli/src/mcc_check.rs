//! The contest's formula examinations (`CTLCardinality`, `CTLFireability`,
//! `ReachabilityCardinality`, `ReachabilityFireability`, `UpperBounds`) and its global
//! properties (`ReachabilityDeadlock`, `QuasiLiveness`, `Liveness`, `OneSafe`, `StableMarking`,
//! and `GlobalProperties` for all five): the questions read from the files, answered by
//! [`saturn_engine::formulas::check`], printed as one line `FORMULA <id> <answer> TECHNIQUES ...`
//! per question, `FORMULA <id> CANNOT_COMPUTE` for one that cannot be read or decided within
//! the time (the others are still answered).

use std::path::Path;

use saturn_engine::formulas::{Decided, Item, Outcome, Question, Verdict};
use saturn_model::PetriNet;
use saturn_symbolic::ctl::GLOBAL_PROPERTIES;

use crate::queries;

/// The examinations with a formula file `<exam>.xml`.
pub const FORMULA_EXAMS: [&str; 5] = [
    "CTLCardinality",
    "CTLFireability",
    "ReachabilityCardinality",
    "ReachabilityFireability",
    "UpperBounds",
];

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
                question: match j.query {
                    Ok(q) => Question::Formula(q),
                    Err(e) => Question::Unreadable(e),
                },
            })
            .collect());
    }
    Ok(GLOBAL_PROPERTIES
        .iter()
        .filter(|p| exam == "GlobalProperties" || **p == exam)
        .map(|p| Item {
            id: p.to_string(),
            question: Question::Global(p),
        })
        .collect())
}

/// The contest line of one question.
fn line(item: &Item, v: &Verdict) -> String {
    match &v.decided {
        Some(d) => decided_line(item, d),
        None => format!("FORMULA {} CANNOT_COMPUTE", item.id),
    }
}

/// The contest line of an answer.
pub fn decided_line(item: &Item, d: &Decided) -> String {
    format!(
        "FORMULA {} {} TECHNIQUES {}",
        item.id,
        d.value.word(),
        d.technique.contest_words()
    )
}

/// The lines of `items` as `outcome` answers them, and how many are `CANNOT_COMPUTE`; why each
/// undecided question is undecided goes to stderr.
pub fn lines(items: &[Item], outcome: &Outcome) -> (Vec<String>, usize) {
    let mut failed = 0;
    let lines = items
        .iter()
        .zip(&outcome.verdicts)
        .map(|(item, v)| {
            if v.decided.is_none() {
                failed += 1;
                match (&item.question, &v.why_not) {
                    (Question::Unreadable(e), _) => eprintln!("error: {e}"),
                    (_, Some(w)) => eprintln!("{}: {w}", item.id),
                    (_, None) => {}
                }
            }
            line(item, v)
        })
        .collect();
    (lines, failed)
}
