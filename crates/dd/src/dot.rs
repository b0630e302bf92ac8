//! Graphviz DOT export.

use std::fmt::Write;

use crate::forest::EdgeValue;
use crate::relation::is_unprimed;
use crate::{Forest, NodeId, Reduction};

/// Indices as compact ranges: `0-3,5,7-8`.
fn index_ranges(idx: &[u32]) -> String {
    let mut s = String::new();
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && idx[j + 1] == idx[j] + 1 {
            j += 1;
        }
        if !s.is_empty() {
            s.push(',');
        }
        if j == i {
            let _ = write!(s, "{}", idx[i]);
        } else {
            let _ = write!(s, "{}-{}", idx[i], idx[j]);
        }
        i = j + 1;
    }
    s
}

pub(crate) fn escape(name: &str) -> String {
    name.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The nodes reachable from `roots`, by level (terminals at level 0).
pub(crate) fn nodes_by_level<V: EdgeValue>(
    f: &Forest<V>,
    roots: impl Iterator<Item = NodeId>,
) -> Vec<Vec<NodeId>> {
    let mut seen = hashbrown::HashSet::new();
    let mut stack: Vec<NodeId> = roots.collect();
    let mut by_level: Vec<Vec<NodeId>> = vec![Vec::new(); f.num_levels() + 1];
    while let Some(n) = stack.pop() {
        if !seen.insert(n) {
            continue;
        }
        by_level[f.level(n)].push(n);
        stack.extend(f.edges(n).iter().map(|e| e.child));
    }
    by_level
}

/// The opening lines of a DOT graph named `name`.
pub(crate) fn dot_header(name: &str) -> String {
    format!(
        "digraph {name} {{\n  node [shape=circle, fontsize=10];\n  edge [fontsize=9, arrowsize=0.6];\n"
    )
}

/// The left column of level labels (`L0` for the terminals, named `bottom`) chained
/// invisibly from the top level down.
pub(crate) fn level_column(
    out: &mut String,
    num_levels: usize,
    bottom: &str,
    name: impl Fn(usize) -> String,
) {
    for level in (0..=num_levels).rev() {
        let label = if level == 0 {
            bottom.to_string()
        } else {
            name(level)
        };
        let _ = writeln!(out, "  L{level} [shape=plaintext, label=\"{label}\"];");
    }
    let chain: Vec<String> = (0..=num_levels).rev().map(|l| format!("L{l}")).collect();
    let _ = writeln!(out, "  {} [style=invis];", chain.join(" -> "));
}

impl Forest {
    /// A readable level name: `x3` for level 3 of a set forest; `x3` and `x3'` for the
    /// unprimed level 6 and primed level 5 of a relation forest.
    pub fn level_name(&self, level: usize) -> String {
        match self.reduction() {
            Reduction::Identity if !is_unprimed(level) => format!("x{}'", level.div_ceil(2)),
            Reduction::Identity => format!("x{}", level / 2),
            _ => format!("x{level}"),
        }
    }

    /// The diagrams rooted at `roots` (named) in Graphviz DOT: one rank per level, labelled on
    /// the left; nodes labelled by their id; one arrow per (node, child) labelled with the
    /// indices leading there (as ranges); terminals drawn as boxes `0` and `1`.
    pub fn to_dot(&self, roots: &[(&str, NodeId)]) -> String {
        self.to_dot_named(roots, |l| self.level_name(l))
    }

    /// As [`Forest::to_dot`], the levels labelled by `name(level)` (the variables a caller
    /// knows: places, PRISM variables).
    pub fn to_dot_named(&self, roots: &[(&str, NodeId)], name: impl Fn(usize) -> String) -> String {
        let mut by_level = nodes_by_level(self, roots.iter().map(|&(_, n)| n));
        let mut out = dot_header("dd");
        level_column(&mut out, self.num_levels(), "terminals", |l| {
            escape(&name(l))
        });
        for level in (0..=self.num_levels()).rev() {
            let mut nodes = std::mem::take(&mut by_level[level]);
            nodes.sort_unstable();
            let _ = write!(out, "  {{ rank=same; L{level};");
            for n in &nodes {
                if n.is_terminal() {
                    let _ = write!(out, " n{} [shape=box, label=\"{}\"];", n.0, n.0);
                } else {
                    let _ = write!(out, " n{} [label=\"{}\"];", n.0, n.0);
                }
            }
            out.push_str(" }\n");
            by_level[level] = nodes;
        }
        for (name, n) in roots {
            let name = escape(name);
            let _ = writeln!(
                out,
                "  \"root {name}\" [shape=plaintext, label=\"{name}\"];\n  \"root {name}\" -> n{};",
                n.0
            );
        }
        let mut idx: Vec<u32> = Vec::new();
        for level in (1..=self.num_levels()).rev() {
            for &n in &by_level[level] {
                let mut es = self.edges(n).to_vec();
                es.sort_unstable_by_key(|e| (e.child, e.idx));
                let mut i = 0;
                while i < es.len() {
                    let c = es[i].child;
                    idx.clear();
                    while i < es.len() && es[i].child == c {
                        idx.push(es[i].idx);
                        i += 1;
                    }
                    let _ = writeln!(
                        out,
                        "  n{} -> n{} [label=\"{}\"];",
                        n.0,
                        c.0,
                        index_ranges(&idx)
                    );
                }
            }
        }
        out.push_str("}\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::index_ranges;

    #[test]
    fn ranges() {
        assert_eq!(index_ranges(&[0, 1, 2, 3, 5, 7, 8]), "0-3,5,7-8");
        assert_eq!(index_ranges(&[4]), "4");
        assert_eq!(index_ranges(&[]), "");
    }
}
