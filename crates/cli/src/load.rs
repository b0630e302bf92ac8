//! Finding and reading a model: a file, `-` (standard input), a contest directory holding
//! `model.pnml`, or a generated instance `family:N`. PNML is recognised by its content (an XML
//! document); a PRISM model by its extension (`.prism`, `.sm`, `.pm`, `.nm`) or as any other
//! text.

use std::io::{BufRead, Read};
use std::path::Path;

use anyhow::Context;
use saturn_model::PetriNet;

use crate::args::{Grouping, OrderArg};
use crate::report::Failure;

/// A model as opened: its first bytes, read to recognise the format, and the rest unread (a
/// PNML net is then streamed to the reader, never held whole in memory).
pub struct Input {
    /// The file name (or `<stdin>`), as errors cite it.
    pub name: String,
    /// The content read so far: up to its first non-blank byte, or all of it after
    /// [`Input::read_all`].
    pub bytes: Vec<u8>,
    rest: Box<dyn Read>,
    /// A contest directory (the model is its `model.pnml`).
    pub contest_dir: bool,
}

/// File extensions of PRISM models (`.sm` CTMCs, `.pm` DTMCs, `.nm` MDPs, `.prism`).
const PRISM_EXTENSIONS: [&str; 4] = ["prism", "sm", "pm", "nm"];

impl Input {
    /// Read the start of `rest`: up to its first non-blank byte (after a byte-order mark).
    fn open(name: String, mut rest: Box<dyn Read>, contest_dir: bool) -> anyhow::Result<Input> {
        const BOM: &[u8] = b"\xEF\xBB\xBF";
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let n = match rest.read(&mut chunk) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Failure::error(format!("cannot read {name}: {e}")).into()),
            };
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&chunk[..n]);
            let partial_bom = bytes.len() < BOM.len() && BOM.starts_with(&bytes);
            let body = bytes.strip_prefix(BOM).unwrap_or(&bytes);
            if !partial_bom && body.iter().any(|c| !c.is_ascii_whitespace()) {
                break;
            }
        }
        Ok(Input {
            name,
            bytes,
            rest,
            contest_dir,
        })
    }

    pub fn is_pnml(&self) -> bool {
        saturn_pnml::looks_like_pnml(&self.bytes)
    }

    /// The whole content, as a stream (what was read to recognise it, then the rest).
    pub fn into_reader(self) -> impl BufRead {
        std::io::BufReader::with_capacity(
            1 << 16,
            std::io::Cursor::new(self.bytes).chain(self.rest),
        )
    }

    /// Read the rest of the content into [`Input::bytes`] (for front-ends that parse text).
    pub fn read_all(&mut self) -> anyhow::Result<()> {
        self.rest
            .read_to_end(&mut self.bytes)
            .map_err(|e| Failure::error(format!("cannot read {}: {e}", self.name)))?;
        Ok(())
    }

    /// Read the PNML net, streamed; numbers above `MAX_TOKENS` are refused.
    pub fn read_net(self) -> Result<PetriNet, saturn_pnml::PnmlError> {
        let name = self.name.clone();
        saturn_pnml::read_pnml_within(self.into_reader(), &name, saturn_model::petri::MAX_TOKENS)
    }

    /// A PRISM model: a file with a PRISM extension, or any text that is not PNML.
    pub fn is_prism(&self) -> bool {
        let ext = Path::new(&self.name)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        ext.is_some_and(|e| PRISM_EXTENSIONS.contains(&e.as_str())) || !self.is_pnml()
    }
}

/// Open the model named `spec` (`-` for stdin); `None` when no such file or directory exists.
pub fn read_input(spec: &str) -> anyhow::Result<Option<Input>> {
    if spec == "-" {
        return Input::open("<stdin>".into(), Box::new(std::io::stdin()), false).map(Some);
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
    let f = std::fs::File::open(&file)
        .map_err(|e| Failure::error(format!("cannot read {name}: {e}")))?;
    Input::open(name, Box::new(f), contest_dir).map(Some)
}

/// Load the Petri net named by `spec`: a PNML file, `-`, a contest directory, or (when no such
/// path exists) a generated family instance `family:N`, e.g. `kanban:10`. Also says whether it
/// came from a contest directory. Reader errors keep their type ([`saturn_pnml::PnmlError`]).
pub fn load_net(spec: &str) -> anyhow::Result<(PetriNet, bool)> {
    if let Some(input) = read_input(spec)? {
        return net_of(input);
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

/// The Petri net of an input read by [`read_input`], and whether it came from a contest
/// directory.
pub fn net_of(input: Input) -> anyhow::Result<(PetriNet, bool)> {
    if !input.is_pnml() {
        return Err(Failure::error(format!(
            "{}: not a PNML net (it does not start with '<'); this command takes Petri nets, and PRISM models are read by `saturn statespace` and `saturn parse`",
            input.name
        ))
        .into());
    }
    let contest_dir = input.contest_dir;
    Ok((input.read_net()?, contest_dir))
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
    lower_levels(net, order, timeout, Grouping::Never)
}

/// [`lower`], with each one-hot group of places on one level as `grouping` says, when the net
/// has some ([`saturn_model::OneHot`]; the orders are then orders of the groups and the other
/// places). A formula's atoms read a group's places off its level ([`saturn_model::Level::group`]);
/// witnesses and the LTL products name places and keep one place per level. Under
/// [`Grouping::Auto`] the portfolio may get both encodings: the models with one place per
/// level first, then the grouped ones, named `ORDER+groups`.
pub fn lower_levels(
    net: &PetriNet,
    order: OrderArg,
    timeout: Option<u64>,
    grouping: Grouping,
) -> anyhow::Result<Vec<(String, saturn_model::Model)>> {
    let groups = grouping != Grouping::Never;
    let secs = timeout.map_or(ORDER_TIME_CAP, |t| (t / ORDER_TIME_SHARE).max(1));
    let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let stop = || std::time::Instant::now() > until;
    // the P-semiflows are computed once: for the groups, and for the orders of `auto` (on the
    // quotient, each support as the set of its units)
    let supports = (groups || order == OrderArg::Auto)
        .then(|| saturn_model::order::semiflow_supports(net, &stop));
    let one_hot = supports
        .as_ref()
        .filter(|_| groups)
        .map(|s| saturn_model::OneHot::find(net, s))
        .filter(|g| !g.groups.is_empty());
    let (places, grouped) = match &one_hot {
        None => (true, false),
        Some(g) => match grouping.encodings(net.places.len(), g) {
            Encodings::Places => (true, false),
            Encodings::Groups => (false, true),
            Encodings::Both => (true, true),
        },
    };
    // the supports as sets of groups first: the places' orders then take the supports
    let units = supports
        .as_ref()
        .zip(one_hot.as_ref())
        .map(|(s, g)| g.units_of(s));
    let mut out = Vec::new();
    if places {
        for (n, ord) in orders_for(net, order, supports, &stop)? {
            out.push((n, net.to_model(&ord)?));
        }
    }
    if let (true, Some(g)) = (grouped, &one_hot) {
        let quotient = g.quotient(net);
        for (n, ord) in orders_for(&quotient, order, units, &stop)? {
            let name = if places { format!("{n}+groups") } else { n };
            out.push((name, g.to_model(net, &ord)?));
        }
    }
    Ok(out)
}

/// Which encodings of a net with one-hot groups the portfolio gets.
pub(crate) enum Encodings {
    Places,
    Groups,
    Both,
}

impl Grouping {
    /// The encodings for a net of `places` places whose one-hot groups are `g`.
    pub(crate) fn encodings(self, places: usize, g: &saturn_model::OneHot) -> Encodings {
        let grouped: usize = g.groups.iter().map(Vec::len).sum();
        match self {
            Grouping::Never => Encodings::Places,
            Grouping::Always => Encodings::Groups,
            Grouping::Auto if 2 * g.units() <= places => Encodings::Groups,
            Grouping::Auto if 5 * grouped >= places => Encodings::Both,
            Grouping::Auto => Encodings::Places,
        }
    }
}

/// The orders of `net` for `order`: for `auto`, the portfolio's candidates computed with the
/// P-semiflow supports `semiflows` (when computed); otherwise the one order named.
fn orders_for(
    net: &PetriNet,
    order: OrderArg,
    semiflows: Option<Vec<Vec<usize>>>,
    stop: &dyn Fn() -> bool,
) -> anyhow::Result<Vec<(String, Vec<usize>)>> {
    if order == OrderArg::Auto {
        let mut hg = saturn_model::order::Hypergraph::of_net(net);
        hg.semiflows = semiflows.unwrap_or_default();
        Ok(saturn_model::order::auto_orders_of(&hg, stop))
    } else {
        let n = order.name();
        let ord = saturn_model::order::by_name(net, n)
            .map_err(|e| anyhow::anyhow!("--order {n}: {e}"))?;
        Ok(vec![(n.to_string(), ord)])
    }
}

/// The process's peak resident set size in bytes (`VmHWM`), if the OS reports it.
pub fn peak_memory_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The `peak memory:` line of the text output.
pub fn peak_memory_line(peak: Option<u64>) -> String {
    match peak {
        Some(b) => format!("peak memory: {:.1} MiB", b as f64 / (1024.0 * 1024.0)),
        None => "peak memory: unknown".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use saturn_model::{Arc, Place, Transition};

    /// A process (idle, wait, crit: one one-hot group of three places) beside two pairs of
    /// places that pass two tokens back and forth: 7 places, 5 units. The group holds more than
    /// a fifth of the places but does not halve the levels.
    fn process_and_pairs() -> PetriNet {
        let place = |id: &str, initial| Place {
            id: id.into(),
            name: id.into(),
            initial,
        };
        let arc = |place| Arc { place, weight: 1 };
        let move_ = |id: &str, inputs: Vec<usize>, outputs: Vec<usize>| Transition {
            id: id.into(),
            name: id.into(),
            inputs: inputs.into_iter().map(arc).collect(),
            outputs: outputs.into_iter().map(arc).collect(),
            inhibitors: Vec::new(),
        };
        let places = [
            ("idle", 1),
            ("wait", 0),
            ("crit", 0),
            ("a", 2),
            ("b", 0),
            ("c", 2),
            ("d", 0),
        ];
        PetriNet {
            name: "race".into(),
            places: places.iter().map(|&(id, m)| place(id, m)).collect(),
            transitions: vec![
                move_("ask", vec![0], vec![1]),
                move_("enter", vec![1, 3], vec![2, 4]),
                move_("leave", vec![2], vec![0]),
                move_("back", vec![4], vec![3]),
                move_("cd", vec![5], vec![6]),
                move_("dc", vec![6, 2], vec![5, 2]),
            ],
        }
    }

    /// Per candidate: its name, its levels and how many hold a group.
    fn candidates(grouping: Grouping) -> Vec<(String, usize, usize)> {
        let net = process_and_pairs();
        lower_levels(&net, OrderArg::Auto, None, grouping)
            .expect("lowered")
            .into_iter()
            .map(|(n, m)| {
                let one_hot = m.levels.iter().filter(|l| l.one_hot).count();
                (n, m.levels.len(), one_hot)
            })
            .collect()
    }

    #[test]
    fn auto_races_both_encodings_between_a_fifth_and_a_half() {
        let both = candidates(Grouping::Auto);
        let (grouped, places): (Vec<_>, Vec<_>) =
            both.iter().partition(|(n, _, _)| n.ends_with("+groups"));
        assert!(!places.is_empty() && !grouped.is_empty(), "{both:?}");
        // one place per level first, then the grouped models
        assert!(!both[0].0.ends_with("+groups"), "{both:?}");
        assert!(
            places.iter().all(|&&(_, l, g)| (l, g) == (7, 0)),
            "{both:?}"
        );
        assert!(
            grouped.iter().all(|&&(_, l, g)| (l, g) == (5, 1)),
            "{both:?}"
        );
        let never = candidates(Grouping::Never);
        assert!(never
            .iter()
            .all(|(n, l, g)| !n.ends_with("+groups") && (*l, *g) == (7, 0)));
        let always = candidates(Grouping::Always);
        assert!(always
            .iter()
            .all(|(n, l, g)| !n.ends_with("+groups") && (*l, *g) == (5, 1)));
    }
}
