//! A refused call changes nothing (issue 20; DESIGN.md "Bad input gets a clear, named error and
//! changes nothing"): for every state-changing method of the API, a table of refusals, each
//! leaving the state root, the head, every balance and every nonce as they were; and no error
//! message says its reason twice.

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::rpc::openrpc;
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use serde_json::{Value, json};
use std::collections::BTreeSet;

struct Devnet {
    _served: common::served::Served,
    client: HttpClient,
}

async fn start() -> Devnet {
    let served = common::served::serve(Genesis::default(), &common::served::port0()).await;
    let client = HttpClientBuilder::default()
        .build(format!("http://{}", served.addr))
        .expect("client");
    Devnet {
        _served: served,
        client,
    }
}

async fn call(c: &HttpClient, method: &str, p: Value) -> Value {
    common::served::rpc_ok(c, method, &p).await
}

async fn call_err(c: &HttpClient, method: &str, p: Value) -> (i32, String, Value) {
    common::served::rpc_err(c, method, &p).await
}

/// Everything a refused call must leave as it was: the head (height, hash, state root, open
/// transactions), every account's balance and nonce, the supply and the whole state dump.
async fn state(c: &HttpClient) -> Value {
    let head = call(c, "devnet_head", json!([])).await;
    json!({
        "head": [head["height"], head["hash"], head["state_root"], head["pending_txs"]],
        "accounts": call(c, "devnet_accounts", json!([])).await,
        "supply": call(c, "devnet_supply", json!([])).await,
        "dump": call(c, "devnet_dumpState", json!([])).await,
        "mining": call(c, "devnet_getMining", json!([])).await,
    })
}

/// The methods that change nothing: the server's own list (`rpc::READ_ONLY`), so a new
/// read is not mistaken for a write and a write cannot hide in a hand-kept copy.
use cowboy_devnet::rpc::READ_ONLY;

/// DESIGN.md ("changes nothing"), CIP-5 §4.2/§5.4, CIP-1 v3 §13.2, issue 20: for every
/// state-changing method, each refusal in the table answers its named error and leaves the
/// state root, the head, every balance and every nonce identical; under auto-mining a refused
/// call seals no block (a refused `actor_deploy` used to charge a fee, bump the nonce and seal
/// a failed receipt).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_state_changing_method_refused_changes_nothing() {
    let d = start().await;
    let c = &d.client;
    let acc = call(c, "devnet_accounts", json!([])).await;
    let addr = |i: usize| acc[i]["address"].as_str().unwrap().to_string();
    let (dev0, dev1, dev2) = (addr(0), addr(1), addr(2));
    assert_eq!(acc[0]["system_deployer"], json!(true));
    assert_eq!(acc[1]["system_deployer"], json!(false));
    let dev1_balance = acc[1]["balance"].as_str().unwrap().to_string();
    let actor = call(c, "actor_deploy", json!([{"from": dev1}])).await;
    let h = call(c, "devnet_blockNumber", json!([]))
        .await
        .as_u64()
        .unwrap();
    let timer = call(
        c,
        "timer_schedule",
        json!([{"actor": actor, "height": h + 50}]),
    )
    .await["timer_id"]
        .clone();
    call(c, "devnet_snapshot", json!([])).await;
    let unknown_timer = format!("0x{}", "ab".repeat(32));
    let nobody = format!("0x{}", "42".repeat(20));
    let huge = (1u128 << 127).to_string();

    // (method, params, the error's reason, or None for a JSON-RPC params error -32602)
    let table: Vec<(&str, Value, Option<&str>)> = vec![
        ("devnet_mine", json!([0]), Some("InvalidInput")),
        ("devnet_mine", json!(["x"]), None),
        ("devnet_setMining", json!([{"mode": "fast"}]), None),
        ("devnet_setMining", json!([{"mode": "interval"}]), None),
        ("devnet_setBalance", json!(["0xzz", "1"]), None),
        ("devnet_setBalance", json!([dev1, "-1"]), None),
        ("devnet_snapshot", json!(["extra"]), None),
        ("devnet_revert", json!([999]), Some("UnknownSnapshot")),
        ("devnet_revertTo", json!([1_000_000]), Some("InvalidInput")),
        ("devnet_revertTo", json!(["x"]), None),
        (
            "devnet_deleteSnapshot",
            json!([999]),
            Some("UnknownSnapshot"),
        ),
        ("devnet_reset", json!(["extra"]), None),
        ("devnet_loadState", json!([{"format": "nope"}]), None),
        ("devnet_halt", json!([u64::MAX]), Some("InvalidInput")),
        // Issue 32: nothing of that hash in the open block; a malformed hash.
        (
            "devnet_dropTransaction",
            json!([format!("0x{}", "42".repeat(32))]),
            Some("TransactionNotFound"),
        ),
        ("devnet_dropTransaction", json!(["0x42"]), None),
        // Issue 29: a raw transaction the chain would not include.
        (
            "devnet_sendTransaction",
            json!([{"from": dev1, "nonce": 999, "kind": {"type": "transfer", "to": dev2, "amount": "1"}}]),
            Some("NonceMismatch"),
        ),
        (
            "devnet_sendTransaction",
            json!([{"from": nobody, "kind": {"type": "transfer", "to": dev2, "amount": "0"}}]),
            Some("InsufficientFunds"),
        ),
        (
            "devnet_sendTransaction",
            json!([{"from": dev1, "kind": {"type": "system", "op": "cancel_timer", "timer_id": timer}}]),
            Some("Unauthorized"),
        ),
        (
            "devnet_sendTransaction",
            json!([{"from": dev1, "kind": {"type": "act_as", "actor": actor, "op": {"call": "schedule_timer", "height": 1}}}]),
            Some("InvalidInput"),
        ),
        (
            "devnet_sendTransaction",
            json!([{"from": dev1, "kind": {"type": "transfer", "to": dev2, "amount": "1", "memo": "x"}}]),
            None,
        ),
        (
            "actor_deploy",
            json!([{"from": dev1, "balance": huge}]),
            Some("InsufficientFunds"),
        ),
        (
            "actor_deploy",
            json!([{"from": nobody}]),
            Some("InsufficientFunds"),
        ),
        (
            "actor_deploy",
            json!([{"from": dev1, "script": "fn broken("}]),
            Some("CompileError"),
        ),
        (
            "actor_call",
            json!([{"from": dev1, "actor": nobody, "handler": "h"}]),
            Some("UnknownActor"),
        ),
        (
            "actor_call",
            json!([{"from": dev1, "actor": actor, "handler": "deploy"}]),
            Some("InvalidInput"),
        ),
        (
            "actor_call",
            json!([{"from": nobody, "actor": actor, "handler": "handle_timer"}]),
            Some("InsufficientFunds"),
        ),
        (
            "timer_schedule",
            json!([{"actor": actor, "height": 1}]),
            Some("InvalidInput"),
        ),
        (
            "timer_schedule",
            json!([{"actor": nobody, "height": h + 5}]),
            Some("UnknownActor"),
        ),
        (
            "timer_cancel",
            json!([{"actor": actor, "timer_id": unknown_timer}]),
            Some("TimerNotFound"),
        ),
        (
            "timer_cancel",
            json!([{"actor": actor, "timer_id": timer, "from": dev2}]),
            Some("Unauthorized"),
        ),
        (
            "timer_extend",
            json!([{"actor": actor, "timer_id": unknown_timer, "new_expires_at": h + 500}]),
            Some("TimerNotFound"),
        ),
        (
            "gov_cancelTimer",
            json!([{"from": dev1, "timer_id": timer}]),
            Some("Unauthorized"),
        ),
        (
            "gov_extendTimer",
            json!([{"from": dev1, "timer_id": timer, "new_expires_at": h + 900}]),
            Some("Unauthorized"),
        ),
        (
            "gov_updateTimerConfig",
            json!([{"from": dev1, "config": {"max_ttl_blocks": 10}}]),
            Some("Unauthorized"),
        ),
        (
            "gov_updateTimerConfig",
            json!([{"from": dev0, "config": {"lane_timer_cycles": 1}}]),
            Some("InvalidInput"),
        ),
        (
            "gov_updateTimerConfig",
            json!([{"from": dev0, "config": {"no_such_field": 1}}]),
            Some("InvalidInput"),
        ),
        (
            "gov_updateSchedulerConfig",
            json!([{"from": dev1, "config": {"fairness_window_blocks": 10}}]),
            Some("Unauthorized"),
        ),
        (
            "gov_updateSchedulerConfig",
            json!([{"from": dev0, "config": {"tier_fast_bps": 0}}]),
            Some("InvalidInput"),
        ),
        (
            "gov_updateSchedulerConfig",
            json!([{"from": dev0, "config": {"lane_timer_cycles": 1}}]),
            Some("InvalidInput"),
        ),
        (
            "gov_setActivationHeight",
            json!([{"from": dev0, "height": 0}]),
            Some("InvalidInput"),
        ),
        (
            "gov_setActivationHeight",
            json!([{"from": dev0, "height": "soon"}]),
            None,
        ),
        (
            "gov_setActivationHeight",
            json!([{"from": dev1, "height": h + 100}]),
            Some("Unauthorized"),
        ),
        // CIP-5 drafts (issue 22): a watch or an interval needs a draft scheduler.
        (
            "timer_watch",
            json!([{"actor": actor, "keys": ["k"]}]),
            Some("InvalidInput"),
        ),
        ("timer_watch", json!([{"actor": actor, "keys": []}]), None),
        (
            "timer_interval",
            json!([{"actor": actor, "every": 5}]),
            Some("InvalidInput"),
        ),
        ("timer_interval", json!([{"actor": actor}]), None),
    ];

    // Every method that is not read-only has a row.
    let doc = openrpc::document();
    let methods: BTreeSet<&str> = doc["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    let covered: BTreeSet<&str> = table.iter().map(|r| r.0).collect();
    for m in &methods {
        assert!(
            READ_ONLY.contains(m) || covered.contains(m),
            "{m} changes state but has no refusal in the table"
        );
    }

    for (method, p, reason) in &table {
        let before = state(c).await;
        let (code, msg, data) = call_err(c, method, p.clone()).await;
        match reason {
            None => assert_eq!(code, -32602, "{method} {p}: {msg}"),
            Some(r) => {
                assert_eq!(data["reason"], json!(r), "{method} {p}: {code} {msg}");
                assert!(
                    !msg.starts_with(&format!("{r}: {r}")),
                    "{method}: the reason twice: {msg}"
                );
            }
        }
        let after = state(c).await;
        assert!(
            before == after,
            "{method} {p} was refused ({msg}) but changed the state:\nbefore {}\nafter  {}",
            before["head"],
            after["head"]
        );
    }

    // The refused deploy names dev1's own balance.
    let (_, msg, _) = call_err(
        c,
        "actor_deploy",
        json!([{"from": dev1, "balance": (1u128 << 127).to_string()}]),
    )
    .await;
    let now = call(c, "devnet_getBalance", json!([dev1])).await;
    assert!(
        msg.contains(now.as_str().unwrap()),
        "names dev1's balance {now}: {msg}"
    );
    assert_ne!(dev1_balance, "", "dev1 was funded at genesis");
}

/// Issue 20: `gov_setActivationHeight` said `InvalidInput: InvalidInput: ...`. CIP-1 v3 §13.2:
/// a height not above the current one is `InvalidInput`, said once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cip1_v3_13_2_an_activation_height_refusal_names_its_reason_once() {
    let d = start().await;
    let c = &d.client;
    let acc = call(c, "devnet_accounts", json!([])).await;
    let dev0 = acc[0]["address"].clone();
    call(c, "devnet_mine", json!([3])).await;
    let (code, msg, _) = call_err(
        c,
        "gov_setActivationHeight",
        json!([{"from": dev0, "height": 2}]),
    )
    .await;
    assert_eq!(code, -32050);
    assert!(msg.starts_with("InvalidInput: "), "{msg}");
    assert!(!msg.contains("InvalidInput: InvalidInput"), "{msg}");
}
