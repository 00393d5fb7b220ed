//! What the node's queries answer: plain data, owned, cheap to send to another thread.

use super::MiningMode;
use crate::chain::{Block, EventRecord};
use crate::engine::queue::Horizons;
use crate::engine::{Address, DeferReason, H256, PriorityTier, SchedulerKind, TierCounts, TimerId};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The head of the chain and the node's state around it: what `devnet_blockNumber` and a
/// status bar read. Published by the shell after every command, so reading it never waits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Head")]
pub struct HeadView {
    /// Height of the last sealed block (0: genesis).
    pub height: u64,
    pub hash: H256,
    pub state_root: H256,
    /// The height the next block will have (past an outage: further than `height + 1`).
    pub pending_height: u64,
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub cycle_basefee: u128,
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub cell_basefee: u128,
    /// Timers in the queue.
    pub pending_timers: u64,
    /// Transactions in the open block (0 unless mining is manual or interval).
    pub pending_txs: u64,
    /// As the API writes a mining mode: `{"mode": "interval", "block_time": 1.5}`.
    #[serde(with = "mining_wire")]
    #[schemars(with = "crate::node::MiningMode")]
    pub mining: MiningMode,
    pub scheduler: SchedulerKind,
    /// The oldest height whose block and events the node keeps (Spec note 73: `serve
    /// --history N`); older heights answer `HistoryPruned`. 1 while nothing was pruned.
    #[serde(default)]
    pub first_kept: u64,
    /// The oldest height a state read (a `block` param, a revert) answers (Spec note 225):
    /// `first_kept` unless the checkpoints' budget let the checkpoint it replayed from go;
    /// older heights whose block is kept answer `StateNotKept`.
    #[serde(default)]
    pub first_state: u64,
    /// Which chain this is: Keccak-256 of its genesis settings (issue 34 item 6, Spec note
    /// 176). Not consensus data: a dashboard that reattaches compares it to tell a restarted
    /// server on another fixture from the chain it showed.
    #[serde(default)]
    pub chain_id: H256,
}

/// A mining mode as the API writes it: `{"mode": "auto"}`, `{"mode": "manual"}`,
/// `{"mode": "interval", "block_time": 1.5}` (seconds; display only: the node keeps integer
/// milliseconds, read back rounded to the millisecond).
pub mod mining_wire {
    use super::MiningMode;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Wire {
        mode: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        block_time: Option<f64>,
    }

    pub fn serialize<S: Serializer>(m: &MiningMode, s: S) -> Result<S::Ok, S::Error> {
        let (mode, block_time) = match m {
            MiningMode::Auto => ("auto", None),
            MiningMode::Manual => ("manual", None),
            MiningMode::Interval { block_time_ms } => {
                ("interval", Some(*block_time_ms as f64 / 1000.0))
            }
        };
        Wire {
            mode: mode.into(),
            block_time,
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<MiningMode, D::Error> {
        let w = Wire::deserialize(d)?;
        match (w.mode.as_str(), w.block_time) {
            ("auto", _) => Ok(MiningMode::Auto),
            ("manual", _) => Ok(MiningMode::Manual),
            ("interval", Some(s)) if s.is_finite() && s > 0.0 => Ok(MiningMode::Interval {
                block_time_ms: (s * 1000.0).round() as u64,
            }),
            (m, _) => Err(serde::de::Error::custom(format!(
                "not a mining mode: {m:?}"
            ))),
        }
    }
}

/// Bytes as `0x`-prefixed hex (`None`: `null`).
pub mod opt_hex {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(b: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match b {
            Some(b) => s.serialize_str(&format!("0x{}", hex::encode(b))),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|h| {
                hex::decode(h.strip_prefix("0x").unwrap_or(&h)).map_err(serde::de::Error::custom)
            })
            .transpose()
    }
}

/// A sealed block, shared with the chain's history (never copied).
pub type BlockView = Arc<Block>;

/// A block older than the kept history (issue 31, Spec note 183): its header, and in place
/// of its body (`body: null`) the named reason it is not kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrunedBlockView {
    pub header: crate::chain::BlockHeader,
    /// Always `null`: the receipts and events are no longer kept.
    pub body: Option<()>,
    pub body_error: BodyError,
}

/// Why a block's body is not answered: `reason` is the error's name (`HistoryPruned`),
/// with its code and, for `HistoryPruned`, the oldest whole block and the window's length.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BodyError {
    pub reason: String,
    pub code: i32,
    pub message: String,
    pub first_kept: u64,
    pub keep: usize,
}

/// `devnet_getBlock`'s answer for a sealed height: the whole block while it is kept, its
/// header alone once it is older than the kept history (Spec note 183).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockAnswer {
    Whole(BlockView),
    HeaderOnly(Box<PrunedBlockView>),
}

impl BlockAnswer {
    /// The block's header, whichever way it is answered.
    pub fn header(&self) -> &crate::chain::BlockHeader {
        match self {
            BlockAnswer::Whole(b) => &b.header,
            BlockAnswer::HeaderOnly(p) => &p.header,
        }
    }
}

/// An event where it happened: the block height, the phase, the event with its `kind`.
pub type EventView = EventRecord;

/// A short account of a sealed block, for notifications.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockSummary {
    pub height: u64,
    pub hash: H256,
    /// The header's `parent_hash` (issue 30): the block before it, or for an empty block the
    /// anchor its header names (`chain::quiet`).
    pub parent_hash: H256,
    pub state_root: H256,
    /// Heights skipped before this block (an outage).
    pub skipped: u64,
    pub txs: u64,
    pub events: u64,
    pub fired: u64,
    pub deferred: u64,
    pub expired: u64,
    pub unfunded: u64,
    /// Timers pending after the block.
    pub pending: u64,
    /// Empty blocks (no transaction, no event) sealed since the previous summary and not
    /// reported one by one: a long `Mine` reports the blocks where something happened and its
    /// last block.
    pub quiet_before: u64,
}

impl BlockSummary {
    pub fn of(b: &Block, quiet_before: u64) -> Self {
        BlockSummary {
            height: b.header.height,
            hash: b.header.hash,
            parent_hash: b.header.parent_hash,
            state_root: b.header.state_root,
            skipped: b.header.skipped,
            txs: b.receipts.len() as u64,
            events: b.events.len() as u64,
            fired: b.eob.fired,
            deferred: b.eob.deferred,
            expired: b.eob.expired,
            unfunded: b.eob.unfunded,
            pending: b.pending,
            quiet_before,
        }
    }
}

/// A dev account or a genesis account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Account")]
pub struct AccountView {
    pub address: Address,
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub balance: u128,
    pub nonce: u64,
    /// May send system instructions 48/49/50 (CIP-5 §5.4).
    pub system_deployer: bool,
    /// Its name (`dev0`, or the fixture's name), if it has one.
    pub name: Option<String>,
}

/// Everything minted, everything burned, and the sum of the balances (balances + burned =
/// minted while funds are conserved).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Supply")]
pub struct SupplyView {
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub minted: u128,
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub burned: u128,
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub balances: u128,
}

pub use crate::engine::TimerStatus;

/// How often a timer was carried to a later block, and why (CIP-5 §6.5, §8).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeferralCount {
    /// `lane` or `gc_budget`.
    pub reason: crate::engine::DeferReason,
    pub count: u64,
}

/// A timer, pending or gone: its record (from the queue while it is pending, from its
/// `TimerScheduled` event once it left), its status, its deferrals and its events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Timer")]
pub struct TimerView {
    pub timer_id: TimerId,
    pub actor: Address,
    pub fee_payer: Address,
    /// The height it was scheduled for.
    pub height: u64,
    pub expires_at: u64,
    pub gas_limit_per_fire: u64,
    pub handler: String,
    /// The payload while the timer is pending, in hex; `None` once it left (events carry
    /// its length).
    #[serde(with = "opt_hex")]
    #[schemars(with = "Option<String>")]
    pub payload: Option<Vec<u8>>,
    pub payload_len: u64,
    /// Insertion order (FIFO within a height) while pending.
    pub seq: Option<u64>,
    /// The block that scheduled it, when known.
    pub schedule_block: Option<u64>,
    /// Its tier (`ring`, `epoch`, `overflow`) while pending.
    pub tier: Option<String>,
    pub status: TimerStatus,
    pub deferrals: Vec<DeferralCount>,
    /// CIP-1 v3 §6 fee caps as scheduled, nanos per cycle (absent: left to the GBA).
    #[serde(
        default,
        with = "crate::engine::types::opt_u128_str",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub max_fee_per_cycle: Option<u128>,
    #[serde(
        default,
        with = "crate::engine::types::opt_u128_str",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub max_priority_fee_per_cycle: Option<u128>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_tier: Option<PriorityTier>,
    /// Blocks the timer has been carried so far (Spec note 54; 0: never deferred), so
    /// that starvation shows.
    pub carried: u32,
    /// Why it was last deferred.
    pub last_defer: Option<DeferReason>,
    /// The `client_nonce` a CIP-5 draft timer was registered with (English §6.2), while its
    /// binding is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_nonce: Option<u64>,
    /// Its events, oldest first (as far as the node's history reaches).
    pub events: Vec<EventView>,
    /// The block it left in, once it left (issue 31 item 3, Spec note 150: from the node's
    /// compact record, kept after its events left the history).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_height: Option<u64>,
    /// What its fires cost its fee payer in all, once it left (Spec note 150).
    #[serde(
        default,
        with = "crate::engine::types::opt_u128_str",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub fee_paid: Option<u128>,
    /// Its full event history is no longer kept (Spec note 150): the history starts after
    /// the block that scheduled it, so `events` (and what they tell: the handler, the
    /// deferrals) begin later or are empty.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub history_pruned: bool,
    /// The label given to it (a fixture step's, or the `label` param of `timer_schedule` /
    /// `timer_watch` / `timer_interval`; issue 32, Spec notes 186 and 191); `null` when none,
    /// and at a past height (`block`), which knows no labels.
    #[serde(default)]
    pub label: Option<String>,
}

impl TimerView {
    /// A timer that left, from what outlived it: who, for which height, scheduled in which
    /// block, its status. What only its pending record or its events held (expiry, budget,
    /// handler, payload, fee caps, deferrals, events) starts empty for the caller to fill:
    /// from its `TimerScheduled` event while the history keeps it (`read::timer_view`), or
    /// left empty with `history_pruned` from the compact record (`core::reads::fate_view`).
    pub fn gone(
        timer_id: TimerId,
        actor: Address,
        fee_payer: Address,
        height: u64,
        schedule_block: u64,
        status: TimerStatus,
    ) -> Self {
        TimerView {
            timer_id,
            actor,
            fee_payer,
            height,
            expires_at: 0,
            gas_limit_per_fire: 0,
            handler: String::new(),
            payload: None,
            payload_len: 0,
            seq: None,
            schedule_block: Some(schedule_block),
            tier: None,
            status,
            deferrals: Vec::new(),
            max_fee_per_cycle: None,
            max_priority_fee_per_cycle: None,
            priority_tier: None,
            carried: 0,
            last_defer: None,
            client_nonce: None,
            events: Vec::new(),
            exit_height: None,
            fee_paid: None,
            history_pruned: false,
            label: None,
        }
    }
}

/// Which timers [`NodeCore::timers`](super::NodeCore::timers) lists.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TimerFilter {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actor: Option<Address>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<TimerStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// The id's hex starts with this (`0x` optional, any case; issue 32, Spec note 172).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_prefix: Option<String>,
    /// The handler's name, exactly (a gone timer's is known while its `TimerScheduled` event
    /// is kept, Spec note 172).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handler: Option<String>,
    /// The height it was scheduled for is at least this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_height: Option<u64>,
    /// The height it was scheduled for is at most this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_height: Option<u64>,
    /// The label a fixture's `schedule` step gave the timer contains each word of this, any
    /// case (issue 32, Spec note 186); at most [`MAX_LABEL`] bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The longest label the node keeps or a filter takes, in bytes (Spec note 186).
pub const MAX_LABEL: usize = 64;

/// Whether `label` may label a timer (issue 32, Spec note 191): 1..=[`MAX_LABEL`] bytes of
/// printable text (no control character: no newline, tab or escape), not only spaces; else
/// what is wrong with it.
pub fn check_label(label: &str) -> Result<(), String> {
    if label.trim().is_empty() {
        return Err("a label is 1 to 64 bytes of printable text: this one is empty".into());
    }
    if label.len() > MAX_LABEL {
        return Err(format!(
            "a label is at most {MAX_LABEL} bytes: this one is {}",
            label.len()
        ));
    }
    if let Some(c) = label.chars().find(|c| c.is_control()) {
        return Err(format!(
            "a label is printable text: it holds the control character {:?}",
            c
        ));
    }
    Ok(())
}

/// What the timer list filters on, for one timer the node knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerEntry {
    pub id: TimerId,
    pub actor: Address,
    /// The height it was scheduled for.
    pub height: u64,
    pub status: TimerStatus,
    /// Its handler when the node can still tell (pending; or gone and its `TimerScheduled`
    /// event kept).
    pub handler: Option<String>,
}

/// Whether the hex of `id` starts with `prefix` (with or without `0x`, any case).
pub fn id_has_prefix(id: &TimerId, prefix: &str) -> bool {
    let p = prefix.strip_prefix("0x").unwrap_or(prefix);
    p.len() <= 64 && hex::encode(id.0).starts_with(&p.to_ascii_lowercase())
}

/// Whether `prefix` can start a timer id: hex digits (`0x` optional), at most 64.
pub fn valid_id_prefix(prefix: &str) -> bool {
    let p = prefix.strip_prefix("0x").unwrap_or(prefix);
    p.len() <= 64 && p.chars().all(|c| c.is_ascii_hexdigit())
}

impl TimerFilter {
    /// Whether a timer with `label` (`None`: none known) passes the filter's `label`: each of
    /// its words is contained in the label, any case (Spec note 186).
    pub fn label_matches(&self, label: Option<&str>) -> bool {
        let Some(want) = self.label.as_deref() else {
            return true;
        };
        let Some(have) = label.map(str::to_lowercase) else {
            return false;
        };
        want.split_whitespace()
            .all(|w| have.contains(&w.to_lowercase()))
    }

    /// Whether a timer of this id, actor, scheduled height and handler passes the filter's
    /// fields other than the status and the limit.
    pub fn matches_record(
        &self,
        id: &TimerId,
        actor: &Address,
        height: u64,
        handler: &str,
    ) -> bool {
        self.actor.is_none_or(|a| a == *actor)
            && self.from_height.is_none_or(|h| height >= h)
            && self.to_height.is_none_or(|h| height <= h)
            && self.handler.as_deref().is_none_or(|h| h == handler)
            && self
                .id_prefix
                .as_deref()
                .is_none_or(|p| id_has_prefix(id, p))
    }
}

/// Which events [`NodeCore::events`](super::NodeCore::events) lists (every field narrows).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct EventFilter {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_height: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_height: Option<u64>,
    /// Event kinds (`TimerFired`, ...); empty or absent: every kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kinds: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timer_id: Option<TimerId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actor: Option<Address>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

impl EventFilter {
    pub fn matches(&self, r: &EventRecord) -> bool {
        self.from_height.is_none_or(|h| r.height >= h)
            && self.to_height.is_none_or(|h| r.height <= h)
            && self
                .kinds
                .as_ref()
                .is_none_or(|k| k.is_empty() || k.iter().any(|k| k == r.event.kind().as_str()))
            && self.timer_id.is_none_or(|t| r.event.timer_id() == Some(t))
            && self.actor.is_none_or(|a| r.event.actor() == Some(a))
    }
}

/// The calendar queue's tiers (CIP-5 §7).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TiersView {
    pub counts: TierCounts,
    pub horizons: Horizons,
    /// Ring buckets that hold timers: (height, timers).
    pub ring: Vec<(u64, usize)>,
    /// Epoch buckets: (first height of the epoch, timers).
    pub epoch_buckets: Vec<(u64, usize)>,
    /// Overflow epochs: (first height of the epoch, timers).
    pub overflow_epochs: Vec<(u64, usize)>,
    pub overflow_size: usize,
    /// The height of the next epoch maintenance (when the ring horizon is reached).
    pub next_maintenance: u64,
    /// The overflow set's commitment (CIP-5 §7.3), as the next seal folds it.
    pub overflow_root: H256,
    /// Timers the last block's maintenance moved inward.
    pub last_migrated: u64,
}

/// Pending snapshots, oldest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SnapshotInfo {
    pub id: u64,
    /// The head height when it was taken.
    pub height: u64,
}

/// W(actor) in basis points (CIP-1 v3 §8: `1.00`..`2.00`) as a number with two decimals,
/// rounded half up (16,667 bps shows `1.67`). Display only; the one formatter the dashboard and
/// the run report share.
pub fn fmt_w(bps: u32) -> String {
    let hundredths = (bps as u64 + 50) / 100;
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}
