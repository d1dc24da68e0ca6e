//! The overview the page shows beside the live samples: the world's tables,
//! component types, event types and memory, and what watching costs. Built at the
//! game's sync point when a client asked for one and the inspector's budget allows.

use ripple::{Storage, World};
use serde_json::json;

use crate::sample::{Sampler, short_name};

/// The world's shape as JSON. O(component types · tables + event types).
pub(crate) fn overview(world: &mut World, frame: u64, writes: bool, sampler: &Sampler) -> String {
    let name = |id| world.component_name(id).map(short_name).unwrap_or_default();
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
            let storage = if c.storage == Storage::SparseSet { "sparse" } else { "table" };
            json!({ "id": c.id.index(), "name": short_name(c.name), "storage": storage,
                    "tracked": c.tracked, "entities": c.entities })
        })
        .collect();
    let memory = world.memory();
    let mut events = Vec::new();
    world.for_each_message_type(|name, stats| {
        events.push(json!({ "name": short_name(name), "sent": stats.sent, "waiting": stats.waiting,
                            "readable": stats.readable, "dropped": stats.dropped }));
    });
    let per_frame = sampler.total_cost.as_nanos() as u64 / sampler.watched_frames.max(1);
    json!({
        "frame": frame,
        "entities": world.len(),
        "writes": writes,
        "tables": tables,
        "components": components,
        "events": events,
        "memory": {
            "values_bytes": memory.values,
            "tracking_bytes": memory.tracking,
            "entities_bytes": memory.entities,
            "backlog_bytes": memory.backlog.bytes(),
            "total_bytes": memory.total(),
        },
        "cost": { "per_frame_ns": per_frame, "samples": sampler.samples(), "watched_frames": sampler.watched_frames },
    })
    .to_string()
}
