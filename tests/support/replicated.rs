//! The replicated components and registry the replication tests share, included with
//! `#[path = "support/replicated.rs"] mod replicated;`.
#![allow(dead_code, reason = "each test file uses part of it")]

use ripple::Entity;
use ripple::hierarchy::ChildOf;
use ripple::scene::SceneRegistry;
use serde::{Deserialize, Serialize};

/// A replicated position.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct Position(pub i32);

/// Replicated hit points.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct Health(pub u32);

/// A replicated value that names an entity.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct Target(pub Entity);

/// A marker a peer's view can ask for (not replicated).
pub struct Near;

/// How far the resource-reading filters see.
pub struct Radius(pub i32);

/// The registry of the replicated components: `Position`, `Health`, `Target` and
/// `ChildOf`.
pub fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry.component::<Position>("position").unwrap();
    registry.component::<Health>("health").unwrap();
    registry.component::<Target>("target").unwrap();
    registry.component::<ChildOf>("child_of").unwrap();
    registry
}
