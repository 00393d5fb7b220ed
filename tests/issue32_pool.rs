//! Issue 32 ("Dry runs, receipts, the pool, events", items 1 and 2; Spec note 160):
//! transactions and receipts by hash, a pending one saying it is pending, an unknown hash a
//! named error that changes nothing, and the open block's transactions listed.

mod common;

use cowboy_devnet::chain::Genesis;
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use serde_json::{Value, json};

async fn call(c: &HttpClient, method: &str, p: Value) -> Value {
    common::served::rpc_ok(c, method, &p).await
}

/// The error's code, message and `data.reason` (or `None` for a -32602 params error).
async fn call_err(c: &HttpClient, method: &str, p: Value) -> (i32, String, Option<String>) {
    let (code, message, data) = common::served::rpc_err(c, method, &p).await;
    (code, message, data["reason"].as_str().map(str::to_string))
}

/// What a read must leave as it was: head, open transactions, accounts (balances, nonces).
async fn state(c: &HttpClient) -> Value {
    let head = call(c, "devnet_head", json!([])).await;
    json!({
        "head": [head["height"], head["hash"], head["state_root"], head["pending_txs"]],
        "accounts": call(c, "devnet_accounts", json!([])).await,
        "pending": call(c, "devnet_pendingTransactions", json!([])).await,
    })
}

async fn start() -> (common::served::Served, HttpClient) {
    let served = common::served::serve(Genesis::default(), &common::served::port0()).await;
    let client = HttpClientBuilder::default()
        .build(format!("http://{}", served.addr))
        .expect("client");
    (served, client)
}

/// Sends a failing call (the default actor has no such handler) from dev account 1: a
/// transaction with a receipt, cheap to make. Calls that differ in the handler differ in hash
/// (a hash does not commit to an automatic nonce: Spec note 160).
async fn send(c: &HttpClient, actor: &Value, handler: &str) -> Value {
    let from = call(c, "devnet_accounts", json!([])).await[1]["address"].clone();
    call(
        c,
        "actor_call",
        json!([{"from": from, "actor": actor, "handler": handler}]),
    )
    .await
}

/// Issue 32 item 1: a sealed transaction by hash is `sealed` at its block's height; its
/// receipt is the one `actor_call` answered with.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_1_a_sealed_transaction_and_its_receipt_by_hash() {
    let (_s, c) = start().await;
    let actor = call(&c, "actor_deploy", json!([{}])).await;
    let sent = send(&c, &actor, "nope").await;
    let hash = sent["tx_hash"].clone();
    assert_eq!(sent["sealed"], json!(true), "automine seals it: {sent}");
    let tx = call(&c, "devnet_getTransaction", json!([hash])).await;
    assert_eq!(tx["status"], json!("sealed"), "{tx}");
    assert_eq!(tx["height"], sent["height"]);
    assert_eq!(tx["nonce"], sent["nonce"]);
    assert_eq!(tx["from"], sent["from"]);
    let r = call(&c, "devnet_getReceipt", json!([hash])).await;
    assert_eq!(r, sent, "the receipt by hash is the one the call answered");
    assert!(
        call(&c, "devnet_pendingTransactions", json!([]))
            .await
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// Issue 32 items 1 and 2: under manual mining a sent transaction is pending (by hash and in
/// the list, in order); once the block seals it is `sealed` and the list is empty.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_1_2_a_pending_transaction_says_pending_until_its_block_seals() {
    let (_s, c) = start().await;
    let actor = call(&c, "actor_deploy", json!([{}])).await;
    call(&c, "devnet_setMining", json!([{"mode": "manual"}])).await;
    let a = send(&c, &actor, "nope_a").await;
    let b = send(&c, &actor, "nope_b").await;
    let pending = call(&c, "devnet_pendingTransactions", json!([])).await;
    let hashes: Vec<&Value> = pending
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["hash"])
        .collect();
    assert_eq!(hashes, vec![&a["tx_hash"], &b["tx_hash"]], "{pending}");
    assert!(
        pending
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == "pending")
    );
    let tx = call(&c, "devnet_getTransaction", json!([b["tx_hash"]])).await;
    assert_eq!(tx["status"], json!("pending"));
    assert_eq!(tx["index"], json!(1));
    let r = call(&c, "devnet_getReceipt", json!([a["tx_hash"]])).await;
    assert_eq!(r["status"], json!("pending"), "{r}");
    assert_eq!(r["sealed"], json!(false));
    let h = call(&c, "devnet_mine", json!([])).await;
    let tx = call(&c, "devnet_getTransaction", json!([b["tx_hash"]])).await;
    assert_eq!(
        (tx["status"].clone(), tx["height"].clone()),
        (json!("sealed"), h)
    );
    let r = call(&c, "devnet_getReceipt", json!([a["tx_hash"]])).await;
    assert_eq!(r["status"], json!("reverted"), "no handler `nope_a`: {r}");
    assert!(
        call(&c, "devnet_pendingTransactions", json!([]))
            .await
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// Issue 32 "What bad input gets": an unknown hash is `TransactionNotFound` saying which
/// heights are kept; a malformed hash or extra params are -32602; none changes anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_1_an_unknown_or_malformed_hash_is_a_named_error_and_changes_nothing() {
    let (_s, c) = start().await;
    let actor = call(&c, "actor_deploy", json!([{}])).await;
    call(&c, "devnet_setMining", json!([{"mode": "manual"}])).await;
    send(&c, &actor, "nope").await;
    let before = state(&c).await;
    let unknown = format!("0x{}", "ab".repeat(32));
    for m in ["devnet_getTransaction", "devnet_getReceipt"] {
        let (code, msg, reason) = call_err(&c, m, json!([unknown])).await;
        assert_eq!(reason.as_deref(), Some("TransactionNotFound"), "{m}: {msg}");
        assert_eq!(code, -32070);
        assert!(
            msg.contains("kept blocks #1..#"),
            "says what is kept: {msg}"
        );
        for bad in [json!(["0x12"]), json!([]), json!([unknown, 1])] {
            let (code, msg, _) = call_err(&c, m, bad.clone()).await;
            assert_eq!(code, -32602, "{m} {bad}: {msg}");
        }
    }
    let (code, _, _) = call_err(&c, "devnet_pendingTransactions", json!([1])).await;
    assert_eq!(code, -32602);
    assert_eq!(state(&c).await, before, "a bad lookup changed nothing");
}
