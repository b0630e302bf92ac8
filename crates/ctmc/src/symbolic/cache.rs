//! The split-point cache of thesis section 6.3 (Figures 6.6 and 6.7): a two-level array of
//! the matrix entries in traversal order. *Preprocess* walks the diagrams as *JacobiRecur*
//! does until it meets an unprimed node with fewer than `threshold` paths below it (a split
//! point); there it records the above-path entry `(rate_A, src_A, des_A)` in the top-level
//! array, linked to the bottom-level array of the snapshot `(m, src, des)`, which
//! *CacheRecur* fills with the below-path entries `(rate_B, src_B, des_B)` relative to the
//! snapshot. Snapshots reached again share their bottom array. An iteration then runs over
//! the arrays (*GSForwardCache*): entry `(rate_A · rate_B, src_A + src_B, des_A + des_B)`.
//!
//! One departure from Figure 6.7, for speed: each bottom array is stored as *runs*, maximal
//! stretches of consecutive entries (in traversal order) whose rows and columns both step by
//! one, `(src_B + k, des_B + k)` for `k < len`, with their rates side by side. A sweep then
//! updates a run as one slice operation (`acc[des..][k] += rate_A · rate_B[k] · x[src..][k]`,
//! no index loads, vectorised) instead of entry by entry. The Gauss-Seidel phases stay exact
//! when the columns up to the run's last row (the first, backward) are finalised as the run
//! starts: this needs every entry into those columns to come before the run, which Lemmas
//! 16-17 give for entries outside it, and which holds inside it when no entry of the run
//! writes a column the run reads, i.e. when `|des_B - src_B| ≥ len` on the diagonal block
//! (runs are cut there); off the diagonal block rows and columns are disjoint ranges. The
//! arrays of snapshots on the diagonal block (`src_A = des_A`) are stored as their two
//! phases' parts (`i ≻ j`, then `i ≺ j`, each a stable filter of the traversal order).

use std::cmp::Ordering;

use rustc_hash::FxHashMap;
use saturn_dd::NodeId;

use super::gauss_seidel::{finalise, zeroed};
use super::walk::{Entries, Part, Snap, Walker};
use crate::Sweep;

/// An above-path entry and the runs of its bottom array (`first..first + runs`).
#[derive(Clone, Copy, Debug)]
struct Top {
    rate: f64,
    src: u32,
    des: u32,
    first: u32,
    runs: u32,
}

/// Entries `(src + k, des + k)` (relative to the split point) for `k < len`, their rates
/// `rate[start + k]`.
#[derive(Clone, Copy, Debug)]
struct Run {
    src: u32,
    des: u32,
    start: u32,
    len: u32,
}

/// A below-path entry, relative to its split point (only while the cache is built).
#[derive(Clone, Copy, Debug)]
struct Bottom {
    rate: f64,
    src: u32,
    des: u32,
}

/// The cache array of Figure 6.7, by Gauss-Seidel phase (Figure 6.3's constraints decided
/// once): `down` holds the top entries whose rows lie below their columns (`i ≻ j`), `up`
/// the others; an entry on the diagonal block is in both, each linked to its part.
pub struct SplitCache {
    down: Vec<Top>,
    up: Vec<Top>,
    runs: Vec<Run>,
    rate: Vec<f64>,
    threshold: u64,
}

struct Builder<'w, 'a> {
    w: &'w Walker<'a>,
    paths: FxHashMap<NodeId, u128>,
    threshold: u64,
    shared: FxHashMap<(NodeId, NodeId, NodeId), (u32, u32)>,
    top: Vec<(f64, u32, u32, u32, u32)>,
    bottom: Vec<Bottom>,
}

impl Builder<'_, '_> {
    /// Thesis Figure 6.6, *Preprocess*.
    fn preprocess(&mut self, sn: Snap) {
        let below = if sn.m.is_terminal() {
            1
        } else {
            u64::try_from(self.paths[&sn.m]).unwrap_or(u64::MAX)
        };
        if below < self.threshold || sn.m.is_terminal() {
            let key = (sn.m, sn.src, sn.des);
            let (start, len) = match self.shared.get(&key) {
                Some(&hit) => hit,
                None => {
                    let start = self.bottom.len();
                    let rel = Snap {
                        rate: 1.0,
                        s: 0,
                        d: 0,
                        cmp: Ordering::Equal,
                        ..sn
                    };
                    self.cache_recur(rel);
                    let r = (start as u32, (self.bottom.len() - start) as u32);
                    self.shared.insert(key, r);
                    r
                }
            };
            self.top
                .push((sn.rate, sn.s as u32, sn.d as u32, start, len));
            return;
        }
        self.descend(&sn, Self::preprocess);
    }

    /// Apply `step` to each child snapshot of `sn`, in order.
    fn descend(&mut self, sn: &Snap, step: fn(&mut Self, Snap)) {
        let mut kids = Vec::new();
        self.w.children(sn, Part::All, false, &mut |c| kids.push(c));
        for c in kids {
            step(self, c);
        }
    }

    /// Thesis Figure 6.6, *CacheRecur*.
    fn cache_recur(&mut self, sn: Snap) {
        if sn.m.is_terminal() {
            self.bottom.push(Bottom {
                rate: sn.rate,
                src: sn.s as u32,
                des: sn.d as u32,
            });
            return;
        }
        self.descend(&sn, Self::cache_recur);
    }
}

/// Which entries of a bottom array a top entry links to.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Slice {
    Whole,
    Down,
    Up,
}

impl SplitCache {
    /// Build the cache of the matrix `w` traverses, with split points at the first nodes
    /// (from the root) with fewer than `threshold` paths below them.
    pub fn build(w: &Walker<'_>, threshold: u64) -> SplitCache {
        let mut b = Builder {
            w,
            paths: w.m.paths_below(w.root),
            threshold: threshold.max(1),
            shared: FxHashMap::default(),
            top: Vec::new(),
            bottom: Vec::new(),
        };
        if !w.root.is_empty() {
            b.preprocess(w.start());
        }
        let mut c = SplitCache {
            down: Vec::new(),
            up: Vec::new(),
            runs: Vec::new(),
            rate: Vec::new(),
            threshold,
        };
        // keyed by the whole range: an empty bottom array starts where the next one does
        let mut done: FxHashMap<(u32, u32, Slice), (u32, u32)> = FxHashMap::default();
        for &(rate, src, des, start, len) in &b.top {
            let bs = &b.bottom[start as usize..(start + len) as usize];
            let mut link = |c: &mut SplitCache, slice: Slice| {
                let (first, runs) = *done
                    .entry((start, len, slice))
                    .or_insert_with(|| c.add_runs(bs, slice));
                Top {
                    rate,
                    src,
                    des,
                    first,
                    runs,
                }
            };
            match src.cmp(&des) {
                Ordering::Greater => {
                    let t = link(&mut c, Slice::Whole);
                    c.down.push(t);
                }
                Ordering::Less => {
                    let t = link(&mut c, Slice::Whole);
                    c.up.push(t);
                }
                Ordering::Equal => {
                    for (slice, list) in [(Slice::Down, 0), (Slice::Up, 1)] {
                        let t = link(&mut c, slice);
                        if t.runs > 0 {
                            if list == 0 {
                                c.down.push(t)
                            } else {
                                c.up.push(t)
                            }
                        }
                    }
                }
            }
        }
        c
    }

    /// Store the entries of `bs` that `slice` admits as runs, in order; the range of their
    /// runs.
    fn add_runs(&mut self, bs: &[Bottom], slice: Slice) -> (u32, u32) {
        let first = self.runs.len() as u32;
        let admitted = bs.iter().filter(|b| match slice {
            Slice::Whole => true,
            Slice::Down => b.src > b.des,
            Slice::Up => b.src < b.des,
        });
        let mut open: Option<Run> = None;
        for b in admitted {
            let extends = open.is_some_and(|r| {
                b.src == r.src + r.len
                    && b.des == r.des + r.len
                    && (slice == Slice::Whole || b.src.abs_diff(b.des) > r.len)
            });
            match &mut open {
                Some(r) if extends => r.len += 1,
                _ => {
                    self.runs.extend(open);
                    open = Some(Run {
                        src: b.src,
                        des: b.des,
                        start: self.rate.len() as u32,
                        len: 1,
                    });
                }
            }
            self.rate.push(b.rate);
        }
        self.runs.extend(open);
        (first, self.runs.len() as u32 - first)
    }

    /// Entries of the top-level array (both phases) and stored matrix entries.
    pub fn sizes(&self) -> (usize, usize) {
        (self.down.len() + self.up.len(), self.rate.len())
    }

    /// The split-point threshold the cache was built with.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// Bytes of the arrays.
    pub fn bytes(&self) -> u64 {
        let tops = self.down.len() + self.up.len();
        (tops * std::mem::size_of::<Top>()
            + self.runs.len() * std::mem::size_of::<Run>()
            + self.rate.len() * std::mem::size_of::<f64>()) as u64
    }

    /// The runs of top entry `a`.
    #[inline]
    fn runs_of(&self, a: &Top) -> &[Run] {
        &self.runs[a.first as usize..(a.first + a.runs) as usize]
    }

    /// `acc[d0 + des + k] += rate_A · rate[k] · x[s0 + src + k]` over the run.
    #[inline]
    fn apply(&self, a: &Top, r: &Run, x: &[f64], acc: &mut [f64]) {
        let (s, d, len) = (
            a.src as usize + r.src as usize,
            a.des as usize + r.des as usize,
            r.len as usize,
        );
        let rates = &self.rate[r.start as usize..r.start as usize + len];
        let xs = &x[s..s + len];
        let out = &mut acc[d..d + len];
        for ((o, &xv), &rv) in out.iter_mut().zip(xs).zip(rates) {
            *o += a.rate * (xv * rv);
        }
    }

    /// Thesis Figures 6.6-6.7 (*GSForwardCache* and its backward sibling) in the two phases
    /// of Figures 6.3-6.4 ([`super::gauss_seidel::two_phase_sweep`]), a run at a time (see
    /// the module documentation).
    pub(crate) fn two_phase_sweep<F: FnMut(usize, &[f64], &mut [f64]) + ?Sized>(
        &self,
        x: &mut [f64],
        order: Sweep,
        f: &mut F,
        acc: &mut Vec<f64>,
    ) {
        let n = x.len();
        zeroed(acc, n);
        let mut done = 0usize;
        match order {
            Sweep::Forward => {
                for a in &self.down {
                    for r in self.runs_of(a) {
                        self.apply(a, r, x, acc);
                    }
                }
                for a in &self.up {
                    for r in self.runs_of(a) {
                        let upto = a.src as usize + r.src as usize + r.len as usize;
                        if done < upto {
                            done = finalise(x, acc, f, done, upto, false);
                        }
                        self.apply(a, r, x, acc);
                    }
                }
                finalise(x, acc, f, done, n, false);
            }
            Sweep::Backward => {
                for a in self.up.iter().rev() {
                    for r in self.runs_of(a).iter().rev() {
                        self.apply(a, r, x, acc);
                    }
                }
                for a in self.down.iter().rev() {
                    for r in self.runs_of(a).iter().rev() {
                        let upto = n - (a.src as usize + r.src as usize);
                        if done < upto {
                            done = finalise(x, acc, f, done, upto, true);
                        }
                        self.apply(a, r, x, acc);
                    }
                }
                finalise(x, acc, f, done, n, true);
            }
        }
    }
}

impl Entries for SplitCache {
    /// Every entry of `part` (`All`: the `Down` entries, then the `Up` ones) in traversal
    /// order within each part (reversed when `reverse`); the diagonal block's entries of one
    /// part are the stable filter of its array, so this is the lexicographic order for `Down`
    /// and `Up` and for `All` without a diagonal block.
    fn for_each<F: FnMut(usize, usize, f64)>(&self, part: Part, reverse: bool, visit: &mut F) {
        let lists: &[&[Top]] = match part {
            Part::All => &[&self.down, &self.up],
            Part::Down => &[&self.down],
            Part::Up => &[&self.up],
        };
        let mut one = |a: &Top, r: &Run, k: u32| {
            visit(
                a.src as usize + (r.src + k) as usize,
                a.des as usize + (r.des + k) as usize,
                a.rate * self.rate[(r.start + k) as usize],
            )
        };
        if reverse {
            for tops in lists.iter().rev() {
                for a in tops.iter().rev() {
                    for r in self.runs_of(a).iter().rev() {
                        (0..r.len).rev().for_each(|k| one(a, r, k));
                    }
                }
            }
        } else {
            for tops in lists {
                for a in *tops {
                    for r in self.runs_of(a) {
                        (0..r.len).for_each(|k| one(a, r, k));
                    }
                }
            }
        }
    }
}
