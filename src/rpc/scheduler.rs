//! The CIP-1 v3 methods' limits and the fee fields of `timer_schedule` / `timer_estimate`
//! (`scheduler_lane`, `scheduler_fairness`, `scheduler_buckets` and `scheduler_actors` are
//! served as reads in [`super::served`]).

use super::types::Decode;
use crate::engine::PriorityTier;

/// The most heights `scheduler_buckets` lists.
pub const MAX_BUCKETS: u64 = 1_000;
/// What `scheduler_buckets` lists without `count`.
pub const DEFAULT_BUCKETS: u64 = 32;
/// The fifo window of `scheduler_actors` without `window`, in blocks.
pub const DEFAULT_SHARES_WINDOW: u64 = 1_000;
use serde_json::Value;

impl Decode for PriorityTier {
    const EXPECTED: &'static str =
        "a priority tier (\"economy\", \"standard\", \"fast\" or \"urgent\")";
    fn decode(v: &Value) -> Result<Self, String> {
        serde_json::from_value(v.clone())
            .map_err(|_| format!("expected {}, got {v}", Self::EXPECTED))
    }
}
