//! Issue 29, "OpenRPC derived from the types": the events' schema in `rpc.discover` (`Event`,
//! what `devnet_getEvents`, blocks and the event subscription answer) is derived from the
//! engine's and the chain's event types, so it lists every event kind with its own fields, and
//! every event the shipped fixtures record under each of the five schedulers (15 kinds) and one
//! of each kind they do not record, built from the Rust types, validates against it.

mod common;

use cowboy_devnet::chain::{Event, EventRecord, Phase};
use cowboy_devnet::engine::config::DraftParams;
use cowboy_devnet::engine::scheduler::policy::Cip1Config;
use cowboy_devnet::engine::{Address, ErrorKind, EventKind, SchedulerKind, TimerEvent, TimerId};
use cowboy_devnet::rpc::openrpc;
use cowboy_devnet::scenario::runner::disk_loader;
use cowboy_devnet::scenario::{LoadedFixture, RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every `kind` constant the schema `s` (its `$ref`s resolved in `doc`) allows.
fn kinds(doc: &Value, s: &Value, out: &mut Vec<String>) {
    if let Some(r) = s["$ref"].as_str() {
        let target = doc
            .pointer(r.trim_start_matches('#'))
            .unwrap_or(&Value::Null);
        return kinds(doc, target, out);
    }
    if let Some(k) = s["properties"]["kind"]["const"].as_str() {
        out.push(k.to_string());
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        for sub in s[key].as_array().into_iter().flatten() {
            kinds(doc, sub, out);
        }
    }
}

#[test]
fn issue29_the_event_schema_lists_every_kind_with_its_fields() {
    let doc = openrpc::document();
    let event = &doc["components"]["schemas"]["Event"];
    assert!(event.is_object(), "Event is in components.schemas");
    let mut listed = Vec::new();
    kinds(&doc, event, &mut listed);
    listed.sort();
    let mut all: Vec<String> = EventKind::ALL.iter().map(|k| k.as_str().into()).collect();
    all.sort();
    assert_eq!(listed, all, "the Event schema names exactly EventKind::ALL");
    // A kind's own fields are described, not left open: TimerFired's cost is an amount string.
    let fired = doc["components"]["schemas"]["TimerEvent"].to_string();
    assert!(fired.contains("\"cost\""), "TimerFired's fields: {fired}");
}

/// Runs `path` headless under `scheduler` and returns its events as the API serialises them
/// (none where the fixture does not play under it: a drafts' fixture under fifo).
fn events_of(path: &Path, scheduler: SchedulerKind) -> Vec<Value> {
    let lf = LoadedFixture::read(path).expect("fixture parses");
    let mut s =
        Scenario::prepare(&lf, &DevnetRuntime::new(), &disk_loader).expect("fixture checks");
    s.play_under(scheduler);
    match s.run(
        DevnetRuntime::shared(),
        RunOptions::default(),
        &mut |_, _| {},
    ) {
        Ok(r) => r
            .events
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn issue29_every_shipped_fixtures_events_validate_against_the_event_schema() {
    let doc = openrpc::document();
    let validator = common::schema::validator(&doc, &json!({"$ref": "#/components/schemas/Event"}));
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let paths = common::schema::shipped_fixtures();
    let runs = paths
        .iter()
        .flat_map(|p| SchedulerKind::ALL.iter().map(move |k| (p, *k)));
    for (path, scheduler) in runs {
        for v in events_of(path, scheduler) {
            let kind = v["kind"].as_str().unwrap_or("?").to_string();
            let n = seen.entry(kind.clone()).or_default();
            *n += 1;
            if *n > 200 {
                continue; // enough of one kind: the schema is the same for the rest
            }
            if let Err(e) = validator.validate(&v) {
                panic!("{}: {kind} does not validate: {e}\n{v}", path.display());
            }
            // The fields are typed: an amount written as a number, not the decimal string
            // the API writes, is refused.
            if kind == "TimerFired" {
                let mut bad = v.clone();
                bad["cost"] = json!(1);
                assert!(validator.validate(&bad).is_err(), "cost as a number passes");
            }
        }
    }
    // The kinds no shipped fixture records, built from the Rust types as the chain records them.
    for e in unrecorded() {
        let v = serde_json::to_value(EventRecord {
            height: 7,
            phase: Phase::Eob,
            event: Event::Timer(e),
        })
        .unwrap();
        if let Err(err) = validator.validate(&v) {
            panic!("{v} does not validate: {err}");
        }
        seen.insert(v["kind"].as_str().unwrap().to_string(), 1);
    }
    let all: BTreeSet<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
    let validated: BTreeSet<&str> = seen.keys().map(String::as_str).collect();
    assert_eq!(validated, all, "every kind validated");
}

fn unrecorded() -> Vec<TimerEvent> {
    let (timer_id, actor) = (TimerId([7; 32]), Address([9; 20]));
    vec![
        TimerEvent::TimerPriorityClampedAtSchedule {
            timer_id,
            actor,
            stated: 1 << 100,
            clamped: 5,
        },
        TimerEvent::GbaFallback {
            timer_id,
            actor,
            reason: ErrorKind::OutOfCycles,
        },
        TimerEvent::SchedulerConfigUpdated {
            config: Cip1Config::default().scheduler_params(),
            draft: Some(DraftParams::default()),
        },
        TimerEvent::TimerUpdated {
            timer_id,
            actor,
            client_nonce: 3,
            payload_len: 4,
            gas_limit_per_fire: 5,
            bid: 6,
            fifo_rank_raised: true,
        },
    ]
}
