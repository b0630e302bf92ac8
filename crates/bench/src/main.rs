//! `saturn-bench`: run the `saturn` binary over a table of models and methods, several times per
//! row, measuring whole-process wall time and peak memory; write the medians as JSON and print a
//! readable table with ratios (BFS over saturation, ours over Meddly). See docs/benchmarks.md.

mod child;
mod report;
mod table;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Parser;

use child::Exit;
use report::{ChildFigures, RowResult, RunRecord, Status};
use table::Row;

#[derive(Parser, Debug)]
#[command(
    name = "saturn-bench",
    about = "Run saturn over a benchmark table; write medians as JSON and print a table"
)]
struct Args {
    /// The saturn binary (default: `saturn` next to this executable, e.g. target/release/saturn).
    #[arg(long)]
    saturn: Option<PathBuf>,
    /// Runs per row (the medians are over these).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    runs: u32,
    /// A built-in table (default, quick, full) or a JSON file with an array of rows.
    #[arg(long, default_value = "default")]
    table: String,
    /// Where to write the JSON results.
    #[arg(long, default_value = "bench-results/table.json")]
    out: PathBuf,
    /// Per-run time limit in seconds, passed to saturn as --timeout.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
    /// Per-run memory limit in MiB, passed to saturn as --max-memory.
    #[arg(long = "max-memory", value_parser = clap::value_parser!(u64).range(1..=16_777_216))]
    max_memory: Option<u64>,
    /// Also run each successful row once under `valgrind --tool=callgrind` and record the
    /// instruction count.
    #[arg(long)]
    callgrind: bool,
    /// The speed-up of saturation over the other methods that the table checks for.
    #[arg(long, default_value_t = 100.0)]
    min_speedup: f64,
}

/// `saturn` in the directory of the running executable.
fn default_saturn() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot locate the running executable")?;
    let dir = exe
        .parent()
        .context("the running executable has no directory")?;
    Ok(dir.join(format!("saturn{}", std::env::consts::EXE_SUFFIX)))
}

/// The arguments of one `saturn statespace` run for `row`.
fn saturn_args(row: &Row, a: &Args) -> Vec<String> {
    let mut v = vec![
        "statespace".to_string(),
        row.model.clone(),
        "--method".to_string(),
        row.method.clone(),
    ];
    if let Some(o) = &row.order {
        v.push("--order".to_string());
        v.push(o.clone());
    }
    if let Some(r) = &row.relations {
        v.push("--relations".to_string());
        v.push(r.clone());
    }
    v.push("--json".to_string());
    v.push("--timeout".to_string());
    v.push(a.timeout.to_string());
    if let Some(m) = a.max_memory {
        v.push("--max-memory".to_string());
        v.push(m.to_string());
    }
    v
}

/// The hard deadline after which the harness kills a run that did not stop by itself.
fn kill_after(timeout: u64) -> Duration {
    Duration::from_secs_f64(timeout as f64 * 1.1 + 10.0)
}

/// The last non-empty line of `s` (the error message of a failed run).
fn last_line(s: &str) -> String {
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// What a finished run means: its figures, or why there are none.
fn classify(m: &child::Measured) -> Result<ChildFigures, (Status, String)> {
    match m.exit {
        Exit::Code(0) => ChildFigures::parse(&m.stdout).map_err(|e| (Status::Error, e)),
        Exit::Code(3) => {
            let msg = last_line(&m.stderr);
            let status = if msg.contains("memory limit") {
                Status::MemoryLimit
            } else {
                Status::Timeout
            };
            Err((status, msg))
        }
        Exit::Killed => Err((
            Status::Timeout,
            "killed by the harness at the hard deadline".to_string(),
        )),
        Exit::Code(c) => Err((
            Status::Error,
            format!("exit code {c}: {}", last_line(&m.stderr)),
        )),
        Exit::Signal(s) => Err((
            Status::Error,
            format!("terminated by signal {s}: {}", last_line(&m.stderr)),
        )),
    }
}

fn exit_text(e: Exit) -> String {
    match e {
        Exit::Code(c) => c.to_string(),
        Exit::Signal(s) => format!("signal {s}"),
        Exit::Killed => "killed".to_string(),
    }
}

/// One run's record, shown on stderr as it ends (`what` `i+1`/`runs`).
fn record(what: &str, i: u32, runs: u32, m: &child::Measured) -> RunRecord {
    eprintln!(
        "  {what} {}/{runs}: {:.3} s, {:.1} MiB, exit {}",
        i + 1,
        m.wall_seconds,
        m.peak_rss_bytes as f64 / (1024.0 * 1024.0),
        exit_text(m.exit)
    );
    RunRecord {
        wall_seconds: m.wall_seconds,
        peak_memory_bytes: m.peak_rss_bytes,
        exit: exit_text(m.exit),
    }
}

/// Run one row `a.runs` times (stopping at the first run that does not succeed).
fn run_row(saturn: &Path, row: &Row, a: &Args) -> anyhow::Result<RowResult> {
    let args = saturn_args(row, a);
    let mut res = RowResult::new(row.clone());
    let mut figures = Vec::new();
    let peer = row.meddly.as_ref().and_then(|m| m.command.as_ref());
    for i in 0..a.runs {
        let m = child::run(saturn, &args, kill_after(a.timeout))?;
        res.runs.push(record("run", i, a.runs, &m));
        match classify(&m) {
            Ok(f) => figures.push(f),
            Err((status, msg)) => {
                res.status = status;
                res.message = Some(msg);
                break;
            }
        }
        if let Some(cmd) = peer {
            let p = child::run(Path::new(&cmd[0]), &cmd[1..], kill_after(a.timeout))
                .with_context(|| format!("cannot run Meddly's command {:?}", cmd[0]))?;
            res.meddly_runs.push(record("Meddly", i, a.runs, &p));
        }
    }
    res.summarise(&figures);
    if a.callgrind && res.status == Status::Ok {
        match callgrind(saturn, &args, a.timeout) {
            Ok(n) => res.instructions = Some(n),
            Err(e) => res.callgrind_note = Some(format!("{e:#}")),
        }
    }
    Ok(res)
}

/// The total of callgrind's `Collected : N` line on valgrind's stderr.
fn parse_collected(stderr: &str) -> Option<u64> {
    stderr.lines().find_map(|l| {
        let (_, rest) = l.split_once("Collected :")?;
        rest.trim().replace(',', "").parse().ok()
    })
}

/// Run `saturn args` once under callgrind and return the instructions executed.
fn callgrind(saturn: &Path, args: &[String], timeout: u64) -> anyhow::Result<u64> {
    let mut v = vec![
        "--tool=callgrind".to_string(),
        "--callgrind-out-file=/dev/null".to_string(),
        saturn.display().to_string(),
    ];
    v.extend_from_slice(args);
    let m = child::run(Path::new("valgrind"), &v, kill_after(timeout))
        .context("cannot run valgrind (is it installed?)")?;
    if m.exit != Exit::Code(0) {
        // The program's own message, not valgrind's `==pid==` summary lines.
        let own: String = m
            .stderr
            .lines()
            .filter(|l| !l.starts_with("=="))
            .collect::<Vec<_>>()
            .join("\n");
        bail!(
            "under callgrind: exit {} ({})",
            exit_text(m.exit),
            last_line(&own)
        );
    }
    parse_collected(&m.stderr).context("no 'Collected :' line in valgrind's output")
}

/// A few facts about the machine, for the JSON file.
fn machine() -> serde_json::Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    });
    serde_json::json!({
        "cpu": cpu,
        "cpus": std::thread::available_parallelism().map(|n| n.get()).ok(),
        "os": std::env::consts::OS,
        "arch": std::env::consts::ARCH,
    })
}

fn saturn_version(saturn: &Path) -> Option<String> {
    let out = std::process::Command::new(saturn)
        .arg("--version")
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn run(a: &Args) -> anyhow::Result<ExitCode> {
    let saturn = match &a.saturn {
        Some(p) => p.clone(),
        None => default_saturn()?,
    };
    if !saturn.is_file() {
        bail!(
            "{}: no saturn binary there; build it with `cargo build --release -p saturn-cli` \
             or pass --saturn PATH",
            saturn.display()
        );
    }
    let rows = table::load(&a.table)?;
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut results = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        eprintln!(
            "[{}/{}] {} --method {}{}",
            i + 1,
            rows.len(),
            row.model,
            row.method_label(),
            row.order
                .as_ref()
                .map(|o| format!(" --order {o}"))
                .unwrap_or_default()
        );
        results.push(run_row(&saturn, row, a)?);
    }
    let comps = report::comparisons(&results);
    let json = serde_json::json!({
        "saturn": saturn.display().to_string(),
        "saturn_version": saturn_version(&saturn),
        "table": a.table,
        "runs": a.runs,
        "timeout_seconds": a.timeout,
        "max_memory_mib": a.max_memory,
        "started_unix_seconds": started,
        "machine": machine(),
        "rows": results,
        "comparisons": comps,
    });
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the directory", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(&json)?;
    std::fs::write(&a.out, text + "\n")
        .with_context(|| format!("{}: cannot write", a.out.display()))?;
    print!("{}", report::render(&results, &comps, a.min_speedup));
    println!("\nresults written to {}", a.out.display());
    let errors = results.iter().filter(|r| r.status == Status::Error).count();
    if errors > 0 {
        eprintln!("saturn-bench: {errors} row(s) failed (see the notes above)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("saturn-bench: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callgrind_total() {
        let err = "==1== Events    : Ir\n==1== Collected : 123456789\n==1==\n==1== I   refs:      123,456,789\n";
        assert_eq!(parse_collected(err), Some(123_456_789));
        assert_eq!(parse_collected("nothing"), None);
    }

    #[test]
    fn arguments_follow_the_row() {
        let a = Args::parse_from(["saturn-bench", "--timeout", "7"]);
        let mut row = Row {
            model: "kanban:3".into(),
            method: "bfs".into(),
            order: None,
            relations: None,
            meddly: None,
        };
        assert_eq!(
            saturn_args(&row, &a).join(" "),
            "statespace kanban:3 --method bfs --json --timeout 7"
        );
        row.order = Some("sloan".into());
        assert!(saturn_args(&row, &a).join(" ").contains("--order sloan"));
    }

    fn measured(exit: Exit, stdout: &str, stderr: &str) -> child::Measured {
        child::Measured {
            exit,
            wall_seconds: 1.0,
            peak_rss_bytes: 1,
            stdout: stdout.into(),
            stderr: stderr.into(),
        }
    }

    #[test]
    fn outcomes() {
        let ok = measured(Exit::Code(0), "{\"states\":\"160\"}\n", "");
        assert_eq!(classify(&ok).unwrap().states, "160");
        let t = measured(
            Exit::Code(3),
            "",
            "saturn: x: stopped, time limit of 1 s reached\n",
        );
        assert_eq!(classify(&t).unwrap_err().0, Status::Timeout);
        let m = measured(
            Exit::Code(3),
            "",
            "stopped, memory limit of 1 MiB reached\n",
        );
        assert_eq!(classify(&m).unwrap_err().0, Status::MemoryLimit);
        let k = measured(Exit::Killed, "", "");
        assert_eq!(classify(&k).unwrap_err().0, Status::Timeout);
        let e = measured(Exit::Code(2), "", "error: nosuch:3: no such file\n");
        let (s, msg) = classify(&e).unwrap_err();
        assert_eq!(s, Status::Error);
        assert!(msg.contains("nosuch:3"));
        let bad = measured(Exit::Code(0), "states: 3\n", "");
        assert_eq!(classify(&bad).unwrap_err().0, Status::Error);
        let sig = measured(Exit::Signal(9), "", "");
        assert_eq!(classify(&sig).unwrap_err().0, Status::Error);
    }
}
