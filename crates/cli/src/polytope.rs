//! The StateSpace figures of a bounded net with many tokens per place from the polytope of its
//! P-semiflows on binary counters (issue 12, [`saturn_symbolic::binary`]), raced beside the
//! generation ([`crate::race`]): first to finish answers; when no ranking proves every marking
//! of the polytope reachable the racer just ends, and the generation goes on alone.

use saturn_model::bounded::{self, StructuralBounds};
use saturn_model::state_machine::{state_machine_figures, Figures};
use saturn_model::PetriNet;
use saturn_symbolic::binary::{polytope_state_space, PolytopeStateSpace};
use saturn_symbolic::Limits;
use serde_json::json;

use crate::args::{ExplicitArg, OrderArg, PolytopeArg};

/// Tried only when some place may hold at least this many tokens: below it, one level per
/// count is as small.
const WIDE: u64 = 16;

/// The most nodes the polytope's diagram may take (ClientsAndServers-PT-N0020P0: 4.4 million,
/// proved in 43 s).
const MAX_NODES: usize = 8_000_000;

/// What the racer needs: the net, every place's structural bound, the P-semiflows and the
/// place order within a block of bits.
pub struct Polytope<'n> {
    pub net: &'n PetriNet,
    bounds: Vec<u64>,
    flows: Vec<Vec<(usize, i64)>>,
    /// The minimal T-semiflows' supports, when the quick budget found them all.
    t_flows: Option<Vec<Vec<usize>>>,
    order: Vec<usize>,
}

impl<'n> Polytope<'n> {
    /// Does a run race the polytope: `--polytope auto` with the order portfolio (`--order
    /// auto`, as the explicit search: a run with one given order stays one generation, its
    /// memory its own), not the explicit search alone, the quick structural bounds cover every
    /// place and one of them is wide?
    pub fn wanted(
        bounds: Option<&StructuralBounds>,
        arg: PolytopeArg,
        explicit: ExplicitArg,
        order: OrderArg,
    ) -> bool {
        arg == PolytopeArg::Auto
            && order == OrderArg::Auto
            && explicit != ExplicitArg::Only
            && bounds.is_some_and(|b| {
                b.all_covered() && b.bounds.iter().any(|x| x.is_some_and(|x| x >= WIDE))
            })
    }

    /// The racer, when `--polytope auto` asks for it, the run is not the explicit search
    /// alone, the quick structural bounds cover every place, one of them is wide, and the net
    /// has P-semiflows (within the quick structural budget).
    pub fn new(
        net: &'n PetriNet,
        bounds: Option<&StructuralBounds>,
        arg: PolytopeArg,
        explicit: ExplicitArg,
        order: OrderArg,
        limits: &Limits,
    ) -> Option<Polytope<'n>> {
        if !Polytope::wanted(bounds, arg, explicit, order) {
            return None;
        }
        let b: Vec<u64> = bounds?.bounds.iter().copied().collect::<Option<_>>()?;
        let stop = limits.stopper();
        let quick = bounded::Limits {
            max_work: crate::race::QUICK_STRUCTURAL_WORK,
            ..bounded::Limits::default()
        };
        let (flows, _) = bounded::p_semiflows(net, &quick, &stop);
        if flows.is_empty() {
            return None;
        }
        let (t_flows, complete) = bounded::t_semiflow_supports(net, &quick, &stop);
        let t_flows = complete.then_some(t_flows);
        let order = saturn_model::order::by_name(net, "force")
            .unwrap_or_else(|_| saturn_model::order::file_order(net));
        Some(Polytope {
            net,
            bounds: b,
            flows,
            t_flows,
            order,
        })
    }

    /// The figures, or `None` when no ranking proves the polytope reachable, the diagram grows
    /// too large, or `limits` stop it.
    pub fn run(&self, limits: &Limits) -> Option<PolytopeStateSpace> {
        polytope_state_space(
            self.net,
            &self.bounds,
            &self.flows,
            self.t_flows.as_deref(),
            &self.order,
            limits,
            MAX_NODES,
        )
        .ok()
        .flatten()
    }
}

/// The figures of a strongly connected state machine in closed form
/// ([`saturn_model::state_machine`]: its polytope, one token count per component, is reachable
/// by structure alone), when `--polytope auto` asks for the polytope and the run is not the
/// explicit search alone.
pub fn closed_form(net: &PetriNet, arg: PolytopeArg, explicit: ExplicitArg) -> Option<Figures> {
    if arg == PolytopeArg::Off || explicit == ExplicitArg::Only {
        return None;
    }
    state_machine_figures(net)
}

/// The contest's four lines of the closed form (topological: from the net's structure).
pub fn closed_form_lines(f: &Figures) -> Vec<String> {
    vec![
        format!("STATE_SPACE STATES {} TECHNIQUES TOPOLOGICAL", f.states),
        format!(
            "STATE_SPACE TRANSITIONS {} TECHNIQUES TOPOLOGICAL",
            f.transitions
        ),
        format!(
            "STATE_SPACE MAX_TOKEN_IN_PLACE {} TECHNIQUES TOPOLOGICAL",
            f.max_local
        ),
        format!(
            "STATE_SPACE MAX_TOKEN_PER_MARKING {} TECHNIQUES TOPOLOGICAL",
            f.max_sum
        ),
    ]
}

/// The JSON fields of the closed form.
pub fn closed_form_json(f: &Figures) -> serde_json::Value {
    json!({
        "engine": "state-machine",
        "states": f.states.to_string(),
        "transitions": f.transitions.to_string(),
        "max_tokens_place": f.max_local,
        "max_tokens_marking": f.max_sum,
    })
}

/// The contest's four lines (`techniques`: `TECHNIQUES ...`): the figures rest on the net's
/// P-semiflows and a ranking (topological), on decision diagrams.
pub fn polytope_lines(p: &PolytopeStateSpace, techniques: &str) -> Vec<String> {
    let m = &p.metrics;
    vec![
        format!("STATE_SPACE STATES {} {techniques} TOPOLOGICAL", m.states),
        format!(
            "STATE_SPACE TRANSITIONS {} {techniques} TOPOLOGICAL",
            m.transitions
        ),
        format!(
            "STATE_SPACE MAX_TOKEN_IN_PLACE {} {techniques} TOPOLOGICAL",
            m.max_local
        ),
        format!(
            "STATE_SPACE MAX_TOKEN_PER_MARKING {} {techniques} TOPOLOGICAL",
            m.max_sum
        ),
    ]
}

/// The JSON fields of figures from the polytope (`saturn statespace --json`, `saturn mcc
/// --json`).
pub fn polytope_json(p: &PolytopeStateSpace) -> serde_json::Value {
    json!({
        "engine": "polytope",
        "ranking": p.ranking,
        "ranking_runs": p.runs,
        "polytope_unreachable": p.unreachable.to_string(),
        "boolean_levels": p.levels,
        "nodes_final": p.metrics.nodes,
        "states": p.metrics.states.to_string(),
        "transitions": p.metrics.transitions.to_string(),
        "max_tokens_place": p.metrics.max_local,
        "max_tokens_marking": p.metrics.max_sum,
    })
}
