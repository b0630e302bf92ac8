//! Throughput and memory of the formula XML reader on a large synthetic file.
//!
//! `cargo run --release -p saturn-pnml --example formula_bench -- [MB] [file]` writes a synthetic
//! contest-style formula file of about MB megabytes (default 20) to `file` (default in the temp
//! dir), then reads it with `read_formulas_file` and prints MB/s and the peak resident memory
//! (`VmHWM`) before and after. The generator streams to disk, so it does not raise the peak.

use std::io::Write;
use std::time::Instant;

use saturn_model::{PetriNet, Place, Transition};

/// A small deterministic pseudo-random generator (xorshift).
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
}

const PLACES: u64 = 500;
const TRANSITIONS: u64 = 500;

fn formula(w: &mut impl Write, r: &mut Rng, depth: u32, indent: usize) -> std::io::Result<()> {
    let pad = " ".repeat(indent);
    let leaf = depth == 0 || r.below(4) == 0;
    if leaf {
        if r.below(2) == 0 {
            writeln!(w, "{pad}<is-fireable>")?;
            for _ in 0..1 + r.below(8) {
                writeln!(
                    w,
                    "{pad}  <transition>t-{}</transition>",
                    r.below(TRANSITIONS)
                )?;
            }
            return writeln!(w, "{pad}</is-fireable>");
        }
        writeln!(w, "{pad}<integer-le>")?;
        for _ in 0..2 {
            if r.below(2) == 0 {
                writeln!(
                    w,
                    "{pad}  <integer-constant>{}</integer-constant>",
                    r.below(10)
                )?;
            } else {
                writeln!(w, "{pad}  <tokens-count>")?;
                for _ in 0..1 + r.below(4) {
                    writeln!(w, "{pad}    <place>p-{}</place>", r.below(PLACES))?;
                }
                writeln!(w, "{pad}  </tokens-count>")?;
            }
        }
        return writeln!(w, "{pad}</integer-le>");
    }
    let (open, close, kids): (&str, &str, u32) = match r.below(9) {
        0 => ("<negation>", "</negation>", 1),
        1 => ("<conjunction>", "</conjunction>", 2),
        2 => ("<disjunction>", "</disjunction>", 2),
        3 => ("<exists-path><finally>", "</finally></exists-path>", 1),
        4 => ("<all-paths><globally>", "</globally></all-paths>", 1),
        5 => ("<exists-path><next>", "</next></exists-path>", 1),
        6 => ("<all-paths><finally>", "</finally></all-paths>", 1),
        7 => ("<exists-path><globally>", "</globally></exists-path>", 1),
        _ => {
            writeln!(w, "{pad}<all-paths><until><before>")?;
            formula(w, r, depth - 1, indent + 2)?;
            writeln!(w, "{pad}</before><reach>")?;
            formula(w, r, depth - 1, indent + 2)?;
            return writeln!(w, "{pad}</reach></until></all-paths>");
        }
    };
    writeln!(w, "{pad}{open}")?;
    for _ in 0..kids {
        formula(w, r, depth - 1, indent + 2)?;
    }
    writeln!(w, "{pad}{close}")
}

fn vm_hwm_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let mb: f64 = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(20.0);
    let path = args
        .get(2)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("saturn-formula-bench.xml"));
    let target = (mb * 1e6) as u64;
    {
        let file = std::fs::File::create(&path)?;
        let mut w = std::io::BufWriter::new(file);
        writeln!(
            w,
            "<?xml version=\"1.0\"?>\n<property-set xmlns=\"http://mcc.lip6.fr/\">"
        )?;
        let mut r = Rng(0x9E37_79B9_7F4A_7C15);
        let mut k = 0;
        while w.get_ref().metadata()?.len() < target {
            writeln!(w, "  <property>\n    <id>Synthetic-{k:06}</id>\n    <description>synthetic</description>\n    <formula>")?;
            formula(&mut w, &mut r, 8, 6)?;
            writeln!(w, "    </formula>\n  </property>")?;
            k += 1;
            if k % 64 == 0 {
                w.flush()?;
            }
        }
        writeln!(w, "</property-set>")?;
    }
    let bytes = std::fs::metadata(&path)?.len();
    let place = |i: u64| Place {
        id: format!("p-{i}"),
        name: String::new(),
        initial: 0,
    };
    let tr = |i: u64| Transition {
        id: format!("t-{i}"),
        ..Default::default()
    };
    let net = PetriNet {
        name: "bench".into(),
        places: (0..PLACES).map(place).collect(),
        transitions: (0..TRANSITIONS).map(tr).collect(),
    };
    let before = vm_hwm_kb().unwrap_or(0);
    let t = Instant::now();
    let fs = saturn_pnml::formulas::read_formulas_file(&path, &net)?;
    let secs = t.elapsed().as_secs_f64();
    let after = vm_hwm_kb().unwrap_or(0);
    let t = Instant::now();
    let printed: usize = fs.iter().map(|f| f.query.to_string().len()).sum();
    let print_secs = t.elapsed().as_secs_f64();
    let mbs = bytes as f64 / 1e6;
    println!(
        "file: {} ({mbs:.1} MB, {} formulas)",
        path.display(),
        fs.len()
    );
    println!("read + resolve: {secs:.3} s = {:.1} MB/s", mbs / secs);
    println!(
        "peak RSS (VmHWM): {:.1} MB before reading, {:.1} MB after = {:.2} x file size",
        before as f64 / 1024.0,
        after as f64 / 1024.0,
        after as f64 * 1024.0 / bytes as f64
    );
    println!(
        "print all: {print_secs:.3} s ({:.1} MB of text)",
        printed as f64 / 1e6
    );
    Ok(())
}
