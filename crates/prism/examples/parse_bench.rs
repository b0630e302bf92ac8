//! Throughput of the PRISM front-end on large synthetic inputs.
//!
//! `cargo run --release -p saturn-prism --example parse_bench [modules]`
//! Generates a model with `modules` modules (default 3000; about 5 MB) and a property file,
//! then reports MB/s for parsing, checking and printing.

use std::fmt::Write;
use std::time::Instant;

use saturn_prism::{check_model, parse_model, parse_properties, ConstOverrides};

fn model(n: usize) -> String {
    let mut s = String::from(
        "// synthetic benchmark model\nctmc\nconst int N = 20;\nconst double r = 1/3;\n",
    );
    for i in 0..n {
        let _ = writeln!(s, "formula f{i} = x{i} > N / 2 & (x{i} < N - 1 | b{i});");
        let _ = writeln!(
            s,
            "module m{i}\n  x{i} : [0..N] init floor(N / 2);\n  b{i} : bool init false;"
        );
        for k in 0..6 {
            let prev = if i == 0 { n - 1 } else { i - 1 };
            let _ = writeln!(
                s,
                "  [a{i}_{k}] x{i} < N & (x{prev} >= {k} | !b{i}) -> r * (x{i} + {k}) : (x{i}'=min(N, x{i} + 1)) & (b{i}'=!b{i}) + 0.5 * max(1, x{i}) : (x{i}'=x{i} > 0 ? x{i} - 1 : 0);"
            );
        }
        let _ = writeln!(s, "  [] f{i} -> pow(2, 3) / 8 : true;\nendmodule");
        let _ = writeln!(s, "label \"l{i}\" = x{i} = N & !b{i};");
    }
    s.push_str("rewards \"r\"\n");
    for i in 0..n {
        let _ = writeln!(s, "  [a{i}_0] true : 1;\n  x{i} > 0 : x{i} / N;");
    }
    s.push_str("endrewards\n");
    s
}

fn props(n: usize) -> String {
    let mut s = String::from("const double T = 10;\n");
    for i in 0..n {
        let _ = writeln!(s, "\"p{i}\": P=? [ !\"l{i}\" U<=T*2 (x{i} = 0 & b{i}) ];");
        let _ = writeln!(s, "R{{\"r\"}}=? [ C<=T ];\nfilter(max, S=? [ x{i} > 1 ], \"init\");\nP>=0.5 [ F<=T x{i} = 3 ] => \"p{i}\" > 0.1;");
    }
    s
}

fn mbps(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / 1e6 / secs
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3000);
    let src = model(n);
    let mb = src.len() as f64 / 1e6;
    let t = Instant::now();
    let ast = parse_model("bench.prism", &src).expect("synthetic model parses");
    let parse = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let prog = check_model(&ast, &ConstOverrides::default()).expect("synthetic model checks");
    let check = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let printed = ast.to_string();
    let print = t.elapsed().as_secs_f64();
    println!(
        "model: {mb:.2} MB, {n} modules, {} commands",
        prog.modules.iter().map(|m| m.commands.len()).sum::<usize>()
    );
    println!("  parse  {parse:.3} s  {:.1} MB/s", mbps(src.len(), parse));
    println!("  check  {check:.3} s  {:.1} MB/s", mbps(src.len(), check));
    println!(
        "  print  {print:.3} s  {:.1} MB/s ({} bytes printed)",
        mbps(src.len(), print),
        printed.len()
    );

    let psrc = props(n);
    let t = Instant::now();
    let pf = parse_properties("bench.props", &psrc, &prog).expect("synthetic properties check");
    let ptime = t.elapsed().as_secs_f64();
    println!(
        "properties: {:.2} MB, {} properties, parse+check {ptime:.3} s  {:.1} MB/s",
        psrc.len() as f64 / 1e6,
        pf.properties.len(),
        mbps(psrc.len(), ptime)
    );
}
