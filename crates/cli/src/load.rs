//! Finding and loading a Petri net: a PNML file, an MCC model directory, or `family:N`.

use std::path::Path;

use anyhow::{bail, Context};
use saturn_model::PetriNet;

/// Load the net named by `spec`: an existing PNML file, a directory holding `model.pnml`, or
/// (when no such path exists) a generated family instance written `family:N`, e.g. `kanban:10`.
pub fn load_net(spec: &str) -> anyhow::Result<PetriNet> {
    let path = Path::new(spec);
    if path.is_dir() {
        let file = path.join("model.pnml");
        if !file.is_file() {
            bail!("{}: directory has no model.pnml", path.display());
        }
        return Ok(saturn_pnml::reader::read_pnml_file(&file)?);
    }
    if path.exists() {
        return Ok(saturn_pnml::reader::read_pnml_file(path)?);
    }
    if let Some((fam, n)) = spec.split_once(':') {
        if saturn_model::families::FAMILIES.contains(&fam) {
            let n: u32 = n
                .parse()
                .with_context(|| format!("{spec}: '{n}' is not a valid size N"))?;
            return Ok(saturn_model::families::generate(fam, n)?);
        }
    }
    bail!("{spec}: no such file or directory (nor a generated model `family:N` with family one of {})",
        saturn_model::families::FAMILIES.join(", "))
}

/// The models to try for the order named `name`: one model, or for `auto` one per candidate
/// order. Each comes with its order's name.
pub fn lower(net: &PetriNet, name: &str) -> anyhow::Result<Vec<(String, saturn_model::Model)>> {
    let names: Vec<&str> = if name == "auto" {
        saturn_model::order::PORTFOLIO.to_vec()
    } else {
        vec![name]
    };
    let mut out = Vec::new();
    for n in names {
        let ord = saturn_model::order::by_name(net, n)
            .map_err(|e| anyhow::anyhow!("--order '{name}': {e} (or auto)"))?;
        out.push((n.to_string(), net.to_model(&ord)?));
    }
    Ok(out)
}

/// The process's peak resident set size in bytes (`VmHWM`), if the OS reports it.
pub fn peak_memory_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
