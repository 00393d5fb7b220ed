//! The CIP-5 drafts' methods (issue 22): `timer_watch` (`set_state_watch`, English §6.1),
//! `timer_interval` (`set_interval`, zh §7.1) and `scheduler_draft` (the Globalbox, the last
//! Mailbox, the watches) and `timer_estimateDraft` (what a registration would do, Spec note
//! 129).

use super::methods::{node_error, receipt_json, reg, to_json};
use super::types::{Amount, Args, Bytes, Obj, invalid_param};
use crate::chain::DraftTimerArgs;
use crate::engine::Address;
use crate::engine::timer::handler_payload;
use crate::node::{DraftQuery, DraftTimer, EstimateDraftTimer, NodeHandle};
use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

/// `timer_watch`, `timer_interval`, `scheduler_draft`.
pub(super) fn register(m: &mut RpcModule<NodeHandle>) {
    for (method, interval) in [("timer_watch", false), ("timer_interval", true)] {
        reg(m, method, move |p, node| async move {
            let a = Args::new(&p, &["timer"])?;
            let req = decode(a.obj(0, "timer", false)?, interval)?;
            let s = node.request(req).await.map_err(node_error)?;
            Ok(json!({
                "timer_id": s.timer_id,
                "created": s.created,
                "tx_hash": s.tx_hash,
                "receipt": receipt_json(&s.receipt, s.sealed, &node),
            }))
        });
    }
    // What `timer_watch` / `timer_interval` would do (Spec note 129): `kind` names which.
    reg(m, "timer_estimateDraft", |p, node| async move {
        let a = Args::new(&p, &["timer"])?;
        let mut o = a.obj(0, "timer", false)?;
        let kind: String = o.req("kind")?;
        let interval = match kind.as_str() {
            "watch" => false,
            "interval" => true,
            _ => return Err(invalid_param("kind", "expected \"watch\" or \"interval\"")),
        };
        let req = decode(o, interval)?;
        let e = node
            .request(EstimateDraftTimer(req))
            .await
            .map_err(node_error)?;
        let mut v = to_json(&e);
        // The error `timer_watch` / `timer_interval` would give, as they would give it.
        if let Some(err) = &e.error {
            v["error"] = json!({
                "code": super::error::code_of(err.kind.as_str()),
                "reason": err.kind.as_str(),
                "message": err.to_string(),
            });
        }
        Ok(v)
    });
    reg(m, "scheduler_draft", |p, node| async move {
        // Issue 24: as of a sealed block, like the other reads.
        let a = Args::new(&p, &["block"])?;
        let q = crate::node::At::new(DraftQuery, a.block(0)?);
        let v = node.ask(q).await.map_err(node_error)?;
        Ok(to_json(&v))
    });
}

fn decode(mut o: Obj, interval: bool) -> Result<DraftTimer, ErrorObjectOwned> {
    let actor: Address = o.req("actor")?;
    let from: Option<Address> = o.opt("from")?;
    let keys: Option<Value> = o.opt("keys")?;
    let every: Option<u64> = o.opt("every")?;
    let first: Option<u64> = o.opt("first")?;
    let payload: Option<Bytes> = o.opt("payload")?;
    let handler: Option<String> = o.opt("handler")?;
    let fee_payer: Option<Address> = o.opt("fee_payer")?;
    let gas_limit: Option<u64> = o.opt("gas_limit")?;
    let expires_at: Option<u64> = o.opt("expires_at")?;
    let bid: Option<Amount> = o.opt("bid")?;
    let client_nonce: Option<u64> = o.opt("client_nonce")?;
    o.finish()?;
    let keys = match (interval, keys) {
        (false, Some(Value::Array(ks))) if !ks.is_empty() => ks
            .iter()
            .map(|k| k.as_str().map(String::from))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| invalid_param("keys", "expected an array of strings"))?,
        (false, _) => {
            return Err(invalid_param(
                "keys",
                "a watch names a non-empty array of storage keys or prefixes",
            ));
        }
        (true, Some(_)) => return Err(invalid_param("keys", "an interval has no keys")),
        (true, None) => Vec::new(),
    };
    if interval && every.is_none() {
        return Err(invalid_param("every", "an interval needs `every`"));
    }
    if !interval && (every.is_some() || first.is_some()) {
        return Err(invalid_param("every", "a watch has no `every` / `first`"));
    }
    let inner = payload.unwrap_or_default().0;
    let payload = match handler {
        Some(h) => handler_payload(&h, &inner),
        None => inner,
    };
    Ok(DraftTimer {
        actor,
        from,
        interval,
        args: DraftTimerArgs {
            keys,
            every,
            first,
            payload,
            fee_payer,
            gas_limit,
            expires_at,
            bid: bid.map(|b| b.0),
            client_nonce,
        },
    })
}
