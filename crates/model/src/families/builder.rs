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
    pub(super) fn place(&mut self, id: String, initial: u64) {
        self.place_ix.insert(id.clone(), self.net.places.len());
        self.net.places.push(Place {
            name: id.clone(),
            id,
            initial,
        });
    }
    pub(super) fn trans(&mut self, id: String) {
        self.trans_ix.insert(id.clone(), self.net.transitions.len());
        self.net.transitions.push(Transition {
            name: id.clone(),
            id,
            ..Transition::default()
        });
    }
    fn arc(&mut self, dir: Dir, place: &str, trans: &str, weight: u64) {
        let p = self.place_ix[place];
        let t = &mut self.net.transitions[self.trans_ix[trans]];
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
