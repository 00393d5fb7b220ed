//! Governed timer parameters (CIP-5 §6.4, CIP-1 v3 §9) and protocol constants.

use super::error::TimerError;
use super::types::{HashEncode, HashEncoder};
use serde::{Deserialize, Serialize};

/// `SET_TIMER_BASE_CYCLES` (CIP-5 §6.1).
///
/// Spec note (open point 2): CIP-5 §6.1's normative table charges 200 cycles to schedule;
/// §8's prose mentions "1,000 cycles". The table is normative, so 200 is used.
pub const SET_TIMER_BASE_CYCLES: u64 = 200;
/// `extend_timer` host-call cost (CIP-5 §6.1).
pub const EXTEND_TIMER_CYCLES: u64 = 200;
/// `CANCEL_TIMER_CYCLES` (CIP-5 §6.1).
pub const CANCEL_TIMER_CYCLES: u64 = 200;
/// Maximum payload size, 1 MiB (CIP-5 §4.2).
pub const MAX_PAYLOAD_BYTES: usize = 1_048_576;
/// Maximum handler-name length (CIP-5 §4.2).
pub const MAX_HANDLER_BYTES: usize = 256;
/// Maximum timer-id length accepted by host calls (CIP-5 §3.1).
pub const MAX_TIMER_ID_BYTES: usize = 256;
/// The longest key or prefix one state watch may name, in bytes (issue 30, Spec note 162).
///
/// Spec note (English draft §14 "limit the number of watch_keys and the matching rules", zh
/// §14): the drafts bound the count of keys (`max_watch_keys`) but not their length; a key is
/// a storage key, and CIP-5 §4.2 bounds handler names and timer ids at 256 bytes, so a watch
/// key is bounded the same. Not governed: a protocol constant, as the other byte bounds are.
pub const MAX_WATCH_KEY_BYTES: usize = 256;
/// Default handler name (CIP-5 §3.1).
pub const DEFAULT_HANDLER: &str = "handle_timer";

/// Cycles drawn from `gc_cycles_per_block` to remove one expired or insufficient-funds timer.
///
/// Spec note (open point 6): CIP-5 §5.4/§6.5 put removal "under the GC budget" without a
/// per-timer price. A removal deletes three index entries (timer store, height index, per-actor
/// index); we charge a flat 5,000 cycles, so the default 5,000,000-cycle GC lane clears 1,000
/// timers a block. Tunable through `TimerConfig::gc_cycles_per_block`.
pub const GC_CYCLES_PER_REMOVAL: u64 = 5_000;

/// `TimerConfig` (CIP-5 §6.4), read once per block (CIP-5 §7).
///
/// `lane_timer_cycles` is `LANE_TIMER_CYCLES` (CIP-5 §6.5); CIP-1 v3 §9 makes it
/// "governance-tunable via TimerConfig", so it lives here with its 2,000,000 default.
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct TimerConfig {
    pub max_ttl_blocks: u64,
    pub max_cycles_per_fire: u64,
    pub max_cells_per_fire: u64,
    pub max_timers_per_actor: u32,
    pub gc_cycles_per_block: u64,
    pub lane_timer_cycles: u64,
}

impl Default for TimerConfig {
    fn default() -> Self {
        TimerConfig {
            max_ttl_blocks: 2_592_000,
            max_cycles_per_fire: 550_000,
            max_cells_per_fire: 550_000,
            max_timers_per_actor: 1_024,
            gc_cycles_per_block: 5_000_000,
            lane_timer_cycles: 2_000_000,
        }
    }
}

impl TimerConfig {
    /// Rejects a configuration under which timers could never run or never be cleaned up.
    pub fn validate(&self) -> Result<(), TimerError> {
        let bad = |m: &str| Err(TimerError::InvalidInput(format!("TimerConfig: {m}")));
        if self.max_ttl_blocks == 0 {
            return bad("max_ttl_blocks must be at least 1");
        }
        if self.max_cycles_per_fire == 0 {
            return bad("max_cycles_per_fire must be at least 1");
        }
        if self.max_timers_per_actor == 0 {
            return bad("max_timers_per_actor must be at least 1");
        }
        if self.lane_timer_cycles < self.max_cycles_per_fire {
            return bad(
                "lane_timer_cycles must be at least max_cycles_per_fire, or a maximal timer never fits the lane",
            );
        }
        if self.gc_cycles_per_block < GC_CYCLES_PER_REMOVAL {
            return bad("gc_cycles_per_block must cover at least one removal (5,000 cycles)");
        }
        Ok(())
    }

    /// Canonical bytes for the state root (the same bytes as its [`HashEncode`] encoding).
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(44);
        v.extend_from_slice(&self.max_ttl_blocks.to_be_bytes());
        v.extend_from_slice(&self.max_cycles_per_fire.to_be_bytes());
        v.extend_from_slice(&self.max_cells_per_fire.to_be_bytes());
        v.extend_from_slice(&self.max_timers_per_actor.to_be_bytes());
        v.extend_from_slice(&self.gc_cycles_per_block.to_be_bytes());
        v.extend_from_slice(&self.lane_timer_cycles.to_be_bytes());
        v
    }
}

/// Sizes of the three-tier calendar queue (CIP-1 v3 §2). Not consensus parameters of the
/// protocol, but they are fixed at genesis so that tier placement is deterministic.
///
/// The ring buffer holds `2 × epoch_blocks` heights: the current epoch plus the next, which is
/// migrated into the ring a slice at a time during the current epoch (amortized, no rollover
/// spike). The epoch queue holds `epoch_slots − 1` further epochs; anything later goes to the
/// overflow sorted set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct QueueConfig {
    /// Blocks per epoch (default 3,600: one hour at 1 s blocks, CIP-1 v3 §2.2).
    pub epoch_blocks: u64,
    /// Epoch-queue buckets (default 24: a day of epochs).
    pub epoch_slots: u64,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            epoch_blocks: 3_600,
            epoch_slots: 24,
        }
    }
}

impl QueueConfig {
    pub fn ring_size(&self) -> u64 {
        self.epoch_blocks * 2
    }

    pub fn validate(&self) -> Result<(), TimerError> {
        if self.epoch_blocks == 0 || self.epoch_blocks > 1 << 20 {
            return Err(TimerError::InvalidInput(
                "queue.epoch_blocks must be in 1..=1048576".into(),
            ));
        }
        if self.epoch_slots < 2 || self.epoch_slots > 1 << 16 {
            return Err(TimerError::InvalidInput(
                "queue.epoch_slots must be in 2..=65536".into(),
            ));
        }
        Ok(())
    }
}

impl HashEncode for TimerConfig {
    /// Every field in declaration order, fixed width: the bytes of [`TimerConfig::encode`].
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u64(self.max_ttl_blocks);
        e.u64(self.max_cycles_per_fire);
        e.u64(self.max_cells_per_fire);
        e.u32(self.max_timers_per_actor);
        e.u64(self.gc_cycles_per_block);
        e.u64(self.lane_timer_cycles);
    }
}

/// The CIP-1 v3 parameters governance tunes on a running chain (issue 21 §3): the priority-tier
/// multipliers (§7.3, Tier-0, basis points of 1), the fairness window (§8, Tier-2) and the
/// auction-phase per-fire cap (§10, Tier-0). Set by `SYS_UPDATE_SCHEDULER_CONFIG` (51) and
/// effective from the next block, like [`TimerConfig`].
///
/// Spec note (CIP-1 v3 §7.3, §8, §10; open point 16): the spec names the storage keys
/// (`system:cip1:…`) but no instruction; the devnet adds a fourth system instruction beside
/// CIP-5's 48/49/50, opcode 51, with the same `system_deployers` gate. The fields are flat (one
/// name per value) so that a partial update names each.
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct SchedulerParams {
    /// §7.3 multipliers in basis points of 1 (8,000 / 10,000 / 15,000 / 25,000 by default).
    pub tier_economy_bps: u32,
    pub tier_standard_bps: u32,
    pub tier_fast_bps: u32,
    pub tier_urgent_bps: u32,
    /// §8 `FAIRNESS_WINDOW_BLOCKS`.
    pub fairness_window_blocks: u64,
    /// §10 `MAX_CYCLES_PER_FIRE_AUCTION_PHASE`.
    pub max_cycles_per_fire_auction: u64,
}

/// The largest tier multiplier governance may set: 100× (1,000,000 bps).
pub const MAX_TIER_MULTIPLIER_BPS: u32 = 1_000_000;

impl SchedulerParams {
    /// The field names, as `gov_updateSchedulerConfig` and the dashboard's `g config` take them.
    pub const FIELDS: [&'static str; 6] = [
        "tier_economy_bps",
        "tier_standard_bps",
        "tier_fast_bps",
        "tier_urgent_bps",
        "fairness_window_blocks",
        "max_cycles_per_fire_auction",
    ];

    /// Rejects parameters the scheduler could not work with.
    ///
    /// Spec note (CIP-1 v3 §7.3): a multiplier is in `1..=1,000,000` bps (a zero tier would
    /// make a zero tip, a larger one overflows no arithmetic but prices nobody in), and the
    /// tiers keep their order, economy ≤ standard ≤ fast ≤ urgent (the names say so); the
    /// window (§8) and the cap (§10) are at least 1.
    pub fn validate(&self) -> Result<(), TimerError> {
        let bad = |m: String| Err(TimerError::InvalidInput(format!("scheduler config: {m}")));
        let tiers = [
            self.tier_economy_bps,
            self.tier_standard_bps,
            self.tier_fast_bps,
            self.tier_urgent_bps,
        ];
        if let Some(t) = tiers
            .iter()
            .find(|&&t| t == 0 || t > MAX_TIER_MULTIPLIER_BPS)
        {
            return bad(format!(
                "tier multiplier {t} bps is not in 1..={MAX_TIER_MULTIPLIER_BPS}"
            ));
        }
        if tiers.windows(2).any(|w| w[0] > w[1]) {
            return bad(format!(
                "tier multipliers must not decrease economy ≤ standard ≤ fast ≤ urgent (got {tiers:?})"
            ));
        }
        if self.fairness_window_blocks == 0 {
            return bad("fairness_window_blocks must be at least 1".into());
        }
        if self.max_cycles_per_fire_auction == 0 {
            return bad("max_cycles_per_fire_auction must be at least 1".into());
        }
        Ok(())
    }
}

impl HashEncode for SchedulerParams {
    /// Every field in declaration order, fixed width.
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u32(self.tier_economy_bps);
        e.u32(self.tier_standard_bps);
        e.u32(self.tier_fast_bps);
        e.u32(self.tier_urgent_bps);
        e.u64(self.fairness_window_blocks);
        e.u64(self.max_cycles_per_fire_auction);
    }
}

/// The CIP-5 drafts' governance-tunable parameters (English §12, zh §13), `[cip5_draft]` in a
/// fixture. The drafts give no figures: these defaults are the devnet's.
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct DraftParams {
    /// `MAX_FIRES_PER_BLOCK`: fires materialized per block at most.
    pub max_fires_per_block: u32,
    /// `MAX_FIRES_PER_TARGET`: fires materialized per target actor per block at most.
    pub max_fires_per_target: u32,
    /// `W_age`: weight of one block of age (one block of age weighs `W_age` whole bid units).
    pub w_age: u64,
    /// `W_bid`: weight of `bid_fp`.
    pub w_bid: u64,
    /// `W_fifo` (zh §9.1): weight of the candidate's FIFO rank (see [`crate::engine::draft::deliver`]).
    pub w_fifo: u64,
    /// How many keys or prefixes one watch may name (English §14 "limit the number of
    /// watch_keys").
    pub max_watch_keys: u32,
    /// `MIN_GAS_LIMIT_PER_TIMER` (§12, §14 "gas suicide"): the smallest `gas_limit` a draft
    /// timer may name (CIP-5's own floor is 1).
    pub min_gas_limit_per_timer: u64,
    /// `MAX_PAYLOAD_SIZE` (§12): a draft timer's payload bytes at most, within CIP-5 §4.2's
    /// 1 MiB.
    pub max_payload_size: u64,
    /// `MAX_TIMERS_PER_TARGET` (§12, §14): live draft timers (watches included) per target
    /// actor. `MAX_TIMERS_PER_OWNER` is CIP-5's `TimerConfig::max_timers_per_actor`.
    pub max_timers_per_target: u32,
}

impl Default for DraftParams {
    fn default() -> Self {
        DraftParams {
            max_fires_per_block: 16,
            max_fires_per_target: 4,
            w_age: 1,
            w_bid: 1,
            w_fifo: 0,
            max_watch_keys: 16,
            min_gas_limit_per_timer: 1,
            max_payload_size: MAX_PAYLOAD_BYTES as u64,
            max_timers_per_target: 1_024,
        }
    }
}

impl DraftParams {
    /// Both quotas, the watch-key limit, the gas floor and the per-target cap must be at least
    /// 1; the payload limit at most CIP-5's 1 MiB (see the drafts' `govern` module for the field names).
    pub fn validate(&self) -> Result<(), TimerError> {
        if self.max_fires_per_block == 0
            || self.max_fires_per_target == 0
            || self.max_watch_keys == 0
            || self.min_gas_limit_per_timer == 0
            || self.max_timers_per_target == 0
        {
            return Err(TimerError::InvalidInput(
                "cip5_draft: max_fires_per_block, max_fires_per_target, max_watch_keys, min_gas_limit_per_timer and max_timers_per_target must be at least 1".into(),
            ));
        }
        if self.max_payload_size > MAX_PAYLOAD_BYTES as u64 {
            return Err(TimerError::InvalidInput(format!(
                "cip5_draft: max_payload_size {} is above CIP-5's {} bytes",
                self.max_payload_size, MAX_PAYLOAD_BYTES
            )));
        }
        Ok(())
    }

    /// The fields in declaration order, fixed width (the state root's and the instruction's
    /// bytes).
    pub fn encode(&self, e: &mut HashEncoder) {
        e.u32(self.max_fires_per_block);
        e.u32(self.max_fires_per_target);
        e.u64(self.w_age);
        e.u64(self.w_bid);
        e.u64(self.w_fifo);
        e.u32(self.max_watch_keys);
        e.u64(self.min_gas_limit_per_timer);
        e.u64(self.max_payload_size);
        e.u32(self.max_timers_per_target);
    }
}
