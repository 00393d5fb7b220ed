//! The dashboard's plain data (issue 15, "How it is built"): what the panes render and what a
//! command's refusal says. No chain types beyond ids and addresses: an in-process node and the
//! JSON-RPC client both fill these types. A leaf: it imports nothing else of the dashboard.

use crate::engine::{Address, H256, PriorityTier, TimerId};
use std::collections::BTreeMap;

/// How the node produces blocks (issue 13: mining modes are state of the node).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MiningMode {
    /// Every transaction seals a block.
    Auto,
    /// Blocks only on request.
    Manual,
    /// A block every `ms` milliseconds.
    Interval { ms: u64 },
}

impl MiningMode {
    pub fn label(&self) -> String {
        match self {
            MiningMode::Auto => "auto".into(),
            MiningMode::Manual => "manual".into(),
            MiningMode::Interval { ms } => format!("interval {}", fmt_ms(*ms)),
        }
    }
}

fn fmt_ms(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        let frac = format!("{:03}", ms % 1000);
        format!("{}.{}s", ms / 1000, frac.trim_end_matches('0'))
    }
}

/// The status bar's figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// Height of the last sealed block.
    pub height: u64,
    pub mining: MiningMode,
    /// The scheduler planning the next block (its facts say what the panes show for it).
    pub scheduler: crate::engine::SchedulerKind,
    /// Height at which the CIP-1 v3 scheduler takes over, when one is set.
    pub activation_height: Option<u64>,
    pub cycle_basefee: u128,
    pub cell_basefee: u128,
    /// The CIP-1 v3 timer-lane basefee of the next block, nanos per cycle; `None` under `fifo`
    /// with no activation height set.
    pub lane_basefee: Option<u128>,
    pub pending_timers: u64,
    /// Where the JSON-RPC API listens, when it does.
    pub rpc_address: Option<String>,
    /// `LANE_TIMER_CYCLES` in force.
    pub lane_cycles: u64,
    /// The GC lane's budget per block (`gc_cycles_per_block`).
    pub gc_cycles: u64,
    /// The named variants in force that are not the default, `name=value` (issue 21).
    pub variants: Vec<String>,
    /// The live head's height (issue 24): `height` is the viewed one.
    pub tip: u64,
    /// The oldest height the node keeps (Spec note 73).
    pub first_kept: u64,
    /// The oldest height whose state the node can read (Spec note 225): the past view stops
    /// there.
    pub first_state: u64,
    /// `max_ttl_blocks` in force: the latest `expires_at` an extension can set is the block's
    /// height plus this (CIP-5 §5.4; issue 34, item 4).
    pub max_ttl_blocks: u64,
    /// The largest gas per fire a schedule takes now (the node's `max_gas_per_fire`: under
    /// eip1559 the §10 auction cap; issue 34, item 13).
    pub gas_cap: u64,
    /// Which chain this is (the node's `chain_id`): another one after a reattach resets what
    /// the dashboard kept of the old chain (issue 34, item 6).
    pub chain_id: H256,
}

/// One coming height and what is due there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketSummary {
    pub height: u64,
    pub count: u64,
    /// Sum of the timers' fire budgets (`gas_limit_per_fire` bounded by the `max_cycles_per_fire`
    /// in force, Spec note 16): the lane they reserve.
    pub gas: u64,
    /// Whether the summed gas fits the execution lane.
    pub fits_lane: bool,
}

/// A pending timer as a row of a bucket (execution order) or of a timer's life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerRow {
    pub id: TimerId,
    pub actor: Address,
    pub fee_payer: Address,
    /// The height it was scheduled for (a carried timer keeps it).
    pub height: u64,
    pub schedule_block: u64,
    /// Cycles per fire: a pending timer's fire budget (`gas_limit_per_fire` bounded by the
    /// `max_cycles_per_fire` in force, Spec note 16); a timer no longer pending, as scheduled.
    pub gas_limit: u64,
    pub expires_at: u64,
    pub handler: String,
    pub payload_len: u64,
    /// The most a fire may cost the fee payer at today's basefees.
    pub max_cost: u128,
    /// CIP-1 v3 effective priority (`priority per cycle × W`, nanos × bps) at the lane basefee
    /// now; `None` under `fifo`, or when its `max_fee_per_cycle` is below the lane basefee
    /// (it would be deferred `below_basefee`).
    pub effective_priority: Option<u128>,
    /// Its place in the bucket's execution order under eip1559 (1 runs first); `None` under
    /// `fifo`.
    pub rank: Option<u64>,
    /// CIP-1 v3 §6 fee caps given at schedule, nanos per cycle (`None`: priced by a GBA).
    pub max_fee_per_cycle: Option<u128>,
    pub max_priority_fee_per_cycle: Option<u128>,
    /// §7.3 tier given at schedule (`economy`, `standard`, `fast`, `urgent`).
    pub priority_tier: Option<PriorityTier>,
    /// Blocks it has been carried so far (0: never deferred).
    pub carried: u32,
    /// Why it was last deferred (`lane`, `outbid`, `over_cap`, `below_basefee`, `gc_budget`).
    pub last_defer: Option<String>,
}

/// A price in nanos per cycle (CIP-1 v3 contract decision 1, `PRICE_SCALE` = 10^9) in base
/// units: `1_125_000_000` reads `1.125`, `8` reads `0.000000008`, `2_000_000_000` reads `2`.
pub fn fmt_nanos(nanos: u128) -> String {
    let scale = crate::engine::scheduler::lane::PRICE_SCALE;
    let frac = nanos % scale;
    if frac == 0 {
        (nanos / scale).to_string()
    } else {
        let f = format!("{frac:09}");
        format!("{}.{}", nanos / scale, f.trim_end_matches('0'))
    }
}

/// Calendar-queue tiers (CIP-1 v3 §2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tiers {
    /// First height of the ring (the next height to drain).
    pub ring_start: u64,
    /// Timers per ring slot, for heights `ring_start..ring_start + ring.len()`.
    pub ring: Vec<u32>,
    pub ring_total: u64,
    /// `(first height of the epoch, timers)` per epoch-queue bucket.
    pub epoch_buckets: Vec<(u64, u64)>,
    pub epoch_total: u64,
    pub overflow_size: u64,
    pub overflow_root: Option<H256>,
    /// `(first height of the epoch, timers)` in the overflow set.
    pub overflow_epochs: Vec<(u64, u64)>,
    /// The height whose block runs the next maintenance slice.
    pub next_maintenance: u64,
    /// First height of the next epoch (where the ring's window moves on).
    pub next_epoch: u64,
    /// Timers moved inward by the last block's maintenance.
    pub last_migrated: u64,
}

/// One sealed block's lane figures (`Block.lane`, CIP-1 v3 §3, §5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneRow {
    pub height: u64,
    /// The scheduler that planned the block (`fifo` or `eip1559`).
    pub scheduler: String,
    /// The lane basefee in force for the block, nanos per cycle (under `fifo`: the cycle
    /// basefee × `PRICE_SCALE`).
    pub basefee: u128,
    /// Lane use in basis points of `LANE_TIMER_CYCLES`: the cycles `utilisation_of` names.
    pub utilisation_bps: u32,
    /// `consumed` or `reserved`: what the basefee followed (Spec note 152).
    pub utilisation_of: String,
    pub cycles_used: u64,
    pub cycles_reserved: u64,
    pub gc_cycles: u64,
    pub fired: u64,
    /// Timers selected (pre-charged) to fire.
    pub selected: u64,
    pub deferred: u64,
    /// Of `deferred`, those that did not fit (`lane` and `outbid`).
    pub lane_deferred: u64,
    /// The p50 tip of the block's fires, nanos per cycle (CIP-1 v3 §7.1); `None` under `fifo`.
    pub p50_tip: Option<u128>,
    /// Tips paid to the proposer, base units.
    pub tips: u128,
    /// Burned by the fires, base units (the lane basefee part included).
    pub burned: u128,
    /// The lane basefee part of `burned`.
    pub lane_burned: u128,
}

/// One actor's share of the lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FairnessRow {
    pub actor: Address,
    /// Fires in the recent window.
    pub fires: u64,
    pub deferrals: u64,
    pub pending: u64,
    /// W(actor) in basis points (10,000 = 1.0); `None` under `fifo`.
    pub w_bps: Option<u32>,
}

/// One event of the feed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRow {
    pub height: u64,
    /// The engine's exact kind name (`TimerFired`, ...).
    pub kind: String,
    /// The event's other fields, `name=value` separated by spaces.
    pub fields: String,
    pub timer: Option<TimerId>,
    pub actor: Option<Address>,
    /// issue 23 (branch dash): the event in words, as the headless lines print it
    /// ([`crate::node::text::event_text`]); the feed shows it, `fields` stays for the detail.
    pub text: String,
}

/// One step of a timer's life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifeEntry {
    pub height: u64,
    /// The event kind.
    pub what: String,
    /// Why (a deferral's reason, an error, a refund...), empty when there is nothing to add.
    pub reason: String,
}

/// Everything known about one timer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerLife {
    /// The sealed height it was read as of (issue 24: a past view; `None`: the head).
    pub at: Option<u64>,
    pub id: TimerId,
    /// As the fixture format names it: `pending`, `fired`, `expired`, `unfunded`,
    /// `cancelled`, `cancelled_by_governance`, or `unknown`.
    pub status: String,
    /// Its record while pending, or as scheduled (from its `TimerScheduled` event).
    pub record: Option<TimerRow>,
    pub deferrals: u64,
    pub timeline: Vec<LifeEntry>,
    /// The payload while the timer is pending (the raw view, `v`); once it left, as the node
    /// answered the timer as of the block before (issue 34, item 3: `gone_payload`).
    pub payload: Option<Vec<u8>>,
    /// The block it left in, once it left (its compact record's exit, else its last event).
    pub left_at: Option<u64>,
    /// Where the payload of a timer that left was read, or why it is not shown.
    pub payload_note: Option<String>,
}

/// What the dashboard asks for in one refresh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewQuery {
    /// Coming heights to summarise.
    pub buckets: usize,
    /// The bucket whose timers to list.
    pub selected_bucket: Option<u64>,
    /// The rows of that bucket to read (issue 31: the rows on screen and a margin, never the
    /// whole bucket): positions `bucket_offset..bucket_offset + bucket_limit`.
    pub bucket_offset: u64,
    pub bucket_limit: u64,
    /// The selected timer: the node answers the page that holds it, wherever it moved.
    pub bucket_timer: Option<TimerId>,
    /// Recent blocks of lane history.
    pub lane_blocks: usize,
    /// The fairness window, in blocks.
    pub fairness_window: u64,
    /// The sealed height the view is of (`[`, issue 24); `None`: the head.
    pub at: Option<u64>,
}

impl Default for ViewQuery {
    fn default() -> Self {
        ViewQuery {
            buckets: 32,
            selected_bucket: None,
            bucket_offset: 0,
            bucket_limit: PAGE_ABOVE + PAGE_BELOW,
            bucket_timer: None,
            lane_blocks: 128,
            fairness_window: 1_000,
            at: None,
        }
    }
}

/// One refresh's worth of data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DashboardData {
    pub status: Option<Status>,
    pub buckets: Vec<BucketSummary>,
    /// The page of the selected bucket's timers read (issue 31), in execution order: the rows
    /// at positions `bucket_offset..bucket_offset + bucket_timers.len()` of `bucket_total`.
    /// Look rows up by position with [`DashboardData::bucket_row`].
    pub bucket_timers: Vec<TimerRow>,
    /// The position of `bucket_timers[0]` in the bucket.
    pub bucket_offset: u64,
    /// Timers in the whole selected bucket.
    pub bucket_total: u64,
    /// The query's `bucket_timer` and where it is in the bucket (`None`: not in it).
    pub bucket_found: Option<(TimerId, u64)>,
    /// Whether the bucket is in the auction's order (eip1559 at its height).
    pub bucket_ranked: bool,
    /// The height `bucket_timers` were read at (the query's selected bucket).
    pub bucket_at: Option<u64>,
    pub tiers: Tiers,
    /// Oldest first.
    pub lane: Vec<LaneRow>,
    pub fairness: Vec<FairnessRow>,
    /// Names for addresses (fixture names, dev accounts).
    pub names: BTreeMap<Address, String>,
    /// Actors the schedule form offers, in name order.
    pub actors: Vec<Address>,
    /// Deferrals over the lane window by reason (`lane`, `outbid`, `over_cap`,
    /// `below_basefee`, `gc_budget`), from the `TimerDeferred` events, in that order.
    pub defer_reasons: Vec<(String, u64)>,
    /// The CIP-1 v3 §8 fairness window in blocks and its median of recent fires; `None` when
    /// the node has no CIP-1 v3 window (fifo with no activation height).
    pub fairness_window: Option<(u64, u64)>,
    /// The median of the fires over the actors with at least one (CIP-1 v3 §8's median: the
    /// window's own under eip1559, of the fires counted from the events under fifo).
    pub fires_median: u64,
    /// The range the weight column moves in, basis points (the node's `weight_range_bps`):
    /// the W bar is drawn on it (issue 34, item 10).
    pub weight_range: Option<(u32, u32)>,
    /// The snapshots the node keeps, oldest first (what `R` can revert to).
    pub snapshots: Vec<crate::node::SnapshotInfo>,
    /// The CIP-5 drafts' state (issue 22): shown in the lane pane's place under a draft.
    pub draft: Option<crate::node::DraftView>,
}

/// Rows of the selected bucket read above the selected one (issue 31): the timer list shows
/// the selection at its bottom row once scrolled, so a pane up to this tall is filled.
pub const PAGE_ABOVE: u64 = 100;
/// Rows read below the selected one: `j` moves within them before the next page is asked.
pub const PAGE_BELOW: u64 = 28;

/// The deferral reasons in the order the lane pane lists them (contract decision 6).
pub const DEFER_REASONS: [&str; 5] = ["lane", "outbid", "over_cap", "below_basefee", "gc_budget"];

/// Counts per reason in [`DEFER_REASONS`] order (every reason listed, zeros included).
pub fn count_reasons<'a>(reasons: impl IntoIterator<Item = &'a str>) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = DEFER_REASONS.iter().map(|r| (r.to_string(), 0)).collect();
    for r in reasons {
        match out.iter_mut().find(|(n, _)| n == r) {
            Some(e) => e.1 += 1,
            None => out.push((r.to_string(), 1)),
        }
    }
    out
}

impl DashboardData {
    /// The selected bucket's row at `position` (in the whole bucket), when the page read
    /// holds it.
    pub fn bucket_row(&self, position: usize) -> Option<&TimerRow> {
        position
            .checked_sub(self.bucket_offset as usize)
            .and_then(|i| self.bucket_timers.get(i))
    }

    /// The selected bucket's timers, all of them (not only the page read).
    pub fn bucket_len(&self) -> usize {
        self.bucket_total as usize
    }

    /// The position in the bucket of a timer of the page read.
    pub fn bucket_position(&self, id: &TimerId) -> Option<usize> {
        self.bucket_timers
            .iter()
            .position(|t| t.id == *id)
            .map(|i| i + self.bucket_offset as usize)
    }

    /// A short human label: the name when known, else the address's first bytes.
    pub fn label(&self, a: &Address) -> String {
        self.names
            .get(a)
            .cloned()
            .unwrap_or_else(|| a.to_string()[..10].to_string())
    }
}

/// A rejected command: the spec's error name and a message a person can act on. Nothing
/// changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}: {message}")]
pub struct CommandError {
    pub reason: String,
    pub message: String,
}

impl CommandError {
    pub fn new(reason: impl Into<String>, message: impl Into<String>) -> Self {
        CommandError {
            reason: reason.into(),
            message: message.into(),
        }
    }

    /// A typed failure: its kind names the reason, as `data.reason` does over JSON-RPC.
    pub fn from_failure(f: &crate::engine::error::Failure) -> Self {
        CommandError::new(f.kind.as_str(), f.message.clone())
    }
}

/// W(actor) in basis points as `1.00`..`2.00` (CIP-1 v3 §8), rounded: the node's formatter,
/// which the run report shares.
pub use crate::node::views::fmt_w;
