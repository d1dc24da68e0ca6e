//! What the inspector records of the frames while a client watches: per tracked
//! component the rows written, added and removed in one frame, read from the world's
//! own change lists (a query by id with a `changed` or `added` filter, and a removal
//! reader), so a sample costs what changed; events sent per type in that frame; each
//! system's last time; and how long the frame took.
//!
//! **Exact frames, sampled.** A sample covers exactly one frame: at the end of the
//! frame before it the readers are brought up to now (*armed*), and at the end of the
//! frame itself they count. Sampling every frame would cost more than a frame that
//! costs what changed: Crate-topia's update at a million crates takes a few
//! microseconds, about what reading a dozen change lists does. So samples are spaced
//! to spend at most a fixed share of the game's time (2% by default), and at most 60 a
//! second (the page draws 4 times a second); between samples a sync counts a frame and
//! compares two numbers.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ripple::{ComponentId, DynamicQuery, RemovedReader, RuntimeComponent, Schedule, World};

/// How often (in samples) the list of tracked components is read again, to catch
/// components tracked or registered since.
const REFRESH_EVERY: u64 = 64;

/// One tracked component's readers.
struct Tracker {
    id: ComponentId,
    changed: DynamicQuery,
    added: DynamicQuery,
    removed: RemovedReader<RuntimeComponent>,
}

/// What the numbers of a [`Sample`] are of, in order; shared by the samples, and
/// replaced when it changes.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Names {
    pub(crate) components: Vec<String>,
    pub(crate) events: Vec<String>,
    pub(crate) systems: Vec<String>,
}

/// One frame, as numbers: the game thread records it, the server thread writes the
/// JSON.
pub(crate) struct Sample {
    pub(crate) frame: u64,
    pub(crate) entities: u64,
    /// The sampled frame's time: from the sync before it to its own.
    pub(crate) frame_ns: u64,
    /// What arming and counting cost the game.
    pub(crate) cost_ns: u64,
    pub(crate) names: Arc<Names>,
    /// Per `names.components`: rows written, added, removed.
    pub(crate) changes: Vec<[u64; 3]>,
    /// Per `names.events`: sent in the frame.
    pub(crate) events: Vec<u64>,
    /// Per `names.systems`: the last run's time in nanoseconds.
    pub(crate) systems: Vec<u64>,
}

impl Sample {
    /// The sample as the page reads it.
    pub(crate) fn to_json(&self) -> String {
        let pairs = |names: &[String], values: &mut dyn Iterator<Item = serde_json::Value>| {
            names.iter().cloned().zip(values).collect::<serde_json::Map<String, serde_json::Value>>()
        };
        serde_json::json!({
            "frame": self.frame,
            "entities": self.entities,
            "frame_ns": self.frame_ns,
            "cost_ns": self.cost_ns,
            "changes": pairs(&self.names.components, &mut self.changes.iter().map(|c| serde_json::json!(c))),
            "events": pairs(&self.names.events, &mut self.events.iter().map(|&n| serde_json::json!(n))),
            "systems": pairs(&self.names.systems, &mut self.systems.iter().map(|&n| serde_json::json!(n))),
        })
        .to_string()
    }
}

/// The readers, the spacing of the samples, and what they cost.
pub(crate) struct Sampler {
    trackers: Vec<Tracker>,
    names: Arc<Names>,
    /// Each event type's `sent` counter when the readers were armed.
    events_sent: Vec<u64>,
    /// When the readers were armed, if the next sync counts.
    armed: Option<Instant>,
    /// What arming cost, counted into the sample.
    arm_cost: Duration,
    /// Frames since the last sample, and since when.
    frames: u64,
    since: Option<Instant>,
    /// Sample at most every this many frames (grown or shrunk to keep to the budget).
    every: u64,
    samples: u64,
    /// The share of the game's time samples may take, and their least spacing.
    budget: f64,
    spacing: Duration,
    /// What samples cost in all, and over how many frames.
    pub(crate) total_cost: Duration,
    pub(crate) watched_frames: u64,
}

impl Sampler {
    pub(crate) fn new(budget: f64, max_per_second: u32) -> Self {
        Sampler {
            trackers: Vec::new(),
            names: Arc::default(),
            events_sent: Vec::new(),
            armed: None,
            arm_cost: Duration::ZERO,
            frames: 0,
            since: None,
            every: 1,
            samples: 0,
            budget: budget.clamp(1e-6, 1.0),
            spacing: Duration::from_secs_f64(1.0 / f64::from(max_per_second.max(1))),
            total_cost: Duration::ZERO,
            watched_frames: 0,
        }
    }

    /// Samples taken.
    pub(crate) fn samples(&self) -> u64 {
        self.samples
    }

    /// Nobody watches: the next stretch of watching starts afresh.
    pub(crate) fn pause(&mut self) {
        self.armed = None;
        self.since = None;
        self.frames = 0;
    }

    /// A sync while someone watches: counts the frame if the readers were armed at
    /// the last one, or arms them if a sample is due. Returns the sample, if one was
    /// taken.
    pub(crate) fn frame(&mut self, world: &mut World, schedule: Option<&mut Schedule>, frame: u64) -> Option<Sample> {
        self.watched_frames += 1;
        self.frames += 1;
        if let Some(armed) = self.armed.take() {
            return Some(self.count(world, schedule, frame, armed));
        }
        if self.frames < self.every {
            return None;
        }
        let now = Instant::now();
        match self.since {
            Some(since) if now - since < self.spacing => return None,
            None => {
                // The first frame watched: where the spacing counts from.
                self.since = Some(now);
                self.frames = 0;
                return None;
            }
            Some(_) => {}
        }
        self.arm(world, now);
        None
    }

    fn arm(&mut self, world: &mut World, now: Instant) {
        if self.samples % REFRESH_EVERY == 0 {
            self.refresh(world);
        }
        for tracker in &mut self.trackers {
            tracker.changed.skip_to_now(world);
            tracker.added.skip_to_now(world);
            tracker.removed.read(world).for_each(drop);
        }
        self.events_sent.clear();
        let sent = &mut self.events_sent;
        world.for_each_event_type(|_, stats| sent.push(stats.sent));
        self.armed = Some(now);
        self.arm_cost = now.elapsed();
    }

    fn count(&mut self, world: &mut World, schedule: Option<&mut Schedule>, frame: u64, armed: Instant) -> Sample {
        let started = Instant::now();
        let frame_time = started - armed;
        let mut changes = Vec::with_capacity(self.trackers.len());
        for tracker in &mut self.trackers {
            let (mut written, mut added) = (0u64, 0u64);
            tracker.changed.for_each(world, |_| written += 1);
            tracker.added.for_each(world, |_| added += 1);
            changes.push([written, added, tracker.removed.read(world).count() as u64]);
        }
        let (mut events, mut event_names) = (Vec::new(), Vec::new());
        let before = &self.events_sent;
        world.for_each_event_type(|name, stats| {
            events.push(stats.sent - before.get(events.len()).copied().unwrap_or(0));
            event_names.push(name);
        });
        let (mut systems, mut system_names) = (Vec::new(), Vec::new());
        if let Some(schedule) = schedule {
            for row in schedule.report_rows() {
                systems.push(row.stats.last.as_nanos() as u64);
                system_names.push(row.name.to_owned());
            }
        }
        let names_now = |names: &Names| {
            names.events.len() == event_names.len()
                && names.events.iter().zip(&event_names).all(|(a, b)| *a == short_name(b))
                && names.systems == system_names
                && names.components.len() == self.trackers.len()
        };
        if !names_now(&self.names) {
            self.names = Arc::new(Names {
                components: self
                    .trackers
                    .iter()
                    .map(|t| world.component_name(t.id).map(short_name).unwrap_or_default())
                    .collect(),
                events: event_names.iter().map(|name| short_name(name)).collect(),
                systems: system_names,
            });
        }
        let cost = self.arm_cost + started.elapsed();
        self.total_cost += cost;
        self.samples += 1;
        // Spacing for the budget: this sample's cost against the game's time per
        // frame since the last sample.
        let now = Instant::now();
        if let Some(since) = self.since {
            let per_frame = (now - since).as_secs_f64() / self.frames.max(1) as f64;
            let per_frame = per_frame.max(1e-9);
            // Frames for the budget, or for the spacing (less a tenth, so the clock is
            // read near when a sample is due rather than on every frame before it).
            let for_budget = cost.as_secs_f64() / (self.budget * per_frame);
            let for_spacing = 0.9 * self.spacing.as_secs_f64() / per_frame;
            self.every = (for_budget.max(for_spacing).ceil() as u64).clamp(2, 10_000_000);
        }
        self.since = Some(now);
        self.frames = 0;
        Sample {
            frame,
            entities: world.len() as u64,
            frame_ns: frame_time.as_nanos() as u64,
            cost_ns: cost.as_nanos() as u64,
            names: Arc::clone(&self.names),
            changes,
            events,
            systems,
        }
    }

    /// Follows the components tracked now, keeping the readers of those already
    /// followed.
    fn refresh(&mut self, world: &mut World) {
        let tracked: Vec<ComponentId> = world.component_summaries().filter(|c| c.tracked).map(|c| c.id).collect();
        for id in tracked {
            if self.trackers.iter().any(|t| t.id == id) {
                continue;
            }
            let (Ok(changed), Ok(added), Ok(removed)) = (
                world.dynamic_query().changed(id).build(),
                world.dynamic_query().added(id).build(),
                world.removal_reader_by_id(id),
            ) else {
                continue;
            };
            self.trackers.push(Tracker { id, changed, added, removed });
        }
    }
}

pub(crate) use ripple::short_type_name as short_name;
