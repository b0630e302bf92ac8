//! The previous PNML reader (a `roxmltree` DOM of the whole file), kept only as a test
//! oracle: the streaming reader must accept and refuse the same documents, with the same nets
//! and the same errors (syntax-error messages and positions aside).
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use roxmltree::{Document, Node};
use saturn_model::{Arc, PetriNet, Place, Transition};
use saturn_pnml::{Location, PnmlError};

/// Where roxmltree found a syntax error (positions of syntax errors are not compared).
fn xml_error(e: &roxmltree::Error, source: &str) -> PnmlError {
    PnmlError::Xml {
        at: Location {
            source: source.to_string(),
            line: e.pos().row,
            column: e.pos().col,
        },
        message: e.to_string(),
    }
}

/// Read PNML from raw bytes (a file's content, standard input); `source_name` labels errors.
pub fn read_pnml_bytes(bytes: &[u8], source_name: &str) -> Result<PetriNet, PnmlError> {
    read_pnml_bytes_within(bytes, source_name, u64::MAX)
}

/// [`read_pnml_bytes`] with the bound of [`read_pnml_str_within`].
pub fn read_pnml_bytes_within(
    bytes: &[u8],
    source_name: &str,
    max: u64,
) -> Result<PetriNet, PnmlError> {
    let text = std::str::from_utf8(bytes).map_err(|e| PnmlError::Io {
        path: PathBuf::from(source_name),
        message: format!("not valid UTF-8 (at byte {})", e.valid_up_to()),
    })?;
    read_pnml_str_within(text, source_name, max)
}

/// [`read_pnml_str`], refusing (with its position) any initial marking or arc weight above
/// `max`, e.g. [`saturn_model::petri::MAX_TOKENS`] for a net that is to be explored.
pub fn read_pnml_str_within(
    text: &str,
    source_name: &str,
    max: u64,
) -> Result<PetriNet, PnmlError> {
    let doc = Document::parse(text).map_err(|e| xml_error(&e, source_name))?;
    Reader {
        doc: &doc,
        source: source_name,
        max,
    }
    .read()
}

/// The kind of an arc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Input,
    Output,
    Inhibitor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeRef {
    Place(usize),
    Transition(usize),
    /// Index into the reference-node list.
    RefPlace(usize),
    RefTransition(usize),
}

struct RefNode<'a, 'input> {
    node: Node<'a, 'input>,
    id: &'a str,
    target: &'a str,
}

struct Reader<'a, 'input> {
    doc: &'a Document<'input>,
    source: &'a str,
    /// The largest token count or arc weight accepted.
    max: u64,
}

/// Net types that denote coloured (high-level) nets.
const COLOURED_TYPES: &[&str] = &["symmetricnet", "highlevelnet", "hlpn", "pt-hlpng"];
/// Labels only found in coloured nets.
const COLOURED_LABELS: &[&str] = &[
    "hlinitialMarking",
    "hlinscription",
    "declaration",
    "declarations",
    "condition",
];

impl<'a, 'input> Reader<'a, 'input> {
    fn at(&self, node: Node) -> Location {
        let pos = self.doc.text_pos_at(node.range().start);
        Location {
            source: self.source.to_string(),
            line: pos.row,
            column: pos.col,
        }
    }

    fn attr(&self, node: Node<'a, 'input>, name: &str) -> Result<&'a str, PnmlError> {
        node.attribute(name)
            .ok_or_else(|| PnmlError::MissingAttribute {
                at: self.at(node),
                element: node.tag_name().name().to_string(),
                attribute: name.to_string(),
            })
    }

    fn coloured(&self, node: Node, construct: String) -> PnmlError {
        PnmlError::Coloured {
            at: self.at(node),
            construct,
        }
    }

    /// Refuse coloured-net labels among the children of `node`.
    fn check_labels(&self, node: Node<'a, 'input>) -> Result<(), PnmlError> {
        for c in node.children().filter(Node::is_element) {
            let n = c.tag_name().name();
            if COLOURED_LABELS.contains(&n) {
                return Err(self.coloured(c, format!("<{n}> element")));
            }
        }
        Ok(())
    }

    fn read(&self) -> Result<PetriNet, PnmlError> {
        let root = self.doc.root_element();
        // The net: the root itself, or its `net` children (PNML puts nets directly under <pnml>).
        let nets: Vec<Node> = if root.tag_name().name() == "net" {
            vec![root]
        } else {
            root.children()
                .filter(|n| n.is_element() && n.tag_name().name() == "net")
                .collect()
        };
        let net = match nets.as_slice() {
            [] => {
                return Err(PnmlError::NoNet {
                    source_name: self.source.to_string(),
                })
            }
            [net] => *net,
            [_, second, ..] => {
                return Err(PnmlError::SeveralNets {
                    at: self.at(*second),
                    count: nets.len(),
                })
            }
        };
        if let Some(ty) = net.attribute("type") {
            let lower = ty.to_ascii_lowercase();
            if COLOURED_TYPES.iter().any(|t| lower.contains(t)) {
                return Err(self.coloured(net, format!("net type '{ty}'")));
            }
        }
        self.check_labels(net)?;
        let name = label_text(net, "name")
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .or_else(|| net.attribute("id").map(str::to_string))
            .unwrap_or_default();

        // Collect nodes and arcs in document order, walking pages iteratively.
        let mut places: Vec<Place> = Vec::new();
        let mut transitions: Vec<Transition> = Vec::new();
        let mut refs: Vec<RefNode> = Vec::new();
        let mut arcs: Vec<Node> = Vec::new();
        let mut ids: HashMap<&'a str, NodeRef> = HashMap::new();
        let mut stack: Vec<Node> = vec![net];
        // The stack holds containers (net, pages) still to visit; pages are pushed in reverse so
        // that the traversal is a pre-order in document order.
        while let Some(container) = stack.pop() {
            let mut pages = Vec::new();
            for c in container.children().filter(Node::is_element) {
                let tag = c.tag_name().name();
                match tag {
                    "page" => pages.push(c),
                    "place" => {
                        self.check_labels(c)?;
                        if let Some(t) = c.children().find(|n| n.has_tag_name("type")) {
                            return Err(self.coloured(t, "a place with a sort (<type>)".into()));
                        }
                        let id = self.attr(c, "id")?;
                        self.register(&mut ids, c, id, NodeRef::Place(places.len()))?;
                        let initial = match label_text(c, "initialMarking") {
                            None => 0,
                            Some(text) => self.number(
                                c,
                                text,
                                || format!("initial marking of place '{id}'"),
                                true,
                            )?,
                        };
                        places.push(Place {
                            id: id.into(),
                            name: self.name_of(c, id),
                            initial,
                        });
                    }
                    "transition" => {
                        self.check_labels(c)?;
                        let id = self.attr(c, "id")?;
                        self.register(&mut ids, c, id, NodeRef::Transition(transitions.len()))?;
                        transitions.push(Transition {
                            id: id.into(),
                            name: self.name_of(c, id),
                            ..Transition::default()
                        });
                    }
                    "referencePlace" | "referenceTransition" => {
                        let id = self.attr(c, "id")?;
                        let target = self.attr(c, "ref")?;
                        let r = if tag == "referencePlace" {
                            NodeRef::RefPlace(refs.len())
                        } else {
                            NodeRef::RefTransition(refs.len())
                        };
                        self.register(&mut ids, c, id, r)?;
                        refs.push(RefNode {
                            node: c,
                            id,
                            target,
                        });
                    }
                    "arc" => {
                        self.check_labels(c)?;
                        arcs.push(c);
                    }
                    _ if COLOURED_LABELS.contains(&tag) => {
                        return Err(self.coloured(c, format!("<{tag}> element")));
                    }
                    _ => {} // name, graphics, toolspecific, unknown labels: ignored
                }
            }
            // Pages are visited after the container's own nodes (order of places within a page
            // is document order; pages follow in document order).
            stack.extend(pages.into_iter().rev());
        }

        // Resolve reference nodes to the place / transition they stand for.
        let resolved = self.resolve_refs(&refs, &ids)?;
        let resolve = |r: NodeRef| -> NodeRef {
            match r {
                NodeRef::RefPlace(i) | NodeRef::RefTransition(i) => resolved[i],
                other => other,
            }
        };

        // Arcs, merged by (transition, place, kind).
        let mut merged: HashMap<(usize, usize, Kind), usize> = HashMap::new();
        // test arcs per (transition, place): the largest weight, and its arc
        let mut tests: Vec<((usize, usize), u64, Node)> = Vec::new();
        for a in arcs {
            let id = self.attr(a, "id")?;
            let src_id = self.attr(a, "source")?;
            let tgt_id = self.attr(a, "target")?;
            let lookup = |node_id: &str| {
                ids.get(node_id)
                    .copied()
                    .map(resolve)
                    .ok_or_else(|| PnmlError::UnknownNode {
                        at: self.at(a),
                        arc: id.into(),
                        id: node_id.into(),
                    })
            };
            let src = lookup(src_id)?;
            let tgt = lookup(tgt_id)?;
            let weight = match label_text(a, "inscription") {
                None => 1,
                Some(text) => {
                    self.number(a, text, || format!("inscription of arc '{id}'"), false)?
                }
            };
            let arc_kind = self.arc_kind(a, id)?;
            let (t, p, kind) = match (src, tgt) {
                (NodeRef::Place(p), NodeRef::Transition(t)) => (t, p, Kind::Input),
                (NodeRef::Transition(t), NodeRef::Place(p)) => (t, p, Kind::Output),
                (NodeRef::Place(_), NodeRef::Place(_)) => {
                    return Err(PnmlError::PlaceToPlace {
                        at: self.at(a),
                        arc: id.into(),
                        source_id: src_id.into(),
                        target_id: tgt_id.into(),
                    })
                }
                _ => {
                    return Err(PnmlError::TransitionToTransition {
                        at: self.at(a),
                        arc: id.into(),
                        source_id: src_id.into(),
                        target_id: tgt_id.into(),
                    })
                }
            };
            let kinds: &[Kind] = match (arc_kind, kind) {
                (ArcKind::Normal, Kind::Input) => &[Kind::Input],
                (ArcKind::Normal, _) => &[Kind::Output],
                (ArcKind::Inhibitor, Kind::Input) => &[Kind::Inhibitor],
                (ArcKind::Inhibitor, _) => {
                    return Err(PnmlError::InhibitorFromTransition {
                        at: self.at(a),
                        arc: id.into(),
                    })
                }
                (ArcKind::Test, _) => {
                    match tests.iter_mut().find(|e| e.0 == (t, p)) {
                        Some(e) if e.1 < weight => (e.1, e.2) = (weight, a),
                        Some(_) => {}
                        None => tests.push(((t, p), weight, a)),
                    }
                    continue;
                }
            };
            for &k in kinds {
                let tr = &mut transitions[t];
                let list = match k {
                    Kind::Input => &mut tr.inputs,
                    Kind::Output => &mut tr.outputs,
                    Kind::Inhibitor => &mut tr.inhibitors,
                };
                match merged.get(&(t, p, k)) {
                    // parallel inhibitor arcs: the smallest threshold
                    Some(&i) if k == Kind::Inhibitor => {
                        list[i].weight = list[i].weight.min(weight);
                    }
                    Some(&i) => {
                        let arc = &mut list[i];
                        arc.weight = arc.weight.checked_add(weight).ok_or_else(|| {
                            PnmlError::WeightOverflow {
                                at: self.at(a),
                                place: places[p].id.clone(),
                                transition: tr.id.clone(),
                            }
                        })?;
                    }
                    None => {
                        merged.insert((t, p, k), list.len());
                        list.push(Arc { place: p, weight });
                    }
                }
            }
        }
        // a test arc of weight w beside an input arc of weight v: the transition needs
        // max(v, w) tokens and takes v
        tests.sort_by_key(|e| e.0);
        for ((t, p), w, a) in tests {
            let tr = &mut transitions[t];
            let v = tr
                .inputs
                .iter()
                .find(|x| x.place == p)
                .map_or(0, |x| x.weight);
            if w <= v {
                continue;
            }
            match tr.inputs.iter_mut().find(|x| x.place == p) {
                Some(x) => x.weight = w,
                None => tr.inputs.push(Arc {
                    place: p,
                    weight: w,
                }),
            }
            match tr.outputs.iter_mut().find(|x| x.place == p) {
                Some(x) => {
                    x.weight =
                        x.weight
                            .checked_add(w - v)
                            .ok_or_else(|| PnmlError::WeightOverflow {
                                at: self.at(a),
                                place: places[p].id.clone(),
                                transition: tr.id.clone(),
                            })?
                }
                None => tr.outputs.push(Arc {
                    place: p,
                    weight: w - v,
                }),
            }
        }
        Ok(PetriNet {
            name,
            places,
            transitions,
        })
    }

    fn register(
        &self,
        ids: &mut HashMap<&'a str, NodeRef>,
        node: Node,
        id: &'a str,
        r: NodeRef,
    ) -> Result<(), PnmlError> {
        if ids.insert(id, r).is_some() {
            return Err(PnmlError::DuplicateId {
                at: self.at(node),
                id: id.into(),
            });
        }
        Ok(())
    }

    /// Follow chains of reference nodes; every reference must end at a node of its own kind.
    fn resolve_refs(
        &self,
        refs: &[RefNode],
        ids: &HashMap<&'a str, NodeRef>,
    ) -> Result<Vec<NodeRef>, PnmlError> {
        let mut out = Vec::with_capacity(refs.len());
        for r in refs {
            let wants_place = r.node.tag_name().name() == "referencePlace";
            let mut target = r.target;
            let mut steps = 0usize;
            let end = loop {
                let Some(&n) = ids.get(target) else {
                    return Err(PnmlError::UnknownReference {
                        at: self.at(r.node),
                        id: r.id.into(),
                        target: target.into(),
                    });
                };
                match n {
                    NodeRef::RefPlace(j) | NodeRef::RefTransition(j) => {
                        steps += 1;
                        if steps > refs.len() {
                            return Err(PnmlError::ReferenceCycle {
                                at: self.at(r.node),
                                id: r.id.into(),
                            });
                        }
                        target = refs[j].target;
                    }
                    end => break end,
                }
            };
            let ok = matches!(
                (wants_place, end),
                (true, NodeRef::Place(_)) | (false, NodeRef::Transition(_))
            );
            if !ok {
                return Err(PnmlError::ReferenceKind {
                    at: self.at(r.node),
                    id: r.id.into(),
                    target: r.target.into(),
                    expected: if wants_place { "place" } else { "transition" },
                });
            }
            out.push(end);
        }
        Ok(out)
    }

    fn name_of(&self, node: Node, id: &str) -> String {
        match label_text(node, "name") {
            Some(t) if !t.trim().is_empty() => t.trim().to_string(),
            _ => id.to_string(),
        }
    }

    /// Parse a natural number (`allow_zero`) or a positive one.
    fn number(
        &self,
        node: Node,
        text: &str,
        element: impl Fn() -> String,
        allow_zero: bool,
    ) -> Result<u64, PnmlError> {
        let t = text.trim();
        let err = |reason| PnmlError::BadNumber {
            at: self.at(node),
            element: element(),
            text: truncate(t),
            reason,
        };
        if t.starts_with('-') && t.len() > 1 && t[1..].bytes().all(|b| b.is_ascii_digit()) {
            return Err(err("negative values are not allowed"));
        }
        let digits = t.strip_prefix('+').unwrap_or(t);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err("not a non-negative integer"));
        }
        let v: u64 = digits
            .parse()
            .map_err(|_| err("too large (more than 64 bits)"))?;
        if v == 0 && !allow_zero {
            return Err(err("arc weights must be positive"));
        }
        if v > self.max {
            return Err(PnmlError::OutOfRange {
                at: self.at(node),
                element: element(),
                value: v,
                max: self.max,
            });
        }
        Ok(v)
    }

    /// The arc's type, from the `type` attribute (`<arc type="inhibitor">`, as TAPAAL and
    /// others write it) or a `<type>` / `<arctype>` child element (PNML special-arcs form). When
    /// both are given they must agree.
    fn arc_kind(&self, arc: Node, id: &str) -> Result<ArcKind, PnmlError> {
        let attribute = arc.attribute("type").map(|v| (v.trim().to_string(), arc));
        let element = arc
            .children()
            .find(|n| n.has_tag_name("type") || n.has_tag_name("arctype"))
            .map(|ty| {
                let value = ty
                    .attribute("value")
                    .map(|v| v.trim().to_string())
                    .or_else(|| label_text(arc, ty.tag_name().name()).map(|s| s.trim().to_string()))
                    .unwrap_or_default();
                (value, ty)
            });
        let kind = |(value, at): &(String, Node)| match value.to_ascii_lowercase().as_str() {
            "" | "normal" => Ok(ArcKind::Normal),
            "inhibitor" => Ok(ArcKind::Inhibitor),
            "test" | "read" => Ok(ArcKind::Test),
            _ => Err(PnmlError::UnsupportedArcType {
                at: self.at(*at),
                arc: id.into(),
                kind: truncate(value),
            }),
        };
        match (&attribute, &element) {
            (None, None) => Ok(ArcKind::Normal),
            (Some(a), None) => kind(a),
            (None, Some(e)) => kind(e),
            (Some(a), Some(e)) => {
                let (ka, ke) = (kind(a)?, kind(e)?);
                if ka != ke {
                    return Err(PnmlError::ConflictingArcTypes {
                        at: self.at(e.1),
                        arc: id.into(),
                        attribute: truncate(&a.0),
                        element: truncate(&e.0),
                    });
                }
                Ok(ka)
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ArcKind {
    Normal,
    Inhibitor,
    Test,
}

/// The text of `<label><text>...</text></label>` for the first child element named `label`.
/// `Some("")` when the label is present but has no text.
fn label_text<'a>(node: Node<'a, '_>, label: &str) -> Option<&'a str> {
    let l = node
        .children()
        .find(|n| n.is_element() && n.tag_name().name() == label)?;
    let text = l
        .children()
        .find(|n| n.is_element() && n.tag_name().name() == "text");
    Some(text.and_then(|t| t.text()).unwrap_or(""))
}

/// Keep error messages one short line even when the offending text is huge.
fn truncate(s: &str) -> String {
    const MAX: usize = 40;
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one_line.chars().count() <= MAX {
        one_line
    } else {
        let mut t: String = one_line.chars().take(MAX).collect();
        t.push_str("...");
        t
    }
}
