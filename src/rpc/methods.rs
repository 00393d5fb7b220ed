//! Every method of the API: decode the params, make one node request, encode the reply.

use super::error;
use super::openrpc;
use super::queries::{RpcQuery, RpcRequest};
use super::types::{Amount, Args, BlockTimeMs, Bytes, Obj, invalid_param};
use crate::chain::Receipt;
use crate::chain::runtime::ActorCode;
use crate::engine::timer::handler_payload;
use crate::engine::{Address, PriorityTier, ScheduleArgs, TimerId};
use crate::node::{
    AccountsQuery, ActorsQuery, At, BucketQuery, CallActor, CancelTimer, ConfigChange, ConfigQuery,
    DeleteSnapshot, DeployActor, DumpState, EstimateTimer, ExtendTimer, GovCancel, GovExtend,
    GovUpdateConfig, GovUpdateSchedulerConfig, Halt, LoadState, Mine, MiningMode, NamesQuery,
    NodeError, NodeEvent, NodeHandle, Reset, Revert, RevertTo, ScheduleTimer, SetBalance,
    SetMining, Snapshot, SnapshotsQuery, TiersQuery, TimerQuery, TxOutcome,
};
use jsonrpsee::core::SubscriptionResult;
use jsonrpsee::types::{ErrorObjectOwned, Params};
use jsonrpsee::{PendingSubscriptionSink, RpcModule, SubscriptionMessage};
use serde::Serialize;
use serde_json::{Value, json};
use std::future::Future;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;

type RpcResult = Result<Value, ErrorObjectOwned>;

/// The script `actor_deploy` deploys when none is given: an actor that takes timers and says
/// when each fires (so a script can schedule on it at once).
pub const DEFAULT_ACTOR_SCRIPT: &str = r#"
fn handle_timer(payload) {
    emit("fired", `at height ${block_height()}`);
}
"#;

/// A node rejection as a JSON-RPC error (its code, `data.reason`).
///
/// `HistoryPruned` also carries `data.first_kept` and `data.keep` (Spec note 73), so a client
/// can ask again from the oldest kept height without reading the message.
pub fn node_error(e: NodeError) -> ErrorObjectOwned {
    let mut extra = serde_json::Map::new();
    if let NodeError::HistoryPruned { first_kept, keep } = &e {
        extra.insert("first_kept".into(), json!(first_kept));
        extra.insert("keep".into(), json!(keep));
    }
    error::domain_with(e.kind().as_str(), e.to_string(), extra)
}

fn export_refused(e: super::files::ExportRefused) -> ErrorObjectOwned {
    error::domain("ExportRefused", e.to_string())
}

pub(super) fn to_json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("node views serialize to JSON")
}

/// A receipt as the API shows it: every field, `status` (`success` | `reverted`) and the
/// height of its block (`sealed: false` while the block is open under manual or interval
/// mining).
pub(super) fn receipt_json(receipt: &Receipt, sealed: Option<u64>, head: &NodeHandle) -> Value {
    let mut v = to_json(receipt);
    let o = v.as_object_mut().expect("a receipt is an object");
    o.insert(
        "status".into(),
        json!(if receipt.success {
            "success"
        } else {
            "reverted"
        }),
    );
    o.insert(
        "height".into(),
        json!(sealed.unwrap_or_else(|| head.head().pending_height)),
    );
    o.insert("sealed".into(), json!(sealed.is_some()));
    o.entry("error").or_insert(Value::Null);
    o.entry("timers").or_insert(json!([]));
    v
}

fn outcome_json(out: &TxOutcome, node: &NodeHandle) -> Value {
    receipt_json(&out.receipt, out.sealed, node)
}

/// The mining mode as the API writes it: `{"mode": "interval", "block_time": 1.5}`.
pub fn mining_json(m: MiningMode) -> Value {
    match m {
        MiningMode::Auto => json!({"mode": "auto"}),
        MiningMode::Manual => json!({"mode": "manual"}),
        // Display only: seconds from the node's integer milliseconds.
        MiningMode::Interval { block_time_ms } => {
            json!({"mode": "interval", "block_time": block_time_ms as f64 / 1000.0})
        }
    }
}

fn decode_mining(mut o: Obj) -> Result<MiningMode, ErrorObjectOwned> {
    let mode: String = o.req("mode")?;
    let bt: Option<BlockTimeMs> = o.opt("block_time")?;
    o.finish()?;
    match (mode.as_str(), bt) {
        ("auto", None) => Ok(MiningMode::Auto),
        ("manual", None) => Ok(MiningMode::Manual),
        ("interval", Some(BlockTimeMs(ms))) => Ok(MiningMode::Interval { block_time_ms: ms }),
        ("interval", None) => Err(invalid_param(
            "block_time",
            "missing; interval mining needs a block time in seconds",
        )),
        ("auto" | "manual", Some(_)) => Err(invalid_param(
            "block_time",
            format!("only interval mining takes a block time, not {mode}"),
        )),
        _ => Err(invalid_param(
            "mode",
            format!("expected \"auto\", \"manual\" or \"interval\", got \"{mode}\""),
        )),
    }
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
    })
}

/// Registers `f` as `name`.
pub(super) fn reg<F, Fut>(m: &mut RpcModule<NodeHandle>, name: &'static str, f: F)
where
    F: Fn(Params<'static>, Arc<NodeHandle>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = RpcResult> + Send + 'static,
{
    m.register_async_method(name, move |p, node, _| f(p, node))
        .expect("method names are unique");
}

/// What the API may do beside the node (issue 30): where it writes files, and the state
/// saves' outcome it reports in `devnet_head`.
#[derive(Clone, Debug, Default)]
pub struct ApiOptions {
    /// Where `devnet_exportFixture` writes (none: it writes nothing, Spec note 139).
    pub export_dir: super::files::ExportDir,
    /// The `--state` saves (`serve` sets it; `None` without `--state`).
    pub saves: Option<Arc<super::state_file::SaveStatus>>,
}

/// The whole API on `node`, writing no files.
pub fn module(node: NodeHandle) -> RpcModule<NodeHandle> {
    module_with(node, ApiOptions::default())
}

/// The whole API on `node`, with `opts`.
pub fn module_with(node: NodeHandle, opts: ApiOptions) -> RpcModule<NodeHandle> {
    let opts = Arc::new(opts);
    let mut m = RpcModule::new(node);
    m.register_method("rpc.discover", |p, _, _| -> RpcResult {
        Args::new(&p, &[])?;
        Ok(openrpc::document())
    })
    .expect("unique");

    // ---- chain and mining ---------------------------------------------------------------
    m.register_method("devnet_blockNumber", |p, node, _| -> RpcResult {
        Args::new(&p, &[])?;
        Ok(json!(node.head().height))
    })
    .expect("unique");
    reg(&mut m, Mine::METHOD, |p, node| async move {
        let a = Args::new(&p, &["n"])?;
        let blocks = a.opt::<u64>(0, "n")?.unwrap_or(1);
        let mined = node.request(Mine { blocks }).await.map_err(node_error)?;
        Ok(json!(mined.last))
    });
    reg(&mut m, SetMining::METHOD, |p, node| async move {
        let a = Args::new(&p, &["mode"])?;
        let mode = decode_mining(a.obj(0, "mode", false)?)?;
        node.request(SetMining(mode)).await.map_err(node_error)?;
        Ok(mining_json(mode))
    });
    // The published head (never waits behind a seal): what a status bar reads in one call.
    // Its reply is `HeadQuery`'s, read from the published head.
    // With a block tag (issue 24), the head as of that sealed block (read on the node).
    // With `--state`, `state_save`: the last save's height and time, the last error.
    let o = opts.clone();
    reg(&mut m, crate::node::HeadQuery::METHOD, move |p, node| {
        let saves = o.saves.clone();
        async move {
            let a = Args::new(&p, &["block"])?;
            match a.block(0)? {
                None => {
                    let mut v = to_json(&node.head());
                    if let Some(s) = saves {
                        v["state_save"] = s.to_json();
                    }
                    Ok(v)
                }
                at => {
                    let h = node.ask(At::new(crate::node::HeadQuery, at)).await;
                    Ok(to_json(&h.map_err(node_error)?))
                }
            }
        }
    });
    m.register_method("devnet_getMining", |p, node, _| -> RpcResult {
        Args::new(&p, &[])?;
        Ok(mining_json(node.head().mining))
    })
    .expect("unique");
    reg(&mut m, "devnet_getBlock", |p, node| async move {
        let a = Args::new(&p, &["height"])?;
        let h: u64 = a.req(0, "height")?;
        let b = node
            .query(move |c| c.block_kept(h))
            .await
            .map_err(node_error)?
            .map_err(node_error)?;
        Ok(b.map_or(Value::Null, |b| to_json(&*b)))
    });
    reg(&mut m, AccountsQuery::METHOD, |p, node| async move {
        let a = Args::new(&p, &["block"])?;
        let q = At::new(AccountsQuery, a.block(0)?);
        let acc = node.ask(q).await.map_err(node_error)?;
        Ok(to_json(&acc))
    });
    reg(&mut m, NamesQuery::METHOD, |p, node| async move {
        let a = Args::new(&p, &["block"])?;
        let names = node
            .ask(At::new(NamesQuery, a.block(0)?))
            .await
            .map_err(node_error)?;
        Ok(to_json(&names))
    });
    reg(&mut m, SnapshotsQuery::METHOD, |p, node| async move {
        Args::new(&p, &[])?;
        let snaps = node.ask(SnapshotsQuery).await.map_err(node_error)?;
        Ok(to_json(&snaps))
    });
    reg(&mut m, "devnet_getBalance", |p, node| async move {
        let a = Args::new(&p, &["address", "block"])?;
        let who: Address = a.req(0, "address")?;
        let at = a.block(1)?;
        let b = node
            .query(move |c| match at {
                None => Ok(c.balance(&who)),
                Some(h) => c.with_at(h, |p| p.balance(&who)),
            })
            .await
            .map_err(node_error)?
            .map_err(node_error)?;
        Ok(to_json(&Amount(b)))
    });
    reg(&mut m, "devnet_setBalance", |p, node| async move {
        let a = Args::new(&p, &["address", "amount"])?;
        let address: Address = a.req(0, "address")?;
        let Amount(balance) = a.req(1, "amount")?;
        node.request(SetBalance { address, balance })
            .await
            .map_err(node_error)?;
        Ok(Value::Null)
    });
    reg(&mut m, "devnet_supply", |p, node| async move {
        Args::new(&p, &[])?;
        let s = node.query(|c| c.supply()).await.map_err(node_error)?;
        Ok(to_json(&s))
    });
    reg(&mut m, Snapshot::METHOD, |p, node| async move {
        Args::new(&p, &[])?;
        let id = node.request(Snapshot).await.map_err(node_error)?;
        Ok(json!(id))
    });
    reg(&mut m, Revert::METHOD, |p, node| async move {
        let a = Args::new(&p, &["id"])?;
        let id: u64 = a.req(0, "id")?;
        node.request(Revert { id }).await.map_err(node_error)?;
        Ok(Value::Null)
    });
    reg(&mut m, "devnet_deleteSnapshot", |p, node| async move {
        let a = Args::new(&p, &["id"])?;
        let id: u64 = a.req(0, "id")?;
        node.request(DeleteSnapshot { id })
            .await
            .map_err(node_error)?;
        Ok(Value::Null)
    });
    reg(&mut m, "devnet_revertTo", |p, node| async move {
        let a = Args::new(&p, &["height"])?;
        let height: u64 = a.req(0, "height")?;
        node.request(RevertTo { height })
            .await
            .map_err(node_error)?;
        Ok(Value::Null)
    });
    // Issue 30 (Spec note 139): `path` is a file name under the server's export directory,
    // never a path; a taken name gets a new one; a refusal (`ExportRefused`) writes nothing.
    let o = opts.clone();
    reg(&mut m, "devnet_exportFixture", move |p, node| {
        let o = o.clone();
        async move {
            let a = Args::new(&p, &["from_height", "path"])?;
            let from: Option<u64> = a.opt(0, "from_height")?;
            let path: Option<String> = a.opt(1, "path")?;
            if let Some(name) = &path {
                // Refused before anything is exported or written.
                super::files::check_name(name).map_err(export_refused)?;
                if o.export_dir.dir().is_none() {
                    return Err(export_refused(super::files::ExportRefused::NoExportDir));
                }
            }
            let mut out = node
                .query(move |c| crate::scenario::export::export(c, from))
                .await
                .map_err(node_error)?
                .map_err(node_error)?;
            let Some(name) = path else {
                return Ok(to_json(&out));
            };
            use crate::scenario::export::{base_file_for, with_base_file};
            let base = out.base.take().map(|d| crate::chain::dump::state_text(&d));
            let fixture = out.fixture.clone();
            let dir = o.export_dir.clone();
            let written = tokio::task::spawn_blocking(move || {
                // The fixture names its base (Spec note 131): its text is made for the names
                // that were free.
                let base_name = |n: &str| base_file_for(std::path::Path::new(n));
                let text = |b: Option<&str>| match b {
                    Some(b) => with_base_file(&fixture, b),
                    None => fixture.clone(),
                };
                let beside = base
                    .as_deref()
                    .map(|b| (&base_name as &dyn Fn(&str) -> String, b));
                dir.write_new_with(&name, &text, beside)
            })
            .await
            .map_err(|e| error::domain("Internal", format!("the export task failed: {e}")))?
            .map_err(export_refused)?;
            let (file, base_file) = written;
            out.base_file = base_file.clone();
            let mut v = to_json(&out);
            v["fixture"] = Value::Null;
            v["path"] = json!(file);
            if let Some(b) = base_file {
                v["base_path"] = json!(b);
            }
            Ok(v)
        }
    });
    reg(&mut m, "devnet_reset", |p, node| async move {
        Args::new(&p, &[])?;
        node.request(Reset).await.map_err(node_error)?;
        Ok(Value::Null)
    });
    reg(&mut m, "devnet_dumpState", |p, node| async move {
        Args::new(&p, &[])?;
        let d = node.request(DumpState).await.map_err(node_error)?;
        Ok(to_json(&*d))
    });
    reg(&mut m, "devnet_loadState", |p, node| async move {
        let a = Args::new(&p, &["state"])?;
        let v: Value = a.req(0, "state")?;
        let dump =
            super::state_file::parse(&v.to_string()).map_err(|e| invalid_param("state", e))?;
        node.request(LoadState(Box::new(dump)))
            .await
            .map_err(node_error)?;
        Ok(Value::Null)
    });
    reg(&mut m, "devnet_halt", |p, node| async move {
        let a = Args::new(&p, &["blocks"])?;
        let blocks: u64 = a.req(0, "blocks")?;
        node.request(Halt { blocks }).await.map_err(node_error)?;
        Ok(Value::Null)
    });
    super::find::register(&mut m);

    // ---- actors -------------------------------------------------------------------------
    reg(&mut m, "actor_deploy", |p, node| async move {
        let a = Args::new(&p, &["deploy"])?;
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
        let d = node
            .request(DeployActor {
                from,
                code,
                address: None,
                endowment: balance.map_or(0, |b| b.0),
                name,
            })
            .await
            .map_err(node_error)?;
        Ok(to_json(&d.address))
    });
    reg(&mut m, ActorsQuery::METHOD, |p, node| async move {
        let a = Args::new(&p, &["block"])?;
        let actors = node
            .ask(At::new(ActorsQuery, a.block(0)?))
            .await
            .map_err(node_error)?;
        Ok(to_json(&actors))
    });
    reg(&mut m, "actor_call", |p, node| async move {
        let a = Args::new(&p, &["call"])?;
        let mut o = a.obj(0, "call", false)?;
        let from: Address = o.req("from")?;
        let actor: Address = o.req("actor")?;
        let handler: String = o.req("handler")?;
        let payload: Option<Bytes> = o.opt("payload")?;
        o.finish()?;
        let out = node
            .request(CallActor {
                from,
                actor,
                handler,
                payload: payload.unwrap_or_default().0,
            })
            .await
            .map_err(node_error)?;
        Ok(outcome_json(&out, &node))
    });

    // ---- timers -------------------------------------------------------------------------
    reg(&mut m, ScheduleTimer::METHOD, |p, node| async move {
        let a = Args::new(&p, &["timer"])?;
        let req = decode_schedule(a.obj(0, "timer", false)?)?;
        let s = node.request(req).await.map_err(node_error)?;
        Ok(json!({
            "timer_id": s.timer_id,
            "created": s.created,
            "tx_hash": s.tx_hash,
            "receipt": receipt_json(&s.receipt, s.sealed, &node),
        }))
    });
    reg(&mut m, EstimateTimer::METHOD, |p, node| async move {
        let a = Args::new(&p, &["timer"])?;
        let req = decode_schedule(a.obj(0, "timer", false)?)?;
        let e = node.request(EstimateTimer(req)).await.map_err(node_error)?;
        let mut v = to_json(&e);
        // The error `timer_schedule` would give, as it would give it.
        if let Some(err) = &e.error {
            v["error"] = json!({
                "code": error::code_of(err.kind.as_str()),
                "reason": err.kind.as_str(),
                "message": err.to_string(),
            });
        }
        Ok(v)
    });
    reg(&mut m, CancelTimer::METHOD, |p, node| async move {
        let a = Args::new(&p, &["cancel"])?;
        let mut o = a.obj(0, "cancel", false)?;
        let actor: Address = o.req("actor")?;
        let timer_id: TimerId = o.req("timer_id")?;
        let from: Option<Address> = o.opt("from")?;
        o.finish()?;
        let out = node
            .request(CancelTimer {
                actor,
                timer_id,
                from,
            })
            .await
            .map_err(node_error)?;
        Ok(outcome_json(&out, &node))
    });
    reg(&mut m, ExtendTimer::METHOD, |p, node| async move {
        let a = Args::new(&p, &["extend"])?;
        let mut o = a.obj(0, "extend", false)?;
        let actor: Address = o.req("actor")?;
        let timer_id: TimerId = o.req("timer_id")?;
        let new_expires_at: u64 = o.req("new_expires_at")?;
        let from: Option<Address> = o.opt("from")?;
        o.finish()?;
        let out = node
            .request(ExtendTimer {
                actor,
                timer_id,
                new_expires_at,
                from,
            })
            .await
            .map_err(node_error)?;
        Ok(outcome_json(&out, &node))
    });
    reg(&mut m, TimerQuery::METHOD, |p, node| async move {
        let a = Args::new(&p, &["timer_id", "block"])?;
        let id: TimerId = a.req(0, "timer_id")?;
        let q = At::new(TimerQuery { id }, a.block(1)?);
        let t = node.ask(q).await.map_err(node_error)?;
        Ok(to_json(&t))
    });
    reg(&mut m, BucketQuery::METHOD, |p, node| async move {
        let a = Args::new(&p, &["height", "block"])?;
        let height: u64 = a.req(0, "height")?;
        let q = At::new(BucketQuery { height }, a.block(1)?);
        let ts = node.ask(q).await.map_err(node_error)?;
        Ok(to_json(&ts))
    });

    // ---- scheduler ----------------------------------------------------------------------
    reg(&mut m, ConfigQuery::METHOD, |p, node| async move {
        let a = Args::new(&p, &["block"])?;
        let c = node
            .ask(At::new(ConfigQuery, a.block(0)?))
            .await
            .map_err(node_error)?;
        Ok(to_json(&c))
    });
    reg(&mut m, TiersQuery::METHOD, |p, node| async move {
        let a = Args::new(&p, &["block"])?;
        let t = node
            .ask(At::new(TiersQuery, a.block(0)?))
            .await
            .map_err(node_error)?;
        Ok(to_json(&t))
    });

    super::scheduler::register(&mut m);
    super::draft::register(&mut m);
    super::pool::register(&mut m);
    super::dry_run::register(&mut m);

    // ---- governance ---------------------------------------------------------------------
    reg(&mut m, GovCancel::METHOD, |p, node| async move {
        let a = Args::new(&p, &["cancel"])?;
        let mut o = a.obj(0, "cancel", false)?;
        let from: Address = o.req("from")?;
        let timer_id: TimerId = o.req("timer_id")?;
        o.finish()?;
        let out = node
            .request(GovCancel { from, timer_id })
            .await
            .map_err(node_error)?;
        Ok(outcome_json(&out, &node))
    });
    reg(&mut m, GovExtend::METHOD, |p, node| async move {
        let a = Args::new(&p, &["extend"])?;
        let mut o = a.obj(0, "extend", false)?;
        let from: Address = o.req("from")?;
        let timer_id: TimerId = o.req("timer_id")?;
        let new_expires_at: u64 = o.req("new_expires_at")?;
        o.finish()?;
        let out = node
            .request(GovExtend {
                from,
                timer_id,
                new_expires_at,
            })
            .await
            .map_err(node_error)?;
        Ok(outcome_json(&out, &node))
    });
    reg(&mut m, GovUpdateConfig::METHOD, |p, node| async move {
        let a = Args::new(&p, &["update"])?;
        let mut o = a.obj(0, "update", false)?;
        let from: Address = o.req("from")?;
        let Some(cfg) = o.opt_obj("config")? else {
            return Err(invalid_param(
                "config",
                "missing; expected an object of TimerConfig fields",
            ));
        };
        o.finish()?;
        let out = node
            .request(GovUpdateConfig {
                from,
                config: ConfigChange::Fields(cfg.rest()),
            })
            .await
            .map_err(node_error)?;
        Ok(outcome_json(&out, &node))
    });

    reg(
        &mut m,
        GovUpdateSchedulerConfig::METHOD,
        |p, node| async move {
            let a = Args::new(&p, &["update"])?;
            let mut o = a.obj(0, "update", false)?;
            let from: Address = o.req("from")?;
            let Some(cfg) = o.opt_obj("config")? else {
                return Err(invalid_param(
                    "config",
                    "missing; expected an object of scheduler config fields",
                ));
            };
            o.finish()?;
            let out = node
                .request(GovUpdateSchedulerConfig {
                    from,
                    fields: cfg.rest(),
                })
                .await
                .map_err(node_error)?;
            Ok(outcome_json(&out, &node))
        },
    );

    // ---- subscriptions ------------------------------------------------------------------
    m.register_subscription(
        "devnet_subscribeBlocks",
        "devnet_subscribeBlocks",
        "devnet_unsubscribeBlocks",
        |p, pending, node, _| async move {
            if let Err(e) = Args::new(&p, &[]) {
                pending.reject(e).await;
                return Ok(());
            }
            forward(pending, &node, true, |ev| match ev {
                NodeEvent::BlockSealed(b) => Some(to_json(b)),
                _ => None,
            })
            .await
        },
    )
    .expect("unique");
    m.register_subscription(
        "devnet_subscribeEvents",
        "devnet_subscribeEvents",
        "devnet_unsubscribeEvents",
        |p, pending, node, _| async move {
            let filter = Args::new(&p, &["filter"])
                .and_then(|a| a.obj(0, "filter", true))
                .and_then(super::find::decode_event_filter);
            let filter = match filter {
                Ok(f) => f,
                Err(e) => {
                    pending.reject(e).await;
                    return Ok(());
                }
            };
            forward(pending, &node, true, move |ev| match ev {
                NodeEvent::Chain(r) if filter.matches(r) => Some(to_json(r)),
                _ => None,
            })
            .await
        },
    )
    .expect("unique");
    // Issue 23: the story of a fixture played live (`serve --fixture`), for an attached
    // dashboard's story line: each step in words as it is played (with the label a
    // `schedule` step gave its timer) and each expectation as it is checked.
    m.register_subscription(
        "devnet_subscribeStory",
        "devnet_subscribeStory",
        "devnet_unsubscribeStory",
        |p, pending, node, _| async move {
            if let Err(e) = Args::new(&p, &[]) {
                pending.reject(e).await;
                return Ok(());
            }
            forward(pending, &node, false, |ev| match ev {
                NodeEvent::FixtureStep {
                    height,
                    line,
                    text,
                    ok,
                    label,
                } => Some(json!({"step": {
                    "height": height, "line": line, "text": text, "ok": ok,
                    "label": label.as_ref().map(|(name, id)| json!({"name": name, "timer_id": id})),
                }})),
                NodeEvent::Expectation {
                    line,
                    description,
                    passed,
                    detail,
                } => Some(json!({"expectation": {
                    "line": line, "description": description, "passed": passed, "detail": detail,
                }})),
                _ => None,
            })
            .await
        },
    )
    .expect("unique");
    m
}

/// Sends the node's notifications that `pick` keeps to a subscriber until it leaves. A
/// subscriber that falls behind loses notifications (the node never waits for it) and is told
/// how many with `{"lagged": n}` (the node's notifications lost, counted before `pick`).
async fn forward(
    pending: PendingSubscriptionSink,
    node: &NodeHandle,
    reorgs: bool,
    pick: impl Fn(&NodeEvent) -> Option<Value>,
) -> SubscriptionResult {
    let mut rx = node.subscribe();
    // The chain's subscriptions are also told when the chain is replaced under them.
    let mut chain = match reorgs {
        true => Some(super::reorg::ChainSeen::new(node).await),
        false => None,
    };
    let sink = pending.accept().await?;
    loop {
        let msg = tokio::select! {
            _ = sink.closed() => return Ok(()),
            r = rx.recv() => match r {
                Ok(ev) => {
                    let reorg = match &mut chain {
                        Some(c) => match c.step(node, &ev).await {
                            Ok(r) => r,
                            Err(()) => return Ok(()),
                        },
                        None => None,
                    };
                    match reorg.or_else(|| pick(&ev)) {
                        Some(v) => v,
                        None => continue,
                    }
                }
                Err(RecvError::Lagged(n)) => json!({ "lagged": n }),
                Err(RecvError::Closed) => return Ok(()),
            },
        };
        let msg = SubscriptionMessage::from(serde_json::value::to_raw_value(&msg)?);
        if sink.send(msg).await.is_err() {
            return Ok(());
        }
    }
}
