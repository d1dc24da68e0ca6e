//! One archetype table: a column per component type plus the entity of each row.

use crate::change::Tick;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::hook::HookFlags;

use super::{ArchetypeId, Column};

/// The table for one exact set of component types.
///
/// Columns are in ascending [`ComponentId`] order; row `r` of every column and
/// `entities[r]` belong to the same entity.
pub struct Archetype {
    id: ArchetypeId,
    components: Box<[ComponentId]>,
    pub(crate) columns: Box<[Box<dyn Column>]>,
    pub(crate) entities: Vec<Entity>,
    /// Which kinds of hook some component of this table has.
    pub(crate) hooks: HookFlags,
}

impl Archetype {
    pub(crate) fn new(id: ArchetypeId, components: Box<[ComponentId]>, columns: Box<[Box<dyn Column>]>) -> Self {
        Archetype { id, components, columns, entities: Vec::new(), hooks: HookFlags::NONE }
    }

    /// This archetype's id.
    #[inline]
    pub fn id(&self) -> ArchetypeId {
        self.id
    }

    /// Number of rows (entities).
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether the table has no rows.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The entities of this table, in row order.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The component ids of this table, ascending.
    #[inline]
    pub(crate) fn components(&self) -> &[ComponentId] {
        &self.components
    }

    /// The column index of `component`, if this table has it.
    #[inline]
    pub(crate) fn column_index(&self, component: ComponentId) -> Option<usize> {
        self.components.binary_search(&component).ok()
    }

    /// Whether this table has `component`.
    #[inline]
    pub(crate) fn has(&self, component: ComponentId) -> bool {
        self.column_index(component).is_some()
    }

    #[inline]
    pub(crate) fn column(&self, index: usize) -> &dyn Column {
        &*self.columns[index]
    }

    /// The column at `index`, without a bounds check in release builds.
    ///
    /// # Safety
    /// `index < self.components().len()`.
    #[inline]
    pub(crate) unsafe fn column_unchecked(&self, index: usize) -> &dyn Column {
        debug_assert!(index < self.columns.len());
        // SAFETY: in bounds per the caller.
        unsafe { &**self.columns.get_unchecked(index) }
    }

    /// Reserves room for `additional` more rows in every column.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.entities.reserve(additional);
        for column in self.columns.iter_mut() {
            column.reserve(additional);
        }
    }

    /// Drops every row, keeping capacity. The caller frees the entities.
    pub(crate) fn clear(&mut self) {
        self.entities.clear();
        for_each_column(&mut self.columns, |column| column.clear());
    }
}

impl Archetype {
    /// Removes the entity of `row` (the last row's entity moves into its place) and
    /// returns the moved entity, if any. Column values are left for
    /// [`Archetype::drop_row_values`].
    #[inline]
    pub(crate) fn swap_remove_entity(&mut self, row: usize) -> Option<Entity> {
        self.entities.swap_remove(row);
        self.entities.get(row).copied()
    }

    /// Drops the values of `row` in every column (swap-remove).
    pub(crate) fn drop_row_values(&mut self, row: usize, now: Tick) {
        for_each_column(&mut self.columns, |column| column.swap_remove_drop(row, now));
    }
}

/// Applies `op` to every column. If `op` panics (a component's `Drop` did), the
/// remaining columns still get `op` while unwinding, so columns stay aligned with the
/// entity list; a second panic aborts, as for any panic during unwinding.
fn for_each_column(columns: &mut [Box<dyn Column>], op: impl Fn(&mut dyn Column)) {
    struct Rest<'a, F: Fn(&mut dyn Column)> {
        columns: &'a mut [Box<dyn Column>],
        next: usize,
        op: &'a F,
    }
    impl<F: Fn(&mut dyn Column)> Drop for Rest<'_, F> {
        fn drop(&mut self) {
            while self.next < self.columns.len() {
                let column = self.next;
                self.next += 1;
                (self.op)(&mut *self.columns[column]);
            }
        }
    }
    let mut rest = Rest { columns, next: 0, op: &op };
    while rest.next < rest.columns.len() {
        let column = rest.next;
        // Advance first: if `op` panics here, the guard resumes at the next column.
        rest.next += 1;
        (rest.op)(&mut *rest.columns[column]);
    }
}
