//! Answering the requests that need the world, at the game's sync point: entity
//! searches ([`crate::search`]) and values (read through the scene registry's
//! serialisers), and the writes (a value, a spawn, a despawn, a data command), each a
//! typed error or done whole.

use ripple::data::DataCommands;
use ripple::scene::SceneRegistry;
use ripple::{Entity, World};
use serde_json::{Value, json};

use crate::request::Route;
use crate::sample::short_name;
use crate::search::{Found, search};

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

/// What the game's thread answers a request that needs the world with: an answer, or
/// what a search found, which the server thread writes out.
pub(crate) enum WorldAnswer {
    Done(Answer),
    Found(Found),
}

impl WorldAnswer {
    /// The answer to send.
    pub(crate) fn into_answer(self) -> Answer {
        match self {
            WorldAnswer::Done(answer) => answer,
            WorldAnswer::Found(found) => Answer { status: 200, body: found.to_json() },
        }
    }
}

impl From<Answer> for WorldAnswer {
    fn from(answer: Answer) -> Self {
        WorldAnswer::Done(answer)
    }
}

/// What the game lends the inspector at a sync point to answer with.
pub(crate) struct Lent<'a> {
    pub(crate) world: &'a mut World,
    pub(crate) registry: Option<&'a SceneRegistry>,
    pub(crate) commands: Option<&'a DataCommands>,
}

/// Answers `route` (one that needs the world; writes already allowed by the caller).
pub(crate) fn answer(route: Route, lent: Lent<'_>) -> WorldAnswer {
    match route {
        Route::Entities { query, offset, limit } => WorldAnswer::Found(search(lent.world, &query, offset, limit)),
        route => WorldAnswer::Done(act(route, lent)),
    }
}

/// Answers a request for an entity's values, or a write.
fn act(route: Route, lent: Lent<'_>) -> Answer {
    let Lent { world, registry, commands } = lent;
    match route {
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
        Route::Page | Route::Script | Route::Style | Route::Overview | Route::Live { .. } | Route::Entities { .. } => {
            Answer::error(500, "not a request for the world")
        }
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
