//! How `statespace` and `mcc` show the figures of the engine's closed form, polytope and
//! scaling ([`saturn_engine`]) as JSON fields.

use saturn_engine::Figures;
use saturn_model::scaling::Scaling;
use saturn_symbolic::binary::PolytopeStateSpace;
use saturn_symbolic::statespace::ScaledFigures;
use serde_json::json;

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

/// The JSON fields of figures by scaling (`saturn statespace --json`, `saturn mcc --json`).
pub fn scaled_json(s: &Scaling, f: &ScaledFigures) -> serde_json::Value {
    json!({
        "engine": "scaled",
        "scale": s.factor,
        "scales_generated": f.points,
        "degree": f.degree,
        "states": f.states.to_string(),
        "transitions": f.transitions.to_string(),
        "max_tokens_place": f.max_local,
        "max_tokens_marking": f.max_sum,
    })
}
