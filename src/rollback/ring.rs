//! A track's records: the kept frames' records (oldest first), the undone ones that
//! can be redone, and spare buffers, so that records are reused around the ring and
//! steady frames allocate nothing.

use std::collections::{VecDeque, vec_deque};

/// A record of one frame: buffers that can be emptied and reused.
pub(crate) trait Reusable: Default {
    /// Empties the record, keeping its buffers.
    fn clear(&mut self);
    /// Whether the record holds nothing.
    fn is_empty(&self) -> bool;
}

impl<T> Reusable for Vec<T> {
    fn clear(&mut self) {
        Vec::clear(self);
    }

    fn is_empty(&self) -> bool {
        Vec::is_empty(self)
    }
}

/// The records of one track.
pub(crate) struct Ring<R> {
    kept: VecDeque<R>,
    redo: Vec<R>,
    spare: Vec<R>,
}

impl<R> Default for Ring<R> {
    fn default() -> Self {
        Ring { kept: VecDeque::new(), redo: Vec::new(), spare: Vec::new() }
    }
}

impl<R: Reusable> Ring<R> {
    /// An empty record, reused if one is spare.
    pub(crate) fn fresh(&mut self) -> R {
        self.spare.pop().unwrap_or_default()
    }

    /// Makes `record` the newest kept.
    pub(crate) fn push(&mut self, record: R) {
        self.kept.push_back(record);
    }

    pub(crate) fn newest_is_empty(&self) -> bool {
        self.kept.back().is_none_or(R::is_empty)
    }

    /// The newest kept record.
    pub(crate) fn newest(&self) -> Option<&R> {
        self.kept.back()
    }

    /// The newest `n` kept records, newest first.
    pub(crate) fn newest_n(&self, n: usize) -> impl Iterator<Item = &R> {
        self.kept.iter().rev().take(n)
    }

    /// The record [`redo`](Self::redo) would redo.
    pub(crate) fn next_redo(&self) -> Option<&R> {
        self.redo.last()
    }

    /// Empties `record` and keeps its buffers for later.
    pub(crate) fn recycle(&mut self, mut record: R) {
        record.clear();
        self.spare.push(record);
    }

    /// The newest `n` kept records (fewer if fewer are kept), oldest first, for reading
    /// before [`drop_newest`](Self::drop_newest) forgets them.
    pub(crate) fn newest_mut(&mut self, n: usize) -> vec_deque::IterMut<'_, R> {
        let first = self.kept.len() - n.min(self.kept.len());
        self.kept.range_mut(first..)
    }

    /// Forgets the newest `n` kept records.
    pub(crate) fn drop_newest(&mut self, n: usize) {
        let first = self.kept.len() - n.min(self.kept.len());
        for mut record in self.kept.drain(first..) {
            record.clear();
            self.spare.push(record);
        }
    }

    /// Undoes the newest `n` kept records one by one, newest first: `swap` swaps a
    /// record's values into the shadow, writing those it replaced into a fresh record,
    /// which goes onto the redo stack.
    pub(crate) fn undo_kept(&mut self, n: usize, mut swap: impl FnMut(&mut R, &mut R)) {
        for _ in 0..n {
            let Some(mut record) = self.kept.pop_back() else { return };
            let mut replaced = self.fresh();
            swap(&mut record, &mut replaced);
            self.recycle(record);
            self.redo.push(replaced);
        }
    }

    /// [`undo_kept`](Self::undo_kept) if `keep`, else [`undo_dropped`](Self::undo_dropped).
    pub(crate) fn undo(&mut self, n: usize, keep: bool, swap: impl FnMut(&mut R, &mut R)) {
        if keep { self.undo_kept(n, swap) } else { self.undo_dropped(n, swap) }
    }

    /// [`undo_kept`](Self::undo_kept), forgetting the records of what was replaced.
    pub(crate) fn undo_dropped(&mut self, n: usize, mut swap: impl FnMut(&mut R, &mut R)) {
        let mut replaced = self.fresh();
        for _ in 0..n {
            let Some(mut record) = self.kept.pop_back() else { break };
            swap(&mut record, &mut replaced);
            replaced.clear();
            self.recycle(record);
        }
        self.recycle(replaced);
    }

    /// Redoes the record undone last, as [`undo_kept`](Self::undo_kept) undid it: the
    /// record of what it replaced becomes the newest kept.
    pub(crate) fn redo(&mut self, swap: impl FnOnce(&mut R, &mut R)) {
        let Some(mut record) = self.redo.pop() else { return };
        let mut replaced = self.fresh();
        swap(&mut record, &mut replaced);
        self.recycle(record);
        self.kept.push_back(replaced);
    }

    /// Forgets every record that could be redone.
    pub(crate) fn clear_redo(&mut self) {
        while let Some(record) = self.redo.pop() {
            self.recycle(record);
        }
    }

    /// Forgets the oldest kept record.
    pub(crate) fn forget_oldest(&mut self) {
        if let Some(record) = self.kept.pop_front() {
            self.recycle(record);
        }
    }

    /// The records in use: kept and redoable.
    pub(crate) fn in_use(&self) -> impl Iterator<Item = &R> + Clone {
        self.kept.iter().chain(&self.redo)
    }

    /// Every record, spare ones too.
    pub(crate) fn all(&self) -> impl Iterator<Item = &R> {
        self.in_use().chain(&self.spare)
    }
}

/// What a track's ring does without knowing its records' type: for the steps every
/// track takes alike (see [`Track::kept`](super::track::Track::kept)).
pub(crate) trait Kept {
    fn newest_is_empty(&self) -> bool;
    fn clear_redo(&mut self);
    fn forget_oldest(&mut self);
}

impl<R: Reusable> Kept for Ring<R> {
    fn newest_is_empty(&self) -> bool {
        Ring::newest_is_empty(self)
    }

    fn clear_redo(&mut self) {
        Ring::clear_redo(self);
    }

    fn forget_oldest(&mut self) {
        Ring::forget_oldest(self);
    }
}
