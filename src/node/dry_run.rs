//! Dry runs (issue 32, "Dry runs, receipts, the pool, events"; Spec note 174): anvil's
//! `eth_call` for the devnet. A call (as `actor_call` takes it), a timer schedule (as
//! `timer_schedule` takes it) or a CIP-5 draft registration (as `timer_watch` /
//! `timer_interval` take it, Spec note 181) runs against the head on a copy of the chain (sealed blocks are
//! shared, not copied) whose open block is then thrown away: the receipt, the events and the
//! timers it would schedule come back, with its state diff (Spec note 182); the node's chain, nonces, balances, pending
//! transactions and history are not touched.

use super::core::NodeCore;
use super::draft::DraftTimer;
use super::dry_diff::StateDiff;
use super::error::NodeError;
use super::query::Query;
use super::registration::{named_timer, nonce_bound};
use super::requests::{CallActor, ScheduleTimer, act_as_sender};
use super::txs;
use crate::chain::{Event, EventRecord, Receipt, Transaction, TxKind};
use crate::engine::{Address, TimerEvent, TimerId};
use serde::{Deserialize, Serialize};

/// What a dry run runs.
#[derive(Clone, Debug)]
pub enum DryCall {
    /// A handler call, as `actor_call` sends it.
    Call(CallActor),
    /// A timer schedule, as `timer_schedule` sends it (the actor acts in a transaction from
    /// its deployer, or `from`).
    Schedule(ScheduleTimer),
    /// A CIP-5 draft registration, as `timer_watch` / `timer_interval` send it (Spec note
    /// 181): the same transaction, built by the same [`DraftTimer`].
    Draft(DraftTimer),
}

impl DryCall {
    /// A registration's actor and `client_nonce` (it names a timer); `None` for a call.
    fn registration(&self) -> Option<(Address, Option<u64>)> {
        match self {
            DryCall::Call(_) => None,
            DryCall::Schedule(s) => Some((s.actor, s.args.client_nonce)),
            DryCall::Draft(d) => Some((d.actor, d.args.client_nonce)),
        }
    }
}

/// The outcome of a dry run: the receipt the transaction would get (`success: false` with
/// the error when the handler fails), the events it would emit, at the height it would be in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DryRunView {
    pub receipt: Receipt,
    pub events: Vec<EventRecord>,
    /// The height of the block it would be in (the open block's).
    pub height: u64,
    /// The handler run's trace, when asked for (`None` otherwise; empty when the transaction
    /// runs no handler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Vec<crate::chain::trace::Trace>>,
    /// A registration's timer, as the real one names it (a `client_nonce` repeat: the bound
    /// timer), and whether it would create it; `None` for a call (Spec note 192).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration: Option<Registration>,
    /// What it would change (Spec note 182).
    #[serde(default)]
    pub diff: StateDiff,
}

/// What a registration's dry run would name (issue 32, Spec note 192): `devnet_call`'s
/// `registration`, the first two fields of what `timer_schedule` / `timer_watch` /
/// `timer_interval` answer, under their own key so that they never stand where the receipt's
/// fields go (the receipt's `created` is a deploy's address).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Registration {
    /// The timer the real call would name (a `client_nonce` repeat: the bound one).
    pub timer_id: TimerId,
    /// Whether it would create it: `false` for a `client_nonce` repeat.
    pub created: bool,
}

/// Runs `call` against the head without keeping anything (Spec note 174). A transaction the
/// chain refuses before inclusion (unknown actor, a nonce, funds, a schedule the engine
/// refuses) is the error the real call answers; a handler that fails is a receipt. With
/// `trace`, the handler run's trace comes back too (Spec note 175); pinned to a past height
/// (`At`), it runs against the state as of that block.
#[derive(Clone, Debug)]
pub struct DryRun {
    pub call: DryCall,
    pub trace: bool,
}

impl DryRun {
    fn tx(&self, node: &NodeCore) -> Result<Transaction, NodeError> {
        Ok(match &self.call {
            DryCall::Call(c) => Transaction::new(
                c.from,
                TxKind::Call {
                    actor: c.actor,
                    handler: c.handler.clone(),
                    payload: c.payload.clone(),
                },
            ),
            DryCall::Schedule(s) => {
                // A label is accepted (checked as the real call checks it) and changes
                // nothing: a dry run labels no timer (Spec note 191).
                super::requests::check_opt_label(s.label.as_deref())?;
                let from = act_as_sender(node, &s.actor, s.from)?;
                txs::schedule(from, s.actor, s.args.clone())
            }
            DryCall::Draft(d) => {
                super::requests::check_opt_label(d.label.as_deref())?;
                d.tx(node)?
            }
        })
    }

    /// A registration answers as the real one does: a failed receipt is the real call's
    /// `Reverted` error, a success names its timer (`named_timer`, as `timer_schedule` /
    /// `timer_watch` / `timer_interval` do).
    fn named(
        &self,
        receipt: &Receipt,
        bound: Option<TimerId>,
    ) -> Result<Option<Registration>, NodeError> {
        if self.call.registration().is_none() {
            return Ok(None);
        }
        if !receipt.success {
            return Err(NodeError::reverted(receipt.clone()));
        }
        let (timer_id, created) = named_timer(receipt, bound);
        Ok(Some(Registration { timer_id, created }))
    }
}

impl Query for DryRun {
    type Reply = DryRunView;
    fn run(&self, node: &NodeCore) -> Result<DryRunView, NodeError> {
        let tx = self.tx(node)?;
        let bound = self
            .call
            .registration()
            .and_then(|(actor, nonce)| nonce_bound(node, &actor, nonce));
        let mut chain = node.chain().clone();
        let before = chain.open_events().map(<[EventRecord]>::len);
        if self.trace {
            // Only this call's run: the open block's traces (copied with a traced chain) are
            // dropped from the copy; the live chain keeps its own.
            chain.take_traces();
            chain.set_tracing(true);
        }
        let receipt = chain.apply_tx(tx)?;
        let registration = self.named(&receipt, bound)?;
        let trace = self.trace.then(|| chain.take_traces());
        let events = chain.open_events().unwrap_or_default();
        let events = match before {
            Some(n) => events[n..].to_vec(),
            // The block opened for the call may announce an activation: not the call's.
            None => events
                .iter()
                .filter(|r| !matches!(r.event, Event::Timer(TimerEvent::SchedulerActivated { .. })))
                .cloned()
                .collect(),
        };
        let diff = StateDiff::of(node.chain(), &chain, &receipt, &events, bound);
        Ok(DryRunView {
            diff,
            receipt,
            events,
            height: chain.pending_height(),
            trace,
            registration,
        })
    }
}
