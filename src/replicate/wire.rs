//! The bytes of a delta.
//!
//! ```text
//! delta   := magic:u8 version:u8 schema:u32le seq:varint flags:u8 body
//! body    := count:varint record* orders:varint order*
//! record  := entity:varint header:varint [removed:varint] value*
//! order   := parent:varint count:varint child:varint*
//! ```
//!
//! Entities are the peer's handles (each peer numbers the entities it hears of from 0),
//! as the 64 bits of `Entity::to_bits`. A record's
//! header holds the set of components whose values follow (bit `c` for the registry's
//! `c`-th component, shifted past the three flag bits) and its flags: `FULL` (the
//! listed components are all the entity has; the receiver removes the others),
//! `DESPAWN` (gone), `DESPAWN | FULL` (out of the peer's view: kept as an empty
//! stand-in), and `REMOVED` (a set of removed components follows the header). Values
//! follow in ascending component order, each in postcard. Varints are postcard's
//! (LEB128), so a record of one changed component costs the entity, one header byte
//! and the value.

use crate::scene::SceneRegistry;

use super::error::DeltaError;

/// First byte of every delta.
pub(crate) const MAGIC: u8 = 0xD7;
/// The format this module writes and reads.
pub(crate) const VERSION: u8 = 2;
/// `flags`: the delta is a snapshot of everything the peer sees; the receiver empties
/// the entities it holds from this sender that the snapshot does not name (they stay as
/// stand-ins).
pub(crate) const SNAPSHOT: u8 = 1;

/// Record flag: the components listed are all the entity has.
pub(crate) const FULL: u64 = 1;
/// Record flag: the entity is gone (from the peer's view).
pub(crate) const DESPAWN: u64 = 2;
/// Record flags: the entity left the peer's view but lives on.
pub(crate) const HIDE: u64 = DESPAWN | FULL;
/// Record flag: a set of removed components follows the header.
pub(crate) const REMOVED: u64 = 4;
/// Bits of a record header below the component set.
pub(crate) const FLAG_BITS: u32 = 3;

/// The most component types a replication registry may hold (the set must fit a
/// header beside the flags).
pub const MAX_REPLICATED_COMPONENTS: usize = (u64::BITS - FLAG_BITS) as usize;

/// What a record says of its entity.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum RecordKind {
    /// Values set and components removed.
    Diff,
    /// Everything the entity has.
    Whole,
    /// Out of the view, alive: kept as an empty stand-in.
    Hide,
    /// Despawned.
    Gone,
}

/// The kind of a record with `flags` (the header's flag bits) and values `set`.
pub(crate) fn record_kind(at: usize, flags: u64, set: u64) -> Result<RecordKind, DeltaError> {
    match flags & !REMOVED {
        0 => Ok(RecordKind::Diff),
        FULL => Ok(RecordKind::Whole),
        HIDE if set == 0 && flags == HIDE => Ok(RecordKind::Hide),
        DESPAWN if set == 0 && flags == DESPAWN => Ok(RecordKind::Gone),
        _ => Err(DeltaError::Malformed { at, what: "a despawn or hide record with values" }),
    }
}

/// The set of the first `n` registered components.
pub(crate) fn component_mask(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Appends `value` as a LEB128 varint.
#[inline]
pub(crate) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A reader over a delta's bytes that knows its position, for errors.
pub(crate) struct Reader<'a> {
    pub(crate) input: &'a [u8],
    pub(crate) at: usize,
}

/// What was malformed, and at which byte.
#[derive(Debug)]
pub(crate) struct Malformed {
    pub(crate) at: usize,
    pub(crate) what: &'static str,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(input: &'a [u8]) -> Self {
        Reader { input, at: 0 }
    }

    pub(crate) fn rest(&self) -> &'a [u8] {
        &self.input[self.at..]
    }

    pub(crate) fn byte(&mut self, what: &'static str) -> Result<u8, Malformed> {
        let byte = *self.input.get(self.at).ok_or(Malformed { at: self.at, what })?;
        self.at += 1;
        Ok(byte)
    }

    pub(crate) fn u32_le(&mut self, what: &'static str) -> Result<u32, Malformed> {
        let bytes = self.input.get(self.at..self.at + 4).ok_or(Malformed { at: self.at, what })?;
        self.at += 4;
        Ok(u32::from_le_bytes(bytes.try_into().expect("four bytes")))
    }

    /// A LEB128 varint of at most 64 bits.
    #[inline]
    pub(crate) fn varint(&mut self, what: &'static str) -> Result<u64, Malformed> {
        // One byte (record headers, small counts) is the common case.
        if let Some(&byte) = self.input.get(self.at)
            && byte < 0x80
        {
            self.at += 1;
            return Ok(u64::from(byte));
        }
        self.varint_long(what)
    }

    fn varint_long(&mut self, what: &'static str) -> Result<u64, Malformed> {
        let start = self.at;
        let rest = self.input.get(start..).unwrap_or(&[]);
        // Up to eight bytes at once (entity handles take five): the first byte without
        // a continuation bit ends the varint, and the 7-bit groups before it are
        // packed together pairwise, then by fours, then by eights.
        if let Some(bytes) = rest.first_chunk::<8>() {
            let word = u64::from_le_bytes(*bytes);
            let ends = !word & 0x8080_8080_8080_8080;
            if ends != 0 {
                let len = ends.trailing_zeros() / 8 + 1;
                let mut x = if len == 8 { word } else { word & ((1u64 << (8 * len)) - 1) };
                x &= 0x7F7F_7F7F_7F7F_7F7F;
                x = ((x & 0x7F00_7F00_7F00_7F00) >> 1) | (x & 0x007F_007F_007F_007F);
                x = ((x & 0x3FFF_0000_3FFF_0000) >> 2) | (x & 0x0000_3FFF_0000_3FFF);
                x = ((x & 0x0FFF_FFFF_0000_0000) >> 4) | (x & 0x0000_0000_0FFF_FFFF);
                self.at = start + len as usize;
                return Ok(x);
            }
        }
        let mut value = 0u64;
        let mut i = 0;
        while i < rest.len() && i < 10 {
            let byte = rest[i];
            value |= u64::from(byte & 0x7F) << (7 * i);
            if byte < 0x80 {
                // The tenth byte holds the 64th bit only.
                if i == 9 && byte > 1 {
                    break;
                }
                self.at = start + i + 1;
                return Ok(value);
            }
            i += 1;
        }
        Err(Malformed { at: start, what })
    }

    /// A count of items that each take at least one byte: never more than the bytes
    /// left, so a corrupt count cannot make the reader reserve much.
    pub(crate) fn count(&mut self, what: &'static str) -> Result<usize, Malformed> {
        let start = self.at;
        let count = self.varint(what)?;
        if count > (self.input.len() - self.at) as u64 {
            return Err(Malformed { at: start, what });
        }
        Ok(count as usize)
    }

    pub(crate) fn skip(&mut self, bytes: usize) {
        self.at += bytes;
    }
}

/// Reads a delta's header: checks the magic byte, the version and the registry
/// `fingerprint`; returns the sequence number and the flags.
pub(crate) fn read_header(reader: &mut Reader<'_>, fingerprint: u32) -> Result<(u64, u8), DeltaError> {
    if reader.byte("magic").ok() != Some(MAGIC) {
        return Err(DeltaError::NotADelta);
    }
    let version = reader.byte("version")?;
    if version != VERSION {
        return Err(DeltaError::Version { found: version });
    }
    let found = reader.u32_le("registry fingerprint")?;
    if found != fingerprint {
        return Err(DeltaError::Schema { expected: fingerprint, found });
    }
    let seq = reader.varint("sequence number")?;
    let flags = reader.byte("flags")?;
    if flags & !SNAPSHOT != 0 {
        return Err(DeltaError::Malformed { at: reader.at - 1, what: "flags" });
    }
    Ok((seq, flags))
}

/// A fingerprint of the registry's components in order, each by its name and its
/// type's shape: a sender and a receiver whose registries differ (another name, another
/// order, or a type of the same name that reads other data) refuse each other's deltas
/// instead of misreading them.
pub(crate) fn fingerprint(registry: &SceneRegistry) -> u32 {
    // FNV-1a over the names, each closed by a zero byte, and the shapes.
    let mut hash: u32 = 0x811c_9dc5;
    let mut eat = |byte: u8| {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    };
    for entry in &registry.components {
        entry.name.bytes().chain([0]).for_each(&mut eat);
        entry.shape().to_le_bytes().into_iter().for_each(&mut eat);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_refuse_overlong_input() {
        let mut values = vec![0, 1, 127, 128, 300, u64::from(u32::MAX) + 5, u64::MAX];
        values.extend((0..64).map(|bit| (1u64 << bit) | 0x5555_5555_5555_5555 >> (63 - bit)));
        for value in values {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            // Long input too, for the eight-byte reader.
            let mut long = out.clone();
            long.extend_from_slice(&[0xFF; 9]);
            let mut reader = Reader::new(&long);
            assert_eq!(reader.varint("v").unwrap(), value);
            assert_eq!(reader.at, out.len());
            assert_eq!(out, postcard::to_stdvec(&value).unwrap(), "postcard's encoding");
            let mut reader = Reader::new(&out);
            assert_eq!(reader.varint("v").unwrap(), value);
            assert_eq!(reader.at, out.len());
        }
        assert!(Reader::new(&[0xFF; 11]).varint("v").is_err(), "too long");
        assert!(Reader::new(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02]).varint("v").is_err());
        assert!(Reader::new(&[0x80]).varint("v").is_err(), "truncated");
        assert!(Reader::new(&[5, 1, 2]).count("c").is_err(), "more items than bytes");
    }
}
