//! `devnet_call` (issue 32, "Dry runs"; Spec note 174): anvil's `eth_call`. Params: `[call]`,
//! `call` as `actor_call` takes it (`{from, actor, handler, payload?}`), or `{"schedule":
//! {...}}` with what `timer_schedule` takes. The reply is the receipt the transaction would
//! get, with `dry_run: true`, its `events` and the `timers` it would schedule; nothing is kept.

use super::command_timer::decode_schedule;
use super::methods::{node_error, receipt_json, reg, to_json};
use super::types::{Args, Bytes, Obj, invalid_param};
use crate::engine::Address;
use crate::node::{CallActor, DryCall, DryRun, NodeHandle};
use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::json;

pub const METHOD: &str = "devnet_call";

fn decode_call(mut o: Obj) -> Result<DryCall, ErrorObjectOwned> {
    if let Some(s) = o.opt_obj("schedule")? {
        if let Some(k) = o.keys().first() {
            return Err(invalid_param(k, "a schedule dry run takes only `schedule`"));
        }
        return Ok(DryCall::Schedule(decode_schedule(s)?));
    }
    let from: Address = o.req("from")?;
    let actor: Address = o.req("actor")?;
    let handler: String = o.req("handler")?;
    let payload: Option<Bytes> = o.opt("payload")?;
    o.finish()?;
    Ok(DryCall::Call(CallActor {
        from,
        actor,
        handler,
        payload: payload.unwrap_or_default().0,
    }))
}

/// Registers `devnet_call`.
pub(super) fn register(m: &mut RpcModule<NodeHandle>) {
    reg(m, METHOD, |p, node| async move {
        let a = Args::new(&p, &["call"])?;
        let call = decode_call(a.obj(0, "call", false)?)?;
        let out = node.ask(DryRun(call)).await.map_err(node_error)?;
        let mut v = receipt_json(&out.receipt, None, &node);
        v["height"] = json!(out.height);
        v["dry_run"] = json!(true);
        v["events"] = to_json(&out.events);
        if let Some(id) = out.receipt.timers.first() {
            v["timer_id"] = json!(id);
        }
        Ok(v)
    });
}
