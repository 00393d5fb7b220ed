//! Transactions by hash and the pending ones (issue 32 items 1 and 2, Spec note 160):
//! `devnet_getTransaction`, `devnet_getReceipt`, `devnet_pendingTransactions`.

use super::error;
use super::error::node_error;
use super::json::{receipt_json, to_json};
use super::queries::RpcQuery;
use super::register::reg;
use super::types::Args;
use crate::engine::H256;
use crate::node::{
    NodeHandle, PendingTxsQuery, TX_NOT_FOUND, TxQuery, TxRecord, TxState, not_found_message,
};
use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

pub const GET_TRANSACTION: &str = "devnet_getTransaction";
pub const GET_RECEIPT: &str = "devnet_getReceipt";

impl RpcQuery for TxQuery {
    const METHOD: &'static str = GET_TRANSACTION;
    fn params(&self) -> Vec<Value> {
        vec![json!(self.hash)]
    }
}

impl RpcQuery for PendingTxsQuery {
    const METHOD: &'static str = "devnet_pendingTransactions";
    fn params(&self) -> Vec<Value> {
        Vec::new()
    }
}

/// The transaction of the hash in `p`, or `TransactionNotFound` saying what is kept.
async fn lookup(
    p: &jsonrpsee::types::Params<'_>,
    node: &NodeHandle,
) -> Result<TxRecord, ErrorObjectOwned> {
    let a = Args::new(p, &["hash"])?;
    let hash: H256 = a.req(0, "hash")?;
    let found = node.ask(TxQuery { hash }).await.map_err(node_error)?;
    found.ok_or_else(|| {
        let head = node.head();
        error::domain(
            TX_NOT_FOUND,
            not_found_message(&hash, head.first_kept, head.height),
        )
    })
}

/// A receipt as `devnet_getReceipt` shows it: the shape every method that sends a transaction
/// answers with, `status: "pending"` while its block is open (`success` says how it ran).
fn receipt_view(rec: &TxRecord, node: &NodeHandle) -> Value {
    let sealed = (rec.state == TxState::Sealed).then_some(rec.height);
    let mut v = receipt_json(&rec.receipt, sealed, node);
    v["height"] = json!(rec.height);
    if rec.state == TxState::Pending {
        v["status"] = json!("pending");
    }
    v
}

/// Registers the methods of this file.
pub(super) fn register(m: &mut RpcModule<NodeHandle>) {
    reg(m, GET_TRANSACTION, |p, node| async move {
        let rec = lookup(&p, &node).await?;
        Ok(to_json(&rec.view()))
    });
    reg(m, GET_RECEIPT, |p, node| async move {
        let rec = lookup(&p, &node).await?;
        Ok(receipt_view(&rec, &node))
    });
    reg(m, PendingTxsQuery::METHOD, |p, node| async move {
        Args::new(&p, &[])?;
        let v = node.ask(PendingTxsQuery).await.map_err(node_error)?;
        Ok(to_json(&v))
    });
}
