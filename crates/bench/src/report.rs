//! Per-row results, their medians and ratios, and the readable table.

use std::fmt::Write as _;

use serde::Serialize;

use crate::table::Row;

const MIB: f64 = 1024.0 * 1024.0;

/// How a row ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every run finished with a result.
    Ok,
    /// A run reached the time limit (the CLI's `--timeout`, or the harness's hard deadline).
    Timeout,
    /// A run reached the CLI's `--max-memory` limit.
    MemoryLimit,
    /// A run failed otherwise (bad exit code, unreadable JSON, runs disagreeing).
    Error,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Timeout => "timeout",
            Status::MemoryLimit => "memory",
            Status::Error => "error",
        }
    }
}

/// One run of the saturn binary.
#[derive(Clone, Debug, Serialize)]
pub struct RunRecord {
    pub wall_seconds: f64,
    pub peak_memory_bytes: u64,
    /// The exit code, or `signal N`, or `killed` (hard deadline).
    pub exit: String,
}

/// The figures the child printed with `--json` (only those the harness uses).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChildFigures {
    pub states: String,
    pub transitions: Option<String>,
    pub nodes_final: Option<u64>,
    pub nodes_peak: Option<u64>,
    pub seconds: Option<f64>,
    pub generation_seconds: Option<f64>,
    pub order: Option<String>,
}

impl ChildFigures {
    /// Read the object `saturn statespace --json` prints (the last non-empty stdout line).
    pub fn parse(stdout: &str) -> Result<ChildFigures, String> {
        let line = stdout
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .ok_or("no output on stdout")?;
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("stdout is not JSON: {e}"))?;
        let states = match v.get("states") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Number(n)) => n.to_string(),
            _ => return Err("the JSON has no \"states\"".to_string()),
        };
        let text = |k: &str| match v.get(k) {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        Ok(ChildFigures {
            states,
            transitions: text("transitions"),
            nodes_final: v.get("nodes_final").and_then(|x| x.as_u64()),
            nodes_peak: v.get("nodes_peak").and_then(|x| x.as_u64()),
            seconds: v.get("seconds").and_then(|x| x.as_f64()),
            generation_seconds: v.get("generation_seconds").and_then(|x| x.as_f64()),
            order: text("order"),
        })
    }
}

/// Everything measured for one row.
#[derive(Clone, Debug, Serialize)]
pub struct RowResult {
    #[serde(flatten)]
    pub row: Row,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub runs: Vec<RunRecord>,
    /// Median whole-process wall time (for a row that hit a limit: that run's time).
    pub wall_seconds: Option<f64>,
    /// Median peak resident memory of the child.
    pub peak_memory_bytes: Option<u64>,
    /// Median of the CLI's own `seconds` (after loading and ordering).
    pub saturn_seconds: Option<f64>,
    /// Median of the CLI's `generation_seconds` (the reachability fixpoint alone).
    pub generation_seconds: Option<f64>,
    /// The order the CLI reports it used.
    pub order_used: Option<String>,
    pub nodes_final: Option<u64>,
    pub nodes_peak: Option<u64>,
    pub states: Option<String>,
    pub transitions: Option<String>,
    /// Instructions executed (callgrind's "Collected"), with `--callgrind`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callgrind_note: Option<String>,
    /// Meddly's runs, when the row gives its command (each right after one of ours).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub meddly_runs: Vec<RunRecord>,
    /// Meddly's median wall time: measured side by side, else the table's figure.
    pub meddly_seconds: Option<f64>,
    /// Meddly's median peak memory: measured side by side, else the table's figure.
    pub meddly_peak_memory_bytes: Option<u64>,
    /// Were Meddly's figures measured in this run (not taken from the table)?
    pub meddly_measured: bool,
    /// Our median wall time over Meddly's.
    pub ratio_time_vs_meddly: Option<f64>,
    /// Our median peak memory over Meddly's.
    pub ratio_memory_vs_meddly: Option<f64>,
}

impl RowResult {
    pub fn new(row: Row) -> RowResult {
        RowResult {
            row,
            status: Status::Ok,
            message: None,
            runs: Vec::new(),
            wall_seconds: None,
            peak_memory_bytes: None,
            saturn_seconds: None,
            generation_seconds: None,
            order_used: None,
            nodes_final: None,
            nodes_peak: None,
            states: None,
            transitions: None,
            instructions: None,
            callgrind_note: None,
            meddly_runs: Vec::new(),
            meddly_seconds: None,
            meddly_peak_memory_bytes: None,
            meddly_measured: false,
            ratio_time_vs_meddly: None,
            ratio_memory_vs_meddly: None,
        }
    }

    /// Fill in the medians from the runs and the figures of the successful runs, and the
    /// ratios against Meddly.
    pub fn summarise(&mut self, figures: &[ChildFigures]) {
        let walls: Vec<f64> = self.runs.iter().map(|r| r.wall_seconds).collect();
        self.wall_seconds = median(&walls);
        let mems: Vec<f64> = self
            .runs
            .iter()
            .map(|r| r.peak_memory_bytes as f64)
            .collect();
        self.peak_memory_bytes = median(&mems).map(|m| m.round() as u64);
        let opt_median = |f: &dyn Fn(&ChildFigures) -> Option<f64>| {
            median(&figures.iter().filter_map(f).collect::<Vec<_>>())
        };
        self.saturn_seconds = opt_median(&|c| c.seconds);
        self.generation_seconds = opt_median(&|c| c.generation_seconds);
        self.nodes_final = opt_median(&|c| c.nodes_final.map(|x| x as f64)).map(|x| x as u64);
        self.nodes_peak = opt_median(&|c| c.nodes_peak.map(|x| x as f64)).map(|x| x as u64);
        if let Some(first) = figures.first() {
            self.states = Some(first.states.clone());
            self.transitions = first.transitions.clone();
            self.order_used = first.order.clone();
            if figures
                .iter()
                .any(|c| c.states != first.states || c.transitions != first.transitions)
            {
                self.status = Status::Error;
                self.message = Some("the runs disagree on the state or transition count".into());
            }
        }
        self.meddly_seconds = None;
        self.meddly_peak_memory_bytes = None;
        self.ratio_time_vs_meddly = None;
        self.ratio_memory_vs_meddly = None;
        if !self.meddly_runs.is_empty() {
            self.meddly_measured = true;
            if self.meddly_runs.iter().all(|r| r.exit == "0") {
                let walls: Vec<f64> = self.meddly_runs.iter().map(|r| r.wall_seconds).collect();
                let mems: Vec<f64> = self
                    .meddly_runs
                    .iter()
                    .map(|r| r.peak_memory_bytes as f64)
                    .collect();
                self.meddly_seconds = median(&walls);
                self.meddly_peak_memory_bytes = median(&mems).map(|m| m.round() as u64);
            } else if self.message.is_none() {
                self.message = Some("a Meddly run failed: no ratio against Meddly".into());
            }
        } else if let Some(m) = &self.row.meddly {
            self.meddly_seconds = m.seconds;
            self.meddly_peak_memory_bytes = m.memory_mib.map(|x| (x * MIB).round() as u64);
        }
        if self.status != Status::Ok {
            return;
        }
        self.ratio_time_vs_meddly = ratio(self.wall_seconds, self.meddly_seconds);
        self.ratio_memory_vs_meddly = ratio(
            self.peak_memory_bytes.map(|b| b as f64),
            self.meddly_peak_memory_bytes.map(|b| b as f64),
        );
    }
}

fn ratio(ours: Option<f64>, theirs: Option<f64>) -> Option<f64> {
    match (ours, theirs) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// The median of `xs` (the mean of the two middle values for an even count).
pub fn median(xs: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// A row run with another method against the saturation row of the same model and order.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Comparison {
    pub model: String,
    pub order: Option<String>,
    pub method: String,
    pub method_status: Status,
    pub method_seconds: f64,
    pub saturation_seconds: f64,
    /// `method_seconds / saturation_seconds`.
    pub ratio: f64,
    /// The other method hit a limit: the true ratio is at least `ratio`.
    pub lower_bound: bool,
    pub method_peak_memory_bytes: Option<u64>,
    pub saturation_peak_memory_bytes: Option<u64>,
}

/// For every model (and order) with a successful saturation row, the ratio of every other
/// method's wall time to saturation's.
pub fn comparisons(results: &[RowResult]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for sat in results {
        if sat.row.method != "saturation" || sat.status != Status::Ok {
            continue;
        }
        let Some(sat_t) = sat.wall_seconds.filter(|&t| t > 0.0) else {
            continue;
        };
        for other in results {
            if other.row.model != sat.row.model
                || other.row.order != sat.row.order
                || other.row.relations != sat.row.relations
                || other.row.method == "saturation"
            {
                continue;
            }
            let lower_bound = match other.status {
                Status::Ok => false,
                Status::Timeout | Status::MemoryLimit => true,
                Status::Error => continue,
            };
            let Some(t) = other.wall_seconds else {
                continue;
            };
            out.push(Comparison {
                model: sat.row.model.clone(),
                order: sat.row.order.clone(),
                method: other.row.method.clone(),
                method_status: other.status,
                method_seconds: t,
                saturation_seconds: sat_t,
                ratio: t / sat_t,
                lower_bound,
                method_peak_memory_bytes: other.peak_memory_bytes,
                saturation_peak_memory_bytes: sat.peak_memory_bytes,
            });
        }
    }
    out
}

/// A long decimal count as `d.ddde<k>`; short ones unchanged.
pub fn short_count(digits: &str) -> String {
    if digits.len() <= 12 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return digits.to_string();
    }
    // Round to four significant digits (half up).
    let mut head: u32 = digits[..4].parse().unwrap_or(0);
    let mut exp = digits.len() - 1;
    if digits.as_bytes()[4] >= b'5' {
        head += 1;
    }
    if head == 10_000 {
        head = 1000;
        exp += 1;
    }
    format!("{}.{:03}e{exp}", head / 1000, head % 1000)
}

fn opt<T>(x: Option<T>, f: impl Fn(T) -> String) -> String {
    x.map(f).unwrap_or_else(|| "-".to_string())
}

/// Meddly's figures for the table: `s / MiB`, `*` when measured side by side in this run.
fn meddly_cell(r: &RowResult) -> String {
    if r.meddly_seconds.is_none() && r.meddly_peak_memory_bytes.is_none() {
        return "-".to_string();
    }
    format!(
        "{} / {}{}",
        opt(r.meddly_seconds, |t| format!("{t:.3}")),
        opt(r.meddly_peak_memory_bytes, |b| format!(
            "{:.1}",
            b as f64 / MIB
        )),
        if r.meddly_measured { "*" } else { "" }
    )
}

/// The readable table printed on stdout.
pub fn render(results: &[RowResult], comps: &[Comparison], min_speedup: f64) -> String {
    let header = [
        "model",
        "method",
        "order",
        "status",
        "wall s",
        "peak MiB",
        "nodes final",
        "nodes peak",
        "states",
        "Meddly s / MiB",
        "t/Meddly",
        "mem/Meddly",
        "instructions",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for r in results {
        let order = match (&r.row.order, &r.order_used) {
            (Some(o), _) => o.clone(),
            (None, Some(o)) => format!("({o})"),
            (None, None) => "(default)".to_string(),
        };
        let wall = opt(r.wall_seconds, |t| match r.status {
            Status::Ok => format!("{t:.3}"),
            _ => format!(">{t:.1}"),
        });
        rows.push(vec![
            r.row.model.clone(),
            r.row.method_label(),
            order,
            r.status.name().to_string(),
            wall,
            opt(r.peak_memory_bytes, |b| format!("{:.1}", b as f64 / MIB)),
            opt(r.nodes_final, |n| n.to_string()),
            opt(r.nodes_peak, |n| n.to_string()),
            opt(r.states.as_deref(), short_count),
            meddly_cell(r),
            opt(r.ratio_time_vs_meddly, |x| format!("{x:.2}x")),
            opt(r.ratio_memory_vs_meddly, |x| format!("{x:.2}x")),
            opt(r.instructions, |n| n.to_string()),
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut s = String::new();
    for (i, r) in rows.iter().enumerate() {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, w))| {
                if c < 4 {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        let _ = writeln!(s, "{}", line.join("  ").trim_end());
        if i == 0 {
            let total: usize = widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
            let _ = writeln!(s, "{}", "-".repeat(total));
        }
    }
    if results.iter().any(|r| r.meddly_measured) {
        let _ = writeln!(
            s,
            "* Meddly measured side by side in this run (medians, one Meddly run after each of ours)"
        );
    }
    for r in results {
        if let Some(m) = &r.message {
            let _ = writeln!(s, "note: {} {}: {}", r.row.model, r.row.method, m);
        }
        if let Some(m) = &r.callgrind_note {
            let _ = writeln!(
                s,
                "note: {} {} (callgrind): {}",
                r.row.model, r.row.method, m
            );
        }
    }
    if !comps.is_empty() {
        let _ = writeln!(
            s,
            "\nsaturation vs other methods (same model and order, wall time):"
        );
        for c in comps {
            let bound = if c.lower_bound { ">=" } else { "" };
            let verdict = if c.ratio >= min_speedup {
                format!("meets >= {min_speedup}x")
            } else if c.lower_bound {
                format!("not shown >= {min_speedup}x (raise --timeout)")
            } else {
                format!("below {min_speedup}x")
            };
            let _ = writeln!(
                s,
                "  {}{}: {} {:.3} s{} / saturation {:.3} s = {bound}{:.1}x  ({verdict})",
                c.model,
                c.order
                    .as_ref()
                    .map(|o| format!(" [{o}]"))
                    .unwrap_or_default(),
                c.method,
                c.method_seconds,
                if c.lower_bound {
                    format!(" ({})", c.method_status.name())
                } else {
                    String::new()
                },
                c.saturation_seconds,
                c.ratio,
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Reference;

    fn row(model: &str, method: &str) -> Row {
        Row {
            model: model.into(),
            method: method.into(),
            order: None,
            relations: None,
            meddly: None,
        }
    }

    fn result(model: &str, method: &str, status: Status, walls: &[f64]) -> RowResult {
        let mut r = RowResult::new(row(model, method));
        r.status = status;
        r.runs = walls
            .iter()
            .map(|&t| RunRecord {
                wall_seconds: t,
                peak_memory_bytes: 1 << 20,
                exit: "0".into(),
            })
            .collect();
        r.summarise(&[]);
        r
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN, 1.0]), Some(1.0));
    }

    #[test]
    fn child_json() {
        let c = ChildFigures::parse(
            "{\"states\":\"4600\",\"transitions\":\"28120\",\"nodes_final\":48,\
             \"nodes_peak\":161,\"seconds\":0.5,\"generation_seconds\":0.25,\"order\":\"force\"}\n",
        )
        .unwrap();
        assert_eq!(c.states, "4600");
        assert_eq!(c.transitions.as_deref(), Some("28120"));
        assert_eq!((c.nodes_final, c.nodes_peak), (Some(48), Some(161)));
        assert_eq!((c.seconds, c.generation_seconds), (Some(0.5), Some(0.25)));
        assert_eq!(c.order.as_deref(), Some("force"));
        assert!(ChildFigures::parse("").is_err());
        assert!(ChildFigures::parse("states: 4600").is_err());
        assert!(ChildFigures::parse("{\"nodes_final\": 3}").is_err());
    }

    #[test]
    fn summary_and_meddly_ratios() {
        let mut r = RowResult::new(Row {
            meddly: Some(Reference {
                command: None,
                seconds: Some(2.0),
                memory_mib: Some(4.0),
            }),
            ..row("kanban:2", "saturation")
        });
        for (t, mib) in [(1.0, 1.0), (3.0, 2.0), (2.0, 3.0)] {
            r.runs.push(RunRecord {
                wall_seconds: t,
                peak_memory_bytes: (mib * MIB) as u64,
                exit: "0".into(),
            });
        }
        let fig = ChildFigures {
            states: "4600".into(),
            nodes_final: Some(48),
            ..Default::default()
        };
        r.summarise(&[fig.clone(), fig.clone(), fig.clone()]);
        assert_eq!(r.status, Status::Ok);
        assert_eq!(r.wall_seconds, Some(2.0));
        assert_eq!(r.peak_memory_bytes, Some((2.0 * MIB) as u64));
        assert_eq!(r.ratio_time_vs_meddly, Some(1.0));
        assert_eq!(r.ratio_memory_vs_meddly, Some(0.5));
        assert_eq!(r.nodes_final, Some(48));
        assert_eq!(r.states.as_deref(), Some("4600"));

        assert!(!r.meddly_measured);
        assert!(render(&[r.clone()], &[], 100.0).contains("2.000 / 4.0 "));

        // Meddly measured side by side: its medians replace the table's figures
        for (t, mib) in [(4.0, 8.0), (8.0, 1.0), (6.0, 4.0)] {
            r.meddly_runs.push(RunRecord {
                wall_seconds: t,
                peak_memory_bytes: (mib * MIB) as u64,
                exit: "0".into(),
            });
        }
        r.summarise(&[fig.clone(), fig.clone(), fig.clone()]);
        assert!(r.meddly_measured);
        assert_eq!(r.meddly_seconds, Some(6.0));
        assert_eq!(r.ratio_time_vs_meddly, Some(2.0 / 6.0));
        assert_eq!(r.ratio_memory_vs_meddly, Some(0.5));
        let text = render(&[r.clone()], &[], 100.0);
        assert!(text.contains("6.000 / 4.0*"), "{text}");
        assert!(text.contains("measured side by side"));

        // a failed Meddly run: no ratio, and a note
        r.meddly_runs[1].exit = "1".into();
        r.summarise(&[fig.clone(), fig.clone(), fig.clone()]);
        assert_eq!(r.ratio_time_vs_meddly, None);
        assert_eq!(r.ratio_memory_vs_meddly, None);
        assert!(r.message.as_deref().unwrap().contains("Meddly run failed"));

        let other = ChildFigures {
            states: "4601".into(),
            ..fig.clone()
        };
        r.status = Status::Ok;
        r.summarise(&[fig, other]);
        assert_eq!(r.status, Status::Error);
    }

    #[test]
    fn bfs_over_saturation() {
        let results = vec![
            result("a:1", "bfs", Status::Ok, &[10.0]),
            result("a:1", "saturation", Status::Ok, &[0.1, 0.2, 0.3]),
            result("b:1", "bfs", Status::Timeout, &[300.0]),
            result("b:1", "saturation", Status::Ok, &[1.0]),
            result("c:1", "bfs", Status::Error, &[1.0]),
            result("c:1", "saturation", Status::Ok, &[1.0]),
            result("d:1", "saturation", Status::Ok, &[1.0]),
        ];
        let c = comparisons(&results);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].model, "a:1");
        assert!((c[0].ratio - 50.0).abs() < 1e-9);
        assert!(!c[0].lower_bound);
        assert_eq!(c[1].model, "b:1");
        assert!(c[1].lower_bound);
        let text = render(&results, &c, 100.0);
        assert!(text.contains("below 100x"), "{text}");
        assert!(text.contains(">=300.0x"), "{text}");
        assert!(text.contains("meets >= 100x"), "{text}");
    }

    #[test]
    fn counts_are_shortened() {
        assert_eq!(short_count("4600"), "4600");
        assert_eq!(short_count("17237624625764927513790507683846"), "1.724e31");
        assert_eq!(short_count("9999999999999"), "1.000e13");
        assert_eq!(short_count("1000400000000"), "1.000e12");
    }
}
