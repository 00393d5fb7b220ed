//! Registering one async method on the API's module.

use crate::node::NodeHandle;
use jsonrpsee::RpcModule;
use jsonrpsee::types::{ErrorObjectOwned, Params};
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;

/// What a method answers: its JSON result or a JSON-RPC error.
pub(crate) type RpcResult = Result<Value, ErrorObjectOwned>;

/// Registers `f` as `name`. Most methods answer a JSON value ([`RpcResult`]); a large answer
/// may be JSON text written once (`Box<RawValue>`: a busy block's traces, no JSON tree in
/// between).
pub(crate) fn reg<F, Fut, T>(m: &mut RpcModule<NodeHandle>, name: &'static str, f: F)
where
    F: Fn(Params<'static>, Arc<NodeHandle>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<T, ErrorObjectOwned>> + Send + 'static,
    T: serde::Serialize + Clone + 'static,
{
    m.register_async_method(name, move |p, node, _| f(p, node))
        .expect("method names are unique");
}
