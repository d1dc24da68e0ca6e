//! [`DeltaReceiver`]: the receiving side. It reads a whole delta, with every entity
//! handle inside its values mapped to the local one, checks it against the receiver's
//! limits, and only then changes the world.

use crate::entity::Entity;
use crate::hierarchy::ChildOf;
use crate::scene::entry::{EntityValues, next_value};
use crate::scene::nesting::{NESTING_LIMIT, ReadError};
use crate::scene::remap::{EntityRemap, Installed, Mode, NONE};
use crate::scene::{EntityMap, SceneRegistry};
use crate::util::hash::IdMap;
use crate::world::World;

use super::error::{DeltaError, ReplicateError};
use super::receiver_limits::{ReceiverLimit, ReceiverLimits, RefusedParent, Unattached};
use super::wire::{self, FLAG_BITS, MAX_REPLICATED_COMPONENTS, REMOVED, Reader, RecordKind};

/// What [`DeltaReceiver::apply_delta`] did with a delta.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// Applied: the sender may be told so (acknowledge `seq`).
    Applied {
        /// The delta's sequence number.
        seq: u64,
        /// Entity records it held.
        records: usize,
        /// Local entities it spawned (entities that arrived whole, and stand-ins for
        /// entities its values named that this receiver had not seen).
        spawned: usize,
        /// Local entities it despawned.
        despawned: usize,
    },
    /// Ignored: a delta with this sequence number or a later one was applied before
    /// (a duplicate, or one that arrived after a later one). Do not acknowledge it.
    Stale {
        /// The delta's sequence number.
        seq: u64,
    },
    /// Ignored: the receiver was [`reset`](DeltaReceiver::reset) and applies nothing
    /// but a snapshot until one arrives. Do not acknowledge it.
    AwaitingSnapshot {
        /// The delta's sequence number.
        seq: u64,
    },
}

/// A record read, waiting for the commit.
#[derive(Clone, Copy)]
struct Planned {
    /// The sender's handle.
    sender: Entity,
    target: Target,
    kind: RecordKind,
    set: u64,
    removed: u64,
}

/// Where a record lands.
#[derive(Clone, Copy)]
enum Target {
    /// A local entity that exists.
    Local(Entity),
    /// The `k`-th entity the commit spawns.
    Slot(u32),
    /// Nothing to do (a despawn of an entity this receiver does not hold, or values
    /// for one it does not hold whole).
    None,
    /// A despawn of an entity the receiver despawned itself: the handle is forgotten.
    Forget,
}

/// The receiving side of replication from one sender: applies its deltas to a world,
/// all-or-nothing, and keeps the map from the sender's handles to local entities.
///
/// - **Entity references** inside values (an `Entity` field, `ChildOf`) are mapped to
///   the local entities; a reference to an entity the receiver has not seen yet gets
///   an empty local *stand-in*, which becomes that entity when it arrives.
/// - **Server authority:** a value the delta carries replaces the local one, even if
///   the receiver changed it since. Components and entities the sender does not
///   replicate are left alone.
/// - **Leaving the view:** an entity the sender despawned is despawned here. One
///   that left this receiver's view (or the replicated set) but lives on loses its
///   replicated components and stays as an empty stand-in, so that references to it
///   stay valid and it comes back as the same local entity; it is despawned when the
///   sender despawns it. A despawn does not take the entity's children here with it:
///   the sender sends each despawn (so local children of a replica are detached, not
///   despawned).
/// - **Local despawns:** a replica the receiver despawns itself comes back only
///   whole: the values the sender changes meanwhile are dropped, and it comes back,
///   as a new local entity, when the sender next sends it whole (it re-enters the
///   view, or the sender [`resync`](super::Replicator::resync)s). References read
///   before then name the despawned entity.
/// - **Order:** deltas carry sequence numbers; one at or below the last applied is
///   ignored ([`Applied::Stale`]), so late, duplicated and reordered deltas do no
///   harm. Children keep the sender's order.
/// - **Refusal:** a malformed delta, one from a sender whose registry differs, or one
///   that would take the receiver past its [`ReceiverLimits`], is refused with a
///   [`DeltaError`] before anything changes.
/// - **Starting over:** [`reset`](Self::reset) despawns everything the receiver made
///   and waits for a snapshot: the way back from a sender the receiver lost track of
///   (a sequence number from a forged or restarted sender makes every later delta
///   stale), together with [`Replicator::resync`](super::Replicator::resync) on the
///   sending side.
///
/// Values land through change tracking: written in place where the entity has the
/// component and no insert hook or observer waits for the type, inserted otherwise (so
/// `Changed<T>`, `OnChange` and hooks on the receiver see replicated changes).
pub struct DeltaReceiver {
    registry: SceneRegistry,
    schema: u32,
    map: EntityMap,
    last: Option<u64>,
    /// After a reset: nothing but a snapshot is applied.
    awaiting_snapshot: bool,
    limits: ReceiverLimits,
    /// Sender handles whose local entities were made for references only (no record
    /// has sent them yet).
    stand_ins: IdMap<u64, ()>,
    values: Vec<Box<dyn EntityValues>>,
    records: Vec<Planned>,
    /// Order records: the parent, and its children's range in `children`.
    orders: Vec<(Entity, usize, usize)>,
    children: Vec<Entity>,
    mentioned: IdMap<u64, ()>,
    /// The registry index of `ChildOf`, if registered.
    child_of: Option<usize>,
    /// Scratch: one type's targets.
    targets: Vec<Entity>,
    /// Children whose `ChildOf` the hierarchy refused: attached once a later delta
    /// lifts the refusal, within their retries.
    unattached: Unattached,
}

impl std::fmt::Debug for DeltaReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeltaReceiver")
            .field("components", &self.registry.component_names().collect::<Vec<_>>())
            .field("mapped", &self.map.len())
            .field("stand_ins", &self.stand_ins.len())
            .field("last", &self.last)
            .finish_non_exhaustive()
    }
}

impl DeltaReceiver {
    /// A receiver of deltas written with a registry like `registry` (the same names
    /// and types' shapes, in the same order), with the default [`ReceiverLimits`].
    ///
    /// # Errors
    /// [`ReplicateError::TooManyComponents`] past
    /// [`MAX_REPLICATED_COMPONENTS`](super::MAX_REPLICATED_COMPONENTS).
    pub fn new(registry: SceneRegistry) -> Result<DeltaReceiver, ReplicateError> {
        if registry.components.len() > MAX_REPLICATED_COMPONENTS {
            return Err(ReplicateError::TooManyComponents { registered: registry.components.len() });
        }
        Ok(DeltaReceiver {
            schema: wire::fingerprint(&registry),
            values: registry.components.iter().map(|entry| entry.new_entity_values()).collect(),
            child_of: registry.component_index_of(std::any::TypeId::of::<ChildOf>()),
            registry,
            map: EntityMap::new(),
            last: None,
            awaiting_snapshot: false,
            limits: ReceiverLimits::default(),
            stand_ins: IdMap::default(),
            records: Vec::new(),
            orders: Vec::new(),
            children: Vec::new(),
            mentioned: IdMap::default(),
            unattached: Unattached::default(),
            targets: Vec::new(),
        })
    }

    /// Sets the receiver's limits (see [`ReceiverLimits`]); deltas that would pass them
    /// from now on are refused.
    pub fn set_limits(&mut self, limits: ReceiverLimits) {
        self.limits = limits;
    }

    /// The receiver's limits.
    pub fn limits(&self) -> &ReceiverLimits {
        &self.limits
    }

    /// The sender's handles and the local entities that stand for them.
    pub fn entity_map(&self) -> &EntityMap {
        &self.map
    }

    /// How many mapped entities are stand-ins made for references only.
    pub fn stand_ins(&self) -> usize {
        self.stand_ins.len()
    }

    /// The sequence number of the last delta applied.
    pub fn last_applied(&self) -> Option<u64> {
        self.last
    }

    /// Takes the parent links given up since the last call: children whose `ChildOf`
    /// the hierarchy refused (a cycle, say) for more deltas than
    /// [`ReceiverLimits::parent_retries`], or that were pushed out past
    /// [`ReceiverLimits::pending_parents`]. At most the latest 256 are kept.
    pub fn drain_refused_parents(&mut self) -> impl Iterator<Item = RefusedParent> + '_ {
        self.unattached.drain_refused()
    }

    /// Starts over: despawns every local entity this receiver made (replicas and
    /// stand-ins, their local children detached first), forgets the sender's handles
    /// and its sequence numbers, and from now on applies nothing but a snapshot until
    /// one arrives ([`Applied::AwaitingSnapshot`]). Returns how many entities it
    /// despawned.
    ///
    /// Pair it with [`Replicator::resync`](super::Replicator::resync) for this peer on
    /// the sending side (told over the caller's channel), whose next delta is the
    /// snapshot. O(mapped entities).
    pub fn reset(&mut self, world: &mut World) -> usize {
        let locals: Vec<(Entity, Entity)> = self.map.iter().collect();
        let mut despawned = 0;
        for (sender, local) in locals {
            if world.contains(local) {
                despawned += usize::from(gone(&mut self.map, world, sender, local));
            }
        }
        self.map.clear();
        self.stand_ins.clear();
        self.unattached.clear();
        self.last = None;
        self.awaiting_snapshot = true;
        despawned
    }

    /// Applies one delta to `world`: all of it, or, with an error, none of it.
    ///
    /// # Complexity
    /// O(records + values + entity references in them), plus O(children) per parent
    /// whose children it reorders, plus O(refused parent links waiting); a snapshot
    /// also walks the entity map.
    ///
    /// # Errors
    /// [`DeltaError`] for a malformed delta, one from another registry, or one that
    /// would pass the receiver's limits; the world and the receiver are unchanged.
    pub fn apply_delta(&mut self, world: &mut World, delta: &[u8]) -> Result<Applied, DeltaError> {
        let mut reader = Reader::new(delta);
        let (seq, flags) = wire::read_header(&mut reader, self.schema)?;
        if self.last.is_some_and(|last| seq <= last) {
            return Ok(Applied::Stale { seq });
        }
        let snapshot = flags & wire::SNAPSHOT != 0;
        if self.awaiting_snapshot && !snapshot {
            return Ok(Applied::AwaitingSnapshot { seq });
        }
        world.flush_reserved();
        // Every slot the read may make is declared by a record or named by a value,
        // each at least a byte.
        let upcoming = world.entities.upcoming(delta.len());
        let mut remap = EntityRemap::new(upcoming, Mode::Assign);
        remap.known = std::mem::take(&mut self.map);
        let installed = Installed::new(remap);
        let read = self.read_body(&mut reader);
        let mut remap = installed.finish();
        self.map = std::mem::take(&mut remap.known);
        let checked = read.and_then(|()| {
            self.resolve(world, &mut remap);
            self.check_limits(&remap)
        });
        if let Err(error) = checked {
            self.values.iter_mut().for_each(|values| values.clear());
            self.records.clear();
            return Err(error);
        }
        let (records, spawned) = (self.records.len(), remap.slots.len());
        let despawned = self.commit(world, &remap, snapshot);
        self.last = Some(seq);
        self.awaiting_snapshot = false;
        Ok(Applied::Applied { seq, records, spawned, despawned })
    }

    /// Reads the records and orders into `self.records`, `self.orders` and the
    /// values' staging.
    fn read_body(&mut self, reader: &mut Reader<'_>) -> Result<(), DeltaError> {
        self.records.clear();
        self.orders.clear();
        self.children.clear();
        let entries = &self.registry.components;
        let all = wire::component_mask(entries.len());
        let count = reader.count("record count")?;
        self.records.reserve(count);
        for _ in 0..count {
            let sender = entity(reader, "record's entity")?;
            let header_at = reader.at;
            let header = reader.varint("record header")?;
            let flags = header & ((1 << FLAG_BITS) - 1);
            let set = header >> FLAG_BITS;
            let removed = if flags & REMOVED != 0 { reader.varint("removed components")? } else { 0 };
            if (set | removed) & !all != 0 {
                return Err(DeltaError::UnknownComponent { at: header_at, components: set | removed });
            }
            let kind = wire::record_kind(header_at, flags, set)?;
            let mut bits = set;
            while bits != 0 {
                let c = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let at = reader.at;
                let taken = self.values[c].read_binary(reader.rest()).map_err(|error| DeltaError::Value {
                    at,
                    component: entries[c].name.to_string(),
                    entity: sender,
                    message: match error {
                        ReadError::TooDeep => format!("the value nests deeper than {NESTING_LIMIT} levels"),
                        ReadError::Value(error) => error.to_string(),
                        ReadError::Refused(message) => message,
                    },
                })?;
                reader.skip(taken);
            }
            self.records.push(Planned { sender, target: Target::None, kind, set, removed });
        }
        let parents = reader.count("order count")?;
        for _ in 0..parents {
            let parent = entity(reader, "parent")?;
            let count = reader.count("child count")?;
            let start = self.children.len();
            for _ in 0..count {
                self.children.push(entity(reader, "child")?);
            }
            self.orders.push((parent, start, self.children.len()));
        }
        if reader.at != reader.input.len() {
            return Err(DeltaError::Malformed { at: reader.at, what: "bytes after the delta's end" });
        }
        Ok(())
    }

    /// Finds where each record lands: the local entity that stands for its sender's,
    /// or, for an entity not held (or despawned here) that arrives whole, a slot of
    /// `remap`'s, the entities the commit spawns. Other records of entities not held
    /// land nowhere. Changes nothing but `remap`.
    fn resolve(&mut self, world: &World, remap: &mut EntityRemap) {
        for k in 0..self.records.len() {
            let record = &mut self.records[k];
            let held = self.map.get(record.sender);
            record.target = match (held, record.kind) {
                (Some(local), _) if world.contains(local) => Target::Local(local),
                (Some(_), RecordKind::Gone) => Target::Forget,
                (_, RecordKind::Whole) => {
                    let slot = remap
                        .declare(record.sender, k as u32)
                        .unwrap_or_else(|first| remap.lookup(record.sender).unwrap_or(first));
                    Target::Slot(slot)
                }
                // Values or a view change for an entity not held whole here: it comes
                // back whole or not at all.
                _ => Target::None,
            };
        }
    }

    /// Refuses a delta that would take the receiver past its limits.
    fn check_limits(&self, remap: &EntityRemap) -> Result<(), DeltaError> {
        let limits = &self.limits;
        let entities = self.map.len() + remap.slots.len();
        if entities > limits.entities {
            return Err(DeltaError::Limit { limit: ReceiverLimit::Entities, max: limits.entities, would_be: entities });
        }
        let new = (0..remap.slots.len()).filter(|&k| self.spawns_stand_in(remap, k)).count();
        let filled = self
            .records
            .iter()
            .filter(|r| {
                r.kind == RecordKind::Whole
                    && matches!(r.target, Target::Local(_))
                    && self.stand_ins.contains_key(&r.sender.to_bits())
            })
            .count();
        let stand_ins = self.stand_ins.len() + new - filled.min(self.stand_ins.len());
        if stand_ins > limits.stand_ins && new > 0 {
            return Err(DeltaError::Limit {
                limit: ReceiverLimit::StandIns,
                max: limits.stand_ins,
                would_be: stand_ins,
            });
        }
        Ok(())
    }

    /// Whether the commit's `k`-th spawn is a stand-in: no record of this delta lands
    /// on it whole.
    fn spawns_stand_in(&self, remap: &EntityRemap, k: usize) -> bool {
        let record = remap.slots[k].record;
        record == NONE
            || !matches!(self.records.get(record as usize), Some(Planned { target: Target::Slot(s), .. }) if *s as usize == k)
    }

    /// Applies what [`read_body`](Self::read_body) read; returns how many local
    /// entities were despawned. O(records + values + the children reordered).
    fn commit(&mut self, world: &mut World, remap: &EntityRemap, snapshot: bool) -> usize {
        self.mentioned.clear();
        let spawned = self.spawn_slots(world, remap);
        for values in &mut self.values {
            values.begin(world);
        }
        if !snapshot && self.commit_values_only(world) {
            return 0;
        }
        self.detach_moving_children(world);
        for i in 0..self.records.len() {
            let record = self.records[i];
            let local = match record.target {
                Target::Local(local) => local,
                Target::Slot(k) => spawned[k as usize],
                Target::Forget => {
                    self.map.remove(record.sender);
                    self.stand_ins.remove(&record.sender.to_bits());
                    continue;
                }
                // Not held here (a stand-in made for a value in this delta keeps
                // standing for it): its values are dropped.
                Target::None => {
                    self.skip_values(record.set);
                    continue;
                }
            };
            if record.kind == RecordKind::Gone {
                // Last, once every child the sender detached first is detached here:
                // despawning a parent despawns its children.
                continue;
            }
            if snapshot {
                self.mentioned.insert(record.sender.to_bits(), ());
            }
            if record.kind == RecordKind::Whole {
                self.stand_ins.remove(&record.sender.to_bits());
            }
            self.apply_components(world, record, local);
        }
        let mut despawned = 0;
        for i in 0..self.records.len() {
            let record = self.records[i];
            if let (RecordKind::Gone, Target::Local(local)) = (record.kind, record.target) {
                self.stand_ins.remove(&record.sender.to_bits());
                despawned += usize::from(gone(&mut self.map, world, record.sender, local));
            }
        }
        self.unattached.retry(world);
        self.apply_orders(world);
        if snapshot {
            self.hollow_unmentioned(world);
        }
        self.records.clear();
        despawned
    }

    /// Spawns the commit's new entities (each slot of `remap`, in order, as predicted)
    /// and returns them; records which are stand-ins.
    fn spawn_slots(&mut self, world: &mut World, remap: &EntityRemap) -> Vec<Entity> {
        let mut spawned = Vec::with_capacity(remap.slots.len());
        for (k, slot) in remap.slots.iter().enumerate() {
            let local = world.spawn(());
            debug_assert_eq!(local, remap.upcoming.get(k), "ripple: the allocator gave the predicted handles");
            self.map.insert(slot.id, local);
            if self.spawns_stand_in(remap, k) {
                self.stand_ins.insert(slot.id.to_bits(), ());
            } else {
                self.stand_ins.remove(&slot.id.to_bits());
            }
            spawned.push(local);
        }
        spawned
    }

    /// The commit of a delta of values only, for entities held here (a frame's
    /// changes), if this one is: each type's values land in one pass. Returns whether
    /// it was.
    fn commit_values_only(&mut self, world: &mut World) -> bool {
        let child_of = self.child_of.map_or(0, |c| 1u64 << c);
        let plain = |record: &Planned| {
            record.kind == RecordKind::Diff
                && record.removed == 0
                && record.set & child_of == 0
                && matches!(record.target, Target::Local(_))
        };
        if !self.orders.is_empty() || !self.records.iter().all(plain) {
            return false;
        }
        for (c, values) in self.values.iter_mut().enumerate() {
            self.targets.clear();
            self.targets.extend(self.records.iter().filter_map(|record| match record.target {
                Target::Local(local) if record.set & (1 << c) != 0 => Some(local),
                _ => None,
            }));
            if !self.targets.is_empty() {
                values.set_all(world, &self.targets);
            }
        }
        self.records.clear();
        self.unattached.retry(world);
        true
    }

    /// Every child whose parent the delta sets or removes leaves the one it has first,
    /// so that no attachment meets a cycle the delta's others undo (a child moved away
    /// before its old parent becomes its child).
    fn detach_moving_children(&mut self, world: &mut World) {
        let Some(child_of) = self.child_of else { return };
        let bit = 1u64 << child_of;
        let moves = |record: &&Planned| {
            (record.set | record.removed) & bit != 0 || matches!(record.kind, RecordKind::Whole | RecordKind::Hide)
        };
        for record in self.records.iter().filter(moves) {
            if let Target::Local(local) = record.target {
                let _ = world.remove_parent(local);
                self.unattached.forget_child(local);
            }
        }
    }

    /// Drops the next value of each component type in `set`.
    fn skip_values(&mut self, mut set: u64) {
        while set != 0 {
            let c = set.trailing_zeros() as usize;
            set &= set - 1;
            self.values[c].skip_next();
        }
    }

    /// Removes and sets `record`'s components on `local`.
    fn apply_components(&mut self, world: &mut World, record: Planned, local: Entity) {
        let entries = &self.registry.components;
        let mut removed = record.removed;
        if matches!(record.kind, RecordKind::Whole | RecordKind::Hide) {
            removed |= !record.set & wire::component_mask(entries.len());
        }
        while removed != 0 {
            let c = removed.trailing_zeros() as usize;
            removed &= removed - 1;
            if world.contains(local) && entries[c].has(world, local) {
                entries[c].remove_from(world, local);
            }
        }
        let mut set = record.set;
        while set != 0 {
            let c = set.trailing_zeros() as usize;
            set &= set - 1;
            if world.contains(local) {
                let parent = (Some(c) == self.child_of)
                    .then(|| next_value::<ChildOf>(&*self.values[c]).map(ChildOf::parent))
                    .flatten();
                self.values[c].set_next(world, local);
                if let Some(parent) = parent
                    && world.get::<ChildOf>(local).ok().map(ChildOf::parent) != Some(parent)
                {
                    // Refused (a cycle with a relation a later delta undoes): tried
                    // again after each delta, within the retries.
                    self.unattached.push(local, parent, &self.limits);
                }
            } else {
                // A hook despawned it meanwhile: the value is dropped.
                self.values[c].skip_next();
            }
        }
    }

    /// Puts the children of each parent the delta orders in the delta's order.
    fn apply_orders(&mut self, world: &mut World) {
        let mut locals = Vec::new();
        for &(parent, start, end) in &self.orders {
            let Some(parent) = self.map.get(parent).filter(|&local| world.contains(local)) else { continue };
            locals.clear();
            locals.extend(self.children[start..end].iter().filter_map(|&child| self.map.get(child)));
            world.reorder_children(parent, &locals);
        }
    }

    /// After a snapshot: every entity held here that it did not name is emptied.
    fn hollow_unmentioned(&mut self, world: &mut World) {
        let unnamed: Vec<Entity> = self
            .map
            .iter()
            .filter(|(sender, _)| !self.mentioned.contains_key(&sender.to_bits()))
            .map(|(_, local)| local)
            .collect();
        for local in unnamed {
            hollow(&self.registry, world, local);
        }
    }
}

/// The local entity of `sender`, despawned by the sender, is despawned here. Its
/// children are detached first: the sender sends the despawn of each child it
/// despawned, and a child it detached first (in a delta that may arrive later) lives.
fn gone(map: &mut EntityMap, world: &mut World, sender: Entity, local: Entity) -> bool {
    map.remove(sender);
    if world.children(local).is_ok_and(|children| !children.is_empty()) {
        let _ = world.detach_children(local);
    }
    world.despawn(local).is_ok()
}

/// The local entity of a sender's entity out of view (or not named by a snapshot)
/// loses its replicated components and stays as a stand-in.
fn hollow(registry: &SceneRegistry, world: &mut World, local: Entity) {
    for entry in &registry.components {
        if world.contains(local) && entry.has(world, local) {
            entry.remove_from(world, local);
        }
    }
}

/// Reads an entity handle written as its 64 bits.
fn entity(reader: &mut Reader<'_>, what: &'static str) -> Result<Entity, DeltaError> {
    let at = reader.at;
    let bits = reader.varint(what)?;
    Entity::from_bits(bits).ok_or(DeltaError::Malformed { at, what: "an entity handle of generation 0" })
}
