//! The fuzz targets' bodies (`fuzz/bodies/`, outside the workspace, run by `cargo fuzz` on
//! nightly) compiled and run here over a corpus of real inputs and damaged copies of them, so
//! that they cannot rot: an API change breaks this build, and a body that panics on a real or
//! damaged input fails this test. Real inputs: the test nets and examples of this repository,
//! the small contest instances' models and formula files and the PRISM models and property
//! files under `../shared/benchmarks` (skipped with a notice when absent, failing under
//! `SATURN_REQUIRE_SHARED=1`), and the formulas those files print.

use std::path::{Path, PathBuf};

use crate::ctl;
use crate::mcc_formulas;
use crate::pnml;
use crate::prism_model;
use crate::prism_props;

use crate::mutate;

use crate::shared;

/// Damaged copies made of each input.
const MUTANTS: u64 = 24;

/// Inputs larger than this are read whole but not damaged (the bodies are quadratic at worst).
const MUTATE_UP_TO: usize = 64 << 10;

/// A small deterministic generator (xorshift), so a failure names a reproducible mutant.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The bytes a mutant writes: the syntax of XML, PRISM and formulas, digits, blanks.
const SPICE: &[u8] = b"<>/\"'=()[]{}&|!0123456789 \nxa";

/// Run `body` on `input` and on [`MUTANTS`] damaged copies; a panic names the input and mutant.
fn run_over(what: &str, input: &[u8], body: fn(&[u8])) {
    let call = |label: &str, data: &[u8]| {
        if std::panic::catch_unwind(|| body(data)).is_err() {
            let file = std::env::temp_dir().join(format!(
                "saturn-fuzz-{}.bin",
                label.replace(['/', ' '], "_")
            ));
            let _ = std::fs::write(&file, data);
            panic!(
                "{label}: the fuzz body panicked (input saved to {})",
                file.display()
            );
        }
    };
    call(what, input);
    if input.len() > MUTATE_UP_TO {
        return;
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ input.len() as u64);
    for m in 0..MUTANTS {
        let edits: Vec<(usize, u8, u8)> = (0..1 + rng.next() % 6)
            .map(|_| {
                let r = rng.next();
                (
                    r as usize >> 16,
                    (r >> 8) as u8,
                    SPICE[r as usize % SPICE.len()],
                )
            })
            .collect();
        let cut = (rng.next() % 4 == 0).then(|| rng.next() as usize);
        call(
            &format!("{what} mutant {m}"),
            &mutate::mutate(input, &edits, cut),
        );
    }
}

fn files_in(dir: &Path, ext: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| {
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        ext.iter().any(|e| name.ends_with(e))
    });
    out.sort();
    out
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// The contest instances with a model of at most 64 KiB (the small ones).
fn small_mcc_instances() -> Vec<PathBuf> {
    let Some(dirs) = shared::mcc_instances("fuzz bodies: contest inputs left out") else {
        return Vec::new();
    };
    dirs.into_iter()
        .filter(|d| std::fs::metadata(d.join("model.pnml")).is_ok_and(|m| m.len() <= 64 << 10))
        .collect()
}

#[test]
fn pnml_body_over_real_and_damaged_nets() {
    let mut inputs = files_in(&repo("crates/cli/tests/nets"), &[".pnml"]);
    inputs.extend(files_in(&repo("examples"), &[".pnml"]));
    inputs.extend(small_mcc_instances().iter().map(|d| d.join("model.pnml")));
    assert!(inputs.len() >= 5, "{inputs:?}");
    for f in &inputs {
        run_over(
            &f.display().to_string(),
            &std::fs::read(f).unwrap(),
            pnml::run,
        );
    }
}

#[test]
fn formula_bodies_over_real_and_damaged_formulas() {
    let mut checked = 0;
    for d in small_mcc_instances() {
        for f in files_in(&d, &[".xml"]) {
            let bytes = std::fs::read(&f).unwrap();
            run_over(&f.display().to_string(), &bytes, mcc_formulas::run);
            // the formulas as text, for the text parser
            let text = String::from_utf8_lossy(&bytes);
            if let Ok(fs) = saturn_pnml::formulas::parse_formulas_str(&text, "corpus") {
                for q in fs.iter().take(4) {
                    run_over(&q.id, q.query.to_string().as_bytes(), ctl::run);
                }
            }
            checked += 1;
        }
    }
    for q in [
        "AG (p >= 1 | !(deadlock))",
        "E [ p + 2*q <= 3 U enabled(t, t.2) ]",
        "A [ true U (EX p > 0 & AF q = 1) ]",
        "EG !(p-1 < 2)",
    ] {
        run_over(q, q.as_bytes(), ctl::run);
    }
    if shared::required() {
        assert!(checked > 0, "no contest formula file");
    }
}

#[test]
fn prism_bodies_over_real_and_damaged_models_and_properties() {
    let Some(dir) = shared::existing(
        shared::benchmarks("ctmc"),
        "fuzz bodies: PRISM inputs left out",
    ) else {
        return;
    };
    let (mut models, mut props) = (0, 0);
    for group in files_in(&dir, &[""]).into_iter().filter(|p| p.is_dir()) {
        for f in files_in(&group, &[".prism", ".sm"]) {
            run_over(
                &f.display().to_string(),
                &std::fs::read(&f).unwrap(),
                prism_model::run,
            );
            models += 1;
        }
        for f in files_in(&group, &[".props"]) {
            run_over(
                &f.display().to_string(),
                &std::fs::read(&f).unwrap(),
                prism_props::run,
            );
            props += 1;
        }
    }
    assert!(
        models > 0 && props > 0,
        "{models} models, {props} property files"
    );
}
