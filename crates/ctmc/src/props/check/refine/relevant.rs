//! The states where each subformula matters to the answer (thesis 7.2: "only where the
//! outer decision needs them"; see [`super`]): computed from the top before each step of
//! refinement, so that a subformula none of whose relevant states is undecided is not refined.

use std::rc::Rc;

use saturn_model::expr::{BinOp, Value};

use super::{key, wanting};
use crate::props::bounds::Bounded;
use crate::props::check::{CheckError, Checker};
use crate::props::{Csl, RewardPath};

fn is_true(v: Bounded) -> bool {
    v == Bounded::Exact(Value::Bool(true))
}

fn is_false(v: Bounded) -> bool {
    v == Bounded::Exact(Value::Bool(false))
}

impl Checker<'_> {
    /// The states where each subformula matters, from the answer down (see the module).
    pub(super) fn mark_root(&mut self, f: &Csl) -> Result<(), CheckError> {
        let n = self.ctmc.len();
        if let Csl::Filter { prop, states, .. } = f {
            let sel = match states {
                Some(s) => self.sets(s)?.hi,
                None => vec![true; n],
            };
            self.mark_relevant(prop, sel)?;
            if let Some(s) = states {
                self.mark_relevant(s, vec![true; n])?;
            }
            return Ok(());
        }
        let mut init = vec![false; n];
        for &i in self.ctmc.initial() {
            init[i] = true;
        }
        self.mark_relevant(f, init)
    }

    /// Set the relevant states of `f` to `rel`, its measure over them, and pass to its operands
    /// the states where their values can change those of `f` that are not good enough.
    pub(super) fn mark_relevant(&mut self, f: &Csl, rel: Vec<bool>) -> Result<(), CheckError> {
        let root = key(f) == self.memo.root;
        let base = self.memo.base;
        let node = self.memo.nodes.get_mut(&key(f)).expect("evaluated");
        let vals = node.vals.clone().expect("evaluated");
        let (need, widest) = wanting(&vals, node.numbers.as_deref(), Some(&rel), root, base);
        let count = need.iter().filter(|&&b| b).count();
        node.measure = Some((count, widest));
        node.relevant = Some(Rc::new(rel));
        let n = need.len();
        let none = || vec![false; n];
        let and_not = |a: &[bool], drop: &dyn Fn(usize) -> bool| -> Vec<bool> {
            (0..a.len()).map(|i| a[i] && !drop(i)).collect()
        };
        match f {
            Csl::Expr(_) | Csl::Init | Csl::Deadlock => {}
            Csl::Not(a) => self.mark_relevant(a, need)?,
            Csl::Bin(op, a, b) => {
                let (va, vb) = (self.eval_error(a)?, self.eval_error(b)?);
                // Kleene: where one operand decides, the other does not matter
                let (ra, rb) = match op {
                    BinOp::And => (
                        and_not(&need, &|i| is_false(vb.get(i))),
                        and_not(&need, &|i| is_false(va.get(i))),
                    ),
                    BinOp::Or => (
                        and_not(&need, &|i| is_true(vb.get(i))),
                        and_not(&need, &|i| is_true(va.get(i))),
                    ),
                    BinOp::Implies => (
                        and_not(&need, &|i| is_true(vb.get(i))),
                        and_not(&need, &|i| is_false(va.get(i))),
                    ),
                    _ => (need.clone(), need),
                };
                self.mark_relevant(a, ra)?;
                self.mark_relevant(b, rb)?;
            }
            Csl::Until { left, right, .. } | Csl::TimedUntil { left, right, .. } => {
                let (a, b) = (self.sets(left)?, self.sets(right)?);
                // a path continues through the states possibly in `a`; the untimed phase
                // stops at the states surely in `b`, a phase up to a lower time bound does not
                let waits = matches!(f, Csl::TimedUntil { lo, .. } if *lo > 0.0);
                let through: Vec<bool> = (0..n).map(|i| a.hi[i] && (waits || !b.lo[i])).collect();
                let (ra, rb) = if count == 0 {
                    (none(), none())
                } else {
                    let reach = self.ctmc.forward_reach(&through, &need)?;
                    let ra = if waits {
                        reach.clone()
                    } else {
                        and_not(&reach, &|i| b.lo[i])
                    };
                    (ra, reach)
                };
                self.mark_relevant(left, ra)?;
                self.mark_relevant(right, rb)?;
            }
            Csl::Next { phi, .. } => {
                let r = if count == 0 {
                    none()
                } else {
                    self.ctmc.forward_reach(&need, &need)?
                };
                self.mark_relevant(phi, r)?;
            }
            Csl::Steady { phi, .. } => {
                let r = if count == 0 {
                    none()
                } else {
                    self.ctmc.forward_reach(&vec![true; n], &need)?
                };
                self.mark_relevant(phi, r)?;
            }
            Csl::Reward { path, .. } => {
                if let RewardPath::Reach(t) = path {
                    let r = if count == 0 {
                        none()
                    } else {
                        let b = self.sets(t)?;
                        let through: Vec<bool> = b.lo.iter().map(|&x| !x).collect();
                        self.ctmc.forward_reach(&through, &need)?
                    };
                    self.mark_relevant(t, r)?;
                }
            }
            Csl::Filter { prop, states, .. } => {
                let all = if count == 0 { none() } else { vec![true; n] };
                self.mark_relevant(prop, all.clone())?;
                if let Some(s) = states {
                    self.mark_relevant(s, all)?;
                }
            }
        }
        Ok(())
    }
}
