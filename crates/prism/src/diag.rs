//! Diagnostics: every error carries the file, a labelled span and what was expected.

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceSpan};

use crate::ast::Span;

/// A source file: its name and text, shared by all its diagnostics.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: Arc<str>,
    pub text: Arc<str>,
}

impl Source {
    pub fn new(name: &str, text: &str) -> Source {
        Source {
            name: Arc::from(name),
            text: Arc::from(text),
        }
    }
    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let mut off = offset;
        while !self.text.is_char_boundary(off) {
            off -= 1;
        }
        let before = &self.text[..off];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        (line, col)
    }
}

/// One error, with its source.
#[derive(Debug, Clone)]
pub struct Error {
    pub message: String,
    pub span: Option<Span>,
    pub label: String,
    pub help: Option<String>,
    /// Further labelled spans (e.g. the earlier declaration of a duplicate name).
    pub related: Vec<(Span, String)>,
    pub source: Option<Source>,
}

impl Error {
    pub fn new(message: impl Into<String>, span: Span, label: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            span: Some(span),
            label: label.into(),
            help: None,
            related: vec![],
            source: None,
        }
    }
    /// An error without position (e.g. a bad `--const` value).
    pub fn global(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            span: None,
            label: String::new(),
            help: None,
            related: vec![],
            source: None,
        }
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Error {
        self.help = Some(help.into());
        self
    }
    pub fn with_related(mut self, span: Span, label: impl Into<String>) -> Error {
        self.related.push((span, label.into()));
        self
    }
    /// `file:line:col` of the error, when it has a position.
    pub fn location(&self) -> Option<String> {
        let (src, span) = (self.source.as_ref()?, self.span?);
        let (l, c) = src.line_col(span.start);
        Some(format!("{}:{}:{}", src.name, l, c))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location() {
            Some(loc) => write!(f, "{loc}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

impl Diagnostic for Error {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        if self.span.is_some() {
            self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
        } else {
            None
        }
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        let span = self.span?;
        let len = self.source.as_ref().map_or(0, |s| s.text.len());
        let clamp = move |s: Span| -> SourceSpan {
            let start = s.start.min(len);
            let end = s.end.clamp(start, len);
            SourceSpan::new(start.into(), end - start)
        };
        let mut v = vec![LabeledSpan::new_primary_with_span(
            Some(self.label.clone()),
            clamp(span),
        )];
        for (s, l) in &self.related {
            v.push(LabeledSpan::new_with_span(Some(l.clone()), clamp(*s)));
        }
        Some(Box::new(v.into_iter()))
    }
}

impl miette::SourceCode for Source {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let inner = self
            .text
            .read_span(span, context_lines_before, context_lines_after)?;
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.name.to_string(),
            inner.data(),
            *inner.span(),
            inner.line(),
            inner.column(),
            inner.line_count(),
        )))
    }
}

/// All errors of one run (one or more).
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    pub errors: Vec<Error>,
}

/// Width used by [`Diagnostics::render`].
pub const RENDER_WIDTH: usize = 100;

impl Diagnostics {
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }
    pub fn single(e: Error) -> Diagnostics {
        Diagnostics { errors: vec![e] }
    }
    pub fn push(&mut self, e: Error) {
        self.errors.push(e)
    }
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
    pub fn len(&self) -> usize {
        self.errors.len()
    }
    /// Attach `src` to every error that has no source yet.
    pub fn with_source(mut self, src: &Source) -> Diagnostics {
        for e in &mut self.errors {
            if e.source.is_none() {
                if src.text.is_empty() {
                    // no text to show (e.g. checking a tree without its source): drop positions
                    e.span = None;
                    e.related.clear();
                } else {
                    e.source = Some(src.clone());
                }
            }
        }
        self
    }
    pub fn extend(&mut self, other: Diagnostics) {
        self.errors.extend(other.errors)
    }

    /// Render all errors as plain ASCII text (no colours), deterministic width.
    pub fn render(&self) -> String {
        self.render_with(false)
    }

    /// Render all errors; `color` selects ANSI colours and Unicode drawing (for terminals).
    pub fn render_with(&self, color: bool) -> String {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::none()
        };
        let handler = GraphicalReportHandler::new_themed(theme)
            .with_width(RENDER_WIDTH)
            .with_links(false);
        let mut out = String::new();
        for e in &self.errors {
            if handler.render_report(&mut out, e).is_err() {
                out.push_str(&format!("error: {e}\n"));
            }
            out.push('\n');
        }
        if self.errors.len() > 1 {
            out.push_str(&format!("{} errors\n", self.errors.len()));
        }
        out
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.errors {
            writeln!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl From<Error> for Diagnostics {
    fn from(e: Error) -> Diagnostics {
        Diagnostics::single(e)
    }
}
