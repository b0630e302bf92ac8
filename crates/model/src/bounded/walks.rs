//! Random walks for an unboundedness witness, tried before the depth-first search.
//!
//! The depth-first search of [`super::find_witness`] is complete, but it explores whole bounded
//! regions of the reachability tree before it reaches a growing one: on FunctionPointer-PT-b128
//! (306 places, 840 transitions) it found no witness in 60 s. A random walk from the initial
//! marking, biased towards transitions that add tokens to places no structural bound covers,
//! checks every marking it reaches against the earlier markings of the same walk: a marking
//! strictly covering an earlier one, with a pumping sequence whose inhibitor arcs test no
//! growing place, is a witness (the Karp-Miller criterion on the walk's path). Walks are sound,
//! never complete: they only ever answer "unbounded", and the caller replays the witness.

use super::{Fired, NetView, Witness};
use crate::PetriNet;

/// A small deterministic generator (xorshift64*): walks are reproducible.
pub struct Rng(u64);

impl Rng {
    /// The generator every walk starts from (a fixed seed).
    pub fn seeded() -> Rng {
        Rng(0x9e37_79b9_7f4a_7c15)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) % n as u64) as usize
    }
}

/// Walk the net at random `walks` times (each walk at most four times the number of places
/// long, within 64..4096 firings, and at most as long as `max_bytes` of markings hold; no walk
/// when that is under 64), looking for a strictly covering marking on a walk's own path.
/// `covered[p]` marks the places a structural bound covers (they never grow in a witness; all
/// `false` is always correct). `stop` is polled every 1024 firings. `None`: no witness found.
pub fn walk_witness(
    net: &PetriNet,
    covered: &[bool],
    walks: usize,
    max_bytes: usize,
    stop: &dyn Fn() -> bool,
) -> Option<Witness> {
    let view = NetView::new(net);
    let n = net.places.len();
    let nt = net.transitions.len();
    if nt == 0 {
        return None;
    }
    let uncovered: Vec<usize> = (0..n)
        .filter(|&p| !covered.get(p).copied().unwrap_or(false))
        .collect();
    let growth: Vec<i128> = (0..nt).map(|t| view.growth(t, covered)).collect();
    let key = |m: &[u64]| uncovered.iter().map(|&p| m[p] as u128).sum::<u128>();
    let depth = (4 * n).clamp(64, 4096).min(max_bytes / (8 * n.max(1)));
    if depth < 64 {
        // markings too large for walks of any use within `max_bytes`
        return None;
    }
    let m0 = net.initial_marking();
    let mut rng = Rng::seeded();
    // the walk's path: markings (flat), their keys, the transitions fired between them
    let mut path: Vec<u64> = Vec::with_capacity((depth + 1) * n);
    let mut keys: Vec<u128> = Vec::with_capacity(depth + 1);
    let mut fired: Vec<usize> = Vec::with_capacity(depth);
    let mut enabled: Vec<usize> = Vec::with_capacity(nt);
    let mut m = m0.clone();
    let mut steps: u64 = 0;
    for _ in 0..walks {
        path.clear();
        keys.clear();
        fired.clear();
        m.copy_from_slice(&m0);
        path.extend_from_slice(&m);
        keys.push(key(&m));
        for _ in 0..depth {
            steps += 1;
            if steps & 1023 == 0 && stop() {
                return None;
            }
            enabled.clear();
            enabled.extend((0..nt).filter(|&t| view.enabled(t, &m)));
            if enabled.is_empty() {
                break;
            }
            // half the time the most growing enabled transitions, else any enabled one
            let t = if rng.below(2) == 0 {
                // one of the most growing, chosen without collecting them
                let best = enabled.iter().map(|&t| growth[t]).max().unwrap_or(0);
                let ties = enabled.iter().filter(|&&t| growth[t] == best).count();
                let pick = rng.below(ties);
                enabled
                    .iter()
                    .copied()
                    .filter(|&t| growth[t] == best)
                    .nth(pick)
                    .unwrap_or(enabled[0])
            } else {
                enabled[rng.below(enabled.len())]
            };
            if view.fire(t, &mut m) != Fired::Ok {
                break;
            }
            fired.push(t);
            let k = key(&m);
            if let Some(w) = covering(&view, &path, &keys, &fired, &m, k, n) {
                return Some(w);
            }
            path.extend_from_slice(&m);
            keys.push(k);
        }
    }
    None
}

/// A witness ending at `m` (key `k`, reached by `fired`): an earlier marking of the path that
/// `m` strictly covers, with a pumping sequence whose inhibitor arcs test no growing place.
fn covering(
    view: &NetView,
    path: &[u64],
    keys: &[u128],
    fired: &[usize],
    m: &[u64],
    k: u128,
    n: usize,
) -> Option<Witness> {
    for a in (0..keys.len()).rev() {
        // a strictly covering marking has more tokens on the uncovered places
        if keys[a] >= k {
            continue;
        }
        let ma = &path[a * n..(a + 1) * n];
        if !m.iter().zip(ma).all(|(x, y)| x >= y) {
            continue;
        }
        let pump = &fired[a..];
        if view.repeatable(pump, ma, m) {
            return Some(Witness {
                prefix: fired[..a].to_vec(),
                pump: pump.to_vec(),
                growing: (0..n).filter(|&p| m[p] > ma[p]).collect(),
            });
        }
    }
    None
}
