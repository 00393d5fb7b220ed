//! The CIP-5 drafts' methods (issue 22): `timer_watch` (`set_state_watch`, English §6.1),
//! `timer_interval` (`set_interval`, zh §7.1) and `scheduler_draft` (the Globalbox, the last
//! Mailbox, the watches) and `timer_estimateDraft` (what a registration would do, Spec note
//! 129).

use super::command::RpcRequest;
use super::register::reg;
use super::schema::{MethodSchema, method};
use super::types::{Amount, Args, Bytes, Obj, invalid_param};
use crate::chain::DraftTimerArgs;
use crate::engine::Address;
use crate::engine::timer::handler_payload;
use crate::node::{Command, DraftEstimate, DraftTimer, EstimateDraftTimer, NodeHandle};
use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use schemars::SchemaGenerator;
use serde_json::{Value, json};

/// `timer_watch`, `timer_interval` (`scheduler_draft` is a served read, [`super::served`]).
pub(super) fn register(m: &mut RpcModule<NodeHandle>) {
    // One request type, two methods: `interval` says which (and so which fields it takes).
    for (method, interval) in [("timer_watch", false), ("timer_interval", true)] {
        reg(m, method, move |p, node| async move {
            let a = Args::new(&p, &["timer"])?;
            let req = decode(a.obj(0, "timer", false)?, interval)?;
            super::command::execute(&node, Command::from(req)).await
        });
    }
}

/// `timer_watch` and `timer_interval` in `rpc.discover`, from their types (registered by
/// hand above: one request type, two methods).
pub(super) fn schemas(g: &mut SchemaGenerator) -> Vec<MethodSchema> {
    use super::wire::ScheduledReply;
    use super::wire_gov::{IntervalParams, WatchParams};
    vec![
        method::<WatchParams, ScheduledReply>(g, "timer_watch", &["timer"]),
        method::<IntervalParams, ScheduledReply>(g, "timer_interval", &["timer"]),
    ]
}

pub(super) fn decode(mut o: Obj, interval: bool) -> Result<DraftTimer, ErrorObjectOwned> {
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
    let label = super::command_timer::opt_label(&mut o)?;
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
        label,
    })
}

/// The method a draft registration is sent as.
pub fn draft_method(r: &DraftTimer) -> &'static str {
    if r.interval {
        "timer_interval"
    } else {
        "timer_watch"
    }
}

/// `timer_watch` / `timer_interval`'s params for a draft timer (issue 22): every field the
/// methods take, so a client sends the whole registration.
pub fn draft_params(r: &DraftTimer) -> Vec<Value> {
    let a = &r.args;
    let mut o = json!({"actor": r.actor, "payload": format!("0x{}", hex::encode(&a.payload))});
    let m = o.as_object_mut().expect("an object");
    if r.interval {
        m.insert("every".into(), json!(a.every));
        if let Some(f) = a.first {
            m.insert("first".into(), json!(f));
        }
    } else {
        m.insert("keys".into(), json!(a.keys));
    }
    let fields = [
        ("gas_limit", a.gas_limit.map(|g| json!(g))),
        ("bid", a.bid.map(|b| json!(b.to_string()))),
        ("client_nonce", a.client_nonce.map(|n| json!(n))),
        ("from", r.from.map(|f| json!(f))),
        ("fee_payer", a.fee_payer.map(|f| json!(f))),
        ("expires_at", a.expires_at.map(|e| json!(e))),
        ("label", r.label.as_ref().map(|l| json!(l))),
    ];
    for (k, v) in fields {
        if let Some(v) = v {
            m.insert(k.into(), v);
        }
    }
    vec![o]
}

/// `[{kind, ...}]`: what `timer_watch` (kind `watch`) or `timer_interval` (kind `interval`)
/// would do (Spec note 129), its error written as they would answer it. Changes nothing.
impl RpcRequest for EstimateDraftTimer {
    const METHOD: &'static str = "timer_estimateDraft";
    const PARAMS: &'static [&'static str] = &["timer"];
    type Params = super::wire_gov::EstimateDraftParams;
    type Result = DraftEstimate;
    fn params(&self) -> Vec<Value> {
        let mut v = draft_params(&self.0);
        v[0]["kind"] = json!(if self.0.interval { "interval" } else { "watch" });
        v
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let mut o = a.obj(0, "timer", false)?;
        let kind: String = o.req("kind")?;
        let interval = match kind.as_str() {
            "watch" => false,
            "interval" => true,
            _ => return Err(invalid_param("kind", "expected \"watch\" or \"interval\"")),
        };
        decode(o, interval).map(EstimateDraftTimer)
    }
}
