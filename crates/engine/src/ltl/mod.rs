//! How LTL formulas are decided on a net (issue 48; as library code, issue 49 item 1): the
//! explicit on-the-fly product ([`saturn_ltl::check_net`]), the CTL engines for formulas that
//! are CTL in disguise ([`saturn_ltl::ctl_equivalent`]), and the symbolic product with
//! fair-cycle emptiness ([`saturn_symbolic::ltl`]), scheduled by [`Method::Auto`] as a
//! portfolio:
//!
//! 1. a race on two threads: the explicit search, each formula with an equal share of half
//!    the time left and at most [`FIRST_BYTES`] (most counterexamples are found within a few
//!    hundred product states), against the symbolic engines: the net's state space generated
//!    once (the caller's lowering, [`crate::reachable`]), then each formula by the CTL engines
//!    if it is CTL in disguise, else by the symbolic product, each with an equal share of half
//!    the time left. The first engine to decide a formula wins; the other skips it;
//! 2. the formulas neither decided: the explicit search again, with all the time and memory
//!    left.
//!
//! A verdict is never guessed: a formula no engine decided within its limits stays undecided.
//! Nothing here prints: what the caller may want to tell (why a counterexample is missing)
//! is in [`Decided::note`].

mod symbolic;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use saturn_logic::PathFormula;
use saturn_ltl::{Counterexample, Deadlocks, Limits as LtlLimits, LtlError};
use saturn_model::{Model, PetriNet};
use saturn_symbolic::ctl::FairMethod;
use saturn_symbolic::ltl::Placement;
use saturn_symbolic::{Limits, Method as GenMethod, Progress, Relations};

use symbolic::{shortest_counterexamples, symbolic_round};

/// The memory of the first explicit round (bytes).
pub const FIRST_BYTES: usize = 256 << 20;

/// How LTL formulas are decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// The portfolio: a short explicit search, then the CTL engines or the symbolic product,
    /// then the explicit search with what is left.
    #[default]
    Auto,
    /// The explicit on-the-fly product alone (Couvreur's SCC search).
    Explicit,
    /// The symbolic product, emptiness by the Emerson-Lei fixpoint (saturation-based EU).
    El,
    /// The symbolic product, emptiness by the transitive closure (thesis Figure 4.8).
    Tc,
}

/// Which engine decided a formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Explicit,
    Ctl,
    Product(FairMethod),
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Explicit => "explicit",
            Engine::Ctl => "ctl",
            Engine::Product(FairMethod::EmersonLei) => "product-el",
            Engine::Product(FairMethod::Tc) => "product-tc",
        }
    }

    /// The contest's technique words.
    pub fn techniques(self) -> &'static str {
        match self {
            Engine::Explicit => "TECHNIQUES EXPLICIT LTL_AUTOMATA",
            Engine::Ctl => "TECHNIQUES DECISION_DIAGRAMS SATURATION",
            Engine::Product(_) => "TECHNIQUES DECISION_DIAGRAMS SATURATION LTL_AUTOMATA",
        }
    }
}

/// A decided formula.
#[derive(Clone, Debug)]
pub struct Decided {
    pub holds: bool,
    pub engine: Engine,
    /// Markings stored (explicit) or reachable (symbolic).
    pub markings: String,
    /// Product states stored (explicit) or reachable (symbolic product); none for CTL.
    pub product_states: Option<String>,
    pub automaton_states: Option<usize>,
    /// Did the explicit product use partial-order reduction?
    pub partial_order: bool,
    pub counterexample: Option<Counterexample>,
    /// Is the counterexample a shortest one (from the symbolic product)?
    pub shortest: bool,
    /// Why a formula found false has no counterexample, or not a shortest one (asked for
    /// with [`Run::witness`]).
    pub note: Option<String>,
}

impl Decided {
    /// The contest's technique words.
    pub fn techniques(&self) -> String {
        let mut t = self.engine.techniques().to_string();
        if self.partial_order {
            t.push_str(" PARTIAL_ORDER");
        }
        t
    }
}

/// How the net's state space is generated for the symbolic engines.
#[derive(Clone, Copy)]
pub struct Generation<'a> {
    /// The candidate models (the net lowered with each order of the portfolio), given the
    /// seconds left (`None`: no deadline).
    pub lower: &'a (dyn Fn(Option<u64>) -> Result<Vec<Model>, String> + Sync),
    pub method: GenMethod,
    pub relations: Relations,
    /// Race the models as the order portfolio (else the first one alone).
    pub portfolio: bool,
    /// A progress reporter for each generation.
    pub progress: &'a (dyn Fn() -> Option<Progress> + Sync),
}

/// What the schedule needs besides the formulas.
pub struct Run<'a> {
    pub net: &'a PetriNet,
    pub deadlocks: Deadlocks,
    pub method: Method,
    /// Where the symbolic product puts the automaton's level.
    pub placement: Placement,
    pub generation: Generation<'a>,
    /// The limits of the whole run (deadline, memory).
    pub limits: Limits,
    /// The explicit product's memory.
    pub max_bytes: usize,
    /// Partial-order reduction in the explicit product (stubborn sets when the formula is
    /// stutter-insensitive).
    pub partial_order: bool,
    /// Find a counterexample for each formula that fails.
    pub witness: bool,
}

impl Run<'_> {
    fn options(&self) -> saturn_ltl::Options {
        saturn_ltl::Options {
            partial_order: self.partial_order,
        }
    }

    /// The fair-cycle method of the symbolic product.
    fn fair(&self) -> FairMethod {
        match self.method {
            Method::Tc => FairMethod::Tc,
            _ => FairMethod::EmersonLei,
        }
    }
}

/// The verdicts being found, one slot per formula, shared by the racing engines: the first
/// engine to decide a formula wins, the others skip it.
pub(crate) struct Slots<'p> {
    pub(crate) phis: &'p [Option<PathFormula>],
    slots: Vec<Mutex<Result<Decided, String>>>,
    /// Raised when the formula is decided: the engine still on it stops (the flags are
    /// leaked, a byte a formula, as the limits' flags are `'static`).
    pub(crate) decided: Vec<&'static AtomicBool>,
}

impl<'p> Slots<'p> {
    pub(crate) fn new(phis: &'p [Option<PathFormula>]) -> Self {
        let slots = phis
            .iter()
            .map(|p| {
                Mutex::new(Err(match p {
                    Some(_) => "not checked".to_string(),
                    None => "not an LTL formula (A over a path formula)".to_string(),
                }))
            })
            .collect();
        let decided = phis
            .iter()
            .map(|_| &*Box::leak(Box::new(AtomicBool::new(false))))
            .collect();
        Slots {
            phis,
            slots,
            decided,
        }
    }

    pub(crate) fn lock(&self, n: usize) -> std::sync::MutexGuard<'_, Result<Decided, String>> {
        self.slots[n].lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn open(&self, n: usize) -> bool {
        self.phis[n].is_some() && self.lock(n).is_err()
    }

    /// The open formulas from `from` on.
    pub(crate) fn open_from(&self, from: usize) -> usize {
        (from..self.phis.len()).filter(|&n| self.open(n)).count()
    }

    /// Keep `r` unless the formula is decided already (a reason replaces a reason).
    pub(crate) fn offer(&self, n: usize, r: Result<Decided, String>) {
        let mut slot = self.lock(n);
        if slot.is_err() {
            if r.is_ok() {
                self.decided[n].store(true, Ordering::Relaxed);
            }
            *slot = r;
        }
    }

    pub(crate) fn into_results(self) -> Vec<Result<Decided, String>> {
        self.slots
            .into_iter()
            .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect()
    }
}

/// An equal share of `1/fraction` of the time left for each of `open` formulas.
pub(crate) fn share(deadline: Option<Instant>, open: usize, fraction: u32) -> Option<Instant> {
    deadline.map(|d| {
        let now = Instant::now();
        now + d.saturating_duration_since(now) / (open.max(1) as u32 * fraction)
    })
}

/// The explicit search on every open formula, each with an equal share of `1/fraction` of the
/// time left, at most `bytes` of memory.
fn explicit_round(run: &Run, slots: &Slots, fraction: u32, bytes: usize) {
    for n in 0..slots.phis.len() {
        let Some(phi) = slots.phis[n].as_ref().filter(|_| slots.open(n)) else {
            continue;
        };
        let dl = share(run.limits.deadline, slots.open_from(n), fraction);
        let r = explicit(run, phi, dl, bytes, Some(slots.decided[n]));
        slots.offer(n, r);
    }
}

/// Decide every formula (`None`: not an LTL formula, left undecided with that reason).
pub fn decide_all(run: &Run, phis: &[Option<PathFormula>]) -> Vec<Result<Decided, String>> {
    let slots = Slots::new(phis);
    let sym = match run.method {
        Method::Explicit => {
            explicit_round(run, &slots, 1, run.max_bytes);
            None
        }
        Method::El | Method::Tc => symbolic_round(run, &slots, 1),
        Method::Auto => {
            // the race: the explicit search (small memory) on a thread of its own, the
            // symbolic engines here, each within half the time left; then the explicit
            // search with all that is left on the formulas neither decided
            let sym = std::thread::scope(|sc| {
                sc.spawn(|| explicit_round(run, &slots, 2, run.max_bytes.min(FIRST_BYTES)));
                symbolic_round(run, &slots, 2)
            });
            explicit_round(run, &slots, 1, run.max_bytes);
            sym
        }
    };
    let mut out = slots.into_results();
    if run.witness {
        if run.method != Method::Explicit {
            shortest_counterexamples(run, phis, &mut out, sym);
        }
        // the explicit search's counterexample where the symbolic product gave none
        for (d, phi) in out.iter_mut().zip(phis) {
            if let (Ok(d), Some(phi)) = (d, phi) {
                if !d.holds && d.counterexample.is_none() {
                    let limits = LtlLimits {
                        deadline: run.limits.deadline,
                        max_bytes: Some(run.max_bytes),
                        cancel: None,
                    };
                    match saturn_ltl::check_net_with(
                        run.net,
                        phi,
                        run.deadlocks,
                        limits,
                        run.options(),
                    ) {
                        Ok(v) => d.counterexample = v.counterexample,
                        Err(e) => d.note = Some(format!("no counterexample: {e}")),
                    }
                }
            }
        }
    }
    out
}

/// The explicit on-the-fly product within `deadline` and `bytes`.
fn explicit(
    run: &Run,
    phi: &PathFormula,
    deadline: Option<Instant>,
    bytes: usize,
    cancel: Option<&'static AtomicBool>,
) -> Result<Decided, String> {
    let limits = LtlLimits {
        deadline,
        max_bytes: Some(bytes),
        cancel,
    };
    match saturn_ltl::check_net_with(run.net, phi, run.deadlocks, limits, run.options()) {
        Ok(v) => Ok(Decided {
            partial_order: v.partial_order,
            holds: v.holds,
            engine: Engine::Explicit,
            markings: v.markings.to_string(),
            product_states: Some(v.product_states.to_string()),
            automaton_states: Some(v.automaton_states),
            counterexample: v.counterexample,
            shortest: false,
            note: None,
        }),
        Err(LtlError::Stopped(s)) => Err(s.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    //! The portfolio as a library caller gets it, every [`Method`], against the explicit
    //! reference (whole reachability graph × automaton, Tarjan: `saturn_reference::ltl`) on
    //! random small nets and LTL formulas, both deadlock readings; a counterexample, when
    //! asked for, is a run of the net (each step a firing) that the symbolic product says is
    //! shortest wherever it gave it.

    use super::*;
    use proptest::prelude::*;
    use saturn_reference::explore::explore_petri;
    use saturn_reference::ltl::{accepting_run, LtlDeadlocks};
    use saturn_reference::strategies::{discard, ltl_formula, random_net};

    fn net_and_formulas() -> impl Strategy<Value = (PetriNet, Vec<PathFormula>)> {
        random_net(5, 6).prop_flat_map(|net| {
            let (p, t) = (net.places.len(), net.transitions.len());
            (
                Just(net),
                proptest::collection::vec(ltl_formula(p, t), 1..=3),
            )
        })
    }

    /// Is `m2` one firing of `net` away from `m1` (or equal: a stutter or a deadlock's loop)?
    fn step(net: &PetriNet, m1: &[u64], m2: &[u64]) -> bool {
        m1 == m2 || (0..net.transitions.len()).any(|t| net.enabled(t, m1) && net.fire(t, m1) == m2)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(60))]

        #[test]
        fn every_method_agrees_with_the_reference((net, phis) in net_and_formulas()) {
            let Ok(space) = explore_petri(&net, 2000) else {
                return Err(discard("unbounded or too large for the reference"));
            };
            let lower = |_: Option<u64>| -> Result<Vec<Model>, String> {
                let order: Vec<usize> = (0..net.places.len()).collect();
                Ok(vec![net.to_model(&order).map_err(|e| e.to_string())?])
            };
            let progress = || None;
            let some: Vec<Option<PathFormula>> = phis.iter().cloned().map(Some).collect();
            for (dl, rdl) in [
                (Deadlocks::Stutter, LtlDeadlocks::Stutter),
                (Deadlocks::Maximal, LtlDeadlocks::Maximal),
            ] {
                let want: Vec<bool> = phis
                    .iter()
                    .map(|phi| {
                        let p = saturn_ltl::negated(phi, dl).unwrap();
                        !accepting_run(&net, &space, &p.automaton, &p.atoms.formulas, rdl)
                            .unwrap()
                    })
                    .collect();
                for method in [Method::Auto, Method::Explicit, Method::El, Method::Tc] {
                    let run = Run {
                        net: &net,
                        deadlocks: dl,
                        method,
                        placement: Placement::Bottom,
                        generation: Generation {
                            lower: &lower,
                            method: GenMethod::Saturation,
                            relations: Relations::Implicit,
                            portfolio: false,
                            progress: &progress,
                        },
                        limits: Limits::none(),
                        max_bytes: 64 << 20,
                        partial_order: true,
                        witness: true,
                    };
                    let got = decide_all(&run, &some);
                    for ((g, w), phi) in got.iter().zip(&want).zip(&phis) {
                        let d = g.as_ref().map_err(|e| {
                            TestCaseError::fail(format!("{method:?} {dl:?} {phi:?}: {e}"))
                        })?;
                        prop_assert_eq!(d.holds, *w, "{:?} {:?} {:?}", method, dl, phi);
                        if d.holds {
                            prop_assert!(d.counterexample.is_none());
                            continue;
                        }
                        let c = d.counterexample.as_ref().ok_or_else(|| {
                            TestCaseError::fail(format!("{method:?} {dl:?} {phi:?}: no run"))
                        })?;
                        prop_assert_eq!(&c.markings[0], &net.initial_marking());
                        for w in c.markings.windows(2) {
                            prop_assert!(step(&net, &w[0], &w[1]), "{:?} {:?}", method, c);
                        }
                        // a shortest one from the product wherever the product ran
                        if method != Method::Explicit {
                            prop_assert!(d.shortest, "{:?} {:?} {:?}", method, dl, phi);
                        }
                    }
                }
            }
        }
    }
}
