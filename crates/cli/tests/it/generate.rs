//! `saturn generate`: the PNML it writes reads back with the same state space as `family:N`.

use assert_cmd::Command;

fn saturn() -> Command {
    Command::cargo_bin("saturn").expect("the saturn binary is built for the tests")
}

fn states(model: &str) -> String {
    let out = saturn()
        .args(["statespace", model, "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{model}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["states"].as_str().unwrap().to_string()
}

#[test]
fn every_family_round_trips() {
    let dir = std::env::temp_dir().join(format!("saturn-generate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (family, n) in [
        ("philosophers", 5),
        ("kanban", 2),
        ("slot", 3),
        ("queens", 5),
        ("fms", 2),
        ("robin", 3),
    ] {
        let f = dir.join(format!("{family}-{n}.pnml"));
        saturn()
            .args([
                "generate",
                family,
                &n.to_string(),
                "-o",
                f.to_str().unwrap(),
            ])
            .assert()
            .success()
            .stdout("");
        assert!(f.is_file());
        let want = states(&format!("{family}:{n}"));
        let net = saturn_model::families::generate(family, n).unwrap();
        let reference = saturn_reference::explore_petri(&net, 1 << 20).unwrap();
        assert_eq!(want, reference.states.to_string(), "{family}:{n}");
        assert_eq!(states(f.to_str().unwrap()), want, "{family}:{n} via PNML");
        // Without -o the same text goes to stdout.
        let out = saturn()
            .args(["generate", family, &n.to_string()])
            .output()
            .unwrap();
        assert_eq!(out.stdout, std::fs::read(&f).unwrap());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
