//! Saving: [`SceneSaver`] walks the selected entities once and writes each value
//! straight from its column to the output, JSON or binary. Nothing is copied but the
//! bytes themselves, which go to the caller's writer a chunk at a time.

use std::io::Write;

use crate::component::ComponentId;
use crate::entity::{Entity, Location};
use crate::storage::{ArchetypeId, Column};
use crate::world::World;

use super::binary::{FORMAT_VERSION, MAGIC, write_str, write_varint};
use super::error::SaveError;
use super::json_out::JsonOut;
use super::registry::SceneRegistry;

/// What a save wrote, and what it left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SaveReport {
    /// Entities written.
    pub entities: usize,
    /// Resources written.
    pub resources: usize,
    /// Bytes written.
    pub bytes: u64,
    /// Component types the saved entities had but the registry does not name, with
    /// how many saved entities had each, by type name.
    pub skipped: Vec<SkippedComponent>,
}

/// A component type a save left out (see [`SaveReport::skipped`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedComponent {
    /// The type's name.
    pub component: &'static str,
    /// How many saved entities had it.
    pub entities: usize,
}

/// A save in preparation (from [`SceneRegistry::save`]): which entities, and how.
pub struct SceneSaver<'s> {
    registry: &'s SceneRegistry,
    world: &'s World,
    selection: Option<Vec<Entity>>,
    pretty: bool,
}

/// Where one registered component of an entity is read from.
#[derive(Clone, Copy)]
enum Source {
    Column(usize),
    Sparse(ComponentId),
}

/// How the entities of one table are saved: their registered components in
/// registration order, and the table's unregistered ones.
struct Plan {
    values: Vec<(usize, Source)>,
    skipped: Vec<ComponentId>,
}

/// The walk shared by both formats.
struct Walk<'s> {
    registry: &'s SceneRegistry,
    world: &'s World,
    plans: Vec<Option<Plan>>,
    /// Registered sparse components, with their entry.
    sparse: Vec<(usize, ComponentId)>,
    /// Sparse components the registry does not name.
    skipped_sparse: Vec<ComponentId>,
    /// Per component id: saved entities that had it unregistered.
    skipped: Vec<usize>,
    /// Scratch: the current entity's values.
    values: Vec<(usize, Source)>,
}

impl<'s> Walk<'s> {
    fn new(registry: &'s SceneRegistry, world: &'s World) -> Self {
        let mut sparse = Vec::new();
        let mut skipped_sparse = Vec::new();
        for &id in world.sparse.ids() {
            let type_id = world.components.info(id).type_id;
            match registry.component_index_of(type_id) {
                Some(entry) => sparse.push((entry, id)),
                None => skipped_sparse.push(id),
            }
        }
        Walk {
            registry,
            world,
            plans: Vec::new(),
            sparse,
            skipped_sparse,
            skipped: vec![0; world.components.len()],
            values: Vec::new(),
        }
    }

    /// Fills `values` with `entity`'s registered components, in registration order.
    fn visit(&mut self, entity: Entity, location: Location) {
        let index = location.archetype.index();
        if self.plans.len() <= index {
            self.plans.resize_with(index + 1, || None);
        }
        let plan = self.plans[index].get_or_insert_with(|| plan_for(self.registry, self.world, location.archetype));
        for &id in &plan.skipped {
            self.skipped[id.index()] += 1;
        }
        self.values.clear();
        self.values.extend_from_slice(&plan.values);
        if self.sparse.is_empty() && self.skipped_sparse.is_empty() {
            return;
        }
        let sets = &self.world.sparse;
        for &(entry, id) in &self.sparse {
            if sets.get(id).is_some_and(|set| set.contains(entity)) {
                self.values.push((entry, Source::Sparse(id)));
            }
        }
        for &id in &self.skipped_sparse {
            if sets.get(id).is_some_and(|set| set.contains(entity)) {
                self.skipped[id.index()] += 1;
            }
        }
        self.values.sort_unstable_by_key(|&(entry, _)| entry);
    }

    /// The column and row a value is read from.
    fn column(&self, entity: Entity, location: Location, source: Source) -> (&'s dyn Column, usize) {
        match source {
            Source::Column(column) => {
                (self.world.archetypes.get(location.archetype).column(column), location.row.index())
            }
            Source::Sparse(id) => {
                let set = self.world.sparse.get(id).expect("ripple: a planned sparse set");
                (&*set.values, set.dense(entity).expect("ripple: a planned sparse value"))
            }
        }
    }

    fn report(&self, entities: usize, resources: usize, bytes: u64) -> SaveReport {
        let skipped = self
            .skipped
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .map(|(id, &count)| SkippedComponent {
                component: self.world.components.info(ComponentId(id as u32)).name,
                entities: count,
            })
            .collect();
        SaveReport { entities, resources, bytes, skipped }
    }
}

fn plan_for(registry: &SceneRegistry, world: &World, archetype: ArchetypeId) -> Plan {
    let table = world.archetypes.get(archetype);
    let mut values = Vec::new();
    let mut skipped = Vec::new();
    for (column, &id) in table.components().iter().enumerate() {
        match registry.component_index_of(world.components.info(id).type_id) {
            Some(entry) => values.push((entry, Source::Column(column))),
            None => skipped.push(id),
        }
    }
    values.sort_unstable_by_key(|&(entry, _)| entry);
    Plan { values, skipped }
}

/// Counts what an `io::Write` is handed.
struct Counted<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Bytes gathered before binary output goes to the caller's writer.
const CHUNK: usize = 64 * 1024;

impl<'s> SceneSaver<'s> {
    pub(crate) fn new(registry: &'s SceneRegistry, world: &'s World) -> Self {
        SceneSaver { registry, world, selection: None, pretty: true }
    }

    /// Saves only these entities, in this order (a query's output, say), instead of
    /// every entity by ascending index. Each must be alive and named once.
    pub fn entities(mut self, entities: impl IntoIterator<Item = Entity>) -> Self {
        self.selection = Some(entities.into_iter().collect());
        self
    }

    /// Writes JSON without line breaks or indentation (pretty is the default).
    pub fn compact(mut self) -> Self {
        self.pretty = false;
        self
    }

    /// The entities to save, with their locations, checked.
    fn selected(&self) -> Result<Vec<(Entity, Location)>, SaveError> {
        let Some(selection) = &self.selection else {
            return Ok(self.world.entities.iter_alive().collect());
        };
        let mut seen = crate::hash::IdMap::<u64, ()>::default();
        let mut located = Vec::with_capacity(selection.len());
        for &entity in selection {
            let location = self.world.locate(entity).map_err(|_| SaveError::NoSuchEntity(entity))?;
            if seen.insert(entity.to_bits(), ()).is_some() {
                return Err(SaveError::DuplicateEntity(entity));
            }
            located.push((entity, location));
        }
        Ok(located)
    }

    /// Writes the scene as JSON: an object with the format's name and version, the
    /// registered resources the world has (keyed by name), and one object per entity
    /// — its `"id"` and its registered `"components"`, keyed by name, in registration
    /// order.
    ///
    /// ```text
    /// {
    ///   "format": "ripple-scene",
    ///   "version": 1,
    ///   "resources": {},
    ///   "entities": [
    ///     {
    ///       "id": "0v1",
    ///       "components": {
    ///         "position": { ... }
    ///       }
    ///     }
    ///   ]
    /// }
    /// ```
    ///
    /// # Errors
    /// [`SaveError`] if a selected entity is not alive or named twice (nothing is
    /// written then), a value's `Serialize` fails, or the writer does.
    pub fn to_json(self, writer: impl Write) -> Result<SaveReport, SaveError> {
        let selected = self.selected()?;
        let mut writer = Counted { inner: writer, bytes: 0 };
        let mut out = JsonOut::new(self.pretty);
        out.raw(b"{");
        out.line(1);
        out.key("format");
        out.raw(br#""ripple-scene","#);
        out.line(1);
        out.key("version");
        out.raw(format!("{FORMAT_VERSION},").as_bytes());
        out.line(1);
        out.key("resources");
        out.raw(b"{");
        let mut resources = 0;
        for entry in &self.registry.resources {
            if !(entry.has)(self.world) {
                continue;
            }
            out.raw(if resources == 0 { b"" } else { b"," });
            out.line(2);
            out.key(&entry.name);
            (entry.write_json)(self.world, &mut out, 2).map_err(|e| value_error(None, &entry.name, e))?;
            resources += 1;
        }
        if resources > 0 {
            out.line(1);
        }
        out.raw(b"},");
        out.line(1);
        out.key("entities");
        out.raw(b"[");
        let mut walk = Walk::new(self.registry, self.world);
        for (n, &(entity, location)) in selected.iter().enumerate() {
            walk.visit(entity, location);
            out.raw(if n == 0 { b"" } else { b"," });
            out.line(2);
            out.raw(b"{");
            out.line(3);
            out.key("id");
            out.entity(entity);
            out.raw(b",");
            out.line(3);
            out.key("components");
            out.raw(b"{");
            for (i, &(entry, source)) in walk.values.iter().enumerate() {
                let entry = &self.registry.components[entry];
                out.raw(if i == 0 { b"" } else { b"," });
                out.line(4);
                out.key(&entry.name);
                let (column, row) = walk.column(entity, location, source);
                (entry.write_json)(column, row, &mut out, 4).map_err(|e| value_error(Some(entity), &entry.name, e))?;
            }
            if !walk.values.is_empty() {
                out.line(3);
            }
            out.raw(b"}");
            out.line(2);
            out.raw(b"}");
            out.flush_if_full(&mut writer)?;
        }
        if !selected.is_empty() {
            out.line(1);
        }
        out.raw(b"]");
        out.line(0);
        out.raw(b"}");
        if self.pretty {
            out.raw(b"\n");
        }
        out.flush(&mut writer)?;
        Ok(walk.report(selected.len(), resources, writer.bytes))
    }

    /// Writes the scene in the binary format: postcard values behind a magic number
    /// and a format version (the layout is in the crate's design notes).
    ///
    /// # Errors
    /// As [`to_json`](Self::to_json).
    pub fn to_binary(self, writer: impl Write) -> Result<SaveReport, SaveError> {
        let selected = self.selected()?;
        let mut writer = Counted { inner: writer, bytes: 0 };
        let mut out = Vec::with_capacity(CHUNK + 4096);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        write_varint(self.registry.components.len() as u64, &mut out);
        for entry in &self.registry.components {
            write_str(&entry.name, &mut out);
        }
        let present: Vec<_> = self.registry.resources.iter().filter(|entry| (entry.has)(self.world)).collect();
        write_varint(present.len() as u64, &mut out);
        for entry in &present {
            write_str(&entry.name, &mut out);
            (entry.write_binary)(self.world, &mut out).map_err(|e| value_error(None, &entry.name, e))?;
        }
        write_varint(selected.len() as u64, &mut out);
        let mut walk = Walk::new(self.registry, self.world);
        for &(entity, location) in &selected {
            walk.visit(entity, location);
            write_varint(entity.to_bits(), &mut out);
            write_varint(walk.values.len() as u64, &mut out);
            for &(entry_index, source) in &walk.values {
                let entry = &self.registry.components[entry_index];
                write_varint(entry_index as u64, &mut out);
                let (column, row) = walk.column(entity, location, source);
                (entry.write_binary)(column, row, &mut out).map_err(|e| value_error(Some(entity), &entry.name, e))?;
            }
            if out.len() >= CHUNK {
                writer.write_all(&out)?;
                out.clear();
            }
        }
        writer.write_all(&out)?;
        Ok(walk.report(selected.len(), present.len(), writer.bytes))
    }
}

fn value_error(entity: Option<Entity>, name: &str, error: impl std::fmt::Display) -> SaveError {
    SaveError::Value { entity, name: name.to_owned(), message: error.to_string() }
}
