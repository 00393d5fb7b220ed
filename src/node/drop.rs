//! `devnet_dropTransaction` as a request (issue 32; the rebuild is `NodeCore::drop_pending`,
//! `core/drop.rs`).

use super::core::{NodeCore, Request};
use super::error::NodeError;
use crate::engine::H256;
use serde::{Deserialize, Serialize};

/// Drop a pending transaction (in the open block: manual or interval mining) by hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DropTransaction {
    pub hash: H256,
}

/// What a drop removed from the open block, in order: the transaction asked for, then each
/// later one that no longer applied without it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Dropped {
    pub dropped: Vec<H256>,
}

impl Request for DropTransaction {
    type Reply = Dropped;
    fn apply(self, node: &mut NodeCore) -> Result<Dropped, NodeError> {
        node.drop_pending(self.hash)
            .map(|dropped| Dropped { dropped })
    }
}
