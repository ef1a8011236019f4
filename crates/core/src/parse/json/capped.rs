//! A JSON Feed document read with no more items than a refresh keeps: the first
//! [`MAX_ENTRIES_PER_REFRESH`] objects of `items` are read into values, the rest are read past and counted. A
//! 20 MB document of six million `{}` items (19 KB gzipped) stood in memory as seven gigabytes of entries when
//! it was read whole and cut afterwards.

use crate::model::MAX_ENTRIES_PER_REFRESH;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::Cell;
use std::fmt;

/// The most values a document is read into (an object's members, an array's elements, each string and number):
/// 5,000 items of a few dozen each, and the feed's own. A document of millions of values elsewhere than in its
/// items (`{"x": [0, 0, …]}`: 20 MB of them, gzipped to 20 KB) is refused rather than read into as many.
pub(super) const MAX_VALUES: usize = 1_000_000;

/// Why a document could not be read.
pub(super) enum Refused {
    /// The text is not JSON.
    Syntax(serde_json::Error),
    /// It is JSON, but not an object.
    NotAnObject,
    /// It holds more than [`MAX_VALUES`] values besides the items past those kept.
    TooMany,
}

/// The document's members, its `items` cut to the first [`MAX_ENTRIES_PER_REFRESH`] objects (`Value::Null` when
/// it is no array), and how many objects were listed past them.
pub(super) fn read(text: &str) -> Result<(Map<String, Value>, usize), Refused> {
    let mut beyond = 0;
    let left = Cell::new(MAX_VALUES);
    let mut reader = serde_json::Deserializer::from_str(text);
    let document =
        reader.deserialize_map(Document { beyond: &mut beyond, left: &left }).map_err(|e| match e.classify() {
            _ if left.get() == 0 => Refused::TooMany,
            serde_json::error::Category::Data => Refused::NotAnObject,
            _ => Refused::Syntax(e),
        })?;
    reader.end().map_err(Refused::Syntax)?;
    Ok((document, beyond))
}

/// The top-level object.
struct Document<'b> {
    beyond: &'b mut usize,
    left: &'b Cell<usize>,
}

impl<'de> Visitor<'de> for Document<'_> {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Self::Value, A::Error> {
        let mut document = Map::new();
        while let Some(name) = members.next_key::<String>()? {
            let value = if name == "items" {
                members.next_value_seed(Items { beyond: &mut *self.beyond, left: self.left })?
            } else {
                members.next_value_seed(Bounded(self.left))?
            };
            document.insert(name, value);
        }
        Ok(document)
    }
}

/// `items`: its first objects kept (what is not an object is dropped, as the normaliser would drop it), the
/// others counted; `Value::Null` for anything but an array.
struct Items<'b> {
    beyond: &'b mut usize,
    left: &'b Cell<usize>,
}

impl<'de> DeserializeSeed<'de> for Items<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Items<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Value, A::Error> {
        let mut kept = Vec::new();
        while kept.len() < MAX_ENTRIES_PER_REFRESH {
            match items.next_element_seed(Bounded(self.left))? {
                Some(item @ Value::Object(_)) => kept.push(item),
                Some(_) => {}
                None => return Ok(Value::Array(kept)),
            }
        }
        while let Some(object) = items.next_element::<IsObject>()? {
            *self.beyond += usize::from(object.0);
        }
        Ok(Value::Array(kept))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Value, A::Error> {
        while members.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

/// A value read within the document's budget of [`MAX_VALUES`]: each value spends one, and past the budget the
/// document is refused.
struct Bounded<'b>(&'b Cell<usize>);

impl Bounded<'_> {
    fn spend<E: de::Error>(&self) -> Result<(), E> {
        match self.0.get() {
            0 => Err(E::custom(format!("the document holds more than {MAX_VALUES} values"))),
            left => {
                self.0.set(left - 1);
                Ok(())
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Bounded<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Bounded<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.spend()?;
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut elements: A) -> Result<Value, A::Error> {
        self.spend()?;
        let mut out = Vec::new();
        while let Some(element) = elements.next_element_seed(Bounded(self.0))? {
            out.push(element);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Value, A::Error> {
        self.spend()?;
        let mut out = Map::new();
        while let Some(name) = members.next_key::<String>()? {
            let value = members.next_value_seed(Bounded(self.0))?;
            out.insert(name, value);
        }
        Ok(Value::Object(out))
    }
}

/// A value read past: whether it was an object.
struct IsObject(bool);

impl<'de> serde::Deserialize<'de> for IsObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<IsObject, D::Error> {
        deserializer.deserialize_any(IsObjectVisitor)
    }
}

struct IsObjectVisitor;

impl<'de> Visitor<'de> for IsObjectVisitor {
    type Value = IsObject;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<IsObject, A::Error> {
        while members.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(IsObject(true))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<IsObject, A::Error> {
        while items.next_element::<IgnoredAny>()?.is_some() {}
        Ok(IsObject(false))
    }

    fn visit_bool<E>(self, _: bool) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }

    fn visit_i64<E>(self, _: i64) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }

    fn visit_u64<E>(self, _: u64) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }

    fn visit_f64<E>(self, _: f64) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }

    fn visit_str<E>(self, _: &str) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }

    fn visit_unit<E>(self) -> Result<IsObject, E> {
        Ok(IsObject(false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_past_those_kept_are_counted_not_read() {
        let items: Vec<String> = (0..MAX_ENTRIES_PER_REFRESH + 3).map(|i| format!(r#"{{"id": {i}}}"#)).collect();
        let text = format!(r#"{{"title": "T", "items": [1, {}, "x", [2]], "home_page_url": "h"}}"#, items.join(","));
        let (document, beyond) = read(&text).ok().unwrap();
        let kept = document["items"].as_array().unwrap();
        assert_eq!(kept.len(), MAX_ENTRIES_PER_REFRESH);
        assert_eq!(kept[0]["id"], 0, "the first objects are kept, what is no object dropped");
        assert_eq!(beyond, 3, "the three objects past them are counted; a string and a list are not");
        assert_eq!((document["title"].as_str(), document["home_page_url"].as_str()), (Some("T"), Some("h")));
    }

    #[test]
    fn a_document_of_too_many_values_is_refused_and_items_past_those_kept_spend_nothing() {
        let zeros = vec!["0"; MAX_VALUES + 1].join(",");
        assert!(matches!(read(&format!(r#"{{"x": [{zeros}], "items": []}}"#)), Err(Refused::TooMany)));
        let nested = format!(r#"{{"items": [{{"tags": [{zeros}]}}]}}"#);
        assert!(matches!(read(&nested), Err(Refused::TooMany)), "inside a kept item too");
        let past =
            format!(r#"{{"items": [{}, {{"tags": [{zeros}]}}]}}"#, vec!["{}"; MAX_ENTRIES_PER_REFRESH].join(","));
        let (document, beyond) = read(&past).ok().expect("an item past those kept is read past, unbuilt");
        assert_eq!((document["items"].as_array().unwrap().len(), beyond), (MAX_ENTRIES_PER_REFRESH, 1));
    }

    #[test]
    fn items_that_are_no_array_read_as_none_and_other_documents_are_refused() {
        let (document, beyond) = read(r#"{"items": {"a": [1, {"b": 2}]}, "title": "T"}"#).ok().unwrap();
        assert_eq!((&document["items"], beyond), (&Value::Null, 0));
        assert!(matches!(read("[1, 2]"), Err(Refused::NotAnObject)));
        assert!(matches!(read(r#"{"items": [}"#), Err(Refused::Syntax(_))));
        assert!(matches!(read(r#"{"items": []} trailing"#), Err(Refused::Syntax(_))));
    }
}
