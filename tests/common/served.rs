//! A devnet served over JSON-RPC for the API's tests: a node on its own thread and the server
//! on a free port, both stopped when the value is dropped.

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::node::{NodeHandle, spawn};
use cowboy_devnet::rpc::methods::module;
use cowboy_devnet::rpc::server::{self, Running, ServerOptions};
use std::net::SocketAddr;

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
