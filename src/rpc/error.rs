//! Domain errors as JSON-RPC errors (issue 13, "Errors").
//!
//! JSON-RPC 2.0 keeps -32700..-32600 for itself and jsonrpsee uses -32000 and -32005..-32011;
//! a rejection by the devnet gets a code of its own in -32050..-32099, one per error kind, with
//! `data.reason` the spec's error name. The table is in docs/API.md ("Errors").

use crate::node::NodeError;
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::json;

pub use crate::node::{CODES, Code, code_of};

/// A domain rejection: its code, the message, `data.reason` and a hint.
pub fn domain(reason: &str, message: impl Into<String>) -> ErrorObjectOwned {
    domain_with(reason, message, serde_json::Map::new())
}

/// [`domain`], with more members in `data` beside `reason` and `hint`.
pub fn domain_with(
    reason: &str,
    message: impl Into<String>,
    extra: serde_json::Map<String, serde_json::Value>,
) -> ErrorObjectOwned {
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
    ErrorObjectOwned::owned(
        code_of(reason),
        message,
        Some({
            let mut data = extra;
            data.insert("reason".into(), json!(reason));
            data.insert("hint".into(), json!(hint));
            data
        }),
    )
}

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
    domain_with(e.reason(), e.to_string(), extra)
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
