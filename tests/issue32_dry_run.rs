//! Issue 32 "Dry runs" and "What bad input gets" (Spec note 174): `devnet_call` runs a call or
//! a timer schedule against the head and returns the receipt it would get (a failing handler a
//! receipt with `success: false`), its events and the timers it would schedule, and changes
//! nothing: the state root, the head, balances, nonces and the pending transactions are the
//! same before and after every dry run, a refused one included.

mod common;

use cowboy_devnet::chain::Genesis;
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use serde_json::{Value, json};

/// A script with a handler that emits and schedules, and one that fails.
const SCRIPT: &str = r#"
fn handle_timer(payload) {
    emit("fired", `at height ${block_height()}`);
}
fn settle(payload) {
    emit("settled", "yes");
}
fn broken(payload) {
    throw "nope";
}
"#;

async fn call(c: &HttpClient, method: &str, p: Value) -> Value {
    common::served::rpc_ok(c, method, &p).await
}

/// What a dry run must leave as it was.
async fn state(c: &HttpClient) -> Value {
    let head = call(c, "devnet_head", json!([])).await;
    json!({
        "head": [head["height"], head["hash"], head["state_root"], head["pending_txs"], head["pending_timers"]],
        "accounts": call(c, "devnet_accounts", json!([])).await,
        "pending": call(c, "devnet_pendingTransactions", json!([])).await,
        "timers": call(c, "timer_list", json!([])).await,
        "events": call(c, "devnet_getEvents", json!([])).await,
    })
}

async fn start() -> (common::served::Served, HttpClient, Value, Value) {
    let served = common::served::serve(Genesis::default(), &common::served::port0()).await;
    let c = HttpClientBuilder::default()
        .build(format!("http://{}", served.addr))
        .expect("client");
    let actor = call(
        &c,
        "actor_deploy",
        json!([{"script": SCRIPT, "balance": "1000000000000000000000"}]),
    )
    .await;
    let from = call(&c, "devnet_accounts", json!([])).await[1]["address"].clone();
    (served, c, actor, from)
}

/// Issue 32 "Dry runs": a call's dry run answers the receipt and events the real call gets,
/// and keeps nothing (under automine no block is sealed either).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_dry_run_of_a_call_returns_its_receipt_and_changes_nothing() {
    let (_s, c, actor, from) = start().await;
    let before = state(&c).await;
    let dry = call(
        &c,
        "devnet_call",
        json!([{"from": from, "actor": actor, "handler": "settle"}]),
    )
    .await;
    assert_eq!(state(&c).await, before, "a dry run changed nothing");
    assert_eq!(dry["dry_run"], json!(true));
    assert_eq!(dry["status"], json!("success"), "{dry}");
    assert_eq!(dry["sealed"], json!(false));
    let kinds: Vec<&str> = dry["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, vec!["ActorEmitted"], "{dry}");
    // The real call gets the same receipt (same cycles, fee and status).
    let real = call(
        &c,
        "actor_call",
        json!([{"from": from, "actor": actor, "handler": "settle"}]),
    )
    .await;
    for f in [
        "status",
        "cycles_used",
        "cells_used",
        "fee",
        "nonce",
        "tx_hash",
    ] {
        assert_eq!(dry[f], real[f], "{f}: dry {dry} real {real}");
    }
}

/// Issue 32 "Dry runs": a failing handler is a receipt with `success: false` and its error,
/// not an RPC error; nothing changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_dry_run_of_a_failing_handler_is_a_reverted_receipt() {
    let (_s, c, actor, from) = start().await;
    call(&c, "devnet_setMining", json!([{"mode": "manual"}])).await;
    // A pending transaction in the open block: the dry run goes after it and keeps neither.
    call(
        &c,
        "actor_call",
        json!([{"from": from, "actor": actor, "handler": "settle"}]),
    )
    .await;
    let before = state(&c).await;
    for handler in ["broken", "no_such_handler"] {
        let dry = call(
            &c,
            "devnet_call",
            json!([{"from": from, "actor": actor, "handler": handler}]),
        )
        .await;
        assert_eq!(dry["success"], json!(false), "{dry}");
        assert_eq!(dry["status"], json!("reverted"));
        assert!(!dry["error"].is_null(), "{dry}");
        assert_eq!(dry["index"], json!(1), "after the pending one: {dry}");
    }
    assert_eq!(state(&c).await, before, "a failing dry run changed nothing");
}

/// Issue 32 "Dry runs": a schedule's dry run names the timer it would schedule, which does not
/// exist afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_dry_run_of_a_schedule_names_the_timer_and_keeps_none() {
    let (_s, c, actor, _) = start().await;
    let h = call(&c, "devnet_blockNumber", json!([]))
        .await
        .as_u64()
        .unwrap();
    let before = state(&c).await;
    let t = json!({"actor": actor, "height": h + 5, "handler": "settle"});
    let dry = call(&c, "devnet_call", json!([{"schedule": t}])).await;
    assert_eq!(
        state(&c).await,
        before,
        "a schedule's dry run changed nothing"
    );
    assert_eq!(dry["status"], json!("success"), "{dry}");
    // Spec note 192: the registration under its own key; the receipt's `created` (a deploy's
    // address) is not a bool here.
    let id = dry["registration"]["timer_id"].clone();
    assert_eq!(dry["registration"]["created"], json!(true), "{dry}");
    assert!(dry.get("timer_id").is_none(), "{dry}");
    assert!(!dry["created"].is_boolean(), "{dry}");
    assert_eq!(dry["timers"], json!([id]));
    assert!(
        dry["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["kind"] == "TimerScheduled" && e["timer_id"] == id),
        "{dry}"
    );
    assert_eq!(call(&c, "timer_get", json!([id])).await, Value::Null);
    let real = call(&c, "timer_schedule", json!([t])).await;
    assert_eq!(real["timer_id"], id, "the real schedule gets the same id");
}

/// Issue 32 "What bad input gets": malformed params are -32602 naming the field; what the
/// real call refuses (an unknown actor, a schedule in the past) is the same named error; none
/// changes anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_bad_dry_runs_are_named_errors_that_change_nothing() {
    let (_s, c, actor, from) = start().await;
    let before = state(&c).await;
    let params_errors = [
        (json!([]), "call"),
        (json!([{"actor": actor, "handler": "settle"}]), "from"),
        (
            json!([{"from": from, "actor": actor, "handler": "settle", "x": 1}]),
            "x",
        ),
        (json!([{"schedule": {"actor": actor}}]), "schedule.height"),
        (
            json!([{"schedule": {"actor": actor, "height": 9}, "from": from}]),
            "from",
        ),
    ];
    for (p, field) in params_errors {
        let (code, msg, data) = common::served::rpc_err(&c, "devnet_call", &p).await;
        assert_eq!(
            (code, data["field"].as_str()),
            (-32602, Some(field)),
            "{p}: {msg}"
        );
    }
    let unknown = "0x00000000000000000000000000000000000000aa";
    let (_, msg, data) = common::served::rpc_err(
        &c,
        "devnet_call",
        &json!([{"from": from, "actor": unknown, "handler": "settle"}]),
    )
    .await;
    assert_eq!(data["reason"], json!("UnknownActor"), "{msg}");
    let (_, msg, data) = common::served::rpc_err(
        &c,
        "devnet_call",
        &json!([{"schedule": {"actor": actor, "height": 1}}]),
    )
    .await;
    let (_, real_msg, real_data) = common::served::rpc_err(
        &c,
        "timer_schedule",
        &json!([{"actor": actor, "height": 1}]),
    )
    .await;
    assert_eq!(data["reason"], real_data["reason"], "{msg} / {real_msg}");
    assert!(data["reason"].is_string(), "{msg}");
    assert_eq!(state(&c).await, before, "a refused dry run changed nothing");
}

/// Issue 32 "Dry runs" with traces (Spec note 175): `{"trace": true}` answers the handler
/// run's trace (its host calls, its cycles adding up to the receipt's); `compact` gives the
/// compact form; a failing handler's trace ends in its error; bad options are named. Nothing
/// changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_a_dry_run_can_be_traced() {
    let (_s, c, actor, from) = start().await;
    call(&c, "devnet_setMining", json!([{"mode": "manual"}])).await;
    let before = state(&c).await;
    let what = json!({"from": from, "actor": actor, "handler": "settle"});
    let dry = call(&c, "devnet_call", json!([what, {"trace": true}])).await;
    assert_eq!(state(&c).await, before, "a traced dry run changed nothing");
    let trace = dry["trace"].as_array().expect("a trace").clone();
    assert_eq!(trace.len(), 1, "{dry}");
    let t = &trace[0];
    assert_eq!(t["entry"], json!("settle"));
    assert_eq!(t["end"]["success"], json!(true), "{t}");
    let calls: Vec<&str> = t["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["call"].as_str())
        .collect();
    assert_eq!(calls, vec!["emit"], "{t}");
    let host: u64 = t["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["cycles"].as_u64())
        .sum();
    let sum = t["cycles_start"].as_u64().unwrap() + t["script_cycles"].as_u64().unwrap() + host;
    assert_eq!(
        json!(sum),
        dry["cycles_used"],
        "the trace's cycles add up: {dry}"
    );
    // The compact form; a dry run without options has no trace.
    let compact = call(
        &c,
        "devnet_call",
        json!([what, {"trace": true, "compact": true}]),
    )
    .await;
    assert_eq!(
        compact["trace"][0]["calls"][0]["call"],
        json!("emit"),
        "{compact}"
    );
    assert!(compact["trace"][0]["steps"].is_null(), "{compact}");
    let plain = call(&c, "devnet_call", json!([what])).await;
    assert!(plain.get("trace").is_none(), "{plain}");
    // A failing handler: its trace ends in the error.
    let broken = json!({"from": from, "actor": actor, "handler": "broken"});
    let dry = call(&c, "devnet_call", json!([broken, {"trace": true}])).await;
    assert_eq!(dry["trace"][0]["end"]["success"], json!(false), "{dry}");
    let bad = common::served::rpc_err(&c, "devnet_call", &json!([what, {"trace": 1}])).await;
    assert_eq!(bad.2["field"], json!("trace"), "{}", bad.1);
    let bad = common::served::rpc_err(&c, "devnet_call", &json!([what, {"tracing": true}])).await;
    assert_eq!(bad.2["field"], json!("tracing"), "{}", bad.1);
    assert_eq!(state(&c).await, before, "refused options changed nothing");
}

/// Issue 32 "Dry runs" at a past height (Spec note 175): a block tag runs the call against the
/// state as of that sealed block, in the block after it; a height older than the history or
/// past the head is a named error; nothing changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_a_dry_run_at_a_past_height() {
    let (_s, c, actor, from) = start().await;
    // Automine: each call its block. The actor's balance is spent by a transfer later.
    let h_before = call(&c, "devnet_blockNumber", json!([]))
        .await
        .as_u64()
        .unwrap();
    call(&c, "devnet_mine", json!([3])).await;
    let what = json!({"from": from, "actor": actor, "handler": "settle"});
    let at = call(&c, "devnet_call", json!([what, null, h_before])).await;
    assert_eq!(at["height"], json!(h_before + 1), "{at}");
    assert_eq!(at["status"], json!("success"), "{at}");
    let now = call(&c, "devnet_call", json!([what])).await;
    assert_eq!(now["cycles_used"], at["cycles_used"]);
    let before = state(&c).await;
    let head = call(&c, "devnet_blockNumber", json!([]))
        .await
        .as_u64()
        .unwrap();
    let (_, msg, _) =
        common::served::rpc_err(&c, "devnet_call", &json!([what, null, head + 5])).await;
    assert!(msg.contains("past the head"), "{msg}");
    let (code, msg, data) =
        common::served::rpc_err(&c, "devnet_call", &json!([what, null, "yesterday"])).await;
    assert_eq!(
        (code, data["field"].as_str()),
        (-32602, Some("block")),
        "{msg}"
    );
    assert_eq!(state(&c).await, before, "past dry runs changed nothing");
}

/// A server under `scheduler`, an actor with the default script deployed by dev1, and dev1.
async fn start_under(
    scheduler: cowboy_devnet::engine::SchedulerKind,
) -> (common::served::Served, HttpClient, Value, Value) {
    let g = Genesis {
        scheduler,
        ..Genesis::default()
    };
    let served = common::served::serve(g, &common::served::port0()).await;
    let c = HttpClientBuilder::default()
        .build(format!("http://{}", served.addr))
        .expect("client");
    let from = call(&c, "devnet_accounts", json!([])).await[1]["address"].clone();
    let actor = call(&c, "actor_deploy", json!([{"from": from}])).await;
    (served, c, actor, from)
}

/// Issue 32 "Dry runs" of the drafts' registrations (Spec note 181): `{"watch": ..}` and
/// `{"interval": ..}` take what `timer_watch` / `timer_interval` take, answer the receipt, the
/// events and the `timer_id` the real registration gets, and keep nothing; a `client_nonce`
/// repeat names the bound timer with `created: false`, as the real one does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_dry_runs_of_watches_and_intervals_name_the_timer_and_keep_none() {
    use cowboy_devnet::engine::SchedulerKind;
    let (_s, c, actor, from) = start_under(SchedulerKind::Cip5DraftZh).await;
    let h = call(&c, "devnet_blockNumber", json!([]))
        .await
        .as_u64()
        .unwrap();
    let watch = json!({"actor": actor, "keys": ["price/"], "fee_payer": from, "client_nonce": 7});
    let interval = json!({"actor": actor, "every": 3, "first": h + 4, "fee_payer": from});
    for (kind, method, t) in [
        ("watch", "timer_watch", &watch),
        ("interval", "timer_interval", &interval),
    ] {
        let before = state(&c).await;
        let dry = call(&c, "devnet_call", json!([{ kind: t }])).await;
        assert_eq!(
            state(&c).await,
            before,
            "a {kind}'s dry run changed nothing"
        );
        assert_eq!(
            (
                &dry["dry_run"],
                &dry["status"],
                &dry["registration"]["created"]
            ),
            (&json!(true), &json!("success"), &json!(true)),
            "{dry}"
        );
        let id = dry["registration"]["timer_id"].clone();
        assert_eq!(dry["timers"], json!([id]), "{dry}");
        assert!(!dry["events"].as_array().unwrap().is_empty(), "{dry}");
        assert_eq!(call(&c, "timer_get", json!([id])).await, Value::Null);
        let real = call(&c, method, json!([t])).await;
        assert_eq!(real["timer_id"], id, "the real {method} gets the same id");
        assert_eq!(real["receipt"]["cycles_used"], dry["cycles_used"], "{real}");
        assert_eq!(real["receipt"]["fee"], dry["fee"], "{real}");
    }
    // The watch's `client_nonce` repeat: the bound timer, not created, as `timer_watch` says.
    let before = state(&c).await;
    let dry = call(&c, "devnet_call", json!([{ "watch": watch }])).await;
    let real = call(&c, "timer_watch", json!([watch])).await;
    assert_eq!(
        (
            &dry["registration"]["timer_id"],
            &dry["registration"]["created"]
        ),
        (&real["timer_id"], &real["created"]),
        "{dry} / {real}"
    );
    assert_eq!(dry["registration"]["created"], json!(false), "{dry}");
    assert_ne!(state(&c).await, before, "the real repeat is a transaction");
}

/// Issue 32 "What bad input gets" for the drafts' dry runs (Spec note 181): a watch or an
/// interval under fifo is the same named error the real `timer_watch` / `timer_interval`
/// answer; malformed registrations are -32602 naming the field; nothing changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_refused_draft_dry_runs_are_the_real_errors() {
    use cowboy_devnet::engine::SchedulerKind;
    let (_s, c, actor, from) = start_under(SchedulerKind::Fifo).await;
    let before = state(&c).await;
    let watch = json!({"actor": actor, "keys": ["price/"], "fee_payer": from});
    let interval = json!({"actor": actor, "every": 3, "fee_payer": from});
    for (kind, method, t) in [
        ("watch", "timer_watch", &watch),
        ("interval", "timer_interval", &interval),
    ] {
        let dry = common::served::rpc_err(&c, "devnet_call", &json!([{ kind: t }])).await;
        let real = common::served::rpc_err(&c, method, &json!([t])).await;
        assert_eq!(
            (dry.0, &dry.2["reason"]),
            (real.0, &real.2["reason"]),
            "{kind}: {} / {}",
            dry.1,
            real.1
        );
        assert!(dry.2["reason"].is_string(), "{}", dry.1);
    }
    let params_errors = [
        (json!([{"watch": {"actor": actor}}]), "keys"),
        (json!([{"interval": {"actor": actor}}]), "every"),
        (json!([{"watch": watch, "interval": interval}]), "interval"),
        (json!([{"watch": watch, "from": from}]), "from"),
        (
            json!([{"interval": {"actor": actor, "every": 3, "x": 1}}]),
            "interval.x",
        ),
    ];
    for (p, field) in params_errors {
        let (code, msg, data) = common::served::rpc_err(&c, "devnet_call", &p).await;
        assert_eq!(
            (code, data["field"].as_str()),
            (-32602, Some(field)),
            "{p}: {msg}"
        );
    }
    assert_eq!(state(&c).await, before, "a refused dry run changed nothing");
}

/// A script whose handlers write storage, pay, and schedule, extend and cancel a timer.
const DIFF_SCRIPT: &str = r#"
fn plan(payload) {
    let id = schedule_timer(block_height() + 20, "x");
    storage_set("planned", id);
    storage_set("n", "1");
}
fn postpone(payload) {
    extend_timer(storage_get("planned"), block_height() + 100);
}
fn abort(payload) {
    cancel_timer(storage_get("planned"));
    storage_remove("n");
}
fn pay(payload) {
    transfer(tx_sender(), 1000);
}
fn broken(payload) {
    storage_set("never", "written");
    throw "nope";
}
"#;

fn hex(s: &str) -> Value {
    json!(format!("0x{}", hex::encode(s)))
}

/// The balance change of `who` in a dry run's diff, as `(before, after)`.
fn balance_change(dry: &Value, who: &Value) -> Option<(u128, u128)> {
    let b = dry["diff"]["balances"]
        .as_array()?
        .iter()
        .find(|b| b["address"] == *who)?;
    let n = |k: &str| b[k].as_str().unwrap().parse::<u128>().unwrap();
    Some((n("before"), n("after")))
}

/// Issue 32 "Dry runs" ("the receipt, the trace and the state diff"; Spec note 182): a dry
/// run's `diff` lists the storage keys it would write (actor, key, old, new), the balances it
/// would change (the sender's fee, a transfer) and the timers it would schedule, cancel or
/// extend; a failing handler's writes are not in it (only its fee); nothing changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_a_dry_run_answers_its_state_diff() {
    let (_s, c, _, from) = start().await;
    let actor = call(
        &c,
        "actor_deploy",
        json!([{"script": DIFF_SCRIPT, "balance": "1000000000000000000000"}]),
    )
    .await;
    let run = |handler: &str| json!({"from": from, "actor": actor, "handler": handler});
    let planned = call(&c, "actor_call", json!([run("plan")])).await["timers"][0].clone();
    let before = state(&c).await;
    let dry = |handler: &'static str| {
        let (c, p) = (&c, run(handler));
        async move { call(c, "devnet_call", json!([p])).await }
    };
    // postpone: an extension, no storage write, the sender's fee.
    let d = dry("postpone").await;
    let ext = &d["diff"]["timers"]["extended"];
    assert_eq!(ext[0]["timer_id"], planned, "{d}");
    assert_eq!(
        ext[0]["new_expires_at"].as_u64(),
        Some(d["height"].as_u64().unwrap() + 100),
        "{d}"
    );
    assert_eq!(d["diff"]["storage"], json!([]), "{d}");
    let (b, a) = balance_change(&d, &from).expect("the sender pays a fee");
    assert_eq!(
        b - a,
        d["fee"].as_str().unwrap().parse::<u128>().unwrap(),
        "{d}"
    );
    // abort: a cancel and a deleted key.
    let d = dry("abort").await;
    assert_eq!(d["diff"]["timers"]["cancelled"], json!([planned]), "{d}");
    assert_eq!(
        d["diff"]["storage"],
        json!([{"actor": actor, "key": hex("n"), "old": hex("1"), "new": null}]),
        "{d}"
    );
    // plan again: a new timer, `planned` rewritten, `n` written with the value it has (no
    // change, not listed).
    let d = dry("plan").await;
    let id = d["timers"][0].clone();
    assert_eq!(d["diff"]["timers"]["scheduled"], json!([id]), "{d}");
    let keys: Vec<&Value> = d["diff"]["storage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["key"])
        .collect();
    assert_eq!(keys, vec![&hex("planned")], "{d}");
    // pay: the actor's 1000 to the sender.
    let d = dry("pay").await;
    let (b, a) = balance_change(&d, &actor).expect("the actor pays");
    assert_eq!(b - a, 1000, "{d}");
    // broken: its write discarded; only fees.
    let d = dry("broken").await;
    assert_eq!(d["success"], json!(false), "{d}");
    assert_eq!(d["diff"]["storage"], json!([]), "{d}");
    assert!(balance_change(&d, &from).is_some(), "{d}");
    // A schedule's dry run: the timer it would schedule.
    let h = call(&c, "devnet_blockNumber", json!([]))
        .await
        .as_u64()
        .unwrap();
    let t = json!({"actor": actor, "height": h + 5});
    let d = call(&c, "devnet_call", json!([{"schedule": t}])).await;
    assert_eq!(
        d["diff"]["timers"]["scheduled"],
        json!([d["registration"]["timer_id"]]),
        "{d}"
    );
    assert_eq!(state(&c).await, before, "dry runs changed nothing");
    // The diff is what the real call does: `postpone` moves the timer's `expires_at` there.
    let d = dry("postpone").await;
    call(&c, "actor_call", json!([run("postpone")])).await;
    let t = call(&c, "timer_get", json!([planned])).await;
    assert_eq!(
        t["expires_at"], d["diff"]["timers"]["extended"][0]["new_expires_at"],
        "{t} / {d}"
    );
}
