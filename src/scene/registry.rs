//! [`SceneRegistry`]: the component and resource types that scenes save and load,
//! each under a stable name.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::component::{Component, ComponentId};
use crate::dynamic::ComponentDescriptor;
use crate::world::World;

use super::entry::{ComponentEntry, EntryKind, ResourceEntry};
use super::error::RegistryError;
use super::runtime_entry::{RuntimeCodec, RuntimeEntry};

/// The types a scene holds, each under a stable name: what [`save`](Self::save)
/// writes and the `load_*` methods read.
///
/// Components and resources opt in separately and have separate names. A type that
/// is not registered is not saved; the [`SaveReport`](super::SaveReport) lists the
/// component types a save skipped and how many entities had them.
///
/// ```
/// use ripple::World;
/// use ripple::scene::SceneRegistry;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// struct Position { x: f32, y: f32 }
/// #[derive(Serialize, Deserialize)]
/// struct Target(ripple::Entity);
///
/// let mut registry = SceneRegistry::new();
/// registry.component::<Position>("position")?.component::<Target>("target")?;
///
/// let mut world = World::new();
/// let a = world.spawn((Position { x: 1.0, y: 2.0 },));
/// world.spawn((Position { x: 3.0, y: 4.0 }, Target(a)));
///
/// let mut json = Vec::new();
/// registry.save(&world).to_json(&mut json)?;
///
/// let mut copy = World::new();
/// copy.spawn((Position { x: 9.0, y: 9.0 },)); // loading into a world that has entities
/// let loaded = registry.load_json(&mut copy, &json)?;
/// let (new_a, new_b) = (loaded.entities()[0], loaded.entities()[1]);
/// assert_eq!(copy.get::<Position>(new_a)?, &Position { x: 1.0, y: 2.0 });
/// assert_eq!(copy.get::<Target>(new_b)?.0, new_a); // the reference follows its entity
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Default)]
pub struct SceneRegistry {
    pub(crate) components: Vec<ComponentEntry>,
    pub(crate) resources: Vec<ResourceEntry>,
    component_names: Namespace,
    resource_names: Namespace,
    /// Runtime components: the world's name of each to its entry's index.
    runtime_names: HashMap<&'static str, usize>,
}

/// One namespace of registered types: each name and each type to its entry's index.
#[derive(Default)]
struct Namespace {
    names: HashMap<Box<str>, usize>,
    types: HashMap<TypeId, usize>,
}

impl std::fmt::Debug for SceneRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SceneRegistry")
            .field("components", &self.component_names().collect::<Vec<_>>())
            .field("resources", &self.resources.iter().map(|r| &*r.name).collect::<Vec<_>>())
            .finish()
    }
}

/// Whether `name` is a valid registered name (see [`RegistryError::InvalidName`]).
fn valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'/'))
}

impl Namespace {
    /// Registers `type_id` under `name` as entry `next` if both are free; `Ok(false)`
    /// if this very registration exists. `type_name_of` and `name_of` describe an
    /// existing entry for the error.
    fn claim(
        &mut self,
        name: &str,
        type_id: TypeId,
        next: usize,
        type_name_of: impl Fn(usize) -> &'static str,
        name_of: impl Fn(usize) -> String,
    ) -> Result<bool, RegistryError> {
        if !valid_name(name) {
            return Err(RegistryError::InvalidName { name: name.to_owned() });
        }
        match (self.names.get(name), self.types.get(&type_id)) {
            (None, None) => {
                self.names.insert(name.into(), next);
                self.types.insert(type_id, next);
                Ok(true)
            }
            // The same registration again.
            (Some(a), Some(b)) if a == b => Ok(false),
            (Some(&index), _) => {
                Err(RegistryError::NameTaken { name: name.to_owned(), registered: type_name_of(index) })
            }
            (None, Some(&index)) => {
                Err(RegistryError::TypeTaken { type_name: type_name_of(index), registered: name_of(index) })
            }
        }
    }
}

impl SceneRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        SceneRegistry::default()
    }

    /// Registers component `T` under `name`. Registering the same type under the same
    /// name again does nothing.
    ///
    /// # Errors
    /// [`RegistryError`] if `name` is taken by another type, `T` has another name, or
    /// `name` is not valid.
    pub fn component<T: Component + Serialize + DeserializeOwned>(
        &mut self,
        name: &str,
    ) -> Result<&mut Self, RegistryError> {
        let entries = &self.components;
        let fresh = self.component_names.claim(
            name,
            TypeId::of::<T>(),
            entries.len(),
            |i| entries[i].type_name,
            |i| entries[i].name.to_string(),
        )?;
        if fresh {
            self.components.push(ComponentEntry::new::<T>(name));
        }
        Ok(self)
    }

    /// Registers a component defined at run time under `name`: the world's runtime
    /// component named as `descriptor` is, with its layout (registered from the
    /// descriptor in a world that loads it without having it), written and read
    /// through `codec`.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::dynamic::ComponentDescriptor;
    /// use ripple::scene::{RuntimeCodec, SceneRegistry};
    /// use serde_json::Value;
    /// struct Byte;
    /// impl RuntimeCodec for Byte {
    ///     fn write_json(&self, bytes: &[u8]) -> Value { Value::from(bytes[0]) }
    ///     fn read_json(&self, json: &Value, out: &mut [u8]) -> Result<(), String> {
    ///         out[0] = json.as_u64().and_then(|n| u8::try_from(n).ok()).ok_or("expected a byte")?;
    ///         Ok(())
    ///     }
    /// }
    /// let level = ComponentDescriptor::new("level", 1, 1).unwrap();
    /// let mut registry = SceneRegistry::new();
    /// registry.runtime_component("level", level.clone(), Byte)?;
    ///
    /// let mut world = World::new();
    /// let id = world.register_component(level);
    /// let e = world.spawn(());
    /// world.insert_by_id(e, id, &[7]).unwrap();
    /// let mut json = Vec::new();
    /// registry.save(&world).to_json(&mut json)?;
    ///
    /// let mut copy = World::new(); // registers `level` as it loads
    /// let loaded = registry.load_json(&mut copy, &json)?;
    /// let id = copy.component_id_named("level").unwrap();
    /// assert_eq!(copy.get_by_id(loaded.entities()[0], id).unwrap(), [7]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`RegistryError`] if `name` is taken, the descriptor's component is registered
    /// under another name, or `name` is not valid.
    pub fn runtime_component(
        &mut self,
        name: &str,
        descriptor: ComponentDescriptor,
        codec: impl RuntimeCodec,
    ) -> Result<&mut Self, RegistryError> {
        if !valid_name(name) {
            return Err(RegistryError::InvalidName { name: name.to_owned() });
        }
        let component = descriptor.name();
        match (self.component_names.names.get(name), self.runtime_names.get(component)) {
            (Some(&index), _) => {
                return Err(RegistryError::NameTaken {
                    name: name.to_owned(),
                    registered: self.components[index].type_name,
                });
            }
            (None, Some(&index)) => {
                let registered = self.components[index].name.to_string();
                return Err(RegistryError::TypeTaken { type_name: component, registered });
            }
            (None, None) => {}
        }
        let index = self.components.len();
        self.component_names.names.insert(name.into(), index);
        self.runtime_names.insert(component, index);
        self.components.push(ComponentEntry {
            name: name.into(),
            type_name: component,
            shape: super::shape::of_layout(descriptor.layout().size(), descriptor.layout().align()),
            kind: EntryKind::Runtime(RuntimeEntry::new(descriptor, Arc::new(codec))),
        });
        Ok(self)
    }

    /// Registers resource `R` under `name` (resources have names of their own, apart
    /// from components'). Registering the same type under the same name again does
    /// nothing.
    ///
    /// # Errors
    /// As [`component`](Self::component).
    pub fn resource<R>(&mut self, name: &str) -> Result<&mut Self, RegistryError>
    where
        R: Send + Sync + 'static + Serialize + DeserializeOwned,
    {
        let entries = &self.resources;
        let fresh = self.resource_names.claim(
            name,
            TypeId::of::<R>(),
            entries.len(),
            |i| entries[i].type_name,
            |i| entries[i].name.to_string(),
        )?;
        if fresh {
            self.resources.push(ResourceEntry::new::<R>(name));
        }
        Ok(self)
    }

    /// The registered component names, in registration order.
    pub fn component_names(&self) -> impl Iterator<Item = &str> {
        self.components.iter().map(|c| &*c.name)
    }

    /// The name component `T` is registered under.
    pub fn name_of<T: Component>(&self) -> Option<&str> {
        self.component_names.types.get(&TypeId::of::<T>()).map(|&i| &*self.components[i].name)
    }

    pub(crate) fn component_index(&self, name: &str) -> Option<usize> {
        self.component_names.names.get(name).copied()
    }

    pub(crate) fn resource_index(&self, name: &str) -> Option<usize> {
        self.resource_names.names.get(name).copied()
    }

    /// The entry of `world`'s component `id`, if registered: by its type, or, for a
    /// runtime component, by its name and layout.
    pub(crate) fn entry_of(&self, world: &World, id: ComponentId) -> Option<usize> {
        let info = world.components.info(id);
        if let Some(type_id) = info.type_id {
            return self.component_index_of(type_id);
        }
        let index = *self.runtime_names.get(info.name)?;
        match &self.components[index].kind {
            EntryKind::Runtime(runtime) if runtime.id_in(world) == Some(id) => Some(index),
            _ => None,
        }
    }

    /// The entry of the component type `type_id`, if registered.
    pub(crate) fn component_index_of(&self, type_id: TypeId) -> Option<usize> {
        self.component_names.types.get(&type_id).copied()
    }

    /// The registered component name closest to `name`, if one is close enough to
    /// be a likely typo.
    pub(crate) fn closest_component(&self, name: &str) -> Option<String> {
        closest(name, self.components.iter().map(|c| &*c.name))
    }

    /// As [`closest_component`](Self::closest_component), among resources.
    pub(crate) fn closest_resource(&self, name: &str) -> Option<String> {
        closest(name, self.resources.iter().map(|r| &*r.name))
    }
}

/// The candidate within a third of `name`'s length (at least 2) in edit distance.
fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    let limit = (name.chars().count() / 3).max(2);
    candidates
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate.to_owned())
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb)).min(above + 1).min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_types_are_each_registered_once() {
        let mut registry = SceneRegistry::new();
        registry.component::<u32>("count").unwrap().component::<u32>("count").unwrap();
        assert_eq!(
            registry.component::<u64>("count").unwrap_err().to_string(),
            "the name `count` is already registered for `u32`"
        );
        assert_eq!(
            registry.component::<u32>("other").unwrap_err().to_string(),
            "`u32` is already registered as `count`"
        );
        assert!(matches!(registry.component::<u8>("has space"), Err(RegistryError::InvalidName { .. })));
        assert!(matches!(registry.component::<u8>(""), Err(RegistryError::InvalidName { .. })));
        // Resources have their own names.
        registry.resource::<u64>("count").unwrap();
        assert_eq!(registry.component_names().collect::<Vec<_>>(), ["count"]);
        assert_eq!(registry.name_of::<u32>(), Some("count"));
    }

    #[test]
    fn the_closest_name_is_offered_for_a_typo() {
        assert_eq!(edit_distance("position", "postion"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        let names = ["position", "velocity", "health"];
        assert_eq!(closest("postion", names.into_iter()), Some("position".into()));
        assert_eq!(closest("Velocity", names.into_iter()), Some("velocity".into()));
        assert_eq!(closest("mana", names.into_iter()), None);
    }
}
