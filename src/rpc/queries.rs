//! The node's read requests ([`crate::node::query`]) and change requests
//! ([`crate::node::requests`]) as JSON-RPC calls: the method each one is and its params. The
//! server answers a read with the query's reply serialised; a client
//! ([`crate::tui::remote`]) sends [`RpcQuery::params`] and decodes the same reply type, and
//! sends a change as [`RpcRequest::params`], which the method decodes back into the request.

use crate::node::{
    AccountsQuery, ActorsQuery, BucketQuery, BucketsQuery, CancelTimer, ConfigChange, ConfigQuery,
    DraftQuery, EstimateDraftTimer, EstimateTimer, EventsQuery, ExtendTimer, FairnessQuery,
    GovCancel, GovExtend, GovUpdateConfig, GovUpdateSchedulerConfig, HeadQuery, LaneQuery, Mine,
    NamesQuery, Query, Request, Revert, ScheduleTimer, SetActivationHeight, SetMining, SharesQuery,
    Snapshot, SnapshotsQuery, TiersQuery, TimerQuery, TimersQuery,
};
use serde_json::{Value, json};

/// A read request as a JSON-RPC call.
pub trait RpcQuery: Query {
    const METHOD: &'static str;
    /// The positional params.
    fn params(&self) -> Vec<Value>;
}

macro_rules! no_params {
    ($($q:ty => $m:literal),* $(,)?) => {
        $(impl RpcQuery for $q {
            const METHOD: &'static str = $m;
            fn params(&self) -> Vec<Value> {
                Vec::new()
            }
        })*
    };
}

no_params!(
    HeadQuery => "devnet_head",
    DraftQuery => "scheduler_draft",
    ConfigQuery => "scheduler_config",
    TiersQuery => "scheduler_tiers",
    FairnessQuery => "scheduler_fairness",
    AccountsQuery => "devnet_accounts",
    NamesQuery => "devnet_names",
    ActorsQuery => "actor_list",
    SnapshotsQuery => "devnet_snapshots",
);

impl RpcQuery for BucketsQuery {
    const METHOD: &'static str = "scheduler_buckets";
    fn params(&self) -> Vec<Value> {
        vec![json!(self.count)]
    }
}

impl RpcQuery for BucketQuery {
    const METHOD: &'static str = "timer_bucket";
    fn params(&self) -> Vec<Value> {
        vec![json!(self.height)]
    }
}

impl RpcQuery for TimerQuery {
    const METHOD: &'static str = "timer_get";
    fn params(&self) -> Vec<Value> {
        vec![json!(self.id)]
    }
}

impl RpcQuery for TimersQuery {
    const METHOD: &'static str = "timer_list";
    fn params(&self) -> Vec<Value> {
        vec![json!(self.0)]
    }
}

impl RpcQuery for EventsQuery {
    const METHOD: &'static str = "devnet_getEvents";
    fn params(&self) -> Vec<Value> {
        vec![json!(self.0)]
    }
}

impl RpcQuery for LaneQuery {
    const METHOD: &'static str = "scheduler_lane";
    fn params(&self) -> Vec<Value> {
        vec![json!({ "last": self.last })]
    }
}

impl RpcQuery for SharesQuery {
    const METHOD: &'static str = "scheduler_actors";
    fn params(&self) -> Vec<Value> {
        vec![json!({ "window": self.window })]
    }
}

/// A read as of a sealed block (issue 24): the same method, with the block tag as its last
/// param (none for the head, so the call is the plain one).
impl<Q: RpcQuery> RpcQuery for crate::node::At<Q> {
    const METHOD: &'static str = Q::METHOD;
    fn params(&self) -> Vec<Value> {
        let mut p = self.query.params();
        if let Some(h) = self.at {
            p.push(json!(h));
        }
        p
    }
}

/// A change request as a JSON-RPC call: the params its method decodes back into the same
/// request (`rpc::methods`), so a client sends the node's own requests.
pub trait RpcRequest: Request {
    const METHOD: &'static str;
    /// The positional params.
    fn params(&self) -> Vec<Value>;
}

/// Puts the fields that are set into `o`.
fn with(mut o: Value, fields: &[(&str, Option<Value>)]) -> Value {
    for (k, v) in fields {
        if let Some(v) = v {
            o[*k] = v.clone();
        }
    }
    o
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
        ],
    )
}

/// `timer_watch` / `timer_interval`'s params for a draft timer (issue 22).
pub fn draft_params(r: &crate::node::DraftTimer) -> Vec<Value> {
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
    if let Some(g) = a.gas_limit {
        m.insert("gas_limit".into(), json!(g));
    }
    if let Some(b) = a.bid {
        m.insert("bid".into(), json!(b.to_string()));
    }
    if let Some(n) = a.client_nonce {
        m.insert("client_nonce".into(), json!(n));
    }
    if let Some(f) = r.from {
        m.insert("from".into(), json!(f));
    }
    vec![o]
}

macro_rules! request {
    ($($r:ty => $m:literal, |$s:ident| $params:expr;)*) => {
        $(impl RpcRequest for $r {
            const METHOD: &'static str = $m;
            fn params(&self) -> Vec<Value> {
                let $s = self;
                $params
            }
        })*
    };
}

request! {
    Mine => "devnet_mine", |r| vec![json!(r.blocks)];
    SetMining => "devnet_setMining", |r| vec![super::methods::mining_json(r.0)];
    ScheduleTimer => "timer_schedule", |r| vec![schedule_json(r)];
    EstimateTimer => "timer_estimate", |r| vec![schedule_json(&r.0)];
    EstimateDraftTimer => "timer_estimateDraft", |r| {
        let mut v = draft_params(&r.0);
        v[0]["kind"] = json!(if r.0.interval { "interval" } else { "watch" });
        v
    };
    CancelTimer => "timer_cancel", |r| vec![with(
        json!({"actor": r.actor, "timer_id": r.timer_id}),
        &[("from", r.from.map(|f| json!(f)))],
    )];
    ExtendTimer => "timer_extend", |r| vec![with(
        json!({"actor": r.actor, "timer_id": r.timer_id, "new_expires_at": r.new_expires_at}),
        &[("from", r.from.map(|f| json!(f)))],
    )];
    GovCancel => "gov_cancelTimer", |r| vec![json!({"from": r.from, "timer_id": r.timer_id})];
    GovExtend => "gov_extendTimer", |r| vec![json!({
        "from": r.from, "timer_id": r.timer_id, "new_expires_at": r.new_expires_at,
    })];
    GovUpdateConfig => "gov_updateTimerConfig", |r| vec![json!({
        "from": r.from,
        "config": match &r.config {
            ConfigChange::Fields(f) => json!(f),
            ConfigChange::Full(c) => json!(c),
        },
    })];
    GovUpdateSchedulerConfig => "gov_updateSchedulerConfig", |r| vec![json!({
        "from": r.from, "config": r.fields,
    })];
    SetActivationHeight => "gov_setActivationHeight", |r| vec![json!({
        "from": r.from, "height": r.height,
    })];
    Snapshot => "devnet_snapshot", |_r| Vec::new();
    Revert => "devnet_revert", |r| vec![json!(r.id)];
}
