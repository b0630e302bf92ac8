//! Pins: roots that cannot be forgotten. A [`Pin`] keeps one node of a [`Dd`](crate::Dd)
//! context's forest alive across every collection until the pin is dropped (RAII), so an
//! engine that holds a handle across a possible collection holds a pin, never a bare id.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::NodeId;

/// Which forest of a [`Dd`](crate::Dd) context a node belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForestKind {
    /// The quasi-reduced set forest of `K` levels ([`Dd::sets`](crate::Dd::sets)).
    Sets,
    /// The identity-reduced relation forest of `2K` levels ([`Dd::rels`](crate::Dd::rels)).
    Rels,
}

/// The pinned nodes of one context (shared between the context and its pins).
#[derive(Default)]
pub(crate) struct PinTable {
    slots: Vec<Option<(ForestKind, NodeId)>>,
    free: Vec<u32>,
}

impl PinTable {
    /// The pinned nodes of forest `kind`.
    pub(crate) fn roots(&self, kind: ForestKind) -> Vec<NodeId> {
        self.slots
            .iter()
            .flatten()
            .filter(|(k, _)| *k == kind)
            .map(|&(_, n)| n)
            .collect()
    }
    /// The number of live pins.
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

pub(crate) type SharedPins = Arc<Mutex<PinTable>>;

pub(crate) fn lock(t: &SharedPins) -> MutexGuard<'_, PinTable> {
    // a panic while holding the lock leaves the table consistent (every write is one store)
    t.lock().unwrap_or_else(|e| e.into_inner())
}

/// A root held by an engine: the node it holds (and everything below it) survives every
/// collection of its context until the pin is dropped. Made by [`Dd::pin`](crate::Dd::pin) or
/// [`Dd::pin_rel`](crate::Dd::pin_rel); it does not borrow the context, so an engine may keep
/// pins while it works on the context.
pub struct Pin {
    table: SharedPins,
    slot: u32,
    kind: ForestKind,
    node: NodeId,
}

impl Pin {
    pub(crate) fn new(table: &SharedPins, kind: ForestKind, node: NodeId) -> Pin {
        let mut t = lock(table);
        let slot = match t.free.pop() {
            Some(s) => {
                t.slots[s as usize] = Some((kind, node));
                s
            }
            None => {
                t.slots.push(Some((kind, node)));
                u32::try_from(t.slots.len() - 1).expect("more than 2^32 pins")
            }
        };
        Pin {
            table: Arc::clone(table),
            slot,
            kind,
            node,
        }
    }

    /// The node this pin holds.
    #[inline]
    pub fn get(&self) -> NodeId {
        self.node
    }

    /// Hold `n` instead (the node held before is no longer kept alive by this pin).
    pub fn set(&mut self, n: NodeId) {
        if n != self.node {
            lock(&self.table).slots[self.slot as usize] = Some((self.kind, n));
            self.node = n;
        }
    }

    /// The forest the pinned node belongs to.
    pub fn kind(&self) -> ForestKind {
        self.kind
    }
}

impl Drop for Pin {
    fn drop(&mut self) {
        let mut t = lock(&self.table);
        t.slots[self.slot as usize] = None;
        t.free.push(self.slot);
    }
}

impl std::fmt::Debug for Pin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pin({:?} {:?})", self.kind, self.node)
    }
}
