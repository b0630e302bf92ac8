//! How LTL formulas are decided on a net (issue 48): the explicit on-the-fly product
//! ([`saturn_ltl::check_net`]), the CTL engines for formulas that are CTL in disguise
//! ([`saturn_ltl::ctl_equivalent`]), and the symbolic product with fair-cycle emptiness
//! ([`saturn_symbolic::ltl`]), scheduled by `--ltl-method auto` as a portfolio:
//!
//! 1. a race on two threads: the explicit search, each formula with an equal share of half
//!    the time left and at most [`FIRST_BYTES`] (most counterexamples are found within a few
//!    hundred product states), against the symbolic engines: the net's state space generated
//!    once (saturation, the order portfolio of `--order auto`), then each formula by the CTL
//!    engines if it is CTL in disguise, else by the symbolic product, each with an equal share
//!    of half the time left. The first engine to decide a formula wins; the other skips it;
//! 2. the formulas neither decided: the explicit search again, with all the time and memory
//!    left.
//!
//! A verdict is never guessed: a formula no engine decided within its limits stays undecided.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use clap::ValueEnum;
use saturn_logic::PathFormula;
use saturn_ltl::{ctl_equivalent, Counterexample, Deadlocks, Limits as LtlLimits, LtlError};
use saturn_model::{Model, PetriNet};
use saturn_symbolic::ctl::{Deadlocks as CtlDeadlocks, FairMethod};
use saturn_symbolic::ltl::{check_product, NetSpace, Placement, ProductVerdict};
use saturn_symbolic::ltl_lasso::NetLasso;
use saturn_symbolic::statespace::StateSpace;
use saturn_symbolic::{Limits, Method, Relations};

use crate::args::OrderArg;
use saturn_engine::Reachable;

/// The memory of the first explicit round (bytes).
pub const FIRST_BYTES: usize = 256 << 20;

/// How `--ltl` formulas are decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LtlMethodArg {
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

/// Partial-order reduction of the explicit product (`--por`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum PorArg {
    /// Stubborn sets when the formula is stutter-insensitive (no `X`).
    #[default]
    On,
    /// Every enabled transition fired at every marking.
    Off,
}

impl PorArg {
    pub fn options(self) -> saturn_ltl::Options {
        saturn_ltl::Options {
            partial_order: self == PorArg::On,
        }
    }
}

/// Where the symbolic product puts the automaton's level (`--ltl-level`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LtlLevelArg {
    /// Above the net's levels.
    Top,
    /// Below the net's levels (measured faster: docs/ltl.md).
    #[default]
    Bottom,
}

impl LtlLevelArg {
    pub fn placement(self) -> Placement {
        match self {
            LtlLevelArg::Top => Placement::Top,
            LtlLevelArg::Bottom => Placement::Bottom,
        }
    }
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
#[derive(Clone, Copy, Debug)]
pub struct Generation {
    pub order: OrderArg,
    pub method: Method,
    pub relations: Relations,
    pub progress: bool,
}

/// What the schedule needs besides the formulas.
pub struct Run<'a> {
    pub net: &'a PetriNet,
    pub deadlocks: Deadlocks,
    pub method: LtlMethodArg,
    /// Where the symbolic product puts the automaton's level.
    pub level: LtlLevelArg,
    pub generation: Generation,
    /// The limits of the whole run (deadline, memory).
    pub limits: Limits,
    /// The explicit product's memory.
    pub max_bytes: usize,
    /// Partial-order reduction in the explicit product.
    pub por: PorArg,
    /// Find a counterexample for each formula that fails.
    pub witness: bool,
}

/// The net's generated state space.
struct Symbolic {
    ss: Box<StateSpace>,
    model: Model,
}

/// The verdicts being found, one slot per formula, shared by the racing engines: the first
/// engine to decide a formula wins, the others skip it.
struct Slots<'p> {
    phis: &'p [Option<PathFormula>],
    slots: Vec<Mutex<Result<Decided, String>>>,
    /// Raised when the formula is decided: the engine still on it stops (the flags are
    /// leaked, a byte a formula, as the limits' flags are `'static`).
    decided: Vec<&'static AtomicBool>,
}

impl<'p> Slots<'p> {
    fn new(phis: &'p [Option<PathFormula>]) -> Self {
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

    fn lock(&self, n: usize) -> std::sync::MutexGuard<'_, Result<Decided, String>> {
        self.slots[n].lock().unwrap_or_else(|e| e.into_inner())
    }

    fn open(&self, n: usize) -> bool {
        self.phis[n].is_some() && self.lock(n).is_err()
    }

    /// The open formulas from `from` on.
    fn open_from(&self, from: usize) -> usize {
        (from..self.phis.len()).filter(|&n| self.open(n)).count()
    }

    /// Keep `r` unless the formula is decided already (a reason replaces a reason).
    fn offer(&self, n: usize, r: Result<Decided, String>) {
        let mut slot = self.lock(n);
        if slot.is_err() {
            if r.is_ok() {
                self.decided[n].store(true, Ordering::Relaxed);
            }
            *slot = r;
        }
    }

    fn into_results(self) -> Vec<Result<Decided, String>> {
        self.slots
            .into_iter()
            .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect()
    }
}

/// An equal share of `1/fraction` of the time left for each of `open` formulas.
fn share(deadline: Option<Instant>, open: usize, fraction: u32) -> Option<Instant> {
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

/// The symbolic engines on every open formula: the state space generated once (within
/// `1/fraction` of the time left), then each formula with an equal share of `1/fraction` of
/// the time left.
fn symbolic_round(run: &Run, slots: &Slots, fraction: u32) -> Option<Symbolic> {
    if slots.open_from(0) == 0 {
        return None;
    }
    let gen_limits = Limits {
        deadline: share(run.limits.deadline, 1, fraction),
        ..run.limits
    };
    let mut sym = match generate(run, gen_limits) {
        Ok(s) => s,
        Err(e) => {
            for n in 0..slots.phis.len() {
                if slots.open(n) {
                    slots.offer(n, Err(e.clone()));
                }
            }
            return None;
        }
    };
    for n in 0..slots.phis.len() {
        let Some(phi) = slots.phis[n].as_ref().filter(|_| slots.open(n)) else {
            continue;
        };
        // the formula's flag stops the product when the explicit search decides it first
        let limits = Limits {
            deadline: share(run.limits.deadline, slots.open_from(n), fraction),
            cancel: run.limits.cancel.or(run.limits.cancel_also),
            cancel_also: Some(slots.decided[n]),
            ..run.limits
        };
        let r = symbolic(run, &mut sym, phi, limits);
        slots.offer(n, r);
    }
    Some(sym)
}

/// Decide every formula (`None`: not an LTL formula, left undecided with that reason).
pub fn decide_all(run: &Run, phis: &[Option<PathFormula>]) -> Vec<Result<Decided, String>> {
    let slots = Slots::new(phis);
    let sym = match run.method {
        LtlMethodArg::Explicit => {
            explicit_round(run, &slots, 1, run.max_bytes);
            None
        }
        LtlMethodArg::El | LtlMethodArg::Tc => symbolic_round(run, &slots, 1),
        LtlMethodArg::Auto => {
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
        if run.method != LtlMethodArg::Explicit {
            shortest_counterexamples(run, phis, &mut out, sym);
        }
        // the explicit search's counterexample where the symbolic product gave none
        for (n, d) in out.iter_mut().enumerate() {
            if let (Ok(d), Some(phi)) = (d, &phis[n]) {
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
                        run.por.options(),
                    ) {
                        Ok(v) => d.counterexample = v.counterexample,
                        Err(e) => eprintln!("no counterexample for formula {}: {e}", n + 1),
                    }
                }
            }
        }
    }
    out
}

/// A shortest counterexample from the symbolic product (module `saturn_symbolic::ltl_lasso`)
/// for each formula found false without one, within the time left; the net's state space
/// generated if the race did not.
fn shortest_counterexamples(
    run: &Run,
    phis: &[Option<PathFormula>],
    out: &mut [Result<Decided, String>],
    sym: Option<Symbolic>,
) {
    let wanted = |d: &Result<Decided, String>| d.as_ref().is_ok_and(|d| !d.holds && !d.shortest);
    if !out.iter().any(wanted) {
        return;
    }
    let mut sym = match sym.map_or_else(|| generate(run, run.limits), Ok) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("no shortest counterexample: {e}");
            return;
        }
    };
    for (n, d) in out.iter_mut().enumerate() {
        let (Ok(d), Some(phi)) = (d, &phis[n]) else {
            continue;
        };
        if d.holds || d.shortest {
            continue;
        }
        match product_counterexample(run, &mut sym, phi, run.limits) {
            Ok(c) => {
                d.counterexample = Some(c);
                d.shortest = true;
            }
            Err(e) => eprintln!("no shortest counterexample for formula {}: {e}", n + 1),
        }
    }
}

/// The shortest counterexample of `phi` from the symbolic product (an error when `phi` holds
/// or the product gave none within `limits`).
fn product_counterexample(
    run: &Run,
    sym: &mut Symbolic,
    phi: &PathFormula,
    limits: Limits,
) -> Result<Counterexample, String> {
    let fair = match run.method {
        LtlMethodArg::Tc => FairMethod::Tc,
        _ => FairMethod::EmersonLei,
    };
    let v = product(run, sym, phi, fair, limits, true)?;
    let c = v
        .verdict
        .counterexample
        .ok_or("the symbolic product found no counterexample")?
        .map_err(|e| e.to_string())?;
    if !c.shortest {
        return Err("the lasso search did not finish".into());
    }
    Ok(net_counterexample(run.net, &sym.model, &c))
}

/// A counterexample of the product (states by the model's levels) as markings of the net.
fn net_counterexample(net: &PetriNet, model: &Model, c: &NetLasso) -> Counterexample {
    // `model.levels[k]` holds the place with that id
    let place: Vec<usize> = model
        .levels
        .iter()
        .map(|l| net.place_index(&l.name).unwrap_or(0))
        .collect();
    let markings = c
        .states
        .iter()
        .map(|s| {
            let mut m = vec![0u64; net.places.len()];
            for (k, &p) in place.iter().enumerate() {
                m[p] = u64::from(s[k]);
            }
            m
        })
        .collect();
    Counterexample {
        markings,
        loop_start: c.loop_start,
    }
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
    match saturn_ltl::check_net_with(run.net, phi, run.deadlocks, limits, run.por.options()) {
        Ok(v) => Ok(Decided {
            partial_order: v.partial_order,
            holds: v.holds,
            engine: Engine::Explicit,
            markings: v.markings.to_string(),
            product_states: Some(v.product_states.to_string()),
            automaton_states: Some(v.automaton_states),
            counterexample: v.counterexample,
            shortest: false,
        }),
        Err(LtlError::Stopped(s)) => Err(s.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// The net's state space, as `saturn check` generates it for CTL.
fn generate(run: &Run, limits: Limits) -> Result<Symbolic, String> {
    let g = run.generation;
    let timeout = limits
        .deadline
        .map(|d| d.saturating_duration_since(Instant::now()).as_secs().max(1));
    let models: Vec<Model> = crate::load::lower(run.net, g.order, timeout)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(_, m)| m)
        .collect();
    let opts = saturn_engine::Options {
        method: g.method,
        relations: g.relations,
        portfolio: g.order == OrderArg::Auto,
        ..saturn_engine::Options::default()
    };
    let progress = crate::progress::reporter("states", g.progress, run.net.places.len());
    let outcome = saturn_engine::reachable(run.net, &models, &opts, limits, progress)
        .map_err(|i| format!("state-space generation: {i}"))?;
    match outcome {
        Reachable::Generated { won, ss } => Ok(Symbolic {
            ss,
            model: models[won].clone(),
        }),
        Reachable::Unbounded(_) => {
            Err("the net is unbounded: the symbolic engines need a finite state space".into())
        }
    }
}

/// One formula by the CTL engines (when it is CTL in disguise and the method allows it) or the
/// symbolic product.
fn symbolic(
    run: &Run,
    sym: &mut Symbolic,
    phi: &PathFormula,
    limits: Limits,
) -> Result<Decided, String> {
    let markings = sym.ss.metrics.states.to_string();
    let fair = match run.method {
        LtlMethodArg::Tc => FairMethod::Tc,
        _ => FairMethod::EmersonLei,
    };
    if run.method == LtlMethodArg::Auto {
        if let Some(f) = ctl_equivalent(phi, run.deadlocks) {
            let cdl = match run.deadlocks {
                Deadlocks::Stutter => CtlDeadlocks::SelfLoop,
                Deadlocks::Maximal => CtlDeadlocks::Maximal,
            };
            let mut checker = crate::queries::checker(&mut sym.ss, &sym.model, run.net, cdl);
            checker.set_limits(limits);
            let holds = checker.holds(&f).map_err(|e| e.to_string())?;
            return Ok(Decided {
                holds,
                engine: Engine::Ctl,
                markings,
                product_states: None,
                automaton_states: None,
                partial_order: false,
                counterexample: None,
                shortest: false,
            });
        }
    }
    let v = product(run, sym, phi, fair, limits, run.witness)?;
    // a shortest counterexample when asked for and found in the limits (else the explicit
    // search's, later)
    let counterexample = v
        .verdict
        .counterexample
        .and_then(Result::ok)
        .filter(|c| c.shortest)
        .map(|c| net_counterexample(run.net, &sym.model, &c));
    Ok(Decided {
        holds: v.verdict.holds,
        engine: Engine::Product(fair),
        markings,
        product_states: Some(v.verdict.product_states.to_string()),
        automaton_states: Some(v.automaton_states),
        partial_order: false,
        shortest: counterexample.is_some(),
        counterexample,
    })
}

/// The symbolic product's verdict on `phi`, and the size of the automaton.
struct ProductRun {
    verdict: ProductVerdict,
    automaton_states: usize,
}

/// The symbolic product of the net's state space with the automaton of `¬phi`.
fn product(
    run: &Run,
    sym: &mut Symbolic,
    phi: &PathFormula,
    fair: FairMethod,
    limits: Limits,
    witness: bool,
) -> Result<ProductRun, String> {
    let p = saturn_ltl::negated(phi, run.deadlocks).map_err(|e| e.to_string())?;
    let atoms = crate::queries::atoms_for(&sym.model, run.net);
    let verdict = check_product(
        NetSpace {
            dd: &mut sym.ss.dd,
            states: sym.ss.states,
            model: &sym.model,
            atoms: &atoms,
        },
        &p.atoms.formulas,
        &p.automaton,
        run.deadlocks,
        fair,
        run.level.placement(),
        limits,
        witness,
    )
    .map_err(|e| e.to_string())?;
    Ok(ProductRun {
        verdict,
        automaton_states: p.automaton.states.len(),
    })
}
