//! Issues 29 and 30, one refusal path (Spec note 156): every state-changing JSON-RPC method,
//! sent in a refused form, answers a named error and changes nothing: the head (height, hash,
//! state root, pending transactions and timers), every dev account's balance and nonce, the
//! supply, the snapshots and the mining mode are the same before and after. The list of
//! methods is the server's own (`RpcModule::method_names` less the reads of
//! `rpc::READ_ONLY`): a write method added later without a refused case here fails the test.

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::engine::SchedulerKind;
use cowboy_devnet::node::spawn;
use cowboy_devnet::rpc::READ_ONLY;
use cowboy_devnet::rpc::methods::module;
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use serde_json::{Value, json};
use std::collections::BTreeSet;

async fn call(c: &HttpClient, method: &str, params: Value) -> Result<Value, (i32, String)> {
    common::served::rpc(c, method, &params)
        .await
        .map_err(|(code, message, _)| (code, message))
}

async fn ok(c: &HttpClient, method: &str, params: Value) -> Value {
    common::served::rpc_ok(c, method, &params).await
}

/// Under every scheduler: the same refused forms, plus the drafts' own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue29_every_state_changing_method_refused_changes_nothing() {
    for kind in SchedulerKind::ALL {
        refusals_under(kind).await;
    }
}

async fn refusals_under(kind: SchedulerKind) {
    let genesis = Genesis::default().with_scheduler(Some(kind), None).unwrap();
    let node = spawn(common::fleet::node_on(genesis));
    let methods: BTreeSet<String> = module(node.clone())
        .method_names()
        .map(str::to_string)
        .collect();
    let served = common::served::serve_node(node, &common::served::port0()).await;
    let c = HttpClientBuilder::default()
        .build(format!("http://{}", served.addr))
        .unwrap();
    // A deployed actor with a pending timer, a snapshot, a few blocks.
    let accounts = ok(&c, "devnet_accounts", json!([])).await;
    let gov = accounts[0]["address"].as_str().unwrap().to_string();
    let alice = accounts[1]["address"].as_str().unwrap().to_string();
    let actor = ok(
        &c,
        "actor_deploy",
        json!([{"from": alice, "balance": "1000000000"}]),
    )
    .await;
    let actor = actor.as_str().unwrap().to_string();
    let t = ok(
        &c,
        "timer_schedule",
        json!([{"actor": actor, "height": 40}]),
    )
    .await;
    let timer = t["timer_id"].as_str().unwrap().to_string();
    ok(&c, "devnet_snapshot", json!([])).await;
    ok(&c, "devnet_mine", json!([3])).await;
    let head = ok(&c, "devnet_head", json!([])).await["height"]
        .as_u64()
        .unwrap();
    let ghost = format!("0x{}", "42".repeat(32));
    let nobody = format!("0x{}", "ab".repeat(20));

    // One refused form per state-changing method (some have several).
    let mut cases: Vec<(&str, Value)> = vec![
        (
            "actor_call",
            json!([{"from": alice, "actor": nobody, "handler": "go"}]),
        ),
        (
            "actor_call",
            json!([{"from": alice, "actor": actor, "handler": "deploy"}]),
        ),
        (
            "actor_deploy",
            json!([{"from": alice, "script": "fn broken( {"}]),
        ),
        (
            "actor_deploy",
            json!([{"from": alice, "balance": "340282366920938463463374607431768211455"}]),
        ),
        ("devnet_deleteSnapshot", json!([999])),
        // Issue 32: no pending transaction of that hash (automine: nothing is pending).
        ("devnet_dropTransaction", json!([ghost])),
        ("devnet_exportFixture", json!([null, "../escape.toml"])),
        // Issue 29: a raw transaction the chain would not include (a nonce not the next, a
        // governance instruction from a non-deployer, a misspelt field, an act-as schedule
        // into the past, a sender who cannot pay the fee).
        (
            "devnet_sendTransaction",
            json!([{"from": alice, "nonce": 99, "kind": {"type": "transfer", "to": gov, "amount": "1"}}]),
        ),
        (
            "devnet_sendTransaction",
            json!([{"from": alice, "kind": {"type": "system", "op": "cancel_timer", "timer_id": timer}}]),
        ),
        (
            "devnet_sendTransaction",
            json!([{"from": alice, "nonc": 1, "kind": {"type": "transfer", "to": gov, "amount": "1"}}]),
        ),
        (
            "devnet_sendTransaction",
            json!([{"from": alice, "kind": {"type": "act_as", "actor": actor, "op": {"call": "schedule_timer", "height": 1}}}]),
        ),
        (
            "devnet_sendTransaction",
            json!([{"from": nobody, "kind": {"type": "transfer", "to": gov, "amount": "0"}}]),
        ),
        ("devnet_halt", json!([2_000_000])),
        ("devnet_loadState", json!([{"not": "a dump"}])),
        ("devnet_mine", json!([0])),
        ("devnet_mine", json!([2_000_000])),
        ("devnet_reset", json!(["surprise"])),
        ("devnet_revert", json!([999])),
        ("devnet_revertTo", json!([head + 10])),
        ("devnet_setBalance", json!(["not-an-address", "5"])),
        (
            "devnet_setBalance",
            json!([alice, "340282366920938463463374607431768211455"]),
        ),
        ("devnet_setMining", json!([{"mode": "sometimes"}])),
        (
            "devnet_setMining",
            json!([{"mode": "interval", "block_time": 0}]),
        ),
        ("devnet_snapshot", json!(["unexpected"])),
        (
            "gov_cancelTimer",
            json!([{"from": alice, "timer_id": timer}]),
        ),
        (
            "gov_extendTimer",
            json!([{"from": gov, "timer_id": ghost, "new_expires_at": 100}]),
        ),
        (
            "gov_extendTimer",
            json!([{"from": gov, "timer_id": timer, "new_expires_at": 2}]),
        ),
        (
            "gov_extendTimer",
            json!([{"from": alice, "timer_id": timer, "new_expires_at": 100}]),
        ),
        (
            "gov_setActivationHeight",
            json!([{"from": gov, "height": 1}]),
        ),
        (
            "gov_setActivationHeight",
            json!([{"from": alice, "height": head + 100}]),
        ),
        (
            "gov_updateSchedulerConfig",
            json!([{"from": gov, "config": {}}]),
        ),
        (
            "gov_updateTimerConfig",
            json!([{"from": gov, "config": {}}]),
        ),
        (
            "gov_updateTimerConfig",
            json!([{"from": gov, "config": {"max_ttl_blocks": 0}}]),
        ),
        (
            "gov_updateTimerConfig",
            json!([{"from": alice, "config": {"max_ttl_blocks": 50}}]),
        ),
        ("timer_cancel", json!([{"actor": actor, "timer_id": ghost}])),
        (
            "timer_extend",
            json!([{"actor": actor, "timer_id": ghost, "new_expires_at": 100}]),
        ),
        (
            "timer_extend",
            json!([{"actor": actor, "timer_id": timer, "new_expires_at": 2}]),
        ),
        ("timer_schedule", json!([{"actor": actor, "height": 1}])),
        (
            "timer_schedule",
            json!([{"actor": actor, "height": head + 5, "gas_limit": 0}]),
        ),
        (
            "timer_schedule",
            json!([{"actor": nobody, "height": head + 5}]),
        ),
        // Issue 32 (Spec note 191): a label is 1..=64 bytes of printable text.
        (
            "timer_schedule",
            json!([{"actor": actor, "height": head + 5, "label": ""}]),
        ),
        (
            "timer_schedule",
            json!([{"actor": actor, "height": head + 5, "label": "two\nlines"}]),
        ),
        (
            "timer_schedule",
            json!([{"actor": actor, "height": head + 5, "label": "x".repeat(65)}]),
        ),
        ("devnet_subscribeBlocks", json!([])),
    ];
    if !kind.is_draft() {
        // The drafts' fields and registrations under a scheduler without them.
        cases.push((
            "gov_updateSchedulerConfig",
            json!([{"from": gov, "config": {"max_fires_per_block": 3}}]),
        ));
        cases.push(("timer_watch", json!([{"actor": actor, "keys": ["k"]}])));
    }
    if kind != SchedulerKind::Cip5DraftZh {
        cases.push(("timer_interval", json!([{"actor": actor, "every": 5}])));
    }
    if kind.is_draft() {
        // Spec note 157: a draft chain never switches to eip1559.
        cases.push((
            "gov_setActivationHeight",
            json!([{"from": gov, "height": head + 100}]),
        ));
        cases.push((
            "gov_updateSchedulerConfig",
            json!([{"from": gov, "config": {"max_fires_per_block": 0}}]),
        ));
        cases.push(("timer_watch", json!([{"actor": actor, "keys": []}])));
        cases.push(("timer_watch", json!([{"actor": nobody, "keys": ["k"]}])));
        cases.push(("timer_interval", json!([{"actor": actor, "every": 0}])));
        cases.push((
            "timer_watch",
            json!([{"actor": actor, "keys": ["k"], "label": "esc\u{1b}[31m"}]),
        ));
    }
    let covered: BTreeSet<&str> = cases.iter().map(|(m, _)| *m).collect();
    let writes: Vec<&String> = methods
        .iter()
        .filter(|m| !READ_ONLY.contains(&m.as_str()) && !m.starts_with("devnet_unsubscribe"))
        .collect();
    for m in &writes {
        assert!(
            covered.contains(m.as_str()),
            "`{m}` changes the devnet but has no refused case in this test"
        );
    }
    let before = common::served::fingerprint(&c).await;
    for (method, params) in &cases {
        if !methods.contains(*method) {
            panic!("`{method}` is not a registered method");
        }
        if method.starts_with("devnet_subscribe") {
            continue; // a read over WebSocket only; listed so the coverage check knows it
        }
        let got = call(&c, method, params.clone()).await;
        let (code, message) = match got {
            Err(e) => e,
            Ok(v) => panic!("{kind}: {method} {params}: accepted ({v}), a refusal was expected"),
        };
        assert!(
            !message.is_empty() && code != 0,
            "{method}: a named error ({code} {message})"
        );
        let after = common::served::fingerprint(&c).await;
        assert_eq!(
            after, before,
            "{kind}: {method} {params} refused with {code} {message} but changed the devnet"
        );
    }
}
