//! The drafts' parameters under governance (English §12, zh §13): named fields for
//! `SYS_UPDATE_SCHEDULER_CONFIG` (51), staged in the block that sets them and in force from
//! the next block.
//!
//! Spec note 126 (English §12 / zh §13 "take effect at the start of the next governance
//! epoch"): the devnet has no governance epochs; like the CIP-1 v3 parameters (issue 21 §3)
//! and `TimerConfig` (CIP-5 §6.4), a change applies at the end of the block that carries it,
//! after that block's Deliver/Materialize ran under the old values: the next block is the
//! first under the new ones. A second change in the same block replaces the first.

use super::{DraftParams, DraftState};
use crate::engine::error::TimerError;

impl DraftParams {
    /// The field names, as `gov_updateSchedulerConfig`, a `gov_config` step and the
    /// dashboard's `g config` take them (beside the CIP-1 v3 ones).
    pub const FIELDS: [&'static str; 9] = [
        "max_fires_per_block",
        "max_fires_per_target",
        "w_age",
        "w_bid",
        "w_fifo",
        "max_watch_keys",
        "min_gas_limit_per_timer",
        "max_payload_size",
        "max_timers_per_target",
    ];

    /// Whether `name` is one of the drafts' governed fields.
    pub fn is_field(name: &str) -> bool {
        Self::FIELDS.contains(&name)
    }
}

impl DraftState {
    /// Governance's new parameters, validated, to take effect once the open block ends.
    pub fn stage_params(&mut self, p: DraftParams) -> Result<(), TimerError> {
        p.validate()?;
        self.pending_params = Some(p);
        Ok(())
    }

    /// The parameters in force after the open block: governance's waiting ones, else these.
    pub fn next_params(&self) -> DraftParams {
        self.pending_params.unwrap_or(self.params)
    }

    /// Applies governance's waiting parameters at the end of the block; returns whether any
    /// were waiting.
    pub fn apply_pending_params(&mut self) -> bool {
        match self.pending_params.take() {
            Some(p) => {
                self.params = p;
                true
            }
            None => false,
        }
    }
}
