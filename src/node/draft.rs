//! The CIP-5 drafts at the node: `timer_watch` / `timer_interval` ([`DraftTimer`]) and the
//! drafts' state as a query ([`DraftQuery`]: the Globalbox in its frozen order, the last
//! block's Mailbox, the watch index and the pending hits).

use super::core::{NodeCore, Request};
use super::error::NodeError;
use super::query::Query;
use super::registration::{Scheduled, named_timer, nonce_bound};
use super::requests::act_as_sender;
use crate::chain::{DraftTimerArgs, TimerOp, Transaction, TxKind};
use crate::engine::draft::{DraftParams, GlobalFire, Hit, MailboxEntry, NonceView};
use crate::engine::{Address, SchedulerKind, TimerId};
use serde::{Deserialize, Serialize};

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

/// A state watch as the drafts' query shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WatchView {
    pub timer_id: TimerId,
    pub target: Address,
    /// Its keys or prefixes (UTF-8, lossy).
    pub keys: Vec<String>,
    pub fire_seq: u32,
    /// Its undelivered hit, if any.
    pub hit: Option<Hit>,
    /// The `client_nonce` it was registered with (English §6.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_nonce: Option<u64>,
}

/// The CIP-5 drafts' state (`scheduler_draft`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "SchedulerDraft")]
pub struct DraftView {
    pub scheduler: SchedulerKind,
    pub params: DraftParams,
    /// The Globalbox (cip5-draft), head first: its frozen order.
    pub globalbox: Vec<GlobalFire>,
    /// The last block's Mailbox, in execution (`deliver_seq`) order.
    pub mailbox: Vec<MailboxEntry>,
    /// Candidates left by the quotas in the last block.
    pub quota_skips: u64,
    pub watches: Vec<WatchView>,
    pub next_deliver_seq: u64,
    /// The idempotent set's bindings (English §6.2): `(owner, target, client_nonce)` → timer,
    /// live or retired (kept until `until`).
    #[serde(default)]
    pub client_nonces: Vec<NonceView>,
}

/// The drafts' state now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DraftQuery;

impl Query for DraftQuery {
    type Reply = DraftView;
    fn run(&self, node: &NodeCore) -> Result<DraftView, NodeError> {
        let chain = node.chain();
        let d = chain.engine().policies().draft_state();
        let watches = d
            .watches
            .iter()
            .map(|(id, t)| {
                let m = d.meta.get(id);
                let keys = match m.map(|m| &m.kind) {
                    Some(crate::engine::draft::DraftKind::Watch { keys }) => keys
                        .iter()
                        .map(|k| String::from_utf8_lossy(k).into_owned())
                        .collect(),
                    _ => Vec::new(),
                };
                WatchView {
                    timer_id: *id,
                    target: t.actor_address,
                    keys,
                    fire_seq: m.map_or(0, |m| m.fire_seq),
                    hit: d.hits.get(id).cloned(),
                    client_nonce: d.client_nonce_of(id),
                }
            })
            .collect();
        Ok(DraftView {
            scheduler: chain.engine().scheduler(),
            params: d.params,
            globalbox: d.globalbox.clone(),
            mailbox: d.mailbox.clone(),
            quota_skips: d.last_skipped,
            watches,
            next_deliver_seq: d.next_deliver_seq,
            client_nonces: d.nonce_views(),
        })
    }
}
