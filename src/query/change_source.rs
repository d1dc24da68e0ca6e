//! [`ChangeSource`]: "which entities' `T` changed since I last looked", with `T`
//! erased, for the readers outside queries that follow one component's changes
//! (change readers, replication). Each is a `Changed<T>` query of its own, so a look
//! costs what changed (`O(changed · log N)` to find the rows), never what exists.

use crate::component::Component;
use crate::entity::Entity;
use crate::storage::Archetype;
use crate::world::World;

use super::fetch::ReadOnlyQueryData;
use super::filter::QueryFilter;
use super::run_plan::RunKind;
use super::{Changed, QueryState};

impl<Q: ReadOnlyQueryData, F: QueryFilter> QueryState<Q, F> {
    /// [`for_each`](QueryState::for_each) that also hands `f` each item's table and
    /// row: for readers that look an item's entity up later (`table.entities()[row]`),
    /// so that they can load it ahead instead of waiting for it in turn. One run.
    #[track_caller]
    pub(crate) fn for_each_with_row<'w>(&mut self, world: &'w World, f: impl FnMut(&'w Archetype, usize, Q::Item<'w>)) {
        let (ticks, mode, pending) = self.begin_run(world, RunKind::Serial);
        let _end = self.end_of(pending);
        // SAFETY: `Q` is read-only and `world` is shared for `'w`, so no one writes.
        unsafe { self.run_unchecked(world, ticks, mode, f) }
    }
}

/// Finds the entities whose component changed since the last look.
pub(crate) trait ChangeSource: Send + 'static {
    /// Appends the entities changed since the last call, each once, in the order a
    /// `Changed<T>` query yields them; the next call starts after them.
    fn gather(&mut self, world: &World, out: &mut Vec<Entity>);

    /// Whether any entity changed since the last call, without moving on.
    fn pending(&mut self, world: &World, scratch: &mut Vec<Entity>) -> bool;
}

/// A [`ChangeSource`] for `T`: a `Changed<T>` query of its own.
pub(crate) struct Changes<T: Component>(QueryState<Entity, Changed<T>>);

impl<T: Component> Changes<T> {
    /// Changes to `T` made from now on (turning `T`'s change tracking on).
    pub(crate) fn from_now(world: &mut World) -> Changes<T> {
        let mut state = QueryState::including_disabled(world);
        state.skip_to_now(world);
        Changes(state)
    }
}

impl<T: Component> ChangeSource for Changes<T> {
    fn gather(&mut self, world: &World, out: &mut Vec<Entity>) {
        self.0.for_each(world, |entity| out.push(entity));
    }

    fn pending(&mut self, world: &World, scratch: &mut Vec<Entity>) -> bool {
        let Some(before) = self.0.last_run() else { return true };
        scratch.clear();
        self.gather(world, scratch);
        self.0.rewind_to(before);
        !scratch.is_empty()
    }
}
