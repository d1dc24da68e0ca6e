//! A live inspector for [ripple] worlds, in a browser: entities and their
//! values, tables and their rows, systems and their times, events, memory, and above
//! all **what changed, per component, per frame**, read from the world's own change
//! lists, so watching costs what changed.
//!
//! The game keeps its world. It starts an [`Inspector`] once, which serves a page on
//! a loopback port from threads of its own (one accepting connections, a fixed few
//! serving them), and calls [`Inspector::sync`] once a frame at a point where nothing
//! else borrows the world (after the schedule ran). The server's threads never touch
//! the world: they answer from the samples `sync` handed over, and queue what needs
//! the world (a search, an entity's values, an edit) for the next `sync`, which
//! answers it there.
//!
//! - **Safe by default**, against every other local process and every web page: it
//!   binds to 127.0.0.1 only and answers only requests addressed to 127.0.0.1 or
//!   localhost (so a web page cannot reach it by DNS rebinding); every request but
//!   those for the page's own files carries a random token, printed in the URL at
//!   start, checked from the request's head before any of its body is read; heads,
//!   bodies, the time a client may take and the request rate are bounded, and a
//!   connection that holds back its request is timed out or cut off rather than
//!   holding up another; writes (values, spawns, despawns, data commands) are
//!   refused unless the game enables them ([`InspectorConfig::writes`]), only come
//!   from the page's own origin as JSON, and go through the same paths as scenes and
//!   data commands, with typed errors shown on the page.
//! - **Cheap when nobody looks**: with no client in the last 3 seconds, `sync` reads
//!   two atomic flags and returns, allocating nothing. With a client, it takes exact
//!   samples of single frames (each O(changed) plus one pass over the systems and
//!   event types), spaced to take at most [`InspectorConfig::sample_budget`] of the
//!   game's time, each with the peak of the frames since the previous one, and shows
//!   its own cost on the page. What the requests need of the world (searches, values,
//!   writes, the overview) takes at most [`InspectorConfig::world_budget`] of the
//!   game's time; an entity is found by its id in O(1).
//!
//! ```no_run
//! use ripple::World;
//! use ripple::scene::SceneRegistry;
//! use ripple::schedule::Schedule;
//! use ripple_inspector::{Inspector, InspectorConfig, Lend};
//!
//! let mut world = World::new();
//! let mut schedule = Schedule::new();
//! let registry = SceneRegistry::new(); // names the components whose values it shows
//! let mut inspector = Inspector::start(InspectorConfig::default()).expect("a free port");
//! println!("inspect at {}", inspector.url());
//! loop {
//!     schedule.run(&mut world);
//!     inspector.sync(Lend::world(&mut world).schedule(&mut schedule).registry(&registry));
//! }
//! ```

mod answer;
mod backlog;
pub mod http;
mod limiter;
mod overview;
mod pool;
mod reply;
pub mod request;
mod sample;
mod search;
mod server;
mod token;

use std::io;
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use ripple::World;
use ripple::data::DataCommands;
use ripple::scene::SceneRegistry;
use ripple::schedule::Schedule;

pub use answer::Answer;

use answer::Lent;
use sample::Sampler;
use server::{Server, Shared};

/// The most time one sync spends answering requests: past it the rest wait for a
/// later one.
const SYNC_CAP: Duration = Duration::from_millis(2);

/// How an inspector serves ([`Inspector::start`]).
#[derive(Clone, Debug)]
pub struct InspectorConfig {
    /// The loopback port; 0 (the default) takes any free one.
    pub port: u16,
    /// Whether the page may change the world: edit values, spawn, despawn and send
    /// data commands. Off by default.
    pub writes: bool,
    /// The largest request body read, in bytes (64 KiB by default).
    pub max_body: usize,
    /// Requests with the token answered per second at most, in bursts of as many (200
    /// by default); more are answered 429. Requests without it are refused without
    /// counting.
    pub max_requests_per_second: u32,
    /// How many samples are kept for a client to catch up on (240).
    pub history: usize,
    /// The share of the game's time that sampling frames may take while someone
    /// watches (0.02 by default): samples are spaced to keep to it.
    pub sample_budget: f64,
    /// Samples a second at most (60 by default).
    pub max_samples_per_second: u32,
    /// The share of the game's time that answering the requests that need the world
    /// (searches, entities' values, writes, the overview) may take (0.005 by default):
    /// after each sync that answered some, the game answers no more until that much
    /// time has passed.
    pub world_budget: f64,
}

impl Default for InspectorConfig {
    fn default() -> Self {
        InspectorConfig {
            port: 0,
            writes: false,
            max_body: 64 * 1024,
            max_requests_per_second: 200,
            history: 240,
            sample_budget: 0.02,
            max_samples_per_second: 60,
            world_budget: 0.005,
        }
    }
}

/// What the game lends the inspector for one [`Inspector::sync`]: the world, and
/// optionally the schedule (for system times), the scene registry (for values) and
/// the data commands (for the page's command box).
pub struct Lend<'a> {
    world: &'a mut World,
    schedule: Option<&'a mut Schedule>,
    registry: Option<&'a SceneRegistry>,
    commands: Option<&'a DataCommands>,
}

impl<'a> Lend<'a> {
    /// The world alone.
    pub fn world(world: &'a mut World) -> Self {
        Lend { world, schedule: None, registry: None, commands: None }
    }

    /// With the schedule whose systems' times the page shows (turn its profiling on
    /// with [`Schedule::set_profiling`]).
    pub fn schedule(mut self, schedule: &'a mut Schedule) -> Self {
        self.schedule = Some(schedule);
        self
    }

    /// With the registry whose serialisers show and write values.
    pub fn registry(mut self, registry: &'a SceneRegistry) -> Self {
        self.registry = Some(registry);
        self
    }

    /// With the data commands the page may send.
    pub fn commands(mut self, commands: &'a DataCommands) -> Self {
        self.commands = Some(commands);
        self
    }
}

/// A running inspector: its server's threads, and what `sync` keeps. Dropping it
/// stops the server and joins its threads.
pub struct Inspector {
    shared: Arc<Shared>,
    server: Server,
    port: u16,
    sampler: Sampler,
    /// Syncs so far: the page's frame numbers.
    frame: u64,
    /// Whether the last sync found someone watching.
    sampling: bool,
}

impl Inspector {
    /// Starts serving on 127.0.0.1 at `config.port`.
    ///
    /// # Errors
    /// The socket's error if the port cannot be bound.
    pub fn start(config: InspectorConfig) -> io::Result<Inspector> {
        let listener = TcpListener::bind(("127.0.0.1", config.port))?;
        backlog::deepen(&listener);
        let port = listener.local_addr()?.port();
        let shared = Arc::new(Shared::new(token::new_token(), &config));
        let server = server::start(listener, Arc::clone(&shared))?;
        Ok(Inspector {
            shared,
            server,
            port,
            sampler: Sampler::new(config.sample_budget, config.max_samples_per_second),
            frame: 0,
            sampling: false,
        })
    }

    /// The page's address, token included: what to open in a browser.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.shared.token)
    }

    /// The port it serves on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// How many frames it has sampled (while someone watched).
    pub fn samples(&self) -> u64 {
        self.sampler.samples()
    }

    /// The token every request but those for the page's own files must carry
    /// (`?token=` or the `X-Ripple-Token` header).
    pub fn token(&self) -> &str {
        &self.shared.token
    }

    /// The game's sync point, once a frame: samples the frame if someone watches,
    /// and answers the requests that need the world. With nobody watching and
    /// nothing asked, it reads two flags and returns.
    pub fn sync(&mut self, lend: Lend<'_>) {
        self.frame += 1;
        let watched = self.shared.watched.load(Ordering::Relaxed);
        if !watched && !self.shared.pending.load(Ordering::Relaxed) {
            if self.sampling {
                self.sampling = false;
                self.sampler.pause();
            }
            return;
        }
        self.sync_watched(lend, watched);
    }

    #[cold]
    fn sync_watched(&mut self, lend: Lend<'_>, watched: bool) {
        let Lend { world, schedule, registry, commands } = lend;
        // A load before the swap, as for the overview below: requests come a few
        // times a second, syncs every frame.
        if self.shared.pending.load(Ordering::Relaxed) && self.shared.pending.swap(false, Ordering::Acquire) {
            self.answer_requests(Lent { world: &mut *world, registry, commands });
        }
        if !watched {
            return;
        }
        self.sampling = true;
        let sample = self.sampler.frame(world, schedule, self.frame);
        // A load first: the flag is set a few times a second, and a swap on every
        // frame would cost more than the rest of an unsampled frame's work.
        let overview = (self.shared.overview_wanted.load(Ordering::Relaxed)
            && self.shared.overview_wanted.swap(false, Ordering::Relaxed))
        .then(|| {
            let started = Instant::now();
            (overview::overview(world, self.frame, self.shared.writes, &self.sampler), started.elapsed())
        });
        if sample.is_none() && overview.is_none() {
            return;
        }
        let mut state = self.shared.lock();
        if let Some(sample) = sample {
            if state.frames.len() >= self.shared.history {
                state.frames.pop_front();
            }
            state.frames.push_back(Arc::new(sample));
        }
        if let Some((overview, spent)) = overview {
            state.overview = Some(overview);
            self.shared.charge(&mut state, spent);
        }
    }

    /// Answers the queued requests, oldest first, for up to [`SYNC_CAP`] (one at
    /// least); the rest wait. What it spent is charged to the budget.
    fn answer_requests(&mut self, lent: Lent<'_>) {
        let Lent { world, registry, commands } = lent;
        let queued = std::mem::take(&mut self.shared.lock().requests);
        let started = Instant::now();
        let (mut left, mut answered) = (Vec::new(), 0);
        for request in queued {
            if !left.is_empty() || (answered > 0 && started.elapsed() >= SYNC_CAP) {
                left.push(request);
                continue;
            }
            let answer = answer::answer(request.route, Lent { world: &mut *world, registry, commands });
            // The server thread may have given up waiting.
            let _ = request.reply.send(answer);
            answered += 1;
        }
        let spent = started.elapsed();
        let mut state = self.shared.lock();
        if !left.is_empty() {
            left.append(&mut state.requests);
            state.requests = left;
        }
        self.shared.charge(&mut state, spent);
    }
}

impl Drop for Inspector {
    fn drop(&mut self) {
        self.server.stop(&self.shared);
    }
}
