//! The resolved program and checked properties, against values worked out by hand from the
//! PRISM language definition.

use saturn_prism::ast::{ExprKind, FilterOp, ModelType};
use saturn_prism::{
    load_model, parse_properties, ConstOverrides, ConstSpec, Program, System, Type, Value, VarKind,
};

fn load(src: &str, consts: &str) -> Program {
    load_model("t.prism", src, &ConstOverrides::parse(consts).unwrap())
        .unwrap_or_else(|e| panic!("{}", e.render()))
}

fn load_err(src: &str, consts: &str) -> String {
    load_model("t.prism", src, &ConstOverrides::parse(consts).unwrap())
        .map(|_| ())
        .unwrap_err()
        .render()
}

const SKELETON: &str = "module M\n  x : [0..1];\n  [] x=0 -> (x'=1);\nendmodule\n";

fn value(p: &Program, name: &str) -> Option<Value> {
    p.constant(name).unwrap().value
}

#[test]
fn constants_evaluate_like_prism() {
    let src = format!(
        "ctmc\nconst int N;\nconst int left_mx = N;\nconst double ws_fail = 1/500;\nconst int k = floor(0.75*N);\n\
         const double half = 7/2;\nconst int c = ceil(7/2);\nconst int m = mod(-7, 3);\nconst int p = pow(2, 10);\n\
         const double q = pow(2, 0.5) * pow(2, 0.5);\nconst bool b = N > 3 => k = 3;\nconst double lg = log(8, 2);\n\
         const int mx = max(1, N, 2);\nconst double mn = min(1, 0.5);\nconst int ite = N > 4 ? 1 : 2;\n\
         const int rnd = round(2.5);\nconst double T;\n{SKELETON}"
    );
    let p = load(&src, "N=5");
    assert_eq!(value(&p, "N"), Some(Value::Int(5)));
    assert_eq!(value(&p, "left_mx"), Some(Value::Int(5)));
    assert_eq!(value(&p, "ws_fail"), Some(Value::Double(0.002)));
    assert_eq!(value(&p, "k"), Some(Value::Int(3))); // floor(3.75)
    assert_eq!(value(&p, "half"), Some(Value::Double(3.5))); // int division gives double
    assert_eq!(value(&p, "c"), Some(Value::Int(4)));
    assert_eq!(value(&p, "m"), Some(Value::Int(2))); // -7 mod 3 = 2
    assert_eq!(value(&p, "p"), Some(Value::Int(1024)));
    let q = value(&p, "q").unwrap().as_f64().unwrap();
    assert!((q - 2.0).abs() < 1e-12);
    assert_eq!(value(&p, "b"), Some(Value::Bool(true)));
    assert_eq!(value(&p, "lg"), Some(Value::Double(3.0)));
    assert_eq!(value(&p, "mx"), Some(Value::Int(5)));
    assert_eq!(value(&p, "mn"), Some(Value::Double(0.5)));
    assert_eq!(value(&p, "ite"), Some(Value::Int(1)));
    assert_eq!(value(&p, "rnd"), Some(Value::Int(3)));
    assert_eq!(p.undefined_constants(), vec!["T"]);
    // an int constant cannot hold a double
    assert!(
        load_err(&format!("ctmc\nconst int h = 7/2;\n{SKELETON}"), "").contains("declared int")
    );
    // double constants accept int overrides; the value is converted
    let p = load(&format!("ctmc\nconst double T;\n{SKELETON}"), "T=3");
    assert_eq!(value(&p, "T"), Some(Value::Double(3.0)));
}

#[test]
fn undefined_constants_stay_symbolic() {
    let p = load("ctmc\nconst int N;\nconst int M = N + 1;\nmodule Ma\n  x : [0..M] init N;\n  [] x < M -> (x'=x+1);\nendmodule\n", "");
    assert_eq!(p.undefined_constants(), vec!["N", "M"]);
    assert!(p.constant("M").unwrap().definition.is_some());
    let v = &p.variables[0];
    assert_eq!(v.bounds, None);
    let VarKind::Int { hi, .. } = &v.kind else {
        panic!()
    };
    // refers to the undefined constant, whose definition is kept resolved
    assert!(matches!(&hi.kind, ExprKind::Const { name, props: false, .. } if name == "M"));
    assert_eq!(
        p.constant("M")
            .unwrap()
            .definition
            .as_ref()
            .unwrap()
            .to_string(),
        "N + 1"
    );
    // with a value, everything folds
    let p = load("ctmc\nconst int N;\nconst int M = N + 1;\nmodule Ma\n  x : [0..M] init N;\n  [] x < M -> (x'=x+1);\nendmodule\n", "N=2");
    assert_eq!(p.variables[0].bounds, Some((0, 3)));
    assert_eq!(p.variables[0].init.as_ref().unwrap().kind, ExprKind::Int(2));
    assert_eq!(p.modules[0].commands[0].guard.to_string(), "x < 3");
}

#[test]
fn renaming_formulas_and_alphabets() {
    let src = "ctmc\nconst double lambda = 1/3;\nconst int MIN_A = 1;\nconst int MIN_B = 2;\n\
        formula busy = s = 1;\n\
        module server\n  s : [1..3];\n  [loop1] s=1 -> 200 : (s'=2);\n  [serve1] s=2 -> 1 : (s'=3);\nendmodule\n\
        module station1\n  s1 : [0..1];\n  [loop1] s1=0 & busy -> 1 : (s1'=0);\n  [] s1=0 & s1 >= MIN_A -> lambda : (s1'=1);\n  [serve1] s1=1 -> (s1'=0);\nendmodule\n\
        module station2 = station1 [ s1=s2, loop1=loop2, serve1=serve2, MIN_A=MIN_B ] endmodule\n";
    let p = load(src, "");
    assert_eq!(p.modules.len(), 3);
    let st2 = &p.modules[2];
    assert_eq!(st2.name, "station2");
    assert_eq!(st2.renamed_from.as_deref(), Some("station1"));
    assert_eq!(
        st2.vars
            .iter()
            .map(|&v| p.variables[v].name.as_str())
            .collect::<Vec<_>>(),
        vec!["s2"]
    );
    let acts: Vec<&str> = st2
        .alphabet
        .iter()
        .map(|&a| p.actions[a].as_str())
        .collect();
    assert_eq!(acts.len(), 2);
    assert!(acts.contains(&"loop2") && acts.contains(&"serve2"));
    // renamed constant and inlined formula: `s1=0 & busy` became `s2 = 0 & s = 1`
    assert_eq!(st2.commands[0].guard.to_string(), "s2 = 0 & s = 1");
    assert_eq!(st2.commands[1].guard.to_string(), "s2 = 0 & s2 >= 2");
    // rates: folded constant, default rate 1
    assert_eq!(
        st2.commands[1].updates[0].prob.kind,
        ExprKind::Double(1.0 / 3.0)
    );
    assert_eq!(st2.commands[2].updates[0].prob.kind, ExprKind::Int(1));
    // variables by index
    let ExprKind::Binary(_, l, _) = &st2.commands[2].guard.kind else {
        panic!()
    };
    assert!(matches!(l.kind, ExprKind::Var { index: 2, .. }));
    let server_acts: Vec<&str> = p.modules[0]
        .alphabet
        .iter()
        .map(|&a| p.actions[a].as_str())
        .collect();
    assert_eq!(server_acts, vec!["loop1", "serve1"]);
}

#[test]
fn model_types_and_defaults() {
    for (kw, t) in [
        ("ctmc", ModelType::Ctmc),
        ("stochastic", ModelType::Ctmc),
        ("dtmc", ModelType::Dtmc),
        ("probabilistic", ModelType::Dtmc),
        ("mdp", ModelType::Mdp),
        ("nondeterministic", ModelType::Mdp),
    ] {
        let p = load(&format!("{kw}\n{SKELETON}"), "");
        assert_eq!(p.model_type, t);
        assert!(p.model_type_declared);
    }
    let p = load(SKELETON, "");
    assert_eq!(p.model_type, ModelType::Mdp);
    assert!(!p.model_type_declared);
    for bad in ["pta", "smg", "pomdp"] {
        assert!(load_err(&format!("{bad}\n{SKELETON}"), "").contains("not supported"));
    }
    // default initial values: lower bound and false
    let p = load(
        "dtmc\nmodule M\n  x : [2..4];\n  b : bool;\n  [] true -> true;\nendmodule\n",
        "",
    );
    assert_eq!(p.variables[0].init.as_ref().unwrap().kind, ExprKind::Int(2));
    assert_eq!(
        p.variables[1].init.as_ref().unwrap().kind,
        ExprKind::Bool(false)
    );
    assert!(p.modules[0].commands[0].updates[0].assigns.is_empty());
}

#[test]
fn globals_init_blocks_and_system() {
    let src = "mdp\nglobal g : [0..2];\nmodule Ma\n  a : bool;\n  [go] !a -> (a'=true) & (g'=1);\nendmodule\n\
               module Mb\n  b : [0..1];\n  [go] b=0 -> 0.5 : (b'=1) + 0.5 : true;\n  [tick] true -> true;\nendmodule\n\
               init g=0 & !a & b=0 endinit\nsystem Ma |[go]| (Mb / {tick}) {go <- start} endsystem\n";
    let p = load(src, "");
    assert_eq!(p.variables[0].name, "g");
    assert_eq!(p.variables[0].module, None);
    assert!(p.variables.iter().all(|v| v.init.is_none()));
    assert!(p.init.is_some());
    let Some(System::Par(saturn_prism::ParKind::Sync(acts), _, r)) = &p.system else {
        panic!("{:?}", p.system)
    };
    assert_eq!(
        acts.iter()
            .map(|&a| p.actions[a].as_str())
            .collect::<Vec<_>>(),
        vec!["go"]
    );
    assert!(matches!(**r, System::Rename(..)));
    assert_eq!(
        p.system_to_string(p.system.as_ref().unwrap()),
        "Ma |[go]| Mb / {tick} {go <- start}"
    );
    // errors: init both ways, another module's variable, module missing from system
    assert!(
        load_err(&src.replace("a : bool;", "a : bool init false;"), "")
            .contains("init ... endinit")
    );
    assert!(
        load_err(&src.replace("(a'=true) & (g'=1)", "(a'=true) & (b'=1)"), "")
            .contains("cannot change variable `b`")
    );
    assert!(load_err(
        &src.replace("Ma |[go]| (Mb / {tick}) {go <- start}", "Ma"),
        ""
    )
    .contains("do not appear"));
    // a module may share its name with a constant (separate namespaces)
    load(&format!("ctmc\nconst int M = 2;\n{SKELETON}"), "");
}

#[test]
fn const_overrides() {
    let o = ConstOverrides::parse("N=3,T=1:1:3,b=true,d=-0.5").unwrap();
    assert_eq!(o.value("N"), Some(Value::Int(3)));
    assert_eq!(o.value("b"), Some(Value::Bool(true)));
    assert_eq!(o.value("d"), Some(Value::Double(-0.5)));
    assert!(matches!(o.get("T"), Some(ConstSpec::Range { .. })));
    let runs = o.assignments().unwrap();
    assert_eq!(
        runs.iter().map(|r| r.value("T")).collect::<Vec<_>>(),
        vec![
            Some(Value::Int(1)),
            Some(Value::Int(2)),
            Some(Value::Int(3))
        ]
    );
    let two = ConstOverrides::parse("A=1:2,B=0.1:0.1:0.3")
        .unwrap()
        .assignments()
        .unwrap();
    assert_eq!(two.len(), 6);
    assert_eq!(two[1].to_string(), "A=1,B=0.2");
    assert_eq!(
        ConstOverrides::parse("T=5:-2:1")
            .unwrap()
            .assignments()
            .unwrap()
            .len(),
        3
    );
    for bad in [
        "N",
        "N=abc",
        "T=1:0:3",
        "T=3:1:1",
        "N=1,N=2",
        "1x=2",
        "N=1:2:3:4",
        "N=nan",
    ] {
        assert!(ConstOverrides::parse(bad).is_err(), "{bad}");
    }
    assert!(ConstOverrides::parse("").unwrap().is_empty());
    assert!(
        load_err(&format!("ctmc\nconst int N;\n{SKELETON}"), "N=true").contains("not of type int")
    );
}

#[test]
fn properties_resolve() {
    let src = "ctmc\nmodule M\n  x : [0..3];\n  [arrive] x<3 -> 1.5 : (x'=x+1);\n  [serve] x>0 -> 3 : (x'=x-1);\nendmodule\n\
               label \"full\" = x=3;\nrewards \"serve\"\n  [serve] true : 1;\nendrewards\nrewards \"queue\"\n  true : x;\nendrewards\n";
    let p = load(src, "T=2");
    let props = "const double T;\nconst int K = 2;\nlabel \"two\" = x = K;\n\
                 P=? [ X \"full\" {x=2} ];\n\"ex15\": P>=0.5 [ X \"full\" ];\nfilter(forall, \"ex15\" <=> false);\n\
                 P=? [ F<=T \"full\" {\"two\"}{min} ];\nR{2}=? [ I=T ];\nfilter(count, \"two\" | \"init\");\nS=? [ \"deadlock\" ]\n";
    let pf = parse_properties("t.props", props, &p).unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(pf.constants.len(), 2);
    assert_eq!(pf.constants[0].value, Some(Value::Double(2.0)));
    assert_eq!(pf.labels.len(), 1);
    let ps = &pf.properties;
    assert_eq!(ps.len(), 7);
    let ExprKind::Filter(f) = &ps[0].expr.kind else {
        panic!("{:?}", ps[0].expr)
    };
    assert_eq!(f.op, FilterOp::First);
    assert_eq!(ps[0].ty, Type::Double);
    assert_eq!(ps[1].ty, Type::Bool);
    assert_eq!(ps[1].name.as_deref(), Some("ex15"));
    let ExprKind::Filter(f) = &ps[2].expr.kind else {
        panic!()
    };
    let ExprKind::Binary(_, l, _) = &f.prop.kind else {
        panic!()
    };
    assert!(matches!(l.kind, ExprKind::PropRef { index: 1, .. }));
    let ExprKind::Filter(f) = &ps[3].expr.kind else {
        panic!()
    };
    assert_eq!(f.op, FilterOp::Min);
    assert_eq!(f.prop.to_string(), "P=? [ F<=2.0 \"full\" ]");
    assert_eq!(ps[4].expr.to_string(), "R{2}=? [ I=2.0 ]");
    assert_eq!(ps[5].ty, Type::Int);
    assert_eq!(ps[6].ast.to_string(), "S=? [ \"deadlock\" ]");
    // canonical printing of the property as written
    assert_eq!(
        ps[3].ast.to_string(),
        "P=? [ F<=T \"full\" {\"two\"}{min} ]"
    );
}

#[test]
fn dtmc_probabilities_must_sum_to_one() {
    let ok = "dtmc\nmodule M\n  x : [0..2];\n  [] x=0 -> 1/3 : (x'=1) + 1/3 : (x'=2) + 1/3 : true;\n  [] x>0 -> (x'=0);\nendmodule\n";
    load(ok, "");
    let bad = ok.replace("+ 1/3 : true", "+ 0.2 : true");
    assert!(load_err(&bad, "").contains("sum to 0.8666"));
    // rates in a ctmc need not sum to 1; symbolic probabilities are left to the engine
    load(&bad.replace("dtmc", "ctmc"), "");
    load("mdp\nconst double p;\nmodule M\n  x : [0..1];\n  [] x=0 -> p : (x'=1) + 1-p : true;\nendmodule\n", "");
}
