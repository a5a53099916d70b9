//! Reading a few keys of a JSON object without building its tree. The keys
//! a type asks for are read; every other value is checked as JSON and
//! skipped (`Skip`). A run's metadata and metrics files are kilobytes of
//! telemetry of which ingest keeps a few values: building them into `Value`
//! trees (every key a `String`, every object an ordered map) was most of
//! the parse threads' JSON work.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// A type made from some keys of a JSON object.
pub trait Fields: Default {
    /// The keys read; any other is skipped.
    const KEYS: &'static [&'static str];

    /// Read the value of `key` (one of `KEYS`) from `map`. A key given
    /// twice is read twice, so its last value wins, as in Python's json.
    fn read<'de, A: MapAccess<'de>>(
        &mut self,
        key: &'static str,
        map: &mut A,
    ) -> Result<(), A::Error>;
}

/// A JSON object's fields, or None for a document of another kind (a
/// list, a string, a number, true/false or null), which is still checked
/// as JSON.
#[derive(Debug)]
pub struct ObjectOf<T>(pub Option<T>);

impl<'de, T: Fields> de::Deserialize<'de> for ObjectOf<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjectVisitor(PhantomData)).map(ObjectOf)
    }
}

/// `ObjectOf<T>` read as `T`, another kind of document read as `T`'s default
/// (as a tree's `get` finds no key in it).
pub fn fields_or_default<'de, T: Fields, A: MapAccess<'de>>(map: &mut A) -> Result<T, A::Error> {
    Ok(map.next_value::<ObjectOf<T>>()?.0.unwrap_or_default())
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Fields> Visitor<'de> for ObjectVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON document")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<T>, A::Error> {
        let mut out = T::default();
        while let Some(key) = map.next_key_seed(KnownKey(T::KEYS))? {
            match key {
                Some(key) => out.read(key, &mut map)?,
                None => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(Some(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<T>, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Option<T>, E> {
        Ok(None)
    }
}

/// A value checked as JSON exactly as a tree reads it, and dropped. Not
/// serde's `IgnoredAny`: serde_json skips that without checking its
/// strings' UTF-8, its numbers' range or its depth, so a document a tree
/// refuses (a 100,000-deep list, 1e400) would pass.
struct Skip;

/// Skip the next value of `map`, checked as [`Skip`] checks it.
pub fn skip_value<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    map.next_value::<Skip>().map(|_| ())
}

impl<'de> de::Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
}

/// A key matched against the keys read, without copying it: Some(the
/// read key) or None (skip its value).
struct KnownKey(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KnownKey {
    type Value = Option<&'static str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KnownKey {
    type Value = Option<&'static str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().copied().find(|k| *k == key))
    }
}

/// A value as compact JSON text, written as `Value::to_string` writes it
/// but transcoded from the input without a tree; None for null (as
/// `json_text` gives for a null value).
#[derive(Debug, Default)]
pub struct CompactText(pub Option<String>);

impl<'de> de::Deserialize<'de> for CompactText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut out = Vec::new();
        serde_transcode::transcode(d, &mut serde_json::Serializer::new(&mut out))
            .map_err(de::Error::custom)?;
        let text = String::from_utf8(out).map_err(de::Error::custom)?;
        Ok(CompactText((text != "null").then_some(text)))
    }
}

/// A whole document as compact JSON text, as `Value::to_string` writes it
/// (keys in their order). One difference: a key repeated in an object is
/// written each time, where a tree keeps its last value once.
pub fn compact(bytes: &[u8]) -> Result<String, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut out = Vec::with_capacity(bytes.len());
    serde_transcode::transcode(&mut de, &mut serde_json::Serializer::new(&mut out))?;
    de.end()?;
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[derive(Default, Debug, PartialEq)]
    struct Two {
        a: Option<Value>,
        b: Option<String>,
    }

    impl Fields for Two {
        const KEYS: &'static [&'static str] = &["a", "b"];
        fn read<'de, A: MapAccess<'de>>(
            &mut self,
            key: &'static str,
            map: &mut A,
        ) -> Result<(), A::Error> {
            match key {
                "a" => self.a = Some(map.next_value()?),
                _ => self.b = map.next_value::<CompactText>()?.0,
            }
            Ok(())
        }
    }

    fn read(text: &str) -> Option<Two> {
        serde_json::from_str::<ObjectOf<Two>>(text).unwrap().0
    }

    #[test]
    fn the_keys_asked_for_are_read_and_the_last_of_a_repeated_key_wins() {
        let two = read(r#"{"x": {"a": 9}, "a": 1, "b": {"k": [1, "é\n"]}, "a": null}"#).unwrap();
        assert_eq!(two.a, Some(Value::Null));
        // As a tree prints it.
        let tree: Value = serde_json::from_str(r#"{"k": [1, "é\n"]}"#).unwrap();
        assert_eq!(two.b, Some(tree.to_string()));
        assert_eq!(read(r#"{"b": null}"#).unwrap().b, None);
    }

    #[test]
    fn a_document_of_another_kind_has_no_fields_but_is_still_checked() {
        for text in ["[1, {\"a\": 2}]", "\"a\"", "1.5", "-3", "true", "null"] {
            assert!(read(text).is_none(), "{text}");
        }
        assert!(serde_json::from_str::<ObjectOf<Two>>("[1, }").is_err());
        assert!(serde_json::from_str::<ObjectOf<Two>>(r#"{"x": [1,}"#).is_err());
        // What a tree refuses in a skipped value is refused too.
        let deep = format!("{{\"x\": {}{}}}", "[".repeat(200), "]".repeat(200));
        assert!(serde_json::from_str::<Value>(&deep).is_err());
        assert!(serde_json::from_str::<ObjectOf<Two>>(&deep).is_err());
        assert!(serde_json::from_str::<ObjectOf<Two>>(r#"{"x": 1e400}"#).is_err());
        assert!(serde_json::from_slice::<ObjectOf<Two>>(b"{\"x\": \"\xff\"}").is_err());
    }

    #[test]
    fn a_compacted_document_is_the_text_its_tree_prints() {
        let text = "{\n  \"z\": 1.0,\n  \"a\": [1e3, -0, 12345678901234567890, \"\\u00e9\\/\"],\n  \"n\": null\n}";
        let tree: Value = serde_json::from_str(text).unwrap();
        assert_eq!(compact(text.as_bytes()).unwrap(), tree.to_string());
        assert!(compact(b"{} x").is_err());
    }
}
