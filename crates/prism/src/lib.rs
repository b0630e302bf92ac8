//! The PRISM modelling and property languages: parser, checker, printer, diagnostics.
//!
//! ```
//! let src = "ctmc\nconst int N = 2;\nmodule M\n  x : [0..N];\n  [] x<N -> 1.5 : (x'=x+1);\nendmodule\n";
//! let ast = saturn_prism::parse_model("m.prism", src).unwrap();
//! let prog = saturn_prism::check_model(&ast, &saturn_prism::ConstOverrides::default()).unwrap();
//! assert_eq!(prog.variables[0].bounds, Some((0, 2)));
//! let props = saturn_prism::parse_properties("m.props", "P=? [ F<=10 x=2 ];", &prog).unwrap();
//! assert_eq!(props.properties.len(), 1);
//! ```
//!
//! Pipeline: [`parse_model`] gives an [`ast::ModelFile`] (printable in canonical syntax with
//! `Display`); [`check_model`] resolves it into a [`Program`] (variables by index, constants
//! folded, formulas inlined, renamed modules copied); [`parse_properties`] parses and checks
//! a property file against a program. Errors are [`Diagnostics`] (miette reports with file,
//! line, column and underlined source).

pub mod ast;
mod check;
pub mod consts;
pub mod diag;
pub mod eval;
pub mod lexer;
pub mod lower;
mod parser;
pub mod print;
pub mod program;
mod props;
mod resolve;

pub use consts::{ConstOverrides, ConstSpec};
pub use diag::{Diagnostics, Error, Source};
pub use parser::MAX_DEPTH;
pub use program::*;
pub use props::{unknown_overrides, CheckedProperty, PropertyFile};

/// Parse a model file. `name` is used in diagnostics.
pub fn parse_model(name: &str, src: &str) -> Result<ast::ModelFile, Diagnostics> {
    let source = Source::new(name, src);
    let mut p = parser::Parser::new(src, false);
    let mut file = p.model_file();
    file.origin = ast::Origin(Some(source.clone()));
    if !p.errors.is_empty() {
        return Err(Diagnostics { errors: p.errors }.with_source(&source));
    }
    if file.items.is_empty() {
        return Err(Diagnostics::single(diag::Error::new(
            "empty model file",
            ast::Span::new(0, 0),
            "expected a model type and modules",
        ))
        .with_source(&source));
    }
    Ok(file)
}

fn decode<'a>(bytes: &'a [u8], name: &str) -> Result<&'a str, Diagnostics> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let lossy = String::from_utf8_lossy(bytes).into_owned();
        let source = Source::new(name, &lossy);
        let (line, col) = source.line_col(lossy.len().min(at));
        // the lossy text has the same prefix, so the offset is valid there
        let span = ast::Span::new(at, (at + 1).min(lossy.len()));
        Diagnostics::single(
            diag::Error::new(
                format!("the file is not valid UTF-8 (invalid byte at line {line}, column {col})"),
                span,
                "invalid UTF-8 here",
            )
            .with_help("PRISM files are text; save the file as UTF-8"),
        )
        .with_source(&source)
    })
}

/// Parse a model file given as bytes (invalid UTF-8 is reported as a diagnostic).
pub fn parse_model_bytes(bytes: &[u8], name: &str) -> Result<ast::ModelFile, Diagnostics> {
    parse_model(name, decode(bytes, name)?)
}

/// Parse a property file without checking it (for printing / round trips).
pub fn parse_properties_ast(name: &str, src: &str) -> Result<ast::PropertiesFile, Diagnostics> {
    let source = Source::new(name, src);
    let mut p = parser::Parser::new(src, true);
    let mut file = p.properties_file();
    file.origin = ast::Origin(Some(source.clone()));
    if !p.errors.is_empty() {
        return Err(Diagnostics { errors: p.errors }.with_source(&source));
    }
    Ok(file)
}

/// Parse a property file given as bytes, without checking it.
pub fn parse_properties_ast_bytes(
    bytes: &[u8],
    name: &str,
) -> Result<ast::PropertiesFile, Diagnostics> {
    parse_properties_ast(name, decode(bytes, name)?)
}

/// Check a parsed model; `overrides` gives values to undefined constants (must be concrete:
/// expand ranges with [`ConstOverrides::assignments`]). Constants still undefined are allowed
/// and listed with `value: None`.
pub fn check_model(
    file: &ast::ModelFile,
    overrides: &ConstOverrides,
) -> Result<Program, Diagnostics> {
    // trees from `parse_model` remember their source, so diagnostics can show it
    let source = file
        .origin
        .0
        .clone()
        .unwrap_or_else(|| Source::new("model", ""));
    check_model_with_source(file, overrides, &source)
}

/// Like [`check_model`], with the source text so diagnostics can show it.
pub fn check_model_with_source(
    file: &ast::ModelFile,
    overrides: &ConstOverrides,
    source: &Source,
) -> Result<Program, Diagnostics> {
    check::check_model(file, overrides, source)
}

/// Parse and check a model in one step (diagnostics show the source).
pub fn load_model(
    name: &str,
    src: &str,
    overrides: &ConstOverrides,
) -> Result<Program, Diagnostics> {
    let file = parse_model(name, src)?;
    check_model_with_source(&file, overrides, &Source::new(name, src))
}

/// Parse a property file and check it against `program` (constants' values come from
/// `program.overrides`).
pub fn parse_properties(
    name: &str,
    src: &str,
    program: &Program,
) -> Result<PropertyFile, Diagnostics> {
    let file = parse_properties_ast(name, src)?;
    check_properties(&file, program)
}

/// Check an already parsed property file against `program`.
pub fn check_properties(
    file: &ast::PropertiesFile,
    program: &Program,
) -> Result<PropertyFile, Diagnostics> {
    let source = file
        .origin
        .0
        .clone()
        .unwrap_or_else(|| Source::new("properties", ""));
    props::check_properties(file, program, &source)
}

/// Check an already parsed property file against `program`; `source` is the property file's
/// text (for diagnostics).
pub fn check_properties_with_source(
    file: &ast::PropertiesFile,
    program: &Program,
    source: &Source,
) -> Result<PropertyFile, Diagnostics> {
    props::check_properties(file, program, source)
}

/// [`parse_properties`] from bytes.
pub fn parse_properties_bytes(
    bytes: &[u8],
    name: &str,
    program: &Program,
) -> Result<PropertyFile, Diagnostics> {
    parse_properties(name, decode(bytes, name)?, program)
}
