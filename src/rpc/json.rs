//! How the API writes the node's values as JSON: a view serialised, a receipt with its status
//! and block, the mining mode.

use crate::chain::Receipt;
use crate::node::{MiningMode, NodeHandle};
use serde::Serialize;
use serde_json::Value;

pub(crate) fn to_json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("node views serialize to JSON")
}

/// A receipt as the API shows it: every field, `status` (`success` | `reverted`) and the
/// height of its block (`sealed: false` while the block is open under manual or interval
/// mining).
pub(crate) fn receipt_json(receipt: &Receipt, sealed: Option<u64>, head: &NodeHandle) -> Value {
    let pending = head.head().pending_height;
    to_json(&crate::node::ReceiptReply::new(
        receipt.clone(),
        sealed,
        pending,
    ))
}

/// The mining mode as the API writes it: `{"mode": "interval", "block_time": 1.5}` (the
/// shape `devnet_setMining` answers, [`crate::node::CommandReply::Mining`]).
pub fn mining_json(m: MiningMode) -> Value {
    to_json(&crate::node::CommandReply::Mining(m))
}
