//! CIP-1 v3's scheduler math: the lane's EIP-1559 basefee and fixed-point charges ([`lane`]),
//! the per-actor fairness weight W ([`fairness`]) and the sort and greedy fill of the lane
//! ([`select`]). Pure and deterministic: integers only, ordered maps, no clocks.
//!
//! The CIP-1 v3 integration: its configuration, state and lane statistics ([`cip1`]), fee
//! resolution, GBA defaults and the auction estimate ([`pricing`]), and [`policy`]: the
//! scheduler policies (`fifo`, `eip1559`) behind one interface, with the schedule-time checks.

pub mod cip1;
pub mod fairness;
pub mod kind;
pub mod lane;
pub mod policy;
pub mod pricing;
pub mod select;
pub mod v1;
pub mod variants;

pub use fairness::{Fairness, FairnessRow, FairnessSlot, Tally, W_MAX_BPS, W_ONE_BPS};
pub use kind::SchedulerKind;
pub use lane::{
    LaneParams, PRICE_SCALE, charge_ceil, charge_floor, next_lane_basefee,
    next_lane_basefee_proportional, next_lane_basefee_with, p50_tip, p50_tip_with,
};
pub use select::{Candidate, Selection, auction_order, effective_priority, select, select_naive};
pub use variants::{CATALOG, VariantInfo, Variants};
