//! Saving: [`SceneSaver`] walks the selected entities once and writes each value
//! straight from its column to the output, JSON or binary. Nothing is copied but the
//! bytes themselves, which go to the caller's writer a chunk at a time (or, saving
//! into a byte vector, straight into it).

use std::io::Write;

use crate::component::ComponentId;
use crate::entity::{Entity, Location};
use crate::hierarchy::ChildOf;
use crate::storage::{ArchetypeId, SparseSet};
use crate::world::World;

use super::binary::{FORMAT_VERSION, MAGIC, id_delta, write_str, write_varint};
use super::checked_write::{Refusal, WriteError};
use super::entry::ValueWriter;
use super::error::SaveError;
use super::json_out::JsonOut;
use super::registry::SceneRegistry;
use super::sibling_order::SiblingOrder;

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
    /// how many saved entities had each, by type name. A relation's list
    /// ([`Children`](crate::hierarchy::Children), [`Related`](crate::relation::Related)) is not among them
    /// while the registry names its relation: a load into a world that has the
    /// relation registered rebuilds it.
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

/// Saving starts from the registry.
impl SceneRegistry {
    /// Starts a save of `world`: every entity, or those given to
    /// [`entities`](SceneSaver::entities), written with
    /// [`to_json`](SceneSaver::to_json) or [`to_binary`](SceneSaver::to_binary).
    pub fn save<'s>(&'s self, world: &'s World) -> SceneSaver<'s> {
        SceneSaver::new(self, world)
    }
}

/// A save in preparation (from [`SceneRegistry::save`]): which entities, and how.
pub struct SceneSaver<'s> {
    registry: &'s SceneRegistry,
    world: &'s World,
    selection: Option<Vec<Entity>>,
    pretty: bool,
}

/// Where one value of the current entity is written from.
#[derive(Clone, Copy)]
enum Source {
    /// The value at index `.0` of the current table's plan.
    Table(usize),
    /// Registered sparse component `.0`, at dense row `.1`.
    Sparse(usize, usize),
}

/// How the entities of one table are saved: its registered components in
/// registration order, each bound for writing, and its unregistered ones.
struct Plan<'s> {
    values: Vec<(usize, Box<dyn ValueWriter + 's>)>,
    skipped: Vec<ComponentId>,
}

/// A registered component stored in a sparse set.
struct SparseValues<'s> {
    entry: usize,
    set: &'s SparseSet,
    writer: Box<dyn ValueWriter + 's>,
}

/// The walk shared by both formats.
struct Walk<'s> {
    registry: &'s SceneRegistry,
    world: &'s World,
    /// Per table, by archetype index, once a saved entity is in it.
    plans: Vec<Option<Plan<'s>>>,
    sparse: Vec<SparseValues<'s>>,
    /// Sparse components the registry does not name, with their ids.
    skipped_sparse: Vec<(&'s SparseSet, ComponentId)>,
    /// Per component id: saved entities that had it unregistered.
    skipped: Vec<usize>,
    /// The current entity: its table's index and row, and its values (entry, where).
    table: usize,
    row: usize,
    values: Vec<(usize, Source)>,
}

impl<'s> Walk<'s> {
    fn new(registry: &'s SceneRegistry, world: &'s World) -> Self {
        let mut sparse = Vec::new();
        let mut skipped_sparse = Vec::new();
        for &id in world.sparse.ids() {
            let set = world.sparse.get(id).expect("ripple: a listed sparse set");
            match registry.entry_of(world, id) {
                Some(entry) => {
                    let writer = registry.components[entry].bind(&*set.values);
                    sparse.push(SparseValues { entry, set, writer });
                }
                None if derived(registry, world, id) => {}
                None => {
                    skipped_sparse.push((set, id));
                }
            }
        }
        Walk {
            registry,
            world,
            plans: Vec::new(),
            sparse,
            skipped_sparse,
            skipped: vec![0; world.components.len()],
            table: 0,
            row: 0,
            values: Vec::new(),
        }
    }

    /// Makes `entity` the current one: lists its registered components, in
    /// registration order, and counts its unregistered ones.
    fn visit(&mut self, entity: Entity, location: Location) {
        self.visit_run(&[(entity, location)]);
    }

    /// Makes the first entity of `run` (entities that share their components) the
    /// current one, and counts the unregistered components of all.
    fn visit_run(&mut self, run: &[(Entity, Location)]) {
        let (entity, location) = run[0];
        let index = location.archetype.index();
        if self.plans.len() <= index {
            self.plans.resize_with(index + 1, || None);
        }
        let (registry, world) = (self.registry, self.world);
        let plan = self.plans[index].get_or_insert_with(|| plan_for(registry, world, location.archetype));
        for &id in &plan.skipped {
            self.skipped[id.index()] += run.len();
        }
        self.table = index;
        self.row = location.row.index();
        self.values.clear();
        self.values.extend(plan.values.iter().enumerate().map(|(i, (entry, _))| (*entry, Source::Table(i))));
        if self.sparse.is_empty() && self.skipped_sparse.is_empty() {
            return;
        }
        for (i, sparse) in self.sparse.iter().enumerate() {
            if let Some(dense) = sparse.set.dense(entity) {
                self.values.push((sparse.entry, Source::Sparse(i, dense)));
            }
        }
        for &(set, id) in &self.skipped_sparse {
            self.skipped[id.index()] += run.iter().filter(|&&(entity, _)| set.contains(entity)).count();
        }
        self.values.sort_unstable_by_key(|&(entry, _)| entry);
    }

    /// What entities of one run share: their table, and which registered sparse
    /// components they have (a run ends at every entity past the 64th such type).
    fn run_key(&self, (entity, location): (Entity, Location)) -> (usize, u64) {
        let mut mask = 0u64;
        if self.sparse.len() > 64 {
            return (location.archetype.index(), entity.to_bits());
        }
        for (i, sparse) in self.sparse.iter().enumerate() {
            if sparse.set.contains(entity) {
                mask |= 1 << i;
            }
        }
        (location.archetype.index(), mask)
    }

    /// The row `entity` (of the current run) has `source`'s value at.
    #[inline]
    fn row_of(&self, source: Source, entity: Entity, location: Location) -> usize {
        match source {
            Source::Table(_) => location.row.index(),
            Source::Sparse(i, _) => {
                self.sparse[i].set.dense(entity).expect("ripple: a run shares its sparse components")
            }
        }
    }

    /// The writer and row of one of the current entity's values.
    #[inline]
    fn writer(&self, source: Source) -> (&(dyn ValueWriter + 's), usize) {
        match source {
            Source::Table(i) => {
                let plan = self.plans[self.table].as_ref().expect("ripple: the current table's plan");
                (&*plan.values[i].1, self.row)
            }
            Source::Sparse(i, dense) => (&*self.sparse[i].writer, dense),
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

fn plan_for<'s>(registry: &'s SceneRegistry, world: &'s World, archetype: ArchetypeId) -> Plan<'s> {
    let table = world.archetypes.get(archetype);
    let mut values = Vec::new();
    let mut skipped = Vec::new();
    for (column, &id) in table.components().iter().enumerate() {
        match registry.entry_of(world, id) {
            Some(entry) => values.push((entry, registry.components[entry].bind(table.column(column)))),
            None if derived(registry, world, id) => {}
            None => skipped.push(id),
        }
    }
    values.sort_unstable_by_key(|&(entry, _)| entry);
    Plan { values, skipped }
}

/// Whether component `id`, which `registry` does not name, is derived from what the
/// save holds, so that a load gives it back and it is not reported skipped: a
/// relation's list of sources (`Children`, `Related<R>`), when the relation is saved.
fn derived(registry: &SceneRegistry, world: &World, id: ComponentId) -> bool {
    world.components.info(id).list_of.is_some_and(|relation| registry.entry_of(world, relation).is_some())
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

/// Bytes gathered before binary output goes to the caller's writer: small enough to
/// stay in cache between being written and being copied out.
const CHUNK: usize = 16 * 1024;

/// Values a binary save writes between checks of the buffer's length.
const ROWS_PER_WRITE: usize = 128;

/// Entities handled at a time: what a save holds of its list of entities, and the
/// longest run of the binary form.
const WINDOW: usize = 1024;

impl<'s> SceneSaver<'s> {
    pub(crate) fn new(registry: &'s SceneRegistry, world: &'s World) -> Self {
        SceneSaver { registry, world, selection: None, pretty: true }
    }

    /// Saves only these entities, in this order (a query's output, say), instead of
    /// every entity by ascending index, and no resources: a part of a world, such as
    /// a prefab, is not its state. Each entity must be alive and named once.
    ///
    /// Either way, when the registry saves [`ChildOf`], the children of one parent
    /// are written in the order of its [`Children`](crate::hierarchy::Children) list (all of
    /// them where the first comes up), so a load gives the parent the same order.
    pub fn entities(mut self, entities: impl IntoIterator<Item = Entity>) -> Self {
        self.selection = Some(entities.into_iter().collect());
        self
    }

    /// Writes JSON without line breaks or indentation (pretty is the default).
    pub fn compact(mut self) -> Self {
        self.pretty = false;
        self
    }

    /// The resources to save: those the world has, for a whole-world save.
    fn resources(&self) -> impl Iterator<Item = &'s super::entry::ResourceEntry> + '_ {
        let world = self.world;
        let whole = self.selection.is_none();
        self.registry.resources.iter().filter(move |entry| whole && (entry.has)(world))
    }

    /// The entities to save, with their locations, checked.
    fn selected(&self) -> Result<Option<Vec<(Entity, Location)>>, SaveError> {
        let Some(selection) = &self.selection else {
            return Ok(None);
        };
        let mut seen = crate::util::hash::IdMap::<u64, ()>::default();
        let mut located = Vec::with_capacity(selection.len());
        for &entity in selection {
            let location = self.world.locate(entity).map_err(|_| SaveError::NoSuchEntity(entity))?;
            if seen.insert(entity.to_bits(), ()).is_some() {
                return Err(SaveError::DuplicateEntity(entity));
            }
            located.push((entity, location));
        }
        Ok(Some(located))
    }

    /// Hands the entities to save to `each`, a window of at most `WINDOW` at a time:
    /// the checked selection, or every live entity by ascending index (gathered a
    /// window at a time, so saving a whole world holds no list of it). When `ChildOf`
    /// is saved, siblings go in their parent's list order (see [`SiblingOrder`]), so
    /// a load rebuilds the lists as they were.
    fn for_each_window(
        &self,
        selected: &Option<Vec<(Entity, Location)>>,
        each: impl FnMut(&[(Entity, Location)]) -> Result<(), SaveError>,
    ) -> Result<(), SaveError> {
        let world = self.world;
        let sibling_order = self.registry.component_index_of(std::any::TypeId::of::<ChildOf>()).is_some();
        match (selected, sibling_order) {
            (Some(selected), false) => selected.chunks(WINDOW).try_for_each(each),
            (None, false) => in_windows(world.entities.iter_alive(), each),
            (Some(selected), true) => {
                in_windows(SiblingOrder::new(world, selected.iter().copied(), Some(selected)), each)
            }
            (None, true) => in_windows(SiblingOrder::new(world, world.entities.iter_alive(), None), each),
        }
    }

    /// How many entities the save writes.
    fn count(&self, selected: &Option<Vec<(Entity, Location)>>) -> usize {
        selected.as_ref().map_or(self.world.len(), Vec::len)
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
        for entry in self.resources() {
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
        let mut n = 0;
        self.for_each_window(&selected, |window| {
            for &(entity, location) in window {
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
                    let (writer, row) = walk.writer(source);
                    writer.json(row, &mut out, 4).map_err(|e| value_error(Some(entity), &entry.name, e))?;
                }
                if !walk.values.is_empty() {
                    out.line(3);
                }
                out.raw(b"}");
                out.line(2);
                out.raw(b"}");
                out.flush_if_full(&mut writer)?;
                n += 1;
            }
            Ok(())
        })?;
        if n > 0 {
            out.line(1);
        }
        out.raw(b"]");
        out.line(0);
        out.raw(b"}");
        if self.pretty {
            out.raw(b"\n");
        }
        out.flush(&mut writer)?;
        Ok(walk.report(n, resources, writer.bytes))
    }

    /// Writes the scene in the binary format: postcard values behind a magic number
    /// and a format version (the layout is in the crate's design notes).
    ///
    /// # Errors
    /// As [`to_json`](Self::to_json).
    pub fn to_binary(self, writer: impl Write) -> Result<SaveReport, SaveError> {
        let mut writer = Counted { inner: writer, bytes: 0 };
        let mut out = Vec::with_capacity(CHUNK + 4096);
        let spill = |out: &mut Vec<u8>| -> Result<(), SaveError> {
            if out.len() >= CHUNK {
                writer.write_all(out)?;
                out.clear();
            }
            Ok(())
        };
        let mut report = self.write_binary(&mut out, spill)?;
        writer.write_all(&out)?;
        report.bytes = writer.bytes;
        Ok(report)
    }

    /// Appends the scene in the binary format (as [`to_binary`](Self::to_binary)
    /// writes it) to `out`, with no chunk copied on the way: the fastest way to save
    /// into memory. On an error the contents of `out` are left as they were (its
    /// capacity may have grown); if a value's `Serialize` panics, the bytes written
    /// before it stay.
    ///
    /// # Errors
    /// As [`to_json`](Self::to_json).
    pub fn to_binary_vec(self, out: &mut Vec<u8>) -> Result<SaveReport, SaveError> {
        let start = out.len();
        match self.write_binary(out, |_| Ok(())) {
            Ok(mut report) => {
                report.bytes = (out.len() - start) as u64;
                Ok(report)
            }
            Err(error) => {
                out.truncate(start);
                Err(error)
            }
        }
    }

    /// Appends the binary form to `out`, handing `out` to `spill` after each chunk of
    /// rows (which may empty it into a writer). The report's `bytes` is left for the
    /// caller to fill in.
    fn write_binary(
        self,
        out: &mut Vec<u8>,
        mut spill: impl FnMut(&mut Vec<u8>) -> Result<(), SaveError>,
    ) -> Result<SaveReport, SaveError> {
        let selected = self.selected()?;
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        write_varint(self.registry.components.len() as u64, out);
        for entry in &self.registry.components {
            write_str(&entry.name, out);
        }
        let present: Vec<_> = self.resources().collect();
        write_varint(present.len() as u64, out);
        for entry in &present {
            write_str(&entry.name, out);
            (entry.write_binary)(self.world, out).map_err(|e| value_error(None, &entry.name, e))?;
        }
        let count = self.count(&selected);
        write_varint(count as u64, out);
        let mut walk = Walk::new(self.registry, self.world);
        let mut rows = Vec::with_capacity(WINDOW);
        self.for_each_window(&selected, |window| {
            let mut start = 0;
            while start < window.len() {
                // A run: consecutive entities with the same components, written
                // column by column.
                let key = walk.run_key(window[start]);
                let end =
                    start + 1 + window[start + 1..].iter().take_while(|&&entity| walk.run_key(entity) == key).count();
                let run = &window[start..end];
                walk.visit_run(run);
                write_varint(walk.values.len() as u64, out);
                for &(entry, _) in &walk.values {
                    write_varint(entry as u64, out);
                }
                write_varint(run.len() as u64, out);
                let mut previous = run[0].0.to_bits();
                write_varint(previous, out);
                for &(entity, _) in &run[1..] {
                    write_varint(id_delta(previous, entity.to_bits()), out);
                    previous = entity.to_bits();
                }
                for value in 0..walk.values.len() {
                    let (entry, source) = walk.values[value];
                    rows.clear();
                    rows.extend(run.iter().map(|&(entity, location)| walk.row_of(source, entity, location)));
                    let (values, _) = walk.writer(source);
                    // A few rows at a time: writing to an `io::Write`, the chunk
                    // buffer stays small and in cache on its way to the writer; and
                    // a failing value is found within its chunk.
                    for (part, rows) in rows.chunks(ROWS_PER_WRITE).enumerate() {
                        values.binary_rows(rows, out).map_err(|(i, e)| {
                            let entity = run[part * ROWS_PER_WRITE + i].0;
                            value_error(Some(entity), &self.registry.components[entry].name, e)
                        })?;
                        spill(out)?;
                    }
                }
                start = end;
            }
            Ok(())
        })?;
        Ok(walk.report(count, present.len(), 0))
    }
}

/// Hands `entities` to `each` a window of at most `WINDOW` at a time.
fn in_windows(
    mut entities: impl Iterator<Item = (Entity, Location)>,
    mut each: impl FnMut(&[(Entity, Location)]) -> Result<(), SaveError>,
) -> Result<(), SaveError> {
    let mut window = Vec::with_capacity(WINDOW);
    loop {
        window.clear();
        window.extend(entities.by_ref().take(WINDOW));
        if window.is_empty() {
            return Ok(());
        }
        each(&window)?;
    }
}

fn value_error(entity: Option<Entity>, name: &str, error: WriteError) -> SaveError {
    let name = name.to_owned();
    match error {
        WriteError::Refused(Refusal::NotFinite(value)) => SaveError::NotFinite { entity, name, value },
        WriteError::Refused(Refusal::TooDeep) => SaveError::TooDeep { entity, name },
        WriteError::Format(message) => SaveError::Value { entity, name, message },
    }
}
