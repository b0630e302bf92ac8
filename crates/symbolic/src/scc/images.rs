//! Forward and backward images over one set forest, for the SCC engines: the model's events as
//! identity-reduced relation MDDs (one per event, united per Top, the thesis's `N_k`), applied
//! by the relational product of Figure 2.8 as an image (`ImageF`) or a preimage (`ImageB`).
//! Both directions work on the same set-forest node ids, which the SCC algorithms need.

use saturn_dd::{image, preimage, unprimed_level, Forest, NodeId, Reduction};
use saturn_model::Model;

/// The next-state function of a model as relation MDDs over fixed local domains.
pub struct NextState {
    /// Identity-reduced, 2K levels.
    pub rels: Forest,
    /// `by_top[k]`: the union of the relations of the events whose Top is level `k`.
    by_top: Vec<NodeId>,
}

impl NextState {
    /// The relations of `model`'s events over the local states `0..domains[k-1]` of each level
    /// `k` (e.g. the domains of the forest holding the reachable states): a firing that leads
    /// beyond a domain is left out. Images of sets of reachable states are exact when the
    /// domains cover every reachable local state (a reachable state's successors are reachable,
    /// and a reachable predecessor's local states are in the domains).
    pub fn new(model: &Model, domains: &[u32]) -> NextState {
        let k = model.num_levels();
        let mut rels = Forest::new(2 * k, Reduction::Identity);
        let by_top = relations_by_top(&mut rels, model, domains, false);
        NextState { rels, by_top }
    }

    /// The relations united per Top (`[k]` for Top `k`; `[0]` is ONE when an event has an empty
    /// support, else EMPTY).
    pub fn by_top(&self) -> &[NodeId] {
        &self.by_top
    }

    /// The whole next-state relation `N` as one relation node of [`NextState::rels`].
    pub fn relation(&mut self) -> NodeId {
        let parts = self.by_top.clone();
        self.rels.union_all(&parts)
    }

    /// `ImageF(s)`: the successors of the states of `s` (a node of `sets`).
    pub fn forward(&self, sets: &mut Forest, s: NodeId) -> NodeId {
        self.apply(sets, s, false)
    }

    /// `ImageB(s)`: the predecessors of the states of `s` (a node of `sets`).
    pub fn backward(&self, sets: &mut Forest, s: NodeId) -> NodeId {
        self.apply(sets, s, true)
    }

    fn apply(&self, sets: &mut Forest, s: NodeId, back: bool) -> NodeId {
        let mut acc = NodeId::EMPTY;
        for &r in &self.by_top {
            if r.is_empty() {
                continue;
            }
            let t = if back {
                preimage(sets, &self.rels, s, r)
            } else {
                image(sets, &self.rels, s, r)
            };
            acc = sets.union(acc, t);
        }
        acc
    }
}

/// The next-state relation of `model` (or, with `backward`, its transpose `P`) in the
/// identity-reduced forest `rels`, one relation per Top level (`[k]` unites the events whose Top
/// is level `k`, the thesis's `N_k`; `[0]` is ONE when an event has an empty support, else
/// EMPTY), over the local states `0..domains[k-1]` of each level `k`: a firing that leads beyond
/// a domain is left out. Declares the domains in `rels` first (a part relating only some local
/// states to themselves must not look like the identity).
pub fn relations_by_top(
    rels: &mut Forest,
    model: &Model,
    domains: &[u32],
    backward: bool,
) -> Vec<NodeId> {
    let k = model.num_levels();
    assert_eq!(domains.len(), k, "one domain size per level");
    for (l, &d) in domains.iter().enumerate() {
        let lvl = unprimed_level(l + 1);
        if rels.domain(lvl) < d.max(1) {
            rels.set_domain(lvl, d.max(1));
        }
    }
    let mut by_top = vec![NodeId::EMPTY; k + 1];
    for ev in &model.events {
        let parts: Vec<(usize, Vec<(u32, u32)>)> = ev
            .parts
            .iter()
            .map(|(l, f)| {
                let dom = domains[l - 1];
                let pairs = (0..dom)
                    .filter_map(|i| f.fire(i).filter(|&j| j < dom).map(|j| (i, j)))
                    .map(|(i, j)| if backward { (j, i) } else { (i, j) })
                    .collect();
                (*l, pairs)
            })
            .collect();
        let r = if parts.is_empty() {
            NodeId::ONE
        } else {
            rels.relation_from_local(&parts)
        };
        let top = ev.top();
        by_top[top] = rels.union(by_top[top], r);
    }
    by_top
}
