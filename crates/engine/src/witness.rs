//! An unboundedness witness in words, with the net's names: what a program shows for an
//! unbounded net (the CLI prints it as text and JSON).

use saturn_model::bounded::Witness;
use saturn_model::PetriNet;

/// A witness in words, with the net's place and transition names: the growing places, the
/// firing sequence to the pumpable marking, and the sequence that pumps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WitnessText {
    pub growing: Vec<String>,
    pub prefix: Vec<String>,
    pub pump: Vec<String>,
}

impl WitnessText {
    pub fn new(net: &PetriNet, w: &Witness) -> WitnessText {
        let t = |v: &[usize]| -> Vec<String> {
            v.iter().map(|&i| net.transitions[i].name.clone()).collect()
        };
        WitnessText {
            growing: w
                .growing
                .iter()
                .map(|&p| net.places[p].name.clone())
                .collect(),
            prefix: t(&w.prefix),
            pump: t(&w.pump),
        }
    }
}
