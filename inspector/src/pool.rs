//! The inspector's connections: one thread accepts them and a fixed pool of workers
//! serves them, one connection at a time each, so the threads stay few however many
//! connections a local process opens. A worker still reading a request (or lingering
//! after a refusal) can be *evicted*: when a connection waits and no worker is free,
//! the one that has been reading longest is cut off, so idle or trickling
//! connections never hold the others up. A worker busy answering is not evicted.

use std::collections::VecDeque;
use std::net::{Shutdown, TcpStream};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Workers serving connections.
pub(crate) const WORKERS: usize = 8;
/// Connections accepted and waiting for a worker; past it the oldest is closed.
const MAX_WAITING: usize = 64;

#[derive(Default)]
struct Slot {
    /// A handle on the worker's connection, to cut it off.
    stream: Option<TcpStream>,
    since: Option<Instant>,
    reading: bool,
    /// Cut off, and not yet back for another.
    evicted: bool,
}

struct State {
    waiting: VecDeque<TcpStream>,
    slots: Vec<Slot>,
    /// Workers waiting for a connection.
    idle: usize,
    closed: bool,
}

/// Cuts off the workers that have been reading longest until the connections waiting
/// have a worker each (a free one, or one already cut off and on its way back).
fn evict_for_waiting(state: &mut State) {
    loop {
        let freeing = state.slots.iter().filter(|slot| slot.evicted).count();
        if state.waiting.len() <= state.idle + freeing {
            return;
        }
        let oldest = state
            .slots
            .iter_mut()
            .filter(|slot| slot.reading && !slot.evicted && slot.stream.is_some())
            .min_by_key(|slot| slot.since);
        let Some(slot) = oldest else { return };
        if let Some(stream) = &slot.stream {
            let _ = stream.shutdown(Shutdown::Both);
        }
        slot.evicted = true;
    }
}

/// What [`Pool::take`] hands a worker.
pub(crate) enum Taken {
    /// A connection to serve.
    Connection(TcpStream),
    /// Nothing came within the wait asked for.
    Nothing,
    /// The pool is closing: the worker ends.
    Closed,
}

/// The accepted connections and the workers' slots.
pub(crate) struct Pool {
    state: Mutex<State>,
    wake: Condvar,
}

impl Pool {
    pub(crate) fn new() -> Pool {
        let slots = (0..WORKERS).map(|_| Slot::default()).collect();
        Pool {
            state: Mutex::new(State { waiting: VecDeque::new(), slots, idle: 0, closed: false }),
            wake: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker that panicked left the slots consistent: each change is one store.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a connection the listener accepted, making room for it: past
    /// [`MAX_WAITING`] the oldest waiting one is closed unanswered, and if no worker
    /// is free the one that has been reading longest is cut off.
    pub(crate) fn admit(&self, stream: TcpStream) {
        let mut state = self.lock();
        if state.closed {
            return;
        }
        if state.waiting.len() >= MAX_WAITING {
            state.waiting.pop_front();
        }
        state.waiting.push_back(stream);
        evict_for_waiting(&mut state);
        drop(state);
        self.wake.notify_one();
    }

    /// Worker `worker`'s next connection, waiting up to `patience` (none: until one
    /// comes or the pool closes).
    pub(crate) fn take(&self, worker: usize, patience: Option<Duration>) -> Taken {
        let mut state = self.lock();
        state.slots[worker] = Slot::default();
        state.idle += 1;
        let started = Instant::now();
        loop {
            if state.closed {
                state.idle -= 1;
                return Taken::Closed;
            }
            if let Some(stream) = state.waiting.pop_front() {
                state.idle -= 1;
                state.slots[worker] = Slot {
                    stream: stream.try_clone().ok(),
                    since: Some(Instant::now()),
                    reading: true,
                    evicted: false,
                };
                // Connections still waiting with no worker free: the longest reader
                // makes room (this worker's is the newest, and goes last).
                evict_for_waiting(&mut state);
                return Taken::Connection(stream);
            }
            state = match patience {
                None => self.wake.wait(state).unwrap_or_else(PoisonError::into_inner),
                Some(patience) => match patience.checked_sub(started.elapsed()) {
                    Some(left) if !left.is_zero() => {
                        self.wake.wait_timeout(state, left).unwrap_or_else(PoisonError::into_inner).0
                    }
                    _ => {
                        state.idle -= 1;
                        return Taken::Nothing;
                    }
                },
            };
        }
    }

    /// Marks worker `worker` as answering its request: it is no longer cut off for
    /// connections that wait.
    pub(crate) fn answering(&self, worker: usize) {
        self.lock().slots[worker].reading = false;
    }

    /// Closes the pool: waiting connections are closed, workers' connections cut off,
    /// and every worker's next [`take`](Self::take) returns [`Taken::Closed`].
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.waiting.clear();
        for slot in &mut state.slots {
            if let Some(stream) = slot.stream.take() {
                let _ = stream.shutdown(Shutdown::Both);
            }
        }
        drop(state);
        self.wake.notify_all();
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.lock().closed
    }
}
