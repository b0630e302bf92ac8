//! Figures by scaling (issue 12): on random nets that meet the conditions of
//! `saturn_model::scaling`, the figures interpolated from small scales are those the explicit
//! reference counts at the net's own scale.

use saturn_model::order::by_name;
use saturn_model::scaling::polynomial_scaling;
use saturn_model::{Arc, PetriNet, Place, Transition};
use saturn_reference::explore_petri;
use saturn_symbolic::statespace::{figures_by_scaling, generate};
use saturn_symbolic::{Limits, Method};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) % n
    }
}

/// A random acyclic net in which every place has at most one producer and one consumer and
/// every transition an input place: each transition reads one or two places, either fresh
/// marked ones (`unit` 1 or 2 tokens, times `scale`) or outputs of earlier transitions not yet
/// read, and writes zero to three fresh places.
fn random_net(rng: &mut Rng, transitions: usize, scale: u64) -> PetriNet {
    let mut places: Vec<Place> = Vec::new();
    let mut unread: Vec<usize> = Vec::new();
    let mut trs = Vec::new();
    let fresh = |places: &mut Vec<Place>, initial: u64| {
        places.push(Place {
            id: format!("p{}", places.len()),
            name: format!("p{}", places.len()),
            initial,
        });
        places.len() - 1
    };
    for i in 0..transitions {
        let mut inputs = Vec::new();
        for _ in 0..=rng.below(2) {
            let place = if !unread.is_empty() && (i > 0 && rng.below(3) > 0) {
                unread.swap_remove(rng.below(unread.len() as u64) as usize)
            } else {
                fresh(&mut places, (1 + rng.below(2)) * scale)
            };
            inputs.push(Arc { place, weight: 1 });
        }
        let outputs = (0..rng.below(4))
            .map(|_| {
                let place = fresh(&mut places, 0);
                unread.push(place);
                Arc { place, weight: 1 }
            })
            .collect();
        trs.push(Transition {
            id: format!("t{i}"),
            name: format!("t{i}"),
            inputs,
            outputs,
            inhibitors: Vec::new(),
        });
    }
    PetriNet {
        name: "random-scaled".into(),
        places,
        transitions: trs,
    }
}

#[test]
fn interpolated_figures_match_the_explicit_reference_on_random_nets() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut checked = 0;
    for case in 0..60 {
        let transitions = 1 + rng.below(6) as usize;
        // beyond the scales the interpolation generates (0..=transitions+1)
        let scale = transitions as u64 + 2 + rng.below(3);
        let net = random_net(&mut rng, transitions, scale);
        let s = polynomial_scaling(&net).expect("the generator meets the conditions");
        assert_eq!(s.degree, transitions);
        // the gcd may be a multiple of the scale (every unit 2)
        assert_eq!(s.factor % scale, 0, "case {case}");
        let Ok(explicit) = explore_petri(&net, 2_000_000) else {
            continue;
        };
        let model = net.to_model(&by_name(&net, "sloan").unwrap()).unwrap();
        let mut at = |k: u64| {
            let small = s.net_at(&net, k);
            let m = small.to_model(&by_name(&small, "sloan").unwrap()).unwrap();
            assert_eq!(m.levels.len(), model.levels.len());
            generate(&m, Method::Saturation, Limits::none(), None).map(|ss| ss.metrics)
        };
        let Some(f) = figures_by_scaling(s.factor, s.degree, &mut at).unwrap() else {
            // only when the net's own scale is among the small ones
            assert!(s.factor < s.degree as u64 + 2, "case {case}: refused");
            continue;
        };
        assert_eq!(f.states, (explicit.states as u64).into(), "case {case}");
        assert_eq!(f.transitions, explicit.transitions.into(), "case {case}");
        assert_eq!(f.max_local, explicit.max_tokens_place, "case {case}");
        assert_eq!(f.max_sum, explicit.max_tokens_marking, "case {case}");
        assert!(f.degree <= s.degree);
        checked += 1;
    }
    assert!(checked >= 45, "only {checked} nets checked");
}
