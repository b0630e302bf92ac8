//! The library's entry point ([`saturn_engine::statespace`]) on a few nets: the same figures
//! as the `saturn` command (`saturn statespace --order auto --json`, the same strategy) and as
//! the explicit BFS of `saturn-reference`, and the technique that gave them.
//!
//! The command is the `saturn` binary of the same target directory (`cargo build --release -p
//! saturn-cli` first; without it only the reference is compared, with a notice).

use std::path::{Path, PathBuf};
use std::process::Command;

use saturn_engine::{statespace, Answer, ExplicitMode, Limits, Options, Technique};
use saturn_model::{Model, PetriNet};

/// The portfolio's candidate models (the library leaves the lowering to its caller).
fn lower(net: &PetriNet) -> Result<Vec<Model>, String> {
    saturn_model::order::PORTFOLIO
        .iter()
        .map(|name| {
            let order = saturn_model::order::by_name(net, name)?;
            net.to_model(&order).map_err(|e| e.to_string())
        })
        .collect()
}

/// The figures as the CLI's JSON writes them (`None`: unbounded).
type Figures = Option<[String; 4]>;

fn run(net: PetriNet, opts: &Options) -> (Technique, Figures) {
    let answer = statespace(net, lower, opts, Limits::none(), None).expect("an answer");
    if let Answer::Generated { ss, model, .. } = &answer {
        assert_eq!(model.num_levels(), ss.dd.num_levels());
    }
    let figures = answer.figures().map(|f| {
        [
            f.states.to_string(),
            f.transitions.to_string(),
            f.max_local.to_string(),
            f.max_sum.to_string(),
        ]
    });
    (answer.technique(), figures)
}

fn reference(net: &PetriNet) -> Figures {
    let r = saturn_reference::explore_petri(net, 1 << 20).ok()?;
    Some([
        r.states.to_string(),
        r.transitions.to_string(),
        r.max_tokens_place.to_string(),
        r.max_tokens_marking.to_string(),
    ])
}

/// The `saturn` binary beside this test's directory (target/<profile>/saturn).
fn saturn_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?;
    let bin = dir.join(format!("saturn{}", std::env::consts::EXE_SUFFIX));
    bin.exists().then_some(bin)
}

/// `saturn statespace MODEL --order auto --json ARGS`: the figures (`None`: `+inf`).
fn command(model: &str, args: &[&str]) -> Option<Figures> {
    let Some(bin) = saturn_binary() else {
        eprintln!("notice: no saturn binary beside the tests; build saturn-cli to compare with it");
        return None;
    };
    let out = Command::new(bin)
        .args(["statespace", model, "--order", "auto", "--json"])
        .args(args)
        .output()
        .expect("saturn runs");
    assert!(
        out.status.success(),
        "{model}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let s = |k: &str| match &v[k] {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if s("states") == "+inf" {
        return Some(None);
    }
    Some(Some([
        s("states"),
        s("transitions"),
        s("max_tokens_place"),
        s("max_tokens_marking"),
    ]))
}

/// A net in PNML, written to a file of its own in the system's temporary directory.
fn pnml_file(name: &str, places: &[u64], arcs: &[(&str, &str)]) -> (PathBuf, PetriNet) {
    let mut s = format!(
        "<?xml version=\"1.0\"?>\n<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n<net id=\"{name}\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\"><page id=\"pg\">\n"
    );
    for (p, m) in places.iter().enumerate() {
        s += &format!(
            "<place id=\"p{p}\"><initialMarking><text>{m}</text></initialMarking></place>\n"
        );
    }
    let mut ts: Vec<&str> = arcs
        .iter()
        .flat_map(|(a, b)| [*a, *b])
        .filter(|x| x.starts_with('t'))
        .collect();
    ts.sort_unstable();
    ts.dedup();
    for t in ts {
        s += &format!("<transition id=\"{t}\"/>\n");
    }
    for (i, (src, tgt)) in arcs.iter().enumerate() {
        s += &format!("<arc id=\"a{i}\" source=\"{src}\" target=\"{tgt}\"/>\n");
    }
    s += "</page></net>\n</pnml>\n";
    let path =
        std::env::temp_dir().join(format!("saturn-engine-{}-{name}.pnml", std::process::id()));
    std::fs::write(&path, &s).expect("a temporary file");
    let net = saturn_pnml::read_pnml_str(&s, name).expect("the net reads");
    (path, net)
}

fn cli_net(name: &str) -> (String, PetriNet) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../cli/tests/nets")
        .join(name);
    let net = saturn_pnml::read_pnml_file(&path).expect("the net reads");
    (path.display().to_string(), net)
}

/// The library, the command and the reference agree; returns the library's technique.
fn agree(model: &str, net: PetriNet, opts: &Options, args: &[&str]) -> Technique {
    let want = reference(&net);
    let (technique, got) = run(net, opts);
    if want.is_some() {
        assert_eq!(got, want, "{model}: the library against the reference");
    }
    if let Some(cli) = command(model, args) {
        assert_eq!(got, cli, "{model}: the library against the command");
    }
    technique
}

#[test]
fn families_agree_with_the_command_and_the_reference() {
    for (family, n) in [
        ("kanban", 2),
        ("philosophers", 4),
        ("slot", 3),
        ("queens", 5),
    ] {
        let net = saturn_model::families::generate(family, n).expect("family");
        let t = agree(&format!("{family}:{n}"), net, &Options::default(), &[]);
        // which racer wins depends on the load: the symbolic generation or the explicit search
        assert!(
            matches!(t, Technique::Generation | Technique::Explicit),
            "{family}:{n}: {t:?}"
        );
    }
}

#[test]
fn the_explicit_search_alone() {
    let net = saturn_model::families::generate("philosophers", 4).expect("family");
    let opts = Options {
        explicit: ExplicitMode::Only,
        ..Options::default()
    };
    let t = agree("philosophers:4", net, &opts, &["--explicit", "only"]);
    assert_eq!(t, Technique::Explicit);
}

#[test]
fn one_order_without_racers_is_the_generation() {
    let net = saturn_model::families::generate("kanban", 2).expect("family");
    let opts = Options {
        portfolio: false,
        boundedness: false,
        scaling: false,
        polytope: false,
        explicit: ExplicitMode::Off,
        ..Options::default()
    };
    let (t, f) = run(net.clone(), &opts);
    assert_eq!(t, Technique::Generation);
    assert_eq!(f, reference(&net));
}

#[test]
fn an_unbounded_net_answers_with_its_witness() {
    let (path, net) = cli_net("unbounded.pnml");
    let answer =
        statespace(net, lower, &Options::default(), Limits::none(), None).expect("an answer");
    assert_eq!(answer.technique(), Technique::Witness);
    let Answer::Unbounded(w) = &answer else {
        panic!("not unbounded")
    };
    assert!(!w.growing.is_empty() && !w.pump.is_empty());
    assert!(answer.figures().is_none());
    if let Some(cli) = command(&path, &[]) {
        assert_eq!(cli, None, "the command says +inf too");
    }
}

#[test]
fn a_strongly_connected_state_machine_in_closed_form() {
    // a ring of three places with five tokens, and a chord
    let (path, net) = pnml_file(
        "ring",
        &[5, 0, 0],
        &[
            ("p0", "t0"),
            ("t0", "p1"),
            ("p1", "t1"),
            ("t1", "p2"),
            ("p2", "t2"),
            ("t2", "p0"),
            ("p1", "t3"),
            ("t3", "p0"),
        ],
    );
    let t = agree(&path.display().to_string(), net, &Options::default(), &[]);
    assert_eq!(t, Technique::ClosedForm);
    let _ = std::fs::remove_file(path);
}

#[test]
fn an_acyclic_chain_by_scaling() {
    // p0 -t0-> p1 -t1-> p2 with 60 tokens: polynomial figures in the scale 60
    let (path, net) = pnml_file(
        "chain",
        &[60, 0, 0],
        &[("p0", "t0"), ("t0", "p1"), ("p1", "t1"), ("t1", "p2")],
    );
    let t = agree(&path.display().to_string(), net, &Options::default(), &[]);
    assert_eq!(t, Technique::Scaling);
    let _ = std::fs::remove_file(path);
}

#[test]
fn the_reachable_states_for_formulas() {
    let net = saturn_model::families::generate("kanban", 2).expect("family");
    let models = lower(&net).expect("lowered");
    let want = reference(&net).expect("small");
    match saturn_engine::reachable(&net, &models, &Options::default(), Limits::none(), None) {
        Ok(saturn_engine::Reachable::Generated { won, ss }) => {
            assert!(won < models.len());
            assert_eq!(ss.metrics.states.to_string(), want[0]);
        }
        _ => panic!("kanban:2 is generated"),
    }
    let (_, net) = cli_net("unbounded.pnml");
    let models = lower(&net).expect("lowered");
    assert!(matches!(
        saturn_engine::reachable(&net, &models, &Options::default(), Limits::none(), None),
        Ok(saturn_engine::Reachable::Unbounded(_))
    ));
}
