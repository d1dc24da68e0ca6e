//! Shapes: a fingerprint of the data a registered type reads, so that two programs
//! whose types share a name but not a layout of data (`Hp(u32)` here, `Hp(i32)`
//! there) find out before one misreads the other's bytes.
//!
//! A type's shape is traced from its `Deserialize`: the type is read from a tracing
//! deserializer that answers every request with a small made-up value and hashes what
//! was asked (`u32`, a struct named `Hp` with fields `x` and `y`, a sequence of…, an
//! enum with variants…), in binary form as postcard reads it. Sequences, maps and
//! options are followed one element deep down to [`MAX_DEPTH`] levels, so recursive
//! types end; each enum variant's contents are traced in a run of their own (up to
//! [`MAX_RUNS`] runs). A type whose `Deserialize` refuses the made-up values (or asks
//! for self-describing data, which postcard cannot give either) is fingerprinted by
//! its size and alignment instead.

use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};

/// How deep containers are followed.
const MAX_DEPTH: u32 = 16;
/// How many runs trace one type (one per enum variant beyond the first, in order met).
const MAX_RUNS: usize = 64;

/// The shape of `T`'s data.
pub(crate) fn of<T: DeserializeOwned>() -> u64 {
    let traced = std::panic::catch_unwind(trace::<T>);
    match traced {
        Ok(Some(hash)) => hash,
        // Untraceable: the layout is what is left to compare.
        _ => {
            let mut hash = Fnv::default();
            hash.token("untraced", &[]);
            hash.bytes(&size_of::<T>().to_le_bytes());
            hash.bytes(&align_of::<T>().to_le_bytes());
            hash.0
        }
    }
}

/// The shape of a component defined at run time: its size and alignment (its codec's
/// data is its own).
pub(crate) fn of_layout(size: usize, align: usize) -> u64 {
    let mut hash = Fnv::default();
    hash.token("runtime", &[]);
    hash.bytes(&size.to_le_bytes());
    hash.bytes(&align.to_le_bytes());
    hash.0
}

fn trace<T: DeserializeOwned>() -> Option<u64> {
    let mut hash = Fnv::default();
    let mut first = Run::new(None);
    T::deserialize(&mut first).ok()?;
    hash.bytes(&first.hash.0.to_le_bytes());
    // Every other variant of every enum met on the first run, one run each.
    let mut runs = 1;
    'enums: for (occurrence, &variants) in first.enums.iter().enumerate() {
        for variant in 1..variants {
            if runs == MAX_RUNS {
                break 'enums;
            }
            runs += 1;
            let mut run = Run::new(Some((occurrence, variant)));
            T::deserialize(&mut run).ok()?;
            hash.bytes(&run.hash.0.to_le_bytes());
        }
    }
    Some(hash.0)
}

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// A request's kind and the names it carries, each closed by a zero byte.
    fn token(&mut self, kind: &str, names: &[&str]) {
        self.bytes(kind.as_bytes());
        self.bytes(&[0]);
        for name in names {
            self.bytes(name.as_bytes());
            self.bytes(&[0]);
        }
        self.bytes(&[1]);
    }
}

/// One trace of a type.
struct Run {
    hash: Fnv,
    depth: u32,
    /// Enums met so far on this run.
    met: usize,
    /// The variant to take at one enum (by the order enums are met); the first
    /// elsewhere.
    choose: Option<(usize, u32)>,
    /// Per enum met, its variant count.
    enums: Vec<u32>,
}

impl Run {
    fn new(choose: Option<(usize, u32)>) -> Run {
        Run { hash: Fnv::default(), depth: 0, met: 0, choose, enums: Vec::new() }
    }

    fn enter(&mut self) -> Result<(), Untraceable> {
        self.depth += 1;
        if self.depth > MAX_DEPTH + 8 { Err(Untraceable("nested too deep")) } else { Ok(()) }
    }

    /// How many elements a container of unknown length gets.
    fn elements(&self) -> usize {
        usize::from(self.depth < MAX_DEPTH)
    }
}

/// Why a type could not be traced.
#[derive(Debug)]
struct Untraceable(&'static str);

impl fmt::Display for Untraceable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for Untraceable {}

impl de::Error for Untraceable {
    fn custom<M: fmt::Display>(_: M) -> Self {
        Untraceable("the type refused a traced value")
    }
}

macro_rules! primitive {
    ($($method:ident $visit:ident $value:expr;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Untraceable> {
            self.hash.token(stringify!($method), &[]);
            visitor.$visit($value)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Run {
    type Error = Untraceable;

    primitive! {
        deserialize_bool visit_bool false;
        deserialize_i8 visit_i8 1;
        deserialize_i16 visit_i16 1;
        deserialize_i32 visit_i32 1;
        deserialize_i64 visit_i64 1;
        deserialize_i128 visit_i128 1;
        deserialize_u8 visit_u8 1;
        deserialize_u16 visit_u16 1;
        deserialize_u32 visit_u32 1;
        // An entity's 64 bits need a generation.
        deserialize_u64 visit_u64 (1 << 32) | 1;
        deserialize_u128 visit_u128 1;
        deserialize_f32 visit_f32 0.0;
        deserialize_f64 visit_f64 0.0;
        deserialize_char visit_char 'a';
        deserialize_str visit_str "";
        deserialize_string visit_str "";
        deserialize_bytes visit_bytes &[];
        deserialize_byte_buf visit_bytes &[];
        deserialize_identifier visit_u64 0;
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Untraceable> {
        self.hash.token("unit", &[]);
        visitor.visit_unit()
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Untraceable> {
        self.hash.token("ignored", &[]);
        visitor.visit_unit()
    }

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Untraceable> {
        Err(Untraceable("the type reads self-describing data"))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Untraceable> {
        self.hash.token("option", &[]);
        if self.elements() == 0 {
            return visitor.visit_none();
        }
        self.enter()?;
        let value = visitor.visit_some(&mut *self);
        self.depth -= 1;
        value
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, Untraceable> {
        self.hash.token("unit struct", &[name]);
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Untraceable> {
        self.hash.token("newtype struct", &[name]);
        self.enter()?;
        let value = visitor.visit_newtype_struct(&mut *self);
        self.depth -= 1;
        value
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Untraceable> {
        self.hash.token("seq", &[]);
        let len = self.elements();
        self.elements_of(len, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Untraceable> {
        self.hash.token("tuple", &[]);
        self.hash.bytes(&(len as u64).to_le_bytes());
        self.elements_of(len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Untraceable> {
        self.hash.token("tuple struct", &[name]);
        self.hash.bytes(&(len as u64).to_le_bytes());
        self.elements_of(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Untraceable> {
        self.hash.token("map", &[]);
        let entries = self.elements();
        self.enter()?;
        let value = visitor.visit_map(Elements { run: &mut *self, left: entries });
        self.depth -= 1;
        value
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Untraceable> {
        self.hash.token("struct", &[name]);
        self.hash.token("fields", fields);
        self.elements_of(fields.len(), visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Untraceable> {
        self.hash.token("enum", &[name]);
        self.hash.token("variants", variants);
        let occurrence = self.met;
        self.met += 1;
        if self.choose.is_none() {
            self.enums.push(variants.len() as u32);
        }
        let variant = match self.choose {
            Some((at, variant)) if at == occurrence => variant,
            _ => 0,
        };
        self.hash.bytes(&variant.to_le_bytes());
        self.enter()?;
        let value = visitor.visit_enum(Variant { run: &mut *self, variant });
        self.depth -= 1;
        value
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

impl Run {
    fn elements_of<'de, V: Visitor<'de>>(&mut self, len: usize, visitor: V) -> Result<V::Value, Untraceable> {
        self.enter()?;
        let value = visitor.visit_seq(Elements { run: &mut *self, left: len });
        self.depth -= 1;
        value
    }
}

/// The elements of a traced sequence, or the entries of a traced map.
struct Elements<'a> {
    run: &'a mut Run,
    left: usize,
}

impl<'de> de::SeqAccess<'de> for Elements<'_> {
    type Error = Untraceable;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, read: T) -> Result<Option<T::Value>, Untraceable> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        read.deserialize(&mut *self.run).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'de> de::MapAccess<'de> for Elements<'_> {
    type Error = Untraceable;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, read: K) -> Result<Option<K::Value>, Untraceable> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        read.deserialize(&mut *self.run).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, read: V) -> Result<V::Value, Untraceable> {
        read.deserialize(&mut *self.run)
    }
}

/// The variant a traced enum takes.
struct Variant<'a> {
    run: &'a mut Run,
    variant: u32,
}

impl<'de, 'a> de::EnumAccess<'de> for Variant<'a> {
    type Error = Untraceable;
    type Variant = &'a mut Run;

    fn variant_seed<S: DeserializeSeed<'de>>(self, read: S) -> Result<(S::Value, &'a mut Run), Untraceable> {
        let index: de::value::U32Deserializer<Untraceable> = self.variant.into_deserializer();
        Ok((read.deserialize(index)?, self.run))
    }
}

impl<'de> de::VariantAccess<'de> for &mut Run {
    type Error = Untraceable;

    fn unit_variant(self) -> Result<(), Untraceable> {
        self.hash.token("unit variant", &[]);
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, read: S) -> Result<S::Value, Untraceable> {
        self.hash.token("newtype variant", &[]);
        read.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Untraceable> {
        self.hash.token("tuple variant", &[]);
        self.hash.bytes(&(len as u64).to_le_bytes());
        self.elements_of(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Untraceable> {
        self.hash.token("struct variant", fields);
        self.elements_of(fields.len(), visitor)
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Deserialize)]
    struct HpU(#[expect(dead_code, reason = "read by the trace only")] u32);

    mod other {
        #[derive(serde::Deserialize)]
        pub(super) struct HpU(#[expect(dead_code, reason = "read by the trace only")] pub u32);
    }

    #[derive(Deserialize)]
    #[expect(dead_code, reason = "read by the trace only")]
    struct HpI(i32);

    #[derive(Deserialize)]
    #[expect(dead_code, reason = "read by the trace only")]
    enum Shot {
        Miss,
        Hit { damage: u32 },
    }

    #[derive(Deserialize)]
    #[expect(dead_code, reason = "read by the trace only")]
    enum ShotF {
        Miss,
        Hit { damage: f32 },
    }

    #[derive(Deserialize)]
    #[expect(dead_code, reason = "read by the trace only")]
    struct Tree {
        children: Vec<Tree>,
        parent: Option<Box<Tree>>,
    }

    #[test]
    fn shapes_tell_types_apart_by_their_data_not_their_paths() {
        assert_ne!(of::<HpU>(), of::<HpI>(), "u32 and i32");
        // The same data under another module path: the same shape.
        assert_eq!(of::<HpU>(), of::<other::HpU>(), "module paths do not count");
        assert_ne!(of::<Shot>(), of::<ShotF>(), "a later variant's field");
        assert_eq!(of::<Shot>(), of::<Shot>(), "stable");
        assert_ne!(of::<(u8, u16)>(), of::<(u16, u8)>());
        assert_ne!(of::<Vec<u32>>(), of::<Vec<u64>>());
        // Recursive types end; entities read.
        let _ = of::<Tree>();
        assert_ne!(of::<crate::Entity>(), of::<u32>());
    }
}
