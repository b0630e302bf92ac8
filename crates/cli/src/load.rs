//! Finding and reading a model: a file, `-` (standard input), a contest directory holding
//! `model.pnml`, or a generated instance `family:N`. PNML is recognised by its content (an XML
//! document), not by the file's extension.

use std::io::Read;
use std::path::Path;

use anyhow::Context;
use saturn_model::PetriNet;

use crate::args::OrderArg;
use crate::report::Failure;

/// A model's text as read, with the name used in messages.
pub struct Input {
    /// The file name (or `<stdin>`), as errors cite it.
    pub name: String,
    pub bytes: Vec<u8>,
    /// A contest directory (the model is its `model.pnml`).
    pub contest_dir: bool,
}

impl Input {
    pub fn is_pnml(&self) -> bool {
        saturn_pnml::looks_like_pnml(&self.bytes)
    }
}

/// Read the model named `spec` (`-` for stdin); `None` when no such file or directory exists.
pub fn read_input(spec: &str) -> anyhow::Result<Option<Input>> {
    if spec == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::error(format!("cannot read standard input: {e}")))?;
        return Ok(Some(Input {
            name: "<stdin>".into(),
            bytes,
            contest_dir: false,
        }));
    }
    let path = Path::new(spec);
    let (file, contest_dir) = if path.is_dir() {
        let file = path.join("model.pnml");
        if !file.is_file() {
            return Err(
                Failure::error(format!("{}: directory has no model.pnml", path.display())).into(),
            );
        }
        (file, true)
    } else if path.exists() {
        (path.to_path_buf(), false)
    } else {
        return Ok(None);
    };
    let name = file.display().to_string();
    let bytes =
        std::fs::read(&file).map_err(|e| Failure::error(format!("cannot read {name}: {e}")))?;
    Ok(Some(Input {
        name,
        bytes,
        contest_dir,
    }))
}

/// Load the Petri net named by `spec`: a PNML file, `-`, a contest directory, or (when no such
/// path exists) a generated family instance `family:N`, e.g. `kanban:10`. Also says whether it
/// came from a contest directory. Reader errors keep their type ([`saturn_pnml::PnmlError`]).
pub fn load_net(spec: &str) -> anyhow::Result<(PetriNet, bool)> {
    if let Some(input) = read_input(spec)? {
        if !input.is_pnml() {
            return Err(Failure::error(format!(
                "{}: not a PNML net (it does not start with '<'); state spaces are computed for Petri nets, and PRISM models are only checked (`saturn parse`) today",
                input.name
            ))
            .into());
        }
        let net = saturn_pnml::read_pnml_bytes_within(
            &input.bytes,
            &input.name,
            saturn_model::petri::MAX_TOKENS,
        )?;
        return Ok((net, input.contest_dir));
    }
    if let Some((fam, n)) = spec.split_once(':') {
        if saturn_model::families::FAMILIES.contains(&fam) {
            let n: u32 = n
                .parse()
                .with_context(|| format!("{spec}: '{n}' is not a valid size N"))?;
            return Ok((saturn_model::families::generate(fam, n)?, false));
        }
    }
    Err(Failure::error(format!(
        "{spec}: no such file or directory (nor a generated model `family:N` with family one of {})",
        saturn_model::families::FAMILIES.join(", ")
    ))
    .into())
}

/// The share of `--timeout` the orders of `auto` may take (the heuristics then return what
/// they have), and their time without a timeout, in seconds.
const ORDER_TIME_SHARE: u64 = 6;
const ORDER_TIME_CAP: u64 = 60;

/// The models to try for `order`: one model, or for `auto` one per candidate order
/// ([`saturn_model::order::auto_orders`], within a sixth of `timeout` seconds). Each comes with
/// its order's name.
pub fn lower(
    net: &PetriNet,
    order: OrderArg,
    timeout: Option<u64>,
) -> anyhow::Result<Vec<(String, saturn_model::Model)>> {
    let orders = if order == OrderArg::Auto {
        let secs = timeout.map_or(ORDER_TIME_CAP, |t| (t / ORDER_TIME_SHARE).max(1));
        let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        saturn_model::order::auto_orders(net, &|| std::time::Instant::now() > until)
    } else {
        let n = order.name();
        let ord = saturn_model::order::by_name(net, n)
            .map_err(|e| anyhow::anyhow!("--order {n}: {e}"))?;
        vec![(n.to_string(), ord)]
    };
    orders
        .into_iter()
        .map(|(n, ord)| Ok((n, net.to_model(&ord)?)))
        .collect()
}

/// The process's peak resident set size in bytes (`VmHWM`), if the OS reports it.
pub fn peak_memory_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
