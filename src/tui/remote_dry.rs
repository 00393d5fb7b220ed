//! An attached dashboard's dry run (issue 32, Spec notes 190 and 192): the schedule form's
//! request as `devnet_call [{"schedule": ...}, {"trace": true}]`, or the call prompt's as
//! `devnet_call [{from, actor, handler, payload}, {"trace": true}]`, its reply read back into
//! the [`DryRunView`] the in-process source answers, so the overlay is the same either way.

use crate::node::{DryRunView, ReceiptReply};
use serde_json::{Value, json};

/// `devnet_call`'s params for the real method's `[params]`: `timer_schedule`'s `[timer]`
/// under `schedule`, or `actor_call`'s `[call]` as it is.
pub fn params(method: &str, real: Vec<Value>) -> Result<Vec<Value>, String> {
    let first = real
        .into_iter()
        .next()
        .ok_or_else(|| format!("{method} encoded no params"))?;
    let call = match method {
        "timer_schedule" => json!({ "schedule": first }),
        "actor_call" => first,
        other => return Err(format!("{other} has no dry run here")),
    };
    Ok(vec![call, json!({ "trace": true })])
}

fn field<T: serde::de::DeserializeOwned>(v: &Value, name: &str) -> Result<T, String> {
    serde_json::from_value(v.get(name).cloned().unwrap_or(Value::Null))
        .map_err(|e| format!("devnet_call's `{name}`: {e}"))
}

/// The reply as a [`DryRunView`]: the receipt (its fields at the top level), `events`,
/// `height`, `diff`, `trace` and, for a registration, `registration` (Spec note 192).
pub fn decode(v: Value) -> Result<DryRunView, String> {
    let receipt: ReceiptReply =
        serde_json::from_value(v.clone()).map_err(|e| format!("devnet_call's receipt: {e}"))?;
    Ok(DryRunView {
        receipt: receipt.receipt,
        events: field(&v, "events")?,
        height: field(&v, "height")?,
        trace: field(&v, "trace")?,
        registration: field(&v, "registration")?,
        diff: field(&v, "diff")?,
    })
}
