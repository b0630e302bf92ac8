//! Conversion from an MDD and restriction by an MDD (of a function, or of a matrix's rows or
//! columns).

use super::{Ev, EvForest, EvValue, Overflow};
use crate::forest::{Edge, Forest, Reduction};
use crate::relation::is_unprimed;
use crate::NodeId;

/// Which levels of an edge-valued diagram a set restricts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restrict {
    /// The set is over the same levels as the function.
    States = 0,
    /// The function is a `2L`-level matrix; the set (over `L` levels) selects its rows.
    Rows = 1,
    /// The function is a `2L`-level matrix; the set selects its columns.
    Cols = 2,
}

impl<V: EvValue> EvForest<V> {
    /// The function of a set of a quasi-reduced MDD forest over the same levels: the neutral
    /// value on the set (EV+: `0`, EV*: `1`), the default elsewhere (EV+: `+∞`, EV*: `0`).
    pub fn from_mdd(&mut self, sets: &Forest, s: NodeId) -> Ev<V> {
        assert!(
            sets.reduction() == Reduction::Quasi && sets.num_levels() == self.num_levels(),
            "from_mdd: a quasi-reduced set over the forest's levels"
        );
        self.caches.check_mdd(sets.epoch());
        if s.is_empty() {
            return Ev::default_fn();
        }
        Ev {
            val: V::NEUTRAL,
            node: self.mdd_node(sets, s),
        }
    }

    fn mdd_node(&mut self, sets: &Forest, s: NodeId) -> NodeId {
        if s.is_terminal() {
            return s;
        }
        if let Some(r) = self.caches.from_mdd.get(s) {
            return r;
        }
        let mut out = Vec::with_capacity(sets.edges(s).len());
        for e in sets.edges(s) {
            let c = self.mdd_node(sets, e.child);
            out.push(Edge::valued(e.idx, c, V::NEUTRAL));
        }
        // every value is neutral: already normalised
        let r = self.f.make_node(sets.level(s), &out);
        self.caches.from_mdd.insert(s, r);
        r
    }

    /// The matrix of a relation of an identity-reduced forest over the same variables
    /// ([`Reduction::Identity`], `2L` levels): the neutral value on its pairs (EV+: `0`,
    /// EV*: `1`), the default elsewhere. A skipped pair of levels (identity) is expanded over
    /// the relation forest's current domain of its variable.
    pub fn from_relation(&mut self, rels: &Forest, r: NodeId) -> Ev<V> {
        assert!(
            self.is_interleaved()
                && rels.reduction() == Reduction::Identity
                && rels.num_levels() == self.num_levels(),
            "from_relation: an identity-reduced relation over the matrix forest's variables"
        );
        if self.caches.rel_epoch != Some(rels.epoch()) {
            self.caches.from_rel.clear();
            self.caches.rel_epoch = Some(rels.epoch());
        }
        let node = self.relation_node(rels, r, self.num_levels());
        if node.is_empty() {
            return Ev::default_fn();
        }
        Ev {
            val: V::NEUTRAL,
            node,
        }
    }

    /// The matrix node at unprimed `level` of relation node `r` (at `level` or below).
    fn relation_node(&mut self, rels: &Forest, r: NodeId, level: usize) -> NodeId {
        if r.is_empty() || level == 0 {
            return r;
        }
        let key = (r, level as u32);
        if let Some(n) = self.caches.from_rel.get(key) {
            return n;
        }
        let mut rows = Vec::new();
        if rels.level(r) == level {
            for e in rels.edges(r) {
                let mut cols = Vec::with_capacity(rels.edges(e.child).len());
                for pe in rels.edges(e.child) {
                    let c = self.relation_node(rels, pe.child, level - 2);
                    cols.push(Edge::valued(pe.idx, c, V::NEUTRAL));
                }
                let p = self.f.make_node(level - 1, &cols);
                rows.push(Edge::valued(e.idx, p, V::NEUTRAL));
            }
        } else {
            // a skipped pair: the identity over the variable's domain
            let below = self.relation_node(rels, r, level - 2);
            for i in 0..rels.domain(level) {
                let p = self
                    .f
                    .make_node(level - 1, &[Edge::valued(i, below, V::NEUTRAL)]);
                rows.push(Edge::valued(i, p, V::NEUTRAL));
            }
        }
        // every value is neutral: already normalised
        let n = self.f.make_node(level, &rows);
        self.caches.from_rel.insert(key, n);
        n
    }

    /// `f` restricted to the set `s` of a quasi-reduced MDD forest: `f` where the state (or
    /// the row, or the column of a matrix, per `mode`) is in `s`, the default elsewhere.
    pub fn restrict(
        &mut self,
        f: Ev<V>,
        sets: &Forest,
        s: NodeId,
        mode: Restrict,
    ) -> Result<Ev<V>, Overflow> {
        let want = match mode {
            Restrict::States => self.num_levels(),
            Restrict::Rows | Restrict::Cols => {
                assert!(
                    self.is_interleaved(),
                    "rows and columns need a matrix forest"
                );
                self.num_levels() / 2
            }
        };
        assert!(
            sets.reduction() == Reduction::Quasi && sets.num_levels() == want,
            "restrict: a quasi-reduced set over the function's variables"
        );
        self.caches.check_mdd(sets.epoch());
        if f.is_default() || s.is_empty() {
            return Ok(Ev::default_fn());
        }
        let r = self.restrict_rec(f.node, sets, s, mode)?;
        if r.is_default() {
            return Ok(r);
        }
        Ok(Ev {
            val: V::combine(f.val, r.val)?,
            node: r.node,
        })
    }

    /// Does level `k` of the function read the set's level (and which)?
    fn set_level(&self, k: usize, mode: Restrict) -> bool {
        match mode {
            Restrict::States => true,
            Restrict::Rows => is_unprimed(k),
            Restrict::Cols => !is_unprimed(k),
        }
    }

    fn restrict_rec(
        &mut self,
        p: NodeId,
        sets: &Forest,
        s: NodeId,
        mode: Restrict,
    ) -> Result<Ev<V>, Overflow> {
        if p.is_empty() || s.is_empty() {
            return Ok(Ev::default_fn());
        }
        if p.is_terminal() {
            return Ok(Ev {
                val: V::NEUTRAL,
                node: p,
            });
        }
        let key = (p, s, mode as u32);
        if let Some((val, node)) = self.caches.restrict.get(key) {
            return Ok(Ev { val, node });
        }
        let k = self.level(p);
        let reads = self.set_level(k, mode);
        let mut out = Vec::with_capacity(self.edges(p).len());
        for e in self.edges(p).to_vec() {
            let below = if reads {
                sets.child_at(s, sets.level(s), e.idx)
            } else {
                s
            };
            let r = self.restrict_rec(e.child, sets, below, mode)?;
            if !r.is_default() {
                out.push(Edge::valued(e.idx, r.node, V::combine(e.val, r.val)?));
            }
        }
        let r = self.normalize(k, &mut out)?;
        self.caches.restrict.insert(key, (r.val, r.node));
        Ok(r)
    }
}
