//! Issue 30 ("inputs without bounds"), CIP-5 drafts English §6.1 / §14: a state watch's keys
//! are bounded in length (`MAX_WATCH_KEY_BYTES`, Spec note 162) and the bytes stored with the
//! watch are charged as cells, as a timer's payload is (CIP-5 §6.1). A key over the bound is a
//! named refusal that changes nothing.

mod common;

use common::served::{rpc_err, rpc_ok};
use cowboy_devnet::chain::Genesis;
use cowboy_devnet::engine::SchedulerKind;
use cowboy_devnet::engine::config::MAX_WATCH_KEY_BYTES;
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use serde_json::{Value, json};

async fn setup() -> (common::served::Served, HttpClient, Value, Value) {
    let g = Genesis {
        scheduler: SchedulerKind::Cip5Draft,
        ..Genesis::default()
    };
    let served = common::served::serve(g, &common::served::port0()).await;
    let c = HttpClientBuilder::default()
        .build(format!("http://{}", served.addr))
        .expect("client");
    let acc = rpc_ok(&c, "devnet_accounts", &json!([])).await;
    let dev1 = acc[1]["address"].clone();
    let actor = rpc_ok(&c, "actor_deploy", &json!([{"from": dev1}])).await;
    (served, c, dev1, actor)
}

async fn watch_cells(c: &HttpClient, actor: &Value, key: &str) -> u64 {
    let r = rpc_ok(c, "timer_watch", &json!([{"actor": actor, "keys": [key]}])).await;
    r["receipt"]["cells_used"]
        .as_u64()
        .unwrap_or_else(|| panic!("a receipt with cells_used: {r}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_keys_are_charged_as_cells() {
    let (_s, c, _dev1, actor) = setup().await;
    let short = watch_cells(&c, &actor, "k").await;
    let long = watch_cells(&c, &actor, &"k".repeat(MAX_WATCH_KEY_BYTES)).await;
    assert_eq!(
        long - short,
        (MAX_WATCH_KEY_BYTES - 1) as u64,
        "each key byte is one cell"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_over_the_bound_is_refused_and_changes_nothing() {
    let (_s, c, dev1, actor) = setup().await;
    let head = |c: HttpClient| async move { rpc_ok(&c, "devnet_head", &json!([])).await };
    let before = (
        head(c.clone()).await,
        rpc_ok(&c, "devnet_accounts", &json!([])).await,
    );
    let key = "k".repeat(MAX_WATCH_KEY_BYTES + 1);
    let (code, msg, data) = rpc_err(
        &c,
        "timer_watch",
        &json!([{"actor": actor, "from": dev1, "keys": ["ok", key]}]),
    )
    .await;
    assert_eq!(data["reason"], json!("InvalidInput"), "{code} {msg} {data}");
    assert!(
        msg.contains(&format!("at most {MAX_WATCH_KEY_BYTES} bytes"))
            && msg.contains(&format!("{} bytes", MAX_WATCH_KEY_BYTES + 1)),
        "the refusal names the bound and the size: {msg}"
    );
    let after = (
        head(c.clone()).await,
        rpc_ok(&c, "devnet_accounts", &json!([])).await,
    );
    assert_eq!(before, after, "a refused watch changes nothing");
}
