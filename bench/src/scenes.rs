//! The saved worlds of the persistence benchmarks (`benches/serialize.rs`) and the
//! `paired` tool: 1,000 entities of (Transform, Position, Rotation, Velocity), saved and
//! loaded by ripple (its scene registry), hecs (column serialization, its fast form,
//! through a SerializeContext / DeserializeContext), legion (its `serialize` feature: a
//! `Registry<String>` and the `Canon` entity serializer) and ideal (serde of a plain
//! `Vec<SceneRow>`: no entity ids, no component names, no world to rebuild; the floor).
//! hecs also with its row serialization (`HecsRowScene`: one map per entity, components
//! keyed by id, the form closest to ripple's; hecs documents it as less efficient than
//! its columns).

use crate::{Position, Rotation, SceneRow, Transform, Velocity, tprv};

/// Entities in every world saved.
pub const N: usize = 1_000;

/// The two encodings of every group.
#[derive(Clone, Copy)]
pub enum Format {
    /// JSON through serde_json.
    Text,
    /// postcard.
    Binary,
}

/// One library's prepared scene: a world of `N` entities and what its save and load need.
/// The methods take `&mut self` so that a library needing mutable access to its registry
/// fits too.
pub trait Scene {
    /// What a load builds: a world, or for `ideal` the rows.
    type Loaded;
    /// Builds the world of `N` (Transform, Position, Rotation, Velocity) entities.
    fn new() -> Self;
    /// Appends the whole world to `out`.
    fn save(&mut self, format: Format, out: &mut Vec<u8>);
    /// Reads a world saved by `save` into a fresh world.
    fn load(&mut self, format: Format, bytes: &[u8]) -> Self::Loaded;
    /// Entities in a loaded world, for the untimed check.
    fn loaded_len(loaded: &Self::Loaded) -> usize;
}

pub struct RippleScene {
    world: ripple::World,
    registry: ripple::scene::SceneRegistry,
}

impl Scene for RippleScene {
    type Loaded = ripple::World;

    fn new() -> Self {
        let mut world = ripple::World::new();
        world.spawn_batch((0..N).map(|_| tprv()));
        let mut registry = ripple::scene::SceneRegistry::new();
        registry.component::<Transform>("transform").unwrap();
        registry.component::<Position>("position").unwrap();
        registry.component::<Rotation>("rotation").unwrap();
        registry.component::<Velocity>("velocity").unwrap();
        RippleScene { world, registry }
    }

    fn save(&mut self, format: Format, out: &mut Vec<u8>) {
        let _ = match format {
            // Compact, as serde_json::to_writer writes for the peers (ripple's default is
            // pretty).
            Format::Text => self.registry.save(&self.world).compact().to_json(&mut *out).unwrap(),
            // Straight into the vector, as the peers' postcard calls write.
            Format::Binary => self.registry.save(&self.world).to_binary_vec(out).unwrap(),
        };
    }

    fn load(&mut self, format: Format, bytes: &[u8]) -> ripple::World {
        let mut fresh = ripple::World::new();
        // The load's report (what it read) is not needed here; the world is.
        let _ = match format {
            Format::Text => self.registry.load_json(&mut fresh, bytes).unwrap(),
            Format::Binary => self.registry.load_binary(&mut fresh, bytes).unwrap(),
        };
        fresh
    }

    fn loaded_len(loaded: &ripple::World) -> usize {
        loaded.len()
    }
}

/// hecs's column serialization: one block per archetype, each component type laid out
/// contiguously, component types named by `HecsId`. The contexts are hecs's documented
/// pattern (`hecs::serialize::column`'s examples and `examples/serialize_to_disk.rs`).
mod hecs_scene {
    use crate::{Position, Rotation, Transform, Velocity};
    use hecs::serialize::column::{
        DeserializeContext, SerializeContext, deserialize_column, try_serialize, try_serialize_id,
    };
    use hecs::{Archetype, ColumnBatchBuilder, ColumnBatchType};
    use serde::de::SeqAccess;
    use serde::ser::SerializeTuple;

    /// The saved name of each component type (the row context's keys too).
    #[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
    pub(super) enum HecsId {
        Transform,
        Position,
        Rotation,
        Velocity,
    }

    /// Writes the four component types of every archetype.
    pub struct Save;

    impl SerializeContext for Save {
        fn component_count(&self, archetype: &Archetype) -> usize {
            [
                archetype.has::<Transform>(),
                archetype.has::<Position>(),
                archetype.has::<Rotation>(),
                archetype.has::<Velocity>(),
            ]
            .into_iter()
            .filter(|&has| has)
            .count()
        }

        fn serialize_component_ids<S: SerializeTuple>(
            &mut self,
            archetype: &Archetype,
            mut out: S,
        ) -> Result<S::Ok, S::Error> {
            try_serialize_id::<Transform, _, _>(archetype, &HecsId::Transform, &mut out)?;
            try_serialize_id::<Position, _, _>(archetype, &HecsId::Position, &mut out)?;
            try_serialize_id::<Rotation, _, _>(archetype, &HecsId::Rotation, &mut out)?;
            try_serialize_id::<Velocity, _, _>(archetype, &HecsId::Velocity, &mut out)?;
            out.end()
        }

        fn serialize_components<S: SerializeTuple>(
            &mut self,
            archetype: &Archetype,
            mut out: S,
        ) -> Result<S::Ok, S::Error> {
            // The same order as the ids above.
            try_serialize::<Transform, _>(archetype, &mut out)?;
            try_serialize::<Position, _>(archetype, &mut out)?;
            try_serialize::<Rotation, _>(archetype, &mut out)?;
            try_serialize::<Velocity, _>(archetype, &mut out)?;
            out.end()
        }
    }

    /// Reads what [`Save`] wrote: the ids of an archetype, then its columns in that order.
    #[derive(Default)]
    pub struct Load {
        /// The component types of the archetype being read, in the saved order.
        ids: Vec<HecsId>,
    }

    impl DeserializeContext for Load {
        fn deserialize_component_ids<'de, A>(&mut self, mut seq: A) -> Result<ColumnBatchType, A::Error>
        where
            A: SeqAccess<'de>,
        {
            self.ids.clear();
            let mut batch = ColumnBatchType::new();
            while let Some(id) = seq.next_element::<HecsId>()? {
                match id {
                    HecsId::Transform => batch.add::<Transform>(),
                    HecsId::Position => batch.add::<Position>(),
                    HecsId::Rotation => batch.add::<Rotation>(),
                    HecsId::Velocity => batch.add::<Velocity>(),
                };
                self.ids.push(id);
            }
            Ok(batch)
        }

        fn deserialize_components<'de, A>(
            &mut self,
            entity_count: u32,
            mut seq: A,
            batch: &mut ColumnBatchBuilder,
        ) -> Result<(), A::Error>
        where
            A: SeqAccess<'de>,
        {
            for &id in &self.ids {
                match id {
                    HecsId::Transform => deserialize_column::<Transform, _>(entity_count, &mut seq, batch)?,
                    HecsId::Position => deserialize_column::<Position, _>(entity_count, &mut seq, batch)?,
                    HecsId::Rotation => deserialize_column::<Rotation, _>(entity_count, &mut seq, batch)?,
                    HecsId::Velocity => deserialize_column::<Velocity, _>(entity_count, &mut seq, batch)?,
                }
            }
            Ok(())
        }
    }

    /// A hecs world as a `Serialize` value, so that it goes through the same
    /// `serde_json::to_writer` / `postcard::to_io` calls as legion's and ideal's.
    pub struct Saved<'a>(pub &'a hecs::World);

    impl serde::Serialize for Saved<'_> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            hecs::serialize::column::serialize(self.0, &mut Save, serializer)
        }
    }
}

pub struct HecsScene {
    world: hecs::World,
}

impl Scene for HecsScene {
    type Loaded = hecs::World;

    fn new() -> Self {
        let mut world = hecs::World::new();
        world.spawn_batch((0..N).map(|_| tprv()));
        HecsScene { world }
    }

    fn save(&mut self, format: Format, out: &mut Vec<u8>) {
        let saved = hecs_scene::Saved(&self.world);
        write_serde(format, &saved, out);
    }

    fn load(&mut self, format: Format, bytes: &[u8]) -> hecs::World {
        // hecs's `deserialize` builds the fresh world itself.
        let mut context = hecs_scene::Load::default();
        match format {
            Format::Text => {
                let mut de = serde_json::Deserializer::from_slice(bytes);
                let world = hecs::serialize::column::deserialize(&mut context, &mut de).unwrap();
                // What serde_json::from_slice does after the value: only whitespace may follow.
                de.end().unwrap();
                world
            }
            Format::Binary => {
                hecs::serialize::column::deserialize(&mut context, &mut postcard::Deserializer::from_bytes(bytes))
                    .unwrap()
            }
        }
    }

    fn loaded_len(loaded: &hecs::World) -> usize {
        loaded.len() as usize
    }
}

/// hecs's row serialization (hecs 0.11.2 serialize/row.rs, feature `row-serialize`).
mod hecs_row {
    use hecs::serialize::row::{DeserializeContext, SerializeContext, try_serialize};
    use hecs::{EntityBuilder, EntityRef};
    use serde::de::MapAccess;
    use serde::ser::SerializeMap;

    use super::hecs_scene::HecsId as Id;
    use crate::{Position, Rotation, Transform, Velocity};

    pub struct Save;

    impl SerializeContext for Save {
        fn serialize_entity<S: SerializeMap>(&mut self, entity: EntityRef<'_>, mut map: S) -> Result<S::Ok, S::Error> {
            try_serialize::<Transform, _, _>(&entity, &Id::Transform, &mut map)?;
            try_serialize::<Position, _, _>(&entity, &Id::Position, &mut map)?;
            try_serialize::<Rotation, _, _>(&entity, &Id::Rotation, &mut map)?;
            try_serialize::<Velocity, _, _>(&entity, &Id::Velocity, &mut map)?;
            map.end()
        }

        // postcard's maps need their length up front.
        fn component_count(&self, entity: EntityRef<'_>) -> Option<usize> {
            let has = [
                entity.has::<Transform>(),
                entity.has::<Position>(),
                entity.has::<Rotation>(),
                entity.has::<Velocity>(),
            ];
            Some(has.into_iter().filter(|&h| h).count())
        }
    }

    pub struct Load;

    impl DeserializeContext for Load {
        fn deserialize_entity<'de, M: MapAccess<'de>>(
            &mut self,
            mut map: M,
            entity: &mut EntityBuilder,
        ) -> Result<(), M::Error> {
            while let Some(key) = map.next_key::<Id>()? {
                match key {
                    Id::Transform => entity.add::<Transform>(map.next_value()?),
                    Id::Position => entity.add::<Position>(map.next_value()?),
                    Id::Rotation => entity.add::<Rotation>(map.next_value()?),
                    Id::Velocity => entity.add::<Velocity>(map.next_value()?),
                };
            }
            Ok(())
        }
    }

    pub struct Saved<'a>(pub &'a hecs::World);

    impl serde::Serialize for Saved<'_> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            hecs::serialize::row::serialize(self.0, &mut Save, serializer)
        }
    }
}

/// hecs with its row serialization.
pub struct HecsRowScene {
    world: hecs::World,
}

impl Scene for HecsRowScene {
    type Loaded = hecs::World;

    fn new() -> Self {
        HecsRowScene { world: HecsScene::new().world }
    }

    fn save(&mut self, format: Format, out: &mut Vec<u8>) {
        let saved = hecs_row::Saved(&self.world);
        write_serde(format, &saved, out);
    }

    fn load(&mut self, format: Format, bytes: &[u8]) -> hecs::World {
        match format {
            Format::Text => {
                let mut de = serde_json::Deserializer::from_slice(bytes);
                let world = hecs::serialize::row::deserialize(&mut hecs_row::Load, &mut de).unwrap();
                de.end().unwrap();
                world
            }
            Format::Binary => {
                hecs::serialize::row::deserialize(&mut hecs_row::Load, &mut postcard::Deserializer::from_bytes(bytes))
                    .unwrap()
            }
        }
    }

    fn loaded_len(loaded: &hecs::World) -> usize {
        loaded.len() as usize
    }
}

pub struct LegionScene {
    world: legion::World,
    registry: legion::Registry<String>,
    /// One canon for every save and load of the line, as an application keeps one: the
    /// first save names each entity with a fresh UUID (`Uuid::new_v4`), later saves look
    /// the names up, and loads map them back to the same entities.
    canon: legion::serialize::Canon,
}

impl Scene for LegionScene {
    type Loaded = legion::World;

    fn new() -> Self {
        let mut world = legion::World::default();
        world.extend((0..N).map(|_| tprv()));
        let mut registry = legion::Registry::<String>::new();
        registry.register::<Transform>("transform".to_string());
        registry.register::<Position>("position".to_string());
        registry.register::<Rotation>("rotation".to_string());
        registry.register::<Velocity>("velocity".to_string());
        LegionScene { world, registry, canon: legion::serialize::Canon::default() }
    }

    // legion picks its layout from the serializer, not from the caller: for a
    // human-readable one (serde_json) a map from entity to its components, one entity at
    // a time, and for postcard its packed layout, one block per archetype with a column
    // per component type (the counterpart of hecs's columns). Neither needs a
    // self-describing format (postcard has no `deserialize_any`).
    fn save(&mut self, format: Format, out: &mut Vec<u8>) {
        let saved = self.world.as_serializable(legion::any(), &self.registry, &self.canon);
        write_serde(format, &saved, out);
    }

    fn load(&mut self, format: Format, bytes: &[u8]) -> legion::World {
        use serde::de::DeserializeSeed;
        // `as_deserialize` reads into a world it creates (`World::default()`).
        let seed = self.registry.as_deserialize(&self.canon);
        match format {
            Format::Text => {
                let mut de = serde_json::Deserializer::from_slice(bytes);
                let world = seed.deserialize(&mut de).unwrap();
                de.end().unwrap();
                world
            }
            Format::Binary => seed.deserialize(&mut postcard::Deserializer::from_bytes(bytes)).unwrap(),
        }
    }

    fn loaded_len(loaded: &legion::World) -> usize {
        loaded.len()
    }
}

/// Reference (never a peer): serde of a plain `Vec<SceneRow>`.
pub struct IdealScene {
    rows: Vec<SceneRow>,
}

impl Scene for IdealScene {
    type Loaded = Vec<SceneRow>;

    fn new() -> Self {
        IdealScene { rows: (0..N).map(|_| SceneRow::from(tprv())).collect() }
    }

    fn save(&mut self, format: Format, out: &mut Vec<u8>) {
        write_serde(format, &self.rows, out);
    }

    fn load(&mut self, format: Format, bytes: &[u8]) -> Vec<SceneRow> {
        match format {
            Format::Text => serde_json::from_slice(bytes).unwrap(),
            Format::Binary => postcard::from_bytes(bytes).unwrap(),
        }
    }

    fn loaded_len(loaded: &Vec<SceneRow>) -> usize {
        loaded.len()
    }
}

/// Writes `value` to `out` in `format`: `serde_json::to_writer` (compact) or
/// `postcard::to_io`, the save every line but ripple's goes through.
#[inline]
fn write_serde(format: Format, value: &impl serde::Serialize, out: &mut Vec<u8>) {
    match format {
        Format::Text => serde_json::to_writer(&mut *out, value).unwrap(),
        Format::Binary => {
            postcard::to_io(value, &mut *out).unwrap();
        }
    }
}

/// Saves and loads once untimed, checks every entity came back, and returns the scene and
/// its saved bytes.
pub fn prepared<S: Scene>(format: Format) -> (S, Vec<u8>) {
    let mut scene = S::new();
    let mut bytes = Vec::new();
    scene.save(format, &mut bytes);
    let loaded = scene.load(format, &bytes);
    assert_eq!(S::loaded_len(&loaded), N);
    (scene, bytes)
}
