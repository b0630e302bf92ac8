//! The Model Checking Contest's formula XML (`ReachabilityCardinality.xml`, `CTLFireability.xml`,
//! `UpperBounds.xml`, `LTLCardinality.xml`, ...), read into `saturn_logic` syntax trees.
//!
//! Elements (namespace ignored): `property-set` / `property` / `id` / `description` / `formula`;
//! `exists-path`, `all-paths`; `next`, `finally`, `globally`, `until` (`before`, `reach`);
//! `negation`, `conjunction`, `disjunction`; `integer-le` (and `integer-lt`, `-eq`, `-ne`, `-ge`,
//! `-gt` of older contest files); `integer-constant`, `tokens-count` (`place`...);
//! `is-fireable` (`transition`...); `place-bound` (`place`...), only directly under `formula`;
//! `deadlock`, `true`, `false`. Anything else is an error naming the element and its line and
//! column. Formulas keep their order in the file. Spans in the trees are byte ranges of the XML.
//!
//! A `conjunction` / `disjunction` with one operand is that operand (the syntax trees keep n-ary
//! nodes with at least two operands). Formulas nested deeper than [`MAX_XML_DEPTH`] are refused.

use std::path::{Path, PathBuf};

use roxmltree::{Document, Node};
use saturn_logic::ast::{
    CmpOp, Formula, FormulaKind as K, IntExpr, IntExprKind, Name, Query, Span,
};
use saturn_logic::resolve::{resolve, NameTable, ResolveError, ResolvedQuery};
use saturn_model::PetriNet;

use crate::reader::Location;

/// Formula nesting accepted in XML (contest files nest at most about 20 levels).
pub const MAX_XML_DEPTH: usize = 100;

/// One property of a formula file, parsed but not resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedFormula {
    pub id: String,
    pub description: Option<String>,
    pub query: Query,
}

/// One property of a formula file, with its names resolved against a net.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedFormula {
    pub id: String,
    pub description: Option<String>,
    /// The syntax tree (names as written, spans into the XML).
    pub query: Query,
    /// Places and transitions as indices of the net.
    pub resolved: ResolvedQuery,
}

/// Everything that can go wrong when reading a formula file. Messages are one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormulaError {
    #[error("cannot read formula file '{}': {message}", path.display())]
    Io { path: PathBuf, message: String },
    #[error("{at}: malformed XML: {message}")]
    Xml { at: Location, message: String },
    #[error("{at}: unknown element <{element}>{context}")]
    UnknownElement {
        at: Location,
        element: String,
        context: String,
    },
    #[error("{at}: <{element}>: {message}")]
    Structure {
        at: Location,
        element: String,
        message: String,
    },
    #[error("{at}: formula '{formula_id}': unknown place '{name}'")]
    UnknownPlace {
        at: Location,
        formula_id: String,
        name: String,
    },
    #[error("{at}: formula '{formula_id}': unknown transition '{name}'")]
    UnknownTransition {
        at: Location,
        formula_id: String,
        name: String,
    },
    #[error("{at}: formula '{formula_id}': {message}")]
    Invalid {
        at: Location,
        formula_id: String,
        message: String,
    },
}

impl FormulaError {
    /// Where the problem is, when it has a position in the document.
    pub fn location(&self) -> Option<&Location> {
        use FormulaError::*;
        match self {
            Io { .. } => None,
            Xml { at, .. }
            | UnknownElement { at, .. }
            | Structure { at, .. }
            | UnknownPlace { at, .. }
            | UnknownTransition { at, .. }
            | Invalid { at, .. } => Some(at),
        }
    }
}

/// Read a formula file and resolve its names against `net`.
pub fn read_formulas_file(path: &Path, net: &PetriNet) -> Result<Vec<NamedFormula>, FormulaError> {
    let text = read_text(path)?;
    read_formulas_str(&text, &path.display().to_string(), net)
}

/// Read formula XML from a string (`source_name` labels error messages) and resolve it against `net`.
pub fn read_formulas_str(
    text: &str,
    source_name: &str,
    net: &PetriNet,
) -> Result<Vec<NamedFormula>, FormulaError> {
    let parsed = parse_formulas_str(text, source_name)?;
    let names = NameTable::new(
        net.places.iter().map(|p| p.id.as_str()),
        net.transitions.iter().map(|t| t.id.as_str()),
    );
    let at = |span: Span| location(text, source_name, span.start);
    parsed
        .into_iter()
        .map(|p| {
            let resolved = resolve(&p.query, &names).map_err(|errs| {
                let e = errs.0.into_iter().next();
                let formula_id = p.id.clone();
                match e {
                    Some(ResolveError::UnknownPlace { name, span }) => FormulaError::UnknownPlace {
                        at: at(span),
                        formula_id,
                        name,
                    },
                    Some(ResolveError::UnknownTransition { name, span }) => {
                        FormulaError::UnknownTransition {
                            at: at(span),
                            formula_id,
                            name,
                        }
                    }
                    Some(other) => FormulaError::Invalid {
                        at: at(other.span()),
                        formula_id,
                        message: other.to_string(),
                    },
                    None => FormulaError::Invalid {
                        at: at(p.query.span()),
                        formula_id,
                        message: "cannot resolve".into(),
                    },
                }
            })?;
            Ok(NamedFormula {
                id: p.id,
                description: p.description,
                query: p.query,
                resolved,
            })
        })
        .collect()
}

/// Read a formula file without resolving names.
pub fn parse_formulas_file(path: &Path) -> Result<Vec<ParsedFormula>, FormulaError> {
    let text = read_text(path)?;
    parse_formulas_str(&text, &path.display().to_string())
}

/// Parse formula XML without resolving names (`source_name` labels error messages).
///
/// Large files are parsed one `<property>` at a time (see [`property_chunks`]), so memory stays
/// a small multiple of the file size; anything unusual falls back to parsing the whole document.
pub fn parse_formulas_str(
    text: &str,
    source_name: &str,
) -> Result<Vec<ParsedFormula>, FormulaError> {
    if let Some(chunks) = property_chunks(text) {
        let mut out = Vec::with_capacity(chunks.len());
        for range in chunks {
            // a chunk that does not parse on its own (e.g. a namespace prefix declared on the
            // root) is handled by the whole-document path, which also gives the right error
            let Ok(doc) = Document::parse(&text[range.clone()]) else {
                return parse_document(text, source_name);
            };
            let r = Reader {
                full: text,
                base: range.start,
                source: source_name,
            };
            out.push(r.property(doc.root_element())?);
        }
        return Ok(out);
    }
    parse_document(text, source_name)
}

fn parse_document(text: &str, source_name: &str) -> Result<Vec<ParsedFormula>, FormulaError> {
    let doc = Document::parse(text).map_err(|e| FormulaError::Xml {
        at: Location::of_xml_error(&e, source_name, text),
        message: Location::xml_message(&e),
    })?;
    let r = Reader {
        full: text,
        base: 0,
        source: source_name,
    };
    r.property_set(doc.root_element())
}

/// Byte ranges of the `<property>` elements of a plain contest file: an optional XML declaration
/// and comments, then `<property-set ...>` holding only `<property>...</property>` elements,
/// whitespace and comments. `None` for anything else (DOCTYPE, CDATA or comments inside a
/// property, other elements, ...), which the caller parses as a whole document.
fn property_chunks(text: &str) -> Option<Vec<std::ops::Range<usize>>> {
    let b = text.as_bytes();
    let mut i = 0;
    let skip_misc = |mut i: usize| -> Option<usize> {
        loop {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if b[i..].starts_with(b"<!--") {
                i += 4 + text[i + 4..].find("-->")? + 3;
            } else if b[i..].starts_with(b"<?") {
                i += 2 + text[i + 2..].find("?>")? + 2;
            } else {
                return Some(i);
            }
        }
    };
    let tag_end = |i: usize| -> Option<usize> {
        // end of a start tag (index after `>`), skipping quoted attribute values
        let mut j = i;
        let mut quote = None;
        while j < b.len() {
            match (quote, b[j]) {
                (None, q @ (b'"' | b'\'')) => quote = Some(q),
                (Some(q), c) if c == q => quote = None,
                (None, b'>') => return Some(j + 1),
                _ => {}
            }
            j += 1;
        }
        None
    };
    let starts_tag = |i: usize, name: &[u8]| {
        b[i..].starts_with(name)
            && b.get(i + name.len())
                .is_some_and(|&c| c == b'>' || c.is_ascii_whitespace())
    };
    i = skip_misc(i)?;
    if !starts_tag(i, b"<property-set") {
        return None;
    }
    i = tag_end(i)?;
    if b[i - 2] == b'/' {
        return None;
    }
    let mut out = Vec::new();
    loop {
        i = skip_misc(i)?;
        if starts_tag(i, b"<property") {
            let close = i + text[i..].find("</property>")?;
            let body = &text[i..close];
            if body.contains("<!") || body.contains("<?") || body[1..].contains("<property") {
                return None;
            }
            let end = close + "</property>".len();
            out.push(i..end);
            i = end;
        } else if b[i..].starts_with(b"</property-set>") {
            let rest = skip_misc(i + "</property-set>".len())?;
            return (rest == b.len()).then_some(out);
        } else {
            return None;
        }
    }
}

fn read_text(path: &Path) -> Result<String, FormulaError> {
    let bytes = std::fs::read(path).map_err(|e| FormulaError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    String::from_utf8(bytes).map_err(|e| FormulaError::Io {
        path: path.to_path_buf(),
        message: format!("not valid UTF-8 (at byte {})", e.utf8_error().valid_up_to()),
    })
}

/// Line and column (1-based, columns in characters) of byte offset `pos`.
fn location(text: &str, source: &str, pos: usize) -> Location {
    let mut pos = pos.min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    let before = &text[..pos];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    Location {
        source: source.to_string(),
        line: line as u32,
        column: column as u32,
    }
}

struct Reader<'a> {
    /// The whole file (for line and column numbers).
    full: &'a str,
    /// Offset of the parsed document in `full`.
    base: usize,
    source: &'a str,
}

type R<T> = Result<T, FormulaError>;

impl Reader<'_> {
    fn at(&self, n: Node) -> Location {
        location(self.full, self.source, self.base + n.range().start)
    }

    /// The span of `n` in the whole file.
    fn span(&self, n: Node) -> Span {
        let r = n.range();
        Span::new(self.base + r.start, self.base + r.end)
    }

    fn structure(&self, n: Node, message: impl Into<String>) -> FormulaError {
        FormulaError::Structure {
            at: self.at(n),
            element: n.tag_name().name().to_string(),
            message: message.into(),
        }
    }

    fn unknown(&self, n: Node, parent: Node) -> FormulaError {
        FormulaError::UnknownElement {
            at: self.at(n),
            element: n.tag_name().name().to_string(),
            context: format!(" in <{}>", parent.tag_name().name()),
        }
    }

    /// The element children of `n`; non-blank text is an error.
    fn elements<'a, 'input>(&self, n: Node<'a, 'input>) -> R<Vec<Node<'a, 'input>>> {
        let mut out = Vec::new();
        for c in n.children() {
            if c.is_element() {
                out.push(c);
            } else if c.is_text() && !c.text().unwrap_or("").trim().is_empty() {
                return Err(self.structure(n, "unexpected text content"));
            }
        }
        Ok(out)
    }

    /// The only element child of `n`.
    fn single<'a, 'input>(&self, n: Node<'a, 'input>) -> R<Node<'a, 'input>> {
        let es = self.elements(n)?;
        match es.as_slice() {
            [one] => Ok(*one),
            _ => Err(self.structure(
                n,
                format!("expected exactly one child element, found {}", es.len()),
            )),
        }
    }

    /// The text of a leaf element (trimmed), with its span.
    fn leaf_text(&self, n: Node) -> R<(String, Span)> {
        if n.children().any(|c| c.is_element()) {
            return Err(self.structure(n, "expected text, found a child element"));
        }
        let mut text = String::new();
        let mut sp = None::<Span>;
        for c in n.children().filter(|c| c.is_text()) {
            text.push_str(c.text().unwrap_or(""));
            sp = Some(sp.map_or(self.span(c), |s| s.to(self.span(c))));
        }
        let trimmed = text.trim();
        let sp = sp.unwrap_or_else(|| self.span(n));
        // narrow the span to the trimmed text when it is one plain text node
        let sp = if text.len() == sp.len() {
            let lead = text.len() - text.trim_start().len();
            Span::new(sp.start + lead, sp.start + lead + trimmed.len())
        } else {
            sp
        };
        Ok((trimmed.to_string(), sp))
    }

    fn property_set(&self, root: Node) -> R<Vec<ParsedFormula>> {
        if root.tag_name().name() != "property-set" {
            return Err(FormulaError::UnknownElement {
                at: self.at(root),
                element: root.tag_name().name().to_string(),
                context: " (expected <property-set> as the document element)".into(),
            });
        }
        self.elements(root)?
            .into_iter()
            .map(|p| {
                if p.tag_name().name() == "property" {
                    self.property(p)
                } else {
                    Err(self.unknown(p, root))
                }
            })
            .collect()
    }

    fn property(&self, p: Node) -> R<ParsedFormula> {
        let (mut id, mut description, mut formula) = (None, None, None);
        for c in self.elements(p)? {
            let slot = match c.tag_name().name() {
                "id" => &mut id,
                "description" => &mut description,
                "formula" => &mut formula,
                _ => return Err(self.unknown(c, p)),
            };
            if slot.is_some() {
                return Err(self.structure(p, format!("more than one <{}>", c.tag_name().name())));
            }
            *slot = Some(c);
        }
        let id = match id {
            Some(n) => self.leaf_text(n)?.0,
            None => return Err(self.structure(p, "missing <id>")),
        };
        let description = match description {
            Some(n) => Some(self.leaf_text(n)?.0),
            None => None,
        };
        let Some(formula) = formula else {
            return Err(self.structure(p, format!("property '{id}' has no <formula>")));
        };
        let top = self.single(formula)?;
        let query = if top.tag_name().name() == "place-bound" {
            Query::Bound {
                places: self.names(top, "place")?,
                span: self.span(top),
            }
        } else {
            Query::Formula(self.formula(top, 1)?)
        };
        Ok(ParsedFormula {
            id,
            description,
            query,
        })
    }

    /// The `<place>` / `<transition>` children of `n` (at least one).
    fn names(&self, n: Node, child: &str) -> R<Vec<Name>> {
        let mut out = Vec::new();
        for c in self.elements(n)? {
            if c.tag_name().name() != child {
                return Err(self.unknown(c, n));
            }
            let (text, sp) = self.leaf_text(c)?;
            if text.is_empty() {
                return Err(self.structure(c, "empty name"));
            }
            out.push(Name::new(text, sp));
        }
        if out.is_empty() {
            return Err(self.structure(n, format!("expected at least one <{child}>")));
        }
        Ok(out)
    }

    fn formula(&self, n: Node, depth: usize) -> R<Formula> {
        if depth > MAX_XML_DEPTH {
            return Err(self.structure(
                n,
                format!("formula nested more than {MAX_XML_DEPTH} levels deep"),
            ));
        }
        let sub = |c: Node| self.formula(c, depth + 1);
        let one = |c: Node| -> R<Box<Formula>> { Ok(Box::new(sub(self.single(c)?)?)) };
        let leaf = |c: Node| -> R<()> {
            match self.elements(c)?.first() {
                None => Ok(()),
                Some(_) => Err(self.structure(c, "expected no child element")),
            }
        };
        let kind = match n.tag_name().name() {
            "true" => leaf(n).map(|_| K::Bool(true))?,
            "false" => leaf(n).map(|_| K::Bool(false))?,
            "deadlock" => leaf(n).map(|_| K::Deadlock)?,
            "exists-path" => K::Exists(one(n)?),
            "all-paths" => K::All(one(n)?),
            "next" => K::Next(one(n)?),
            "finally" => K::Finally(one(n)?),
            "globally" => K::Globally(one(n)?),
            "negation" => K::Not(one(n)?),
            "until" => {
                let (mut before, mut reach) = (None, None);
                for c in self.elements(n)? {
                    let slot = match c.tag_name().name() {
                        "before" => &mut before,
                        "reach" => &mut reach,
                        _ => return Err(self.unknown(c, n)),
                    };
                    if slot.is_some() {
                        return Err(
                            self.structure(n, format!("more than one <{}>", c.tag_name().name()))
                        );
                    }
                    *slot = Some(c);
                }
                match (before, reach) {
                    (Some(b), Some(r)) => K::Until(one(b)?, one(r)?),
                    _ => return Err(self.structure(n, "expected <before> and <reach>")),
                }
            }
            "conjunction" | "disjunction" => {
                let mut ops = self
                    .elements(n)?
                    .into_iter()
                    .map(sub)
                    .collect::<R<Vec<_>>>()?;
                match ops.len() {
                    0 => return Err(self.structure(n, "expected at least one operand")),
                    1 => {
                        return Ok(ops
                            .pop()
                            .unwrap_or_else(|| Formula::new(K::Bool(true), self.span(n))))
                    }
                    _ if n.tag_name().name() == "conjunction" => K::And(ops),
                    _ => K::Or(ops),
                }
            }
            "is-fireable" => K::Enabled(self.names(n, "transition")?),
            name @ ("integer-le" | "integer-lt" | "integer-eq" | "integer-ne" | "integer-ge"
            | "integer-gt") => {
                let op = match name {
                    "integer-le" => CmpOp::Le,
                    "integer-lt" => CmpOp::Lt,
                    "integer-eq" => CmpOp::Eq,
                    "integer-ne" => CmpOp::Ne,
                    "integer-ge" => CmpOp::Ge,
                    _ => CmpOp::Gt,
                };
                let es = self.elements(n)?;
                let [a, b] = es.as_slice() else {
                    return Err(
                        self.structure(n, format!("expected two operands, found {}", es.len()))
                    );
                };
                K::Compare {
                    lhs: self.int(*a, n)?,
                    op,
                    rhs: self.int(*b, n)?,
                }
            }
            _ => {
                let parent = n.parent_element().unwrap_or(n);
                return Err(self.unknown(n, parent));
            }
        };
        Ok(Formula::new(kind, self.span(n)))
    }

    fn int(&self, n: Node, parent: Node) -> R<IntExpr> {
        let kind = match n.tag_name().name() {
            "integer-constant" => {
                let (text, _) = self.leaf_text(n)?;
                match text.parse::<i64>() {
                    Ok(v) => IntExprKind::Const(v),
                    Err(_) => {
                        return Err(self.structure(n, format!("'{text}' is not a 64-bit integer")))
                    }
                }
            }
            "tokens-count" => IntExprKind::TokensCount(self.names(n, "place")?),
            _ => return Err(self.unknown(n, parent)),
        };
        Ok(IntExpr::new(kind, self.span(n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-property path and the whole-document path read the same trees.
    #[test]
    fn chunked_reading_equals_whole_document() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/benchmarks/mcc"
        );
        let Ok(entries) = std::fs::read_dir(dir) else {
            eprintln!("notice: {dir} absent; skipping");
            return;
        };
        let mut n = 0;
        for e in entries.flatten().take(8) {
            for f in [
                "CTLCardinality.xml",
                "ReachabilityFireability.xml",
                "UpperBounds.xml",
            ] {
                let Ok(text) = std::fs::read_to_string(e.path().join(f)) else {
                    continue;
                };
                assert!(property_chunks(&text).is_some(), "{f}");
                let a = parse_formulas_str(&text, f).unwrap();
                let b = parse_document(&text, f).unwrap();
                assert_eq!(a, b);
                n += 1;
            }
        }
        assert!(n > 0);
    }

    #[test]
    fn unusual_files_take_the_whole_document_path() {
        let p = "<property><id>a</id><formula><true/></formula></property>";
        let ok = format!("<?xml version=\"1.0\"?>\n<!-- c -->\n<property-set a='>'>\n{p}<!-- x -->{p}</property-set>\n");
        assert_eq!(property_chunks(&ok).map(|c| c.len()), Some(2));
        for bad in [
            format!("<!DOCTYPE x><property-set>{p}</property-set>"),
            format!("<property-set>{p}text</property-set>"),
            "<property-set><property><!-- </property> --><id>a</id></property></property-set>"
                .to_string(),
            format!("<property-set>{p}<other/></property-set>"),
            format!("<property-set>{p}</property-set><x/>"),
            "<m:property-set xmlns:m='u'><m:property/></m:property-set>".to_string(),
        ] {
            assert!(property_chunks(&bad).is_none(), "{bad}");
        }
        // a prefixed file still reads through the whole-document path
        let pre = "<m:property-set xmlns:m='u'><m:property><m:id>a</m:id><m:formula><m:true/></m:formula></m:property></m:property-set>";
        assert_eq!(parse_formulas_str(pre, "x").unwrap().len(), 1);
        // an error inside a chunk has its line and column in the whole file
        let e = parse_formulas_str("<property-set>\n<property><id>a</id><formula><true/></formula></property>\n<property><id>b</id><formula><nope/></formula></property></property-set>", "f").unwrap_err();
        assert_eq!(e.to_string(), "f:3:30: unknown element <nope> in <formula>");
    }

    #[test]
    fn location_counts_lines_and_chars() {
        let t = "ab\ncdé\nfg";
        let l = location(t, "x", t.find('f').unwrap_or(0));
        assert_eq!((l.line, l.column), (3, 1));
        let l = location(t, "x", t.len());
        assert_eq!((l.line, l.column), (3, 3));
    }
}
