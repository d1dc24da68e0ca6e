//! What every kind of tracked state (component values, relation lists, resources)
//! does for a [`Rollback`](super::Rollback): capture what changed into a record, put
//! records back into its shadow, and write the shadow back into the world.

use crate::storage::ArchetypeId;
use crate::world::World;

use super::existence::Existence;

/// The order in which a rollback writes tracked state back (see
/// [`Rollback::rollback_to`](super::Rollback::rollback_to)): plain values once the
/// entities of the frame exist again, relations once every target does, and the
/// order of relation lists last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Values,
    Relations,
    Orders,
}

/// The structural changes since the last capture, as the existence track read them.
#[derive(Clone, Copy)]
pub(crate) struct Moved<'a> {
    /// The slots whose entity changed (`(slot, generation before)`): their values are
    /// recorded even where the new entity's equals the old one's, since a rollback must
    /// put the value back on the old entity.
    pub(crate) reoccupied: &'a [(u32, u32)],
    /// The tables that lost rows (whose rows may now hold other entities).
    pub(crate) shrunk: &'a [ArchetypeId],
}

/// Bytes a track's records hold: `recorded` counts the entries in use (keys and
/// values), `reserved` the capacity of every record buffer, in use or spare.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RecordBytes {
    pub(crate) recorded: usize,
    pub(crate) reserved: usize,
    pub(crate) shadow: usize,
}

impl std::ops::AddAssign for RecordBytes {
    fn add_assign(&mut self, other: RecordBytes) {
        self.recorded += other.recorded;
        self.reserved += other.reserved;
        self.shadow += other.shadow;
    }
}

/// One kind of tracked state. A track keeps a *shadow* (the tracked state as of the
/// newest checkpoint) and a ring of *records*, one per checkpoint: the previous values
/// of what that checkpoint found changed. Undoing a record swaps its values with the
/// shadow's, so the same record, kept, redoes it.
pub(crate) trait Track: Send + Sync {
    /// The tracked type's name, for errors and reports.
    fn name(&self) -> &'static str;

    /// Reads what changed since the last capture into a new, newest record, and brings
    /// the shadow up to the world. O(what changed).
    fn capture(&mut self, world: &World, since: Moved<'_>);

    /// Whether the newest record holds nothing.
    fn newest_is_empty(&self) -> bool;

    /// Swaps the newest `n` records, newest first, into the shadow (which becomes the
    /// state before them) and remembers the slots they touched for
    /// [`restore`](Track::restore). Kept records (`keep`) go, holding the values they
    /// replaced, onto the redo stack, newest last popped first; others are recycled.
    fn unwind(&mut self, n: usize, keep: bool);

    /// Swaps the most recently kept record back into the shadow and onto the ring.
    fn redo(&mut self);

    /// Forgets every kept record.
    fn clear_redo(&mut self);

    /// Forgets the oldest record of the ring.
    fn forget_oldest(&mut self);

    /// Relations only: takes the relation off entities alive in both states whose
    /// relation differs from the shadow's, before the rollback despawns anything.
    fn detach(&mut self, _world: &mut World, _existence: &Existence) {}

    /// Writes the shadow back where the world differs, in the slots the last
    /// unwind touched, if `phase` is this track's; returns how many values it wrote.
    fn restore(&mut self, world: &mut World, existence: &Existence, phase: Phase) -> usize;

    /// The track's share of the checksum: a sum over its shadow's values, or zero when
    /// it has no checksum.
    fn checksum(&self) -> u64;

    /// Bytes held by records and shadow.
    fn bytes(&self) -> RecordBytes;
}

/// The slots an unwind or redo touched, each once: a list, and an open-addressing set
/// of the listed slots sized to the list (a few kilobytes for a hundred slots, reused
/// from one rollback to the next, so it stays in cache where a bit per entity slot
/// would not).
pub(crate) struct Touched {
    slots: Vec<u32>,
    /// Listed slots at hashed places, `EMPTY` elsewhere; its length is a power of two
    /// at least twice the list's.
    set: Vec<u32>,
}

const EMPTY: u32 = u32::MAX;

impl Default for Touched {
    fn default() -> Self {
        Touched { slots: Vec::new(), set: vec![EMPTY; 64] }
    }
}

impl Touched {
    #[inline]
    fn place(&self, slot: u32) -> usize {
        let bits = self.set.len().trailing_zeros();
        (u64::from(slot).wrapping_mul(crate::util::hash::GOLDEN) >> (64 - bits)) as usize
    }

    /// Lists `slot` unless it is listed already; whether it was not.
    #[inline]
    pub(crate) fn add(&mut self, slot: u32) -> bool {
        if 2 * (self.slots.len() + 1) > self.set.len() {
            self.grow();
        }
        let mask = self.set.len() - 1;
        let mut at = self.place(slot);
        loop {
            match self.set[at] {
                EMPTY => break,
                listed if listed == slot => return false,
                _ => at = (at + 1) & mask,
            }
        }
        self.set[at] = slot;
        self.slots.push(slot);
        true
    }

    /// Doubles the set and places the listed slots again.
    #[cold]
    fn grow(&mut self) {
        let len = self.set.len() * 2;
        self.set.clear();
        self.set.resize(len, EMPTY);
        let mask = len - 1;
        for &slot in &self.slots {
            let mut at = self.place(slot);
            while self.set[at] != EMPTY {
                at = (at + 1) & mask;
            }
            self.set[at] = slot;
        }
    }

    pub(crate) fn slots(&self) -> &[u32] {
        &self.slots
    }

    /// Forgets every slot. O(slots listed).
    pub(crate) fn clear(&mut self) {
        if self.slots.len() * 4 >= self.set.len() {
            self.set.fill(EMPTY);
            self.slots.clear();
            return;
        }
        for i in 0..self.slots.len() {
            let slot = self.slots[i];
            let mask = self.set.len() - 1;
            let mut at = self.place(slot);
            while self.set[at] != slot {
                at = (at + 1) & mask;
            }
            self.set[at] = EMPTY;
        }
        self.slots.clear();
    }
}
