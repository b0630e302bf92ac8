//! The StateSpace figures of a bounded net with many tokens per place from the polytope of its
//! P-semiflows on binary counters (issue 12, [`saturn_symbolic::binary`]), raced beside the
//! generation ([`crate::race`]): first to finish answers; when no ranking proves every marking
//! of the polytope reachable the racer just ends, and the generation goes on alone.

use saturn_model::bounded::{self, StructuralBounds};
use saturn_model::state_machine::{state_machine_figures, Figures};
use saturn_model::PetriNet;
use saturn_symbolic::binary::{
    polytope_liveness, polytope_state_space, PolytopeInputs, PolytopeLiveness, PolytopeStateSpace,
};
use saturn_symbolic::Limits;

use crate::ExplicitMode;

/// Tried only when some place may hold at least this many tokens: below it, one level per
/// count is as small.
const WIDE: u64 = 16;

/// The most nodes the polytope's diagram may take (ClientsAndServers-PT-N0020P0: 4.4 million,
/// proved in 43 s).
const MAX_NODES: usize = 8_000_000;

/// What the racer needs: the net, every place's structural bound, the P-semiflows and the
/// place order within a block of bits.
pub struct Polytope<'n> {
    pub net: &'n PetriNet,
    bounds: Vec<u64>,
    flows: Vec<Vec<(usize, i64)>>,
    /// The minimal T-semiflows' supports, when the quick budget found them all.
    t_flows: Option<Vec<Vec<usize>>>,
    order: Vec<usize>,
}

impl<'n> Polytope<'n> {
    /// Does a run race the polytope: asked for (`polytope`) with the order portfolio
    /// (`portfolio`, as the explicit search: a run with one given order stays one generation,
    /// its memory its own), not the explicit search alone, the quick structural bounds cover
    /// every place and one of them is wide?
    pub fn wanted(
        bounds: Option<&StructuralBounds>,
        polytope: bool,
        explicit: ExplicitMode,
        portfolio: bool,
    ) -> bool {
        polytope
            && portfolio
            && explicit != ExplicitMode::Only
            && bounds.is_some_and(|b| {
                b.all_covered() && b.bounds.iter().any(|x| x.is_some_and(|x| x >= WIDE))
            })
    }

    /// The racer, when `polytope` asks for it, the run is not the explicit search
    /// alone, the quick structural bounds cover every place, one of them is wide, and the net
    /// has P-semiflows (within the quick structural budget).
    pub fn new(
        net: &'n PetriNet,
        bounds: Option<&StructuralBounds>,
        polytope: bool,
        explicit: ExplicitMode,
        portfolio: bool,
        limits: &Limits,
    ) -> Option<Polytope<'n>> {
        if !Polytope::wanted(bounds, polytope, explicit, portfolio) {
            return None;
        }
        Polytope::over(net, &bounds?.bounds, limits)
    }

    /// The racer for a net whose every place has a structural bound in `bounds`, one of them
    /// wide, and that has P-semiflows (within the quick structural budget).
    pub fn over(
        net: &'n PetriNet,
        bounds: &[Option<u64>],
        limits: &Limits,
    ) -> Option<Polytope<'n>> {
        let b: Vec<u64> = bounds.iter().copied().collect::<Option<_>>()?;
        if !b.iter().any(|&x| x >= WIDE) {
            return None;
        }
        let stop = limits.stopper();
        let quick = bounded::Limits {
            max_work: crate::race::QUICK_STRUCTURAL_WORK,
            ..bounded::Limits::default()
        };
        let (flows, _) = bounded::p_semiflows(net, &quick, &stop);
        if flows.is_empty() {
            return None;
        }
        let (t_flows, complete) = bounded::t_semiflow_supports(net, &quick, &stop);
        let t_flows = complete.then_some(t_flows);
        let order = saturn_model::order::by_name(net, "force")
            .unwrap_or_else(|_| saturn_model::order::file_order(net));
        Some(Polytope {
            net,
            bounds: b,
            flows,
            t_flows,
            order,
        })
    }

    /// What the polytope and its reverse tell of the global properties
    /// ([`polytope_liveness`]), or `None` when no rankings prove every marking reachable and
    /// able to return, the diagram grows too large, or `limits` stop it.
    /// It runs on a thread of its own with a large stack (the diagram walks recurse once per
    /// boolean level); this thread polls `stop` meanwhile and tells it.
    pub fn liveness(&self, limits: &Limits, stop: &dyn Fn() -> bool) -> Option<PolytopeLiveness> {
        let halt = std::sync::atomic::AtomicBool::new(false);
        let halted = || halt.load(std::sync::atomic::Ordering::Relaxed);
        std::thread::scope(|scope| {
            let worker = std::thread::Builder::new()
                .name("polytope".into())
                .stack_size(crate::race::POLYTOPE_STACK)
                .spawn_scoped(scope, || {
                    let stop = || halted() || limits.check().is_err();
                    polytope_liveness(&self.inputs(), limits, &stop)
                })
                .ok()?;
            while !worker.is_finished() {
                if stop() {
                    halt.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            worker.join().ok()?.ok().flatten()
        })
    }

    fn inputs(&self) -> PolytopeInputs<'_> {
        PolytopeInputs {
            net: self.net,
            bounds: &self.bounds,
            flows: &self.flows,
            t_flows: self.t_flows.as_deref(),
            order: &self.order,
            max_nodes: MAX_NODES,
        }
    }

    /// The figures, or `None` when no ranking proves the polytope reachable, the diagram grows
    /// too large, or `limits` stop it.
    pub fn run(&self, limits: &Limits) -> Option<PolytopeStateSpace> {
        polytope_state_space(
            self.net,
            &self.bounds,
            &self.flows,
            self.t_flows.as_deref(),
            &self.order,
            limits,
            MAX_NODES,
        )
        .ok()
        .flatten()
    }
}

/// The figures of a strongly connected state machine in closed form
/// ([`saturn_model::state_machine`]: its polytope, one token count per component, is reachable
/// by structure alone), when `polytope` asks for the polytope and the run is not the
/// explicit search alone.
pub fn closed_form(net: &PetriNet, polytope: bool, explicit: ExplicitMode) -> Option<Figures> {
    if !polytope || explicit == ExplicitMode::Only {
        return None;
    }
    state_machine_figures(net)
}
