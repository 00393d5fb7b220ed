//! The messages of the subscriptions besides their items, as types the server writes and a
//! client (the attached dashboard, `tui/remote.rs`) reads back (issue 29: the dashboard reads
//! what the server sends through the server's own types, not field by field).
//!
//! A chain subscription (`devnet_subscribeBlocks`, `devnet_subscribeEvents`) sends its items
//! ([`crate::node::BlockSummary`], [`crate::chain::EventRecord`]), a [`Reorg`] before any item
//! of a chain that replaced the one it was following (issue 30, Spec note 146), and
//! `{"lagged": n}` when the subscriber fell behind and `n` notifications were lost; the story
//! subscription sends its notes and `{"lagged": n}`.

use crate::engine::H256;
use serde::{Deserialize, Serialize};

/// One message of a subscription whose items are `T`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Notice<T> {
    /// `n` notifications were lost (the node never waits for a slow subscriber).
    Lagged { lagged: u64 },
    /// The chain was replaced under the subscription.
    Reorg { reorg: Reorg },
    /// An item.
    Item(T),
}

/// A reorg notification's body: `devnet_revert`, `devnet_revertTo`, `devnet_reset` or a load
/// replaced the chain (see `rpc::reorg`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reorg {
    /// `revert`, `state_replaced` or `reset`.
    pub reason: String,
    pub new_head: BlockRef,
    /// The highest block this subscription was told of that the new chain still has.
    pub common_ancestor: Option<BlockRef>,
    /// The last block this subscription was told of.
    pub old_head: Option<BlockRef>,
}

/// A block by height and hash (`hash` is `null` where the node cannot name it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockRef {
    pub height: u64,
    pub hash: Option<H256>,
}

impl Notice<()> {
    /// The `{"lagged": n}` message, as JSON.
    pub fn lagged(n: u64) -> serde_json::Value {
        serde_json::to_value(Notice::<()>::Lagged { lagged: n }).expect("a number")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_back_what_the_server_writes() {
        let lagged: Notice<u64> = serde_json::from_value(Notice::lagged(7)).unwrap();
        assert_eq!(lagged, Notice::Lagged { lagged: 7 });
        let reorg = json!({"reorg": {"reason": "revert", "new_head": {"height": 3, "hash": null},
            "common_ancestor": null, "old_head": null}});
        let n: Notice<u64> = serde_json::from_value(reorg).unwrap();
        assert!(matches!(n, Notice::Reorg { reorg } if reorg.new_head.height == 3));
        let item: Notice<u64> = serde_json::from_value(json!(5)).unwrap();
        assert_eq!(item, Notice::Item(5));
    }
}
