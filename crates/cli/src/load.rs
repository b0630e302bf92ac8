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

/// The variable order named `name` for `net`, lowered to a model.
pub fn lower(net: &PetriNet, order: &str) -> anyhow::Result<saturn_model::Model> {
    let ord = saturn_model::order::by_name(net, order).map_err(anyhow::Error::msg)?;
    Ok(net.to_model(&ord)?)
}

/// The process's peak resident set size in bytes (`VmHWM`), if the OS reports it.
pub fn peak_memory_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
