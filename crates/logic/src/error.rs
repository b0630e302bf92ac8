//! Parse errors with spans, rendered by `miette`.

use std::fmt;

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode};

use crate::ast::Span;

/// One syntax error: what is wrong, where, and (in `message`) what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub span: Span,
    /// Short text shown under the offending source.
    pub label: String,
    pub help: Option<String>,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SyntaxError {}

impl Diagnostic for SyntaxError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("saturn::formula::syntax"))
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(
            LabeledSpan::new_primary_with_span(Some(self.label.clone()), self.span),
        )))
    }
}

/// Every syntax error found in one formula text (at least one), with the text itself so the
/// diagnostic renders with the offending source underlined.
#[derive(Debug)]
pub struct ParseError {
    pub src: NamedSource<String>,
    pub errors: Vec<SyntaxError>,
}

impl ParseError {
    /// The first (main) error.
    pub fn first(&self) -> &SyntaxError {
        &self.errors[0]
    }
    /// Give the source a name (a file name, `--ctl #2`, ...) for the rendered diagnostic.
    pub fn with_name(mut self, name: impl AsRef<str>) -> Self {
        let text = self.src.inner().clone();
        self.src = NamedSource::new(name, text);
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.errors.first() {
            Some(e) => f.write_str(&e.message),
            None => f.write_str("syntax error"),
        }
    }
}

impl std::error::Error for ParseError {}

impl Diagnostic for ParseError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.errors.first().and_then(|e| e.code())
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.errors.first().and_then(|e| e.help())
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.errors.first().and_then(|e| e.labels())
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.src)
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.errors.len() <= 1 {
            return None;
        }
        Some(Box::new(
            self.errors[1..].iter().map(|e| e as &dyn Diagnostic),
        ))
    }
}

/// Render a diagnostic the way `miette` prints it (source excerpt, underline, help), with or
/// without ANSI colours.
pub fn render_diagnostic(diagnostic: &dyn Diagnostic, color: bool) -> String {
    use miette::{GraphicalReportHandler, GraphicalTheme};
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
    let mut out = String::new();
    if handler.render_report(&mut out, diagnostic).is_err() {
        out = diagnostic.to_string();
    }
    out
}

impl ParseError {
    /// The rendered diagnostic (every error, with the source underlined).
    pub fn render(&self, color: bool) -> String {
        render_diagnostic(self, color)
    }
}

impl crate::resolve::ResolveErrors {
    /// Render every error against the formula text `src` (named `name` in the output).
    pub fn render(&self, name: &str, src: &str, color: bool) -> String {
        self.0
            .iter()
            .map(|e| {
                let report = miette::Report::new(e.clone())
                    .with_source_code(NamedSource::new(name, src.to_string()));
                render_diagnostic(report.as_ref(), color)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}
