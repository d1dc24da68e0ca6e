//! The binary scene format: postcard values in a small frame.
//!
//! ```text
//! magic     b"RPLSCENE"
//! version   u16, little-endian (FORMAT_VERSION)
//! names     varint n, then n component names (varint length + UTF-8)
//! resources varint n, then n × (name: varint length + UTF-8, value: postcard)
//! entities  varint n (all runs together), then runs until n entities are read, each
//!           the entities of consecutive records with the same components:
//!             components  varint c, then c name indices (varint)
//!             entities    varint k (at least 1), then k ids: the first as a varint
//!                         u64 (the handle's bits when saved), each next one as the
//!                         zigzag varint of its difference from the one before
//!                         (wrapping), one byte for consecutive handles
//!             values      for each of the c components, k postcard values
//! ```
//!
//! Storing a run column by column keeps the per-value work of saving and loading to
//! the value itself.
//!
//! Varints are postcard's (LEB128: seven bits per byte, low first), so the whole file
//! is plain postcard after the magic and version.

use serde::Serialize;

/// The first bytes of every binary scene.
pub(crate) const MAGIC: &[u8; 8] = b"RPLSCENE";
/// The version this build writes and reads.
pub(crate) const FORMAT_VERSION: u16 = 1;

/// Appends `value` as a varint.
#[inline]
pub(crate) fn write_varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a varint from the start of `input`: the value and the bytes it took, or
/// `None` if the input ends first or the number overflows 64 bits.
#[inline]
pub(crate) fn read_varint(input: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in input.iter().enumerate().take(10) {
        let bits = u64::from(byte & 0x7f);
        if i == 9 && byte > 1 {
            return None;
        }
        value |= bits << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// Zigzag encoding of the wrapping difference `next - previous`: small either way.
#[inline]
pub(crate) fn id_delta(previous: u64, next: u64) -> u64 {
    let delta = next.wrapping_sub(previous) as i64;
    ((delta << 1) ^ (delta >> 63)) as u64
}

/// The id `delta` (from [`id_delta`]) after `previous`.
#[inline]
pub(crate) fn id_after(previous: u64, delta: u64) -> u64 {
    let difference = ((delta >> 1) as i64) ^ -((delta & 1) as i64);
    previous.wrapping_add(difference as u64)
}

/// Appends a length-prefixed string.
pub(crate) fn write_str(text: &str, out: &mut Vec<u8>) {
    write_varint(text.len() as u64, out);
    out.extend_from_slice(text.as_bytes());
}

/// postcard's output straight into the scene's buffer.
struct Append<'a>(&'a mut Vec<u8>);

impl postcard::ser_flavors::Flavor for Append<'_> {
    type Output = ();

    #[inline(always)]
    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.0.push(byte);
        Ok(())
    }

    #[inline(always)]
    fn try_extend(&mut self, bytes: &[u8]) -> postcard::Result<()> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }

    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

/// Appends `value` in postcard.
#[inline]
pub(crate) fn write_value<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<(), postcard::Error> {
    postcard::serialize_with_flavor(value, Append(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_are_postcards() {
        for value in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut ours = Vec::new();
            write_varint(value, &mut ours);
            assert_eq!(ours, postcard::to_stdvec(&value).unwrap(), "{value}");
            assert_eq!(read_varint(&ours), Some((value, ours.len())));
            assert_eq!(read_varint(&ours[..ours.len() - 1]), None, "truncated {value}");
        }
        assert_eq!(read_varint(&[0xff; 10]), None, "overflow");
        for (previous, next) in [(5, 6), (6, 5), (0, u64::MAX), (u64::MAX, 0), (1 << 32, 7 << 40), (3, 3)] {
            let delta = id_delta(previous, next);
            assert_eq!(id_after(previous, delta), next, "{previous} -> {next}");
        }
        assert_eq!(id_delta(5, 6), 2);
        assert_eq!(id_delta(6, 5), 1);
        assert_eq!(read_varint(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]), None);
    }
}
