//! The CIP-5 drafts at the node: `timer_watch` / `timer_interval` ([`DraftTimer`]) and the
//! drafts' state as a query ([`DraftQuery`]: the Globalbox in its frozen order, the last
//! block's Mailbox, the watch index and the pending hits).

use super::core::{NodeCore, Request};
use super::error::NodeError;
use super::query::Query;
use super::registration::{Scheduled, named_timer, nonce_bound};
use super::requests::act_as_sender;
use crate::chain::{DraftTimerArgs, TimerOp, Transaction, TxKind};
use crate::engine::Address;
pub use crate::engine::draft::{DraftView, WatchView};

/// `actor` registers a state watch (`watch`) or an interval timer (`interval`), in a
/// transaction from `from` (default: its deployer).
///
/// Built field by field in tests: end the literal with `..Default::default()`.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DraftTimer {
    pub actor: Address,
    pub from: Option<Address>,
    pub interval: bool,
    pub args: DraftTimerArgs,
    /// A label for the timer, as `timer_schedule`'s (Spec note 191): the node's, not the
    /// chain's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl Request for DraftTimer {
    type Reply = Scheduled;
    /// A refused registration is an error and changes nothing (no nonce, no fee): the chain
    /// runs the call's checks before it includes it (`Chain::check_tx`, issues 29 and 30).
    fn apply(self, node: &mut NodeCore) -> Result<Scheduled, NodeError> {
        super::requests::check_opt_label(self.label.as_deref())?;
        let client_nonce = self.args.client_nonce;
        let tx = self.tx(node)?;
        let bound = nonce_bound(node, &self.actor, client_nonce);
        let (receipt, sealed) = node.send(tx)?;
        if !receipt.success {
            return Err(NodeError::reverted(receipt));
        }
        let (timer_id, created) = named_timer(&receipt, bound);
        if let Some(l) = self.label {
            node.label_timer(timer_id, l);
        }
        Ok(Scheduled {
            timer_id,
            created,
            tx_hash: receipt.tx_hash,
            receipt,
            sealed,
        })
    }
}

impl DraftTimer {
    /// The registration's transaction: `actor` acts (`set_state_watch` or `set_interval`) in
    /// a transaction from `from`, or its deployer. The one builder of it: `timer_watch` /
    /// `timer_interval` send it, `devnet_call`'s dry run applies it to a throwaway copy.
    pub(super) fn tx(&self, node: &NodeCore) -> Result<Transaction, NodeError> {
        let from = act_as_sender(node, &self.actor, self.from)?;
        let op = if self.interval {
            TimerOp::SetInterval(self.args.clone())
        } else {
            TimerOp::SetStateWatch(self.args.clone())
        };
        Ok(Transaction::new(
            from,
            TxKind::ActAs {
                actor: self.actor,
                op,
            },
        ))
    }
}

/// The drafts' state now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DraftQuery;

impl Query for DraftQuery {
    type Reply = DraftView;
    fn run(&self, node: &NodeCore) -> Result<DraftView, NodeError> {
        let engine = node.chain().engine();
        Ok(engine.policies().draft_view(engine.scheduler()))
    }
}
