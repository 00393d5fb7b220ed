//! The headless runner's reports: one row per block, every event, the expectations' results.
//! Deterministic: the same fixture gives the same report, byte for byte.

use crate::chain::{Block, EventRecord};
use crate::engine::types::u128_str;
use crate::engine::{Failure, H256};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct BlockRow {
    pub height: u64,
    pub hash: H256,
    pub state_root: H256,
    /// Heights skipped before this block (an outage).
    pub skipped: u64,
    pub txs: u64,
    pub failed_txs: u64,
    pub due: u64,
    pub fired: u64,
    pub deferred: u64,
    pub expired: u64,
    pub unfunded: u64,
    pub gc_cycles: u64,
    pub lane_reserved: u64,
    pub lane_used: u64,
    pub migrated: u64,
    pub pending: u64,
    /// How many consecutive blocks the row stands for: a run of empty blocks (no
    /// transactions, nothing due, no events, no outage, no migration, the same pending count)
    /// is one row, from `height` to `height + count - 1`, with the hash and state root of its
    /// last block. Absent (1) for every other row.
    #[serde(skip_serializing_if = "is_one")]
    pub count: u64,
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

impl BlockRow {
    pub fn of(b: &Block) -> Self {
        BlockRow {
            height: b.header.height,
            hash: b.header.hash,
            state_root: b.header.state_root,
            skipped: b.header.skipped,
            txs: b.receipts.len() as u64,
            failed_txs: b.receipts.iter().filter(|r| !r.success).count() as u64,
            due: b.eob.due,
            fired: b.eob.fired,
            deferred: b.eob.deferred,
            expired: b.eob.expired,
            unfunded: b.eob.unfunded,
            gc_cycles: b.eob.gc_cycles,
            lane_reserved: b.eob.lane_reserved,
            lane_used: b.eob.lane_used,
            migrated: b.migrated,
            pending: b.pending,
            count: 1,
        }
    }

    /// Nothing happened in the block(s) of this row.
    pub fn is_empty(&self) -> bool {
        self.skipped == 0
            && self.txs == 0
            && self.due == 0
            && self.fired == 0
            && self.deferred == 0
            && self.expired == 0
            && self.unfunded == 0
            && self.gc_cycles == 0
            && self.lane_reserved == 0
            && self.lane_used == 0
            && self.migrated == 0
    }

    /// Whether `next`, the row of the next block, joins this row's run of empty blocks.
    /// (An empty block has no events: every event comes with a transaction or a due timer.)
    pub fn absorbs(&self, next: &BlockRow) -> bool {
        self.is_empty()
            && next.is_empty()
            && self.pending == next.pending
            && self.height.checked_add(self.count) == Some(next.height)
    }

    /// Adds `next` (one block, or a run of them) to this row's run (see
    /// [`absorbs`](Self::absorbs)).
    pub fn absorb(&mut self, next: &BlockRow) {
        self.count += next.count;
        self.hash = next.hash;
        self.state_root = next.state_root;
    }

    pub const CSV_HEADER: &'static str = "height,hash,state_root,skipped,txs,failed_txs,due,fired,deferred,expired,unfunded,gc_cycles,lane_reserved,lane_used,migrated,pending";

    pub fn csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.height,
            self.hash,
            self.state_root,
            self.skipped,
            self.txs,
            self.failed_txs,
            self.due,
            self.fired,
            self.deferred,
            self.expired,
            self.unfunded,
            self.gc_cycles,
            self.lane_reserved,
            self.lane_used,
            self.migrated,
            self.pending
        )
    }
}

/// How one fixture step went.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct StepOutcome {
    pub at: u64,
    pub line: usize,
    pub action: String,
    pub ok: bool,
    /// The error, if the step failed (expected or not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Failure>,
    /// Whether the outcome is what the fixture wanted (`expect_error` included).
    pub as_expected: bool,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ExpectationResult {
    pub line: usize,
    pub description: String,
    pub passed: bool,
    pub detail: String,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Summary {
    pub blocks: u64,
    pub final_height: u64,
    pub final_state_root: H256,
    pub events_by_kind: BTreeMap<String, u64>,
    pub fired: u64,
    pub deferred: u64,
    pub expired: u64,
    pub unfunded: u64,
    pub pending: u64,
    #[serde(with = "u128_str")]
    pub supply: u128,
    #[serde(with = "u128_str")]
    pub burned: u128,
    /// balances + burned == supply at every block boundary of the run.
    pub funds_conserved: bool,
    pub unexpected_step_errors: u64,
    pub expectations_passed: u64,
    pub expectations_failed: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Report {
    pub fixture: String,
    pub name: String,
    pub description: String,
    /// Why the run stopped before its end (`file:line: field: message`), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    pub summary: Summary,
    pub expectations: Vec<ExpectationResult>,
    pub steps: Vec<StepOutcome>,
    pub blocks: Vec<BlockRow>,
    pub events: Vec<EventRecord>,
}

impl Report {
    /// Did everything the fixture asked for hold?
    pub fn passed(&self) -> bool {
        self.refused.is_none()
            && self.summary.expectations_failed == 0
            && self.summary.unexpected_step_errors == 0
            && self.summary.funds_conserved
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("report serializes");
        s.push('\n');
        s
    }

    /// Writes [`to_json`](Self::to_json)'s text to `w` as it is serialized, without building
    /// it in memory.
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *w, self).map_err(std::io::Error::from)?;
        w.write_all(b"\n")
    }
}
