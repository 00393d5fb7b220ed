//! The API's encodings (issue 13, "The API"): heights and counts are JSON numbers, amounts
//! (u128) decimal strings, addresses `0x` + 40 hex, timer ids and hashes `0x` + 64 hex,
//! payloads `0x` hex.
//!
//! Params are decoded here by hand rather than by serde so that a param that does not decode
//! gets -32602 with the param or field named (`"invalid params: `actor`: ..."` and
//! `data.field`), and an object with a field this API does not know is refused rather than
//! ignored (a misspelt `expires_at` must not silently schedule with the default TTL).

use crate::engine::{Address, H256, TimerId};
use jsonrpsee::types::{ErrorCode, ErrorObjectOwned, Params};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// A -32602 error naming the param or field that did not decode.
pub fn invalid_param(field: &str, why: impl std::fmt::Display) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(
        ErrorCode::InvalidParams.code(),
        format!("invalid params: `{field}`: {why}"),
        Some(serde_json::json!({ "field": field })),
    )
}

/// A value that decodes from one JSON param or field.
pub trait Decode: Sized {
    /// What the value should look like, for the error message and the OpenRPC document.
    const EXPECTED: &'static str;
    fn decode(v: &Value) -> Result<Self, String>;
}

fn got(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}...")
    } else {
        s
    }
}

fn expected<T: Decode>(v: &Value) -> String {
    format!("expected {}, got {}", T::EXPECTED, got(v))
}

fn hex_str<T: Decode>(v: &Value) -> Result<&str, String> {
    match v.as_str().and_then(|s| s.strip_prefix("0x")) {
        Some(t) if t.bytes().all(|b| b.is_ascii_hexdigit()) => Ok(t),
        _ => Err(expected::<T>(v)),
    }
}

impl Decode for Address {
    const EXPECTED: &'static str = "an address (0x + 40 hex digits)";
    fn decode(v: &Value) -> Result<Self, String> {
        let t = hex_str::<Self>(v)?;
        if t.len() != 40 {
            return Err(expected::<Self>(v));
        }
        t.parse::<Address>()
            .or_else(|_| format!("0x{t}").parse())
            .map_err(|_| expected::<Self>(v))
    }
}

impl Decode for TimerId {
    const EXPECTED: &'static str = "a timer id (0x + 64 hex digits)";
    fn decode(v: &Value) -> Result<Self, String> {
        let t = hex_str::<Self>(v)?;
        if t.len() != 64 {
            return Err(expected::<Self>(v));
        }
        format!("0x{t}").parse().map_err(|_| expected::<Self>(v))
    }
}

impl Decode for H256 {
    const EXPECTED: &'static str = "a hash (0x + 64 hex digits)";
    fn decode(v: &Value) -> Result<Self, String> {
        let t = hex_str::<Self>(v)?;
        let mut b = [0u8; 32];
        hex::decode_to_slice(t, &mut b).map_err(|_| expected::<Self>(v))?;
        Ok(H256(b))
    }
}

impl Decode for u64 {
    const EXPECTED: &'static str = "a non-negative integer (a JSON number)";
    fn decode(v: &Value) -> Result<Self, String> {
        v.as_u64().ok_or_else(|| expected::<Self>(v))
    }
}

impl Decode for u32 {
    const EXPECTED: &'static str = "a non-negative integer below 2^32 (a JSON number)";
    fn decode(v: &Value) -> Result<Self, String> {
        v.as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| expected::<Self>(v))
    }
}

impl Decode for bool {
    const EXPECTED: &'static str = "true or false";
    fn decode(v: &Value) -> Result<Self, String> {
        v.as_bool().ok_or_else(|| expected::<Self>(v))
    }
}

impl Decode for String {
    const EXPECTED: &'static str = "a string";
    fn decode(v: &Value) -> Result<Self, String> {
        v.as_str()
            .map(str::to_owned)
            .ok_or_else(|| expected::<Self>(v))
    }
}

impl Decode for Value {
    const EXPECTED: &'static str = "any JSON value";
    fn decode(v: &Value) -> Result<Self, String> {
        Ok(v.clone())
    }
}

/// A block tag (issue 24): `"latest"` or a sealed height, like Ethereum's.
impl Decode for crate::node::BlockTag {
    const EXPECTED: &'static str = "a block tag (\"latest\" or a height)";
    fn decode(v: &Value) -> Result<Self, String> {
        serde_json::from_value(v.clone()).map_err(|_| expected::<Self>(v))
    }
}

impl Args {
    /// The optional block tag at param `i` (`"block"`): the height asked for, `None` for the
    /// head.
    pub fn block(&self, i: usize) -> Result<Option<u64>, ErrorObjectOwned> {
        Ok(self
            .opt::<crate::node::BlockTag>(i, "block")?
            .and_then(|b| b.height()))
    }
}

/// An amount: a u128 written as a decimal string (JSON numbers lose precision past 2^53).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Amount(pub u128);

impl Decode for Amount {
    const EXPECTED: &'static str = "an amount (a decimal string, e.g. \"1000000\")";
    fn decode(v: &Value) -> Result<Self, String> {
        match v.as_str() {
            Some(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => s
                .parse()
                .map(Amount)
                .map_err(|_| format!("amount {s} does not fit in 128 bits")),
            _ => Err(expected::<Self>(v)),
        }
    }
}

impl Serialize for Amount {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// A payload: `0x` and an even number of hex digits (`"0x"` is empty).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Bytes(pub Vec<u8>);

impl Decode for Bytes {
    const EXPECTED: &'static str = "bytes (0x + an even number of hex digits)";
    fn decode(v: &Value) -> Result<Self, String> {
        let t = hex_str::<Self>(v)?;
        hex::decode(t).map(Bytes).map_err(|_| expected::<Self>(v))
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("0x{}", hex::encode(&self.0)))
    }
}

/// A block time in seconds, fractions allowed (`1.5`), as whole milliseconds, at least 1 ms.
/// Floats are display-side here: the node only ever sees the integer milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockTimeMs(pub u64);

impl Decode for BlockTimeMs {
    const EXPECTED: &'static str = "a block time in seconds (a positive JSON number, e.g. 1.5)";
    fn decode(v: &Value) -> Result<Self, String> {
        match v.as_f64() {
            Some(s) => seconds_to_ms(s).map(BlockTimeMs),
            None => Err(expected::<Self>(v)),
        }
    }
}

/// Seconds (fractions allowed) as milliseconds: at least 1 ms, at most a day.
pub fn seconds_to_ms(s: f64) -> Result<u64, String> {
    if !s.is_finite() || s <= 0.0 {
        return Err(format!("block time must be positive, got {s}"));
    }
    let ms = (s * 1000.0).round();
    if ms < 1.0 {
        return Err(format!("block time must be at least 0.001 s, got {s}"));
    }
    if ms > 86_400_000.0 {
        return Err(format!("block time must be at most 86400 s, got {s}"));
    }
    Ok(ms as u64)
}

/// The positional params of one call.
pub struct Args {
    items: Vec<Value>,
}

impl Args {
    /// Reads positional params (`[...]`, or none). `names` are the params this method takes,
    /// in order: more params than that is -32602.
    pub fn new(p: &Params<'_>, names: &[&str]) -> Result<Args, ErrorObjectOwned> {
        let items = match p.as_str() {
            None => Vec::new(),
            Some(s) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Array(a)) => a,
                Ok(_) => {
                    return Err(ErrorObjectOwned::owned(
                        ErrorCode::InvalidParams.code(),
                        "invalid params: params are positional: send a JSON array".to_string(),
                        None::<()>,
                    ));
                }
                Err(e) => return Err(invalid_param("params", e)),
            },
        };
        if items.len() > names.len() {
            let takes = if names.is_empty() {
                "no params".to_string()
            } else {
                format!("at most {} ({})", names.len(), names.join(", "))
            };
            return Err(ErrorObjectOwned::owned(
                ErrorCode::InvalidParams.code(),
                format!(
                    "invalid params: got {} params, this method takes {takes}",
                    items.len()
                ),
                None::<()>,
            ));
        }
        Ok(Args { items })
    }

    fn get(&self, i: usize) -> Option<&Value> {
        self.items.get(i).filter(|v| !v.is_null())
    }

    /// Param `i`, required.
    pub fn req<T: Decode>(&self, i: usize, name: &str) -> Result<T, ErrorObjectOwned> {
        match self.get(i) {
            Some(v) => T::decode(v).map_err(|e| invalid_param(name, e)),
            None => Err(invalid_param(
                name,
                format!("missing; expected {}", T::EXPECTED),
            )),
        }
    }

    /// Param `i`, optional (absent or `null`).
    pub fn opt<T: Decode>(&self, i: usize, name: &str) -> Result<Option<T>, ErrorObjectOwned> {
        self.get(i)
            .map(|v| T::decode(v).map_err(|e| invalid_param(name, e)))
            .transpose()
    }

    /// Param `i` as an object of named fields; absent or `null` is an empty object when
    /// `optional`.
    pub fn obj(&self, i: usize, name: &str, optional: bool) -> Result<Obj, ErrorObjectOwned> {
        match self.get(i) {
            Some(Value::Object(m)) => Ok(Obj {
                map: m.clone(),
                prefix: String::new(),
            }),
            Some(v) => Err(invalid_param(
                name,
                format!("expected an object, got {}", got(v)),
            )),
            None if optional => Ok(Obj {
                map: Map::new(),
                prefix: String::new(),
            }),
            None => Err(invalid_param(name, "missing; expected an object")),
        }
    }
}

/// An object param: fields are taken one by one; [`Obj::finish`] refuses any left over.
pub struct Obj {
    map: Map<String, Value>,
    prefix: String,
}

impl Obj {
    fn path(&self, field: &str) -> String {
        format!("{}{field}", self.prefix)
    }

    fn take(&mut self, field: &str) -> Option<Value> {
        self.map.remove(field).filter(|v| !v.is_null())
    }

    pub fn req<T: Decode>(&mut self, field: &str) -> Result<T, ErrorObjectOwned> {
        match self.take(field) {
            Some(v) => T::decode(&v).map_err(|e| invalid_param(&self.path(field), e)),
            None => Err(invalid_param(
                &self.path(field),
                format!("missing; expected {}", T::EXPECTED),
            )),
        }
    }

    pub fn opt<T: Decode>(&mut self, field: &str) -> Result<Option<T>, ErrorObjectOwned> {
        self.take(field)
            .map(|v| T::decode(&v).map_err(|e| invalid_param(&self.path(field), e)))
            .transpose()
    }

    /// A list field: each element decoded, the index named on error.
    pub fn opt_list<T: Decode>(&mut self, field: &str) -> Result<Option<Vec<T>>, ErrorObjectOwned> {
        let Some(v) = self.take(field) else {
            return Ok(None);
        };
        let Value::Array(items) = v else {
            return Err(invalid_param(
                &self.path(field),
                format!("expected a list of {}, got {}", T::EXPECTED, got(&v)),
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                T::decode(v).map_err(|e| invalid_param(&format!("{}[{i}]", self.path(field)), e))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// A nested object field.
    pub fn opt_obj(&mut self, field: &str) -> Result<Option<Obj>, ErrorObjectOwned> {
        match self.take(field) {
            None => Ok(None),
            Some(Value::Object(map)) => Ok(Some(Obj {
                map,
                prefix: format!("{}.", self.path(field)),
            })),
            Some(v) => Err(invalid_param(
                &self.path(field),
                format!("expected an object, got {}", got(&v)),
            )),
        }
    }

    /// The names of the fields not taken yet (for a partial config).
    pub fn keys(&self) -> Vec<String> {
        self.map.keys().cloned().collect()
    }

    /// Refuses fields this method does not know.
    pub fn finish(self) -> Result<(), ErrorObjectOwned> {
        match self.map.keys().next() {
            None => Ok(()),
            Some(k) => Err(invalid_param(&self.path(k), "unknown field")),
        }
    }

    /// Takes what is left as a JSON object.
    pub fn rest(self) -> Map<String, Value> {
        self.map
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn addresses_ids_amounts_and_bytes_decode_strictly() {
        let a = format!("0x{}", "ab".repeat(20));
        assert_eq!(Address::decode(&json!(a)).unwrap().0, [0xab; 20]);
        assert!(Address::decode(&json!("0x1234")).is_err());
        assert!(Address::decode(&json!("ab".repeat(20))).is_err());
        assert!(TimerId::decode(&json!(format!("0x{}", "00".repeat(32)))).is_ok());
        assert!(TimerId::decode(&json!(a)).is_err());
        assert_eq!(
            Amount::decode(&json!("340282366920938463463374607431768211455"))
                .unwrap()
                .0,
            u128::MAX
        );
        assert!(Amount::decode(&json!("340282366920938463463374607431768211456")).is_err());
        assert!(Amount::decode(&json!(5)).is_err());
        assert!(Amount::decode(&json!("-5")).is_err());
        assert_eq!(Bytes::decode(&json!("0x")).unwrap().0, Vec::<u8>::new());
        assert!(Bytes::decode(&json!("0x1")).is_err());
        assert!(u64::decode(&json!(-1)).is_err());
        assert!(u64::decode(&json!("1")).is_err());
        assert_eq!(BlockTimeMs::decode(&json!(1.5)).unwrap().0, 1500);
        assert!(BlockTimeMs::decode(&json!(0)).is_err());
    }

    #[test]
    fn an_unknown_field_is_refused_by_name() {
        let p = Params::new(Some(r#"[{"actor":"0x00","expires_a":5}]"#));
        let args = Args::new(&p, &["timer"]).unwrap();
        let mut o = args.obj(0, "timer", false).unwrap();
        let e = o.req::<Address>("actor").unwrap_err();
        assert_eq!(e.code(), -32602);
        assert!(e.message().contains("`actor`"), "{}", e.message());
        let e = o.finish().unwrap_err();
        assert!(e.message().contains("`expires_a`"), "{}", e.message());
    }

    #[test]
    fn too_many_params_is_refused() {
        let p = Params::new(Some("[1, 2]"));
        assert_eq!(Args::new(&p, &["n"]).err().unwrap().code(), -32602);
    }
}
