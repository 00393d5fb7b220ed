//! `rpc.discover`: the OpenRPC document (issue 13). The methods served through the generic
//! adapters ([`super::command`], [`super::served`]) are described from their types (issue 29,
//! [`super::schema`]); the methods still registered by hand have an entry in the table here.
//! A test fails when a registered method is missing from the document.

use serde_json::{Map, Value, json};

/// One param: its name, its schema (a name under `components.schemas`, or literal JSON
/// schema when it starts with `{`, `"@Name"` standing for a reference), whether it is required, and what it is.
pub struct ParamDoc {
    pub name: &'static str,
    pub schema: &'static str,
    pub required: bool,
    pub description: &'static str,
}

pub struct MethodDoc {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamDoc],
    pub result: &'static str,
}

const fn p(name: &'static str, schema: &'static str, description: &'static str) -> ParamDoc {
    ParamDoc {
        name,
        schema,
        required: true,
        description,
    }
}

const fn o(name: &'static str, schema: &'static str, description: &'static str) -> ParamDoc {
    ParamDoc {
        name,
        schema,
        required: false,
        description,
    }
}

const fn m(
    name: &'static str,
    summary: &'static str,
    params: &'static [ParamDoc],
    result: &'static str,
) -> MethodDoc {
    MethodDoc {
        name,
        summary,
        params,
        result,
    }
}

const BOOL: &str = r#"{"type":"boolean"}"#;
const TRACE_OPTIONS: &str = r#"{"type":"object","properties":{"compact":{"type":"boolean"}}}"#;
const TRACES: &str = r#"{"type":"array","items":{"type":"object","properties":{"of":{"type":"object","description":"{kind: tx, tx_hash, index} or {kind: fire, timer_id}"},"actor":"@Address","entry":{"type":"string"},"height":"@Height","steps":{"type":"array","description":"{step: call, call, args, result, cycles, cells, error?} or {step: print, line}"},"cycles_start":"@Count","script_cycles":"@Count","cycles_end":"@Count","end":{"type":"object","description":"success, error?, at? [line, column], failed_in?"}}}}"#;
const ANY: &str = r#"{}"#;

/// The methods registered by hand (the others are described from their types).
pub const METHODS: &[MethodDoc] = &[
    m("rpc.discover", "This document.", &[], ANY),
    m(
        "devnet_getBlock",
        "A sealed block: header, receipts, events, end-of-block counters; null when not kept.",
        &[p("height", "Height", "block height")],
        "Block",
    ),
    m(
        "devnet_exportFixture",
        "The session as a fixture (TOML): genesis or base state, steps at their heights, expectations pinning what was seen; written to `path` when given (with its base beside it, `<stem>.base.json`); without `path` the reply holds the text and, for a fixture with a base, the base dump (`base`) and the file name the fixture gives it (`base_file`).",
        &[
            o(
                "from_height",
                "Height",
                "the height of the state the fixture starts from (its base; its steps are those after it); default: the session's start (its genesis or loaded state)",
            ),
            o(
                "path",
                r#"{"type":"string"}"#,
                "a file to write; without it the reply holds the text",
            ),
        ],
        r#"{"type":"object"}"#,
    ),
    m(
        "devnet_getTransaction",
        "A transaction by hash (issue 32): status `pending` (its block is open) or `sealed`, height, index, from, nonce, kind. TransactionNotFound when the node holds none (unknown, or older than the kept history).",
        &[p("hash", "Hash", "the transaction hash")],
        r#"{"type":"object","properties":{"hash":"@Hash","status":{"enum":["pending","sealed"]},"height":"@Height","index":"@Count","from":"@Address","nonce":"@Count","kind":{"type":"string"}}}"#,
    ),
    m(
        "devnet_getReceipt",
        "A receipt by hash (issue 32), shaped as every sending method's; `status: \"pending\"` while its block is open. TransactionNotFound when the node holds none.",
        &[p("hash", "Hash", "the transaction hash")],
        "Receipt",
    ),
    m(
        "devnet_traceTransaction",
        "The execution trace of a transaction's call or deploy (issue 32): its host calls in order with their arguments, answers, cycles and cells (storage writes with the value replaced), printed lines, and the end (success, or the error with the script's line and column and the host call it failed in). Kept with --trace, else rebuilt by replaying its block. Options: {compact: true} for host calls with their cycles only.",
        &[
            p("hash", "Hash", "the transaction hash"),
            o("options", TRACE_OPTIONS, "{compact?}"),
        ],
        TRACES,
    ),
    m(
        "devnet_traceFire",
        "The execution trace of a timer's fire (as devnet_traceTransaction's): at `height`, or the last fire the node knows.",
        &[
            p("timer_id", "TimerId", "the timer"),
            o(
                "height",
                "Height",
                "the fire's block (default: its last fire)",
            ),
            o("options", TRACE_OPTIONS, "{compact?}"),
        ],
        TRACES,
    ),
    m(
        "devnet_traceBlock",
        "The execution traces of every handler run of a sealed block, in order (transactions, then fires).",
        &[
            p("height", "Height", "the block"),
            o("options", TRACE_OPTIONS, "{compact?}"),
        ],
        TRACES,
    ),
    m(
        "devnet_pendingTransactions",
        "The open block's transactions in order (applied, not sealed: manual or interval mining), as devnet_getTransaction shows each.",
        &[],
        r#"{"type":"array","items":{"type":"object"}}"#,
    ),
    m(
        "devnet_call",
        "A dry run (issue 32, Spec note 174; anvil's eth_call): `call` as actor_call takes it, or {\"schedule\": {..}} with timer_schedule's fields, run against the head (or the state as of `block`) and thrown away. Result: the receipt the transaction would get (a failing handler: success false, status reverted, its error), with dry_run: true, its events, the timers it would schedule (and timer_id for a schedule). What the real call refuses before inclusion is the same named error. Nothing changes: no block, nonce, balance, timer or pending transaction.",
        &[
            p(
                "call",
                r#"{"type":"object","properties":{"from":"@Address","actor":"@Address","handler":{"type":"string"},"payload":"@Bytes","schedule":"@ScheduleTimer"}}"#,
                "what to run",
            ),
            o(
                "options",
                r#"{"type":"object","properties":{"trace":{"type":"boolean"},"compact":{"type":"boolean"}}}"#,
                "trace: add the handler run's trace (Spec note 175); compact: in the trace methods' compact form",
            ),
            o(
                "block",
                "BlockTag",
                "the state as of this sealed height (default: latest); older than the retained history: HistoryPruned",
            ),
        ],
        "Receipt",
    ),
    m(
        "devnet_subscribeBlocks",
        "WebSocket: a `devnet_subscribeBlocks` notification per sealed block; `{\"lagged\": n}` when n were lost.",
        &[],
        "SubscriptionId",
    ),
    m(
        "devnet_unsubscribeBlocks",
        "End a block subscription.",
        &[p("subscription", "SubscriptionId", "the id")],
        BOOL,
    ),
    m(
        "devnet_subscribeEvents",
        "WebSocket: a `devnet_subscribeEvents` notification per matching event; `{\"lagged\": n}` when n were lost.",
        &[o(
            "filter",
            "EventFilter",
            "which events (heights are ignored)",
        )],
        "SubscriptionId",
    ),
    m(
        "devnet_unsubscribeEvents",
        "End an event subscription.",
        &[p("subscription", "SubscriptionId", "the id")],
        BOOL,
    ),
    m(
        "devnet_subscribeStory",
        "WebSocket: the story of a fixture played live (serve --fixture): `{\"step\": {height, line, text, ok, label}}` per step played, `{\"expectation\": {line, description, passed, detail}}` per expectation checked; `{\"lagged\": n}` when n were lost.",
        &[],
        "SubscriptionId",
    ),
    m(
        "devnet_unsubscribeStory",
        "End a story subscription.",
        &[p("subscription", "SubscriptionId", "the id")],
        BOOL,
    ),
];

/// A schema from the table: literal JSON (where `"@Name"` stands for a reference to
/// `components.schemas.Name`), or a bare name.
fn schema(s: &str) -> Value {
    if s.starts_with('{') {
        let v = serde_json::from_str(s).expect("literal schemas in METHODS are valid JSON");
        expand_refs(v)
    } else {
        reference(s)
    }
}

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn expand_refs(v: Value) -> Value {
    match v {
        Value::String(s) if s.starts_with('@') => reference(&s[1..]),
        Value::Object(m) => {
            Value::Object(m.into_iter().map(|(k, v)| (k, expand_refs(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(expand_refs).collect()),
        v => v,
    }
}

fn components() -> Value {
    json!({
        "schemas": {
            "Height": {"type": "integer", "minimum": 0},
            "Count": {"type": "integer", "minimum": 0},
            "SubscriptionId": {},
            "Block": {"type": ["object", "null"]}
        }
    })
}

/// A table entry as OpenRPC writes it.
fn table_entry(md: &MethodDoc) -> Value {
    let params: Vec<Value> = md
        .params
        .iter()
        .map(|pd| {
            json!({
                "name": pd.name,
                "required": pd.required,
                "description": pd.description,
                "schema": schema(pd.schema),
            })
        })
        .collect();
    let mut obj = Map::new();
    obj.insert("name".into(), json!(md.name));
    obj.insert("summary".into(), json!(md.summary));
    obj.insert("paramStructure".into(), json!("by-position"));
    obj.insert("params".into(), Value::Array(params));
    obj.insert(
        "result".into(),
        json!({"name": "result", "schema": schema(md.result)}),
    );
    Value::Object(obj)
}

/// The methods described from their types: those served through the generic adapters, then
/// those registered by hand that have their own params structs.
fn described(g: &mut schemars::SchemaGenerator) -> Vec<super::schema::MethodSchema> {
    let mut v: Vec<_> = super::command::entries()
        .into_iter()
        .chain(super::served::entries())
        .map(|e| (e.schema)(g))
        .collect();
    v.extend(super::draft::schemas(g));
    v.extend(super::wire_chain::schemas(g));
    v.extend(super::wire_find::schemas(g));
    v
}

/// The OpenRPC document: the methods served through the generic adapters described from
/// their types (issue 29), then the table's.
pub fn document() -> Value {
    let mut g = super::schema::generator();
    let mut methods: Vec<Value> = described(&mut g).iter().map(|m| m.to_json()).collect();
    methods.extend(METHODS.iter().map(table_entry));
    let mut c = components();
    // The derived schemas win over the table's of the same name.
    for (name, s) in super::schema::components(&mut g) {
        c["schemas"][name] = s;
    }
    json!({
        "openrpc": "1.2.6",
        "info": {
            "title": "cowboy-devnet",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "A local Cowboy devnet with the CIP-5 timer engine. Amounts are decimal strings, addresses 0x + 40 hex, ids and hashes 0x + 64 hex, heights numbers. Domain errors: codes -32050..-32099 with data.reason."
        },
        "methods": methods,
        "components": c,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_document_builds_and_names_are_unique() {
        // A written component schema is not one the types give (it would be dead text).
        let mut g = super::super::schema::generator();
        super::described(&mut g);
        let derived = super::super::schema::components(&mut g);
        let written = super::components();
        let both: Vec<&String> = derived
            .keys()
            .filter(|k| written["schemas"].get(k.as_str()).is_some())
            .collect();
        assert!(both.is_empty(), "written and derived: {both:?}");
        let d = super::document();
        let names: Vec<&str> = d["methods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        let set: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(set.len(), names.len());
    }
}
