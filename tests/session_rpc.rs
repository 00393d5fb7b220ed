//! Issue 24 over the API (docs/API.md "Block tags", `devnet_exportFixture`,
//! `devnet_revertTo`): reads at a past height, the export's text replayed by `run`.

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::scenario::{LoadedFixture, RunOptions, Scenario, builtin};
use cowboy_devnet::vm::DevnetRuntime;
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use serde_json::{Value, json};

async fn call(c: &HttpClient, method: &str, p: Value) -> Value {
    common::served::rpc_ok(c, method, &p).await
}

async fn call_err(c: &HttpClient, method: &str, p: Value) -> (i32, Value) {
    let (code, _, data) = common::served::rpc_err(c, method, &p).await;
    (code, data)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue24_reads_take_a_block_tag_and_the_export_replays_to_the_same_root() {
    let served = common::served::serve(Genesis::default(), &common::served::port0()).await;
    let c = HttpClientBuilder::default()
        .build(format!("http://{}", served.addr))
        .expect("client");
    let accounts = call(&c, "devnet_accounts", json!([])).await;
    let dev1 = accounts[1]["address"].clone();
    let dev2 = accounts[2]["address"].clone();
    let r = call(
        &c,
        "actor_deploy",
        json!([{"from": dev1, "name": "ticker"}]),
    )
    .await;
    let actor = if r.is_string() {
        r
    } else {
        r["address"].clone()
    };
    let h = call(&c, "devnet_blockNumber", json!([]))
        .await
        .as_u64()
        .unwrap();
    let t = call(
        &c,
        "timer_schedule",
        json!([{"actor": actor, "height": h + 5}]),
    )
    .await["timer_id"]
        .clone();
    let scheduled_at = call(&c, "devnet_blockNumber", json!([]))
        .await
        .as_u64()
        .unwrap();
    let balance_then = call(&c, "devnet_getBalance", json!([dev2])).await;
    let tiers_then = call(&c, "scheduler_tiers", json!([])).await;
    call(&c, "devnet_setBalance", json!([dev2, "5"])).await;
    call(&c, "devnet_mine", json!([20])).await;
    // The timer left (the actor has no funds: unfunded); as of the block it was scheduled in
    // it was pending.
    let now = call(&c, "timer_get", json!([t])).await["status"].clone();
    assert_ne!(now, "pending");
    let then = call(&c, "timer_get", json!([t, scheduled_at])).await;
    assert_eq!(then["status"], "pending");
    assert_eq!(
        call(&c, "timer_get", json!([t, "latest"])).await["status"],
        now
    );
    assert_eq!(
        call(&c, "devnet_getBalance", json!([dev2, scheduled_at])).await,
        balance_then
    );
    assert_eq!(call(&c, "devnet_getBalance", json!([dev2])).await, "5");
    assert_eq!(
        call(&c, "scheduler_tiers", json!([scheduled_at])).await,
        tiers_then
    );
    let (code, _) = call_err(&c, "scheduler_tiers", json!(["earliest"])).await;
    assert_eq!(code, -32602);
    let (_, data) = call_err(&c, "scheduler_fairness", json!([1_000_000])).await;
    assert_eq!(data["reason"], "InvalidInput");

    // The export, replayed headless: the same root at the head, every expectation holds.
    let out = call(&c, "devnet_exportFixture", json!([])).await;
    let text = out["fixture"]
        .as_str()
        .expect("the fixture text")
        .to_string();
    let head = call(&c, "devnet_head", json!([])).await;
    let lf = LoadedFixture::parse("session.toml", text.clone()).unwrap();
    let s = Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader).unwrap();
    let report = s
        .run(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |_, _| {},
        )
        .unwrap();
    assert_eq!(report.summary.expectations_failed, 0, "{text}");
    assert_eq!(report.summary.unexpected_step_errors, 0, "{text}");
    assert_eq!(
        json!(report.summary.final_state_root.to_string()),
        head["state_root"],
        "{text}"
    );

    // Back to the block the timer was scheduled in, without a snapshot.
    call(&c, "devnet_revertTo", json!([scheduled_at])).await;
    assert_eq!(call(&c, "timer_get", json!([t])).await["status"], "pending");
    assert_eq!(
        call(&c, "devnet_getBalance", json!([dev2])).await,
        balance_then
    );
}
