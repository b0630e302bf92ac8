//! Small instances of the benchmark families, explored explicitly, against independent counts:
//! published numbers (`KNOWN_COUNTS`), the closed forms published with the SMART models, and
//! brute-force enumerations written here from the problem statement.

use num_bigint::BigUint;
use saturn_model::families::{count_matches, generate, KNOWN_COUNTS};
use saturn_model::PetriNet;
use saturn_reference::explore_petri;

fn explore(family: &str, n: u32) -> saturn_reference::ExplicitStateSpace {
    let net = generate(family, n).unwrap();
    explore_petri(&net, 1_000_000).unwrap()
}

fn known(family: &str, n: u32) -> &'static str {
    KNOWN_COUNTS
        .iter()
        .find(|k| k.0 == family && k.1 == n)
        .map(|k| k.2)
        .unwrap_or_else(|| panic!("no known count for {family} {n}"))
}

/// Fibonacci numbers with big integers: fib(1) = fib(2) = 1.
fn fib(n: usize) -> BigUint {
    let (mut a, mut b) = (BigUint::from(0u32), BigUint::from(1u32));
    for _ in 0..n {
        let c = &a + &b;
        a = b;
        b = c;
    }
    a
}

/// SMART's closed form for the philosophers: fib(3N+1) + fib(3N-1) (the Lucas number L(3N)).
fn phils_formula(n: usize) -> BigUint {
    fib(3 * n + 1) + fib(3 * n - 1)
}

/// SMART's closed form for kanban.
fn kanban_formula(n: u64) -> BigUint {
    let x = BigUint::from(n);
    let p1 = (&x * &x * &x + 6u32 * &x * &x + 11u32 * &x + 6u32) / 6u32;
    let x2 = &x * &x;
    let x3 = &x2 * &x;
    let x4 = &x3 * &x;
    let x5 = &x4 * &x;
    let p2 = (3u32 * x5 + 30u32 * x4 + 115u32 * x3 + 210u32 * x2 + 182u32 * &x + 60u32) / 60u32;
    &p1 * &p1 * p2
}

#[test]
fn kanban_small_instances_match_published_counts_and_closed_form() {
    // PRISM / Storm / SMART: states and arcs for N = 1, 2.
    for (n, arcs) in [(1, 616u64), (2, 28_120)] {
        let ss = explore("kanban", n);
        assert!(count_matches(&ss.states.to_string(), known("kanban", n)));
        assert_eq!(ss.transitions, arcs, "kanban {n} transitions");
        assert_eq!(BigUint::from(ss.states), kanban_formula(u64::from(n)));
    }
}

#[test]
fn kanban_closed_form_matches_published_large_counts() {
    for &(f, n, count) in KNOWN_COUNTS.iter().filter(|k| k.0 == "kanban") {
        let _ = f;
        assert!(
            count_matches(&kanban_formula(u64::from(n)).to_string(), count),
            "kanban {n}: closed form vs {count}"
        );
    }
}

#[test]
fn philosophers_small_instances_match_closed_form() {
    for n in 1..=6u32 {
        let ss = explore("philosophers", n);
        assert_eq!(
            BigUint::from(ss.states),
            phils_formula(n as usize),
            "philosophers {n}"
        );
        assert_eq!(ss.max_tokens_place, 1, "philosophers are safe");
    }
}

#[test]
fn philosophers_closed_form_matches_published_large_counts() {
    for &(_, n, count) in KNOWN_COUNTS.iter().filter(|k| k.0 == "philosophers") {
        let value = phils_formula(n as usize).to_string();
        assert!(
            count_matches(&value, count),
            "philosophers {n}: {value} vs {count}"
        );
    }
}

/// The philosophers' count by a transfer matrix over the ring (independent of the closed form):
/// each philosopher is Idle, WaitL+WaitR, HasL+WaitR, WaitL+HasR or HasL+HasR; fork i is held by
/// philosopher i (left hand) or i-1 (right hand) or free. Count consistent cyclic assignments.
#[test]
fn philosophers_transfer_matrix_agrees_with_closed_form() {
    // state of philosopher i: (has_left, has_right) among reachable local states; each fork i
    // is used by at most one of (i's left hand, (i-1)'s right hand).
    // local states: 0 Idle, 1 WaitL WaitR, 2 HasL WaitR, 3 WaitL HasR, 4 HasL HasR
    let left = |s: usize| s == 2 || s == 4;
    let right = |s: usize| s == 3 || s == 4;
    for n in [1usize, 2, 3, 5, 8, 100] {
        // count cyclic sequences s_0..s_{n-1} with !(left(s_i) && right(s_{i-1}))
        let mut total = BigUint::from(0u32);
        for first in 0..5 {
            let mut v: Vec<BigUint> = (0..5)
                .map(|s| BigUint::from(u32::from(s == first)))
                .collect();
            for _ in 1..n {
                let mut w = vec![BigUint::from(0u32); 5];
                for (prev, c) in v.iter().enumerate() {
                    for (s, ws) in w.iter_mut().enumerate() {
                        if !(left(s) && right(prev)) {
                            *ws += c;
                        }
                    }
                }
                v = w;
            }
            for (last, c) in v.iter().enumerate() {
                if !(left(first) && right(last)) {
                    total += c;
                }
            }
        }
        assert_eq!(total, phils_formula(n), "transfer matrix, N = {n}");
        if n <= 5 {
            assert_eq!(
                BigUint::from(explore("philosophers", n as u32).states),
                total
            );
        }
    }
}

/// Number of placements of queens on the first k rows of an N×N board, no two attacking,
/// summed over k = 0..=N: the states of the sequential-placement net.
fn queens_partial_placements(n: usize) -> usize {
    fn go(n: usize, cols: &mut Vec<usize>) -> usize {
        let mut total = 1; // this partial placement
        if cols.len() == n {
            return total;
        }
        let row = cols.len();
        for c in 0..n {
            let ok = cols
                .iter()
                .enumerate()
                .all(|(r, &cc)| cc != c && row - r != c.abs_diff(cc));
            if ok {
                cols.push(c);
                total += go(n, cols);
                cols.pop();
            }
        }
        total
    }
    go(n, &mut Vec::new())
}

#[test]
fn queens_match_brute_force_and_smart_counts() {
    for n in 1..=7u32 {
        let ss = explore("queens", n);
        assert_eq!(
            ss.states,
            queens_partial_placements(n as usize),
            "queens {n}"
        );
        // a tree: every state but the initial one has exactly one predecessor
        assert_eq!(ss.transitions as usize, ss.states - 1, "queens {n}");
    }
    for &(_, n, count) in KNOWN_COUNTS.iter().filter(|k| k.0 == "queens") {
        assert!(
            count_matches(&queens_partial_placements(n as usize).to_string(), count),
            "queens {n}"
        );
    }
    let ss = explore("queens", 8);
    assert!(count_matches(&ss.states.to_string(), known("queens", 8)));
}

#[test]
fn fms_small_instance_matches_mcc_oracle_count() {
    let ss = explore("fms", 2);
    assert!(count_matches(&ss.states.to_string(), known("fms", 2)));
    assert_eq!(
        ss.transitions, 16_311,
        "MCC FMS-PT-00002 reachability-graph edges"
    );
}

#[test]
fn robin_matches_published_count() {
    let ss = explore("robin", 10);
    assert!(
        count_matches(&ss.states.to_string(), known("robin", 10)),
        "{}",
        ss.states
    );
    assert_eq!(ss.max_tokens_place, 1);
}

/// The slotted ring as Meddly's `examples/slot.cc` encodes it: 8 binary levels per slot
/// (1-based offsets 1..8 within a slot), events given as +/- changes, the left neighbour of
/// slot 0 being slot N-1. An independent transcription, compared with the generator's net.
fn slot_from_meddly_encoding(n: usize) -> PetriNet {
    use saturn_model::{Arc, Place, Transition};
    let mut net = PetriNet {
        name: format!("slot-meddly-{n}"),
        ..PetriNet::default()
    };
    for i in 0..n {
        for k in 1..=8 {
            let initial = u64::from(k == 3 || k == 5);
            net.places.push(Place {
                id: format!("s{i}_{k}"),
                name: String::new(),
                initial,
            });
        }
    }
    let at = |slot: usize, k: usize| slot * 8 + k - 1;
    let mut add = |name: &str, changes: Vec<(usize, i8)>| {
        let mut t = Transition {
            id: name.to_string(),
            ..Transition::default()
        };
        for (p, d) in changes {
            let arc = Arc {
                place: p,
                weight: 1,
            };
            if d < 0 {
                t.inputs.push(arc);
            } else {
                t.outputs.push(arc);
            }
        }
        net.transitions.push(t);
    };
    for i in 0..n {
        let l = if i == 0 { n - 1 } else { i - 1 };
        add(&format!("other{i}"), vec![(at(i, 1), -1), (at(i, 4), 1)]);
        add(&format!("owner{i}"), vec![(at(i, 1), -1), (at(i, 2), 1)]);
        add(&format!("write{i}"), vec![(at(i, 2), -1), (at(i, 4), 1)]);
        add(&format!("go{i}"), vec![(at(i, 2), -1), (at(i, 8), 1)]);
        add(
            &format!("get{i}"),
            vec![(at(i, 6), -1), (at(i, 8), -1), (at(i, 3), 1), (at(i, 5), 1)],
        );
        add(
            &format!("put{i}"),
            vec![(at(i, 4), -1), (at(i, 6), -1), (at(i, 3), 1), (at(i, 7), 1)],
        );
        add(
            &format!("used{i}"),
            vec![(at(i, 7), -1), (at(i, 6), 1), (at(l, 3), -1), (at(l, 1), 1)],
        );
        add(
            &format!("free{i}"),
            vec![(at(i, 5), -1), (at(i, 6), 1), (at(l, 3), -1), (at(l, 2), 1)],
        );
    }
    net
}

#[test]
fn slot_agrees_with_meddly_encoding() {
    for n in 1..=4u32 {
        let ours = explore("slot", n);
        let theirs = explore_petri(&slot_from_meddly_encoding(n as usize), 1_000_000).unwrap();
        assert_eq!(ours.states, theirs.states, "slot {n} states");
        assert_eq!(ours.transitions, theirs.transitions, "slot {n} transitions");
        assert_eq!(ours.max_tokens_place, 1, "slot {n} is safe");
    }
}

#[test]
fn cycle_families_match_their_closed_forms() {
    let binom = |n: u64, k: u64| (0..k).fold(1u64, |acc, i| acc * (n - i) / (i + 1));
    for n in 1..=6u64 {
        let nn = n as u32;
        assert_eq!(
            explore("cqn", nn).states as u64,
            (n + 1) * binom(2 * n - 1, n),
            "cqn {n}"
        );
        assert_eq!(
            explore("arbiter1", nn).states as u64,
            n << (n + 1),
            "arbiter1 {n}"
        );
        assert_eq!(
            explore("arbiter2", nn).states as u64,
            n << n,
            "arbiter2 {n}"
        );
    }
    for &(fam, n, known) in KNOWN_COUNTS {
        if ["cqn", "arbiter1", "arbiter2"].contains(&fam) && known.len() <= 6 {
            let ss = explore(fam, n);
            assert!(count_matches(&ss.states.to_string(), known), "{fam} {n}");
        }
    }
}
