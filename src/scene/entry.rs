//! One registered persistent type with its type erased: the functions that write a
//! value to each format, read one back into a staging area, and move staged values
//! into a world. Each is a generic function instantiated for the type when it is
//! registered, so the per-value work is monomorphic.

use std::any::{Any, type_name};
use std::cell::{Cell, UnsafeCell};
use std::collections::VecDeque;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::change::Tick;
use crate::component::{Component, ComponentId, Components};
use crate::entity::Entity;
use crate::query::{ChangeSource, Changes};
use crate::storage::{Column, SparseSet, TypedColumn, downcast, downcast_mut};
use crate::world::World;

use super::checked_write::{Shape, WriteError, write_checked};
use super::json_out::JsonOut;
use super::nesting::{ReadError, read_binary};

/// Values of one component type read from a scene, waiting for the load to commit,
/// in the order they were read.
pub(crate) trait Staging: Send {
    /// Reads one JSON value from the start of the input; returns the bytes it took.
    fn read_json(&mut self, input: &[u8]) -> Result<usize, serde_json::Error>;
    /// Reads `count` postcard values from the start of the input; returns the bytes
    /// they took, or which one failed and why.
    /// Values `k` are those of records `site.0 + k`, for reports of where an entity
    /// reference was read.
    fn read_binary(&mut self, input: &[u8], count: usize, site: (u32, u32)) -> Result<usize, (usize, ReadError)>;
    /// Moves the next `count` values to the end of `column` (a column of the type),
    /// added at `tick`.
    fn push_into(&mut self, column: &mut dyn Column, count: usize, tick: Tick);
    /// Moves the next value into `set` (the type's sparse set) for `entity`.
    fn insert_into(&mut self, set: &mut SparseSet, entity: Entity, tick: Tick);
    /// The staging area itself, for a check that reads the values of a known type.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// The values of one type read so far: pushed to `read` while reading; at commit, a
/// run that takes them all takes the buffer, otherwise they move to `draining` (no
/// copy) and runs take them from its front.
struct Staged<T> {
    read: Vec<UnsafeCell<T>>,
    draining: VecDeque<UnsafeCell<T>>,
}

impl<T> Staged<T> {
    fn new() -> Self {
        Staged { read: Vec::new(), draining: VecDeque::new() }
    }

    /// The values still to place, as a queue.
    fn draining(&mut self) -> &mut VecDeque<UnsafeCell<T>> {
        if !self.read.is_empty() {
            debug_assert!(self.draining.is_empty(), "reading ends before the commit starts");
            self.draining = VecDeque::from(std::mem::take(&mut self.read));
        }
        &mut self.draining
    }
}

impl<T: Component + DeserializeOwned> Staging for Staged<T> {
    fn read_json(&mut self, input: &[u8]) -> Result<usize, serde_json::Error> {
        let (value, taken) = super::read_value::read_value::<T>(input)?;
        self.read.push(UnsafeCell::new(value));
        Ok(taken)
    }

    fn read_binary(&mut self, input: &[u8], count: usize, site: (u32, u32)) -> Result<usize, (usize, ReadError)> {
        // Every value takes a byte at least (zero-sized ones excepted): a corrupt
        // count cannot reserve more than the input could fill.
        self.read.reserve(count.min(input.len()));
        let mut values = postcard::Deserializer::from_bytes(input);
        for i in 0..count {
            super::remap::set_site((site.0 + i as u32, site.1));
            let value = read_binary::<T, _>(&mut values).map_err(|error| (i, error))?;
            self.read.push(UnsafeCell::new(value));
        }
        let rest = values.finalize().map_err(|error| (count, ReadError::Value(error)))?;
        Ok(input.len() - rest.len())
    }

    fn push_into(&mut self, column: &mut dyn Column, count: usize, tick: Tick) {
        let column = downcast_mut::<T>(column);
        if self.draining.is_empty() && count == self.read.len() {
            column.append(&mut self.read, tick);
        } else {
            column.extend(self.draining().drain(..count).map(UnsafeCell::into_inner), tick);
        }
    }

    fn insert_into(&mut self, set: &mut SparseSet, entity: Entity, tick: Tick) {
        let value = self.draining().pop_front().expect("ripple: a value staged per record");
        set.typed_mut::<T>().insert(entity, value.into_inner(), tick);
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// The values read so far of the staging area `staging`, if it holds `T`s (before the
/// commit starts).
pub(crate) fn staged_values<'a, T: Component>(
    staging: &'a mut (dyn Staging + 'static),
) -> Option<impl Iterator<Item = &'a mut T> + 'a> {
    let staged = staging.as_any_mut().downcast_mut::<Staged<T>>()?;
    Some(staged.read.iter_mut().map(UnsafeCell::get_mut))
}

/// Values of one component type read one at a time, each to be set on an entity
/// later, in the order read (what a delta's apply stages before it commits).
pub(crate) trait EntityValues: Send {
    /// Reads one postcard value from the start of `input`; returns the bytes it took.
    fn read_binary(&mut self, input: &[u8]) -> Result<usize, ReadError>;
    /// Looks up, once per batch of [`set_next`](Self::set_next) calls, how values
    /// of the type reach entities.
    fn begin(&mut self, world: &World);
    /// Sets the next value read on `entity` (alive): written in place through change
    /// tracking where the entity has the component and the type has no insert or
    /// replace hooks (or observers), inserted otherwise.
    fn set_next(&mut self, world: &mut World, entity: Entity);
    /// Sets the values read, in order, on `targets` (alive, one per value), as
    /// [`set_next`](Self::set_next) would one by one.
    fn set_all(&mut self, world: &mut World, targets: &[Entity]);
    /// Drops the next value read without setting it.
    fn skip_next(&mut self);
    /// The values, for a caller that knows their type (see [`next_value`]).
    fn as_any(&self) -> &dyn Any;
    /// Drops every value read and not set (a refused delta).
    fn clear(&mut self);
}

/// The values an [`EntityValues`] read, waiting to be set; and whether inserts of
/// the type are watched (see [`EntityValues::begin`]).
struct Pending<T> {
    values: VecDeque<T>,
    insert: bool,
}

impl<T: Component + DeserializeOwned> EntityValues for Pending<T> {
    fn read_binary(&mut self, input: &[u8]) -> Result<usize, ReadError> {
        let mut values = postcard::Deserializer::from_bytes(input);
        let value = read_binary::<T, _>(&mut values)?;
        let rest = values.finalize().map_err(ReadError::Value)?;
        self.values.push_back(value);
        Ok(input.len() - rest.len())
    }

    fn begin(&mut self, world: &World) {
        self.insert = world.inserts_are_watched::<T>();
    }

    fn set_next(&mut self, world: &mut World, entity: Entity) {
        let Some(value) = self.values.pop_front() else { return };
        if !self.insert
            && let Ok(mut place) = world.get_mut::<T>(entity)
        {
            *place = value;
            return;
        }
        let _ = world.insert(entity, (value,));
    }

    fn set_all(&mut self, world: &mut World, targets: &[Entity]) {
        debug_assert_eq!(targets.len(), self.values.len(), "one target per value");
        for (&entity, value) in targets.iter().zip(self.values.drain(..)) {
            if !self.insert
                && let Ok(mut place) = world.get_mut::<T>(entity)
            {
                *place = value;
                continue;
            }
            let _ = world.insert(entity, (value,));
        }
    }

    fn skip_next(&mut self) {
        self.values.pop_front();
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn clear(&mut self) {
        self.values.clear();
    }
}

/// Reads one value from the start of the input: the value and the bytes it took.
pub(crate) type ReadValue<V, E> = fn(&[u8]) -> Result<(V, usize), E>;

/// The next value `values` will set, if they hold `T`s.
pub(crate) fn next_value<T: Component>(values: &dyn EntityValues) -> Option<&T> {
    values.as_any().downcast_ref::<Pending<T>>()?.values.front()
}

/// A registered component: a Rust type, or a component defined at run time.
pub(crate) struct ComponentEntry {
    pub(crate) name: Box<str>,
    /// The type's name (a runtime component's own name).
    pub(crate) type_name: &'static str,
    /// A fingerprint of the data the component reads (see `shape`).
    pub(crate) shape: u64,
    pub(crate) kind: EntryKind,
}

/// How a registered component's values are reached.
pub(crate) enum EntryKind {
    /// A Rust type, through functions instantiated for it.
    Typed(TypedFns),
    /// A component defined at run time, through its codec.
    Runtime(super::runtime_entry::RuntimeEntry),
}

/// A registered Rust type's functions.
pub(crate) struct TypedFns {
    /// The type's id in a world, registering it if new.
    register_in: fn(&mut Components) -> ComponentId,
    /// Binds a column (or sparse set values) of the type for writing.
    bind: for<'a> fn(&'a dyn Column) -> Box<dyn ValueWriter + 'a>,
    new_staging: fn() -> Box<dyn Staging>,
    /// Appends `entity`'s value in postcard; `Ok(false)` (nothing written) if it has
    /// none.
    write_binary_of: fn(&World, Entity, &mut Vec<u8>) -> Result<bool, postcard::Error>,
    /// Reads one postcard value and returns it as JSON, with the bytes it took (for
    /// a readable view of binary data).
    binary_to_json: ReadValue<serde_json::Value, ReadError>,
    new_entity_values: fn() -> Box<dyn EntityValues>,
    /// Whether `entity` (alive) has the component.
    has: fn(&World, Entity) -> bool,
    /// Removes the component from `entity`, if it has it.
    remove_from: fn(&mut World, Entity),
    /// Follows the type's changes from now on (turning its change tracking on).
    changes_from_now: fn(&mut World) -> Box<dyn ChangeSource>,
    /// Reads one value from JSON and inserts it on `entity` (alive); the reason if
    /// the JSON is not a value of the type.
    insert_json: fn(&mut World, Entity, &serde_json::Value) -> Result<(), String>,
}

impl ComponentEntry {
    pub(crate) fn new<T: Component + Serialize + DeserializeOwned>(name: &str) -> Self {
        let fns = TypedFns {
            register_in: Components::id_or_register::<T>,
            bind: |column| Box::new(ColumnValues { column: downcast::<T>(column), shape: Cell::new(None) }),
            new_staging: || Box::new(Staged::<T>::new()),
            write_binary_of: |world, entity, out| match world.get::<T>(entity) {
                Ok(value) => super::binary::write_value(value, out).map(|()| true),
                Err(_) => Ok(false),
            },
            binary_to_json: |input| {
                let mut values = postcard::Deserializer::from_bytes(input);
                let value = read_binary::<T, _>(&mut values)?;
                let rest = values.finalize().map_err(ReadError::Value)?;
                // Through the text a JSON save writes, not `to_value`: that widens an `f32`
                // to the `f64` it is, so 3.15 would read 3.1500000953674316. The text
                // holds the shortest form that reads back to the same value, for `f32`
                // and `f64` alike.
                let json = serde_json::to_string(&value)
                    .and_then(|text| serde_json::from_str(&text))
                    .unwrap_or_else(|error| serde_json::Value::String(error.to_string()));
                Ok((json, input.len() - rest.len()))
            },
            new_entity_values: || Box::new(Pending::<T> { values: VecDeque::new(), insert: true }),
            has: |world, entity| world.get::<T>(entity).is_ok(),
            remove_from: |world, entity| {
                let _ = world.remove::<(T,)>(entity);
            },
            changes_from_now: |world| Box::new(Changes::<T>::from_now(world)),
            insert_json: |world, entity, json| {
                let value = T::deserialize(json).map_err(|error| error.to_string())?;
                world.insert(entity, (value,)).map_err(|error| error.to_string())
            },
        };
        ComponentEntry {
            name: name.into(),
            type_name: type_name::<T>(),
            shape: super::shape::of::<T>(),
            kind: EntryKind::Typed(fns),
        }
    }

    /// A fingerprint of the data the component reads: equal for types that read the
    /// same data, whatever their paths.
    pub(crate) fn shape(&self) -> u64 {
        self.shape
    }

    /// The component's id in `world`, registering it there if new.
    pub(crate) fn register_in(&self, world: &mut World) -> ComponentId {
        match &self.kind {
            EntryKind::Typed(fns) => (fns.register_in)(&mut world.components),
            EntryKind::Runtime(runtime) => runtime.register_in(world),
        }
    }

    /// Binds a column (or sparse set values) of the component for writing.
    pub(crate) fn bind<'a>(&'a self, column: &'a dyn Column) -> Box<dyn ValueWriter + 'a> {
        match &self.kind {
            EntryKind::Typed(fns) => (fns.bind)(column),
            EntryKind::Runtime(runtime) => runtime.bind(column),
        }
    }

    /// An empty staging area for values read from a scene.
    pub(crate) fn new_staging(&self) -> Box<dyn Staging> {
        match &self.kind {
            EntryKind::Typed(fns) => (fns.new_staging)(),
            EntryKind::Runtime(runtime) => runtime.new_staging(),
        }
    }

    /// Appends `entity`'s value in postcard; `Ok(false)` (nothing written) if it has
    /// none.
    pub(crate) fn write_binary_of(
        &self,
        world: &World,
        entity: Entity,
        out: &mut Vec<u8>,
    ) -> Result<bool, postcard::Error> {
        match &self.kind {
            EntryKind::Typed(fns) => (fns.write_binary_of)(world, entity, out),
            EntryKind::Runtime(runtime) => runtime.write_binary_of(world, entity, out),
        }
    }

    /// Reads one postcard value and returns it as JSON, with the bytes it took.
    pub(crate) fn binary_to_json(&self, input: &[u8]) -> Result<(serde_json::Value, usize), ReadError> {
        match &self.kind {
            EntryKind::Typed(fns) => (fns.binary_to_json)(input),
            EntryKind::Runtime(runtime) => runtime.binary_to_json(input),
        }
    }

    /// An empty list of values to set on entities (a delta's).
    pub(crate) fn new_entity_values(&self) -> Box<dyn EntityValues> {
        match &self.kind {
            EntryKind::Typed(fns) => (fns.new_entity_values)(),
            EntryKind::Runtime(runtime) => runtime.new_entity_values(),
        }
    }

    /// Whether `entity` (alive) has the component.
    pub(crate) fn has(&self, world: &World, entity: Entity) -> bool {
        match &self.kind {
            EntryKind::Typed(fns) => (fns.has)(world, entity),
            EntryKind::Runtime(runtime) => runtime.has(world, entity),
        }
    }

    /// Reads one value from JSON and inserts it on `entity` (alive); the reason if
    /// the JSON is not a value of the component.
    pub(crate) fn insert_json(
        &self,
        world: &mut World,
        entity: Entity,
        json: &serde_json::Value,
    ) -> Result<(), String> {
        match &self.kind {
            EntryKind::Typed(fns) => (fns.insert_json)(world, entity, json),
            EntryKind::Runtime(runtime) => runtime.insert_json(world, entity, json),
        }
    }

    /// Removes the component from `entity`, if it has it.
    pub(crate) fn remove_from(&self, world: &mut World, entity: Entity) {
        match &self.kind {
            EntryKind::Typed(fns) => (fns.remove_from)(world, entity),
            EntryKind::Runtime(runtime) => runtime.remove_from(world, entity),
        }
    }

    /// Follows the component's changes from now on (turning its tracking on).
    pub(crate) fn changes_from_now(&self, world: &mut World) -> Box<dyn ChangeSource> {
        match &self.kind {
            EntryKind::Typed(fns) => (fns.changes_from_now)(world),
            EntryKind::Runtime(runtime) => runtime.changes_from_now(world),
        }
    }
}

/// Writes the values of one column, its type resolved once per table.
pub(crate) trait ValueWriter {
    /// Writes row `row` as JSON whose first line sits at `level`.
    fn json(&self, row: usize, out: &mut JsonOut, level: usize) -> Result<(), WriteError>;
    /// Appends the values at `rows`, in order, in postcard; on failure, the position
    /// in `rows` that failed.
    fn binary_rows(&self, rows: &[usize], out: &mut Vec<u8>) -> Result<(), (usize, WriteError)>;
}

struct ColumnValues<'a, T> {
    column: &'a TypedColumn<T>,
    /// The shape of the type's values (see `checked_write`), once a value was written
    /// checked.
    shape: Cell<Option<Shape>>,
}

impl<T: Component + Serialize> ValueWriter for ColumnValues<'_, T> {
    /// Values of a fixed shape nest alike, so once one was checked the others are
    /// written directly, and rewritten checked only if one wrote a `null` (serde_json
    /// writes a NaN or an infinity as `null`; so does a unit struct, which the checks
    /// then let through).
    fn json(&self, row: usize, out: &mut JsonOut, level: usize) -> Result<(), WriteError> {
        let value = self.column.get(row);
        if self.shape.get() == Some(Shape::Fixed) {
            let mark = out.mark();
            match out.value(value, level) {
                Ok(0) => return Ok(()),
                Ok(_) => out.rewind(mark),
                Err(error) => return Err(WriteError::Format(error.to_string())),
            }
        }
        let shape = write_checked(value, true, |value| out.value(value, level).map(drop))?;
        self.shape.set(Some(shape));
        Ok(())
    }

    /// As [`json`](Self::json): once a value of a fixed shape was checked, the
    /// others are written directly (checking them all would double postcard's cost).
    /// Binary keeps NaN and infinities, so there is nothing else to look for.
    fn binary_rows(&self, rows: &[usize], out: &mut Vec<u8>) -> Result<(), (usize, WriteError)> {
        // Checked until a value shows the shape is fixed (at most one value per save
        // for such a type), then a plain loop.
        let mut checked = 0;
        while self.shape.get() != Some(Shape::Fixed) && checked < rows.len() {
            let value = self.column.get(rows[checked]);
            let shape = write_checked(value, false, |value| super::binary::write_value(value, out))
                .map_err(|error| (checked, error))?;
            self.shape.set(Some(shape));
            checked += 1;
        }
        for (i, &row) in rows.iter().enumerate().skip(checked) {
            super::binary::write_value(self.column.get(row), out)
                .map_err(|error| (i, WriteError::Format(error.to_string())))?;
        }
        Ok(())
    }
}

/// A resource value read from a scene, waiting for the load to commit.
pub(crate) type StagedResource = Box<dyn Any + Send>;

/// Reads one resource value from the start of the input: the value and the bytes
/// it took.
pub(crate) type ReadResource<E> = fn(&[u8]) -> Result<(StagedResource, usize), E>;

/// A registered resource type.
pub(crate) struct ResourceEntry {
    pub(crate) name: Box<str>,
    pub(crate) type_name: &'static str,
    /// Writes the world's value; the world has one (the save asks `has` first), and
    /// nothing is written otherwise.
    pub(crate) write_json: fn(&World, &mut JsonOut, usize) -> Result<(), WriteError>,
    pub(crate) write_binary: fn(&World, &mut Vec<u8>) -> Result<(), WriteError>,
    pub(crate) has: fn(&World) -> bool,
    pub(crate) read_json: ReadResource<serde_json::Error>,
    pub(crate) read_binary: ReadResource<ReadError>,
    /// Inserts a value read by `read_*` (replacing the world's).
    pub(crate) insert: fn(&mut World, StagedResource),
}

impl ResourceEntry {
    pub(crate) fn new<R: Send + Sync + 'static + Serialize + DeserializeOwned>(name: &str) -> Self {
        ResourceEntry {
            name: name.into(),
            type_name: type_name::<R>(),
            write_json: |world, out, level| match world.resource::<R>() {
                Ok(value) => write_checked(value, true, |value| out.value(value, level).map(drop)).map(drop),
                Err(_) => Ok(()),
            },
            write_binary: |world, out| match world.resource::<R>() {
                Ok(value) => write_checked(value, false, |value| super::binary::write_value(value, out)).map(drop),
                Err(_) => Ok(()),
            },
            has: World::contains_resource::<R>,
            read_json: |input| {
                let (value, taken) = super::read_value::read_value::<R>(input)?;
                Ok((Box::new(value), taken))
            },
            read_binary: |input| {
                let mut values = postcard::Deserializer::from_bytes(input);
                let value = read_binary::<R, _>(&mut values)?;
                let rest = values.finalize().map_err(ReadError::Value)?;
                Ok((Box::new(value), input.len() - rest.len()))
            },
            insert: |world, value| {
                let value = value.downcast::<R>().expect("ripple: a resource read by its own entry");
                world.insert_resource::<R>(*value);
            },
        }
    }
}
