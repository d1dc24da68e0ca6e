//! [`HookContext`], what a hook receives, and the table of every component type's hooks.

use crate::commands::Commands;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::world::World;

use super::flags::HookKind;

/// What a hook receives: the world to read, the entity concerned, and a command queue
/// for any change it wants to make (applied right after the operation that ran the
/// hook, before that operation returns — unless that operation was itself applied
/// from hook commands, in which case the running loop applies them next).
///
/// # Hook commands apply breadth-first
/// Commands queued by hooks run in generations: every command the hooks of one
/// operation queued runs, in order, before any command queued by the hooks those
/// commands trigger. bevy_ecs applies them depth-first (a command's own consequences
/// first). ripple never runs a hook's commands inside another command, so a
/// command sees the world as the commands before it left it, whatever hooks they
/// triggered, and hooks that keep triggering each other loop, for at most
/// [`MAX_HOOK_ROUNDS`](crate::MAX_HOOK_ROUNDS) rounds, instead of deepening the stack until it overflows.
///
/// # Panics in hooks
/// A hook that panics unwinds out of the operation that ran it; the commands queued so
/// far by that operation's hooks are dropped unapplied (an entity reserved by a dropped
/// spawn is freed), and the world stays usable.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use ripple::World;
/// struct Crate;
/// struct Debris;
/// let log = Arc::new(Mutex::new(Vec::new()));
/// let mut world = World::new();
/// let (on_crate, on_debris) = (log.clone(), log.clone());
/// world.on_add::<Crate>(move |ctx| {
///     ctx.commands.spawn((Debris,)); // first command: its hook queues "debris"
///     let log = on_crate.clone();
///     ctx.commands.add(move |_| log.lock().unwrap().push("crate's second command"));
/// });
/// world.on_add::<Debris>(move |ctx| {
///     let log = on_debris.clone();
///     ctx.commands.add(move |_| log.lock().unwrap().push("debris"));
/// });
/// world.spawn((Crate,));
/// // Depth-first would give ["debris", "crate's second command"].
/// assert_eq!(*log.lock().unwrap(), ["crate's second command", "debris"]);
/// ```
pub struct HookContext<'w> {
    /// The world, with the operation's effect visible: after it for `on_add` and
    /// `on_insert`, before it for `on_remove` (the value is still there to read).
    pub world: &'w World,
    /// The entity whose component the hook is about.
    pub entity: Entity,
    /// Queues structural changes; they run after the triggering operation completes.
    pub commands: Commands<'w, 'w>,
}

/// A hook as stored.
pub(crate) type Hook = Box<dyn Fn(&mut HookContext<'_>) + Send + Sync>;

/// The hooks of every component type, by component id, in registration order per kind.
#[derive(Default)]
pub(crate) struct HookTable {
    by_component: Vec<HookLists>,
}

/// The hooks of one component type.
#[derive(Default)]
struct HookLists {
    on_add: Vec<Hook>,
    on_insert: Vec<Hook>,
    on_remove: Vec<Hook>,
}

impl HookTable {
    /// Component `id`'s hooks of `kind`, in registration order.
    #[inline]
    pub(crate) fn list(&self, id: ComponentId, kind: HookKind) -> &[Hook] {
        let Some(lists) = self.by_component.get(id.index()) else { return &[] };
        match kind {
            HookKind::Add => &lists.on_add,
            HookKind::Insert => &lists.on_insert,
            HookKind::Remove => &lists.on_remove,
            HookKind::Replace => &[],
        }
    }

    /// Adds `hook` to component `id`'s hooks of `kind`.
    ///
    /// # Panics
    /// If `kind` is `Replace`, at which no hook runs.
    pub(crate) fn push(&mut self, id: ComponentId, kind: HookKind, hook: Hook) {
        if self.by_component.len() <= id.index() {
            self.by_component.resize_with(id.index() + 1, HookLists::default);
        }
        let lists = &mut self.by_component[id.index()];
        match kind {
            HookKind::Add => lists.on_add.push(hook),
            HookKind::Insert => lists.on_insert.push(hook),
            HookKind::Remove => lists.on_remove.push(hook),
            HookKind::Replace => unreachable!("no hook runs at `Replace`"),
        }
    }
}
