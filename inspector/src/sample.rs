//! What the inspector records of each frame while a client watches: per tracked
//! component the rows written, added and removed since the last sync, read from the
//! world's own change lists (a query by id with a `changed` or `added` filter, and a
//! removal reader), so a frame costs what changed; events sent per type; each
//! system's last time; and how long the frame took.

use std::time::{Duration, Instant};

use ripple::{ComponentId, DynamicQuery, RemovedReader, RuntimeComponent, Schedule, World};
use serde_json::{Map, Value, json};

/// How often (in sampled frames) the list of tracked components is read again, to
/// catch components tracked or registered since.
const REFRESH_EVERY: u64 = 64;

/// One tracked component's readers.
struct Tracker {
    id: ComponentId,
    name: String,
    changed: DynamicQuery,
    added: DynamicQuery,
    removed: RemovedReader<RuntimeComponent>,
}

/// The readers and counters behind the frame samples.
#[derive(Default)]
pub(crate) struct Sampler {
    trackers: Vec<Tracker>,
    /// Each event type's `sent` counter at the last sample.
    events_sent: Vec<(&'static str, u64)>,
    /// Sampled frames since the trackers were read.
    since_refresh: u64,
    /// When the last sample was taken (`None` before the first, and after a pause).
    last: Option<Instant>,
}

impl Sampler {
    /// Forgets the time of the last sample: the next one starts a new stretch of
    /// watching, and its counts (everything since the pause) are not a frame's.
    pub(crate) fn pause(&mut self) {
        self.last = None;
    }

    /// This frame's sample as JSON, or `None` for the first frame of a stretch
    /// (whose readers caught up with everything since they last read).
    pub(crate) fn sample(
        &mut self,
        world: &mut World,
        schedule: Option<&mut Schedule>,
        frame: u64,
        cost: Duration,
    ) -> Option<String> {
        let now = Instant::now();
        let first = self.last.is_none();
        let frame_time = self.last.map_or(Duration::ZERO, |last| now - last);
        self.last = Some(now);
        if first || self.since_refresh >= REFRESH_EVERY {
            self.refresh(world);
        }
        self.since_refresh += 1;

        let mut changes = Map::new();
        for tracker in &mut self.trackers {
            let (mut written, mut added) = (0u64, 0u64);
            tracker.changed.for_each(world, |_| written += 1);
            tracker.added.for_each(world, |_| added += 1);
            let removed = tracker.removed.read(world).count() as u64;
            if !first {
                changes.insert(tracker.name.clone(), json!([written, added, removed]));
            }
        }
        let mut events = Map::new();
        let known = &mut self.events_sent;
        world.for_each_event_type(|name, stats| {
            let before = match known.iter_mut().find(|(known, _)| *known == name) {
                Some((_, sent)) => std::mem::replace(sent, stats.sent),
                None => {
                    known.push((name, stats.sent));
                    stats.sent
                }
            };
            events.insert(short_name(name), json!(stats.sent - before));
        });
        if first {
            return None;
        }
        let mut systems = Map::new();
        if let Some(schedule) = schedule {
            for row in schedule.report_rows() {
                systems.insert(row.name.to_owned(), json!(row.stats.last.as_nanos() as u64));
            }
        }
        let sample = json!({
            "frame": frame,
            "entities": world.len(),
            "frame_ns": frame_time.as_nanos() as u64,
            "cost_ns": cost.as_nanos() as u64,
            "changes": Value::Object(changes),
            "events": Value::Object(events),
            "systems": Value::Object(systems),
        });
        Some(sample.to_string())
    }

    /// Reads which components are tracked, keeping the readers of those already
    /// followed (a new reader's first read would count everything as changed).
    fn refresh(&mut self, world: &mut World) {
        self.since_refresh = 0;
        let tracked: Vec<(ComponentId, &'static str)> =
            world.component_summaries().filter(|c| c.tracked).map(|c| (c.id, c.name)).collect();
        for (id, name) in tracked {
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
            let mut tracker = Tracker { id, name: short_name(name), changed, added, removed };
            // From now on: what happened before the inspector looked is not a frame's.
            tracker.changed.skip_to_now(world);
            tracker.added.skip_to_now(world);
            tracker.removed.read(world).for_each(drop);
            self.trackers.push(tracker);
        }
    }
}

/// A type name without its module paths (`Vec<game::Position>` as `Vec<Position>`),
/// as people name their components.
pub(crate) fn short_name(name: &str) -> String {
    let mut short = String::with_capacity(name.len());
    let mut start = 0;
    for (at, c) in name.char_indices() {
        if !(c.is_alphanumeric() || c == '_' || c == ':') {
            short.push_str(name[start..at].rsplit("::").next().unwrap_or(""));
            short.push(c);
            start = at + c.len_utf8();
        }
    }
    short.push_str(name[start..].rsplit("::").next().unwrap_or(""));
    short
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_names_drop_module_paths() {
        assert_eq!(super::short_name("game::Position"), "Position");
        assert_eq!(super::short_name("ripple::Related<ripple::hierarchy::ChildOf>"), "Related<ChildOf>");
        assert_eq!(super::short_name("hp"), "hp");
    }
}
