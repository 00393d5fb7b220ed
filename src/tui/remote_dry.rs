//! An attached dashboard's dry run (issue 32, Spec note 190): the schedule form's request as
//! `devnet_call [{"schedule": ...}, {"trace": true}]`, its reply read back into the
//! [`DryRunView`] the in-process source answers, so the overlay is the same either way.

use crate::node::{DryRunView, ReceiptReply};
use serde_json::{Value, json};

/// `devnet_call`'s params for `timer_schedule`'s `[timer]` params.
pub fn params(schedule: Vec<Value>) -> Result<Vec<Value>, String> {
    let timer = schedule
        .into_iter()
        .next()
        .ok_or("timer_schedule encoded no params")?;
    Ok(vec![json!({ "schedule": timer }), json!({ "trace": true })])
}

fn field<T: serde::de::DeserializeOwned>(v: &Value, name: &str) -> Result<T, String> {
    serde_json::from_value(v.get(name).cloned().unwrap_or(Value::Null))
        .map_err(|e| format!("devnet_call's `{name}`: {e}"))
}

/// The reply as a [`DryRunView`]: the receipt (its fields at the top level), `events`,
/// `height`, `diff`, `trace` and, for a registration, `timer_id` and `created`.
pub fn decode(v: Value) -> Result<DryRunView, String> {
    // A registration's `created` (bool: a new timer) takes the place of the receipt's
    // `created` (the address a deploy made, which a registration never has).
    let mut r = v.clone();
    if let Some(o) = r.as_object_mut()
        && o.get("created").is_some_and(Value::is_boolean)
    {
        o.remove("created");
    }
    let receipt: ReceiptReply =
        serde_json::from_value(r).map_err(|e| format!("devnet_call's receipt: {e}"))?;
    let timer = match v.get("timer_id") {
        Some(_) => Some((field(&v, "timer_id")?, field(&v, "created")?)),
        None => None,
    };
    Ok(DryRunView {
        receipt: receipt.receipt,
        events: field(&v, "events")?,
        height: field(&v, "height")?,
        trace: field(&v, "trace")?,
        timer,
        diff: field(&v, "diff")?,
    })
}
