//! A small builder for the generated nets: places and transitions by name, arcs merged by kind.

use crate::{Arc, PetriNet, Place, Transition};

/// A small builder: places and transitions by name, arcs merged by kind.
pub(super) struct Builder {
    pub(super) net: PetriNet,
    place_ix: std::collections::HashMap<String, usize>,
    trans_ix: std::collections::HashMap<String, usize>,
}

#[derive(Clone, Copy)]
enum Dir {
    In,
    Out,
    Inhibit,
}

impl Builder {
    pub(super) fn new(name: String) -> Self {
        Builder {
            net: PetriNet {
                name,
                ..PetriNet::default()
            },
            place_ix: Default::default(),
            trans_ix: Default::default(),
        }
    }
    /// A new place; its index.
    pub(super) fn place(&mut self, id: String, initial: u64) -> usize {
        let ix = self.net.places.len();
        self.place_ix.insert(id.clone(), ix);
        self.net.places.push(Place {
            name: id.clone(),
            id,
            initial,
        });
        ix
    }
    /// A new transition; its index.
    pub(super) fn trans(&mut self, id: String) -> usize {
        let ix = self.net.transitions.len();
        self.trans_ix.insert(id.clone(), ix);
        self.net.transitions.push(Transition {
            name: id.clone(),
            id,
            ..Transition::default()
        });
        ix
    }
    fn arc(&mut self, dir: Dir, place: &str, trans: &str, weight: u64) {
        let (p, t) = (self.place_ix[place], self.trans_ix[trans]);
        self.arc_at(dir, p, t, weight);
    }
    /// An arc between place `p` and transition `t` by index (no name formatted or looked up:
    /// the large families).
    fn arc_at(&mut self, dir: Dir, p: usize, t: usize, weight: u64) {
        let t = &mut self.net.transitions[t];
        let list = match dir {
            Dir::In => &mut t.inputs,
            Dir::Out => &mut t.outputs,
            Dir::Inhibit => &mut t.inhibitors,
        };
        match list.iter_mut().find(|a| a.place == p) {
            Some(a) => a.weight += weight,
            None => list.push(Arc { place: p, weight }),
        }
    }
    /// Input arc place -> transition by index, weight 1.
    pub(super) fn input_at(&mut self, place: usize, trans: usize) {
        self.arc_at(Dir::In, place, trans, 1);
    }
    /// Output arc transition -> place by index, weight 1.
    pub(super) fn output_at(&mut self, trans: usize, place: usize) {
        self.arc_at(Dir::Out, place, trans, 1);
    }
    /// Input arc place -> transition, weight 1.
    pub(super) fn input(&mut self, place: &str, trans: &str) {
        self.arc(Dir::In, place, trans, 1);
    }
    /// Output arc transition -> place, weight 1.
    pub(super) fn output(&mut self, trans: &str, place: &str) {
        self.arc(Dir::Out, place, trans, 1);
    }
    /// Inhibitor arc of weight 1: `trans` needs `place` empty.
    pub(super) fn inhibit(&mut self, place: &str, trans: &str) {
        self.arc(Dir::Inhibit, place, trans, 1);
    }
    /// A read arc (input and output of weight 1): `trans` needs a token in `place` and leaves it.
    pub(super) fn read(&mut self, place: &str, trans: &str) {
        self.input(place, trans);
        self.output(trans, place);
    }
}
