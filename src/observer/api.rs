//! Registering observers, removing them, and sending triggers: the methods on
//! [`World`], [`Commands`] and [`EntityCommands`].

use std::any::TypeId;

use crate::commands::{Commands, EntityCommands};
use crate::entity::Entity;
use crate::world::World;

use super::error::ObserverError;
use super::event::{ObserverEvent, ObserverKey, TriggerData};
use super::keys::{Key, ObserverId};
use super::registry::{Entry, Observers};
use super::system::{AnyObserver, ObserverFunction, ObserverSystem};

impl World {
    /// Registers `observer` to run whenever its event happens to any entity (or, for
    /// a custom event, whenever it is triggered). An observer is a function whose first
    /// parameter is a [`Trigger`](crate::observer::Trigger) naming the event, and whose others
    /// are system parameters ([`Query`](crate::system::Query), [`Res`](crate::system::Res),
    /// [`ResMut`](crate::system::ResMut), [`Commands`], ...).
    ///
    /// Observers of [`OnAdd`](crate::observer::OnAdd), [`OnInsert`](crate::observer::OnInsert),
    /// [`OnReplace`](crate::observer::OnReplace), [`OnRemove`](crate::observer::OnRemove) and
    /// [`OnDespawn`](crate::observer::OnDespawn) run inside the structural change, right after
    /// the hooks of the same moment; [`OnChange`](crate::observer::OnChange) observers at sync
    /// points; custom events when triggered. They see the world and may write
    /// components and resources; their commands (spawns, inserts, despawns, more
    /// triggers) apply once the operation that ran them is complete.
    ///
    /// ```
    /// use ripple::{Commands, World};
    /// use ripple::observer::{OnAdd, OnChange, Trigger};
    /// use ripple::system::Query;
    /// struct Hp(i32);
    /// struct Dead;
    ///
    /// let mut world = World::new();
    /// world
    ///     .observe(|trigger: Trigger<OnChange<Hp>>, hp: Query<&Hp>, mut commands: Commands| {
    ///         let entity = trigger.entity();
    ///         if hp.get(entity).unwrap().0 <= 0 {
    ///             commands.insert(entity, (Dead,));
    ///         }
    ///     })
    ///     .unwrap();
    /// world.observe(|trigger: Trigger<OnAdd<Dead>>| println!("{} died", trigger.entity())).unwrap();
    ///
    /// let orc = world.spawn((Hp(5),));
    /// world.get_mut::<Hp>(orc).unwrap().0 -= 9;
    /// world.flush(); // a sync point: change observers run, then their commands
    /// assert!(world.entity(orc).unwrap().has::<Dead>());
    /// ```
    ///
    /// # Errors
    /// [`ObserverError::ConflictingParams`] if the observer's parameters conflict.
    pub fn observe<E: ObserverEvent, M: 'static>(
        &mut self,
        observer: impl ObserverFunction<E, M>,
    ) -> Result<ObserverId, ObserverError> {
        self.add_observer_for(observer, None)
    }

    /// bevy_ecs's name for [`observe`](Self::observe).
    ///
    /// # Errors
    /// As [`observe`](Self::observe).
    pub fn add_observer<E: ObserverEvent, M: 'static>(
        &mut self,
        observer: impl ObserverFunction<E, M>,
    ) -> Result<ObserverId, ObserverError> {
        self.add_observer_for(observer, None)
    }

    /// Registers `observer` to run when its event happens to `entity` only (for a
    /// custom event: when `entity` is among the targets, or is reached by bubbling).
    /// It is removed when the entity is despawned, after running for the despawn's own
    /// events.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::observer::{ObserverEvent, Trigger};
    /// struct Clicked;
    /// impl ObserverEvent for Clicked {}
    ///
    /// let mut world = World::new();
    /// let button = world.spawn(());
    /// let other = world.spawn(());
    /// world.observe_entity(button, |t: Trigger<Clicked>| println!("{} clicked", t.entity())).unwrap();
    /// world.trigger_targets(Clicked, [button, other]); // prints once
    /// ```
    ///
    /// # Errors
    /// [`ObserverError::NoSuchEntity`] if `entity` is not alive;
    /// [`ObserverError::ConflictingParams`] if the observer's parameters conflict.
    pub fn observe_entity<E: ObserverEvent, M: 'static>(
        &mut self,
        entity: Entity,
        observer: impl ObserverFunction<E, M>,
    ) -> Result<ObserverId, ObserverError> {
        self.flush_reserved();
        if !self.contains(entity) {
            return Err(ObserverError::NoSuchEntity(entity));
        }
        self.add_observer_for(observer, Some(entity))
    }

    fn add_observer_for<E: ObserverEvent, M: 'static>(
        &mut self,
        observer: impl ObserverFunction<E, M>,
        target: Option<Entity>,
    ) -> Result<ObserverId, ObserverError> {
        self.add_observer_with(observer, target, E::observer_key)
    }

    /// Registers `observer` under the key `key` makes (its event's own, or one for a
    /// component reached by id), aimed at `target` if any.
    pub(crate) fn add_observer_with<E: ObserverEvent, M: 'static>(
        &mut self,
        observer: impl ObserverFunction<E, M>,
        target: Option<Entity>,
        key: impl FnOnce(&mut World) -> ObserverKey,
    ) -> Result<ObserverId, ObserverError> {
        let system = ObserverSystem::new(observer, self)
            .map_err(|(observer, conflicts)| ObserverError::ConflictingParams { observer, conflicts })?;
        let key = key(self);
        Ok(self.add_observer_system(Box::new(system), key, target))
    }

    /// Registers an observer system under `key` (its event's, or one made for a
    /// component reached by id), aimed at `target` if any.
    fn add_observer_system(
        &mut self,
        system: Box<dyn AnyObserver>,
        key: ObserverKey,
        target: Option<Entity>,
    ) -> ObserverId {
        if target.is_some() {
            // Its observers go when the entity does.
            self.reactor.despawns = true;
        }
        // A change observer hears the changes made from now on: a tick registered with
        // the world (so maintenance keeps it ordered), the world's advanced past it.
        let since = key.watch.is_some().then(|| {
            let since = self.register_change_reader();
            self.increment_change_tick();
            since
        });
        let observers = self.reactor_mut(Observers::default);
        let entries = &mut observers.systems.entries;
        let id = ObserverId(u32::try_from(entries.len()).expect("fewer than 2^32 observers registered"));
        entries.push(Some(Entry { system, key: key.key, target }));
        if let (Some(watch), Some(since)) = (key.watch, since) {
            let idle = !observers.listens(key.key);
            match observers.watches.iter_mut().find(|known| known.component == watch.component) {
                None => observers.watches.push(watch),
                // Nobody listened since the last delivery, so the old watch fell
                // behind: the new observer hears changes from now on, not that backlog.
                Some(known) if idle => *known = watch,
                // Others listen: the watch's next look may find changes made before
                // this observer existed, which it must not hear.
                Some(known) => known.join(id, target, since),
            }
        }
        let listeners = observers.lists.entry(key.key);
        match target {
            None => listeners.global.push(id),
            Some(entity) => {
                listeners.targeted.entry(entity).or_default().push(id);
                observers.targeted.entry(entity).or_default().push(id);
            }
        }
        id
    }

    /// Removes an observer. Removing one from inside a delivery (through commands)
    /// takes effect once that delivery is over.
    ///
    /// # Errors
    /// [`ObserverError::NoSuchObserver`] if it is not registered (or was removed).
    pub fn unobserve(&mut self, id: ObserverId) -> Result<(), ObserverError> {
        if self.has_reactor() && self.reactor_mut(Observers::default).remove(id) {
            return Ok(());
        }
        Err(ObserverError::NoSuchObserver(id))
    }

    /// Runs the observers of `event` registered with [`observe`](Self::observe) (not
    /// those aimed at entities), then applies their commands. Their
    /// [`Trigger::target`](crate::observer::Trigger::target) is `None`.
    pub fn trigger<E: ObserverEvent>(&mut self, event: E) {
        self.with_reactor_of::<Observers, _>(|observers, world| {
            let key = Key::Custom(TypeId::of::<E>());
            if observers.listens(key) {
                observers.dispatch(world, key, &mut TriggerData::at(None, None), Some(&event));
            }
        });
        self.apply_hook_commands();
    }

    /// Runs the observers of `event` for each of `targets` in turn: those of every
    /// entity, then those aimed at the target. If `E` [bubbles](ObserverEvent::BUBBLES),
    /// the event then goes to the target's parent (along [`ChildOf`](crate::hierarchy::ChildOf)) and its
    /// observers, and so on up to the root, unless an observer stops it with
    /// [`Trigger::propagate`](crate::observer::Trigger::propagate). Their commands apply once
    /// all targets are done. Costs O(depth) per target, plus the observers.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::hierarchy::ChildOf;
    /// use ripple::observer::{ObserverEvent, Trigger};
    /// use ripple::system::ResMut;
    /// struct Click;
    /// impl ObserverEvent for Click {
    ///     const BUBBLES: bool = true;
    /// }
    /// #[derive(Default)]
    /// struct Heard(Vec<ripple::Entity>);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Heard::default());
    /// let window = world.spawn(());
    /// let panel = world.spawn((ChildOf(window),));
    /// let button = world.spawn((ChildOf(panel),));
    /// world.observe(|t: Trigger<Click>, mut heard: ResMut<Heard>| heard.0.push(t.entity())).unwrap();
    /// world.observe_entity(panel, |mut t: Trigger<Click>| t.propagate(false)).unwrap();
    /// world.trigger_targets(Click, [button]);
    /// assert_eq!(world.resource::<Heard>().unwrap().0, [button, panel]); // stopped at the panel
    /// ```
    pub fn trigger_targets<E: ObserverEvent>(&mut self, event: E, targets: impl IntoIterator<Item = Entity>) {
        self.with_reactor_of::<Observers, _>(|observers, world| {
            let Some(listeners) = observers.lists.get(&Key::Custom(TypeId::of::<E>())) else { return };
            for target in targets {
                let mut data = TriggerData::at(Some(target), None);
                let mut at = target;
                loop {
                    observers.systems.dispatch(world, listeners, &mut data, Some(&event));
                    if !E::BUBBLES || !data.propagate {
                        break;
                    }
                    // The bubbling relation (the hierarchy's `ChildOf`) never forms a
                    // cycle, so this reaches a root.
                    let Some(parent) = world.relation_tables.bubble_from(at) else { break };
                    at = parent;
                    data.entity = Some(parent);
                }
            }
        });
        self.apply_hook_commands();
    }

    /// Takes what went wrong while observers ran since the last call (panics, and
    /// change deliveries cut after [`MAX_CHANGE_ROUNDS`](crate::observer::MAX_CHANGE_ROUNDS)
    /// rounds), oldest first: at most the last
    /// [`MAX_OBSERVER_ERRORS`](crate::observer::MAX_OBSERVER_ERRORS).
    pub fn take_observer_errors(&mut self) -> Vec<ObserverError> {
        if !self.has_reactor() {
            return Vec::new();
        }
        std::mem::take(&mut self.reactor_mut(Observers::default).systems.errors)
    }

    /// How many observers are registered.
    pub fn observer_count(&mut self) -> usize {
        if !self.has_reactor() {
            return 0;
        }
        self.reactor_mut(Observers::default).systems.entries.iter().flatten().count()
    }
}

impl Commands<'_, '_> {
    /// Queues [`World::trigger`].
    pub fn trigger<E: ObserverEvent>(&mut self, event: E) {
        self.add(move |world: &mut World| world.trigger(event));
    }

    /// Queues [`World::trigger_targets`].
    pub fn trigger_targets<E: ObserverEvent>(&mut self, event: E, targets: impl IntoIterator<Item = Entity>) {
        let targets: Vec<Entity> = targets.into_iter().collect();
        self.add(move |world: &mut World| world.trigger_targets(event, targets));
    }

    /// Queues [`World::observe`]; if it fails, the error is kept with the others
    /// ([`World::take_observer_errors`]).
    pub fn observe<E: ObserverEvent, M: 'static>(&mut self, observer: impl ObserverFunction<E, M>) {
        self.add(move |world: &mut World| {
            if let Err(error) = world.observe(observer) {
                world.reactor_mut(Observers::default).systems.record(error);
            }
        });
    }

    /// bevy_ecs's name for [`observe`](Self::observe).
    pub fn add_observer<E: ObserverEvent, M: 'static>(&mut self, observer: impl ObserverFunction<E, M>) {
        self.observe(observer);
    }

    /// Queues [`World::unobserve`]; if it fails, the error is kept with the others.
    pub fn unobserve(&mut self, id: ObserverId) {
        self.add(move |world: &mut World| {
            if let Err(error) = world.unobserve(id) {
                world.reactor_mut(Observers::default).systems.record(error);
            }
        });
    }
}

impl EntityCommands<'_, '_, '_> {
    /// Queues [`World::observe_entity`] for this entity; if it fails, the error is
    /// kept with the others ([`World::take_observer_errors`]).
    pub fn observe<E: ObserverEvent, M: 'static>(&mut self, observer: impl ObserverFunction<E, M>) -> &mut Self {
        let entity = self.id();
        self.commands().add(move |world: &mut World| {
            if let Err(error) = world.observe_entity(entity, observer) {
                world.reactor_mut(Observers::default).systems.record(error);
            }
        });
        self
    }

    /// Queues [`World::trigger_targets`] aimed at this entity.
    pub fn trigger<E: ObserverEvent>(&mut self, event: E) -> &mut Self {
        let entity = self.id();
        self.commands().trigger_targets(event, [entity]);
        self
    }
}
