//! Answering the requests that need the world, at the game's sync point: entity
//! lists and values (read through the scene registry's serialisers), and the writes
//! (a value, a spawn, a despawn, a data command), each a typed error or done whole.

use ripple::{DataCommands, Entity, SceneRegistry, Storage, World};
use serde_json::{Value, json};

use crate::request::Route;
use crate::sample::short_name;

/// An HTTP status and a JSON body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The JSON body.
    pub body: String,
}

impl Answer {
    pub(crate) fn ok(body: Value) -> Answer {
        Answer { status: 200, body: body.to_string() }
    }

    pub(crate) fn error(status: u16, message: impl std::fmt::Display) -> Answer {
        Answer { status, body: json!({ "error": message.to_string() }).to_string() }
    }
}

/// What the game lends the inspector at a sync point to answer with.
pub(crate) struct Lent<'a> {
    pub(crate) world: &'a mut World,
    pub(crate) registry: Option<&'a SceneRegistry>,
    pub(crate) commands: Option<&'a DataCommands>,
}

/// Answers `route` (one that needs the world; writes already allowed by the caller).
pub(crate) fn answer(route: Route, lent: Lent<'_>) -> Answer {
    let Lent { world, registry, commands } = lent;
    match route {
        Route::Entities { query, offset, limit } => entities(world, &query, offset, limit),
        Route::Entity { bits } => match live(world, bits) {
            Ok(entity) => entity_values(world, registry, entity),
            Err(answer) => answer,
        },
        Route::Edit { entity, component, value } => {
            let Some(registry) = registry else { return no_registry() };
            match live(world, entity) {
                Ok(entity) => match registry.set_value_json(world, entity, &component, &value) {
                    Ok(()) => Answer::ok(json!({ "ok": true })),
                    Err(error) => Answer::error(400, error),
                },
                Err(answer) => answer,
            }
        }
        Route::Spawn { components } => {
            let Some(registry) = registry else { return no_registry() };
            let entity = world.spawn(());
            for (name, value) in &components {
                if let Err(error) = registry.set_value_json(world, entity, name, value) {
                    // All or nothing: the half-built entity goes.
                    let _ = world.despawn(entity);
                    return Answer::error(400, error);
                }
            }
            Answer::ok(json!({ "entity": entity.to_bits().to_string(), "id": entity.to_string() }))
        }
        Route::Despawn { entity } => match live(world, entity) {
            Ok(entity) => match world.despawn(entity) {
                Ok(()) => Answer::ok(json!({ "ok": true })),
                Err(error) => Answer::error(404, error),
            },
            Err(answer) => answer,
        },
        Route::Command { json } => match commands {
            Some(commands) => match commands.run(world, &json) {
                Ok(()) => Answer::ok(json!({ "ok": true })),
                Err(error) => Answer::error(400, error),
            },
            None => Answer::error(501, "the game gave the inspector no data commands"),
        },
        Route::Page | Route::Overview | Route::Live { .. } => Answer::error(500, "answered without the world"),
    }
}

fn no_registry() -> Answer {
    Answer::error(501, "the game gave the inspector no scene registry, so values cannot be written")
}

/// The live entity with these bits, or the answer saying why not.
fn live(world: &World, bits: u64) -> Result<Entity, Answer> {
    match Entity::from_bits(bits) {
        Some(entity) if world.contains(entity) => Ok(entity),
        Some(entity) => Err(Answer::error(404, format!("entity {entity} is not alive"))),
        None => Err(Answer::error(400, format!("{bits} is not an entity's bits"))),
    }
}

/// The short names of an entity's components, in the world's order.
fn component_names(world: &World, entity: Entity) -> Vec<String> {
    world.entity(entity).map(|e| e.component_names().map(short_name).collect()).unwrap_or_default()
}

/// Entities whose id (`12v1`, or bits) or component names contain `query` (case
/// ignored), a page of them, in table order.
///
/// O(tables + entities of the matching tables), or O(entities) when the query names
/// a sparse component (each entity is asked whether it has one) or looks like an id.
fn entities(world: &World, query: &str, offset: usize, limit: usize) -> Answer {
    let needle = query.to_lowercase();
    let matches = |name: &str| short_name(name).to_lowercase().contains(&needle);
    let sparse: Vec<_> = world
        .component_summaries()
        .filter(|c| c.storage == Storage::SparseSet && !needle.is_empty() && matches(c.name))
        .map(|c| c.id)
        .collect();
    let id_like = !needle.is_empty() && needle.chars().all(|c| c.is_ascii_digit() || c == 'v');
    let (mut total, mut page) = (0usize, Vec::new());
    for table in world.tables() {
        let table_matches =
            needle.is_empty() || table.components.iter().any(|&id| world.component_name(id).is_some_and(matches));
        if !table_matches && sparse.is_empty() && !id_like {
            continue;
        }
        for &entity in table.entities {
            let hit = table_matches
                || (id_like && (entity.to_string() == needle || entity.to_bits().to_string() == needle))
                || world.entity(entity).is_ok_and(|e| sparse.iter().any(|&id| e.contains_id(id)));
            if !hit {
                continue;
            }
            if total >= offset && page.len() < limit {
                page.push(json!({
                    "id": entity.to_string(),
                    "bits": entity.to_bits().to_string(),
                    "components": component_names(world, entity),
                }));
            }
            total += 1;
        }
    }
    Answer::ok(json!({ "total": total, "entities": page }))
}

/// An entity's components, with values for those the registry can serialise.
fn entity_values(world: &World, registry: Option<&SceneRegistry>, entity: Entity) -> Answer {
    let values = match registry.map(|registry| registry.values_of(world, entity)).transpose() {
        Ok(values) => values.unwrap_or_default(),
        Err(error) => return Answer::error(500, error),
    };
    let Ok(entity_ref) = world.entity(entity) else {
        return Answer::error(404, format!("entity {entity} is not alive"));
    };
    let components: Vec<Value> = entity_ref
        .component_names()
        .map(|type_name| match values.iter().find(|v| v.type_name == type_name) {
            Some(value) => json!({ "name": value.name, "value": value.value, "editable": true }),
            None => json!({ "name": short_name(type_name), "value": Value::Null, "editable": false }),
        })
        .collect();
    Answer::ok(json!({ "id": entity.to_string(), "bits": entity.to_bits().to_string(), "components": components }))
}
