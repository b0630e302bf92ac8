//! Trap constraints (issue 49, item 3), as J. Esparza and S. Melzer add them to the state
//! equation ("Verification of safety properties using integer programming: beyond the state
//! equation", FMSD 16, 2000) and the contest's leading tools after them. A trap is a set `Q`
//! of places that every transition taking a token from `Q` also puts one into: once marked,
//! it stays marked, whatever the inhibitor arcs. So every reachable marking meets
//! `Σ_{p∈Q} m(p) >= 1` for a trap marked at first, while the relaxation of the state equation
//! may not: it fires cycles of transitions that no marking ever enables, borrowing the
//! tokens a trap would keep.
//!
//! When the relaxation meets a conjunction, [`refined`] takes a marking of it (the primal
//! program), looks for a trap marked at first and (nearly) empty there, adds the trap's row
//! to the conjunction and tries the certificate again, a few rounds. A row of a trap holds in
//! every reachable marking, so a conjunction shown empty with it is out of reach; the trap
//! is checked exactly ([`Arcs::is_marked_trap`]) before its row is added, and the certificate
//! as for any conjunction.

use std::time::Instant;

use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem};
use saturn_model::PetriNet;

use super::{empty, solve, Incidence, Row};

/// The rounds of [`refined`]: each adds one trap.
const ROUNDS: usize = 8;

/// The arcs of a net, by transition and by place (indices into the net's).
pub(super) struct Arcs {
    /// Per transition: the places it takes tokens from.
    inputs: Vec<Vec<usize>>,
    /// Per transition: the places it puts tokens into.
    outputs: Vec<Vec<usize>>,
    /// Per place: the transitions that put tokens into it.
    producers: Vec<Vec<usize>>,
    /// Per place: its tokens at first.
    initial: Vec<u64>,
}

impl Arcs {
    pub(super) fn new(net: &PetriNet) -> Arcs {
        let arcs = |v: &[saturn_model::Arc]| -> Vec<usize> {
            v.iter().filter(|a| a.weight > 0).map(|a| a.place).collect()
        };
        let inputs: Vec<Vec<usize>> = net.transitions.iter().map(|t| arcs(&t.inputs)).collect();
        let outputs: Vec<Vec<usize>> = net.transitions.iter().map(|t| arcs(&t.outputs)).collect();
        let mut producers = vec![Vec::new(); net.places.len()];
        for (t, out) in outputs.iter().enumerate() {
            for &p in out {
                producers[p].push(t);
            }
        }
        Arcs {
            inputs,
            outputs,
            producers,
            initial: net.places.iter().map(|p| p.initial).collect(),
        }
    }

    /// The largest trap within the places `within` (by place), sorted: places are taken out
    /// while some transition takes from them and puts into none of those left.
    pub(super) fn maximal_trap(&self, within: &[bool]) -> Vec<usize> {
        let mut inside = within.to_vec();
        // per transition: its output places still inside
        let mut left: Vec<usize> = self
            .outputs
            .iter()
            .map(|out| out.iter().filter(|&&q| inside[q]).count())
            .collect();
        let mut gone: Vec<usize> = Vec::new();
        let out = |p: usize, inside: &mut Vec<bool>, gone: &mut Vec<usize>| {
            if inside[p] {
                inside[p] = false;
                gone.push(p);
            }
        };
        for (t, &n) in left.iter().enumerate() {
            if n == 0 {
                for &p in &self.inputs[t] {
                    out(p, &mut inside, &mut gone);
                }
            }
        }
        while let Some(p) = gone.pop() {
            for &t in &self.producers[p] {
                left[t] -= 1;
                if left[t] == 0 {
                    for &q in &self.inputs[t] {
                        out(q, &mut inside, &mut gone);
                    }
                }
            }
        }
        (0..inside.len()).filter(|&p| inside[p]).collect()
    }

    /// Is `q` (sorted) a trap with a token at first? Checked arc by arc.
    pub(super) fn is_marked_trap(&self, q: &[usize]) -> bool {
        let mut inside = vec![false; self.initial.len()];
        for &p in q {
            inside[p] = true;
        }
        let marked = q.iter().any(|&p| self.initial[p] > 0);
        let closed =
            self.inputs.iter().zip(&self.outputs).all(|(ins, outs)| {
                !ins.iter().any(|&p| inside[p]) || outs.iter().any(|&p| inside[p])
            });
        !q.is_empty() && marked && closed
    }
}

/// Is the conjunction `rows` empty on the relaxation strengthened by traps (see the module
/// documentation)? `true` only with a checked certificate; until `until` or `stop`.
pub(super) fn refined(
    inc: &Incidence,
    rows: &[Row],
    until: Instant,
    stop: &dyn Fn() -> bool,
) -> bool {
    let mut rows = rows.to_vec();
    for _ in 0..ROUNDS {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() || stop() {
            return false;
        }
        let Some(m) = marking(inc, &rows, left) else {
            return false;
        };
        let Some(q) = empty_trap(&inc.arcs, &m) else {
            return false;
        };
        rows.push(Row {
            terms: q.iter().map(|&p| (p, 1)).collect(),
            rhs: 1,
        });
        let left = until.saturating_duration_since(Instant::now());
        if !left.is_zero() && empty(inc, &rows, left) {
            return true;
        }
    }
    false
}

/// A trap marked at first whose places hold less than one token in all in `m` (a marking of
/// the relaxation), if some is found: the largest trap among the places below one token, else
/// among the empty ones.
fn empty_trap(arcs: &Arcs, m: &[f64]) -> Option<Vec<usize>> {
    [1.0 - 1e-6, 1e-6].into_iter().find_map(|below| {
        let within: Vec<bool> = m.iter().map(|&x| x < below).collect();
        let q = arcs.maximal_trap(&within);
        let held: f64 = q.iter().map(|&p| m[p]).sum();
        (held < 1.0 - 1e-6 && arcs.is_marked_trap(&q)).then_some(q)
    })
}

/// A marking of the relaxation that meets `rows`: `m = m0 + C·x`, `m, x >= 0`, with the
/// least firing `Σ x`; `None` when the solver finds none within `time`.
fn marking(inc: &Incidence, rows: &[Row], time: std::time::Duration) -> Option<Vec<f64>> {
    let n = inc.places;
    let mut p = Problem::new(OptimizationDirection::Minimize);
    let mut vars: Vec<microlp::Variable> = (0..n)
        .map(|_| p.add_var(0.0, (0.0, f64::INFINITY)))
        .collect();
    let mut by_place: Vec<LinearExpr> = vars
        .iter()
        .map(|&v| {
            let mut e = LinearExpr::empty();
            e.add(v, 1.0);
            e
        })
        .collect();
    for col in &inc.columns {
        let x = p.add_var(1.0, (0.0, f64::INFINITY));
        for &(q, c) in col {
            by_place[q].add(x, -(c as f64));
        }
    }
    for (q, e) in by_place.into_iter().enumerate() {
        p.add_constraint(e, ComparisonOp::Eq, inc.m0[q] as f64);
    }
    for r in rows {
        let mut e = LinearExpr::empty();
        for &(q, c) in &r.terms {
            e.add(vars[q], c as f64);
        }
        p.add_constraint(e, ComparisonOp::Ge, r.rhs as f64);
    }
    vars.truncate(n);
    solve(p, &vars, time)
}

#[cfg(test)]
mod tests {
    use super::super::{empty, unreachable, Incidence, Row};
    use super::Arcs;
    use saturn_model::PetriNet;
    use std::time::Duration;

    /// `t: p + a -> q + b`, `u: q -> p`, one token in `a`: `t` never fires, yet the relaxation
    /// fires `t` and `u` once each and reaches `b = 1`. `{p, q, a}` is a trap marked at first.
    fn borrowing() -> PetriNet {
        // p, q, a, b
        let t = (vec![(0, 1), (2, 1)], vec![(1, 1), (3, 1)], vec![]);
        let u = (vec![(1, 1)], vec![(0, 1)], vec![]);
        saturn_reference::strategies::petri_net(&[0, 0, 1, 0], vec![t, u])
    }

    #[test]
    fn the_largest_trap_within_a_set_of_places() {
        let arcs = Arcs::new(&borrowing());
        // all places: a trap (every transition puts a token somewhere)
        assert_eq!(arcs.maximal_trap(&[true; 4]), vec![0, 1, 2, 3]);
        // without b: t still puts into q
        assert_eq!(arcs.maximal_trap(&[true, true, true, false]), vec![0, 1, 2]);
        assert!(arcs.is_marked_trap(&[0, 1, 2]));
        // without q: u takes from q... q is out; t takes from p and a, puts into b (out):
        // p and a go, nothing is left
        assert!(arcs.maximal_trap(&[true, false, true, false]).is_empty());
        // {p, q} is a trap, but empty at first
        assert_eq!(arcs.maximal_trap(&[true, true, false, false]), vec![0, 1]);
        assert!(!arcs.is_marked_trap(&[0, 1]));
        // {a} alone is no trap: t takes from it and puts into neither
        assert!(!arcs.is_marked_trap(&[2]));
    }

    #[test]
    fn a_trap_shows_out_of_reach_what_the_relaxation_reaches() {
        let inc = Incidence::new(&borrowing()).expect("small weights");
        let target = vec![Row {
            terms: vec![(3, 1)],
            rhs: 1,
        }];
        let time = Duration::from_secs(10);
        // the relaxation alone reaches b = 1 (t and u once each)
        assert!(!empty(&inc, &target, time));
        assert!(unreachable(&inc, &vec![target], time, &|| false));
        // b = 0 is reached (at first): no trap makes it unreachable
        let zero = vec![Row {
            terms: vec![(3, -1)],
            rhs: 0,
        }];
        assert!(!unreachable(&inc, &vec![zero], time, &|| false));
    }
}
