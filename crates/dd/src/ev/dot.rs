//! Graphviz DOT export of edge-valued diagrams.

use std::fmt::Write;

use super::{Ev, EvForest, EvValue};
use crate::dot::{dot_header, escape, level_column, nodes_by_level};
use crate::relation::is_unprimed;
use crate::NodeId;

impl<V: EvValue> EvForest<V> {
    /// A readable level name: `x3` for level 3 of a vector forest; `x3` and `x3'` for the
    /// row level 6 and column level 5 of a matrix forest.
    pub fn level_name(&self, level: usize) -> String {
        if !self.is_interleaved() {
            format!("x{level}")
        } else if !is_unprimed(level) {
            format!("x{}'", level.div_ceil(2))
        } else {
            format!("x{}", level / 2)
        }
    }

    /// The diagrams rooted at `roots` (named) in Graphviz DOT: one rank per level, labelled on
    /// the left; nodes labelled by their id; one arrow per stored edge labelled `index:value`;
    /// each root's dangling edge labelled with its value; the terminal `Ω` drawn as a box
    /// (default edges are not drawn; a default root points to a box `∅`).
    pub fn to_dot(&self, roots: &[(&str, Ev<V>)]) -> String {
        let mut by_level = nodes_by_level(&self.f, roots.iter().map(|(_, f)| f.node));
        let mut out = dot_header("ev");
        level_column(&mut out, self.num_levels(), "terminal", |l| {
            self.level_name(l)
        });
        for (level, nodes) in by_level.iter_mut().enumerate().rev() {
            nodes.sort_unstable();
            let _ = write!(out, "  {{ rank=same; L{level};");
            for n in nodes.iter() {
                match *n {
                    NodeId::ONE => {
                        let _ = write!(out, " n1 [shape=box, label=\"Ω\"];");
                    }
                    NodeId::EMPTY => {
                        let _ = write!(out, " n0 [shape=box, label=\"∅\"];");
                    }
                    n => {
                        let _ = write!(out, " n{} [label=\"{}\"];", n.0, n.0);
                    }
                }
            }
            out.push_str(" }\n");
        }
        for (name, f) in roots {
            let name = escape(name);
            let _ = writeln!(
                out,
                "  \"root {name}\" [shape=plaintext, label=\"{name}\"];\n  \"root {name}\" -> n{} [label=\"{}\"];",
                f.node.0,
                f.val.label()
            );
        }
        for nodes in by_level.iter().skip(1).rev() {
            for &n in nodes {
                for e in self.edges(n) {
                    let _ = writeln!(
                        out,
                        "  n{} -> n{} [label=\"{}:{}\"];",
                        n.0,
                        e.child.0,
                        e.idx,
                        e.val.label()
                    );
                }
            }
        }
        out.push_str("}\n");
        out
    }
}
