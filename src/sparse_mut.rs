//! [`SparseMut`]: adds and removes one sparse-stored component type with the per-type
//! work done once, for loops that toggle a marker on many entities.

use crate::change::{ChangeLog, Move, Tick};
use crate::component::{Component, ComponentId};
use crate::entity::{Entities, Entity};
use crate::error::{ComponentError, MissingComponent, NoSuchEntity, NotSparse};
use crate::hook::HookFlags;
use crate::storage::TypedSet;
use crate::world::World;

/// Adds and removes component `T`, stored in a sparse set, on many entities: the
/// type's lookups (its id, its set, its hooks, the current tick) are done once when
/// the view is made, so each call costs an entity check and the set's own O(1) work.
/// Made by [`World::sparse_mut`].
///
/// Every call does what [`World::insert`] and [`World::remove`] do with a one-component
/// bundle of `T`: hooks run, change tracking stamps the value, removal streams and
/// [`Dirty`](crate::query::Dirty) observers see the change. Only the per-call lookups are gone.
///
/// ```
/// use ripple::{Storage, World};
/// use ripple::query::With;
/// struct Position(f32);
/// struct Moving;
///
/// let mut world = World::new();
/// world.set_storage::<Moving>(Storage::SparseSet).unwrap();
/// let crates: Vec<_> = world.spawn_batch((0..100).map(|i| (Position(i as f32),))).collect();
/// let mut moving = world.sparse_mut::<Moving>().unwrap();
/// for &e in &crates[..10] {
///     moving.insert(e, Moving).unwrap();
/// }
/// moving.remove(crates[0]).unwrap();
/// assert_eq!(moving.len(), 9);
/// let mut movers = world.query_filtered::<&Position, With<Moving>>();
/// assert_eq!(movers.iter(&world).count(), 9);
/// ```
pub struct SparseMut<'w, T: Component> {
    inner: Inner<'w, T>,
}

enum Inner<'w, T: Component> {
    /// `T` has no hooks: the view holds the parts of the world a call touches.
    Direct(Direct<'w, T>),
    /// `T` has hooks: calls go through `World::insert` and `World::remove`, which run
    /// them (hooks may read the whole world).
    Hooked { world: &'w mut World, id: ComponentId },
}

struct Direct<'w, T> {
    entities: &'w Entities,
    set: TypedSet<'w, T>,
    /// The structural-change log, if a `Dirty` observer reads it. No reader can
    /// register while the view borrows the world, so this is decided once.
    moves: Option<&'w mut ChangeLog<Move>>,
    /// `T`'s removal stream, if anyone reads it (decided once, as `moves`).
    removals: Option<&'w mut ChangeLog<(Entity, Tick)>>,
    id: ComponentId,
    now: Tick,
}

impl World {
    /// A view that adds and removes `T` on many entities with the per-type lookups done
    /// once (see [`SparseMut`]). `T` must be stored in a sparse set, chosen with
    /// [`World::set_storage`].
    ///
    /// # Errors
    /// [`NotSparse`] if `T` is stored in the tables (the default).
    pub fn sparse_mut<T: Component>(&mut self) -> Result<SparseMut<'_, T>, NotSparse> {
        let not_sparse = NotSparse { component: std::any::type_name::<T>() };
        let id = self.components.id::<T>().ok_or(not_sparse)?;
        if self.sparse.get(id).is_none() {
            return Err(not_sparse);
        }
        // Done once here, as every structural call does first: nothing can reserve an
        // entity or advance the tick while the view borrows the world.
        self.flush_reserved();
        self.maintain_ticks();
        if self.components.info(id).hooks.flags() != HookFlags::NONE {
            return Ok(SparseMut { inner: Inner::Hooked { world: self, id } });
        }
        let now = self.change_tick();
        let set = self.sparse.get_mut(id).expect("checked above").typed_mut::<T>();
        let moves = Some(&mut self.moves).filter(|log| log.is_observed());
        let removals = self.removals.get_mut(id.index()).filter(|log| log.is_observed());
        let entities = &self.entities;
        Ok(SparseMut { inner: Inner::Direct(Direct { entities, set, moves, removals, id, now }) })
    }
}

impl<T: Component> SparseMut<'_, T> {
    /// Gives `entity` the value `value`, replacing (and dropping) the one it had.
    ///
    /// # Errors
    /// [`NoSuchEntity`] if the entity is not alive; the value is dropped.
    #[inline]
    pub fn insert(&mut self, entity: Entity, value: T) -> Result<(), NoSuchEntity> {
        let direct = match &mut self.inner {
            Inner::Direct(direct) => direct,
            Inner::Hooked { world, .. } => return world.insert(entity, (value,)),
        };
        direct.entities.get(entity).ok_or(NoSuchEntity(entity))?;
        match direct.set.insert(entity, value, direct.now) {
            // Dropped after the new value is in place.
            Some(old) => drop(old),
            None => {
                if let Some(moves) = &mut direct.moves {
                    moves.push(Move::sparse(entity, direct.id, false));
                }
            }
        }
        Ok(())
    }

    /// Takes `entity`'s value away and returns it.
    ///
    /// # Errors
    /// [`ComponentError::NoSuchEntity`] if the entity is not alive,
    /// [`ComponentError::MissingComponent`] if it has no `T`; nothing changes.
    #[inline]
    pub fn remove(&mut self, entity: Entity) -> Result<T, ComponentError> {
        let direct = match &mut self.inner {
            Inner::Direct(direct) => direct,
            Inner::Hooked { world, .. } => return world.remove::<(T,)>(entity).map(|(value,)| value),
        };
        // A value of this very entity proves it alive: no look at its location.
        let Some(value) = direct.set.remove(entity, direct.now) else {
            return Err(absent::<T>(direct.entities.get(entity).is_some(), entity));
        };
        if let Some(removals) = &mut direct.removals {
            removals.push((entity, direct.now));
        }
        if let Some(moves) = &mut direct.moves {
            moves.push(Move::sparse(entity, direct.id, false));
        }
        Ok(value)
    }

    /// Whether `entity` is alive and has a `T`.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.get(entity).is_some()
    }

    /// `entity`'s `T`, if it is alive and has one.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&T> {
        match &self.inner {
            Inner::Direct(direct) => direct.set.get(entity),
            Inner::Hooked { world, .. } => world.get::<T>(entity).ok(),
        }
    }

    /// Number of entities with a `T`.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.inner {
            Inner::Direct(direct) => direct.set.len(),
            Inner::Hooked { world, id } => world.sparse.get(*id).map_or(0, |set| set.len()),
        }
    }

    /// Whether no entity has a `T`.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Why an entity has no `T` to remove.
#[cold]
fn absent<T>(alive: bool, entity: Entity) -> ComponentError {
    if alive {
        MissingComponent { entity, component: std::any::type_name::<T>() }.into()
    } else {
        NoSuchEntity(entity).into()
    }
}
