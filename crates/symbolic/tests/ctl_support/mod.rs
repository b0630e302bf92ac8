//! Shared by the CTL tests: a checker on a fresh saturated state space.

use saturn_dd::Dd;
use saturn_model::Model;
use saturn_symbolic::atoms::Atoms;
use saturn_symbolic::ctl::{Checker, Deadlocks};
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
