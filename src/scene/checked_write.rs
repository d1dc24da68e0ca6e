//! The serializer adapter saves write every value through, so that a save never
//! writes a file its own loader would refuse: it refuses a value nested past
//! [`NESTING_LIMIT`] (counted as the loaders count, see `nesting`), and, for JSON, a
//! float that is NaN or infinite, which serde_json would write as `null` and which
//! then would not load back as a number.
//!
//! The adapter also reports whether a value's shape can vary between values of its
//! type: an `Option`, an enum, a sequence or map, or a skipped field can; structs,
//! tuples, newtypes and scalars cannot. A save checks the first value of each column
//! and, when its shape is fixed, writes the others directly, since values of one such
//! type nest alike (in JSON it rewrites a value checked if it wrote a `null`, which is
//! how serde_json writes a NaN). The adapter costs as much as postcard's own writing,
//! and 6 % of a JSON save. A hand-written `Serialize` that varies its depth by other
//! means is still caught by the loader, which refuses such a value with a typed error.

use std::cell::Cell;
use std::fmt::Display;

use serde::ser::{
    self, Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleStruct, SerializeTupleVariant, Serializer,
};

use super::nesting::NESTING_LIMIT;

/// Why a value was refused before its format's serializer saw the problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Refusal {
    /// A float JSON cannot hold (NaN or ±infinity), as an `f64`.
    NotFinite(f64),
    /// Nested past [`NESTING_LIMIT`].
    TooDeep,
}

/// Why writing a value failed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum WriteError {
    /// A check of this module refused it.
    Refused(Refusal),
    /// The value's `Serialize` or the format failed, with the message.
    Format(String),
}

/// Whether values of a type can differ in shape (see the module's notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Only structs, tuples, newtypes and scalars: every value nests alike.
    Fixed,
    /// An `Option`, enum, sequence, map or skipped field was written.
    Varies,
}

/// Writes `value` with `write` (a format's serializer), checked: non-finite floats
/// refused if `finite`, nesting past the limit always. Returns the value's shape.
#[inline]
pub(crate) fn write_checked<T: ?Sized, E: Display>(
    value: &T,
    finite: bool,
    write: impl FnOnce(&Checked<'_, '_, T>) -> Result<(), E>,
) -> Result<Shape, WriteError> {
    let (refused, varies) = (Cell::new(None), Cell::new(false));
    match write(&Checked::new(value, Checks { finite, refused: &refused, varies: &varies })) {
        Ok(()) if varies.get() => Ok(Shape::Varies),
        Ok(()) => Ok(Shape::Fixed),
        Err(error) => Err(match refused.get() {
            Some(refusal) => WriteError::Refused(refusal),
            None => WriteError::Format(error.to_string()),
        }),
    }
}

/// What the adapter checks and where it reports: shared by every level of a value.
#[derive(Clone, Copy)]
pub(crate) struct Checks<'c> {
    /// Refuse non-finite floats (JSON).
    pub(crate) finite: bool,
    pub(crate) refused: &'c Cell<Option<Refusal>>,
    /// Set when the value's shape turns out to vary.
    pub(crate) varies: &'c Cell<bool>,
}

impl Checks<'_> {
    #[cold]
    #[inline(never)]
    fn refuse<E: ser::Error>(&self, refusal: Refusal) -> E {
        self.refused.set(Some(refusal));
        match refusal {
            Refusal::NotFinite(value) => E::custom(format_args!("{value} cannot be written in JSON")),
            Refusal::TooDeep => E::custom(format_args!("the value nests deeper than {NESTING_LIMIT} levels")),
        }
    }

    /// The levels left inside a compound that spends `cost` of `left`.
    #[inline]
    fn enter<E: ser::Error>(&self, left: u32, cost: u32) -> Result<u32, E> {
        left.checked_sub(cost).ok_or_else(|| self.refuse(Refusal::TooDeep))
    }

    /// Notes that the value's shape can vary.
    #[inline]
    fn varies(&self) {
        self.varies.set(true);
    }

    #[inline]
    fn float<E: ser::Error>(&self, value: f64) -> Result<(), E> {
        if self.finite && !value.is_finite() { Err(self.refuse(Refusal::NotFinite(value))) } else { Ok(()) }
    }
}

/// `value`, checked as it is serialized, at the top of a value.
pub(crate) struct Checked<'a, 'c, T: ?Sized> {
    value: &'a T,
    left: u32,
    checks: Checks<'c>,
}

impl<'a, 'c, T: ?Sized> Checked<'a, 'c, T> {
    pub(crate) fn new(value: &'a T, checks: Checks<'c>) -> Self {
        Checked { value, left: NESTING_LIMIT, checks }
    }
}

impl<T: Serialize + ?Sized> Serialize for Checked<'_, '_, T> {
    #[inline]
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(CheckedSerializer { inner: serializer, left: self.left, checks: self.checks })
    }
}

/// A serializer that checks what passes through it, `left` levels from the limit.
struct CheckedSerializer<'c, S> {
    inner: S,
    left: u32,
    checks: Checks<'c>,
}

/// A compound being written, its elements `left` levels from the limit.
struct Compound<'c, C> {
    inner: C,
    left: u32,
    checks: Checks<'c>,
}

impl<'c, C> Compound<'c, C> {
    #[inline]
    fn checked<'a, T: ?Sized>(&self, value: &'a T) -> Checked<'a, 'c, T> {
        Checked { value, left: self.left, checks: self.checks }
    }
}

macro_rules! forward {
    ($($method:ident($ty:ty))*) => {$(
        #[inline]
        fn $method(self, value: $ty) -> Result<S::Ok, S::Error> {
            self.inner.$method(value)
        }
    )*};
}

impl<'c, S: Serializer> CheckedSerializer<'c, S> {
    /// The compound `inner` made by `open`, if there is room for `cost` more levels.
    #[inline]
    fn open<C>(self, cost: u32, open: impl FnOnce(S) -> Result<C, S::Error>) -> Result<Compound<'c, C>, S::Error> {
        let left = self.checks.enter(self.left, cost)?;
        Ok(Compound { inner: open(self.inner)?, left, checks: self.checks })
    }

    /// `value` one level down, if there is room.
    #[inline]
    fn nested<'a, T: ?Sized>(&self, value: &'a T) -> Result<Checked<'a, 'c, T>, S::Error> {
        Ok(Checked { value, left: self.checks.enter(self.left, 1)?, checks: self.checks })
    }
}

impl<'c, S: Serializer> Serializer for CheckedSerializer<'c, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Compound<'c, S::SerializeSeq>;
    type SerializeTuple = Compound<'c, S::SerializeTuple>;
    type SerializeTupleStruct = Compound<'c, S::SerializeTupleStruct>;
    type SerializeTupleVariant = Compound<'c, S::SerializeTupleVariant>;
    type SerializeMap = Compound<'c, S::SerializeMap>;
    type SerializeStruct = Compound<'c, S::SerializeStruct>;
    type SerializeStructVariant = Compound<'c, S::SerializeStructVariant>;

    forward! {
        serialize_bool(bool) serialize_i8(i8) serialize_i16(i16) serialize_i32(i32) serialize_i64(i64)
        serialize_i128(i128) serialize_u8(u8) serialize_u16(u16) serialize_u32(u32) serialize_u64(u64)
        serialize_u128(u128) serialize_char(char) serialize_str(&str) serialize_bytes(&[u8])
        serialize_unit_struct(&'static str)
    }

    #[inline]
    fn serialize_f32(self, value: f32) -> Result<S::Ok, S::Error> {
        self.checks.float(f64::from(value))?;
        self.inner.serialize_f32(value)
    }

    #[inline]
    fn serialize_f64(self, value: f64) -> Result<S::Ok, S::Error> {
        self.checks.float(value)?;
        self.inner.serialize_f64(value)
    }

    #[inline]
    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        // A loader spends a level on every `Option`, `None` too (it cannot know which
        // it reads before it enters).
        self.checks.enter::<S::Error>(self.left, 1)?;
        self.checks.varies();
        self.inner.serialize_none()
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.checks.varies();
        let value = self.nested(value)?;
        self.inner.serialize_some(&value)
    }

    #[inline]
    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit()
    }

    #[inline]
    fn serialize_unit_variant(self, name: &'static str, index: u32, variant: &'static str) -> Result<S::Ok, S::Error> {
        // As for `None`: a loader spends a level on every enum.
        self.checks.enter::<S::Error>(self.left, 1)?;
        self.checks.varies();
        self.inner.serialize_unit_variant(name, index, variant)
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<S::Ok, S::Error> {
        let value = self.nested(value)?;
        self.inner.serialize_newtype_struct(name, &value)
    }

    #[inline]
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.checks.varies();
        let value = self.nested(value)?;
        self.inner.serialize_newtype_variant(name, index, variant, &value)
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.checks.varies();
        self.open(1, |s| s.serialize_seq(len))
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.open(1, |s| s.serialize_tuple(len))
    }

    #[inline]
    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.open(1, |s| s.serialize_tuple_struct(name, len))
    }

    #[inline]
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        // The enum and its contents: two levels, as the loaders count them.
        self.checks.varies();
        self.open(2, |s| s.serialize_tuple_variant(name, index, variant, len))
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.checks.varies();
        self.open(1, |s| s.serialize_map(len))
    }

    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeStruct, S::Error> {
        self.open(1, |s| s.serialize_struct(name, len))
    }

    #[inline]
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.checks.varies();
        self.open(2, |s| s.serialize_struct_variant(name, index, variant, len))
    }

    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.inner.collect_str(value)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! compound {
    ($($trait:ident { $($method:ident),* })*) => {$(
        impl<C: $trait> $trait for Compound<'_, C> {
            type Ok = C::Ok;
            type Error = C::Error;

            $(
                #[inline]
                fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
                    let value = self.checked(value);
                    self.inner.$method(&value)
                }
            )*

            #[inline]
            fn end(self) -> Result<C::Ok, C::Error> {
                self.inner.end()
            }
        }
    )*};
}

compound! {
    SerializeSeq { serialize_element }
    SerializeTuple { serialize_element }
    SerializeTupleStruct { serialize_field }
    SerializeTupleVariant { serialize_field }
    SerializeMap { serialize_key, serialize_value }
}

/// The struct compounds: fields with keys, which may be skipped (a skipped field
/// makes the shape vary).
macro_rules! keyed_compound {
    ($($trait:ident)*) => {$(
        impl<C: $trait> $trait for Compound<'_, C> {
            type Ok = C::Ok;
            type Error = C::Error;

            #[inline]
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), C::Error> {
                let value = self.checked(value);
                self.inner.serialize_field(key, &value)
            }

            fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
                self.checks.varies();
                self.inner.skip_field(key)
            }

            #[inline]
            fn end(self) -> Result<C::Ok, C::Error> {
                self.inner.end()
            }
        }
    )*};
}

keyed_compound! { SerializeStruct SerializeStructVariant }

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    enum Tree {
        Leaf,
        Node(Box<Tree>),
    }

    fn tree(depth: usize) -> Tree {
        (0..depth).fold(Tree::Leaf, |tree, _| Tree::Node(Box::new(tree)))
    }

    fn json<T: Serialize>(value: &T) -> (Result<String, serde_json::Error>, Option<Refusal>) {
        let (refused, varies) = (Cell::new(None), Cell::new(false));
        let checks = Checks { finite: true, refused: &refused, varies: &varies };
        let written = serde_json::to_string(&Checked::new(value, checks));
        (written, refused.get())
    }

    #[test]
    fn what_passes_is_written_as_it_would_be_without_the_checks() {
        type Mixed = (Option<Vec<(u8, String)>>, std::collections::BTreeMap<u8, [f32; 2]>, Result<u8, (u8, u8)>);
        let value: Mixed = (Some(vec![(1, "a".into())]), [(2, [3.5, f32::MIN_POSITIVE / 4.0])].into(), Err((5, 6)));
        assert_eq!(json(&value).0.unwrap(), serde_json::to_string(&value).unwrap());
        let (refused, varies) = (Cell::new(None), Cell::new(false));
        let checked = Checked::new(&value, Checks { finite: false, refused: &refused, varies: &varies });
        assert_eq!(postcard::to_stdvec(&checked).unwrap(), postcard::to_stdvec(&value).unwrap());
        // Within the limit (the leaf is the last level).
        assert!(json(&tree(NESTING_LIMIT as usize - 1)).0.is_ok());
    }

    #[test]
    fn a_value_whose_shape_can_vary_says_so() {
        fn shape<T: Serialize>(value: &T) -> Shape {
            let mut out = Vec::new();
            write_checked(value, false, |value| super::super::binary::write_value(value, &mut out)).unwrap()
        }
        #[derive(serde::Serialize)]
        struct Fixed {
            at: [f32; 3],
            name: String,
            pair: (u8, [u16; 2]),
        }
        assert_eq!(shape(&Fixed { at: [1.0; 3], name: "x".into(), pair: (1, [2, 3]) }), Shape::Fixed);
        assert_eq!(shape(&(1u8, None::<u8>)), Shape::Varies);
        assert_eq!(shape(&vec![1u8]), Shape::Varies);
        assert_eq!(shape(&tree(0)), Shape::Varies, "a unit variant");
        assert_eq!(shape(&Ok::<u8, u8>(1)), Shape::Varies);
        assert_eq!(shape(&std::collections::BTreeMap::<u8, u8>::new()), Shape::Varies);
    }

    #[test]
    fn non_finite_floats_and_values_past_the_limit_are_refused() {
        for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let (written, refused) = json(&(1.0f64, [value]));
            assert!(written.is_err());
            assert!(matches!(refused, Some(Refusal::NotFinite(v)) if v.to_bits() == value.to_bits()));
        }
        let (written, refused) = json(&std::collections::HashMap::from([(1u8, f32::NAN)]));
        assert!(written.is_err() && matches!(refused, Some(Refusal::NotFinite(_))));
        assert_eq!(json(&tree(NESTING_LIMIT as usize)).1, Some(Refusal::TooDeep));
    }
}
