//! Issue 29, "OpenRPC derived from the types": the chain dump that `devnet_dumpState` answers
//! and `devnet_loadState` takes is described in `rpc.discover` from the chain's own types
//! (`ChainDump` and everything in it: accounts, actors, the queue's timers, the CIP-1 v3 and
//! CIP-5 draft states), not as an object with one required field. Every shipped fixture's
//! final state under each of the five schedulers validates against both schemas, bare and in
//! a state file's envelope, and a dump with a field of the wrong shape does not.

mod common;

use common::schema::{method, played_under, shipped_fixtures, validator};
use cowboy_devnet::chain::dump::state_text;
use cowboy_devnet::engine::SchedulerKind;
use cowboy_devnet::rpc::openrpc;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::Path;

/// The final state of `path` played under `scheduler`, as `devnet_dumpState` answers it (none
/// where the fixture does not play under it: a drafts' fixture under fifo).
fn dump_of(path: &Path, scheduler: SchedulerKind) -> Option<Value> {
    let chain = played_under(path, scheduler)?;
    let dump = chain.dump().expect("no open block after a run");
    Some(serde_json::to_value(&dump).unwrap())
}

#[test]
fn issue29_the_dump_schema_names_every_field_of_the_dump() {
    let doc = openrpc::document();
    let dump = &doc["components"]["schemas"]["ChainDump"];
    let props: BTreeSet<&str> = dump["properties"]
        .as_object()
        .expect("ChainDump is described field by field")
        .keys()
        .map(String::as_str)
        .collect();
    for field in [
        "format_version",
        "genesis",
        "head",
        "accounts",
        "actors",
        "scheduler",
        "queue",
        "cip1",
        "draft",
        "supply",
        "burned",
    ] {
        assert!(
            props.contains(field),
            "ChainDump lists `{field}`: {props:?}"
        );
    }
    // The scheduler is the registry's list, not a free string.
    let scheduler = doc["components"]["schemas"]["Scheduler"]["enum"]
        .as_array()
        .expect("Scheduler is an enum");
    assert_eq!(scheduler.len(), SchedulerKind::ALL.len());
    // Both methods refer to it (`devnet_loadState` through `StateParam`: a bare dump or a
    // state file's envelope).
    assert_eq!(
        method(&doc, "devnet_loadState")["params"][0]["schema"]["$ref"],
        "#/components/schemas/StateParam"
    );
    let load = doc["components"]["schemas"]["StateParam"].to_string();
    let dumped = doc["components"]["schemas"]["DumpStateResult"].to_string();
    assert!(
        load.contains("ChainDump"),
        "devnet_loadState's state: {load}"
    );
    assert!(
        dumped.contains("ChainDump"),
        "devnet_dumpState's result: {dumped}"
    );
}

#[test]
fn issue29_every_fixtures_final_state_validates_against_the_dump_schemas() {
    let doc = openrpc::document();
    let load = validator(
        &doc,
        &method(&doc, "devnet_loadState")["params"][0]["schema"],
    );
    let dumped = validator(&doc, &method(&doc, "devnet_dumpState")["result"]["schema"]);
    let mut kinds = BTreeSet::new();
    let mut seen = (false, false);
    for path in shipped_fixtures() {
        for scheduler in SchedulerKind::ALL {
            let Some(v) = dump_of(&path, scheduler) else {
                continue;
            };
            let name = format!("{} under {}", path.display(), scheduler.as_str());
            for (what, val) in [("devnet_loadState", &load), ("devnet_dumpState", &dumped)] {
                if let Err(e) = val.validate(&v) {
                    panic!("{name}: the dump does not validate as {what}'s: {e}");
                }
            }
            // A state file's text is a `state` too.
            let dump = serde_json::from_value(v.clone()).unwrap();
            let file: Value = serde_json::from_str(&state_text(&dump)).unwrap();
            if let Err(e) = load.validate(&file) {
                panic!("{name}: the state file does not validate: {e}");
            }
            seen.0 |= v.get("cip1").is_some();
            seen.1 |= v.get("draft").is_some();
            kinds.insert(scheduler.as_str());
            // A field of the wrong shape is refused: a scheduler no registry lists, an amount
            // written as a number.
            let mut bad = v.clone();
            bad["scheduler"] = json!("round-robin");
            assert!(load.validate(&bad).is_err(), "{name}: unknown scheduler");
            let mut bad = v.clone();
            bad["supply"] = json!(1);
            assert!(load.validate(&bad).is_err(), "{name}: supply as a number");
        }
    }
    assert_eq!(kinds.len(), SchedulerKind::ALL.len(), "every scheduler");
    assert!(
        seen.0 && seen.1,
        "dumps with the CIP-1 v3 and the drafts' state"
    );
}

/// The estimates' `error` (`timer_estimate`, `timer_estimateDraft`) is described from its
/// written type: `{code, reason, message}` with `reason` one of the named errors.
#[test]
fn issue29_an_estimates_error_is_described_by_its_type() {
    use cowboy_devnet::engine::{ErrorKind, Failure};
    use cowboy_devnet::node::Estimate;
    let doc = openrpc::document();
    let result = validator(&doc, &method(&doc, "timer_estimate")["result"]["schema"]);
    let estimate = |error| Estimate {
        max_cost: 10_000,
        timer_id: None,
        fire_height: None,
        error,
        auction: None,
        funding: None,
    };
    let refused = serde_json::to_value(estimate(Some(Failure::new(
        ErrorKind::TimerCapExceeded,
        "the actor holds 4 timers",
    ))))
    .unwrap();
    assert_eq!(refused["error"]["reason"], "TimerCapExceeded");
    if let Err(e) = result.validate(&refused) {
        panic!("a refused estimate does not validate: {e}\n{refused}");
    }
    let fine = serde_json::to_value(estimate(None)).unwrap();
    assert!(result.validate(&fine).is_ok(), "{fine}");
    let mut bad = refused.clone();
    bad["error"]["reason"] = json!("Nope");
    assert!(result.validate(&bad).is_err(), "an unnamed reason passes");
    let mut bad = refused;
    bad["error"].as_object_mut().unwrap().remove("code");
    assert!(
        result.validate(&bad).is_err(),
        "an error without its code passes"
    );
}
