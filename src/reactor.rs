//! The one extension point through which a module outside the core reacts to what
//! happens in a world: a [`Reactor`] is told of structural changes at the moments hooks
//! run (with exclusive access to the world, after the hooks) and is called at every
//! sync point. The core names no reactor; observers (`crate::observer`) are one.
//!
//! With no reactor installed, a structural change pays one branch where its hooks
//! would run (and only where some component asked to be watched), and a sync point one
//! branch.

use std::any::Any;
use std::sync::Mutex;

use crate::component::ComponentId;
use crate::entity::Entity;
use crate::hook::{HookFlags, HookKind};
use crate::world::World;

/// Reacts to a world's structural changes and sync points.
///
/// While a reactor runs it is out of the world (the world holds no reactor), so it may
/// run user code with `&mut World`. What it runs must not make structural changes
/// directly: the operation that called it is half done (before a removal, or before an
/// insert's write). Changes go through the world's hook command queue, which the
/// operation applies once it is complete.
pub(crate) trait Reactor: Send + 'static {
    /// `kind` is happening to `entity`'s components `ids`: after the write for `Add`
    /// and `Insert`, before it for `Replace` and `Remove`.
    fn lifecycle(&mut self, world: &mut World, kind: HookKind, entity: Entity, ids: &[ComponentId]);

    /// `entity` is about to be despawned (before its components' `Replace` and
    /// `Remove`).
    fn despawning(&mut self, world: &mut World, entity: Entity);

    /// `entity`'s despawn has been reported (after its components' `Remove`); it goes
    /// next.
    fn despawned(&mut self, entity: Entity);

    /// One round of a sync point (the schedule applied its commands, or
    /// [`World::flush`] was called); the world applies the commands the round queued,
    /// then calls again with the next `round` while this returns `true`.
    fn sync_point(&mut self, world: &mut World, round: usize) -> bool;

    /// The reactor as `Any`, for the module that installed it.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// The world's reactor slot and what it asked to hear about beyond per-component
/// flags.
#[derive(Default)]
pub(crate) struct ReactorSlot {
    /// In a mutex only so that the world stays `Sync`; reached through `&mut World`,
    /// so never locked.
    reactor: Mutex<Option<Box<dyn Reactor>>>,
    /// Every despawn is reported (not only those of entities with watched components).
    pub(crate) despawns: bool,
    /// Some component's `Replace` is watched: inserts check what they overwrite.
    pub(crate) replaces: bool,
    /// Sync points are reported.
    pub(crate) sync_points: bool,
    /// A sync point's delivery is under way (a sync point reached inside it is part
    /// of it: see [`World::react_at_sync_point`]).
    delivering: bool,
    /// Reused for the component lists handed to the reactor.
    pub(crate) scratch: Vec<ComponentId>,
    /// A reactor is installed (it may be running, out of the slot).
    installed: bool,
}

impl ReactorSlot {
    fn slot(&mut self) -> &mut Option<Box<dyn Reactor>> {
        // Never locked (see the field), so never poisoned; recover the data if it were.
        self.reactor.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl World {
    /// The installed reactor of type `R`, installing `make()` if there is none.
    ///
    /// # Panics
    /// If a reactor of another type is installed, or if called while the reactor runs
    /// (it is out of the world then).
    pub(crate) fn reactor_mut<R: Reactor>(&mut self, make: impl FnOnce() -> R) -> &mut R {
        self.reactor.installed = true;
        let slot = self.reactor.slot();
        let reactor = slot.get_or_insert_with(|| Box::new(make()));
        reactor.as_any_mut().downcast_mut::<R>().expect("ripple: one kind of reactor per world")
    }

    /// Whether a reactor is installed (one branch: what structural changes ask before
    /// listing anything for it).
    #[inline]
    pub(crate) fn has_reactor(&self) -> bool {
        self.reactor.installed
    }

    /// Asks to hear `kind` for component `id`: structural changes check per-table and
    /// per-bundle flags before calling hooks, and this sets them as a hook would.
    pub(crate) fn watch_lifecycle(&mut self, id: ComponentId, kind: HookKind) {
        let mut flags = HookFlags::of(kind);
        if kind == HookKind::Replace {
            // A removal replaces too: it must stop where removal hooks run.
            flags = flags.union(HookFlags::of(HookKind::Remove));
            self.reactor.replaces = true;
        }
        self.watch_hook_moments(id, flags);
    }

    /// Calls `f` with the reactor taken out of the world, if there is one; puts it
    /// back even if `f` panics (the panic goes on).
    fn with_reactor<T>(&mut self, f: impl FnOnce(&mut dyn Reactor, &mut World) -> T) -> Option<T> {
        let mut reactor = self.reactor.slot().take()?;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut *reactor, self)));
        let slot = self.reactor.slot();
        debug_assert!(slot.is_none(), "no reactor is installed while one runs");
        *slot = Some(reactor);
        match result {
            Ok(value) => Some(value),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }

    /// Calls `f` with the installed reactor of type `R` taken out of the world (see
    /// [`with_reactor`](Self::with_reactor)); `None` if there is none.
    pub(crate) fn with_reactor_of<R: Reactor, T>(&mut self, f: impl FnOnce(&mut R, &mut World) -> T) -> Option<T> {
        self.with_reactor(|reactor, world| {
            let reactor = reactor.as_any_mut().downcast_mut::<R>().expect("ripple: one kind of reactor per world");
            f(reactor, world)
        })
    }

    /// Tells the reactor, if any, that `kind` is happening to `entity`'s `ids`.
    pub(crate) fn react(&mut self, kind: HookKind, entity: Entity, ids: &[ComponentId]) {
        // Only a moment some observer watches for one of the types: the others would
        // each cost the reactor a lookup that finds no observer.
        if ids.iter().any(|&id| self.components.info(id).hooks.watches(kind)) {
            self.with_reactor(|reactor, world| reactor.lifecycle(world, kind, entity, ids));
        }
    }

    /// As [`react`](Self::react), with the ids taken from the scratch list `fill`
    /// writes (so callers holding borrows of the world can list them first).
    pub(crate) fn react_listed(
        &mut self,
        kind: HookKind,
        entity: Entity,
        fill: impl FnOnce(&World, &mut Vec<ComponentId>),
    ) {
        if !self.has_reactor() {
            return;
        }
        let mut ids = std::mem::take(&mut self.reactor.scratch);
        ids.clear();
        fill(self, &mut ids);
        self.react(kind, entity, &ids);
        self.reactor.scratch = ids;
    }

    /// Tells the reactor, if any, that `entity` is about to be despawned.
    pub(crate) fn react_to_despawn(&mut self, entity: Entity) {
        self.with_reactor(|reactor, world| reactor.despawning(world, entity));
    }

    /// Tells the reactor, if any, that `entity`'s despawn has been reported.
    pub(crate) fn react_to_despawned(&mut self, entity: Entity) {
        self.with_reactor(|reactor, _| reactor.despawned(entity));
    }

    /// A sync point: the reactor, if it asked, delivers what it gathered, round after
    /// round, the commands of each round applied before the next.
    ///
    /// A sync point reached while one delivers (a one-shot system run by a command of
    /// an observer ends in one) delivers nothing itself: what changed waits for the
    /// running delivery's next round, so that delivery's bound on rounds holds for
    /// everything it sets off, however the changes were made.
    pub(crate) fn react_at_sync_point(&mut self) {
        if !self.reactor.sync_points || self.reactor.delivering {
            return;
        }
        self.reactor.delivering = true;
        let delivered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut round = 0;
            while self.with_reactor(|reactor, world| reactor.sync_point(world, round)) == Some(true) {
                self.apply_hook_commands();
                round += 1;
            }
            self.apply_hook_commands();
        }));
        self.reactor.delivering = false;
        if let Err(panic) = delivered {
            std::panic::resume_unwind(panic);
        }
    }
}
