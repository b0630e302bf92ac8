//! Benchmark tables: which `(model, method, order)` rows to run, with Meddly's reference figures.

use std::path::Path;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

/// Meddly's figures for the same model and method: fixed ones (C++, `-O3`, whole process,
/// medians on the benchmark machine; either may be unknown), or the command line of a Meddly
/// build on this machine, which the harness then runs side by side with ours (one Meddly run
/// after each of ours) and measures the same way; measured figures take the place of fixed
/// ones.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// The program and its arguments, e.g. `["/opt/meddly/examples/.libs/slot", "50",
    /// "-dfs"]` (it must exit with 0; its output is not read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// Whole-process wall time in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Peak resident memory in MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<f64>,
}

/// One row of a table: a model (`family:N`, a PNML file or an MCC directory), a method and an
/// optional variable order (absent: the CLI's default order, no `--order` is passed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub model: String,
    #[serde(default = "default_method")]
    pub method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
    /// `implicit` or `mdd` (absent: the CLI's default, implicit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relations: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meddly: Option<Reference>,
}

impl Row {
    /// The method, with the relation mode when one is given (e.g. `saturation/mdd`).
    pub fn method_label(&self) -> String {
        match &self.relations {
            Some(r) => format!("{}/{r}", self.method),
            None => self.method.clone(),
        }
    }
}

fn default_method() -> String {
    "saturation".to_string()
}

/// The names of the built-in tables.
pub const BUILTIN: &[&str] = &["default", "quick", "full"];

fn row(model: &str, method: &str, seconds: Option<f64>, memory_mib: Option<f64>) -> Row {
    let meddly = (seconds.is_some() || memory_mib.is_some()).then_some(Reference {
        command: None,
        seconds,
        memory_mib,
    });
    Row {
        model: model.to_string(),
        method: method.to_string(),
        order: None,
        relations: None,
        meddly,
    }
}

/// The issue's table: the saturation rows Meddly was measured on (kanban N=200 also with
/// relation MDDs, Meddly 7.8 s), and two models run with both BFS and saturation (the
/// "saturation at least 100x faster than BFS" ratio). The memory figures of kanban N=400 and
/// of the relation-MDD row were measured side by side on 2026-11-27 (`test_implicit_kanban
/// 400`, `kanban -dfs 200`, medians of 5; docs/benchmarks.md); the others are the issue's.
pub fn default_table() -> Vec<Row> {
    let mut kanban_mdd = row("kanban:200", "saturation", Some(7.8), Some(39.2));
    kanban_mdd.relations = Some("mdd".to_string());
    vec![
        row("philosophers:10000", "saturation", Some(0.87), Some(70.0)),
        row("kanban:200", "saturation", Some(1.55), Some(19.0)),
        kanban_mdd,
        row("kanban:400", "saturation", Some(12.2), Some(81.7)),
        row("slot:50", "saturation", Some(2.4), Some(120.0)),
        row("philosophers:500", "bfs", Some(12.7), None),
        row("philosophers:500", "saturation", None, None),
        row("slot:20", "bfs", Some(34.0), None),
        row("slot:20", "saturation", None, None),
    ]
}

/// Small instances that finish in seconds (a smoke test of the harness and the binary).
pub fn quick_table() -> Vec<Row> {
    vec![
        row("kanban:20", "saturation", None, None),
        row("philosophers:20", "bfs", None, None),
        row("philosophers:20", "saturation", None, None),
        row("slot:6", "bfs", None, None),
        row("slot:6", "saturation", None, None),
        row("queens:8", "saturation", None, None),
        row("fms:5", "saturation", None, None),
        row("robin:20", "saturation", None, None),
    ]
}

/// The default table plus the other families' larger instances, and the Meddly rows again
/// with the other orders (`auto` portfolio, FORCE, Sloan) for comparison with the default.
pub fn full_table() -> Vec<Row> {
    let mut t = default_table();
    t.push(row("robin:100", "saturation", None, None));
    t.push(row("fms:10", "saturation", None, None));
    for order in ["auto", "force", "sloan"] {
        for (model, seconds, mib) in [
            ("philosophers:10000", 0.87, Some(70.0)),
            ("kanban:200", 1.55, Some(19.0)),
            ("slot:50", 2.4, Some(120.0)),
        ] {
            let mut r = row(model, "saturation", Some(seconds), mib);
            r.order = Some(order.to_string());
            t.push(r);
        }
    }
    t
}

/// A built-in table by name, or a JSON file holding an array of rows, e.g.
/// `[{"model": "kanban:50", "method": "bfs", "order": "sloan"}]`.
pub fn load(spec: &str) -> anyhow::Result<Vec<Row>> {
    match spec {
        "default" => return Ok(default_table()),
        "quick" => return Ok(quick_table()),
        "full" => return Ok(full_table()),
        _ => {}
    }
    let path = Path::new(spec);
    if !path.is_file() {
        bail!(
            "--table '{spec}': not a built-in table ({}) nor a readable file",
            BUILTIN.join(", ")
        );
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    parse(&text).with_context(|| format!("{}: not a benchmark table", path.display()))
}

/// Parse a table file's text (a JSON array of rows).
pub fn parse(text: &str) -> anyhow::Result<Vec<Row>> {
    let rows: Vec<Row> = serde_json::from_str(text)?;
    if rows.is_empty() {
        bail!("the table has no rows");
    }
    for r in &rows {
        if r.model.trim().is_empty() {
            bail!("a row has an empty model");
        }
        if let Some(c) = r.meddly.as_ref().and_then(|m| m.command.as_ref()) {
            if c.first().is_none_or(|p| p.trim().is_empty()) {
                bail!("{}: Meddly's command has no program", r.model);
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_tables_load() {
        for name in BUILTIN {
            assert!(!load(name).unwrap().is_empty(), "{name}");
        }
        let d = default_table();
        // The two BFS-vs-saturation pairs are present.
        for m in ["philosophers:500", "slot:20"] {
            for method in ["bfs", "saturation"] {
                assert!(d.iter().any(|r| r.model == m && r.method == method));
            }
        }
        assert!(full_table().len() > d.len());
    }

    #[test]
    fn table_file_syntax() {
        let rows = parse(
            r#"[{"model": "kanban:5"},
                {"model": "slot:5", "method": "bfs", "order": "sloan",
                 "meddly": {"seconds": 1.5}}]"#,
        )
        .unwrap();
        assert_eq!(rows[0].method, "saturation");
        assert_eq!(rows[0].order, None);
        assert_eq!(rows[1].order.as_deref(), Some("sloan"));
        let m = rows[1].meddly.as_ref().unwrap();
        assert_eq!(
            (m.seconds, m.memory_mib, m.command.as_ref()),
            (Some(1.5), None, None)
        );
        let side =
            parse(r#"[{"model": "kanban:5", "meddly": {"command": ["kanban", "5"]}}]"#).unwrap();
        let cmd = side[0].meddly.as_ref().unwrap().command.clone();
        assert_eq!(cmd, Some(vec!["kanban".to_string(), "5".to_string()]));
        assert!(parse(r#"[{"model": "kanban:5", "meddly": {"command": []}}]"#).is_err());
        assert!(parse("[]").is_err());
        assert!(parse(r#"[{"model": "kanban:5", "metod": "bfs"}]"#).is_err());
        assert!(parse(r#"[{"model": " "}]"#).is_err());
        assert!(parse("{").is_err());
        assert!(load("/nonexistent/table.json").is_err());
    }
}
