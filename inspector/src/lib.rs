//! A live inspector for [ripple] worlds, in a browser: entities and their
//! values, tables and their rows, systems and their times, events, memory, and above
//! all **what changed, per component, per frame**, read from the world's own change
//! lists, so watching costs what changed.
//!
//! The game keeps its world. It starts an [`Inspector`] once, which serves a page on
//! a loopback port from a thread of its own, and calls [`Inspector::sync`] once a
//! frame at a point where nothing else borrows the world (after the schedule ran).
//! The server thread never touches the world: it answers from the samples `sync`
//! handed over, and queues what needs the world (an entity's values, an edit) for
//! the next `sync`, which answers it there.
//!
//! - **Safe by default**: it binds to 127.0.0.1 only and answers only requests
//!   addressed to 127.0.0.1 or localhost (so a web page cannot reach it by DNS
//!   rebinding); every request carries a random token, printed in the URL at start;
//!   bodies and the request rate are bounded; writes (values, spawns, despawns,
//!   data commands) are refused unless the game enables them
//!   ([`InspectorConfig::writes`]), and then go through the same paths as scenes and
//!   data commands, with typed errors shown on the page.
//! - **Cheap when nobody looks**: with no client in the last 3 seconds, `sync` reads
//!   two atomic flags and returns, allocating nothing. With a client, it takes exact
//!   samples of single frames (each O(changed) plus one pass over the systems and
//!   event types), spaced to take at most [`InspectorConfig::sample_budget`] of the
//!   game's time, and shows its own cost on the page.
//!
//! ```no_run
//! use ripple::{Schedule, SceneRegistry, World};
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
pub mod request;
mod sample;
mod server;
mod token;

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use ripple::{DataCommands, SceneRegistry, Schedule, World};
use serde_json::json;

pub use answer::Answer;

use answer::Lent;
use sample::Sampler;
use server::{Shared, State};

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
    /// Requests answered per second at most, in bursts of as many (200 by default);
    /// more are answered 429.
    pub max_requests_per_second: u32,
    /// How many samples are kept for a client to catch up on (240).
    pub history: usize,
    /// The share of the game's time that sampling frames may take while someone
    /// watches (0.02 by default): samples are spaced to keep to it.
    pub sample_budget: f64,
    /// Samples a second at most (60 by default).
    pub max_samples_per_second: u32,
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

/// A running inspector: its server thread, and what `sync` keeps. Dropping it stops
/// the server.
pub struct Inspector {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
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
        let server = tiny_http::Server::http(("127.0.0.1", config.port)).map_err(io::Error::other)?;
        let port = server.server_addr().to_ip().map_or(config.port, |address| address.port());
        let shared = Arc::new(Shared {
            token: token::new_token(),
            writes: config.writes,
            max_body: config.max_body,
            max_requests_per_second: config.max_requests_per_second,
            history: config.history.max(1),
            watched: AtomicBool::new(false),
            pending: AtomicBool::new(false),
            overview_wanted: AtomicBool::new(true),
            shutdown: AtomicBool::new(false),
            state: Mutex::new(State::default()),
        });
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("ripple-inspector".into())
                .spawn(move || server::serve(server, shared, port))?
        };
        Ok(Inspector {
            shared,
            thread: Some(thread),
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

    /// The token every request must carry (`?token=` or the `X-Ripple-Token` header).
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
        if self.shared.pending.swap(false, Ordering::Acquire) {
            let requests = match self.shared.state.lock() {
                Ok(mut state) => std::mem::take(&mut state.requests),
                Err(_) => Vec::new(),
            };
            for (route, reply) in requests {
                let answer = answer::answer(route, Lent { world: &mut *world, registry, commands });
                // The server thread may have given up waiting.
                let _ = reply.send(answer);
            }
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
        .then(|| self.overview(world));
        if sample.is_none() && overview.is_none() {
            return;
        }
        if let Ok(mut state) = self.shared.state.lock() {
            if let Some(sample) = sample {
                if state.frames.len() >= self.shared.history {
                    state.frames.pop_front();
                }
                state.frames.push_back(sample);
            }
            if let Some(overview) = overview {
                state.overview = Some(overview);
            }
        }
    }

    /// The world's shape as JSON. O(component types · tables + event types).
    fn overview(&self, world: &mut World) -> String {
        let name = |id| world.component_name(id).map(sample::short_name).unwrap_or_default();
        let tables: Vec<_> = world
            .tables()
            .filter(|table| table.rows > 0)
            .map(|table| {
                let components: Vec<String> = table.components.iter().map(|&id| name(id)).collect();
                json!({ "id": table.id.index(), "rows": table.rows, "components": components })
            })
            .collect();
        let components: Vec<_> = world
            .component_summaries()
            .map(|c| {
                let storage = if c.storage == ripple::Storage::SparseSet { "sparse" } else { "table" };
                json!({ "id": c.id.index(), "name": sample::short_name(c.name), "storage": storage,
                        "tracked": c.tracked, "entities": c.entities })
            })
            .collect();
        let memory = world.memory();
        let mut events = Vec::new();
        world.for_each_event_type(|name, stats| {
            events.push(json!({ "name": sample::short_name(name), "sent": stats.sent, "waiting": stats.waiting,
                                "readable": stats.readable, "dropped": stats.dropped }));
        });
        let sampler = &self.sampler;
        let per_frame = sampler.total_cost.as_nanos() as u64 / sampler.watched_frames.max(1);
        json!({
            "frame": self.frame,
            "entities": world.len(),
            "writes": self.shared.writes,
            "tables": tables,
            "components": components,
            "events": events,
            "memory": {
                "values_bytes": memory.values,
                "tracking_bytes": memory.tracking,
                "entities_bytes": memory.entities,
                "observer_bytes": memory.observers.bytes(),
                "total_bytes": memory.total(),
            },
            "cost": { "per_frame_ns": per_frame, "samples": sampler.samples(), "watched_frames": sampler.watched_frames },
        })
        .to_string()
    }
}

impl Drop for Inspector {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
