//! Loading, the part both formats share: values are read into staging areas under
//! the entity remap, everything is checked, and only then does the world change, in
//! one commit that cannot fail on the input.

use crate::change::Move;
use crate::component::ComponentId;
use crate::entity::{Entity, Location};
use crate::hierarchy::{CHILD_OF, ChildOf};
use crate::hook::HookKind;
use crate::storage::{ArchetypeId, Row};
use crate::world::World;

use super::entry::{StagedResource, Staging, staged_values};
use super::error::{LoadError, ValueSite};
use super::registry::SceneRegistry;
use super::remap::{EntityRemap, Installed, Mode, NONE};
use crate::entity::upcoming::Upcoming;

/// What a load made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// The new entities, in the order of the file.
    entities: Vec<Entity>,
    /// Their ids in the file, in the same order.
    file_ids: Vec<Entity>,
    /// Positions in `file_ids` sorted by file id; empty if `file_ids` is sorted.
    by_file_id: Vec<u32>,
    /// Resources inserted.
    resources: usize,
}

impl Loaded {
    /// The new entities, in the order of the file.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The new handle of the entity the file calls `id`.
    pub fn entity(&self, id: Entity) -> Option<Entity> {
        let position = if self.by_file_id.is_empty() {
            self.file_ids.binary_search(&id).ok()?
        } else {
            let k = self.by_file_id.binary_search_by_key(&id, |&i| self.file_ids[i as usize]).ok()?;
            self.by_file_id[k] as usize
        };
        Some(self.entities[position])
    }

    /// The entities' ids in the file, in the order of [`entities`](Self::entities).
    pub(crate) fn file_ids(&self) -> &[Entity] {
        &self.file_ids
    }

    /// How many resources were inserted (replacing any the world had).
    pub fn resources(&self) -> usize {
        self.resources
    }
}

/// One entity record of the input.
#[derive(Clone, Copy)]
struct Record {
    /// Its allocation slot once its id is read, `NONE` before.
    slot: u32,
    /// Its entries in `SceneLoad::entries` (start and end), sorted once the record
    /// ends. Records of one binary run share theirs.
    entries: (u32, u32),
}

impl Record {
    fn entries(self) -> std::ops::Range<usize> {
        self.entries.0 as usize..self.entries.1 as usize
    }
}

/// Why reading stopped: a refusal, or the discovery that the input refers to entities
/// of the world, which needs every declared id known before values are read.
pub(crate) enum Stop {
    Refused(LoadError),
    Reread(Vec<Entity>),
}

impl From<LoadError> for Stop {
    fn from(error: LoadError) -> Self {
        Stop::Refused(error)
    }
}

/// A load in progress: everything read so far, nothing yet in the world.
pub(crate) struct SceneLoad<'r> {
    pub(crate) registry: &'r SceneRegistry,
    staging: Vec<Option<Box<dyn Staging>>>,
    records: Vec<Record>,
    /// The component entries of every record, record after record.
    entries: Vec<u32>,
    /// Per component entry: 1 + the last record that named it.
    seen: Vec<u32>,
    resources: Vec<(usize, StagedResource)>,
    remap: Installed,
    /// Handles read in `Mode::Known` that no record declares, with where they were
    /// read: they must be alive in the world.
    world_references: Vec<(Entity, (u32, u32))>,
    /// Whether the remap runs in `Mode::Known` (and passes handles through).
    known: bool,
}

/// Record index used in a reference's site for resources.
const RESOURCE: u32 = u32::MAX;

impl<'r> SceneLoad<'r> {
    /// Starts a load into `world`, which will hold at most `max_records` records;
    /// `known` are the ids of every record, in order, when a first read found
    /// references to the world's entities.
    pub(crate) fn new(
        registry: &'r SceneRegistry,
        world: &World,
        max_records: usize,
        known: Option<&[Entity]>,
    ) -> Self {
        let upcoming: Upcoming = world.entities.upcoming(max_records);
        let mode = if known.is_some() { Mode::Known } else { Mode::Assign };
        let mut remap = EntityRemap::new(upcoming, mode);
        remap.expect(known.map_or(0, <[Entity]>::len));
        for (record, &id) in known.unwrap_or(&[]).iter().enumerate() {
            let _ = remap.declare(id, record as u32);
        }
        SceneLoad {
            registry,
            staging: (0..registry.components.len()).map(|_| None).collect(),
            records: Vec::new(),
            entries: Vec::new(),
            seen: vec![0; registry.components.len()],
            resources: Vec::new(),
            remap: Installed::new(remap),
            world_references: Vec::new(),
            known: mode == Mode::Known,
        }
    }

    /// Makes room for `count` more records (a count the input announced and its
    /// size bounds).
    pub(crate) fn expect_records(&mut self, count: usize) {
        self.records.reserve(count);
        self.remap.with(|remap| remap.expect(count));
    }

    /// How many records have been read.
    pub(crate) fn records(&self) -> usize {
        self.records.len()
    }

    /// Starts the next entity record; returns its index in the file.
    pub(crate) fn begin_record(&mut self) -> usize {
        let index = self.records.len();
        let at = self.entries.len() as u32;
        self.records.push(Record { slot: NONE, entries: (at, at) });
        index
    }

    /// The current record's id.
    pub(crate) fn id(&mut self, id: Entity) -> Result<(), LoadError> {
        let record = self.records.len() - 1;
        let slot = self.remap.with(|remap| declare(remap, id, record))?;
        self.records[record].slot = slot;
        Ok(())
    }

    /// Reads the current record's component `name` with `read`, which gets the
    /// entry's staging area and returns what the format's reader returns.
    pub(crate) fn component<E>(
        &mut self,
        name: &str,
        read: impl FnOnce(&mut dyn Staging) -> Result<usize, E>,
    ) -> Result<Result<usize, E>, LoadError> {
        let record = self.records.len() - 1;
        let predicted = self.predicted_entry().filter(|&entry| *self.registry.components[entry].name == *name);
        let Some(entry) = predicted.or_else(|| self.registry.component_index(name)) else {
            return Err(LoadError::UnknownComponent {
                entity: record,
                name: name.to_owned(),
                closest: self.registry.closest_component(name),
            });
        };
        self.component_at(entry, read)
    }

    /// The entry the current record's next component most likely names: the one the
    /// previous record named at the same place (records of one kind list their
    /// components in one order), which spares a lookup by name.
    fn predicted_entry(&self) -> Option<usize> {
        let [.., previous, current] = &self.records[..] else { return None };
        let at = previous.entries.0 as usize + (current.entries.1 - current.entries.0) as usize;
        (at < previous.entries.1 as usize).then(|| self.entries[at] as usize)
    }

    /// As [`component`](Self::component), by entry index (binary scenes name
    /// components by their index in the file's name table).
    pub(crate) fn component_at<E>(
        &mut self,
        entry: usize,
        read: impl FnOnce(&mut dyn Staging) -> Result<usize, E>,
    ) -> Result<Result<usize, E>, LoadError> {
        let record = self.records.len() - 1;
        let component = &self.registry.components[entry];
        if self.seen[entry] == record as u32 + 1 {
            return Err(LoadError::DuplicateComponent { entity: record, name: component.name.to_string() });
        }
        self.seen[entry] = record as u32 + 1;
        self.entries.push(entry as u32);
        self.records[record].entries.1 = self.entries.len() as u32;
        super::remap::set_site((record as u32, entry as u32));
        let staging = self.staging[entry].get_or_insert_with(|| component.new_staging());
        let result = read(&mut **staging);
        self.note_world_references();
        Ok(result)
    }

    /// Starts a run of records that share the components `entries` (binary scenes
    /// store runs column by column); returns them as a record's entries.
    pub(crate) fn begin_run(&mut self, entries: &[usize]) -> Result<(u32, u32), LoadError> {
        let record = self.records.len();
        let start = self.entries.len();
        for &entry in entries {
            if self.seen[entry] == record as u32 + 1 {
                let name = self.registry.components[entry].name.to_string();
                return Err(LoadError::DuplicateComponent { entity: record, name });
            }
            self.seen[entry] = record as u32 + 1;
            self.entries.push(entry as u32);
        }
        self.entries[start..].sort_unstable();
        Ok((start as u32, self.entries.len() as u32))
    }

    /// Adds the records of the run whose entries are `entries`, with their ids.
    pub(crate) fn run_records(&mut self, entries: (u32, u32), ids: &[Entity]) -> Result<(), LoadError> {
        let records = &mut self.records;
        self.remap.with(|remap| {
            for &id in ids {
                let slot = declare(remap, id, records.len())?;
                records.push(Record { slot, entries });
            }
            Ok(())
        })
    }

    /// Reads the values of `entry` for the run's records from `first` on, with `read`.
    pub(crate) fn read_run<E>(
        &mut self,
        entry: usize,
        read: impl FnOnce(&mut dyn Staging) -> Result<usize, E>,
    ) -> Result<usize, E> {
        let component = &self.registry.components[entry];
        let staging = self.staging[entry].get_or_insert_with(|| component.new_staging());
        let result = read(&mut **staging);
        self.note_world_references();
        result
    }

    /// Ends the current record: it must have had an id.
    pub(crate) fn end_record(&mut self) -> Result<(), LoadError> {
        let index = self.records.len() - 1;
        let record = self.records[index];
        if record.slot == NONE {
            return Err(LoadError::MissingId { entity: index });
        }
        self.entries[record.entries()].sort_unstable();
        Ok(())
    }

    /// Reads resource `name` with `read`.
    pub(crate) fn resource<E>(
        &mut self,
        name: &str,
        read: impl FnOnce(&super::entry::ResourceEntry) -> Result<(StagedResource, usize), E>,
    ) -> Result<Result<usize, E>, LoadError> {
        let Some(entry) = self.registry.resource_index(name) else {
            return Err(LoadError::UnknownResource {
                name: name.to_owned(),
                closest: self.registry.closest_resource(name),
            });
        };
        if self.resources.iter().any(|&(other, _)| other == entry) {
            return Err(LoadError::DuplicateResource { name: name.to_owned() });
        }
        super::remap::set_site((RESOURCE, entry as u32));
        let result = read(&self.registry.resources[entry]);
        self.note_world_references();
        Ok(result.map(|(value, taken)| {
            self.resources.push((entry, value));
            taken
        }))
    }

    /// Moves the handles the remap passed through as the world's into
    /// `world_references`.
    fn note_world_references(&mut self) {
        if !self.known {
            return;
        }
        self.remap.with(|remap| {
            if !remap.passed.is_empty() {
                self.world_references.append(&mut remap.passed);
            }
        });
    }

    /// The site of a value, from where the remap recorded it.
    pub(crate) fn site(&self, (record, entry): (u32, u32)) -> ValueSite {
        if record == RESOURCE {
            ValueSite::Resource { name: self.registry.resources[entry as usize].name.to_string() }
        } else {
            ValueSite::Component {
                entity: record as usize,
                name: self.registry.components[entry as usize].name.to_string(),
            }
        }
    }

    /// Checks what only the whole input can tell: every entity referred to is in the
    /// scene or alive in `world`, and the scene's parents make no cycle.
    pub(crate) fn check(&mut self, world: &World) -> Result<(), Stop> {
        self.check_references(world)?;
        self.check_hierarchy().map_err(Stop::from)
    }

    fn check_references(&mut self, world: &World) -> Result<(), Stop> {
        for &(reference, at) in &self.world_references {
            if !world.contains(reference) {
                return Err(LoadError::DanglingEntity { reference, site: self.site(at) }.into());
            }
        }
        // The first slot no record declares (slots are in order of first sight).
        let undeclared = self.remap.with(|remap| {
            let slot = remap.slots.iter().position(|slot| slot.record == NONE)?;
            Some((remap.slots[slot].id, remap.first_reference(slot)))
        });
        let Some((reference, at)) = undeclared else {
            return Ok(());
        };
        if world.contains(reference) {
            // A reference to one of the world's entities, read as a reference into
            // the scene: read again, knowing which ids the scene declares.
            return Err(Stop::Reread(self.file_ids_of_records()));
        }
        Err(LoadError::DanglingEntity { reference, site: self.site(at) }.into())
    }

    /// Each record's id in the file, in record order (every record has a slot once
    /// reading succeeded).
    fn file_ids_of_records(&self) -> Vec<Entity> {
        self.remap.with(|remap| self.records.iter().map(|record| remap.slots[record.slot as usize].id).collect())
    }

    /// Refuses a scene whose `ChildOf` values make a cycle (which the hierarchy would
    /// refuse once the entities were in): follows each record's chain of parents
    /// within the scene, each record once.
    fn check_hierarchy(&mut self) -> Result<(), LoadError> {
        let Some(entry) = self.registry.component_index_of(std::any::TypeId::of::<ChildOf>()) else {
            return Ok(());
        };
        let Some(parents) = self.staging[entry].as_deref_mut().and_then(staged_values::<ChildOf>) else {
            return Ok(());
        };
        // The records that name a parent, in order (the staged values follow them),
        // and the record each parent will be, if it is one of the scene's.
        let mut parent_of = vec![usize::MAX; self.records.len()];
        let children = self
            .records
            .iter()
            .enumerate()
            .filter(|(_, record)| self.entries[record.entries()].contains(&(entry as u32)));
        self.remap.with(|remap| {
            for ((child, _), parent) in children.zip(parents) {
                if let Some(parent) = remap.record_of_upcoming(parent.0) {
                    parent_of[child] = parent as usize;
                }
            }
        });
        // 0: not visited; 1: on the chain being followed; 2: known to reach no cycle.
        let mut state = vec![0u8; parent_of.len()];
        let mut chain = Vec::new();
        for start in 0..parent_of.len() {
            let mut at = start;
            while at != usize::MAX && state[at] == 0 {
                state[at] = 1;
                chain.push(at);
                at = parent_of[at];
            }
            if at != usize::MAX && state[at] == 1 {
                return Err(LoadError::HierarchyCycle { entity: at, parent: parent_of[at] });
            }
            for visited in chain.drain(..) {
                state[visited] = 2;
            }
        }
        Ok(())
    }

    /// The load's remap, installed for this thread (a level switches it to
    /// `Mode::Known` before checking its commands).
    pub(crate) fn installed(&self) -> &Installed {
        &self.remap
    }

    /// Puts everything read into `world`; nothing in the input can fail now.
    ///
    /// Entities are placed in runs of records with the same components, each run
    /// into its table in one go; then resources are inserted; then the `on_add` and
    /// `on_insert` hooks run for every entity in file order, and their commands apply.
    pub(crate) fn commit(mut self, world: &mut World) -> Loaded {
        let tick = world.change_tick();
        let slots = self.remap.with(|remap| remap.slots.len());
        debug_assert_eq!(slots, self.records.len(), "every slot is declared by a record");
        world.entities.reserve(slots);
        world.moves.reserve(slots);
        // Slots follow the records unless a value referred to an entity before its
        // record: then each record's entity is allocated as its table row is made,
        // otherwise all are allocated first, in slot order, and placed later.
        let in_order = self.records.iter().enumerate().all(|(i, record)| record.slot as usize == i);
        let file_ids = self.file_ids_of_records();
        let mut entities = if in_order { Vec::with_capacity(slots) } else { self.allocate_ahead(world, slots) };
        let upcoming = self.remap.with(|remap| std::mem::replace(&mut remap.upcoming, Upcoming::none()));
        let mut ids: Vec<(usize, ComponentId)> = Vec::new();
        // Each entry's id in the world, looked up once (runs repeat entries).
        let mut component_ids: Vec<Option<ComponentId>> = vec![None; self.registry.components.len()];
        let mut table_ids: Vec<ComponentId> = Vec::new();
        let mut placed: Vec<(ArchetypeId, std::ops::Range<usize>, Vec<ComponentId>)> = Vec::new();
        let mut start = 0;
        while start < self.records.len() {
            let end = self.run_end(start);
            let entries = &self.entries[self.records[start].entries()];
            ids.clear();
            table_ids.clear();
            for &entry in entries {
                let id = *component_ids[entry as usize]
                    .get_or_insert_with(|| self.registry.components[entry as usize].register_in(world));
                ids.push((entry as usize, id));
                if !world.components.is_sparse(id) {
                    table_ids.push(id);
                }
            }
            table_ids.sort_unstable();
            let archetype = world.archetypes.get_or_create(&table_ids, &world.components, tick);
            let table = world.archetypes.get_mut(archetype);
            if !table.is_empty() {
                table.reserve(end - start);
            } else {
                // An empty table's columns take the staged values' buffers instead.
                table.entities.reserve(end - start);
            }
            for k in start..end {
                let location = Location { archetype, row: Row(table.len() as u32) };
                let entity = if in_order {
                    let entity = world.entities.alloc(location);
                    assert_eq!(entity, upcoming.get(k), "ripple: the allocator gave the predicted handles");
                    entities.push(entity);
                    entity
                } else {
                    let entity = entities[k];
                    world.entities.set_location(entity.index(), location);
                    entity
                };
                table.entities.push(entity);
                world.moves.push(Move::between(entity, None, Some(archetype)));
            }
            let sparse_ids = self.place_values(world, archetype, &ids, &entities[start..end], tick);
            placed.push((archetype, start..end, sparse_ids));
            start = end;
        }
        let resources = self.resources.len();
        for (entry, value) in self.resources.drain(..) {
            (self.registry.resources[entry].insert)(world, value);
        }
        link_children(world, &placed, &entities);
        run_add_hooks(world, &placed, &entities);
        let mut by_file_id = Vec::new();
        if !file_ids.is_sorted() {
            by_file_id.extend(0..file_ids.len() as u32);
            by_file_id.sort_unstable_by_key(|&i| file_ids[i as usize]);
        }
        Loaded { entities, file_ids, by_file_id, resources }
    }

    /// Allocates every slot's entity in slot order (a value referred to an entity
    /// before its record), placed later; returns them in record order.
    fn allocate_ahead(&self, world: &mut World, slots: usize) -> Vec<Entity> {
        self.remap.with(|remap| {
            let mut handles = Vec::with_capacity(slots);
            for k in 0..slots {
                let handle = world.entities.alloc(Location::FREE);
                assert_eq!(handle, remap.upcoming.get(k), "ripple: the allocator gave the predicted handles");
                handles.push(handle);
            }
            self.records.iter().map(|record| handles[record.slot as usize]).collect()
        })
    }

    /// The end of the run of records from `start` with the same components. Records
    /// of one binary run share their entries; others compare them.
    fn run_end(&self, start: usize) -> usize {
        let first = self.records[start].entries;
        let entries = &self.entries[self.records[start].entries()];
        let mut end = start + 1;
        while end < self.records.len()
            && (self.records[end].entries == first || &self.entries[self.records[end].entries()] == entries)
        {
            end += 1;
        }
        end
    }

    /// Moves a run's staged values (of the entries and world ids in `ids`) into its
    /// table `archetype`, whose rows `entities` hold, or into the sparse sets; returns
    /// the sparse components' ids.
    fn place_values(
        &mut self,
        world: &mut World,
        archetype: ArchetypeId,
        ids: &[(usize, ComponentId)],
        entities: &[Entity],
        tick: crate::change::Tick,
    ) -> Vec<ComponentId> {
        let table = world.archetypes.get_mut(archetype);
        let mut sparse_ids = Vec::new();
        for &(entry, id) in ids {
            let staging = self.staging[entry].as_deref_mut().expect("ripple: staged values of a named entry");
            match table.column_index(id) {
                Some(column) => staging.push_into(&mut *table.columns[column], entities.len(), tick),
                None => {
                    sparse_ids.push(id);
                    let set = world.sparse.get_mut(id).expect("ripple: a sparse component has a set");
                    for &entity in entities {
                        staging.insert_into(set, entity, tick);
                    }
                }
            }
        }
        sparse_ids
    }
}

/// Declares `id` as record `record`'s (see [`EntityRemap::declare`]): its slot.
fn declare(remap: &mut EntityRemap, id: Entity, record: usize) -> Result<u32, LoadError> {
    match remap.declare(id, record as u32) {
        Ok(slot) => Ok(slot),
        // A reread declared every id up front, this one for this very record.
        Err(first) if first as usize == record => Ok(remap.lookup(id).expect("ripple: a declared id has a slot")),
        Err(first) => Err(LoadError::DuplicateEntity { id, entity: record, first: first as usize }),
    }
}

/// Puts every loaded child on its parent's children list, in file order, before any
/// hook runs (so `ChildOf`'s own hook finds nothing to follow). O(loaded children):
/// the load already refused cycles, so no link walks the tree.
fn link_children(
    world: &mut World,
    placed: &[(ArchetypeId, std::ops::Range<usize>, Vec<ComponentId>)],
    entities: &[Entity],
) {
    for (archetype, records, sparse) in placed {
        if !world.archetypes.get(*archetype).components().contains(&CHILD_OF) && !sparse.contains(&CHILD_OF) {
            continue;
        }
        for &child in &entities[records.clone()] {
            let &ChildOf(parent) = world.get::<ChildOf>(child).expect("ripple: a loaded ChildOf was placed");
            world.link_loaded(child, parent);
        }
    }
}

/// Runs the `on_add` then `on_insert` hooks of every loaded entity, in file order, as
/// a spawn would; their commands apply once all have run.
fn run_add_hooks(
    world: &mut World,
    placed: &[(ArchetypeId, std::ops::Range<usize>, Vec<ComponentId>)],
    entities: &[Entity],
) {
    let any = placed.iter().any(|(archetype, _, sparse)| {
        world.archetypes.get(*archetype).hooks.adds_or_inserts()
            || (!sparse.is_empty() && world.sparse_hooks.adds_or_inserts())
    });
    if !any {
        return;
    }
    let mut queue = std::mem::take(&mut world.hook_queue);
    for (archetype, records, sparse) in placed {
        let table_ids = world.archetypes.get(*archetype).components();
        for &entity in &entities[records.clone()] {
            for kind in [HookKind::Add, HookKind::Insert] {
                world.run_hooks(&mut queue, kind, entity, table_ids, |_| true);
                world.run_hooks(&mut queue, kind, entity, sparse, |_| true);
            }
        }
    }
    world.hook_queue = queue;
    // Observers after every loaded entity's hooks (their commands after the hooks').
    if world.has_reactor() {
        for (archetype, records, sparse) in placed {
            for &entity in &entities[records.clone()] {
                for kind in [HookKind::Add, HookKind::Insert] {
                    world.react_listed(kind, entity, |world, ids| {
                        ids.extend_from_slice(world.archetypes.get(*archetype).components());
                        ids.extend_from_slice(sparse);
                    });
                }
            }
        }
    }
    world.apply_hook_commands();
}
