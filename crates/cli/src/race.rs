//! State-space generation raced against a proof of unboundedness (issue 12, item 1).
//!
//! A net may have no token bound; saturation on it grows a level's domain until a limit stops
//! it. So every net run first asks for structural bounds within a small budget ([`unsettled`],
//! on the caller's thread: they settle most bounded nets at once, and then generation runs
//! alone). Otherwise two procedures start at once, first to finish wins:
//! - the symbolic generation (main thread);
//! - on a second thread, [`saturn_model::bounded::decide_boundedness_with`]: structural bounds
//!   from P-semiflows with the full budget, then random walks and a Karp-Miller search for an
//!   unboundedness witness on the places the bounds leave uncovered.
//!
//! A witness cancels the generation and is the answer (`+inf`); a finished generation cancels
//! the search. When generation stops because a token count is too large to store, the search
//! is given the rest of the run's limits to find a witness; without one the run ends as out of
//! memory, never as a claim of unboundedness. Every witness is replayed on the net before it
//! is reported.

use std::sync::atomic::{AtomicBool, Ordering};

use saturn_model::bounded::{self, Boundedness, StructuralBounds, Witness};
use saturn_model::{Model, PetriNet};
use saturn_symbolic::statespace::{generate_portfolio, StateSpace};
use saturn_symbolic::{Interrupted, Limits, Method, Relations};

/// How a raced run ends.
pub enum Outcome {
    /// The state space, generated with candidate order `won`.
    Generated { won: usize, ss: Box<StateSpace> },
    /// The net is unbounded; the witness replays on it (given in words, with the net's names).
    Unbounded(WitnessText),
}

/// Memory the witness search may use for its markings while it races the generation (kept
/// small: on a bounded net the search only costs, and peak memory is a feature).
const RACE_SEARCH_BYTES: usize = 16 << 20;

/// The work budget of [`unsettled`] (a tenth of the default: at most a few tenths of a
/// second).
const QUICK_STRUCTURAL_WORK: u64 = 40_000_000;

/// Memory the witness search may use after generation gave up on a token count too large to
/// store: 512 MiB, or a quarter of the memory limit when one is set.
fn search_bytes(limits: &Limits) -> usize {
    let cap = 512usize << 20;
    match limits.max_memory {
        Some(m) => cap.min(usize::try_from(m / 4).unwrap_or(cap)).max(1 << 20),
        None => cap,
    }
}

/// A quick structural analysis of `net`: `None` when it settles boundedness (every place
/// covered by a P-semiflow or a ray of `y^T C <= 0`), else the bounds it found, for the race to
/// go on from. Run on the caller's thread before generation, within a small budget: it settles
/// most bounded nets in a fraction of generation's time, and then no witness search runs beside
/// the generation (whose memory would add to generation's peak) and the net itself need not be
/// kept.
pub fn unsettled(net: &PetriNet, limits: &Limits) -> Option<StructuralBounds> {
    let quick = bounded::Limits {
        max_work: QUICK_STRUCTURAL_WORK,
        ..bounded::Limits::default()
    };
    let st = bounded::structural_bounds(net, &quick, &|| limits.check().is_err());
    (!st.all_covered()).then_some(st)
}

/// The net and the quick structural bounds (from [`unsettled`]) a race starts from.
pub type Race<'n> = (&'n PetriNet, StructuralBounds);

/// Generate the state space of the net lowered to `models` (one per candidate order) while a
/// second thread looks for an unboundedness witness in `race` (`None`: generation only); the
/// search goes on from the quick structural bounds when they ran to completion.
pub fn generate_or_witness(
    race: Option<Race<'_>>,
    models: &[Model],
    method: Method,
    relations: Relations,
    limits: Limits,
    progress: Option<saturn_symbolic::Progress>,
) -> Result<Outcome, Interrupted> {
    let Some((net, quick)) = race else {
        return generate_portfolio(models, method, relations, limits, progress).map(|(won, ss)| {
            Outcome::Generated {
                won,
                ss: Box::new(ss),
            }
        });
    };
    // One flag per run, shared with the engine's limits (which need a `'static` reference).
    let cancel_generation: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let stop_search = AtomicBool::new(false);
    let race_limits = bounded::Limits {
        max_search_bytes: RACE_SEARCH_BYTES.min(search_bytes(&limits)),
        ..bounded::Limits::default()
    };
    let gen_limits = Limits {
        cancel: Some(cancel_generation),
        ..limits
    };
    std::thread::scope(|scope| {
        let searcher = scope.spawn(|| {
            let stop = || stop_search.load(Ordering::Relaxed) || limits.check().is_err();
            let verdict =
                bounded::decide_boundedness_from(net, Some(quick.clone()), &race_limits, &stop);
            match verdict {
                Boundedness::Unbounded { witness } if bounded::replay(net, &witness).is_ok() => {
                    cancel_generation.store(true, Ordering::Relaxed);
                    Some(witness)
                }
                _ => None,
            }
        });
        let generated = generate_portfolio(models, method, relations, gen_limits, progress);
        match generated {
            Ok((won, ss)) => {
                stop_search.store(true, Ordering::Relaxed);
                // A witness found in the meantime is moot: the net was finite after all
                // (a witness replays, so this cannot happen; the join only reclaims the thread).
                let _ = searcher.join();
                Ok(Outcome::Generated {
                    won,
                    ss: Box::new(ss),
                })
            }
            Err(e) => {
                // After a cancel or a token count too large to store, the search decides: it
                // stops by itself at the run's limits or its marking budget. After any other
                // stop it is stopped too, but a witness it already has is still the answer.
                if !matches!(e, Interrupted::Cancelled | Interrupted::IndexTooLarge) {
                    stop_search.store(true, Ordering::Relaxed);
                }
                match searcher.join() {
                    Ok(Some(w)) => Ok(Outcome::Unbounded(WitnessText::new(net, &w))),
                    _ if e == Interrupted::IndexTooLarge => {
                        // the race's search may have run out of its small budget: once more
                        // with the full one, now that generation's memory is free
                        let full = bounded::Limits {
                            max_search_bytes: search_bytes(&limits),
                            ..bounded::Limits::default()
                        };
                        let stop = || limits.check().is_err();
                        match bounded::decide_boundedness_from(
                            net,
                            Some(quick.clone()),
                            &full,
                            &stop,
                        ) {
                            Boundedness::Unbounded { witness }
                                if bounded::replay(net, &witness).is_ok() =>
                            {
                                Ok(Outcome::Unbounded(WitnessText::new(net, &witness)))
                            }
                            _ => Err(limits.check().err().unwrap_or(e)),
                        }
                    }
                    _ => Err(limits.check().err().unwrap_or(e)),
                }
            }
        }
    })
}

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
