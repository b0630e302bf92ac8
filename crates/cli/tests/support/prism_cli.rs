//! The helpers of the tests that run `saturn` on PRISM files: files in a fresh directory, a
//! run in it, its JSON. Included with `#[path = "support/prism_cli.rs"] mod prism_cli;`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// Files in a fresh directory under the target's temporary directory (left there).
pub fn files(list: &[(&str, &str)]) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "{}-{}-{n}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, text) in list {
        std::fs::write(dir.join(name), text).expect("write");
    }
    dir
}

/// Run in `dir`: (exit code, stdout, stderr).
pub fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("saturn")
        .expect("the saturn binary")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The JSON object printed on stdout.
pub fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// Run `saturn check ARGS` in `dir`, expecting a refusal: exit 2, `what` on stderr, no panic.
/// Returns stdout.
pub fn refused(dir: &Path, args: &[&str], what: &str) -> String {
    let mut all = vec!["check"];
    all.extend(args.iter().copied());
    let (code, out, err) = run(dir, &all);
    assert_eq!(code, 2, "{all:?}: {out} {err}");
    assert!(err.contains(what), "{all:?}: expected '{what}' in: {err}");
    assert!(!err.contains("panicked"), "{all:?}: {err}");
    out
}
