//! Semantic checking of a model file into a [`Program`].

use std::collections::{BTreeSet, HashMap};

use crate::ast::{self, ConstType, Expr, ExprKind, Item, ModelType, Span, SystemKind, VarType};
use crate::consts::{ConstOverrides, ConstSpec};
use crate::diag::{Diagnostics, Error, Source};
use crate::program::*;
use crate::resolve::{convert, ConstEntry, ConstState, Resolver, Scope};

/// One module to build: a base module, or a renamed copy (base + renaming).
struct ModuleSrc<'a> {
    name: &'a ast::Ident,
    base: &'a ast::Module,
    rename: Option<HashMap<String, String>>,
    renamed_from: Option<String>,
    span: Span,
}

/// Apply override `v` to a constant declared with type `ty`.
#[allow(clippy::result_large_err)]
pub(crate) fn override_value(
    name: &str,
    ty: ConstType,
    v: Value,
    span: Span,
) -> Result<Value, Error> {
    let ok = matches!(
        (ty, v),
        (ConstType::Int, Value::Int(_))
            | (ConstType::Bool, Value::Bool(_))
            | (ConstType::Double, Value::Int(_) | Value::Double(_))
    );
    if ok {
        Ok(convert(Type::of_const(ty), v))
    } else {
        Err(Error::new(
            format!(
                "the value {v} given for constant `{name}` is not of type {}",
                ty.name()
            ),
            span,
            format!("declared {} here", ty.name()),
        ))
    }
}

/// Record the constants of `decls` in the resolver, applying overrides.
pub(crate) fn add_constants<'a>(
    r: &mut Resolver,
    decls: impl Iterator<Item = &'a ast::ConstDecl>,
    overrides: &ConstOverrides,
    props: bool,
) {
    for c in decls {
        if let Some(&prev) = r.const_map.get(&c.name.name) {
            let ps = r.consts[prev].span;
            r.err(
                Error::new(
                    format!("duplicate constant `{}`", c.name.name),
                    c.name.span,
                    "declared again here",
                )
                .with_related(ps, "first declared here"),
            );
            continue;
        }
        let mut entry = ConstEntry {
            name: c.name.name.clone(),
            ty: c.ty,
            def: c.value.clone(),
            span: c.name.span,
            state: ConstState::Todo,
            value: None,
            resolved: None,
            overridden: false,
            props,
        };
        match overrides.get(&c.name.name) {
            Some(ConstSpec::Single(v)) => {
                if c.value.is_some() {
                    r.err(
                        Error::new(format!("constant `{}` is defined in the file; --const cannot change it", c.name.name), c.name.span, "defined here")
                            .with_help("remove it from --const, or leave it undefined (`const int N;`) in the file"),
                    );
                } else {
                    match override_value(&c.name.name, c.ty, *v, c.name.span) {
                        Ok(v) => {
                            entry.value = Some(v);
                            entry.overridden = true;
                            entry.state = ConstState::Done;
                        }
                        Err(e) => r.err(e),
                    }
                }
            }
            Some(ConstSpec::Range { .. }) => r.err(Error::global(format!(
                "constant `{}` is given a range; expand ranges with ConstOverrides::assignments() first",
                c.name.name
            ))),
            None => {}
        }
        r.add_const(entry);
    }
}

pub(crate) fn constants_of(r: &Resolver, range: std::ops::Range<usize>) -> Vec<Constant> {
    r.consts[range]
        .iter()
        .map(|c| Constant {
            name: c.name.clone(),
            ty: c.ty,
            value: c.value,
            definition: c.resolved.clone(),
            overridden: c.overridden,
            span: c.span,
        })
        .collect()
}

/// Record `name` as declared (one namespace for constants, formulas and variables), or
/// report the clash.
fn claim_name(
    r: &mut Resolver,
    names: &mut HashMap<String, (Span, &'static str)>,
    name: &str,
    span: Span,
    kind: &'static str,
) {
    if let Some((s, what)) = names.get(name) {
        let e = Error::new(
            format!("{kind} `{name}` has the same name as a {what}"),
            span,
            "name already used",
        )
        .with_related(*s, "declared here");
        r.err(e);
    } else {
        names.insert(name.to_string(), (span, kind));
    }
}

struct Checker<'a> {
    r: Resolver,
    file: &'a ast::ModelFile,
    actions: Vec<String>,
    action_map: HashMap<String, usize>,
}

impl<'a> Checker<'a> {
    fn err(&mut self, e: Error) {
        self.r.err(e)
    }
    fn action(&mut self, name: &str) -> usize {
        if let Some(&i) = self.action_map.get(name) {
            return i;
        }
        self.actions.push(name.to_string());
        self.action_map
            .insert(name.to_string(), self.actions.len() - 1);
        self.actions.len() - 1
    }

    fn resolve_as(&mut self, e: &Expr, sc: Scope, want: Type, what: &str) -> Option<Expr> {
        let (x, t) = self.r.resolve(e, sc, 0)?;
        self.r.expect_type(e, t, want, what)?;
        Some(x)
    }
}

/// Check a parsed model with values for its undefined constants.
pub fn check_model(
    file: &ast::ModelFile,
    overrides: &ConstOverrides,
    source: &Source,
) -> Result<Program, Diagnostics> {
    let mut ck = Checker {
        r: Resolver::default(),
        file,
        actions: Vec::new(),
        action_map: HashMap::new(),
    };

    // ---- model type
    let mut model_type: Option<(ModelType, Span)> = None;
    for it in &file.items {
        if let Item::ModelType(t, s) = it {
            match model_type {
                Some((_, first)) => ck.err(
                    Error::new("the model type is declared twice", *s, "second declaration")
                        .with_related(first, "first declaration"),
                ),
                None => model_type = Some((*t, *s)),
            }
        }
    }

    // ---- constants
    let const_decls = file.items.iter().filter_map(|i| {
        if let Item::Const(c) = i {
            Some(c)
        } else {
            None
        }
    });
    add_constants(&mut ck.r, const_decls, overrides, false);
    ck.r.n_model_consts = ck.r.consts.len();

    // ---- formulas
    let mut formulas = Vec::new();
    for it in &file.items {
        if let Item::Formula(f) = it {
            if ck.r.formulas.contains_key(&f.name.name) {
                ck.err(Error::new(
                    format!("duplicate formula `{}`", f.name.name),
                    f.name.span,
                    "declared again here",
                ));
                continue;
            }
            ck.r.formulas.insert(f.name.name.clone(), f.expr.clone());
            formulas.push(Formula {
                name: f.name.name.clone(),
                expr: f.expr.clone(),
                span: f.name.span,
            });
        }
    }

    // ---- modules (base and renamed), in file order
    let mut base_modules: HashMap<&str, &ast::Module> = HashMap::new();
    let mut module_names: HashMap<&str, Span> = HashMap::new();
    for it in &file.items {
        let (name, span) = match it {
            Item::Module(m) => {
                base_modules.entry(&m.name.name).or_insert(m);
                (&m.name, m.name.span)
            }
            Item::Renamed(m) => (&m.name, m.name.span),
            _ => continue,
        };
        if let Some(&first) = module_names.get(name.name.as_str()) {
            ck.err(
                Error::new(
                    format!("duplicate module `{}`", name.name),
                    span,
                    "declared again here",
                )
                .with_related(first, "first declared here"),
            );
        } else {
            module_names.insert(&name.name, span);
        }
    }
    let mut srcs: Vec<ModuleSrc> = Vec::new();
    let mut seen_src: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for it in &file.items {
        match it {
            Item::Module(m) => {
                if !seen_src.insert(&m.name.name) {
                    continue;
                }
                srcs.push(ModuleSrc {
                    name: &m.name,
                    base: m,
                    rename: None,
                    renamed_from: None,
                    span: m.span,
                })
            }
            Item::Renamed(rm) => {
                if !seen_src.insert(&rm.name.name) {
                    continue;
                }
                let Some(base) = base_modules.get(rm.base.name.as_str()) else {
                    let msg = if module_names.contains_key(rm.base.name.as_str()) {
                        format!("module `{}` is itself a renamed copy; rename the original module instead", rm.base.name)
                    } else {
                        format!("undefined module `{}`", rm.base.name)
                    };
                    ck.err(Error::new(msg, rm.base.span, "cannot copy this module"));
                    continue;
                };
                let mut map = HashMap::new();
                for (from, to) in &rm.renames {
                    if map.insert(from.name.clone(), to.name.clone()).is_some() {
                        ck.err(Error::new(
                            format!("`{}` is renamed twice", from.name),
                            from.span,
                            "renamed again here",
                        ));
                    }
                }
                for v in &base.vars {
                    if !map.contains_key(&v.name.name) {
                        ck.err(
                            Error::new(
                                format!(
                                    "variable `{}` of module `{}` is not renamed in `{}`",
                                    v.name.name, base.name.name, rm.name.name
                                ),
                                rm.span,
                                "every variable of the copied module needs a new name",
                            )
                            .with_help(format!(
                                "add `{}=new_name` to the renaming list",
                                v.name.name
                            )),
                        );
                    }
                }
                srcs.push(ModuleSrc {
                    name: &rm.name,
                    base,
                    rename: Some(map),
                    renamed_from: Some(base.name.name.clone()),
                    span: rm.span,
                });
            }
            _ => {}
        }
    }

    // ---- variable names and types
    struct VarSrc<'b> {
        decl: &'b ast::VarDecl,
        name: String,
        name_span: Span,
        module: Option<usize>,
    }
    let mut var_srcs: Vec<VarSrc> = Vec::new();
    for it in &file.items {
        if let Item::Global(v) = it {
            var_srcs.push(VarSrc {
                decl: v,
                name: v.name.name.clone(),
                name_span: v.name.span,
                module: None,
            });
        }
    }
    for (mi, m) in srcs.iter().enumerate() {
        for v in &m.base.vars {
            if m.rename
                .as_ref()
                .is_some_and(|r| !r.contains_key(&v.name.name))
            {
                continue; // reported above: not renamed
            }
            let name = m
                .rename
                .as_ref()
                .and_then(|r| r.get(&v.name.name))
                .cloned()
                .unwrap_or_else(|| v.name.name.clone());
            let name_span = if m.rename.is_some() {
                m.span
            } else {
                v.name.span
            };
            var_srcs.push(VarSrc {
                decl: v,
                name,
                name_span,
                module: Some(mi),
            });
        }
    }
    let mut names: HashMap<String, (Span, &'static str)> = HashMap::new();
    for c in &ck.r.consts {
        names.entry(c.name.clone()).or_insert((c.span, "constant"));
    }
    for f in &formulas {
        claim_name(&mut ck.r, &mut names, &f.name, f.span, "formula");
    }
    let mut variables: Vec<Variable> = Vec::new();
    for vs in &var_srcs {
        claim_name(&mut ck.r, &mut names, &vs.name, vs.name_span, "variable");
        let ty = match vs.decl.ty {
            VarType::Bool => Type::Bool,
            VarType::Range(..) => Type::Int,
            VarType::Int => {
                ck.err(
                    Error::new(
                        format!("unbounded integer variable `{}`", vs.name),
                        vs.decl.span,
                        "needs a range",
                    )
                    .with_help("declare a range, e.g. `x : [0..10];`"),
                );
                Type::Int
            }
            VarType::Clock => {
                ck.err(Error::new(
                    format!("clock variable `{}`: PTA models are not supported", vs.name),
                    vs.decl.span,
                    "clock",
                ));
                Type::Int
            }
        };
        let index = ck.r.vars.len();
        ck.r.vars.push((vs.name.clone(), ty));
        ck.r.var_map.entry(vs.name.clone()).or_insert(index);
        variables.push(Variable {
            name: vs.name.clone(),
            kind: VarKind::Bool,
            bounds: None,
            init: None,
            module: vs.module,
            span: vs.decl.name.span,
        });
    }

    // ---- evaluate every constant
    for i in 0..ck.r.consts.len() {
        let s = ck.r.consts[i].span;
        ck.r.eval_const(i, s);
    }

    let has_init_block = file.items.iter().any(|i| matches!(i, Item::Init(..)));

    // ---- variable ranges and initial values
    for (vi, vs) in var_srcs.iter().enumerate() {
        let rename = vs.module.and_then(|m| srcs[m].rename.as_ref());
        let sc = Scope {
            rename,
            ..Scope::constants()
        };
        let d = vs.decl;
        let mut kind = VarKind::Bool;
        let mut bounds = None;
        if let VarType::Range(lo, hi) = &d.ty {
            let lo2 = ck.resolve_as(lo, sc, Type::Int, "the lower bound of a variable range");
            let hi2 = ck.resolve_as(hi, sc, Type::Int, "the upper bound of a variable range");
            if let (Some(lo2), Some(hi2)) = (lo2, hi2) {
                if let (Some(Value::Int(l)), Some(Value::Int(h))) =
                    (Value::of_expr(&lo2), Value::of_expr(&hi2))
                {
                    if l > h {
                        ck.err(Error::new(
                            format!("empty range [{l}..{h}] for variable `{}`", vs.name),
                            lo.span.to(hi.span),
                            "lower bound above upper bound",
                        ));
                    } else {
                        bounds = Some((l, h));
                    }
                }
                kind = VarKind::Int { lo: lo2, hi: hi2 };
            }
        }
        let ty = ck.r.vars[vi].1;
        let init = match &d.init {
            Some(i) => {
                if has_init_block {
                    ck.err(Error::new(
                        format!("variable `{}` has an initial value but the model has an `init ... endinit` block", vs.name),
                        i.span,
                        "remove this `init`",
                    ));
                    None
                } else {
                    let what = format!("the initial value of `{}`", vs.name);
                    let v = ck.resolve_as(
                        i,
                        sc,
                        if ty == Type::Bool {
                            Type::Bool
                        } else {
                            Type::Int
                        },
                        &what,
                    );
                    if let (Some(v), Some((l, h))) = (&v, bounds) {
                        if let Some(Value::Int(x)) = Value::of_expr(v) {
                            if x < l || x > h {
                                ck.err(Error::new(
                                    format!(
                                        "initial value {x} of `{}` is outside its range [{l}..{h}]",
                                        vs.name
                                    ),
                                    i.span,
                                    "out of range",
                                ));
                            }
                        }
                    }
                    v
                }
            }
            None if has_init_block => None,
            None => Some(match &kind {
                VarKind::Bool => Expr::new(ExprKind::Bool(false), d.span),
                VarKind::Int { lo, .. } => lo.clone(),
            }),
        };
        variables[vi].kind = kind;
        variables[vi].bounds = bounds;
        variables[vi].init = init;
    }

    // ---- modules: commands
    let mut module_vars: Vec<Vec<usize>> = vec![Vec::new(); srcs.len()];
    for (i, v) in variables.iter().enumerate() {
        if let Some(m) = v.module {
            module_vars[m].push(i);
        }
    }
    let mut modules = Vec::new();
    for (mi, m) in srcs.iter().enumerate() {
        let rename = m.rename.as_ref();
        let sc = Scope {
            rename,
            ..Scope::model()
        };
        let mut commands = Vec::new();
        let mut alphabet = BTreeSet::new();
        for c in &m.base.commands {
            let action = c.action.as_ref().map(|a| {
                let n = rename
                    .and_then(|r| r.get(&a.name))
                    .cloned()
                    .unwrap_or_else(|| a.name.clone());
                ck.action(&n)
            });
            if let Some(a) = action {
                alphabet.insert(a);
            }
            let guard = ck.resolve_as(&c.guard, sc, Type::Bool, "a guard");
            let mut updates = Vec::new();
            for u in &c.updates {
                let prob = match &u.prob {
                    Some(p) => {
                        let what = if model_type.map(|t| t.0) == Some(ModelType::Ctmc) {
                            "a rate"
                        } else {
                            "a probability"
                        };
                        let x = ck.resolve_as(p, sc, Type::Double, what);
                        if let Some(v) =
                            x.as_ref().and_then(Value::of_expr).and_then(|v| v.as_f64())
                        {
                            if v < 0.0 {
                                ck.err(Error::new(
                                    format!("negative {what} {v}"),
                                    p.span,
                                    "must be >= 0",
                                ));
                            }
                        }
                        x
                    }
                    None => Some(Expr::new(ExprKind::Int(1), u.span)),
                };
                let mut assigns: Vec<(usize, Expr)> = Vec::new();
                for a in &u.assigns {
                    let vname = rename
                        .and_then(|r| r.get(&a.var.name))
                        .cloned()
                        .unwrap_or_else(|| a.var.name.clone());
                    let Some(&vi) = ck.r.var_map.get(&vname) else {
                        let msg = if ck.r.const_map.contains_key(&vname) {
                            format!("cannot assign to constant `{vname}`")
                        } else {
                            format!("undefined variable `{vname}`")
                        };
                        ck.err(Error::new(msg, a.var.span, "not a variable"));
                        continue;
                    };
                    if let Some(owner) = variables[vi].module {
                        if owner != mi {
                            ck.err(Error::new(
                                format!(
                                    "module `{}` cannot change variable `{vname}` of module `{}`",
                                    m.name.name, srcs[owner].name.name
                                ),
                                a.var.span,
                                "belongs to another module",
                            ));
                            continue;
                        }
                    }
                    if assigns.iter().any(|(x, _)| *x == vi) {
                        ck.err(Error::new(
                            format!("variable `{vname}` is assigned twice in one update"),
                            a.var.span,
                            "assigned again here",
                        ));
                        continue;
                    }
                    let ty = variables[vi].ty();
                    let what = format!("the new value of `{vname}`");
                    let Some(val) = ck.resolve_as(
                        &a.value,
                        sc,
                        if ty == Type::Bool {
                            Type::Bool
                        } else {
                            Type::Int
                        },
                        &what,
                    ) else {
                        continue;
                    };
                    if let (Some(Value::Int(x)), Some((l, h))) =
                        (Value::of_expr(&val), variables[vi].bounds)
                    {
                        if x < l || x > h {
                            ck.err(Error::new(
                                format!("value {x} is outside the range [{l}..{h}] of `{vname}`"),
                                a.value.span,
                                "out of range",
                            ));
                        }
                    }
                    assigns.push((vi, val));
                }
                if let Some(prob) = prob {
                    updates.push(Update {
                        prob,
                        assigns,
                        span: u.span,
                    });
                }
            }
            // probabilities (not rates) that are all known must sum to 1
            let is_ctmc = model_type.map(|t| t.0) == Some(ModelType::Ctmc);
            if !is_ctmc && updates.len() == c.updates.len() {
                let vals: Option<Vec<f64>> = updates
                    .iter()
                    .map(|u| Value::of_expr(&u.prob).and_then(|v| v.as_f64()))
                    .collect();
                if let Some(vals) = vals {
                    let sum: f64 = vals.iter().sum();
                    if (sum - 1.0).abs() > 1e-6 {
                        let span = c
                            .updates
                            .first()
                            .map_or(c.span, |u| u.span)
                            .to(c.updates.last().map_or(c.span, |u| u.span));
                        ck.err(
                            Error::new(format!("the probabilities of this command sum to {sum}, not 1"), span, "these branches")
                                .with_help("in a dtmc or mdp the branch probabilities must add up to 1 (rates are for ctmc)"),
                        );
                    }
                }
            }
            if let Some(guard) = guard {
                commands.push(Command {
                    action,
                    guard,
                    updates,
                    span: c.span,
                });
            }
        }
        let vars = std::mem::take(&mut module_vars[mi]);
        modules.push(Module {
            name: m.name.name.clone(),
            vars,
            commands,
            alphabet: alphabet.into_iter().collect(),
            renamed_from: m.renamed_from.clone(),
            span: m.span,
        });
    }

    // ---- labels
    let mut labels: Vec<Label> = Vec::new();
    let mut label_spans: HashMap<String, Span> = HashMap::new();
    for it in &file.items {
        if let Item::Label(l) = it {
            if l.name.name == "init" || l.name.name == "deadlock" {
                ck.err(Error::new(
                    format!(
                        "`\"{}\"` is a built-in label and cannot be redefined",
                        l.name.name
                    ),
                    l.name.span,
                    "reserved label",
                ));
                continue;
            }
            if let Some(&ps) = label_spans.get(&l.name.name) {
                ck.err(
                    Error::new(
                        format!("duplicate label `\"{}\"`", l.name.name),
                        l.name.span,
                        "declared again here",
                    )
                    .with_related(ps, "first declared here"),
                );
                continue;
            }
            label_spans.insert(l.name.name.clone(), l.name.span);
            if let Some(e) = ck.resolve_as(&l.expr, Scope::model(), Type::Bool, "a label") {
                labels.push(Label {
                    name: l.name.name.clone(),
                    expr: e,
                    span: l.name.span,
                });
            }
        }
    }

    // ---- rewards
    let mut rewards: Vec<RewardStruct> = Vec::new();
    let mut reward_spans: HashMap<String, Span> = HashMap::new();
    for it in &file.items {
        if let Item::Rewards(rs) = it {
            if let Some(n) = &rs.name {
                if let Some(&ps) = reward_spans.get(&n.name) {
                    ck.err(
                        Error::new(
                            format!("duplicate reward structure `\"{}\"`", n.name),
                            n.span,
                            "declared again here",
                        )
                        .with_related(ps, "first declared here"),
                    );
                }
                reward_spans.entry(n.name.clone()).or_insert(n.span);
            }
            let mut out = RewardStruct {
                name: rs.name.as_ref().map(|n| n.name.clone()),
                state: vec![],
                trans: vec![],
                span: rs.span,
            };
            for item in &rs.items {
                let g = ck.resolve_as(&item.guard, Scope::model(), Type::Bool, "a reward guard");
                let v = ck.resolve_as(&item.value, Scope::model(), Type::Double, "a reward value");
                let (Some(guard), Some(value)) = (g, v) else {
                    continue;
                };
                match &item.action {
                    None => out.state.push(StateReward { guard, value }),
                    Some(a) => {
                        let action = a.as_ref().map(|a| ck.action(&a.name));
                        out.trans.push(TransReward {
                            action,
                            guard,
                            value,
                        })
                    }
                }
            }
            rewards.push(out);
        }
    }

    // ---- init block
    let mut init = None;
    for it in &file.items {
        if let Item::Init(e, s) = it {
            if init.is_some() {
                ck.err(Error::new(
                    "more than one `init ... endinit` block",
                    *s,
                    "second block",
                ));
                continue;
            }
            init = ck.resolve_as(e, Scope::model(), Type::Bool, "the initial states");
        }
    }

    // ---- system
    let mut system = None;
    let mut seen_system = false;
    for it in &file.items {
        if let Item::System(s, span) = it {
            if seen_system {
                ck.err(Error::new(
                    "more than one `system ... endsystem` block",
                    *span,
                    "second block",
                ));
                continue;
            }
            seen_system = true;
            let mut used = vec![false; modules.len()];
            let sys = resolve_system(&mut ck, s, &modules, &mut used);
            if let Some(sys) = sys {
                let missing: Vec<&str> = used
                    .iter()
                    .zip(&modules)
                    .filter(|(u, _)| !**u)
                    .map(|(_, m)| m.name.as_str())
                    .collect();
                if !missing.is_empty() {
                    ck.err(Error::new(
                        format!(
                            "module(s) {} do not appear in the system composition",
                            missing.join(", ")
                        ),
                        *span,
                        "incomplete composition",
                    ));
                }
                system = Some(sys);
            }
        }
    }
    let _ = ck.file;

    if modules.is_empty() && ck.r.errors.is_empty() {
        ck.err(Error::new(
            "the model has no modules",
            Span::new(0, 0),
            "expected at least one `module ... endmodule`",
        ));
    }

    if !ck.r.errors.is_empty() {
        return Err(Diagnostics {
            errors: std::mem::take(&mut ck.r.errors),
        }
        .with_source(source));
    }
    let constants = constants_of(&ck.r, 0..ck.r.consts.len());
    Ok(Program {
        model_type: model_type.map_or(ModelType::Mdp, |t| t.0),
        model_type_declared: model_type.is_some(),
        constants,
        variables,
        modules,
        actions: ck.actions,
        formulas,
        labels,
        rewards,
        init,
        system,
        overrides: overrides.clone(),
        source: source.clone(),
    })
}

fn resolve_system(
    ck: &mut Checker,
    s: &ast::SystemExpr,
    modules: &[Module],
    used: &mut [bool],
) -> Option<System> {
    let acts = |ck: &mut Checker, v: &[ast::Ident]| -> Vec<usize> {
        v.iter()
            .filter_map(|a| match ck.action_map.get(&a.name) {
                Some(&i) => Some(i),
                None => {
                    ck.err(Error::new(
                        format!("undefined action `{}`", a.name),
                        a.span,
                        "no command uses this action",
                    ));
                    None
                }
            })
            .collect()
    };
    Some(match &s.kind {
        SystemKind::Module(m) => {
            let Some(i) = modules.iter().position(|x| x.name == m.name) else {
                ck.err(Error::new(
                    format!("undefined module `{}`", m.name),
                    m.span,
                    "no such module",
                ));
                return None;
            };
            if used[i] {
                ck.err(Error::new(
                    format!(
                        "module `{}` appears twice in the system composition",
                        m.name
                    ),
                    m.span,
                    "used again here",
                ));
                return None;
            }
            used[i] = true;
            System::Module(i)
        }
        SystemKind::Par(op, l, r) => {
            let l2 = resolve_system(ck, l, modules, used);
            let r2 = resolve_system(ck, r, modules, used);
            let k = match op {
                ast::ParOp::Full => ParKind::Full,
                ast::ParOp::Interleave => ParKind::Interleave,
                ast::ParOp::Sync(a) => ParKind::Sync(acts(ck, a)),
            };
            System::Par(k, Box::new(l2?), Box::new(r2?))
        }
        SystemKind::Hide(e, a) => {
            let e2 = resolve_system(ck, e, modules, used)?;
            System::Hide(Box::new(e2), acts(ck, a))
        }
        SystemKind::Rename(e, pairs) => {
            let e2 = resolve_system(ck, e, modules, used)?;
            let mut out = Vec::new();
            for (a, b) in pairs {
                let from = acts(ck, std::slice::from_ref(a));
                let to = ck.action(&b.name);
                if let Some(&f) = from.first() {
                    out.push((f, to));
                }
            }
            System::Rename(Box::new(e2), out)
        }
    })
}
