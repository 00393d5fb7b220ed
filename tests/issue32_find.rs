//! Issue 32 ("Dry runs, receipts, the pool, events" and "Find any timer"; Spec notes 171 and
//! 172): `devnet_getEvents` a page at a time with a cursor, `timer_list` with its filters and
//! a cursor over every timer the node knows (the ones that left too), and bad filters as named
//! errors that change nothing.

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::node::{NodeConfig, NodeCore, spawn};
use cowboy_devnet::vm::DevnetRuntime;
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use serde_json::{Value, json};

async fn call(c: &HttpClient, method: &str, p: Value) -> Value {
    common::served::rpc_ok(c, method, &p).await
}

/// The error's code and `data.field`.
async fn call_err(c: &HttpClient, method: &str, p: Value) -> (i32, String, Option<String>) {
    let (code, message, data) = common::served::rpc_err(c, method, &p).await;
    (code, message, data["field"].as_str().map(str::to_string))
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

/// A served automine node keeping the last `history` heights.
async fn start(history: usize) -> (common::served::Served, HttpClient) {
    let mut cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    cfg.history = history;
    let node = spawn(NodeCore::new(cfg).expect("genesis"));
    let served = common::served::serve_node(node, &common::served::port0()).await;
    let client = HttpClientBuilder::default()
        .build(format!("http://{}", served.addr))
        .expect("client");
    (served, client)
}

async fn height(c: &HttpClient) -> u64 {
    call(c, "devnet_blockNumber", json!([]))
        .await
        .as_u64()
        .unwrap()
}

/// Schedules a timer on `actor` for `at`, with `handler` (named handlers travel in the
/// payload); its id.
async fn schedule(c: &HttpClient, actor: &Value, at: u64, handler: Option<&str>) -> String {
    let mut t = json!({"actor": actor, "height": at, "expires_at": at + 50});
    if let Some(h) = handler {
        t["handler"] = json!(h);
    }
    let r = call(c, "timer_schedule", json!([t])).await;
    r["timer_id"].as_str().expect("an id").to_string()
}

/// Every page of `method` from the start, `page_at` the page param's index: the items under
/// `key`, and the number of pages.
async fn all_pages(
    c: &HttpClient,
    method: &str,
    params: Value,
    page_at: usize,
    key: &str,
) -> (Vec<Value>, usize) {
    let mut items = Vec::new();
    let mut cursor = Value::Null;
    for pages in 1..100 {
        let mut p = params.clone();
        p.as_array_mut().unwrap().resize(page_at + 1, Value::Null);
        p[page_at] = json!({"cursor": cursor, "limit": 2});
        let page = call(c, method, p).await;
        assert_eq!(page["limit"], json!(2), "{page}");
        items.extend(page[key].as_array().unwrap().iter().cloned());
        cursor = page["next_cursor"].clone();
        if cursor.is_null() {
            return (items, pages);
        }
    }
    panic!("the cursor never reached the end");
}

/// A served node where one actor scheduled `n` timers that fired (`n + 4` heights mined),
/// and every event it kept.
async fn fired_timers(n: u64) -> (common::served::Served, HttpClient, Vec<Value>) {
    let (s, c) = start(10_000).await;
    let actor = call(
        &c,
        "actor_deploy",
        json!([{"balance": "1000000000000000000000"}]),
    )
    .await;
    let h = height(&c).await;
    for i in 0..n {
        schedule(&c, &actor, h + 3 + i, None).await;
    }
    call(&c, "devnet_mine", json!([n + 4])).await;
    let every = call(&c, "devnet_getEvents", json!([])).await;
    (s, c, every.as_array().unwrap().clone())
}

/// Issue 32 item "events": the pages of `devnet_getEvents` put together are every event the
/// filter matches, in order, the last page's `next_cursor` null; a filtered page too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_events_pages_with_a_cursor_give_every_matching_event_once() {
    let (_s, c, every) = fired_timers(3).await;
    assert!(every.len() >= 7, "deploy, 3 scheduled, 3 fired: {every:?}");
    let (paged, pages) = all_pages(&c, "devnet_getEvents", json!([{}]), 1, "events").await;
    assert_eq!(paged, every, "the pages together are the events, in order");
    assert_eq!(pages, every.len().div_ceil(2));

    let fired = json!([{"kinds": ["TimerFired"]}]);
    let all_fired = call(&c, "devnet_getEvents", fired.clone()).await;
    let (paged, _) = all_pages(&c, "devnet_getEvents", fired, 1, "events").await;
    assert_eq!(json!(paged), all_fired);
    assert_eq!(paged.len(), 3);

    // The cursor's object form reads the same as its string form.
    let first = call(&c, "devnet_getEvents", json!([{}, {"limit": 1}])).await;
    let cur: String = first["next_cursor"].as_str().unwrap().to_string();
    let (hh, ii) = cur.split_once(':').unwrap();
    let obj = json!({"height": hh.parse::<u64>().unwrap(), "index": ii.parse::<u32>().unwrap()});
    let a = call(&c, "devnet_getEvents", json!([{}, {"cursor": cur}])).await;
    let b = call(&c, "devnet_getEvents", json!([{}, {"cursor": obj}])).await;
    assert_eq!(a, b);
    assert_eq!(a["events"][0], every[1]);
}

/// Issue 32 "What bad input gets": an unknown kind, `from_height` above `to_height`, a bad
/// cursor, a page limit out of range, a limit beside a page: `-32602` naming the field, and
/// nothing changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_bad_event_filters_and_cursors_are_named_errors_that_change_nothing() {
    let (_s, c) = start(10_000).await;
    let actor = call(
        &c,
        "actor_deploy",
        json!([{"balance": "1000000000000000000000"}]),
    )
    .await;
    let h = height(&c).await;
    schedule(&c, &actor, h + 2, None).await;
    call(&c, "devnet_mine", json!([3])).await;
    let before = state(&c).await;
    let cases = [
        (json!([{"kinds": ["TimerFird"]}]), "kinds"),
        (json!([{"from_height": 5, "to_height": 4}]), "to_height"),
        (json!([{}, {"cursor": "nope"}]), "page.cursor"),
        (json!([{}, {"cursor": "3"}]), "page.cursor"),
        (json!([{}, {"cursor": {"height": 1}}]), "page.cursor"),
        (json!([{}, {"limit": 0}]), "page.limit"),
        (json!([{}, {"limit": 1001}]), "page.limit"),
        (json!([{"limit": 3}, {}]), "limit"),
        (json!([{}, {"size": 3}]), "size"),
    ];
    for (p, field) in cases {
        let (code, msg, f) = call_err(&c, "devnet_getEvents", p.clone()).await;
        assert_eq!((code, f.as_deref()), (-32602, Some(field)), "{p}: {msg}");
    }
    assert_eq!(state(&c).await, before, "a refused read changed nothing");
}

/// Issue 32 "Find any timer": `timer_list` filters by status, handler, id prefix, actor and
/// scheduled-height window, and pages over every timer the node knows, the ones that left
/// the kept history too (from their compact records, Spec notes 150 and 181).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_timer_list_filters_and_pages_over_pending_and_gone_timers() {
    let (_s, c) = start(4).await;
    let actor = call(
        &c,
        "actor_deploy",
        json!([{"balance": "1000000000000000000000"}]),
    )
    .await;
    let h = height(&c).await;
    let early = schedule(&c, &actor, h + 2, None).await;
    let other = schedule(&c, &actor, h + 3, Some("ping")).await;
    // Both fire, and then their events leave the 4 kept heights.
    call(&c, "devnet_mine", json!([10])).await;
    let h = height(&c).await;
    let later: Vec<String> = futures_ids(&c, &actor, h).await;

    let list = |f: Value| {
        let c = c.clone();
        async move { call(&c, "timer_list", json!([f, null, {"limit": 1000}])).await }
    };
    let all = list(json!({})).await;
    assert_eq!(all["matched"], json!(5), "{all}");
    let ids: Vec<&str> = all["timers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["timer_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids[..2],
        [early.as_str(), other.as_str()],
        "scheduling order"
    );
    assert!(all["next_cursor"].is_null());
    let gone = &all["timers"][0];
    assert_eq!(gone["status"], json!("fired"), "{gone}");
    assert_eq!(
        gone["history_pruned"],
        json!(true),
        "from its record: {gone}"
    );

    let fired = list(json!({"status": "fired"})).await;
    assert_eq!(fired["matched"], json!(2));
    let pending = list(json!({"status": "pending"})).await;
    assert_eq!(pending["matched"], json!(3));
    let pinged = list(json!({"handler": "ping"})).await;
    assert_eq!(pinged["matched"], json!(1), "pending ping only: {pinged}");
    assert_eq!(pinged["timers"][0]["timer_id"], json!(later[1]));
    let window = list(json!({"from_height": h + 5, "to_height": h + 6})).await;
    assert_eq!(window["matched"], json!(2), "{window}");
    let prefix = &later[2][..10];
    let by_prefix = list(json!({"id_prefix": prefix.to_uppercase().replace("0X", "0x")})).await;
    assert!(
        by_prefix["timers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["timer_id"] == json!(later[2]))
    );
    let none =
        list(json!({"actor": call(&c, "devnet_accounts", json!([])).await[0]["address"]})).await;
    assert_eq!(none["matched"], json!(0));

    let (paged, pages) = all_pages(&c, "timer_list", json!([{}]), 2, "timers").await;
    assert_eq!(
        json!(paged),
        all["timers"],
        "the pages together are the list"
    );
    assert_eq!(pages, 3);
    // Without a page the reply is the array, as before.
    assert!(
        call(&c, "timer_list", json!([{"status": "pending"}]))
            .await
            .is_array()
    );
    let plain = call(
        &c,
        "timer_list",
        json!([{"handler": "ping", "from_height": h + 5}]),
    )
    .await;
    assert_eq!(plain.as_array().unwrap().len(), 1, "{plain}");
    assert_eq!(plain[0]["timer_id"], json!(later[1]));
}

/// Three pending timers at `h + 4`, `h + 5` (handler `ping`) and `h + 6`.
async fn futures_ids(c: &HttpClient, actor: &Value, h: u64) -> Vec<String> {
    vec![
        schedule(c, actor, h + 4, None).await,
        schedule(c, actor, h + 5, Some("ping")).await,
        schedule(c, actor, h + 6, None).await,
    ]
}

/// Issue 32 "What bad input gets": `timer_list`'s bad filters are `-32602` naming the field
/// and change nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_bad_timer_filters_are_named_errors_that_change_nothing() {
    let (_s, c) = start(10_000).await;
    let actor = call(
        &c,
        "actor_deploy",
        json!([{"balance": "1000000000000000000000"}]),
    )
    .await;
    let h = height(&c).await;
    schedule(&c, &actor, h + 5, None).await;
    let before = state(&c).await;
    let cases = [
        (json!([{"status": "gone"}]), "status"),
        (json!([{"id_prefix": "0xzz"}]), "id_prefix"),
        (json!([{"from_height": 9, "to_height": 2}]), "to_height"),
        (json!([{}, null, {"cursor": "x"}]), "page.cursor"),
        (json!([{}, null, {"limit": 5000}]), "page.limit"),
        (json!([{"limit": 1}, null, {}]), "limit"),
        (json!([{"label": "x".repeat(65)}]), "label"),
    ];
    for (p, field) in cases {
        let (code, msg, f) = call_err(&c, "timer_list", p.clone()).await;
        assert_eq!((code, f.as_deref()), (-32602, Some(field)), "{p}: {msg}");
    }
    assert_eq!(state(&c).await, before, "a refused read changed nothing");
}

/// Issue 32: the subscription takes the same filter, and refuses `from_height` above
/// `to_height` as the read does; a filtered subscription delivers only what matches.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_the_event_subscription_takes_the_same_filter() {
    use jsonrpsee::core::client::{Error as ClientError, SubscriptionClientT};
    use jsonrpsee::rpc_params;
    use jsonrpsee::ws_client::WsClientBuilder;
    let (s, c) = start(10_000).await;
    let ws = WsClientBuilder::default()
        .build(format!("ws://{}", s.addr))
        .await
        .expect("ws");
    let bad = ws
        .subscribe::<Value, _>(
            "devnet_subscribeEvents",
            rpc_params![json!({"from_height": 5, "to_height": 4})],
            "devnet_unsubscribeEvents",
        )
        .await;
    match bad {
        Err(ClientError::Call(e)) => assert_eq!(e.code(), -32602, "{e}"),
        Err(e) => panic!("expected -32602, got {e}"),
        Ok(_) => panic!("expected -32602, the subscription was accepted"),
    }
    let mut sub = ws
        .subscribe::<Value, _>(
            "devnet_subscribeEvents",
            rpc_params![json!({"kinds": ["TimerFired"]})],
            "devnet_unsubscribeEvents",
        )
        .await
        .expect("subscribes");
    let actor = call(
        &c,
        "actor_deploy",
        json!([{"balance": "1000000000000000000000"}]),
    )
    .await;
    let h = height(&c).await;
    let id = schedule(&c, &actor, h + 2, None).await;
    call(&c, "devnet_mine", json!([3])).await;
    let first = tokio::time::timeout(std::time::Duration::from_secs(10), sub.next())
        .await
        .expect("a notification")
        .expect("open")
        .expect("decodes");
    assert_eq!(
        first["kind"],
        json!("TimerFired"),
        "only the kind asked: {first}"
    );
    assert_eq!(first["timer_id"], json!(id));
}

/// Issue 31 (what a feed asks on attaching): a page with `newest` is the newest `limit`
/// matching events, oldest first, with no cursor; `newest` beside a `cursor` is `-32602`
/// naming `page.newest`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue31_the_newest_page_is_the_last_events_oldest_first() {
    let (_s, c, every) = fired_timers(4).await;
    let last3 = every[every.len() - 3..].to_vec();
    let page = call(
        &c,
        "devnet_getEvents",
        json!([{}, {"newest": true, "limit": 3}]),
    )
    .await;
    assert_eq!(page["events"], json!(last3));
    assert_eq!(page["next_cursor"], Value::Null);
    let fired = call(&c, "devnet_getEvents", json!([{"kinds": ["TimerFired"]}])).await;
    let fired = fired.as_array().unwrap();
    let page = call(
        &c,
        "devnet_getEvents",
        json!([{"kinds": ["TimerFired"]}, {"newest": true, "limit": 2}]),
    )
    .await;
    assert_eq!(page["events"], json!(fired[fired.len() - 2..]));
    let (code, _, field) = call_err(
        &c,
        "devnet_getEvents",
        json!([{}, {"newest": true, "cursor": "1:0"}]),
    )
    .await;
    assert_eq!((code, field.as_deref()), (-32602, Some("page.newest")));
}
