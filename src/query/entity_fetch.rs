//! Whole entities in a query: [`EntityRef`] (every component, read),
//! [`EntityRefExcept`] and [`EntityMutExcept`] (every component but a bundle's, read or
//! written), for code that chooses its components at run time (an inspector, a script
//! binding, a generic copier).

use std::any::{TypeId, type_name};
use std::marker::PhantomData;

use crate::bundle::Bundle;
use crate::change::{Mut, RunTicks, Tick};
use crate::component::{Component, ComponentId};
use crate::entity::{Entity, Location};
use crate::entity_ref::EntityRef;
use crate::storage::{Archetype, ArchetypeId, Row, TypedColumn, downcast};
use crate::world::World;

use super::access::Access;
use super::fetch::{QueryData, ReadOnlyQueryData, no_sparse_parts, sealed};

/// One table's entities with the world they live in: the fetch of every whole-entity
/// term.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct WholeFetch<'w> {
    world: &'w World,
    entities: &'w [Entity],
    archetype: ArchetypeId,
    tick: Tick,
}

impl<'w> WholeFetch<'w> {
    /// # Safety
    /// The run that made `ticks` borrows the world for `'w`.
    #[inline]
    unsafe fn of(archetype: &'w Archetype, ticks: RunTicks) -> Self {
        WholeFetch {
            // SAFETY: per the caller.
            world: unsafe { ticks.world.get() },
            entities: archetype.entities(),
            archetype: archetype.id(),
            tick: ticks.this_run,
        }
    }

    /// The entity of `row` and where it lives.
    ///
    /// # Safety
    /// `row` is below the table's length.
    #[inline]
    unsafe fn at(&self, row: usize) -> (Entity, Location) {
        // SAFETY: per the caller.
        let entity = unsafe { *self.entities.get_unchecked(row) };
        (entity, Location { archetype: self.archetype, row: Row(row as u32) })
    }
}

/// The parts of [`QueryData`] every whole-entity term shares: it matches every table,
/// reads no sparse set up front, and is made from the row's entity.
macro_rules! whole_entity_parts {
    ($item:ident) => {
        type ArchState = ();
        type Fetch<'w> = WholeFetch<'w>;
        type Record = ();
        #[inline]
        fn new_record() {}
        #[inline]
        fn match_archetype(_: &Self::State, _: &Archetype) -> Option<()> {
            Some(())
        }
        #[inline]
        unsafe fn fetch_archetype<'w>(_: (), archetype: &'w Archetype, ticks: RunTicks) -> Self::Fetch<'w> {
            // SAFETY: the caller holds the run's borrow of the world for `'w`.
            unsafe { WholeFetch::of(archetype, ticks) }
        }
        #[inline]
        unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
            // SAFETY: the caller guarantees `row` is below the table's length.
            let (entity, location) = unsafe { fetch.at(row) };
            $item(fetch, entity, location)
        }
        type Rows<'w> = WholeFetch<'w>;
        #[inline]
        unsafe fn rows<'w>(fetch: &Self::Fetch<'w>, _: usize) -> Self::Rows<'w> {
            *fetch
        }
        #[inline]
        fn fetch_rows<'w>(rows: Self::Rows<'w>, _: &Self::Fetch<'w>) -> Self::Fetch<'w> {
            rows
        }
        no_sparse_parts!();
        #[inline]
        unsafe fn fetch_entity<'w>(
            fetch: &Self::Fetch<'w>,
            _: &Self::Sparse<'w>,
            entity: Entity,
            row: usize,
        ) -> Self::Item<'w> {
            let location = Location { archetype: fetch.archetype, row: Row(row as u32) };
            $item(fetch, entity, location)
        }
    };
}

/// The ids of bundle `B`'s components, registered if new: what an `..Except<B>` term
/// leaves out of its access.
fn except_ids<B: Bundle>(world: &mut World) -> Vec<ComponentId> {
    let mut ids = Vec::new();
    B::register(&mut world.components, &mut ids);
    ids
}

fn entity_ref<'w>(fetch: &WholeFetch<'w>, entity: Entity, location: Location) -> EntityRef<'w> {
    EntityRef::new(fetch.world, entity, location)
}

impl sealed::Sealed for EntityRef<'_> {}

// SAFETY: declares a read of every component and only reads (through `EntityRef`).
unsafe impl QueryData for EntityRef<'_> {
    type Item<'w> = EntityRef<'w>;
    const IS_READ_ONLY: bool = true;
    type State = ();
    fn init_state(_: &mut World) {}
    fn access(_: &(), access: &mut Access) {
        access.whole(false, Vec::new(), "EntityRef");
    }
    whole_entity_parts!(entity_ref);
}

// SAFETY: reads only.
unsafe impl ReadOnlyQueryData for EntityRef<'_> {}

/// Read access to every component of a matched entity but those of bundle `B` (a query
/// term, bevy_ecs's `EntityRefExcept`): `Query<(EntityRefExcept<(Hp,)>, &mut Hp)>`
/// reads everything and writes `Hp`.
pub struct EntityRefExcept<'w, B: Bundle> {
    inner: EntityRef<'w>,
    _except: PhantomData<fn() -> B>,
}

impl<'w, B: Bundle> EntityRefExcept<'w, B> {
    /// The entity's handle.
    pub fn id(&self) -> Entity {
        self.inner.id()
    }

    /// Whether the entity has a `T` (excepted components included: having one is not
    /// reading it).
    pub fn has<T: Component>(&self) -> bool {
        self.inner.has::<T>()
    }

    /// The entity's `T`, if it has one and `T` is not excepted.
    pub fn get<T: Component>(&self) -> Option<&'w T> {
        if B::contains_type(TypeId::of::<T>()) {
            return None;
        }
        self.inner.get::<T>()
    }
}

impl<B: Bundle> Clone for EntityRefExcept<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: Bundle> Copy for EntityRefExcept<'_, B> {}

fn entity_ref_except<'w, B: Bundle>(
    fetch: &WholeFetch<'w>,
    entity: Entity,
    location: Location,
) -> EntityRefExcept<'w, B> {
    EntityRefExcept { inner: EntityRef::new(fetch.world, entity, location), _except: PhantomData }
}

impl<B: Bundle> sealed::Sealed for EntityRefExcept<'_, B> {}

// SAFETY: declares a read of every component but `B`'s, and reads only those (`get`
// refuses `B`'s).
unsafe impl<B: Bundle> QueryData for EntityRefExcept<'_, B> {
    type Item<'w> = EntityRefExcept<'w, B>;
    const IS_READ_ONLY: bool = true;
    type State = Vec<ComponentId>;
    fn init_state(world: &mut World) -> Vec<ComponentId> {
        except_ids::<B>(world)
    }
    fn access(except: &Vec<ComponentId>, access: &mut Access) {
        access.whole(false, except.clone(), "EntityRefExcept");
    }
    whole_entity_parts!(entity_ref_except);
}

// SAFETY: reads only.
unsafe impl<B: Bundle> ReadOnlyQueryData for EntityRefExcept<'_, B> {}

/// Read and write access to every component of a matched entity but those of bundle
/// `B` (a query term, bevy_ecs's `EntityMutExcept`; `EntityMutExcept<()>` is bevy's
/// `EntityMut` in a query). It cannot add or remove components or despawn (that is
/// [`EntityMut`](crate::EntityMut), from [`World::entity_mut`], or
/// [`Commands`](crate::Commands)). Writes through
/// [`get_mut`](Self::get_mut) are tracked like any write; a query with such a term
/// writes everything, so it shares its system with no other query reaching the same
/// entities, and its parallel runs (`par_for_each_mut`) run on one thread.
///
/// ```
/// use ripple::World;
/// use ripple::query::EntityMutExcept;
/// use ripple::system::Query;
/// struct Hp(u32);
/// struct Armor(u32);
/// fn double_everything(mut all: Query<EntityMutExcept<()>>) {
///     all.for_each_mut(|mut entity| {
///         if let Some(mut hp) = entity.get_mut::<Hp>() {
///             hp.0 *= 2;
///         }
///         if let Some(mut armor) = entity.get_mut::<Armor>() {
///             armor.0 *= 2;
///         }
///     });
/// }
/// let mut world = World::new();
/// let e = world.spawn((Hp(5), Armor(1)));
/// world.run_system_cached(double_everything).unwrap();
/// assert_eq!((world.get::<Hp>(e).unwrap().0, world.get::<Armor>(e).unwrap().0), (10, 2));
/// ```
pub struct EntityMutExcept<'w, B: Bundle> {
    world: &'w World,
    entity: Entity,
    location: Location,
    tick: Tick,
    _except: PhantomData<fn() -> B>,
}

/// Every component of a matched entity, read and written (bevy_ecs's `EntityMut` in a
/// query; ripple's [`EntityMut`](crate::EntityMut) is bevy's `EntityWorldMut`).
pub type EntityComponentsMut<'w> = EntityMutExcept<'w, ()>;

impl<B: Bundle> EntityMutExcept<'_, B> {
    /// The entity's handle.
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Whether the entity has a `T`.
    pub fn has<T: Component>(&self) -> bool {
        EntityRef::new(self.world, self.entity, self.location).has::<T>()
    }

    /// The entity's `T`, if it has one and `T` is not excepted.
    pub fn get<T: Component>(&self) -> Option<&T> {
        let (column, row) = self.place::<T>()?;
        Some(column.get(row))
    }

    /// The entity's `T` to write, if it has one and `T` is not excepted; a write marks
    /// it changed (if `T` is tracked).
    ///
    /// # Panics
    /// For a component only the world writes (a relation's: [`ChildOf`](crate::hierarchy::ChildOf),
    /// [`Children`](crate::hierarchy::Children), a [`Relation`](crate::relation::Relation) and its
    /// [`Related`](crate::relation::Related) list), as [`World::get_mut`] does.
    #[track_caller]
    pub fn get_mut<T: Component>(&mut self) -> Option<Mut<'_, T>> {
        let id = self.world.components.id::<T>()?;
        if let Some(refusal) = self.world.components.kept_refusal(id) {
            panic!("{refusal}");
        }
        let (column, row) = self.place_of::<T>(id)?;
        // SAFETY: the query declared a write of every component but `B`'s (`place`
        // refuses those), so no other system or term reaches this row meanwhile; the
        // item is the run's only one for this entity, and the `Mut` borrows it mutably,
        // so no other reference to the value is made while it lives; items of this term
        // are made on one thread (parallel runs run serially), so no one else writes the
        // summary; the run's tick is the newest.
        Some(unsafe { column.get_mut_shared(row, self.tick) })
    }

    /// The column holding the entity's `T` and its row, if it has one and `T` is not
    /// excepted.
    fn place<T: Component>(&self) -> Option<(&TypedColumn<T>, usize)> {
        self.place_of::<T>(self.world.components.id::<T>()?)
    }

    /// [`place`](Self::place), `T`'s id known.
    fn place_of<T: Component>(&self, id: ComponentId) -> Option<(&TypedColumn<T>, usize)> {
        if B::contains_type(TypeId::of::<T>()) {
            return None;
        }
        let world = self.world;
        if let Some(set) = world.sparse.get(id) {
            let dense = set.dense(self.entity)?;
            return Some((downcast::<T>(&*set.values), dense));
        }
        let table = world.archetypes.get(self.location.archetype);
        let column = table.column_index(id)?;
        Some((downcast::<T>(table.column(column)), self.location.row.index()))
    }
}

impl<B: Bundle> std::fmt::Debug for EntityMutExcept<'_, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntityMutExcept").field("entity", &self.entity).field("except", &type_name::<B>()).finish()
    }
}

fn entity_mut_except<'w, B: Bundle>(
    fetch: &WholeFetch<'w>,
    entity: Entity,
    location: Location,
) -> EntityMutExcept<'w, B> {
    EntityMutExcept { world: fetch.world, entity, location, tick: fetch.tick, _except: PhantomData }
}

impl<B: Bundle> sealed::Sealed for EntityMutExcept<'_, B> {}

// SAFETY: declares a write of every component but `B`'s, and touches only those
// (`place` refuses `B`'s).
unsafe impl<B: Bundle> QueryData for EntityMutExcept<'_, B> {
    type Item<'w> = EntityMutExcept<'w, B>;
    const IS_READ_ONLY: bool = false;
    const WRITES_ANY: bool = true;
    type State = Vec<ComponentId>;
    fn init_state(world: &mut World) -> Vec<ComponentId> {
        except_ids::<B>(world)
    }
    fn access(except: &Vec<ComponentId>, access: &mut Access) {
        access.whole(true, except.clone(), "EntityMutExcept");
    }
    whole_entity_parts!(entity_mut_except);
}
