//! A few markings drawn from the polytope, by count ([`saturn_dd::Forest::sample`]), to order
//! the certificate's rankings and each one's transitions ([`super::certify`]): a ranking that
//! leaves drawn markings uncovered is tried late, and a transition that covers many drawn
//! markings is subtracted early, so the set left shrinks early.

use saturn_dd::{Dd, NodeId};

use super::interval::Bound;
use super::Layout;

/// Markings drawn.
const SAMPLES: usize = 256;

/// A few markings drawn from `p`, with the transitions whose successor box holds each.
pub struct Drawn {
    /// Per transition, per drawn marking: in its successor box?
    inside: Vec<Vec<bool>>,
}

impl Drawn {
    pub fn new(dd: &Dd, layout: &Layout, p: NodeId, bounds: &[Option<Vec<Bound>>]) -> Drawn {
        let mut memo = hashbrown::HashMap::new();
        let marks: Vec<Vec<u64>> = dd
            .sets
            .sample(p, SAMPLES, 0x5a7u64, &mut memo)
            .iter()
            .map(|tuple| layout.decode(tuple))
            .collect();
        let inside = bounds
            .iter()
            .map(|b| {
                marks
                    .iter()
                    .map(|m| {
                        b.as_ref()
                            .is_some_and(|b| b.iter().all(|x| (x.lo..=x.hi).contains(&m[x.place])))
                    })
                    .collect()
            })
            .collect();
        Drawn { inside }
    }

    /// The transitions of `S` (`in_s`), each next the one that holds the most drawn markings
    /// no earlier one holds, and how many drawn markings none holds.
    pub fn greedy(&self, in_s: &[bool]) -> (Vec<usize>, usize) {
        let n = self.inside.first().map_or(0, Vec::len);
        let mut open = vec![true; n];
        let mut rest: Vec<usize> = (0..in_s.len()).filter(|&t| in_s[t]).collect();
        let mut seq = Vec::with_capacity(rest.len());
        while !rest.is_empty() {
            let gain = |t: usize| (0..n).filter(|&i| open[i] && self.inside[t][i]).count();
            let (at, _) = rest
                .iter()
                .enumerate()
                .max_by_key(|&(i, &t)| (gain(t), std::cmp::Reverse(i)))
                .unwrap_or((0, &0));
            let t = rest.remove(at);
            for (i, o) in open.iter_mut().enumerate() {
                *o &= !self.inside[t][i];
            }
            seq.push(t);
        }
        (seq, open.iter().filter(|&&o| o).count())
    }
}
