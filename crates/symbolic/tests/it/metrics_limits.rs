//! The StateSpace metrics pass honours the limits: a deadline already past stops it with
//! `Timeout`, a memory limit already exceeded with `Memory`, and without limits it gives the
//! figures of the explicit reference.

use std::time::{Duration, Instant};

use saturn_reference::explore_petri;
use saturn_symbolic::metrics::{state_space_metrics, state_space_metrics_within};
use saturn_symbolic::{Direction, Interrupted, Limits, Method, Reach};

#[test]
fn metrics_stop_at_limits_and_agree_without() {
    let net = saturn_model::families::generate("kanban", 3).unwrap();
    let order: Vec<usize> = (0..net.places.len()).collect();
    let model = net.to_model(&order).unwrap();
    let mut dd = saturn_dd::Dd::new(model.num_levels());
    let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
    let init = reach.state_set(&model.initial);
    let s = reach.explore(init, Method::Saturation).unwrap();
    drop(reach);

    let past = Limits {
        deadline: Some(Instant::now() - Duration::from_millis(1)),
        max_memory: None,
        ..Limits::none()
    };
    let r = state_space_metrics_within(&dd.sets, &model, s, &past);
    assert_eq!(r.unwrap_err(), Interrupted::Timeout);
    let tiny = Limits {
        deadline: None,
        max_memory: Some(1),
        ..Limits::none()
    };
    let r = state_space_metrics_within(&dd.sets, &model, s, &tiny);
    assert_eq!(r.unwrap_err(), Interrupted::Memory);

    let far = Limits {
        deadline: Some(Instant::now() + Duration::from_secs(3600)),
        max_memory: None,
        ..Limits::none()
    };
    let m = state_space_metrics_within(&dd.sets, &model, s, &far).unwrap();
    assert_eq!(m, state_space_metrics(&dd.sets, &model, s));
    let explicit = explore_petri(&net, 1 << 20).unwrap();
    assert_eq!(m.states.to_string(), explicit.states.to_string());
    assert_eq!(m.transitions.to_string(), explicit.transitions.to_string());
    assert_eq!(m.max_local, explicit.max_tokens_place);
    assert_eq!(m.max_sum, explicit.max_tokens_marking);
}
