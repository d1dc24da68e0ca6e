//! Relations of your own: the [`Relation`] trait, the [`Related`] lists the world keeps
//! on targets, and the upkeep that keeps the two in step.

mod api;
mod spawner;
mod upkeep;

pub use spawner::{ChildSpawner, ChildSpawnerCommands, RelatedSpawner, RelatedSpawnerCommands};
pub(crate) use spawner::{QueueLink, WorldLink};

pub(crate) use upkeep::install_with;

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::AtomicBool;

use crate::component::Component;
use crate::entity::Entity;

pub use crate::relation_error::RelationError;

/// Relations of your own: a component on a *source* entity naming a *target*
/// (`ContainedIn(bag)`, `Targets(enemy)`, `Likes(friend)`), with the target's list of
/// its sources kept in step by the world, and a policy for what despawning a target
/// does to its sources.
///
/// Implement [`Relation`] for the source component and register it once with
/// [`World::register_relation`](crate::World::register_relation). The target's list
/// is the component [`Related<R>`], which the world builds and keeps: its sources in
/// the order they were related. Every path that changes a relation keeps the two in
/// step: [`World::relate`](crate::World::relate) and
/// [`unrelate`](crate::World::unrelate), inserting or removing `R` directly (also from
/// commands and hooks), and despawning either side.
///
/// - **Despawning a target** detaches its sources (they lose `R`) or despawns them,
///   as [`Relation::ON_TARGET_DESPAWN`] says; a cascade over a relation with cycles
///   despawns each entity once.
/// - **Refused, not repaired**: a dead target or an entity related to itself (and,
///   for a relation declared [`ACYCLIC`](Relation::ACYCLIC), a cycle) is a
///   [`RelationError`] from `relate`; an `R` inserted directly that names one is
///   undone once the insert completes and recorded as a failed command.
/// - **`R` and `Related<R>` are read-only** to queries and `get_mut`, since a write
///   there would bypass the bookkeeping.
///
/// ```
/// use ripple::{Entity, World};
/// use ripple::relation::{DespawnPolicy, Relation, Related};
///
/// /// An item in a container; despawning the container despawns what it holds.
/// struct ContainedIn(Entity);
/// impl Relation for ContainedIn {
///     const ON_TARGET_DESPAWN: DespawnPolicy = DespawnPolicy::DespawnRelated;
///     const ACYCLIC: bool = true;
///     fn target(&self) -> Entity { self.0 }
///     fn to(target: Entity) -> Self { ContainedIn(target) }
///     fn set_target(&mut self, target: Entity) { self.0 = target; }
/// }
///
/// let mut world = World::new();
/// world.register_relation::<ContainedIn>();
/// let bag = world.spawn(("bag",));
/// let coin = world.spawn(("coin",));
/// world.relate(coin, ContainedIn(bag)).unwrap();
/// let gem = world.spawn(("gem", ContainedIn(bag))); // a direct insert is followed too
/// assert_eq!(world.related::<ContainedIn>(bag), [coin, gem]);
/// assert!(world.relate(bag, ContainedIn(coin)).is_err()); // a cycle: refused
/// world.despawn(bag).unwrap();
/// assert!(!world.contains(coin) && !world.contains(gem));
/// ```
pub trait Relation: Component + Sized {
    /// What despawning a target does to its sources: detach them (the default) or
    /// despawn them too.
    const ON_TARGET_DESPAWN: DespawnPolicy = DespawnPolicy::Detach;

    /// Whether relating an entity to one that (through this relation) leads back to
    /// it is refused. Checking costs a walk up the chain of targets; off by default
    /// (a `Likes` graph may well have cycles).
    const ACYCLIC: bool = false;

    /// The target this relation names.
    fn target(&self) -> Entity;

    /// A new relation naming `target` (what [`spawn_related`](crate::World::spawn_related)
    /// and the batch calls give a source that has none).
    fn to(target: Entity) -> Self;

    /// Makes this relation name `target`, keeping whatever else it carries: what the
    /// batch calls ([`add_related`](crate::World::add_related) and kin) do to a
    /// source related elsewhere, and what a refused direct insert is put back with
    /// (the target the source had, the rest as inserted).
    fn set_target(&mut self, target: Entity);
}

/// What despawning a target does to the entities related to it (see
/// [`Relation::ON_TARGET_DESPAWN`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DespawnPolicy {
    /// They lose the relation and live on.
    Detach,
    /// They are despawned too, and so on down the relation.
    DespawnRelated,
}

/// The list of entities related to a target through `R`, in the order they were
/// related: kept by the world on the target (see [`Relation`]). It stays
/// (empty) when the last source leaves, keeping its capacity.
pub struct Related<R> {
    pub(crate) list: Vec<Entity>,
    /// Set on a list the upkeep built for the insert that is running; an inserted list
    /// without it (one taken from some entity earlier) is rebuilt.
    pub(crate) fresh: AtomicBool,
    _relation: PhantomData<fn() -> R>,
}

impl<R> Related<R> {
    pub(crate) fn fresh(list: Vec<Entity>) -> Self {
        Related { list, fresh: AtomicBool::new(true), _relation: PhantomData }
    }

    /// The related entities, in order.
    #[inline]
    pub fn as_slice(&self) -> &[Entity] {
        &self.list
    }
}

impl<R> std::ops::Deref for Related<R> {
    type Target = [Entity];
    #[inline]
    fn deref(&self) -> &[Entity] {
        &self.list
    }
}

impl<R> fmt::Debug for Related<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = crate::util::type_name::short_type_name(std::any::type_name::<R>());
        write!(f, "Related<{name}>")?;
        f.debug_list().entries(&self.list).finish()
    }
}
