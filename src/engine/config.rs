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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
