//! Execution traces at the node (issue 32, "Traces"): kept per block for the retained history
//! when the node traces (`--trace`), and rebuilt on demand by replay otherwise.
//!
//! Spec note 163: a block's traces are kept with the hash of the block they were recorded in.
//! A revert, a reset, a load or a `devnet_revertTo` may replace that block; a trace whose
//! block is no longer the chain's at its height is not answered (and is dropped when the
//! history passes it). A trace that is not kept (tracing off, or recorded on a replaced
//! branch) is rebuilt by replaying the block from the nearest checkpoint with tracing on
//! (`past.rs`): the replayed block must have the recorded block's hash, else the answer is an
//! error saying the replay diverged. Traces of blocks older than the retained history are
//! `HistoryPruned`, as the blocks are.

use super::core::NodeCore;
use super::error::NodeError;
use super::query::{Answer, Query};
use super::slot::filled;
use super::trace_cache::{Lookup, RebuiltTraces, approx_bytes};
use crate::chain::trace::{Trace, TraceOf};
use crate::engine::{H256, TimerId};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The traces the node keeps: per sealed height, with the hash of the block they belong to.
#[derive(Clone, Debug, Default)]
pub struct TraceStore {
    /// Trace every handler run (`--trace`).
    pub on: bool,
    blocks: BTreeMap<u64, (H256, Arc<Vec<Trace>>)>,
    /// The traces rebuilt by replay, kept (`trace_cache.rs`, Spec note 205); shared with the
    /// past-read threads that fill it.
    rebuilt: Arc<RebuiltTraces>,
}

impl TraceStore {
    /// Keeps what the chain traced in the block just sealed (`height`, `hash`), and lets go of
    /// the heights below `first_kept`.
    pub(super) fn sealed(&mut self, traces: Vec<Trace>, height: u64, hash: H256, first_kept: u64) {
        if !traces.is_empty() {
            self.blocks.insert(height, (hash, Arc::new(traces)));
        }
        while self
            .blocks
            .first_key_value()
            .is_some_and(|(h, _)| *h < first_kept)
        {
            self.blocks.pop_first();
        }
        self.rebuilt.prune_below(first_kept);
    }

    /// The traces kept for `height` if they are of the block `hash`.
    fn kept(&self, height: u64, hash: &H256) -> Option<Arc<Vec<Trace>>> {
        let (h, t) = self.blocks.get(&height)?;
        (h == hash).then(|| t.clone())
    }
}

/// Which traces to answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceQuery {
    /// Every handler run of a sealed block, in order.
    Block(u64),
    /// The run of a transaction (its call or its deploy).
    Tx(H256),
    /// A timer's fire: at `height`, or its last fire the node knows.
    Fire {
        timer_id: TimerId,
        height: Option<u64>,
    },
}

impl Query for TraceQuery {
    type Reply = Vec<Trace>;
    fn run(&self, node: &NodeCore) -> Result<Vec<Trace>, NodeError> {
        self.answer(node).finish()
    }
    /// A trace kept (`--trace`) is answered on the node's thread; one rebuilt by replay is
    /// replayed on a past-read thread (issue 31 item 7).
    fn answer(&self, node: &NodeCore) -> Answer<Vec<Trace>> {
        match self {
            TraceQuery::Block(h) => node.block_traces_answer(*h).and_then(|t| Ok(t.to_vec())),
            TraceQuery::Tx(hash) => node.tx_trace(hash),
            TraceQuery::Fire { timer_id, height } => node.fire_trace(timer_id, *height),
        }
    }
}

/// A sealed block's traces as the node holds them, kept or rebuilt (shared, not copied): what
/// `devnet_traceBlock` writes. [`TraceQuery::Block`] answers the same traces as a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockTraces(pub u64);

impl Query for BlockTraces {
    type Reply = Arc<Vec<Trace>>;
    fn run(&self, node: &NodeCore) -> Result<Arc<Vec<Trace>>, NodeError> {
        self.answer(node).finish()
    }
    fn answer(&self, node: &NodeCore) -> Answer<Arc<Vec<Trace>>> {
        node.block_traces_answer(self.0)
    }
}

/// A timer's fire's trace (`devnet_traceFire`): at `height`, or its last fire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FireTrace {
    pub timer_id: TimerId,
    pub height: Option<u64>,
}

impl Query for FireTrace {
    type Reply = Vec<Trace>;
    fn run(&self, node: &NodeCore) -> Result<Vec<Trace>, NodeError> {
        self.answer(node).finish()
    }
    fn answer(&self, node: &NodeCore) -> Answer<Vec<Trace>> {
        node.fire_trace(&self.timer_id, self.height)
    }
}

impl NodeCore {
    /// The traces kept (with `--trace`) of blocks still the chain's, oldest first (the last
    /// `--history` heights).
    pub fn kept_traces(&self) -> Vec<Arc<Vec<Trace>>> {
        self.traces
            .blocks
            .iter()
            // A block the node no longer holds (a headless run keeps a few) cannot have been
            // replaced: its traces stand.
            .filter(|(h, (hash, _))| self.block(**h).is_none_or(|b| b.header.hash == *hash))
            .map(|(_, (_, t))| t.clone())
            .collect()
    }

    /// The traces of sealed block `height`: kept, or rebuilt by replay.
    pub fn block_traces(&self, height: u64) -> Result<Arc<Vec<Trace>>, NodeError> {
        self.block_traces_answer(height).finish()
    }

    /// [`block_traces`](Self::block_traces), the replay (when the traces are not kept) left
    /// to finish off the node's thread.
    fn block_traces_answer(&self, height: u64) -> Answer<Arc<Vec<Trace>>> {
        if height == 0 || height > self.height() {
            return Answer::Done(Err(NodeError::InvalidInput(format!(
                "no sealed block #{height} to trace (the head is #{})",
                self.height()
            ))));
        }
        let Some(block) = self.block(height) else {
            return Answer::Done(Err(NodeError::HistoryPruned {
                first_kept: self.first_kept(),
                keep: self.history_len,
            }));
        };
        if let Some(t) = self.traces.kept(height, &block.header.hash) {
            return Answer::Done(Ok(t));
        }
        if block.receipts.is_empty() && block.events.is_empty() {
            return Answer::Done(Ok(Arc::new(Vec::new())));
        }
        let hash = block.header.hash;
        let (slot, replay) = match self.traces.rebuilt.lookup(height, &hash) {
            Lookup::Built(t) => return Answer::Done(Ok(t)),
            Lookup::Wait { slot, replay } => (slot, replay),
        };
        let replay = match replay {
            true => match self.trace_replay(height, &hash) {
                Ok(r) => Some(r),
                Err(e) => return Answer::Done(Err(e)),
            },
            false => None,
        };
        let cache = self.traces.rebuilt.clone();
        // On a past-read thread: the first ask replays under the slot's lock, the others wait.
        Answer::Off(Box::new(move || {
            // Seeded: this ask may replay (the entry's size is noted again if another did).
            let seeded = replay.is_some();
            let build = replay.map(|r| move || r.run().map(Arc::new));
            let t = filled(&slot, build, || {
                format!(
                    "the traces of block #{height} could not be rebuilt (see the first ask's error)"
                )
            })?
            .clone()
            .expect("built");
            if seeded {
                cache.built(&hash, approx_bytes(&t));
            }
            Ok(t)
        }))
    }

    /// The blocks whose traces rebuilt by replay are kept, and an estimate of what they hold
    /// (Spec note 205).
    pub fn rebuilt_traces_held(&self) -> (usize, usize) {
        self.traces.rebuilt.held()
    }

    /// Sets what the traces rebuilt by replay may hold (Spec note 205; 0: none is kept, each
    /// ask replays, as before), dropping the kept ones.
    pub fn set_rebuilt_traces_budget(&mut self, bytes: usize) {
        self.traces.rebuilt = Arc::new(RebuiltTraces::with_budget(bytes));
    }

    /// The trace of a transaction's run: pending (traced as it was applied, `--trace` only) or
    /// in a kept block.
    fn tx_trace(&self, hash: &H256) -> Answer<Vec<Trace>> {
        let hash = *hash;
        let is = move |t: &Trace| matches!(&t.of, TraceOf::Tx { tx_hash, .. } if *tx_hash == hash);
        let Some(rec) = self.tx_by_hash(&hash) else {
            let head = self.height();
            let msg = super::pool::not_found_message(&hash, self.first_kept(), head);
            return Answer::Done(Err(NodeError::InvalidInput(msg)));
        };
        if rec.state == super::pool::TxState::Pending {
            let t: Vec<Trace> = self
                .chain()
                .recorded_traces()
                .iter()
                .filter(|t| is(t))
                .cloned()
                .collect();
            if t.is_empty() {
                return Answer::Done(Err(NodeError::InvalidInput(format!(
                    "transaction {hash} is in the open block #{}: it is traced when the node traces (--trace), or once its block is sealed",
                    rec.height
                ))));
            }
            return Answer::Done(Ok(t));
        }
        self.block_traces_answer(rec.height)
            .and_then(move |all| Ok(all.iter().filter(|t| is(t)).cloned().collect()))
    }

    /// The trace of a timer's fire at `height` (default: the height it left the node at).
    fn fire_trace(&self, id: &TimerId, height: Option<u64>) -> Answer<Vec<Trace>> {
        let id = *id;
        let height = match height {
            Some(h) => h,
            None => match self.fired_at(&id) {
                Some(h) => h,
                None => {
                    let how = match self.timer(&id) {
                        None => "is not known to the node".to_string(),
                        Some(t) => format!(
                            "has no fire the node knows of (status: {})",
                            t.status.as_str()
                        ),
                    };
                    return Answer::Done(Err(NodeError::InvalidInput(format!(
                        "timer {id} {how}: give the fire's height if it fired before the kept history"
                    ))));
                }
            },
        };
        self.block_traces_answer(height).and_then(move |all| {
            // The fire and, under an auction, the custom GBA call that priced it (issue 32).
            let fire: Vec<Trace> = all
                .iter()
                .filter(|t| t.of.timer() == Some(&id))
                .cloned()
                .collect();
            if !fire.iter().any(|t| matches!(t.of, TraceOf::Fire { .. })) {
                return Err(NodeError::InvalidInput(format!(
                    "timer {id} did not fire in block #{height}"
                )));
            }
            Ok(fire)
        })
    }
}
