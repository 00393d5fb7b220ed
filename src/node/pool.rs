//! Transactions by hash and the pending ones (issue 32 items 1 and 2, Spec note 160).
//!
//! The devnet has no mempool: a transaction is applied into the open block when it is sent
//! (its receipt exists at once) and is *pending* until that block seals (manual or interval
//! mining). A sealed one is found in the blocks the node keeps (`--history`); an older one
//! is gone with its block, and the lookup says so with what is kept.

use super::core::NodeCore;
use super::error::NodeError;
use super::query::Query;
use crate::chain::Receipt;
use crate::engine::{Address, H256};
use serde::{Deserialize, Serialize};

/// Where a transaction is: in the open block, or in a sealed one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxState {
    /// Applied into the open block, which has not sealed yet.
    Pending,
    /// In a sealed block.
    Sealed,
}

/// A transaction the node knows by hash: where it is and its receipt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxRecord {
    pub state: TxState,
    /// The height of its block (the open block's height while pending).
    pub height: u64,
    pub receipt: Receipt,
}

/// A transaction's summary, as `devnet_getTransaction` and `devnet_pendingTransactions`
/// show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxView {
    pub hash: H256,
    /// `pending` while its block is open, then `sealed`.
    pub status: TxState,
    pub height: u64,
    pub index: u32,
    pub from: Address,
    pub nonce: u64,
    pub kind: String,
}

impl TxRecord {
    pub fn view(&self) -> TxView {
        let r = &self.receipt;
        TxView {
            hash: r.tx_hash,
            status: self.state,
            height: self.height,
            index: r.index,
            from: r.from,
            nonce: r.nonce,
            kind: r.kind.clone(),
        }
    }
}

/// A transaction by hash (`devnet_getTransaction`, `devnet_getReceipt`); `None` when the node
/// does not hold it (Spec note 160): unknown, or older than the kept history (the node cannot
/// tell which; [`not_found_message`] says what is kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxQuery {
    pub hash: H256,
}

impl Query for TxQuery {
    type Reply = Option<TxRecord>;
    fn run(&self, node: &NodeCore) -> Result<Option<TxRecord>, NodeError> {
        Ok(node.tx_by_hash(&self.hash))
    }
}

/// The error name of a hash the node does not hold (Spec note 160).
pub const TX_NOT_FOUND: &str = "TransactionNotFound";

/// The message of a hash the node does not hold: what it keeps (`first_kept` and the head
/// as [`super::HeadView`] gives them).
pub fn not_found_message(hash: &H256, first_kept: u64, head: u64) -> String {
    format!(
        "{TX_NOT_FOUND}: no transaction {hash} in the open block or the kept blocks #{}..#{head} \
         (older ones are pruned with their blocks: serve --history N)",
        first_kept.max(1)
    )
}

/// The open block's transactions, in order (`devnet_pendingTransactions`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PendingTxsQuery;

impl Query for PendingTxsQuery {
    type Reply = Vec<TxView>;
    fn run(&self, node: &NodeCore) -> Result<Vec<TxView>, NodeError> {
        Ok(node.pending_records().iter().map(TxRecord::view).collect())
    }
}

impl NodeCore {
    /// The open block's transactions as records.
    fn pending_records(&self) -> Vec<TxRecord> {
        let chain = self.chain();
        let height = chain.pending_height();
        chain
            .open_receipts()
            .iter()
            .map(|r| TxRecord {
                state: TxState::Pending,
                height,
                receipt: r.clone(),
            })
            .collect()
    }

    /// The transaction of this hash: pending, or in a kept sealed block; the newest when
    /// several share it (a hash does not commit to an automatic nonce, Spec note 160).
    pub fn tx_by_hash(&self, hash: &H256) -> Option<TxRecord> {
        let chain = self.chain();
        if let Some(r) = chain.open_receipts().iter().rfind(|r| r.tx_hash == *hash) {
            return Some(TxRecord {
                state: TxState::Pending,
                height: chain.pending_height(),
                receipt: r.clone(),
            });
        }
        let first = self.first_kept();
        chain
            .blocks()
            .rev()
            .take_while(|b| b.header.height >= first)
            .find_map(|b| {
                let r = b.receipts.iter().rfind(|r| r.tx_hash == *hash)?;
                Some(TxRecord {
                    state: TxState::Sealed,
                    height: b.header.height,
                    receipt: r.clone(),
                })
            })
    }
}
