//! `devnet_unsubscribe*` with malformed params is `-32602` (issue 20), where jsonrpsee's own
//! unsubscribe answers `false` (as for an id that names no subscription). An RPC middleware
//! checks the params before jsonrpsee's handler runs: exactly one, a subscription id (a string
//! or an unsigned integer).

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
    fn check(req: &Request<'_>) -> Option<MethodResponse> {
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
        let refused = Self::check(&req);
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
                        this.inner.notification(n).await;
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
        self.inner.notification(n)
    }
}
