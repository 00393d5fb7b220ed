//! The checks of a `trace` expectation (issue 32): a known host call or `print`, `key` only
//! for the storage calls, `value` only for a storage write or a printed line, whose runs
//! (`timer` or `actor`).

use super::ElemErr;
use crate::scenario::fixture::{Expect, FixtureError};

/// The host calls a trace names, and `print`.
pub const TRACE_CALLS: &[&str] = &[
    "storage_get",
    "storage_set",
    "storage_remove",
    "balance",
    "transfer",
    "emit",
    "schedule_timer",
    "cancel_timer",
    "extend_timer",
    "set_state_watch",
    "set_interval",
    "revert",
    "block_height",
    "self_address",
    "tx_sender",
    "deployer",
    "print",
];

pub(super) fn check(x: &Expect, err: &ElemErr<'_>) -> Result<(), FixtureError> {
    let Some(call) = x.trace.as_deref() else {
        for (field, set) in [("key", x.key.is_some()), ("value", x.value.is_some())] {
            if set {
                return Err(err(
                    field,
                    format!("`{field}` belongs to a `trace` expectation"),
                ));
            }
        }
        return Ok(());
    };
    if !TRACE_CALLS.contains(&call) {
        return Err(err(
            "trace",
            format!(
                "unknown host call `{call}` (known: {})",
                TRACE_CALLS.join(", ")
            ),
        ));
    }
    if x.timer.is_none() && x.actor.is_none() {
        return Err(err(
            "trace",
            "a trace expectation names whose runs: a `timer` (its fires) or an `actor`".into(),
        ));
    }
    if x.key.is_some() && !call.starts_with("storage_") {
        return Err(err(
            "key",
            format!("`key` is a storage call's, not `{call}`'s"),
        ));
    }
    if x.value.is_some() && !matches!(call, "storage_set" | "print") {
        return Err(err(
            "value",
            format!(
                "`value` is a storage write's new value or a printed line's text, not `{call}`'s"
            ),
        ));
    }
    Ok(())
}
