//! A P-semiflow-aware order: the places of each P-semiflow kept on neighbouring levels, the
//! semiflows laid out along Sloan's order. A P-semiflow's weighted token sum is constant, so
//! its places are strongly correlated: kept together, the diagram encodes that constraint
//! across few levels (the intuition of the contest's P-semiflow orders, e.g. GreatSPN's).

use super::{sloan_with, Hypergraph};
use crate::bounded::{p_semiflow_supports, Limits};
use crate::PetriNet;

/// The work budget of [`semiflow_supports`]: small, an order must be cheap.
const SEMIFLOW_LIMITS: Limits = Limits {
    max_rows: 4_000,
    max_work: 20_000_000,
    max_search_bytes: 0,
};

/// The supports of the P-semiflows of `net` the Farkas algorithm finds within a small budget
/// (all of them on most nets; some or none on nets whose semiflows are too many).
pub fn semiflow_supports(net: &PetriNet, stop: &dyn Fn() -> bool) -> Vec<Vec<usize>> {
    p_semiflow_supports(net, &SEMIFLOW_LIMITS, stop).0
}

/// The P-semiflow order of a net.
pub fn semiflow_order(net: &PetriNet) -> Vec<usize> {
    semiflow_order_with(&Hypergraph::with_semiflows(net, &|| false), &mut || false)
}

/// The P-semiflow order of a hypergraph (Sloan's order when it has no semiflows). Each
/// semiflow gets the mean of its places' Sloan positions; semiflows are taken by that mean,
/// and each place goes with the first semiflow that covers it, at the semiflow's mean; places
/// in no semiflow keep their own Sloan position. Places are sorted by that key (ties: Sloan
/// position).
pub fn semiflow_order_with(hg: &Hypergraph, stop: &mut dyn FnMut() -> bool) -> Vec<usize> {
    let base = sloan_with(hg, stop);
    if hg.semiflows.is_empty() {
        return base;
    }
    let mut pos = vec![0usize; hg.n];
    for (k, &p) in base.iter().enumerate() {
        pos[p] = k;
    }
    let mut flows: Vec<(f64, &Vec<usize>)> = hg
        .semiflows
        .iter()
        .filter(|s| !s.is_empty() && s.iter().all(|&p| p < hg.n))
        .map(|s| {
            let mean = s.iter().map(|&p| pos[p] as f64).sum::<f64>() / s.len() as f64;
            (mean, s)
        })
        .collect();
    flows.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
    let mut key: Vec<Option<f64>> = vec![None; hg.n];
    for (mean, s) in &flows {
        for &p in s.iter() {
            key[p].get_or_insert(*mean);
        }
    }
    let mut order = base;
    order.sort_by(|&a, &b| {
        let ka = key[a].unwrap_or(pos[a] as f64);
        let kb = key[b].unwrap_or(pos[b] as f64);
        ka.total_cmp(&kb).then(pos[a].cmp(&pos[b]))
    });
    order
}
