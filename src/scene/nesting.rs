//! A bound on how deeply a scene's values nest, and the deserializer adapter that
//! enforces it on binary input.
//!
//! Deserializing a recursive type (`enum Tree { Leaf, Node(Box<Tree>) }`) recurses
//! once per level, so an input that nests a million levels would overflow the stack
//! and abort the process. serde_json stops at its own limit; postcard has none, so
//! binary values are read through [`Nested`], which counts levels and refuses the
//! value past [`NESTING_LIMIT`]. Saves check the same count (see `checked_write`), so
//! a save never writes a value its loader would refuse.
//!
//! A level is one compound of serde's data model: an `Option`'s `Some`, a newtype
//! struct, a sequence, tuple, map or struct, an enum, and one more for the contents
//! of a tuple or struct variant. JSON spends at most as many (serde_json counts only
//! arrays and objects, two for a tuple or struct variant), so a value within the limit
//! here is within serde_json's too.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};

/// How many levels a component's or resource's value may nest: one less than
/// serde_json's recursion limit, which refuses the 128th array or object.
pub const NESTING_LIMIT: u32 = 127;

/// Why a binary value could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// postcard's error (malformed or truncated input, or the type's own refusal).
    Value(postcard::Error),
    /// The value nests deeper than [`NESTING_LIMIT`].
    TooDeep,
    /// A runtime component's codec (or size check) refused the value, saying why.
    Refused(String),
}

/// Reads one `T` from `input`, refusing a value nested past [`NESTING_LIMIT`].
#[inline]
pub(crate) fn read_binary<'de, T: serde::Deserialize<'de>, F: postcard::de_flavors::Flavor<'de>>(
    input: &mut postcard::Deserializer<'de, F>,
) -> Result<T, ReadError> {
    let exceeded = Cell::new(false);
    T::deserialize(Nested::new(input, &exceeded))
        .map_err(|error| if exceeded.get() { ReadError::TooDeep } else { ReadError::Value(error) })
}

/// A deserializer that refuses values nested more than `left` more levels, setting
/// `exceeded` when it does (the format's error type cannot say why).
pub(crate) struct Nested<'c, D> {
    inner: D,
    left: u32,
    exceeded: &'c Cell<bool>,
}

impl<'c, D> Nested<'c, D> {
    /// `inner` at the top of a value: [`NESTING_LIMIT`] levels left.
    pub(crate) fn new(inner: D, exceeded: &'c Cell<bool>) -> Self {
        Nested { inner, left: NESTING_LIMIT, exceeded }
    }
}

/// The levels left inside a compound that spends `cost` of `left`, or the error.
#[inline]
fn enter<E: de::Error>(left: u32, cost: u32, exceeded: &Cell<bool>) -> Result<u32, E> {
    match left.checked_sub(cost) {
        Some(inside) => Ok(inside),
        None => Err(too_deep(exceeded)),
    }
}

#[cold]
#[inline(never)]
fn too_deep<E: de::Error>(exceeded: &Cell<bool>) -> E {
    exceeded.set(true);
    E::custom(format_args!("the value nests deeper than {NESTING_LIMIT} levels"))
}

macro_rules! forward_scalars {
    ($($method:ident)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method(visitor)
        }
    )*};
}

macro_rules! forward_compounds {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            let left = enter(self.left, 1, self.exceeded)?;
            self.inner.$method($($arg,)* NestedVisitor { inner: visitor, left, exceeded: self.exceeded })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Nested<'_, D> {
    type Error = D::Error;

    forward_scalars! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char deserialize_str deserialize_string
        deserialize_bytes deserialize_byte_buf deserialize_unit deserialize_identifier
    }

    forward_compounds! {
        deserialize_any()
        deserialize_ignored_any()
        deserialize_option()
        deserialize_seq()
        deserialize_map()
        deserialize_newtype_struct(name: &'static str)
        deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_unit_struct(name, visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// A visitor whose nested deserializers and accessors have `left` levels.
struct NestedVisitor<'c, V> {
    inner: V,
    left: u32,
    exceeded: &'c Cell<bool>,
}

impl<'c, V> NestedVisitor<'c, V> {
    fn wrap<T>(&self, inner: T) -> Nested<'c, T> {
        Nested { inner, left: self.left, exceeded: self.exceeded }
    }
}

macro_rules! forward_visits {
    ($($method:ident($ty:ty))*) => {$(
        #[inline]
        fn $method<E: de::Error>(self, value: $ty) -> Result<Self::Value, E> {
            self.inner.$method(value)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for NestedVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visits! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64) visit_i128(i128)
        visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64) visit_u128(u128)
        visit_f32(f32) visit_f64(f64) visit_char(char) visit_str(&str) visit_borrowed_str(&'de str)
        visit_string(String) visit_bytes(&[u8]) visit_borrowed_bytes(&'de [u8]) visit_byte_buf(Vec<u8>)
    }

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_none()
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_unit()
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let nested = self.wrap(deserializer);
        self.inner.visit_some(nested)
    }

    #[inline]
    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let nested = self.wrap(deserializer);
        self.inner.visit_newtype_struct(nested)
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let nested = self.wrap(seq);
        self.inner.visit_seq(nested)
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let nested = self.wrap(map);
        self.inner.visit_map(nested)
    }

    #[inline]
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        let nested = self.wrap(data);
        self.inner.visit_enum(nested)
    }
}

/// A `DeserializeSeed` whose deserializer has `left` levels.
struct NestedSeed<'c, S> {
    inner: S,
    left: u32,
    exceeded: &'c Cell<bool>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for NestedSeed<'_, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Nested { inner: deserializer, left: self.left, exceeded: self.exceeded })
    }
}

impl<'c, A> Nested<'c, A> {
    fn nested_seed<S>(&self, inner: S) -> NestedSeed<'c, S> {
        NestedSeed { inner, left: self.left, exceeded: self.exceeded }
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Nested<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, wrapped: T) -> Result<Option<T::Value>, A::Error> {
        let wrapped = self.nested_seed(wrapped);
        self.inner.next_element_seed(wrapped)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Nested<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, wrapped: K) -> Result<Option<K::Value>, A::Error> {
        let wrapped = self.nested_seed(wrapped);
        self.inner.next_key_seed(wrapped)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, wrapped: V) -> Result<V::Value, A::Error> {
        let wrapped = self.nested_seed(wrapped);
        self.inner.next_value_seed(wrapped)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, 'c, A: EnumAccess<'de>> EnumAccess<'de> for Nested<'c, A> {
    type Error = A::Error;
    type Variant = Nested<'c, A::Variant>;

    #[inline]
    fn variant_seed<V: DeserializeSeed<'de>>(self, wrapped: V) -> Result<(V::Value, Self::Variant), A::Error> {
        let (left, exceeded) = (self.left, self.exceeded);
        let (value, variant) = self.inner.variant_seed(wrapped)?;
        Ok((value, Nested { inner: variant, left, exceeded }))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Nested<'_, A> {
    type Error = A::Error;

    #[inline]
    fn unit_variant(self) -> Result<(), A::Error> {
        self.inner.unit_variant()
    }

    #[inline]
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, wrapped: T) -> Result<T::Value, A::Error> {
        let wrapped = self.nested_seed(wrapped);
        self.inner.newtype_variant_seed(wrapped)
    }

    #[inline]
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        let left = enter(self.left, 1, self.exceeded)?;
        self.inner.tuple_variant(len, NestedVisitor { inner: visitor, left, exceeded: self.exceeded })
    }

    #[inline]
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let left = enter(self.left, 1, self.exceeded)?;
        self.inner.struct_variant(fields, NestedVisitor { inner: visitor, left, exceeded: self.exceeded })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    enum Tree {
        Leaf,
        Node(Box<Tree>),
    }

    /// `Node` `depth` times, then `Leaf`, in postcard.
    fn tree(depth: usize) -> Vec<u8> {
        let mut bytes = vec![1; depth];
        bytes.push(0);
        bytes
    }

    fn read<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> (Result<T, postcard::Error>, bool) {
        let exceeded = Cell::new(false);
        let mut input = postcard::Deserializer::from_bytes(bytes);
        (T::deserialize(Nested::new(&mut input, &exceeded)), exceeded.get())
    }

    #[test]
    fn a_value_within_the_limit_reads_as_it_would_without_it() {
        let (tree, exceeded) = read::<Tree>(&tree(NESTING_LIMIT as usize - 1));
        let mut depth = 0;
        let mut at = &tree.unwrap();
        while let Tree::Node(next) = at {
            depth += 1;
            at = next;
        }
        assert_eq!((depth, exceeded), (NESTING_LIMIT - 1, false));
        // Every kind of compound passes through unchanged.
        type Mixed = (Option<Vec<(u8, String)>>, std::collections::BTreeMap<u8, [u16; 2]>, Result<u8, (u8, u8)>);
        let value: Mixed = (Some(vec![(1, "a".into())]), [(2, [3, 4])].into(), Err((5, 6)));
        let bytes = postcard::to_stdvec(&(&value.0, &value.1, &value.2)).unwrap();
        let (read, exceeded) = read::<Mixed>(&bytes);
        assert_eq!((read.unwrap(), exceeded), (value, false));
    }

    #[test]
    fn a_value_past_the_limit_is_refused_without_recursing_further() {
        let (read_tree, exceeded) = read::<Tree>(&tree(NESTING_LIMIT as usize));
        assert!(read_tree.is_err() && exceeded);
        // A million levels: refused at the limit, long before the stack runs out.
        let (read_tree, exceeded) = read::<Tree>(&tree(1_000_000));
        assert!(read_tree.is_err() && exceeded);
        let (options, exceeded) = read::<Option<Option<Option<u8>>>>(&[1, 1, 1, 7]);
        assert_eq!((options.unwrap(), exceeded), (Some(Some(Some(7))), false));
    }
}
