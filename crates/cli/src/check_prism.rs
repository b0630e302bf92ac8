//! `saturn check MODEL.prism --props FILE [--const ...] [--prop N]`: CSL properties of a PRISM
//! `ctmc`, PCTL properties of a `dtmc` (steady state, until, time- or step-bounded until,
//! rewards) with the engines of `saturn-ctmc`. Each property is printed with its result; those the
//! engine does not compute yet are refused one by one while the others run. Also the loading
//! shared with `saturn export`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::ValueEnum;
use serde_json::{json, Value as Json};

use saturn_ctmc::props::dtmc::Rows;
use saturn_ctmc::props::{fmt_num, Answer, CheckError, Checker, RefineOrder, Stats};
use saturn_ctmc::solve::{Convergence, Method, Options, SolveError};
use saturn_ctmc::sparse::SparseCtmc;
use saturn_ctmc::symbolic::chain::SymbolicChain;
use saturn_ctmc::Sweep;
use saturn_ctmc::SymbolicCtmc;
use saturn_model::order::{by_name_with, Hypergraph};
use saturn_model::GeneralModel;
use saturn_prism::ast::ModelType;
use saturn_prism::{
    parse_model_bytes, parse_properties_ast_bytes, ConstOverrides, Program, PropertyFile, Source,
};
use saturn_symbolic::encode::{generate_general, GenMethod};

use crate::args::LimitArgs;
use crate::check::CheckArgs;
use crate::load::{peak_memory_bytes, Input};
use crate::out;
use crate::parse_prism::{check_run, const_failure, prism_failure};
use crate::prism_csl::Translator;
use crate::report::{ok_object, Diagnostic, Failure, Status};
use crate::statespace_prism::{at, bad_model, encode_failure_for, DEFAULT_PRISM_ORDER};

/// Which CTMC engine computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// The symbolic engine where its rate matrix (EV*MxD and Gauss-Seidel cache) is smaller
    /// than the sparse engine's CSR, else the sparse engine ([`AutoChoice`]).
    Auto,
    /// Explicit sparse matrices (CSR), the baseline.
    Sparse,
    /// The rate matrix as an EV*MDD (thesis chapter 6), the graph questions on MDDs.
    Symbolic,
}

/// The iterative method (`auto`: backward Gauss-Seidel, then forward, then power).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SolverArg {
    Auto,
    Power,
    Jacobi,
    Jor,
    Gs,
    Bgs,
    Sor,
    Bsor,
}

/// The order in which nested formulas are refined (thesis Figure 7.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RefineArg {
    /// The outer operator's epsilon first, its operands when its bounds stop narrowing.
    TopDown,
    /// The operands first, the outer operator when that stops changing its bounds.
    BottomUp,
}

impl From<RefineArg> for RefineOrder {
    fn from(r: RefineArg) -> RefineOrder {
        match r {
            RefineArg::TopDown => RefineOrder::TopDown,
            RefineArg::BottomUp => RefineOrder::BottomUp,
        }
    }
}

/// The flags of `check` for PRISM models.
#[derive(clap::Args, Debug, Clone)]
pub struct PrismCheckArgs {
    /// A PRISM property file (PRISM models).
    #[arg(long)]
    pub props: Option<PathBuf>,
    /// Values for undefined constants of the model and property file: `N=3,T=2.5`, or ranges
    /// `T=0:10` (step 1) and `T=0:0.5:10` for an experiment: every property at every point
    /// (several ranges: their product), one table per property (PRISM models; docs/ctmc.md).
    #[arg(long = "const")]
    pub consts: Vec<String>,
    /// Experiments (one ranged `--const`): draw each numeric property over the ranged
    /// constant, result and guaranteed bounds, as SVG in FILE (one panel per property).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Check only property N of the file (1-based; PRISM's `-prop N`: `const`, `label` and
    /// `formula` declarations are not counted).
    #[arg(long)]
    pub prop: Option<usize>,
    /// The CTMC engine: `auto` (the default) takes the sparse engine, faster per step, unless
    /// that would take more than `--engine-room` and the EV*MxD (with its cache) is smaller
    /// (docs/ctmc.md, "Engines").
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// `--engine auto`: the memory in MiB the sparse engine may take (its matrix and eight
    /// vectors of the chain's size) before the symbolic engine is preferred where smaller;
    /// default 256, or half of `--max-memory` when that is less.
    #[arg(long = "engine-room", value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=16_777_216))]
    pub engine_room: Option<u64>,
    /// Symbolic engine: the split-point threshold of the Gauss-Seidel cache (thesis Figures
    /// 6.6-6.7); 0 sweeps the diagrams without a cache.
    #[arg(long = "cache-threshold", default_value_t = saturn_ctmc::symbolic::DEFAULT_CACHE_THRESHOLD)]
    pub cache_threshold: u64,
    /// The iterative method for steady state and unbounded until.
    #[arg(long, value_enum, default_value_t = SolverArg::Auto)]
    pub solver: SolverArg,
    /// The relaxation weight of jor, sor and bsor, in (0, 2).
    #[arg(long, default_value_t = 0.9)]
    pub omega: f64,
    /// Convergence threshold on the difference between iterates; a range `1e-1:1e-10` (one
    /// value a decade) or `START:FACTOR:END` checks every property at every epsilon, for its
    /// bounds and satisfying sets against epsilon (thesis Figures 7.6-7.7; docs/ctmc.md), at
    /// every point of the ranged constants when --const ranges some.
    #[arg(long, default_value = "1e-6")]
    pub epsilon: crate::epsilon::EpsilonArg,
    /// Measure the absolute difference between iterates (default: relative, as PRISM).
    #[arg(long)]
    pub absolute: bool,
    /// Give up (no result, exit 2) after this many iterations.
    #[arg(long = "max-iters", default_value_t = 10_000)]
    pub max_iters: usize,
    /// The order in which the subformulas of a nested property are refined when the default
    /// epsilon leaves the answer undecided (thesis 7.2, Figure 7.5; bottom-up was cheaper on
    /// the nested formulas measured: docs/ctmc.md, "Bounds").
    #[arg(long, value_enum, default_value_t = RefineArg::BottomUp)]
    pub refine: RefineArg,
}

impl PrismCheckArgs {
    /// The solver options, or a usage error.
    pub fn options(&self) -> Result<Options, Failure> {
        let w = self.omega;
        let method = match self.solver {
            SolverArg::Auto => Method::Auto,
            SolverArg::Power => Method::Power,
            SolverArg::Jacobi => Method::Jacobi,
            SolverArg::Jor => Method::Jor(w),
            SolverArg::Gs => Method::GaussSeidel(Sweep::Forward),
            SolverArg::Bgs => Method::GaussSeidel(Sweep::Backward),
            SolverArg::Sor => Method::Sor(Sweep::Forward, w),
            SolverArg::Bsor => Method::Sor(Sweep::Backward, w),
        };
        if !(w > 0.0 && w < 2.0) {
            return Err(Failure::error(format!(
                "--omega must lie in (0, 2), got {w}"
            )));
        }
        let epsilon = self.epsilon.first();
        if !(epsilon > 0.0 && epsilon.is_finite()) {
            return Err(Failure::error(format!(
                "--epsilon must be a positive number, got {epsilon}"
            )));
        }
        if self.max_iters == 0 {
            return Err(Failure::error("--max-iters must be at least 1"));
        }
        Ok(Options {
            method,
            epsilon,
            convergence: if self.absolute {
                Convergence::Absolute
            } else {
                Convergence::Relative
            },
            max_iters: self.max_iters,
        })
    }
}

/// The chain as one engine built it.
pub enum Built {
    Sparse(Box<SparseCtmc>),
    Symbolic(Box<SymbolicChain>),
}

impl Built {
    /// The chain as the property checker sees it.
    pub fn chain(&self) -> &dyn saturn_ctmc::Chain {
        match self {
            Built::Sparse(c) => c.as_ref(),
            Built::Symbolic(c) => c.as_ref(),
        }
    }

    /// The engine's name.
    pub fn name(&self) -> &'static str {
        match self {
            Built::Sparse(_) => "sparse",
            Built::Symbolic(_) => "symbolic",
        }
    }

    /// Bytes of the rate matrix as this engine stores it (with the cache), and what CSR
    /// takes for it.
    pub fn matrix_bytes(&self) -> (u64, u64) {
        match self {
            Built::Sparse(c) => {
                let b = saturn_ctmc::RateMatrix::memory_bytes(c.as_ref());
                // CSR as the symbolic engine counts it: 12 bytes per nonzero, 4 per row
                let nnz = saturn_ctmc::RateMatrix::nonzeros(c.as_ref());
                (b, 12 * nnz + 4 * (c.len() as u64 + 1))
            }
            Built::Symbolic(c) => {
                let m = c.ctmc();
                (m.matrix_bytes() + m.cache_bytes(), m.csr_bytes())
            }
        }
    }
}

/// A PRISM CTMC loaded, generated and built by one engine.
pub struct Chain {
    pub prog: Program,
    pub props: Option<PropertyFile>,
    /// The property file's text, for the places of messages.
    pub props_source: Option<Source>,
    pub model: GeneralModel,
    /// The action of each event.
    pub actions: Vec<Option<usize>>,
    pub ctmc: Built,
    /// With `--engine auto`: the sizes the choice was made from.
    pub auto: Option<AutoChoice>,
    pub constants: String,
    /// Seconds to generate the states and build the matrix.
    pub build_seconds: f64,
}

/// What `--engine auto` measured: the symbolic engine's rate matrix (the EV*MxD of `R` and
/// the split-point cache its sweeps run over) against the least the sparse engine would store
/// for the same `R` (its columns: 5 bytes per nonzero, 4 per column, the nonzeros counted on
/// the EV*MxD). The symbolic engine is kept when its bytes are fewer: its cached Gauss-Seidel
/// sweep costs about what an explicit sweep does (1.1-1.6x, docs/ctmc.md), and the cache holds
/// what a sweep reads, so a smaller representation is not a slower one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AutoChoice {
    pub matrix_bytes: u64,
    pub cache_bytes: u64,
    pub sparse_bytes: u64,
    /// The EV*MxD's build stopped when its diagrams passed twice the least the sparse engine
    /// could take (`matrix_bytes`: what they held then; `sparse_bytes`: the sparse matrix).
    pub gave_up: bool,
    /// The chain's states (the sparse engine's vectors: 8 of 8 bytes per state).
    pub states: u64,
    /// The bytes the sparse engine may take (`--engine-room`).
    pub room: u64,
}

impl AutoChoice {
    /// The symbolic engine's bytes.
    pub fn symbolic_bytes(&self) -> u64 {
        self.matrix_bytes + self.cache_bytes
    }

    /// What the sparse engine would take: its matrix and eight vectors of the chain's size.
    pub fn sparse_peak(&self) -> u64 {
        self.sparse_bytes + 64 * self.states
    }

    /// Is the symbolic engine the one to keep? Only where the sparse engine, faster per step
    /// (the symbolic sweep is 1.1-1.6x slower), would pass its room and the diagrams are
    /// smaller.
    pub fn symbolic(&self) -> bool {
        !self.gave_up && self.sparse_peak() > self.room && self.symbolic_bytes() < self.sparse_bytes
    }

    /// `auto: EV*MxD 0.05 MiB + cache 2.5 MiB against sparse 120.6 MiB (with its vectors
    /// 140.1 MiB, room 256.0 MiB)`.
    pub fn text(&self) -> String {
        if self.gave_up {
            return format!(
                "auto: EV*MxD build stopped at {}, past twice the least the sparse engine takes; sparse {}",
                human_bytes(self.matrix_bytes),
                human_bytes(self.sparse_bytes)
            );
        }
        format!(
            "auto: EV*MxD {} + cache {} against sparse {} (with its vectors {}, room {})",
            human_bytes(self.matrix_bytes),
            human_bytes(self.cache_bytes),
            human_bytes(self.sparse_bytes),
            human_bytes(self.sparse_peak()),
            human_bytes(self.room)
        )
    }

    /// The JSON object `engine_auto`.
    pub fn json(&self) -> Json {
        json!({
            "symbolic_matrix_bytes": self.matrix_bytes,
            "symbolic_cache_bytes": self.cache_bytes,
            "sparse_bytes": self.sparse_bytes,
            "symbolic_build_stopped": self.gave_up,
            "sparse_peak_bytes": self.sparse_peak(),
            "room_bytes": self.room,
        })
    }
}

/// The engine line of the text output (`engine: symbolic (auto: ...)`).
pub(crate) fn engine_text(ctmc: &Built, auto: Option<&AutoChoice>) -> String {
    match auto {
        Some(c) => format!("{} ({})", ctmc.name(), c.text()),
        None => ctmc.name().to_string(),
    }
}

/// How to build the chain: the engine, and the symbolic engine's cache threshold (0: none).
#[derive(Clone, Copy, Debug)]
pub struct EngineChoice {
    pub engine: EngineArg,
    pub cache_threshold: u64,
    /// `auto`: the bytes the sparse engine may take before the symbolic one is preferred.
    pub room: u64,
}

/// `--engine-room`'s default: 256 MiB (kanban t=5, 2.5 million states, is past it: its
/// steady state takes the symbolic engine, as the sparse one's transpose for the Poisson
/// bounds would double its 126 MiB matrix).
pub const DEFAULT_ENGINE_ROOM_MIB: u64 = 256;

impl EngineChoice {
    pub const SPARSE: EngineChoice = EngineChoice {
        engine: EngineArg::Sparse,
        cache_threshold: 0,
        room: 0,
    };

    /// The room of `--engine-room` (MiB), else the default or half of `--max-memory` (MiB).
    pub fn room_of(engine_room: Option<u64>, max_memory: Option<u64>) -> u64 {
        let mib = engine_room.unwrap_or_else(|| {
            max_memory.map_or(DEFAULT_ENGINE_ROOM_MIB, |m| {
                (m / 2).min(DEFAULT_ENGINE_ROOM_MIB)
            })
        });
        mib.saturating_mul(1 << 20)
    }
}

/// Read, check and lower the PRISM model of `input` (and the property file), generate its
/// reachable states by saturation and build the chain with `engine` (a `dtmc` when
/// `discrete_ok`: its one-step probabilities as the rates, see [`saturn_ctmc::props::dtmc`]).
/// Notes a deadlock on stderr.
pub fn load_chain(
    input: &Input,
    consts: &[String],
    props: Option<&Path>,
    limit_args: &LimitArgs,
    start: Instant,
    engine: EngineChoice,
    discrete_ok: bool,
) -> Result<Chain, Failure> {
    let overrides = ConstOverrides::parse_all(consts).map_err(const_error)?;
    let mut assignments = overrides.assignments().map_err(const_error)?;
    if assignments.len() != 1 {
        return Err(const_error(
            "check takes one value per constant (no ranges)",
        ));
    }
    load_chain_at(
        input,
        &assignments.remove(0),
        props,
        limit_args,
        start,
        engine,
        discrete_ok,
    )
}

/// [`load_chain`] for one concrete assignment of the constants.
#[allow(clippy::too_many_arguments)]
pub fn load_chain_at(
    input: &Input,
    ov: &ConstOverrides,
    props: Option<&Path>,
    limit_args: &LimitArgs,
    start: Instant,
    engine: EngineChoice,
    discrete_ok: bool,
) -> Result<Chain, Failure> {
    let name = input.name.clone();
    let ast = parse_model_bytes(&input.bytes, &name).map_err(|d| prism_failure(&d, 2))?;
    let source = Source::new(&name, &String::from_utf8_lossy(&input.bytes));
    let props = match props {
        None => None,
        Some(path) => {
            let pname = path.display().to_string();
            let pbytes = std::fs::read(path)
                .map_err(|e| Failure::error(format!("cannot read {pname}: {e}")))?;
            let a =
                parse_properties_ast_bytes(&pbytes, &pname).map_err(|d| prism_failure(&d, 2))?;
            let src = Source::new(&pname, &String::from_utf8_lossy(&pbytes));
            Some((pname, a, src))
        }
    };
    let (prog, pf) = check_run(&ast, ov, &source, props.as_ref()).map_err(|mut f| {
        f.exit = 2;
        f
    })?;
    let discrete = prog.model_type == ModelType::Dtmc;
    if prog.model_type != ModelType::Ctmc && !(discrete && discrete_ok) {
        let wanted = if discrete_ok {
            "a ctmc or dtmc model"
        } else {
            "a ctmc model"
        };
        return Err(Failure::error(format!(
            "{name}: this analysis needs {wanted} (this is a {}; not supported yet)",
            prog.model_type.name()
        )));
    }
    let (mut model, actions) =
        saturn_prism::lower::lower_with_actions(&prog).map_err(|e| match e {
            saturn_prism::lower::LowerError::At { location, message } => {
                bad_model(vec![at(&location, message)])
            }
            saturn_prism::lower::LowerError::Model(m) => {
                bad_model(vec![Diagnostic::plain(format!("{name}: {m}"))])
            }
        })?;
    let limits = limit_args.limits(start);
    let t0 = Instant::now();
    let hg = Hypergraph::new(model.vars.len(), &model.supports());
    let order = by_name_with(&hg, DEFAULT_PRISM_ORDER.name(), &mut || {
        limits.check().is_err()
    })
    .map_err(Failure::error)?;
    let (mut ctmc, mut auto) = build_chain(&model, &order, &name, limit_args, limits, engine)?;
    if discrete {
        let rows = saturn_ctmc::props::dtmc::check_distributions(&model, ctmc.chain())
            .map_err(|e| Failure::error(format!("{name}: {e}")))?;
        if rows == Rows::Choices {
            eprintln!(
                "note: several commands are enabled at once in some states; as PRISM does, \
                 each is chosen with the same probability"
            );
            model = saturn_ctmc::props::dtmc::uniform_choice(&model);
            (ctmc, auto) = build_chain(&model, &order, &name, limit_args, limits, engine)?;
        }
    }
    let c = ctmc.chain();
    if !c.deadlocks().is_empty() {
        eprintln!(
            "note: {} deadlock state(s), e.g. {}; as PRISM does, each gets a self-loop",
            c.deadlocks().len(),
            model.show_state(&c.values(c.deadlocks()[0]))
        );
    }
    Ok(Chain {
        prog,
        props: pf,
        props_source: props.map(|(_, _, src)| src),
        model,
        actions,
        ctmc,
        auto,
        constants: ov.to_string(),
        build_seconds: t0.elapsed().as_secs_f64(),
    })
}

/// Generate the reachable states of `model` and build its chain with `engine` (`auto`: the
/// EV*MxD first, then the sparse matrix instead when that is smaller, [`AutoChoice`]).
fn build_chain(
    model: &GeneralModel,
    order: &[usize],
    name: &str,
    limit_args: &LimitArgs,
    limits: saturn_symbolic::Limits,
    engine: EngineChoice,
) -> Result<(Built, Option<AutoChoice>), Failure> {
    let (enc, ss) = generate_general(model, order, GenMethod::Saturation, &limits)
        .map_err(|e| encode_failure_for(e, name, limit_args))?;
    Ok(match engine.engine {
        EngineArg::Sparse => (
            Built::Sparse(Box::new(build_sparse(model, &enc, &ss, name, limit_args)?)),
            None,
        ),
        EngineArg::Symbolic | EngineArg::Auto => {
            let mut report = crate::progress::reporter("build", limit_args.progress, 0);
            if let Some(r) = report.as_mut() {
                r("rate matrix as an EV*MDD");
            }
            let interrupted = |e: saturn_ctmc::symbolic::BuildError| match e {
                saturn_ctmc::symbolic::BuildError::Encode(e) => {
                    encode_failure_for(e, name, limit_args)
                }
                other => Failure::error(format!("{name}: {other}")),
            };
            // auto: the build gives up once its diagrams pass twice the least the sparse
            // engine could take (an unstructured chain: the diagrams would only grow)
            let states = u64::try_from(&ss.states).unwrap_or(u64::MAX);
            let deadlocks = u64::try_from(&ss.deadlocks).unwrap_or(0);
            let budget = (engine.engine == EngineArg::Auto)
                .then(|| 2 * saturn_ctmc::symbolic::sparse_bytes_floor(states, deadlocks));
            let built = SymbolicCtmc::from_state_space_reporting(
                model,
                enc,
                &ss,
                &limits,
                budget,
                report.as_mut().map(|r| r.as_mut() as &mut dyn FnMut(&str)),
            );
            let mut m = match built {
                Err(saturn_ctmc::symbolic::BuildError::OverBudget {
                    bytes,
                    budget,
                    spare,
                    ..
                }) => {
                    let s = build_sparse(model, &spare.0, &ss, name, limit_args)?;
                    let auto = AutoChoice {
                        matrix_bytes: bytes,
                        cache_bytes: 0,
                        sparse_bytes: saturn_ctmc::Chain::rates(&s).memory_bytes().max(budget / 2),
                        gave_up: true,
                        states,
                        room: engine.room,
                    };
                    return Ok((Built::Sparse(Box::new(s)), Some(auto)));
                }
                other => other.map_err(interrupted)?,
            };
            if engine.cache_threshold > 0 {
                m.enable_cache(engine.cache_threshold);
            }
            let auto = (engine.engine == EngineArg::Auto).then(|| AutoChoice {
                matrix_bytes: m.matrix_bytes(),
                cache_bytes: m.cache_bytes(),
                sparse_bytes: m.sparse_bytes_at_least(),
                gave_up: false,
                states,
                room: engine.room,
            });
            if auto.is_some_and(|c| !c.symbolic()) {
                let s = build_sparse(model, m.encoded(), &ss, name, limit_args)?;
                return Ok((Built::Sparse(Box::new(s)), auto));
            }
            let c = SymbolicChain::new(model, m, limits).map_err(interrupted)?;
            (Built::Symbolic(Box::new(c)), auto)
        }
    })
}

/// The explicit sparse chain over the generated states.
fn build_sparse(
    model: &GeneralModel,
    enc: &saturn_symbolic::encode::Encoded,
    ss: &saturn_symbolic::encode::GeneralStateSpace,
    name: &str,
    limit_args: &LimitArgs,
) -> Result<SparseCtmc, Failure> {
    let mut report = crate::progress::reporter("build", limit_args.progress, 0);
    SparseCtmc::build(
        model,
        &enc.sets,
        &enc.order,
        ss.reached,
        enc.init,
        &mut |i, n| {
            if let Some(r) = report.as_mut() {
                r(&format!("sparse matrix: state {i} of {n}"));
            }
        },
    )
    .map_err(|e| match e {
        saturn_ctmc::sparse::BuildError::Step(s) => {
            bad_model(vec![Diagnostic::plain(s.to_string())])
        }
        other => Failure::error(format!("{name}: {other}")),
    })
}

/// A `--const` problem (exit 2).
pub(crate) fn const_error(e: impl std::fmt::Display) -> Failure {
    let mut f = const_failure(e);
    f.exit = 2;
    f
}

/// The outcome of one property.
pub(crate) enum Outcome {
    Answer(Answer),
    /// Not computed: unsupported operator, evaluation error, no convergence.
    Failed(String),
    /// A limit stopped the run here.
    Stopped(saturn_symbolic::Interrupted),
    /// Not attempted (a limit stopped an earlier one).
    Skipped,
}

/// One property checked.
pub(crate) struct Row {
    pub index: usize,
    pub text: String,
    pub outcome: Outcome,
    pub iterations: usize,
    pub methods: Vec<String>,
    pub stats: Stats,
    pub seconds: f64,
}

pub(crate) fn human_bytes(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{:.1} MiB", b as f64 / f64::from(1u32 << 20))
    } else {
        format!("{:.1} KiB", b as f64 / 1024.0)
    }
}

pub(crate) fn num_json(x: f64) -> Json {
    if x.is_finite() {
        json!(x)
    } else {
        json!(fmt_num(x))
    }
}

/// The JSON `result` of an answer: a boolean, `null` when undecided, a number (the middle of
/// its bounds), or `[min, max]` for a range.
fn answer_json(a: &Answer) -> Json {
    match a {
        Answer::Bool(b) => json!(b),
        Answer::Undecided => Json::Null,
        Answer::Num(x) => num_json(x.point()),
        Answer::Range(lo, hi) => json!([num_json(lo.point()), num_json(hi.point())]),
    }
}

/// The bounds of an answer as JSON fields: `lower`, `upper` (booleans for a boolean: the
/// lower set's verdict and the upper set's), `error` (the width), `guaranteed`, `method`.
fn bounds_json(a: &Answer, st: &Stats) -> Json {
    let (lower, upper, error) = match a {
        Answer::Bool(b) => (json!(b), json!(b), json!(0.0)),
        Answer::Undecided => (json!(false), json!(true), Json::Null),
        a => {
            let i = a.bounds().expect("a number");
            (num_json(i.lo), num_json(i.hi), num_json(i.width()))
        }
    };
    json!({
        "lower": lower,
        "upper": upper,
        "error": error,
        "guaranteed": st.guaranteed,
        "within_epsilon": st.wide.is_empty(),
        "unguaranteed": st.unguaranteed,
        "method": method_text(st),
        "epsilon": st.epsilon,
        "undecided_states": st.undecided,
        "refinements": st.refinements,
        "refined": st.refined.iter().map(|r| json!({
            "subformula": r.subformula,
            "epsilon": r.epsilon,
        })).collect::<Vec<_>>(),
        "refine_order": st.order.name(),
        "solves": st.solves,
    })
}

/// How the bounds were obtained, in words.
pub(crate) fn method_text(st: &Stats) -> String {
    let mut m = if st.bounding.is_empty() && st.guaranteed {
        "exact (graph and expression evaluation)".to_string()
    } else if st.bounding.is_empty() {
        "iterative solution, relative-change stopping rule".to_string()
    } else {
        st.bounding.join(", ")
    };
    if st.refinements > 0 {
        m += &format!(
            ", refined {} times to epsilon {:e}",
            st.refinements, st.epsilon
        );
    }
    m
}

/// The text after `Result: ...`: the bounds and whether they are guaranteed.
fn bounds_text(a: &Answer, st: &Stats) -> String {
    let mut t = match a {
        Answer::Undecided => format!(
            " ({} states undecided after {} refinements, epsilon {:e})",
            st.undecided, st.refinements, st.epsilon
        ),
        Answer::Bool(_) => String::new(),
        a => {
            let i = a.bounds().expect("a number");
            if i.is_exact() {
                String::new()
            } else {
                format!(
                    "\nBounds: [{}, {}] (width {:.3e})",
                    fmt_num(i.lo),
                    fmt_num(i.hi),
                    i.width()
                )
            }
        }
    };
    if !st.wide.is_empty() {
        t += &format!(
            "\nNot within epsilon {:e}: the iteration limit stopped {} first (these are the \
             bounds it reached; try a larger --max-iters)",
            st.epsilon,
            st.wide.join(", ")
        );
    }
    if st.guaranteed {
        t += &format!("\nGuaranteed: yes ({})", method_text(st));
    } else {
        t += &format!(
            "\nGuaranteed: NO, estimates without an error bound: {} ({})",
            st.unguaranteed.join(", "),
            method_text(st)
        );
    }
    if !st.refined.is_empty() {
        let steps: Vec<String> = st
            .refined
            .iter()
            .map(|r| format!("{} to {:e}", r.subformula, r.epsilon))
            .collect();
        t += &format!("\nRefined ({}): {}", st.order.name(), steps.join("; "));
    }
    t
}

pub fn run(a: &CheckArgs, input: &Input) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let p = &a.prism;
    if !a.ctl.is_empty() || a.formulas.is_some() {
        return Err(Failure::error(format!(
            "{}: a PRISM model; --ctl and --formulas apply to Petri nets (use --props)",
            input.name
        ))
        .into());
    }
    let Some(props_path) = &p.props else {
        return Err(Failure::error("nothing to check: give --props FILE for a PRISM model").into());
    };
    let options = p.options()?;
    let engine = EngineChoice {
        engine: p.engine,
        cache_threshold: p.cache_threshold,
        room: EngineChoice::room_of(p.engine_room, a.limits.max_memory),
    };
    if p.epsilon.is_range() {
        return crate::epsilon::run(a, input, options, engine, start);
    }
    let overrides = ConstOverrides::parse_all(&p.consts).map_err(const_error)?;
    if !overrides.is_concrete() {
        return crate::experiment::run(a, input, &overrides, options, engine, start);
    }
    if let Some(plot) = &p.plot {
        return Err(Failure::error(format!(
            "--plot {}: plots are drawn over a ranged constant or epsilon; give one with --const, \
             e.g. --const T=0:0.5:10, or --epsilon 1e-1:1e-8",
            plot.display()
        ))
        .into());
    }
    let (chain, selected, rewards) = load_checked(a, input, props_path, engine, start)?;
    let tr = chain.translator();
    let limits = a.limits.limits(start);
    let mut checker = new_checker(&chain, &rewards, options, &limits, a.limits.progress)
        .refine_order(p.refine.into());
    let mut stopped = None;
    let rows = check_rows(&mut checker, &tr, &selected, &limits, &mut stopped);
    let failed = report_failed(&a.model, &rows);
    let states = chain.ctmc.chain().len();
    let transitions = chain.ctmc.chain().transitions();
    let (matrix_bytes, csr_bytes) = chain.ctmc.matrix_bytes();
    let peak = peak_memory_bytes();
    if a.json {
        let props: Vec<Json> = rows
            .iter()
            .map(|r| row_json(r, states, transitions, &a.limits))
            .collect();
        print_json(
            a,
            json!({
                "input": "prism",
                "type": chain.prog.model_type.name(),
                "constants": chain.constants,
                "engine": chain.ctmc.name(),
                "engine_auto": chain.auto.as_ref().map(AutoChoice::json),
                "states": states,
                "transitions": transitions,
                "deadlocks": chain.ctmc.chain().deadlocks().len(),
                "nonzeros": chain.ctmc.chain().rates().nonzeros(),
                "matrix_bytes": matrix_bytes,
                "csr_bytes": csr_bytes,
                "build_seconds": chain.build_seconds,
                "seconds": start.elapsed().as_secs_f64(),
                "peak_memory_bytes": peak,
                "properties": props,
            }),
            stopped,
            &failed,
        )?;
    } else {
        let mut t = String::new();
        let _ = writeln!(t, "model: {} ({})", a.model, chain.prog.model_type.name());
        if !chain.constants.is_empty() {
            let _ = writeln!(t, "constants: {}", chain.constants);
        }
        let _ = writeln!(
            t,
            "states: {states}, transitions: {transitions} (built in {:.3} s)",
            chain.build_seconds
        );
        let _ = writeln!(
            t,
            "engine: {}, rate matrix: {} (CSR: {})",
            engine_text(&chain.ctmc, chain.auto.as_ref()),
            human_bytes(matrix_bytes),
            human_bytes(csr_bytes)
        );
        for r in &rows {
            let _ = writeln!(t, "\n[{}] {}", r.index, r.text);
            let _ = match &r.outcome {
                Outcome::Answer(x) => writeln!(
                    t,
                    "Result: {x} ({} iterations{}, {:.3} s){}",
                    r.iterations,
                    if r.methods.is_empty() {
                        String::new()
                    } else {
                        format!(", {}", r.methods.join(", "))
                    },
                    r.seconds,
                    bounds_text(x, &r.stats)
                ),
                Outcome::Failed(m) => writeln!(t, "No result: {m}"),
                Outcome::Stopped(i) => writeln!(t, "No result: {}", a.limits.describe(*i)),
                Outcome::Skipped => writeln!(t, "Not checked (a limit stopped the run)"),
            };
        }
        out::print(&t)?;
    }
    Ok(exit_code(stopped, &failed))
}

/// Load the chain of one assignment of the constants (`--const`, single values) with its
/// property file: the chain, the properties `--prop` selects and the reward structures.
pub(crate) fn load_checked(
    a: &CheckArgs,
    input: &Input,
    props_path: &Path,
    engine: EngineChoice,
    start: Instant,
) -> Result<(Chain, Vec<usize>, Vec<saturn_ctmc::props::RewardStructure>), Failure> {
    let p = &a.prism;
    let chain = load_chain(
        input,
        &p.consts,
        Some(props_path),
        &a.limits,
        start,
        engine,
        true,
    )?;
    let tr = chain.translator();
    let selected = selected_properties(p, tr.props)?;
    let rewards = tr
        .rewards()
        .map_err(|u| Failure::error(format!("{}: {}", a.model, u.0)))?;
    Ok((chain, selected, rewards))
}

impl Chain {
    /// The translator of the chain's property file into CSL.
    pub(crate) fn translator(&self) -> Translator<'_> {
        Translator {
            prog: &self.prog,
            props: self.props.as_ref().expect("a property file was given"),
            source: self.props_source.as_ref(),
        }
    }
}

/// The properties `--prop` selects (all by default), as indices into the file.
pub(crate) fn selected_properties(
    p: &PrismCheckArgs,
    pf: &PropertyFile,
) -> Result<Vec<usize>, Failure> {
    let n_props = pf.properties.len();
    match p.prop {
        None => Ok((0..n_props).collect()),
        Some(k) if k >= 1 && k <= n_props => Ok(vec![k - 1]),
        Some(k) => Err(Failure::error(format!(
            "--prop {k}: the property file has {n_props} properties"
        ))),
    }
}

/// A property checker on `chain`, reporting its iterations as progress (`progress`) and
/// stopping at the `limits`.
pub(crate) fn new_checker<'a>(
    chain: &'a Chain,
    rewards: &'a [saturn_ctmc::props::RewardStructure],
    options: Options,
    limits: &'a saturn_symbolic::Limits,
    progress: bool,
) -> Checker<'a> {
    let mut report = crate::progress::reporter("check", progress, 0);
    let progress = Box::new(move |what: &str, m: &Method, it: usize, d: f64| {
        if let Some(r) = report.as_mut() {
            r(&format!(
                "{what}: {} iteration {it}, difference {d:.3e}",
                m.name()
            ));
        }
        limits.check().is_ok()
    });
    let checker = Checker::new(
        &chain.model,
        &chain.actions,
        rewards,
        chain.ctmc.chain(),
        options,
        progress,
    );
    if chain.prog.model_type == ModelType::Dtmc {
        checker.discrete_time()
    } else {
        checker
    }
}

/// Check the properties `selected` of `tr`'s file in order; once a limit stops one
/// (`stopped`), the others are skipped.
pub(crate) fn check_rows(
    checker: &mut Checker,
    tr: &Translator,
    selected: &[usize],
    limits: &saturn_symbolic::Limits,
    stopped: &mut Option<saturn_symbolic::Interrupted>,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for &k in selected {
        let prop = &tr.props.properties[k];
        let t0 = Instant::now();
        let outcome = if stopped.is_some() {
            Outcome::Skipped
        } else {
            match tr.csl(&prop.expr) {
                Err(u) => Outcome::Failed(u.0),
                Ok(f) => match checker.answer(&f) {
                    Ok(x) => Outcome::Answer(x),
                    Err(e) => failure_outcome(e, limits, stopped),
                },
            }
        };
        rows.push(Row {
            index: k + 1,
            text: prop.ast.to_string(),
            outcome,
            iterations: checker.stats().iterations,
            methods: checker.stats().methods.clone(),
            stats: checker.stats().clone(),
            seconds: t0.elapsed().as_secs_f64(),
        });
    }
    rows
}

/// The outcome of a property whose check failed with `e`: stopped by a limit (noted in
/// `stopped`), or failed.
pub(crate) fn failure_outcome(
    e: CheckError,
    limits: &saturn_symbolic::Limits,
    stopped: &mut Option<saturn_symbolic::Interrupted>,
) -> Outcome {
    match e {
        CheckError::Stopped(i) => {
            *stopped = Some(i);
            Outcome::Stopped(i)
        }
        CheckError::Solve(SolveError::Interrupted) => {
            let i = limits
                .check()
                .err()
                .unwrap_or(saturn_symbolic::Interrupted::Cancelled);
            *stopped = Some(i);
            Outcome::Stopped(i)
        }
        e => Outcome::Failed(e.to_string()),
    }
}

/// The rows that failed, each said on stderr (`at`: where, e.g. the model and constants).
pub(crate) fn report_failed<'r>(at: &str, rows: &'r [Row]) -> Vec<&'r Row> {
    let failed: Vec<&Row> = rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Failed(_)))
        .collect();
    for r in &failed {
        if let Outcome::Failed(m) = &r.outcome {
            eprintln!("error: {at}: property {} ({}): {m}", r.index, r.text);
        }
    }
    failed
}

/// The JSON object of one checked property.
pub(crate) fn row_json(r: &Row, states: usize, transitions: u64, limits: &LimitArgs) -> Json {
    let (status, result, message) = match &r.outcome {
        Outcome::Answer(x) => (json!("ok"), answer_json(x), Json::Null),
        Outcome::Failed(m) => {
            let st = if m.contains("not supported yet") {
                "unsupported"
            } else {
                "error"
            };
            (json!(st), Json::Null, json!(m))
        }
        Outcome::Stopped(i) => (
            json!(crate::report::status_of(*i)),
            Json::Null,
            json!(limits.describe(*i)),
        ),
        Outcome::Skipped => (json!("skipped"), Json::Null, Json::Null),
    };
    let mut row = json!({
        "index": r.index,
        "property": r.text,
        "status": status,
        "result": result,
        "message": message,
        "states": states,
        "transitions": transitions,
        "iterations": r.iterations,
        "methods": r.methods,
        "seconds": r.seconds,
    });
    if let Outcome::Answer(x) = &r.outcome {
        if let (Json::Object(row), Json::Object(b)) = (&mut row, bounds_json(x, &r.stats)) {
            row.extend(b);
        }
    }
    row
}

/// Print the JSON object of a run with `fields`; its `status` and `diagnostics` say whether
/// a limit stopped the run or properties failed.
pub(crate) fn print_json(
    a: &CheckArgs,
    fields: Json,
    stopped: Option<saturn_symbolic::Interrupted>,
    failed: &[&Row],
) -> Result<(), out::OutputError> {
    let mut v = ok_object("check", &a.model, fields);
    if let Some(i) = stopped {
        v["status"] = json!(crate::report::status_of(i));
        v["diagnostics"] = json!([Diagnostic::plain(a.limits.describe(i))]);
    } else if !failed.is_empty() {
        v["status"] = json!(Status::Error);
        v["diagnostics"] = json!(failed
            .iter()
            .map(|r| match &r.outcome {
                Outcome::Failed(m) => Diagnostic::plain(format!("property {}: {m}", r.index)),
                _ => unreachable!("only failed rows"),
            })
            .collect::<Vec<_>>());
    }
    out::println(v)
}

/// [`print_json`] of an experiment's `fields` with the keys every run ends with: `seconds`
/// (since `start`), `peak_memory_bytes` and `properties`.
pub(crate) fn print_run_json(
    a: &CheckArgs,
    mut fields: Json,
    properties: Vec<Json>,
    start: Instant,
    stopped: Option<saturn_symbolic::Interrupted>,
    failed: &[&Row],
) -> Result<(), out::OutputError> {
    if let Json::Object(m) = &mut fields {
        m.insert("seconds".into(), json!(start.elapsed().as_secs_f64()));
        m.insert("peak_memory_bytes".into(), json!(peak_memory_bytes()));
        m.insert("properties".into(), Json::Array(properties));
    }
    print_json(a, fields, stopped, failed)
}

/// 3 when a limit stopped the run, 2 when a property failed, else success.
pub(crate) fn exit_code(
    stopped: Option<saturn_symbolic::Interrupted>,
    failed: &[&Row],
) -> ExitCode {
    if stopped.is_some() {
        ExitCode::from(3)
    } else if !failed.is_empty() {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}
