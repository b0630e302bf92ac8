//! `saturn export MODEL.sm [--const ...] --tra F --sta F --lab F`: a PRISM CTMC in PRISM's
//! explicit formats (rate matrix, states, labels), from the sparse chain of `check`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use saturn_model::expr::Value;

use crate::args::LimitArgs;
use crate::check_prism::{load_chain, Built, EngineChoice};
use crate::out;
use crate::report::Failure;

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// A PRISM ctmc model.
    pub model: String,
    /// Values for undefined constants: `N=3,T=2.5`.
    #[arg(long = "const")]
    pub consts: Vec<String>,
    /// Write the rate matrix (PRISM's .tra: `states nonzeros`, then `i j rate`).
    #[arg(long)]
    pub tra: Option<PathBuf>,
    /// Write the states (PRISM's .sta: `(x,y)`, then `i:(1,0)`).
    #[arg(long)]
    pub sta: Option<PathBuf>,
    /// Write the labels (PRISM's .lab: `0="init" 1="deadlock" ...`, then `i: 0 1`).
    #[arg(long)]
    pub lab: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

fn write(path: &PathBuf, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text)
        .map_err(|e| Failure::error(format!("cannot write {}: {e}", path.display())))
}

pub fn run(a: &ExportArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    if a.tra.is_none() && a.sta.is_none() && a.lab.is_none() {
        return Err(
            Failure::error("nothing to export: give --tra, --sta and/or --lab FILE").into(),
        );
    }
    let Some(mut input) = crate::load::read_input(&a.model)? else {
        return Err(Failure::error(format!("cannot read {}: no such file", a.model)).into());
    };
    if !input.is_prism() {
        return Err(Failure::error(format!("{}: export takes a PRISM ctmc model", a.model)).into());
    }
    input.read_all()?;
    let chain = load_chain(
        &input,
        &a.consts,
        None,
        &a.limits,
        start,
        EngineChoice::SPARSE,
        false,
    )?;
    let Built::Sparse(c) = &chain.ctmc else {
        return Err(Failure::error("export: the sparse engine builds the matrix").into());
    };
    let n = c.len();
    if let Some(p) = &a.tra {
        let mut t = String::new();
        let _ = writeln!(t, "{n} {}", saturn_ctmc::RateMatrix::nonzeros(c.as_ref()));
        // the rows of `R` (the engine keeps its columns)
        let rows = c.r.transpose();
        for i in 0..n {
            for (j, v) in rows.col(i) {
                let _ = writeln!(t, "{i} {j} {v}");
            }
        }
        write(p, &t)?;
    }
    let show = |i: usize| -> String {
        let vals = c.values(i);
        let parts: Vec<String> = chain
            .model
            .vars
            .iter()
            .zip(&vals)
            .map(|(v, &x)| {
                if v.is_bool {
                    (x != 0).to_string()
                } else {
                    x.to_string()
                }
            })
            .collect();
        parts.join(",")
    };
    if let Some(p) = &a.sta {
        let names: Vec<&str> = chain.model.vars.iter().map(|v| v.name.as_str()).collect();
        let mut t = format!("({})\n", names.join(","));
        for i in 0..n {
            let _ = writeln!(t, "{i}:({})", show(i));
        }
        write(p, &t)?;
    }
    if let Some(p) = &a.lab {
        let mut exprs = Vec::new();
        for l in &chain.prog.labels {
            let e = saturn_prism::lower::lower_expr(&chain.prog, &l.expr)
                .map_err(|e| Failure::error(format!("label \"{}\": {e}", l.name)))?;
            exprs.push(e);
        }
        let mut head = vec!["0=\"init\"".to_string(), "1=\"deadlock\"".to_string()];
        for (k, l) in chain.prog.labels.iter().enumerate() {
            head.push(format!("{}=\"{}\"", k + 2, l.name));
        }
        let mut t = head.join(" ") + "\n";
        let mut init = vec![false; n];
        c.initial.iter().for_each(|&i| init[i] = true);
        let mut dead = vec![false; n];
        c.deadlocks.iter().for_each(|&i| dead[i] = true);
        for i in 0..n {
            let vals = c.values(i);
            let mut on: Vec<String> = Vec::new();
            if init[i] {
                on.push("0".into());
            }
            if dead[i] {
                on.push("1".into());
            }
            for (k, e) in exprs.iter().enumerate() {
                match e.eval(&vals) {
                    Ok(Value::Bool(true)) => on.push((k + 2).to_string()),
                    Ok(Value::Bool(false)) => {}
                    _ => {
                        return Err(Failure::error(format!(
                            "label \"{}\" cannot be evaluated in state ({})",
                            chain.prog.labels[k].name,
                            show(i)
                        ))
                        .into())
                    }
                }
            }
            if !on.is_empty() {
                let _ = writeln!(t, "{i}: {}", on.join(" "));
            }
        }
        write(p, &t)?;
    }
    out::print(&format!(
        "exported {} states, {} transitions\n",
        n, c.transitions
    ))?;
    Ok(ExitCode::SUCCESS)
}
