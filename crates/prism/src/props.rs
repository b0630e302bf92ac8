//! Checking a property file against a [`Program`].

use std::collections::HashMap;

use crate::ast::{self, PropItem};
use crate::check::{add_constants, constants_of};
use crate::diag::{Diagnostics, Error, Source};
use crate::program::{Constant, Label, Program, Type};
use crate::resolve::{ConstEntry, ConstState, Resolver, Scope};

/// One checked property.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedProperty {
    pub name: Option<String>,
    /// As written (for printing).
    pub ast: ast::Property,
    /// Resolved: variables by index, constants folded, formulas inlined, old-style filters
    /// turned into `filter(...)`, references to named properties as `PropRef`.
    pub expr: ast::Expr,
    pub ty: Type,
}

/// A checked property file.
#[derive(Clone, Debug)]
pub struct PropertyFile {
    pub ast: ast::PropertiesFile,
    /// Constants declared in the property file (indices of `Const { props: true }`).
    pub constants: Vec<Constant>,
    /// Labels declared in the property file.
    pub labels: Vec<Label>,
    pub properties: Vec<CheckedProperty>,
}

/// Check `file` against `program` (its constants' values are taken from `program.overrides`).
pub fn check_properties(
    file: &ast::PropertiesFile,
    program: &Program,
    source: &Source,
) -> Result<PropertyFile, Diagnostics> {
    let mut r = Resolver::default();
    for c in &program.constants {
        r.add_const(ConstEntry {
            name: c.name.clone(),
            ty: c.ty,
            def: None,
            span: c.span,
            state: ConstState::Done,
            value: c.value,
            resolved: c.definition.clone(),
            overridden: c.overridden,
            props: false,
        });
    }
    r.n_model_consts = r.consts.len();
    for (i, v) in program.variables.iter().enumerate() {
        r.vars.push((v.name.clone(), v.ty()));
        r.var_map.entry(v.name.clone()).or_insert(i);
    }
    for f in &program.formulas {
        r.formulas.insert(f.name.clone(), f.expr.clone());
    }
    for l in &program.labels {
        r.labels.insert(l.name.clone());
    }
    r.reward_names = program.rewards.iter().map(|x| x.name.clone()).collect();

    let const_decls = file.items.iter().filter_map(|i| {
        if let PropItem::Const(c) = i {
            Some(c)
        } else {
            None
        }
    });
    add_constants(&mut r, const_decls, &program.overrides, true);
    for i in r.n_model_consts..r.consts.len() {
        let name = r.consts[i].name.clone();
        if r.var_map.contains_key(&name) || program.formulas.iter().any(|f| f.name == name) {
            let s = r.consts[i].span;
            r.err(Error::new(
                format!("constant `{name}` has the same name as a model variable or formula"),
                s,
                "name already used",
            ));
        }
    }
    for i in r.n_model_consts..r.consts.len() {
        let s = r.consts[i].span;
        r.eval_const(i, s);
    }
    // formulas in the property file
    for it in &file.items {
        if let PropItem::Formula(f) = it {
            if r.formulas.contains_key(&f.name.name)
                || r.const_map.contains_key(&f.name.name)
                || r.var_map.contains_key(&f.name.name)
            {
                r.err(Error::new(
                    format!(
                        "formula `{}` has the same name as an existing identifier",
                        f.name.name
                    ),
                    f.name.span,
                    "name already used",
                ));
                continue;
            }
            r.formulas.insert(f.name.name.clone(), f.expr.clone());
        }
    }

    let mut labels = Vec::new();
    let mut properties: Vec<CheckedProperty> = Vec::new();
    let mut prop_spans: HashMap<String, ast::Span> = HashMap::new();
    for it in &file.items {
        match it {
            PropItem::Label(l) => {
                if r.labels.contains(&l.name.name)
                    || l.name.name == "init"
                    || l.name.name == "deadlock"
                {
                    r.err(Error::new(
                        format!("label `\"{}\"` is already defined", l.name.name),
                        l.name.span,
                        "declared again here",
                    ));
                    continue;
                }
                if let Some((e, t)) = r.resolve(&l.expr, Scope::model(), 0) {
                    if t != Type::Bool {
                        r.err(Error::new(
                            format!("type error: a label must be a boolean, found {}", t.name()),
                            l.expr.span,
                            "not boolean",
                        ));
                        continue;
                    }
                    r.labels.insert(l.name.name.clone());
                    labels.push(Label {
                        name: l.name.name.clone(),
                        expr: e,
                        span: l.name.span,
                    });
                }
            }
            PropItem::Property(p) => {
                if let Some(n) = &p.name {
                    if let Some(&first) = prop_spans.get(&n.name) {
                        r.err(
                            Error::new(
                                format!("duplicate property name `\"{}\"`", n.name),
                                n.span,
                                "used again here",
                            )
                            .with_related(first, "first used here"),
                        );
                    }
                }
                let res = r.resolve(&p.expr, Scope::property(), 0);
                if let Some(n) = &p.name {
                    prop_spans.entry(n.name.clone()).or_insert(n.span);
                }
                if let Some((e, t)) = res {
                    if let Some(n) = &p.name {
                        r.prop_names
                            .entry(n.name.clone())
                            .or_insert((properties.len(), t));
                    }
                    properties.push(CheckedProperty {
                        name: p.name.as_ref().map(|n| n.name.clone()),
                        ast: p.clone(),
                        expr: e,
                        ty: t,
                    });
                }
            }
            PropItem::Const(_) | PropItem::Formula(_) => {}
        }
    }
    if !r.errors.is_empty() {
        return Err(Diagnostics {
            errors: std::mem::take(&mut r.errors),
        }
        .with_source(source));
    }
    let constants = constants_of(&r, r.n_model_consts..r.consts.len());
    Ok(PropertyFile {
        ast: file.clone(),
        constants,
        labels,
        properties,
    })
}

/// Names given with `--const` that are constants of neither the model nor the property file.
pub fn unknown_overrides(program: &Program, props: Option<&PropertyFile>) -> Vec<String> {
    program
        .overrides
        .names()
        .filter(|n| {
            program.constant(n).is_none()
                && !props.is_some_and(|p| p.constants.iter().any(|c| c.name == *n))
        })
        .map(str::to_string)
        .collect()
}
