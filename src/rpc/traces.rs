//! Execution traces over JSON-RPC (issue 32, "Traces"): `devnet_traceTransaction`,
//! `devnet_traceFire` and `devnet_traceBlock`, each in a full form (every host call with its
//! arguments and answer, storage writes with the value replaced, printed lines, the end) or a
//! compact one (`{"compact": true}`: host calls with their cycles only).

use super::error::node_error;
use super::json::to_json;
use super::register::reg;
use super::types::{Args, Obj};
use crate::chain::trace::Trace;
use crate::engine::{H256, TimerId};
use crate::node::{BlockTraces, NodeHandle, TraceQuery};
use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::Value;
use serde_json::value::RawValue;

/// The method names, in the order they are registered.
pub const METHODS: [&str; 3] = [
    "devnet_traceTransaction",
    "devnet_traceFire",
    "devnet_traceBlock",
];

/// `{"compact": bool}`, optional.
fn compact(o: Option<Obj>) -> Result<bool, ErrorObjectOwned> {
    let Some(mut o) = o else {
        return Ok(false);
    };
    let c: Option<bool> = o.opt("compact")?;
    o.finish()?;
    Ok(c.unwrap_or(false))
}

fn opts(a: &Args, i: usize) -> Result<bool, ErrorObjectOwned> {
    compact(Some(a.obj(i, "options", true)?))
}

/// Traces in their full form or the compact one, as a JSON value (a dry run's `trace`).
pub(super) fn written(traces: &[Trace], compact: bool) -> Value {
    match compact {
        true => Value::Array(traces.iter().map(Trace::compact).collect()),
        false => to_json(&traces),
    }
}

/// A trace method's answer: its JSON text, written once from the traces (no copy of them and
/// no JSON tree in between: a busy block's traces are hundreds of KB, 528 KB for 1,000 calls).
fn raw(traces: &[Trace], compact: bool) -> Box<RawValue> {
    let r = match compact {
        true => serde_json::value::to_raw_value(&written(traces, true)),
        false => serde_json::value::to_raw_value(traces),
    };
    r.expect("traces serialize to JSON")
}

async fn answer(
    node: &NodeHandle,
    q: TraceQuery,
    compact: bool,
) -> Result<Box<RawValue>, ErrorObjectOwned> {
    let t = node.ask(q).await.map_err(node_error)?;
    Ok(raw(&t, compact))
}

/// A fire's trace as the attached dashboard asks it (`devnet_traceFire`, full form).
impl super::queries::RpcQuery for crate::node::FireTrace {
    const METHOD: &'static str = METHODS[1];
    fn params(&self) -> Vec<Value> {
        vec![
            serde_json::json!(self.timer_id),
            serde_json::json!(self.height),
        ]
    }
}

/// Registers the methods of this file.
pub(super) fn register(m: &mut RpcModule<NodeHandle>) {
    reg(m, METHODS[0], |p, node| async move {
        let a = Args::new(&p, &["hash", "options"])?;
        let hash: H256 = a.req(0, "hash")?;
        answer(&node, TraceQuery::Tx(hash), opts(&a, 1)?).await
    });
    reg(m, METHODS[1], |p, node| async move {
        let a = Args::new(&p, &["timer_id", "height", "options"])?;
        let timer_id: TimerId = a.req(0, "timer_id")?;
        let height: Option<u64> = a.opt(1, "height")?;
        let q = TraceQuery::Fire { timer_id, height };
        answer(&node, q, opts(&a, 2)?).await
    });
    reg(m, METHODS[2], |p, node| async move {
        let a = Args::new(&p, &["height", "options"])?;
        let height: u64 = a.req(0, "height")?;
        let compact = opts(&a, 1)?;
        // The block's traces as the node holds them (kept or rebuilt): shared, not copied.
        let t = node.ask(BlockTraces(height)).await.map_err(node_error)?;
        Ok(raw(&t, compact))
    });
}
