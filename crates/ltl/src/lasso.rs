//! Lasso words `u v^ω` (a finite prefix, then a loop repeated forever): the semantics of an
//! [`Ltl`] formula on them, and whether a [`Tgba`] accepts them. The test oracle of the
//! translation; written for clarity (fixpoints over positions, SCCs by mutual reachability).

use crate::formula::{Ltl, ALIVE};
use crate::tgba::Tgba;

/// A lasso word: `letters[0..loop_start]` once, then `letters[loop_start..]` forever. A letter
/// is the truth of every atom (indexed by atom number); the atom [`ALIVE`] holds at the
/// positions before `dead_from`.
#[derive(Clone, Debug)]
pub struct Lasso {
    pub letters: Vec<Vec<bool>>,
    pub loop_start: usize,
    pub dead_from: usize,
}

impl Lasso {
    fn succ(&self, i: usize) -> usize {
        if i + 1 < self.letters.len() {
            i + 1
        } else {
            self.loop_start
        }
    }
    fn value(&self, i: usize, atom: u32) -> bool {
        if atom == ALIVE {
            return i < self.dead_from;
        }
        self.letters[i].get(atom as usize).copied().unwrap_or(false)
    }

    /// Does the word satisfy `f` (at its first position)?
    pub fn satisfies(&self, f: &Ltl) -> bool {
        self.eval(f)[0]
    }

    /// The truth of `f` at every position.
    fn eval(&self, f: &Ltl) -> Vec<bool> {
        let n = self.letters.len();
        match f {
            Ltl::True => vec![true; n],
            Ltl::False => vec![false; n],
            Ltl::Lit(a, p) => (0..n).map(|i| self.value(i, *a) == *p).collect(),
            Ltl::And(v) => v.iter().fold(vec![true; n], |acc, g| {
                acc.iter().zip(self.eval(g)).map(|(x, y)| *x && y).collect()
            }),
            Ltl::Or(v) => v.iter().fold(vec![false; n], |acc, g| {
                acc.iter().zip(self.eval(g)).map(|(x, y)| *x || y).collect()
            }),
            Ltl::X(a) => {
                let a = self.eval(a);
                (0..n).map(|i| a[self.succ(i)]).collect()
            }
            // least fixpoint of r = b ∨ (a ∧ X r); greatest of r = b ∧ (a ∨ X r)
            Ltl::U(a, b) | Ltl::R(a, b) => {
                let until = matches!(f, Ltl::U(..));
                let (a, b) = (self.eval(a), self.eval(b));
                let mut r = vec![!until; n];
                for _ in 0..=n {
                    for i in (0..n).rev() {
                        let next = r[self.succ(i)];
                        r[i] = if until {
                            b[i] || (a[i] && next)
                        } else {
                            b[i] && (a[i] || next)
                        };
                    }
                }
                r
            }
        }
    }

    /// Does the automaton accept the word? (A run is a path of the product of the automaton
    /// with the word's positions; accepting when it ends in a cycle that meets every
    /// acceptance set.)
    pub fn accepted_by(&self, a: &Tgba) -> bool {
        let n = self.letters.len();
        let node = |q: usize, i: usize| q * n + i;
        let total = a.states.len() * n;
        let mut edges: Vec<Vec<(usize, u64)>> = vec![Vec::new(); total];
        for (q, es) in a.edges.iter().enumerate() {
            for i in 0..n {
                for e in es {
                    if e.enabled(|x| self.value(i, x)) {
                        edges[node(q, i)].push((node(e.to as usize, self.succ(i)), e.acc));
                    }
                }
            }
        }
        let reach = |from: usize| {
            let mut seen = vec![false; total];
            let mut stack = vec![from];
            seen[from] = true;
            while let Some(x) = stack.pop() {
                for &(y, _) in &edges[x] {
                    if !seen[y] {
                        seen[y] = true;
                        stack.push(y);
                    }
                }
            }
            seen
        };
        let from_init = reach(node(0, 0));
        let reaches: Vec<Vec<bool>> = (0..total).map(reach).collect();
        // the acceptance sets met inside each SCC, keyed by its smallest node
        let mut met = vec![0u64; total];
        for x in (0..total).filter(|&x| from_init[x]) {
            for &(y, acc) in &edges[x] {
                if reaches[y][x] {
                    let root = (0..total)
                        .find(|&z| reaches[x][z] && reaches[z][x])
                        .unwrap_or(x);
                    met[root] |= acc;
                    // a cycle exists in this SCC: mark it even with no acceptance set
                    if a.num_acc == 0 {
                        return true;
                    }
                }
            }
        }
        a.num_acc > 0 && met.iter().any(|m| *m & a.all_acc() == a.all_acc())
    }
}
