//! Malformed inputs: every message names file, line and column, underlines the text and says
//! what was expected; several independent errors are reported in one run. Snapshots of the
//! plain-text rendering (no colours, ASCII, width 100).

use saturn_prism::{check_model, load_model, parse_model, parse_properties, ConstOverrides};

fn model_errors(src: &str) -> String {
    match load_model("bad.prism", src, &ConstOverrides::default()) {
        Ok(_) => panic!("expected errors for:\n{src}"),
        Err(d) => d.render(),
    }
}

const GOOD: &str = "ctmc\nconst int N = 3;\nmodule M\n  x : [0..N];\n  [a] x<N -> 2 : (x'=x+1);\n  [b] x>0 -> 1 : (x'=x-1);\nendmodule\nlabel \"full\" = x=N;\nrewards \"r\"\n  [a] true : 1;\nendrewards\n";

fn prop_errors(src: &str) -> String {
    let prog = load_model("good.prism", GOOD, &ConstOverrides::default()).unwrap();
    match parse_properties("bad.props", src, &prog) {
        Ok(_) => panic!("expected errors for:\n{src}"),
        Err(d) => d.render(),
    }
}

#[test]
fn missing_semicolon() {
    let r = model_errors("ctmc\nconst int N = 3\nmodule M\n  x : [0..N];\n  [] x<N -> (x'=x+1)\n  [] x>0 -> (x'=x-1);\nendmodule\n");
    assert!(
        r.contains("bad.prism:2:16") && r.contains("bad.prism:5:21"),
        "{r}"
    );
    insta::assert_snapshot!(r);
}

#[test]
fn keyword_typo() {
    insta::assert_snapshot!(model_errors(
        "ctmc\nmodule M\n  x : [0..1];\n  [] x=0 -> (x'=1);\nendmodul\n"
    ));
}

#[test]
fn undefined_names() {
    insta::assert_snapshot!(model_errors(
        "ctmc\nconst int N = K + 1;\nmodule M\n  x : [0..N];\n  [] x<N -> lam : (x'=x+1);\n  [] x>0 -> 1 : (y'=x-1);\nendmodule\n"
    ));
}

#[test]
fn type_errors() {
    insta::assert_snapshot!(model_errors(
        "dtmc\nconst bool B = 3;\nmodule M\n  x : [0..2];\n  b : bool init 1;\n  [] x + true > 0 -> (x'=0.5);\n  [] x -> (b'=x);\nendmodule\nlabel \"l\" = x + 1;\n"
    ));
}

#[test]
fn unbalanced_brackets() {
    insta::assert_snapshot!(model_errors(
        "ctmc\nmodule M\n  x : [0..2;\n  [] (x<2 -> (x'=x+1);\n  [] x>0) -> (x'=x-1);\n  [ x=2 -> (x'=0);\nendmodule\n"
    ));
}

#[test]
fn duplicate_names() {
    insta::assert_snapshot!(model_errors(
        "ctmc\nconst int N = 1;\nconst int N = 2;\nmodule M\n  x : [0..1];\n  N : bool;\nendmodule\nmodule M\n  z : [0..1];\nendmodule\nlabel \"a\" = true;\nlabel \"a\" = false;\nrewards \"r\" true : 1; endrewards\nrewards \"r\" true : 2; endrewards\n"
    ));
}

#[test]
fn out_of_range() {
    insta::assert_snapshot!(model_errors(
        "ctmc\nconst int N = 3;\nmodule M\n  x : [1..N] init 0;\n  y : [5..2];\n  [] x<N -> (x'=N+1);\nendmodule\n"
    ));
}

#[test]
fn cycles_and_renaming() {
    insta::assert_snapshot!(model_errors(
        "ctmc\nconst int A1 = B1;\nconst int B1 = A1;\nformula f = g + 1;\nformula g = f;\nmodule M\n  x : [0..1];\n  y : [0..1];\n  [] f > 0 -> (x'=0);\nendmodule\nmodule M2 = M [ x=x2 ] endmodule\nmodule M3 = Nope [ x=x3 ] endmodule\n"
    ));
}

#[test]
fn unsupported_model_type() {
    insta::assert_snapshot!(model_errors("pta\nmodule M\n  x : [0..1];\nendmodule\n"));
}

#[test]
fn several_independent_errors_are_all_reported() {
    let r = model_errors(
        "ctmc\nconst int = 3;\nmodule M\n  x : [0..1] init ;\n  [] x=0 -> 1 : (x'=1;\n  [] x=1 -> (x'=0);\nendmodule\nformula f = (1 + ;\nlabel \"ok\" = x = 1;\nrewards \"r\" true : ; endrewards\n",
    );
    assert!(r.contains("5 errors"), "{r}");
    insta::assert_snapshot!(r);
}

#[test]
fn unknown_function_and_property_syntax_in_model() {
    insta::assert_snapshot!(model_errors(
        "ctmc\nmodule M\n  x : [0..1];\n  [] sqrt(x) > 0 -> (x'=0);\n  [] P>0.5 [ F x=1 ] -> (x'=1);\nendmodule\n"
    ));
}

#[test]
fn const_override_errors() {
    let ast = parse_model(
        "m.prism",
        "ctmc\nconst int N;\nconst double T = 2;\nmodule M x : [0..N]; endmodule\n",
    )
    .unwrap();
    let src = "ctmc\nconst int N;\nconst double T = 2;\nmodule M x : [0..N]; endmodule\n";
    let d = saturn_prism::check_model_with_source(
        &ast,
        &ConstOverrides::parse("N=1.5,T=3").unwrap(),
        &saturn_prism::Source::new("m.prism", src),
    )
    .unwrap_err();
    // a parsed tree remembers its source: check_model alone shows the location
    let plain = check_model(&ast, &ConstOverrides::parse("N=1.5").unwrap())
        .unwrap_err()
        .render();
    assert!(
        plain.contains("m.prism:2:11") && plain.contains("not of type int"),
        "{plain}"
    );
    // a tree built by hand has no source: errors still say what is wrong, without position
    let mut bare = ast.clone();
    bare.origin = Default::default();
    let plain = check_model(&bare, &ConstOverrides::parse("N=1.5").unwrap())
        .unwrap_err()
        .render();
    assert!(
        plain.contains("not of type int") && !plain.contains("m.prism"),
        "{plain}"
    );
    insta::assert_snapshot!(d.render());
}

#[test]
fn property_errors() {
    insta::assert_snapshot!(prop_errors(
        "P=? [ F \"nolabel\" ];\nR{\"nope\"}=? [ C<=1 ];\nP=? [ F<=z x=1 ];\nP=? [ x + 1 ];\nfilter(max, x=1);\nS=? [ F x=1 ];\nR{3}=? [ S ];\n\"d\": P=? [ F x=1 ];\n\"d\": P=? [ G x=1 ];\nP=? [ F<=-1 x=1 ];\n"
    ));
}

#[test]
fn bare_temporal_operator_in_property() {
    insta::assert_snapshot!(prop_errors("F x=1;\n"));
}

#[test]
fn property_syntax_errors_recover_per_line() {
    let r = prop_errors(
        "P=? [ F x=1\nP=? [ G x=1 ];\nfilter(median, x);\nP>=  [ X x=0 ]\nS=? [ x=0 ] extra\n",
    );
    assert!(r.contains("4 errors"), "{r}");
    insta::assert_snapshot!(r);
}
