//! Bundles: the tuples of components that `spawn`, `insert` and `remove` take.
//!
//! A bundle type is registered once per world: its component ids in tuple order and
//! sorted, checked for duplicates. Spawning caches the target archetype and the
//! column of each tuple element, so a spawn is a hash lookup plus one push per column.

use std::any::TypeId;

use crate::change::log::ChangeLog;
use crate::change::{Move, Tick};
use crate::component::{Component, ComponentId, Components};
use crate::entity::Entity;
use crate::hook::HookFlags;
use crate::storage::{ArchetypeId, Column, SparseSets, TypedColumn, downcast_mut_unchecked};
use crate::util::hash::IdMap;

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
///
/// Sealed: the storage a bundle writes into is private to ripple, so only its own
/// tuples implement it.
///
/// ```compile_fail,E0277
/// struct Mine;
/// impl ripple::Bundle for Mine {}
/// ```
///
/// A bare component is not a bundle (every type is a component, so `(A, B)` could
/// otherwise be a bundle of two or one component of tuple type): write `(A,)`, or the
/// one-component calls `insert_one` and `remove_one`. The compiler's message says so:
///
/// ```compile_fail,E0277
/// struct Pos(f32);
/// let mut world = ripple::World::new();
/// world.spawn(Pos(0.0)); // `Pos` is not a bundle: write `(Pos(0.0),)`
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a bundle: ripple's bundles are tuples, so one component is written `(value,)`",
    label = "write `(value,)` for one component",
    note = "every type is a component in ripple, so a bare value and a tuple could not be told apart; `insert_one(entity, value)` and `remove_one::<T>(entity)` take one component"
)]
pub trait Bundle: sealed::Sealed + Send + Sync + Sized + 'static {
    /// Column handles held while spawning many bundles into one archetype.
    #[doc(hidden)]
    type Writer<'a>;

    /// Appends the component ids in tuple order, registering new types.
    #[doc(hidden)]
    fn register(components: &mut Components, out: &mut Vec<ComponentId>);

    /// Whether a component of the bundle has type `type_id`.
    #[doc(hidden)]
    fn contains_type(type_id: std::any::TypeId) -> bool;

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

    /// Like [`write_at`](Self::write_at) for a bundle with sparse elements: each value
    /// goes to its table column at the row, or to its sparse set.
    ///
    /// # Safety
    /// As [`BundleRow::write`].
    #[doc(hidden)]
    unsafe fn write_mixed(self, row: &mut BundleRow<'_>, tick: Tick);

    /// Like [`take`](Self::take) for a bundle with sparse elements, each of which the
    /// entity has.
    ///
    /// # Safety
    /// As [`write_mixed`](Self::write_mixed), and the entity has every sparse element.
    #[doc(hidden)]
    unsafe fn take_mixed(row: &mut BundleRow<'_>, now: Tick) -> Self;
}

/// The column index of a bundle element stored in a sparse set.
pub(crate) const SPARSE_COLUMN: usize = usize::MAX;

/// Where a bundle's elements are written to or taken from: one entity's row of a
/// table, and, for a bundle with sparse types, the world's sparse sets.
#[doc(hidden)]
pub struct BundleRow<'a> {
    table: &'a mut [Box<dyn Column>],
    row: usize,
    /// Per element: its column in `table`, or [`SPARSE_COLUMN`].
    columns: &'a [usize],
    info: &'a BundleInfo,
    sets: &'a mut SparseSets,
    entity: Entity,
    /// Bit `i` set: element `i` was added to its sparse set (the entity lacked it).
    added: u32,
    /// Where each sparse element added is logged as it is placed (before any replaced
    /// value is dropped, so a panicking `Drop` loses no record), and whether the next
    /// record joins the operation's earlier ones.
    log: Option<(&'a mut ChangeLog<Move>, bool)>,
}

impl<'a> BundleRow<'a> {
    /// `entity`'s place for bundle `info`: row `row` of `table`, where element `i` has
    /// column `columns[i]` (`SPARSE_COLUMN` for a sparse one, whose set is in `sets`).
    #[inline]
    pub(crate) fn new(
        table: &'a mut [Box<dyn Column>],
        row: usize,
        columns: &'a [usize],
        info: &'a BundleInfo,
        sets: &'a mut SparseSets,
        entity: Entity,
    ) -> Self {
        BundleRow { table, row, columns, info, sets, entity, added: 0, log: None }
    }

    /// Logs each sparse element added in `log`, joined to a move logged just before
    /// if `joined`.
    #[inline]
    pub(crate) fn logging(self, log: &'a mut ChangeLog<Move>, joined: bool) -> Self {
        BundleRow { log: Some((log, joined)), ..self }
    }

    /// Writes `bundle` (see [`Bundle::write_at`]); returns the elements newly added to
    /// a sparse set, bit `i` for element `i`.
    ///
    /// # Safety
    /// `columns` is as [`new`](Self::new) says, for bundle `B`, whose info is `info`.
    #[inline]
    pub(crate) unsafe fn write<B: Bundle>(mut self, bundle: B, tick: Tick) -> u32 {
        if !self.info.has_sparse {
            // SAFETY: all elements are table columns of this row (caller).
            unsafe { bundle.write_at(self.table, self.columns, self.row, tick) };
            return 0;
        }
        // SAFETY: per the caller.
        unsafe { bundle.write_mixed(&mut self, tick) };
        self.added
    }

    /// Takes bundle `B`, which has a sparse element, out (see [`Bundle::take_mixed`]);
    /// a table-only bundle is taken with [`Bundle::take`] directly.
    ///
    /// # Safety
    /// As [`write`](Self::write), and the entity has every sparse element.
    #[inline]
    pub(crate) unsafe fn take<B: Bundle>(mut self, now: Tick) -> B {
        debug_assert!(self.info.has_sparse);
        // SAFETY: per the caller.
        unsafe { B::take_mixed(&mut self, now) }
    }

    /// The column and row element `element` is written to; a sparse element the entity
    /// lacks gets a new dense row, which the caller fills at once.
    #[inline]
    fn place(&mut self, element: usize) -> (&mut dyn Column, usize) {
        match self.columns[element] {
            SPARSE_COLUMN => {
                let set = self.sets.get_mut(self.info.ids[element]).expect("ripple: a sparse component has a set");
                let (dense, new) = set.slot_for(self.entity);
                if new {
                    self.added |= 1 << element;
                    if let Some((log, joined)) = &mut self.log {
                        log.push(Move::sparse(self.entity, self.info.ids[element], *joined));
                        *joined = true;
                    }
                }
                (&mut *set.values, dense)
            }
            column => (&mut *self.table[column], self.row),
        }
    }

    /// # Safety
    /// Element `element`'s component is `T` (see [`Bundle::write_mixed`]).
    #[inline]
    unsafe fn write_element<T: Component>(&mut self, element: usize, value: T, tick: Tick) -> Option<T> {
        let (column, row) = self.place(element);
        // SAFETY: the column of `T`'s id (caller).
        unsafe { write_one::<T>(column, row, value, tick) }
    }

    /// # Safety
    /// Element `element`'s component is `T`, and the entity has it.
    #[inline]
    unsafe fn take_element<T: Component>(&mut self, element: usize, now: Tick) -> T {
        match self.columns[element] {
            SPARSE_COLUMN => {
                let set = self.sets.get_mut(self.info.ids[element]).expect("ripple: a sparse component has a set");
                let dense = set.dense(self.entity).expect("ripple: checked present before taking");
                // SAFETY: the set of `T`'s id holds `T` (caller).
                let value = unsafe { downcast_mut_unchecked::<T>(&mut *set.values) }.swap_remove(dense, now);
                set.forget(self.entity, dense);
                value
            }
            // SAFETY: the column of `T`'s id (caller).
            column => unsafe { downcast_mut_unchecked::<T>(&mut *self.table[column]) }.swap_remove(self.row, now),
        }
    }
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
            fn contains_type(type_id: std::any::TypeId) -> bool {
                let _ = type_id;
                false $(|| std::any::TypeId::of::<$name>() == type_id)*
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

            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has no columns")]
            unsafe fn write_mixed(self, row: &mut BundleRow<'_>, tick: Tick) {
                let _ = (&row, tick);
                // Held until every value is written, then dropped.
                // SAFETY: per this function's contract, element by element.
                let _old = unsafe { ($(row.write_element::<$name>($index, self.$index, tick),)*) };
            }

            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has no columns")]
            unsafe fn take_mixed(row: &mut BundleRow<'_>, now: Tick) -> Self {
                let _ = (&row, now);
                // SAFETY: per this function's contract, element by element.
                unsafe { ($(row.take_element::<$name>($index, now),)*) }
            }
        }
    };
}

crate::util::tuples::for_each_indexed_tuple_prefix!(impl_bundle; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14, P 15);

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
    /// The ids of the elements stored in tables, ascending.
    pub(crate) sorted: Box<[ComponentId]>,
    /// Whether some element is stored in a sparse set.
    pub(crate) has_sparse: bool,
    /// The kinds of hook some element has (kept up to date as hooks are added): an
    /// insert or remove of this bundle runs hooks only if these say so, whatever
    /// else the entity's table holds.
    pub(crate) hooks: HookFlags,
    /// Filled on the first spawn of this bundle.
    pub(crate) spawn: Option<SpawnTarget>,
}

/// The registry of bundle types seen by one world.
#[derive(Default)]
pub(crate) struct Bundles {
    infos: Vec<BundleInfo>,
    by_type: IdMap<TypeId, BundleId>,
    /// The one-component bundles of components reached by id (runtime components).
    by_component: IdMap<ComponentId, BundleId>,
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
        let id = self.push(ids, &sorted, components);
        self.by_type.insert(TypeId::of::<B>(), id);
        id
    }

    /// The id of the bundle of component `component` alone, registering it on first
    /// sight: how a component reached by id (a runtime component) is inserted and
    /// removed.
    pub(crate) fn id_for_component(&mut self, component: ComponentId, components: &Components) -> BundleId {
        if let Some(&id) = self.by_component.get(&component) {
            return id;
        }
        let id = self.push(Box::new([component]), &[component], components);
        self.by_component.insert(component, id);
        id
    }

    /// Adds the bundle of `ids` (tuple order; `sorted` ascending, distinct).
    fn push(&mut self, ids: Box<[ComponentId]>, sorted: &[ComponentId], components: &Components) -> BundleId {
        let has_sparse = sorted.iter().any(|&c| components.is_sparse(c));
        let hooks = ids.iter().fold(HookFlags::NONE, |flags, &c| flags.union(components.info(c).hooks.flags()));
        let sorted = sorted.iter().copied().filter(|&c| !components.is_sparse(c)).collect();
        let id = BundleId(u32::try_from(self.infos.len()).expect("ripple: more than 2^32 bundles"));
        self.infos.push(BundleInfo { ids, sorted, has_sparse, hooks, spawn: None });
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

    /// Records that `component` gained hooks of the kinds `flags`, in every bundle
    /// that holds it.
    pub(crate) fn add_hook_flags(&mut self, component: ComponentId, flags: HookFlags) {
        for info in self.infos.iter_mut().filter(|info| info.ids.contains(&component)) {
            info.hooks = info.hooks.union(flags);
        }
    }
}
