//! `saturn parse` on PNML nets with contest formula files and `--ctl` formulas.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

use crate::shared;

const NET: &str = r#"<?xml version="1.0"?>
<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
  <net id="toy-net" type="http://www.pnml.org/version-2009/grammar/ptnet">
    <name><text>Toy</text></name>
    <page id="pg">
      <place id="p-1"><initialMarking><text>2</text></initialMarking></place>
      <place id="q"/>
      <transition id="t1"/>
      <transition id="t.2"/>
      <arc id="a1" source="p-1" target="t1"/>
      <arc id="a2" source="t1" target="q"><inscription><text>2</text></inscription></arc>
      <arc id="a3" source="q" target="t.2"/>
    </page>
  </net>
</pnml>
"#;

const FORMULAS: &str = r#"<?xml version="1.0"?>
<property-set xmlns="http://mcc.lip6.fr/">
  <property>
    <id>Toy-CTL-00</id>
    <description>first</description>
    <formula>
      <all-paths><globally><integer-le>
        <tokens-count><place>p-1</place><place>q</place></tokens-count>
        <integer-constant>4</integer-constant>
      </integer-le></globally></all-paths>
    </formula>
  </property>
  <property>
    <id>Toy-CTL-01</id>
    <formula><exists-path><finally><is-fireable><transition>t.2</transition></is-fireable></finally></exists-path></formula>
  </property>
</property-set>
"#;

/// A fresh directory holding `name -> contents` files.
fn files(test: &str, list: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("parse_pnml-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in list {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

fn saturn() -> Command {
    Command::cargo_bin("saturn").unwrap()
}

#[test]
fn summary_with_formulas_and_ctl() {
    let dir = files("summary", &[("model.pnml", NET), ("F.xml", FORMULAS)]);
    saturn()
        .arg("parse")
        .arg(&dir) // an MCC-style directory holding model.pnml
        .arg("--formulas")
        .arg(dir.join("F.xml"))
        .args(["--ctl", "AG (\"p-1\" + q <= 4) & E [true U deadlock]"])
        .args(["--ctl", "bound(q)"])
        .args(["--ctl", "A (G F q>=1)"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "net: Toy\nplaces: 2\ntransitions: 2\narcs: 3 (0 inhibitor)\n",
        ))
        .stdout(predicate::str::contains("formulas: 5\n"))
        .stdout(predicate::str::contains(
            "  Toy-CTL-00 [reachability]: AG (tokens-count(\"p-1\", q) <= 4)\n",
        ))
        .stdout(predicate::str::contains(
            "  Toy-CTL-01 [reachability]: EF enabled(t.2)\n",
        ))
        .stdout(predicate::str::contains(
            "  ctl-1 [ctl]: AG (\"p-1\" + q <= 4) & E [true U deadlock]\n",
        ))
        .stdout(predicate::str::contains("  ctl-2 [bound]: bound(q)\n"))
        .stdout(predicate::str::contains("  ctl-3 [ltl]: AG F (q >= 1)\n"));
}

#[test]
fn json_output() {
    let dir = files("json", &[("model.pnml", NET), ("F.xml", FORMULAS)]);
    let out = saturn()
        .arg("parse")
        .arg(dir.join("model.pnml"))
        .arg("--formulas")
        .arg(dir.join("F.xml"))
        .args(["--ctl", "EX t1_never_mind_this_is_a_place > 0"])
        .arg("--json")
        .assert()
        .code(1) // unknown place
        .get_output()
        .clone();
    // still one JSON object: the status and where the problem is
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "error");
    let d = &v["diagnostics"][0];
    assert_eq!(
        (&d["file"], &d["line"], &d["column"]),
        (
            &serde_json::json!("--ctl #1"),
            &serde_json::json!(1),
            &serde_json::json!(4)
        )
    );
    assert!(
        d["message"].as_str().unwrap().contains("t1_never_mind"),
        "{d}"
    );
    let out = saturn()
        .arg("parse")
        .arg(dir.join("model.pnml"))
        .arg("--formulas")
        .arg(dir.join("F.xml"))
        .args(["--ctl", "EX q > 0"])
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["net"], "Toy");
    assert_eq!(v["places"], 2);
    assert_eq!(v["transitions"], 2);
    assert_eq!(v["arcs"], 3);
    assert_eq!(v["inhibitor_arcs"], 0);
    let fs = v["formulas"].as_array().unwrap();
    assert_eq!(fs.len(), 3);
    assert_eq!(fs[0]["id"], "Toy-CTL-00");
    assert_eq!(fs[0]["description"], "first");
    assert_eq!(fs[1]["description"], serde_json::Value::Null);
    assert_eq!(fs[2]["id"], "ctl-1");
    assert_eq!(fs[2]["origin"], "ctl");
    assert_eq!(fs[2]["formula"], "EX (q > 0)");
}

#[test]
fn unknown_place_in_ctl_is_underlined() {
    let dir = files("unknown", &[("model.pnml", NET)]);
    saturn()
        .arg("parse")
        .arg(dir.join("model.pnml"))
        .args(["--ctl", "AG (q + nope <= 3)"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("unknown place `nope`"))
        .stderr(predicate::str::contains("--ctl #1"))
        .stderr(predicate::str::contains("────"))
        .stderr(predicate::str::contains("no place with this id in the net"));
}

#[test]
fn syntax_error_in_ctl() {
    let dir = files("syntax", &[("model.pnml", NET)]);
    saturn()
        .arg("parse")
        .arg(dir.join("model.pnml"))
        .args(["--ctl", "AG (q <= 3"])
        .args(["--ctl", "EF q"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "expected `)` or an operator, found end of input",
        ))
        .stderr(predicate::str::contains(
            "expected a formula, found an integer expression",
        ))
        .stderr(predicate::str::contains("--ctl #2"));
}

#[test]
fn malformed_formula_xml() {
    let dir = files(
        "malformed",
        &[
            ("model.pnml", NET),
            ("F.xml", "<property-set><property><id>x</id>"),
        ],
    );
    saturn()
        .arg("parse")
        .arg(dir.join("model.pnml"))
        .arg("--formulas")
        .arg(dir.join("F.xml"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("F.xml:1:"))
        .stderr(predicate::str::contains("malformed XML"));
}

#[test]
fn wrong_formula_xml_element() {
    let bad = FORMULAS
        .replace("<finally>", "<eventually>")
        .replace("</finally>", "</eventually>");
    let dir = files("wrong", &[("model.pnml", NET), ("F.xml", &bad)]);
    saturn()
        .arg("parse")
        .arg(dir.join("model.pnml"))
        .arg("--formulas")
        .arg(dir.join("F.xml"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("F.xml:15:"))
        .stderr(predicate::str::contains(
            "unknown element <eventually> in <exists-path>",
        ));
}

#[test]
fn unknown_transition_in_formula_file() {
    let bad = FORMULAS.replace(
        "<transition>t.2</transition>",
        "<transition>t9</transition>",
    );
    let dir = files("unknown-t", &[("model.pnml", NET), ("F.xml", &bad)]);
    saturn()
        .arg("parse")
        .arg(dir.join("model.pnml"))
        .arg("--formulas")
        .arg(dir.join("F.xml"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "formula 'Toy-CTL-01': unknown transition 't9'",
        ));
}

#[test]
fn missing_or_broken_model() {
    let dir = files("missing", &[("bad.pnml", "<pnml><net id='x'")]);
    saturn()
        .arg("parse")
        .arg(dir.join("none.pnml"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error:"));
    saturn()
        .arg("parse")
        .arg(dir.join("bad.pnml"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("malformed XML"));
}

#[test]
fn mcc_instance() {
    let Some(dir) = shared::existing(
        shared::benchmarks("mcc/Kanban-PT-00005"),
        "skipping the contest-instance parse test",
    ) else {
        return;
    };
    let out = saturn()
        .arg("parse")
        .arg(&dir)
        .arg("--formulas")
        .arg(dir.join("CTLFireability.xml"))
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fs = v["formulas"].as_array().unwrap();
    assert_eq!(fs.len(), 16);
    assert_eq!(fs[0]["id"], "Kanban-PT-00005-CTLFireability-2025-00");
    // each printed formula is accepted back on the command line
    let mut cmd = saturn();
    cmd.arg("parse").arg(&dir);
    for f in fs {
        cmd.arg("--ctl").arg(f["formula"].as_str().unwrap());
    }
    cmd.assert()
        .success()
        .stdout(predicate::str::contains("formulas: 16\n"));
}
