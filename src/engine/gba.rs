//! What a GBA is told and answers (CIP-1 v3 §7): [`GbaContext`], [`GbaBid`]. A leaf: it
//! imports only `types`.

use super::types::u128_str;
use serde::{Deserialize, Serialize};

/// CIP-1 v3 §7.2: what a GBA is told, every field of the spec's context. Prices of the lane
/// and tips in nanos per cycle; CIP-3 basefees in base units.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GbaContext {
    pub trigger_block_height: u64,
    pub current_block_height: u64,
    #[serde(with = "u128_str")]
    pub basefee_cycle: u128,
    #[serde(with = "u128_str")]
    pub basefee_cell: u128,
    #[serde(with = "u128_str")]
    pub basefee_lane_timer: u128,
    pub last_block_cycle_usage: u64,
    #[serde(with = "u128_str")]
    pub previous_block_p50_priority_tip_per_cycle: u128,
    #[serde(with = "u128_str")]
    pub owner_actor_balance: u128,
}

/// What a GBA answers (§7.1 `TxFeeParams`, cycle side; the cell side is the CIP-3 cell basefee
/// without a tip, §7.1). A field it leaves out takes the default GBA's value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GbaBid {
    #[serde(default, with = "super::types::opt_u128_str")]
    pub max_fee_per_cycle: Option<u128>,
    #[serde(default, with = "super::types::opt_u128_str")]
    pub max_priority_fee_per_cycle: Option<u128>,
}
