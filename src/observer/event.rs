//! What an observer reacts to: the lifecycle moments of a component, a despawn, a
//! change, or an event of the user's own, and the [`Trigger`] an observer receives.

use std::any::TypeId;
use std::marker::PhantomData;

use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::hook::HookKind;
use crate::query::Changes;
use crate::world::World;

use super::change_watch::ChangeWatch;
use super::keys::Key;

/// Something observers can react to. Implement it for your own events, to send them
/// with [`World::trigger`](crate::World::trigger) and
/// [`World::trigger_targets`](crate::World::trigger_targets); ripple implements it for
/// [`OnAdd`], [`OnInsert`], [`OnReplace`], [`OnRemove`], [`OnDespawn`] and
/// [`OnChange`].
///
/// ```
/// use ripple::World;
/// use ripple::observer::{ObserverEvent, Trigger};
/// use ripple::system::ResMut;
/// struct Explode { radius: f32 }
/// impl ObserverEvent for Explode {}
///
/// #[derive(Default)]
/// struct Blasts(f32);
/// let mut world = World::new();
/// world.insert_resource(Blasts::default());
/// world.observe(|trigger: Trigger<Explode>, mut blasts: ResMut<Blasts>| blasts.0 += trigger.event().radius).unwrap();
/// world.trigger(Explode { radius: 2.5 });
/// assert_eq!(world.resource::<Blasts>().unwrap().0, 2.5);
/// ```
pub trait ObserverEvent: Send + Sync + 'static {
    /// Whether a trigger aimed at entities goes on, after each target's observers, to
    /// the target's parent (along [`ChildOf`](crate::hierarchy::ChildOf)), then its parent, and so
    /// on to the root, until an observer calls [`Trigger::propagate`]`(false)`.
    const BUBBLES: bool = false;

    /// The value handed to observers of a lifecycle or change event, which carries no
    /// data; `None` for events sent with a value.
    #[doc(hidden)]
    const MARKER: Option<&'static Self> = None;

    /// What observers of this event listen to, preparing the world to report it.
    #[doc(hidden)]
    fn observer_key(world: &mut World) -> ObserverKey {
        let _ = world;
        ObserverKey { key: Key::Custom(TypeId::of::<Self>()), watch: None }
    }
}

/// What observers of an event listen to (see [`ObserverEvent`]).
#[doc(hidden)]
pub struct ObserverKey {
    pub(crate) key: Key,
    /// For a change event: where the changes come from.
    pub(crate) watch: Option<ChangeWatch>,
}

macro_rules! lifecycle_event {
    ($(#[$doc:meta])* $name:ident, |$world:ident, $id:ident| $key:expr) => {
        $(#[$doc])*
        pub struct $name<T: Component>(PhantomData<fn() -> T>);

        impl<T: Component> ObserverEvent for $name<T> {
            const MARKER: Option<&'static Self> = Some(&$name(PhantomData));

            fn observer_key($world: &mut World) -> ObserverKey {
                let $id = $world.components.id_or_register::<T>();
                $key
            }
        }

        impl<T: Component> std::fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}<{}>", stringify!($name), crate::util::type_name::short_type_name(std::any::type_name::<T>()))
            }
        }
    };
}

lifecycle_event!(
    /// A `T` became present on an entity: spawned with it, inserted where it had none,
    /// loaded from a scene. Observers run after the value is written, after the
    /// `on_add` hooks.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::observer::{OnAdd, Trigger};
    /// struct Body;
    /// let mut world = World::new();
    /// world.observe(|t: Trigger<OnAdd<Body>>| println!("create a physics body for {}", t.entity())).unwrap();
    /// world.spawn((Body,));
    /// ```
    OnAdd,
    |world, id| lifecycle(world, id, HookKind::Add)
);
lifecycle_event!(
    /// A `T` value was written by spawn, insert or scene load, whether the entity had
    /// one or not (after [`OnAdd`]). Observers run after the write and the `on_insert`
    /// hooks.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::observer::{OnInsert, Trigger};
    /// use ripple::system::Query;
    /// struct Label(&'static str);
    /// let mut world = World::new();
    /// world
    ///     .observe(|t: Trigger<OnInsert<Label>>, labels: Query<&Label>| {
    ///         println!("draw {}", labels.get(t.entity()).unwrap().0); // every write by insert
    ///     })
    ///     .unwrap();
    /// let e = world.spawn((Label("hello"),));
    /// world.insert(e, (Label("bye"),)).unwrap();
    /// ```
    OnInsert,
    |world, id| lifecycle(world, id, HookKind::Insert)
);
lifecycle_event!(
    /// A `T` value is about to be overwritten by insert, or to leave the entity
    /// (remove or despawn, before [`OnRemove`]). Observers run before the change and
    /// can still read the old value.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::observer::{OnReplace, Trigger};
    /// use ripple::system::{Query, ResMut};
    /// struct Gold(u32);
    /// #[derive(Default)]
    /// struct Spent(u32);
    /// let mut world = World::new();
    /// world.insert_resource(Spent::default());
    /// world
    ///     .observe(|t: Trigger<OnReplace<Gold>>, gold: Query<&Gold>, mut spent: ResMut<Spent>| {
    ///         spent.0 += gold.get(t.entity()).unwrap().0; // the old value
    ///     })
    ///     .unwrap();
    /// let e = world.spawn((Gold(5),));
    /// world.insert(e, (Gold(9),)).unwrap();
    /// assert_eq!(world.resource::<Spent>().unwrap().0, 5);
    /// ```
    OnReplace,
    |world, id| lifecycle(world, id, HookKind::Replace)
);
lifecycle_event!(
    /// A `T` is about to leave an entity: removed, or despawned with it (also by
    /// [`World::clear`](crate::World::clear)). Observers run after the `on_remove`
    /// hooks, before the value goes, and can still read it.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::observer::{OnRemove, Trigger};
    /// use ripple::system::Query;
    /// struct Body(u32);
    /// let mut world = World::new();
    /// world
    ///     .observe(|t: Trigger<OnRemove<Body>>, bodies: Query<&Body>| {
    ///         println!("destroy physics body {}", bodies.get(t.entity()).unwrap().0);
    ///     })
    ///     .unwrap();
    /// let e = world.spawn((Body(7),));
    /// world.despawn(e).unwrap(); // runs it too
    /// ```
    OnRemove,
    |world, id| lifecycle(world, id, HookKind::Remove)
);
lifecycle_event!(
    /// A `T` was changed: written through a mutable handle, marked with
    /// [`World::mark_changed`](crate::World::mark_changed), or added. Delivered at
    /// sync points (each phase's end, [`World::flush`](crate::World::flush), a
    /// one-shot run's end), once per entity however many writes happened, and never
    /// for an entity that lost `T` or was despawned meanwhile. Watching a type turns
    /// its change tracking on.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::observer::{OnChange, Trigger};
    /// use ripple::system::ResMut;
    /// struct Score(u32);
    /// #[derive(Default)]
    /// struct Redraws(u32);
    /// let mut world = World::new();
    /// world.insert_resource(Redraws::default());
    /// world.observe(|_: Trigger<OnChange<Score>>, mut redraws: ResMut<Redraws>| redraws.0 += 1).unwrap();
    /// let e = world.spawn((Score(0),));
    /// world.flush();
    /// for _ in 0..5 {
    ///     world.get_mut::<Score>(e).unwrap().0 += 1;
    /// }
    /// world.flush();
    /// assert_eq!(world.resource::<Redraws>().unwrap().0, 2); // the add, then five writes once
    /// ```
    OnChange,
    |world, id| {
        let source = Box::new(Changes::<T>::from_now(world));
        world.reactor.sync_points = true;
        ObserverKey { key: Key::Change(id), watch: Some(ChangeWatch::new(id, source)) }
    }
);

/// Watches `kind` for component `id`.
fn lifecycle(world: &mut World, id: ComponentId, kind: HookKind) -> ObserverKey {
    world.watch_lifecycle(id, kind);
    ObserverKey { key: Key::Lifecycle(kind, id), watch: None }
}

/// An entity is about to be despawned (before its components' [`OnReplace`] and
/// [`OnRemove`]). Observers can still read every component.
///
/// ```
/// use ripple::World;
/// use ripple::observer::{OnDespawn, Trigger};
/// let mut world = World::new();
/// let boss = world.spawn(());
/// world.observe_entity(boss, |t: Trigger<OnDespawn>| println!("{} defeated", t.entity())).unwrap();
/// world.despawn(boss).unwrap();
/// ```
#[derive(Debug)]
pub struct OnDespawn;

impl ObserverEvent for OnDespawn {
    const MARKER: Option<&'static Self> = Some(&OnDespawn);

    fn observer_key(world: &mut World) -> ObserverKey {
        world.reactor.despawns = true;
        ObserverKey { key: Key::Despawn, watch: None }
    }
}

/// What the observer is running for: the first parameter of every observer.
///
/// ```
/// use ripple::World;
/// use ripple::observer::{OnAdd, Trigger};
/// struct Hp(u32);
/// let mut world = World::new();
/// world
///     .observe(|trigger: Trigger<OnAdd<Hp>>| println!("{} got hit points", trigger.entity()))
///     .unwrap();
/// world.spawn((Hp(10),));
/// ```
pub struct Trigger<'t, E> {
    pub(crate) event: &'t E,
    pub(crate) data: &'t mut TriggerData,
}

/// The parts of a trigger that are not the event.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TriggerData {
    /// The entity the trigger is at now (an ancestor of the first target while
    /// bubbling).
    pub(crate) entity: Option<Entity>,
    /// The entity the trigger was aimed at.
    pub(crate) original: Option<Entity>,
    pub(crate) component: Option<ComponentId>,
    pub(crate) propagate: bool,
}

impl TriggerData {
    pub(crate) fn at(entity: Option<Entity>, component: Option<ComponentId>) -> TriggerData {
        TriggerData { entity, original: entity, component, propagate: true }
    }
}

impl<'t, E> Trigger<'t, E> {
    /// The event.
    pub fn event(&self) -> &'t E {
        self.event
    }

    /// The entity the trigger is at: the one whose component was added, changed or
    /// removed, the despawned one, or, for a custom trigger, the target (or, while it
    /// bubbles, the ancestor it has reached).
    ///
    /// # Panics
    /// For a trigger sent with [`World::trigger`](crate::World::trigger), which has no
    /// entity (see [`target`](Self::target)).
    #[track_caller]
    pub fn entity(&self) -> Entity {
        self.data.entity.expect("ripple: this trigger has no entity (sent with `World::trigger`); use `target()`")
    }

    /// The entity the trigger is at, or `None` for one sent with
    /// [`World::trigger`](crate::World::trigger).
    pub fn target(&self) -> Option<Entity> {
        self.data.entity
    }

    /// The entity the trigger was first aimed at (the same as
    /// [`target`](Self::target) unless it bubbled).
    pub fn original_target(&self) -> Option<Entity> {
        self.data.original
    }

    /// The component of a lifecycle or change event.
    pub fn component(&self) -> Option<ComponentId> {
        self.data.component
    }

    /// For an event that [bubbles](ObserverEvent::BUBBLES): whether it goes on to the
    /// parent once this entity's observers have run (`true` unless an observer said
    /// otherwise). The other observers of this entity still run.
    pub fn propagate(&mut self, go_on: bool) {
        self.data.propagate = go_on;
    }
}

impl<E: std::fmt::Debug> std::fmt::Debug for Trigger<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trigger")
            .field("event", self.event)
            .field("entity", &self.data.entity)
            .field("original_target", &self.data.original)
            .field("component", &self.data.component)
            .finish()
    }
}
