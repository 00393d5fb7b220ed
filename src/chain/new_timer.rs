//! The chain's side of a new timer's policy checks (this file was `chain/draft.rs`). (Which
//! fired timers stop re-arming at the end of the block is the engine's: `engine::block`.)

use crate::engine::{Timer, TimerError};

impl super::Chain {
    /// The checks of a new timer past CIP-5 §4.2's (`engine::validate_schedule`) that the
    /// policy in force at `height` makes ([`Policy::check_timer`]: cip1-v1's owner pays, the
    /// drafts' §12 limits, Spec note 128). `live` counts the owner's live timers before this
    /// one. The one check of both the schedule host call (`exec.rs`) and `timer_estimate`
    /// (`node/requests.rs`), so an estimate answers the refusal the schedule would get.
    ///
    /// [`Policy::check_timer`]: crate::engine::scheduler::policy::Policy::check_timer
    pub fn check_new_timer(&self, height: u64, t: &Timer, live: u32) -> Result<(), TimerError> {
        let policy = self.engine.policy_at(height);
        policy.check_timer(self.engine.policies(), t, live)
    }
}
