//! Translation of checked PRISM properties ([`saturn_prism::CheckedProperty`]) into the CTMC
//! crate's neutral formulas ([`saturn_ctmc::props::Csl`]): labels and references to named
//! properties inlined, state expressions lowered to the model's expressions, reward structures
//! resolved to their position. What the CTMC engine does not compute yet is an
//! [`Unsupported`] naming the operator.

use saturn_ctmc::props::{Csl, FilterOp as F, Rel, RewardPath as RP, RewardStructure};
use saturn_model::expr::{BinOp as B, Expr as ME, Real};
use saturn_prism::ast::ModelType;
use saturn_prism::ast::{
    Expr, ExprKind, FilterOp, Query, RelOp, RewardIndex, RewardPath, TempOp, TimeBound, UnOp,
};
use saturn_prism::lower::{bin_op, lower_expr};
use saturn_prism::{Program, PropertyFile, Source};

/// A property (or part of one) the engine does not compute yet, or cannot translate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

fn unsupported<T>(what: &str) -> Result<T, Unsupported> {
    Err(Unsupported(format!("{what}: not supported yet")))
}

/// The translator for one program and its property file.
pub struct Translator<'a> {
    pub prog: &'a Program,
    pub props: &'a PropertyFile,
    /// The property file's text, to name the place of a bad time bound.
    pub source: Option<&'a Source>,
}

/// Does `e` contain anything beyond a plain state expression (labels, property operators)?
fn is_plain(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Label(_)
        | ExprKind::PropRef { .. }
        | ExprKind::Prob(_)
        | ExprKind::Steady(_)
        | ExprKind::Reward(_)
        | ExprKind::Temporal(_)
        | ExprKind::PathQuant(..)
        | ExprKind::Filter(_) => false,
        _ => e.children().into_iter().all(is_plain),
    }
}

impl Translator<'_> {
    fn lower(&self, e: &Expr) -> Result<ME, Unsupported> {
        lower_expr(self.prog, e).map_err(|err| Unsupported(err.to_string()))
    }

    /// A constant number (a bound `p` of `P>=p`).
    fn constant(&self, e: &Expr) -> Result<f64, Unsupported> {
        let v = self
            .lower(e)?
            .eval(&[])
            .map_err(|err| Unsupported(format!("bound: {err}")))?;
        v.as_f64()
            .ok_or_else(|| Unsupported("a bound must be a number".into()))
    }

    fn bound(&self, q: &Query) -> Result<Option<(Rel, f64)>, Unsupported> {
        Ok(match q {
            Query::Value => None,
            Query::Bound(r, e) => {
                let r = match r {
                    RelOp::Lt => Rel::Lt,
                    RelOp::Le => Rel::Le,
                    RelOp::Gt => Rel::Gt,
                    RelOp::Ge => Rel::Ge,
                };
                Some((r, self.constant(e)?))
            }
        })
    }

    /// Is the model a DTMC (time bounds are numbers of steps)?
    fn discrete(&self) -> bool {
        self.prog.model_type == ModelType::Dtmc
    }

    /// A time bound: a constant, finite and non-negative; in a DTMC a whole number of steps.
    fn time(&self, e: &Expr) -> Result<f64, Unsupported> {
        let t = self.constant(e)?;
        if !(t >= 0.0 && t.is_finite()) {
            return Err(self.at(
                e,
                format!("a time bound must be finite and non-negative, got {t}"),
            ));
        }
        if self.discrete() && t.fract() != 0.0 {
            return Err(self.at(
                e,
                format!(
                    "a time bound of a dtmc is a whole number of steps, got {t} (non-integer \
                     bounds are for ctmc models)"
                ),
            ));
        }
        Ok(t)
    }

    /// `message` at the place of `e` in the property file (when its text is known).
    fn at(&self, e: &Expr, message: String) -> Unsupported {
        Unsupported(match self.source {
            Some(src) => {
                let (l, c) = src.line_col(e.span.start);
                format!("{}:{l}:{c}: {message}", src.name)
            }
            None => message,
        })
    }

    /// The interval `[lo, hi]` of a time bound (`None` when unbounded). In continuous time a
    /// strict bound means the same as the non-strict one (the chain is at a given instant
    /// with probability 0); in a DTMC `<k` is `<=k-1` and `>k` is `>=k+1`.
    fn time_window(&self, b: &TimeBound) -> Result<Option<(f64, f64)>, Unsupported> {
        let strict = if self.discrete() { 1.0 } else { 0.0 };
        Ok(match b {
            TimeBound::None => None,
            TimeBound::Le(t) => Some((0.0, self.time(t)?)),
            TimeBound::Lt(e) => {
                let t = self.time(e)?;
                if t < strict {
                    return Err(self.at(e, "the step bound <0 holds for no step".into()));
                }
                Some((0.0, t - strict))
            }
            TimeBound::Ge(t) => Some((self.time(t)?, f64::INFINITY)),
            TimeBound::Gt(t) => Some((self.time(t)? + strict, f64::INFINITY)),
            TimeBound::Eq(t) => {
                let t = self.time(t)?;
                Some((t, t))
            }
            TimeBound::Interval(a, b) => {
                let (a, b) = (self.time(a)?, self.time(b)?);
                if a > b {
                    return Err(Unsupported(format!("the time interval [{a},{b}] is empty")));
                }
                Some((a, b))
            }
        })
    }

    /// The reward structures of the program, lowered.
    pub fn rewards(&self) -> Result<Vec<RewardStructure>, Unsupported> {
        let mut out = Vec::new();
        for r in &self.prog.rewards {
            let mut s = RewardStructure {
                name: r.name.clone(),
                ..Default::default()
            };
            for i in &r.state {
                s.state.push((self.lower(&i.guard)?, self.lower(&i.value)?));
            }
            for i in &r.trans {
                s.trans
                    .push((i.action, self.lower(&i.guard)?, self.lower(&i.value)?));
            }
            out.push(s);
        }
        Ok(out)
    }

    fn reward_index(&self, idx: &Option<RewardIndex>) -> Result<usize, Unsupported> {
        let n = self.prog.rewards.len();
        let k = match idx {
            None => 0,
            Some(RewardIndex::Name(name)) => self
                .prog
                .rewards
                .iter()
                .position(|r| r.name.as_deref() == Some(name.as_str()))
                .ok_or_else(|| Unsupported(format!("no reward structure \"{name}\"")))?,
            Some(RewardIndex::Index(e)) => {
                let x = self.constant(e)?;
                if x < 1.0 || x.fract() != 0.0 {
                    return Err(Unsupported(format!("bad reward structure index {x}")));
                }
                x as usize - 1
            }
        };
        if k >= n {
            return Err(Unsupported(if n == 0 {
                "the model has no reward structure".into()
            } else {
                format!("reward structure {} does not exist", k + 1)
            }));
        }
        Ok(k)
    }

    /// Translate a property expression.
    pub fn csl(&self, e: &Expr) -> Result<Csl, Unsupported> {
        self.csl_at(e, 0)
    }

    fn csl_at(&self, e: &Expr, depth: usize) -> Result<Csl, Unsupported> {
        if depth > 64 {
            return unsupported("property references nested too deeply");
        }
        if is_plain(e) {
            return Ok(Csl::Expr(self.lower(e)?));
        }
        let rec = |x: &Expr| self.csl_at(x, depth + 1).map(Box::new);
        Ok(match &e.kind {
            ExprKind::Label(name) => match name.as_str() {
                "init" => Csl::Init,
                "deadlock" => Csl::Deadlock,
                _ => {
                    let l = self
                        .prog
                        .labels
                        .iter()
                        .chain(&self.props.labels)
                        .find(|l| l.name == *name)
                        .ok_or_else(|| Unsupported(format!("unknown label \"{name}\"")))?;
                    return self.csl_at(&l.expr, depth + 1);
                }
            },
            ExprKind::PropRef { index, name } => {
                let p = self
                    .props
                    .properties
                    .get(*index)
                    .ok_or_else(|| Unsupported(format!("unknown property \"{name}\"")))?;
                return self.csl_at(&p.expr, depth + 1);
            }
            ExprKind::Unary(UnOp::Not, a) => Csl::Not(rec(a)?),
            ExprKind::Unary(UnOp::Neg, a) => {
                Csl::Bin(B::Sub, Box::new(Csl::Expr(ME::Int(0))), rec(a)?)
            }
            ExprKind::Binary(op, a, b) => Csl::Bin(bin_op(*op), rec(a)?, rec(b)?),
            ExprKind::Prob(p) => {
                let bound = self.bound(&p.query)?;
                let ExprKind::Temporal(t) = &p.path.kind else {
                    return unsupported("a P operator whose path is not a temporal operator");
                };
                let window = self.time_window(&t.bound)?;
                let left = match t.op {
                    TempOp::Until => rec(t.left.as_ref().expect("U has a left operand"))?,
                    _ => Box::new(Csl::Expr(ME::Bool(true))),
                };
                match t.op {
                    TempOp::Until | TempOp::Finally => until(bound, left, rec(&t.right)?, window),
                    TempOp::Globally => {
                        // P(G a) = 1 - P(F !a), compared with p afterwards (interval
                        // arithmetic keeps the bounds: thesis 7.1)
                        let f = until(None, left, Box::new(Csl::Not(rec(&t.right)?)), window);
                        let g = Csl::Bin(B::Sub, Box::new(Csl::Expr(ME::Int(1))), Box::new(f));
                        match bound {
                            None => g,
                            Some((r, p)) => Csl::Bin(
                                match r {
                                    Rel::Lt => B::Lt,
                                    Rel::Le => B::Le,
                                    Rel::Gt => B::Gt,
                                    Rel::Ge => B::Ge,
                                },
                                Box::new(g),
                                Box::new(Csl::Expr(real(p))),
                            ),
                        }
                    }
                    TempOp::Next if window.is_none() => Csl::Next {
                        bound,
                        phi: rec(&t.right)?,
                    },
                    TempOp::Next => return unsupported("a time-bounded next (X<=t)"),
                    TempOp::WeakUntil => return unsupported("weak until (W)"),
                    TempOp::Release => return unsupported("release (R)"),
                }
            }
            ExprKind::Steady(s) => Csl::Steady {
                bound: self.bound(&s.query)?,
                phi: rec(&s.expr)?,
            },
            ExprKind::Reward(r) => {
                let structure = self.reward_index(&r.index)?;
                let path = match &r.path {
                    RewardPath::Steady => RP::Steady,
                    RewardPath::Reach(t) => RP::Reach(rec(t)?),
                    RewardPath::Cumulative(Some(t)) => RP::Cumulative(self.time(t)?),
                    RewardPath::Cumulative(None) => RP::Total,
                    RewardPath::Instant(t) => RP::Instant(self.time(t)?),
                };
                Csl::Reward {
                    bound: self.bound(&r.query)?,
                    structure,
                    path,
                }
            }
            ExprKind::Filter(f) => {
                let op = match f.op {
                    FilterOp::Min => F::Min,
                    FilterOp::Max => F::Max,
                    FilterOp::Sum => F::Sum,
                    FilterOp::Avg => F::Avg,
                    FilterOp::Count => F::Count,
                    FilterOp::First => F::First,
                    FilterOp::Range => F::Range,
                    FilterOp::Forall => F::Forall,
                    FilterOp::Exists => F::Exists,
                    FilterOp::State => F::State,
                    other => return unsupported(&format!("filter {}", other.name())),
                };
                Csl::Filter {
                    op,
                    prop: rec(&f.prop)?,
                    states: f.states.as_ref().map(rec).transpose()?,
                }
            }
            ExprKind::Temporal(_) => return unsupported("a path formula outside P"),
            ExprKind::PathQuant(..) => return unsupported("path quantifiers E/A"),
            _ => return unsupported("this operator over probabilities"),
        })
    }
}

/// `P [ left U right ]` over the time window `w` (`None`, or `[0, inf]`: unbounded).
fn until(bound: Option<(Rel, f64)>, left: Box<Csl>, right: Box<Csl>, w: Option<(f64, f64)>) -> Csl {
    match w {
        Some((lo, hi)) if !(lo == 0.0 && hi.is_infinite()) => Csl::TimedUntil {
            bound,
            left,
            right,
            lo,
            hi,
        },
        _ => Csl::Until { bound, left, right },
    }
}

fn real(p: f64) -> ME {
    ME::Real(Real::new(p))
}
