//! Bundles: the tuples of components that `spawn`, `insert` and `remove` take.
//!
//! A bundle type is registered once per world: its component ids in tuple order and
//! sorted, checked for duplicates. Spawning caches the target archetype and the
//! column of each tuple element, so a spawn is a hash lookup plus one push per column.

use std::any::TypeId;

use crate::change::Tick;
use crate::component::{Component, ComponentId, Components};
use crate::hash::IdMap;
use crate::storage::{ArchetypeId, Column, TypedColumn, downcast_mut_unchecked};

mod sealed {
    pub trait Sealed {}
}

/// A tuple of up to 16 components, moved into or out of an entity as one unit.
///
/// Implemented for `()` and for tuples `(A,)` to `(A, B, …, P)` of distinct
/// [`Component`] types. A bundle that names one type twice is refused with a panic
/// naming the type, the first time it is used.
///
/// ```
/// use ripple::World;
/// struct Pos(f32);
/// struct Vel(f32);
/// let mut world = World::new();
/// let e = world.spawn((Pos(0.0), Vel(1.0)));
/// let (vel,) = world.remove::<(Vel,)>(e).unwrap();
/// assert_eq!(vel.0, 1.0);
/// ```
pub trait Bundle: sealed::Sealed + Send + Sync + Sized + 'static {
    /// Column handles held while spawning many bundles into one archetype.
    #[doc(hidden)]
    type Writer<'a>;

    /// Appends the component ids in tuple order, registering new types.
    #[doc(hidden)]
    fn register(components: &mut Components, out: &mut Vec<ComponentId>);

    /// Borrows the columns at `indices` (one per element, distinct) for pushing.
    ///
    /// # Safety
    /// `indices[i]` is the column of element `i`'s component id, in tuple order.
    #[doc(hidden)]
    unsafe fn writer<'a>(columns: &'a mut [Box<dyn Column>], indices: &[usize]) -> Self::Writer<'a>;

    /// Appends one row of values, added at `tick`.
    #[doc(hidden)]
    fn push(self, writer: &mut Self::Writer<'_>, tick: Tick);

    /// Writes the values at `row`: appended where a column is `row` long, replacing
    /// the old value otherwise. Old values are dropped after every value is written,
    /// so a panicking `Drop` cannot leave a column short.
    ///
    /// # Safety
    /// As for [`Bundle::writer`].
    #[doc(hidden)]
    unsafe fn write_at(self, columns: &mut [Box<dyn Column>], indices: &[usize], row: usize, tick: Tick);

    /// Swap-removes the values at `row` from the columns at `indices`.
    ///
    /// # Safety
    /// As for [`Bundle::writer`].
    #[doc(hidden)]
    unsafe fn take(columns: &mut [Box<dyn Column>], indices: &[usize], row: usize, now: Tick) -> Self;
}

/// # Safety
/// `column` is the column of `T`'s component id.
#[inline]
unsafe fn write_one<T: Component>(column: &mut dyn Column, row: usize, value: T, tick: Tick) -> Option<T> {
    // SAFETY: per the caller.
    let column = unsafe { downcast_mut_unchecked::<T>(column) };
    if column.len() == row {
        column.push(value, tick);
        None
    } else {
        Some(column.replace(row, value, tick))
    }
}

/// Counts macro repetitions: expands to `1` for any token.
macro_rules! one {
    ($token:tt) => {
        1
    };
}

macro_rules! impl_bundle {
    ($($name:ident $index:tt),*) => {
        impl<$($name: Component),*> sealed::Sealed for ($($name,)*) {}

        impl<$($name: Component),*> Bundle for ($($name,)*) {
            type Writer<'a> = ($(&'a mut TypedColumn<$name>,)*);

            #[inline]
            fn register(components: &mut Components, out: &mut Vec<ComponentId>) {
                let _ = (&components, &out);
                $(out.push(components.id_or_register::<$name>());)*
            }

            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has no columns")]
            unsafe fn writer<'a>(columns: &'a mut [Box<dyn Column>], indices: &[usize]) -> Self::Writer<'a> {
                let _ = &indices;
                #[allow(non_snake_case, reason = "bindings are named after the type parameters")]
                let [$($name),*] = columns
                    .get_disjoint_mut::<usize, { 0 $(+ one!($index))* }>([$(indices[$index]),*])
                    .expect("ripple: bundle columns are distinct");
                // SAFETY: per this function's contract, each index is the column of the
                // element's component id.
                unsafe { ($(downcast_mut_unchecked::<$name>(&mut **$name),)*) }
            }

            #[inline]
            fn push(self, writer: &mut Self::Writer<'_>, tick: Tick) {
                let _ = (&writer, tick);
                $(writer.$index.push(self.$index, tick);)*
            }

            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has no columns")]
            unsafe fn write_at(self, columns: &mut [Box<dyn Column>], indices: &[usize], row: usize, tick: Tick) {
                let _ = (&columns, &indices, row, tick);
                // Held until every value is written, then dropped.
                // SAFETY: per this function's contract, each index is the column of the
                // element's component id.
                let _old = unsafe { ($(write_one::<$name>(&mut *columns[indices[$index]], row, self.$index, tick),)*) };
            }

            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has no columns")]
            unsafe fn take(columns: &mut [Box<dyn Column>], indices: &[usize], row: usize, now: Tick) -> Self {
                let _ = (&columns, &indices, row, now);
                // SAFETY: per this function's contract, each index is the column of the
                // element's component id.
                unsafe { ($(downcast_mut_unchecked::<$name>(&mut *columns[indices[$index]]).swap_remove(row, now),)*) }
            }
        }
    };
}

crate::tuples::for_each_indexed_tuple_prefix!(impl_bundle; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14, P 15);

/// Dense per-world index of a bundle type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BundleId(u32);

/// Where a freshly spawned bundle goes.
pub(crate) struct SpawnTarget {
    pub(crate) archetype: ArchetypeId,
    /// For each bundle element, in tuple order, its column in `archetype`.
    pub(crate) columns: Box<[usize]>,
}

pub(crate) struct BundleInfo {
    /// Component ids in tuple order.
    pub(crate) ids: Box<[ComponentId]>,
    /// The same ids, ascending.
    pub(crate) sorted: Box<[ComponentId]>,
    /// Filled on the first spawn of this bundle.
    pub(crate) spawn: Option<SpawnTarget>,
}

/// The registry of bundle types seen by one world.
#[derive(Default)]
pub(crate) struct Bundles {
    infos: Vec<BundleInfo>,
    by_type: IdMap<TypeId, BundleId>,
    scratch: Vec<ComponentId>,
}

impl Bundles {
    /// The id of bundle `B`, registering it (and its components) on first sight.
    ///
    /// # Panics
    /// If `B` names a component type twice.
    #[inline]
    #[track_caller]
    pub(crate) fn id_or_register<B: Bundle>(&mut self, components: &mut Components) -> BundleId {
        if let Some(&id) = self.by_type.get(&TypeId::of::<B>()) {
            return id;
        }
        self.register::<B>(components)
    }

    #[cold]
    #[track_caller]
    fn register<B: Bundle>(&mut self, components: &mut Components) -> BundleId {
        self.scratch.clear();
        B::register(components, &mut self.scratch);
        let ids: Box<[ComponentId]> = self.scratch.as_slice().into();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        if let Some(pair) = sorted.windows(2).find(|w| w[0] == w[1]) {
            panic!(
                "bundle `{}` names component `{}` more than once; a bundle's types must be distinct",
                std::any::type_name::<B>(),
                components.info(pair[0]).name
            );
        }
        let id = BundleId(self.infos.len() as u32);
        self.infos.push(BundleInfo { ids, sorted, spawn: None });
        self.by_type.insert(TypeId::of::<B>(), id);
        id
    }

    #[inline]
    pub(crate) fn info(&self, id: BundleId) -> &BundleInfo {
        &self.infos[id.0 as usize]
    }

    #[inline]
    pub(crate) fn info_mut(&mut self, id: BundleId) -> &mut BundleInfo {
        &mut self.infos[id.0 as usize]
    }
}
