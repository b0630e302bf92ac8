//! From what the streaming pass collected to the net: nodes put in the order the PNML walk
//! defines (a container's own nodes, then its pages, depth first), identifiers checked and
//! resolved, reference nodes followed, arcs merged. Errors come in the order of that walk, as
//! the whole-document reader reported them.

use std::collections::HashMap;

use hashbrown::HashTable;
use saturn_model::{Arc, PetriNet, Place, Transition};

use super::error::{Location, PnmlError};
use super::xmlcheck::Pos;

/// No symbol (a missing attribute).
pub(crate) const NONE: u32 = u32::MAX;

/// Identifiers, interned: each distinct string gets a number. The table keeps 32 bits of each
/// entry's hash beside its number (the table's own hash is made from those 32 bits), so that
/// neither growing the table nor passing over another entry reads the identifiers' text (on
/// nets of 100,000 nodes those reads are cache misses), in 8 bytes an entry.
#[derive(Default)]
pub(crate) struct Symbols {
    text: String,
    spans: Vec<(u32, u32)>,
    table: HashTable<(u32, u32)>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl Symbols {
    pub fn intern(&mut self, s: &str) -> u32 {
        use std::hash::BuildHasher;
        let h = self.hasher.hash_one(s);
        let h32 = (h ^ (h >> 32)) as u32;
        let hash = spread(h32);
        let Symbols {
            text, spans, table, ..
        } = self;
        let same = |i: u32| {
            let (a, b) = spans[i as usize];
            text.get(a as usize..b as usize) == Some(s)
        };
        if let Some(&(_, i)) = table.find(hash, |&(h, i)| h == h32 && same(i)) {
            return i;
        }
        let (Ok(a), Ok(b)) = (
            u32::try_from(text.len()),
            u32::try_from(text.len() + s.len()),
        ) else {
            // Beyond 4 GiB of identifiers: kept apart (never equal to another).
            return NONE - 1;
        };
        text.push_str(s);
        let i = spans.len() as u32;
        spans.push((a, b));
        table.insert_unique(hash, (h32, i), |&(h, _)| spread(h));
        i
    }

    pub fn text(&self, i: u32) -> &str {
        match self.spans.get(i as usize) {
            Some(&(a, b)) => &self.text[a as usize..b as usize],
            None => "",
        }
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }
}

/// A table hash from 32 bits (a multiply spreads them to the high bits, where the table takes
/// its tags).
fn spread(h: u32) -> u64 {
    u64::from(h).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Which check of which item an error belongs to (errors are rare: kept aside).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Slot {
    /// A place's labels, sort or id.
    PlacePre,
    /// A place's initial marking.
    PlaceNum,
    TransPre,
    RefPre,
    /// A coloured label on an arc.
    ArcPre,
    /// An arc's id, source or target attribute missing.
    ArcAttr,
    ArcNum,
    ArcKind,
    /// A coloured-net element among a container's children.
    Coloured,
}

/// An item of the walk: what it is and its index among its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    Place(u32),
    Transition(u32),
    Ref(u32),
    Arc(u32),
    Coloured(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArcKind {
    Normal,
    Inhibitor,
    Test,
}

pub(crate) struct RefRec {
    pub at: Pos,
    pub place: bool,
    pub id: u32,
    pub target: u32,
}

pub(crate) struct ArcRec {
    pub at: Pos,
    pub src: u32,
    pub tgt: u32,
    pub weight: u64,
    pub kind: ArcKind,
    /// The arc's id in [`Collected::arc_ids`].
    pub id: (u32, u32),
}

/// The net element's own checks.
#[derive(Default)]
pub(crate) struct NetInfo {
    /// A coloured net type (error).
    pub coloured: Option<PnmlError>,
    /// The first coloured-net label among its children (error).
    pub coloured_label: Option<PnmlError>,
    pub name: String,
}

/// What the streaming pass collected, in document order.
#[derive(Default)]
pub(crate) struct Collected {
    pub source: String,
    pub net: Option<NetInfo>,
    /// A second net (error), with the number of nets.
    pub several: Option<(Pos, usize)>,
    pub places: Vec<Place>,
    pub place_at: Vec<Pos>,
    pub place_sym: Vec<u32>,
    pub transitions: Vec<Transition>,
    pub trans_at: Vec<Pos>,
    pub trans_sym: Vec<u32>,
    pub refs: Vec<RefRec>,
    pub arcs: Vec<ArcRec>,
    pub arc_ids: String,
    /// (container, item) in document order; containers are numbered in document order.
    pub walk: Vec<(u32, Item)>,
    pub errors: HashMap<(Slot, u32), PnmlError>,
    pub syms: Symbols,
    /// The number of coloured-element errors.
    pub coloured: u32,
}

/// Where a symbol is defined.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Def {
    None,
    Place(u32),
    Transition(u32),
    Ref(u32),
}

impl Collected {
    fn at(&self, p: Pos) -> Location {
        Location {
            source: self.source.clone(),
            line: p.line,
            column: p.col,
        }
    }

    fn take_err(&mut self, slot: Slot, i: u32) -> Result<(), PnmlError> {
        if self.errors.is_empty() {
            return Ok(());
        }
        match self.errors.remove(&(slot, i)) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn arc_id(&self, a: &ArcRec) -> String {
        self.arc_ids
            .get(a.id.0 as usize..a.id.1 as usize)
            .unwrap_or("")
            .to_string()
    }

    /// The net, or the first error in walk order.
    pub fn assemble(mut self) -> Result<PetriNet, PnmlError> {
        if let Some((at, count)) = self.several {
            return Err(PnmlError::SeveralNets {
                at: self.at(at),
                count,
            });
        }
        let Some(mut net) = self.net.take() else {
            return Err(PnmlError::NoNet {
                source_name: self.source.clone(),
            });
        };
        if let Some(e) = net.coloured.take().or(net.coloured_label.take()) {
            return Err(e);
        }
        // The walk: a stable sort by container puts nested pages after their parent's nodes.
        let mut walk = std::mem::take(&mut self.walk);
        let monotone = walk.windows(2).all(|w| w[0].0 <= w[1].0);
        if !monotone {
            walk.sort_by_key(|w| w.0);
        }
        let mut def = vec![Def::None; self.syms.len()];
        let (mut place_order, mut trans_order, mut ref_order, mut arc_order) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for &(_, item) in &walk {
            let (sym, at, d) = match item {
                Item::Place(i) => {
                    self.take_err(Slot::PlacePre, i)?;
                    let d = Def::Place(place_order.len() as u32);
                    place_order.push(i);
                    (self.place_sym[i as usize], self.place_at[i as usize], d)
                }
                Item::Transition(i) => {
                    self.take_err(Slot::TransPre, i)?;
                    let d = Def::Transition(trans_order.len() as u32);
                    trans_order.push(i);
                    (self.trans_sym[i as usize], self.trans_at[i as usize], d)
                }
                Item::Ref(i) => {
                    self.take_err(Slot::RefPre, i)?;
                    let d = Def::Ref(ref_order.len() as u32);
                    ref_order.push(i);
                    let r = &self.refs[i as usize];
                    (r.id, r.at, d)
                }
                Item::Arc(i) => {
                    self.take_err(Slot::ArcPre, i)?;
                    arc_order.push(i);
                    continue;
                }
                Item::Coloured(i) => {
                    self.take_err(Slot::Coloured, i)?;
                    continue;
                }
            };
            if let Some(slot) = def.get_mut(sym as usize) {
                if *slot != Def::None {
                    return Err(PnmlError::DuplicateId {
                        at: self.at(at),
                        id: self.syms.text(sym).to_string(),
                    });
                }
                *slot = d;
            }
            if let Item::Place(i) = item {
                self.take_err(Slot::PlaceNum, i)?;
            }
        }
        drop(walk);
        let mut places = reorder(std::mem::take(&mut self.places), &place_order);
        let mut transitions = reorder(std::mem::take(&mut self.transitions), &trans_order);
        drop((place_order, trans_order));

        // Reference nodes, followed to the place or transition they stand for.
        let refs = std::mem::take(&mut self.refs);
        let ref_list: Vec<&RefRec> = ref_order.iter().map(|&i| &refs[i as usize]).collect();
        let mut resolved = Vec::with_capacity(ref_list.len());
        for r in &ref_list {
            let mut target = r.target;
            let mut steps = 0usize;
            let end = loop {
                match def.get(target as usize).copied().unwrap_or(Def::None) {
                    Def::None => {
                        return Err(PnmlError::UnknownReference {
                            at: self.at(r.at),
                            id: self.syms.text(r.id).into(),
                            target: self.syms.text(target).into(),
                        })
                    }
                    Def::Ref(j) => {
                        steps += 1;
                        if steps > ref_list.len() {
                            return Err(PnmlError::ReferenceCycle {
                                at: self.at(r.at),
                                id: self.syms.text(r.id).into(),
                            });
                        }
                        target = ref_list[j as usize].target;
                    }
                    end => break end,
                }
            };
            let ok = matches!(
                (r.place, end),
                (true, Def::Place(_)) | (false, Def::Transition(_))
            );
            if !ok {
                return Err(PnmlError::ReferenceKind {
                    at: self.at(r.at),
                    id: self.syms.text(r.id).into(),
                    target: self.syms.text(r.target).into(),
                    expected: if r.place { "place" } else { "transition" },
                });
            }
            resolved.push(end);
        }
        drop(ref_list);

        // Arcs, merged by (transition, place, kind); test arcs by (transition, place), with
        // the largest weight and its arc's position.
        let mut merged: HashMap<(u32, u32, u8), usize> = HashMap::new();
        let mut tests: HashMap<(u32, u32), (u64, Pos)> = HashMap::new();
        let arcs = std::mem::take(&mut self.arcs);
        for &i in &arc_order {
            let a = &arcs[i as usize];
            self.take_err(Slot::ArcAttr, i)?;
            let lookup = |sym: u32| match def.get(sym as usize).copied().unwrap_or(Def::None) {
                Def::None => Err(PnmlError::UnknownNode {
                    at: self.at(a.at),
                    arc: self.arc_id(a),
                    id: self.syms.text(sym).into(),
                }),
                Def::Ref(j) => Ok(resolved[j as usize]),
                d => Ok(d),
            };
            let src = lookup(a.src)?;
            let tgt = lookup(a.tgt)?;
            self.take_err(Slot::ArcNum, i)?;
            self.take_err(Slot::ArcKind, i)?;
            let (t, p, input) = match (src, tgt) {
                (Def::Place(p), Def::Transition(t)) => (t, p, true),
                (Def::Transition(t), Def::Place(p)) => (t, p, false),
                (Def::Place(_), Def::Place(_)) => {
                    return Err(PnmlError::PlaceToPlace {
                        at: self.at(a.at),
                        arc: self.arc_id(a),
                        source_id: self.syms.text(a.src).into(),
                        target_id: self.syms.text(a.tgt).into(),
                    })
                }
                _ => {
                    return Err(PnmlError::TransitionToTransition {
                        at: self.at(a.at),
                        arc: self.arc_id(a),
                        source_id: self.syms.text(a.src).into(),
                        target_id: self.syms.text(a.tgt).into(),
                    })
                }
            };
            // 0: input, 1: output, 2: inhibitor. Parallel arcs of one kind merge: normal
            // arcs add their weights, inhibitor arcs keep the smallest (the tightest
            // threshold), test arcs the largest (see below).
            let k: u8 = match (a.kind, input) {
                (ArcKind::Normal, true) => 0,
                (ArcKind::Normal, false) => 1,
                (ArcKind::Inhibitor, true) => 2,
                (ArcKind::Inhibitor, false) => {
                    return Err(PnmlError::InhibitorFromTransition {
                        at: self.at(a.at),
                        arc: self.arc_id(a),
                    })
                }
                (ArcKind::Test, _) => {
                    let w = tests.entry((t, p)).or_insert((0, a.at));
                    if a.weight > w.0 {
                        *w = (a.weight, a.at);
                    }
                    continue;
                }
            };
            let tr = &mut transitions[t as usize];
            let (arc, fresh) = arc_on(tr, &mut merged, t, p, k);
            let weight = match k {
                _ if fresh => Some(a.weight),
                2 => Some(arc.weight.min(a.weight)),
                _ => arc.weight.checked_add(a.weight),
            };
            match weight {
                Some(w) => arc.weight = w,
                None => {
                    return Err(PnmlError::WeightOverflow {
                        at: self.at(a.at),
                        place: places[p as usize].id.clone(),
                        transition: tr.id.clone(),
                    })
                }
            }
        }
        // A test (read) arc of weight w needs w tokens and takes none; beside a normal input
        // arc of weight v the two conditions hold together: the transition needs max(v, w)
        // tokens and takes v, an input arc of max(v, w) and an output arc of max(v, w) - v.
        let mut tests: Vec<_> = tests.into_iter().collect();
        tests.sort_unstable_by_key(|e| e.0);
        for ((t, p), (w, at)) in tests {
            let tr = &mut transitions[t as usize];
            let (input, _) = arc_on(tr, &mut merged, t, p, 0);
            let v = input.weight;
            if w <= v {
                continue;
            }
            input.weight = w;
            let (output, _) = arc_on(tr, &mut merged, t, p, 1);
            match output.weight.checked_add(w - v) {
                Some(x) => output.weight = x,
                None => {
                    return Err(PnmlError::WeightOverflow {
                        at: self.at(at),
                        place: places[p as usize].id.clone(),
                        transition: tr.id.clone(),
                    })
                }
            }
        }
        // the net lives as long as the run: no room left over from growing the lists
        places.shrink_to_fit();
        transitions.shrink_to_fit();
        for t in &mut transitions {
            t.inputs.shrink_to_fit();
            t.outputs.shrink_to_fit();
            t.inhibitors.shrink_to_fit();
        }
        Ok(PetriNet {
            name: net.name,
            places,
            transitions,
        })
    }
}

/// Arc lists shorter than this are searched; longer ones are indexed.
const LINEAR: usize = 16;

/// `items` in the order `order` (indices into `items`); no copy when it is the identity.
fn reorder<T>(items: Vec<T>, order: &[u32]) -> Vec<T> {
    if order.len() == items.len() && order.iter().enumerate().all(|(i, &j)| i as u32 == j) {
        return items;
    }
    let mut items: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order
        .iter()
        .filter_map(|&j| items[j as usize].take())
        .collect()
}

/// Transition `t`'s arc of kind `k` (0: input, 1: output, 2: inhibitor) on place `p`, and
/// whether it was just made (with weight 0). Long lists are indexed in `merged` by
/// `(transition, place, kind)` from their length [`LINEAR`] on.
fn arc_on<'a>(
    tr: &'a mut Transition,
    merged: &mut HashMap<(u32, u32, u8), usize>,
    t: u32,
    p: u32,
    k: u8,
) -> (&'a mut Arc, bool) {
    let list = match k {
        0 => &mut tr.inputs,
        1 => &mut tr.outputs,
        _ => &mut tr.inhibitors,
    };
    let found = if list.len() < LINEAR {
        list.iter().position(|x| x.place == p as usize)
    } else {
        merged.get(&(t, p, k)).copied()
    };
    if let Some(j) = found {
        return (&mut list[j], false);
    }
    list.push(Arc {
        place: p as usize,
        weight: 0,
    });
    if list.len() == LINEAR {
        for (j, x) in list.iter().enumerate() {
            merged.insert((t, x.place as u32, k), j);
        }
    } else if list.len() > LINEAR {
        merged.insert((t, p, k), list.len() - 1);
    }
    let last = list.len() - 1;
    (&mut list[last], true)
}
