//! Registering one async method on the API's module.

use crate::node::NodeHandle;
use jsonrpsee::RpcModule;
use jsonrpsee::types::{ErrorObjectOwned, Params};
use serde_json::Value;
use serde_json::value::RawValue;
use std::future::Future;
use std::sync::Arc;

/// What a method answers: its JSON result or a JSON-RPC error.
pub(crate) type RpcResult = Result<Value, ErrorObjectOwned>;

/// Registers `f` as `name`.
pub(crate) fn reg<F, Fut>(m: &mut RpcModule<NodeHandle>, name: &'static str, f: F)
where
    F: Fn(Params<'static>, Arc<NodeHandle>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = RpcResult> + Send + 'static,
{
    m.register_async_method(name, move |p, node, _| f(p, node))
        .expect("method names are unique");
}

/// Registers `f` as `name`, a method whose answer is JSON text written once (no JSON tree in
/// between): for large answers (a busy block's traces).
pub(crate) fn reg_raw<F, Fut>(m: &mut RpcModule<NodeHandle>, name: &'static str, f: F)
where
    F: Fn(Params<'static>, Arc<NodeHandle>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Box<RawValue>, ErrorObjectOwned>> + Send + 'static,
{
    m.register_async_method(name, move |p, node, _| f(p, node))
        .expect("method names are unique");
}
