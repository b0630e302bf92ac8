//! PNML reader for Place/Transition nets (the `ptnet` type of PNML 2009, as the Model Checking
//! Contest ships them), with the common inhibitor-arc extension.
//!
//! What is read: places (id, name, initial marking), transitions (id, name), arcs (source,
//! target, inscription), on any number of possibly nested `<page>`s, with `<referencePlace>` /
//! `<referenceTransition>` nodes resolved to the node they stand for. Graphics and
//! `<toolspecific>` blocks are ignored. Parallel arcs of the same kind between the same place and
//! transition are merged (weights added). Nodes are numbered in the order of a walk that takes a
//! container's (the net's, a page's) own nodes before its pages, pages in document order.
//!
//! Arc kinds: an arc may carry `<type value="inhibitor"/>` (PNML 2009 "special arcs" extension,
//! `inhibitorptnet` net type), also written `<type><text>inhibitor</text></type>` or with an
//! `<arctype>` element instead of `<type>`, or a `type="inhibitor"` attribute on `<arc>` itself
//! (TAPAAL's form); both forms on one arc must agree. `normal` is the default; `test` / `read`
//! arcs are read as an input plus an output arc of the same weight (same semantics); any other
//! type (`reset`, `transport`, unknown words) is refused with its position.
//!
//! Coloured nets (`symmetricnet`, high-level nets, `hlinitialMarking`, `hlinscription`, sorts and
//! declarations) are refused with an error naming the construct.
//!
//! The document is streamed ([`xmlcheck`] over the window of [`source`]): what is kept while
//! reading is the net being built, not the document. The reader never panics on any input; every problem is
//! reported as a [`PnmlError`] whose message names the source, the line and column, and the
//! offending element. When a document has several problems, the one reported is: invalid UTF-8
//! first, then malformed XML, then the first problem in the walk order above.

mod assemble;
mod error;
mod scan;
mod source;
mod xmlcheck;

use std::io::BufRead;
use std::path::Path;

use saturn_model::PetriNet;

pub use error::{Location, PnmlError};

/// Read a PNML file (streamed: the file is not held in memory).
pub fn read_pnml_file(path: &Path) -> Result<PetriNet, PnmlError> {
    read_pnml_file_within(path, u64::MAX)
}

/// [`read_pnml_file`] with the bound of [`read_pnml_str_within`].
pub fn read_pnml_file_within(path: &Path, max: u64) -> Result<PetriNet, PnmlError> {
    let file = std::fs::File::open(path).map_err(|e| PnmlError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let input = std::io::BufReader::with_capacity(1 << 16, file);
    read_pnml_within(input, &path.display().to_string(), max)
}

/// Read PNML from a stream (a file, standard input); `source_name` labels errors. Initial
/// markings and arc weights above `max` are refused with their position.
pub fn read_pnml_within<R: BufRead>(
    input: R,
    source_name: &str,
    max: u64,
) -> Result<PetriNet, PnmlError> {
    scan::read(input, source_name, max)?.assemble()
}

/// Read PNML from raw bytes (a file's content, standard input); `source_name` labels errors.
pub fn read_pnml_bytes(bytes: &[u8], source_name: &str) -> Result<PetriNet, PnmlError> {
    read_pnml_within(bytes, source_name, u64::MAX)
}

/// [`read_pnml_bytes`] with the bound of [`read_pnml_str_within`].
pub fn read_pnml_bytes_within(
    bytes: &[u8],
    source_name: &str,
    max: u64,
) -> Result<PetriNet, PnmlError> {
    read_pnml_within(bytes, source_name, max)
}

/// Does this content look like PNML (an XML document: optional byte-order mark and blanks, then
/// `<`)? PRISM files never start with `<`, so front-ends dispatch on content, not extension.
pub fn looks_like_pnml(bytes: &[u8]) -> bool {
    let b = bytes
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .unwrap_or(bytes);
    b.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b'<')
}

/// Read PNML from a string; `source_name` labels error messages (a file name, `<stdin>`, ...).
pub fn read_pnml_str(text: &str, source_name: &str) -> Result<PetriNet, PnmlError> {
    read_pnml_within(text.as_bytes(), source_name, u64::MAX)
}

/// [`read_pnml_str`], refusing (with its position) any initial marking or arc weight above
/// `max`, e.g. [`saturn_model::petri::MAX_TOKENS`] for a net that is to be explored.
pub fn read_pnml_str_within(
    text: &str,
    source_name: &str,
    max: u64,
) -> Result<PetriNet, PnmlError> {
    read_pnml_within(text.as_bytes(), source_name, max)
}
