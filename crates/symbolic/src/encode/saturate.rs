//! Saturation (thesis Figure 2.10) of a general model on the one saturation kernel
//! ([`crate::reach`]): the encoding's forests are lent to a [`Dd`] context, a
//! [`Reach::general`] engine fires the events through their relations (Shannon expansion over
//! the supports, built on the fly over the local states found so far and rebuilt when a level
//! they read gains local states, united per Top as the thesis's `N_k`), and the forests are
//! handed back with the reachable states.

use saturn_dd::{Dd, Forest, NodeId, Reduction};
use saturn_model::GeneralModel;

use super::{EncodeError, Encoded};
use crate::limits::Limits;
use crate::reach::{Method, Reach};

/// The reachable states from `enc.init` by saturation; afterwards `enc.events` holds every
/// event's relation over the local states found (the reachable ones, at least).
pub fn explore_saturation(
    model: &GeneralModel,
    enc: &mut Encoded,
    limits: &Limits,
) -> Result<NodeId, EncodeError> {
    let k = enc.order.len();
    let sets = std::mem::replace(&mut enc.sets, Forest::new(k, Reduction::Quasi));
    let rels = std::mem::replace(&mut enc.rels, Forest::new(2 * k, Reduction::Identity));
    let mut dd = Dd::with_forests(sets, rels);
    let init = dd.pin(enc.init);
    let reached = {
        let mut reach = Reach::general(&mut dd, model, &enc.order);
        reach.set_limits(*limits);
        reach.explore(enc.init, Method::Saturation)
    };
    drop(init);
    (enc.sets, enc.rels) = dd.into_forests();
    let reached = reached.map_err(EncodeError::Interrupted)?;
    // every relation over the local states found (for counting and deadlocks)
    let known: Vec<Vec<u32>> = (0..=k)
        .map(|l| {
            let size = if l == 0 {
                0
            } else {
                model.vars[enc.order[l - 1]].size()
            };
            (0..u64::from(enc.sets.domain(l)).min(size) as u32).collect()
        })
        .collect();
    enc.build_relations(model, Some(&known));
    Ok(reached)
}
