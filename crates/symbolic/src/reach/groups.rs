//! Items grouped by index (by level, by event) in one flat array, one allocation in all: on
//! a model of 60,000 levels and 40,000 events, one list per level or per event costs more in
//! list headers and allocator blocks than in items.

/// Group `k`'s items are `items[start[k]..start[k + 1]]`.
#[derive(Clone, Debug)]
pub(super) struct Groups<T> {
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Groups<T> {
    fn default() -> Self {
        Groups {
            start: Vec::new(),
            items: Vec::new(),
        }
    }
}

impl<T> Groups<T> {
    /// Group `(group, item)` pairs into groups `0..levels` (groups beyond are dropped), each
    /// group's items in the pairs' order.
    pub(super) fn new(levels: usize, mut pairs: Vec<(u32, T)>) -> Self {
        pairs.retain(|p| (p.0 as usize) < levels);
        // a stable sort keeps each group's items in the pairs' order
        pairs.sort_by_key(|p| p.0);
        let mut start = vec![0u32; levels + 1];
        for (l, _) in &pairs {
            start[*l as usize + 1] += 1;
        }
        for k in 0..levels {
            start[k + 1] += start[k];
        }
        Groups {
            start,
            items: pairs.into_iter().map(|p| p.1).collect(),
        }
    }

    /// Append a group (the next index) made of `items`.
    pub(super) fn push(&mut self, items: impl IntoIterator<Item = T>) {
        if self.start.is_empty() {
            self.start.push(0);
        }
        self.items.extend(items);
        self.start.push(self.items.len() as u32);
    }

    /// The positions of group `k`'s items (empty beyond the last group).
    #[inline]
    pub(super) fn range(&self, k: usize) -> std::ops::Range<usize> {
        match (self.start.get(k), self.start.get(k + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// Group `k`'s items.
    #[inline]
    pub(super) fn at(&self, k: usize) -> &[T] {
        &self.items[self.range(k)]
    }

    /// The item at position `i` (of a [`Groups::range`]).
    #[inline]
    pub(super) fn item(&self, i: usize) -> Option<&T> {
        self.items.get(i)
    }

    /// The number of groups.
    pub(super) fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub(super) fn items_mut(&mut self) -> &mut [T] {
        &mut self.items
    }
}

#[cfg(test)]
mod tests {
    use super::Groups;

    #[test]
    fn groups_in_order_and_drops_levels_beyond() {
        let g = Groups::new(4, vec![(2, 'a'), (0, 'b'), (2, 'c'), (3, 'd'), (9, 'x')]);
        assert_eq!(g.len(), 4);
        assert_eq!(g.at(0), &['b']);
        assert!(g.at(1).is_empty());
        assert_eq!(g.at(2), &['a', 'c']);
        assert_eq!(g.at(3), &['d']);
        assert!(g.at(4).is_empty());
        assert_eq!(g.range(2), 1..3);
        let empty: Groups<u32> = Groups::default();
        assert!(empty.at(0).is_empty());
        assert_eq!(empty.len(), 0);
        let mut p = Groups::default();
        p.push([1, 2]);
        p.push([]);
        p.push([3]);
        assert_eq!(
            (p.len(), p.at(0), p.at(1), p.at(2)),
            (3, &[1, 2][..], &[][..], &[3][..])
        );
    }
}
