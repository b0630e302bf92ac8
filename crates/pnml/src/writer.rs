//! PNML writer: emits a net in the layout of the Model Checking Contest's files (PNML 2009,
//! `ptnet` type, one page), so that [`crate::read_pnml_str`] reads it back identically.
//!
//! Inhibitor arcs are written with the PNML 2009 special-arcs extension
//! (`<type value="inhibitor"/>`); the net type is then `inhibitorptnet`.

use std::fmt::Write;

use saturn_model::PetriNet;

const NS: &str = "http://www.pnml.org/version-2009/grammar/pnml";
const PTNET: &str = "http://www.pnml.org/version-2009/grammar/ptnet";
const INHIBITOR_PTNET: &str = "http://www.pnml.org/version-2009/extensions/inhibitorptnet";

/// Write `net` as a PNML document.
///
/// Arc ids are `a<k>` numbered in output order; if a node id already has that form the
/// numbering skips it, so ids stay unique. Node ids must be unique (the reader checks it).
///
/// The reader gives back an equal net when names are non-empty and carry no leading or
/// trailing white space (it trims names and uses the id for an empty one), the net name is
/// non-empty, arcs of one kind are not repeated between the same place and transition (it
/// merges them), and no text holds characters XML 1.0 cannot represent (control characters
/// other than tab, line feed and carriage return).
pub fn write_pnml(net: &PetriNet) -> String {
    let has_inhibitors = net.transitions.iter().any(|t| !t.inhibitors.is_empty());
    let ty = if has_inhibitors {
        INHIBITOR_PTNET
    } else {
        PTNET
    };
    let net_id = if net.name.is_empty() {
        "net"
    } else {
        net.name.as_str()
    };
    let mut s = String::with_capacity(256 + 128 * (net.places.len() + net.transitions.len()));
    // Writing into a String cannot fail: the results of `write!` are ignored below.
    let _ = writeln!(s, "<?xml version=\"1.0\"?>");
    let _ = writeln!(s, "<pnml xmlns=\"{NS}\">");
    let _ = writeln!(s, "  <net id=\"{}\" type=\"{ty}\">", esc(net_id));
    let _ = writeln!(
        s,
        "    <name>\n      <text>{}</text>\n    </name>",
        esc(&net.name)
    );
    let _ = writeln!(s, "    <page id=\"{}\">", esc(&fresh_id(net, "page0")));
    for p in &net.places {
        let _ = writeln!(s, "      <place id=\"{}\">", esc(&p.id));
        let _ = writeln!(
            s,
            "        <name>\n          <text>{}</text>\n        </name>",
            esc(&p.name)
        );
        if p.initial != 0 {
            let _ = writeln!(
                s,
                "        <initialMarking>\n          <text>{}</text>\n        </initialMarking>",
                p.initial
            );
        }
        let _ = writeln!(s, "      </place>");
    }
    for t in &net.transitions {
        let _ = writeln!(s, "      <transition id=\"{}\">", esc(&t.id));
        let _ = writeln!(
            s,
            "        <name>\n          <text>{}</text>\n        </name>",
            esc(&t.name)
        );
        let _ = writeln!(s, "      </transition>");
    }
    let ids: std::collections::HashSet<&str> = net
        .places
        .iter()
        .map(|p| p.id.as_str())
        .chain(net.transitions.iter().map(|t| t.id.as_str()))
        .collect();
    let mut next_arc = 0usize;
    let mut arc_id = || loop {
        let id = format!("a{next_arc}");
        next_arc += 1;
        if !ids.contains(id.as_str()) {
            return id;
        }
    };
    for t in &net.transitions {
        let groups = [
            (&t.inputs, "in"),
            (&t.inhibitors, "inh"),
            (&t.outputs, "out"),
        ];
        for (arcs, kind) in groups {
            for a in arcs {
                let Some(place) = net.places.get(a.place) else {
                    continue;
                };
                let (src, tgt) = if kind == "out" {
                    (&t.id, &place.id)
                } else {
                    (&place.id, &t.id)
                };
                let _ = write!(
                    s,
                    "      <arc id=\"{}\" source=\"{}\" target=\"{}\">",
                    arc_id(),
                    esc(src),
                    esc(tgt)
                );
                if kind == "inh" {
                    let _ = write!(s, "\n        <type value=\"inhibitor\"/>");
                }
                if a.weight != 1 || kind == "inh" {
                    let _ = write!(
                        s,
                        "\n        <inscription>\n          <text>{}</text>\n        </inscription>",
                        a.weight
                    );
                }
                let _ = writeln!(s, "\n      </arc>");
            }
        }
    }
    let _ = writeln!(s, "    </page>");
    let _ = writeln!(s, "  </net>");
    let _ = writeln!(s, "</pnml>");
    s
}

/// `base`, or `base_1`, `base_2`, ... whichever is not a node id of `net`.
fn fresh_id(net: &PetriNet, base: &str) -> String {
    let taken = |id: &str| {
        net.places.iter().any(|p| p.id == id) || net.transitions.iter().any(|t| t.id == id)
    };
    let mut id = base.to_string();
    let mut k = 0;
    while taken(&id) {
        k += 1;
        id = format!("{base}_{k}");
    }
    id
}

/// Escape text for use in XML content and attribute values.
fn esc(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"', '\'', '\r', '\n', '\t']) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}
