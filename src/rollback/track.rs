//! What every kind of tracked state (component values, relation lists, resources)
//! does for a [`Rollback`](super::Rollback): capture what changed into a record, put
//! records back into its shadow, and write the shadow back into the world.

use crate::storage::ArchetypeId;
use crate::util::hash::IdMap;
use crate::world::World;

use super::existence::Existence;
use super::ring::Kept;

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

    /// The track's records, for the steps every track takes alike.
    fn kept(&self) -> &dyn Kept;

    /// [`kept`](Track::kept), mutably.
    fn kept_mut(&mut self) -> &mut dyn Kept;

    /// Whether the newest record holds nothing.
    fn newest_is_empty(&self) -> bool {
        self.kept().newest_is_empty()
    }

    /// Swaps the newest `n` records, newest first, into the shadow (which becomes the
    /// state before them) and remembers the slots they touched for
    /// [`restore`](Track::restore). Kept records (`keep`) go, holding the values they
    /// replaced, onto the redo stack, newest last popped first; others are recycled.
    fn unwind(&mut self, n: usize, keep: bool);

    /// Swaps the most recently kept record back into the shadow and onto the ring.
    fn redo(&mut self);

    /// Forgets every record that could be redone.
    fn clear_redo(&mut self) {
        self.kept_mut().clear_redo();
    }

    /// Forgets the oldest record of the ring.
    fn forget_oldest(&mut self) {
        self.kept_mut().forget_oldest();
    }

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

/// The slots an unwind or redo touched, each once: a list, and a set of the listed
/// slots sized to the list (a few kilobytes for a hundred slots, reused from one
/// rollback to the next, so it stays in cache where a bit per entity slot would not).
#[derive(Default)]
pub(crate) struct Touched {
    slots: Vec<u32>,
    listed: IdMap<u32, ()>,
}

impl Touched {
    /// Lists `slot` unless it is listed already; whether it was not.
    #[inline]
    pub(crate) fn add(&mut self, slot: u32) -> bool {
        let new = self.listed.insert(slot, ()).is_none();
        if new {
            self.slots.push(slot);
        }
        new
    }

    pub(crate) fn slots(&self) -> &[u32] {
        &self.slots
    }

    /// Forgets every slot, keeping the capacity.
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.listed.clear();
    }
}
