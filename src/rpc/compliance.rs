//! JSON-RPC 2.0 where jsonrpsee 0.26 departs from it (issue 20), fixed on the request body
//! before jsonrpsee reads it and on the reply after (HTTP only; see [`super::guard`]).
//!
//! - §4.1: a notification (no `id`) runs and gets no answer. jsonrpsee answers `null` and does
//!   not run it: it is sent to jsonrpsee as a call with an id of ours and its reply dropped (a
//!   body of only notifications is answered `204 No Content`, no body).
//! - §4: an id is a string, a number or null and the reply echoes it. jsonrpsee takes only
//!   `u64` and string ids (`-1`, `1.5`, `2^128` read as notifications): every id of such a
//!   body is swapped for one of ours and the reply carries the client's id, as its text was.
//! - §5.1: an id that is an object, an array or a boolean is `-32600` with `id: null`, and the
//!   call does not run.
//! - §5.1: a body that is not UTF-8 is `-32700` (jsonrpsee answered `null`).
//! - §5 (issue 30, Spec note 145): a request that parses but is not an object (`"hello"`,
//!   `null`, `1`, `true`) is `-32600` Invalid Request, not `-32700` Parse error.
//! - §4 / §5 (issue 30, Spec note 145): an object with a member twice (`"id":1,"id":2`) is not
//!   a request whose id anyone can tell: `-32600` with `id: null`, alone or inside a batch, over
//!   HTTP and WebSocket alike (jsonrpsee answered `null`, nothing, or dropped it).
//! - §4 (issue 30): an id is any JSON number, however large (`1e400`): echoed as written.
//!
//! A body that needs none of this goes to jsonrpsee untouched, its reply streamed as it is.

use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// One member of a request or a reply, as its text.
type Members = BTreeMap<String, Box<RawValue>>;

/// What to do with a request body.
#[derive(Debug)]
pub enum Plan {
    /// Hand it to jsonrpsee as it is.
    Pass,
    /// Answer this JSON without calling anything.
    Answer(String),
    /// Hand jsonrpsee `body` and rewrite its reply with [`Rewrite::reply`].
    Rewrite { body: String, rewrite: Rewrite },
}

/// How to turn jsonrpsee's reply into the client's.
#[derive(Debug)]
pub struct Rewrite {
    /// The body was one object, not a batch.
    single: bool,
    /// Tells this body's ids from other bodies' on one WebSocket (`"cowboy-devnet:<tag>.<n>"`).
    tag: u64,
    /// Per id of ours (`"cowboy-devnet:<tag>.<n>"`): the client's id as sent, `None` for a
    /// notification (its reply is dropped).
    ids: Vec<Option<Box<RawValue>>>,
    /// Replies the client gets that jsonrpsee never saw (invalid ids).
    extra: Vec<String>,
}

const OURS: &str = "cowboy-devnet:";

/// `-32600` / `-32700` with `id: null`.
fn error_reply(code: i32, message: &str) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}})
        .to_string()
}

/// The reply to a body that is not UTF-8.
pub fn parse_error() -> String {
    error_reply(-32700, "Parse error: the body is not UTF-8")
}

fn not_an_object() -> String {
    error_reply(
        -32600,
        "Invalid request: a request is an object (or a batch: an array of objects)",
    )
}

fn duplicate_member(name: &str) -> String {
    error_reply(
        -32600,
        &format!("Invalid request: the member `{name}` is given more than once"),
    )
}

/// Whether `t` is a JSON number as RFC 8259 §6 writes one (any magnitude).
fn is_json_number(t: &str) -> bool {
    let b = t.as_bytes();
    let mut i = 0;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(c) if c.is_ascii_digit() => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

fn invalid_id() -> String {
    error_reply(
        -32600,
        "Invalid request: an id must be a string, a number or null",
    )
}

/// How a request's `id` stands.
enum Id {
    /// No id: a notification.
    Absent,
    /// What jsonrpsee echoes as it was: a `u64`, a string or null.
    Native,
    /// A number jsonrpsee does not take (negative, fractional, past `u64`).
    Foreign,
    /// Not a string, a number or null.
    Invalid,
}

fn classify(m: &Members) -> Id {
    let Some(id) = m.get("id") else {
        return Id::Absent;
    };
    let t = id.get().trim();
    if t == "null" || t.starts_with('"') || t.parse::<u64>().is_ok() {
        Id::Native
    } else if is_json_number(t) {
        Id::Foreign
    } else {
        Id::Invalid
    }
}

/// One entry of the body: an object with its members, an object with a member given twice
/// (its name), or anything else (jsonrpsee answers it `-32600` itself inside a batch).
enum Entry {
    Object(Members),
    Duplicate(String),
    Other(Box<RawValue>),
}

/// An object's members in order, duplicates kept (a map would keep only one).
struct Pairs(Vec<(String, Box<RawValue>)>);

impl<'de> serde::Deserialize<'de> for Pairs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Pairs;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Pairs, A::Error> {
                let mut v = Vec::new();
                while let Some(kv) = a.next_entry::<String, Box<RawValue>>()? {
                    v.push(kv);
                }
                Ok(Pairs(v))
            }
        }
        d.deserialize_map(V)
    }
}

fn entry(raw: Box<RawValue>) -> Entry {
    if !raw.get().trim_start().starts_with('{') {
        return Entry::Other(raw);
    }
    match serde_json::from_str::<Pairs>(raw.get()) {
        Ok(Pairs(pairs)) => {
            let mut m = Members::new();
            for (k, v) in pairs {
                if m.contains_key(&k) {
                    return Entry::Duplicate(k);
                }
                m.insert(k, v);
            }
            Entry::Object(m)
        }
        Err(_) => Entry::Other(raw),
    }
}

/// Decides what to do with a request body of at most `max_batch` calls.
pub fn plan(body: &[u8], max_batch: usize) -> Plan {
    plan_tagged(body, max_batch, 0)
}

/// The tag of the ids of ours in a reply (a batch's first reply that has one), if any: only
/// a reply's own `id` counts, not text elsewhere in it.
pub fn reply_tag(reply: &str) -> Option<u64> {
    if !reply.contains(OURS) {
        return None;
    }
    let tag_of = |m: &Members| {
        let id = serde_json::from_str::<String>(m.get("id")?.get()).ok()?;
        let (tag, _) = id.strip_prefix(OURS)?.split_once('.')?;
        tag.parse::<u64>().ok()
    };
    if reply.trim_start().starts_with('[') {
        let all: Vec<Members> = serde_json::from_str(reply).ok()?;
        all.iter().find_map(tag_of)
    } else {
        tag_of(&serde_json::from_str(reply).ok()?)
    }
}

/// [`plan`], its ids of ours tagged with `tag` (one tag per message on a WebSocket, whose
/// replies come back in any order).
pub fn plan_tagged(body: &[u8], max_batch: usize, tag: u64) -> Plan {
    let Ok(text) = std::str::from_utf8(body) else {
        return Plan::Answer(parse_error());
    };
    let Ok(raw) = serde_json::from_str::<Box<RawValue>>(text) else {
        return Plan::Pass; // jsonrpsee answers -32700
    };
    let single = !raw.get().trim_start().starts_with('[');
    if single && !raw.get().trim_start().starts_with('{') {
        return Plan::Answer(not_an_object());
    }
    let entries: Vec<Entry> = if single {
        vec![entry(raw)]
    } else {
        match serde_json::from_str::<Vec<Box<RawValue>>>(raw.get()) {
            Ok(v) if !v.is_empty() && v.len() <= max_batch => v.into_iter().map(entry).collect(),
            _ => return Plan::Pass, // empty or too long: jsonrpsee's answer
        }
    };
    let needs = entries.iter().any(|e| match e {
        Entry::Object(m) => !matches!(classify(m), Id::Native),
        Entry::Duplicate(_) => true,
        Entry::Other(_) => false,
    });
    if !needs {
        return Plan::Pass;
    }
    let mut rewrite = Rewrite {
        single,
        tag,
        ids: Vec::new(),
        extra: Vec::new(),
    };
    let mut forward: Vec<String> = Vec::new();
    for e in entries {
        match e {
            Entry::Other(raw) => forward.push(raw.get().to_string()),
            Entry::Duplicate(name) => rewrite.extra.push(duplicate_member(&name)),
            Entry::Object(mut m) => {
                let original = match classify(&m) {
                    Id::Invalid => {
                        rewrite.extra.push(invalid_id());
                        continue;
                    }
                    Id::Absent => None,
                    Id::Native | Id::Foreign => m.remove("id"),
                };
                let ours = format!("\"{OURS}{tag}.{}\"", rewrite.ids.len());
                rewrite.ids.push(original);
                m.insert(
                    "id".into(),
                    RawValue::from_string(ours).expect("a JSON string"),
                );
                forward.push(serde_json::to_string(&m).expect("members serialize"));
            }
        }
    }
    if forward.is_empty() {
        // Only invalid ids: nothing to run.
        return Plan::Answer(if single {
            rewrite.extra.pop().unwrap_or_default()
        } else {
            format!("[{}]", rewrite.extra.join(","))
        });
    }
    let body = if single {
        forward.pop().expect("one entry")
    } else {
        format!("[{}]", forward.join(","))
    };
    Plan::Rewrite { body, rewrite }
}

impl Rewrite {
    /// The client's reply from jsonrpsee's; `None`: no reply at all (only notifications).
    pub fn reply(&self, reply: &str) -> Option<String> {
        let replies: Vec<Box<RawValue>> = if reply.trim_start().starts_with('[') {
            match serde_json::from_str(reply) {
                Ok(v) => v,
                Err(_) => return Some(reply.to_string()),
            }
        } else {
            match RawValue::from_string(reply.to_string()) {
                Ok(r) => vec![r],
                Err(_) => return Some(reply.to_string()),
            }
        };
        let mut out: Vec<String> = Vec::new();
        for r in replies {
            let Ok(mut m) = serde_json::from_str::<Members>(r.get()) else {
                out.push(r.get().to_string());
                continue;
            };
            let slot = m
                .get("id")
                .and_then(|id| serde_json::from_str::<String>(id.get()).ok())
                .and_then(|s| {
                    let (tag, n) = s.strip_prefix(OURS)?.split_once('.')?;
                    (tag.parse::<u64>().ok()? == self.tag).then_some(())?;
                    n.parse::<usize>().ok()
                })
                .and_then(|n| self.ids.get(n));
            match slot {
                // Not one of ours: jsonrpsee's own answer (an entry it could not read).
                None => out.push(r.get().to_string()),
                Some(Some(original)) => {
                    m.insert("id".into(), original.clone());
                    out.push(serde_json::to_string(&m).expect("members serialize"));
                }
                // A notification's reply is dropped, unless it says the request itself was
                // invalid (§5: such an error is answered, with `id: null`).
                Some(None) => {
                    if is_invalid_request(&m) {
                        m.insert(
                            "id".into(),
                            RawValue::from_string("null".into()).expect("JSON null"),
                        );
                        out.push(serde_json::to_string(&m).expect("members serialize"));
                    }
                }
            }
        }
        out.extend(self.extra.iter().cloned());
        match (self.single, out.len()) {
            (_, 0) => None,
            (true, _) => out.pop(),
            (false, _) => Some(format!("[{}]", out.join(","))),
        }
    }
}

fn is_invalid_request(m: &Members) -> bool {
    m.get("error")
        .and_then(|e| serde_json::from_str::<serde_json::Value>(e.get()).ok())
        .and_then(|e| e.get("code").and_then(|c| c.as_i64()))
        == Some(-32600)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(body: &str) -> (String, Rewrite) {
        match plan(body.as_bytes(), 100) {
            Plan::Rewrite { body, rewrite } => (body, rewrite),
            p => panic!("{p:?}"),
        }
    }

    #[test]
    fn native_ids_pass_untouched() {
        for b in [
            r#"{"jsonrpc":"2.0","method":"m","id":1}"#,
            r#"{"jsonrpc":"2.0","method":"m","id":"x"}"#,
            r#"{"jsonrpc":"2.0","method":"m","id":null}"#,
            r#"[{"jsonrpc":"2.0","method":"m","id":1},5]"#,
            "not json",
            "[]",
        ] {
            assert!(matches!(plan(b.as_bytes(), 100), Plan::Pass), "{b}");
        }
    }

    #[test]
    fn foreign_ids_are_echoed_as_sent() {
        let (body, rw) = rewrite(r#"{"jsonrpc":"2.0","method":"m","id":1.50}"#);
        assert!(body.contains(r#""id":"cowboy-devnet:0.0""#), "{body}");
        let reply = rw
            .reply(r#"{"jsonrpc":"2.0","id":"cowboy-devnet:0.0","result":3}"#)
            .unwrap();
        assert!(reply.contains(r#""id":1.50"#), "{reply}");
    }

    #[test]
    fn a_batch_drops_notification_replies_and_answers_invalid_ids() {
        let (body, rw) = rewrite(
            r#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b","id":-1},{"jsonrpc":"2.0","method":"c","id":true}]"#,
        );
        assert!(!body.contains("\"c\""), "{body}");
        let reply = rw
            .reply(r#"[{"jsonrpc":"2.0","id":"cowboy-devnet:0.0","result":1},{"jsonrpc":"2.0","id":"cowboy-devnet:0.1","result":2}]"#)
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&reply).unwrap();
        let v = v.as_array().unwrap();
        assert_eq!(v.len(), 2, "{reply}");
        assert_eq!(v[0]["id"], -1);
        assert_eq!(v[1]["error"]["code"], -32600);
        assert!(v[1]["id"].is_null());
    }

    #[test]
    fn only_notifications_get_no_reply() {
        let (_, rw) = rewrite(r#"{"jsonrpc":"2.0","method":"a"}"#);
        assert_eq!(
            rw.reply(r#"{"jsonrpc":"2.0","id":"cowboy-devnet:0.0","result":1}"#),
            None
        );
    }

    #[test]
    fn an_invalid_notification_is_still_answered_with_a_null_id() {
        let (_, rw) = rewrite(r#"{"method":"a"}"#);
        let reply = rw
            .reply(
                r#"{"jsonrpc":"2.0","id":"cowboy-devnet:0.0","error":{"code":-32600,"message":"x"}}"#,
            )
            .unwrap();
        assert!(reply.contains(r#""id":null"#), "{reply}");
    }

    /// Issue 30, "JSON-RPC edges".
    #[test]
    fn non_objects_duplicates_and_huge_ids() {
        for b in [r#""hello""#, "null", "1", "true"] {
            match plan(b.as_bytes(), 100) {
                Plan::Answer(a) => assert!(a.contains("-32600"), "{b}: {a}"),
                p => panic!("{b}: {p:?}"),
            }
        }
        match plan(br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#, 100) {
            Plan::Answer(a) => {
                assert!(a.contains("-32600") && a.contains(r#""id":null"#), "{a}")
            }
            p => panic!("{p:?}"),
        }
        let (body, rw) = rewrite(
            r#"[{"jsonrpc":"2.0","id":1,"id":2,"method":"m"},{"jsonrpc":"2.0","id":3,"method":"m"}]"#,
        );
        assert!(!body.contains(r#""id":2"#), "{body}");
        let reply = rw
            .reply(r#"[{"jsonrpc":"2.0","id":"cowboy-devnet:0.0","result":1}]"#)
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(v[0]["id"], 3, "{reply}");
        assert_eq!(v[1]["error"]["code"], -32600, "{reply}");
        let (_, rw) = rewrite(r#"{"jsonrpc":"2.0","method":"m","id":1e400}"#);
        let reply = rw
            .reply(r#"{"jsonrpc":"2.0","id":"cowboy-devnet:0.0","result":3}"#)
            .unwrap();
        assert!(reply.contains(r#""id":1e400"#), "{reply}");
        for n in ["0", "-1", "1.5", "1e400", "-0.0E-7"] {
            assert!(is_json_number(n), "{n}");
        }
        for n in ["01", "1.", ".5", "1e", "+1", "0x1", "NaN"] {
            assert!(!is_json_number(n), "{n}");
        }
    }

    #[test]
    fn not_utf8_is_a_parse_error() {
        match plan(b"{\"id\":\"\xff\"}", 100) {
            Plan::Answer(a) => assert!(a.contains("-32700"), "{a}"),
            p => panic!("{p:?}"),
        }
    }
}
