//! The server: HTTP and WebSocket on one port (jsonrpsee serves both on each connection), with
//! limits so that a client sending garbage, huge bodies or floods of subscriptions does not
//! hurt other clients or the node.

pub use super::guard::is_loopback;
use super::guard::{Access, GuardLayer};
use super::unsubscribe::CheckUnsubscribe;
use jsonrpsee::server::middleware::rpc::RpcServiceBuilder;
use jsonrpsee::server::{BatchRequestConfig, Server, ServerConfig, ServerHandle};
use jsonrpsee::{Methods, RpcModule};
use std::net::SocketAddr;

/// Limits and the address to bind.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    pub host: String,
    /// 0 takes a free port (the real one is in [`Running::addr`]).
    pub port: u16,
    /// Largest request body, in bytes (a `devnet_loadState` of a big chain is the largest
    /// legitimate request).
    pub max_request_body: u32,
    /// Largest response body, in bytes (`devnet_dumpState`).
    pub max_response_body: u32,
    /// Largest batch, in calls.
    pub max_batch: u32,
    pub max_connections: u32,
    /// Subscriptions one WebSocket connection may hold at once.
    pub max_subscriptions_per_connection: u32,
    /// `--allow-origin`: origins (and their hosts) accepted beside loopback; `*` for any
    /// ([`super::guard`]).
    pub allow_origin: Vec<String>,
    /// `--allow-remote-writes`: serve state-changing and file-writing calls on a non-loopback
    /// bind too (issue 30, Spec note 140); without it such a server answers only reads.
    pub allow_remote_writes: bool,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            host: "127.0.0.1".into(),
            port: 8645,
            max_request_body: 64 * 1024 * 1024,
            max_response_body: 256 * 1024 * 1024,
            max_batch: 100,
            max_connections: 256,
            max_subscriptions_per_connection: 64,
            allow_origin: Vec::new(),
            allow_remote_writes: false,
        }
    }
}

/// A started server.
pub struct Running {
    pub addr: SocketAddr,
    pub handle: ServerHandle,
}

/// Binds and starts serving `methods`.
pub async fn start<C: Send + Sync + 'static>(
    module: RpcModule<C>,
    opts: &ServerOptions,
) -> std::io::Result<Running> {
    let cfg = ServerConfig::builder()
        .max_request_body_size(opts.max_request_body)
        .max_response_body_size(opts.max_response_body)
        .max_connections(opts.max_connections)
        .max_subscriptions_per_connection(opts.max_subscriptions_per_connection)
        .set_batch_request_config(BatchRequestConfig::Limit(opts.max_batch))
        .build();
    let host = opts.host.trim_start_matches('[').trim_end_matches(']');
    let ws = super::ws_proxy::Inner::new();
    let access = Access {
        max_request_body: opts.max_request_body,
        max_batch: opts.max_batch,
        ws: ws.clone(),
        ..Access::new(&opts.allow_origin, host)
    };
    let max_response_body = opts.max_response_body as usize;
    let reads_only = !is_loopback(host) && !opts.allow_remote_writes;
    let server = Server::builder()
        .set_config(cfg)
        .set_http_middleware(tower::ServiceBuilder::new().layer(GuardLayer::new(access)))
        .set_rpc_middleware(
            RpcServiceBuilder::new().layer_fn(move |inner| CheckUnsubscribe {
                inner,
                max_response_body,
                reads_only,
            }),
        )
        .build((host, opts.port))
        .await?;
    let addr = server.local_addr()?;
    ws.set(addr);
    let methods: Methods = module.into();
    let handle = server.start(methods);
    Ok(Running { addr, handle })
}
