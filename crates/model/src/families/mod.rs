//! Generators for the thesis benchmark families of Petri nets.
//!
//! The nets follow the SMART tool's models (asminer/smart, `Models/*.sm`, `Tests/*.sm` and the
//! manual's examples), which are the nets behind the state counts published in the saturation
//! papers (Ciardo, Lüttgen, Siminiceanu, Marmorstein and others):
//!
//! * `kanban` — Kanban manufacturing system, 16 places (`pm`, `pback`, `pkan`, `pout` for 4 cells),
//!   16 transitions, `N` kanban tokens per cell. States: `((N+1)(N+2)(N+3)/6)^2 ·
//!   (3N^5+30N^4+115N^3+210N^2+182N+60)/60` (the closed form in SMART's `kanban.sm`).
//! * `philosophers` — dining philosophers, 6 places and 4 transitions per philosopher (`Fork`,
//!   `Idle`, `WaitL`, `HasL`, `WaitR`, `HasR`; `GoEat`, `GetL`, `GetR`, `Release`). States:
//!   the Lucas number `L(3N)` = `fib(3N+1) + fib(3N-1)` (SMART's `phils.sm`).
//! * `slot` — slotted-ring protocol (Pastor, Roig, Cortadella, Badia), 8 places and 8
//!   transitions per slot, as in SMART's `slot.sm` and Meddly's `slot.cc`.
//! * `queens` — N-queens with sequential placement, `N(N+1)` places `p_i_j` (queen `i` unplaced
//!   for `j = 0`, on column `j` otherwise) and `N²` transitions guarded by inhibitor arcs
//!   (SMART's `Tests/queens-expl.sm`, `queensSEQ`).
//! * `fms` — flexible manufacturing system (Ciardo and Trivedi), 22 places, 20 transitions, `N`
//!   parts of each type; the P/T version of SMART's `fms.sm` where the marking-dependent
//!   "flush" arcs move one token per firing. This is exactly the MCC's `FMS` net.
//! * `robin` — round-robin mutual exclusion (Graf, Steffen, Lüttgen), one resource place and 8
//!   places / 6 transitions per process (SMART manual, "A round-robin mutual exclusion
//!   protocol").
//!
//! and four nets of our own with the cycle structure of the thesis's SCC and CTL tables (module
//! `cycles`): `cqn` (closed queueing network, `N + 1` SCCs, `N` terminal), `arbiter1` (fair
//! token-ring arbiter, one SCC), `arbiter2` (unfair arbiter, `2^N` SCCs) and `leader` (leader
//! election on a ring, `N` terminal SCCs).

use crate::PetriNet;

mod builder;
mod cycles;
mod thesis;

/// The known family names, in a fixed order.
pub const FAMILIES: &[&str] = &[
    "philosophers",
    "kanban",
    "slot",
    "queens",
    "fms",
    "robin",
    "cqn",
    "arbiter1",
    "arbiter2",
    "leader",
];

/// The allowed range of `N` for each family.
pub fn range(family: &str) -> Option<std::ops::RangeInclusive<u32>> {
    Some(match family {
        "philosophers" => 1..=100_000,
        "kanban" => 1..=100_000,
        "slot" => 1..=10_000,
        "queens" => 1..=20,
        "fms" => 1..=10_000,
        "robin" => 1..=10_000,
        "cqn" => 1..=1_000,
        "arbiter1" => 1..=100_000,
        "arbiter2" => 1..=100_000,
        "leader" => 1..=40,
        _ => return None,
    })
}

/// Published reachable-state counts: `(family, N, count)`. A count is either exact decimal
/// digits, or a scientific prefix `d.ddde<k>` meaning "the count has `k+1` digits and its
/// leading digits, rounded, are `d.ddd`" (use [`count_matches`] to compare).
///
/// Sources: kanban and philosophers: the closed forms above (SMART) and the saturation papers'
/// tables (kanban 1.006e9 / 1.04e16 / 3.17e22 for N = 10 / 50 / 200, philosophers 4.97e62 /
/// 9.18e626 for N = 100 / 1000); kanban 1..3: PRISM / Storm / SMART (160, 4600, 58400); slot:
/// the saturation papers (8.29e9, 2.73e20, 1.72e52 for N = 10, 20, 50); queens: SMART's
/// `Tests/queens-expl.sm.out` (sequential placement, N = 5..10); fms: the MCC 2025 oracles of
/// `FMS-PT-00002/5/10` (same net); kanban 5 and 10: MCC oracles of `Kanban-PT-00005/10`;
/// robin: the saturation papers (2.30e4, 4.72e7, 2.85e32 for N = 10, 20, 100). cqn, arbiter1,
/// arbiter2: the closed forms of our nets (module `cycles`), `(N+1)·C(2N-1,N)`, `N·2^(N+1)`,
/// `N·2^N`; arbiter1 N = 10 is the thesis's Table 4.1 figure; for arbiter2 N = 500 the table's
/// 3.27e150 SCCs of 500 states make 1.64e153 (it prints 1.64e151).
pub const KNOWN_COUNTS: &[(&str, u32, &str)] = &[
    ("kanban", 1, "160"),
    ("kanban", 2, "4600"),
    ("kanban", 3, "58400"),
    ("kanban", 5, "2546432"),
    ("kanban", 10, "1005927208"),
    ("kanban", 50, "1.04e16"),
    ("kanban", 200, "3.17e22"),
    ("philosophers", 100, "4.97e62"),
    ("philosophers", 1000, "9.18e626"),
    ("slot", 10, "8.29e9"),
    ("slot", 20, "2.73e20"),
    ("slot", 50, "1.72e52"),
    ("queens", 5, "54"),
    ("queens", 6, "153"),
    ("queens", 7, "552"),
    ("queens", 8, "2057"),
    ("queens", 9, "8394"),
    ("queens", 10, "35539"),
    ("fms", 2, "3444"),
    ("fms", 5, "2895018"),
    ("fms", 10, "2501413200"),
    ("robin", 10, "2.30e4"),
    ("robin", 20, "4.72e7"),
    ("robin", 100, "2.85e32"),
    ("cqn", 3, "40"),
    ("cqn", 10, "1016158"),
    ("cqn", 20, "1447388552610"),
    ("arbiter1", 3, "48"),
    ("arbiter1", 10, "20480"),
    ("arbiter1", 20, "41943040"),
    ("arbiter2", 3, "24"),
    ("arbiter2", 10, "10240"),
    ("arbiter2", 500, "1.64e153"),
];

/// Does the decimal number `digits` match the known count `known` (exact digits, or a
/// scientific prefix such as `1.006e9`)? Returns `false` for a malformed `known`.
pub fn count_matches(digits: &str, known: &str) -> bool {
    let Some((mantissa, exp)) = known.split_once('e') else {
        return digits == known;
    };
    let Ok(exp) = exp.parse::<usize>() else {
        return false;
    };
    if digits.len() != exp + 1 || digits.starts_with('0') {
        return false;
    }
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let want: String = format!("{int}{frac}");
    let k = want.len();
    if k == 0 || k > digits.len() || !want.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    // Round the first k digits of `digits` (half up) and compare.
    let head: u128 = match digits[..k].parse() {
        Ok(v) => v,
        Err(_) => return false,
    };
    let round_up = digits.as_bytes().get(k).is_some_and(|&d| d >= b'5');
    let rounded = head + u128::from(round_up);
    want.parse::<u128>().is_ok_and(|w| w == rounded)
}

/// Why a family cannot be generated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FamilyError {
    #[error("unknown model family '{name}'; known families: {}", FAMILIES.join(", "))]
    Unknown { name: String },
    #[error("N = {n} is out of range for family '{family}': allowed {min}..={max}")]
    OutOfRange {
        family: String,
        n: u32,
        min: u32,
        max: u32,
    },
}

/// Generate the net of `family` with parameter `n`.
pub fn generate(family: &str, n: u32) -> Result<PetriNet, FamilyError> {
    let r = range(family).ok_or_else(|| FamilyError::Unknown {
        name: family.to_string(),
    })?;
    if !r.contains(&n) {
        return Err(FamilyError::OutOfRange {
            family: family.to_string(),
            n,
            min: *r.start(),
            max: *r.end(),
        });
    }
    Ok(match family {
        "philosophers" => thesis::philosophers(n),
        "kanban" => thesis::kanban(n),
        "slot" => thesis::slot(n),
        "queens" => thesis::queens(n),
        "fms" => thesis::fms(n),
        "robin" => thesis::robin(n),
        "cqn" => cycles::cqn(n),
        "arbiter1" => cycles::arbiter1(n),
        "arbiter2" => cycles::arbiter2(n),
        "leader" => cycles::leader(n),
        _ => unreachable!("range() accepted an unknown family"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_prefixes() {
        assert!(count_matches("1005927208", "1.006e9"));
        assert!(count_matches("1005927208", "1005927208"));
        assert!(!count_matches("1005927208", "1.005e9"));
        assert!(!count_matches("100592720", "1.006e9"));
        assert!(count_matches("10400000000000000", "1.04e16"));
        assert!(count_matches("10449999999999999", "1.04e16"));
        assert!(!count_matches("10450000000000000", "1.04e16"));
        assert!(!count_matches("12", "x"));
        assert!(!count_matches("12", "1.2eq"));
    }
}
