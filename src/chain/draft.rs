//! The chain's side of the CIP-5 drafts: the §12 limits on a new timer. (Which fired timers
//! stop re-arming at the end of the block is the engine's: `engine::block`.)

use crate::engine::draft::DraftParams;
use crate::engine::{Timer, TimerError};

impl super::Chain {
    /// The checks of a new timer past CIP-5 §4.2's (`engine::validate_schedule`) that the
    /// policy in force at `height` makes: its own ([`Policy::check_timer`], cip1-v1's owner
    /// pays) and, under a draft scheduler, the drafts' §12 limits ([`check_limits`], Spec note
    /// 128). `live` counts the owner's live timers before this one. The one check of both the
    /// schedule host call (`exec.rs`) and `timer_estimate` (`node/requests.rs`), so an estimate
    /// answers the refusal the schedule would get.
    ///
    /// [`Policy::check_timer`]: crate::engine::scheduler::policy::Policy::check_timer
    pub fn check_new_timer(&self, height: u64, t: &Timer, live: u32) -> Result<(), TimerError> {
        let policy = self.engine.policy_at(height);
        policy.check_timer(t)?;
        if policy.kind().facts().drafts {
            check_limits(&self.engine.draft().params, t, live)?;
        }
        Ok(())
    }
}

/// The drafts' §12 robustness and abuse limits on a new draft timer of any kind, beside CIP-5
/// §4.2's (which already bound `gas_limit` by `max_cycles_per_fire`, the payload by 1 MiB and
/// the owner's timers by `max_timers_per_actor`, `MAX_TIMERS_PER_OWNER`): `gas_limit` at least
/// `MIN_GAS_LIMIT_PER_TIMER` and the payload at most `MAX_PAYLOAD_SIZE` (`InvalidInput`), and
/// the target's live timers, watches included, below `MAX_TIMERS_PER_TARGET`
/// (`TimerCapExceeded`). `live` counts the target's live timers before this one.
///
/// Spec note 128 (English §12, §14; zh §13): a draft timer's target is its owner (Spec note
/// 115), so `MAX_TIMERS_PER_TARGET` and `max_timers_per_actor` count the same timers and the
/// smaller cap binds; both count watches.
fn check_limits(p: &DraftParams, t: &Timer, live: u32) -> Result<(), TimerError> {
    if t.gas_limit_per_fire < p.min_gas_limit_per_timer {
        return Err(TimerError::InvalidInput(format!(
            "gas_limit {} is below MIN_GAS_LIMIT_PER_TIMER {}",
            t.gas_limit_per_fire, p.min_gas_limit_per_timer
        )));
    }
    if t.payload.len() as u64 > p.max_payload_size {
        return Err(TimerError::InvalidInput(format!(
            "payload is {} bytes, MAX_PAYLOAD_SIZE is {}",
            t.payload.len(),
            p.max_payload_size
        )));
    }
    if live >= p.max_timers_per_target {
        return Err(TimerError::TimerCapExceeded(format!(
            "target {} already holds {live} live timers (MAX_TIMERS_PER_TARGET {})",
            t.actor_address, p.max_timers_per_target
        )));
    }
    Ok(())
}
