//! Every model and property file of the developer benchmark set parses, checks and
//! round-trips (print then parse gives the same tree).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use saturn_prism::{
    check_model, load_model, parse_model, parse_properties, parse_properties_ast, ConstOverrides,
};

use crate::shared;

fn ctmc_dir() -> Option<PathBuf> {
    shared::existing(shared::benchmarks("ctmc"), "skipping the benchmark tests")
}

/// (dir, model, constants, propfile) from every results.txt record.
fn records(dir: &Path) -> BTreeSet<(PathBuf, String, String, String)> {
    let mut out = BTreeSet::new();
    for d in std::fs::read_dir(dir).unwrap().flatten() {
        let res = d.path().join("results.txt");
        let Ok(text) = std::fs::read_to_string(&res) else {
            continue;
        };
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let field = |k: &str| {
                line.split('\t')
                    .find_map(|f| {
                        f.split_once('=')
                            .filter(|(key, _)| *key == k)
                            .map(|(_, v)| v.to_string())
                    })
                    .unwrap_or_default()
            };
            out.insert((
                d.path(),
                field("model"),
                field("constants"),
                field("propfile"),
            ));
        }
    }
    out
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn all_records_parse_and_check() {
    let Some(dir) = ctmc_dir() else { return };
    let recs = records(&dir);
    assert!(
        recs.len() > 20,
        "expected many records, found {}",
        recs.len()
    );
    let mut failures = Vec::new();
    for (d, model, consts, propfile) in &recs {
        let mpath = d.join(model);
        let src = read(&mpath);
        let ov = ConstOverrides::parse(consts).unwrap();
        let prog = match load_model(&mpath.display().to_string(), &src, &ov) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{model} [{consts}]:\n{}", e.render()));
                continue;
            }
        };
        assert!(!prog.modules.is_empty());
        if propfile.is_empty() {
            continue;
        }
        let ppath = d.join(propfile);
        match parse_properties(&ppath.display().to_string(), &read(&ppath), &prog) {
            Ok(pf) => {
                assert!(!pf.properties.is_empty(), "{propfile}: no properties");
                // every property file constant is supplied by the record
                for c in &pf.constants {
                    assert!(
                        c.value.is_some(),
                        "{propfile}: constant {} undefined with [{consts}]",
                        c.name
                    );
                }
                assert!(saturn_prism::unknown_overrides(&prog, Some(&pf)).is_empty());
            }
            Err(e) => failures.push(format!(
                "{propfile} with {model} [{consts}]:\n{}",
                e.render()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Property counts as PRISM numbers them (`index` in results.txt is within range).
#[test]
fn property_indices_exist() {
    let Some(dir) = ctmc_dir() else { return };
    for d in std::fs::read_dir(&dir).unwrap().flatten() {
        let Ok(text) = std::fs::read_to_string(d.path().join("results.txt")) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let get = |k: &str| {
                line.split('\t').find_map(|f| {
                    f.split_once('=')
                        .filter(|(key, _)| *key == k)
                        .map(|(_, v)| v.to_string())
                })
            };
            let (Some(pf), Some(idx), Some(prop)) =
                (get("propfile"), get("index"), get("property"))
            else {
                continue;
            };
            let ast = parse_properties_ast(&pf, &read(&d.path().join(&pf))).unwrap();
            let idx: usize = idx.parse().unwrap();
            let p = ast
                .properties()
                .nth(idx - 1)
                .unwrap_or_else(|| panic!("{pf}: no property {idx}"));
            // the recorded text parses to the same property
            let single = parse_properties_ast("record", &prop).unwrap();
            let q = single.properties().next().unwrap();
            assert_eq!(p.expr, q.expr, "{pf} #{idx}: {prop}");
        }
    }
}

fn all_files(dir: &Path, pred: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for d in std::fs::read_dir(dir).unwrap().flatten() {
        if d.path().is_dir() {
            for f in std::fs::read_dir(d.path()).unwrap().flatten() {
                let n = f.file_name().to_string_lossy().to_string();
                if pred(&n) {
                    v.push(f.path());
                }
            }
        }
    }
    v.sort();
    v
}

#[test]
fn every_model_file_checks_and_round_trips() {
    let Some(dir) = ctmc_dir() else { return };
    let models = all_files(&dir, |n| n.ends_with(".prism") || n.ends_with(".sm"));
    assert!(models.len() >= 20);
    for m in models {
        let src = read(&m);
        let ast = parse_model(&m.display().to_string(), &src)
            .unwrap_or_else(|e| panic!("{}", e.render()));
        // undefined constants are allowed when checking
        check_model(&ast, &ConstOverrides::default())
            .unwrap_or_else(|e| panic!("{}: {}", m.display(), e.render()));
        let printed = ast.to_string();
        let again = parse_model("printed", &printed)
            .unwrap_or_else(|e| panic!("{}\n{printed}", e.render()));
        assert_eq!(
            ast,
            again,
            "{}: round trip changed the tree:\n{printed}",
            m.display()
        );
        assert_eq!(printed, again.to_string());
    }
}

#[test]
fn every_property_file_round_trips() {
    let Some(dir) = ctmc_dir() else { return };
    let files = all_files(&dir, |n| n.ends_with(".props"));
    assert!(files.len() >= 15);
    for f in files {
        let src = read(&f);
        let ast = parse_properties_ast(&f.display().to_string(), &src)
            .unwrap_or_else(|e| panic!("{}", e.render()));
        assert!(ast.properties().count() > 0);
        let printed = ast.to_string();
        let again = parse_properties_ast("printed", &printed)
            .unwrap_or_else(|e| panic!("{}\n{printed}", e.render()));
        assert_eq!(ast, again, "{}:\n{printed}", f.display());
    }
}
