//! `devnet_unsubscribe*` with malformed params is `-32602` (issue 20), where jsonrpsee's own
//! unsubscribe answers `false` (as for an id that names no subscription). An RPC middleware
//! checks the params before jsonrpsee's handler runs: exactly one, a subscription id (a string
//! or an unsigned integer).
//!
//! The same middleware refuses, on a server bound to a non-loopback address without
//! `--allow-remote-writes`, every call that changes the devnet or writes a file (issue 30,
//! Spec note 140): only the read methods of [`READ_ONLY`] are served there, so a method added
//! later is refused until it is listed as a read.

use jsonrpsee::core::middleware::{Batch, BatchEntry, Notification, RpcServiceT};
use jsonrpsee::core::server::{BatchResponseBuilder, MethodResponse};
use jsonrpsee::types::{ErrorObjectOwned, Request};
use serde_json::Value;
use std::future::Future;

/// The layer to give jsonrpsee's `set_rpc_middleware` (`layer_fn`).
#[derive(Clone, Debug)]
pub struct CheckUnsubscribe<S> {
    pub inner: S,
    /// The batch reply's size limit (jsonrpsee's `max_response_body_size`).
    pub max_response_body: usize,
    /// Refuse every method but [`READ_ONLY`] (a non-loopback bind without
    /// `--allow-remote-writes`).
    pub reads_only: bool,
}

/// The methods that change nothing and write no file: the only ones a server bound off
/// loopback serves without `--allow-remote-writes` (Spec note 140). `devnet_exportFixture`
/// is one only without a `path`.
pub const READ_ONLY: &[&str] = &[
    "rpc.discover",
    "devnet_accounts",
    "devnet_blockNumber",
    "devnet_dumpState",
    "devnet_exportFixture",
    "devnet_getBalance",
    "devnet_getBlock",
    "devnet_getEvents",
    "devnet_getReceipt",
    "devnet_getTransaction",
    "devnet_getMining",
    "devnet_head",
    "devnet_names",
    "devnet_pendingTransactions",
    "devnet_call",
    "devnet_snapshots",
    "devnet_supply",
    "devnet_traceBlock",
    "devnet_traceFire",
    "devnet_traceTransaction",
    "devnet_subscribeBlocks",
    "devnet_subscribeEvents",
    "devnet_subscribeStory",
    "devnet_unsubscribeBlocks",
    "devnet_unsubscribeEvents",
    "devnet_unsubscribeStory",
    "actor_list",
    "scheduler_actors",
    "scheduler_buckets",
    "scheduler_config",
    "scheduler_deferrals",
    "scheduler_draft",
    "scheduler_fairness",
    "scheduler_lane",
    "scheduler_tiers",
    "timer_bucket",
    "timer_bucketPage",
    "timer_estimate",
    "timer_estimateDraft",
    "timer_get",
    "timer_list",
];

/// Whether a call with these params writes a file (`devnet_exportFixture` with a `path`).
fn writes_file(method: &str, params: Option<&str>) -> bool {
    if method != "devnet_exportFixture" {
        return false;
    }
    let v: Option<Value> = params.and_then(|p| serde_json::from_str(p).ok());
    match v {
        Some(Value::Array(a)) => a.get(1).is_some_and(|p| !p.is_null()),
        Some(Value::Object(o)) => o.get("path").is_some_and(|p| !p.is_null()),
        _ => false,
    }
}

/// `RemoteWriteRefused` for `method` on a read-only (non-loopback) server, or `None`.
pub fn remote_write_error(method: &str, params: Option<&str>) -> Option<ErrorObjectOwned> {
    let read = READ_ONLY.contains(&method) && !writes_file(method, params);
    (!read).then(|| {
        super::error::domain(
            "RemoteWriteRefused",
            format!(
                "`{method}` changes the devnet or writes a file, and this server listens off loopback: restart it with --allow-remote-writes to serve such calls to the network"
            ),
        )
    })
}

/// Why `params` are not one subscription id, or `None` when they are.
pub fn unsubscribe_params_error(params: Option<&str>) -> Option<ErrorObjectOwned> {
    let v: Option<Value> = params.and_then(|p| serde_json::from_str(p).ok());
    let ok = match &v {
        Some(Value::Array(a)) if a.len() == 1 => a[0].is_string() || a[0].is_u64(),
        _ => false,
    };
    (!ok).then(|| {
        super::types::invalid_param(
            "subscription",
            format!(
                "expected one subscription id (a string or an unsigned integer, as the subscribe call returned), got {}",
                params.unwrap_or("no params")
            ),
        )
    })
}

impl<S> CheckUnsubscribe<S>
where
    S: RpcServiceT<MethodResponse = MethodResponse> + Send + Sync + Clone + 'static,
{
    fn check(&self, req: &Request<'_>) -> Option<MethodResponse> {
        if self.reads_only
            && let Some(e) =
                remote_write_error(req.method_name(), req.params.as_ref().map(|p| p.get()))
        {
            return Some(MethodResponse::error(req.id.clone().into_owned(), e));
        }
        if !req.method_name().starts_with("devnet_unsubscribe") {
            return None;
        }
        let e = unsubscribe_params_error(req.params.as_ref().map(|p| p.get()))?;
        Some(MethodResponse::error(req.id.clone().into_owned(), e))
    }
}

impl<S> RpcServiceT for CheckUnsubscribe<S>
where
    S: RpcServiceT<
            MethodResponse = MethodResponse,
            BatchResponse = MethodResponse,
            NotificationResponse = MethodResponse,
        > + Send
        + Sync
        + Clone
        + 'static,
{
    type MethodResponse = MethodResponse;
    type NotificationResponse = MethodResponse;
    type BatchResponse = MethodResponse;

    fn call<'a>(&self, req: Request<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        let refused = self.check(&req);
        let inner = self.inner.clone();
        async move {
            match refused {
                Some(r) => r,
                None => inner.call(req).await,
            }
        }
    }

    /// As jsonrpsee's own batch, through [`call`](Self::call) so its calls are checked too.
    fn batch<'a>(&self, batch: Batch<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        let this = self.clone();
        async move {
            let mut out = BatchResponseBuilder::new_with_limit(this.max_response_body);
            let mut got_notification = false;
            for e in batch.into_iter() {
                let rp = match e {
                    Ok(BatchEntry::Call(req)) => this.call(req).await,
                    Ok(BatchEntry::Notification(n)) => {
                        got_notification = true;
                        this.notification(n).await;
                        continue;
                    }
                    Err(err) => {
                        let (err, id) = err.into_parts();
                        MethodResponse::error(id, err)
                    }
                };
                if let Err(too_big) = out.append(rp) {
                    return too_big;
                }
            }
            if out.is_empty() && got_notification {
                MethodResponse::notification()
            } else {
                MethodResponse::from_batch(out.finish())
            }
        }
    }

    fn notification<'a>(
        &self,
        n: Notification<'a>,
    ) -> impl Future<Output = MethodResponse> + Send + 'a {
        let refused = self.reads_only
            && remote_write_error(n.method_name(), n.params.as_ref().map(|p| p.get())).is_some();
        let inner = self.inner.clone();
        async move {
            if refused {
                MethodResponse::notification()
            } else {
                inner.notification(n).await
            }
        }
    }
}
