//! The translation checked against the semantics: on random path formulas and random lasso
//! words `u v^ω`, the automaton of `¬φ` accepts the word exactly when the word does not satisfy
//! `φ`, evaluated directly on the path formula (no rewriting, no automaton). Under the finite
//! reading ([`Deadlocks::Maximal`]) the words are finite, extended by the dead sink.

use proptest::prelude::*;
use saturn_logic::{PathFormula as P, StateFormula};
use saturn_ltl::formula::from_path;
use saturn_ltl::lasso::Lasso;
use saturn_ltl::{negated, Atoms, Deadlocks};

const ATOMS: usize = 3;

fn atom(i: usize) -> P {
    P::State(StateFormula::Enabled(vec![i]))
}

fn path_formula() -> impl Strategy<Value = P> {
    let leaf = prop_oneof![
        (0..ATOMS).prop_map(atom),
        (0..ATOMS).prop_map(|i| P::Not(Box::new(atom(i)))),
        any::<bool>().prop_map(|b| P::State(StateFormula::Const(b))),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        let b = |x: P| Box::new(x);
        prop_oneof![
            inner.clone().prop_map(move |a| P::Not(b(a))),
            inner.clone().prop_map(move |a| P::X(b(a))),
            inner.clone().prop_map(move |a| P::F(b(a))),
            inner.clone().prop_map(move |a| P::G(b(a))),
            (inner.clone(), inner.clone()).prop_map(move |(a, c)| P::U(b(a), b(c))),
            (inner.clone(), inner.clone()).prop_map(|(a, c)| P::And(vec![a, c])),
            (inner.clone(), inner.clone()).prop_map(|(a, c)| P::Or(vec![a, c])),
            (inner.clone(), inner.clone()).prop_map(move |(a, c)| P::Implies(b(a), b(c))),
            (inner.clone(), inner).prop_map(move |(a, c)| P::Iff(b(a), b(c))),
        ]
    })
}

/// The truth of `f` at every position of a word of `n` positions whose successor function is
/// `succ` (`None`: the path ends there), letters `w`.
fn direct(f: &P, w: &[Vec<bool>], succ: &dyn Fn(usize) -> Option<usize>) -> Vec<bool> {
    let n = w.len();
    let all = |g: &dyn Fn(usize) -> bool| (0..n).map(g).collect::<Vec<bool>>();
    match f {
        P::State(StateFormula::Enabled(v)) => all(&|i| w[i][v[0]]),
        P::State(StateFormula::Const(b)) => vec![*b; n],
        P::State(_) => unreachable!(),
        P::Not(a) => direct(a, w, succ).iter().map(|x| !x).collect(),
        P::And(v) => {
            let (a, c) = (direct(&v[0], w, succ), direct(&v[1], w, succ));
            all(&|i| a[i] && c[i])
        }
        P::Or(v) => {
            let (a, c) = (direct(&v[0], w, succ), direct(&v[1], w, succ));
            all(&|i| a[i] || c[i])
        }
        P::Implies(a, c) => {
            let (a, c) = (direct(a, w, succ), direct(c, w, succ));
            all(&|i| !a[i] || c[i])
        }
        P::Iff(a, c) => {
            let (a, c) = (direct(a, w, succ), direct(c, w, succ));
            all(&|i| a[i] == c[i])
        }
        P::X(a) => {
            let a = direct(a, w, succ);
            all(&|i| succ(i).is_some_and(|j| a[j]))
        }
        // the positions from i on: follow succ until it ends or repeats
        P::F(_) | P::G(_) | P::U(..) => {
            let (l, r) = match f {
                P::F(a) => (vec![true; n], direct(a, w, succ)),
                P::G(a) => (vec![true; n], direct(&P::Not(a.clone()), w, succ)),
                P::U(a, c) => (direct(a, w, succ), direct(c, w, succ)),
                _ => unreachable!(),
            };
            // l U r at i: some j on the path from i has r, l at every position before it
            let until = |i: usize| {
                let mut seen = vec![false; n];
                let mut k = Some(i);
                while let Some(j) = k {
                    if seen[j] {
                        return false;
                    }
                    seen[j] = true;
                    if r[j] {
                        return true;
                    }
                    if !l[j] {
                        return false;
                    }
                    k = succ(j);
                }
                false
            };
            let u = all(&until);
            if matches!(f, P::G(_)) {
                u.iter().map(|x| !x).collect()
            } else {
                u
            }
        }
    }
}

/// The truth of a temporal-free formula over `enabled(i)` atoms in letter `l`.
fn state(f: &StateFormula, l: &[bool]) -> bool {
    use StateFormula as S;
    match f {
        S::Enabled(v) => l[v[0]],
        S::Const(b) => *b,
        S::Not(a) => !state(a, l),
        S::And(v) => v.iter().all(|g| state(g, l)),
        S::Or(v) => v.iter().any(|g| state(g, l)),
        S::Implies(a, b) => !state(a, l) || state(b, l),
        S::Iff(a, b) => state(a, l) == state(b, l),
        _ => unreachable!("temporal-free atoms only"),
    }
}

/// The letters of a word by the automaton's atom numbers.
fn by_atom(atoms: &Atoms, w: &[Vec<bool>]) -> Vec<Vec<bool>> {
    w.iter()
        .map(|l| atoms.formulas.iter().map(|f| state(f, l)).collect())
        .collect()
}

fn letters(max: usize) -> impl Strategy<Value = Vec<Vec<bool>>> {
    prop::collection::vec(prop::collection::vec(any::<bool>(), ATOMS), 1..=max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn automaton_of_negation_accepts_exactly_the_counterexamples(
        f in path_formula(),
        w in letters(5),
        start in 0usize..5,
    ) {
        let n = w.len();
        let start = start % n;
        let holds = direct(&f, &w, &|i| Some(if i + 1 < n { i + 1 } else { start }))[0];
        let p = negated(&f, Deadlocks::Stutter).unwrap();
        let word = Lasso { letters: by_atom(&p.atoms, &w), loop_start: start, dead_from: n };
        // the rewritten negation means the negation
        prop_assert_eq!(word.satisfies(&p.formula), !holds, "{:?} -> {:?}", f, p.formula);
        prop_assert_eq!(word.accepted_by(&p.automaton), !holds, "{:?} -> {:?}", f, p.formula);
        // and the rewritten formula itself
        let mut atoms = Atoms::default();
        let pos = from_path(&f, false, Deadlocks::Stutter, &mut atoms);
        let word = Lasso { letters: by_atom(&atoms, &w), loop_start: start, dead_from: n };
        prop_assert_eq!(word.satisfies(&pos), holds);
    }

    #[test]
    fn finite_reading_on_finite_words(f in path_formula(), w in letters(5)) {
        let n = w.len();
        let holds = direct(&f, &w, &|i| (i + 1 < n).then_some(i + 1))[0];
        let p = negated(&f, Deadlocks::Maximal).unwrap();
        // the word, then the dead sink forever
        let mut letters = by_atom(&p.atoms, &w);
        letters.push(vec![false; p.atoms.formulas.len()]);
        let word = Lasso { letters, loop_start: n, dead_from: n };
        prop_assert_eq!(word.accepted_by(&p.automaton), !holds, "{:?} -> {:?}", f, p.formula);
    }
}

/// Two formulas the rewriting keeps small: `G F G p` is `F G p`, `F F p` is `F p`.
#[test]
fn rewriting_collapses_nested_operators() {
    let p = || Box::new(atom(0));
    let mut atoms = Atoms::default();
    let fgp = from_path(
        &P::F(Box::new(P::G(p()))),
        false,
        Deadlocks::Stutter,
        &mut atoms,
    );
    let gfgp = from_path(
        &P::G(Box::new(P::F(Box::new(P::G(p()))))),
        false,
        Deadlocks::Stutter,
        &mut atoms,
    );
    assert_eq!(fgp, gfgp);
    let ffp = from_path(
        &P::F(Box::new(P::F(p()))),
        false,
        Deadlocks::Stutter,
        &mut atoms,
    );
    let fp = from_path(&P::F(p()), false, Deadlocks::Stutter, &mut atoms);
    assert_eq!(ffp, fp);
    // G F p: two states at most, one acceptance set
    let a = negated(&P::G(Box::new(P::F(p()))), Deadlocks::Stutter).unwrap();
    assert!(a.automaton.states.len() <= 2, "{:?}", a.automaton);
    assert_eq!(a.automaton.num_acc, 1);
}
