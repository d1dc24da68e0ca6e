//! What can go wrong registering, saving and loading scenes.

use std::fmt;

use crate::data::BatchError;
use crate::entity::Entity;

/// Why a type or name was refused by a [`SceneRegistry`](super::SceneRegistry).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// The name is already registered for another type.
    NameTaken {
        /// The name.
        name: String,
        /// The type registered under it.
        registered: &'static str,
    },
    /// The type is already registered under another name.
    TypeTaken {
        /// The type.
        type_name: &'static str,
        /// The name it has.
        registered: String,
    },
    /// Names are 1 to 128 characters of ASCII letters, digits and `_ - . : /`, so
    /// they read the same in every format and need no escaping.
    InvalidName {
        /// The name.
        name: String,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::NameTaken { name, registered } => {
                write!(f, "the name `{name}` is already registered for `{registered}`")
            }
            RegistryError::TypeTaken { type_name, registered } => {
                write!(f, "`{type_name}` is already registered as `{registered}`")
            }
            RegistryError::InvalidName { name } => {
                write!(f, "`{name}` is not a valid name: use 1 to 128 ASCII letters, digits and `_ - . : /`")
            }
        }
    }
}

impl std::error::Error for RegistryError {}

/// Why a save failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum SaveError {
    /// An entity selected for saving is not alive.
    NoSuchEntity(Entity),
    /// An entity was selected twice (its file would name it twice).
    DuplicateEntity(Entity),
    /// A value's `Serialize` failed (a JSON map with keys that are not strings, say).
    Value {
        /// The entity, or `None` for a resource.
        entity: Option<Entity>,
        /// The component's or resource's registered name.
        name: String,
        /// The serializer's message.
        message: String,
    },
    /// A float that JSON cannot hold (NaN or an infinity) in a value saved as JSON:
    /// serde_json would write `null`, which would not load back. (Binary scenes keep
    /// such floats bit for bit.) Nothing more is written.
    NotFinite {
        /// The entity, or `None` for a resource.
        entity: Option<Entity>,
        /// The component's or resource's registered name.
        name: String,
        /// The float.
        value: f64,
    },
    /// A value that nests deeper than [`NESTING_LIMIT`](crate::scene::NESTING_LIMIT) levels,
    /// which no load would accept.
    TooDeep {
        /// The entity, or `None` for a resource.
        entity: Option<Entity>,
        /// The component's or resource's registered name.
        name: String,
    },
    /// The writer failed.
    Io(std::io::Error),
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SaveError::NoSuchEntity(entity) => write!(f, "cannot save entity {entity}: it is not alive"),
            SaveError::DuplicateEntity(entity) => write!(f, "entity {entity} is selected twice"),
            SaveError::Value { entity: Some(entity), name, message } => {
                write!(f, "cannot save `{name}` of entity {entity}: {message}")
            }
            SaveError::Value { entity: None, name, message } => write!(f, "cannot save resource `{name}`: {message}"),
            SaveError::NotFinite { entity, name, value } => {
                write!(f, "cannot save {}: {value} cannot be written in JSON", saved_value(*entity, name))
            }
            SaveError::TooDeep { entity, name } => write!(
                f,
                "cannot save {}: it nests deeper than {} levels",
                saved_value(*entity, name),
                super::NESTING_LIMIT
            ),
            SaveError::Io(error) => write!(f, "cannot write the scene: {error}"),
        }
    }
}

/// "`name` of entity E" or "resource `name`".
fn saved_value(entity: Option<Entity>, name: &str) -> String {
    match entity {
        Some(entity) => format!("`{name}` of entity {entity}"),
        None => format!("resource `{name}`"),
    }
}

impl std::error::Error for SaveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SaveError::Io(error) => Some(error),
            _ => None,
        }
    }
}

impl From<std::io::Error> for SaveError {
    fn from(error: std::io::Error) -> Self {
        SaveError::Io(error)
    }
}

/// Where in the input something is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputPosition {
    /// In JSON: line and column, from 1.
    Line {
        /// The line, from 1.
        line: usize,
        /// The column (byte in the line), from 1.
        column: usize,
    },
    /// In a binary scene: the byte offset.
    Offset(usize),
}

impl fmt::Display for InputPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputPosition::Line { line, column } => write!(f, "line {line}, column {column}"),
            InputPosition::Offset(offset) => write!(f, "byte {offset}"),
        }
    }
}

/// Which value of a scene something is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueSite {
    /// A component of the entity at this index in the file (from 0).
    Component {
        /// The entity's index in the file.
        entity: usize,
        /// The component's name.
        name: String,
    },
    /// A resource.
    Resource {
        /// The resource's name.
        name: String,
    },
}

impl fmt::Display for ValueSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueSite::Component { entity, name } => write!(f, "`{name}` of entity {entity}"),
            ValueSite::Resource { name } => write!(f, "resource `{name}`"),
        }
    }
}

/// Why a load was refused. The world is exactly as it was before the call.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum LoadError {
    /// The input is not a scene of this format (wrong magic number, or JSON that is
    /// not a scene object).
    NotAScene {
        /// What was found.
        message: String,
    },
    /// The scene was written by a format version this build cannot read.
    UnsupportedVersion {
        /// The version in the input.
        found: u64,
        /// The version this build reads.
        supported: u16,
    },
    /// The JSON is malformed around the values (a missing comma, an unexpected key).
    Syntax {
        /// What was expected.
        message: String,
        /// Where.
        at: InputPosition,
    },
    /// The input ends early.
    Truncated {
        /// What was being read.
        reading: String,
    },
    /// A component name that no registered type has.
    UnknownComponent {
        /// The entity's index in the file.
        entity: usize,
        /// The name.
        name: String,
        /// The registered name closest to it, if one is close.
        closest: Option<String>,
    },
    /// A resource name that no registered type has.
    UnknownResource {
        /// The name.
        name: String,
        /// The registered name closest to it, if one is close.
        closest: Option<String>,
    },
    /// A value that its type cannot be read from.
    MalformedValue {
        /// The value.
        site: ValueSite,
        /// serde's message.
        message: String,
        /// Where.
        at: InputPosition,
    },
    /// A value nests deeper than [`NESTING_LIMIT`](crate::scene::NESTING_LIMIT) levels
    /// (JSON: deeper than serde_json's limit of 127 arrays and objects). Refused
    /// before reading further, so no input can exhaust the stack.
    TooDeep {
        /// The value.
        site: ValueSite,
        /// Where.
        at: InputPosition,
    },
    /// An entity record without an `"id"`.
    MissingId {
        /// The entity's index in the file.
        entity: usize,
    },
    /// Two records with one id.
    DuplicateEntity {
        /// The id.
        id: Entity,
        /// The index in the file of the second record.
        entity: usize,
        /// The index in the file of the first.
        first: usize,
    },
    /// A record that names one component twice.
    DuplicateComponent {
        /// The entity's index in the file.
        entity: usize,
        /// The component's name.
        name: String,
    },
    /// A JSON object of the scene's structure (the scene itself or an entity record)
    /// has one key twice, such as two `"id"`s in a record.
    DuplicateKey {
        /// The key.
        key: String,
        /// The object: `the scene` or `entity <index in the file>`.
        object: String,
        /// Where the second one is.
        at: InputPosition,
    },
    /// A scene that holds one resource twice.
    DuplicateResource {
        /// The resource's name.
        name: String,
    },
    /// A value refers to an entity that is neither in the scene nor alive in the world.
    DanglingEntity {
        /// The entity referred to.
        reference: Entity,
        /// The value that refers to it.
        site: ValueSite,
    },
    /// The scene's [`ChildOf`](crate::hierarchy::ChildOf) values would make an entity its own
    /// ancestor: it names itself as its parent, or a chain of parents leads back to
    /// it. (A parent in the world, not in the scene, never closes a cycle.)
    HierarchyCycle {
        /// The index in the file of an entity on the cycle.
        entity: usize,
        /// The index in the file of the parent its `ChildOf` names.
        parent: usize,
    },
    /// A level's data command was refused (no entity was loaded).
    Command(BatchError),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotAScene { message } => write!(f, "not a ripple scene: {message}"),
            LoadError::UnsupportedVersion { found, supported } => {
                write!(f, "scene format version {found} is not supported (this build reads version {supported})")
            }
            LoadError::Syntax { message, at } => write!(f, "malformed scene at {at}: {message}"),
            LoadError::Truncated { reading } => write!(f, "the scene ends early, while reading {reading}"),
            LoadError::UnknownComponent { entity, name, closest } => {
                write!(f, "entity {entity} has an unknown component `{name}`")?;
                did_you_mean(f, closest.as_deref())
            }
            LoadError::UnknownResource { name, closest } => {
                write!(f, "unknown resource `{name}`")?;
                did_you_mean(f, closest.as_deref())
            }
            LoadError::MalformedValue { site, message, at } => write!(f, "cannot read {site} at {at}: {message}"),
            LoadError::TooDeep { site, at } => {
                write!(f, "cannot read {site} at {at}: it nests deeper than {} levels", super::NESTING_LIMIT)
            }
            LoadError::MissingId { entity } => write!(f, "entity {entity} has no \"id\""),
            LoadError::DuplicateEntity { id, entity, first } => {
                write!(f, "entity {entity} has the id {id} of entity {first}")
            }
            LoadError::DuplicateComponent { entity, name } => write!(f, "entity {entity} names `{name}` twice"),
            LoadError::DuplicateKey { key, object, at } => write!(f, "{object} has the key \"{key}\" twice (at {at})"),
            LoadError::DuplicateResource { name } => write!(f, "the scene holds resource `{name}` twice"),
            LoadError::DanglingEntity { reference, site } => {
                write!(f, "{site} refers to entity {reference}, which is neither in the scene nor alive in the world")
            }
            LoadError::HierarchyCycle { entity, parent } if entity == parent => {
                write!(f, "entity {entity} names itself as its parent (ChildOf)")
            }
            LoadError::HierarchyCycle { entity, parent } => {
                write!(f, "entity {entity} names entity {parent} as its parent (ChildOf), which descends from it")
            }
            LoadError::Command(error) => write!(f, "level command refused: {error}"),
        }
    }
}

fn did_you_mean(f: &mut fmt::Formatter<'_>, closest: Option<&str>) -> fmt::Result {
    match closest {
        Some(name) => write!(f, " (did you mean `{name}`?)"),
        None => Ok(()),
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Command(error) => Some(error),
            _ => None,
        }
    }
}
