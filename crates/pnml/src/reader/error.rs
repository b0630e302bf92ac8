//! The reader's errors: every problem has a one-line message naming the source, the line and
//! column, and the offending element.

use std::fmt;
use std::path::PathBuf;

/// Where an error was found: source name (file path or caller-given label), line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub source: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl Location {
    /// The message of a `roxmltree` syntax error on one line (it quotes the unexpected
    /// character literally, which may be a line break).
    pub(crate) fn xml_message(e: &roxmltree::Error) -> String {
        e.to_string()
            .replace('\n', "\\n")
            .replace('\r', "\\r")
            .replace('\t', "\\t")
    }

    /// Where `roxmltree` found a syntax error in the document `text` named `source`. For a
    /// document cut short (roxmltree reports those at 1:1) it is where the content ends: just
    /// after its last non-blank character.
    pub(crate) fn of_xml_error(e: &roxmltree::Error, source: &str, text: &str) -> Location {
        use roxmltree::Error as E;
        let (line, column) = match e {
            E::UnclosedRootNode | E::UnexpectedEndOfStream | E::NoRootNode => {
                let content = text.trim_end();
                let line_start = content.rfind('\n').map_or(0, |i| i + 1);
                let line = content.matches('\n').count() + 1;
                let column = content[line_start..].chars().count() + 1;
                (
                    u32::try_from(line).unwrap_or(u32::MAX),
                    u32::try_from(column).unwrap_or(u32::MAX),
                )
            }
            _ => (e.pos().row, e.pos().col),
        };
        Location {
            source: source.to_string(),
            line,
            column,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.source, self.line, self.column)
    }
}

/// Everything that can go wrong when reading a PNML file. Messages are one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PnmlError {
    #[error("cannot read PNML file '{}': {message}", path.display())]
    Io { path: PathBuf, message: String },
    #[error("{at}: malformed XML: {message}")]
    Xml { at: Location, message: String },
    #[error("{source_name}: no <net> element found (is this a PNML file?)")]
    NoNet { source_name: String },
    #[error("{at}: the document holds {count} <net> elements; exactly one is supported")]
    SeveralNets { at: Location, count: usize },
    #[error(
        "{at}: coloured nets are not supported ({construct}); only P/T nets (ptnet) can be read"
    )]
    Coloured { at: Location, construct: String },
    #[error("{at}: <{element}> has no '{attribute}' attribute")]
    MissingAttribute {
        at: Location,
        element: String,
        attribute: String,
    },
    #[error("{at}: id '{id}' is used by more than one node")]
    DuplicateId { at: Location, id: String },
    #[error("{at}: arc '{arc}' refers to unknown node '{id}'")]
    UnknownNode {
        at: Location,
        arc: String,
        id: String,
    },
    #[error("{at}: reference node '{id}' refers to unknown node '{target}'")]
    UnknownReference {
        at: Location,
        id: String,
        target: String,
    },
    #[error("{at}: reference node '{id}' is part of a cycle of references")]
    ReferenceCycle { at: Location, id: String },
    #[error("{at}: reference node '{id}' refers to '{target}', which is not a {expected}")]
    ReferenceKind {
        at: Location,
        id: String,
        target: String,
        expected: &'static str,
    },
    #[error("{at}: arc '{arc}' connects two places ('{source_id}' and '{target_id}')")]
    PlaceToPlace {
        at: Location,
        arc: String,
        source_id: String,
        target_id: String,
    },
    #[error("{at}: arc '{arc}' connects two transitions ('{source_id}' and '{target_id}')")]
    TransitionToTransition {
        at: Location,
        arc: String,
        source_id: String,
        target_id: String,
    },
    #[error("{at}: {element} has an invalid value '{text}': {reason}")]
    BadNumber {
        at: Location,
        element: String,
        text: String,
        reason: &'static str,
    },
    #[error("{at}: {element} is {value}, more than the {max} supported")]
    OutOfRange {
        at: Location,
        element: String,
        value: u64,
        max: u64,
    },
    #[error("{at}: arc '{arc}' has arc type '{kind}', which is not supported (only normal, inhibitor and test arcs)")]
    UnsupportedArcType {
        at: Location,
        arc: String,
        kind: String,
    },
    #[error("{at}: arc '{arc}' has type '{attribute}' in its attribute but '{element}' in its <type> element")]
    ConflictingArcTypes {
        at: Location,
        arc: String,
        attribute: String,
        element: String,
    },
    #[error("{at}: inhibitor arc '{arc}' must go from a place to a transition")]
    InhibitorFromTransition { at: Location, arc: String },
    #[error("{at}: the arcs between place '{place}' and transition '{transition}' have a total weight that overflows 64 bits")]
    WeightOverflow {
        at: Location,
        place: String,
        transition: String,
    },
}

impl PnmlError {
    /// Where the problem is, when it has a position in the document.
    pub fn location(&self) -> Option<&Location> {
        use PnmlError::*;
        match self {
            Io { .. } | NoNet { .. } => None,
            Xml { at, .. }
            | SeveralNets { at, .. }
            | Coloured { at, .. }
            | MissingAttribute { at, .. }
            | DuplicateId { at, .. }
            | UnknownNode { at, .. }
            | UnknownReference { at, .. }
            | ReferenceCycle { at, .. }
            | ReferenceKind { at, .. }
            | PlaceToPlace { at, .. }
            | TransitionToTransition { at, .. }
            | BadNumber { at, .. }
            | OutOfRange { at, .. }
            | UnsupportedArcType { at, .. }
            | ConflictingArcTypes { at, .. }
            | InhibitorFromTransition { at, .. }
            | WeightOverflow { at, .. } => Some(at),
        }
    }
}
