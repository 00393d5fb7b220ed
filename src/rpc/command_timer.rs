//! The actor, timer and governance change requests as JSON-RPC methods (see
//! [`super::command`]: each written once, served by one adapter).

use super::command::{Entry, RpcRequest, entry, with};
use super::methods::DEFAULT_ACTOR_SCRIPT;
use super::types::{Amount, Args, Bytes, Obj, invalid_param};
use super::wire::{
    ActivationReply, CallParams, CancelParams, DeployParams, EstimateParams, ExtendParams,
    ReceiptReply, ScheduleParams, ScheduledReply,
};
use super::wire_gov::{
    ActivationParams, GovCancelParams, GovExtendParams, GovUpdateConfigParams,
    GovUpdateSchedulerParams,
};
use crate::chain::runtime::{ActorCode, Lang};
use crate::engine::timer::handler_payload;
use crate::engine::{Address, PriorityTier, ScheduleArgs, TimerId};
use crate::node::{
    CallActor, CancelTimer, Command, ConfigChange, DeployActor, Estimate, EstimateTimer,
    ExtendTimer, GovCancel, GovExtend, GovUpdateConfig, GovUpdateSchedulerConfig, ScheduleTimer,
    SetActivationHeight,
};
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

/// The methods this file serves (through [`super::command::register`]).
pub(super) fn entries() -> Vec<Entry> {
    vec![
        entry::<DeployActor>(),
        entry::<CallActor>(),
        entry::<ScheduleTimer>(),
        entry::<EstimateTimer>(),
        entry::<CancelTimer>(),
        entry::<ExtendTimer>(),
        entry::<GovCancel>(),
        entry::<GovExtend>(),
        entry::<GovUpdateConfig>(),
        entry::<GovUpdateSchedulerConfig>(),
        entry::<SetActivationHeight>(),
    ]
}

/// The actor, timer and governance commands as JSON-RPC (see [`super::command::encode`]).
pub(super) fn encode(c: &Command) -> Result<(&'static str, Vec<Value>), String> {
    let params = match c {
        Command::DeployActor(r) => r.params(),
        Command::CallActor(r) => r.params(),
        Command::ScheduleTimer(r) => r.params(),
        Command::EstimateTimer(r) => r.params(),
        Command::CancelTimer(r) => r.params(),
        Command::ExtendTimer(r) => r.params(),
        Command::GovCancel(r) => r.params(),
        Command::GovExtend(r) => r.params(),
        Command::GovUpdateConfig(r) => r.params(),
        Command::GovUpdateSchedulerConfig(r) => r.params(),
        Command::SetActivationHeight(r) => r.params(),
        Command::Watch(r) | Command::Interval(r) => super::draft::draft_params(r),
        Command::EstimateDraft(r) => r.params(),
        _ => return Err(format!("{} is not served over JSON-RPC", c.method())),
    };
    Ok((c.method(), params))
}

/// `[{from?, script?, balance?, name?}]` (a Rhai actor); its address.
impl RpcRequest for DeployActor {
    const METHOD: &'static str = "actor_deploy";
    const PARAMS: &'static [&'static str] = &["deploy"];
    type Params = DeployParams;
    type Result = Address;
    fn params(&self) -> Vec<Value> {
        let script = (self.code.lang == Lang::Rhai).then(|| json!(self.code.source));
        vec![with(
            json!({ "balance": Amount(self.endowment) }),
            &[
                ("from", self.from.map(|f| json!(f))),
                ("script", script),
                ("name", self.name.as_ref().map(|n| json!(n))),
            ],
        )]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let mut o = a.obj(0, "deploy", true)?;
        let from: Option<Address> = o.opt("from")?;
        let script: Option<String> = o.opt("script")?;
        let balance: Option<Amount> = o.opt("balance")?;
        let name: Option<String> = o.opt("name")?;
        o.finish()?;
        let code = ActorCode::rhai(
            name.clone().unwrap_or_else(|| "actor".into()),
            script.unwrap_or_else(|| DEFAULT_ACTOR_SCRIPT.into()),
        );
        Ok(DeployActor {
            from,
            code,
            address: None,
            endowment: balance.map_or(0, |b| b.0),
            name,
        })
    }
}

/// `[{from, actor, handler, payload?}]`; the receipt (a failing handler is a receipt with
/// `status: "reverted"`, not an error).
impl RpcRequest for CallActor {
    const METHOD: &'static str = "actor_call";
    const PARAMS: &'static [&'static str] = &["call"];
    type Params = CallParams;
    type Result = ReceiptReply;
    fn params(&self) -> Vec<Value> {
        vec![json!({
            "from": self.from, "actor": self.actor, "handler": self.handler,
            "payload": format!("0x{}", hex::encode(&self.payload)),
        })]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let mut o = a.obj(0, "call", false)?;
        let from: Address = o.req("from")?;
        let actor: Address = o.req("actor")?;
        let handler: String = o.req("handler")?;
        let payload: Option<Bytes> = o.opt("payload")?;
        o.finish()?;
        Ok(CallActor {
            from,
            actor,
            handler,
            payload: payload.unwrap_or_default().0,
        })
    }
}

/// A schedule as `timer_schedule` and `timer_estimate` take it (a named handler travels in
/// the payload already).
fn schedule_json(s: &ScheduleTimer) -> Value {
    let a = &s.args;
    let amount = |v: Option<u128>| v.map(|v| json!(v.to_string()));
    with(
        json!({
            "actor": s.actor,
            "height": a.height,
            "payload": format!("0x{}", hex::encode(&a.payload)),
        }),
        &[
            ("from", s.from.map(|f| json!(f))),
            ("fee_payer", a.fee_payer.map(|f| json!(f))),
            ("gas_limit", a.gas_limit.map(|g| json!(g))),
            ("expires_at", a.expires_at.map(|e| json!(e))),
            ("max_fee_per_cycle", amount(a.max_fee_per_cycle)),
            (
                "max_priority_fee_per_cycle",
                amount(a.max_priority_fee_per_cycle),
            ),
            ("priority_tier", a.priority_tier.map(|t| json!(t.as_str()))),
            ("bid", amount(a.bid)),
            ("client_nonce", a.client_nonce.map(|n| json!(n))),
            ("label", s.label.as_ref().map(|l| json!(l))),
        ],
    )
}

pub(super) fn decode_schedule(mut o: Obj) -> Result<ScheduleTimer, ErrorObjectOwned> {
    let actor: Address = o.req("actor")?;
    let height: u64 = o.req("height")?;
    let payload: Option<Bytes> = o.opt("payload")?;
    let from: Option<Address> = o.opt("from")?;
    let fee_payer: Option<Address> = o.opt("fee_payer")?;
    let gas_limit: Option<u64> = o.opt("gas_limit")?;
    let expires_at: Option<u64> = o.opt("expires_at")?;
    let handler: Option<String> = o.opt("handler")?;
    let max_fee_per_cycle: Option<Amount> = o.opt("max_fee_per_cycle")?;
    let max_priority_fee_per_cycle: Option<Amount> = o.opt("max_priority_fee_per_cycle")?;
    let priority_tier: Option<PriorityTier> = o.opt("priority_tier")?;
    let bid: Option<Amount> = o.opt("bid")?;
    let client_nonce: Option<u64> = o.opt("client_nonce")?;
    let label = opt_label(&mut o)?;
    o.finish()?;
    let inner = payload.unwrap_or_default().0;
    // CIP-5 §4.2's handler convention: a named handler travels in the payload.
    let payload = match handler {
        Some(h) => handler_payload(&h, &inner),
        None => inner,
    };
    Ok(ScheduleTimer {
        actor,
        from,
        args: ScheduleArgs {
            height,
            payload,
            fee_payer,
            gas_limit,
            expires_at,
            max_fee_per_cycle: max_fee_per_cycle.map(|a| a.0),
            max_priority_fee_per_cycle: max_priority_fee_per_cycle.map(|a| a.0),
            priority_tier,
            bid: bid.map(|a| a.0),
            client_nonce,
        },
        label,
    })
}

/// A registration's optional `label` (Spec note 191): 1..=64 bytes of printable text, else
/// -32602 naming `label`.
pub(super) fn opt_label(o: &mut Obj) -> Result<Option<String>, ErrorObjectOwned> {
    let label: Option<String> = o.opt("label")?;
    if let Some(l) = &label {
        crate::node::check_label(l).map_err(|m| invalid_param("label", &m))?;
    }
    Ok(label)
}

/// `[timer]`; `{timer_id, created, tx_hash, receipt}`.
impl RpcRequest for ScheduleTimer {
    const METHOD: &'static str = "timer_schedule";
    const PARAMS: &'static [&'static str] = &["timer"];
    type Params = ScheduleParams;
    type Result = ScheduledReply;
    fn params(&self) -> Vec<Value> {
        vec![schedule_json(self)]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        decode_schedule(a.obj(0, "timer", false)?)
    }
}

/// `[timer]` as `timer_schedule`'s; what it would do. Changes nothing.
impl RpcRequest for EstimateTimer {
    const METHOD: &'static str = "timer_estimate";
    const PARAMS: &'static [&'static str] = &["timer"];
    type Params = EstimateParams;
    type Result = Estimate;
    fn params(&self) -> Vec<Value> {
        vec![schedule_json(&self.0)]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        ScheduleTimer::decode(a).map(EstimateTimer)
    }
}

/// `[{actor, timer_id, from?}]`; the receipt.
impl RpcRequest for CancelTimer {
    const METHOD: &'static str = "timer_cancel";
    const PARAMS: &'static [&'static str] = &["cancel"];
    type Params = CancelParams;
    type Result = ReceiptReply;
    fn params(&self) -> Vec<Value> {
        vec![with(
            json!({"actor": self.actor, "timer_id": self.timer_id}),
            &[("from", self.from.map(|f| json!(f)))],
        )]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let mut o = a.obj(0, "cancel", false)?;
        let actor = o.req("actor")?;
        let timer_id = o.req("timer_id")?;
        let from = o.opt("from")?;
        o.finish()?;
        Ok(CancelTimer {
            actor,
            timer_id,
            from,
        })
    }
}

/// `[{actor, timer_id, new_expires_at, from?}]`; the receipt.
impl RpcRequest for ExtendTimer {
    const METHOD: &'static str = "timer_extend";
    const PARAMS: &'static [&'static str] = &["extend"];
    type Params = ExtendParams;
    type Result = ReceiptReply;
    fn params(&self) -> Vec<Value> {
        vec![with(
            json!({"actor": self.actor, "timer_id": self.timer_id, "new_expires_at": self.new_expires_at}),
            &[("from", self.from.map(|f| json!(f)))],
        )]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let mut o = a.obj(0, "extend", false)?;
        let actor = o.req("actor")?;
        let timer_id = o.req("timer_id")?;
        let new_expires_at = o.req("new_expires_at")?;
        let from = o.opt("from")?;
        o.finish()?;
        Ok(ExtendTimer {
            actor,
            timer_id,
            new_expires_at,
            from,
        })
    }
}

/// `[{from, timer_id}]`: `SYS_CANCEL_TIMER`; the receipt.
impl RpcRequest for GovCancel {
    const METHOD: &'static str = "gov_cancelTimer";
    const PARAMS: &'static [&'static str] = &["cancel"];
    type Params = GovCancelParams;
    type Result = ReceiptReply;
    fn params(&self) -> Vec<Value> {
        vec![json!({"from": self.from, "timer_id": self.timer_id})]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let mut o = a.obj(0, "cancel", false)?;
        let from = o.req("from")?;
        let timer_id: TimerId = o.req("timer_id")?;
        o.finish()?;
        Ok(GovCancel { from, timer_id })
    }
}

/// `[{from, timer_id, new_expires_at}]`: `SYS_EXTEND_TIMER`; the receipt.
impl RpcRequest for GovExtend {
    const METHOD: &'static str = "gov_extendTimer";
    const PARAMS: &'static [&'static str] = &["extend"];
    type Params = GovExtendParams;
    type Result = ReceiptReply;
    fn params(&self) -> Vec<Value> {
        vec![json!({
            "from": self.from, "timer_id": self.timer_id, "new_expires_at": self.new_expires_at,
        })]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let mut o = a.obj(0, "extend", false)?;
        let from = o.req("from")?;
        let timer_id = o.req("timer_id")?;
        let new_expires_at = o.req("new_expires_at")?;
        o.finish()?;
        Ok(GovExtend {
            from,
            timer_id,
            new_expires_at,
        })
    }
}

/// `{from, config}` with `config` an object of fields (named for the error when missing).
fn decode_update(a: &Args, what: &str) -> Result<(Address, Obj), ErrorObjectOwned> {
    let mut o = a.obj(0, "update", false)?;
    let from: Address = o.req("from")?;
    let Some(cfg) = o.opt_obj("config")? else {
        return Err(invalid_param(
            "config",
            format!("missing; expected an object of {what} fields"),
        ));
    };
    o.finish()?;
    Ok((from, cfg))
}

/// `[{from, config}]`: `SYS_UPDATE_TIMER_CONFIG` with the fields given; the receipt.
impl RpcRequest for GovUpdateConfig {
    const METHOD: &'static str = "gov_updateTimerConfig";
    const PARAMS: &'static [&'static str] = &["update"];
    type Params = GovUpdateConfigParams;
    type Result = ReceiptReply;
    fn params(&self) -> Vec<Value> {
        let config = match &self.config {
            ConfigChange::Fields(f) => json!(f),
            ConfigChange::Full(c) => json!(c),
        };
        vec![json!({"from": self.from, "config": config})]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let (from, cfg) = decode_update(a, "TimerConfig")?;
        Ok(GovUpdateConfig {
            from,
            config: ConfigChange::Fields(cfg.rest()),
        })
    }
}

/// `[{from, config}]`: the scheduler's governed fields; the receipt.
impl RpcRequest for GovUpdateSchedulerConfig {
    const METHOD: &'static str = "gov_updateSchedulerConfig";
    const PARAMS: &'static [&'static str] = &["update"];
    type Params = GovUpdateSchedulerParams;
    type Result = ReceiptReply;
    fn params(&self) -> Vec<Value> {
        vec![json!({"from": self.from, "config": self.fields})]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let (from, cfg) = decode_update(a, "scheduler config")?;
        Ok(GovUpdateSchedulerConfig {
            from,
            fields: cfg.rest(),
        })
    }
}

/// `[{from, height}]`: the eip1559 activation height; `{activation_height}`.
impl RpcRequest for SetActivationHeight {
    const METHOD: &'static str = "gov_setActivationHeight";
    const PARAMS: &'static [&'static str] = &["activation"];
    type Params = ActivationParams;
    type Result = ActivationReply;
    fn params(&self) -> Vec<Value> {
        vec![json!({"from": self.from, "height": self.height})]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let mut o = a.obj(0, "activation", false)?;
        let from = o.req("from")?;
        let height = o.req("height")?;
        o.finish()?;
        Ok(SetActivationHeight { from, height })
    }
}
