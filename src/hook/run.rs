//! Running hooks: registering them on the world, running those of a structural change,
//! and applying the commands they queue, round by round.

use crate::bundle::BundleId;
use crate::commands::CommandQueue;
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::error::CommandError;
use crate::storage::ArchetypeId;
use crate::world::World;

/// The most rounds of hook commands one structural change runs: each round applies
/// every command the hooks of the round before queued. Hooks that keep triggering each
/// other past it have their remaining commands dropped unapplied, and the cut is
/// recorded as a failed command ([`CommandFailure::HookCascade`](crate::CommandFailure::HookCascade),
/// see [`World::failed_commands`]) instead of looping forever.
pub const MAX_HOOK_ROUNDS: usize = 1024;

use super::context::{Hook, HookContext};
use super::flags::{HookFlags, HookKind};

impl World {
    #[cfg_attr(
        not(feature = "persistence"),
        allow(dead_code, reason = "used by scenes, data commands and replication")
    )]
    /// Whether a hook or observer waits for `T`'s inserts or replacements, so that a
    /// new value must be inserted rather than written in place of the old one.
    pub(crate) fn inserts_are_watched<T: Component>(&self) -> bool {
        let Some(id) = self.components.id::<T>() else { return false };
        let flags = self.components.info(id).hooks.flags();
        flags.has(HookKind::Insert) || flags.has(HookKind::Replace)
    }
    /// Runs `hook` whenever a `T` becomes present on an entity: spawned with it, or
    /// given it by `insert` when it had none. Hooks of one kind run in registration
    /// order; `on_add` hooks run before `on_insert` hooks.
    ///
    /// ```
    /// # use ripple::World;
    /// use std::sync::{Arc, Mutex};
    /// struct Body(f32);
    /// let created = Arc::new(Mutex::new(Vec::new()));
    /// let mut world = World::new();
    /// let log = created.clone();
    /// world.on_add::<Body>(move |ctx| {
    ///     let mass = ctx.world.get::<Body>(ctx.entity).unwrap().0;
    ///     log.lock().unwrap().push((ctx.entity, mass));
    /// });
    /// let e = world.spawn((Body(2.0),));
    /// assert_eq!(*created.lock().unwrap(), [(e, 2.0)]);
    /// ```
    pub fn on_add<T: Component>(&mut self, hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static) {
        self.add_hook::<T>(HookKind::Add, Box::new(hook));
    }

    /// Runs `hook` whenever a `T` is written by spawn or insert, whether the entity
    /// had one (it is replaced) or not (after the `on_add` hooks).
    pub fn on_insert<T: Component>(&mut self, hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static) {
        self.add_hook::<T>(HookKind::Insert, Box::new(hook));
    }

    /// Runs `hook` whenever a `T` is about to leave an entity: removed, or despawned
    /// with it (also by [`World::clear`]). The value is still readable. A despawn (and
    /// `clear`, entity by entity) runs the hooks of the entity's sparse-set components
    /// first, then those of its table components; a `remove` runs them in the bundle's
    /// order.
    pub fn on_remove<T: Component>(&mut self, hook: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static) {
        self.add_hook::<T>(HookKind::Remove, Box::new(hook));
    }

    fn add_hook<T: Component>(&mut self, kind: HookKind, hook: Hook) {
        let id = self.components.id_or_register::<T>();
        self.add_hook_id(id, kind, hook);
    }

    /// Adds `hook` to component `id`'s hooks of kind `kind`.
    pub(crate) fn add_hook_id(&mut self, id: ComponentId, kind: HookKind, hook: Hook) {
        self.hooks.push(id, kind, hook);
        self.components.info_mut(id).hooks.hook(kind);
        self.set_hook_flags(id, HookFlags::of(kind));
    }

    /// Marks component `id` as watched at the moments `flags` names, with its bundles
    /// and tables (or the sparse sets), so structural changes stop where hooks run.
    pub(crate) fn watch_hook_moments(&mut self, id: ComponentId, flags: HookFlags) {
        self.components.info_mut(id).hooks.watch(flags);
        self.set_hook_flags(id, flags);
    }

    /// Marks component `id`'s bundles and tables (or the sparse sets) as having
    /// `flags`, so structural changes stop where hooks run.
    fn set_hook_flags(&mut self, id: ComponentId, flags: HookFlags) {
        self.bundles.add_hook_flags(id, flags);
        if self.components.is_sparse(id) {
            self.sparse_hooks = self.sparse_hooks.union(flags);
            return;
        }
        for table in self.archetypes.iter_mut() {
            if table.has(id) {
                table.hooks = table.hooks.union(flags);
            }
        }
    }

    /// Runs the `kind` hooks of each component in `ids` that `filter` accepts, for
    /// `entity`, queueing their commands in `queue`.
    pub(crate) fn run_hooks(
        &self,
        queue: &mut CommandQueue,
        kind: HookKind,
        entity: Entity,
        ids: &[ComponentId],
        filter: impl Fn(ComponentId) -> bool,
    ) {
        for &id in ids {
            if !filter(id) {
                continue;
            }
            for hook in self.hooks.list(id, kind) {
                let mut context = HookContext { world: self, entity, commands: queue.commands(self) };
                hook(&mut context);
            }
        }
    }

    /// Runs the `on_add` hooks of the bundle's components that `source` lacked, then
    /// the `on_insert` hooks of all of them, then applies their commands.
    #[cold]
    pub(crate) fn hooks_after_write(
        &mut self,
        bundle: BundleId,
        entity: Entity,
        source: ArchetypeId,
        added_sparse: u32,
    ) {
        let ids = &self.bundles.info(bundle).ids;
        let before = self.archetypes.get(source);
        let added = |c| match ids.iter().position(|&id| id == c) {
            Some(element) if self.components.is_sparse(c) => added_sparse & (1 << element) != 0,
            _ => !before.has(c),
        };
        if self.any_hook(HookKind::Add, ids) {
            let mut queue = std::mem::take(&mut self.hook_queue);
            self.run_hooks(&mut queue, HookKind::Add, entity, ids, added);
            self.hook_queue = queue;
        }
        if self.has_reactor() {
            // Observers run after the hooks of each moment; what they queue follows
            // what the hooks queued.
            let mut listed = std::mem::take(&mut self.reactor.scratch);
            listed.clear();
            listed.extend(ids.iter().copied().filter(|&c| added(c)));
            self.react(HookKind::Add, entity, &listed);
            listed.clear();
            listed.extend_from_slice(&self.bundles.info(bundle).ids);
            if self.any_hook(HookKind::Insert, &listed) {
                let mut queue = std::mem::take(&mut self.hook_queue);
                self.run_hooks(&mut queue, HookKind::Insert, entity, &listed, |_| true);
                self.hook_queue = queue;
            }
            self.react(HookKind::Insert, entity, &listed);
            self.reactor.scratch = listed;
            self.apply_hook_commands();
            return;
        }
        if self.any_hook(HookKind::Insert, ids) {
            let mut queue = std::mem::take(&mut self.hook_queue);
            self.run_hooks(&mut queue, HookKind::Insert, entity, ids, |_| true);
            self.hook_queue = queue;
        }
        self.apply_hook_commands();
    }

    /// Whether any of `ids` has a hook of `kind`: when none has, the hook queue is left
    /// where it is (taking it out and putting it back costs an empty queue's drop).
    #[inline]
    fn any_hook(&self, kind: HookKind, ids: &[ComponentId]) -> bool {
        ids.iter().any(|&id| self.components.info(id).hooks.has(kind))
    }

    /// Runs the `on_remove` hooks of the components about to leave `entity`; their
    /// commands wait for [`apply_hook_commands`](Self::apply_hook_commands) once the
    /// removal is done.
    #[cold]
    pub(crate) fn hooks_before_removal(&mut self, entity: Entity, ids: RemovedIds) {
        if self.has_reactor() {
            self.observed_removal(entity, &ids);
            return;
        }
        let mut queue = std::mem::take(&mut self.hook_queue);
        let ids = match &ids {
            RemovedIds::Bundle(bundle) => &self.bundles.info(*bundle).ids,
            RemovedIds::Table(table) => {
                // Despawn: the sparse components listed by `despawn` go too.
                self.run_hooks(&mut queue, HookKind::Remove, entity, &self.sparse_scratch, |_| true);
                self.archetypes.get(*table).components()
            }
        };
        self.run_hooks(&mut queue, HookKind::Remove, entity, ids, |_| true);
        self.hook_queue = queue;
    }

    /// A removal's hooks and observers, in order: the despawn, each component's
    /// `Replace` observers, then each one's `on_remove` hooks, then its `Remove`
    /// observers.
    fn observed_removal(&mut self, entity: Entity, ids: &RemovedIds) {
        let list = |world: &World, out: &mut Vec<ComponentId>| match ids {
            RemovedIds::Bundle(bundle) => out.extend_from_slice(&world.bundles.info(*bundle).ids),
            RemovedIds::Table(table) => {
                out.extend_from_slice(&world.sparse_scratch);
                out.extend_from_slice(world.archetypes.get(*table).components());
            }
        };
        if matches!(ids, RemovedIds::Table(_)) {
            self.react_to_despawn(entity);
        }
        self.react_listed(HookKind::Replace, entity, list);
        let listed = std::mem::take(&mut self.reactor.scratch);
        if self.any_hook(HookKind::Remove, &listed) {
            let mut queue = std::mem::take(&mut self.hook_queue);
            self.run_hooks(&mut queue, HookKind::Remove, entity, &listed, |_| true);
            self.hook_queue = queue;
        }
        self.react(HookKind::Remove, entity, &listed);
        self.reactor.scratch = listed;
        if matches!(ids, RemovedIds::Table(_)) {
            self.react_to_despawned(entity);
        }
    }

    /// Applies the commands hooks queued, and those queued by hooks they trigger, until
    /// none is left. Nested calls (from operations these commands make) return at once
    /// and leave their commands to this loop, so hooks never recurse.
    #[inline]
    pub(crate) fn apply_hook_commands(&mut self) {
        if self.hook_queue.is_empty() || self.applying_hook_commands {
            return;
        }
        self.apply_queued_hook_commands();
    }

    /// [`apply_hook_commands`](Self::apply_hook_commands) with commands to apply.
    #[inline(never)]
    fn apply_queued_hook_commands(&mut self) {
        self.applying_hook_commands = true;
        let mut rounds = 0;
        while !self.hook_queue.is_empty() {
            if rounds == MAX_HOOK_ROUNDS {
                self.cut_hook_cascade(rounds);
                break;
            }
            rounds += 1;
            std::mem::swap(&mut self.hook_queue, &mut self.hook_spare);
            let mut running = std::mem::take(&mut self.hook_spare);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| running.apply(self)));
            self.hook_spare = running;
            if let Err(panic) = result {
                // Commands queued by the operations before the panic are dropped, not
                // left for some later, unrelated operation to apply.
                self.hook_queue.clear();
                self.applying_hook_commands = false;
                std::panic::resume_unwind(panic);
            }
        }
        self.applying_hook_commands = false;
    }

    /// Drops the hook commands still queued after `rounds` rounds and records the cut
    /// as a failed command.
    #[cold]
    fn cut_hook_cascade(&mut self, rounds: usize) {
        let dropped = self.hook_queue.len();
        self.hook_queue.clear();
        // Spawns among the dropped commands gave their reservations back.
        self.flush_reserved();
        let error = crate::error::CommandFailure::HookCascade { rounds, dropped };
        self.record_failed_command(CommandError { command: "hooks", error });
    }
}

/// The components an entity is about to lose, for `on_remove` hooks.
pub(crate) enum RemovedIds {
    /// Those of a bundle being removed.
    Bundle(BundleId),
    /// All of its table's, and the sparse ones in `sparse_scratch` (despawn).
    Table(ArchetypeId),
}
