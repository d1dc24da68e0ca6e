//! A readable view of a binary delta, for debugging and logs.

use serde_json::{Map, Value, json};

use crate::entity::Entity;
use crate::scene::SceneRegistry;
use crate::scene::nesting::{NESTING_LIMIT, ReadError};

use super::error::DeltaError;
use super::wire::{self, FLAG_BITS, REMOVED, Reader, RecordKind};

/// The delta `delta` (written by a [`Replicator`](super::Replicator) with a registry
/// like `registry`) as JSON: its sequence number, whether it is a snapshot, each
/// record with its values by component name (entities as the peer's handles), and
/// the children orders it carries.
///
/// # Errors
/// As [`DeltaReceiver::apply_delta`](super::DeltaReceiver::apply_delta) for a malformed
/// delta or another registry's.
pub fn delta_to_json(registry: &SceneRegistry, delta: &[u8]) -> Result<Value, DeltaError> {
    let entries = &registry.components;
    let mut reader = Reader::new(delta);
    let (seq, flags) = wire::read_header(&mut reader, wire::fingerprint(registry))?;
    let all = wire::component_mask(entries.len());
    let mut records = Vec::new();
    for _ in 0..reader.count("record count")? {
        let entity = entity(&mut reader)?;
        let header_at = reader.at;
        let header = reader.varint("record header")?;
        let set = header >> FLAG_BITS;
        let removed = if header & REMOVED != 0 { reader.varint("removed components")? } else { 0 };
        if (set | removed) & !all != 0 {
            return Err(DeltaError::UnknownComponent { at: header_at, components: set | removed });
        }
        let kind = wire::record_kind(header_at, header & ((1 << FLAG_BITS) - 1), set)?;
        let mut values = Map::new();
        for c in (0..entries.len()).filter(|c| set & (1 << c) != 0) {
            let at = reader.at;
            let (value, taken) = entries[c].binary_to_json(reader.rest()).map_err(|error| DeltaError::Value {
                at,
                component: entries[c].name.to_string(),
                entity,
                message: match error {
                    ReadError::TooDeep => format!("the value nests deeper than {NESTING_LIMIT} levels"),
                    ReadError::Value(error) => error.to_string(),
                    ReadError::Refused(message) => message,
                },
            })?;
            reader.skip(taken);
            values.insert(entries[c].name.to_string(), value);
        }
        let names = |bits: u64| -> Vec<&str> {
            (0..entries.len()).filter(|c| bits & (1 << c) != 0).map(|c| &*entries[c].name).collect()
        };
        records.push(json!({
            "entity": entity.to_string(),
            "despawn": kind == RecordKind::Gone,
            "hidden": kind == RecordKind::Hide,
            "full": kind == RecordKind::Whole,
            "removed": names(removed),
            "set": values,
        }));
    }
    let mut orders = Vec::new();
    for _ in 0..reader.count("order count")? {
        let parent = entity(&mut reader)?;
        let count = reader.count("child count")?;
        let children = (0..count).map(|_| entity(&mut reader).map(|e| e.to_string())).collect::<Result<Vec<_>, _>>()?;
        orders.push(json!({ "parent": parent.to_string(), "children": children }));
    }
    if reader.at != delta.len() {
        return Err(DeltaError::Malformed { at: reader.at, what: "bytes after the delta's end" });
    }
    Ok(json!({ "seq": seq, "snapshot": flags & wire::SNAPSHOT != 0, "records": records, "orders": orders }))
}

fn entity(reader: &mut Reader<'_>) -> Result<Entity, DeltaError> {
    let at = reader.at;
    let bits = reader.varint("entity")?;
    Entity::from_bits(bits).ok_or(DeltaError::Malformed { at, what: "an entity handle of generation 0" })
}
