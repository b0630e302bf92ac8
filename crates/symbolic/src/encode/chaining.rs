//! Generation by chaining (a breadth-first variant): each event's image is added to the growing
//! set in turn, until nothing new appears. Kept as the simple, independent alternative to
//! saturation ([`super::saturate`]) for cross-checking and for `--method bfs`.

use saturn_dd::{image, NodeId};

use saturn_model::GeneralModel;

use super::{EncodeError, Encoded};
use crate::limits::Limits;

/// The reachable states from `enc.init`, by chained images (each event applied in turn to the
/// growing set until nothing new appears). The limits are checked between rounds.
pub fn explore_chaining(
    model: &GeneralModel,
    enc: &mut Encoded,
    limits: &Limits,
) -> Result<NodeId, EncodeError> {
    enc.build_relations(model, None);
    let mut s = enc.init;
    // events with higher tops first tends to give fewer iterations
    let mut idx: Vec<usize> = (0..enc.events.len()).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(enc.rels.relation_top(enc.events[i])));
    loop {
        let old = s;
        for &i in &idx {
            let t = image(&mut enc.sets, &enc.rels, s, enc.events[i]);
            s = enc.sets.union(s, t);
        }
        if s == old {
            return Ok(s);
        }
        limits.check().map_err(EncodeError::Interrupted)?;
        let mut keep = enc.keep();
        keep.push(s);
        enc.sets.maybe_gc(&keep);
    }
}
