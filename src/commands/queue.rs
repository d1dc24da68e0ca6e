//! [`CommandQueue`]: commands of any type, back to back in one byte buffer, applied in
//! the order they were pushed; and the [`Command`] trait they implement.

use std::mem::MaybeUninit;

use crate::world::World;

/// A change to the world, applied later with exclusive access.
///
/// Safe to implement: a command gets the world as `&mut World` at a sync point, when
/// no system runs, so nothing it does can race with anything, and the schedule
/// trusts nothing a command declares.
///
/// If `apply` panics, the commands queued after it are dropped unapplied (entities
/// their spawns reserved are freed) and the panic goes on to the caller of the sync
/// point; what the command changed before panicking stays, seen by observers as any
/// change.
pub trait Command: Send + 'static {
    /// Applies the command. Failures should be recorded with
    /// [`World::record_failed_command`] rather than panicking, as ripple's own
    /// commands record those they can detect (a stale entity, a missing component);
    /// what an operation documents as a panic (a bundle naming a type twice, a
    /// panicking hook or `Drop`) still panics.
    fn apply(self, world: &mut World);
}

impl<F: FnOnce(&mut World) + Send + 'static> Command for F {
    fn apply(self, world: &mut World) {
        self(world);
    }
}

/// Where one command lives in the byte buffer, and how to consume it.
#[derive(Clone, Copy)]
struct Entry {
    /// Reads the command at the pointer and applies it (`Some`) or drops it (`None`).
    consume: unsafe fn(*mut MaybeUninit<u8>, Option<&mut World>),
    offset: usize,
}

/// # Safety
/// `at` holds a `C` written by `CommandQueue::push` and not yet consumed.
unsafe fn consume<C: Command>(at: *mut MaybeUninit<u8>, world: Option<&mut World>) {
    // SAFETY: per the caller; the buffer has no alignment, hence the unaligned read.
    let command = unsafe { std::ptr::read_unaligned(at.cast::<C>()) };
    match world {
        Some(world) => command.apply(world),
        None => drop(command),
    }
}

/// A queue of commands of any types, applied in the order they were pushed.
#[derive(Default)]
pub struct CommandQueue {
    /// The commands' bytes, back to back, unaligned.
    bytes: Vec<MaybeUninit<u8>>,
    entries: Vec<Entry>,
}

// SAFETY: every command stored is `Send` (the `Command` bound), and the queue only
// hands them out by value.
unsafe impl Send for CommandQueue {}
// SAFETY: `&CommandQueue` gives no access to the commands.
unsafe impl Sync for CommandQueue {}

impl std::fmt::Debug for CommandQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandQueue").field("len", &self.entries.len()).finish()
    }
}

impl CommandQueue {
    /// Number of commands waiting.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no command is waiting.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Queues `command`.
    pub fn push<C: Command>(&mut self, command: C) {
        let offset = self.bytes.len();
        let size = std::mem::size_of::<C>();
        self.bytes.reserve(size);
        // SAFETY: `reserve` made room for `size` bytes past `offset`; the write is
        // unaligned because the buffer is; the bytes become part of the buffer's
        // length only once written.
        unsafe {
            std::ptr::write_unaligned(self.bytes.as_mut_ptr().add(offset).cast::<C>(), command);
            self.bytes.set_len(offset + size);
        }
        self.entries.push(Entry { consume: consume::<C>, offset });
    }

    /// Moves every command of `other` to the end of this queue, in order, leaving
    /// `other` empty (with its capacity).
    pub fn append(&mut self, other: &mut CommandQueue) {
        if other.entries.is_empty() {
            return;
        }
        let shift = self.bytes.len();
        // The bytes move as they are: a command is moved, not copied, because `other`
        // forgets it below (its lengths are zeroed, and `MaybeUninit` bytes and `Entry`
        // values drop nothing).
        self.bytes.extend_from_slice(&other.bytes);
        self.entries.extend(other.entries.iter().map(|entry| Entry { offset: entry.offset + shift, ..*entry }));
        other.bytes.clear();
        other.entries.clear();
    }

    /// Drops every queued command unapplied, keeping the queue's capacity.
    pub fn clear(&mut self) {
        self.consume_all(None);
    }

    /// Applies every queued command to `world`, in order, and empties the queue
    /// (keeping its capacity). If a command panics, the ones after it are dropped
    /// unapplied (entities reserved by dropped spawns are freed) and the panic
    /// continues.
    pub fn apply(&mut self, world: &mut World) {
        world.flush_reserved();
        self.consume_all(Some(world));
    }

    fn consume_all(&mut self, world: Option<&mut World>) {
        /// Drops the commands after the one being applied if it panics, then lets the
        /// world free the entities reserved for spawns among them.
        struct Rest<'a, 'w> {
            queue: &'a mut CommandQueue,
            world: Option<&'w mut World>,
            next: usize,
            len: usize,
        }
        impl Drop for Rest<'_, '_> {
            fn drop(&mut self) {
                let bytes = self.queue.bytes.as_mut_ptr();
                let unapplied = self.next < self.len;
                for i in self.next..self.len {
                    // SAFETY: entries `next..len` are still unconsumed (the lengths
                    // were zeroed, so nothing else will consume them).
                    unsafe {
                        let entry = *self.queue.entries.as_ptr().add(i);
                        (entry.consume)(bytes.add(entry.offset), None);
                    }
                }
                if let Some(world) = self.world.as_deref_mut()
                    && unapplied
                {
                    // Frees the abandoned entities, which have no components: no hook runs.
                    world.flush_reserved();
                }
            }
        }
        let len = self.entries.len();
        // Zero the lengths first: whatever happens below, each command is consumed
        // exactly once, by this loop or by the guard.
        // SAFETY: `Entry` is `Copy` and the bytes are `MaybeUninit`: shortening the
        // vectors drops nothing, and the memory stays allocated for the reads below.
        unsafe {
            self.entries.set_len(0);
            self.bytes.set_len(0);
        }
        let mut rest = Rest { queue: self, world, next: 0, len };
        while rest.next < rest.len {
            // SAFETY: entry `next` is unconsumed; its bytes hold the command it names.
            unsafe {
                let entry = *rest.queue.entries.as_ptr().add(rest.next);
                rest.next += 1;
                (entry.consume)(rest.queue.bytes.as_mut_ptr().add(entry.offset), rest.world.as_deref_mut());
            }
        }
    }
}

impl Drop for CommandQueue {
    fn drop(&mut self) {
        self.consume_all(None);
    }
}
