//! Choosing orders before generation: a static estimate of an order's cost, and the candidates
//! of `--order auto` ranked by it.
//!
//! The estimate is the sum of the spans (highest level − lowest level) of the transitions and
//! of the P-semiflows' supports. Saturation fires an event at its top level and rebuilds the
//! nodes down to its bottom one, so short transition spans make firing cheap; a P-semiflow ties
//! its places' token counts together, and the diagram encodes that constraint on every level
//! between its lowest and highest place, so short semiflow spans keep the nodes few.

use super::{by_name_with, levels_of, span_of, Hypergraph, ORDER_NAMES, PORTFOLIO};
use crate::PetriNet;

/// How many of the best predicted orders `auto` runs (before the [`PORTFOLIO`] orders it
/// always keeps).
pub const AUTO_KEEP: usize = 2;

/// The order `auto` always adds: FORCE weighted against transitions of many places. Nets with
/// such hubs (RwMutex's writers take every reader's lock) get diagrams of a few nodes a level
/// from it and blow up under every other order (RwMutex-PT-r2000w0010: 0.13 s, predicted 3.2M
/// against 19.7M for the best other; every other order over 30 s). The prediction does not
/// always see it: DES-PT-20a takes 0.51 s with it alone and ran past 60 s in the portfolio
/// without it, where span-search is predicted best. It does not compete for the [`AUTO_KEEP`]
/// places, so the orders that won before keep theirs.
pub const HUB_ORDER: &str = "force-weighted";

/// The predicted cost of `order`: the transitions' spans plus the P-semiflows' spans (lower is
/// better).
pub fn predict(hg: &Hypergraph, order: &[usize]) -> u64 {
    let level = levels_of(hg.n, order);
    span_of(&hg.edges, &level) + span_of(&hg.semiflows, &level)
}

/// The candidates of `--order auto`, each with its name: the [`AUTO_KEEP`] orders of
/// [`ORDER_NAMES`] with the lowest [`predict`]ed cost (ties: the earlier name), best first,
/// then the [`PORTFOLIO`] orders not among them; an order equal to an earlier candidate is
/// dropped. [`HUB_ORDER`] is not among those ranked but always one more candidate: first
/// when its predicted cost is below every other's, else right after the predicted ones. `stop` is polled
/// by the heuristics (they then return what they have).
pub fn auto_orders(net: &PetriNet, stop: &dyn Fn() -> bool) -> Vec<(String, Vec<usize>)> {
    auto_orders_of(&Hypergraph::with_semiflows(net, stop), stop)
}

/// [`auto_orders`] on a hypergraph whose semiflows are already known (a net's, or a quotient's
/// from its net's: `saturn_model::OneHot`).
pub fn auto_orders_of(hg: &Hypergraph, stop: &dyn Fn() -> bool) -> Vec<(String, Vec<usize>)> {
    let mut scored: Vec<(u64, usize, Vec<usize>)> = ORDER_NAMES
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let order = by_name_with(hg, name, &mut || stop()).expect("a known order");
            (predict(hg, &order), i, order)
        })
        .collect();
    scored.sort_by_key(|s| (s.0, s.1));
    let hub = scored
        .iter()
        .position(|s| ORDER_NAMES[s.1] == HUB_ORDER)
        .map(|k| scored.remove(k));
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    let mut push = |name: &str, order: &Vec<usize>| {
        if !out.iter().any(|(_, o)| o == order) {
            out.push((name.to_string(), order.clone()));
        }
    };
    let hub_first = matches!((&hub, scored.first()), (Some(h), Some(best)) if h.0 < best.0);
    if let (true, Some((_, _, order))) = (hub_first, &hub) {
        push(HUB_ORDER, order);
    }
    for (_, i, order) in scored.iter().take(AUTO_KEEP) {
        push(ORDER_NAMES[*i], order);
    }
    if let (false, Some((_, _, order))) = (hub_first, &hub) {
        push(HUB_ORDER, order);
    }
    for name in PORTFOLIO {
        let (_, _, order) = scored
            .iter()
            .find(|s| ORDER_NAMES[s.1] == *name)
            .expect("the portfolio's orders are known");
        push(name, order);
    }
    out
}
