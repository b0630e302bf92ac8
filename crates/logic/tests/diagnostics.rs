//! Snapshots of rendered diagnostics for malformed formulas (reviewed by hand).

use saturn_logic::*;

fn render(src: &str) -> String {
    match parse_query(src) {
        Ok(q) => panic!("{src} parsed as {q}"),
        Err(e) => e.with_name("formula").render(false),
    }
}

#[test]
fn missing_paren() {
    insta::assert_snapshot!(render("AG (p <= 3 & q > 1"));
}

#[test]
fn place_used_as_formula() {
    insta::assert_snapshot!(render("EF p & q > 0"));
}

#[test]
fn several_errors_are_reported() {
    insta::assert_snapshot!(render("(p <= ) & enabled() | E [q > 0 q < 1]"));
}

#[test]
fn chained_comparison() {
    insta::assert_snapshot!(render("0 <= p <= 3"));
}

#[test]
fn unquoted_id_with_dash() {
    insta::assert_snapshot!(render("EF 1p-2 >= 1"));
}

#[test]
fn unterminated_quote() {
    insta::assert_snapshot!(render("AG \"p-1 >= 2"));
}

#[test]
fn unknown_place_rendered() {
    let src = "AG (\"p-1\" + nope <= 3)";
    let q = parse_query(src).unwrap();
    let errs = resolve(&q, &NameTable::new(["p-1"], [])).unwrap_err();
    insta::assert_snapshot!(errs.render("formula", src, false));
}
