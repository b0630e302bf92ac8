//! `saturn parse` for PRISM models: check the model (and a property file) and print a summary.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::process::ExitCode;

use serde_json::{json, Value as Json};

use saturn_prism::{
    parse_model_bytes, parse_properties_ast_bytes, ConstOverrides, Diagnostics, Program,
    PropertyFile, Source, VarKind,
};

use crate::load::Input;
use crate::out;
use crate::report::{failure_object, ok_object, Diagnostic, Failure};
use crate::ParseArgs;

fn value_json(v: Option<saturn_prism::Value>) -> Json {
    match v {
        None => Json::Null,
        Some(saturn_prism::Value::Int(i)) => json!(i),
        Some(saturn_prism::Value::Double(d)) => json!(d),
        Some(saturn_prism::Value::Bool(b)) => json!(b),
    }
}

fn var_range(p: &Program, i: usize) -> String {
    let v = &p.variables[i];
    let ty = match &v.kind {
        VarKind::Bool => "bool".to_string(),
        VarKind::Int { lo, hi } => format!("[{lo}..{hi}]"),
    };
    match &v.init {
        Some(e) => format!("{ty} init {e}"),
        None => ty,
    }
}

fn var_json(p: &Program, i: usize) -> Json {
    let v = &p.variables[i];
    let (ty, lo, hi) = match &v.kind {
        VarKind::Bool => ("bool", Json::Null, Json::Null),
        VarKind::Int { lo, hi } => ("int", json!(lo.to_string()), json!(hi.to_string())),
    };
    json!({
        "name": v.name,
        "type": ty,
        "low": lo,
        "high": hi,
        "range": v.bounds.map(|(l, h)| json!([l, h])),
        "init": v.init.as_ref().map(|e| e.to_string()),
    })
}

fn reward_name(n: &Option<String>, i: usize) -> String {
    match n {
        Some(n) => format!("\"{n}\""),
        None => format!("{} (unnamed)", i + 1),
    }
}

fn system_text(p: &Program) -> String {
    match &p.system {
        Some(s) => p.system_to_string(s),
        None => {
            let names: Vec<&str> = p.modules.iter().map(|m| m.name.as_str()).collect();
            format!("{} (default)", names.join(" || "))
        }
    }
}

fn summary_text(model: &str, p: &Program, props: Option<(&str, &PropertyFile)>) -> String {
    let mut o = String::new();
    let ty = p.model_type.name();
    let _ = writeln!(o, "model: {model}");
    let _ = writeln!(
        o,
        "type: {ty}{}",
        if p.model_type_declared {
            ""
        } else {
            " (no type given; PRISM's default)"
        }
    );
    let consts = |o: &mut String, cs: &[saturn_prism::Constant]| {
        for c in cs {
            let val = match c.value {
                Some(v) => format!("{v}{}", if c.overridden { " (from --const)" } else { "" }),
                None => match &c.definition {
                    Some(d) => format!("undefined ({d})"),
                    None => "undefined".to_string(),
                },
            };
            let _ = writeln!(o, "  {} {} = {}", c.ty.name(), c.name, val);
        }
    };
    let _ = writeln!(o, "constants: {}", p.constants.len());
    consts(&mut o, &p.constants);
    let globals: Vec<usize> = (0..p.variables.len())
        .filter(|&i| p.variables[i].module.is_none())
        .collect();
    let _ = writeln!(o, "global variables: {}", globals.len());
    for &i in &globals {
        let _ = writeln!(o, "  {} : {}", p.variables[i].name, var_range(p, i));
    }
    let _ = writeln!(o, "modules: {}", p.modules.len());
    for m in &p.modules {
        let acts: Vec<&str> = m.alphabet.iter().map(|&a| p.actions[a].as_str()).collect();
        let copy = m
            .renamed_from
            .as_ref()
            .map(|b| format!(" (renamed copy of {b})"))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "  module {}{copy}: {} variables, {} commands, actions {{{}}}",
            m.name,
            m.vars.len(),
            m.commands.len(),
            acts.join(", ")
        );
        for &v in &m.vars {
            let _ = writeln!(o, "    {} : {}", p.variables[v].name, var_range(p, v));
        }
    }
    if let Some(i) = &p.init {
        let _ = writeln!(o, "init: {i}");
    }
    let _ = writeln!(o, "formulas: {}", p.formulas.len());
    for f in &p.formulas {
        let _ = writeln!(o, "  {} = {}", f.name, f.expr);
    }
    let _ = writeln!(o, "labels: {}", p.labels.len());
    for l in &p.labels {
        let _ = writeln!(o, "  \"{}\" = {}", l.name, l.expr);
    }
    let _ = writeln!(o, "reward structures: {}", p.rewards.len());
    for (i, r) in p.rewards.iter().enumerate() {
        let _ = writeln!(
            o,
            "  {}: {} state, {} transition items",
            reward_name(&r.name, i),
            r.state.len(),
            r.trans.len()
        );
    }
    let _ = writeln!(o, "system: {}", system_text(p));
    if let Some((name, pf)) = props {
        let _ = writeln!(o, "property file: {name}");
        if !pf.constants.is_empty() {
            let _ = writeln!(o, "property constants: {}", pf.constants.len());
            consts(&mut o, &pf.constants);
        }
        for l in &pf.labels {
            let _ = writeln!(o, "  label \"{}\" = {}", l.name, l.expr);
        }
        let _ = writeln!(o, "properties: {}", pf.properties.len());
        for (i, q) in pf.properties.iter().enumerate() {
            let _ = writeln!(o, "  {}: {}", i + 1, q.ast);
        }
    }
    o
}

fn summary_json(model: &str, p: &Program, props: Option<(&str, &PropertyFile)>) -> Json {
    let consts = |cs: &[saturn_prism::Constant]| -> Vec<Json> {
        cs.iter()
            .map(|c| {
                json!({
                    "name": c.name,
                    "type": c.ty.name(),
                    "value": value_json(c.value),
                    "defined": c.value.is_some(),
                    "from_command_line": c.overridden,
                })
            })
            .collect()
    };
    let globals: Vec<Json> = (0..p.variables.len())
        .filter(|&i| p.variables[i].module.is_none())
        .map(|i| var_json(p, i))
        .collect();
    let modules: Vec<Json> = p
        .modules
        .iter()
        .map(|m| {
            json!({
                "name": m.name,
                "renamed_from": m.renamed_from,
                "variables": m.vars.iter().map(|&v| var_json(p, v)).collect::<Vec<_>>(),
                "commands": m.commands.len(),
                "actions": m.alphabet.iter().map(|&a| p.actions[a].clone()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut out = json!({
        "model": model,
        "type": p.model_type.name(),
        "type_declared": p.model_type_declared,
        "constants": consts(&p.constants),
        "globals": globals,
        "modules": modules,
        "init": p.init.as_ref().map(|e| e.to_string()),
        "formulas": p.formulas.iter().map(|f| json!({"name": f.name, "expr": f.expr.to_string()})).collect::<Vec<_>>(),
        "labels": p.labels.iter().map(|l| json!({"name": l.name, "expr": l.expr.to_string()})).collect::<Vec<_>>(),
        "rewards": p.rewards.iter().map(|r| json!({
            "name": r.name, "state_items": r.state.len(), "transition_items": r.trans.len()
        })).collect::<Vec<_>>(),
        "system": system_text(p),
    });
    if let (Some((name, pf)), Some(obj)) = (props, out.as_object_mut()) {
        obj.insert("property_file".into(), json!(name));
        obj.insert("property_constants".into(), json!(consts(&pf.constants)));
        obj.insert(
            "properties".into(),
            json!(pf
                .properties
                .iter()
                .map(
                    |q| json!({"name": q.name, "text": q.ast.expr.to_string(), "type": q.ty.name()})
                )
                .collect::<Vec<_>>()),
        );
    }
    out
}

/// A failure from the PRISM front-end's diagnostics (rendered with the source on stderr), with
/// the exit status (1 for `parse`, whose job is to find problems; 2 where they prevent a run).
pub fn prism_failure(d: &Diagnostics, exit: u8) -> Failure {
    let mut f = Failure::input(Diagnostic::of_prism(d))
        .rendered(d.render_with(std::io::stderr().is_terminal()));
    f.exit = exit;
    f
}

/// A `--const` problem (no position: it is on the command line).
pub fn const_failure(e: impl std::fmt::Display) -> Failure {
    Failure::input(vec![Diagnostic {
        file: Some("--const".into()),
        line: None,
        column: None,
        message: e.to_string(),
    }])
    .rendered(format!("error: --const: {e}\n"))
}

/// One run of a `--const` sweep: the program and its checked property file.
pub(crate) fn check_run(
    ast: &saturn_prism::ast::ModelFile,
    ov: &ConstOverrides,
    source: &Source,
    props: Option<&(String, saturn_prism::ast::PropertiesFile, Source)>,
) -> Result<(Program, Option<PropertyFile>), Failure> {
    let prog =
        saturn_prism::check_model_with_source(ast, ov, source).map_err(|d| prism_failure(&d, 1))?;
    let pf = match props {
        None => None,
        Some((_, past, psrc)) => Some(
            saturn_prism::check_properties_with_source(past, &prog, psrc)
                .map_err(|d| prism_failure(&d, 1))?,
        ),
    };
    let unknown = saturn_prism::unknown_overrides(&prog, pf.as_ref());
    if !unknown.is_empty() {
        return Err(const_failure(format!(
            "unknown constant(s): {}",
            unknown.join(", ")
        )));
    }
    Ok((prog, pf))
}

/// Check the model and its properties for every assignment of `--const`; print the summary
/// (with `--json`, one object, or an array of one object per run for a sweep).
pub fn run(args: &ParseArgs, input: &Input) -> anyhow::Result<ExitCode> {
    let model_name = input.name.clone();
    let bytes = &input.bytes;
    let overrides = ConstOverrides::parse_all(&args.consts).map_err(const_failure)?;
    let assignments = overrides.assignments().map_err(const_failure)?;
    let ast = parse_model_bytes(bytes, &model_name).map_err(|d| prism_failure(&d, 1))?;
    let source = Source::new(&model_name, &String::from_utf8_lossy(bytes));
    let props = match &args.props {
        None => None,
        Some(path) => {
            let name = path.display().to_string();
            let pbytes = std::fs::read(path)
                .map_err(|e| Failure::error(format!("cannot read {name}: {e}")))?;
            let a = parse_properties_ast_bytes(&pbytes, &name).map_err(|d| prism_failure(&d, 1))?;
            let src = Source::new(&name, &String::from_utf8_lossy(&pbytes));
            Some((name, a, src))
        }
    };
    let sweep = assignments.len() > 1;
    let mut objects = Vec::new();
    let mut texts = Vec::new();
    let mut failed: Option<Failure> = None;
    for ov in &assignments {
        match check_run(&ast, ov, &source, props.as_ref()) {
            Ok((prog, pf)) => {
                let pf_ref = pf
                    .as_ref()
                    .map(|p| (props.as_ref().map_or("", |x| x.0.as_str()), p));
                if args.json {
                    let mut j = ok_object(
                        "parse",
                        &model_name,
                        summary_json(&model_name, &prog, pf_ref),
                    );
                    if let Some(o) = j.as_object_mut() {
                        o.insert("input".into(), json!("prism"));
                        o.insert("const_assignment".into(), json!(ov.to_string()));
                    }
                    objects.push(j);
                } else {
                    let mut t = String::new();
                    if sweep {
                        let _ = writeln!(t, "== constants {ov}");
                    }
                    t.push_str(&summary_text(&model_name, &prog, pf_ref));
                    texts.push(t);
                }
            }
            Err(f) => {
                if !sweep {
                    return Err(f.into());
                }
                // a sweep goes on: this run's object says what failed, the exit status too
                eprint!("== constants {ov}\n{}", f.stderr_text());
                let mut j = failure_object("parse", &model_name, &f);
                if let Some(o) = j.as_object_mut() {
                    o.insert("input".into(), json!("prism"));
                    o.insert("const_assignment".into(), json!(ov.to_string()));
                }
                objects.push(j);
                failed = Some(f);
            }
        }
    }
    if args.json {
        let out = if sweep {
            Json::Array(objects)
        } else {
            objects.remove(0)
        };
        out::println(serde_json::to_string_pretty(&out)?)?;
    } else {
        out::print(&texts.join("\n"))?;
    }
    Ok(if failed.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
