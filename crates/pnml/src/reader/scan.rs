//! The streaming pass over a PNML document: it follows the element structure (net, pages,
//! nodes, their labels) and collects places, transitions, reference nodes and arcs as they come,
//! with every check that needs only the element at hand. What needs the whole net (identifiers,
//! references, arcs) is left to [`super::assemble`].

use std::io::BufRead;

use saturn_model::{Place, Transition};

use super::assemble::{ArcKind, ArcRec, Collected, Item as Walk, NetInfo, RefRec, Slot, NONE};
use super::error::{Location, PnmlError};
use super::xmlcheck::{Attrs, Fail, Item, Pos, Scanner};

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

/// A label whose text is wanted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cap {
    NetName,
    Name,
    Number,
    ArcType,
}

/// What an open element is to the PNML walk.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// Not the net: its `net` children are the nets.
    Root,
    /// The net (0) or a page: a container of nodes.
    Container(u32),
    /// A place, transition, reference node or arc (the one in [`Node`]).
    Node,
    /// The first label of its kind on the net or a node: its first `text` child is wanted.
    Label(Cap),
    /// That `text` element.
    Text(Cap),
    /// Nothing the reader looks at (but the document is still checked).
    Ignore,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Place,
    Transition,
    RefPlace,
    RefTransition,
    Arc,
}

impl Kind {
    fn tag(self) -> &'static str {
        match self {
            Kind::Place => "place",
            Kind::Transition => "transition",
            Kind::RefPlace => "referencePlace",
            Kind::RefTransition => "referenceTransition",
            Kind::Arc => "arc",
        }
    }
}

/// The node being read (nodes do not nest: one at a time). Strings are reused.
struct Node {
    kind: Kind,
    at: Pos,
    container: u32,
    id: Option<String>,
    /// `ref` of a reference node; `source` of an arc.
    a1: Option<String>,
    /// `target` of an arc.
    a2: Option<String>,
    /// `type` attribute of an arc (trimmed).
    type_attr: Option<String>,
    /// The first coloured label among the children (position, name).
    coloured: Option<(Pos, String)>,
    /// The first `<type>` child of a place; for an arc its first `<type>` / `<arctype>` child
    /// with its `value` attribute when it has one.
    type_child: Option<(Pos, Option<String>)>,
    seen_name: bool,
    seen_number: bool,
    name: Option<String>,
    number: Option<String>,
    arc_type_text: Option<String>,
}

struct Pass<'s> {
    source: &'s str,
    max: u64,
    out: Collected,
    roles: Vec<Role>,
    next_container: u32,
    node: Option<Node>,
    /// A `text` element whose leading text is still being read.
    leading: bool,
    /// The net: its name label seen; its `id`.
    net_name_seen: bool,
    net_id: Option<String>,
    nets: usize,
    /// The net's name label text.
    net_name: Option<String>,
    /// The current label's `text` child has been seen.
    label_seen: bool,
    /// Reused strings.
    spare: Vec<String>,
}

fn is_coloured_label(tag: &str) -> bool {
    COLOURED_LABELS.contains(&tag)
}

/// Read PNML from `input`; `source` labels errors; numbers above `max` are refused.
pub(crate) fn read<R: BufRead>(input: R, source: &str, max: u64) -> Result<Collected, PnmlError> {
    let mut scanner = Scanner::new(input);
    let mut pass = Pass {
        source,
        max,
        out: Collected {
            source: source.to_string(),
            ..Collected::default()
        },
        roles: Vec::new(),
        next_container: 1,
        node: None,
        leading: false,
        net_name_seen: false,
        net_id: None,
        nets: 0,
        net_name: None,
        label_seen: false,
        spare: Vec::new(),
    };
    loop {
        scanner.want_text = pass.leading;
        let item = scanner.next().map_err(|f| match f {
            Fail::Utf8(b) => PnmlError::Io {
                path: source.into(),
                message: format!("not valid UTF-8 (at byte {b})"),
            },
            Fail::Io(message) => PnmlError::Io {
                path: source.into(),
                message,
            },
            Fail::Syntax(at, message) => PnmlError::Xml {
                at: Location {
                    source: source.to_string(),
                    line: at.line,
                    column: at.col,
                },
                message,
            },
        })?;
        match item {
            Item::Start {
                local,
                empty,
                at,
                attrs,
            } => {
                pass.start(local, at, attrs);
                if empty {
                    pass.end();
                }
            }
            Item::End => pass.end(),
            Item::Text(t) => {
                if pass.leading {
                    if let Some(Role::Text(cap)) = pass.roles.last() {
                        let cap = *cap;
                        pass.capture(cap).push_str(t);
                    }
                }
            }
            Item::Other => pass.leading = false,
            Item::Eof => break,
        }
    }
    pass.finish();
    Ok(pass.out)
}

impl Pass<'_> {
    fn loc(&self, p: Pos) -> Location {
        location(self.source, p)
    }

    fn string(&mut self, s: &str) -> String {
        let mut t = self.spare.pop().unwrap_or_default();
        t.clear();
        t.push_str(s);
        t
    }

    fn recycle(&mut self, s: Option<String>) {
        if let Some(s) = s {
            if self.spare.len() < 16 {
                self.spare.push(s);
            }
        }
    }

    /// The string a captured label's text goes to (created empty when the label is seen).
    fn capture(&mut self, cap: Cap) -> &mut String {
        let slot = match (cap, self.node.as_mut()) {
            (Cap::NetName, _) | (_, None) => &mut self.net_name,
            (Cap::Name, Some(n)) => &mut n.name,
            (Cap::Number, Some(n)) => &mut n.number,
            (Cap::ArcType, Some(n)) => &mut n.arc_type_text,
        };
        let spare = &mut self.spare;
        slot.get_or_insert_with(|| {
            let mut s = spare.pop().unwrap_or_default();
            s.clear();
            s
        })
    }

    fn start(&mut self, local: &str, at: Pos, attrs: &Attrs) {
        self.leading = false;
        let parent = self.roles.last().copied();
        let role = match parent {
            None => {
                if local == "net" {
                    self.nets = 1;
                    self.open_net(at, attrs)
                } else {
                    Role::Root
                }
            }
            Some(Role::Root) => {
                if local == "net" {
                    self.nets += 1;
                    match self.nets {
                        1 => self.open_net(at, attrs),
                        2 => {
                            self.out.several = Some((at, 0));
                            Role::Ignore
                        }
                        _ => Role::Ignore,
                    }
                } else {
                    Role::Ignore
                }
            }
            Some(Role::Container(c)) => self.container_child(c, local, at, attrs),
            Some(Role::Node) => self.node_child(local, at, attrs),
            Some(Role::Label(cap)) => {
                if local == "text" && !self.label_text_seen() {
                    self.set_label_text_seen();
                    self.capture(cap);
                    self.leading = true;
                    Role::Text(cap)
                } else {
                    Role::Ignore
                }
            }
            Some(Role::Text(_) | Role::Ignore) => Role::Ignore,
        };
        if let Role::Label(cap) = role {
            // A label present without text reads as empty text.
            self.capture(cap);
        }
        self.roles.push(role);
    }

    fn open_net(&mut self, at: Pos, attrs: &Attrs) -> Role {
        let mut info = NetInfo::default();
        if let Some(ty) = attrs.get("type") {
            let lower = ty.to_ascii_lowercase();
            if COLOURED_TYPES.iter().any(|t| lower.contains(t)) {
                info.coloured = Some(PnmlError::Coloured {
                    at: self.loc(at),
                    construct: format!("net type '{ty}'"),
                });
            }
        }
        self.net_id = attrs.get("id").map(str::to_string);
        self.out.net = Some(info);
        Role::Container(0)
    }

    fn container_child(&mut self, c: u32, local: &str, at: Pos, attrs: &Attrs) -> Role {
        let kind = match local {
            "page" => {
                let id = self.next_container;
                self.next_container += 1;
                return Role::Container(id);
            }
            "place" => Kind::Place,
            "transition" => Kind::Transition,
            "referencePlace" => Kind::RefPlace,
            "referenceTransition" => Kind::RefTransition,
            "arc" => Kind::Arc,
            _ if is_coloured_label(local) => {
                let e = PnmlError::Coloured {
                    at: self.loc(at),
                    construct: format!("<{local}> element"),
                };
                if c == 0 {
                    if let Some(net) = self.out.net.as_mut() {
                        if net.coloured_label.is_none() {
                            net.coloured_label = Some(e.clone());
                        }
                    }
                }
                let i = self.out.coloured;
                self.out.coloured += 1;
                self.out.errors.insert((Slot::Coloured, i), e);
                self.out.walk.push((c, Walk::Coloured(i)));
                return Role::Ignore;
            }
            "name" if c == 0 && !self.net_name_seen => {
                self.net_name_seen = true;
                self.label_seen = false;
                return Role::Label(Cap::NetName);
            }
            _ => return Role::Ignore,
        };
        let get = |this: &mut Self, name: &str| attrs.get(name).map(|v| this.string(v));
        let (a1, a2) = match kind {
            Kind::RefPlace | Kind::RefTransition => (get(self, "ref"), None),
            Kind::Arc => (get(self, "source"), get(self, "target")),
            _ => (None, None),
        };
        let type_attr = match kind {
            Kind::Arc => attrs.get("type").map(|v| v.trim().to_string()),
            _ => None,
        };
        let id = get(self, "id");
        self.node = Some(Node {
            kind,
            at,
            container: c,
            id,
            a1,
            a2,
            type_attr,
            coloured: None,
            type_child: None,
            seen_name: false,
            seen_number: false,
            name: None,
            number: None,
            arc_type_text: None,
        });
        Role::Node
    }

    fn node_child(&mut self, local: &str, at: Pos, attrs: &Attrs) -> Role {
        let Some(n) = self.node.as_mut() else {
            return Role::Ignore;
        };
        let is_ref = matches!(n.kind, Kind::RefPlace | Kind::RefTransition);
        if !is_ref && n.coloured.is_none() && is_coloured_label(local) {
            n.coloured = Some((at, local.to_string()));
        }
        match (n.kind, local) {
            (Kind::Place, "type") if n.type_child.is_none() => {
                n.type_child = Some((at, None));
                Role::Ignore
            }
            (Kind::Arc, "type" | "arctype") if n.type_child.is_none() => {
                let value = attrs.get("value").map(|v| v.trim().to_string());
                let wants_text = value.is_none();
                n.type_child = Some((at, value));
                if wants_text {
                    self.label_seen = false;
                    Role::Label(Cap::ArcType)
                } else {
                    Role::Ignore
                }
            }
            (Kind::Place | Kind::Transition, "name") if !n.seen_name => {
                n.seen_name = true;
                self.label_seen = false;
                Role::Label(Cap::Name)
            }
            (Kind::Place, "initialMarking") | (Kind::Arc, "inscription") if !n.seen_number => {
                n.seen_number = true;
                self.label_seen = false;
                Role::Label(Cap::Number)
            }
            _ => Role::Ignore,
        }
    }

    fn label_text_seen(&self) -> bool {
        self.label_seen
    }

    fn set_label_text_seen(&mut self) {
        self.label_seen = true;
    }

    fn end(&mut self) {
        self.leading = false;
        if let Some(Role::Node) = self.roles.pop() {
            if let Some(n) = self.node.take() {
                self.finish_node(n);
            }
        }
    }

    fn finish_node(&mut self, n: Node) {
        let source = self.source;
        let at = || location(source, n.at);
        let missing = |attribute: &str| PnmlError::MissingAttribute {
            at: at(),
            element: n.kind.tag().to_string(),
            attribute: attribute.to_string(),
        };
        let coloured = n.coloured.as_ref().map(|(p, tag)| PnmlError::Coloured {
            at: self.loc(*p),
            construct: format!("<{tag}> element"),
        });
        let id = n.id.as_deref().unwrap_or("");
        let sym = match &n.id {
            Some(id) => self.out.syms.intern(id),
            None => NONE,
        };
        match n.kind {
            Kind::Place | Kind::Transition => {
                let place = n.kind == Kind::Place;
                let sort =
                    n.type_child
                        .as_ref()
                        .filter(|_| place)
                        .map(|(p, _)| PnmlError::Coloured {
                            at: self.loc(*p),
                            construct: "a place with a sort (<type>)".into(),
                        });
                let pre = coloured
                    .or(sort)
                    .or_else(|| n.id.is_none().then(|| missing("id")));
                let name = match n.name.as_deref().map(str::trim) {
                    Some(t) if !t.is_empty() => t.to_string(),
                    _ => id.to_string(),
                };
                if place {
                    let i = self.out.places.len() as u32;
                    let initial = match n.number.as_deref() {
                        None => 0,
                        Some(text) => {
                            let what = || format!("initial marking of place '{id}'");
                            match number(at, text, what, true, self.max) {
                                Ok(v) => v,
                                Err(e) => {
                                    self.out.errors.insert((Slot::PlaceNum, i), e);
                                    0
                                }
                            }
                        }
                    };
                    if let Some(e) = pre {
                        self.out.errors.insert((Slot::PlacePre, i), e);
                    }
                    self.out.places.push(Place {
                        id: id.to_string(),
                        name,
                        initial,
                    });
                    self.out.place_at.push(n.at);
                    self.out.place_sym.push(sym);
                    self.out.walk.push((n.container, Walk::Place(i)));
                } else {
                    let i = self.out.transitions.len() as u32;
                    if let Some(e) = pre {
                        self.out.errors.insert((Slot::TransPre, i), e);
                    }
                    self.out.transitions.push(Transition {
                        id: id.to_string(),
                        name,
                        ..Transition::default()
                    });
                    self.out.trans_at.push(n.at);
                    self.out.trans_sym.push(sym);
                    self.out.walk.push((n.container, Walk::Transition(i)));
                }
            }
            Kind::RefPlace | Kind::RefTransition => {
                let i = self.out.refs.len() as u32;
                let pre = if n.id.is_none() {
                    Some(missing("id"))
                } else if n.a1.is_none() {
                    Some(missing("ref"))
                } else {
                    None
                };
                if let Some(e) = pre {
                    self.out.errors.insert((Slot::RefPre, i), e);
                }
                let target = match &n.a1 {
                    Some(t) => self.out.syms.intern(t),
                    None => NONE,
                };
                self.out.refs.push(RefRec {
                    at: n.at,
                    place: n.kind == Kind::RefPlace,
                    id: sym,
                    target,
                });
                self.out.walk.push((n.container, Walk::Ref(i)));
            }
            Kind::Arc => {
                let i = self.out.arcs.len() as u32;
                if let Some(e) = coloured {
                    self.out.errors.insert((Slot::ArcPre, i), e);
                }
                let attr = if n.id.is_none() {
                    Some(missing("id"))
                } else if n.a1.is_none() {
                    Some(missing("source"))
                } else if n.a2.is_none() {
                    Some(missing("target"))
                } else {
                    None
                };
                if let Some(e) = attr {
                    self.out.errors.insert((Slot::ArcAttr, i), e);
                }
                let src = n.a1.as_deref().map_or(NONE, |s| self.out.syms.intern(s));
                let tgt = n.a2.as_deref().map_or(NONE, |s| self.out.syms.intern(s));
                let weight = match n.number.as_deref() {
                    None => 1,
                    Some(text) => {
                        let what = || format!("inscription of arc '{id}'");
                        match number(at, text, what, false, self.max) {
                            Ok(v) => v,
                            Err(e) => {
                                self.out.errors.insert((Slot::ArcNum, i), e);
                                1
                            }
                        }
                    }
                };
                let kind = match self.arc_kind(&n, id) {
                    Ok(k) => k,
                    Err(e) => {
                        self.out.errors.insert((Slot::ArcKind, i), e);
                        ArcKind::Normal
                    }
                };
                let start = self.out.arc_ids.len();
                self.out.arc_ids.push_str(id);
                let span = match (u32::try_from(start), u32::try_from(self.out.arc_ids.len())) {
                    (Ok(a), Ok(b)) => (a, b),
                    _ => (0, 0),
                };
                self.out.arcs.push(ArcRec {
                    at: n.at,
                    src,
                    tgt,
                    weight,
                    kind,
                    id: span,
                });
                self.out.walk.push((n.container, Walk::Arc(i)));
            }
        }
        self.recycle(n.id);
        self.recycle(n.a1);
        self.recycle(n.a2);
        self.recycle(n.name);
        self.recycle(n.number);
        self.recycle(n.arc_type_text);
    }

    /// The arc's type, from the `type` attribute (`<arc type="inhibitor">`, as TAPAAL and
    /// others write it) or a `<type>` / `<arctype>` child element (PNML special-arcs form). When
    /// both are given they must agree.
    fn arc_kind(&self, n: &Node, id: &str) -> Result<ArcKind, PnmlError> {
        let attribute = n.type_attr.as_ref().map(|v| (v.clone(), n.at));
        let element = n.type_child.as_ref().map(|(p, value)| {
            let v = match value {
                Some(v) => v.clone(),
                None => n
                    .arc_type_text
                    .as_deref()
                    .map(|s| s.trim().to_string())
                    .unwrap_or_default(),
            };
            (v, *p)
        });
        let kind = |(value, at): &(String, Pos)| match value.to_ascii_lowercase().as_str() {
            "" | "normal" => Ok(ArcKind::Normal),
            "inhibitor" => Ok(ArcKind::Inhibitor),
            "test" | "read" => Ok(ArcKind::Test),
            _ => Err(PnmlError::UnsupportedArcType {
                at: self.loc(*at),
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
                        at: self.loc(e.1),
                        arc: id.into(),
                        attribute: truncate(&a.0),
                        element: truncate(&e.0),
                    });
                }
                Ok(ka)
            }
        }
    }

    fn finish(&mut self) {
        if let Some((_, count)) = self.out.several.as_mut() {
            *count = self.nets;
        }
        if let Some(net) = self.out.net.as_mut() {
            net.name = self
                .net_name
                .as_deref()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .or_else(|| self.net_id.clone())
                .unwrap_or_default();
        }
    }
}

/// Parse a natural number (`allow_zero`) or a positive one, at most `max`.
fn number(
    at: impl Fn() -> Location,
    text: &str,
    element: impl Fn() -> String,
    allow_zero: bool,
    max: u64,
) -> Result<u64, PnmlError> {
    let t = text.trim();
    let err = |reason| PnmlError::BadNumber {
        at: at(),
        element: element(),
        text: truncate(t),
        reason,
    };
    // The common case first: plain digits that fit.
    if !t.is_empty() && t.len() < 20 && t.bytes().all(|b| b.is_ascii_digit()) {
        let v = t.bytes().fold(0u64, |v, b| v * 10 + u64::from(b - b'0'));
        return check(&at, v, &element, allow_zero, max, err);
    }
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
    check(&at, v, &element, allow_zero, max, err)
}

fn check(
    at: &impl Fn() -> Location,
    v: u64,
    element: &impl Fn() -> String,
    allow_zero: bool,
    max: u64,
    err: impl Fn(&'static str) -> PnmlError,
) -> Result<u64, PnmlError> {
    if v == 0 && !allow_zero {
        return Err(err("arc weights must be positive"));
    }
    if v > max {
        return Err(PnmlError::OutOfRange {
            at: at(),
            element: element(),
            value: v,
            max,
        });
    }
    Ok(v)
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

fn location(source: &str, p: Pos) -> Location {
    Location {
        source: source.to_string(),
        line: p.line,
        column: p.col,
    }
}
