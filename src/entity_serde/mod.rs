//! Entities in data. Text formats (JSON) write the `"<index>v<generation>"` that
//! `Display` prints and read it or the 64 bits of [`Entity::to_bits`]; binary formats
//! (postcard) write and read the 64 bits.
//!
//! While a scene loads, every entity read goes through the load's remap, so an
//! `Entity` anywhere inside a component (a field, an `Option`, a `Vec`) comes out as
//! the new handle of the entity it named in the file. While replication writes a
//! peer's delta, every entity written goes through the peer's rename the same way.

pub(crate) mod load_remap;
pub(crate) mod rename;

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::{Serialize, Serializer};

use crate::entity::Entity;

#[cfg_attr(docsrs, doc(cfg(feature = "persistence")))]
impl Serialize for Entity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.collect_str(&rename::saved(*self))
        } else {
            serializer.serialize_u64(rename::saved(*self).to_bits())
        }
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "persistence")))]
impl<'de> Deserialize<'de> for Entity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Entity, D::Error> {
        let entity = if deserializer.is_human_readable() {
            deserializer.deserialize_any(EntityVisitor)?
        } else {
            deserializer.deserialize_u64(EntityVisitor)?
        };
        Ok(load_remap::loaded(entity))
    }
}

/// An entity handle read as it is, outside any load's remap: a scene record's own id.
pub(crate) struct RawEntity(pub(crate) Entity);

impl<'de> Deserialize<'de> for RawEntity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawEntity, D::Error> {
        deserializer.deserialize_any(EntityVisitor).map(RawEntity)
    }
}

struct EntityVisitor;

impl Visitor<'_> for EntityVisitor {
    type Value = Entity;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an entity: its 64 bits as a number, or \"<index>v<generation>\"")
    }

    fn visit_u64<E: de::Error>(self, bits: u64) -> Result<Entity, E> {
        Entity::from_bits(bits)
            .ok_or_else(|| E::custom(format!("{bits} is not an entity handle (its generation is 0)")))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Entity, E> {
        match u64::try_from(value) {
            Ok(bits) => self.visit_u64(bits),
            Err(_) => Err(E::invalid_value(de::Unexpected::Signed(value), &self)),
        }
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Entity, E> {
        from_text(text).ok_or_else(|| E::invalid_value(de::Unexpected::Str(text), &self))
    }
}

/// The entity `"<index>v<generation>"` names (without the quotes), if it names one.
pub(crate) fn from_text(text: &str) -> Option<Entity> {
    let (index, generation) = text.split_once('v')?;
    let index: u32 = index.parse().ok()?;
    let generation: u32 = generation.parse().ok()?;
    Entity::from_bits((u64::from(generation) << 32) | u64::from(index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_round_trip_through_bits_and_text() {
        let entity = Entity::from_bits((3 << 32) | 7).unwrap();
        let json = serde_json::to_string(&entity).unwrap();
        assert_eq!(json, "\"7v3\"");
        assert_eq!(serde_json::from_str::<Entity>(&json).unwrap(), entity);
        assert_eq!(serde_json::from_str::<Entity>(&entity.to_bits().to_string()).unwrap(), entity);
        let binary = postcard::to_stdvec(&entity).unwrap();
        assert_eq!(postcard::from_bytes::<Entity>(&binary).unwrap(), entity);
        assert_eq!(serde_json::from_str::<Entity>("\"7v3\"").unwrap(), entity);
        let zero = serde_json::from_str::<Entity>("7").unwrap_err().to_string();
        assert!(zero.contains("7 is not an entity handle (its generation is 0)"), "{zero}");
        assert!(serde_json::from_str::<Entity>("\"7x3\"").is_err());
        assert!(serde_json::from_str::<Entity>("-1").is_err());
    }
}
