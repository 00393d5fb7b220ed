//! The headless runner's reports: one row per block, every event, the expectations' results.
//! Deterministic: the same fixture gives the same report, byte for byte.

use crate::chain::{Block, Event, EventRecord};
use crate::engine::types::u128_str;
use crate::engine::{Address, Failure, H256, TimerEvent};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use crate::engine::scheduler::PRICE_SCALE;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
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
    /// The scheduler that planned the block (`fifo` | `eip1559`).
    pub scheduler: String,
    /// The timer-lane basefee in force for the block, in nanos per cycle (CIP-1 v3 §5; under
    /// FIFO the cycle basefee × 10^9).
    #[serde(with = "u128_str")]
    pub lane_basefee: u128,
    /// Lane cycles reserved over `LANE_TIMER_CYCLES`, in basis points.
    pub utilisation_bps: u32,
    /// Timers the lane selected (they fired).
    pub selected: u64,
    /// The median tip per cycle of the block's fired timers, in nanos (0 when none fired).
    #[serde(with = "u128_str")]
    pub p50_tip: u128,
    /// Tips paid to the proposer by the block's fires.
    #[serde(with = "u128_str")]
    pub tips: u128,
    /// Whether a timer that was live did not fit the lane (the lane was full for it).
    pub lane_full: bool,
    /// How many consecutive blocks the row stands for: a run of empty blocks (no
    /// transactions, nothing due, no events, no outage, no migration, the same pending count)
    /// is one row, from `height` to `height + count - 1`, with the hash and state root of its
    /// last block. Absent (1) for every other row.
    #[serde(skip_serializing_if = "is_one", default = "one")]
    pub count: u64,
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

fn one() -> u64 {
    1
}

/// The CIP-1 v3 lane figures of a block (what `Block.lane` carries).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaneFigures {
    pub scheduler: String,
    pub basefee: u128,
    pub utilisation_bps: u32,
    pub selected: u64,
    pub p50_tip: u128,
    pub tips: u128,
    pub full: bool,
}

impl LaneFigures {
    /// The lane figures of block `b` (its `lane`, CIP-1 v3).
    pub fn of(b: &Block) -> Self {
        let l = &b.lane;
        LaneFigures {
            scheduler: l.scheduler.to_string(),
            basefee: l.basefee,
            utilisation_bps: l.utilisation_bps(),
            selected: l.selected,
            p50_tip: l.p50_tip,
            tips: l.tips,
            full: l.full(),
        }
    }
}

impl BlockRow {
    pub fn of(b: &Block) -> Self {
        let lane = LaneFigures::of(b);
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
            scheduler: lane.scheduler,
            lane_basefee: lane.basefee,
            utilisation_bps: lane.utilisation_bps,
            selected: lane.selected,
            p50_tip: lane.p50_tip,
            tips: lane.tips,
            lane_full: lane.full,
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
            && self.lane_basefee == next.lane_basefee
            && self.scheduler == next.scheduler
            && self.height.checked_add(self.count) == Some(next.height)
    }

    /// Adds `next` (one block, or a run of them) to this row's run (see
    /// [`absorbs`](Self::absorbs)).
    pub fn absorb(&mut self, next: &BlockRow) {
        self.count += next.count;
        self.hash = next.hash;
        self.state_root = next.state_root;
    }

    pub const CSV_HEADER: &'static str = "height,hash,state_root,skipped,txs,failed_txs,due,fired,deferred,expired,unfunded,gc_cycles,lane_reserved,lane_used,migrated,pending,scheduler,lane_basefee,utilisation_bps,selected,p50_tip,tips,lane_full";

    pub fn csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
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
            self.pending,
            self.scheduler,
            self.lane_basefee,
            self.utilisation_bps,
            self.selected,
            self.p50_tip,
            self.tips,
            self.lane_full
        )
    }
}

/// How one fixture step went.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct StepOutcome {
    pub at: u64,
    pub line: usize,
    pub action: String,
    pub ok: bool,
    /// The error, if the step failed (expected or not).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<Failure>,
    /// Whether the outcome is what the fixture wanted (`expect_error` included).
    pub as_expected: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
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
    /// Priority tips paid to the proposer by the run's fires (CIP-1 v3 §3 step 8).
    #[serde(with = "u128_str")]
    pub tipped: u128,
    /// Blocks in which a live timer did not fit the lane.
    pub full_lane_blocks: u64,
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
    /// The scheduler(s) the run played under (`fifo`, `eip1559`, `fifo→eip1559@H`).
    pub scheduler: String,
    /// The named variants in force that differ from the default (issue 21), by name.
    pub variants: BTreeMap<String, String>,
    /// Why the run stopped before its end (`file:line: field: message`), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    pub summary: Summary,
    pub expectations: Vec<ExpectationResult>,
    pub steps: Vec<StepOutcome>,
    /// Per actor: fires, deferrals, latency, fees, tips, W (address order).
    pub actors: Vec<ActorRow>,
    pub blocks: Vec<BlockRow>,
    pub events: Vec<EventRecord>,
    /// The timers the fixture's steps labelled (`label = ...`), by label: what `run --trace`
    /// names a timer by. Not in the JSON report (its steps and events carry the ids).
    #[serde(skip)]
    pub labels: BTreeMap<String, crate::engine::TimerId>,
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

/// Latencies (fire height minus due height, in blocks) in bounded memory: exact below
/// [`LatencyHistogram::EXACT`] blocks; above, bucketed with 512 buckets per power of two, so a
/// percentile there is the lower bound of its bucket, within 0.2 % of the true value. At most
/// about 28,000 buckets whatever the run's length (sparse: only the buckets seen are kept).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyHistogram {
    counts: BTreeMap<u32, u64>,
    total: u64,
}

impl LatencyHistogram {
    /// Latencies below this are kept exactly.
    pub const EXACT: u64 = 1024;
    const SUB_BITS: u32 = 9;

    fn bucket(v: u64) -> u32 {
        if v < Self::EXACT {
            return v as u32;
        }
        let top = 63 - v.leading_zeros();
        let shift = top - Self::SUB_BITS;
        let sub = (v >> shift) as u32 - (1 << Self::SUB_BITS);
        Self::EXACT as u32 + (shift - 1) * (1 << Self::SUB_BITS) + sub
    }

    fn lower_bound(b: u32) -> u64 {
        if u64::from(b) < Self::EXACT {
            return u64::from(b);
        }
        let rest = b - Self::EXACT as u32;
        let shift = rest / (1 << Self::SUB_BITS) + 1;
        let sub = u64::from(rest % (1 << Self::SUB_BITS)) + (1 << Self::SUB_BITS);
        sub << shift
    }

    pub fn record(&mut self, latency: u64) {
        *self.counts.entry(Self::bucket(latency)).or_default() += 1;
        self.total += 1;
    }

    pub fn len(&self) -> u64 {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The nearest-rank percentile `pct` (1..=100): the smallest latency with at least
    /// `ceil(pct × n / 100)` latencies at or below it; 0 when empty.
    pub fn percentile(&self, pct: u64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = (u128::from(pct) * u128::from(self.total))
            .div_ceil(100)
            .max(1) as u64;
        let mut seen = 0u64;
        for (b, n) in &self.counts {
            seen += n;
            if seen >= rank {
                return Self::lower_bound(*b);
            }
        }
        0
    }
}

/// One actor's figures over a run (the report's `actors`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ActorRow {
    /// The fixture's name for the actor (its address when it has none).
    pub actor: String,
    pub address: Address,
    /// Timers of the actor that fired.
    pub fires: u64,
    /// `TimerDeferred` events of the actor's timers: one per timer deferred, one more per change
    /// of its reason (Spec note 71; a timer carried three blocks for one reason counts 1).
    pub deferrals: u64,
    /// Fire height minus due height, in blocks: median and 99th percentile (nearest rank).
    pub latency_p50: u64,
    pub latency_p99: u64,
    /// The largest fire latency (exact below [`LatencyHistogram::EXACT`] blocks, else the
    /// lower bound of its histogram bucket): with under 100 fires, equal to `latency_p99`.
    pub latency_max: u64,
    /// What its fee payers paid for its fires (`cost`, tips included).
    #[serde(with = "u128_str")]
    pub fees: u128,
    /// The part of `fees` that went to the proposer as priority tips.
    #[serde(with = "u128_str")]
    pub tips: u128,
    /// W(actor) in basis points (10,000 = 1) at the end of the run, CIP-1 v3 §8; absent
    /// while the chain has no fairness window (FIFO).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight_bps: Option<u32>,
}

/// Per-actor tallies, fed with every event of a run: memory follows the actors, not the
/// blocks or the fires.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ActorTally {
    by_actor: BTreeMap<Address, Tally>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Tally {
    fires: u64,
    deferrals: u64,
    latency: LatencyHistogram,
    #[serde(with = "u128_str")]
    fees: u128,
    #[serde(with = "u128_str")]
    tips: u128,
}

impl ActorTally {
    /// Counts the fires and deferrals among `events`.
    pub fn record(&mut self, events: &[EventRecord]) {
        for r in events {
            match &r.event {
                Event::Timer(TimerEvent::TimerFired {
                    actor,
                    height,
                    cost,
                    tip,
                    ..
                }) => {
                    let t = self.by_actor.entry(*actor).or_default();
                    t.fires += 1;
                    t.latency.record(r.height.saturating_sub(*height));
                    t.fees = t.fees.saturating_add(*cost);
                    t.tips = t.tips.saturating_add(*tip);
                }
                Event::Timer(TimerEvent::TimerDeferred { actor, .. }) => {
                    self.by_actor.entry(*actor).or_default().deferrals += 1;
                }
                _ => {}
            }
        }
    }

    /// One actor's row so far (W not filled in).
    pub fn row(&self, actor: &Address) -> Option<ActorRow> {
        let t = self.by_actor.get(actor)?;
        Some(ActorRow {
            actor: actor.to_string(),
            address: *actor,
            fires: t.fires,
            deferrals: t.deferrals,
            latency_p50: t.latency.percentile(50),
            latency_p99: t.latency.percentile(99),
            latency_max: t.latency.percentile(100),
            fees: t.fees,
            tips: t.tips,
            weight_bps: None,
        })
    }

    /// Total tips over every actor.
    pub fn tips(&self) -> u128 {
        self.by_actor
            .values()
            .fold(0u128, |a, t| a.saturating_add(t.tips))
    }

    /// The rows, named by `book`, in address order; `weight` gives W(actor) if known.
    pub fn rows(
        &self,
        book: &BTreeMap<Address, String>,
        weight: &dyn Fn(&Address) -> Option<u32>,
    ) -> Vec<ActorRow> {
        self.by_actor
            .iter()
            .map(|(a, t)| ActorRow {
                actor: book.get(a).cloned().unwrap_or_else(|| a.to_string()),
                address: *a,
                fires: t.fires,
                deferrals: t.deferrals,
                latency_p50: t.latency.percentile(50),
                latency_p99: t.latency.percentile(99),
                latency_max: t.latency.percentile(100),
                fees: t.fees,
                tips: t.tips,
                weight_bps: weight(a),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_histogram_is_exact_below_1024_and_within_0_2_percent_above() {
        let mut h = LatencyHistogram::default();
        for v in 0..100 {
            h.record(v);
        }
        assert_eq!(h.percentile(50), 49);
        assert_eq!(h.percentile(99), 98);
        assert_eq!(h.percentile(100), 99);
        for v in [1024u64, 1500, 70_000, 5_000_000_000, u64::MAX] {
            let lb = LatencyHistogram::lower_bound(LatencyHistogram::bucket(v));
            assert!(lb <= v && v - lb <= v / 512, "{v} -> {lb}");
        }
        let buckets: std::collections::BTreeSet<u32> = (0..200_000u64)
            .map(|i| LatencyHistogram::bucket(i * 7919))
            .collect();
        assert!(buckets.len() < 30_000);
    }

    #[test]
    fn latency_histogram_of_nothing_is_zero() {
        assert_eq!(LatencyHistogram::default().percentile(99), 0);
    }
}
