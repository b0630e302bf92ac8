//! Random walks from the initial marking (the explicit side of [`super::check`] shows their
//! markings before its breadth-first search): a witness of `EF φ` (a counterexample of `AG φ`),
//! a deadlock, a second token may lie deeper than a breadth-first search gets within its
//! memory, and a walk reaches it in milliseconds, as the contest's leading tools find them
//! first.

use std::time::{Duration, Instant};

use saturn_model::PetriNet;

/// The longest the walks of [`walk`] take (less when the time left is short: a sixteenth of it).
pub(super) const WALK_TIME: Duration = Duration::from_secs(4);

/// The most markings the walks of [`walk`] show in all: a small net's search is done in less
/// (the walks must not delay what it completes in milliseconds), and a large one's walks stop
/// at [`WALK_TIME`] first.
pub(super) const WALK_STEPS: u64 = 100_000;

/// Random walks from the initial marking for at most `time` and [`WALK_STEPS`] markings (or
/// until `stop`), each firing
/// uniformly among the enabled transitions, showing every marking to `visit` (with `true` at a
/// deadlock, where the walk ends); a walk ends at its length (ten times the number of places,
/// within 1,000..100,000) and the next starts over. The first marking shown is the initial
/// one. `true` when `visit` said it is done. Deterministic: the generator has a fixed seed.
pub(super) fn walk(
    net: &PetriNet,
    time: Duration,
    stop: &dyn Fn() -> bool,
    visit: &mut dyn FnMut(&[u64], bool) -> bool,
) -> bool {
    let nt = net.transitions.len();
    let m0 = net.initial_marking();
    let length = (10 * m0.len()).clamp(1_000, 100_000);
    let start = Instant::now();
    let mut rng = saturn_model::bounded::Rng::seeded();
    let mut enabled = Vec::with_capacity(nt);
    let mut steps = 0u64;
    loop {
        let mut m = m0.clone();
        for _ in 0..=length {
            enabled.clear();
            enabled.extend((0..nt).filter(|&t| net.enabled(t, &m)));
            let dead = enabled.is_empty();
            if visit(&m, dead) {
                return true;
            }
            steps += 1;
            if steps >= WALK_STEPS
                || steps.is_multiple_of(256) && (start.elapsed() >= time || stop())
            {
                return false;
            }
            if dead {
                break;
            }
            let t = enabled[rng.below(enabled.len())];
            // a place past u64 ends the walk (the search reports the overflow)
            if !fire(net, t, &mut m) {
                return false;
            }
        }
        if start.elapsed() >= time || stop() {
            return false;
        }
    }
}

/// Fire the enabled transition `t` in `m`; `false` (and `m` left part-fired) when a place
/// would pass `u64`.
pub(super) fn fire(net: &PetriNet, t: usize, m: &mut [u64]) -> bool {
    let tr = &net.transitions[t];
    for a in &tr.inputs {
        m[a.place] -= a.weight;
    }
    for a in &tr.outputs {
        match m[a.place].checked_add(a.weight) {
            Some(v) => m[a.place] = v,
            None => return false,
        }
    }
    true
}
