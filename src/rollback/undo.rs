//! Undo and redo of named edits, for editors: each committed edit is a frame of a
//! [`Rollback`], and undoing it keeps its record to redo it.

use std::collections::VecDeque;
use std::hash::Hash;

use crate::component::Component;
use crate::relation::Relation;
use crate::world::World;

use super::{Rollback, RollbackStats};

/// Undo and redo over named edits, at O(edit size) each.
///
/// Register what edits may change, then [`commit`](Self::commit) after each edit.
/// [`undo`](Self::undo) returns the world to before the newest edit (entities it
/// despawned come back under their own handles, those it spawned are despawned);
/// [`redo`](Self::redo) does it again (the same handles come back). A commit after an
/// undo forgets what could be redone. The oldest edits are forgotten past the limit.
///
/// ```
/// use ripple::World;
/// use ripple::rollback::UndoHistory;
///
/// #[derive(Clone, PartialEq, Debug)]
/// struct Name(&'static str);
///
/// let mut world = World::new();
/// let mut history = UndoHistory::new(&mut world, 100);
/// history.register::<Name>(&mut world);
///
/// let door = world.spawn((Name("door"),));
/// history.commit(&world, "add door");
/// world.get_mut::<Name>(door).unwrap().0 = "gate";
/// history.commit(&world, "rename");
///
/// assert_eq!(history.undo(&mut world).as_deref(), Some("rename"));
/// assert_eq!(world.get::<Name>(door), Ok(&Name("door")));
/// assert_eq!(history.undo(&mut world).as_deref(), Some("add door"));
/// assert!(!world.contains(door));
/// assert_eq!(history.redo(&mut world).as_deref(), Some("add door"));
/// assert_eq!(world.get::<Name>(door), Ok(&Name("door"))); // the same handle
/// ```
#[derive(Debug)]
pub struct UndoHistory {
    rollback: Rollback,
    /// Names of the committed edits that can be undone, oldest first.
    done: VecDeque<String>,
    /// Names of the undone edits that can be redone, the next to redo last.
    undone: Vec<String>,
    last: RollbackStats,
}

/// The name under which changes not committed are committed by an undo.
pub const UNCOMMITTED: &str = "uncommitted changes";

impl UndoHistory {
    /// A history of `world` keeping at most `limit` edits (at least 1). O(entity slots).
    pub fn new(world: &mut World, limit: usize) -> UndoHistory {
        UndoHistory {
            rollback: Rollback::new(world, limit),
            done: VecDeque::new(),
            undone: Vec::new(),
            last: RollbackStats::default(),
        }
    }

    /// Edits change component `T` (see [`Rollback::register`]). Forgets the history.
    #[track_caller]
    pub fn register<T: Component + Clone + PartialEq>(&mut self, world: &mut World) -> &mut Self {
        self.rollback.register::<T>(world);
        self.forget();
        self
    }

    /// [`register`](Self::register), for a `Hash` component (kept in the checksum).
    #[track_caller]
    pub fn register_hashed<T: Component + Clone + PartialEq + Hash>(&mut self, world: &mut World) -> &mut Self {
        self.rollback.register_hashed::<T>(world);
        self.forget();
        self
    }

    /// Edits change relation `R` (see [`Rollback::register_relation`]). Forgets the
    /// history.
    #[track_caller]
    pub fn register_relation<R: Relation + Clone + PartialEq>(&mut self, world: &mut World) -> &mut Self {
        self.rollback.register_relation::<R>(world);
        self.forget();
        self
    }

    /// Edits change resource `R` (see [`Rollback::register_resource`]). Forgets the
    /// history.
    #[track_caller]
    pub fn register_resource<R: Clone + PartialEq + Send + Sync + 'static>(&mut self, world: &mut World) -> &mut Self {
        self.rollback.register_resource::<R>(world);
        self.forget();
        self
    }

    fn forget(&mut self) {
        self.done.clear();
        self.undone.clear();
    }

    /// Records what changed since the last commit (or undo, or redo) as the edit
    /// `name`; returns `false`, recording nothing, if nothing registered changed.
    /// O(edit size). Forgets what could be redone.
    ///
    /// # Panics
    /// If `world` is not the world this history was made for.
    #[track_caller]
    pub fn commit(&mut self, world: &World, name: impl Into<String>) -> bool {
        if self.rollback.checkpoint_if_changed(world).is_none() {
            return false;
        }
        self.undone.clear();
        self.done.push_back(name.into());
        while self.done.len() > self.rollback.kept {
            self.done.pop_front();
        }
        true
    }

    /// Undoes the newest edit and returns its name, or `None` if there is none.
    /// Changes not committed are committed first, as an edit named [`UNCOMMITTED`],
    /// and that is the edit undone. O(edit size).
    #[track_caller]
    pub fn undo(&mut self, world: &mut World) -> Option<String> {
        world.flush_reserved();
        self.commit(world, UNCOMMITTED);
        self.last = self.rollback.undo_newest(world)?;
        let name = self.done.pop_back()?;
        self.undone.push(name.clone());
        Some(name)
    }

    /// Redoes the edit undone last and returns its name, or `None` if there is none.
    /// Changes not committed are committed first, which forgets what could be redone
    /// (then this returns `None`). O(edit size).
    #[track_caller]
    pub fn redo(&mut self, world: &mut World) -> Option<String> {
        world.flush_reserved();
        self.commit(world, UNCOMMITTED);
        self.last = self.rollback.redo_newest(world)?;
        let name = self.undone.pop()?;
        self.done.push_back(name.clone());
        Some(name)
    }

    /// Names of the edits that can be undone, oldest first.
    pub fn edits(&self) -> impl ExactSizeIterator<Item = &str> {
        self.done.iter().map(String::as_str)
    }

    /// Names of the edits that can be redone, the next to redo first.
    pub fn undone(&self) -> impl ExactSizeIterator<Item = &str> {
        self.undone.iter().rev().map(String::as_str)
    }

    /// What the last undo or redo did.
    pub fn last_stats(&self) -> RollbackStats {
        self.last
    }

    /// The rollback underneath, for its checksums and memory.
    pub fn rollback(&self) -> &Rollback {
        &self.rollback
    }
}
