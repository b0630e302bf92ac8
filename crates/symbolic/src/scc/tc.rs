//! SCC states, terminal SCCs and strongly fair cycles from the saturated transitive closure
//! (thesis Figures 4.5, 4.7 and 4.8), on [`Closure`]: no enumeration, so the number of SCCs
//! does not matter.

use saturn_dd::NodeId;

use crate::closure::Closure;
use crate::limits::Interrupted;

/// `SCC_TC` (Figure 4.5, top): the states of `s` on a nontrivial cycle within `s` (the
/// reachable states, or any set), as `TCtoSCC(TransClosSat(s, P))`.
pub fn scc_tc(tc: &mut Closure<'_>, s: NodeId) -> Result<NodeId, Interrupted> {
    let tb = tc.backward(s, s)?;
    tc.tc_to_scc(tb)
}

/// `TSCC_TC` (Figure 4.7): the states of the terminal SCCs of `s` (which must be closed under
/// successors, as the reachable states are): the states on cycles minus those with a path to a
/// state that has no path back (`r* = T^b \ T`, its unprimed side quantified).
pub fn tscc_tc(tc: &mut Closure<'_>, s: NodeId) -> Result<NodeId, Interrupted> {
    let tb = tc.backward(s, s)?;
    let _tb = tc.dd().pin_rel(tb);
    let t = tc.inverse(tb)?;
    let scc = tc.tc_to_scc(tb)?;
    let r_star = tc.dd().rels.minus(tb, t);
    let nontscc = tc.quant_unprimed(r_star)?;
    Ok(tc.dd().sets.minus(scc, nontscc))
}

/// One round of `FairSCC_TC` (Figure 4.8) within the set `z`: for each Streett pair `(R, C)`
/// (sets of states), the states of `z` on a cycle within `z` that avoids `R` (`c`) or that
/// passes through `C` (`d`: `T^b ∩ T` restricted to `C` on the unprimed side, quantified),
/// intersected over the pairs.
pub fn fair_scc_tc_round(
    tc: &mut Closure<'_>,
    z: NodeId,
    pairs: &[(NodeId, NodeId)],
) -> Result<NodeId, Interrupted> {
    let tb = tc.backward(z, z)?;
    let _tb = tc.dd().pin_rel(tb);
    let t = tc.inverse(tb)?;
    let mutual = tc.dd().rels.intersect(tb, t);
    let _mutual = tc.dd().pin_rel(mutual);
    let s0 = if pairs.is_empty() {
        tc.tc_to_scc(tb)?
    } else {
        z
    };
    let mut s = tc.dd().pin(s0);
    for &(r, c_m) in pairs {
        let zr = tc.dd().sets.minus(z, r);
        let tr = tc.backward(zr, zr)?;
        let c = tc.tc_to_scc(tr)?;
        let _c = tc.dd().pin(c);
        let cz = tc.dd().sets.intersect(c_m, z);
        let cross = tc.cross(cz, z)?;
        let d = tc.dd().rels.intersect(mutual, cross);
        let d = tc.quant_unprimed(d)?;
        let cd = tc.dd().sets.union(c, d);
        let next = tc.dd().sets.intersect(s.get(), cd);
        s.set(next);
    }
    Ok(s.get())
}

/// `FairSCC_TC` (Figure 4.8), iterated: the states of `s` on a nontrivial cycle that satisfies
/// every Streett pair `(R_i, C_i)` (the cycle visits no state of `R_i`, or some state of
/// `C_i`). Weak (Büchi) fairness with sets `F_i` is `R_i = s`, `C_i = F_i`.
///
/// One departure from the figure: its single round intersects the pairs' answers, which is
/// exact for one pair but may keep, with several pairs, a state whose cycles each satisfy some
/// pairs but none all of them. The round is repeated within its own answer until nothing
/// changes: at that fixpoint every SCC of the answer satisfies every pair (an SCC meeting `R_i`
/// but not `C_i` would lose its `R_i` states), so the answer is exact.
pub fn fair_scc_tc(
    tc: &mut Closure<'_>,
    s: NodeId,
    pairs: &[(NodeId, NodeId)],
) -> Result<NodeId, Interrupted> {
    let mut z = tc.dd().pin(s);
    loop {
        let next = fair_scc_tc_round(tc, z.get(), pairs)?;
        if next == z.get() {
            return Ok(next);
        }
        z.set(next);
    }
}
