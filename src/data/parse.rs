//! Reading commands out of JSON without copying them: a command's target and method
//! are borrowed from the input (unless escaped), its arguments kept as raw JSON for
//! the method to read into its own parameter types.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::error::DataCommandError;

/// Most arguments a data method takes.
pub(crate) const MAX_ARGS: usize = 8;

const SHAPE: &str = "a command is a JSON array: [\"target\", \"method\", arguments...]";

/// One command as read: names and raw arguments.
pub(crate) struct RawCommand<'a> {
    pub(crate) target: Cow<'a, str>,
    pub(crate) method: Cow<'a, str>,
    args: [Option<&'a RawValue>; MAX_ARGS],
    /// How many arguments the input has (may exceed `MAX_ARGS`; the rest are skipped).
    pub(crate) arg_count: usize,
}

impl<'a> RawCommand<'a> {
    /// The raw arguments, when there are at most `MAX_ARGS`.
    #[cfg(test)]
    fn args(&self) -> impl Iterator<Item = &'a RawValue> + '_ {
        self.args.iter().take(self.arg_count).map(|a| a.expect("counted arguments are kept"))
    }

    /// Raw argument `index`; the caller has checked the arity.
    pub(crate) fn arg(&self, index: usize) -> &'a RawValue {
        self.args[index].expect("arity checked before arguments are read")
    }
}

/// A string borrowed from the input when it can be.
struct Name<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl<'de> Visitor<'de> for NameVisitor {
            type Value = Name<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a name (a string)")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Borrowed(text)))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Owned(text.to_owned())))
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

impl<'de> de::Deserialize<'de> for RawCommand<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CommandVisitor;
        impl<'de> Visitor<'de> for CommandVisitor {
            type Value = RawCommand<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(SHAPE)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawCommand<'de>, A::Error> {
                let missing = |what| de::Error::custom(format_args!("the command has no {what}; {SHAPE}"));
                let target = seq.next_element::<Name<'de>>()?.ok_or_else(|| missing("target"))?.0;
                let method = seq.next_element::<Name<'de>>()?.ok_or_else(|| missing("method"))?.0;
                let mut args = [None; MAX_ARGS];
                let mut arg_count = 0;
                while arg_count < MAX_ARGS {
                    match seq.next_element::<&'de RawValue>()? {
                        Some(arg) => args[arg_count] = Some(arg),
                        None => return Ok(RawCommand { target, method, args, arg_count }),
                    }
                    arg_count += 1;
                }
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    arg_count += 1;
                }
                Ok(RawCommand { target, method, args, arg_count })
            }
        }
        deserializer.deserialize_seq(CommandVisitor)
    }
}

fn malformed(error: &serde_json::Error) -> DataCommandError {
    DataCommandError::Malformed { message: error.to_string() }
}

/// Reads one command.
pub(crate) fn parse_command(json: &[u8]) -> Result<RawCommand<'_>, DataCommandError> {
    serde_json::from_slice(json).map_err(|e| malformed(&e))
}

/// Calls `each` with every command of a batch (a JSON array of commands), in order,
/// stopping at the first error: a command's own (with its index), or the batch's.
pub(crate) fn for_each_in_batch<'a>(
    json: &'a [u8],
    each: impl FnMut(usize, RawCommand<'a>) -> Result<(), DataCommandError>,
) -> Result<(), (Option<usize>, DataCommandError)> {
    let mut failure = None;
    let batch = BatchSeed { each, failure: &mut failure };
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    let result = batch.deserialize(&mut deserializer).and_then(|()| deserializer.end());
    match (failure, result) {
        (Some(failure), _) => Err(failure),
        (None, Err(error)) => Err((None, malformed(&error))),
        (None, Ok(())) => Ok(()),
    }
}

struct BatchSeed<'f, F> {
    each: F,
    failure: &'f mut Option<(Option<usize>, DataCommandError)>,
}

impl<'de, F: FnMut(usize, RawCommand<'de>) -> Result<(), DataCommandError>> DeserializeSeed<'de> for BatchSeed<'_, F> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, F: FnMut(usize, RawCommand<'de>) -> Result<(), DataCommandError>> Visitor<'de> for BatchSeed<'_, F> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a batch: a JSON array of commands, where {SHAPE}")
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        loop {
            let command = match seq.next_element::<&'de RawValue>()? {
                None => return Ok(()),
                Some(raw) => raw,
            };
            let outcome = serde_json::from_str::<RawCommand<'de>>(command.get())
                .map_err(|e| DataCommandError::Malformed { message: super::method::without_position(&e) })
                .and_then(|command| (self.each)(index, command));
            if let Err(error) = outcome {
                *self.failure = Some((Some(index), error));
                return Err(de::Error::custom("stopped at a failing command"));
            }
            index += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_read_with_their_raw_arguments() {
        let command = parse_command(br#"["health", "apply_damage", "3v1", 10]"#).unwrap();
        assert_eq!((&*command.target, &*command.method, command.arg_count), ("health", "apply_damage", 2));
        let args: Vec<_> = command.args().map(RawValue::get).collect();
        assert_eq!(args, ["\"3v1\"", "10"]);
        let many = parse_command(br#"["t","m",1,2,3,4,5,6,7,8,9,10]"#).unwrap();
        assert_eq!(many.arg_count, 10);
    }

    #[test]
    fn malformed_input_says_what_a_command_looks_like() {
        for bad in [&b"{}"[..], b"[]", b"[\"gui\"]", b"[1, 2]", b"not json", b"[\"a\",\"b\"] trailing"] {
            let error = parse_command(bad).err().expect("refused");
            assert!(matches!(error, DataCommandError::Malformed { .. }), "{error}");
        }
        let error = parse_command(b"[\"gui\"]").err().unwrap().to_string();
        assert!(error.contains("the command has no method"), "{error}");
    }

    #[test]
    fn a_batch_reports_the_index_of_its_first_bad_command() {
        let mut seen = Vec::new();
        let result = for_each_in_batch(br#"[["a","b"], ["c","d",1], 5, ["e","f"]]"#, |i, c| {
            seen.push((i, c.target.into_owned()));
            Ok(())
        });
        assert_eq!(seen, [(0, "a".to_owned()), (1, "c".to_owned())]);
        assert!(matches!(result, Err((Some(2), DataCommandError::Malformed { .. }))));
        assert!(matches!(for_each_in_batch(b"{", |_, _| Ok(())), Err((None, _))));
    }
}
