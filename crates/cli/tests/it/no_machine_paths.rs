//! No file of the repository names an absolute path of one machine (a home directory, the
//! work directory of the machine the project is developed on): tests reach the shared
//! benchmarks as `../shared` through `testsupport`, scripts take such paths as arguments.
//! Reads every file git tracks, and the new ones it does not ignore.

use std::path::Path;
use std::process::Command;

/// The roots of machine-specific paths, written so that this file does not match itself.
fn patterns() -> Vec<String> {
    ["work", "home", "root", "Users"]
        .iter()
        .map(|d| format!("/{d}/"))
        .collect()
}

#[test]
fn no_absolute_path_of_a_machine_in_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("git")
        .args([
            "ls-files",
            "--cached",
            "--others",
            "--exclude-standard",
            "-z",
        ])
        .current_dir(&root)
        .output();
    let files: Vec<String> = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .split('\0')
            .filter(|f| !f.is_empty())
            .map(str::to_string)
            .collect(),
        // a source tree without git (a packaged crate): nothing to list, nothing to check
        _ => {
            eprintln!("notice: git cannot list the repository's files; check skipped");
            return;
        }
    };
    assert!(files.len() > 50, "git listed {} files", files.len());
    let patterns = patterns();
    let mut found = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(root.join(f)) else {
            continue; // binary or deleted
        };
        for (n, line) in text.lines().enumerate() {
            // a path starts the line or follows a character that cannot be part of one
            // (`x/work/y` is a relative path)
            for p in &patterns {
                let hit = line.match_indices(p.as_str()).any(|(i, _)| {
                    i == 0
                        || !line[..i]
                            .chars()
                            .next_back()
                            .is_some_and(|c| c.is_alphanumeric() || "._-~/".contains(c))
                });
                if hit {
                    found.push(format!("{f}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "absolute paths of a machine in the repository:\n{}",
        found.join("\n")
    );
}
