//! The symbolic CTMC (index EV+MDD, rate matrix EV*MxD, Figures 6.2-6.7) against the explicit
//! chain built by direct enumeration (`model.step` over every reachable state) and dense
//! linear algebra: random small general models under random variable orders, and small PRISM
//! programs parsed with saturn-prism.

use crate::symbolic_support::*;
use proptest::prelude::*;
use saturn_ctmc::{Sweep, SymbolicCtmc};
use saturn_model::expr::{BinOp, Expr, Func, Real};
use saturn_model::{GenEvent, GeneralModel, Init, Var};
use saturn_symbolic::Limits;

/// A tiny deterministic generator.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::bin(op, a, b)
}

fn clamp(e: Expr, lo: i64, hi: i64) -> Expr {
    Expr::Call(
        Func::Min,
        vec![Expr::Call(Func::Max, vec![e, Expr::Int(lo)]), Expr::Int(hi)],
    )
}

/// A random model: 2-4 integer variables with small ranges, 2-7 events whose guards compare
/// variables, rates that may depend on the state (and be zero), updates of one or two
/// variables that add, copy or set (clamped to the range), sometimes a self-loop.
fn random_model(seed: u64) -> GeneralModel {
    let mut r = Rng(seed | 1);
    for _ in 0..3 {
        r.below(2);
    }
    let nv = 2 + r.below(3) as usize;
    let vars: Vec<Var> = (0..nv)
        .map(|i| {
            let low = r.below(3) as i64 - 1;
            Var {
                name: format!("x{i}"),
                low,
                high: low + 1 + r.below(3) as i64,
                is_bool: false,
            }
        })
        .collect();
    let ne = 2 + r.below(6) as usize;
    let mut events = Vec::new();
    for e in 0..ne {
        let a = r.below(nv as u64) as usize;
        let b = r.below(nv as u64) as usize;
        let guard = match r.below(4) {
            0 => Expr::Bool(true),
            1 => bin(BinOp::Lt, Expr::Var(a), Expr::Int(vars[a].high)),
            2 => bin(BinOp::Le, Expr::Var(a), Expr::Var(b)),
            _ => Expr::and(
                bin(BinOp::Gt, Expr::Var(a), Expr::Int(vars[a].low)),
                bin(BinOp::Ne, Expr::Var(b), Expr::Int(vars[b].low)),
            ),
        };
        let rate = match r.below(4) {
            0 => Expr::Real(Real::new(0.5 + r.below(4) as f64)),
            1 => Expr::Int(1 + r.below(3) as i64),
            // zero in some states, never negative
            2 => bin(BinOp::Sub, Expr::Var(b), Expr::Int(vars[b].low)),
            _ => bin(
                BinOp::Mul,
                Expr::Real(Real::new(0.25)),
                bin(BinOp::Add, Expr::Var(a), Expr::Int(2 - vars[a].low)),
            ),
        };
        let upd = |r: &mut Rng, v: usize| -> Expr {
            let (lo, hi) = (vars[v].low, vars[v].high);
            match r.below(4) {
                0 => clamp(bin(BinOp::Add, Expr::Var(v), Expr::Int(1)), lo, hi),
                1 => clamp(bin(BinOp::Sub, Expr::Var(v), Expr::Int(1)), lo, hi),
                2 => clamp(Expr::Var(r.below(nv as u64) as usize), lo, hi),
                _ => Expr::Int(lo + r.below((hi - lo + 1) as u64) as i64),
            }
        };
        let mut assigns = vec![(a, upd(&mut r, a))];
        if b != a && r.below(2) == 0 {
            assigns.push((b, upd(&mut r, b)));
        }
        let mut rates = vec![rate];
        if r.below(3) == 0 {
            // a second factor, as a synchronised PRISM command has
            rates.push(Expr::Int(2));
        }
        events.push(GenEvent {
            name: format!("e{e}"),
            location: format!("test:{e}"),
            guard,
            rates,
            assigns,
        });
    }
    let init = Init::State(vars.iter().map(|v| v.low).collect());
    GeneralModel { vars, events, init }
}

fn random_order(n: usize, seed: u64) -> Vec<usize> {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9) | 1);
    let mut o: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        o.swap(i, r.below(i as u64 + 1) as usize);
    }
    o
}

/// Build, check against the explicit chain, with and without the cache; the steady state of
/// irreducible chains against a dense direct solve.
fn check_model(model: &GeneralModel, order: &[usize]) {
    let Some(e) = explicit(model, order, 2000) else {
        return;
    };
    let mut c = SymbolicCtmc::generate(model, order, &Limits::none()).unwrap();
    check_against(model, &c, &e);
    let m = dense(&e);
    let steady = (e.states.len() >= 2 && irreducible(&m)).then(|| dense_steady_state(&m));
    if let Some(want) = &steady {
        for order in [Sweep::Forward, Sweep::Backward] {
            let got = gs_steady_state(&c, order);
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-9, "steady state {g} vs dense {w}");
            }
        }
    }
    for threshold in [1, 3, 16, u64::MAX] {
        c.enable_cache(threshold);
        check_against(model, &c, &e);
        if let Some(want) = &steady {
            let got = gs_steady_state(&c, Sweep::Forward);
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-9, "cached steady state {g} vs dense {w}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_models_agree_with_explicit_enumeration(seed in any::<u64>(), oseed in any::<u64>()) {
        let model = random_model(seed);
        let order = random_order(model.vars.len(), oseed);
        check_model(&model, &order);
    }
}

fn prism(src: &str) -> GeneralModel {
    let prog = saturn_prism::load_model("test.prism", src, &saturn_prism::ConstOverrides::new())
        .unwrap_or_else(|d| panic!("{d:?}"));
    saturn_prism::lower::lower(&prog).unwrap()
}

/// A tandem of two queues with a synchronised hand-over (rates multiply), a state-dependent
/// service rate and a command that loops on its state.
const TANDEM: &str = "ctmc
const int c = 3;
module q1
  a : [0..c] init 0;
  [] a < c -> 2 : (a'=a+1);
  [move] a > 0 -> 1.5 : (a'=a-1);
  [] a = c -> 0.7 : (a'=a);
endmodule
module q2
  b : [0..c] init 0;
  [move] b < c -> 2 : (b'=b+1);
  [] b > 0 -> 0.4*b : (b'=b-1);
endmodule
";

/// Two updates of one command to the same successor add up; an absorbing state (deadlock).
const BRANCHES: &str = "ctmc
module m
  x : [0..4] init 0;
  y : bool init false;
  [] x < 4 -> 1 : (x'=x+1) + 2 : (x'=x+1) + 0.5 : (y'=!y);
  [] x > 0 & !y -> x : (x'=x-1);
endmodule
";

#[test]
fn prism_programs_agree_with_explicit_enumeration() {
    for src in [TANDEM, BRANCHES] {
        let model = prism(src);
        let n = model.vars.len();
        for order in [(0..n).collect::<Vec<_>>(), (0..n).rev().collect()] {
            check_model(&model, &order);
        }
    }
}

#[test]
fn prism_deadlocks_and_self_loops_are_counted_not_stored() {
    for src in [TANDEM, BRANCHES] {
        let model = prism(src);
        let c = SymbolicCtmc::generate(&model, &[0, 1], &Limits::none()).unwrap();
        let r = saturn_reference::explore_general(&model, 1000).unwrap();
        let loops = r.pairs.iter().filter(|(s, t)| s == t).count();
        assert_eq!(c.deadlocks(), r.deadlocks.len() as u64);
        assert_eq!(c.self_loops(), loops as u64);
        assert!(c.deadlocks() + c.self_loops() > 0, "the programs have both");
    }
}

/// The build reports its steps: the index function, one line per event, the off-diagonal part
/// (the CLI shows them on stderr while a large R is built), and the chain is the same.
#[test]
fn the_build_reports_each_event() {
    use saturn_symbolic::encode::{generate_general, GenMethod};
    let model = prism(TANDEM);
    let (enc, ss) =
        generate_general(&model, &[0, 1], GenMethod::Saturation, &Limits::none()).unwrap();
    let mut lines: Vec<String> = Vec::new();
    let mut say = |m: &str| lines.push(m.to_string());
    let c = SymbolicCtmc::from_state_space_reporting(
        &model,
        enc,
        &ss,
        &Limits::none(),
        None,
        Some(&mut say),
    )
    .unwrap();
    let plain = SymbolicCtmc::generate(&model, &[0, 1], &Limits::none()).unwrap();
    assert_eq!(c.prism_transitions(), plain.prism_transitions());
    assert_eq!(c.self_loops(), plain.self_loops());
    let events = model.events.len();
    assert!(events >= 2);
    assert_eq!(lines.len(), events + 2, "{lines:?}");
    assert!(lines[0].contains("index function"), "{lines:?}");
    assert_eq!(
        lines[events],
        format!("rate matrix: event {events} of {events}")
    );
    assert!(lines[events + 1].contains("off-diagonal"), "{lines:?}");
}
