//! JSON-RPC 2.0 over WebSocket (issue 20): the same fixes [`super::compliance`] makes on an
//! HTTP body, made on each WebSocket message.
//!
//! jsonrpsee reads a WebSocket's messages itself, after the upgrade, where no HTTP middleware
//! sees them. So the [`super::guard`] layer answers a client's upgrade itself and relays the
//! connection to jsonrpsee over a second, inner WebSocket to the same server (loopback, marked
//! with a per-process token so that it is served directly):
//!
//! - a message that needs no fix goes through as it is, and so does every message back
//!   (replies and subscription notifications);
//! - a message with a notification (no `id`) or an id jsonrpsee does not take (`-1`, `1.5`,
//!   `2^128`) is sent with ids of ours; the reply comes back with the client's ids as they were
//!   written, and a notification's reply is dropped (§4.1: it runs, it is not answered);
//! - an id that is an object, an array or a boolean is `-32600` with `id: null`, answered here
//!   and never run (§5.1).
//!
//! jsonrpsee's own limits hold on the inner connection (message size, batch size, connection
//! and subscription limits); the outer one takes messages up to the same size.

use super::compliance::{self, Plan, Rewrite};
use futures_util::{SinkExt, StreamExt};
use http::{HeaderValue, StatusCode, header};
use jsonrpsee::server::{HttpBody, HttpRequest, HttpResponse};
use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest};

/// The header that marks the relay's own connection to jsonrpsee.
pub const INNER: &str = "x-cowboy-devnet-inner";

/// Where the relay connects and the token that marks it; set once the server is bound.
#[derive(Debug, Default)]
pub struct Inner {
    link: OnceLock<(SocketAddr, String)>,
}

impl Inner {
    pub fn new() -> Arc<Inner> {
        Arc::new(Inner::default())
    }

    /// The server's address (an unspecified one is reached on loopback) and a fresh token.
    pub fn set(&self, bound: SocketAddr) {
        let mut addr = bound;
        if addr.ip().is_unspecified() {
            addr.set_ip(match addr {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        let _ = self.link.set((addr, token()));
    }

    /// True for the relay's own connection (its token, which only this process knows).
    pub fn is_inner(&self, req: &HttpRequest) -> bool {
        match (self.link.get(), req.headers().get(INNER)) {
            (Some((_, t)), Some(v)) => v.as_bytes() == t.as_bytes(),
            _ => false,
        }
    }
}

/// 128 random bits as hex (the standard library's per-process hash keys).
fn token() -> String {
    let mut out = String::new();
    for i in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(i);
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

/// A WebSocket upgrade request (`GET`, `Upgrade: websocket`).
pub fn is_upgrade(req: &HttpRequest) -> bool {
    let has = |name: header::HeaderName, token: &str| {
        req.headers().get_all(name).iter().any(|v| {
            v.to_str()
                .map(|s| s.split(',').any(|p| p.trim().eq_ignore_ascii_case(token)))
                .unwrap_or(false)
        })
    };
    req.method() == http::Method::GET
        && has(header::UPGRADE, "websocket")
        && has(header::CONNECTION, "upgrade")
}

/// Answers the client's upgrade and relays the connection to jsonrpsee.
pub fn relay(
    mut req: HttpRequest,
    inner: Arc<Inner>,
    max_message: usize,
    max_batch: usize,
) -> HttpResponse {
    let key = req.headers().get(header::SEC_WEBSOCKET_KEY).cloned();
    let version_ok = req
        .headers()
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_some_and(|v| v.as_bytes() == b"13");
    let (Some(key), true, Some((addr, token))) = (key, version_ok, inner.link.get().cloned())
    else {
        let mut r = HttpResponse::new(HttpBody::from(
            "Bad Request: a WebSocket upgrade needs Sec-WebSocket-Key and version 13\n",
        ));
        *r.status_mut() = StatusCode::BAD_REQUEST;
        return r;
    };
    let accept = derive_accept_key(key.as_bytes());
    let path = req
        .uri()
        .path_and_query()
        .map_or("/".to_string(), |p| p.as_str().to_string());
    let on_upgrade = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        let Ok(upgraded) = on_upgrade.await else {
            return;
        };
        let config = WebSocketConfig::default()
            .max_message_size(Some(max_message))
            .max_frame_size(Some(max_message));
        let outer = tokio_tungstenite::WebSocketStream::from_raw_socket(
            hyper_util::rt::TokioIo::new(upgraded),
            Role::Server,
            Some(config),
        )
        .await;
        let Ok(mut request) = format!("ws://{addr}{path}").into_client_request() else {
            return;
        };
        if let Ok(v) = HeaderValue::from_str(&token) {
            request.headers_mut().insert(INNER, v);
        }
        let inner =
            match tokio_tungstenite::connect_async_with_config(request, Some(config), true).await {
                Ok((ws, _)) => ws,
                Err(e) => {
                    tracing::warn!("WebSocket relay: the inner connection failed: {e}");
                    return;
                }
            };
        pump(outer, inner, max_batch).await;
    });
    let mut r = HttpResponse::new(HttpBody::empty());
    *r.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = r.headers_mut();
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    if let Ok(v) = HeaderValue::from_str(&accept) {
        h.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    r
}

/// Moves messages both ways until either side closes, fixing the client's messages and the
/// replies to the fixed ones.
async fn pump<A, B>(
    outer: tokio_tungstenite::WebSocketStream<A>,
    inner: tokio_tungstenite::WebSocketStream<B>,
    max_batch: usize,
) where
    A: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    B: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let (mut out_tx, mut out_rx) = outer.split();
    let (mut in_tx, mut in_rx) = inner.split();
    // The rewrites waiting for their reply, by their tag (unique on this connection).
    let mut waiting: BTreeMap<u64, Rewrite> = BTreeMap::new();
    let mut next_tag: u64 = 1;
    loop {
        tokio::select! {
            m = out_rx.next() => {
                let m = match m {
                    Some(Ok(m)) => m,
                    _ => {
                        let _ = in_tx.close().await;
                        return;
                    }
                };
                let sent = match m {
                    m @ (Message::Text(_) | Message::Binary(_)) => {
                        match route(m, max_batch, &mut waiting, &mut next_tag) {
                            Route::Inner(m) => in_tx.send(m).await,
                            Route::Client(m) => out_tx.send(m).await,
                        }
                    }
                    Message::Close(c) => {
                        let _ = in_tx.send(Message::Close(c)).await;
                        return;
                    }
                    // Pings are answered by the library; frames are never seen here.
                    Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => Ok(()),
                };
                if sent.is_err() {
                    return;
                }
            }
            m = in_rx.next() => {
                let m = match m {
                    Some(Ok(m)) => m,
                    _ => {
                        let _ = out_tx.close().await;
                        return;
                    }
                };
                let sent = match m {
                    Message::Text(t) => match compliance::reply_tag(t.as_str()).and_then(|tag| waiting.remove(&tag)) {
                        Some(rw) => match rw.reply(t.as_str()) {
                            Some(r) => out_tx.send(Message::text(r)).await,
                            None => Ok(()),
                        },
                        None => out_tx.send(Message::Text(t)).await,
                    },
                    Message::Close(c) => {
                        let _ = out_tx.send(Message::Close(c)).await;
                        return;
                    }
                    Message::Binary(b) => out_tx.send(Message::Binary(b)).await,
                    Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => Ok(()),
                };
                if sent.is_err() {
                    return;
                }
            }
        }
    }
}

/// Where a client's request message goes.
enum Route {
    /// To jsonrpsee (as sent, or with ids of ours).
    Inner(Message),
    /// Answered here, never run.
    Client(Message),
}

/// A client's text or binary message through [`compliance`]'s plan; a rewrite waits under a
/// fresh tag for its reply.
fn route(
    m: Message,
    max_batch: usize,
    waiting: &mut BTreeMap<u64, Rewrite>,
    next_tag: &mut u64,
) -> Route {
    let plan = match &m {
        Message::Text(t) => compliance::plan_tagged(t.as_bytes(), max_batch, *next_tag),
        Message::Binary(b) => compliance::plan_tagged(b, max_batch, *next_tag),
        _ => Plan::Pass,
    };
    match plan {
        Plan::Pass => Route::Inner(m),
        Plan::Answer(a) => Route::Client(Message::text(a)),
        Plan::Rewrite { body, rewrite } => {
            waiting.insert(*next_tag, rewrite);
            *next_tag += 1;
            Route::Inner(Message::text(body))
        }
    }
}
