//! One value of a live entity as JSON, by the name its component is registered
//! under: what a tool that edits a running world (an inspector, a console) reads and
//! writes, through the same serialisers as scenes.

use std::fmt;

use crate::entity::Entity;
use crate::world::World;

use super::SceneRegistry;

/// A registered component `entity` has, with its value as JSON
/// ([`SceneRegistry::values_of`]).
#[derive(Clone, Debug, PartialEq)]
pub struct NamedValue<'r> {
    /// The name the component is registered under.
    pub name: &'r str,
    /// Its type's name, as [`World::component_name`](crate::World::component_name)
    /// gives it (a runtime component's own name).
    pub type_name: &'static str,
    /// The value, as a JSON save would write it.
    pub value: serde_json::Value,
}

/// Why a value could not be read or written as JSON. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueError {
    /// The entity is not alive.
    NoSuchEntity(Entity),
    /// No component is registered under this name.
    UnknownComponent(String),
    /// The entity has no value of this component to read.
    Missing {
        /// The registered name.
        component: String,
    },
    /// The JSON is not a value of the component, or the value would not serialise.
    Malformed {
        /// The registered name.
        component: String,
        /// What the serialiser said.
        reason: String,
    },
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::NoSuchEntity(entity) => write!(f, "entity {entity} is not alive"),
            ValueError::UnknownComponent(name) => write!(f, "no component is registered under the name `{name}`"),
            ValueError::Missing { component } => write!(f, "the entity has no `{component}`"),
            ValueError::Malformed { component, reason } => write!(f, "not a value of `{component}`: {reason}"),
        }
    }
}

impl std::error::Error for ValueError {}

impl SceneRegistry {
    /// The registered components `entity` has, in registration order, each with its
    /// value as JSON. O(registered components), plus serialising the values.
    ///
    /// # Errors
    /// [`ValueError::NoSuchEntity`], or [`ValueError::Malformed`] for a value whose
    /// serialiser fails.
    pub fn values_of<'r>(&'r self, world: &World, entity: Entity) -> Result<Vec<NamedValue<'r>>, ValueError> {
        if !world.contains(entity) {
            return Err(ValueError::NoSuchEntity(entity));
        }
        let mut values = Vec::new();
        for index in 0..self.components.len() {
            if let Some(value) = self.read(index, world, entity)? {
                let entry = &self.components[index];
                values.push(NamedValue { name: &entry.name, type_name: entry.type_name, value });
            }
        }
        Ok(values)
    }

    /// `entity`'s value of the component registered as `component`, as JSON.
    ///
    /// # Errors
    /// [`ValueError`]: a dead entity, an unknown name, no such value, or a value whose
    /// serialiser fails.
    pub fn value_json(&self, world: &World, entity: Entity, component: &str) -> Result<serde_json::Value, ValueError> {
        let index = self.index_named(component)?;
        if !world.contains(entity) {
            return Err(ValueError::NoSuchEntity(entity));
        }
        self.read(index, world, entity)?.ok_or_else(|| ValueError::Missing { component: component.to_owned() })
    }

    /// Reads a value of the component registered as `component` from `json` and
    /// inserts it on `entity`, replacing the value it had: an insert like any other,
    /// so hooks, observers and change tracking see it. Entities inside the value are
    /// taken as this world's handles, as they are written by
    /// [`value_json`](Self::value_json).
    ///
    /// # Errors
    /// [`ValueError`]: a dead entity, an unknown name, or JSON that is not a value of
    /// the component. Nothing is changed.
    pub fn set_value_json(
        &self,
        world: &mut World,
        entity: Entity,
        component: &str,
        json: &serde_json::Value,
    ) -> Result<(), ValueError> {
        let index = self.index_named(component)?;
        if !world.contains(entity) {
            return Err(ValueError::NoSuchEntity(entity));
        }
        self.components[index]
            .insert_json(world, entity, json)
            .map_err(|reason| ValueError::Malformed { component: component.to_owned(), reason })
    }

    fn index_named(&self, component: &str) -> Result<usize, ValueError> {
        self.component_index(component).ok_or_else(|| ValueError::UnknownComponent(component.to_owned()))
    }

    /// Entry `index`'s value on `entity` (alive), if it has one, through the entry's
    /// binary writer and its binary-to-JSON reader: the path saves take.
    fn read(&self, index: usize, world: &World, entity: Entity) -> Result<Option<serde_json::Value>, ValueError> {
        let entry = &self.components[index];
        let malformed = |reason: String| ValueError::Malformed { component: entry.name.to_string(), reason };
        let mut bytes = Vec::new();
        if !entry.write_binary_of(world, entity, &mut bytes).map_err(|error| malformed(error.to_string()))? {
            return Ok(None);
        }
        let (value, _) = entry.binary_to_json(&bytes).map_err(|error| malformed(format!("{error:?}")))?;
        Ok(Some(value))
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
    struct Health(u32);
    #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
    struct Position {
        x: f32,
        y: f32,
    }

    fn setup() -> (World, SceneRegistry, Entity) {
        let mut registry = SceneRegistry::new();
        registry.component::<Health>("health").unwrap().component::<Position>("position").unwrap();
        let mut world = World::new();
        world.track::<Health>();
        let e = world.spawn((Health(5), Position { x: 1.0, y: 2.0 }));
        (world, registry, e)
    }

    #[test]
    fn values_read_and_write_as_json_by_registered_name() {
        let (mut world, registry, e) = setup();
        let values = registry.values_of(&world, e).unwrap();
        assert_eq!(values.len(), 2);
        assert_eq!((values[0].name, &values[0].value), ("health", &serde_json::json!(5)));
        assert!(values[1].type_name.ends_with("Position"));
        assert_eq!(registry.value_json(&world, e, "position").unwrap(), serde_json::json!({"x": 1.0, "y": 2.0}));
        world.insert(e, (Position { x: 3.15, y: -0.1 },)).unwrap();
        let position = registry.value_json(&world, e, "position").unwrap();
        assert_eq!(position.to_string(), r#"{"x":3.15,"y":-0.1}"#, "an f32 reads as written, not widened");
        registry.set_value_json(&mut world, e, "position", &position).unwrap();
        assert_eq!(world.get::<Position>(e), Ok(&Position { x: 3.15, y: -0.1 }), "and writes back the same value");

        let mut changed = world.query_filtered::<crate::Entity, crate::query::Changed<Health>>();
        changed.iter(&world).for_each(drop);
        registry.set_value_json(&mut world, e, "health", &serde_json::json!(9)).unwrap();
        assert_eq!(world.get::<Health>(e), Ok(&Health(9)));
        assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [e], "an edit is a change like any other");
    }

    #[test]
    fn bad_edits_are_typed_errors_that_change_nothing() {
        let (mut world, registry, e) = setup();
        let err = registry.set_value_json(&mut world, e, "health", &serde_json::json!("lots")).unwrap_err();
        assert!(matches!(err, ValueError::Malformed { ref component, .. } if component == "health"), "{err}");
        assert_eq!(world.get::<Health>(e), Ok(&Health(5)));
        assert_eq!(
            registry.set_value_json(&mut world, e, "mana", &serde_json::json!(1)),
            Err(ValueError::UnknownComponent("mana".into()))
        );
        world.remove::<(Health,)>(e).unwrap();
        assert_eq!(registry.value_json(&world, e, "health"), Err(ValueError::Missing { component: "health".into() }));
        world.despawn(e).unwrap();
        assert_eq!(registry.value_json(&world, e, "health"), Err(ValueError::NoSuchEntity(e)));
        assert_eq!(
            registry.set_value_json(&mut world, e, "health", &serde_json::json!(1)),
            Err(ValueError::NoSuchEntity(e))
        );
    }
}
