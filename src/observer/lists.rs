//! [`Lists`]: the observers of each key, found for a lifecycle moment by two indexings
//! rather than a hash lookup, since every insert, removal and despawn of a watched type
//! asks.

use crate::hook::HookKind;
use crate::util::hash::IdMap;

use super::keys::{Key, Listeners};

/// The listeners of every key: lifecycle keys by component index and moment, the
/// others in a map.
#[derive(Default)]
pub(crate) struct Lists {
    /// `lifecycle[component][moment]`, grown to the highest component observed. A
    /// component's four lists cost 224 bytes, for the types observed or below them.
    lifecycle: Vec<[Listeners; 4]>,
    other: IdMap<Key, Listeners>,
}

/// The index of a moment among a component's four lists.
#[inline]
fn moment(kind: HookKind) -> usize {
    match kind {
        HookKind::Add => 0,
        HookKind::Insert => 1,
        HookKind::Remove => 2,
        HookKind::Replace => 3,
    }
}

impl Lists {
    /// The listeners of `key`, if any were ever added.
    #[inline]
    pub(crate) fn get(&self, key: &Key) -> Option<&Listeners> {
        match *key {
            Key::Lifecycle(kind, component) => self.lifecycle.get(component.index()).map(|lists| &lists[moment(kind)]),
            _ => self.other.get(key),
        }
    }

    /// As [`get`](Self::get), to change.
    pub(crate) fn get_mut(&mut self, key: &Key) -> Option<&mut Listeners> {
        match *key {
            Key::Lifecycle(kind, component) => {
                self.lifecycle.get_mut(component.index()).map(|lists| &mut lists[moment(kind)])
            }
            _ => self.other.get_mut(key),
        }
    }

    /// The listeners of `key`, made empty if there were none.
    pub(crate) fn entry(&mut self, key: Key) -> &mut Listeners {
        match key {
            Key::Lifecycle(kind, component) => {
                let index = component.index();
                if self.lifecycle.len() <= index {
                    self.lifecycle.resize_with(index + 1, Default::default);
                }
                &mut self.lifecycle[index][moment(kind)]
            }
            _ => self.other.entry(key).or_default(),
        }
    }
}
