//! What the inspector records of the frames while a client watches: per tracked
//! component the rows written, added and removed in one frame, read from the world's
//! own change lists (a query by id with a `changed` or `added` filter, and a removal
//! reader), so a sample costs what changed; events sent per type in that frame; each
//! system's last measured time; and how long the frame took.
//!
//! **Exact frames, sampled, and what happened between them.** A sample covers exactly
//! one frame: at the end of the frame before it the readers are brought up to now
//! (*armed*), and at the end of the frame itself they count. Sampling every frame
//! would cost more than a frame that costs what changed: Crate-topia's update at a
//! million crates takes a few microseconds, about what reading a dozen change lists
//! does. So samples are spaced to spend at most a fixed share of the game's time (2%
//! by default), and at most 60 a second (the page draws 4 times a second).
//!
//! A spike between two samples must still show, so each sample carries its *peak*:
//! over the frames since the previous sample, the longest frame, and for each
//! component and event an upper bound on what any one of those frames did. A watched
//! sync reads the clock where that costs under half a percent of a frame; where frames
//! are shorter, every few frames, and the peak's frame time is then the longest time
//! between two readings: still never less than the longest frame. Arming counts the window before it (the rows written or added
//! at least once since the previous sample, the removals and events sent since), and
//! the peak is the larger of that and the sampled frame's own count: exact when the
//! window is one frame. Counting the rows of a window costs what changed in it; a game
//! that writes different rows every frame can make that dearer than the budget, and
//! then the rows written and added are left out of the peak (it says so) while the
//! removals, the events and the frame time stay in.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ripple::dynamic::{DynamicQuery, RuntimeComponent};
use ripple::schedule::Schedule;
use ripple::{ComponentId, RemovedReader, World};

/// How often (in samples) the list of tracked components is read again, to catch
/// components tracked or registered since.
const REFRESH_EVERY: u64 = 64;
/// What reading the clock costs, about, and the share of a frame it may take: where
/// frames are shorter than that allows, the clock is read every few frames.
const CLOCK_COST: Duration = Duration::from_nanos(40);
const CLOCK_SHARE: f64 = 0.005;

/// One tracked component's readers.
struct Tracker {
    id: ComponentId,
    changed: DynamicQuery,
    added: DynamicQuery,
    removed: RemovedReader<RuntimeComponent>,
    /// Whether the queries have run since they were built (a first run would count
    /// every row).
    primed: bool,
}

/// What arming counted of the frames since the previous sample.
struct Window {
    /// Per tracker: rows written, added (when counted) and removed.
    changes: Vec<[u64; 3]>,
    /// Whether rows written and added were counted.
    rows: bool,
    /// Per event type: sent.
    events: Vec<u64>,
}

/// Over the frames since the previous sample, the sampled one included: the
/// longest, and an upper bound on what any one of them did.
pub(crate) struct Peak {
    /// How many frames.
    pub(crate) frames: u64,
    /// The longest frame's time, or, where the clock was read every few frames, the
    /// longest time between two readings: never less than the longest frame.
    pub(crate) frame_ns: u64,
    /// Frames between two readings of the clock (1: `frame_ns` is the longest frame).
    pub(crate) clock_every: u64,
    /// Whether the rows written and added were counted over the window (else the
    /// page is told they are unknown).
    pub(crate) rows: bool,
    /// Per component: rows written, added, removed.
    pub(crate) changes: Vec<[u64; 3]>,
    /// Per event type: sent.
    pub(crate) events: Vec<u64>,
}

/// One system's profile as a sample carries it: its last measured run's time, and
/// how many runs were measured out of how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SystemTimes {
    pub(crate) last_ns: u64,
    pub(crate) measured: u64,
    pub(crate) runs: u64,
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
    /// Per `names.systems`: the profile.
    pub(crate) systems: Vec<SystemTimes>,
    pub(crate) peak: Peak,
}

impl Sample {
    /// The sample as the page reads it.
    pub(crate) fn to_json(&self) -> String {
        use serde_json::{Map, Value, json};
        let pairs = |names: &[String], values: &mut dyn Iterator<Item = Value>| {
            names.iter().cloned().zip(values).collect::<Map<String, Value>>()
        };
        let changes = |changes: &[[u64; 3]], rows: bool| {
            let rows = |n: u64| if rows { json!(n) } else { Value::Null };
            pairs(&self.names.components, &mut changes.iter().map(|c| json!([rows(c[0]), rows(c[1]), c[2]])))
        };
        let peak = &self.peak;
        json!({
            "frame": self.frame,
            "entities": self.entities,
            "frame_ns": self.frame_ns,
            "cost_ns": self.cost_ns,
            "changes": changes(&self.changes, true),
            "events": pairs(&self.names.events, &mut self.events.iter().map(|&n| json!(n))),
            "systems": pairs(&self.names.systems, &mut self.systems.iter().map(|s| json!({
                "ns": s.last_ns, "measured": s.measured, "runs": s.runs,
            }))),
            "peak": {
                "frames": peak.frames,
                "frame_ns": peak.frame_ns,
                "clock_every": peak.clock_every,
                "changes": changes(&peak.changes, peak.rows),
                "events": pairs(&self.names.events, &mut peak.events.iter().map(|&n| json!(n))),
            },
        })
        .to_string()
    }
}

/// The readers, the spacing of the samples, and what they cost.
pub(crate) struct Sampler {
    trackers: Vec<Tracker>,
    names: Arc<Names>,
    /// Each event type's `sent` counter when the readers were armed, and at the last
    /// count.
    events_sent: Vec<u64>,
    events_counted: Vec<u64>,
    /// Whether the readers were armed at the last sync (the next one counts), and what
    /// arming counted.
    armed: bool,
    window: Option<Window>,
    /// What arming cost, counted into the sample.
    arm_cost: Duration,
    /// Whether the readers have counted every frame since the last sample (false
    /// after a pause), and that sample's frame.
    counted_through: Option<u64>,
    /// Whether arming counts the window's rows written and added, and what that took
    /// at the last arming.
    window_rows: bool,
    window_cost: Duration,
    /// The clock is read every `clock_every` watched syncs (and at every arming and
    /// count): `until_clock` counts down to the next reading. `longest` is the longest
    /// time between two readings since the last sample.
    clock_every: u64,
    until_clock: u64,
    last_clock: Option<Instant>,
    longest: Duration,
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
            events_counted: Vec::new(),
            armed: false,
            window: None,
            arm_cost: Duration::ZERO,
            counted_through: None,
            window_rows: true,
            window_cost: Duration::ZERO,
            clock_every: 1,
            until_clock: 0,
            last_clock: None,
            longest: Duration::ZERO,
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
        self.armed = false;
        self.window = None;
        self.since = None;
        self.frames = 0;
        self.last_clock = None;
        self.until_clock = 0;
        self.longest = Duration::ZERO;
        self.counted_through = None;
    }

    /// A sync while someone watches: reads the clock if it is due, counts the frame if
    /// the readers were armed at the last sync, or arms them if a sample is due.
    /// Returns the sample, if one was taken.
    pub(crate) fn frame(&mut self, world: &mut World, schedule: Option<&mut Schedule>, frame: u64) -> Option<Sample> {
        self.watched_frames += 1;
        self.frames += 1;
        let armed = std::mem::take(&mut self.armed);
        self.until_clock = self.until_clock.saturating_sub(1);
        if !armed && self.until_clock > 0 && self.frames < self.every {
            return None;
        }
        let now = Instant::now();
        let span = self.last_clock.map_or(Duration::ZERO, |last| now - last);
        self.last_clock = Some(now);
        self.longest = self.longest.max(span);
        self.until_clock = self.clock_every;
        if armed {
            // The clock was read at arming too: the span is this frame exactly.
            return Some(self.count(world, schedule, frame, span));
        }
        if self.frames < self.every {
            return None;
        }
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

    /// Brings the readers up to now, counting what they pass over if they have
    /// counted every frame since the last sample.
    fn arm(&mut self, world: &mut World, now: Instant) {
        if self.samples % REFRESH_EVERY == 0 {
            self.refresh(world);
            // Now and then, try counting rows over windows again.
            self.window_rows = true;
        }
        let open = self.counted_through.is_some();
        let rows = open && self.window_rows;
        let counting = Instant::now();
        let mut changes = Vec::with_capacity(self.trackers.len());
        for tracker in &mut self.trackers {
            let (mut written, mut added) = (0u64, 0u64);
            if rows && tracker.primed {
                tracker.changed.for_each(world, |_| written += 1);
                tracker.added.for_each(world, |_| added += 1);
            } else {
                tracker.changed.skip_to_now(world);
                tracker.added.skip_to_now(world);
            }
            tracker.primed = true;
            changes.push([written, added, tracker.removed.read(world).count() as u64]);
        }
        self.window_cost = if rows { counting.elapsed() } else { Duration::ZERO };
        self.events_sent.clear();
        let sent = &mut self.events_sent;
        world.for_each_message_type(|_, stats| sent.push(stats.sent));
        let counted = &self.events_counted;
        let events = sent.iter().enumerate().map(|(i, &n)| n - counted.get(i).copied().unwrap_or(n).min(n)).collect();
        self.window = open.then_some(Window { changes, rows, events });
        self.armed = true;
        self.arm_cost = now.elapsed();
    }

    fn count(
        &mut self,
        world: &mut World,
        schedule: Option<&mut Schedule>,
        frame: u64,
        frame_time: Duration,
    ) -> Sample {
        let started = Instant::now();
        let mut changes = Vec::with_capacity(self.trackers.len());
        for tracker in &mut self.trackers {
            let (mut written, mut added) = (0u64, 0u64);
            tracker.changed.for_each(world, |_| written += 1);
            tracker.added.for_each(world, |_| added += 1);
            changes.push([written, added, tracker.removed.read(world).count() as u64]);
        }
        let (mut events, mut event_names) = (Vec::new(), Vec::new());
        self.events_counted.clear();
        let (before, counted) = (&self.events_sent, &mut self.events_counted);
        world.for_each_message_type(|name, stats| {
            events.push(stats.sent - before.get(events.len()).copied().unwrap_or(0).min(stats.sent));
            event_names.push(name);
            counted.push(stats.sent);
        });
        let (mut systems, mut system_names) = (Vec::new(), Vec::new());
        if let Some(schedule) = schedule {
            for row in schedule.report_rows() {
                let stats = row.stats;
                systems.push(SystemTimes {
                    last_ns: stats.last.as_nanos() as u64,
                    measured: stats.measured,
                    runs: stats.runs,
                });
                system_names.push(row.name.to_owned());
            }
        }
        self.refresh_names(world, &event_names, system_names);
        let peak = self.peak(frame, &changes, &events, frame_time);
        let cost = self.arm_cost + started.elapsed();
        self.total_cost += cost;
        self.samples += 1;
        self.space(cost);
        self.counted_through = Some(frame);
        Sample {
            frame,
            entities: world.len() as u64,
            frame_ns: frame_time.as_nanos() as u64,
            cost_ns: cost.as_nanos() as u64,
            names: Arc::clone(&self.names),
            changes,
            events,
            systems,
            peak,
        }
    }

    /// The sample's peak: the larger of the window's counts and the frame's own. The
    /// first sample of a stretch of watching has no window: its peak is its frame.
    fn peak(&mut self, frame: u64, changes: &[[u64; 3]], events: &[u64], frame_time: Duration) -> Peak {
        let longest = std::mem::take(&mut self.longest).max(frame_time);
        let window = self.window.take();
        let (frames, longest, clock_every) = match (window.as_ref(), self.counted_through) {
            (Some(_), Some(last)) => (frame.saturating_sub(last).max(1), longest, self.clock_every),
            _ => (1, frame_time, 1),
        };
        let rows = window.as_ref().is_none_or(|w| w.rows);
        let changes = changes
            .iter()
            .enumerate()
            .map(|(i, exact)| {
                let before = window.as_ref().and_then(|w| w.changes.get(i)).copied().unwrap_or_default();
                [exact[0].max(before[0]), exact[1].max(before[1]), exact[2].max(before[2])]
            })
            .collect();
        let events = events
            .iter()
            .enumerate()
            .map(|(i, &exact)| exact.max(window.as_ref().and_then(|w| w.events.get(i)).copied().unwrap_or(0)))
            .collect();
        Peak { frames, frame_ns: longest.as_nanos() as u64, clock_every, rows, changes, events }
    }

    /// Replaces the names the samples' numbers are of, if they changed.
    fn refresh_names(&mut self, world: &World, event_names: &[&str], system_names: Vec<String>) {
        let names_now = |names: &Names| {
            names.events.len() == event_names.len()
                && names.events.iter().zip(event_names).all(|(a, b)| *a == short_name(b))
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
    }

    /// Spaces the next sample for the budget: this sample's cost against the game's
    /// time per frame since the last one. Stops counting rows over windows when that
    /// costs more per frame of the window than the budget allows a frame: counting a
    /// window of rows that differ every frame grows with the window, and spacing
    /// samples further would only make it dearer.
    fn space(&mut self, cost: Duration) {
        let now = Instant::now();
        if let Some(since) = self.since {
            let window_frames = self.frames.max(1) as f64;
            let per_frame = ((now - since).as_secs_f64() / window_frames).max(1e-9);
            // Frames for the budget, or for the spacing (less a tenth, so the clock is
            // read near when a sample is due rather than on every frame before it).
            let for_budget = cost.as_secs_f64() / (self.budget * per_frame);
            let for_spacing = 0.9 * self.spacing.as_secs_f64() / per_frame;
            self.every = (for_budget.max(for_spacing).ceil() as u64).clamp(2, 10_000_000);
            if self.window_cost.as_secs_f64() / window_frames > self.budget * per_frame {
                self.window_rows = false;
            }
            let for_clock = CLOCK_COST.as_secs_f64() / (CLOCK_SHARE * per_frame);
            self.clock_every = (for_clock.ceil() as u64).clamp(1, 1_000_000);
        }
        self.since = Some(now);
        self.frames = 0;
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
            self.trackers.push(Tracker { id, changed, added, removed, primed: false });
        }
    }
}

pub(crate) use ripple::short_type_name as short_name;
