//! Structural bounds from the extreme rays of `{y >= 0 : y^T C <= 0}`, by the Farkas /
//! Martinez-Silva algorithm (the double description method over the incidence matrix `C`),
//! in exact integer arithmetic.

use super::Limits;
use crate::PetriNet;

/// What the structural analysis proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructuralBounds {
    /// Per place: an upper bound on its token count in every reachable marking (`None`: the
    /// place is covered by no ray found).
    pub bounds: Vec<Option<u64>>,
    /// The number of rays (P-semiflows and rays of `y^T C <= 0`) the bounds come from.
    pub rays: usize,
    /// True when the algorithm ran to completion: then a place without bound is covered by no
    /// `y >= 0` with `y^T C <= 0` (it is structurally unbounded), and every bound is the best
    /// any such `y` gives.
    pub complete: bool,
}

impl StructuralBounds {
    /// Does every place have a bound (the net is structurally bounded)?
    pub fn all_covered(&self) -> bool {
        self.bounds.iter().all(Option::is_some)
    }
}

/// One row of the Farkas tableau: a vector `y >= 0` over places (sparse, sorted) and
/// `v = y^T C` over transitions (sparse, sorted, zeros dropped).
#[derive(Clone, Debug)]
struct Row {
    y: Vec<(u32, i64)>,
    v: Vec<(u32, i64)>,
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
enum Mode {
    /// P-semiflows: `y^T C = 0`.
    Equality,
    /// `y^T C <= 0` (one slack per transition).
    Inequality,
}

/// Upper bounds on every place's token count from the rays of `{y >= 0 : y^T C <= 0}`:
/// a place `p` with `y_p > 0` holds at most `floor(y·m0 / y_p)` tokens. Minimal P-semiflows are
/// computed first; the inequality cone only when they leave a place uncovered. Inhibitor arcs
/// are ignored (they only remove behaviour, so the bounds stay sound).
pub fn structural_bounds(
    net: &PetriNet,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
) -> StructuralBounds {
    let n = net.places.len();
    let mut result = StructuralBounds {
        bounds: vec![None; n],
        rays: 0,
        complete: false,
    };
    let Some(incidence) = incidence_rows(net) else {
        return result;
    };
    let m0 = net.initial_marking();
    for mode in [Mode::Equality, Mode::Inequality] {
        let (rays, complete) = farkas(incidence.clone(), net.transitions.len(), mode, limits, stop);
        result.rays = result.rays.max(rays.len());
        add_bounds(&rays, &m0, &mut result.bounds);
        result.complete = complete;
        if result.all_covered() {
            result.complete = true;
            break;
        }
        if stop() {
            break;
        }
    }
    result
}

/// The supports (sorted places) of the minimal P-semiflows (`y >= 0`, `y^T C = 0`) the Farkas
/// algorithm finds within `limits`, and whether it ran to completion (then they are all of
/// them). Inhibitor arcs are ignored.
pub fn p_semiflow_supports(
    net: &PetriNet,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
) -> (Vec<Vec<usize>>, bool) {
    let Some(incidence) = incidence_rows(net) else {
        return (Vec::new(), false);
    };
    let (rays, complete) = farkas(
        incidence,
        net.transitions.len(),
        Mode::Equality,
        limits,
        stop,
    );
    let supports = rays
        .iter()
        .filter(|r| r.v.is_empty())
        .map(|r| r.y.iter().map(|e| e.0 as usize).collect())
        .collect();
    (supports, complete)
}

/// The initial tableau: one unit row per place, `v` its row of the incidence matrix. `None`
/// when a weight does not fit in `i64`.
fn incidence_rows(net: &PetriNet) -> Option<Vec<Row>> {
    let mut per_place: Vec<Vec<(u32, i128)>> = vec![Vec::new(); net.places.len()];
    for (t, tr) in net.transitions.iter().enumerate() {
        for a in &tr.inputs {
            per_place[a.place].push((t as u32, -(a.weight as i128)));
        }
        for a in &tr.outputs {
            per_place[a.place].push((t as u32, a.weight as i128));
        }
    }
    let mut rows = Vec::with_capacity(per_place.len());
    for (p, mut entries) in per_place.into_iter().enumerate() {
        entries.sort_unstable_by_key(|e| e.0);
        let mut v: Vec<(u32, i64)> = Vec::with_capacity(entries.len());
        let mut i = 0;
        while i < entries.len() {
            let t = entries[i].0;
            let mut sum = 0i128;
            while i < entries.len() && entries[i].0 == t {
                sum += entries[i].1;
                i += 1;
            }
            if sum != 0 {
                v.push((t, i64::try_from(sum).ok()?));
            }
        }
        rows.push(Row {
            y: vec![(p as u32, 1)],
            v,
        });
    }
    Some(rows)
}

/// Tighten `bounds` with the rays `rays` (all satisfying `y^T C <= 0`).
fn add_bounds(rays: &[Row], m0: &[u64], bounds: &mut [Option<u64>]) {
    for r in rays {
        let total = r.y.iter().try_fold(0u128, |acc, &(p, c)| {
            acc.checked_add((c as u128).checked_mul(m0[p as usize] as u128)?)
        });
        let Some(total) = total else { continue };
        for &(p, c) in &r.y {
            let b = u64::try_from(total / c as u128).unwrap_or(u64::MAX);
            let slot = &mut bounds[p as usize];
            *slot = Some(slot.map_or(b, |old| old.min(b)));
        }
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
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

/// The Farkas algorithm: returns the rays found (each with `y^T C <= 0`) and whether it ran to
/// completion (then they are all the extreme rays of the cone of `mode`).
fn farkas(
    mut rows: Vec<Row>,
    transitions: usize,
    mode: Mode,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
) -> (Vec<Row>, bool) {
    let n = rows.len();
    let give_up = |rows: Vec<Row>| (rows.into_iter().filter(Row::valid).collect(), false);
    let mut done = vec![false; transitions];
    let mut work: u64 = 0;
    let mut pos = vec![0u64; transitions];
    let mut neg = vec![0u64; transitions];
    let mut bits = vec![false; n + transitions];
    let mut scratch = [Vec::new(), Vec::new()];
    // per column, the number of rows positive / negative there (kept up to date)
    let count = |r: &Row, pos: &mut [u64], neg: &mut [u64], add: bool| {
        for &(t, x) in &r.v {
            let c = if x > 0 {
                &mut pos[t as usize]
            } else {
                &mut neg[t as usize]
            };
            if add {
                *c += 1
            } else {
                *c -= 1
            }
        }
    };
    for r in &rows {
        count(r, &mut pos, &mut neg, true);
    }
    loop {
        if stop() {
            return give_up(rows);
        }
        // The next column: the one whose elimination adds the fewest rows.
        let mut best: Option<(i128, usize)> = None;
        for t in 0..transitions {
            if done[t] {
                continue;
            }
            let (p, q) = (pos[t] as i128, neg[t] as i128);
            let growth = match mode {
                Mode::Equality => p * q - p - q,
                Mode::Inequality => p * q - p,
            };
            if p + q == 0 || (mode == Mode::Inequality && p == 0) {
                done[t] = true; // nothing to eliminate
                continue;
            }
            if !matches!(best, Some(b) if b.0 <= growth) {
                best = Some((growth, t));
            }
        }
        let Some((_, t)) = best else { break };
        done[t] = true;
        let tc = t as u32;
        let (mut ps, mut qs, mut keep) = (Vec::new(), Vec::new(), Vec::new());
        for (i, r) in rows.iter().enumerate() {
            match r.at(tc) {
                x if x > 0 => ps.push(i),
                0 => keep.push(i),
                _ => qs.push(i),
            }
        }
        let pairs_exist = !ps.is_empty() && !qs.is_empty();
        // Extended supports (places, then the slacks of processed columns) for the
        // combinatorial adjacency test.
        let supports: Vec<Vec<u32>> = rows
            .iter()
            .filter(|_| pairs_exist)
            .map(|r| {
                let mut s: Vec<u32> = r.y.iter().map(|e| e.0).collect();
                if mode == Mode::Inequality {
                    s.extend(
                        r.v.iter()
                            .filter(|e| e.1 < 0 && done[e.0 as usize] && e.0 != tc)
                            .map(|e| n as u32 + e.0),
                    );
                }
                s
            })
            .collect();
        let signature = |s: &[u32]| s.iter().fold(0u64, |g, &e| g | 1 << (e % 64));
        let signatures: Vec<u64> = supports.iter().map(|s| signature(s)).collect();
        // Two adjacent extreme rays of a cone {x >= 0 : Ax = 0} with k equations have at most
        // k + 2 places and slacks in the union of their supports.
        let processed = done.iter().filter(|&&d| d).count() - 1;
        let max_union = processed + 2;
        let mut next: Vec<Row> = Vec::new();
        let mut pairs: u64 = 0;
        for &a in &ps {
            for &b in &qs {
                pairs += 1;
                if pairs & 1023 == 0 && stop() {
                    return give_up(rows);
                }
                let sig = signatures[a] | signatures[b];
                if mode == Mode::Equality && supports[a].len().max(supports[b].len()) > max_union {
                    continue;
                }
                let mut union = 0usize;
                for &e in supports[a].iter().chain(&supports[b]) {
                    if !bits[e as usize] {
                        bits[e as usize] = true;
                        union += 1;
                    }
                }
                let adjacent = union <= max_union
                    && supports.iter().enumerate().all(|(c, s)| {
                        if c == a || c == b || s.len() > union || signatures[c] & !sig != 0 {
                            return true;
                        }
                        work += 1;
                        !s.iter().all(|&e| {
                            work += 1;
                            bits[e as usize]
                        })
                    });
                for &e in supports[a].iter().chain(&supports[b]) {
                    bits[e as usize] = false;
                }
                if adjacent {
                    // an entry overflowing i64 drops the ray: sound, only less complete
                    if let Some(row) = combine(&rows[a], &rows[b], tc, &mut scratch) {
                        work += (row.y.len() + row.v.len()) as u64;
                        next.push(row);
                    }
                }
                if work > limits.max_work || next.len() + keep.len() + qs.len() > limits.max_rows {
                    return give_up(rows);
                }
            }
        }
        for r in &next {
            count(r, &mut pos, &mut neg, true);
        }
        for &i in ps
            .iter()
            .chain(if mode == Mode::Equality { &qs[..] } else { &[] })
        {
            count(&rows[i], &mut pos, &mut neg, false);
        }
        let mut old: Vec<Option<Row>> = rows.into_iter().map(Some).collect();
        next.extend(keep.iter().map(|&i| old[i].take().expect("row kept once")));
        if mode == Mode::Inequality {
            next.extend(qs.iter().map(|&i| old[i].take().expect("row kept once")));
        }
        rows = next;
    }
    let complete = rows.iter().all(Row::valid);
    (rows.into_iter().filter(Row::valid).collect(), complete)
}
