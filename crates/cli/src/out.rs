//! Everything Saturn prints on stdout goes through here. A write error is an error, never a
//! panic: a reader that closes the pipe early (`saturn generate ... | head -1`) ends the run
//! quietly with status 141 (what a shell reports for a process stopped by SIGPIPE, like any
//! other filter in the pipeline); any other failure (a full disk, an unwritable `-o FILE`) is a
//! message and exit 2.

use std::io::Write;
use std::path::Path;

/// Exit status when stdout's reader has gone away (128 + SIGPIPE, as for `yes | head -1`).
pub const CLOSED_PIPE_STATUS: u8 = 141;

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The reader of stdout closed it (broken pipe): not an error to report.
    #[error("standard output was closed by its reader")]
    Closed,
    #[error("cannot write to {target}: {cause}")]
    Failed {
        target: String,
        cause: std::io::Error,
    },
}

fn classify(e: std::io::Error, target: &str) -> OutputError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        OutputError::Closed
    } else {
        OutputError::Failed {
            target: target.to_string(),
            cause: e,
        }
    }
}

/// Write `text` to stdout and flush it (so a full disk is seen here, not at exit).
pub fn print(text: &str) -> Result<(), OutputError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| classify(e, "standard output"))
}

/// Write `text` and a line break to stdout.
pub fn println(text: impl std::fmt::Display) -> Result<(), OutputError> {
    print(&format!("{text}\n"))
}

/// Write `text` to the file `path` (created or truncated).
pub fn write_file(path: &Path, text: &str) -> Result<(), OutputError> {
    std::fs::write(path, text).map_err(|e| classify(e, &format!("'{}'", path.display())))
}

/// `--dot FILE`: the diagrams `roots` (named sets of `forest`) as Graphviz DOT, each level
/// labelled by the name of `model`'s level (a place, a group of places).
pub fn write_dot(
    path: &Path,
    forest: &saturn_dd::Forest,
    roots: &[(String, saturn_dd::NodeId)],
    model: &saturn_model::Model,
) -> Result<(), OutputError> {
    let named: Vec<(&str, saturn_dd::NodeId)> =
        roots.iter().map(|(s, n)| (s.as_str(), *n)).collect();
    let dot = forest.to_dot_named(&named, |l| {
        model
            .levels
            .get(l - 1)
            .map_or_else(|| format!("x{l}"), |v| v.name.clone())
    });
    write_file(path, &dot)
}
