//! CIP-1 v3 pricing: a timer's fee parameters resolved at fire time (§6, §7: the schedule
//! call, its tier, the actor's custom GBA, the default GBA), its priority per cycle (§3 step 6),
//! and where a timer would stand in the auction now ([`estimate`], `timer_estimate`).

use super::cip1::{Cip1Config, Cip1State};
use super::select::{Candidate, effective_priority, select};
use crate::engine::args::{FeeArgs, PriorityTier};
use crate::engine::config::TimerConfig;
use crate::engine::eob::fire_budget;
use crate::engine::gba::GbaBid;
use crate::engine::queue::CalendarQueue;
use crate::engine::scheduler::kind::SchedulerKind;
use crate::engine::types::{Address, TimerId, u128_str};
use serde::{Deserialize, Serialize};

// ---- GBAs (§7) ---------------------------------------------------------------------------------

/// CIP-1 v3 §7.1, normative: `max_fee = 2 × lane basefee`, `tip = previous block's p50`
/// (0 on a cold start), scaled by the tier's multiplier when one is given (§7.3; `standard`
/// is 1.0).
pub fn default_gba(
    lane_basefee: u128,
    p50: u128,
    tier: Option<PriorityTier>,
    cfg: &Cip1Config,
) -> (u128, u128) {
    let tip = match tier {
        Some(t) => cfg.tier_multipliers.apply(t, p50),
        None => p50,
    };
    (lane_basefee.saturating_mul(2), tip)
}

/// Resolves a timer's `(max_fee_per_cycle, max_priority_fee_per_cycle)` at fire time.
///
/// Spec note (CIP-1 v3 §6, §7, §13.2 "caller migration"): each parameter is taken, in this
/// order, from the schedule call, then (for the tip) from its `priority_tier` (§7.3, a
/// multiple of the fire-time p50), then from the actor's custom GBA (§7.2), then from the
/// default GBA (§7.1). A custom GBA is only called when the schedule left something to price.
pub(crate) fn resolve(
    fees: FeeArgs,
    gba: Option<GbaBid>,
    default: (u128, u128),
    cfg: &Cip1Config,
    p50: u128,
) -> (u128, u128) {
    let gba = gba.unwrap_or_default();
    let max_fee = fees
        .max_fee_per_cycle
        .or(gba.max_fee_per_cycle)
        .unwrap_or(default.0);
    let tip = fees
        .max_priority_fee_per_cycle
        .or(fees
            .priority_tier
            .map(|t| cfg.tier_multipliers.apply(t, p50)))
        .or(gba.max_priority_fee_per_cycle)
        .unwrap_or(default.1);
    (max_fee, tip)
}

/// §3 step 6: `min(max_priority_fee, max_fee − lane basefee)`; `None` when `max_fee` is below
/// the basefee (open point 9: the timer waits, Spec note 54).
pub fn priority_per_cycle(max_fee: u128, max_priority: u128, lane_basefee: u128) -> Option<u128> {
    max_fee
        .checked_sub(lane_basefee)
        .map(|room| room.min(max_priority))
}

// ---- the auction estimate ----------------------------------------------------------------------

/// Where a timer would stand in the auction now (`timer_estimate`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AuctionEstimate {
    pub scheduler: SchedulerKind,
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub lane_basefee: u128,
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub max_fee_per_cycle: u128,
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub priority_per_cycle: u128,
    pub weight_bps: u32,
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub effective_priority: u128,
    /// Timers due at that height now.
    pub due_at_height: u64,
    /// 1-based rank among them (and this one) now.
    pub rank: u64,
    pub would_be_selected: bool,
}

/// The timer an estimate asks about: who would own it, the height it would be due at, its
/// cycle budget and its fee arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EstimateTimer {
    pub actor: Address,
    pub height: u64,
    pub budget: u64,
    pub fees: FeeArgs,
}

/// The fee arguments of `timer` as the block would price them: its stated parameters, the
/// default GBA for what it leaves out (CIP-1 v3 §3 step 6, §7.1).
pub fn estimate_fees(cip1: &Cip1State, lane_basefee: u128, timer: &EstimateTimer) -> (u128, u128) {
    let default = default_gba(lane_basefee, cip1.p50_tip, None, &cip1.config);
    resolve(timer.fees, None, default, &cip1.config, cip1.p50_tip)
}

/// Estimates the timer `timer` in the CIP-1 v3 auction among the timers now due at its height,
/// at the current lane basefee, p50 tip and W (`eip1559`'s `Policy::estimate`; `cip1-v1`
/// estimates by its own rules, `cip1v1::estimate`, Spec note 216).
///
/// Spec note (CIP-1 v3 §3 steps 6–7, estimate only): the other due timers are priced with
/// their stated parameters and the default GBA for what they leave out; custom GBAs are not
/// called by an estimate (they run at fire time).
pub fn estimate(
    cip1: &Cip1State,
    queue: &CalendarQueue,
    cfg: &TimerConfig,
    lane_basefee: u128,
    timer: &EstimateTimer,
) -> AuctionEstimate {
    let EstimateTimer {
        actor,
        height,
        budget,
        ..
    } = *timer;
    let kind = cip1.scheduler_at(height);
    let default = default_gba(lane_basefee, cip1.p50_tip, None, &cip1.config);
    let (max_fee, max_prio) = estimate_fees(cip1, lane_basefee, timer);
    let due = queue.bucket(height);
    let due_at_height = due.len() as u64;
    let priority = priority_per_cycle(max_fee, max_prio, lane_basefee);
    let weight_bps = cip1.weight_bps(&actor);
    let mut cands: Vec<Candidate> = due
        .iter()
        .filter_map(|t| {
            let (mf, mp) = resolve(
                FeeArgs::of(t.fee_caps.as_deref()),
                None,
                default,
                &cip1.config,
                cip1.p50_tip,
            );
            Some(Candidate {
                timer_id: t.timer_id,
                schedule_block: t.schedule_block,
                budget: fire_budget(t, cfg),
                priority_per_cycle: priority_per_cycle(mf, mp, lane_basefee)?,
                weight_bps: cip1.weight_bps(&t.actor_address),
            })
        })
        .collect();
    let me = Candidate {
        // The largest id: ties go to the timers already queued.
        timer_id: TimerId([0xFF; 32]),
        schedule_block: u64::MAX,
        budget,
        priority_per_cycle: priority.unwrap_or(0),
        weight_bps,
    };
    let eff = effective_priority(&me);
    let rank = 1 + cands
        .iter()
        .filter(|c| effective_priority(c) >= eff)
        .count() as u64;
    let would_be_selected = priority.is_some() && {
        cands.push(me);
        let last = cands.len() - 1;
        select(
            &cands,
            cfg.lane_timer_cycles,
            cip1.config.max_cycles_per_fire_auction,
        )
        .selected
        .contains(&last)
    };
    AuctionEstimate {
        scheduler: kind,
        lane_basefee,
        max_fee_per_cycle: max_fee,
        priority_per_cycle: priority.unwrap_or(0),
        weight_bps,
        effective_priority: eff,
        due_at_height,
        rank,
        would_be_selected,
    }
}
