//! Dry runs (issue 32, "Dry runs, receipts, the pool, events"; Spec note 174): anvil's
//! `eth_call` for the devnet. A call (as `actor_call` takes it) or a timer schedule (as
//! `timer_schedule` takes it) runs against the head on a copy of the chain (sealed blocks are
//! shared, not copied) whose open block is then thrown away: the receipt, the events and the
//! timers it would schedule come back; the node's chain, nonces, balances, pending
//! transactions and history are not touched.

use super::core::NodeCore;
use super::error::NodeError;
use super::query::Query;
use super::requests::{CallActor, ScheduleTimer, act_as_sender};
use super::txs;
use crate::chain::{Event, EventRecord, Receipt, Transaction, TxKind};
use crate::engine::TimerEvent;
use serde::{Deserialize, Serialize};

/// What a dry run runs.
#[derive(Clone, Debug)]
pub enum DryCall {
    /// A handler call, as `actor_call` sends it.
    Call(CallActor),
    /// A timer schedule, as `timer_schedule` sends it (the actor acts in a transaction from
    /// its deployer, or `from`).
    Schedule(ScheduleTimer),
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
                let from = act_as_sender(node, &s.actor, s.from)?;
                txs::schedule(from, s.actor, s.args.clone())
            }
        })
    }
}

impl Query for DryRun {
    type Reply = DryRunView;
    fn run(&self, node: &NodeCore) -> Result<DryRunView, NodeError> {
        let tx = self.tx(node)?;
        let mut chain = node.chain().clone();
        let before = chain.open_events().map(<[EventRecord]>::len);
        if self.trace {
            // Only this call's run: the open block's traces (copied with a traced chain) are
            // dropped from the copy; the live chain keeps its own.
            chain.take_traces();
            chain.set_tracing(true);
        }
        let receipt = chain.apply_tx(tx)?;
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
        Ok(DryRunView {
            receipt,
            events,
            height: chain.pending_height(),
            trace,
        })
    }
}
