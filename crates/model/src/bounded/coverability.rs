//! The search for an unboundedness witness: a depth-first walk of the reachability tree that
//! stops at the first marking strictly covering one of its ancestors by a repeatable pumping
//! sequence (the Karp-Miller criterion), or at the end of a finite reachability set.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::{Fired, NetView, Unknown, Witness};
use crate::PetriNet;

/// The outcome of [`find_witness`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchOutcome {
    /// The net is unbounded.
    Unbounded(Witness),
    /// The whole reachability set was explored: the exact maximum token count of every place.
    Bounded(Vec<u64>),
    /// The search stopped without a conclusion.
    Unknown(Unknown),
}

const NONE: u32 = u32::MAX;

/// A hasher for keys that already are hashes.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys are hashed")
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

fn hash(m: &[u64]) -> u64 {
    let mut h: u64 = 0;
    for &x in m {
        h = (h.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h ^ (h >> 29)
}

/// The markings met so far, in one flat arena, with the search tree over them.
struct Store {
    n: usize,
    data: Vec<u64>,
    /// `(parent, transition)`; `(NONE, NONE)` for the initial marking.
    parent: Vec<(u32, u32)>,
    /// Token sum over the places no structural bound covers.
    key: Vec<u128>,
    /// The smallest `key` on the tree path from the root to this marking.
    min_key: Vec<u128>,
    heads: HashMap<u64, u32, BuildHasherDefault<Identity>>,
    next: Vec<u32>,
}

impl Store {
    fn marking(&self, i: u32) -> &[u64] {
        let i = i as usize * self.n;
        &self.data[i..i + self.n]
    }
    fn len(&self) -> usize {
        self.parent.len()
    }
    fn find(&self, m: &[u64], h: u64) -> bool {
        let mut c = self.heads.get(&h).copied().unwrap_or(NONE);
        while c != NONE {
            if self.marking(c) == m {
                return true;
            }
            c = self.next[c as usize];
        }
        false
    }
    fn insert(&mut self, m: &[u64], h: u64, parent: (u32, u32), key: u128) -> u32 {
        let i = self.len() as u32;
        self.data.extend_from_slice(m);
        let min_key = match parent.0 {
            NONE => key,
            p => self.min_key[p as usize].min(key),
        };
        self.parent.push(parent);
        self.key.push(key);
        self.min_key.push(min_key);
        self.next.push(self.heads.insert(h, i).unwrap_or(NONE));
        i
    }
    /// The transitions on the tree path from `from` (an ancestor) down to `to`.
    fn path(&self, from: u32, to: u32) -> Vec<usize> {
        let mut seq = Vec::new();
        let mut c = to;
        while c != from {
            let (p, t) = self.parent[c as usize];
            seq.push(t as usize);
            c = p;
        }
        seq.reverse();
        seq
    }
}

/// Search for an unboundedness witness by a depth-first walk of the reachability tree.
///
/// `covered[p]` marks the places a structural bound covers (all `false` is always correct; it
/// only prunes the ancestor comparisons, since a strictly covering marking equals its ancestor
/// on covered places). Transitions that add the most tokens to uncovered places are tried
/// first. The stored markings take at most about `max_bytes`; `stop` is polled every 1024
/// firings. Complete for nets without inhibitor arcs (given time and memory): an unbounded
/// net has a tree path with a strictly covering marking (Karp-Miller), a bounded one a finite
/// reachability set. With inhibitor arcs a covering only counts when no place tested by an
/// inhibitor arc of the pumping sequence grows, and the search may run until stopped.
pub fn find_witness(
    net: &PetriNet,
    covered: &[bool],
    max_bytes: usize,
    stop: &dyn Fn() -> bool,
) -> SearchOutcome {
    let view = NetView::new(net);
    let n = net.places.len();
    let uncovered: Vec<usize> = (0..n)
        .filter(|&p| !covered.get(p).copied().unwrap_or(false))
        .collect();
    let key = |m: &[u64]| uncovered.iter().map(|&p| m[p] as u128).sum::<u128>();
    let mut order: Vec<usize> = (0..net.transitions.len()).collect();
    order.sort_by_key(|&t| std::cmp::Reverse(view.growth(t, covered)));
    let max_markings = (max_bytes / (8 * n + 64)).clamp(1, NONE as usize - 1);

    let mut store = Store {
        n,
        // reserved once (address space only, pages are touched as markings arrive): growing by
        // doubling would copy the arena and hold both copies at its largest
        data: Vec::with_capacity(max_markings.saturating_mul(n)),
        parent: Vec::new(),
        key: Vec::new(),
        min_key: Vec::new(),
        heads: HashMap::default(),
        next: Vec::new(),
    };
    let m0 = net.initial_marking();
    let mut maxima = m0.clone();
    store.insert(&m0, hash(&m0), (NONE, NONE), key(&m0));
    let mut stack: Vec<(u32, u32)> = vec![(0, 0)];
    let mut scratch = m0;
    let mut overflow = false;
    let mut steps: u64 = 0;
    while let Some(top) = stack.last_mut() {
        if top.1 as usize == order.len() {
            stack.pop();
            continue;
        }
        let (i, t) = (top.0, order[top.1 as usize]);
        top.1 += 1;
        steps += 1;
        if steps & 1023 == 0 && stop() {
            return SearchOutcome::Unknown(Unknown::Stopped);
        }
        scratch.copy_from_slice(store.marking(i));
        match view.fire(t, &mut scratch) {
            Fired::Disabled => continue,
            Fired::Overflow => {
                overflow = true;
                continue;
            }
            Fired::Ok => {}
        }
        let h = hash(&scratch);
        if store.find(&scratch, h) {
            continue;
        }
        if store.len() >= max_markings {
            return SearchOutcome::Unknown(Unknown::MarkingLimit);
        }
        let j = store.insert(&scratch, h, (i, t as u32), key(&scratch));
        for (mx, &x) in maxima.iter_mut().zip(&scratch) {
            *mx = (*mx).max(x);
        }
        if let Some(w) = witness_at(&store, &view, j) {
            return SearchOutcome::Unbounded(w);
        }
        stack.push((j, 0));
    }
    if overflow {
        SearchOutcome::Unknown(Unknown::Overflow)
    } else {
        SearchOutcome::Bounded(maxima)
    }
}

/// A witness ending at the new marking `j`: an ancestor it strictly covers, with a pumping
/// sequence whose inhibitor arcs test no growing place.
fn witness_at(store: &Store, view: &NetView, j: u32) -> Option<Witness> {
    let kj = store.key[j as usize];
    let mj = store.marking(j);
    let mut a = store.parent[j as usize].0;
    while a != NONE && store.min_key[a as usize] < kj {
        if store.key[a as usize] < kj {
            let ma = store.marking(a);
            if mj.iter().zip(ma).all(|(x, y)| x >= y) {
                let pump = store.path(a, j);
                if view.repeatable(&pump, ma, mj) {
                    return Some(Witness {
                        prefix: store.path(0, a),
                        pump,
                        growing: (0..mj.len()).filter(|&p| mj[p] > ma[p]).collect(),
                    });
                }
            }
        }
        a = store.parent[a as usize].0;
    }
    None
}
