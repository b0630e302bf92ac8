//! Packed markings: each place's token count in a bit field of its own width, the fields of
//! one marking side by side in `u64` words (a field may straddle two words).

/// The bits needed to store `v` (0 for 0).
#[inline]
pub(crate) fn bits(v: u64) -> u8 {
    (64 - v.leading_zeros()) as u8
}

#[inline]
fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Where each place's field lies in a packed marking.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    width: Vec<u8>,
    off: Vec<u32>,
    /// Words per marking.
    pub(crate) words: usize,
}

impl Layout {
    /// Fields of the given widths (at most 64 bits each), in place order.
    pub(crate) fn new(width: Vec<u8>) -> Layout {
        let mut off = Vec::with_capacity(width.len());
        let mut at = 0u64;
        for &w in &width {
            debug_assert!(w <= 64);
            off.push(at as u32);
            at += u64::from(w);
        }
        Layout {
            width,
            off,
            words: at.div_ceil(64) as usize,
        }
    }

    pub(crate) fn width(&self, p: usize) -> u8 {
        self.width[p]
    }

    /// Does `v` fit in place `p`'s field?
    #[inline]
    pub(crate) fn fits(&self, p: usize, v: u64) -> bool {
        v <= mask(u32::from(self.width[p]))
    }

    /// The token count of place `p` in `rec`.
    #[inline]
    pub(crate) fn get(&self, rec: &[u64], p: usize) -> u64 {
        let w = u32::from(self.width[p]);
        if w == 0 {
            return 0;
        }
        let o = self.off[p] as usize;
        let (i, s) = (o / 64, (o % 64) as u32);
        let mut v = rec[i] >> s;
        if s + w > 64 {
            v |= rec[i + 1] << (64 - s);
        }
        v & mask(w)
    }

    /// Set place `p`'s count in `rec` to `v`, which must fit ([`Layout::fits`]).
    #[inline]
    pub(crate) fn set(&self, rec: &mut [u64], p: usize, v: u64) {
        let w = u32::from(self.width[p]);
        debug_assert!(self.fits(p, v));
        if w == 0 {
            return;
        }
        let m = mask(w);
        let o = self.off[p] as usize;
        let (i, s) = (o / 64, (o % 64) as u32);
        rec[i] = (rec[i] & !(m << s)) | (v << s);
        if s + w > 64 {
            let hi = 64 - s;
            rec[i + 1] = (rec[i + 1] & !(m >> hi)) | (v >> hi);
        }
    }

    /// Unpack `rec` into one count per place.
    pub(crate) fn decode(&self, rec: &[u64], out: &mut [u64]) {
        for (p, o) in out.iter_mut().enumerate() {
            *o = self.get(rec, p);
        }
    }

    /// Pack `m` (every count must fit) into `rec` (of [`Layout::words`] words).
    pub(crate) fn encode(&self, m: &[u64], rec: &mut [u64]) {
        rec.fill(0);
        for (p, &v) in m.iter().enumerate() {
            self.set(rec, p, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_across_word_boundaries() {
        // widths that make fields straddle words, with 0- and 64-bit fields among them
        let widths = vec![3, 0, 61, 64, 7, 1, 33, 40, 2];
        let l = Layout::new(widths.clone());
        assert_eq!(
            l.words,
            (3 + 61 + 64 + 7 + 1 + 33 + 40 + 2usize).div_ceil(64)
        );
        let mut rec = vec![0u64; l.words];
        let vals: Vec<u64> = widths
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                mask(u32::from(w)).wrapping_mul(0x9e37_79b9) & mask(u32::from(w))
                    ^ (i as u64 & mask(u32::from(w)))
            })
            .collect();
        l.encode(&vals, &mut rec);
        let mut back = vec![0; widths.len()];
        l.decode(&rec, &mut back);
        assert_eq!(back, vals);
        // setting one field leaves the others alone
        for p in 0..widths.len() {
            let mut r = rec.clone();
            let v = mask(u32::from(widths[p]));
            l.set(&mut r, p, v);
            let mut b = vec![0; widths.len()];
            l.decode(&r, &mut b);
            for q in 0..widths.len() {
                assert_eq!(b[q], if q == p { v } else { vals[q] });
            }
            assert!(l.fits(p, v));
            assert!(widths[p] == 64 || !l.fits(p, v + 1));
        }
        assert_eq!(
            (bits(0), bits(1), bits(2), bits(255), bits(256)),
            (0, 1, 2, 8, 9)
        );
    }
}
