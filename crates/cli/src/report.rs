//! How a run ends: the `status` of the JSON interface (docs/json.md), the diagnostics with their
//! positions, and the exit status. Every subcommand returns a [`Failure`] (through `anyhow`) when
//! it has no result; `main` prints it once, on stderr and, with `--json`, as the run's object.

use std::fmt;

use serde::Serialize;
use serde_json::{json, Value as Json};

use saturn_symbolic::Interrupted;

/// The outcome of a run, as the `status` key of its JSON object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// `--timeout` (or `BK_TIME_CONFINEMENT`) was reached.
    Timeout,
    /// `--max-memory` was reached.
    Memory,
    /// The net is unbounded: an answer (exit 0), with the witness that proves it.
    Unbounded,
    /// The input or the command line is wrong, or the output could not be written.
    Error,
}

/// One problem, with its position when it has one (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub message: String,
}

impl Diagnostic {
    pub fn plain(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: None,
            line: None,
            column: None,
            message: message.into(),
        }
    }

    /// From an error whose `Display` starts with its location `file:line:column: `.
    fn located(loc: Option<&saturn_pnml::Location>, full: String) -> Diagnostic {
        match loc {
            None => Diagnostic::plain(full),
            Some(at) => Diagnostic {
                file: Some(at.source.clone()),
                line: Some(at.line),
                column: Some(at.column),
                message: full
                    .strip_prefix(&format!("{at}: "))
                    .map(str::to_string)
                    .unwrap_or(full.clone()),
            },
        }
    }

    pub fn of_pnml(e: &saturn_pnml::PnmlError) -> Diagnostic {
        Diagnostic::located(e.location(), e.to_string())
    }

    pub fn of_formulas(e: &saturn_pnml::formulas::FormulaError) -> Diagnostic {
        Diagnostic::located(e.location(), e.to_string())
    }

    /// Every error of a PRISM front-end report.
    pub fn of_prism(d: &saturn_prism::Diagnostics) -> Vec<Diagnostic> {
        d.errors
            .iter()
            .map(|e| {
                let pos = match (&e.source, e.span) {
                    (Some(src), Some(span)) => {
                        let (l, c) = src.line_col(span.start);
                        Some((src.name.to_string(), l, c))
                    }
                    _ => None,
                };
                let to_u32 = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
                Diagnostic {
                    file: pos.as_ref().map(|p| p.0.clone()),
                    line: pos.as_ref().map(|p| to_u32(p.1)),
                    column: pos.as_ref().map(|p| to_u32(p.2)),
                    message: e.message.clone(),
                }
            })
            .collect()
    }

    /// A formula given on the command line (`--ctl #2`), one line, `offset` bytes in.
    pub fn of_option(name: &str, text: &str, offset: usize, message: String) -> Diagnostic {
        let mut off = offset.min(text.len());
        while !text.is_char_boundary(off) {
            off -= 1;
        }
        Diagnostic {
            file: Some(name.to_string()),
            line: Some(1),
            column: Some(u32::try_from(text[..off].chars().count() + 1).unwrap_or(u32::MAX)),
            message,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line, self.column) {
            (Some(file), Some(l), Some(c)) => write!(f, "{file}:{l}:{c}: {}", self.message),
            (Some(file), _, _) => write!(f, "{file}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// A run that ends without its result.
#[derive(Debug)]
pub struct Failure {
    pub status: Status,
    pub diagnostics: Vec<Diagnostic>,
    /// The process's exit status: 1 problems found by `parse` (its job is to find them), 2 an
    /// error that prevents the run (usage, I/O, an unreadable model), 3 a limit.
    pub exit: u8,
    /// What to print on stderr instead of the diagnostics (a rendered report with the source).
    pub rendered: Option<String>,
    /// A line for stdout in text mode (`CANNOT_COMPUTE` in contest mode).
    pub stdout_line: Option<String>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.diagnostics.iter().map(|d| d.to_string()).collect();
        f.write_str(&lines.join("; "))
    }
}

impl std::error::Error for Failure {}

impl Failure {
    /// A usage or I/O error: exit 2.
    pub fn error(message: impl Into<String>) -> Failure {
        Failure::with(Status::Error, vec![Diagnostic::plain(message)], 2)
    }

    /// Problems found in the input: exit 1.
    pub fn input(diagnostics: Vec<Diagnostic>) -> Failure {
        Failure::with(Status::Error, diagnostics, 1)
    }

    pub fn with(status: Status, diagnostics: Vec<Diagnostic>, exit: u8) -> Failure {
        Failure {
            status,
            diagnostics,
            exit,
            rendered: None,
            stdout_line: None,
        }
    }

    /// A computation stopped by a limit: exit 3. `what` says what stopped and `limit` which
    /// limit it was (for the message).
    pub fn interrupted(i: Interrupted, what: &str, limit: String) -> Failure {
        let status = status_of(i);
        Failure::with(
            status,
            vec![Diagnostic::plain(format!(
                "{what} stopped, {limit}; no result"
            ))],
            3,
        )
    }

    pub fn rendered(mut self, text: String) -> Failure {
        self.rendered = Some(text);
        self
    }

    /// Turn any error of a run into a failure (input errors of the readers keep their position).
    pub fn from_error(e: anyhow::Error) -> Failure {
        let e = match e.downcast::<Failure>() {
            Ok(f) => return f,
            Err(e) => e,
        };
        if let Some(p) = e.downcast_ref::<saturn_pnml::PnmlError>() {
            return Failure::with(Status::Error, vec![Diagnostic::of_pnml(p)], 2);
        }
        Failure::error(format!("{e:#}"))
    }

    /// The stderr text of this failure.
    pub fn stderr_text(&self) -> String {
        if let Some(r) = &self.rendered {
            return r.clone();
        }
        self.diagnostics
            .iter()
            .map(|d| format!("error: {d}\n"))
            .collect()
    }
}

/// The JSON status of a limit.
pub fn status_of(i: Interrupted) -> Status {
    match i {
        Interrupted::Timeout | Interrupted::Budget => Status::Timeout,
        Interrupted::Memory => Status::Memory,
        // Too many tokens to store is not a proof of unboundedness (only a witness is, see
        // saturn_engine::race): the run ran out of room.
        Interrupted::IndexTooLarge | Interrupted::TooManyNodes => Status::Memory,
        Interrupted::Cancelled => Status::Error,
    }
}

/// The keys every JSON object has (docs/json.md): the command, the model as given, the status
/// and the diagnostics.
pub fn envelope(command: &str, model: &str, status: Status, diagnostics: &[Diagnostic]) -> Json {
    json!({
        "command": command,
        "model": model,
        "status": status,
        "diagnostics": diagnostics,
    })
}

/// A successful run's object: the envelope with `status: ok` and the result's fields.
pub fn ok_object(command: &str, model: &str, fields: Json) -> Json {
    let mut out = envelope(command, model, Status::Ok, &[]);
    if let (Some(o), Json::Object(extra)) = (out.as_object_mut(), fields) {
        o.extend(extra);
    }
    out
}

/// A failed run's object.
pub fn failure_object(command: &str, model: &str, f: &Failure) -> Json {
    envelope(command, model, f.status, &f.diagnostics)
}
