//! Domain errors as JSON-RPC errors (issue 13, "Errors").
//!
//! JSON-RPC 2.0 keeps -32700..-32600 for itself and jsonrpsee uses -32000 and -32005..-32011;
//! a rejection by the devnet gets a code of its own in -32050..-32099, one per error kind, with
//! `data.reason` the spec's error name. The table is in docs/API.md ("Errors").

use crate::node::NodeError;
use jsonrpsee::types::ErrorObjectOwned;
use serde::{Deserialize, Serialize};

pub use crate::node::{CODES, Code, code_of};

/// A domain error's `data`: what the server writes and a client reads back (the attached
/// dashboard, `tui/remote.rs`). Its fields are in the order the JSON has always listed them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorData {
    /// `HistoryPruned`: the oldest height the node keeps (Spec note 73); `StateNotKept`: the
    /// oldest height whose state it can rebuild (Spec note 225).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_kept: Option<u64>,
    /// What to do about it (docs/API.md "Errors"); empty when the table has none.
    #[serde(default)]
    pub hint: String,
    /// `HistoryPruned`: how many blocks the node keeps (`serve --history`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep: Option<u64>,
    /// The spec's error name (`TimerNotFound`, `InvalidInput`, ...).
    pub reason: String,
}

impl ErrorData {
    /// The `data` of a JSON-RPC error, if it is a domain error's.
    pub fn of(e: &ErrorObjectOwned) -> Option<ErrorData> {
        serde_json::from_str(e.data()?.get()).ok()
    }
}

/// A domain rejection: its code, the message, `data.reason` and a hint.
pub fn domain(reason: &str, message: impl Into<String>) -> ErrorObjectOwned {
    domain_with(reason, message, ErrorData::default())
}

/// [`domain`], with `data`'s other members as `data` says (its `reason` and `hint` are set
/// here).
fn domain_with(reason: &str, message: impl Into<String>, data: ErrorData) -> ErrorObjectOwned {
    let message = message.into();
    // The node's messages lead with the error name already (`InvalidInput: ...`).
    let message = if message.starts_with(reason) {
        message
    } else {
        format!("{reason}: {message}")
    };
    let hint = CODES
        .iter()
        .find(|c| c.reason == reason)
        .map_or("", |c| c.hint);
    let data = ErrorData {
        reason: reason.to_string(),
        hint: hint.to_string(),
        ..data
    };
    ErrorObjectOwned::owned(code_of(reason), message, Some(data))
}

/// A node rejection as a JSON-RPC error (its code, `data.reason`).
///
/// `HistoryPruned` also carries `data.first_kept` and `data.keep` (Spec note 73), so a client
/// can ask again from the oldest kept height without reading the message; `StateNotKept`
/// carries `data.first_kept` too (Spec note 225).
pub fn node_error(e: NodeError) -> ErrorObjectOwned {
    let mut data = ErrorData::default();
    match &e {
        NodeError::HistoryPruned { first_kept, keep } => {
            data.first_kept = Some(*first_kept);
            data.keep = Some(*keep as u64);
        }
        // Spec note 225: the oldest height a state read answers, as `first_kept` is for blocks.
        NodeError::StateNotKept { first, .. } => data.first_kept = Some(*first),
        _ => {}
    }
    domain_with(e.reason(), e.to_string(), data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_in_the_domain_range() {
        let mut seen = std::collections::BTreeSet::new();
        for c in CODES {
            assert!((-32099..=-32050).contains(&c.code), "{}", c.reason);
            assert!(seen.insert(c.code), "{} reuses {}", c.reason, c.code);
        }
        assert_eq!(code_of("Unauthorized"), -32051);
        assert_eq!(code_of("SomethingNew"), -32099);
        let e = domain("TimerNotFound", "TimerNotFound: 0xab");
        assert_eq!(e.message(), "TimerNotFound: 0xab");
        assert!(
            e.data()
                .unwrap()
                .get()
                .contains("\"reason\":\"TimerNotFound\"")
        );
    }
}
