//! The Farkas / Martinez-Silva algorithm (the double description method over a Petri net's
//! incidence matrix `C`) in exact integer arithmetic, on a sparse, indexed tableau: the extreme
//! rays of `{y >= 0 : y^T C = 0}` (P-semiflows) or `{y >= 0 : y^T C <= 0}`.

use super::Limits;

/// One row of the Farkas tableau: a vector `y >= 0` over places (sparse, sorted) and
/// `v = y^T C` over transitions (sparse, sorted, zeros dropped).
#[derive(Clone, Debug)]
pub(super) struct Row {
    pub(super) y: Vec<(u32, i64)>,
    pub(super) v: Vec<(u32, i64)>,
}

impl Row {
    fn at(&self, t: u32) -> i64 {
        self.v
            .binary_search_by_key(&t, |e| e.0)
            .map_or(0, |i| self.v[i].1)
    }
    fn valid(&self) -> bool {
        self.v.iter().all(|e| e.1 <= 0)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// P-semiflows: `y^T C = 0`.
    Equality,
    /// `y^T C <= 0` (one slack per transition).
    Inequality,
}

/// The greatest common divisor (`gcd(0, 0) = 0`).
pub(crate) fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `ca·a + cb·b` over sparse vectors (zeros dropped), in `i128`.
fn lin(a: &[(u32, i64)], ca: i128, b: &[(u32, i64)], cb: i128, out: &mut Vec<(u32, i128)>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let ka = a.get(i).map_or(u32::MAX, |e| e.0);
        let kb = b.get(j).map_or(u32::MAX, |e| e.0);
        let (k, x) = if ka < kb {
            i += 1;
            (ka, ca * a[i - 1].1 as i128)
        } else if kb < ka {
            j += 1;
            (kb, cb * b[j - 1].1 as i128)
        } else {
            i += 1;
            j += 1;
            (ka, ca * a[i - 1].1 as i128 + cb * b[j - 1].1 as i128)
        };
        if x != 0 {
            out.push((k, x));
        }
    }
}

/// The positive combination of `pos` (positive at column `t`) and `neg` (negative there) that
/// cancels column `t`, divided by the gcd of its entries; `None` if an entry overflows `i64`.
fn combine(pos: &Row, neg: &Row, t: u32, scratch: &mut [Vec<(u32, i128)>; 2]) -> Option<Row> {
    let alpha = pos.at(t) as i128;
    let beta = -(neg.at(t) as i128);
    let g = gcd(alpha as u128, beta as u128) as i128;
    let (ca, cb) = (beta / g, alpha / g);
    let [ys, vs] = scratch;
    lin(&pos.y, ca, &neg.y, cb, ys);
    lin(&pos.v, ca, &neg.v, cb, vs);
    let g = ys
        .iter()
        .chain(vs.iter())
        .fold(0u128, |g, e| gcd(g, e.1.unsigned_abs()));
    let g = g.max(1) as i128;
    let conv = |s: &[(u32, i128)]| -> Option<Vec<(u32, i64)>> {
        s.iter()
            .map(|&(k, x)| i64::try_from(x / g).ok().map(|x| (k, x)))
            .collect()
    };
    Some(Row {
        y: conv(ys)?,
        v: conv(vs)?,
    })
}

/// The Farkas tableau, sparse and indexed, so that a column's elimination costs what its rows
/// and their neighbours cost, not the whole tableau (nets with tens of thousands of places):
/// rows live in a slab (a removed row leaves `None`; ids are never reused), each column lists
/// the rows nonzero there, each place lists the rows whose support starts there (the
/// candidates of the adjacency test), and the next column comes from a tournament tree over
/// the columns' `(growth, column)`.
struct Tableau {
    rows: Vec<Option<Row>>,
    /// Per row id: the place it is listed under in `by_key`, and its extended support (see
    /// [`support`]) as a [`signature`] (the slack of a column joins once the column is done).
    keys: Vec<(u32, Sig)>,
    /// The number of places (slack `n + t` stands for column `t`).
    n: u32,
    /// Columns no row is positive in any more (inequality cone: done at once, see
    /// [`Tableau::settle`]).
    zeroed: Vec<u32>,
    /// Columns whose counts changed since their entry in `next` was last set.
    touched: Vec<bool>,
    touched_list: Vec<u32>,
    by_col: Vec<Vec<u32>>,
    by_key: Vec<Vec<u32>>,
    pos: Vec<u64>,
    neg: Vec<u64>,
    next: MinTree,
    live: usize,
    /// Entries (`y` and `v`) of the live rows.
    entries: usize,
    mode: Mode,
}

impl Tableau {
    fn growth(&self, t: usize) -> i128 {
        let (p, q) = (self.pos[t] as i128, self.neg[t] as i128);
        match self.mode {
            Mode::Equality => p * q - p - q,
            Mode::Inequality => p * q - p,
        }
    }

    fn count(&mut self, r: &Row, add: bool, done: &[bool]) {
        for &(t, x) in &r.v {
            let c = if x > 0 {
                &mut self.pos[t as usize]
            } else {
                &mut self.neg[t as usize]
            };
            if add {
                *c += 1
            } else {
                *c -= 1;
                if x > 0 && *c == 0 {
                    self.zeroed.push(t);
                }
            }
            if !done[t as usize] && !self.touched[t as usize] {
                self.touched[t as usize] = true;
                self.touched_list.push(t);
            }
        }
    }

    /// Update the tree's entry of each column whose counts changed since the last call.
    fn push_touched(&mut self, done: &[bool]) {
        for t in std::mem::take(&mut self.touched_list) {
            self.touched[t as usize] = false;
            if !done[t as usize] {
                let g = self.growth(t as usize);
                self.next.set(t as usize, g);
            }
        }
    }

    /// Column `t` is done: out of the tree.
    fn finish(&mut self, t: usize, done: &mut [bool], ndone: &mut usize) {
        done[t] = true;
        *ndone += 1;
        self.next.set(t, i128::MAX);
    }

    fn add(&mut self, r: Row, done: &[bool]) {
        let id = self.rows.len() as u32;
        for &(t, _) in &r.v {
            self.by_col[t as usize].push(id);
        }
        // listed under its least listed place, so that no list grows long
        let key =
            r.y.iter()
                .map(|e| e.0)
                .min_by_key(|&p| self.by_key[p as usize].len())
                .unwrap_or(0);
        self.by_key[key as usize].push(id);
        let slacks = r.v.iter().filter(|e| has_slack(e, done, None));
        let sig = signature(r.y.iter().map(|e| e.0).chain(slacks.map(|e| self.n + e.0)));
        self.keys.push((key, sig));
        self.count(&r, true, done);
        self.entries += r.y.len() + r.v.len();
        self.rows.push(Some(r));
        self.live += 1;
    }

    fn remove(&mut self, id: u32, done: &[bool], dirty: &mut Vec<u32>) {
        if let Some(r) = self.rows[id as usize].take() {
            self.count(&r, false, done);
            dirty.push(self.keys[id as usize].0);
            self.entries -= r.y.len() + r.v.len();
            self.live -= 1;
        }
    }

    /// The next column to eliminate: the one whose elimination adds the fewest rows (ties:
    /// the smallest index). Columns nothing is left to eliminate in are marked done.
    fn next_column(&mut self, done: &mut [bool], ndone: &mut usize) -> Option<usize> {
        self.push_touched(done);
        while let Some(t) = self.next.min() {
            let (p, q) = (self.pos[t], self.neg[t]);
            if p + q == 0 || (self.mode == Mode::Inequality && p == 0) {
                // no row can become nonzero (positive) here again: nothing to eliminate
                self.finish(t, done, ndone);
                if self.mode == Mode::Inequality {
                    let ids = std::mem::take(&mut self.by_col[t]);
                    self.slack_done(t, &ids);
                }
                continue;
            }
            return Some(t);
        }
        None
    }

    /// In the inequality cone, a column no row is positive in is done at once (no row can be
    /// positive there again): its slack joins the supports of the rows negative there, which
    /// makes the adjacency test sharper for the columns still to eliminate.
    fn settle(&mut self, done: &mut [bool], ndone: &mut usize) {
        if self.mode != Mode::Inequality {
            self.zeroed.clear();
            return;
        }
        for t in std::mem::take(&mut self.zeroed) {
            let t = t as usize;
            if !done[t] && self.pos[t] == 0 {
                self.finish(t, done, ndone);
                let ids = std::mem::take(&mut self.by_col[t]);
                self.slack_done(t, &ids);
            }
        }
    }

    /// Column `t` is done: its slack joins the signature of the rows `ids` negative there.
    fn slack_done(&mut self, t: usize, ids: &[u32]) {
        for &id in ids {
            if let Some(r) = &self.rows[id as usize] {
                if r.at(t as u32) < 0 {
                    self.keys[id as usize].1.insert(self.n + t as u32);
                }
            }
        }
    }

    /// Once removed rows outnumber the live ones, renumber the live rows (keeping their
    /// order) and drop the removed ones from the slab and the lists, so that memory follows
    /// the live tableau, not every row ever made.
    fn compact(&mut self) {
        if self.rows.len() < 2 * self.live + 1024 {
            return;
        }
        let mut map = vec![u32::MAX; self.rows.len()];
        let mut next = 0u32;
        for (id, r) in self.rows.iter().enumerate() {
            if r.is_some() {
                map[id] = next;
                next += 1;
            }
        }
        let keys = std::mem::take(&mut self.keys);
        self.keys = keys
            .into_iter()
            .zip(&self.rows)
            .filter(|(_, r)| r.is_some())
            .map(|(k, _)| k)
            .collect();
        self.rows.retain(Option::is_some);
        for list in self.by_col.iter_mut().chain(self.by_key.iter_mut()) {
            list.retain(|&id| map[id as usize] != u32::MAX);
            list.iter_mut().for_each(|id| *id = map[*id as usize]);
        }
    }

    fn valid_rows(self) -> Vec<Row> {
        self.rows.into_iter().flatten().filter(Row::valid).collect()
    }
}

/// A tournament tree over the columns: the column of least `(growth, index)` at the root, an
/// update in `O(log T)` (`i128::MAX`: not a candidate).
struct MinTree {
    size: usize,
    tree: Vec<(i128, u32)>,
}

impl MinTree {
    fn new(n: usize) -> MinTree {
        let size = n.next_power_of_two().max(1);
        MinTree {
            size,
            tree: vec![(i128::MAX, u32::MAX); 2 * size],
        }
    }

    fn set(&mut self, i: usize, g: i128) {
        let mut k = self.size + i;
        self.tree[k] = (g, i as u32);
        while k > 1 {
            k /= 2;
            let m = self.tree[2 * k].min(self.tree[2 * k + 1]);
            // an unchanged winner leaves every node above it unchanged too
            if self.tree[k] == m {
                break;
            }
            self.tree[k] = m;
        }
    }

    fn min(&self) -> Option<usize> {
        let (g, i) = self.tree[1];
        (g != i128::MAX).then_some(i as usize)
    }
}

/// A set of places and slacks as a 256-bit mask (each modulo 256): a subset's mask is within
/// the set's.
#[derive(Clone, Copy, Default)]
struct Sig([u64; 4]);

impl Sig {
    fn insert(&mut self, e: u32) {
        self.0[(e as usize / 64) % 4] |= 1 << (e % 64);
    }
    fn within(&self, other: &Sig) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }
}

fn signature(elements: impl Iterator<Item = u32>) -> Sig {
    let mut s = Sig::default();
    elements.for_each(|e| s.insert(e));
    s
}

/// Does a row with entry `e = (t, v)` of `y^T C` hold the slack of column `t` in its extended
/// support: the column is done (`except` aside) and the row is negative there?
fn has_slack(e: &(u32, i64), done: &[bool], except: Option<u32>) -> bool {
    e.1 < 0 && done[e.0 as usize] && Some(e.0) != except
}

/// The extended support of a row (places, then the slacks `n + t` of the processed columns
/// other than `tc` where the row is negative) for the combinatorial adjacency test.
fn support(r: &Row, mode: Mode, done: &[bool], tc: u32, n: u32, out: &mut Vec<u32>) {
    out.clear();
    out.extend(r.y.iter().map(|e| e.0));
    if mode == Mode::Inequality {
        out.extend(
            r.v.iter()
                .filter(|e| has_slack(e, done, Some(tc)))
                .map(|e| n + e.0),
        );
    }
}

/// Is the extended support of `r` inside the set marked in `bits`? Also counts the elements
/// looked at into `work`.
fn support_within(
    r: &Row,
    mode: Mode,
    done: &[bool],
    tc: u32,
    n: u32,
    bits: &[bool],
    work: &mut u64,
) -> bool {
    for e in &r.y {
        *work += 1;
        if !bits[e.0 as usize] {
            return false;
        }
    }
    mode == Mode::Equality
        || r.v.iter().all(|e| {
            *work += 1;
            !has_slack(e, done, Some(tc)) || bits[(n + e.0) as usize]
        })
}

/// The most row entries (16 bytes each) the tableau may hold at once beyond the incidence
/// matrix it starts from: rows can be as long as the net has transitions, so the row count
/// alone does not bound its memory (32 MiB).
const MAX_ENTRIES: usize = 1 << 22;

/// The Farkas algorithm: returns the rays found (each with `y^T C <= 0`) and whether it ran to
/// completion (then they are all the extreme rays of the cone of `mode`; a ray dropped because
/// an entry overflows `i64` makes the run incomplete). The tableau may hold
/// `limits.max_rows` rows more than it starts with.
pub(super) fn farkas(
    rows: Vec<Row>,
    transitions: usize,
    mode: Mode,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
) -> (Vec<Row>, bool) {
    let n = rows.len();
    let max_rows = limits.max_rows.saturating_add(n);
    let mut done = vec![false; transitions];
    let mut tab = Tableau {
        rows: Vec::with_capacity(n),
        keys: Vec::with_capacity(n),
        by_col: vec![Vec::new(); transitions],
        by_key: vec![Vec::new(); n],
        pos: vec![0; transitions],
        neg: vec![0; transitions],
        next: MinTree::new(transitions),
        entries: 0,
        live: 0,
        n: n as u32,
        zeroed: Vec::new(),
        touched: vec![false; transitions],
        touched_list: Vec::new(),
        mode,
    };
    for r in rows {
        if !r.y.is_empty() {
            tab.add(r, &done);
        }
    }
    let give_up = |tab: Tableau| (tab.valid_rows(), false);
    let initial_entries = tab.entries;
    let mut work: u64 = 0;
    let mut ndone = 0usize;
    tab.zeroed = (0..transitions as u32)
        .filter(|&t| tab.pos[t as usize] == 0)
        .collect();
    tab.settle(&mut done, &mut ndone);
    let mut bits = vec![false; n + transitions];
    let mut scratch = [Vec::new(), Vec::new()];
    let mut union_list: Vec<u32> = Vec::new();
    let mut dirty: Vec<u32> = Vec::new();
    let mut lost = false;
    loop {
        if stop() {
            return give_up(tab);
        }
        let Some(t) = tab.next_column(&mut done, &mut ndone) else {
            break;
        };
        tab.finish(t, &mut done, &mut ndone);
        let tc = t as u32;
        let (mut ps, mut qs) = (Vec::new(), Vec::new());
        for &id in &std::mem::take(&mut tab.by_col[t]) {
            if let Some(r) = &tab.rows[id as usize] {
                if r.at(tc) > 0 {
                    ps.push(id)
                } else {
                    qs.push(id)
                }
            }
        }
        // Two adjacent extreme rays of a cone {x >= 0 : Ax = 0} with k equations have at most
        // k + 2 places and slacks in the union of their supports (the equations: the columns
        // done before this one, those with nothing to eliminate included, as the slacks of
        // the inequality cone come from them).
        let max_union = ndone + 1;
        let supports_of = |ids: &[u32], tab: &Tableau| -> Vec<Vec<u32>> {
            ids.iter()
                .map(|&id| {
                    let mut s = Vec::new();
                    if let Some(r) = &tab.rows[id as usize] {
                        support(r, mode, &done, tc, n as u32, &mut s);
                    }
                    s
                })
                .collect()
        };
        let (sup_p, sup_q) = if ps.is_empty() || qs.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            (supports_of(&ps, &tab), supports_of(&qs, &tab))
        };
        let mut next: Vec<Row> = Vec::new();
        let mut next_entries = 0usize;
        let mut pairs: u64 = 0;
        let removed = ps.len() + if mode == Mode::Equality { qs.len() } else { 0 };
        for (i, &a) in ps.iter().enumerate() {
            for (j, &b) in qs.iter().enumerate() {
                pairs += 1;
                if pairs & 1023 == 0 && stop() {
                    return give_up(tab);
                }
                let (s_a, s_b) = (&sup_p[i], &sup_q[j]);
                if mode == Mode::Equality && s_a.len().max(s_b.len()) > max_union {
                    continue;
                }
                union_list.clear();
                for &e in s_a.iter().chain(s_b) {
                    if !bits[e as usize] {
                        bits[e as usize] = true;
                        union_list.push(e);
                    }
                }
                // adjacent: no other row's support lies within the union (such a row's
                // first place is in the union, so the candidates are few)
                let mut adjacent = union_list.len() <= max_union;
                if adjacent {
                    let places = || union_list.iter().copied().filter(|&e| (e as usize) < n);
                    let sig = signature(union_list.iter().copied());
                    let size = places().count();
                    'places: for p in places() {
                        for &c in &tab.by_key[p as usize] {
                            if c == a || c == b || !tab.keys[c as usize].1.within(&sig) {
                                continue;
                            }
                            let Some(r) = &tab.rows[c as usize] else {
                                continue;
                            };
                            if r.y.len() > size {
                                continue;
                            }
                            work += 1;
                            if support_within(r, mode, &done, tc, n as u32, &bits, &mut work) {
                                adjacent = false;
                                break 'places;
                            }
                        }
                    }
                }
                for &e in &union_list {
                    bits[e as usize] = false;
                }
                if adjacent {
                    let (ra, rb) = (&tab.rows[a as usize], &tab.rows[b as usize]);
                    if let (Some(ra), Some(rb)) = (ra, rb) {
                        // an entry overflowing i64 drops the ray: the rays kept stay sound, but
                        // they are no longer all of them, so the run is not complete (issue
                        // 50: a lost T-semiflow made the polytope's ranking circular)
                        let Some(row) = combine(ra, rb, tc, &mut scratch) else {
                            lost = true;
                            continue;
                        };
                        work += (row.y.len() + row.v.len()) as u64;
                        next_entries += row.y.len() + row.v.len();
                        next.push(row);
                    }
                }
                if work > limits.max_work
                    || tab.live - removed + next.len() > max_rows
                    || tab.entries + next_entries > initial_entries + MAX_ENTRIES
                {
                    return give_up(tab);
                }
            }
        }
        dirty.clear();
        for &id in &ps {
            tab.remove(id, &done, &mut dirty);
        }
        if mode == Mode::Equality {
            for &id in &qs {
                tab.remove(id, &done, &mut dirty);
            }
        } else {
            tab.slack_done(t, &qs);
        }
        for r in next {
            if !r.y.is_empty() {
                tab.add(r, &done);
            }
        }
        tab.settle(&mut done, &mut ndone);
        dirty.sort_unstable();
        dirty.dedup();
        for &p in &dirty {
            let rows = &tab.rows;
            tab.by_key[p as usize].retain(|&id| rows[id as usize].is_some());
        }
        tab.compact();
    }
    let complete = !lost && tab.rows.iter().flatten().all(Row::valid);
    (tab.valid_rows(), complete)
}
