//! Components defined at run time in scenes: a [`RuntimeCodec`] supplied by the user
//! turns a value's bytes into JSON and back; binary scenes hold the bytes themselves,
//! checked by the codec when read.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::change::Tick;
use crate::component::ComponentId;
use crate::dynamic::ComponentDescriptor;
use crate::entity::Entity;
use crate::query::ChangeSource;
use crate::storage::{BlobColumn, Column, SparseSet};
use crate::world::World;

use super::checked_write::WriteError;
use super::entry::{EntityValues, Staging, ValueWriter};
use super::json_out::JsonOut;
use super::nesting::{ReadError, read_binary};

/// How the values of a component defined at run time are written to scenes and read
/// back: registered with
/// [`SceneRegistry::runtime_component`](crate::scene::SceneRegistry::runtime_component).
///
/// JSON scenes hold what [`write_json`](Self::write_json) makes; binary scenes hold the
/// value's bytes as they are, which [`check`](Self::check) vets when read. Entities
/// inside runtime values are not remapped on load (they are bytes to the world).
///
/// ```
/// use ripple::scene::RuntimeCodec;
/// use serde_json::Value;
/// /// A value of one little-endian i32.
/// struct I32Codec;
/// impl RuntimeCodec for I32Codec {
///     fn write_json(&self, bytes: &[u8]) -> Value {
///         Value::from(i32::from_le_bytes(bytes.try_into().expect("4 bytes")))
///     }
///     fn read_json(&self, json: &Value, out: &mut [u8]) -> Result<(), String> {
///         let n = json.as_i64().and_then(|n| i32::try_from(n).ok()).ok_or("expected an i32")?;
///         out.copy_from_slice(&n.to_le_bytes());
///         Ok(())
///     }
/// }
/// ```
pub trait RuntimeCodec: Send + Sync + 'static {
    /// The value whose bytes are `bytes` (one value's worth), as JSON.
    fn write_json(&self, bytes: &[u8]) -> serde_json::Value;

    /// Writes the value `json` describes into `out` (one value's bytes, zeroed);
    /// an error says why `json` is no value. The bytes become a value of the
    /// component: for one with a drop function, they must be bytes it may drop.
    ///
    /// # Errors
    /// Why `json` is not a value of the component; the load fails and the world is
    /// left as it was.
    fn read_json(&self, json: &serde_json::Value, out: &mut [u8]) -> Result<(), String>;

    /// Whether `bytes`, read from a binary scene (of the right size), are a valid
    /// value; every byte string is, by default.
    ///
    /// # Errors
    /// Why they are not; the load fails and the world is left as it was.
    fn check(&self, bytes: &[u8]) -> Result<(), String> {
        let _ = bytes;
        Ok(())
    }
}

/// A registered runtime component: its descriptor (to find or register it in a
/// world) and its codec.
#[derive(Clone)]
pub(crate) struct RuntimeEntry {
    descriptor: ComponentDescriptor,
    codec: Arc<dyn RuntimeCodec>,
}

impl RuntimeEntry {
    pub(crate) fn new(descriptor: ComponentDescriptor, codec: Arc<dyn RuntimeCodec>) -> Self {
        RuntimeEntry { descriptor, codec }
    }

    /// The descriptor's name: what the world calls the component.
    pub(crate) fn component_name(&self) -> &'static str {
        self.descriptor.name()
    }

    fn size(&self) -> usize {
        self.descriptor.layout().size()
    }

    /// The id of the world's runtime component of this name and layout (the first
    /// registered, if several), if it has one.
    pub(crate) fn id_in(&self, world: &World) -> Option<ComponentId> {
        world.runtime_component_named(self.descriptor.name(), self.descriptor.layout())
    }

    pub(crate) fn register_in(&self, world: &mut World) -> ComponentId {
        match self.id_in(world) {
            Some(id) => id,
            None => world.register_component(self.descriptor.clone()),
        }
    }

    pub(crate) fn bind<'a>(&'a self, column: &'a dyn Column) -> Box<dyn ValueWriter + 'a> {
        Box::new(BytesWriter { column: BlobColumn::of(column), codec: &*self.codec })
    }

    pub(crate) fn new_staging(&self) -> Box<dyn Staging> {
        Box::new(StagedBytes { entry: self.clone(), values: VecDeque::new() })
    }

    pub(crate) fn write_binary_of(
        &self,
        world: &World,
        entity: Entity,
        out: &mut Vec<u8>,
    ) -> Result<bool, postcard::Error> {
        let Some(bytes) = self.id_in(world).and_then(|id| world.get_by_id(entity, id).ok()) else { return Ok(false) };
        super::binary::write_value(bytes, out).map(|()| true)
    }

    /// Reads one value's bytes from `input`, checked; and the bytes it took.
    fn read_bytes<'i>(&self, input: &'i [u8]) -> Result<(&'i [u8], usize), ReadError> {
        let mut values = postcard::Deserializer::from_bytes(input);
        let bytes: &[u8] = read_binary(&mut values)?;
        let rest = values.finalize().map_err(ReadError::Value)?;
        let name = self.component_name();
        if bytes.len() != self.size() {
            let (size, got) = (self.size(), bytes.len());
            return Err(ReadError::Refused(format!("a value of component `{name}` is {size} bytes; {got} were read")));
        }
        self.codec
            .check(bytes)
            .map_err(|why| ReadError::Refused(format!("not a value of component `{name}`: {why}")))?;
        Ok((bytes, input.len() - rest.len()))
    }

    pub(crate) fn binary_to_json(&self, input: &[u8]) -> Result<(serde_json::Value, usize), ReadError> {
        let (bytes, taken) = self.read_bytes(input)?;
        Ok((self.codec.write_json(bytes), taken))
    }

    pub(crate) fn new_entity_values(&self) -> Box<dyn EntityValues> {
        Box::new(PendingBytes { entry: self.clone(), values: VecDeque::new() })
    }

    pub(crate) fn has(&self, world: &World, entity: Entity) -> bool {
        self.id_in(world).is_some_and(|id| world.get_by_id(entity, id).is_ok())
    }

    /// Reads one value with the codec and inserts it on `entity` (alive).
    pub(crate) fn insert_json(
        &self,
        world: &mut World,
        entity: Entity,
        json: &serde_json::Value,
    ) -> Result<(), String> {
        let mut bytes = vec![0; self.size()];
        self.codec.read_json(json, &mut bytes)?;
        let id = self.register_in(world);
        world.insert_by_id(entity, id, &bytes).map_err(|error| error.to_string())
    }

    pub(crate) fn remove_from(&self, world: &mut World, entity: Entity) {
        if let Some(id) = self.id_in(world) {
            let _ = world.remove_by_id(entity, id);
        }
    }

    pub(crate) fn changes_from_now(&self, world: &mut World) -> Box<dyn ChangeSource> {
        let id = self.register_in(world);
        let mut source =
            world.dynamic_query().changed(id).including_disabled().build().expect("a registered component");
        source.skip_to_now(world);
        Box::new(source)
    }
}

/// Writes a runtime column's values through the codec.
struct BytesWriter<'a> {
    column: &'a BlobColumn,
    codec: &'a dyn RuntimeCodec,
}

impl ValueWriter for BytesWriter<'_> {
    fn json(&self, row: usize, out: &mut JsonOut, level: usize) -> Result<(), WriteError> {
        let json = self.codec.write_json(self.column.bytes(row));
        out.value(&json, level).map(drop).map_err(|error| WriteError::Format(error.to_string()))
    }

    fn binary_rows(&self, rows: &[usize], out: &mut Vec<u8>) -> Result<(), (usize, WriteError)> {
        for (i, &row) in rows.iter().enumerate() {
            super::binary::write_value(self.column.bytes(row), out)
                .map_err(|error| (i, WriteError::Format(error.to_string())))?;
        }
        Ok(())
    }
}

/// Runtime values read from a scene, waiting for the load to commit, in order.
struct StagedBytes {
    entry: RuntimeEntry,
    values: VecDeque<Vec<u8>>,
}

impl Staging for StagedBytes {
    fn read_json(&mut self, input: &[u8]) -> Result<usize, serde_json::Error> {
        let (json, taken) = super::read_value::read_value::<serde_json::Value>(input)?;
        let mut bytes = vec![0; self.entry.size()];
        self.entry.codec.read_json(&json, &mut bytes).map_err(|message| {
            <serde_json::Error as serde::de::Error>::custom(format!(
                "not a value of component `{}`: {message}",
                self.entry.component_name()
            ))
        })?;
        self.values.push_back(bytes);
        Ok(taken)
    }

    fn read_binary(&mut self, input: &[u8], count: usize, _site: (u32, u32)) -> Result<usize, (usize, ReadError)> {
        let mut taken = 0;
        for i in 0..count {
            let (bytes, used) = self.entry.read_bytes(&input[taken..]).map_err(|error| (i, error))?;
            self.values.push_back(bytes.to_vec());
            taken += used;
        }
        Ok(taken)
    }

    fn push_into(&mut self, column: &mut dyn Column, count: usize, tick: Tick) {
        let column = BlobColumn::of_mut(column);
        for value in self.values.drain(..count) {
            column.push(&value, tick);
        }
    }

    fn insert_into(&mut self, set: &mut SparseSet, entity: Entity, tick: Tick) {
        let value = self.values.pop_front().expect("ripple: a value staged per record");
        let (dense, new) = set.slot_for(entity);
        let values = BlobColumn::of_mut(&mut *set.values);
        if new {
            values.push(&value, tick);
        } else {
            values.replace(dense, &value, tick);
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// Runtime values read from a delta, each to be set on an entity.
struct PendingBytes {
    entry: RuntimeEntry,
    values: VecDeque<Vec<u8>>,
}

impl PendingBytes {
    fn set(&self, world: &mut World, entity: Entity, value: &[u8]) {
        let id = self.entry.register_in(world);
        let _ = world.insert_by_id(entity, id, value);
    }
}

impl EntityValues for PendingBytes {
    fn read_binary(&mut self, input: &[u8]) -> Result<usize, ReadError> {
        let (bytes, taken) = self.entry.read_bytes(input)?;
        self.values.push_back(bytes.to_vec());
        Ok(taken)
    }

    fn begin(&mut self, _world: &World) {}

    fn set_next(&mut self, world: &mut World, entity: Entity) {
        if let Some(value) = self.values.pop_front() {
            self.set(world, entity, &value);
        }
    }

    fn set_all(&mut self, world: &mut World, targets: &[Entity]) {
        let values = std::mem::take(&mut self.values);
        for (&entity, value) in targets.iter().zip(values.iter()) {
            self.set(world, entity, value);
        }
    }

    fn skip_next(&mut self) {
        self.values.pop_front();
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn clear(&mut self) {
        self.values.clear();
    }
}
