//! Reading JSON scenes and levels. The scene's own structure (a handful of keys,
//! objects and arrays) is scanned here; every value inside it is read by serde_json
//! straight from the input into its type, so the text is parsed once.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::de::DeserializeOwned;

use crate::entity::Entity;
use crate::entity_serde::RawEntity;

use super::binary::FORMAT_VERSION;
use super::error::{InputPosition, LoadError, ValueSite};
use super::load::{SceneLoad, Stop};
use super::read_value::read_value;

/// Line and column (from 1) of byte `offset`.
fn line_column(input: &[u8], offset: usize) -> (usize, usize) {
    let before = &input[..offset.min(input.len())];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let column = 1 + before.iter().rev().take_while(|&&b| b != b'\n').count();
    (line, column)
}

/// A position in the input.
struct Cursor<'a> {
    input: &'a [u8],
    pos: usize,
    /// Where the last key read starts.
    key_at: usize,
}

impl<'a> Cursor<'a> {
    fn position(&self, offset: usize) -> InputPosition {
        let (line, column) = line_column(self.input, offset);
        InputPosition::Line { line, column }
    }

    fn syntax(&self, message: impl Into<String>) -> LoadError {
        if self.pos >= self.input.len() {
            return LoadError::Truncated { reading: "the scene's structure".into() };
        }
        LoadError::Syntax { message: message.into(), at: self.position(self.pos) }
    }

    /// An error about the last key read, pointing at it.
    fn key_error(&self, message: impl Into<String>) -> LoadError {
        LoadError::Syntax { message: message.into(), at: self.position(self.key_at) }
    }

    /// The next byte that is not whitespace, left in place.
    fn peek(&mut self) -> Option<u8> {
        while let Some(&byte) = self.input.get(self.pos) {
            if !matches!(byte, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(byte);
            }
            self.pos += 1;
        }
        None
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, byte: u8, what: &dyn fmt::Display) -> Result<(), LoadError> {
        if self.eat(byte) { Ok(()) } else { Err(self.syntax(format!("expected {what}"))) }
    }

    /// A string: borrowed where it has no escapes.
    fn string(&mut self, what: &dyn fmt::Display) -> Result<Cow<'a, str>, LoadError> {
        if self.peek() != Some(b'"') {
            return Err(self.syntax(format!("expected {what}")));
        }
        if let Some(text) = self.plain_string().and_then(|bytes| std::str::from_utf8(bytes).ok()) {
            self.pos += text.len() + 2;
            return Ok(Cow::Borrowed(text));
        }
        let (text, taken) = self.value::<String>(what)?;
        self.pos += taken;
        Ok(Cow::Owned(text))
    }

    /// The bytes between the quotes of the string the cursor is on, if it has no
    /// escapes or control characters; the cursor stays where it is.
    fn plain_string(&mut self) -> Option<&'a [u8]> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let rest = &self.input[self.pos + 1..];
        let end = rest.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        (rest[end] == b'"').then(|| &rest[..end])
    }

    /// A record's id written as `"<index>v<generation>"`, read without serde (the
    /// common case, once per record); `None`, the cursor unmoved, for anything else,
    /// which serde then reads or reports.
    fn plain_entity(&mut self) -> Option<Entity> {
        let bytes = self.plain_string()?;
        let entity = crate::entity_serde::from_text(std::str::from_utf8(bytes).ok()?)?;
        self.pos += bytes.len() + 2;
        Some(entity)
    }

    /// A value of `T` that belongs to the scene's structure.
    fn value<T: DeserializeOwned>(&mut self, what: &dyn fmt::Display) -> Result<(T, usize), LoadError> {
        self.peek();
        read_value::<T>(&self.input[self.pos..]).map_err(|error| self.value_error(&error, what))
    }

    fn value_error(&self, error: &serde_json::Error, what: &dyn fmt::Display) -> LoadError {
        if error.is_eof() {
            return LoadError::Truncated { reading: what.to_string() };
        }
        LoadError::Syntax {
            message: format!("{what}: {}", crate::data::without_position(error)),
            at: self.relative_position(error),
        }
    }

    /// The absolute position of an error serde_json reported relative to `self.pos`.
    fn relative_position(&self, error: &serde_json::Error) -> InputPosition {
        let (line, column) = line_column(self.input, self.pos);
        if error.line() <= 1 {
            InputPosition::Line { line, column: column + error.column().saturating_sub(1) }
        } else {
            InputPosition::Line { line: line + error.line() - 1, column: error.column() }
        }
    }

    /// Skips one value; returns its bytes.
    fn skip(&mut self, what: &dyn fmt::Display) -> Result<Range<usize>, LoadError> {
        self.peek();
        let start = self.pos;
        let (_, taken) = self.value::<serde::de::IgnoredAny>(what)?;
        self.pos += taken;
        Ok(start..self.pos)
    }

    /// Walks an object's entries: `entry` reads each value, the cursor on it.
    fn object(
        &mut self,
        what: &dyn fmt::Display,
        mut entry: impl FnMut(&mut Self, Cow<'a, str>) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        self.expect(b'{', &format_args!("{what} (an object)"))?;
        if self.eat(b'}') {
            return Ok(());
        }
        loop {
            self.peek();
            self.key_at = self.pos;
            let key = self.string(&format_args!("a key in {what}"))?;
            self.expect(b':', &"`:` after a key")?;
            entry(self, key)?;
            if self.eat(b'}') {
                return Ok(());
            }
            self.expect(b',', &format_args!("`,` or `}}` in {what}"))?;
        }
    }

    /// Walks an array's elements.
    fn array(
        &mut self,
        what: &dyn fmt::Display,
        mut element: impl FnMut(&mut Self) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        self.expect(b'[', &format_args!("{what} (an array)"))?;
        if self.eat(b']') {
            return Ok(());
        }
        loop {
            element(self)?;
            if self.eat(b']') {
                return Ok(());
            }
            self.expect(b',', &format_args!("`,` or `]` in {what}"))?;
        }
    }

    /// Turns a value's read error into the load's error.
    /// `site` is only called on an error.
    fn value_result(
        &self,
        site: impl FnOnce() -> ValueSite,
        result: Result<usize, serde_json::Error>,
    ) -> Result<usize, LoadError> {
        result.map_err(|error| {
            if error.is_eof() {
                LoadError::Truncated { reading: site().to_string() }
            } else if error.to_string().starts_with("recursion limit exceeded") {
                // serde_json's own limit (its error kind is not public).
                LoadError::TooDeep { site: site(), at: self.relative_position(&error) }
            } else {
                LoadError::MalformedValue {
                    site: site(),
                    message: crate::data::without_position(&error),
                    at: self.relative_position(&error),
                }
            }
        })
    }
}

/// Which of its known keys an object of the scene's structure (the scene itself, an
/// entity record) has had so far, to refuse one written twice: JSON leaves a repeated
/// key's meaning open, and taking either value silently would load something the
/// file's author may not have meant. Keys not in `known` are left to the caller.
struct SeenKeys {
    known: &'static [&'static str],
    seen: u32,
}

impl SeenKeys {
    fn new(known: &'static [&'static str]) -> Self {
        SeenKeys { known, seen: 0 }
    }

    fn first_time(&mut self, cursor: &Cursor<'_>, key: &str, object: &dyn fmt::Display) -> Result<(), LoadError> {
        let Some(index) = self.known.iter().position(|&known| known == key) else { return Ok(()) };
        if self.seen & (1 << index) != 0 {
            return Err(LoadError::DuplicateKey {
                key: key.to_owned(),
                object: object.to_string(),
                at: cursor.position(cursor.key_at),
            });
        }
        self.seen |= 1 << index;
        Ok(())
    }
}

/// An upper bound on the entity records in `input`: each takes at least `{"id":1}`.
pub(crate) fn max_records(input: &[u8]) -> usize {
    input.len() / 8 + 1
}

/// Reads a JSON scene (or, with `commands`, a level) into `load`; returns where the
/// level's commands are in the input.
pub(crate) fn read_scene(load: &mut SceneLoad<'_>, input: &[u8], commands: bool) -> Result<Option<Range<usize>>, Stop> {
    let mut cursor = Cursor { input, pos: 0, key_at: 0 };
    if cursor.peek() != Some(b'{') {
        return Err(
            LoadError::NotAScene { message: "a JSON scene is an object with an \"entities\" array".into() }.into()
        );
    }
    let mut command_range = None;
    let mut seen = SeenKeys::new(&["format", "version", "resources", "entities", "commands"]);
    cursor.object(&"the scene", |cursor, key| {
        seen.first_time(cursor, &key, &"the scene")?;
        match &*key {
            "format" => {
                let format = cursor.string(&"the format's name")?;
                if format != "ripple-scene" {
                    return Err(LoadError::NotAScene { message: format!("the format is \"{format}\", not \"ripple-scene\"") }.into());
                }
            }
            "version" => {
                let (version, taken) = cursor.value::<u64>(&"the format version")?;
                if version != u64::from(FORMAT_VERSION) {
                    return Err(LoadError::UnsupportedVersion { found: version, supported: FORMAT_VERSION }.into());
                }
                cursor.pos += taken;
            }
            "resources" => cursor.object(&"\"resources\"", |cursor, name| {
                cursor.peek();
                let rest = &cursor.input[cursor.pos..];
                let result = load.resource(&name, |entry| (entry.read_json)(rest))?;
                let site = || ValueSite::Resource { name: name.into_owned() };
                cursor.pos += cursor.value_result(site, result)?;
                Ok(())
            })?,
            "entities" => cursor.array(&"\"entities\"", |cursor| read_record(load, cursor))?,
            "commands" if commands => command_range = Some(cursor.skip(&"the level's commands")?),
            "commands" => {
                return Err(cursor.key_error("a scene has no \"commands\" (load it as a level)").into());
            }
            other => {
                return Err(cursor.key_error(format!("unexpected key \"{other}\" (a scene has \"format\", \"version\", \"resources\" and \"entities\")")).into());
            }
        }
        Ok(())
    })?;
    if cursor.peek().is_some() {
        // `peek` left the cursor on the first trailing byte.
        return Err(cursor.syntax("trailing characters after the scene").into());
    }
    Ok(command_range)
}

/// Reads one entity record: `{"id": ..., "components": {...}}`.
fn read_record(load: &mut SceneLoad<'_>, cursor: &mut Cursor<'_>) -> Result<(), Stop> {
    let record = load.begin_record();
    let mut seen = SeenKeys::new(&["id", "components"]);
    cursor.object(&format_args!("entity {record}"), |cursor, key| {
        seen.first_time(cursor, &key, &format_args!("entity {record}"))?;
        match &*key {
            "id" => {
                let id = match cursor.plain_entity() {
                    Some(id) => id,
                    None => {
                        let what = format_args!("the id of entity {record}");
                        let (RawEntity(id), taken) = cursor.value::<RawEntity>(&what)?;
                        cursor.pos += taken;
                        id
                    }
                };
                load.id(id)?;
            }
            "components" => cursor.object(&format_args!("the components of entity {record}"), |cursor, name| {
                cursor.peek();
                let rest = &cursor.input[cursor.pos..];
                let result = load.component(&name, |staging| staging.read_json(rest))?;
                let site = || ValueSite::Component { entity: record, name: name.into_owned() };
                cursor.pos += cursor.value_result(site, result)?;
                Ok(())
            })?,
            other => {
                return Err(cursor
                    .syntax(format!(
                        "unexpected key \"{other}\" in entity {record} (expected \"id\" or \"components\")"
                    ))
                    .into());
            }
        }
        Ok(())
    })?;
    load.end_record()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_report_the_bytes_they_took() {
        assert_eq!(read_value::<u32>(b"  12, 3").unwrap(), (12, 4));
        assert_eq!(read_value::<Vec<u8>>(b"[1,2]}").unwrap(), (vec![1, 2], 5));
        assert!(read_value::<u32>(b"   ").unwrap_err().to_string().contains("EOF"));
    }

    #[test]
    fn positions_count_lines_and_columns_from_one() {
        assert_eq!(line_column(b"ab\ncd", 4), (2, 2));
        assert_eq!(line_column(b"ab", 0), (1, 1));
    }
}
