//! What a world keeps on behalf of change readers and callers that may never come back
//! for it — the log of structural changes, the removal logs, failed commands — the
//! limits that bound it, and [`BacklogMemory`], which reports it.
//!
//! Exactness for a reader that keeps up costs nothing beyond what it has not read yet.
//! A reader that never runs would otherwise make the world keep every structural
//! change and removal forever; past the limit the world forgets the oldest and tells
//! the reader, which then falls back on what it can still see (a `Dirty` query takes
//! every matching entity as dirty, as on its first run).

use crate::error::CommandError;
use crate::world::World;

/// The most failed commands a world keeps undrained (see
/// [`World::failed_commands`]).
pub const MAX_FAILED_COMMANDS: usize = 1024;

/// How many records the world's logs keep, by default, for readers that fall behind
/// (see [`World::set_change_log_limit`]).
pub const DEFAULT_CHANGE_LOG_LIMIT: usize = crate::change::log::DEFAULT_LIMIT;

/// Records kept in one kind of log, and the bytes its buffers reserve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogMemory {
    /// Records kept, not yet read by every reader that may read them.
    pub records: usize,
    /// Bytes reserved for them (capacity, not only length).
    pub bytes: usize,
}

/// What a world holds for change readers that have not caught up (its backlog), and
/// for failed commands nobody drained ([`World::backlog_memory`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BacklogMemory {
    /// Structural changes (spawns, despawns, components added or removed) kept for
    /// [`Dirty`](crate::query::Dirty) readers and for schedules' entity enter and exit
    /// callbacks.
    pub structural_changes: LogMemory,
    /// Removals kept for [`RemovedReader`](crate::RemovedReader)s, all component
    /// types together.
    pub removals: LogMemory,
    /// Failed commands kept until drained ([`World::failed_commands`]).
    pub failed_commands: LogMemory,
}

impl BacklogMemory {
    /// The bytes of all of it.
    pub fn bytes(&self) -> usize {
        self.structural_changes.bytes + self.removals.bytes + self.failed_commands.bytes
    }
}

impl World {
    /// Bounds what the world keeps for readers that fall behind: at most `records`
    /// structural changes for [`Dirty`](crate::query::Dirty) readers, and at most `records`
    /// removals per component type for [`RemovedReader`](crate::RemovedReader)s
    /// (default [`DEFAULT_CHANGE_LOG_LIMIT`]; at least 64). A structural change takes 32
    /// bytes and a removal 12, so at the default limit an idle `Dirty` reader holds at
    /// most 32 MiB and an idle removal reader 12 MiB per component type.
    ///
    /// A reader that keeps up never meets the limit. One that falls further behind
    /// misses the oldest records, and knows it: a `Dirty` reader's next run takes
    /// every matching entity as dirty (as its first run does), so it still reports
    /// every entity it must, and more; a removal reader's next read reports how many it
    /// missed ([`Removals::missed`](crate::Removals::missed)). A schedule's entity
    /// enter and exit callbacks are exact whatever the limit: the world keeps what
    /// they need until the schedule's next run.
    ///
    /// ```
    /// use ripple::prelude::*;
    /// struct Hp(u32);
    /// let mut world = World::new();
    /// world.set_change_log_limit(1_000);
    /// let mut idle = world.removal_reader::<Hp>();
    /// for i in 0..10_000 {
    ///     let e = world.spawn((Hp(i),));
    ///     world.despawn(e).unwrap();
    /// }
    /// assert!(world.backlog_memory().removals.records <= 1_000);
    /// let removals = idle.read(&world);
    /// assert_eq!(removals.missed() + removals.len() as u64, 10_000);
    /// ```
    pub fn set_change_log_limit(&mut self, records: usize) {
        self.moves.set_limit(records);
        for log in &mut self.removals {
            log.set_limit(records);
        }
    }

    /// The limit set with [`set_change_log_limit`](Self::set_change_log_limit) (raised
    /// to 64 if it was set lower).
    pub fn change_log_limit(&self) -> usize {
        self.moves.limit()
    }

    /// What the world holds for change readers that have not caught up yet, and for
    /// failed commands not drained: records and bytes. It stays within the
    /// [change-log limit](Self::set_change_log_limit) and
    /// [`MAX_FAILED_COMMANDS`] however long a reader idles, except for the changes a
    /// schedule's enter and exit callbacks wait for.
    pub fn backlog_memory(&self) -> BacklogMemory {
        let (records, bytes) = self.moves.held();
        let structural_changes = LogMemory { records, bytes };
        let removals =
            self.removals.iter().map(|log| log.held()).fold(LogMemory::default(), |sum, (records, bytes)| LogMemory {
                records: sum.records + records,
                bytes: sum.bytes + bytes,
            });
        let failed = &self.failed_commands.records;
        let failed_commands = LogMemory { records: failed.len(), bytes: failed.capacity() * size_of::<CommandError>() };
        BacklogMemory { structural_changes, removals, failed_commands }
    }

    /// Records a deferred command that could not be applied (commands call this
    /// instead of panicking). The world keeps the most recent failures only (see
    /// [`failed_commands`](Self::failed_commands)), so a game that never drains them
    /// does not grow without bound; [`failed_command_count`](Self::failed_command_count)
    /// counts them all.
    pub fn record_failed_command(&mut self, error: CommandError) {
        let failed = &mut self.failed_commands;
        failed.count += 1;
        if failed.records.len() == MAX_FAILED_COMMANDS {
            // Forget the older half at once, so that each record costs O(1) amortized.
            failed.records.drain(..MAX_FAILED_COMMANDS / 2);
        }
        failed.records.push(error);
    }

    /// The deferred commands that failed since the last
    /// [`drain_failed_commands`](Self::drain_failed_commands), oldest first: all of
    /// them, or, past [`MAX_FAILED_COMMANDS`], the most recent (at least half that
    /// many); compare [`failed_command_count`](Self::failed_command_count) to tell.
    pub fn failed_commands(&self) -> &[CommandError] {
        &self.failed_commands.records
    }

    /// How many deferred commands have failed in this world's lifetime.
    pub fn failed_command_count(&self) -> u64 {
        self.failed_commands.count
    }

    /// Takes the recorded failures out, oldest first, keeping the buffer's capacity.
    pub fn drain_failed_commands(&mut self) -> impl Iterator<Item = CommandError> + '_ {
        self.failed_commands.records.drain(..)
    }
}

/// The former name of [`BacklogMemory`].
#[deprecated(note = "renamed `BacklogMemory`: it reports what change readers have not read, not observers")]
pub type ObserverMemory = BacklogMemory;

impl World {
    /// The former name of [`backlog_memory`](Self::backlog_memory).
    #[deprecated(note = "renamed `backlog_memory`")]
    pub fn observer_memory(&self) -> BacklogMemory {
        self.backlog_memory()
    }
}
