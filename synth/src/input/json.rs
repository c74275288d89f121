//! JSON bases: `{"reg_bases": [[..], ..], "lane_bases": [..], "warp_bases":
//! [..], "block_bases": [..], "shape": [..]}` (Gluon `DistributedLinearLayout`
//! fields) or the same keyed by in-dim names (`register`, `lane`, `warp`,
//! `block`). `block_bases`/`block` may be left out (one CTA); a missing
//! `shape` is inferred as the smallest power of two above every basis value
//! per dim (Triton's `LinearLayout` constructor without out-dim sizes).

use super::{linear_text, Format, LayoutText};
use serde_json::Value;

type Res<T> = Result<T, (usize, String)>;

const GLUON: [&str; 4] = ["reg_bases", "lane_bases", "warp_bases", "block_bases"];
const DIMS: [&str; 4] = ["register", "lane", "warp", "block"];

/// Byte offset of 1-based `line`, `col` (characters) in `text`.
fn offset_of(text: &str, line: usize, col: usize) -> usize {
    let mut off = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return off
                + l.char_indices()
                    .nth(col.saturating_sub(1))
                    .map_or(l.len(), |(b, _)| b);
        }
        off += l.len();
    }
    text.len()
}

/// Where `"key"` first appears as an object key (else the text's start).
fn key_at(text: &str, key: &str) -> usize {
    let q = format!("\"{key}\"");
    text.match_indices(&q)
        .find(|(i, _)| text[i + q.len()..].trim_start().starts_with(':'))
        .map_or(0, |(i, _)| i)
}

/// A JSON value read like [`Value`], except that an object with a key
/// given twice is an error (serde_json keeps the last), as attribute
/// dictionaries refuse a field given twice.
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut v = Vec::new();
        while let Some(Strict(x)) = a.next_element()? {
            v.push(x);
        }
        Ok(Value::Array(v))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut m = serde_json::Map::new();
        while let Some(k) = a.next_key::<String>()? {
            let Strict(v) = a.next_value()?;
            if m.contains_key(&k) {
                return Err(serde::de::Error::custom(format!(
                    "key `{k}` is given twice"
                )));
            }
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

/// Parse the text; errors are `(byte offset, message)`.
pub(super) fn parse(text: &str) -> Res<LayoutText> {
    let v: Value = serde_json::from_str::<Strict>(text)
        .map(|s| s.0)
        .map_err(|e| {
            let msg = e.to_string();
            let msg = msg
                .rsplit_once(" at line ")
                .map_or(msg.clone(), |(m, _)| m.to_string());
            (offset_of(text, e.line(), e.column()), msg)
        })?;
    let start = text.len() - text.trim_start().len();
    let Value::Object(map) = v else {
        return Err((start, "expected a JSON object of bases".into()));
    };
    let gluon = map.keys().any(|k| GLUON.contains(&k.as_str()));
    let names = map.keys().any(|k| DIMS.contains(&k.as_str()));
    if gluon && names {
        let k = map
            .keys()
            .find(|k| DIMS.contains(&k.as_str()))
            .expect("some in-dim key");
        return Err((
            key_at(text, k),
            format!("`{k}` mixes in-dim names with Gluon's `reg_bases`-style keys; use one style"),
        ));
    }
    let keys: [&str; 4] = if names { DIMS } else { GLUON };
    for k in map.keys() {
        if !keys.contains(&k.as_str()) && k != "shape" {
            return Err((
                key_at(text, k),
                format!("unknown key `{k}` (expected {}, shape)", keys.join(", ")),
            ));
        }
    }
    let mut by: Vec<Vec<Vec<i32>>> = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let Some(val) = map.get(*k) else {
            if i == 3 {
                by.push(vec![]);
                continue;
            }
            return Err((
                start,
                format!("missing `{k}` (a list of bases, `[]` for none)"),
            ));
        };
        by.push(bases(text, k, val)?);
    }
    let rank = by.iter().flatten().map(|b| b.len()).next();
    let shape = match map.get("shape") {
        Some(s) => {
            let at = key_at(text, "shape");
            let Value::Array(a) = s else {
                return Err((at, "`shape` must be a list of dim sizes".into()));
            };
            let mut out = Vec::new();
            for (i, d) in a.iter().enumerate() {
                match d.as_i64() {
                    Some(n) if n > 0 && n & (n - 1) == 0 && n <= 1 << 30 => out.push(n),
                    _ => {
                        return Err((
                            at,
                            format!("`shape[{i}]` = {d} is not a power-of-two dim size"),
                        ))
                    }
                }
            }
            if out.is_empty() {
                return Err((at, "`shape` is empty".into()));
            }
            out
        }
        None => {
            let Some(rank) = rank else {
                return Err((
                    start,
                    "no bases and no `shape`: cannot tell the tensor".into(),
                ));
            };
            (0..rank)
                .map(|d| {
                    let m = by
                        .iter()
                        .flatten()
                        .map(|b| b.get(d).copied().unwrap_or(0) as i64)
                        .fold(0, |a, v| a | v);
                    if m == 0 {
                        1
                    } else {
                        1i64 << (64 - (m as u64).leading_zeros())
                    }
                })
                .collect()
        }
    };
    for (k, bs) in keys.iter().zip(&by) {
        for (i, b) in bs.iter().enumerate() {
            if b.len() != shape.len() {
                return Err((
                    key_at(text, k),
                    format!(
                        "`{k}[{i}]` has {} values, the tensor has rank {}",
                        b.len(),
                        shape.len()
                    ),
                ));
            }
            for (d, (&v, &s)) in b.iter().zip(&shape).enumerate() {
                if v as i64 >= s {
                    return Err((
                        key_at(text, k),
                        format!("`{k}[{i}]` maps dim{d} to {v}, outside 0..{s}"),
                    ));
                }
            }
        }
    }
    let mut it = by.into_iter();
    let (r, l, w, b) = (
        it.next().unwrap_or_default(),
        it.next().unwrap_or_default(),
        it.next().unwrap_or_default(),
        it.next().unwrap_or_default(),
    );
    Ok(linear_text(Format::Json, r, l, w, b, Some(shape)))
}

fn bases(text: &str, key: &str, v: &Value) -> Res<Vec<Vec<i32>>> {
    let at = key_at(text, key);
    let Value::Array(a) = v else {
        return Err((
            at,
            format!("`{key}` must be a list of bases (lists of integers)"),
        ));
    };
    a.iter()
        .enumerate()
        .map(|(i, b)| {
            let Value::Array(x) = b else {
                return Err((at, format!("`{key}[{i}]` = {b} is not a list of integers")));
            };
            x.iter()
                .enumerate()
                .map(|(j, e)| match e.as_i64() {
                    Some(n) if (0..=1 << 30).contains(&n) => Ok(n as i32),
                    _ => Err((
                        at,
                        format!("`{key}[{i}][{j}]` = {e} is not a non-negative integer"),
                    )),
                })
                .collect()
        })
        .collect()
}
