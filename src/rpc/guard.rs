//! The HTTP layer in front of jsonrpsee (issue 20): who may talk to the devnet, and JSON-RPC
//! 2.0 on the body ([`super::compliance`]).
//!
//! Browser pages must not drive the devnet. A page open in the developer's browser can open a
//! WebSocket to `ws://127.0.0.1:8645` (no CORS applies to WebSockets) or reach it through a
//! DNS name it controls that resolves to 127.0.0.1 (DNS rebinding); either could then call
//! `devnet_setBalance` or `gov_*`. So, by default:
//! - the `Host` header must name this machine: `localhost` (or a `*.localhost` name),
//!   `127.0.0.0/8` or `[::1]`, any port; when the server listens on a non-loopback address
//!   (`--host`), also an IP address literal (no DNS name, so no rebinding) and the listen
//!   address itself;
//! - an `Origin` header, when there is one (browsers send it; scripts and curl do not), must
//!   be a loopback origin: `http(s)://localhost|127.x.y.z|[::1]` with any port.
//!
//! Anything else is `403 Forbidden`. `--allow-origin ORIGIN` (repeatable; `*` for any, as
//! anvil's flag) adds origins, and their hosts to the hosts accepted. An allowed origin gets
//! CORS headers and its preflight (`OPTIONS`) answered, so a page served from it can call the
//! API over HTTP too.

use super::compliance::{self, Plan};
use http::{HeaderValue, Method, StatusCode, header};
use http_body_util::BodyExt;
use jsonrpsee::core::BoxError;
use jsonrpsee::server::{HttpBody, HttpRequest, HttpResponse};
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower::{Layer, Service};

/// Who may call, and the limits the body rewrite keeps.
#[derive(Clone, Debug, Default)]
pub struct Access {
    /// `--allow-origin` values, lower-cased, without a trailing `/`.
    pub origins: Vec<String>,
    /// `--allow-origin '*'`: any origin and any host.
    pub any: bool,
    /// The address the server listens on (`--host`).
    pub listen: String,
    pub max_request_body: u32,
    pub max_batch: u32,
    /// The WebSocket relay's link to jsonrpsee ([`super::ws_proxy`]); set once bound.
    pub ws: Arc<super::ws_proxy::Inner>,
}

impl Access {
    /// From the `--allow-origin` values.
    pub fn new(allow_origin: &[String], listen: &str) -> Access {
        Access {
            any: allow_origin.iter().any(|o| o.trim() == "*"),
            origins: allow_origin
                .iter()
                .filter(|o| o.trim() != "*")
                .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
                .collect(),
            listen: listen.to_string(),
            ..Access::default()
        }
    }

    /// Whether a `Host` header value is accepted.
    pub fn host_allowed(&self, host: &str) -> bool {
        if self.any {
            return true;
        }
        let name = host_name(host);
        if is_loopback_name(&name) {
            return true;
        }
        let listen = self.listen.trim_start_matches('[').trim_end_matches(']');
        if !is_loopback(listen) {
            let ip = name.parse::<IpAddr>().ok();
            let unspecified = listen
                .parse::<IpAddr>()
                .map(|a| a.is_unspecified())
                .unwrap_or(false);
            if name == listen.to_ascii_lowercase() || (ip.is_some() && unspecified) {
                return true;
            }
        }
        self.origins
            .iter()
            .any(|o| origin_host(o) == Some(name.clone()))
    }

    /// Whether an `Origin` header value is accepted.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        let o = origin.trim().trim_end_matches('/').to_ascii_lowercase();
        self.any
            || self.origins.contains(&o)
            || origin_host(&o).is_some_and(|h| is_loopback_name(&h))
    }
}

/// The host of `host[:port]` or `[v6]:port`, lower-cased, without brackets.
fn host_name(host: &str) -> String {
    let h = host.trim().to_ascii_lowercase();
    if let Some(rest) = h.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("").to_string();
    }
    match h.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name.to_string(),
        _ => h,
    }
}

/// The host of an `http(s)://host[:port]` origin.
fn origin_host(origin: &str) -> Option<String> {
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))?;
    Some(host_name(rest.split('/').next().unwrap_or("")))
}

/// True for an address that only this machine can reach.
pub fn is_loopback(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h == "localhost"
        || h.parse::<std::net::IpAddr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false)
}

fn is_loopback_name(name: &str) -> bool {
    name == "localhost"
        || name.ends_with(".localhost")
        || name
            .parse::<IpAddr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false)
}

/// The layer to give jsonrpsee's `set_http_middleware`.
#[derive(Clone, Debug)]
pub struct GuardLayer(Arc<Access>);

impl GuardLayer {
    pub fn new(access: Access) -> GuardLayer {
        GuardLayer(Arc::new(access))
    }
}

impl<S> Layer<S> for GuardLayer {
    type Service = Guard<S>;
    fn layer(&self, inner: S) -> Guard<S> {
        Guard {
            inner,
            access: self.0.clone(),
        }
    }
}

/// See the module's documentation.
#[derive(Clone, Debug)]
pub struct Guard<S> {
    inner: S,
    access: Arc<Access>,
}

fn plain(status: StatusCode, text: &'static str) -> HttpResponse {
    let mut r = HttpResponse::new(HttpBody::from(text));
    *r.status_mut() = status;
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    r
}

fn json(status: StatusCode, body: String) -> HttpResponse {
    let mut r = HttpResponse::new(HttpBody::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    r
}

type BoxFuture = Pin<Box<dyn Future<Output = Result<HttpResponse, BoxError>> + Send>>;

impl<S> Service<HttpRequest> for Guard<S>
where
    S: Service<HttpRequest, Response = HttpResponse, Error = BoxError> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = HttpResponse;
    type Error = BoxError;
    type Future = BoxFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: HttpRequest) -> BoxFuture {
        let access = self.access.clone();
        // The clone that was made ready is the one called (tower's rule).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let host = req
                .headers()
                .get(header::HOST)
                .map(|h| h.to_str().unwrap_or("\u{0}"))
                .or_else(|| req.uri().authority().map(|a| a.as_str()));
            if host.is_some_and(|h| !access.host_allowed(h)) {
                return Ok(plain(
                    StatusCode::FORBIDDEN,
                    "Forbidden: the Host header does not name this machine (see --allow-origin)\n",
                ));
            }
            let origin = req
                .headers()
                .get(header::ORIGIN)
                .map(|o| o.to_str().unwrap_or("\u{0}").to_string());
            if let Some(o) = &origin
                && !access.origin_allowed(o)
            {
                return Ok(plain(
                    StatusCode::FORBIDDEN,
                    "Forbidden: this origin may not call the devnet (see --allow-origin)\n",
                ));
            }
            let cors = |mut r: HttpResponse| {
                if let Some(v) = origin
                    .as_deref()
                    .and_then(|o| HeaderValue::from_str(o).ok())
                {
                    r.headers_mut()
                        .insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
                    r.headers_mut()
                        .insert(header::VARY, HeaderValue::from_static("origin"));
                }
                r
            };
            if req.method() == Method::OPTIONS && origin.is_some() {
                let mut r = HttpResponse::new(HttpBody::empty());
                *r.status_mut() = StatusCode::NO_CONTENT;
                let h = r.headers_mut();
                h.insert(
                    header::ACCESS_CONTROL_ALLOW_METHODS,
                    HeaderValue::from_static("POST, GET, OPTIONS"),
                );
                h.insert(
                    header::ACCESS_CONTROL_ALLOW_HEADERS,
                    HeaderValue::from_static("content-type"),
                );
                return Ok(cors(r));
            }
            // A client's WebSocket: relayed, so that its messages get the fixes of
            // `compliance` too (the relay's own connection is served directly).
            if super::ws_proxy::is_upgrade(&req) && !access.ws.is_inner(&req) {
                return Ok(super::ws_proxy::relay(
                    req,
                    access.ws.clone(),
                    access.max_request_body as usize,
                    access.max_batch as usize,
                ));
            }
            if req.method() != Method::POST {
                return inner.call(req).await.map(cors);
            }
            let (parts, body) = req.into_parts();
            let limit = access.max_request_body as usize;
            let bytes = match http_body_util::Limited::new(body, limit).collect().await {
                Ok(c) => c.to_bytes(),
                Err(e) if e.is::<http_body_util::LengthLimitError>() => {
                    return Ok(cors(jsonrpsee::server::http::response::too_large(
                        access.max_request_body,
                    )));
                }
                Err(_) => return Ok(cors(jsonrpsee::server::http::response::malformed())),
            };
            match compliance::plan(&bytes, access.max_batch as usize) {
                Plan::Pass => {
                    let req = HttpRequest::from_parts(parts, HttpBody::from(bytes.to_vec()));
                    inner.call(req).await.map(cors)
                }
                Plan::Answer(a) => Ok(cors(json(StatusCode::OK, a))),
                Plan::Rewrite { body, rewrite } => {
                    let mut parts = parts;
                    parts.headers.remove(header::CONTENT_LENGTH);
                    let req = HttpRequest::from_parts(parts, HttpBody::from(body));
                    let resp = inner.call(req).await?;
                    let (rparts, rbody) = resp.into_parts();
                    let text = rbody.collect().await?.to_bytes();
                    let text = String::from_utf8_lossy(&text);
                    let out = match rewrite.reply(&text) {
                        Some(b) => {
                            let mut r = HttpResponse::from_parts(rparts, HttpBody::from(b));
                            r.headers_mut().remove(header::CONTENT_LENGTH);
                            r
                        }
                        None => {
                            let mut r = HttpResponse::new(HttpBody::empty());
                            *r.status_mut() = StatusCode::NO_CONTENT;
                            r
                        }
                    };
                    Ok(cors(out))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_and_origins_by_default() {
        let a = Access::new(&[], "127.0.0.1");
        for h in [
            "localhost",
            "localhost:8645",
            "127.0.0.1:1",
            "127.1.2.3",
            "[::1]:8645",
            "devnet.localhost:3",
        ] {
            assert!(a.host_allowed(h), "{h}");
        }
        for h in [
            "evil.example",
            "evil.example:8645",
            "192.168.1.2:8645",
            "[::2]:1",
        ] {
            assert!(!a.host_allowed(h), "{h}");
        }
        assert!(a.origin_allowed("http://localhost:3000"));
        assert!(a.origin_allowed("https://127.0.0.1"));
        assert!(a.origin_allowed("http://[::1]:80"));
        assert!(!a.origin_allowed("http://evil.example"));
        assert!(!a.origin_allowed("null"));
        assert!(!a.origin_allowed("http://localhost.evil.example"));
    }

    #[test]
    fn allow_origin_widens() {
        let a = Access::new(&["http://app.example:3000/".into()], "127.0.0.1");
        assert!(a.origin_allowed("http://APP.example:3000"));
        assert!(!a.origin_allowed("http://app.example:3001"));
        assert!(a.host_allowed("app.example:8645"));
        let any = Access::new(&["*".into()], "127.0.0.1");
        assert!(any.origin_allowed("http://evil.example"));
        assert!(any.host_allowed("evil.example"));
    }

    #[test]
    fn a_network_listener_takes_ip_hosts_but_not_names() {
        let a = Access::new(&[], "0.0.0.0");
        assert!(a.host_allowed("192.168.1.2:8645"));
        assert!(!a.host_allowed("rebind.example:8645"));
    }
}
