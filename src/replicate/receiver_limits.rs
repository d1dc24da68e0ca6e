//! What a [`DeltaReceiver`](super::DeltaReceiver) will hold for a sender it cannot
//! trust: entities, stand-ins, and parent links the hierarchy refused, each bounded,
//! with the retries of a refused link bounded too.

use std::collections::VecDeque;
use std::fmt;

use crate::entity::Entity;
use crate::hierarchy::ChildOf;
use crate::world::World;

/// Bounds on what a [`DeltaReceiver`](super::DeltaReceiver) holds, so that a hostile
/// (or broken) sender cannot grow the receiving world without end. A delta that would
/// pass [`entities`](Self::entities) or [`stand_ins`](Self::stand_ins) is refused
/// whole with [`DeltaError::Limit`](super::DeltaError::Limit); refused parent links
/// past their bounds are given up and reported by
/// [`drain_refused_parents`](super::DeltaReceiver::drain_refused_parents).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceiverLimits {
    /// The most sender entities mapped at once, replicas and stand-ins together.
    /// Default 1,048,576.
    pub entities: usize,
    /// The most stand-ins at once: local entities made for handles that values named
    /// before any record sent their entity. Default 65,536.
    pub stand_ins: usize,
    /// The most refused parent links waiting to be tried again; past it the oldest is
    /// given up. Default 1,024.
    pub pending_parents: usize,
    /// How many deltas a refused parent link is tried again after before it is given
    /// up. Default 64.
    pub parent_retries: u32,
}

impl Default for ReceiverLimits {
    fn default() -> Self {
        ReceiverLimits { entities: 1 << 20, stand_ins: 1 << 16, pending_parents: 1024, parent_retries: 64 }
    }
}

/// Which of the [`ReceiverLimits`] a delta would have passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiverLimit {
    /// [`ReceiverLimits::entities`].
    Entities,
    /// [`ReceiverLimits::stand_ins`].
    StandIns,
}

impl fmt::Display for ReceiverLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReceiverLimit::Entities => "mapped entities",
            ReceiverLimit::StandIns => "stand-ins",
        })
    }
}

/// A child whose `ChildOf` the receiver could not set (the hierarchy refused it, a
/// cycle say) and gave up on: the child stays without that parent until a later delta
/// sends its `ChildOf` again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefusedParent {
    /// The local child.
    pub child: Entity,
    /// The local parent it should have had.
    pub parent: Entity,
}

/// How many given-up links are kept for [`drain_refused`](Unattached::drain_refused).
const KEPT_REFUSALS: usize = 256;

/// Refused parent links waiting to be tried again, and those given up.
#[derive(Default)]
pub(crate) struct Unattached {
    /// Child, parent, retries left; oldest first.
    waiting: VecDeque<(Entity, Entity, u32)>,
    refused: VecDeque<RefusedParent>,
}

impl Unattached {
    /// Waits for `child` to take `parent` (replacing what `child` waited for).
    pub(crate) fn push(&mut self, child: Entity, parent: Entity, limits: &ReceiverLimits) {
        self.forget_child(child);
        if limits.parent_retries == 0 || limits.pending_parents == 0 {
            self.give_up(child, parent);
            return;
        }
        while self.waiting.len() >= limits.pending_parents {
            let Some((child, parent, _)) = self.waiting.pop_front() else { break };
            self.give_up(child, parent);
        }
        self.waiting.push_back((child, parent, limits.parent_retries));
    }

    /// `child` waits for nothing any more (a delta sets its parent anew).
    pub(crate) fn forget_child(&mut self, child: Entity) {
        if !self.waiting.is_empty() {
            self.waiting.retain(|&(waiting, _, _)| waiting != child);
        }
    }

    /// Tries every waiting link again; drops those that took or no longer apply, and
    /// gives up those out of retries. O(waiting links).
    pub(crate) fn retry(&mut self, world: &mut World) {
        if self.waiting.is_empty() {
            return;
        }
        let mut refused = std::mem::take(&mut self.refused);
        self.waiting.retain_mut(|(child, parent, left)| {
            let (child, parent) = (*child, *parent);
            if !world.contains(child)
                || !world.contains(parent)
                || world.get::<ChildOf>(child).ok().map(ChildOf::parent) == Some(parent)
                || world.set_parent(child, parent).is_ok()
            {
                return false;
            }
            *left -= 1;
            if *left == 0 {
                keep_refusal(&mut refused, RefusedParent { child, parent });
                return false;
            }
            true
        });
        self.refused = refused;
    }

    fn give_up(&mut self, child: Entity, parent: Entity) {
        keep_refusal(&mut self.refused, RefusedParent { child, parent });
    }

    pub(crate) fn drain_refused(&mut self) -> impl Iterator<Item = RefusedParent> + '_ {
        self.refused.drain(..)
    }

    pub(crate) fn clear(&mut self) {
        self.waiting.clear();
        self.refused.clear();
    }
}

fn keep_refusal(refused: &mut VecDeque<RefusedParent>, refusal: RefusedParent) {
    if refused.len() == KEPT_REFUSALS {
        refused.pop_front();
    }
    refused.push_back(refusal);
}
