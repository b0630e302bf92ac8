//! No input makes the parsers or checkers panic, loop or blow up: random bytes, mutations of
//! real files, deep nesting, huge literals, invalid UTF-8, formula explosions.

use proptest::prelude::*;
use saturn_prism::{
    check_model, parse_model, parse_model_bytes, parse_properties, parse_properties_ast_bytes,
    ConstOverrides, Program,
};

use crate::shared;

/// A model of our own using most of the language (used when ../shared is absent, and always).
const BUNDLED_MODEL: &str = r#"// bundled test model
dtmc
const int N = 4;
const double p = 0.25;
const int K;
const bool flag = true;
global g : [0..N] init 0;
formula full = x = N;
formula half = x >= floor(N / 2);
module Ma
  x : [0..N] init 1;
  done : bool;
  [go] x < N & !done -> p : (x'=x+1) + 1-p : (x'=max(0, x-1));
  [stop] full -> (done'=true) & (g'=min(g+1, N));
  [] done -> true;
endmodule
module Mb = Ma [ x=y, done=fin, go=go2 ] endmodule
label "half" = half;
rewards "steps"
  [go] true : 1;
  !done : x / N;
endrewards
rewards
  true : pow(2, 3) + mod(7, 3) + log(8, 2) + (flag ? 1 : 0);
endrewards
system Ma |[stop]| (Mb / {go2}) {stop <- halt} endsystem
"#;

const BUNDLED_PROPS: &str = r#"const double T = 10;
label "both" = x = N & y = N;
"reach": P=? [ F<=T "both" ];
Pmax=? [ !"half" U[1, T] full ];
R{"steps"}min=? [ F done ];
R{2}=? [ C<=T ];
filter(argmax, P=? [ X x>1 ], "init");
"bounded": P>=0.5 [ G !"deadlock" ];
filter(forall, "bounded" <=> true);
S=? [ x = 1 ];
E [ F x=2 ] | A [ G x<=N ];
"#;

fn corpus() -> Vec<(String, String)> {
    let mut v = vec![
        ("bundled.prism".to_string(), BUNDLED_MODEL.to_string()),
        ("bundled.props".to_string(), BUNDLED_PROPS.to_string()),
    ];
    let dir = shared::benchmarks("ctmc");
    if dir.is_dir() {
        for d in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            for f in std::fs::read_dir(d.path()).into_iter().flatten().flatten() {
                let n = f.file_name().to_string_lossy().to_string();
                if n.ends_with(".prism") || n.ends_with(".sm") || n.ends_with(".props") {
                    if let Ok(t) = std::fs::read_to_string(f.path()) {
                        v.push((n, t));
                    }
                }
            }
        }
    } else {
        shared::absent(&dir, "mutating the bundled files only");
    }
    v.sort();
    v
}

fn bundled_program() -> Program {
    let ast =
        parse_model("bundled.prism", BUNDLED_MODEL).unwrap_or_else(|e| panic!("{}", e.render()));
    check_model(&ast, &ConstOverrides::parse("K=3").unwrap())
        .unwrap_or_else(|e| panic!("{}", e.render()))
}

/// Run every entry point on `bytes`; any outcome but a panic is fine. Rendering must work too.
fn exercise(bytes: &[u8], program: &Program) {
    match parse_model_bytes(bytes, "fuzz.prism") {
        Ok(ast) => {
            let printed = ast.to_string();
            let again = parse_model("printed", &printed)
                .unwrap_or_else(|d| panic!("{}\n{printed}", d.render()));
            assert_eq!(again, ast, "round trip changed the tree:\n{printed}");
            if let Err(d) = check_model(&ast, &ConstOverrides::default()) {
                assert!(!d.render().is_empty());
            }
        }
        Err(d) => {
            assert!(!d.is_empty());
            assert!(!d.render().is_empty());
        }
    }
    match parse_properties_ast_bytes(bytes, "fuzz.props") {
        Ok(ast) => {
            let printed = ast.to_string();
            let again = saturn_prism::parse_properties_ast("printed", &printed)
                .unwrap_or_else(|d| panic!("{}\n{printed}", d.render()));
            assert_eq!(again, ast, "round trip changed the tree:\n{printed}");
            if let Ok(s) = std::str::from_utf8(bytes) {
                if let Err(d) = parse_properties("fuzz.props", s, program) {
                    assert!(!d.render().is_empty());
                }
            }
        }
        Err(d) => assert!(!d.render().is_empty()),
    }
}

#[test]
fn bundled_files_are_valid() {
    let prog = bundled_program();
    assert_eq!(prog.modules.len(), 2);
    assert_eq!(prog.modules[1].renamed_from.as_deref(), Some("Ma"));
    let pf = parse_properties("bundled.props", BUNDLED_PROPS, &prog)
        .unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(pf.properties.len(), 9);
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
    Replace(usize, u8),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let token = prop::sample::select(vec![
        &b"("[..],
        b")",
        b"[",
        b"]",
        b";",
        b"->",
        b"'",
        b"endmodule",
        b"module",
        b"\"",
        b"/*",
        b"{",
        b"}",
        b"99999999999999999999999",
        b"\xff",
        b"P=?",
        b"U<=",
        b"x",
        b"&",
        b"=",
        b"..",
        b"\r\n",
        b"const",
        b"filter(",
        b"R{",
    ])
    .prop_map(|t| t.to_vec());
    prop_oneof![
        (any::<usize>(), 1usize..20).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (
            any::<usize>(),
            prop_oneof![token, prop::collection::vec(any::<u8>(), 1..6)]
        )
            .prop_map(|(a, b)| Mutation::Insert(a, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::Replace(a, b)),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
    ]
}

fn apply(mut v: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let len = v.len().max(1);
        match m {
            Mutation::Delete(a, n) => {
                let a = a % len;
                let b = (a + n).min(v.len());
                if a < b {
                    v.drain(a..b);
                }
            }
            Mutation::Insert(a, bytes) => {
                let a = (a % len).min(v.len());
                v.splice(a..a, bytes.iter().copied());
            }
            Mutation::Replace(a, b) => {
                if !v.is_empty() {
                    let i = a % v.len();
                    v[i] = *b;
                }
            }
            Mutation::Duplicate(a, n) => {
                let a = (a % len).min(v.len());
                let b = (a + n).min(v.len());
                let piece: Vec<u8> = v[a..b].to_vec();
                v.splice(b..b, piece);
            }
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let prog = bundled_program();
        exercise(&bytes, &prog);
    }

    #[test]
    fn random_text_never_panics(s in "[ -~\n]{0,300}") {
        let prog = bundled_program();
        exercise(s.as_bytes(), &prog);
    }

    #[test]
    fn mutated_real_files_never_panic(i in any::<usize>(), muts in prop::collection::vec(mutation(), 1..6)) {
        let files = corpus();
        let (_, text) = &files[i % files.len()];
        let prog = bundled_program();
        exercise(&apply(text.as_bytes().to_vec(), &muts), &prog);
    }
}

fn run_small_stack<F: FnOnce() + Send + 'static>(f: F) {
    // 2 MiB: the default for test threads, made explicit
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn deep_parentheses_give_an_error() {
    run_small_stack(|| {
        let n = 100_000;
        let src = format!("ctmc\nformula f = {}1{};\n", "(".repeat(n), ")".repeat(n));
        let e = parse_model("deep.prism", &src).unwrap_err();
        assert!(e.render().contains("nested too deeply"), "{}", e.render());
        let src = format!("P=? [ {}F x=1{} ];", "(".repeat(n), ")".repeat(n));
        let e = saturn_prism::parse_properties_ast("deep.props", &src).unwrap_err();
        assert!(e.render().contains("nested too deeply"));
        let src = format!("P=? [ {} true ];", "X ".repeat(n));
        assert!(saturn_prism::parse_properties_ast("deep.props", &src).is_err());
        let src = format!("formula f = {}x;", "!-".repeat(n));
        assert!(parse_model("deep.prism", &src).is_err());
        let src = format!("system {}M{} endsystem", "(".repeat(n), ")".repeat(n));
        assert!(parse_model("deep.prism", &src).is_err());
    });
}

#[test]
fn long_operator_chains_give_an_error_not_a_stack_overflow() {
    run_small_stack(|| {
        let src = format!("ctmc\nformula f = {}1;\n", "1 + ".repeat(200_000));
        let e = parse_model("chain.prism", &src).unwrap_err();
        assert!(e.render().contains("nested too deeply"));
    });
}

#[test]
fn chains_below_the_limit_work_everywhere() {
    run_small_stack(|| {
        let sum = (0..400)
            .map(|i| format!("x*{i}"))
            .collect::<Vec<_>>()
            .join(" + ");
        let src = format!("ctmc\nmodule M\n x : [0..1];\n [] x=0 -> {sum} : (x'=1);\nendmodule\n");
        let ast = parse_model("ok.prism", &src).unwrap();
        let again = parse_model("printed", &ast.to_string()).unwrap();
        assert_eq!(ast, again);
        check_model(&ast, &ConstOverrides::default()).unwrap();
    });
}

#[test]
fn formula_chains_and_explosions_are_bounded() {
    run_small_stack(|| {
        // f_i = f_{i-1} + f_{i-1}: 2^60 nodes if expanded naively
        let mut src = String::from("ctmc\nformula f0 = x;\n");
        for i in 1..60 {
            src.push_str(&format!("formula f{i} = f{} + f{};\n", i - 1, i - 1));
        }
        src.push_str("module M\n x : [0..1];\n [] f59 > 0 -> (x'=0);\nendmodule\n");
        let ast = parse_model("boom.prism", &src).unwrap();
        let e = check_model(&ast, &ConstOverrides::default()).unwrap_err();
        assert!(e.render().contains("too large"), "{}", e.render());
        // a long chain of formulas: deep after inlining
        let mut src = String::from("ctmc\nformula g0 = x;\n");
        for i in 1..5000 {
            src.push_str(&format!("formula g{i} = g{} + 1;\n", i - 1));
        }
        src.push_str("module M\n x : [0..1];\n [] g4999 > 0 -> (x'=0);\nendmodule\n");
        let ast = parse_model("chain.prism", &src).unwrap();
        let e = check_model(&ast, &ConstOverrides::default()).unwrap_err();
        assert!(e.render().contains("too deep"), "{}", e.render());
    });
}

#[test]
fn huge_literals_and_overflow() {
    let e = parse_model("big.prism", "ctmc\nconst int N = 99999999999999999999;\n").unwrap_err();
    assert!(e.render().contains("integer literal too large"));
    let ast = parse_model(
        "ovf.prism",
        "ctmc\nconst int N = 9223372036854775807 + 1;\nmodule M x:[0..1]; endmodule\n",
    )
    .unwrap();
    let e = check_model(&ast, &ConstOverrides::default()).unwrap_err();
    assert!(e.render().contains("integer overflow"));
    let e = parse_model("dbl.prism", "ctmc\nconst double d = 1e999;\n").unwrap_err();
    assert!(e.render().contains("out of range"));
}

#[test]
fn empty_and_comment_only_files() {
    for src in ["", "   \n\t", "// nothing\n", "/* block */", "\u{feff}"] {
        assert!(parse_model("empty.prism", src).is_err(), "{src:?}");
    }
    // an empty property file is a valid (empty) file
    assert_eq!(
        saturn_prism::parse_properties_ast("e.props", "// none\n")
            .unwrap()
            .properties()
            .count(),
        0
    );
}

#[test]
fn invalid_utf8_is_reported() {
    let e = parse_model_bytes(
        b"ctmc\nmodule M\n x : [0..1];\xff\xfe\nendmodule\n",
        "bin.prism",
    )
    .unwrap_err();
    let r = e.render();
    assert!(r.contains("not valid UTF-8") && r.contains("line 3"), "{r}");
    assert!(parse_properties_ast_bytes(b"P=? [ F \xc3 ]", "bin.props").is_err());
}

#[test]
fn unterminated_comment_and_string() {
    let e = parse_model("c.prism", "ctmc /* never closed\nmodule M endmodule").unwrap_err();
    assert!(e.render().contains("unterminated comment"));
    let e = saturn_prism::parse_properties_ast("s.props", "P=? [ F \"abc ];\n").unwrap_err();
    assert!(e.render().contains("unterminated"));
}
