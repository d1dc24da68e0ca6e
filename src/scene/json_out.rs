//! The JSON scene writer's output: a buffer handed to the caller's writer in chunks
//! (so saving holds one chunk, not the whole text), the scene's punctuation, and
//! component values written by serde_json at the nesting level they sit at.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::Formatter;

/// Bytes gathered before they go to the caller's writer.
const CHUNK: usize = 64 * 1024;

/// Pretty or compact JSON, written through a buffer.
pub(crate) struct JsonOut {
    buf: Vec<u8>,
    pretty: bool,
}

impl JsonOut {
    pub(crate) fn new(pretty: bool) -> Self {
        JsonOut { buf: Vec::with_capacity(CHUNK + 4096), pretty }
    }

    /// Raw punctuation or a key that needs no escaping.
    #[inline]
    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// A line break and the indentation of `level` (nothing when compact).
    #[inline]
    pub(crate) fn line(&mut self, level: usize) {
        if self.pretty {
            self.buf.push(b'\n');
            self.buf.resize(self.buf.len() + 2 * level, b' ');
        }
    }

    /// `"key": ` (`"key":` when compact); `key` is one of the registry's names, which
    /// need no escaping.
    #[inline]
    pub(crate) fn key(&mut self, key: &str) {
        self.buf.push(b'"');
        self.buf.extend_from_slice(key.as_bytes());
        self.buf.extend_from_slice(if self.pretty { b"\": " } else { b"\":" });
    }

    /// An entity handle as a JSON string, `"<index>v<generation>"`.
    #[inline]
    pub(crate) fn entity(&mut self, entity: crate::entity::Entity) {
        // Writing to a `Vec` cannot fail.
        let _ = write!(self.buf, "\"{entity}\"");
    }

    /// A value whose first line sits at `level`; returns how many `null`s it wrote
    /// (serde_json writes one for `None`, `()`, a unit struct, and a NaN or infinite
    /// float).
    #[inline]
    pub(crate) fn value<T: Serialize + ?Sized>(&mut self, value: &T, level: usize) -> Result<u32, serde_json::Error> {
        if self.pretty {
            let mut formatter = Indented { level, has_value: false, nulls: 0 };
            value.serialize(&mut serde_json::Serializer::with_formatter(&mut self.buf, &mut formatter))?;
            Ok(formatter.nulls)
        } else {
            let mut formatter = Compact { nulls: 0 };
            value.serialize(&mut serde_json::Serializer::with_formatter(&mut self.buf, &mut formatter))?;
            Ok(formatter.nulls)
        }
    }

    /// Where the next byte goes (to forget a value's text with [`rewind`](Self::rewind)).
    #[inline]
    pub(crate) fn mark(&self) -> usize {
        self.buf.len()
    }

    /// Forgets what was written since `mark`.
    #[inline]
    pub(crate) fn rewind(&mut self, mark: usize) {
        self.buf.truncate(mark);
    }

    /// Hands the buffer to `writer` once it holds a chunk.
    #[inline]
    pub(crate) fn flush_if_full(&mut self, writer: &mut impl Write) -> io::Result<()> {
        if self.buf.len() >= CHUNK { self.flush(writer) } else { Ok(()) }
    }

    /// Hands everything buffered to `writer`.
    pub(crate) fn flush(&mut self, writer: &mut impl Write) -> io::Result<()> {
        writer.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

/// serde_json's pretty layout (two spaces per level), starting at a given level so a
/// component value lines up inside the scene around it.
struct Indented {
    level: usize,
    has_value: bool,
    /// `null`s written.
    nulls: u32,
}

/// serde_json's compact layout (its default `Formatter` methods), counting `null`s.
struct Compact {
    nulls: u32,
}

impl Formatter for &mut Compact {
    #[inline]
    fn write_null<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.nulls += 1;
        writer.write_all(b"null")
    }
}

impl Indented {
    fn indent<W: ?Sized + Write>(&self, writer: &mut W) -> io::Result<()> {
        for _ in 0..self.level {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl Indented {
    /// Opens an array or object with `bracket`, one level deeper.
    fn open<W: ?Sized + Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        writer.write_all(bracket)
    }

    /// Closes an array or object with `bracket`, on a line of its own if it has items.
    fn close<W: ?Sized + Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            writer.write_all(b"\n")?;
            self.indent(writer)?;
        }
        writer.write_all(bracket)
    }

    /// Starts an array item or an object key on a line of its own.
    fn item<W: ?Sized + Write>(&self, writer: &mut W, first: bool) -> io::Result<()> {
        writer.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(writer)
    }
}

impl Formatter for &mut Indented {
    #[inline]
    fn write_null<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.nulls += 1;
        writer.write_all(b"null")
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.item(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.item(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_nest_at_their_level_as_serde_json_would_lay_them_out() {
        #[derive(Serialize)]
        struct Point {
            x: i32,
            tags: Vec<u8>,
        }
        let point = Point { x: 1, tags: vec![2] };
        let mut out = JsonOut::new(true);
        out.value(&point, 0).unwrap();
        assert_eq!(String::from_utf8(out.buf.clone()).unwrap(), serde_json::to_string_pretty(&point).unwrap());
        let mut nested = JsonOut::new(true);
        nested.value(&point, 2).unwrap();
        assert_eq!(
            String::from_utf8(nested.buf).unwrap(),
            "{\n      \"x\": 1,\n      \"tags\": [\n        2\n      ]\n    }"
        );
        let mut compact = JsonOut::new(false);
        compact.value(&point, 2).unwrap();
        assert_eq!(String::from_utf8(compact.buf).unwrap(), r#"{"x":1,"tags":[2]}"#);
    }
}
