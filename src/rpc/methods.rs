//! Every method of the API: decode the params, make one node request, encode the reply.

use super::error::{self, node_error};
pub use super::json::mining_json;
use super::json::to_json;
use super::openrpc;
use super::queries::RpcQuery;
use super::register::{RpcResult, reg};
use super::types::{Amount, Args};
use crate::engine::Address;
use crate::node::views::BlockAnswer;
use crate::node::{At, NodeEvent, NodeHandle};
use jsonrpsee::core::SubscriptionResult;
use jsonrpsee::types::ErrorObjectOwned;
use jsonrpsee::{PendingSubscriptionSink, RpcModule, SubscriptionMessage};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;

/// The script `actor_deploy` deploys when none is given: an actor that takes timers and says
/// when each fires (so a script can schedule on it at once).
pub const DEFAULT_ACTOR_SCRIPT: &str = r#"
fn handle_timer(payload) {
    emit("fired", `at height ${block_height()}`);
}
"#;

fn export_refused(e: super::files::ExportRefused) -> ErrorObjectOwned {
    error::domain("ExportRefused", e.to_string())
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
    register_chain(&mut m, &opts);
    register_export(&mut m, &opts);
    super::command::register_all(&mut m);
    super::served::register_all(&mut m);
    super::draft::register(&mut m);
    super::pool::register(&mut m);
    super::find::register(&mut m);
    super::dry_run::register(&mut m);
    super::traces::register(&mut m);
    register_subscriptions(&mut m);
    m
}

/// `rpc.discover`, and the chain and mining reads registered by hand: the head, the block
/// number, the mining mode, a block, a balance, the supply.
fn register_chain(m: &mut RpcModule<NodeHandle>, opts: &Arc<ApiOptions>) {
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
    // The published head (never waits behind a seal): what a status bar reads in one call.
    // Its reply is `HeadQuery`'s, read from the published head.
    // With a block tag (issue 24), the head as of that sealed block (read on the node).
    // With `--state`, `state_save`: the last save's height and time, the last error.
    let o = opts.clone();
    reg(m, crate::node::HeadQuery::METHOD, move |p, node| {
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
    reg(m, "devnet_getBlock", |p, node| async move {
        let a = Args::new(&p, &["height"])?;
        let h: u64 = a.req(0, "height")?;
        let b = node
            .query(move |c| c.block_answer(h))
            .await
            .map_err(node_error)?
            .map_err(node_error)?;
        // Issue 31 (Spec note 183): older than the kept history, the header alone.
        Ok(match b {
            None => Value::Null,
            Some(BlockAnswer::Whole(b)) => to_json(&*b),
            Some(BlockAnswer::HeaderOnly(p)) => to_json(&*p),
        })
    });
    reg(m, "devnet_getBalance", |p, node| async move {
        let a = Args::new(&p, &["address", "block"])?;
        let who: Address = a.req(0, "address")?;
        let at = a.block(1)?;
        let b = node
            .ask(At::new(crate::node::BalanceQuery(who), at))
            .await
            .map_err(node_error)?;
        Ok(to_json(&Amount(b)))
    });
    reg(m, "devnet_supply", |p, node| async move {
        Args::new(&p, &[])?;
        let s = node.query(|c| c.supply()).await.map_err(node_error)?;
        Ok(to_json(&s))
    });
}

/// `devnet_exportFixture`: the session as a fixture, answered or written to a file.
fn register_export(m: &mut RpcModule<NodeHandle>, opts: &Arc<ApiOptions>) {
    // Issue 30 (Spec note 139): `path` is a file name under the server's export directory,
    // never a path; a taken name gets a new one; a refusal (`ExportRefused`) writes nothing.
    let o = opts.clone();
    reg(m, "devnet_exportFixture", move |p, node| {
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
            // Issue 31 item 7: on an immutable copy, off the node's thread.
            let mut out = node
                .frozen(move |c| crate::scenario::export::export(c, from))
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
}

/// The subscriptions: blocks, events (filtered), and the story of a fixture played live.
fn register_subscriptions(m: &mut RpcModule<NodeHandle>) {
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
            forward(pending, &node, false, |ev| {
                crate::node::StoryNote::of(ev).map(|n| serde_json::to_value(n).expect("a note"))
            })
            .await
        },
    )
    .expect("unique");
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
                Err(RecvError::Lagged(n)) => super::notice::Notice::lagged(n),
                Err(RecvError::Closed) => return Ok(()),
            },
        };
        let msg = SubscriptionMessage::from(serde_json::value::to_raw_value(&msg)?);
        if sink.send(msg).await.is_err() {
            return Ok(());
        }
    }
}
