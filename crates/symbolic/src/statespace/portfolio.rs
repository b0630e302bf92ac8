//! The order portfolio: one model under several variable orders (and both event modes),
//! run by iterative deepening over step budgets, on one core or two.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use saturn_model::Model;

use super::{generate_with, run_attempt, Attempt, StateSpace};
use crate::limits::Progress;
use crate::reach::Suspended;
use crate::{Interrupted, Limits, Method, Relations};

/// The stack of a worker thread: diagram operations recurse once per level, and contest nets
/// have up to tens of thousands (AirplaneLD-PT-1000's 7,019 overflowed the default 2 MiB).
/// Reserved address space, resident only as far as used.
pub const WORKER_STACK: usize = 1 << 30;

/// A portfolio over variable orders: `models` are the same system under different level
/// orders. No static metric predicts saturation's cost reliably, so the attempts run by
/// iterative deepening: each candidate in turn gets a step budget, and the budget grows
/// fourfold each round until one finishes; within a round, the attempts that have proven more
/// states reachable go first, and an attempt far behind the best, or behind its twin (the
/// same order in the other event mode), runs its rounds one round late (`next_slot`). The
/// total work is within a small constant factor of the best candidate's. An attempt that runs out of budget is suspended, not thrown away:
/// the next round resumes it on its own context, where the sub-results it finished are still
/// in its caches (unless memory runs short: see [`keep_suspended`]). With
/// [`Relations::Auto`], each model is a candidate twice: with implicit events, then with
/// relation MDDs. Returns the index of the winning model with its state space (whose
/// `relations` says how it won).
pub fn generate_portfolio(
    models: &[Model],
    method: Method,
    relations: Relations,
    limits: Limits,
    progress: Option<Progress>,
) -> Result<(usize, StateSpace), Interrupted> {
    generate_portfolio_helped(models, method, relations, limits, progress, None, None)
}

/// [`generate_portfolio`] on two cores: once `helper` says a second core is free (it is asked
/// every [`HELPER_POLL`]), a second worker joins on a thread of its own. Both take, each in
/// turn, the candidate `next_slot` picks among those the other is not running (the calling thread alone does the rounds of [`generate_portfolio`] in
/// the same order), so together they go through the rounds twice as fast; a suspended attempt may be resumed by
/// either. The first to finish, or to stop on a limit, cancels the other. `on_proven` is told,
/// after each budget stop, the most states any attempt has proven reachable so far (log10, a
/// lower bound on the state count: see [`Suspended::proven`]).
pub fn generate_portfolio_helped(
    models: &[Model],
    method: Method,
    relations: Relations,
    limits: Limits,
    progress: Option<Progress>,
    helper: Option<&(dyn Fn() -> bool + Sync)>,
    on_proven: Option<&(dyn Fn(f64) + Sync)>,
) -> Result<(usize, StateSpace), Interrupted> {
    let modes: &[Relations] = match relations {
        Relations::Auto => &[Relations::Implicit, Relations::Mdd],
        Relations::Implicit => &[Relations::Implicit],
        Relations::Mdd => &[Relations::Mdd],
    };
    let candidates: Vec<(usize, Relations)> = (0..models.len())
        .flat_map(|i| modes.iter().map(move |&r| (i, r)))
        .collect();
    if let [(i, r)] = candidates[..] {
        return generate_with(&models[i], method, r, limits, progress).map(|s| (i, s));
    }
    // the workers stop each other with this flag (the engine's limits want it `'static`: one
    // flag a run, as the race's)
    let done: Option<&'static AtomicBool> =
        helper.map(|_| &*Box::leak(Box::new(AtomicBool::new(false))));
    let portfolio = Portfolio {
        models,
        candidates: &candidates,
        method,
        board: Mutex::new(Board {
            slots: candidates
                .iter()
                .map(|&(i, r)| Slot {
                    attempt: None,
                    budget: 1 << 16,
                    busy: false,
                    dropped: false,
                    proven: 0.0,
                    twin: candidates.iter().position(|&(j, q)| j == i && q != r),
                })
                .collect(),
            outcome: None,
        }),
        start: Instant::now(),
        progress: Mutex::new(progress),
        on_proven,
        done,
    };
    let (Some(helper), Some(done)) = (helper, done) else {
        portfolio.work(limits, 0);
        return portfolio.outcome();
    };
    let limits = Limits {
        cancel_also: Some(done),
        ..limits
    };
    std::thread::scope(|scope| {
        // the second worker recurses once per level like the first: the same stack (a thread
        // that cannot be started leaves the work to the first)
        let second = std::thread::Builder::new()
            .stack_size(WORKER_STACK)
            .spawn_scoped(scope, || {
                while !done.load(Ordering::Relaxed) {
                    if helper() {
                        portfolio.work(limits, 1);
                        return;
                    }
                    // woken early when the first worker is done
                    std::thread::park_timeout(HELPER_POLL);
                }
            });
        portfolio.work(limits, 0);
        done.store(true, Ordering::Relaxed);
        if let Ok(second) = second {
            second.thread().unpark();
        }
    });
    portfolio.outcome()
}

/// How often the waiting second worker of [`generate_portfolio_helped`] asks its helper
/// whether it may join (it is woken at once when the run ends).
pub const HELPER_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// The candidates of a portfolio, shared by its workers.
struct Portfolio<'a> {
    models: &'a [Model],
    candidates: &'a [(usize, Relations)],
    method: Method,
    board: Mutex<Board>,
    start: Instant,
    progress: Mutex<Option<Progress>>,
    on_proven: Option<&'a (dyn Fn(f64) + Sync)>,
    /// Raised with the outcome: the other worker's attempt stops (it polls it in its limits).
    done: Option<&'static AtomicBool>,
}

/// Where the candidates stand: each one's suspended attempt and next budget, and the answer.
struct Board {
    slots: Vec<Slot>,
    /// The first state space generated, or the first stop (a worker cancelled by the other
    /// comes after the other's outcome, so its stop is never the one kept).
    outcome: Option<Result<(usize, StateSpace), Interrupted>>,
}

struct Slot {
    attempt: Option<Attempt>,
    budget: u64,
    /// A worker is running this candidate.
    busy: bool,
    /// Out of the portfolio (see [`union_bound`]).
    dropped: bool,
    /// log10 of the states its attempt has proven reachable ([`Suspended::proven`]).
    proven: f64,
    /// The same order in the other event mode, when the portfolio has it.
    twin: Option<usize>,
}

impl Portfolio<'_> {
    fn board(&self) -> std::sync::MutexGuard<'_, Board> {
        // a worker that panicked left the board as it was between two attempts
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Run candidates until the portfolio has its outcome: each time the one [`next_slot`]
    /// picks among those no other worker is running.
    fn work(&self, limits: Limits, worker: usize) {
        loop {
            let (c, budget, attempt, proven) = {
                let mut b = self.board();
                if b.outcome.is_some() {
                    return;
                }
                let Some(c) = next_slot(&b.slots) else {
                    return;
                };
                let slot = &mut b.slots[c];
                slot.busy = true;
                (c, slot.budget, slot.attempt.take(), slot.proven)
            };
            let (i, rel) = self.candidates[c];
            let before = self.start.elapsed().as_secs_f64();
            let how = match (&attempt, proven > 0.0) {
                (Some(_), true) => format!("resumed (10^{proven:.1} states proven)"),
                (Some(_), false) => "resumed".to_string(),
                (None, _) => "started".to_string(),
            };
            let on = if worker > 0 {
                " on the second core"
            } else {
                ""
            };
            self.report(&format!(
                "order candidate {i} ({} events) {how}{on}, budget {budget} steps",
                rel.name()
            ));
            let run = run_attempt(
                &self.models[i],
                self.method,
                rel,
                limits,
                None,
                budget,
                attempt,
            );
            let mut b = self.board();
            b.slots[c].busy = false;
            match run {
                Ok(Ok(mut ss)) => {
                    // the failed attempts before this one were generation time too
                    ss.generation_seconds += before;
                    let first = b.outcome.is_none();
                    b.outcome.get_or_insert(Ok((i, ss)));
                    drop(b);
                    self.raise();
                    if first {
                        self.report(&format!(
                            "order candidate {i} ({} events) finished",
                            rel.name()
                        ));
                    }
                    return;
                }
                Ok(Err(a)) => {
                    b.slots[c].budget = budget.saturating_mul(4);
                    // an attempt dropped for memory starts again: what it proved stays proven
                    b.slots[c].proven = b.slots[c].proven.max(a.reach.proven());
                    if let Some(tell) = self.on_proven {
                        tell(b.slots.iter().map(|s| s.proven).fold(0f64, f64::max));
                    }
                    let twin = self.candidates.contains(&(i, Relations::Implicit));
                    // ahead of its twin, such an attempt stays: its unions pay
                    let ahead = b.slots[c]
                        .twin
                        .is_some_and(|t| b.slots[c].proven > b.slots[t].proven);
                    if rel == Relations::Mdd && twin && !ahead && union_bound(&a.reach) {
                        b.slots[c].dropped = true;
                        drop(b);
                        self.report(&format!(
                            "order candidate {i} (mdd events) dropped: building its relations costs more than firing them"
                        ));
                        continue;
                    }
                    if keep_suspended(&limits) {
                        b.slots[c].attempt = Some(a);
                    } else {
                        drop(a);
                        b.slots.iter_mut().for_each(|s| s.attempt = None);
                    }
                }
                Err(Interrupted::IndexTooLarge)
                    if rel == Relations::Mdd
                        && b.slots[c].twin.is_some_and(|t| !b.slots[t].dropped) =>
                {
                    // relation MDDs are dense over a level's local states from 0: a level of
                    // billions of tokens has none, while its implicit twin needs only the
                    // states that occur (GPPP-PT-C0010N1000000000)
                    b.slots[c].dropped = true;
                    drop(b);
                    self.report(&format!(
                        "order candidate {i} (mdd events) dropped: a level too wide for relation MDDs"
                    ));
                    continue;
                }
                Err(e) => {
                    // a cancel by the other worker comes after its outcome: this one is moot
                    b.outcome.get_or_insert(Err(e));
                    self.raise();
                    return;
                }
            }
        }
    }

    fn raise(&self) {
        if let Some(d) = self.done {
            d.store(true, Ordering::Relaxed);
        }
    }

    fn report(&self, msg: &str) {
        let mut p = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = p.as_mut() {
            p(msg)
        }
    }

    fn outcome(&self) -> Result<(usize, StateSpace), Interrupted> {
        self.board()
            .outcome
            .take()
            .unwrap_or(Err(Interrupted::Cancelled))
    }
}

/// Is this attempt with relation MDDs spending most of its work on building its events'
/// relations and their unions `N_k` (past a million steps)? The union of relations with different
/// supports can be far larger than its parts (AirplaneLD-PT-0100 under the span-search order:
/// 97% of the work, over 20 s, against 0.05 s with implicit events), while an attempt whose
/// unions pay spends a few percent of its work on them (Sloan's order there: 0.05%). Such an
/// attempt is dropped from a portfolio that also holds the same order with implicit events,
/// unless it has proven more states than that twin: many events make many unions at first,
/// which pay later (BridgeAndVehicles-PT-V50P50N50 with one-hot groups on one level: 3,728
/// transitions; under `file-rev`, relation MDDs finish alone in 0.6 s, with 96% of the first
/// million steps on unions, while its implicit twin runs past 60 s).
/// Relations over wide levels are the other case: each is rebuilt over the whole domain as
/// the domain grows (GPPP-PT-C0100N0000100000, 400,007 tokens in a place: over 19 s in its
/// first budget of 65,536 steps, before their building was counted as work).
fn union_bound(s: &Suspended) -> bool {
    let (work, unions) = s.work();
    work >= 1 << 20 && unions > work / 2
}

/// Suspended portfolio attempts are kept while the process's resident memory stays below a
/// quarter of the memory limit (without one, 4 GiB); past that they are dropped and later
/// rounds start those candidates afresh.
pub fn keep_suspended(limits: &Limits) -> bool {
    let cap = limits.max_memory.map_or(4 << 30, |m| m / 4);
    crate::limits::current_rss_bytes().is_none_or(|r| r < cap)
}

/// The candidate a worker runs next: among those neither running nor dropped, one with the
/// smallest next budget (the rounds of iterative deepening); within that round, the one whose
/// attempt has proven the most states reachable ([`Suspended::proven`]), the earlier on a tie.
/// An attempt far behind ([`far_behind`]) or behind its twin ([`twin_ahead`]) runs its rounds
/// one round late: as if its budget were four times what it is (after the others' attempts of
/// that round); both at once, two rounds late.
///
/// The state count is the same under every order and event mode, so the attempt that has
/// proven more of it has usually less left to do. On 15 contest nets of the sample where the
/// portfolio runs past 2.5 s, ranked this way the winner came first in its last round on 10
/// (in the candidates' order, on 4): ShieldIIPs-PT-005A's winner (0.46 s alone) came fourth
/// of ten and the run took 12.3 s, ranked 5.6 s; FlexibleBarrier-PT-04b's came eighth of eight
/// and was not reached in 60 s, ranked 53 s. Where the leaders' counts are close the signal is
/// weak (HirschbergSinclair-PT-45's four leaders proved 10^49.8 to 10^50.9 states and the last
/// of them won), but counting close counts as even lost as much elsewhere (twins of one order
/// with 10^7.6 and 10^7.9: the second won). Which candidate wins does not depend on the
/// ranking, only how much the others spend before it.
fn next_slot(slots: &[Slot]) -> Option<usize> {
    let most = slots.iter().map(|s| s.proven).fold(0f64, f64::max);
    let round = |s: &Slot| {
        let late = |b: u64, yes: bool| if yes { b.saturating_mul(4) } else { b };
        let behind_twin = s.twin.is_some_and(|t| twin_ahead(s, &slots[t]));
        late(late(s.budget, far_behind(s, most)), behind_twin)
    };
    let mut best: Option<usize> = None;
    for (c, s) in slots.iter().enumerate() {
        if s.busy || s.dropped {
            continue;
        }
        let better = best.is_none_or(|b| {
            let t = &slots[b];
            let (rs, rt) = (round(s), round(t));
            rs < rt || (rs == rt && s.proven > t.proven)
        });
        if better {
            best = Some(c);
        }
    }
    best
}

/// Has this attempt, stopped on a budget of at least 2^22 steps, proven fewer states than
/// the best attempt by more than a factor of 10^4 (`most` is the best's log10)? Most
/// attempts that far behind lose (HospitalTriage-PT-none: after 2^22 steps seven of its twelve
/// were 10^5.8 to 10^9.5 behind Sloan's order, which won), but not all: DLCflexbar-PT-8a's
/// winner had proven 10^55 states when the best had proven 10^67.6, and finished one round
/// later with all 10^128.3. So such an attempt is put back by a round, not dropped: held back
/// two rounds it lost DLCflexbar (13.7 s, over 60 s); one round costs it 4 s.
fn far_behind(s: &Slot, most: f64) -> bool {
    s.budget >= 1 << 24 && most - s.proven > 4.0
}

/// Is this attempt's twin (the same order in the other event mode, still in the portfolio)
/// ahead of it past 2^22 steps: has it proven more states, by more than a factor of 10^0.25?
/// Then this attempt runs its rounds one round late, as [`far_behind`] ones do. Twins share an
/// order, and mostly its fate, so running both in every round spends twice on one order what
/// each other order gets; lagging the twin behind gives the rounds to the orders, not the
/// modes. ASLink-PT-06a's winner (the weighted FORCE with relation MDDs, 13 s alone) was not
/// reached in 60 s among twelve attempts in lockstep, and is in 34 s with its twin lagging. On
/// the 77 contest instances that had failed or taken 5 s or more: 6 more answered (ASLink-PT-
/// 06a/-07a/-09a, ClientsAndServers-PT-N0010P1/-P2, JoinFreeModules-PT-0200), none lost.
fn twin_ahead(s: &Slot, twin: &Slot) -> bool {
    s.budget >= 1 << 24 && !twin.dropped && twin.proven > s.proven + 0.25
}

#[cfg(test)]
mod tests {
    use super::{next_slot, union_bound, Slot, Suspended};

    fn slot(budget: u64, proven: f64) -> Slot {
        Slot {
            attempt: None,
            budget,
            busy: false,
            dropped: false,
            proven,
            twin: None,
        }
    }

    #[test]
    fn the_next_candidate_is_in_the_lowest_round_the_one_that_proved_most() {
        let mut slots = vec![slot(4, 1.0), slot(4, 7.5), slot(16, 9.0), slot(4, 7.5)];
        // the lowest round first, whatever the others proved; in it, the most proven, then
        // the earlier
        assert_eq!(next_slot(&slots), Some(1));
        slots[1].busy = true;
        assert_eq!(next_slot(&slots), Some(3));
        slots[3].dropped = true;
        assert_eq!(next_slot(&slots), Some(0));
        slots[0].budget = 16;
        assert_eq!(next_slot(&slots), Some(2));
        slots[2].busy = true;
        assert_eq!(next_slot(&slots), Some(0));
        slots[0].busy = true;
        assert_eq!(next_slot(&slots), None);
        // nothing proven yet: the candidates' order
        assert_eq!(next_slot(&[slot(1, 0.0), slot(1, 0.0)]), Some(0));
        // however close the counts
        let close = [slot(1, 49.8), slot(1, 50.0), slot(1, 50.9), slot(1, 7.9)];
        assert_eq!(next_slot(&close), Some(2));
    }

    #[test]
    fn an_attempt_far_behind_runs_one_round_late() {
        let r = 1 << 24;
        // 10^4.1 behind after 2^22 steps: it runs in the leader's next round, after the leader
        let mut slots = vec![slot(r, 11.7), slot(4 * r, 15.8)];
        assert_eq!(next_slot(&slots), Some(1));
        slots[1].budget = 16 * r;
        assert_eq!(next_slot(&slots), Some(0));
        // not far behind: its own round first
        assert_eq!(next_slot(&[slot(r, 12.0), slot(4 * r, 15.8)]), Some(0));
        // 10^3.9 behind is not far
        assert_eq!(next_slot(&[slot(r, 11.9), slot(4 * r, 15.8)]), Some(0));
        // before 2^22 steps nothing is far behind
        assert_eq!(next_slot(&[slot(r / 4, 1.0), slot(r, 15.8)]), Some(0));
        // the best is counted even when it is running or dropped
        let mut slots = vec![slot(r, 5.0), slot(2 * r, 17.0), slot(r, 20.0)];
        slots[2].dropped = true;
        assert_eq!(next_slot(&slots), Some(1));
        slots[2].dropped = false;
        slots[2].busy = true;
        assert_eq!(next_slot(&slots), Some(1));
    }

    #[test]
    fn an_attempt_behind_its_twin_runs_one_round_late() {
        let r = 1 << 24;
        let twin = |budget, proven, t| Slot {
            twin: Some(t),
            ..slot(budget, proven)
        };
        // ASLink-PT-06a after 2^22 steps: the weighted FORCE with relation MDDs (0) had proven
        // 10^5.6 states, its twin with implicit events (1) 10^4.8, another order (2) 10^3.0
        let mut slots = vec![twin(r, 5.6, 1), twin(r, 4.8, 0), slot(r, 3.0)];
        assert_eq!(next_slot(&slots), Some(0));
        slots[0].busy = true;
        // the twin behind waits for the other order's attempt of this round
        assert_eq!(next_slot(&slots), Some(2));
        // then runs with the next round's attempts, ranked with them by what it proved
        slots[2].budget = 4 * r;
        assert_eq!(next_slot(&slots), Some(1));
        slots[2].proven = 6.0;
        assert_eq!(next_slot(&slots), Some(2));
        // twins within 10^0.25 of each other both run in their round
        let mut close = [twin(r, 5.6, 1), twin(r, 5.4, 0), slot(r, 3.0)];
        close[0].busy = true;
        assert_eq!(next_slot(&close), Some(1));
        // before 2^22 steps, or with the twin dropped, no attempt waits
        let mut early = [twin(r / 4, 5.6, 1), twin(r / 4, 1.0, 0), slot(r, 3.0)];
        early[0].busy = true;
        assert_eq!(next_slot(&early), Some(1));
        let mut gone = [twin(r, 5.6, 1), twin(r, 2.0, 0), slot(4 * r, 3.0)];
        gone[0].dropped = true;
        assert_eq!(next_slot(&gone), Some(1));
    }

    #[test]
    fn an_attempt_is_union_bound_past_a_million_steps_mostly_unions() {
        // AirplaneLD-PT-0100, Sloan's order: 609 of 1.19 million steps on unions
        assert!(!union_bound(&Suspended::with_work(1_186_037, 609)));
        // the same net under span-search spends nearly all its work there
        assert!(union_bound(&Suspended::with_work(4 << 20, 4 << 20)));
        assert!(union_bound(&Suspended::with_work(1 << 20, (1 << 19) + 1)));
        assert!(!union_bound(&Suspended::with_work(1 << 20, 1 << 19)));
        // too early to tell
        assert!(!union_bound(&Suspended::with_work(
            (1 << 20) - 1,
            (1 << 20) - 1
        )));
    }
}
