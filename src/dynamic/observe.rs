//! Observers of a component reached by id: the lifecycle moments and changes of a
//! runtime component (or of a typed one, by its id), as `OnAdd<T>`, `OnInsert<T>`,
//! `OnReplace<T>`, `OnRemove<T>` and `OnChange<T>` are for a type.

use crate::component::ComponentId;
use crate::hook::HookKind;
use crate::observer::{ChangeWatch, Key, ObserverError, ObserverEvent, ObserverFunction, ObserverId, ObserverKey};
use crate::world::World;

/// Which moment of a component's life an observer by id reacts to (see
/// [`World::observe_by_id`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Moment {
    /// The component was added to an entity that lacked it (as `OnAdd`).
    Add,
    /// The component was written by an insert, new or replacing (as `OnInsert`).
    Insert,
    /// The component's value is about to be overwritten or removed (as `OnReplace`).
    Replace,
    /// The component is about to leave an entity (as `OnRemove`).
    Remove,
    /// The component changed (as `OnChange`): delivered at sync points, once per
    /// entity; turns its change tracking on.
    Change,
}

/// The event of an observer registered with [`World::observe_by_id`]: the entity is
/// [`Trigger::entity`](crate::observer::Trigger::entity), the component
/// [`Trigger::component`](crate::observer::Trigger::component), and the moment the one it was
/// registered for.
#[derive(Debug)]
pub struct OnComponent;

impl ObserverEvent for OnComponent {
    const MARKER: Option<&'static Self> = Some(&OnComponent);
}

impl World {
    /// Registers `observer` to run at `moment` of component `id`'s life, on every
    /// entity: what `observe` with `OnAdd<T>` (and kin) does for a type, for a
    /// component registered at run time.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::dynamic::{ComponentDescriptor, Moment, OnComponent};
    /// use ripple::observer::Trigger;
    /// use std::sync::{Arc, Mutex};
    /// let mut world = World::new();
    /// let hp = world.register_component(ComponentDescriptor::new("hp", 4, 4).unwrap());
    /// let added = Arc::new(Mutex::new(Vec::new()));
    /// let log = added.clone();
    /// let on_add = move |t: Trigger<OnComponent>| log.lock().unwrap().push(t.entity());
    /// world.observe_by_id(hp, Moment::Add, on_add).unwrap();
    /// let orc = world.spawn(());
    /// world.insert_by_id(orc, hp, &10i32.to_le_bytes()).unwrap();
    /// assert_eq!(*added.lock().unwrap(), [orc]);
    /// ```
    ///
    /// # Errors
    /// [`ObserverError::UnknownComponent`] if no component has this id here;
    /// [`ObserverError::ConflictingParams`] if the observer's parameters conflict.
    pub fn observe_by_id<M: 'static>(
        &mut self,
        id: ComponentId,
        moment: Moment,
        observer: impl ObserverFunction<OnComponent, M>,
    ) -> Result<ObserverId, ObserverError> {
        if id.index() >= self.components.len() {
            return Err(ObserverError::UnknownComponent(id));
        }
        self.add_observer_with(observer, None, |world| match moment {
            Moment::Change => {
                let mut source =
                    world.dynamic_query().changed(id).including_disabled().build().expect("a known component");
                source.skip_to_now(world);
                world.reactor.sync_points = true;
                ObserverKey { key: Key::Change(id), watch: Some(ChangeWatch::new(id, Box::new(source))) }
            }
            lifecycle => {
                let kind = match lifecycle {
                    Moment::Add => HookKind::Add,
                    Moment::Insert => HookKind::Insert,
                    Moment::Replace => HookKind::Replace,
                    _ => HookKind::Remove,
                };
                world.watch_lifecycle(id, kind);
                ObserverKey { key: Key::Lifecycle(kind, id), watch: None }
            }
        })
    }
}
