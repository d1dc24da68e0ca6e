//! Persistence: worlds saved as scenes and loaded back, in JSON for people and
//! version control or in a compact binary form, all-or-nothing; and level files,
//! which add data commands to run once their entities exist.
//!
//! A [`SceneRegistry`] names the component and resource types a scene holds. Saving
//! ([`SceneRegistry::save`]) streams each value from its column to the output.
//! Loading gives the scene's entities fresh handles and remaps every `Entity` inside
//! their components to the new handle of the entity it named. A load reads and checks
//! the whole input before the world changes, so a bad input leaves the world exactly
//! as it was and says what was wrong and where.

pub(crate) mod binary;
mod binary_in;
mod checked_write;
mod entity_map;
pub(crate) mod entry;
mod error;
mod json_in;
mod json_out;
mod level;
mod load;
pub(crate) mod nesting;
mod read_value;
mod registry;
pub(crate) mod remap;
mod runtime_entry;
mod save;
mod shape;
mod sibling_order;
mod value_json;

pub use entity_map::EntityMap;
pub use error::{InputPosition, LoadError, RegistryError, SaveError, ValueSite};
pub use load::Loaded;
pub use nesting::NESTING_LIMIT;
pub use registry::SceneRegistry;
pub use runtime_entry::RuntimeCodec;
pub use save::{SaveReport, SceneSaver, SkippedComponent};
pub use value_json::{NamedValue, ValueError};
