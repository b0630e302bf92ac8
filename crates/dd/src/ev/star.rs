//! EV*MDD operations (thesis section 2.1.2; EV*MxDs store rate matrices, section 6.2.1):
//! sum, scaling, a constant, MaxState.

use super::{larger_first, Ev, EvStarForest, EvValue, Overflow};
use crate::forest::Edge;

impl EvStarForest {
    /// `c · f` for a constant `c ≥ 0`. `Err` when `c` is negative or not finite, or the
    /// product is not finite.
    pub fn scale(&self, f: Ev<f64>, c: f64) -> Result<Ev<f64>, Overflow> {
        if !(c.is_finite() && c >= 0.0) {
            return Err(Overflow);
        }
        let val = f64::combine(f.val, c)?;
        if f.is_default() || val == 0.0 {
            return Ok(Ev::default_fn());
        }
        Ok(Ev { val, node: f.node })
    }

    /// The constant function `c ≥ 0` over the forest's universe (every index of every level's
    /// current domain).
    pub fn constant(&mut self, c: f64) -> Result<Ev<f64>, Overflow> {
        if !(c.is_finite() && c >= 0.0) {
            return Err(Overflow);
        }
        Ok(self.constant_fn(c))
    }

    /// The pointwise sum of two functions (the EV* sibling of thesis Figure 2.5's *Sum*):
    /// with `ρ ≥ σ`, `⟨ρ,p⟩ + ⟨σ,q⟩ = ρ · (f_p + (σ/ρ) · f_q)`, and the bracket is computed
    /// once per `(p, q, σ/ρ)`.
    pub fn sum(&mut self, a: Ev<f64>, b: Ev<f64>) -> Result<Ev<f64>, Overflow> {
        // a value that underflowed to 0 is the zero function
        let zero = |e: Ev<f64>| if e.val == 0.0 { Ev::default_fn() } else { e };
        let (a, b) = (zero(a), zero(b));
        let (a, b) = match larger_first(a, b) {
            Ok(ab) => ab,
            Err(other) => return Ok(other),
        };
        let (rho, p, q) = (a.val, a.node, b.node);
        let ratio = b.val / rho;
        if p == q {
            let val = rho + b.val;
            if !val.is_finite() {
                return Err(Overflow);
            }
            return Ok(Ev { val, node: p });
        }
        let key = (p, q, ratio.to_bits());
        let (g, r) = match self.caches.sum.get(key) {
            Some(hit) => hit,
            None => {
                let k = self.level(p);
                debug_assert_eq!(k, self.level(q), "quasi-reduced operands share their level");
                let pe = self.edges(p).to_vec();
                let qe = self.edges(q).to_vec();
                let (mut i, mut j) = (0, 0);
                let mut out = Vec::with_capacity(pe.len().max(qe.len()));
                while i < pe.len() || j < qe.len() {
                    let take_p = j == qe.len() || (i < pe.len() && pe[i].idx <= qe[j].idx);
                    let take_q = i == pe.len() || (j < qe.len() && qe[j].idx <= pe[i].idx);
                    let x = if take_p {
                        Ev {
                            val: pe[i].val,
                            node: pe[i].child,
                        }
                    } else {
                        Ev::default_fn()
                    };
                    let y = if take_q {
                        Ev {
                            val: ratio * qe[j].val,
                            node: qe[j].child,
                        }
                    } else {
                        Ev::default_fn()
                    };
                    let idx = if take_p { pe[i].idx } else { qe[j].idx };
                    let r = self.sum(x, y)?;
                    out.push(Edge::valued(idx, r.node, r.val));
                    i += take_p as usize;
                    j += take_q as usize;
                }
                let r = self.normalize(k, &mut out)?;
                self.caches.sum.insert(key, (r.val, r.node));
                (r.val, r.node)
            }
        };
        let val = f64::combine(rho, g)?;
        if val == 0.0 {
            return Ok(Ev::default_fn());
        }
        Ok(Ev { val, node: r })
    }

    /// A state where `f` takes its maximum, and that maximum (the EV* counterpart of
    /// *MinState*); `None` when `f` is `0` everywhere.
    pub fn max_state(&self, f: Ev<f64>) -> Option<(Vec<u32>, f64)> {
        self.extreme_state(f)
    }
}
