//! Reorg notifications for the chain's subscriptions (issue 30, Spec note 146).

use super::notice::{BlockRef, Notice, Reorg};
use crate::node::{NodeEvent, NodeHandle};
use serde_json::Value;
use std::collections::VecDeque;

/// Blocks a chain subscription remembers to find a reorg's common ancestor among.
const REORG_WINDOW: usize = 1024;

/// What a chain subscription (blocks and events) remembers to tell a reorg (issue 30, Spec
/// note 146): `devnet_revert`, `devnet_revertTo`, `devnet_reset` and a load send
/// `{"reorg": {"reason", "new_head": {"height", "hash"}, "common_ancestor": {"height", "hash"} | null, "old_head": {...} | null}}`
/// before any block of the new chain. The common ancestor is the highest block this
/// subscription was told of (or the head when it subscribed), among its last
/// [`REORG_WINDOW`], that the new chain still has; `null` when none is. The one subscription
/// loop (`methods::forward`) asks it first for each event.
pub(super) struct ChainSeen {
    seen: VecDeque<(u64, crate::engine::H256)>,
}

impl ChainSeen {
    /// From the head when the subscription starts.
    pub(super) async fn new(node: &NodeHandle) -> Self {
        let head = node.query(|c| (c.height(), c.chain().head().hash)).await;
        ChainSeen {
            seen: head.into_iter().collect(),
        }
    }

    /// Notes a sealed block; for an event that replaced the chain, the reorg notification.
    /// `Err(())` when the node stopped.
    pub(super) async fn step(
        &mut self,
        node: &NodeHandle,
        ev: &NodeEvent,
    ) -> Result<Option<Value>, ()> {
        if let NodeEvent::BlockSealed(b) = ev {
            self.seen.retain(|(h, _)| *h < b.height);
            self.seen.push_back((b.height, b.hash));
            if self.seen.len() > REORG_WINDOW {
                self.seen.pop_front();
            }
        }
        let (reason, height) = match ev {
            NodeEvent::SnapshotReverted { height, .. } => ("revert", Some(*height)),
            NodeEvent::StateLoaded { height } => ("state_replaced", Some(*height)),
            NodeEvent::Reset => ("reset", None),
            _ => return Ok(None),
        };
        reorg_json(node, reason, height, &mut self.seen)
            .await
            .map(Some)
            .ok_or(())
    }
}

/// The reorg notification (see [`ChainSeen`]); `height` is the new head's (`None`: the
/// session's base, for a reset). Keeps in `seen` only the blocks the new chain still has, and
/// the new head. `None` when the node stopped.
async fn reorg_json(
    node: &NodeHandle,
    reason: &str,
    height: Option<u64>,
    seen: &mut VecDeque<(u64, crate::engine::H256)>,
) -> Option<Value> {
    let old = seen.back().copied();
    let candidates: Vec<_> = seen.iter().rev().copied().collect();
    let (new_head, ancestor) = node
        .query(move |c| {
            let h = height.unwrap_or_else(|| c.session().base_height());
            let base = c.session().base_height();
            let hash_at = |h: u64| {
                if h == c.height() {
                    Some(c.chain().head().hash)
                } else if let Some(b) = c.block_kept(h).ok().flatten() {
                    Some(b.header.hash)
                } else if h == 0 {
                    // The genesis has no block: block 1 names it (its parent or anchor).
                    c.block_kept(1).ok().flatten().map(|b| b.header.parent_hash)
                } else if h == base {
                    // A loaded session's start: its head, replayed.
                    c.chain_at(h).ok().map(|ch| ch.head().hash)
                } else {
                    None
                }
            };
            let new_head = (h, hash_at(h));
            let ancestor = candidates
                .into_iter()
                .find(|(ch, hash)| *ch <= h && hash_at(*ch) == Some(*hash));
            (new_head, ancestor)
        })
        .await
        .ok()?;
    seen.retain(|(h, hash)| {
        ancestor.is_some_and(|(ah, ahash)| *h < ah || (*h == ah && *hash == ahash))
    });
    if let (h, Some(hash)) = new_head {
        seen.retain(|(x, _)| *x < h);
        seen.push_back((h, hash));
    }
    let block = |(height, hash): (u64, crate::engine::H256)| BlockRef {
        height,
        hash: Some(hash),
    };
    let reorg = Reorg {
        reason: reason.to_string(),
        new_head: BlockRef {
            height: new_head.0,
            hash: new_head.1,
        },
        common_ancestor: ancestor.map(block),
        old_head: old.map(block),
    };
    serde_json::to_value(Notice::<()>::Reorg { reorg }).ok()
}
