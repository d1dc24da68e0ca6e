//! A resource's value, tracked whole: each checkpoint compares it with the shadow
//! (resources carry no change ticks) and records the previous value if it differs.

use std::collections::VecDeque;

use crate::world::World;

/// One tracked resource type.
pub(crate) trait ResourceTrack: Send + Sync {
    fn name(&self) -> &'static str;
    fn capture(&mut self, world: &World);
    fn newest_is_empty(&self) -> bool;
    fn unwind(&mut self, n: usize, keep: bool);
    fn redo(&mut self);
    fn clear_redo(&mut self);
    fn forget_oldest(&mut self);
    /// Writes the shadow back if the world differs; whether it wrote.
    fn restore(&mut self, world: &mut World) -> bool;
    fn checksum(&self) -> u64;
    fn bytes(&self) -> usize;
}

/// Per checkpoint: `None` if the resource did not change, else its previous state
/// (`Some(None)`: it was absent).
type Record<R> = Option<Option<R>>;

pub(crate) struct TypedResource<R> {
    shadow: Option<R>,
    records: VecDeque<Record<R>>,
    redo: Vec<Record<R>>,
    /// Whether an unwind or redo changed the shadow since the last restore.
    dirty: bool,
    hash: Option<fn(&R) -> u64>,
}

impl<R: Clone + PartialEq + Send + Sync + 'static> TypedResource<R> {
    pub(crate) fn new(world: &World, hash: Option<fn(&R) -> u64>) -> Self {
        TypedResource {
            shadow: world.get_resource::<R>().cloned(),
            records: VecDeque::new(),
            redo: Vec::new(),
            dirty: false,
            hash,
        }
    }

    fn swap_in(&mut self, record: Record<R>) -> Record<R> {
        let before = record?;
        self.dirty = true;
        Some(std::mem::replace(&mut self.shadow, before))
    }
}

impl<R: Clone + PartialEq + Send + Sync + 'static> ResourceTrack for TypedResource<R> {
    fn name(&self) -> &'static str {
        std::any::type_name::<R>()
    }

    fn capture(&mut self, world: &World) {
        let now = world.get_resource::<R>();
        let record =
            if self.shadow.as_ref() == now { None } else { Some(std::mem::replace(&mut self.shadow, now.cloned())) };
        self.records.push_back(record);
    }

    fn newest_is_empty(&self) -> bool {
        self.records.back().is_none_or(Option::is_none)
    }

    fn unwind(&mut self, n: usize, keep: bool) {
        for _ in 0..n {
            let Some(record) = self.records.pop_back() else { return };
            let replaced = self.swap_in(record);
            if keep {
                self.redo.push(replaced);
            }
        }
    }

    fn redo(&mut self) {
        if let Some(record) = self.redo.pop() {
            let replaced = self.swap_in(record);
            self.records.push_back(replaced);
        }
    }

    fn clear_redo(&mut self) {
        self.redo.clear();
    }

    fn forget_oldest(&mut self) {
        self.records.pop_front();
    }

    fn restore(&mut self, world: &mut World) -> bool {
        if !std::mem::take(&mut self.dirty) || world.get_resource::<R>() == self.shadow.as_ref() {
            return false;
        }
        match &self.shadow {
            None => {
                let _ = world.remove_resource::<R>();
            }
            Some(value) => match world.get_resource_mut::<R>() {
                Some(place) => *place = value.clone(),
                None => {
                    world.insert_resource(value.clone());
                }
            },
        }
        true
    }

    fn checksum(&self) -> u64 {
        match (&self.shadow, self.hash) {
            (Some(value), Some(hash)) => hash(value),
            _ => 0,
        }
    }

    fn bytes(&self) -> usize {
        let changed = self.records.iter().chain(&self.redo).filter(|r| r.is_some()).count();
        changed * size_of::<R>() + (self.records.capacity() + self.redo.capacity()) * size_of::<Record<R>>()
    }
}
