//! Traces rebuilt by replay, kept (issue 31 item 7, issue 32 "Traces"): a block whose traces
//! the node did not record (no `--trace`) is replayed from its checkpoint to answer
//! `devnet_traceBlock` / `traceFire` / `traceTransaction`, on a past-read thread. A dashboard's
//! `t` pressed again, or a script tracing the same block twice, would replay it again: the node
//! keeps what it rebuilt, keyed by the block's height and hash.
//!
//! Spec note 205: a rebuilt trace is the replay of one block, so it depends on that block
//! alone: keyed by its hash, an entry can never answer for another block at the same height
//! (after a revert, a reset or a load the chain's block there has another hash and misses).
//! The entries are bounded by an estimate of what they hold ([`REBUILT_TRACES_BUDGET`]) and by
//! a count ([`REBUILT_TRACES_MAX`]), least recently used dropped first, and leave with the
//! retained history (a height below the window's first is never asked).
//!
//! As with the kept past states (`core/past_cache.rs`), an entry is a slot the node's thread
//! makes on the first ask and a past-read thread fills under the slot's lock: asks of the same
//! block that arrive while it is being replayed wait on that lock instead of replaying again.
//! The node's thread never waits on a slot.

use crate::chain::trace::{Trace, TraceStep};
use crate::engine::H256;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

/// What the rebuilt traces kept may hold, by the estimate of [`approx_bytes`]: 16 MiB.
pub const REBUILT_TRACES_BUDGET: usize = 16 << 20;

/// Blocks whose rebuilt traces are kept at most.
pub const REBUILT_TRACES_MAX: usize = 64;

/// One block's rebuilt traces: empty until its first reader has replayed it.
pub(crate) type TraceSlot = super::slot::Slot<Arc<Vec<Trace>>>;

#[derive(Debug)]
struct Entry {
    height: u64,
    hash: H256,
    slot: TraceSlot,
    /// The estimate of what its traces hold, once built (0 before).
    bytes: usize,
}

/// The rebuilt traces kept, most recently used last. Shared (an `Arc`) between the node and
/// the past-read threads that fill it.
#[derive(Debug)]
pub(crate) struct RebuiltTraces {
    entries: Mutex<VecDeque<Entry>>,
    /// What the built entries may hold (0: none is kept, every ask replays).
    budget: usize,
}

impl Default for RebuiltTraces {
    fn default() -> Self {
        RebuiltTraces::with_budget(REBUILT_TRACES_BUDGET)
    }
}

/// How to answer a block's traces from the kept ones.
pub(crate) enum Lookup {
    /// Rebuilt already.
    Built(Arc<Vec<Trace>>),
    /// Being rebuilt, or to rebuild (`replay`: this ask holds the slot's first build, or
    /// rebuilds one whose build failed).
    Wait { slot: TraceSlot, replay: bool },
}

impl RebuiltTraces {
    pub(crate) fn with_budget(budget: usize) -> Self {
        RebuiltTraces {
            entries: Mutex::new(VecDeque::new()),
            budget,
        }
    }

    fn entries(&self) -> MutexGuard<'_, VecDeque<Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The kept traces of block `hash` at `height`, or its slot (made now when new, moved to
    /// most recently used). Never waits for a reader building it.
    pub(crate) fn lookup(&self, height: u64, hash: &H256) -> Lookup {
        let mut entries = self.entries();
        let slot = match entries
            .iter()
            .position(|e| e.height == height && e.hash == *hash)
        {
            Some(i) => {
                let e = entries.remove(i).expect("found");
                let slot = e.slot.clone();
                entries.push_back(e);
                slot
            }
            None => {
                if entries.len() >= REBUILT_TRACES_MAX {
                    entries.pop_front();
                }
                let slot = TraceSlot::default();
                entries.push_back(Entry {
                    height,
                    hash: *hash,
                    slot: slot.clone(),
                    bytes: 0,
                });
                return Lookup::Wait { slot, replay: true };
            }
        };
        // Locked: a reader is replaying it. Unlocked and empty: its build failed.
        let state = match slot.try_lock() {
            Ok(g) => Some(g.as_ref().cloned()),
            Err(_) => None,
        };
        match state {
            Some(Some(t)) => Lookup::Built(t),
            Some(None) => Lookup::Wait { slot, replay: true },
            None => Lookup::Wait {
                slot,
                replay: false,
            },
        }
    }

    /// Notes what block `hash`'s rebuilt traces hold, and drops the least recently used
    /// built entries (not this one) while the kept ones hold more than the budget.
    pub(crate) fn built(&self, hash: &H256, bytes: usize) {
        let mut entries = self.entries();
        if let Some(e) = entries.iter_mut().find(|e| e.hash == *hash) {
            e.bytes = bytes;
        }
        let mut total: usize = entries.iter().map(|e| e.bytes).sum();
        let mut i = 0;
        while total > self.budget && i < entries.len() {
            // This one too when the budget keeps none (or it alone is over it).
            if (entries[i].hash != *hash || self.budget < bytes) && entries[i].bytes > 0 {
                total -= entries[i].bytes;
                entries.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Lets go of the blocks below `first_kept` (the retained history no longer holds them).
    pub(crate) fn prune_below(&self, first_kept: u64) {
        self.entries().retain(|e| e.height >= first_kept);
    }

    /// The blocks whose rebuilt traces are kept now, and the estimate of what they hold.
    pub(crate) fn held(&self) -> (usize, usize) {
        let entries = self.entries();
        (entries.len(), entries.iter().map(|e| e.bytes).sum())
    }
}

/// An estimate of the heap a block's traces hold: each trace's record, its strings and steps,
/// and the JSON values of its host calls' arguments and results.
pub(crate) fn approx_bytes(traces: &[Trace]) -> usize {
    traces
        .iter()
        .map(|t| {
            let end = &t.end;
            let strings = [&end.error, &end.failed_in, &end.source_line]
                .iter()
                .map(|s| s.as_ref().map_or(0, String::len))
                .sum::<usize>();
            std::mem::size_of::<Trace>()
                + t.entry.len()
                + strings
                + t.steps.iter().map(step_bytes).sum::<usize>()
        })
        .sum()
}

fn step_bytes(s: &TraceStep) -> usize {
    std::mem::size_of::<TraceStep>()
        + match s {
            TraceStep::Call {
                call,
                args,
                result,
                error,
                ..
            } => {
                call.len()
                    + value_bytes(args)
                    + value_bytes(result)
                    + error.as_ref().map_or(0, String::len)
            }
            TraceStep::Print { line } => line.len(),
        }
}

fn value_bytes(v: &Value) -> usize {
    const NODE: usize = std::mem::size_of::<Value>();
    match v {
        Value::String(s) => s.len(),
        Value::Array(a) => a.iter().map(|v| NODE + value_bytes(v)).sum(),
        // A map entry: its key, its value and the tree's node overhead (about 32 B).
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| k.len() + NODE + 32 + value_bytes(v))
            .sum(),
        _ => 0,
    }
}
