//! The bytes of a delta.
//!
//! ```text
//! delta   := magic:u8 version:u8 schema:u32le seq:varint flags:u8 body
//! body    := count:varint record* orders:varint order*
//! record  := entity:varint header:varint [removed:varint] value*
//! order   := parent:varint count:varint child:varint*
//! ```
//!
//! Entities are the sender's handles, as the 64 bits of `Entity::to_bits`. A record's
//! header holds the set of components whose values follow (bit `c` for the registry's
//! `c`-th component, shifted past the three flag bits) and its flags: `FULL` (the
//! listed components are all the entity has; the receiver removes the others),
//! `DESPAWN`, and `REMOVED` (a set of removed components follows the header). Values
//! follow in ascending component order, each in postcard. Varints are postcard's
//! (LEB128), so a record of one changed component costs the entity, one header byte
//! and the value.

/// First byte of every delta.
pub(crate) const MAGIC: u8 = 0xD7;
/// The format this module writes and reads.
pub(crate) const VERSION: u8 = 1;
/// `flags`: the delta is a snapshot of everything the peer sees; the receiver drops
/// the entities it holds from this sender that the snapshot does not name.
pub(crate) const SNAPSHOT: u8 = 1;

/// Record flag: the components listed are all the entity has.
pub(crate) const FULL: u64 = 1;
/// Record flag: the entity is gone (from the peer's view).
pub(crate) const DESPAWN: u64 = 2;
/// Record flag: a set of removed components follows the header.
pub(crate) const REMOVED: u64 = 4;
/// Bits of a record header below the component set.
pub(crate) const FLAG_BITS: u32 = 3;

/// The most component types a replication registry may hold (the set must fit a
/// header beside the flags).
pub const MAX_REPLICATED_COMPONENTS: usize = (u64::BITS - FLAG_BITS) as usize;

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
    pub(crate) fn varint(&mut self, what: &'static str) -> Result<u64, Malformed> {
        let start = self.at;
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte(what).map_err(|_| Malformed { at: start, what })?;
            let bits = u64::from(byte & 0x7F);
            if shift == 63 && bits > 1 {
                return Err(Malformed { at: start, what });
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
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

/// A fingerprint of the registry's component names in order: a sender and a receiver
/// whose registries differ refuse each other's deltas instead of misreading them.
pub(crate) fn fingerprint<'a>(names: impl Iterator<Item = &'a str>) -> u32 {
    // FNV-1a over the names, each closed by a zero byte.
    let mut hash: u32 = 0x811c_9dc5;
    for name in names {
        for byte in name.bytes().chain([0]) {
            hash ^= u32::from(byte);
            hash = hash.wrapping_mul(0x0100_0193);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_refuse_overlong_input() {
        for value in [0, 1, 127, 128, 300, u64::from(u32::MAX) + 5, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
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
