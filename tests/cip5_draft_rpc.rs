//! The CIP-5 drafts over JSON-RPC (issue 22): `timer_watch` and `timer_interval` register
//! (English §6.1, zh §7.1), `scheduler_draft` shows the watch, and the interval rolls forward
//! by `every` after its fire (zh §11).

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::engine::SchedulerKind;
use jsonrpsee::core::client::ClientT;
use jsonrpsee::http_client::HttpClientBuilder;
use serde_json::{Value, json};

fn params(v: Value) -> jsonrpsee::core::params::ArrayParams {
    let mut p = jsonrpsee::core::params::ArrayParams::new();
    for i in v.as_array().expect("an array") {
        p.insert(i).expect("serializes");
    }
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zh_7_1_watch_and_interval_over_rpc() {
    let g = Genesis {
        scheduler: SchedulerKind::Cip5DraftZh,
        ..Genesis::default()
    };
    let served = common::served::serve(g, &common::served::port0()).await;
    let c = HttpClientBuilder::default()
        .build(format!("http://{}", served.addr))
        .expect("client");
    let call = |m: &'static str, p: Value| {
        let c = &c;
        async move {
            c.request::<Value, _>(m, params(p))
                .await
                .unwrap_or_else(|e| panic!("{m}: {e}"))
        }
    };
    let acc = call("devnet_accounts", json!([])).await;
    let dev1 = acc[1]["address"].clone();
    let actor = call("actor_deploy", json!([{"from": dev1}])).await;
    let w = call(
        "timer_watch",
        json!([{"actor": actor, "keys": ["price/"], "fee_payer": dev1}]),
    )
    .await["timer_id"]
        .clone();
    let h = call("devnet_blockNumber", json!([]))
        .await
        .as_u64()
        .unwrap();
    let i = call(
        "timer_interval",
        json!([{"actor": actor, "every": 3, "first": h + 2, "fee_payer": dev1}]),
    )
    .await["timer_id"]
        .clone();
    let d = call("scheduler_draft", json!([])).await;
    assert_eq!(d["scheduler"], json!("cip5-draft-zh"));
    assert_eq!(d["watches"][0]["timer_id"], w);
    assert_eq!(d["watches"][0]["keys"], json!(["price/"]));
    call("devnet_mine", json!([3])).await;
    let t = call("timer_get", json!([i])).await;
    let fired_at = h + 2;
    let now = call("devnet_blockNumber", json!([]))
        .await
        .as_u64()
        .unwrap();
    assert!(now >= fired_at, "the interval's first height has passed");
    assert_eq!(
        t["height"],
        json!(fired_at + 3),
        "rolled forward by every: {t}"
    );
}
