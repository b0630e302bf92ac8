//! The split-point cache of thesis section 6.3 (Figures 6.6 and 6.7): a two-level array of
//! the matrix entries in traversal order. *Preprocess* walks the diagrams as *JacobiRecur*
//! does until it meets an unprimed node with fewer than `threshold` paths below it (a split
//! point); there it records the above-path entry `(rate_A, src_A, des_A)` in the top-level
//! array, linked to the bottom-level array of the snapshot `(m, src, des)`, which
//! *CacheRecur* fills with the below-path entries `(rate_B, src_B, des_B)` relative to the
//! snapshot. Snapshots reached again share their bottom array. An iteration then runs over
//! the arrays (*GSForwardCache*): entry `(rate_A · rate_B, src_A + src_B, des_A + des_B)`.

use std::cmp::Ordering;

use rustc_hash::FxHashMap;
use saturn_dd::NodeId;

use super::walk::{Entries, Part, Snap, Walker};

/// An above-path entry and its bottom array (`start..start + len` of the bottom entries).
#[derive(Clone, Copy, Debug)]
struct Top {
    rate: f64,
    src: u32,
    des: u32,
    start: u32,
    len: u32,
    /// The range is in the partitioned arrays (`split`) rather than in `bottom`.
    split: bool,
}

/// A below-path entry, relative to its split point.
#[derive(Clone, Copy, Debug)]
struct Bottom {
    rate: f64,
    src: u32,
    des: u32,
}

/// The cache array of Figure 6.7.
pub struct SplitCache {
    top: Vec<Top>,
    bottom: Vec<Bottom>,
    /// The top entries of each Gauss-Seidel phase (Figure 6.3's constraints decided once):
    /// an entry whose row and column differ above the split point belongs to one phase with
    /// its whole bottom array; one on the diagonal block links to the part of its bottom
    /// array that phase admits (a stable partition of the array, in `split`).
    down: Vec<Top>,
    up: Vec<Top>,
    /// Bottom arrays of the diagonal-block snapshots, partitioned: entries `i ≻ j` first,
    /// then `i ≺ j`, each part in traversal order.
    split: Vec<Bottom>,
    threshold: u64,
}

struct Builder<'w, 'a> {
    w: &'w Walker<'a>,
    paths: FxHashMap<NodeId, u128>,
    threshold: u64,
    shared: FxHashMap<(NodeId, NodeId, NodeId), (u32, u32)>,
    top: Vec<Top>,
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
            self.top.push(Top {
                rate: sn.rate,
                src: sn.s as u32,
                des: sn.d as u32,
                start,
                len,
                split: false,
            });
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
            top: b.top,
            bottom: b.bottom,
            down: Vec::new(),
            up: Vec::new(),
            split: Vec::new(),
            threshold,
        };
        c.split_phases();
        c
    }

    /// Fill `down`, `up` and `split` from the top and bottom arrays.
    fn split_phases(&mut self) {
        let mut parts: FxHashMap<u32, (u32, u32, u32)> = FxHashMap::default();
        for a in &self.top {
            match a.src.cmp(&a.des) {
                Ordering::Greater => self.down.push(*a),
                Ordering::Less => self.up.push(*a),
                Ordering::Equal => {
                    let (start, ndown, nup) = *parts.entry(a.start).or_insert_with(|| {
                        let bs = &self.bottom[a.start as usize..(a.start + a.len) as usize];
                        let start = self.split.len() as u32;
                        self.split.extend(bs.iter().filter(|b| b.src > b.des));
                        let ndown = self.split.len() as u32 - start;
                        self.split.extend(bs.iter().filter(|b| b.src < b.des));
                        (start, ndown, self.split.len() as u32 - start - ndown)
                    });
                    let linked = |start, len| Top {
                        start,
                        len,
                        split: true,
                        ..*a
                    };
                    if ndown > 0 {
                        self.down.push(linked(start, ndown));
                    }
                    if nup > 0 {
                        self.up.push(linked(start + ndown, nup));
                    }
                }
            }
        }
    }

    /// Entries of the top-level and of the bottom-level arrays.
    pub fn sizes(&self) -> (usize, usize) {
        (self.top.len(), self.bottom.len())
    }

    /// The split-point threshold the cache was built with.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// Bytes of both arrays.
    pub fn bytes(&self) -> u64 {
        let tops = self.top.len() + self.down.len() + self.up.len();
        (tops * std::mem::size_of::<Top>()
            + (self.bottom.len() + self.split.len()) * std::mem::size_of::<Bottom>()) as u64
    }
}

impl SplitCache {
    /// The entries below top entry `a`.
    #[inline]
    fn below(&self, a: &Top) -> &[Bottom] {
        let arr = if a.split { &self.split } else { &self.bottom };
        &arr[a.start as usize..(a.start + a.len) as usize]
    }
}

/// Visit the entries of `tops` and their bottom arrays, in order.
#[inline]
fn run<'a, F: FnMut(usize, usize, f64)>(
    c: &'a SplitCache,
    tops: impl Iterator<Item = &'a Top>,
    rev: bool,
    visit: &mut F,
) {
    for a in tops {
        let (s0, d0, r) = (a.src as usize, a.des as usize, a.rate);
        let mut one = |b: &Bottom| visit(s0 + b.src as usize, d0 + b.des as usize, r * b.rate);
        if rev {
            c.below(a).iter().rev().for_each(&mut one);
        } else {
            c.below(a).iter().for_each(&mut one);
        }
    }
}

impl Entries for SplitCache {
    /// Thesis Figure 6.6, *GSForwardCache* (and its `Up`, `All` and reversed siblings), with
    /// the phase constraints decided when the cache was built.
    fn for_each<F: FnMut(usize, usize, f64)>(&self, part: Part, reverse: bool, visit: &mut F) {
        let tops = match part {
            Part::All => &self.top,
            Part::Down => &self.down,
            Part::Up => &self.up,
        };
        if reverse {
            run(self, tops.iter().rev(), true, visit);
        } else {
            run(self, tops.iter(), false, visit);
        }
    }
}
