//! JSON schemas (issue 29, "OpenRPC derived from the types") for the types whose JSON is
//! written by hand rather than derived: the hex newtypes, the amounts, the names the engine
//! keeps as lists (`SchedulerKind::ALL`, the named enums), the mining mode's API shape. Every
//! other param and result schema is `#[derive(JsonSchema)]` on the type itself.

use super::types::{Amount, Bytes};
use crate::engine::{Address, ErrorKind, EventKind, H256, SchedulerKind, TimerId, TimerStatus};
use crate::node::{BlockTag, EventCursor, MiningMode};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use std::borrow::Cow;

/// `0x` and `n` hex digits.
fn hex(n: usize, what: &str) -> Schema {
    json_schema!({
        "type": "string",
        "pattern": format!("^0x[0-9a-fA-F]{{{n}}}$"),
        "description": what,
    })
}

/// A type written as a JSON string of a fixed shape, under its own name in
/// `components.schemas`.
macro_rules! named_schema {
    ($($t:ty => $name:literal, $schema:expr;)*) => {
        $(impl JsonSchema for $t {
            fn schema_name() -> Cow<'static, str> {
                $name.into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                $schema
            }
        })*
    };
}

named_schema! {
    Address => "Address", hex(40, "20 bytes");
    TimerId => "TimerId", hex(64, "32 bytes");
    H256 => "Hash", hex(64, "32 bytes");
    Amount => "Amount", amount();
    Bytes => "Bytes", json_schema!({"type": "string", "pattern": "^0x([0-9a-fA-F]{2})*$"});
    BlockTag => "BlockTag", json_schema!({
        "oneOf": [{"const": "latest"}, {"type": "integer", "minimum": 0}],
        "description": "a sealed height of the retained history, or latest (the head)",
    });
    MiningMode => "MiningMode", json_schema!({
        "type": "object",
        "required": ["mode"],
        "properties": {
            "mode": {"enum": ["auto", "manual", "interval"]},
            "block_time": {"type": "number", "exclusiveMinimum": 0, "description": "seconds, for interval"},
        },
        "additionalProperties": false,
    });
    SchedulerKind => "Scheduler", names(
        SchedulerKind::ALL.iter().map(|k| k.as_str()),
        "the scheduler policy (cowboy-devnet variants lists their open points)",
    );
    TimerStatus => "TimerStatus", names(TimerStatus::ALL.iter().map(|k| k.as_str()), "a timer's status");
    EventKind => "EventKind", names(EventKind::ALL.iter().map(|k| k.as_str()), "an event's kind");
    EventCursor => "EventCursor", json_schema!({
        "type": "string",
        "pattern": "^[0-9]+:[0-9]+$",
        "description": "where the next page of events starts: HEIGHT:INDEX",
    });
    ErrorKind => "ErrorKind", names(ErrorKind::ALL.iter().map(|k| k.as_str()), "a named error (CIP-5 §4.2, CIP-1 v3 §6)");
}

/// A u128 as a decimal string (JSON numbers lose precision past 2^53).
fn amount() -> Schema {
    json_schema!({"type": "string", "pattern": "^[0-9]+$", "description": "a u128 as a decimal string"})
}

/// Exactly the names a Rust type lists (issue 29: the document listed two schedulers of five).
fn names<'a>(all: impl Iterator<Item = &'a str>, what: &str) -> Schema {
    let all: Vec<&str> = all.collect();
    json_schema!({"type": "string", "enum": all, "description": what})
}
