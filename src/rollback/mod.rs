//! Rollback, prediction and undo at the cost of what changed.
//!
//! A [`Rollback`] keeps the last `R` frames of the state you register: component
//! values (typed, relations with the order of their lists), resources, and which
//! entities exist. [`Rollback::checkpoint`] records only what changed since the
//! previous checkpoint, found through change tracking: **O(changed)** time, and memory
//! per frame of one slot index (4 bytes) beside each changed value.
//! [`Rollback::rollback_to`] returns the world to a kept frame at **O(changed since
//! that frame)**:
//!
//! - every registered value, resource and relation is as it was (lists in their order);
//! - entities despawned since come back under **their own handles**, with their
//!   registered components; entities spawned since are despawned, and their handles
//!   stay stale for good (never another entity);
//! - change detection stays honest: only values that differ from the world before the
//!   rollback are written, so `Changed`, `OnChange` and the rest report exactly those,
//!   `Added` reports what came back, and removal streams report what the rollback
//!   removed.
//!
//! [`Rollback::resimulate`] rolls back and runs your step again for each frame up to
//! the present (prediction with corrected inputs); [`Rollback::checksum`] gives each
//! frame an order-independent checksum of the registered state, kept up to date at
//! O(changed), for desync detection between peers. [`UndoHistory`] puts undo and redo
//! of named edits on the same mechanism.
//!
//! # Costs
//! Registering a component copies its values once (the *shadow*: the registered state
//! as of the newest checkpoint, one `Option<T>` per entity slot); the existence shadow
//! is 4 bytes per slot. A checkpoint then costs what changed since the previous one,
//! and its record holds, per changed value, the slot (4 bytes) and the value it
//! replaced; records are reused around the ring, so steady frames allocate nothing.
//! Values the rollback writes back go through the world's normal paths (hooks and
//! observers run).
//!
//! What is not registered is not restored: an entity that comes back has its
//! registered components only, and values of other components stay as they are.
//!
//! ```
//! use ripple::World;
//! use ripple::rollback::Rollback;
//!
//! #[derive(Clone, PartialEq, Debug)]
//! struct Health(u32);
//!
//! let mut world = World::new();
//! let hero = world.spawn((Health(10),));
//! let mut rollback = Rollback::new(&mut world, 8);
//! rollback.register::<Health>(&mut world);
//! let start = rollback.checkpoint(&world);
//!
//! world.get_mut::<Health>(hero).unwrap().0 = 3;
//! let minion = world.spawn((Health(1),));
//! world.despawn(hero).unwrap();
//! rollback.checkpoint(&world);
//!
//! rollback.rollback_to(&mut world, start).unwrap();
//! assert_eq!(world.get::<Health>(hero), Ok(&Health(10))); // the same handle
//! assert!(!world.contains(minion)); // stale for good
//! ```

mod component;
mod error;
mod existence;
mod related_order;
mod resource;
mod ring;
mod row_slots;
mod runtime;
mod track;
mod undo;

pub use error::RollbackError;
pub use undo::{UNCOMMITTED, UndoHistory};

use std::any::TypeId;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

use crate::component::{Component, ComponentId};
use crate::relation::Relation;
use crate::util::hash::{GOLDEN, IdHasher};
use crate::world::{World, WorldId};

use component::{ComponentTrack, Write};
use existence::{Existence, Respawned};
use related_order::RelatedOrderTrack;
use resource::{ResourceTrack, TypedResource};
use runtime::RuntimeTrack;
use track::{Phase, RecordBytes, Track};

/// A frame number: [`Rollback::new`] is frame 0, each checkpoint the next.
pub type Frame = u64;

/// A hash of `value` that is the same in every run and on every machine with the
/// same `Hash` implementation: for [`Rollback::register_with_checksum`] and the
/// checksums of values that are not `Hash` (hash their fields, floats through
/// `to_bits`).
pub fn stable_hash<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut hasher = IdHasher::default();
    value.hash(&mut hasher);
    // One more round, so that sums of hashes of small values spread over all bits.
    (hasher.finish() ^ GOLDEN).wrapping_mul(GOLDEN).rotate_left(29)
}

/// What a rollback (or an undo or redo) did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RollbackStats {
    /// Frames undone.
    pub frames: usize,
    /// Entities despawned (spawned after the frame).
    pub despawned: usize,
    /// Entities brought back under their own handles.
    pub revived: usize,
    /// Entities that could not come back: their slot was retired after 2^32 reuses.
    pub lost: usize,
    /// Component values and relation lists written, inserted or removed.
    pub values: usize,
    /// Resources written, inserted or removed.
    pub resources: usize,
}

/// The memory a [`Rollback`] holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RollbackMemory {
    /// Bytes of the records in use: per changed value its slot and previous value,
    /// per spawn or despawn 8 bytes.
    pub recorded: usize,
    /// Bytes reserved by all record buffers (in use and spare, reused around the ring).
    pub reserved: usize,
    /// Bytes of the shadows: the registered state as of the newest checkpoint.
    pub shadow: usize,
    /// Frames kept (checkpoints that can be rolled back to, the newest included).
    pub frames: usize,
}

/// The last frames of a world's registered state, kept at the cost of what changed;
/// see the [module documentation](self).
pub struct Rollback {
    world: WorldId,
    capacity: usize,
    existence: Existence,
    tracks: Vec<Box<dyn Track>>,
    resources: Vec<Box<dyn ResourceTrack>>,
    registered: Vec<TypeId>,
    /// Runtime components registered.
    runtime: Vec<ComponentId>,
    /// The newest checkpoint's frame.
    latest: Frame,
    /// Records in the ring: frames `latest - kept ..= latest` can be returned to.
    kept: usize,
    /// Checksums of the kept frames, oldest first.
    checksums: VecDeque<u64>,
    /// Frames undone by [`UndoHistory::undo`] that can be redone.
    redoable: usize,
}

impl std::fmt::Debug for Rollback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> =
            self.tracks.iter().map(|t| t.name()).chain(self.resources.iter().map(|r| r.name())).collect();
        f.debug_struct("Rollback")
            .field("frame", &self.latest)
            .field("kept", &self.kept)
            .field("capacity", &self.capacity)
            .field("tracked", &names)
            .finish()
    }
}

impl Rollback {
    /// A rollback of `world` keeping the last `frames` frames (at least 1) besides the
    /// newest; the world as it is becomes frame 0. O(entity slots) (the existence
    /// shadow). Register what it keeps next.
    ///
    /// Until each checkpoint reads them, the world keeps its structural changes (spawns,
    /// despawns, moves between tables) for the rollback, 32 bytes each: checkpoint every
    /// frame, or drop the rollback when it is no longer used.
    pub fn new(world: &mut World, frames: usize) -> Rollback {
        let existence = Existence::new(world);
        let mut rollback = Rollback {
            world: world.id(),
            capacity: frames.max(1),
            existence,
            tracks: Vec::new(),
            resources: Vec::new(),
            registered: Vec::new(),
            runtime: Vec::new(),
            latest: 0,
            kept: 0,
            checksums: VecDeque::new(),
            redoable: 0,
        };
        rollback.checksums.push_back(rollback.checksum_now());
        rollback
    }

    /// Keeps component `T`'s values. Registering forgets the frames kept so far: the
    /// world as it is becomes the oldest (frame numbers go on). O(entities with `T`).
    ///
    /// # Panics
    /// If `world` is not the world this rollback was made for.
    #[track_caller]
    pub fn register<T: Component + Clone + PartialEq>(&mut self, world: &mut World) -> &mut Self {
        self.register_component::<T>(world, None)
    }

    /// [`register`](Self::register), with `T`'s values in the [checksum](Self::checksum)
    /// through [`stable_hash`].
    #[track_caller]
    pub fn register_hashed<T: Component + Clone + PartialEq + Hash>(&mut self, world: &mut World) -> &mut Self {
        self.register_component::<T>(world, Some(|value: &T| stable_hash(value)))
    }

    /// [`register`](Self::register), with `hash` of each value in the
    /// [checksum](Self::checksum) (for values that are not `Hash`, such as floats).
    #[track_caller]
    pub fn register_with_checksum<T: Component + Clone + PartialEq>(
        &mut self,
        world: &mut World,
        hash: fn(&T) -> u64,
    ) -> &mut Self {
        self.register_component::<T>(world, Some(hash))
    }

    #[track_caller]
    fn register_component<T: Component + Clone + PartialEq>(
        &mut self,
        world: &mut World,
        hash: Option<fn(&T) -> u64>,
    ) -> &mut Self {
        self.check_world(world);
        if !self.first_registration::<T>() {
            return self;
        }
        self.capture_all(world);
        let write = if world.is_immutable::<T>() { Write::Insert } else { Write::InPlace };
        self.tracks.push(Box::new(ComponentTrack::<T>::new(world, write, Phase::Values, hash)));
        self.restart();
        self
    }

    /// Keeps runtime component `id`'s values (plain bytes: registered with a
    /// [`ComponentDescriptor`](crate::dynamic::ComponentDescriptor) without a drop
    /// function), with a hash of the bytes in the [checksum](Self::checksum) if
    /// `checksum`. Forgets the frames kept so far, as [`register`](Self::register) does.
    ///
    /// # Errors
    /// [`RollbackError::UnknownComponent`], [`RollbackError::Typed`] for a Rust type's
    /// id, [`RollbackError::NotPlainData`] for a component with a drop function;
    /// nothing is registered.
    #[track_caller]
    pub fn register_by_id(
        &mut self,
        world: &mut World,
        id: ComponentId,
        checksum: bool,
    ) -> Result<&mut Self, RollbackError> {
        self.check_world(world);
        match world.runtime_component(id) {
            Err(crate::dynamic::DynamicError::Typed { component }) => return Err(RollbackError::Typed { component }),
            Err(_) => return Err(RollbackError::UnknownComponent(id)),
            Ok(component) => {
                if world.components.info(id).blob.is_some_and(|shape| shape.drop.is_some()) {
                    return Err(RollbackError::NotPlainData { component });
                }
            }
        }
        if self.runtime.contains(&id) {
            return Ok(self);
        }
        self.runtime.push(id);
        self.capture_all(world);
        self.tracks.push(Box::new(RuntimeTrack::new(world, id, checksum)));
        self.restart();
        Ok(self)
    }

    /// Keeps relation `R` (registering it with the world if needed): each source's
    /// relation, and the order of each target's [`Related<R>`](crate::relation::Related)
    /// list. Forgets the frames kept so far, as [`register`](Self::register) does.
    #[track_caller]
    pub fn register_relation<R: Relation + Clone + PartialEq>(&mut self, world: &mut World) -> &mut Self {
        self.check_world(world);
        if !self.first_registration::<R>() {
            return self;
        }
        world.register_relation::<R>();
        self.capture_all(world);
        self.tracks.push(Box::new(ComponentTrack::<R>::new(world, Write::Insert, Phase::Relations, None)));
        self.tracks.push(Box::new(RelatedOrderTrack::<R>::new(world)));
        self.restart();
        self
    }

    /// Keeps resource `R`: compared with its kept value at each checkpoint (resources
    /// carry no change ticks), O(1) per resource. Forgets the frames kept so far.
    #[track_caller]
    pub fn register_resource<R: Clone + PartialEq + Send + Sync + 'static>(&mut self, world: &mut World) -> &mut Self {
        self.register_typed_resource::<R>(world, None)
    }

    /// [`register_resource`](Self::register_resource), with `hash` of its value in the
    /// [checksum](Self::checksum).
    #[track_caller]
    pub fn register_resource_with_checksum<R: Clone + PartialEq + Send + Sync + 'static>(
        &mut self,
        world: &mut World,
        hash: fn(&R) -> u64,
    ) -> &mut Self {
        self.register_typed_resource::<R>(world, Some(hash))
    }

    #[track_caller]
    fn register_typed_resource<R: Clone + PartialEq + Send + Sync + 'static>(
        &mut self,
        world: &mut World,
        hash: Option<fn(&R) -> u64>,
    ) -> &mut Self {
        self.check_world(world);
        if !self.first_registration::<(R, ResourceMark)>() {
            return self;
        }
        self.capture_all(world);
        self.resources.push(Box::new(TypedResource::<R>::new(world, hash)));
        self.restart();
        self
    }

    fn first_registration<T: 'static>(&mut self) -> bool {
        let id = TypeId::of::<T>();
        if self.registered.contains(&id) {
            return false;
        }
        self.registered.push(id);
        true
    }

    /// Forgets every record: the shadows (brought up to the world) become the oldest
    /// and newest kept frame.
    fn restart(&mut self) {
        for _ in 0..=self.kept {
            self.forget_oldest_all();
        }
        self.clear_redo_all();
        self.kept = 0;
        self.checksums.clear();
        self.checksums.push_back(self.checksum_now());
    }

    /// Records what changed since the previous checkpoint as the next frame, and
    /// returns its number. O(what changed); forgets the oldest frame once `frames`
    /// are kept. Entities reserved and not yet flushed count from the next checkpoint.
    ///
    /// # Panics
    /// If `world` is not the world this rollback was made for.
    #[track_caller]
    pub fn checkpoint(&mut self, world: &World) -> Frame {
        self.check_world(world);
        self.capture_all(world);
        self.push_frame()
    }

    /// Makes the record just captured the newest frame.
    fn push_frame(&mut self) -> Frame {
        self.clear_redo_all();
        self.latest += 1;
        self.kept += 1;
        if self.kept > self.capacity {
            self.forget_oldest_all();
            self.kept -= 1;
            self.checksums.pop_front();
        }
        self.checksums.push_back(self.checksum_now());
        self.latest
    }

    /// [`checkpoint`](Self::checkpoint) if anything registered changed since the newest
    /// checkpoint; else changes nothing and returns `None`.
    fn checkpoint_if_changed(&mut self, world: &World) -> Option<Frame> {
        self.check_world(world);
        self.capture_all(world);
        if self.newest_is_empty() {
            // An empty record undoes nothing: dropping it touches no slot.
            self.unwind_all(1, false);
            return None;
        }
        Some(self.push_frame())
    }

    /// Returns the world to kept frame `frame` (see the [module documentation](self)),
    /// including changes made since the newest checkpoint; the frames after it are
    /// forgotten and the next checkpoint is `frame + 1`. O(what changed since `frame`).
    ///
    /// Values are written back in order: relations that differ are taken off first,
    /// then entities spawned since are despawned and those despawned since come back,
    /// then values, relations and the order of relation lists are restored, then
    /// resources. Hooks and observers run as for any such change.
    ///
    /// # Errors
    /// [`RollbackError::FrameNotKept`] if `frame` is older than the oldest kept or newer
    /// than the newest; nothing changes.
    ///
    /// # Panics
    /// If `world` is not the world this rollback was made for.
    #[track_caller]
    pub fn rollback_to(&mut self, world: &mut World, frame: Frame) -> Result<RollbackStats, RollbackError> {
        self.check_world(world);
        if frame > self.latest || frame < self.oldest_frame() {
            return Err(RollbackError::FrameNotKept { frame, oldest: self.oldest_frame(), newest: self.latest });
        }
        world.flush_reserved();
        self.capture_all(world);
        let n = (self.latest - frame) as usize;
        self.unwind_all(n + 1, false);
        // The shadows hold `frame` from here on: if a hook or observer panics while the
        // world is written, the next checkpoint records what the world then holds as
        // changes since `frame`, and nothing kept is lost.
        self.kept -= n;
        self.latest = frame;
        self.checksums.truncate(self.kept + 1);
        let mut stats = self.write_back(world);
        stats.frames = n;
        Ok(stats)
    }

    /// Rolls back to `frame`, then for each frame after it up to the newest calls
    /// `step` (with the world and the frame being simulated) and checkpoints: a
    /// re-simulation with corrected inputs. Returns what the rollback did.
    ///
    /// # Errors
    /// As [`rollback_to`](Self::rollback_to); nothing is run.
    #[track_caller]
    pub fn resimulate(
        &mut self,
        world: &mut World,
        frame: Frame,
        mut step: impl FnMut(&mut World, Frame),
    ) -> Result<RollbackStats, RollbackError> {
        let until = self.latest;
        let stats = self.rollback_to(world, frame)?;
        for next in frame + 1..=until {
            step(world, next);
            self.checkpoint(world);
        }
        Ok(stats)
    }

    /// The newest checkpoint's frame.
    pub fn frame(&self) -> Frame {
        self.latest
    }

    /// The oldest frame [`rollback_to`](Self::rollback_to) can return to.
    pub fn oldest_frame(&self) -> Frame {
        self.latest - self.kept as Frame
    }

    /// Frames kept besides the newest, at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The checksum of kept frame `frame`'s registered state, `None` if it is not kept.
    /// It sums a hash of every value of the components and resources registered with
    /// a checksum, per type, so it does not depend on the order of entities, tables
    /// or storage, nor on entity handles (peers whose handles differ after rollbacks
    /// compare equal); it does depend on the order of registration.
    pub fn checksum(&self, frame: Frame) -> Option<u64> {
        let index = frame.checked_sub(self.oldest_frame())?;
        self.checksums.get(usize::try_from(index).ok()?).copied()
    }

    /// The memory this rollback holds.
    pub fn memory(&self) -> RollbackMemory {
        let mut bytes = RecordBytes::default();
        for track in &self.tracks {
            bytes += track.bytes();
        }
        let (recorded, reserved) = self.existence.record_bytes();
        let resources: usize = self.resources.iter().map(|r| r.bytes()).sum();
        RollbackMemory {
            recorded: bytes.recorded + recorded + resources,
            reserved: bytes.reserved + reserved + resources,
            shadow: bytes.shadow + self.existence.shadow_bytes(),
            frames: self.kept + 1,
        }
    }

    #[track_caller]
    fn check_world(&self, world: &World) {
        assert!(self.world == world.id(), "a Rollback used with a World other than the one it was made for");
    }

    fn checksum_now(&self) -> u64 {
        let sums = self.tracks.iter().map(|t| t.checksum()).chain(self.resources.iter().map(|r| r.checksum()));
        sums.fold(0, |h, sum| (h.rotate_left(5) ^ sum).wrapping_mul(GOLDEN))
    }

    fn capture_all(&mut self, world: &World) {
        self.existence.capture(world);
        let moved = self.existence.moved();
        for track in &mut self.tracks {
            track.capture(world, moved);
        }
        for resource in &mut self.resources {
            resource.capture(world);
        }
    }

    fn newest_is_empty(&self) -> bool {
        self.existence.newest_is_empty()
            && self.tracks.iter().all(|t| t.newest_is_empty())
            && self.resources.iter().all(|r| r.newest_is_empty())
    }

    fn unwind_all(&mut self, n: usize, keep: bool) {
        self.existence.unwind(n, keep);
        for track in &mut self.tracks {
            track.unwind(n, keep);
        }
        for resource in &mut self.resources {
            resource.unwind(n, keep);
        }
    }

    /// Undoes the newest kept frame, keeping it for [`redo_newest`](Self::redo_newest);
    /// `None` if no frame before the newest is kept.
    fn undo_newest(&mut self, world: &mut World) -> Option<RollbackStats> {
        if self.kept == 0 {
            return None;
        }
        self.unwind_all(1, true);
        self.redoable += 1;
        // Bookkeeping first, as in `rollback_to`.
        self.kept -= 1;
        self.latest -= 1;
        self.checksums.pop_back();
        let mut stats = self.write_back(world);
        stats.frames = 1;
        Some(stats)
    }

    /// Redoes the frame undone last; `None` if there is none.
    fn redo_newest(&mut self, world: &mut World) -> Option<RollbackStats> {
        if self.redoable == 0 {
            return None;
        }
        self.redoable -= 1;
        self.redo_all();
        // Bookkeeping first, as in `rollback_to`.
        self.kept += 1;
        self.latest += 1;
        self.checksums.push_back(self.checksum_now());
        let mut stats = self.write_back(world);
        stats.frames = 1;
        Some(stats)
    }

    fn redo_all(&mut self) {
        self.existence.redo();
        for track in &mut self.tracks {
            track.redo();
        }
        for resource in &mut self.resources {
            resource.redo();
        }
    }

    fn clear_redo_all(&mut self) {
        self.redoable = 0;
        self.existence.clear_redo();
        for track in &mut self.tracks {
            track.clear_redo();
        }
        for resource in &mut self.resources {
            resource.clear_redo();
        }
    }

    fn forget_oldest_all(&mut self) {
        self.existence.forget_oldest();
        for track in &mut self.tracks {
            track.forget_oldest();
        }
        for resource in &mut self.resources {
            resource.forget_oldest();
        }
    }

    /// Writes the shadows back where the world differs, in the slots the last unwind
    /// or redo touched.
    fn write_back(&mut self, world: &mut World) -> RollbackStats {
        for track in &mut self.tracks {
            track.detach(world, &self.existence);
        }
        let mut respawned = Respawned::default();
        self.existence.despawn_extra(world, &mut respawned);
        self.existence.revive_missing(world, &mut respawned);
        let mut values = 0;
        for phase in [Phase::Values, Phase::Relations, Phase::Orders] {
            for track in &mut self.tracks {
                values += track.restore(world, &self.existence, phase);
            }
        }
        let resources = self.resources.iter_mut().filter_map(|r| r.restore(world).then_some(())).count();
        RollbackStats {
            frames: 0,
            despawned: respawned.despawned,
            revived: respawned.revived,
            lost: respawned.lost,
            values,
            resources,
        }
    }
}

/// Keeps a resource type's registration apart from a component of the same type.
struct ResourceMark;
