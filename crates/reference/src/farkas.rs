//! The textbook Farkas algorithm, dense and without the adjacency test: after each column,
//! the rows whose support is not minimal are dropped (Martinez and Silva). The reference for
//! the structural bounds of `saturn_model::bounded` on small nets.

use saturn_model::PetriNet;

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The minimal-support solutions `y >= 0` (over places, gcd 1, sorted) of `y^T C = 0`
/// (`inequality` false) or `y^T C <= 0` (true: one slack variable per transition, projected
/// away at the end), where `C` is the incidence matrix (inhibitor arcs ignored).
pub fn minimal_rays(net: &PetriNet, inequality: bool) -> Vec<Vec<i128>> {
    let (n, t) = (net.places.len(), net.transitions.len());
    let width = n + if inequality { t } else { 0 };
    // a row: (y over places and slacks, y^T C over transitions)
    let mut rows: Vec<(Vec<i128>, Vec<i128>)> = (0..width)
        .map(|i| {
            let mut y = vec![0; width];
            y[i] = 1;
            let mut v = vec![0; t];
            if i >= n {
                v[i - n] = 1;
            }
            (y, v)
        })
        .collect();
    for (k, tr) in net.transitions.iter().enumerate() {
        for a in &tr.inputs {
            rows[a.place].1[k] -= a.weight as i128;
        }
        for a in &tr.outputs {
            rows[a.place].1[k] += a.weight as i128;
        }
    }
    for col in 0..t {
        let mut next: Vec<(Vec<i128>, Vec<i128>)> =
            rows.iter().filter(|r| r.1[col] == 0).cloned().collect();
        for a in rows.iter().filter(|r| r.1[col] > 0) {
            for b in rows.iter().filter(|r| r.1[col] < 0) {
                let (ca, cb) = (-b.1[col], a.1[col]);
                let mut y: Vec<i128> = a.0.iter().zip(&b.0).map(|(x, z)| ca * x + cb * z).collect();
                let mut v: Vec<i128> = a.1.iter().zip(&b.1).map(|(x, z)| ca * x + cb * z).collect();
                let g = y.iter().chain(&v).fold(0, |g, &x| gcd(g, x)).max(1);
                y.iter_mut().chain(v.iter_mut()).for_each(|x| *x /= g);
                next.push((y, v));
            }
        }
        // keep the rows of minimal support, one per support
        let support =
            |r: &(Vec<i128>, Vec<i128>)| -> Vec<bool> { r.0.iter().map(|&x| x != 0).collect() };
        let sups: Vec<Vec<bool>> = next.iter().map(support).collect();
        let within = |a: &[bool], b: &[bool]| a.iter().zip(b).all(|(&x, &y)| !x || y);
        let mut keep = Vec::new();
        for (i, r) in next.iter().enumerate() {
            let dominated = sups
                .iter()
                .enumerate()
                .any(|(j, s)| j != i && within(s, &sups[i]) && (s != &sups[i] || j < i));
            if !dominated {
                keep.push(r.clone());
            }
        }
        rows = keep;
    }
    let mut rays: Vec<Vec<i128>> = rows
        .into_iter()
        .map(|(y, _)| {
            let y: Vec<i128> = y[..n].to_vec();
            let g = y.iter().fold(0, |g, &x| gcd(g, x)).max(1);
            y.into_iter().map(|x| x / g).collect()
        })
        .filter(|y: &Vec<i128>| y.iter().any(|&x| x != 0))
        .collect();
    rays.sort();
    rays.dedup();
    rays
}

/// The structural bounds `saturn_model::bounded::structural_bounds` must find when it runs to
/// completion: from the minimal P-semiflows, and when they leave a place uncovered, also from
/// the minimal rays of `y^T C <= 0`; per place the least `floor(y·m0 / y_p)`.
pub fn structural_bounds(net: &PetriNet) -> Vec<Option<u128>> {
    let m0 = net.initial_marking();
    let mut bounds: Vec<Option<u128>> = vec![None; net.places.len()];
    for inequality in [false, true] {
        for y in minimal_rays(net, inequality) {
            let total: i128 = y.iter().zip(&m0).map(|(&c, &m)| c * m as i128).sum();
            for (p, &c) in y.iter().enumerate() {
                if c > 0 {
                    let b = (total / c) as u128;
                    bounds[p] = Some(bounds[p].map_or(b, |o| o.min(b)));
                }
            }
        }
        if bounds.iter().all(Option::is_some) {
            break;
        }
    }
    bounds
}
