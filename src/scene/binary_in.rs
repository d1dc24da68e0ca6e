//! Reading binary scenes (the layout is in `binary.rs`).

use crate::entity::Entity;

use super::binary::{FORMAT_VERSION, MAGIC, id_after, read_varint};
use super::error::{InputPosition, LoadError, ValueSite};
use super::load::{SceneLoad, Stop};
use super::nesting::ReadError;

/// An upper bound on the entity records in `input`: each takes at least two bytes.
pub(crate) fn max_records(input: &[u8]) -> usize {
    input.len() / 2 + 1
}

/// A position in the input.
struct Reader<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a [u8] {
        &self.input[self.pos..]
    }

    #[inline]
    fn varint(&mut self, reading: &str) -> Result<u64, LoadError> {
        // One byte: most counts, indices and consecutive ids.
        if let Some(&byte) = self.input.get(self.pos)
            && byte < 0x80
        {
            self.pos += 1;
            return Ok(u64::from(byte));
        }
        self.long_varint(reading)
    }

    fn long_varint(&mut self, reading: &str) -> Result<u64, LoadError> {
        match read_varint(self.rest()) {
            Some((value, taken)) => {
                self.pos += taken;
                Ok(value)
            }
            None if self.rest().len() < 10 && self.rest().iter().all(|&b| b & 0x80 != 0) => {
                Err(LoadError::Truncated { reading: reading.to_owned() })
            }
            None => Err(self.malformed(format!("{reading} is not a valid varint"))),
        }
    }

    /// A count of items that each take at least one byte: never more than the bytes
    /// left, so a corrupt count cannot make the reader reserve memory for nothing.
    fn count(&mut self, reading: &str) -> Result<usize, LoadError> {
        let count = self.varint(reading)?;
        if count > self.rest().len() as u64 {
            return Err(LoadError::Truncated { reading: format!("{reading} ({count} claimed)") });
        }
        Ok(count as usize)
    }

    fn str(&mut self, reading: &str) -> Result<&'a str, LoadError> {
        let len = self.count(reading)?;
        let bytes = &self.rest()[..len];
        let text = std::str::from_utf8(bytes).map_err(|_| self.malformed(format!("{reading} is not UTF-8")))?;
        self.pos += len;
        Ok(text)
    }

    fn malformed(&self, message: String) -> LoadError {
        LoadError::Syntax { message, at: InputPosition::Offset(self.pos) }
    }

    /// Turns a value's read error into the load's error.
    /// `site` is only called on an error.
    fn value_result(
        &mut self,
        site: impl FnOnce() -> ValueSite,
        result: Result<usize, ReadError>,
    ) -> Result<(), LoadError> {
        match result {
            Ok(taken) => {
                self.pos += taken;
                Ok(())
            }
            Err(ReadError::TooDeep) => Err(LoadError::TooDeep { site: site(), at: InputPosition::Offset(self.pos) }),
            Err(ReadError::Value(postcard::Error::DeserializeUnexpectedEnd)) => {
                Err(LoadError::Truncated { reading: site().to_string() })
            }
            Err(ReadError::Value(error)) => Err(LoadError::MalformedValue {
                site: site(),
                message: error.to_string(),
                at: InputPosition::Offset(self.pos),
            }),
            Err(ReadError::Refused(message)) => {
                Err(LoadError::MalformedValue { site: site(), message, at: InputPosition::Offset(self.pos) })
            }
        }
    }
}

/// Reads a binary scene into `load`.
pub(crate) fn read_scene(load: &mut SceneLoad<'_>, input: &[u8]) -> Result<(), Stop> {
    if input.len() < MAGIC.len() + 2 && MAGIC.starts_with(&input[..input.len().min(MAGIC.len())]) {
        return Err(LoadError::Truncated { reading: "the header".into() }.into());
    }
    if !input.starts_with(MAGIC) {
        return Err(LoadError::NotAScene {
            message: "the input does not start with the magic bytes \"RPLSCENE\"".into(),
        }
        .into());
    }
    let version = u16::from_le_bytes([input[MAGIC.len()], input[MAGIC.len() + 1]]);
    if version != FORMAT_VERSION {
        return Err(LoadError::UnsupportedVersion { found: version.into(), supported: FORMAT_VERSION }.into());
    }
    let mut reader = Reader { input, pos: MAGIC.len() + 2 };
    let name_count = reader.count("the number of component names")?;
    let mut names = Vec::with_capacity(name_count);
    for _ in 0..name_count {
        let name = reader.str("a component name")?;
        names.push((name, load.registry.component_index(name)));
    }
    for _ in 0..reader.count("the number of resources")? {
        let name = reader.str("a resource name")?;
        let rest = reader.rest();
        let result = load.resource(name, |entry| (entry.read_binary)(rest))?;
        reader.value_result(|| ValueSite::Resource { name: name.to_owned() }, result)?;
    }
    let total = reader.count("the number of entities")?;
    load.expect_records(total);
    let mut entries = Vec::new();
    let mut entry_indices: Vec<usize> = Vec::new();
    let mut ids = Vec::new();
    while load.records() < total {
        if reader.pos == input.len() {
            return Err(LoadError::Truncated { reading: format!("entity {} of {total}", load.records()) }.into());
        }
        // A run: its components, its entities' ids, then each component's values.
        let first = load.records();
        entries.clear();
        for _ in 0..reader.count("a run's number of components")? {
            let index = reader.varint("a component's name index")?;
            let Some(&(name, entry)) = names.get(index as usize) else {
                return Err(reader
                    .malformed(format!("entity {first} names component {index} of a table of {}", names.len()))
                    .into());
            };
            let Some(entry) = entry else {
                return Err(LoadError::UnknownComponent {
                    entity: first,
                    name: name.to_owned(),
                    closest: load.registry.closest_component(name),
                }
                .into());
            };
            entries.push((entry, name));
        }
        entry_indices.clear();
        entry_indices.extend(entries.iter().map(|&(entry, _)| entry));
        let shared = load.begin_run(&entry_indices)?;
        let count = reader.count("a run's number of entities")?;
        if count == 0 {
            return Err(reader.malformed("an empty run of entities".into()).into());
        }
        ids.clear();
        let mut bits = 0;
        for k in 0..count {
            let read = reader.varint("an entity id")?;
            bits = if k == 0 { read } else { id_after(bits, read) };
            let Some(id) = Entity::from_bits(bits) else {
                return Err(reader
                    .malformed(format!("entity {}'s id {bits} is not an entity handle", first + k))
                    .into());
            };
            ids.push(id);
        }
        load.run_records(shared, &ids)?;
        for &(entry, name) in &entries {
            let rest = reader.rest();
            let site = (first as u32, entry as u32);
            let result = load.read_run(entry, |staging| staging.read_binary(rest, count, site));
            let failed_at = match &result {
                Err((k, _)) => first + k,
                Ok(_) => first,
            };
            reader.value_result(
                || ValueSite::Component { entity: failed_at, name: name.to_owned() },
                result.map_err(|(_, error)| error),
            )?;
        }
    }
    if load.records() != total {
        return Err(reader.malformed(format!("{} entities in runs, {total} announced", load.records())).into());
    }
    if reader.pos != input.len() {
        return Err(reader.malformed(format!("{} bytes after the last entity", input.len() - reader.pos)).into());
    }
    Ok(())
}
