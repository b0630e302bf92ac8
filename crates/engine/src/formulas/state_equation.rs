//! The state equation (issue 49, item 3): every reachable marking `m` of a net with incidence
//! matrix `C` is `m = m0 + C·x` for the firing counts `x >= 0`, and `m >= 0`. Its real
//! relaxation over-approximates the reachable markings, as the contest's leading tools use it
//! (LoLA, TAPAAL, ITS-Tools: `LINEAR_EQUATIONS`), whatever the inhibitor arcs (they only
//! remove behaviour):
//! - a target `φ` of `EF φ` / `AG ¬φ` is unreachable when no marking of the relaxation meets
//!   it ([`unreachable`]): `φ`, pushed to its atoms, is widened to a disjunction of
//!   conjunctions of linear rows `g·m >= h` ([`Dnf`]), and each conjunction is shown empty;
//! - an UpperBounds expression `c·m` is at most `max c·m` over the relaxation ([`bound`]).
//!
//! Both are answered by a linear program solved in floating point (the `microlp` crate), but
//! no answer rests on its arithmetic: each comes with a certificate that is checked in exact
//! integer arithmetic, and a certificate that does not check is no answer. By Farkas' lemma, a
//! conjunction `G·m >= h` is empty on the relaxation iff some `u >= 0` (one per place) and
//! `v >= 0` (one per row) give `y = u + Gᵀv` with `yᵀC <= 0` and `y·m0 < v·h`: every
//! reachable marking has `y·m <= y·m0` (firing only lowers `y·m`), and every marking of the
//! conjunction has `y·m = u·m + v·G·m >= v·h`. A bound is `y·m0` for any `y >= c` with
//! `yᵀC <= 0`, since `c·m <= y·m <= y·m0`. The linear programs look for the best such `u, v`
//! (or `y`); their values, scaled by a small denominator and rounded to integers, are the
//! certificate.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem, SolveOutcome};
use saturn_logic::{Atom, CmpOp, LinExpr, StateFormula};
use saturn_model::PetriNet;

/// One linear row `Σ coef·m(place) >= rhs` (terms sorted by place, no zero coefficient).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub terms: Vec<(usize, i64)>,
    pub rhs: i128,
}

impl Row {
    /// Does `m` meet the row?
    pub fn holds(&self, m: &[u64]) -> bool {
        let lhs: i128 = self
            .terms
            .iter()
            .map(|&(p, c)| i128::from(c) * i128::from(m[p]))
            .sum();
        lhs >= self.rhs
    }
}

/// A disjunction of conjunctions of rows: `vec![vec![]]` is `true`, `vec![]` is `false`.
pub type Dnf = Vec<Vec<Row>>;

/// The most conjunctions a [`Dnf`] holds: past it, a conjunction drops a factor and a
/// disjunction becomes `true` (both widen the set, so what is shown empty stays empty).
const MOST_CONJUNCTIONS: usize = 32;

/// The incidence matrix by transition: `(place, post - pre)`, sorted, no zeros.
pub struct Incidence {
    columns: Vec<Vec<(usize, i64)>>,
    /// The transition of each column (transitions that change nothing have none).
    of: Vec<usize>,
    transitions: usize,
    m0: Vec<i128>,
    places: usize,
    /// Per place: a proven bound on its tokens in every reachable marking (`None`: unknown),
    /// for the box check of [`outside`] before any program.
    pub bounds: Vec<Option<u64>>,
}

impl Incidence {
    /// `None` when a weight does not fit an `i64`.
    pub fn new(net: &PetriNet) -> Option<Incidence> {
        let mut columns = Vec::with_capacity(net.transitions.len());
        let mut of = Vec::with_capacity(net.transitions.len());
        for (i, t) in net.transitions.iter().enumerate() {
            let mut col: Vec<(usize, i64)> = Vec::new();
            for a in &t.inputs {
                col.push((a.place, -i64::try_from(a.weight).ok()?));
            }
            for a in &t.outputs {
                col.push((a.place, i64::try_from(a.weight).ok()?));
            }
            col.sort_unstable();
            let mut merged: Vec<(usize, i64)> = Vec::with_capacity(col.len());
            for (p, w) in col {
                match merged.last_mut() {
                    Some((q, v)) if *q == p => *v = v.checked_add(w)?,
                    _ => merged.push((p, w)),
                }
            }
            merged.retain(|&(_, w)| w != 0);
            if !merged.is_empty() {
                columns.push(merged);
                of.push(i);
            }
        }
        Some(Incidence {
            columns,
            of,
            transitions: net.transitions.len(),
            m0: net.places.iter().map(|p| i128::from(p.initial)).collect(),
            places: net.places.len(),
            bounds: vec![None; net.places.len()],
        })
    }
}

/// The rows of `lhs op bound` (its negation when `neg`), as a disjunction.
fn atom(a: &Atom, neg: bool) -> Dnf {
    let op = if neg {
        match a.op {
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Gt => CmpOp::Le,
        }
    } else {
        a.op
    };
    let k = i128::from(a.bound);
    let ge = |rhs: i128| Row {
        terms: a.lhs.terms.clone(),
        rhs,
    };
    let le = |k: i128| Row {
        terms: a.lhs.terms.iter().map(|&(p, c)| (p, -c)).collect(),
        rhs: -k,
    };
    // token counts are integers: `< k` is `<= k - 1`
    match op {
        CmpOp::Ge => vec![vec![ge(k)]],
        CmpOp::Gt => vec![vec![ge(k + 1)]],
        CmpOp::Le => vec![vec![le(k)]],
        CmpOp::Lt => vec![vec![le(k - 1)]],
        CmpOp::Eq => vec![vec![ge(k), le(k)]],
        CmpOp::Ne => vec![vec![le(k - 1)], vec![ge(k + 1)]],
    }
}

/// `m(p) >= w` (or `<= w - 1` when `below`).
fn place_row(p: usize, w: u64, below: bool) -> Row {
    let w = i128::from(w);
    if below {
        Row {
            terms: vec![(p, -1)],
            rhs: 1 - w,
        }
    } else {
        Row {
            terms: vec![(p, 1)],
            rhs: w,
        }
    }
}

/// `a ∧ b`, widened (a factor dropped) past [`MOST_CONJUNCTIONS`].
fn and(a: Dnf, b: Dnf) -> Dnf {
    if a.len().saturating_mul(b.len()) > MOST_CONJUNCTIONS {
        return if a.len() <= b.len() { a } else { b };
    }
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in &a {
        for y in &b {
            out.push(x.iter().chain(y).cloned().collect());
        }
    }
    out
}

/// `a ∨ b`, widened to `true` past [`MOST_CONJUNCTIONS`].
fn or(mut a: Dnf, b: Dnf) -> Dnf {
    if a.len() + b.len() > MOST_CONJUNCTIONS {
        return vec![vec![]];
    }
    a.extend(b);
    a
}

/// "Some transition of `ts` is enabled" (its negation when `neg`).
fn enabled(net: &PetriNet, ts: &[usize], neg: bool) -> Dnf {
    let conj = |t: usize| -> Dnf {
        let tr = &net.transitions[t];
        let rows = tr
            .inputs
            .iter()
            .map(|a| place_row(a.place, a.weight, false));
        let inhib = tr
            .inhibitors
            .iter()
            .map(|a| place_row(a.place, a.weight, true));
        vec![rows.chain(inhib).collect()]
    };
    let disabled = |t: usize| -> Dnf {
        let tr = &net.transitions[t];
        let rows = tr
            .inputs
            .iter()
            .map(|a| vec![place_row(a.place, a.weight, true)]);
        let inhib = tr
            .inhibitors
            .iter()
            .map(|a| vec![place_row(a.place, a.weight, false)]);
        let d: Dnf = rows.chain(inhib).collect();
        if d.len() > MOST_CONJUNCTIONS {
            vec![vec![]]
        } else {
            d
        }
    };
    if neg {
        ts.iter()
            .fold(vec![vec![]], |acc, &t| and(acc, disabled(t)))
    } else {
        ts.iter().fold(vec![], |acc, &t| or(acc, conj(t)))
    }
}

/// A [`Dnf`] that holds in every marking where `f` holds (`¬f` when `neg`): exact for small
/// formulas free of temporal operators, wider past [`MOST_CONJUNCTIONS`] (a temporal operator
/// is `true`).
pub fn widen(net: &PetriNet, f: &StateFormula, neg: bool) -> Dnf {
    use StateFormula as S;
    match f {
        S::Const(b) => {
            if *b != neg {
                vec![vec![]]
            } else {
                vec![]
            }
        }
        S::Atom(a) => atom(a, neg),
        S::Enabled(ts) => enabled(net, ts, neg),
        S::Deadlock => {
            let all: Vec<usize> = (0..net.transitions.len()).collect();
            enabled(net, &all, !neg)
        }
        S::Not(a) => widen(net, a, !neg),
        S::And(v) if !neg => v
            .iter()
            .fold(vec![vec![]], |acc, g| and(acc, widen(net, g, false))),
        S::Or(v) if neg => v
            .iter()
            .fold(vec![vec![]], |acc, g| and(acc, widen(net, g, true))),
        S::And(v) | S::Or(v) => v.iter().fold(vec![], |acc, g| or(acc, widen(net, g, neg))),
        S::Implies(a, b) => {
            if neg {
                and(widen(net, a, false), widen(net, b, true))
            } else {
                or(widen(net, a, true), widen(net, b, false))
            }
        }
        S::Iff(a, b) => {
            let (pa, na) = (widen(net, a, false), widen(net, a, true));
            let (pb, nb) = (widen(net, b, false), widen(net, b, true));
            if neg {
                or(and(pa, nb), and(na, pb))
            } else {
                or(and(pa, pb), and(na, nb))
            }
        }
        _ => vec![vec![]],
    }
}

/// The denominators a certificate's values are scaled by before rounding: a vertex of these
/// programs has small denominators on the nets met in practice.
const DENOMINATORS: [i128; 12] = [1, 2, 3, 4, 5, 6, 8, 10, 12, 24, 60, 840];

/// Solve `p` within `time`, catching the solver's panics: the values of the variables, or
/// `None` (infeasible, unbounded, out of time or a failure of the solver).
fn solve(mut p: Problem, vars: &[microlp::Variable], time: Duration) -> Option<Vec<f64>> {
    let got = catch_unwind(AssertUnwindSafe(move || {
        p.set_time_limit(time);
        match p.solve() {
            Ok(SolveOutcome::Solution(s)) => Some(vars.iter().map(|&v| s.var_value(v)).collect()),
            _ => None,
        }
    }));
    got.ok().flatten()
}

/// `Σ y_p·C[p][t] <= 0` for every transition `t`, exactly.
fn non_increasing(inc: &Incidence, y: &[i128]) -> bool {
    inc.columns.iter().all(|col| {
        col.iter()
            .try_fold(0i128, |s, &(p, c)| {
                s.checked_add(y[p].checked_mul(i128::from(c))?)
            })
            .is_some_and(|s| s <= 0)
    })
}

/// `Σ y_p·m0_p`, exactly (`None` on overflow).
fn weigh(y: &[i128], m0: &[i128]) -> Option<i128> {
    y.iter()
        .zip(m0)
        .try_fold(0i128, |s, (&a, &b)| s.checked_add(a.checked_mul(b)?))
}

/// `x·d` rounded to the nearest integer, `None` when it does not fit comfortably.
fn scaled(x: f64, d: i128) -> Option<i128> {
    let v = (x * d as f64).round();
    (v.is_finite() && v.abs() < 1e15).then_some(v as i128)
}

/// `g·C[.][t]`: the row's coefficients times the column's (both sorted by place).
fn row_times_column(r: &Row, col: &[(usize, i64)]) -> i128 {
    let (mut i, mut j, mut gc) = (0, 0, 0i128);
    while i < r.terms.len() && j < col.len() {
        match r.terms[i].0.cmp(&col[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                gc += i128::from(r.terms[i].1) * i128::from(col[j].1);
                i += 1;
                j += 1;
            }
        }
    }
    gc
}

/// Is the conjunction `rows` empty on the relaxation of the state equation? `true` only with
/// a checked certificate (see the module documentation); within `time`.
fn empty(inc: &Incidence, rows: &[Row], time: Duration) -> bool {
    if rows.is_empty() {
        return false;
    }
    let n = inc.places;
    let mut p = Problem::new(OptimizationDirection::Minimize);
    // u_p, cost m0_p
    let mut vars: Vec<microlp::Variable> = (0..n)
        .map(|q| p.add_var(inc.m0[q] as f64, (0.0, f64::INFINITY)))
        .collect();
    // v_r in [0, 1], cost g_r·m0 - h_r
    let costs: Vec<f64> = rows
        .iter()
        .map(|r| {
            let gm0: i128 = r
                .terms
                .iter()
                .map(|&(q, c)| i128::from(c) * inc.m0[q])
                .sum();
            (gm0 - r.rhs) as f64
        })
        .collect();
    for &cost in &costs {
        vars.push(p.add_var(cost, (0.0, 1.0)));
    }
    for col in &inc.columns {
        let mut e = LinearExpr::empty();
        let mut coef: std::collections::BTreeMap<usize, f64> = std::collections::BTreeMap::new();
        for &(q, c) in col {
            *coef.entry(q).or_default() += c as f64;
        }
        for (k, r) in rows.iter().enumerate() {
            let gc = row_times_column(r, col);
            if gc != 0 {
                *coef.entry(n + k).or_default() += gc as f64;
            }
        }
        for (v, c) in coef {
            if c != 0.0 {
                e.add(vars[v], c);
            }
        }
        p.add_constraint(e, ComparisonOp::Le, 0.0);
    }
    let Some(x) = solve(p, &vars, time) else {
        return false;
    };
    let objective: f64 = (0..n).map(|q| x[q] * inc.m0[q] as f64).sum::<f64>()
        + costs
            .iter()
            .enumerate()
            .map(|(k, c)| x[n + k] * c)
            .sum::<f64>();
    if objective >= -1e-7 {
        return false;
    }
    DENOMINATORS
        .iter()
        .any(|&d| certified(inc, rows, &x, d).unwrap_or(false))
}

/// The certificate of [`empty`] from the solver's values `x` scaled by `d`, checked exactly.
fn certified(inc: &Incidence, rows: &[Row], x: &[f64], d: i128) -> Option<bool> {
    let n = inc.places;
    let mut y = Vec::with_capacity(n);
    for &u in &x[..n] {
        y.push(scaled(u, d)?.max(0));
    }
    let mut vh = 0i128;
    for (k, r) in rows.iter().enumerate() {
        let v = scaled(x[n + k], d)?.max(0);
        if v == 0 {
            continue;
        }
        for &(q, c) in &r.terms {
            y[q] = y[q].checked_add(v.checked_mul(i128::from(c))?)?;
        }
        vh = vh.checked_add(v.checked_mul(r.rhs)?)?;
    }
    Some(non_increasing(inc, &y) && weigh(&y, &inc.m0)? < vh)
}

/// Is no marking that meets `dnf` reachable? `true` only when each conjunction is shown empty
/// on the relaxation with a checked certificate, within `time` in all (`false` as soon as
/// `stop` says so).
pub fn unreachable(inc: &Incidence, dnf: &Dnf, time: Duration, stop: &dyn Fn() -> bool) -> bool {
    let until = Instant::now() + time;
    dnf.iter().all(|rows| {
        let left = until.saturating_duration_since(Instant::now());
        outside(rows, &inc.bounds) || !stop() && !left.is_zero() && empty(inc, rows, left)
    })
}

/// Is the conjunction `rows` empty within the places' `bounds` (`0 <= m(p) <= bound`, `None`:
/// no bound)? Some row's largest value over that box is below its right-hand side: no linear
/// program needed, and exact.
pub fn outside(rows: &[Row], bounds: &[Option<u64>]) -> bool {
    rows.iter().any(|r| {
        let most = r.terms.iter().try_fold(0i128, |s, &(p, c)| {
            if c <= 0 {
                return Some(s);
            }
            let b = bounds.get(p).copied().flatten()?;
            s.checked_add(i128::from(c).checked_mul(i128::from(b))?)
        });
        most.is_some_and(|most| most < r.rhs)
    })
}

/// An upper bound of `expr` over the reachable markings, from the relaxation of the state
/// equation with a checked certificate (see the module documentation); `None` when the
/// program finds none within `time` or its certificate does not check.
pub fn bound(inc: &Incidence, expr: &LinExpr, time: Duration) -> Option<i128> {
    let n = inc.places;
    let mut c = vec![0i128; n];
    for &(q, k) in &expr.terms {
        *c.get_mut(q)? += i128::from(k);
    }
    // minimise (c + u)·m0 over u >= 0 with (c + u)ᵀC <= 0
    let mut p = Problem::new(OptimizationDirection::Minimize);
    let vars: Vec<microlp::Variable> = (0..n)
        .map(|q| p.add_var(inc.m0[q] as f64, (0.0, f64::INFINITY)))
        .collect();
    for col in &inc.columns {
        let mut e = LinearExpr::empty();
        let mut rhs = 0i128;
        for &(q, k) in col {
            e.add(vars[q], k as f64);
            rhs -= c[q] * i128::from(k);
        }
        p.add_constraint(e, ComparisonOp::Le, rhs as f64);
    }
    let x = solve(p, &vars, time)?;
    DENOMINATORS
        .iter()
        .filter_map(|&d| {
            let mut y = Vec::with_capacity(n);
            for q in 0..n {
                y.push(c[q].checked_mul(d)?.checked_add(scaled(x[q], d)?.max(0))?);
            }
            if !non_increasing(inc, &y) {
                return None;
            }
            let top = weigh(&y, &inc.m0)?;
            top.div_euclid(d).checked_add(i128::from(expr.constant))
        })
        .min()
}

/// A solution of the state equation that meets the conjunction `rows`, as firing counts by
/// transition (the relaxation's least total, each count rounded up), within `time`: the
/// guide of [`super::guided`]'s walks. `None` when the program has no solution in time. Not
/// a proof of anything: a count vector of the relaxation may have no firing sequence.
pub fn parikh(inc: &Incidence, rows: &[Row], time: Duration) -> Option<Vec<u64>> {
    let mut p = Problem::new(OptimizationDirection::Minimize);
    let vars: Vec<microlp::Variable> = inc
        .columns
        .iter()
        .map(|_| p.add_var(1.0, (0.0, f64::INFINITY)))
        .collect();
    // m0 + C·x >= 0, place by place
    let mut by_place: Vec<Vec<(usize, i64)>> = vec![Vec::new(); inc.places];
    for (c, col) in inc.columns.iter().enumerate() {
        for &(q, w) in col {
            by_place[q].push((c, w));
        }
    }
    for (q, terms) in by_place.iter().enumerate() {
        if terms.iter().all(|&(_, w)| w > 0) {
            continue;
        }
        let mut e = LinearExpr::empty();
        for &(c, w) in terms {
            e.add(vars[c], w as f64);
        }
        p.add_constraint(e, ComparisonOp::Ge, -(inc.m0[q] as f64));
    }
    // g·(m0 + C·x) >= h, row by row
    for r in rows {
        let gm0: i128 = r
            .terms
            .iter()
            .map(|&(q, c)| i128::from(c) * inc.m0[q])
            .sum();
        let mut e = LinearExpr::empty();
        for (c, col) in inc.columns.iter().enumerate() {
            let gc = row_times_column(r, col);
            if gc != 0 {
                e.add(vars[c], gc as f64);
            }
        }
        p.add_constraint(e, ComparisonOp::Ge, (r.rhs - gm0) as f64);
    }
    let x = solve(p, &vars, time)?;
    let mut counts = vec![0u64; inc.transitions];
    for (c, v) in x.into_iter().enumerate() {
        if !v.is_finite() || v > 1e12 {
            return None;
        }
        counts[inc.of[c]] = (v - 1e-6).ceil().max(0.0) as u64;
    }
    Some(counts)
}
