//! An unboundedness witness in words, with the net's names: what `statespace` prints and
//! `--json` carries for an unbounded net.

use saturn_model::bounded::Witness;
use saturn_model::PetriNet;

/// A witness in words, with the net's place and transition names: the growing places, the
/// firing sequence to the pumpable marking, and the sequence that pumps it.
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

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "growing_places": self.growing,
            "prefix": self.prefix,
            "pump": self.pump,
        })
    }

    /// Text lines for `statespace`.
    pub fn lines(&self) -> String {
        let seq = |v: &[String]| {
            if v.is_empty() {
                "(nothing)".to_string()
            } else {
                v.join(" ")
            }
        };
        format!(
            "unbounded places: {}\nwitness: from the initial marking fire {}, then {} repeated forever makes those places grow\n",
            self.growing.join(", "),
            seq(&self.prefix),
            seq(&self.pump)
        )
    }
}
