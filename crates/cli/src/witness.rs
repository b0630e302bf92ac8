//! An unboundedness witness ([`saturn_engine::WitnessText`]) as `statespace` prints it and
//! `--json` carries it.

pub use saturn_engine::WitnessText;

/// The witness's text and JSON forms.
pub trait WitnessFormat {
    fn json(&self) -> serde_json::Value;
    /// Text lines for `statespace`.
    fn lines(&self) -> String;
}

impl WitnessFormat for WitnessText {
    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "growing_places": self.growing,
            "prefix": self.prefix,
            "pump": self.pump,
        })
    }

    fn lines(&self) -> String {
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
