//! Random small PRISM programs (several variables per guard, updates that copy and add
//! variables, synchronised actions, booleans, ranges with a nonzero lower bound, `init`
//! blocks, state-dependent and zero rates): the symbolic state space of the lowered program
//! (relations built by Shannon expansion; saturation with relations built on the fly, and
//! chained images; symbolic pair count) against the explicit reference exploration of the same
//! program, under a random variable order.

use proptest::prelude::*;
use saturn_model::GeneralModel;
use saturn_prism::{lower::lower, ConstOverrides};
use saturn_reference::{explore_general, GeneralError, GeneralStateSpace};
use saturn_symbolic::encode::{
    generate_general, EncodeError, Encoded, GenMethod, GeneralStateSpace as SymbolicStateSpace,
};
use saturn_symbolic::Limits;

/// A tiny deterministic generator (the program is a function of the proptest seed).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
}

#[derive(Clone)]
struct V {
    name: String,
    lo: i64,
    hi: i64,
    boolean: bool,
}

fn int_term(r: &mut Rng, vars: &[V]) -> String {
    let ints: Vec<&V> = vars.iter().filter(|v| !v.boolean).collect();
    if ints.is_empty() || r.chance(20) {
        return format!("{}", r.below(4) as i64 - 1);
    }
    let a = r.pick(&ints).name.clone();
    match r.below(6) {
        0 => a,
        1 => format!("{a}+{}", r.pick(&ints).name),
        2 => format!("{a}-{}", r.pick(&ints).name),
        3 => format!("{a}+{}", r.below(3)),
        4 => format!("max({a},{})", r.pick(&ints).name),
        _ => format!("{a}*{}", r.pick(&ints).name),
    }
}

fn guard(r: &mut Rng, vars: &[V]) -> String {
    let atom = |r: &mut Rng| -> String {
        let bools: Vec<&V> = vars.iter().filter(|v| v.boolean).collect();
        if !bools.is_empty() && r.chance(30) {
            let b = r.pick(&bools).name.clone();
            return if r.chance(50) { b } else { format!("!{b}") };
        }
        let op = *r.pick(&["<", "<=", ">", ">=", "=", "!="]);
        format!("{}{op}{}", int_term(r, vars), int_term(r, vars))
    };
    match r.below(5) {
        0 => "true".into(),
        1 | 4 => atom(r),
        2 => format!("{} & {}", atom(r), atom(r)),
        _ => format!("({} | {}) & {}", atom(r), atom(r), atom(r)),
    }
}

fn assign(r: &mut Rng, v: &V, vars: &[V]) -> String {
    if v.boolean {
        let bools: Vec<&V> = vars.iter().filter(|w| w.boolean).collect();
        return match r.below(3) {
            0 => format!("({}'=!{})", v.name, v.name),
            1 => format!("({}'={})", v.name, r.pick(&bools).name),
            _ => format!("({}'={})", v.name, guard(r, vars)),
        };
    }
    let t = int_term(r, vars);
    if r.chance(85) {
        format!("({}'=min(max({t},{}),{}))", v.name, v.lo, v.hi)
    } else {
        // may leave the range: the error must be found by both explorations
        format!("({}'={t})", v.name)
    }
}

fn rate(r: &mut Rng, vars: &[V]) -> String {
    let ints: Vec<&V> = vars.iter().filter(|v| !v.boolean).collect();
    match r.below(5) {
        0 => "1".into(),
        1 => "0.5".into(),
        2 if !ints.is_empty() => {
            // zero in some states (disables the update there), never negative
            let v = r.pick(&ints);
            format!("({}-{})", v.name, v.lo)
        }
        3 => "2".into(),
        _ => "3".into(),
    }
}

/// A random program and whether it uses an `init` block.
fn program(seed: u64) -> String {
    let mut r = Rng(seed | 1);
    for _ in 0..4 {
        r.next();
    }
    let nmod = 1 + r.below(4) as usize;
    let use_init = r.chance(25);
    let mut all: Vec<V> = Vec::new();
    let mut owned: Vec<Vec<usize>> = vec![Vec::new(); nmod];
    let mut text = String::from("ctmc\n\n");
    let global = r.chance(30);
    if global {
        all.push(V {
            name: "g".into(),
            lo: -1,
            hi: 1,
            boolean: false,
        });
        text.push_str(if use_init {
            "global g : [-1..1];\n"
        } else {
            "global g : [-1..1] init 0;\n"
        });
    }
    for (m, own) in owned.iter_mut().enumerate() {
        let nv = 1 + r.below(3) as usize;
        for i in 0..nv {
            let boolean = r.chance(25);
            let lo = if boolean { 0 } else { r.below(5) as i64 - 2 };
            let hi = if boolean {
                1
            } else {
                lo + 1 + r.below(3) as i64
            };
            own.push(all.len());
            all.push(V {
                name: format!("v{m}_{i}"),
                lo,
                hi,
                boolean,
            });
        }
    }
    for m in 0..nmod {
        text.push_str(&format!("module M{m}\n"));
        for &i in &owned[m] {
            let v = &all[i];
            let init = if use_init {
                String::new()
            } else if v.boolean {
                format!(" init {}", if r.chance(50) { "true" } else { "false" })
            } else {
                format!(" init {}", v.lo + r.below((v.hi - v.lo + 1) as u64) as i64)
            };
            if v.boolean {
                text.push_str(&format!("  {} : bool{init};\n", v.name));
            } else {
                text.push_str(&format!("  {} : [{}..{}]{init};\n", v.name, v.lo, v.hi));
            }
        }
        let ncmd = 2 + r.below(3);
        for _ in 0..ncmd {
            let action = *r.pick(&["", "", "a", "b"]);
            let x = &all[*r.pick(&owned[m])];
            if !x.boolean && r.chance(40) {
                // the usual counter: guarded increment or decrement, maybe reading others
                let (cmp, bound, step) = if r.chance(50) {
                    ("<", x.hi, "+1")
                } else {
                    (">", x.lo, "-1")
                };
                let extra = if r.chance(50) {
                    format!(" & {}", guard(&mut r, &all))
                } else {
                    String::new()
                };
                text.push_str(&format!(
                    "  [{action}] {n}{cmp}{bound}{extra} -> {} : ({n}'={n}{step});\n",
                    rate(&mut r, &all),
                    n = x.name
                ));
                continue;
            }
            let g = guard(&mut r, &all);
            let nup = 1 + r.below(2);
            let mut ups = Vec::new();
            for _ in 0..nup {
                let mut writes: Vec<usize> = owned[m].clone();
                if global && action.is_empty() && r.chance(40) {
                    writes.push(0);
                }
                let mut parts = Vec::new();
                for w in writes {
                    if r.chance(60) {
                        parts.push(assign(&mut r, &all[w], &all));
                    }
                }
                let body = if parts.is_empty() {
                    "true".to_string()
                } else {
                    parts.join(" & ")
                };
                ups.push(format!("{} : {body}", rate(&mut r, &all)));
            }
            text.push_str(&format!("  [{action}] {g} -> {};\n", ups.join(" + ")));
        }
        text.push_str("endmodule\n\n");
    }
    if use_init {
        text.push_str(&format!("init\n  {}\nendinit\n", guard(&mut r, &all)));
    }
    text
}

/// The symbolic result of one method against the explicit exploration.
fn compare(
    model: &GeneralModel,
    src: &str,
    method: GenMethod,
    explicit: &Result<GeneralStateSpace, GeneralError>,
    symbolic: Result<(Encoded, SymbolicStateSpace), EncodeError>,
) -> Result<(), TestCaseError> {
    let m = method.name();
    match (explicit, symbolic) {
        (Ok(ex), Ok((enc, ss))) => {
            let mut states = Vec::new();
            enc.sets.for_each_state(ss.reached, usize::MAX, |st| {
                states.push(enc.values(model, st))
            });
            states.sort();
            let want: Vec<Vec<i64>> = ex.states.iter().cloned().collect();
            prop_assert_eq!(&states, &want, "{}: states differ\n{}", m, src);
            prop_assert_eq!(
                ss.transitions,
                ex.prism_transitions().into(),
                "{}: transitions differ\n{}",
                m,
                src
            );
            prop_assert_eq!(
                ss.deadlocks,
                ex.deadlocks.len().into(),
                "{}: deadlocks\n{}",
                m,
                src
            );
        }
        (Err(GeneralError::Step(_)), Err(EncodeError::Event { .. })) => {}
        (Err(GeneralError::Init(_)), Err(EncodeError::Init(_))) => {}
        (ex, sy) => {
            return Err(TestCaseError::fail(format!(
                "{m}: explicit {:?} vs symbolic {:?}\n{src}",
                ex.as_ref().err(),
                sy.err()
            )))
        }
    }
    Ok(())
}

fn check(seed: u64, order_seed: u64) -> Result<(), TestCaseError> {
    let src = program(seed);
    let prog = match saturn_prism::load_model("rand.prism", &src, &ConstOverrides::default()) {
        Ok(p) => p,
        // a generated program PRISM's checker rejects (e.g. a type error) is out of scope
        Err(_) => return Ok(()),
    };
    let model = lower(&prog).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
    // a random order
    let mut order: Vec<usize> = (0..model.vars.len()).collect();
    let mut r = Rng(order_seed | 1);
    for i in (1..order.len()).rev() {
        order.swap(i, r.below(i as u64 + 1) as usize);
    }
    let explicit = explore_general(&model, 1_000_000);
    for method in [GenMethod::Saturation, GenMethod::Chaining] {
        let symbolic = generate_general(&model, &order, method, &Limits::none());
        compare(&model, &src, method, &explicit, symbolic)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn random_programs_match_explicit(seed in any::<u64>(), order_seed in any::<u64>()) {
        check(seed, order_seed)?;
    }
}

#[test]
fn generated_programs_are_mostly_accepted_and_nontrivial() {
    let mut accepted = 0;
    let mut multi_state = 0;
    let mut errors = 0;
    let mut sizes = Vec::new();
    for seed in 1..200u64 {
        let src = program(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        if let Ok(p) = saturn_prism::load_model("r.prism", &src, &ConstOverrides::default()) {
            accepted += 1;
            if let Ok(m) = lower(&p) {
                match explore_general(&m, 100_000) {
                    Ok(ex) => {
                        sizes.push(ex.states.len());
                        if ex.states.len() > 3 {
                            multi_state += 1;
                        }
                    }
                    Err(_) => errors += 1,
                }
            }
        }
    }
    sizes.sort_unstable();
    eprintln!("accepted {accepted}, errors {errors}, sizes {sizes:?}");
    assert!(
        accepted > 150,
        "only {accepted} of 199 generated programs accepted"
    );
    assert!(
        multi_state > 60,
        "only {multi_state} generated programs have more than 3 states"
    );
}
