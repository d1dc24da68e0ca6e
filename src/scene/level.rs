//! Loading: the public entry points for scenes, and level files — a scene plus data
//! commands, checked as one unit and run once its entities exist.

use crate::data::DataCommands;
use crate::world::World;

use super::error::LoadError;
use super::load::{Loaded, SceneLoad, Stop};
use super::registry::SceneRegistry;
use super::remap::{EntityRemap, Installed, Mode};
use super::{binary_in, json_in};

/// Reads the input with `read` and checks it; reads it a second time, knowing every
/// id the scene declares, if it refers to entities of the world.
fn read_checked<'r>(
    registry: &'r SceneRegistry,
    world: &World,
    max_records: usize,
    mut read: impl FnMut(&mut SceneLoad<'r>) -> Result<(), Stop>,
) -> Result<SceneLoad<'r>, LoadError> {
    let mut load = SceneLoad::new(registry, world, max_records, None);
    let known = match read(&mut load).and_then(|()| load.check(world)) {
        Ok(()) => return Ok(load),
        Err(Stop::Refused(error)) => return Err(error),
        Err(Stop::Reread(known)) => known,
    };
    // The first read's remap is uninstalled before the second's is installed.
    drop(load);
    let mut load = SceneLoad::new(registry, world, max_records, Some(&known));
    match read(&mut load).and_then(|()| load.check(world)) {
        Ok(()) => Ok(load),
        Err(Stop::Refused(error)) => Err(error),
        Err(Stop::Reread(_)) => unreachable!("a second read knows every declared id"),
    }
}

impl SceneRegistry {
    /// Loads a JSON scene (as [`SceneSaver::to_json`](super::SceneSaver::to_json)
    /// writes it) into `world`, which may hold entities already.
    ///
    /// The scene's entities get fresh handles, and every `Entity` inside their
    /// components and the scene's resources — a field, an `Option`, a `Vec` — is
    /// remapped to the new handle of the entity it named; a handle the scene does not
    /// declare must be alive in `world` and is kept. Resources replace the world's.
    /// Loaded entities count as added, as if spawned: change filters, `Dirty` sets
    /// and removal-free logs see them, and their `on_add` and `on_insert` hooks run,
    /// entity by entity in file order, once all are in place.
    ///
    /// Like every structural operation, the load first makes entities reserved with
    /// [`World::reserve_entity`] alive.
    ///
    /// # Errors
    /// A [`LoadError`] saying what was wrong and where; the world is exactly as it
    /// was. No input makes this panic (a `Deserialize` impl of a registered type may).
    pub fn load_json(&self, world: &mut World, input: impl AsRef<[u8]>) -> Result<Loaded, LoadError> {
        let input = input.as_ref();
        world.flush_reserved();
        let load = read_checked(self, world, json_in::max_records(input), |load| {
            json_in::read_scene(load, input, false).map(|_| ())
        })?;
        Ok(load.commit(world))
    }

    /// Loads a binary scene (as [`SceneSaver::to_binary`](super::SceneSaver::to_binary)
    /// writes it); otherwise as [`load_json`](Self::load_json).
    ///
    /// # Errors
    /// As `load_json`: a wrong magic number or version, truncated input, unknown
    /// names, malformed values (with their byte offset), duplicate ids, dangling
    /// references. The world is unchanged.
    pub fn load_binary(&self, world: &mut World, input: impl AsRef<[u8]>) -> Result<Loaded, LoadError> {
        let input = input.as_ref();
        world.flush_reserved();
        let load = read_checked(self, world, binary_in::max_records(input), |load| binary_in::read_scene(load, input))?;
        Ok(load.commit(world))
    }

    /// Loads a level file: a JSON scene with a `"commands"` array of data commands
    /// (`["gui", "set_level_complete", true]`) that run, through `commands`, once the
    /// level's entities exist. A command may name an entity of the level by its id in
    /// the file.
    ///
    /// The whole level is checked first — entities, values and every command's
    /// arguments — and nothing changes unless all of it is good. Then the entities
    /// are loaded (their hooks run) and the commands run in order.
    ///
    /// # Errors
    /// As [`load_json`](Self::load_json), or [`LoadError::Command`] with the index of
    /// the first bad command; the world is unchanged. (If the entities' own hooks
    /// undo what a command needs, the command fails after the entities are loaded;
    /// that is the one case where a load changes the world and returns an error.)
    pub fn load_level(
        &self,
        world: &mut World,
        commands: &DataCommands,
        input: impl AsRef<[u8]>,
    ) -> Result<Loaded, LoadError> {
        let input = input.as_ref();
        world.flush_reserved();
        let mut range = None;
        let load = read_checked(self, world, json_in::max_records(input), |load| {
            range = json_in::read_scene(load, input, true)?;
            Ok(())
        })?;
        let commands_json = range.map(|range| &input[range]);
        if let Some(json) = commands_json {
            // Ids of the level read as the handles its entities will get, which the
            // check accepts as alive; any other handle must be alive in the world.
            load.installed().with(|remap| remap.mode = Mode::Known);
            commands.check_batch(world, json).map_err(LoadError::Command)?;
        }
        let loaded = load.commit(world);
        if let Some(json) = commands_json {
            let _remap = Installed::new(EntityRemap::fixed(loaded.file_ids(), loaded.entities()));
            commands.run_batch(world, json).map_err(LoadError::Command)?;
        }
        Ok(loaded)
    }
}
