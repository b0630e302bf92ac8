//! The search on sparse markings: each marking stored as its marked places only, for nets with
//! thousands of places and few tokens (unfolded coloured nets: 8,390 places and 65 tokens at
//! most), where a packed marking would take kilobytes and decoding one would read every place.
//!
//! A record lists the marked places in increasing order, each as two LEB128 numbers: the gap
//! from the place after the previous marked one, then its count. Counts need no width, so a
//! place without a bound never forces a repack. Expanding a marking costs its marked places,
//! the transitions keyed on them and, per successor, a merge of the record with the
//! transition's changes (sorted by place).

use crate::bytes_store::{hash_bytes, BytesStore, RECORD_OVERHEAD};
use crate::{Compiled, Config, Counts, GaveUp, Pace};

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The number at `rec[*at..]`, moving `at` past it.
#[inline]
fn take(rec: &[u8], at: &mut usize) -> u64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let b = rec[*at];
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

/// Append the record of the marked places `nz` (increasing places, nonzero counts).
pub(crate) fn encode(nz: impl Iterator<Item = (u32, u64)>, out: &mut Vec<u8>) {
    let mut next = 0u32;
    for (p, v) in nz {
        put(out, u64::from(p - next));
        put(out, v);
        next = p + 1;
    }
}

/// The marked places of a record.
pub(crate) fn decode(rec: &[u8], nz: &mut Vec<(u32, u64)>) {
    nz.clear();
    let (mut at, mut next) = (0, 0u32);
    while at < rec.len() {
        let p = next + take(rec, &mut at) as u32;
        nz.push((p, take(rec, &mut at)));
        next = p + 1;
    }
}

/// The bytes of `m`'s record.
pub(crate) fn record_len(m: &[u64]) -> usize {
    let mut out = Vec::new();
    encode(marked(m), &mut out);
    out.len()
}

pub(crate) fn marked(m: &[u64]) -> impl Iterator<Item = (u32, u64)> + '_ {
    m.iter()
        .enumerate()
        .filter(|&(_, &v)| v > 0)
        .map(|(p, &v)| (p as u32, v))
}

/// The most markings a sparse search can store within `max_bytes`: every record costs at least
/// [`RECORD_OVERHEAD`] bytes, whatever its length.
pub(crate) fn most_markings(max_bytes: usize) -> u64 {
    (max_bytes / RECORD_OVERHEAD) as u64
}

/// Append to `out` the record of the marking `nz` after a transition whose changes are `delta`
/// (per place, increasing: tokens taken, tokens put; the transition is enabled).
fn successor(
    nz: &[(u32, u64)],
    delta: &[(usize, u64, u64)],
    out: &mut Vec<u8>,
) -> Result<(), GaveUp> {
    let (mut a, mut b, mut next) = (0, 0, 0u32);
    let mut emit = |p: u32, v: u64, out: &mut Vec<u8>| {
        if v > 0 {
            put(out, u64::from(p - next));
            put(out, v);
            next = p + 1;
        }
    };
    while a < nz.len() || b < delta.len() {
        let pa = nz.get(a).map_or(u32::MAX, |x| x.0);
        let pb = delta.get(b).map_or(u32::MAX, |x| x.0 as u32);
        if pa < pb {
            emit(pa, nz[a].1, out);
            a += 1;
        } else {
            let (_, sub, add) = delta[b];
            let have = if pa == pb {
                a += 1;
                nz[a - 1].1
            } else {
                0
            };
            let v = (have - sub).checked_add(add).ok_or(GaveUp::Overflow)?;
            emit(pb, v, out);
            b += 1;
        }
    }
    Ok(())
}

/// [`crate::explore`] on sparse markings (same contract).
pub(crate) fn explore_sparse(
    np: usize,
    c: &Compiled,
    m0: &[u64],
    cfg: &Config,
    stop: &dyn Fn() -> bool,
    progress: &mut dyn FnMut(&str),
    visit: &mut crate::Visit<'_>,
) -> Result<Counts, GaveUp> {
    let mut store = BytesStore::new(cfg.max_bytes);
    let mut rec = Vec::new();
    encode(marked(m0), &mut rec);
    store.insert(&rec, hash_bytes(&rec))?;

    // counts of the marking being expanded; zero elsewhere (reset after each marking)
    let mut m = vec![0u64; np];
    let mut nz: Vec<(u32, u64)> = Vec::new();
    let mut cands: Vec<u32> = Vec::new();
    let (mut batch, mut ends, mut hashes): (Vec<u8>, Vec<usize>, Vec<u64>) =
        (Vec::new(), Vec::new(), Vec::new());
    let (mut edges, mut max_place, mut max_sum) = (0u64, 0u64, 0u64);
    let (mut i, mut pace) = (0, Pace::new());
    while i < store.len() {
        let now = (store.len(), i, store.bytes());
        pace.check(stop, progress, "explicit search (sparse markings)", now)?;
        decode(store.get(i), &mut nz);
        cands.clear();
        for &(p, v) in &nz {
            m[p as usize] = v;
            cands.extend_from_slice(&c.by_key[p as usize]);
        }
        cands.extend_from_slice(&c.free);
        batch.clear();
        ends.clear();
        hashes.clear();
        for &t in &cands {
            let tr = &c.trans[t as usize];
            if !tr.enabled(&m) {
                continue;
            }
            let at = batch.len();
            successor(&nz, &tr.delta, &mut batch)?;
            let h = hash_bytes(&batch[at..]);
            store.touch(h);
            hashes.push(h);
            ends.push(batch.len());
        }
        let mut start = 0;
        for (&end, &h) in ends.iter().zip(&hashes) {
            store.insert(&batch[start..end], h)?;
            start = end;
        }
        let done = visit(&m, hashes.is_empty());
        let mut sum = 0u64;
        for &(p, v) in &nz {
            m[p as usize] = 0;
            max_place = max_place.max(v);
            sum = sum.saturating_add(v);
        }
        max_sum = max_sum.max(sum);
        if done {
            return Err(GaveUp::Stopped);
        }
        edges += hashes.len() as u64;
        pace.add(2 * nz.len() + cands.len() + batch.len() / 8 + 1);
        i += 1;
    }
    Ok(Counts {
        states: store.len() as u64,
        transitions: edges,
        max_tokens_place: max_place,
        max_tokens_marking: max_sum,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_successors_merge() {
        let m = [0u64, 3, 0, 0, 200, u64::MAX, 0, 1];
        let mut rec = Vec::new();
        encode(marked(&m), &mut rec);
        assert_eq!(record_len(&m), rec.len());
        let mut nz = Vec::new();
        decode(&rec, &mut nz);
        assert_eq!(nz, vec![(1, 3), (4, 200), (5, u64::MAX), (7, 1)]);
        // take 3 from place 1 (emptied), put 2 in place 0 and 1 in place 9, 200 -> 201
        let delta = [(0, 0, 2), (1, 3, 0), (4, 0, 1), (9, 0, 1)];
        let mut out = Vec::new();
        successor(&nz, &delta, &mut out).unwrap();
        decode(&out, &mut nz);
        assert_eq!(nz, vec![(0, 2), (4, 201), (5, u64::MAX), (7, 1), (9, 1)]);
        // past 64 bits
        let mut out = Vec::new();
        assert_eq!(
            successor(&nz, &[(5, 0, 1)], &mut out),
            Err(GaveUp::Overflow)
        );
        // the empty marking is the empty record
        assert_eq!(record_len(&[0, 0, 0]), 0);
    }
}
