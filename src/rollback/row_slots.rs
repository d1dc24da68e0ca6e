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
use crate::util::hash::IdMap;

/// The most rows kept: past it the map starts anew rather than grow.
const MOST: usize = 1 << 16;

/// Row → slot, for the rows of the tables in `tables`.
#[derive(Default)]
pub(crate) struct RowSlots {
    /// By `table << 32 | row`.
    slots: IdMap<u64, u32>,
    /// The tables whose rows are kept (a handful).
    tables: Vec<ArchetypeId>,
}

fn key(table: ArchetypeId, row: u32) -> u64 {
    (u64::from(table.0) << 32) | u64::from(row)
}

impl RowSlots {
    /// The slot of `table`'s row `row`, if kept.
    #[inline]
    pub(crate) fn get(&self, table: ArchetypeId, row: u32) -> Option<u32> {
        self.slots.get(&key(table, row)).copied()
    }

    /// Keeps `slot` as the slot of `table`'s row `row`.
    pub(crate) fn insert(&mut self, table: ArchetypeId, row: u32, slot: u32) {
        if self.slots.len() >= MOST {
            self.clear();
        }
        if !self.tables.contains(&table) {
            self.tables.push(table);
        }
        self.slots.insert(key(table, row), slot);
    }

    /// Forgets every row if one of `shrunk` (tables that lost rows) has rows kept.
    pub(crate) fn forget(&mut self, shrunk: &[ArchetypeId]) {
        if self.tables.iter().any(|table| shrunk.contains(table)) {
            self.clear();
        }
    }

    fn clear(&mut self) {
        self.slots.clear();
        self.tables.clear();
    }

    /// Heap bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.slots.capacity() * size_of::<(u64, u32)>() + self.tables.capacity() * size_of::<ArchetypeId>()
    }
}
