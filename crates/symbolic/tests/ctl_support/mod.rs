//! Shared by the CTL tests: a checker on a fresh saturated state space.

use std::collections::HashMap;

use proptest::prelude::*;
use saturn_dd::Dd;
use saturn_logic::StateFormula;
use saturn_model::Model;
use saturn_model::PetriNet;
use saturn_reference::{CtlChecker, ExplicitStateSpace};
use saturn_symbolic::atoms::Atoms;
use saturn_symbolic::ctl::{Checker, Deadlocks, Witness};
use saturn_symbolic::{Direction, Method, Reach};

/// A checker for `model` (the net lowered with `order`) on `dd`, which collects garbage every
/// 64 nodes (in the middle of saturation too), after saturating its state space.
pub fn checker<'d>(dd: &'d mut Dd, model: &Model, order: &[usize], mode: Deadlocks) -> Checker<'d> {
    checker_collecting(dd, model, order, mode, Some(64))
}

/// As [`checker`], collecting garbage every `gc_every` nodes (`None`: the context's default).
#[allow(dead_code)]
pub fn checker_collecting<'d>(
    dd: &'d mut Dd,
    model: &Model,
    order: &[usize],
    mode: Deadlocks,
    gc_every: Option<usize>,
) -> Checker<'d> {
    dd.set_gc_every(gc_every);
    let mut reach = Reach::new(dd, model, Direction::Forward, None);
    let init = reach.state_set(&model.initial);
    let rch = reach.explore(init, Method::Saturation).unwrap();
    let atoms = Atoms::for_petri(model, order);
    Checker::new(reach, model, atoms, rch, mode)
}

#[allow(dead_code)]
fn marking(tuple: &[u32], order: &[usize]) -> Vec<u64> {
    let mut m = vec![0u64; order.len()];
    for (k, &p) in order.iter().enumerate() {
        m[p] = u64::from(tuple[k]);
    }
    m
}

/// The witness `w` (of the net lowered with `order`) as explicit state indices (`index`),
/// after replaying it on the net: it starts in the initial marking, each step fires an enabled
/// transition to the next marking (or is a deadlock's own loop under the self-loop reading),
/// and a lasso closes.
#[allow(dead_code)]
pub fn replay(
    net: &PetriNet,
    model: &Model,
    order: &[usize],
    index: &HashMap<Vec<u64>, usize>,
    w: &Witness,
    mode: Deadlocks,
) -> Result<Vec<usize>, TestCaseError> {
    let m0 = net.initial_marking();
    replay_from(net, model, order, index, w, mode, &m0)
}

/// As [`replay`], for a witness from the marking `start`.
#[allow(dead_code)]
pub fn replay_from(
    net: &PetriNet,
    model: &Model,
    order: &[usize],
    index: &HashMap<Vec<u64>, usize>,
    w: &Witness,
    mode: Deadlocks,
    start: &[u64],
) -> Result<Vec<usize>, TestCaseError> {
    let ms: Vec<Vec<u64>> = w.states.iter().map(|s| marking(s, order)).collect();
    prop_assert_eq!(&ms[0][..], start);
    prop_assert_eq!(w.events.len() + 1, ms.len());
    for (i, e) in w.events.iter().enumerate() {
        match e {
            Some(e) => {
                let t = net.transition_index(&model.events[*e].name).unwrap();
                prop_assert!(net.enabled(t, &ms[i]), "step {} not enabled", i);
                prop_assert_eq!(&net.fire(t, &ms[i]), &ms[i + 1]);
            }
            None => {
                prop_assert_eq!(mode, Deadlocks::SelfLoop);
                prop_assert!((0..net.transitions.len()).all(|t| !net.enabled(t, &ms[i])));
                prop_assert_eq!(&ms[i], &ms[i + 1]);
            }
        }
    }
    if let Some(l) = w.loop_start {
        prop_assert_eq!(&ms[l], ms.last().unwrap());
    }
    Ok(ms.iter().map(|m| index[m]).collect())
}

/// The explicit checker's deadlock reading for `d`.
#[allow(dead_code)]
pub fn reference_mode(d: Deadlocks) -> saturn_reference::Deadlocks {
    match d {
        Deadlocks::Maximal => saturn_reference::Deadlocks::Maximal,
        Deadlocks::SelfLoop => saturn_reference::Deadlocks::SelfLoop,
    }
}

/// The explicit oracle of the fair witness tests: the checker with the fairness `fair`, the
/// fairness sets (evaluated without fairness) and each marking's index.
#[allow(dead_code)]
pub struct FairOracle<'a> {
    pub fairly: CtlChecker<'a>,
    pub sets: Vec<Vec<bool>>,
    pub index: HashMap<Vec<u64>, usize>,
}

#[allow(dead_code)]
pub fn fair_oracle<'a>(
    net: &'a PetriNet,
    space: &'a ExplicitStateSpace<Vec<u64>>,
    mode: Deadlocks,
    fair: &[StateFormula],
) -> FairOracle<'a> {
    let plain = CtlChecker::new(net, space, reference_mode(mode));
    let fairly = CtlChecker::new(net, space, reference_mode(mode))
        .with_fairness(fair)
        .unwrap();
    let sets = fair.iter().map(|f| plain.sat(f).unwrap()).collect();
    let index = space
        .markings
        .iter()
        .enumerate()
        .map(|(i, m)| (m.clone(), i))
        .collect();
    FairOracle {
        fairly,
        sets,
        index,
    }
}

/// Random small nets (up to 8 places, 10 transitions) and, one time in four, one of the
/// generated family instances `families`.
#[allow(dead_code)]
pub fn nets_or_families(families: Vec<(&'static str, u32)>) -> impl Strategy<Value = PetriNet> {
    let family = prop::sample::select(families)
        .prop_map(|(f, n)| saturn_model::families::generate(f, n).unwrap());
    prop_oneof![3 => saturn_reference::strategies::random_net(8, 10), 1 => family]
}
