//! [`DeltaReceiver`]: the receiving side. It reads a whole delta, with every entity
//! handle inside its values mapped to the local one, before the world changes; then
//! applies it.

use crate::entity::Entity;
use crate::hash::IdMap;
use crate::hierarchy::ChildOf;
use crate::scene::entry::{EntityValues, next_value};
use crate::scene::nesting::{NESTING_LIMIT, ReadError};
use crate::scene::remap::{EntityRemap, Installed, Mode};
use crate::scene::{EntityMap, SceneRegistry};
use crate::world::World;

use super::error::{DeltaError, ReplicateError};
use super::wire::{self, DESPAWN, FLAG_BITS, FULL, MAX_REPLICATED_COMPONENTS, REMOVED, Reader};

/// What [`DeltaReceiver::apply_delta`] did with a delta.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// Applied: the sender may be told so (acknowledge `seq`).
    Applied {
        /// The delta's sequence number.
        seq: u64,
        /// Entity records it held.
        records: usize,
        /// Local entities it spawned (new entities, and stand-ins for entities its
        /// values named that this receiver had not seen).
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
}

/// A record read, waiting for the commit.
struct Planned {
    /// The sender's handle.
    sender: Entity,
    target: Target,
    flags: u64,
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
    /// Nothing to do (a despawn of an entity this receiver does not hold).
    None,
}

/// The receiving side of replication from one sender: applies its deltas to a world,
/// all-or-nothing, and keeps the map from the sender's entities to local ones.
///
/// - **Entity references** inside values (an `Entity` field, `ChildOf`) are mapped to
///   the local entities; a reference to an entity the receiver has not seen yet gets
///   an empty local stand-in, which becomes that entity when it arrives.
/// - **Server authority:** a value the delta carries replaces the local one, even if
///   the receiver changed it since. Components and entities the sender does not
///   replicate are left alone.
/// - **Leaving the view:** an entity the sender despawned is despawned here. One
///   that left this receiver's view (or the replicated set) but lives on loses its
///   replicated components and stays as an empty stand-in, so that references to it
///   stay valid and it comes back as the same local entity; it is despawned when the
///   sender despawns it (stand-ins for entities that had no replicated component
///   there stay until the receiver despawns them). A despawn does not take the
///   entity's children here with it: the sender sends each despawn (so local children
///   of a replica are detached, not despawned).
/// - **Local despawns:** a replica the receiver despawns itself comes back when the
///   sender next sends it whole; references read before then name the despawned
///   entity.
/// - **Order:** deltas carry sequence numbers; one at or below the last applied is
///   ignored ([`Applied::Stale`]), so late, duplicated and reordered deltas do no
///   harm. Children keep the sender's order.
/// - **Refusal:** a malformed delta, or one from a sender whose registry differs, is
///   refused with a [`DeltaError`] before anything changes.
///
/// Values land through change tracking: written in place where the entity has the
/// component and no insert hook or observer waits for the type, inserted otherwise (so
/// `Changed<T>`, `OnChange` and hooks on the receiver see replicated changes).
pub struct DeltaReceiver {
    registry: SceneRegistry,
    schema: u32,
    map: EntityMap,
    last: Option<u64>,
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
    /// Children whose `ChildOf` the hierarchy refused, with the parent they should
    /// have: attached once a later delta lifts the refusal.
    unattached: Vec<(Entity, Entity)>,
}

impl std::fmt::Debug for DeltaReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeltaReceiver")
            .field("components", &self.registry.component_names().collect::<Vec<_>>())
            .field("mapped", &self.map.len())
            .field("last", &self.last)
            .finish_non_exhaustive()
    }
}

impl DeltaReceiver {
    /// A receiver of deltas written with a registry like `registry` (the same names,
    /// in the same order).
    ///
    /// # Errors
    /// [`ReplicateError::TooManyComponents`] past
    /// [`MAX_REPLICATED_COMPONENTS`](super::MAX_REPLICATED_COMPONENTS).
    pub fn new(registry: SceneRegistry) -> Result<DeltaReceiver, ReplicateError> {
        if registry.components.len() > MAX_REPLICATED_COMPONENTS {
            return Err(ReplicateError::TooManyComponents { registered: registry.components.len() });
        }
        Ok(DeltaReceiver {
            schema: wire::fingerprint(registry.component_names()),
            values: registry.components.iter().map(|entry| entry.new_entity_values()).collect(),
            child_of: registry.component_index_of(std::any::TypeId::of::<ChildOf>()),
            registry,
            map: EntityMap::new(),
            last: None,
            records: Vec::new(),
            orders: Vec::new(),
            children: Vec::new(),
            mentioned: IdMap::default(),
            unattached: Vec::new(),
            targets: Vec::new(),
        })
    }

    /// The sender's entities and the local ones that stand for them.
    pub fn entity_map(&self) -> &EntityMap {
        &self.map
    }

    /// The sequence number of the last delta applied.
    pub fn last_applied(&self) -> Option<u64> {
        self.last
    }

    /// Applies one delta to `world`: all of it, or, with an error, none of it.
    ///
    /// # Complexity
    /// O(records + values + entity references in them), plus O(children) per parent
    /// whose children it reorders; a snapshot also walks the entity map.
    ///
    /// # Errors
    /// [`DeltaError`] for a malformed delta or one from another registry; the world
    /// and the receiver are unchanged.
    pub fn apply_delta(&mut self, world: &mut World, delta: &[u8]) -> Result<Applied, DeltaError> {
        let mut reader = Reader::new(delta);
        let (seq, flags) = wire::read_header(&mut reader, self.schema)?;
        if self.last.is_some_and(|last| seq <= last) {
            return Ok(Applied::Stale { seq });
        }
        world.flush_reserved();
        // Every slot the read may make is declared by a record or named by a value,
        // each at least a byte.
        let upcoming = world.entities.upcoming(delta.len());
        let snapshot = flags & wire::SNAPSHOT != 0;
        let mut remap = EntityRemap::new(upcoming, Mode::Assign);
        remap.known = std::mem::take(&mut self.map);
        let installed = Installed::new(remap);
        let read = self.read_body(&mut reader);
        let mut remap = installed.finish();
        self.map = std::mem::take(&mut remap.known);
        if let Err(error) = read {
            self.values.iter_mut().for_each(|values| values.clear());
            self.records.clear();
            return Err(error);
        }
        self.resolve(world, &mut remap);
        let (records, spawned) = (self.records.len(), remap.slots.len());
        let despawned = self.commit(world, &remap, snapshot);
        self.last = Some(seq);
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
            if flags & DESPAWN != 0 && (set != 0 || flags != DESPAWN) {
                return Err(DeltaError::Malformed { at: header_at, what: "a despawn record with values" });
            }
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
            self.records.push(Planned { sender, target: Target::None, flags, set, removed });
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
    /// or (for one not held, or despawned here) a slot of `remap`'s, the entities the
    /// commit spawns. A despawn of an entity not held lands nowhere.
    fn resolve(&mut self, world: &World, remap: &mut EntityRemap) {
        for k in 0..self.records.len() {
            let record = &mut self.records[k];
            let held = self.map.get(record.sender);
            record.target = match held {
                Some(local) if world.contains(local) => Target::Local(local),
                stale if record.flags & DESPAWN != 0 => {
                    if stale.is_some() {
                        // Despawned here already: forgotten.
                        self.map.remove(record.sender);
                    }
                    Target::None
                }
                stale => {
                    if stale.is_some() {
                        // The receiver despawned it: it comes back as a new entity.
                        self.map.remove(record.sender);
                    }
                    let slot = remap
                        .declare(record.sender, k as u32)
                        .unwrap_or_else(|first| remap.lookup(record.sender).unwrap_or(first));
                    Target::Slot(slot)
                }
            };
        }
    }

    /// Applies what [`read_body`](Self::read_body) read; returns how many local
    /// entities were despawned.
    fn commit(&mut self, world: &mut World, remap: &EntityRemap, snapshot: bool) -> usize {
        self.mentioned.clear();
        let mut spawned = Vec::with_capacity(remap.slots.len());
        for (k, slot) in remap.slots.iter().enumerate() {
            let local = world.spawn(());
            debug_assert_eq!(local, remap.upcoming.get(k), "ripple: the allocator gave the predicted handles");
            self.map.insert(slot.id, local);
            spawned.push(local);
        }
        for values in &mut self.values {
            values.begin(world);
        }
        let entries = &self.registry.components;
        let child_of = self.child_of.map_or(0, |c| 1u64 << c);
        let plain = |record: &Planned| {
            record.flags == 0 && record.set & child_of == 0 && matches!(record.target, Target::Local(_))
        };
        if !snapshot && self.orders.is_empty() && self.records.iter().all(plain) {
            // Only values for entities held here (a frame's changes): each type's
            // values land in one pass.
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
            self.attach_refused(world);
            return 0;
        }
        let mut despawned = 0;
        if let Some(child_of) = self.child_of {
            // Every child whose parent the delta sets or removes leaves the one it
            // has first, so that no attachment meets a cycle the delta's others undo
            // (a child moved away before its old parent becomes its child).
            let bit = 1u64 << child_of;
            let moves = |record: &&Planned| (record.set | record.removed) & bit != 0 || record.flags & FULL != 0;
            for record in self.records.iter().filter(moves) {
                if let Target::Local(local) = record.target {
                    let _ = world.remove_parent(local);
                    self.unattached.retain(|&(child, _)| child != local);
                }
            }
        }
        for record in &self.records {
            let local = match record.target {
                Target::Local(local) => local,
                Target::Slot(k) => spawned[k as usize],
                // Not held here (a stand-in made for a value in this delta keeps
                // standing for it).
                Target::None => continue,
            };
            if record.flags & DESPAWN != 0 {
                // Last, once every child the sender detached first is detached here:
                // despawning a parent despawns its children.
                continue;
            }
            if snapshot {
                self.mentioned.insert(record.sender.to_bits(), ());
            }
            let mut removed = record.removed;
            if record.flags & FULL != 0 {
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
                        // again after each delta.
                        self.unattached.push((local, parent));
                    }
                } else {
                    // A hook despawned it meanwhile: the value is dropped.
                    self.values[c].skip_next();
                }
            }
        }
        for record in self.records.iter().filter(|record| record.flags & DESPAWN != 0) {
            if let Target::Local(local) = record.target {
                despawned += usize::from(gone(&mut self.map, world, record.sender, local));
            }
        }
        self.attach_refused(world);
        let mut locals = Vec::new();
        for &(parent, start, end) in &self.orders {
            let Some(parent) = self.map.get(parent).filter(|&local| world.contains(local)) else { continue };
            locals.clear();
            locals.extend(self.children[start..end].iter().filter_map(|&child| self.map.get(child)));
            world.reorder_children(parent, &locals);
        }
        if snapshot {
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
        self.records.clear();
        despawned
    }
}

impl DeltaReceiver {
    /// Tries again the `ChildOf`s the hierarchy refused (see `unattached`).
    fn attach_refused(&mut self, world: &mut World) {
        if self.unattached.is_empty() {
            return;
        }
        self.unattached.retain(|&(child, parent)| {
            world.contains(child)
                && world.contains(parent)
                && world.get::<ChildOf>(child).ok().map(ChildOf::parent) != Some(parent)
                && world.set_parent(child, parent).is_err()
        });
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
