//! Which entity slot a table row holds, remembered between checkpoints.
//!
//! A capture finds changed values by table and row; the entity in the row (its slot)
//! is read from the table's entity list, one far-apart load per changed row: at a
//! million entities, a cache and TLB miss each. A row keeps its entity until its table
//! loses a row (a despawn or a move to another table swaps the last row into the hole;
//! spawning only appends), and every such loss is in the world's structural log, which
//! the rollback reads at each capture. So the slots of the rows seen recently are kept
//! here, per table, and forgotten when their table loses a row: the movers that change
//! every frame cost one lookup in a small map instead of a miss each.

use crate::storage::ArchetypeId;
use crate::util::hash::GOLDEN;

/// An empty place of the map.
const EMPTY: u64 = u64::MAX;

/// The most rows kept: past it the map starts anew rather than grow.
const MOST: usize = 1 << 16;

/// Row → slot, for the rows of the tables in `tables`.
pub(crate) struct RowSlots {
    /// `(table << 32 | row, slot)` at hashed places, `EMPTY` keys elsewhere; a power of
    /// two long, at most half full.
    places: Vec<(u64, u32)>,
    len: usize,
    /// The tables whose rows are kept (a handful).
    tables: Vec<ArchetypeId>,
}

impl Default for RowSlots {
    fn default() -> Self {
        RowSlots { places: vec![(EMPTY, 0); 64], len: 0, tables: Vec::new() }
    }
}

fn key(table: ArchetypeId, row: u32) -> u64 {
    (u64::from(table.0) << 32) | u64::from(row)
}

impl RowSlots {
    #[inline]
    fn place(&self, key: u64) -> usize {
        let bits = self.places.len().trailing_zeros();
        (key.wrapping_mul(GOLDEN) >> (64 - bits)) as usize
    }

    /// The slot of `table`'s row `row`, if kept.
    #[inline]
    pub(crate) fn get(&self, table: ArchetypeId, row: u32) -> Option<u32> {
        let key = key(table, row);
        let mask = self.places.len() - 1;
        let mut at = self.place(key);
        loop {
            match self.places[at] {
                (EMPTY, _) => return None,
                (k, slot) if k == key => return Some(slot),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// Keeps `slot` as the slot of `table`'s row `row` (not kept yet).
    pub(crate) fn insert(&mut self, table: ArchetypeId, row: u32, slot: u32) {
        if 2 * (self.len + 1) > self.places.len() {
            if self.places.len() >= 2 * MOST {
                self.clear();
            } else {
                self.grow();
            }
        }
        if !self.tables.contains(&table) {
            self.tables.push(table);
        }
        let key = key(table, row);
        let mask = self.places.len() - 1;
        let mut at = self.place(key);
        while self.places[at].0 != EMPTY {
            at = (at + 1) & mask;
        }
        self.places[at] = (key, slot);
        self.len += 1;
    }

    #[cold]
    fn grow(&mut self) {
        let old = std::mem::replace(&mut self.places, vec![(EMPTY, 0); 0]);
        self.places.resize(old.len() * 2, (EMPTY, 0));
        let mask = self.places.len() - 1;
        for (key, slot) in old.into_iter().filter(|&(key, _)| key != EMPTY) {
            let mut at = self.place(key);
            while self.places[at].0 != EMPTY {
                at = (at + 1) & mask;
            }
            self.places[at] = (key, slot);
        }
    }

    /// Forgets every row if one of `shrunk` (tables that lost rows) has rows kept.
    pub(crate) fn forget(&mut self, shrunk: &[ArchetypeId]) {
        if self.tables.iter().any(|table| shrunk.contains(table)) {
            self.clear();
        }
    }

    fn clear(&mut self) {
        self.places.fill((EMPTY, 0));
        self.len = 0;
        self.tables.clear();
    }

    /// Heap bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.places.capacity() * size_of::<(u64, u32)>() + self.tables.capacity() * size_of::<ArchetypeId>()
    }
}
