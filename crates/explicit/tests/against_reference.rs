//! The explicit search against the test oracle's BFS (`saturn-reference`) on random nets with
//! inhibitor arcs: the four StateSpace figures agree, whatever the field widths (structural
//! bounds, no bounds with one-bit fields widened as counts grow, or the default); nets the
//! oracle cannot finish (unbounded or large) are never answered with fewer states than it saw.

use proptest::prelude::*;
use saturn_explicit::{explore, Config, Counts, Firing, GaveUp, Packing};
use saturn_model::bounded::{structural_bounds, Limits};
use saturn_reference::explore::explore_petri;
use saturn_reference::strategies::{config, random_net};

const CAP: usize = 3000;

proptest! {
    #![proptest_config(config(200))]
    /// `Firing` tries only the keyed transitions: in every reachable marking it finds the
    /// transitions the net says are enabled, and fires them as the net does.
    #[test]
    fn firing_agrees_with_the_net(net in random_net(8, 10)) {
        let firing = Firing::new(&net);
        // an unbounded or large net: its initial marking only
        let space = explore_petri(&net, CAP).map_or_else(|_| vec![net.initial_marking()], |r| r.markings);
        let (mut got, mut next) = (Vec::new(), Vec::new());
        for m in &space {
            firing.enabled(m, &mut got);
            got.sort_unstable();
            let want: Vec<u32> = (0..net.transitions.len())
                .filter(|&t| net.enabled(t, m))
                .map(|t| t as u32)
                .collect();
            prop_assert_eq!(&got, &want, "{:?}", m);
            for &t in &want {
                prop_assert_eq!(firing.fire(t, m, &mut next), Ok(()));
                prop_assert_eq!(&next, &net.fire(t as usize, m));
            }
        }
    }
}

proptest! {
    #![proptest_config(config(400))]
    #[test]
    fn figures_agree_with_the_reference_bfs(net in random_net(8, 10)) {
        let st = structural_bounds(&net, &Limits::default(), &|| false);
        let tiny = Config { max_bytes: 1 << 20, unknown_width: 1, packing: Packing::Packed };
        let sparse = Config { packing: Packing::Sparse, ..tiny.clone() };
        let runs = [
            explore(&net, &st.bounds, &Config { max_bytes: 1 << 20, ..Config::default() }, &|| false, &mut |_| {}),
            explore(&net, &[], &tiny, &|| false, &mut |_| {}),
            explore(&net, &[], &Config { unknown_width: 0, ..tiny.clone() }, &|| false, &mut |_| {}),
            explore(&net, &[], &sparse, &|| false, &mut |_| {}),
            explore(&net, &st.bounds, &sparse, &|| false, &mut |_| {}),
        ];
        match explore_petri(&net, CAP) {
            Ok(r) => {
                let want = Counts {
                    states: r.num_states() as u64,
                    transitions: r.transitions,
                    max_tokens_place: r.max_tokens_place,
                    max_tokens_marking: r.max_tokens_marking,
                };
                for got in runs {
                    prop_assert_eq!(got, Ok(want.clone()));
                }
            }
            Err(_) => {
                for got in runs {
                    match got {
                        Ok(c) => prop_assert!(c.states > CAP as u64, "{c:?}"),
                        Err(e) => prop_assert!(matches!(e, GaveUp::Memory { .. } | GaveUp::Overflow), "{e:?}"),
                    }
                }
            }
        }
    }
}

#[test]
fn stops_when_asked_and_at_the_budget() {
    // an unbounded net: t0 puts a token in p0 forever
    let net = saturn_reference::strategies::petri_net(&[0], vec![(vec![], vec![(0, 1)], vec![])]);
    for packing in [Packing::Packed, Packing::Sparse] {
        let cfg = Config {
            max_bytes: 1 << 16,
            unknown_width: 1,
            packing,
        };
        assert_eq!(
            explore(&net, &[], &cfg, &|| true, &mut |_| {}),
            Err(GaveUp::Stopped)
        );
        assert_eq!(
            explore(&net, &[], &cfg, &|| false, &mut |_| {}),
            Err(GaveUp::Memory { max_bytes: 1 << 16 })
        );
    }
}

/// What [`most_markings`] promises: a search that answers stored no more markings than it says,
/// and one with more reachable markings than it says gives up on its memory. The race stops
/// the search early on this promise once the generation has proven more states reachable.
#[test]
fn no_search_stores_more_markings_than_most_markings_says() {
    use saturn_explicit::most_markings;
    let cases = [("kanban", 3), ("philosophers", 8), ("slot", 4)];
    for ((fam, n), packing) in cases
        .into_iter()
        .flat_map(|c| [(c, Packing::Auto), (c, Packing::Sparse)])
    {
        let net = saturn_model::families::generate(fam, n).unwrap();
        let st = structural_bounds(&net, &Limits::default(), &|| false);
        let all = explore(&net, &st.bounds, &Config::default(), &|| false, &mut |_| {})
            .unwrap()
            .states;
        let (mut gave_up, mut answered) = (0, 0);
        for shift in 10..=26 {
            let cfg = Config {
                max_bytes: 1 << shift,
                packing,
                ..Config::default()
            };
            let most = most_markings(&net, &st.bounds, &cfg);
            match explore(&net, &st.bounds, &cfg, &|| false, &mut |_| {}) {
                Ok(c) => {
                    assert!(
                        c.states <= most,
                        "{fam}:{n} 2^{shift}: {} > {most}",
                        c.states
                    );
                    answered += 1;
                }
                Err(e) => {
                    assert!(matches!(e, GaveUp::Memory { .. }), "{e:?}");
                    gave_up += 1;
                }
            }
            if all > most {
                assert!(gave_up > 0 && answered == 0, "{fam}:{n} 2^{shift}");
            }
        }
        assert!(
            gave_up > 0 && answered > 0,
            "{fam}:{n}: budgets on one side only"
        );
    }
}

/// A ring of 500 places with two tokens: `Auto` stores it sparse (a packed marking takes a
/// bit per place, a sparse one a few bytes), and both ways give the closed form: the
/// multisets of two places, C(501, 2); two transitions enabled when the tokens are apart, one
/// when together.
#[test]
fn a_wide_ring_with_few_tokens_is_searched_sparse() {
    let n = 500usize;
    let mut m0 = vec![0u64; n];
    m0[0] = 2;
    let ring = (0..n)
        .map(|p| (vec![(p, 1)], vec![((p + 1) % n, 1)], vec![]))
        .collect();
    let net = saturn_reference::strategies::petri_net(&m0, ring);
    let bounds = vec![Some(2); n];
    let want = Counts {
        states: (n * (n + 1) / 2) as u64,
        transitions: (2 * (n * (n - 1) / 2) + n) as u64,
        max_tokens_place: 2,
        max_tokens_marking: 2,
    };
    let mut lines = Vec::new();
    let auto = explore(&net, &bounds, &Config::default(), &|| false, &mut |l| {
        lines.push(l.to_string())
    });
    assert_eq!(auto, Ok(want.clone()));
    assert!(lines.iter().any(|l| l.contains("sparse")), "{lines:?}");
    let packed = Config {
        packing: Packing::Packed,
        ..Config::default()
    };
    assert_eq!(
        explore(&net, &bounds, &packed, &|| false, &mut |_| {}),
        Ok(want)
    );
}
