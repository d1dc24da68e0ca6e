//! [`read_value`]: one JSON value from the start of a byte slice, for the scene
//! reader and the component entries that read their own values.

use serde::de::DeserializeOwned;

/// Reads one value of `T` from the start of `input` (after any whitespace); returns
/// it and the bytes it took.
#[inline]
pub(crate) fn read_value<T: DeserializeOwned>(input: &[u8]) -> Result<(T, usize), serde_json::Error> {
    let mut stream = serde_json::Deserializer::from_slice(input).into_iter::<T>();
    match stream.next() {
        Some(Ok(value)) => Ok((value, stream.byte_offset())),
        Some(Err(error)) => Err(error),
        None => Err(serde::de::Error::custom("EOF while parsing a value")),
    }
}
