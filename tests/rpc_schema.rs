//! Issue 29, "OpenRPC derived from the types": `rpc.discover` describes every method the
//! server registers; the methods served through the generic adapters take their params and
//! result schemas from the Rust types (so an enum lists exactly its variants), every `$ref`
//! resolves, and the params a client sends validate against the schemas the document gives.

mod common;

use common::schema::method;

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{DraftTimerArgs, Genesis};
use cowboy_devnet::engine::{Address, PriorityTier, ScheduleArgs, SchedulerKind, TimerId};
use cowboy_devnet::node::{
    At, EventCursor, EventFilter, EventsPageQuery, LaneQuery, SharesQuery, TimerFilter,
    TimersPageQuery,
};
use cowboy_devnet::node::{
    CallActor, CancelTimer, ConfigChange, DeployActor, DraftTimer, EstimateDraftTimer,
    EstimateTimer, ExtendTimer, GovCancel, GovExtend, GovUpdateConfig, GovUpdateSchedulerConfig,
    Halt, Mine, MiningMode, Revert, ScheduleTimer, SetActivationHeight, SetBalance, SetMining,
    spawn,
};
use cowboy_devnet::rpc::command::{RpcRequest, entries};
use cowboy_devnet::rpc::draft::{draft_method, draft_params};
use cowboy_devnet::rpc::methods::module;
use cowboy_devnet::rpc::openrpc;
use cowboy_devnet::rpc::queries::RpcQuery;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Methods whose result is any JSON, and why.
const UNDESCRIBED_RESULTS: &[(&str, &str)] = &[
    ("rpc.discover", "the OpenRPC document itself"),
    (
        "devnet_subscribeBlocks",
        "a subscription id jsonrpsee chooses",
    ),
    (
        "devnet_subscribeEvents",
        "a subscription id jsonrpsee chooses",
    ),
    (
        "devnet_subscribeStory",
        "a subscription id jsonrpsee chooses",
    ),
];

/// The schema a `$ref` names, or the schema itself.
fn resolved<'a>(doc: &'a Value, s: &'a Value) -> &'a Value {
    match s["$ref"].as_str() {
        Some(r) => doc
            .pointer(r.trim_start_matches('#'))
            .unwrap_or(&Value::Null),
        None => s,
    }
}

fn all_refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r);
            }
            m.values().for_each(|v| all_refs(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| all_refs(v, out)),
        _ => {}
    }
}

fn enums<'a>(v: &'a Value, out: &mut Vec<&'a Vec<Value>>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(e)) = m.get("enum") {
                out.push(e);
            }
            m.values().for_each(|v| enums(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| enums(v, out)),
        _ => {}
    }
}

#[test]
fn issue29_every_registered_method_is_described_with_params_and_a_result() {
    let node = spawn(common::fleet::node_on(Genesis::default()));
    let registered: BTreeSet<String> = module(node.clone())
        .method_names()
        .map(String::from)
        .collect();
    node.shutdown();
    let doc = openrpc::document();
    for name in &registered {
        let m = method(&doc, name);
        let params = m["params"].as_array().unwrap_or_else(|| panic!("{name}"));
        for p in params {
            assert!(p["name"].is_string(), "{name}: {p}");
            assert!(p["required"].is_boolean(), "{name}: {p}");
            assert_ne!(
                p["schema"],
                json!({}),
                "{name}: param {} has no schema",
                p["name"]
            );
        }
        if UNDESCRIBED_RESULTS.iter().any(|(m, _)| m == name) {
            continue;
        }
        let result = &m["result"]["schema"];
        assert!(result.is_object(), "{name}: {result}");
        let r = resolved(&doc, result);
        assert!(!r.is_null(), "{name}: {result} does not resolve");
        assert_ne!(r, &json!({}), "{name}: the result has no schema");
    }
}

/// The methods served through the generic adapters: their params are the decoder's names,
/// in order, required as the decoder reads them.
#[test]
fn issue29_adapter_methods_take_their_params_from_the_types() {
    let doc = openrpc::document();
    let served = cowboy_devnet::rpc::served::methods();
    let commands: Vec<_> = entries()
        .into_iter()
        .map(|e| (e.method, e.params))
        .collect();
    assert!(commands.len() + served.len() >= 34);
    for (name, want) in commands.iter().chain(&served) {
        let m = method(&doc, name);
        let got: Vec<&str> = m["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(&got, want, "{name}");
        let summary = m["summary"].as_str().unwrap();
        assert!(
            !summary.is_empty() && !summary.contains('\n'),
            "{name}: {summary:?}"
        );
    }
    let required = |name: &str| -> Vec<bool> {
        method(&doc, name)["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["required"].as_bool().unwrap())
            .collect()
    };
    assert_eq!(required("devnet_mine"), [false]);
    assert_eq!(required("devnet_setBalance"), [true, true]);
    assert_eq!(required("actor_deploy"), [false]);
    assert_eq!(required("timer_get"), [true, false]);
    assert_eq!(required("scheduler_buckets"), [false, false]);
}

#[test]
fn issue29_every_ref_resolves_in_components() {
    let doc = openrpc::document();
    let mut refs = Vec::new();
    all_refs(&doc, &mut refs);
    assert!(refs.len() > 50, "{} refs", refs.len());
    for r in refs {
        let name = r
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("{r} is not under components.schemas"));
        assert!(
            doc["components"]["schemas"].get(name).is_some(),
            "{r} does not resolve"
        );
    }
}

/// The drift the issue measured: `scheduler_lane.scheduler` listed two schedulers of five.
/// Every enum in the document that names a scheduler lists exactly `SchedulerKind::ALL`.
#[test]
fn issue29_every_scheduler_enum_lists_the_five() {
    let doc = openrpc::document();
    let five: Vec<Value> = SchedulerKind::ALL
        .iter()
        .map(|k| json!(k.as_str()))
        .collect();
    assert_eq!(
        five,
        ["fifo", "eip1559", "cip1-v1", "cip5-draft", "cip5-draft-zh"].map(|s| json!(s))
    );
    assert_eq!(
        doc["components"]["schemas"]["Scheduler"]["enum"],
        json!(five)
    );
    let mut all = Vec::new();
    enums(&doc, &mut all);
    let naming: Vec<_> = all.iter().filter(|e| e.contains(&json!("fifo"))).collect();
    assert!(!naming.is_empty());
    for e in naming {
        assert_eq!(*e, &five);
    }
    // The derived replies name it through the one schema.
    for (schema, field) in [("Head", "scheduler"), ("SharesView", "scheduler")] {
        let s = &doc["components"]["schemas"][schema]["properties"][field];
        assert!(
            s.to_string().contains("#/components/schemas/Scheduler"),
            "{schema}.{field}: {s}"
        );
    }
}

/// `r`'s params, as a client sends them, validate against the schemas `rpc.discover` gives
/// its method's params.
fn validates<R: RpcRequest>(doc: &Value, r: R) {
    sent_validates(doc, R::METHOD, &r.params());
}

/// `sent`, the positional params of a call of `name`, validate against its params' schemas.
fn sent_validates(doc: &Value, name: &str, sent: &[Value]) {
    let m = method(doc, name);
    let params = m["params"].as_array().unwrap();
    assert!(sent.len() <= params.len(), "{name}");
    for (i, p) in params.iter().enumerate() {
        let Some(v) = sent.get(i).filter(|v| !v.is_null()) else {
            assert_eq!(p["required"], false, "{name}: {} is required", p["name"]);
            continue;
        };
        let ok = check(doc, &p["schema"], v);
        assert!(ok.is_ok(), "{name} param {}: {v}: {ok:?}", p["name"]);
    }
}

/// Whether `v` validates against `schema` (its `$ref`s into the document's components).
fn check(doc: &Value, schema: &Value, v: &Value) -> Result<(), String> {
    let root = json!({"components": doc["components"], "allOf": [schema]});
    let validator = jsonschema::draft7::new(&root).map_err(|e| e.to_string())?;
    validator.validate(v).map_err(|e| e.to_string())
}

fn addr(b: u8) -> Address {
    Address([b; 20])
}

fn schedule() -> ScheduleTimer {
    ScheduleTimer {
        actor: addr(1),
        from: Some(addr(2)),
        args: ScheduleArgs {
            height: 42,
            payload: b"hello".to_vec(),
            fee_payer: Some(addr(3)),
            gas_limit: Some(90_000),
            expires_at: Some(900),
            max_fee_per_cycle: Some(u128::MAX),
            max_priority_fee_per_cycle: Some(7),
            priority_tier: Some(PriorityTier::Urgent),
            bid: Some(5),
            client_nonce: Some(9),
        },
        label: Some("settle 42".into()),
    }
}

fn draft(interval: bool) -> EstimateDraftTimer {
    EstimateDraftTimer(DraftTimer {
        actor: addr(1),
        from: Some(addr(2)),
        interval,
        args: DraftTimerArgs {
            keys: if interval {
                Vec::new()
            } else {
                vec!["price/".into()]
            },
            every: interval.then_some(3),
            first: interval.then_some(10),
            payload: vec![0, 1],
            fee_payer: Some(addr(3)),
            gas_limit: Some(70_000),
            expires_at: Some(500),
            bid: Some(11),
            client_nonce: Some(4),
        },
        label: Some("settle 42".into()),
    })
}

#[test]
fn issue29_the_params_a_client_sends_validate_against_rpc_discover() {
    let doc = openrpc::document();
    let id = TimerId([7; 32]);
    validates(&doc, Mine { blocks: 3 });
    let (a, b, c) = (Address([2; 20]), Address([3; 20]), Address([4; 20]));
    for tx in common::every_tx_kind(a, b, c) {
        validates(&doc, cowboy_devnet::node::SendTx(tx));
    }
    validates(
        &doc,
        SetMining(MiningMode::Interval {
            block_time_ms: 1_500,
        }),
    );
    validates(&doc, SetMining(MiningMode::Auto));
    validates(
        &doc,
        SetBalance {
            address: addr(4),
            balance: u128::MAX,
        },
    );
    validates(&doc, Revert { id: 3 });
    validates(&doc, Halt { blocks: 20 });
    validates(
        &doc,
        cowboy_devnet::node::DropTransaction {
            hash: cowboy_devnet::engine::H256([9; 32]),
        },
    );
    validates(
        &doc,
        DeployActor {
            from: Some(addr(2)),
            code: ActorCode::rhai("pinger", "fn handle_timer(p) {}"),
            address: None,
            endowment: 1_000,
            name: Some("pinger".into()),
        },
    );
    validates(
        &doc,
        CallActor {
            from: addr(2),
            actor: addr(1),
            handler: "ping".into(),
            payload: vec![0, 255],
        },
    );
    validates(&doc, schedule());
    validates(&doc, EstimateTimer(schedule()));
    let cancel = CancelTimer {
        actor: addr(1),
        timer_id: id,
        from: Some(addr(2)),
    };
    validates(&doc, cancel);
    let extend = ExtendTimer {
        actor: addr(1),
        timer_id: id,
        new_expires_at: 1_000,
        from: None,
    };
    validates(&doc, extend);
    let gov_cancel = GovCancel {
        from: addr(5),
        timer_id: id,
    };
    validates(&doc, gov_cancel);
    let gov_extend = GovExtend {
        from: addr(5),
        timer_id: id,
        new_expires_at: 9,
    };
    validates(&doc, gov_extend);
    let mut fields = serde_json::Map::new();
    fields.insert("max_ttl_blocks".into(), json!(100));
    let update = GovUpdateConfig {
        from: addr(5),
        config: ConfigChange::Fields(fields.clone()),
    };
    validates(&doc, update);
    validates(
        &doc,
        GovUpdateSchedulerConfig {
            from: addr(5),
            fields,
        },
    );
    validates(
        &doc,
        SetActivationHeight {
            from: addr(5),
            height: 50,
        },
    );
    validates(&doc, draft(false));
    validates(&doc, draft(true));
    // `timer_watch` / `timer_interval`, registered by hand, are described from their types
    // too: what the attached dashboard sends validates.
    for interval in [false, true] {
        let r = draft(interval).0;
        let sent = draft_params(&r);
        let schema = &method(&doc, draft_method(&r))["params"][0]["schema"];
        let ok = check(&doc, schema, &sent[0]);
        assert!(ok.is_ok(), "{}: {ok:?}", draft_method(&r));
    }
    // The pages the attached dashboard asks for (`devnet_getEvents`, `timer_list`, registered
    // by hand) and a served read with its block tag.
    let events = EventsPageQuery {
        filter: EventFilter {
            kinds: Some(vec!["TimerFired".into()]),
            actor: Some(addr(1)),
            ..EventFilter::default()
        },
        cursor: Some(EventCursor {
            height: 4,
            index: 2,
        }),
        limit: 50,
        newest: false,
    };
    sent_validates(&doc, EventsPageQuery::METHOD, &events.params());
    let timers = TimersPageQuery {
        filter: TimerFilter {
            id_prefix: Some("0xab".into()),
            ..TimerFilter::default()
        },
        cursor: Some(12),
        limit: 100,
    };
    sent_validates(&doc, TimersPageQuery::METHOD, &timers.params());
    let shares = At::new(SharesQuery { window: 50 }, Some(7));
    sent_validates(&doc, SharesQuery::METHOD, &shares.params());
    let lane = At::new(LaneQuery { last: 5 }, None);
    sent_validates(&doc, LaneQuery::METHOD, &lane.params());
}

/// The schemas are not so loose that anything passes: a misspelt field, a number for an
/// amount, a short address and a scheduler not among the five are refused.
#[test]
fn issue29_the_schemas_refuse_what_the_decoders_refuse() {
    let doc = openrpc::document();
    let timer = &method(&doc, "timer_schedule")["params"][0]["schema"];
    let a = format!("0x{}", "01".repeat(20));
    assert!(check(&doc, timer, &json!({"actor": a, "height": 5})).is_ok());
    for bad in [
        json!({"actor": a, "height": 5, "expires_a": 9}),
        json!({"actor": a, "height": 5, "bid": 5}),
        json!({"actor": "0x12", "height": 5}),
        json!({"actor": a}),
        json!({"actor": a, "height": 5, "priority_tier": "ludicrous"}),
    ] {
        assert!(check(&doc, timer, &bad).is_err(), "{bad} passed");
    }
    let scheduler = json!({"$ref": "#/components/schemas/Scheduler"});
    for k in SchedulerKind::ALL {
        assert!(check(&doc, &scheduler, &json!(k.as_str())).is_ok(), "{k}");
    }
    assert!(check(&doc, &scheduler, &json!("cip9")).is_err());
}
