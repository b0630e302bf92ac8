//! Structural bounds from the extreme rays of `{y >= 0 : y^T C <= 0}`, by the Farkas /
//! Martinez-Silva algorithm (the double description method over the incidence matrix `C`),
//! in exact integer arithmetic.

use super::farkas::{farkas, Mode, Row};
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
    let m0 = net.initial_marking();
    for mode in [Mode::Equality, Mode::Inequality] {
        let Some(incidence) = incidence_rows(net) else {
            return result;
        };
        let (rays, complete) = farkas(incidence, net.transitions.len(), mode, limits, stop);
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
    let (flows, complete) = p_semiflows(net, limits, stop);
    let supports = flows
        .into_iter()
        .map(|f| f.into_iter().map(|(p, _)| p).collect())
        .collect();
    (supports, complete)
}

/// The minimal P-semiflows (`y >= 0`, `y^T C = 0`, as sparse `(place, coefficient)` rows
/// sorted by place) the Farkas algorithm finds within `limits`, and whether it ran to
/// completion. Inhibitor arcs are ignored.
pub fn p_semiflows(
    net: &PetriNet,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
) -> (Vec<Vec<(usize, i64)>>, bool) {
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
    let flows = rays
        .iter()
        .filter(|r| r.v.is_empty())
        .map(|r| r.y.iter().map(|e| (e.0 as usize, e.1)).collect())
        .collect();
    (flows, complete)
}

/// The supports (sorted transitions) of the minimal T-semiflows (`x >= 0`, `C x = 0`: firing
/// counts that lead back to the marking they start from) the Farkas algorithm finds within
/// `limits`, and whether it ran to completion (then every T-semiflow is a nonnegative
/// combination of those found). Computed as the P-semiflows of the dual net (a place per
/// transition, a transition per place, incidence `C^T`). Inhibitor arcs are ignored.
pub fn t_semiflow_supports(
    net: &PetriNet,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
) -> (Vec<Vec<usize>>, bool) {
    let mut dual = PetriNet {
        name: String::new(),
        places: (0..net.transitions.len())
            .map(|_| crate::Place {
                id: String::new(),
                name: String::new(),
                initial: 0,
            })
            .collect(),
        transitions: vec![crate::Transition::default(); net.places.len()],
    };
    for (t, tr) in net.transitions.iter().enumerate() {
        let mut effect: Vec<(usize, i128)> = Vec::new();
        for a in &tr.inputs {
            effect.push((a.place, -i128::from(a.weight)));
        }
        for a in &tr.outputs {
            effect.push((a.place, i128::from(a.weight)));
        }
        effect.sort_unstable_by_key(|e| e.0);
        let mut i = 0;
        while i < effect.len() {
            let p = effect[i].0;
            let mut c = 0i128;
            while i < effect.len() && effect[i].0 == p {
                c += effect[i].1;
                i += 1;
            }
            let Ok(w) = u64::try_from(c.unsigned_abs()) else {
                return (Vec::new(), false);
            };
            let arc = crate::Arc {
                place: t,
                weight: w,
            };
            match c.signum() {
                1 => dual.transitions[p].outputs.push(arc),
                -1 => dual.transitions[p].inputs.push(arc),
                _ => {}
            }
        }
    }
    p_semiflow_supports(&dual, limits, stop)
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
