//! Arithmetic modulo the Mersenne prime `2^61 - 1`, for linear algebra whose answer is either
//! checked exactly afterwards or only ever makes a result larger when it errs (the invariants'
//! independence in `binary::linear`, the step rank in `rank`).

/// The modulus.
pub const PRIME: u64 = (1 << 61) - 1;

/// `v` modulo [`PRIME`], negative values wrapped.
pub fn reduce(v: i128) -> u64 {
    v.rem_euclid(i128::from(PRIME)) as u64
}

/// `a * b` modulo [`PRIME`].
pub fn mul(a: u64, b: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) % u128::from(PRIME)) as u64
}

/// `a - b` modulo [`PRIME`] (both reduced).
pub fn sub(a: u64, b: u64) -> u64 {
    if a >= b {
        a - b
    } else {
        a + PRIME - b
    }
}

/// `a^e` modulo [`PRIME`].
pub fn pow(mut a: u64, mut e: u64) -> u64 {
    let mut r = 1u64;
    while e > 0 {
        if e & 1 == 1 {
            r = mul(r, a);
        }
        a = mul(a, a);
        e >>= 1;
    }
    r
}

/// The inverse of a nonzero `a` modulo [`PRIME`].
pub fn inv(a: u64) -> u64 {
    pow(a, PRIME - 2)
}

/// The fraction `n / d` (`d > 0`, both at most `2^30` in magnitude) that is `a` modulo
/// [`PRIME`], by the extended Euclidean algorithm stopped halfway (rational reconstruction);
/// `None` when there is none that small.
pub fn rational(a: u64) -> Option<(i128, i128)> {
    const BOUND: i128 = 1 << 30;
    let (mut r0, mut r1) = (i128::from(PRIME), i128::from(a));
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 >= BOUND {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    if t1 == 0 || t1.abs() >= BOUND {
        return None;
    }
    let (n, d) = if t1 < 0 { (-r1, -t1) } else { (r1, t1) };
    // the fraction must give `a` back
    (reduce(n) == mul(reduce(d), a)).then_some((n, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_come_back() {
        for &(n, d) in &[
            (0i128, 1i128),
            (1, 1),
            (-1, 1),
            (7, 3),
            (-22, 7),
            (1 << 29, 3),
        ] {
            let a = mul(reduce(n), inv(reduce(d)));
            let (m, e) = rational(a).expect("small fraction");
            assert_eq!(m * d, n * e, "{n}/{d} came back as {m}/{e}");
        }
    }
}
