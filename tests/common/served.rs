//! A devnet served over JSON-RPC for the API's tests: a node on its own thread and the server
//! on a free port, both stopped when the value is dropped.

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::node::{NodeHandle, spawn};
use cowboy_devnet::rpc::methods::module;
use cowboy_devnet::rpc::server::{self, Running, ServerOptions};
use jsonrpsee::core::client::{ClientT, Error as ClientError};
use jsonrpsee::http_client::HttpClient;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

pub struct Served {
    pub addr: SocketAddr,
    pub running: Running,
    pub node: NodeHandle,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.running.handle.stop();
        self.node.shutdown();
    }
}

/// Server options on port 0 (a free port), the rest default.
pub fn port0() -> ServerOptions {
    ServerOptions {
        port: 0,
        ..ServerOptions::default()
    }
}

/// Serves `node` with `opts`.
pub async fn serve_node(node: NodeHandle, opts: &ServerOptions) -> Served {
    let running = server::start(module(node.clone()), opts)
        .await
        .expect("bind port 0");
    Served {
        addr: running.addr,
        running,
        node,
    }
}

/// A node on `genesis` (the default dev accounts, automine) served with `opts`.
pub async fn serve(genesis: Genesis, opts: &ServerOptions) -> Served {
    serve_node(spawn(super::fleet::node_on(genesis)), opts).await
}

/// A request over a fresh connection with these extra headers (`Host` defaults to the
/// server's address); the status code and the body.
pub fn raw_request(
    addr: SocketAddr,
    head: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = format!("{head}\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req += &format!("Host: {addr}\r\n");
    }
    for (k, v) in headers {
        req += &format!("{k}: {v}\r\n");
    }
    if head.starts_with("POST") {
        req += &format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
    }
    if !head.starts_with("GET") {
        req += "Connection: close\r\n";
    }
    req += "\r\n";
    s.write_all(req.as_bytes()).unwrap();
    // The server may answer (413) before it read all of an oversize body.
    let _ = s.write_all(body);
    let mut out = Vec::new();
    if head.starts_with("GET") {
        // A WebSocket handshake: the status line is all we need (the connection stays open).
        let mut buf = [0u8; 512];
        let n = s.read(&mut buf).unwrap_or(0);
        out.extend_from_slice(&buf[..n]);
    } else {
        let _ = s.read_to_end(&mut out);
    }
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// One JSON-RPC call with array `params` over `c`: its result, or the JSON-RPC error's code,
/// message and `data` (`null` when it has none). A failure that is not a JSON-RPC error (the
/// transport) panics, naming the method.
pub async fn rpc(
    c: &HttpClient,
    method: &str,
    params: &Value,
) -> Result<Value, (i32, String, Value)> {
    let mut p = jsonrpsee::core::params::ArrayParams::new();
    for i in params.as_array().expect("params are an array") {
        p.insert(i).expect("serializes");
    }
    match c.request::<Value, _>(method, p).await {
        Ok(v) => Ok(v),
        Err(ClientError::Call(e)) => {
            let data = e
                .data()
                .map(|d| serde_json::from_str(d.get()).unwrap())
                .unwrap_or(Value::Null);
            Err((e.code(), e.message().to_string(), data))
        }
        Err(e) => panic!("{method}: not a JSON-RPC error: {e}"),
    }
}

/// [`rpc`]'s result; panics naming the method and the error.
pub async fn rpc_ok(c: &HttpClient, method: &str, params: &Value) -> Value {
    rpc(c, method, params)
        .await
        .unwrap_or_else(|(code, m, _)| panic!("{method} failed: {code} {m}"))
}

/// [`rpc`]'s error; panics if the call succeeded.
pub async fn rpc_err(c: &HttpClient, method: &str, params: &Value) -> (i32, String, Value) {
    match rpc(c, method, params).await {
        Ok(v) => panic!("{method} {params} succeeded with {v}, an error was expected"),
        Err(e) => e,
    }
}

/// Everything a refused (or dry-run) call must leave as it was: the head (height, hash, root,
/// pending transactions; not the save bookkeeping, which is not chain state), every account's
/// balance and nonce, the supply, the snapshots, the mining mode, the actors and the timers.
pub async fn fingerprint(c: &HttpClient) -> Value {
    let mut head = rpc_ok(c, "devnet_head", &serde_json::json!([])).await;
    head.as_object_mut().unwrap().remove("state_save");
    let mut out = serde_json::json!({ "head": head });
    for (key, method, params) in [
        ("accounts", "devnet_accounts", serde_json::json!([])),
        ("supply", "devnet_supply", serde_json::json!([])),
        ("snapshots", "devnet_snapshots", serde_json::json!([])),
        ("mining", "devnet_getMining", serde_json::json!([])),
        ("actors", "actor_list", serde_json::json!([])),
        ("timers", "timer_list", serde_json::json!([{}])),
    ] {
        out[key] = rpc_ok(c, method, &params).await;
    }
    out
}
