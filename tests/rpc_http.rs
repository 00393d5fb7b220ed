//! The API's transport against the JSON-RPC 2.0 specification
//! (https://www.jsonrpc.org/specification) and against browser pages (issue 20): raw HTTP and
//! raw WebSocket handshakes on the real server on port 0, and `serve` as the real binary.

mod common;

use common::served::raw_request as raw;
use cowboy_devnet::chain::Genesis;
use cowboy_devnet::rpc::server::ServerOptions;
use jsonrpsee::core::client::{ClientT, Error as ClientError, SubscriptionClientT};
use jsonrpsee::rpc_params;
use jsonrpsee::ws_client::WsClientBuilder;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;

type Devnet = common::served::Served;

async fn start_with(allow_origin: &[&str]) -> Devnet {
    let opts = ServerOptions {
        allow_origin: allow_origin.iter().map(|s| s.to_string()).collect(),
        ..common::served::port0()
    };
    common::served::serve(Genesis::default(), &opts).await
}

async fn start() -> Devnet {
    start_with(&[]).await
}

fn post(addr: SocketAddr, body: &str) -> (u16, String) {
    raw(addr, "POST / HTTP/1.1", &[], body.as_bytes())
}

fn height(addr: SocketAddr) -> u64 {
    let (_, b) = post(
        addr,
        r#"{"jsonrpc":"2.0","method":"devnet_blockNumber","params":[],"id":1}"#,
    );
    let v: Value = serde_json::from_str(&b).expect("JSON");
    v["result"].as_u64().expect("a height")
}

/// JSON-RPC 2.0 §4.1: "A Notification is a Request object without an "id" member ... The
/// Server MUST NOT reply to a Notification, including those that are within a batch request."
/// It still runs: a notification of `devnet_mine` mines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonrpc_4_1_a_notification_runs_and_gets_no_answer() {
    let d = start().await;
    let h = height(d.addr);
    let (status, body) = post(
        d.addr,
        r#"{"jsonrpc":"2.0","method":"devnet_mine","params":[1]}"#,
    );
    assert_eq!(status, 204, "{body}");
    assert_eq!(body.trim(), "", "no answer");
    assert_eq!(height(d.addr), h + 1, "the notification ran");

    // In a batch: no entry for the notification, the call answered.
    let (status, body) = post(
        d.addr,
        r#"[{"jsonrpc":"2.0","method":"devnet_mine","params":[2]},{"jsonrpc":"2.0","method":"devnet_blockNumber","params":[],"id":"b"}]"#,
    );
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).expect("a JSON batch reply");
    assert_eq!(v, json!([{"jsonrpc": "2.0", "id": "b", "result": h + 3}]));
    // A batch of notifications only: no answer at all.
    let (status, body) = post(
        d.addr,
        r#"[{"jsonrpc":"2.0","method":"devnet_mine","params":[1]}]"#,
    );
    assert_eq!((status, body.trim()), (204, ""));
    assert_eq!(height(d.addr), h + 4);
}

/// JSON-RPC 2.0 §4 ("id ... MUST contain a String, Number, or NULL value") and §5 ("id ...
/// MUST be the same as the value of the id member in the Request Object"): any number is
/// echoed, exactly as sent, and the method runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonrpc_4_any_number_or_string_id_is_echoed_as_sent() {
    let d = start().await;
    let h = height(d.addr);
    let ids = [
        "-1",
        "1.5",
        "340282366920938463463374607431768211456",
        "0",
        "1e3",
        "\"x\"",
        "null",
    ];
    for (n, id) in ids.iter().enumerate() {
        let (status, body) = post(
            d.addr,
            &format!(r#"{{"jsonrpc":"2.0","method":"devnet_mine","params":[1],"id":{id}}}"#),
        );
        assert_eq!(status, 200, "{id}: {body}");
        assert!(
            body.contains(&format!("\"id\":{id}")),
            "id {id} echoed as sent: {body}"
        );
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["result"], json!(h + 1 + n as u64), "{id} ran: {body}");
    }
}

/// JSON-RPC 2.0 §5.1: an id that is not a string, a number or null makes an invalid request:
/// -32600 with `id: null`, and nothing runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonrpc_5_1_an_invalid_id_is_an_invalid_request_and_nothing_runs() {
    let d = start().await;
    let h = height(d.addr);
    for id in ["{}", "[1]", "true"] {
        let (status, body) = post(
            d.addr,
            &format!(r#"{{"jsonrpc":"2.0","method":"devnet_mine","params":[1],"id":{id}}}"#),
        );
        assert_eq!(status, 200, "{body}");
        let v: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(v["error"]["code"], json!(-32600), "{id}: {body}");
        assert_eq!(v["id"], Value::Null, "{id}: {body}");
    }
    // In a batch: its own -32600 entry beside the valid call's answer.
    let (_, body) = post(
        d.addr,
        r#"[{"jsonrpc":"2.0","method":"devnet_mine","params":[1],"id":true},{"jsonrpc":"2.0","method":"devnet_blockNumber","params":[],"id":-7}]"#,
    );
    let v: Value = serde_json::from_str(&body).expect("JSON");
    let v = v.as_array().expect("a batch reply");
    assert_eq!(v.len(), 2, "{body}");
    assert!(
        v.iter()
            .any(|e| e["id"] == json!(-7) && e["result"] == json!(h))
    );
    assert!(
        v.iter()
            .any(|e| e["id"].is_null() && e["error"]["code"] == json!(-32600))
    );
    assert_eq!(height(d.addr), h, "nothing ran");
}

/// JSON-RPC 2.0 §5.1: "-32700 Parse error: Invalid JSON was received by the server" (a body
/// that is not UTF-8 is not JSON, RFC 8259 §8.1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonrpc_5_1_a_body_that_is_not_utf8_is_a_parse_error() {
    let d = start().await;
    let (status, body) = raw(
        d.addr,
        "POST / HTTP/1.1",
        &[],
        b"{\"jsonrpc\":\"2.0\",\"method\":\"devnet_blockNumber\",\"params\":[],\"id\":\"\xff\"}",
    );
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(v["error"]["code"], json!(-32700), "{body}");
    assert_eq!(v["id"], Value::Null);
}

const WS_HEAD: &str = "GET / HTTP/1.1";

fn ws_headers<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ("Sec-WebSocket-Version", "13"),
    ];
    h.extend_from_slice(extra);
    h
}

/// Issue 20: a page open in the developer's browser must not drive the devnet. A WebSocket or
/// an HTTP request with a foreign `Origin`, or with a `Host` that does not name this machine
/// (DNS rebinding), is refused with 403 by default; loopback origins and hosts are served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_pages_of_other_origins_are_refused_by_default() {
    let d = start().await;
    let call = br#"{"jsonrpc":"2.0","method":"devnet_setBalance","params":["0x4242424242424242424242424242424242424242","1"],"id":1}"#;
    let evil = [("Origin", "http://evil.example")];
    assert_eq!(raw(d.addr, WS_HEAD, &ws_headers(&evil), b"").0, 403);
    assert_eq!(raw(d.addr, "POST / HTTP/1.1", &evil, call).0, 403);
    let foreign_host = [("Host", "evil.example:8645")];
    assert_eq!(raw(d.addr, WS_HEAD, &ws_headers(&foreign_host), b"").0, 403);
    assert_eq!(raw(d.addr, "POST / HTTP/1.1", &foreign_host, call).0, 403);
    assert_eq!(
        raw(d.addr, WS_HEAD, &ws_headers(&[("Origin", "null")]), b"").0,
        403
    );

    for ok in [
        "http://localhost:3000",
        "http://127.0.0.1:8080",
        "https://[::1]",
    ] {
        assert_eq!(
            raw(d.addr, WS_HEAD, &ws_headers(&[("Origin", ok)]), b"").0,
            101,
            "{ok}"
        );
    }
    for host in ["localhost:8645", "127.0.0.1", "[::1]:1"] {
        let (status, body) = raw(d.addr, "POST / HTTP/1.1", &[("Host", host)], call);
        assert_eq!(status, 200, "{host}: {body}");
    }
    // Scripts send no Origin: served.
    assert_eq!(raw(d.addr, WS_HEAD, &ws_headers(&[]), b"").0, 101);
}

/// `--allow-origin` (as anvil's flag) widens what is accepted: the named origin (its host
/// too), or any with `*`; an allowed origin gets CORS headers and its preflight answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_origin_widens_the_origins_accepted() {
    let d = start_with(&["http://app.example:3000"]).await;
    let ok = [("Origin", "http://app.example:3000")];
    assert_eq!(raw(d.addr, WS_HEAD, &ws_headers(&ok), b"").0, 101);
    assert_eq!(
        raw(
            d.addr,
            WS_HEAD,
            &ws_headers(&[("Origin", "http://evil.example")]),
            b""
        )
        .0,
        403
    );
    let (status, _) = raw(
        d.addr,
        "OPTIONS / HTTP/1.1",
        &[
            ("Origin", "http://app.example:3000"),
            ("Access-Control-Request-Method", "POST"),
        ],
        b"",
    );
    assert_eq!(status, 204, "the preflight is answered");
    let any = start_with(&["*"]).await;
    assert_eq!(
        raw(
            any.addr,
            WS_HEAD,
            &ws_headers(&[("Origin", "http://evil.example")]),
            b""
        )
        .0,
        101
    );
}

/// Issue 20: `devnet_unsubscribe*` with malformed params is -32602 (JSON-RPC 2.0 §5.1
/// "Invalid params"), not `false`; a well-formed id that names no subscription stays `false`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsubscribe_with_malformed_params_is_invalid_params() {
    let d = start().await;
    let ws = WsClientBuilder::default()
        .build(format!("ws://{}", d.addr))
        .await
        .expect("ws");
    for p in [
        rpc_params![json!({})],
        rpc_params![],
        rpc_params![1, 2],
        rpc_params![true],
    ] {
        for m in ["devnet_unsubscribeBlocks", "devnet_unsubscribeEvents"] {
            match ws.request::<Value, _>(m, p.clone()).await {
                Err(ClientError::Call(e)) => assert_eq!(e.code(), -32602, "{m}: {e}"),
                other => panic!("{m}: expected -32602, got {other:?}"),
            }
        }
    }
    let v: Value = ws
        .request("devnet_unsubscribeBlocks", rpc_params![12345])
        .await
        .expect("a well-formed id");
    assert_eq!(v, json!(false));
}

/// Issue 20: an unknown event kind in a `devnet_getEvents` or `devnet_subscribeEvents` filter
/// is -32602 naming the valid kinds (a typo must not read as "no such events").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_event_kind_in_a_filter_is_invalid_params_naming_the_kinds() {
    let d = start().await;
    let ws = WsClientBuilder::default()
        .build(format!("ws://{}", d.addr))
        .await
        .expect("ws");
    let filter = json!({"kinds": ["TimerFired", "TimerFird"]});
    match ws
        .request::<Value, _>("devnet_getEvents", rpc_params![filter.clone()])
        .await
    {
        Err(ClientError::Call(e)) => {
            assert_eq!(e.code(), -32602, "{e}");
            assert!(e.message().contains("TimerFird"), "{e}");
            assert!(
                e.message().contains("TimerDeferred"),
                "names the kinds: {e}"
            );
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    let sub = ws
        .subscribe::<Value, _>(
            "devnet_subscribeEvents",
            rpc_params![filter],
            "devnet_unsubscribeEvents",
        )
        .await;
    match sub {
        Err(ClientError::Call(e)) => assert_eq!(e.code(), -32602, "{e}"),
        Err(e) => panic!("expected -32602, got {e}"),
        Ok(_) => panic!("expected -32602, the subscription was accepted"),
    }
    let ok: Value = ws
        .request(
            "devnet_getEvents",
            rpc_params![json!({"kinds": ["TimerFired"]})],
        )
        .await
        .expect("a known kind");
    assert!(ok.is_array() || ok.is_object(), "{ok}");
}

/// Issue 20: `serve --state` on a path that cannot be written fails at start (exit 2, the
/// path named) instead of printing a write error at every save.
#[test]
fn serve_state_on_an_unwritable_path_fails_at_start() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
        .args([
            "serve",
            "--port",
            "0",
            "--state",
            "/nonexistent-cowboy-devnet-dir/x.json",
        ])
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("/nonexistent-cowboy-devnet-dir/x.json"),
        "names the path: {err}"
    );
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("Listening"),
        "did not serve"
    );
}

/// `serve --allow-origin` (repeatable) reaches the server: the named origin's WebSocket is
/// accepted, another origin's still refused (403).
#[test]
fn serve_allow_origin_flag_widens_the_origins() {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
        .args([
            "serve",
            "--port",
            "0",
            "--allow-origin",
            "http://app.example:3000",
            "--allow-origin",
            "http://other.example",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn cowboy-devnet");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let addr: SocketAddr = loop {
        let l = lines
            .next()
            .expect("serve prints `Listening on`")
            .expect("a line");
        if let Some(rest) = l.strip_prefix("Listening on http://") {
            break rest.split_whitespace().next().unwrap().parse().unwrap();
        }
    };
    let status = |origin: &str| raw(addr, WS_HEAD, &ws_headers(&[("Origin", origin)]), b"").0;
    let results = (
        status("http://app.example:3000"),
        status("http://other.example"),
        status("http://evil.example"),
    );
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(results, (101, 101, 403));
}

// ---- the same over WebSocket (issue 20: the relay of `rpc/ws_proxy.rs`) --------------------

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn ws(addr: SocketAddr) -> Ws {
    tokio_tungstenite::connect_async(format!("ws://{addr}"))
        .await
        .expect("the WebSocket opens")
        .0
}

async fn ws_send(s: &mut Ws, text: &str) {
    use futures_util::SinkExt;
    s.send(tokio_tungstenite::tungstenite::Message::text(text))
        .await
        .expect("sent");
}

/// The next text message as it was written (a limit only so that a broken run does not hang).
async fn ws_next_text(s: &mut Ws) -> String {
    use futures_util::StreamExt;
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), s.next())
            .await
            .expect("an answer")
            .expect("the socket stays open")
            .expect("a message");
        if let tokio_tungstenite::tungstenite::Message::Text(t) = m {
            return t.as_str().to_string();
        }
    }
}

async fn ws_next(s: &mut Ws) -> Value {
    serde_json::from_str(&ws_next_text(s).await).expect("JSON")
}

/// A call with a native id, answered: the height.
async fn ws_height(s: &mut Ws, id: u64) -> u64 {
    ws_send(
        s,
        &format!(r#"{{"jsonrpc":"2.0","method":"devnet_blockNumber","params":[],"id":{id}}}"#),
    )
    .await;
    let v = ws_next(s).await;
    assert_eq!(v["id"], json!(id), "the next message answers the call: {v}");
    v["result"].as_u64().expect("a height")
}

/// JSON-RPC 2.0 §4.1 over WebSocket: a notification runs and is not answered (the next
/// message is the answer to the next call, and the height moved).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonrpc_4_1_over_websocket_a_notification_runs_and_gets_no_answer() {
    let d = start().await;
    let mut s = ws(d.addr).await;
    let h = ws_height(&mut s, 1).await;
    ws_send(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"devnet_mine","params":[1]}"#,
    )
    .await;
    // The notification is answered by nobody; wait for its block through calls.
    let mut id = 2;
    while ws_height(&mut s, id).await != h + 1 {
        id += 1;
        assert!(id < 10_000, "the notification never ran");
    }
    // A batch of a notification and a call: only the call is answered.
    ws_send(
        &mut s,
        r#"[{"jsonrpc":"2.0","method":"devnet_mine","params":[2]},{"jsonrpc":"2.0","method":"devnet_getMining","params":[],"id":"b"}]"#,
    )
    .await;
    let v = ws_next(&mut s).await;
    let v = v.as_array().expect("a batch reply");
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0]["id"], json!("b"));
}

/// JSON-RPC 2.0 §4/§5 over WebSocket: any number id is echoed exactly as sent and the call
/// runs; an id that is an object, an array or a boolean is -32600 with `id: null` and nothing
/// runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonrpc_4_and_5_1_over_websocket_ids() {
    let d = start().await;
    let mut s = ws(d.addr).await;
    let h = ws_height(&mut s, 1).await;
    for (n, id) in ["-1", "1.5", "340282366920938463463374607431768211456"]
        .iter()
        .enumerate()
    {
        ws_send(
            &mut s,
            &format!(r#"{{"jsonrpc":"2.0","method":"devnet_mine","params":[1],"id":{id}}}"#),
        )
        .await;
        let text = ws_next_text(&mut s).await;
        assert!(
            text.contains(&format!("\"id\":{id}")),
            "id {id} echoed as sent: {text}"
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["result"], json!(h + 1 + n as u64), "{id} ran: {v}");
    }
    let h = ws_height(&mut s, 2).await;
    for id in ["{}", "[1]", "true"] {
        ws_send(
            &mut s,
            &format!(r#"{{"jsonrpc":"2.0","method":"devnet_mine","params":[1],"id":{id}}}"#),
        )
        .await;
        let v = ws_next(&mut s).await;
        assert_eq!(v["error"]["code"], json!(-32600), "{id}: {v}");
        assert_eq!(v["id"], Value::Null, "{id}: {v}");
    }
    assert_eq!(ws_height(&mut s, 3).await, h, "nothing ran");
    // Subscriptions go through the relay as they are.
    ws_send(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"devnet_subscribeBlocks","params":[],"id":4}"#,
    )
    .await;
    let sub = ws_next(&mut s).await;
    assert_eq!(sub["id"], json!(4), "{sub}");
    ws_send(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"devnet_mine","params":[1],"id":5}"#,
    )
    .await;
    let mut saw_block = false;
    let mut saw_answer = false;
    while !(saw_block && saw_answer) {
        let v = ws_next(&mut s).await;
        saw_block |= v["method"] == json!("devnet_subscribeBlocks");
        saw_answer |= v["id"] == json!(5);
    }
}
