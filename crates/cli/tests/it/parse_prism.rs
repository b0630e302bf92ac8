//! `saturn parse` on PRISM models and property files.

use std::path::PathBuf;

use assert_cmd::Command;
use predicates::prelude::*;

use crate::shared;

const MODEL: &str = "// two queues\nctmc\nconst int N;\nconst double mu = 2;\nglobal g : [0..1];\nformula busy = x > 0;\n\
module Q1\n  x : [0..N] init 0;\n  [arrive] x < N -> 1.5 : (x'=x+1);\n  [serve] busy -> mu : (x'=x-1);\nendmodule\n\
module Q2 = Q1 [ x=y, arrive=arrive2, serve=serve2 ] endmodule\n\
label \"full\" = x = N;\nrewards \"served\"\n  [serve] true : 1;\n  x > 0 : x;\nendrewards\n";

const PROPS: &str = "const double T;\n\"p\": P=? [ F<=T \"full\" ];\nR{\"served\"}=? [ C<=T ];\nfilter(forall, \"p\" >= 0);\n";

fn tmp(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("saturn-cli-prism-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

fn saturn() -> Command {
    Command::cargo_bin("saturn").unwrap()
}

#[test]
fn summary_of_a_good_model() {
    let m = tmp("good.prism", MODEL.as_bytes());
    saturn()
        .args(["parse"])
        .arg(&m)
        .args(["--const", "N=3"])
        .assert()
        .success()
        .stdout(predicate::str::contains("type: ctmc"))
        .stdout(predicate::str::contains("int N = 3 (from --const)"))
        .stdout(predicate::str::contains("double mu = 2.0"))
        .stdout(predicate::str::contains("g : [0..1] init 0"))
        .stdout(predicate::str::contains(
            "module Q2 (renamed copy of Q1): 1 variables, 2 commands, actions {arrive2, serve2}",
        ))
        .stdout(predicate::str::contains("y : [0..3] init 0"))
        .stdout(predicate::str::contains("\"full\" = x = 3"))
        .stdout(predicate::str::contains("busy = x > 0"))
        .stdout(predicate::str::contains(
            "\"served\": 1 state, 1 transition items",
        ))
        .stdout(predicate::str::contains("system: Q1 || Q2 (default)"));
}

#[test]
fn undefined_constants_are_listed() {
    let m = tmp("undef.prism", MODEL.as_bytes());
    saturn()
        .arg("parse")
        .arg(&m)
        .assert()
        .success()
        .stdout(predicate::str::contains("int N = undefined"));
}

#[test]
fn properties_and_json() {
    let m = tmp("j.prism", MODEL.as_bytes());
    let p = tmp("j.props", PROPS.as_bytes());
    let out = saturn()
        .arg("parse")
        .arg(&m)
        .arg("--props")
        .arg(&p)
        .args(["--const", "N=2", "--const", "T=1.5", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["type"], "ctmc");
    assert_eq!(j["constants"][0]["name"], "N");
    assert_eq!(j["constants"][0]["value"], 2);
    assert_eq!(j["modules"][1]["renamed_from"], "Q1");
    assert_eq!(
        j["modules"][1]["variables"][0]["range"],
        serde_json::json!([0, 2])
    );
    assert_eq!(j["property_constants"][0]["value"], 1.5);
    assert_eq!(j["properties"].as_array().unwrap().len(), 3);
    assert_eq!(j["properties"][0]["name"], "p");
    assert_eq!(j["properties"][0]["text"], "P=? [ F<=T \"full\" ]");
    assert_eq!(j["properties"][2]["type"], "bool");
    assert_eq!(j["rewards"][0]["transition_items"], 1);
}

#[test]
fn constant_ranges_give_several_runs() {
    let m = tmp("r.prism", MODEL.as_bytes());
    let out = saturn()
        .arg("parse")
        .arg(&m)
        .args(["--const", "N=1:2", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = j
        .as_array()
        .expect("a sweep prints an array of run objects");
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["constants"][0]["value"], 2);
    saturn()
        .arg("parse")
        .arg(&m)
        .args(["--const", "N=1:2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("== constants N=2"));
}

#[test]
fn syntax_errors_exit_1_with_location() {
    let m = tmp(
        "bad.prism",
        b"ctmc\nmodule M\n  x : [0..1]\n  [] x=0 -> (x'=1);\nendmodule\nlabel \"a\" = ;\n",
    );
    saturn()
        .arg("parse")
        .arg(&m)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("bad.prism:3:13"))
        .stderr(predicate::str::contains(
            "expected `;` after the variable declaration",
        ))
        .stderr(predicate::str::contains("bad.prism:6:13"))
        .stderr(predicate::str::contains("2 errors"));
}

#[test]
fn semantic_errors_exit_1() {
    let m = tmp(
        "sem.prism",
        b"ctmc\nmodule M\n  x : [0..1] init 5;\n  [] y=0 -> (x'=1);\nendmodule\n",
    );
    saturn()
        .arg("parse")
        .arg(&m)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "initial value 5 of `x` is outside its range [0..1]",
        ))
        .stderr(predicate::str::contains("undefined identifier `y`"));
}

#[test]
fn property_errors_exit_1() {
    let m = tmp("pe.prism", MODEL.as_bytes());
    let p = tmp("pe.props", b"P=? [ F \"nope\" ];\n");
    saturn()
        .arg("parse")
        .arg(&m)
        .arg("--props")
        .arg(&p)
        .args(["--const", "N=1"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("pe.props:1:9"))
        .stderr(predicate::str::contains("undefined label"));
}

#[test]
fn bad_const_arguments() {
    let m = tmp("c.prism", MODEL.as_bytes());
    saturn()
        .arg("parse")
        .arg(&m)
        .args(["--const", "N"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--const"));
    saturn()
        .arg("parse")
        .arg(&m)
        .args(["--const", "N=1,Z=2"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unknown constant(s): Z"));
    saturn()
        .arg("parse")
        .arg(&m)
        .args(["--const", "N=0.5"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("given for constant `N`"));
    saturn()
        .arg("parse")
        .arg(&m)
        .args(["--const", "mu=3"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("constant `mu` is defined"));
}

#[test]
fn garbage_and_invalid_utf8() {
    let m = tmp("bin.prism", b"ctmc\n\xff\xfe\x00module");
    saturn()
        .arg("parse")
        .arg(&m)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not valid UTF-8"));
    let e = tmp("empty.prism", b"");
    saturn()
        .arg("parse")
        .arg(&e)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("empty model file"));
    let g = tmp("garbage.prism", b"#$%^ @@@ module");
    saturn().arg("parse").arg(&g).assert().code(1);
    let deep = format!(
        "ctmc\nformula f = {}1{};\n",
        "(".repeat(50_000),
        ")".repeat(50_000)
    );
    let d = tmp("deep.prism", deep.as_bytes());
    saturn()
        .arg("parse")
        .arg(&d)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nested too deeply"));
}

#[test]
fn missing_file_is_an_error() {
    saturn()
        .args(["parse", "/nonexistent/model.prism"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read"));
}

#[test]
fn benchmark_kanban() {
    let Some(dir) = shared::existing(
        shared::benchmarks("ctmc/kanban"),
        "skipping the PRISM benchmark parse test",
    ) else {
        return;
    };
    saturn()
        .arg("parse")
        .arg(dir.join("kanban.prism"))
        .arg("--props")
        .arg(dir.join("kanban.props"))
        .args(["--const", "t=1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("modules: 4"))
        .stdout(predicate::str::contains(
            "\"throughput\": R{\"throughput\"}=? [ S ]",
        ));
}
