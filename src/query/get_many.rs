//! Several entities' items at once ([`QueryState::get_many`],
//! [`QueryState::get_many_mut`]): what a collision response needs to change both
//! sides of a contact.

use crate::entity::Entity;
use crate::error::QueryEntityError;
use crate::world::World;

use super::fetch::{QueryData, ReadOnlyQueryData};
use super::filter::QueryFilter;
use super::state::QueryState;

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// The items of `entities`, in order, if every one is alive and matches. Like
    /// [`get`](Self::get) for each (not a run); an entity may be listed twice, since
    /// the items only read.
    ///
    /// # Errors
    /// The first entity's error, in order, as [`get`](Self::get) reports it.
    #[track_caller]
    pub fn get_many<'w, const N: usize>(
        &mut self,
        world: &'w World,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'w>; N], QueryEntityError>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: `Q` is read-only and `world` is shared for `'w`, so items may alias.
        unsafe { self.get_many_in(world, entities, false) }
    }

    /// The items of `entities`, in order, with mutable access, if every one is alive,
    /// matches, and is listed once. Like [`get_mut`](Self::get_mut) for each (not a
    /// run): writes are stamped with the world's current tick. Nothing is handed out
    /// unless every item is.
    ///
    /// ```
    /// use ripple::{QueryEntityError, World};
    /// struct Vel(f32);
    /// let mut world = World::new();
    /// let a = world.spawn((Vel(1.0),));
    /// let b = world.spawn((Vel(-1.0),));
    /// let mut bodies = world.query::<&mut Vel>();
    /// let [mut va, mut vb] = bodies.get_many_mut(&mut world, [a, b]).unwrap();
    /// std::mem::swap(&mut va.0, &mut vb.0); // an elastic bounce
    /// assert_eq!(world.get::<Vel>(a).unwrap().0, -1.0);
    /// assert_eq!(bodies.get_many_mut(&mut world, [a, a]).err(), Some(QueryEntityError::Duplicate(a)));
    /// ```
    ///
    /// # Errors
    /// [`QueryEntityError::Duplicate`] if an entity is listed twice (checked first);
    /// otherwise the first entity's error, in order, as [`get`](Self::get) reports it.
    #[track_caller]
    pub fn get_many_mut<'w, const N: usize>(
        &mut self,
        world: &'w mut World,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'w>; N], QueryEntityError> {
        world.maintain_ticks();
        // SAFETY: `world` is borrowed exclusively for `'w` and `Q` does not alias;
        // duplicates are refused, so one item is made per entity.
        unsafe { self.get_many_in(world, entities, true) }
    }

    /// The items of `entities` for a system's query: catches up with new tables and,
    /// if `distinct`, refuses duplicates first. Not a run.
    ///
    /// # Safety
    /// As [`get_many_unchecked`](Self::get_many_unchecked), with distinctness checked
    /// here when `distinct` is set.
    pub(crate) unsafe fn get_many_in<'w, const N: usize>(
        &mut self,
        world: &'w World,
        entities: [Entity; N],
        distinct: bool,
    ) -> Result<[Q::Item<'w>; N], QueryEntityError> {
        self.update_archetypes(world);
        // SAFETY: per the caller; updated just now.
        unsafe { self.get_many_updated(world, entities, distinct) }
    }

    /// [`get_many_in`](Self::get_many_in) for a state already updated against `world`
    /// (a system's query is, once per run: no table appears while the run holds the
    /// world shared).
    ///
    /// # Safety
    /// As `get_many_in`; the state was updated against `world`, which gained no table
    /// since.
    pub(crate) unsafe fn get_many_updated<'w, const N: usize>(
        &self,
        world: &'w World,
        entities: [Entity; N],
        distinct: bool,
    ) -> Result<[Q::Item<'w>; N], QueryEntityError> {
        if distinct {
            refuse_duplicates(&entities)?;
        }
        // SAFETY: per the caller.
        unsafe { self.get_many_unchecked(world, entities) }
    }

    /// # Safety
    /// The caller holds the access `Q` declares on `world` for `'w`; unless `Q` only
    /// reads, the entities are distinct and no other item of this query for them is
    /// alive.
    unsafe fn get_many_unchecked<'w, const N: usize>(
        &self,
        world: &'w World,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'w>; N], QueryEntityError> {
        // SAFETY: per the caller, one item per entity.
        let items = entities.map(|entity| unsafe { self.get_unchecked(world, entity) });
        if let Some(error) = items.iter().find_map(|item| item.as_ref().err()) {
            return Err(*error);
        }
        Ok(items.map(|item| match item {
            Ok(item) => item,
            Err(_) => unreachable!("every item was checked"),
        }))
    }
}

/// Refuses a list that names an entity twice. Quadratic, for the few entities a
/// caller lists by hand (no allocation, no hashing).
fn refuse_duplicates(entities: &[Entity]) -> Result<(), QueryEntityError> {
    for (i, &entity) in entities.iter().enumerate() {
        if entities[..i].contains(&entity) {
            return Err(QueryEntityError::Duplicate(entity));
        }
    }
    Ok(())
}
