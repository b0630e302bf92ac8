//! The families of the thesis's SCC and CTL tables (Tables 3.1, 3.2 and 4.1) that the saturation
//! papers do not publish as nets: `cqn`, `arbiter1`, `arbiter2` and `leader`. They are our own
//! nets, built to have the cycle structure the thesis reports (number of SCCs and of terminal
//! SCCs); their state counts have the closed forms given below and checked by the tests.

use super::builder::Builder;
use crate::PetriNet;

/// `cqn`: a closed queueing network of `N` stations in a ring (`Q_i`, service `serve_i` moves a
/// customer to the next station) with `N` customers, all at station 0 at first, and a routing
/// switch `Sw` that a busy station `i` may lock once and for all (`lock_i` reads `Q_i`, moves the
/// switch token to `L_i`). The unlocked mode is one SCC, not terminal; each locked mode is a
/// terminal SCC: `N + 1` SCCs, `N` of them terminal, as in the thesis's Table 4.1. States:
/// `(N + 1) · C(2N - 1, N)` (every placement of the customers, in each mode).
pub(super) fn cqn(n: u32) -> PetriNet {
    let mut b = Builder::new(format!("cqn-{n}"));
    b.place("Sw".to_string(), 1);
    for i in 0..n {
        b.place(format!("Q_{i}"), if i == 0 { u64::from(n) } else { 0 });
        b.place(format!("L_{i}"), 0);
        b.trans(format!("serve_{i}"));
        b.trans(format!("lock_{i}"));
    }
    for i in 0..n {
        let next = (i + 1) % n;
        b.input(&format!("Q_{i}"), &format!("serve_{i}"));
        b.output(&format!("serve_{i}"), &format!("Q_{next}"));
        b.input("Sw", &format!("lock_{i}"));
        b.read(&format!("Q_{i}"), &format!("lock_{i}"));
        b.output(&format!("lock_{i}"), &format!("L_{i}"));
    }
    b.net
}

/// `arbiter1`: a fair token-ring arbiter for `N` clients. Client `i` is `Idle_i` or `Req_i`
/// (`req_i` raises a request at any time); the token at `i` (`Tok_i`) serves a pending request
/// (`grant_i`: `Req_i` back to `Idle_i`) and may pass an idle client only (`skip_i` reads
/// `Idle_i`); either way it goes to `Pass_i` and then on to `Tok_{i+1}` (`pass_i`). Every request
/// is served before the token goes round: one SCC holding every state, `N · 2^(N+1)` of them.
pub(super) fn arbiter1(n: u32) -> PetriNet {
    let mut b = Builder::new(format!("arbiter1-{n}"));
    for i in 0..n {
        b.place(format!("Idle_{i}"), 1);
        b.place(format!("Req_{i}"), 0);
        b.place(format!("Tok_{i}"), u64::from(i == 0));
        b.place(format!("Pass_{i}"), 0);
        for t in ["req", "grant", "skip", "pass"] {
            b.trans(format!("{t}_{i}"));
        }
    }
    for i in 0..n {
        let next = (i + 1) % n;
        let x = |s: &str| format!("{s}_{i}");
        b.input(&x("Idle"), &x("req"));
        b.output(&x("req"), &x("Req"));
        b.input(&x("Tok"), &x("grant"));
        b.input(&x("Req"), &x("grant"));
        b.output(&x("grant"), &x("Pass"));
        b.output(&x("grant"), &x("Idle"));
        b.input(&x("Tok"), &x("skip"));
        b.read(&x("Idle"), &x("skip"));
        b.output(&x("skip"), &x("Pass"));
        b.input(&x("Pass"), &x("pass"));
        b.output(&x("pass"), &format!("Tok_{next}"));
    }
    b.net
}

/// `arbiter2`: an unfair token-ring arbiter for `N` one-shot clients. Client `i` is `Wait_i`
/// until the token, when it is at `i`, serves it (`grant_i` reads `Tok_i`, `Wait_i` to
/// `Served_i`, for good); the token passes on whether or not the client is served (`pass_i`), so
/// a waiting client may be skipped forever. Each set of served clients is an SCC of `N` states
/// (the token's ring): `2^N` SCCs and `N · 2^N` states, all in SCCs; the one terminal SCC is the
/// ring once every client is served (the thesis's net stops the token there, a single state).
pub(super) fn arbiter2(n: u32) -> PetriNet {
    let mut b = Builder::new(format!("arbiter2-{n}"));
    for i in 0..n {
        b.place(format!("Wait_{i}"), 1);
        b.place(format!("Served_{i}"), 0);
        b.place(format!("Tok_{i}"), u64::from(i == 0));
        b.trans(format!("grant_{i}"));
        b.trans(format!("pass_{i}"));
    }
    for i in 0..n {
        let next = (i + 1) % n;
        let x = |s: &str| format!("{s}_{i}");
        b.input(&x("Wait"), &x("grant"));
        b.read(&x("Tok"), &x("grant"));
        b.output(&x("grant"), &x("Served"));
        b.input(&x("Tok"), &x("pass"));
        b.output(&x("pass"), &format!("Tok_{next}"));
    }
    b.net
}

/// `leader`: leader election on a unidirectional ring of `N` processes (Chang and Roberts). The
/// identities `0..N` are dealt round the ring at the start, in one of `N` rotations (`choose_k`
/// gives process `i` the identity `(i + k) mod N`: `Id_i_v`). Each process sends its identity
/// once (`send_i_v`: `Send_i` to `Wait_i`) into its one-place channel (`Empty_i` or `Ch_i_v`);
/// process `j` receiving `v` from its predecessor forwards it when `v` is larger than its own
/// identity (`fwd`), drops it when smaller (`drop`), and is elected when it is its own
/// (`elect`: `Wait_j` to `Lead_j`). Once every message is gone the leader announces itself
/// forever (`done_j`, a self-loop): `N` terminal SCCs of one state each, one per rotation, and no
/// other cycle. `N^2 + 3N + 1` places and about `N^3` transitions.
pub(super) fn leader(n: u32) -> PetriNet {
    let mut b = Builder::new(format!("leader-{n}"));
    b.place("Start".to_string(), 1);
    for i in 0..n {
        b.place(format!("Send_{i}"), 1);
        b.place(format!("Wait_{i}"), 0);
        b.place(format!("Lead_{i}"), 0);
        for v in 0..n {
            b.place(format!("Id_{i}_{v}"), 0);
        }
        b.place(format!("Empty_{i}"), 1);
        for v in 0..n {
            b.place(format!("Ch_{i}_{v}"), 0);
        }
    }
    for k in 0..n {
        let t = format!("choose_{k}");
        b.trans(t.clone());
        b.input("Start", &t);
        for i in 0..n {
            b.output(&t, &format!("Id_{i}_{}", (i + k) % n));
        }
    }
    for i in 0..n {
        for v in 0..n {
            let t = format!("send_{i}_{v}");
            b.trans(t.clone());
            b.input(&format!("Send_{i}"), &t);
            b.read(&format!("Id_{i}_{v}"), &t);
            b.input(&format!("Empty_{i}"), &t);
            b.output(&t, &format!("Wait_{i}"));
            b.output(&t, &format!("Ch_{i}_{v}"));
        }
    }
    for j in 0..n {
        let i = (j + n - 1) % n; // the channel j reads from
        for v in 0..n {
            for w in 0..n {
                let (t, kind) = match v.cmp(&w) {
                    std::cmp::Ordering::Greater => (format!("fwd_{j}_{v}_{w}"), 0),
                    std::cmp::Ordering::Less => (format!("drop_{j}_{v}_{w}"), 1),
                    std::cmp::Ordering::Equal => (format!("elect_{j}_{v}"), 2),
                };
                b.trans(t.clone());
                b.input(&format!("Ch_{i}_{v}"), &t);
                b.output(&t, &format!("Empty_{i}"));
                b.read(&format!("Id_{j}_{w}"), &t);
                match kind {
                    0 => {
                        b.input(&format!("Empty_{j}"), &t);
                        b.output(&t, &format!("Ch_{j}_{v}"));
                    }
                    1 => {}
                    _ => {
                        b.input(&format!("Wait_{j}"), &t);
                        b.output(&t, &format!("Lead_{j}"));
                    }
                }
            }
        }
    }
    for j in 0..n {
        let t = format!("done_{j}");
        b.trans(t.clone());
        b.read(&format!("Lead_{j}"), &t);
        for i in 0..n {
            b.read(&format!("Empty_{i}"), &t);
            if i != j {
                b.read(&format!("Wait_{i}"), &t);
            }
        }
    }
    b.net
}
