//! `devnet_call` (issue 32, "Dry runs"; Spec note 174): anvil's `eth_call`. Params: `[call]`,
//! `call` as `actor_call` takes it (`{from, actor, handler, payload?}`), or `{"schedule":
//! {...}}` with what `timer_schedule` takes, or `{"watch": {...}}` / `{"interval": {...}}`
//! with what `timer_watch` / `timer_interval` take (Spec note 181). The reply is the receipt the transaction would
//! get, with `dry_run: true`, its `events` and the `timers` it would schedule; nothing is kept.
//! Issue 32 (Spec note 175): `[call, options?, block?]`: `{"trace": true}` adds the handler
//! run's `trace` (`"compact": true` as the trace methods take it), and a block tag runs the
//! call against the state as of that sealed block (a past height: its open block is #h+1).
//! Spec note 182: `diff`, what it would change (storage keys, balances, timers). Spec note
//! 192: a registration's `{timer_id, created}` under `registration`, never in the receipt's
//! place.

use super::command_timer::decode_schedule;
use super::error::node_error;
use super::json::{receipt_json, to_json};
use super::register::reg;
use super::types::{Args, Bytes, Obj, invalid_param};
use crate::engine::Address;
use crate::node::{At, CallActor, DryCall, DryRun, NodeHandle};
use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::json;

pub const METHOD: &str = "devnet_call";

/// A registration's dry run: `{"schedule": {...}}`, `{"watch": {...}}` or `{"interval":
/// {...}}`, decoded by the real method's decoder; `None` for a call.
fn decode_registration(o: &mut Obj) -> Result<Option<DryCall>, ErrorObjectOwned> {
    let mut found = None;
    for name in ["schedule", "watch", "interval"] {
        if let Some(inner) = o.opt_obj(name)? {
            if found.is_some() {
                return Err(invalid_param(name, "a dry run runs one registration"));
            }
            found = Some(match name {
                "schedule" => DryCall::Schedule(decode_schedule(inner)?),
                _ => DryCall::Draft(super::draft::decode(inner, name == "interval")?),
            });
        }
    }
    if found.is_some()
        && let Some(k) = o.keys().first()
    {
        return Err(invalid_param(k, "a registration's dry run takes only it"));
    }
    Ok(found)
}

fn decode_call(mut o: Obj) -> Result<DryCall, ErrorObjectOwned> {
    if let Some(r) = decode_registration(&mut o)? {
        return Ok(r);
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

/// `{"trace"?: bool, "compact"?: bool}`: whether to trace, and in which form.
fn decode_options(mut o: Obj) -> Result<(bool, bool), ErrorObjectOwned> {
    let trace: Option<bool> = o.opt("trace")?;
    let compact: Option<bool> = o.opt("compact")?;
    o.finish()?;
    Ok((trace.unwrap_or(false), compact.unwrap_or(false)))
}

/// The param names of `devnet_call`.
pub const PARAMS: [&str; 3] = ["call", "options", "block"];

/// Registers `devnet_call`.
pub(super) fn register(m: &mut RpcModule<NodeHandle>) {
    reg(m, METHOD, |p, node| async move {
        let a = Args::new(&p, &PARAMS)?;
        let call = decode_call(a.obj(0, "call", false)?)?;
        let (trace, compact) = decode_options(a.obj(1, "options", true)?)?;
        let at = a.block(2)?;
        let q = At::new(DryRun { call, trace }, at);
        let out = node.ask(q).await.map_err(node_error)?;
        let mut v = receipt_json(&out.receipt, None, &node);
        v["height"] = json!(out.height);
        v["dry_run"] = json!(true);
        v["events"] = to_json(&out.events);
        v["diff"] = to_json(&out.diff);
        if let Some(t) = out.trace {
            v["trace"] = super::traces::written(&t, compact);
        }
        if let Some(r) = out.registration {
            v["registration"] = to_json(&r);
        }
        Ok(v)
    });
}
