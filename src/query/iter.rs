//! [`QueryIter`]: the iterator form of a query.

use crate::storage::Archetype;
use crate::world::World;

use super::fetch::QueryData;
use super::filter::QueryFilter;
use super::state::Matched;

/// Iterator over a query's items, from [`QueryState::iter`](crate::QueryState::iter)
/// or [`QueryState::iter_mut`](crate::QueryState::iter_mut).
pub struct QueryIter<'w, 's, Q: QueryData, F: QueryFilter> {
    world: &'w World,
    tables: std::slice::Iter<'s, Matched<Q::ArchState, F::ArchState>>,
    current: Option<(Q::Fetch<'w>, F::Fetch<'w>)>,
    row: usize,
    len: usize,
}

impl<'w, 's, Q: QueryData, F: QueryFilter> QueryIter<'w, 's, Q, F> {
    /// The caller (`QueryState`) guarantees the access `Q` declares on `world` for `'w`.
    pub(crate) fn new(world: &'w World, matched: &'s [Matched<Q::ArchState, F::ArchState>]) -> Self {
        QueryIter { world, tables: matched.iter(), current: None, row: 0, len: 0 }
    }

    /// Moves to the next non-empty table; `false` when there is none.
    #[inline]
    fn next_table(&mut self) -> bool {
        for matched in self.tables.by_ref() {
            let table: &'w Archetype = self.world.archetypes.get(matched.archetype);
            if table.is_empty() {
                continue;
            }
            // SAFETY: resolved for this table; access guaranteed by the `QueryState`
            // that made this iterator.
            let fetches =
                unsafe { (Q::fetch_archetype(matched.data, table), F::fetch_archetype(matched.filter, table)) };
            self.current = Some(fetches);
            self.row = 0;
            self.len = table.len();
            return true;
        }
        self.current = None;
        false
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Iterator for QueryIter<'w, '_, Q, F> {
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        loop {
            if self.row < self.len {
                let row = self.row;
                self.row += 1;
                let (fetch, filter) = self.current.as_ref()?;
                // SAFETY: `row < len` of the current table and the cursor never returns
                // to a row, so each row is fetched once.
                if F::IS_ARCHETYPAL || unsafe { F::filter_row(filter, row) } {
                    // SAFETY: as above.
                    return Some(unsafe { Q::fetch(fetch, row) });
                }
            } else if !self.next_table() {
                return None;
            }
        }
    }

    #[inline]
    fn fold<Acc, G: FnMut(Acc, Self::Item) -> Acc>(mut self, init: Acc, mut g: G) -> Acc {
        let mut acc = init;
        // Finish the current table, then run tight loops over the rest.
        while let Some(item) = (self.row < self.len).then(|| self.next()).flatten() {
            acc = g(acc, item);
        }
        while self.next_table() {
            let Some((fetch, filter)) = self.current.as_ref() else { break };
            for row in 0..self.len {
                // SAFETY: `row < len`, each row fetched once.
                if F::IS_ARCHETYPAL || unsafe { F::filter_row(filter, row) } {
                    // SAFETY: as above.
                    acc = g(acc, unsafe { Q::fetch(fetch, row) });
                }
            }
            self.row = self.len;
        }
        acc
    }
}
