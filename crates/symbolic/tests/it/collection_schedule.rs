//! Garbage collection inside saturation under the production schedule: the context collects
//! when a forest has doubled since the last collection, never below the floor a memory limit
//! gives ([`saturn_dd::gc_floor_for`], 64K nodes for a low limit) — not the test-only
//! `set_gc_every`. On a mid-size model that makes over 2^20 nodes, the counter of collections
//! made in the middle of saturation ([`saturn_dd::Dd::collections_in_flight`]) shows that some
//! happened inside it, and the reachable set is compared with the explicit reference's,
//! state by state.

use std::collections::HashSet;

use saturn_dd::{gc_floor_for, Dd};
use saturn_reference::explore_model;
use saturn_symbolic::{Direction, Method, Reach};

/// A low memory limit: its collection floor is the smallest, 64K nodes.
const LOW_MEMORY: u64 = 16 << 20;

/// `family:n` under a scrambled order of its places (a fixed pseudo-random shuffle from
/// `seed`): a bad order makes saturation build, and drop, many nodes.
fn scrambled(family: &str, n: u32, seed: u64) -> saturn_model::Model {
    let net = saturn_model::families::generate(family, n).unwrap();
    let mut order: Vec<usize> = (0..net.places.len()).collect();
    let mut x = seed;
    for i in (1..order.len()).rev() {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        order.swap(i, (x >> 33) as usize % (i + 1));
    }
    net.to_model(&order).unwrap()
}

#[test]
fn saturation_collects_in_flight_under_the_production_schedule() {
    // robin:10, 23,040 states: over 2M nodes made, peak about 770K, ten collections
    let (family, n) = ("robin", 10);
    let model = scrambled(family, n, 1);
    let space = explore_model(&model, 5_000_000).expect("the reference explores it");

    let mut dd = Dd::new(model.num_levels());
    assert_eq!(gc_floor_for(Some(LOW_MEMORY)), 1 << 16);
    dd.set_gc_floor(gc_floor_for(Some(LOW_MEMORY)));
    let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
    let init = reach.state_set(&model.initial);
    let s = reach.explore(init, Method::Saturation).unwrap();
    drop(reach);
    let s = dd.pin(s);
    let stats = dd.sets.stats();
    eprintln!(
        "{family}:{n}: {} states, {} nodes made, peak {}, now {}, {} collections ({} inside \
         saturation)",
        space.num_states(),
        stats.nodes_made,
        stats.nodes_peak,
        stats.nodes_now,
        dd.collections(),
        dd.collections_in_flight()
    );
    assert!(
        stats.nodes_made >= 1 << 20,
        "a mid-size run: {} nodes made",
        stats.nodes_made
    );
    assert!(
        dd.collections_in_flight() > 0,
        "no collection happened inside saturation ({} in all)",
        dd.collections()
    );

    // the reachable set, state by state
    assert_eq!(dd.sets.cardinality(s.get()), space.num_states().into());
    let want: HashSet<&[u32]> = space.markings.iter().map(Vec::as_slice).collect();
    let mut outside = Vec::new();
    dd.sets.for_each_state(s.get(), usize::MAX, |m| {
        if !want.contains(m) && outside.len() < 5 {
            outside.push(m.to_vec());
        }
    });
    assert!(
        outside.is_empty(),
        "unreachable states generated: {outside:?}"
    );
}
