//! How observers are named and found: [`ObserverId`], the [`Key`] a list of them listens
//! to, and [`Listeners`], the list.

use std::any::TypeId;

use crate::component::ComponentId;
use crate::entity::Entity;
use crate::hook::HookKind;
use crate::util::hash::IdMap;

/// Identifies an observer registered with [`World::observe`](crate::World::observe) or
/// [`World::observe_entity`](crate::World::observe_entity). Never reused, so a handle to a removed observer stays
/// invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObserverId(pub(crate) u32);

/// What a list of observers listens to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Lifecycle(HookKind, ComponentId),
    Despawn,
    Change(ComponentId),
    Custom(TypeId),
}

/// The observers of one key: those of every entity, and those of some entities.
#[derive(Default)]
pub(crate) struct Listeners {
    pub(crate) global: Vec<ObserverId>,
    pub(crate) targeted: IdMap<Entity, Vec<ObserverId>>,
}

impl Listeners {
    pub(super) fn is_empty(&self) -> bool {
        self.global.is_empty() && self.targeted.is_empty()
    }
}
