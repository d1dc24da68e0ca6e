//! The journal: per replication tick, what happened to which entity, shared by every
//! peer. A peer's delta reads the ticks since its window starts; ticks no window
//! needs are dropped.

use std::collections::VecDeque;

use crate::entity::Entity;
use crate::util::hash::IdMap;

/// What happened to one entity over one tick (or a window of ticks, merged).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Touch {
    pub(crate) entity: Entity,
    /// The components whose value was set (added or written).
    pub(crate) set: u64,
    /// The components removed (or despawned with the entity).
    pub(crate) removed: u64,
    /// The entity joined the replicated set (its marker was added).
    pub(crate) entered: bool,
    /// The entity left the replicated set (marker removed, or despawned).
    pub(crate) left: bool,
    /// Re-send everything about the entity (a message that carried it was lost).
    pub(crate) resend: bool,
    /// A lost message hid the entity from a filtered peer: hide it again.
    pub(crate) hide: bool,
    /// The order of the entity's children changed (it is a parent).
    pub(crate) reordered: bool,
}

impl Touch {
    pub(crate) fn new(entity: Entity) -> Touch {
        Touch { entity, set: 0, removed: 0, entered: false, left: false, resend: false, hide: false, reordered: false }
    }

    /// Folds `later` (of the same entity, later or in the same tick) into `self`.
    pub(crate) fn merge(&mut self, later: &Touch) {
        self.set |= later.set;
        self.removed |= later.removed;
        self.entered |= later.entered;
        self.left |= later.left;
        self.resend |= later.resend;
        self.hide |= later.hide;
        self.reordered |= later.reordered;
    }
}

/// The touches of one tick.
struct TickTouches {
    tick: u64,
    touches: Vec<Touch>,
}

/// Builds one tick's touches, each entity once.
#[derive(Default)]
pub(crate) struct TickBuilder {
    index: IdMap<u64, u32>,
    pub(crate) touches: Vec<Touch>,
}

impl TickBuilder {
    /// The touch of `entity` in the tick being built.
    #[inline]
    pub(crate) fn touch(&mut self, entity: Entity) -> &mut Touch {
        let next = self.touches.len() as u32;
        let at = *self.index.entry(entity.to_bits()).or_insert(next);
        if at == next {
            self.touches.push(Touch::new(entity));
        }
        &mut self.touches[at as usize]
    }

    fn clear(&mut self) {
        self.index.clear();
        self.touches.clear();
    }
}

/// The ticks kept, oldest first.
#[derive(Default)]
pub(crate) struct Journal {
    ticks: VecDeque<TickTouches>,
    /// Touches held over all ticks.
    held: usize,
    /// Buffers of dropped ticks, for reuse.
    spare: Vec<Vec<Touch>>,
    /// The newest tick dropped so far (a window starting before it cannot be read).
    pub(crate) dropped_through: u64,
}

impl Journal {
    /// Keeps `builder`'s touches as tick `tick` (if any) and empties the builder.
    pub(crate) fn push(&mut self, tick: u64, builder: &mut TickBuilder) {
        if builder.touches.is_empty() {
            return;
        }
        let mut touches = self.spare.pop().unwrap_or_default();
        touches.clear();
        touches.extend_from_slice(&builder.touches);
        self.held += touches.len();
        self.ticks.push_back(TickTouches { tick, touches });
        builder.clear();
    }

    /// Drops the ticks up to and including `tick`.
    pub(crate) fn drop_through(&mut self, tick: u64) {
        while let Some(front) = self.ticks.front()
            && front.tick <= tick
        {
            let front = self.ticks.pop_front().expect("checked");
            self.held -= front.touches.len();
            self.spare.push(front.touches);
        }
        self.dropped_through = self.dropped_through.max(tick);
    }

    /// Touches held over all ticks.
    pub(crate) fn held(&self) -> usize {
        self.held
    }

    /// The tick of the oldest kept touches.
    pub(crate) fn oldest(&self) -> Option<u64> {
        self.ticks.front().map(|t| t.tick)
    }

    /// The touches of the ticks in `(from, to]`, oldest first, tick by tick.
    pub(crate) fn window(&self, from: u64, to: u64) -> impl Iterator<Item = &[Touch]> + '_ {
        let start = self.ticks.partition_point(|t| t.tick <= from);
        self.ticks.range(start..).take_while(move |t| t.tick <= to).map(|t| t.touches.as_slice())
    }

    /// Bytes the journal holds.
    pub(crate) fn bytes(&self) -> usize {
        let buffers: usize = self.ticks.iter().map(|t| t.touches.capacity()).sum::<usize>()
            + self.spare.iter().map(Vec::capacity).sum::<usize>();
        buffers * size_of::<Touch>() + self.ticks.capacity() * size_of::<TickTouches>()
    }
}

/// Merges the touches of several ticks (and re-sends), each entity once, in the order
/// each was first touched.
#[derive(Default)]
pub(crate) struct Merger {
    builder: TickBuilder,
}

impl Merger {
    pub(crate) fn clear(&mut self) {
        self.builder.clear();
    }

    pub(crate) fn add(&mut self, touch: &Touch) {
        self.builder.touch(touch.entity).merge(touch);
    }

    pub(crate) fn touches(&self) -> &[Touch] {
        &self.builder.touches
    }
}
