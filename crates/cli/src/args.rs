//! Options shared by the subcommands: value lists for `--help` and completions (clap
//! `ValueEnum`), limits, progress.

use std::time::{Duration, Instant};

use clap::ValueEnum;
use saturn_symbolic::{Interrupted, Limits, Method, Relations};

/// A state-space generation algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Breadth-first: S ← S ∪ N(S) until no change.
    Bfs,
    /// Breadth-first on the frontier only.
    #[value(alias = "frontier")]
    BfsFrontier,
    /// Saturation: fire events bottom-up to a local fixpoint (the fastest).
    #[value(alias = "sat")]
    Saturation,
}

impl MethodArg {
    pub fn method(self) -> Method {
        match self {
            MethodArg::Bfs => Method::Bfs,
            MethodArg::BfsFrontier => Method::BfsFrontier,
            MethodArg::Saturation => Method::Saturation,
        }
    }
}

/// A variable order (which place goes on which level of the decision diagram).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OrderArg {
    /// Places in file order, first place at the top.
    File,
    /// Places in reverse file order (the best single order on the benchmark table).
    FileRev,
    /// FORCE: places moved towards the centre of gravity of their transitions.
    Force,
    /// Sloan's profile-reducing order.
    Sloan,
    /// Cuthill-McKee's bandwidth-reducing order.
    CuthillMckee,
    /// Noack's greedy gradient order (as Marcie and LTSmin use it).
    Noack,
    /// Tovchigrechko's variant of Noack's order.
    Tovchigrechko,
    /// The places of each P-semiflow on neighbouring levels.
    Semiflow,
    /// The semiflow order upside down (its first level at the top).
    SemiflowRev,
    /// Span minimisation by local search from FORCE or Sloan.
    SpanSearch,
    /// FORCE with each transition's pull divided by the square of its size (a transition of
    /// thousands of places barely moves them).
    ForceWeighted,
    /// The two orders of lowest predicted cost (transition and P-semiflow spans), then sloan,
    /// force, file-rev and semiflow-rev, by iterative deepening (the first to finish; on two cores once the
    /// racers beside it are done).
    Auto,
}

impl OrderArg {
    pub fn name(self) -> &'static str {
        match self {
            OrderArg::File => "file",
            OrderArg::FileRev => "file-rev",
            OrderArg::Force => "force",
            OrderArg::Sloan => "sloan",
            OrderArg::CuthillMckee => "cuthill-mckee",
            OrderArg::Noack => "noack",
            OrderArg::Tovchigrechko => "tovchigrechko",
            OrderArg::Semiflow => "semiflow",
            OrderArg::SemiflowRev => "semiflow-rev",
            OrderArg::SpanSearch => "span-search",
            OrderArg::ForceWeighted => "force-weighted",
            OrderArg::Auto => "auto",
        }
    }
}

/// How events are applied to state sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RelationsArg {
    /// Fired directly on MDD nodes from their local functions.
    Implicit,
    /// Relation MDDs built on the fly as local states appear.
    Mdd,
    /// Both: every candidate order is tried both ways in the portfolio (a single order then
    /// makes a portfolio of two).
    Auto,
}

impl RelationsArg {
    pub fn relations(self) -> Relations {
        match self {
            RelationsArg::Implicit => Relations::Implicit,
            RelationsArg::Mdd => Relations::Mdd,
            RelationsArg::Auto => Relations::Auto,
        }
    }
}

/// What a level of a net's diagram holds (`saturn mcc`: StateSpace and the formula and global
/// property examinations; `saturn statespace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LevelsArg {
    /// With `--order auto` (the portfolio): `group` when it at least halves the levels (the
    /// groups hold most of the net, such as the local states of its processes), both raced
    /// when the groups hold at least a fifth of the places, else `place`; `place` with a
    /// single order.
    Auto,
    /// One place per level, its token count the local state.
    Place,
    /// Each one-hot group of places (the support of a P-semiflow of weights 1 that holds one
    /// token, such as an unfolded counter or a process's local states) on one level, its
    /// marked place the local state; every other place on a level of its own.
    Group,
}

/// When a net's one-hot groups of places go on one level each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouping {
    Never,
    /// When that at least halves the levels; both encodings, raced in the portfolio, when the
    /// groups hold at least a fifth of the places; else never. No count of groups or places
    /// tells which encoding wins in between: grouped, HirschbergSinclair-PT-50 and
    /// LamportFastMutEx-PT-5 answer within 60 s and Railroad-PT-020 does not. Where the groups
    /// are a small part of the net, the orders change for little gain: ASLink-PT-03a (one group
    /// of 36 of its 821 places) answered in 11 s with one place per level and not in 60 s
    /// grouped.
    Auto,
    Always,
}

impl LevelsArg {
    /// When a run with `order` puts one-hot groups on one level.
    pub fn grouping(self, order: OrderArg) -> Grouping {
        match self {
            LevelsArg::Auto if order == OrderArg::Auto => Grouping::Auto,
            LevelsArg::Auto | LevelsArg::Place => Grouping::Never,
            LevelsArg::Group => Grouping::Always,
        }
    }
}

/// Whether a net's boundedness is decided alongside generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BoundednessArg {
    /// Race the generation against structural bounds and a search for an unboundedness
    /// witness; an unbounded net answers +inf with its witness.
    Race,
    /// Generation only: an unbounded net runs until a limit stops it.
    Off,
}

/// Whether the StateSpace figures of a net with many tokens come from the same net with few
/// (when they are provably polynomials in the scale of the initial marking).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScalingArg {
    /// Interpolate from small scales when the net qualifies (acyclic, ordinary, each place
    /// with at most one producer and one consumer) and its scale is well beyond them.
    Auto,
    /// Always generate the net as it is.
    Off,
}

/// Whether the StateSpace figures of a bounded net with many tokens per place may come from
/// the polytope of its P-semiflows on binary counters, without a fixpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PolytopeArg {
    /// When a place may hold many tokens: the polytope's markings, when a ranking proves them
    /// all reachable (otherwise the net is generated as usual)
    Auto,
    /// Always generate the net
    Off,
}

/// Whether an explicit-state search races the symbolic generation (StateSpace figures only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExplicitArg {
    /// With `--order auto` (the portfolio): a breadth-first search over packed markings starts
    /// beside the generation once it has run a second, within a memory budget; first to
    /// finish answers
    Auto,
    /// Decision diagrams only
    Off,
    /// The explicit search alone (no decision diagram)
    Only,
}

impl ExplicitArg {
    pub fn mode(self) -> saturn_engine::ExplicitMode {
        match self {
            ExplicitArg::Auto => saturn_engine::ExplicitMode::Auto,
            ExplicitArg::Off => saturn_engine::ExplicitMode::Off,
            ExplicitArg::Only => saturn_engine::ExplicitMode::Only,
        }
    }
}

#[derive(clap::Args, Debug, Clone)]
pub struct LimitArgs {
    /// Stop cleanly (exit 3) after this many seconds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=31_536_000))]
    pub timeout: Option<u64>,
    /// Stop cleanly (exit 3) when the process uses more than this many MiB.
    #[arg(long = "max-memory", value_parser = clap::value_parser!(u64).range(1..=16_777_216))]
    pub max_memory: Option<u64>,
    /// Show the progress line on stderr even when it is not a terminal (logs, CI).
    #[arg(long)]
    pub progress: bool,
}

impl LimitArgs {
    pub fn limits(&self, start: Instant) -> Limits {
        Limits {
            deadline: self.timeout.map(|s| start + Duration::from_secs(s)),
            // the engines poll the resident set every few thousand steps, and a unique table
            // or cache may double in between: they stop at 15/16 of the limit, so that the
            // process as a whole stays under it
            max_memory: self.max_memory.map(|mb| mb * 1024 * 1024 / 16 * 15),
            ..Limits::none()
        }
    }

    /// Which limit `i` is, in words.
    pub fn describe(&self, i: Interrupted) -> String {
        match i {
            Interrupted::Timeout | Interrupted::Budget => {
                format!("time limit of {} s reached", self.timeout.unwrap_or(0))
            }
            Interrupted::Memory => match self.max_memory {
                Some(m) => format!("memory limit of {m} MiB reached"),
                // without a limit only the explicit search stops on memory: at its own budget
                None => format!(
                    "the explicit search's markings outgrew its budget of {} MiB",
                    saturn_engine::explicit_bytes(&saturn_symbolic::Limits::none()) >> 20
                ),
            },
            Interrupted::Cancelled => "cancelled".to_string(),
            Interrupted::TooManyNodes => format!(
                "the decision diagrams outgrew their 32-bit indices (more than {} nodes or \
                 edges in one forest)",
                saturn_dd::MAX_NODES
            ),
            Interrupted::IndexTooLarge => format!(
                "a place reached more tokens than a decision-diagram node can hold \
                 (over {} local states; the net may be unbounded)",
                saturn_symbolic::max_dense_index(self.max_memory.map(|m| m * 1024 * 1024))
            ),
        }
    }
}

/// What a path that reaches a deadlock means to CTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DeadlocksArg {
    /// Maximal paths: a path stops at a deadlock (the contest's semantics): there EX is false,
    /// AX true, EG and AF reduce to their argument.
    Maximal,
    /// A deadlock loops forever (the textbook reading; EX φ holds at a deadlock satisfying φ).
    SelfLoop,
}

impl DeadlocksArg {
    pub fn deadlocks(self) -> saturn_symbolic::ctl::Deadlocks {
        match self {
            DeadlocksArg::Maximal => saturn_symbolic::ctl::Deadlocks::Maximal,
            DeadlocksArg::SelfLoop => saturn_symbolic::ctl::Deadlocks::SelfLoop,
        }
    }
}

/// What a path that reaches a deadlock means to LTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LtlDeadlocksArg {
    /// The deadlock repeats forever (the contest's LTL convention): `X φ` at a deadlock is φ
    /// there.
    Stutter,
    /// Finite maximal paths: `X φ` is false at a deadlock, `G φ` needs φ up to the deadlock.
    Maximal,
}

impl LtlDeadlocksArg {
    pub fn deadlocks(self) -> saturn_ltl::Deadlocks {
        match self {
            LtlDeadlocksArg::Stutter => saturn_ltl::Deadlocks::Stutter,
            LtlDeadlocksArg::Maximal => saturn_ltl::Deadlocks::Maximal,
        }
    }
}

/// How `E[φ U ψ]` (and EF, AG, AU) is computed (thesis chapter 3; docs/ctl.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EuMethodArg {
    /// Breadth-first EUtrad (Figure 2.11).
    Trad,
    /// EUsat: saturation with the safe events, breadth-first steps with the unsafe ones
    /// (Figure 3.1).
    Sat,
    /// Saturation with next-state functions constrained to the potential states of φ
    /// (Figure 3.2).
    ConsNsfPot,
    /// Saturation with next-state functions constrained to the reachable states of φ
    /// (Figure 3.2).
    ConsNsfRch,
    /// Constrained saturation within the potential states of φ (Figure 3.3).
    ConsSatPot,
    /// Constrained saturation within the reachable states of φ (Figure 3.3; the default).
    ConsSatRch,
}

impl EuMethodArg {
    pub fn eu_method(self) -> saturn_symbolic::ctl::EuMethod {
        use saturn_symbolic::ctl::EuMethod as M;
        match self {
            EuMethodArg::Trad => M::Trad,
            EuMethodArg::Sat => M::Sat,
            EuMethodArg::ConsNsfPot => M::ConsNsfPot,
            EuMethodArg::ConsNsfRch => M::ConsNsfRch,
            EuMethodArg::ConsSatPot => M::ConsSatPot,
            EuMethodArg::ConsSatRch => M::ConsSatRch,
        }
    }
}

/// How `EG` is computed without fairness (also for AF and AU).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EgMethodArg {
    /// Breadth-first EGtrad (Figure 2.11; the default).
    Trad,
    /// The backward transitive closure by constrained saturation (Definition 9, Claims 1-2).
    Tc,
}

impl EgMethodArg {
    pub fn eg_method(self) -> saturn_symbolic::ctl::EgMethod {
        match self {
            EgMethodArg::Trad => saturn_symbolic::ctl::EgMethod::Trad,
            EgMethodArg::Tc => saturn_symbolic::ctl::EgMethod::Tc,
        }
    }
}

/// How `--witness` finds an `EG` lasso (and the `AF`/`AU` counterexamples).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WitnessMethodArg {
    /// The walk of thesis Figure 5.1: a valid lasso, not a shortest one.
    Bfs,
    /// A shortest lasso by the closure with distances (thesis section 5.2, Figures 5.2-5.3):
    /// the 2L-level TCD EV+MDD within the EG set, stem + cycle minimised over every knot.
    Tcd,
    /// A shortest lasso by distance layers bounded by the walk (the same minimum, Equation 5.1,
    /// without the 2L-level closure).
    Layers,
    /// A shortest lasso by the fastest route (the default): the walk, or a shorter witness
    /// found by depth-first searches, when a proof by images and preimages says nothing is
    /// shorter; else distance layers while their cycle searches stay small (at most 32
    /// preimages), the closure with distances beyond.
    Auto,
}

impl WitnessMethodArg {
    pub fn witness_method(self) -> saturn_symbolic::ctl::WitnessMethod {
        match self {
            WitnessMethodArg::Bfs => saturn_symbolic::ctl::WitnessMethod::Bfs,
            WitnessMethodArg::Tcd => saturn_symbolic::ctl::WitnessMethod::Tcd,
            WitnessMethodArg::Layers => saturn_symbolic::ctl::WitnessMethod::Layers,
            WitnessMethodArg::Auto => saturn_symbolic::ctl::WitnessMethod::Auto,
        }
    }
}

/// How `EG` is computed under `--fair`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FairMethodArg {
    /// The transitive closure (Claim 3, Figure 4.8; the default).
    Tc,
    /// The Emerson-Lei fixpoint, breadth-first.
    El,
}

impl FairMethodArg {
    pub fn fair_method(self) -> saturn_symbolic::ctl::FairMethod {
        match self {
            FairMethodArg::Tc => saturn_symbolic::ctl::FairMethod::Tc,
            FairMethodArg::El => saturn_symbolic::ctl::FairMethod::EmersonLei,
        }
    }
}

/// How a net's state space is generated (shared by the commands that generate one).
#[derive(clap::Args, Debug, Clone)]
pub struct GenerationArgs {
    /// The generation algorithm (for PRISM models, bfs and bfs-frontier chain event images).
    #[arg(long, value_enum, default_value_t = MethodArg::Saturation)]
    pub method: MethodArg,
    /// The variable order [default: file-rev, or auto for a contest model directory, as `saturn
    /// mcc` does; file for PRISM models].
    #[arg(long, value_enum)]
    pub order: Option<OrderArg>,
    /// How events are applied (Petri nets; PRISM models always use relation MDDs) [default:
    /// auto with `--order auto`, else implicit].
    #[arg(long, value_enum)]
    pub relations: Option<RelationsArg>,
}

impl GenerationArgs {
    /// The relations of a run with `order`: as given, else `auto` with the `auto` order (the
    /// portfolio tries both ways) and implicit with a single order.
    pub fn relations_for(&self, order: OrderArg) -> Relations {
        self.relations
            .unwrap_or(if order == OrderArg::Auto {
                RelationsArg::Auto
            } else {
                RelationsArg::Implicit
            })
            .relations()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_order_is_an_order_arg() {
        for name in saturn_model::order::ORDER_NAMES {
            let arg = OrderArg::from_str(name, false).expect("selectable by --order");
            assert_eq!(arg.name(), *name);
        }
        assert_eq!(
            OrderArg::value_variants().len(),
            saturn_model::order::ORDER_NAMES.len() + 1,
            "every --order value but auto is a model order"
        );
    }
}
