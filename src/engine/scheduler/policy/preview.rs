//! A bucket as the `eip1559` auction would order it at the next block (issue 31, "the
//! dashboard asks for what it shows"): the node ranks the bucket it pages with the block's own
//! pricing ([`resolve`], [`default_gba`], [`priority_per_cycle`]), weight (§8 W) and order
//! ([`auction_order`], the sort [`select`](crate::engine::scheduler::select) fills from, with
//! the variant `tie_break` in force), so no front end keeps a copy of the auction.
//!
//! Spec note (CIP-1 v3 §3 step 6, the preview): as `timer_estimate` does, a parameter the
//! schedule left out is priced by the default GBA (§7.1: `max_fee = 2 × lane basefee`, tip =
//! p50 × the tier's multiplier); a custom GBA runs only at fire time, so the order shown for an
//! actor with one is the default GBA's. A timer whose `max_fee_per_cycle` is below the lane
//! basefee has no effective priority and is listed last, in queue order (it would wait
//! `below_basefee`; under the variant `below_basefee = fire_without_tip` it competes with a
//! priority of 0, as in the block).

use super::PolicyState;
use super::eip1559::tie_key;
use crate::engine::args::FeeArgs;
use crate::engine::config::TimerConfig;
use crate::engine::eob::fire_budget;
use crate::engine::scheduler::pricing::{default_gba, priority_per_cycle, resolve};
use crate::engine::scheduler::select::{Candidate, auction_order, effective_priority};
use crate::engine::scheduler::variants::BelowBasefee;
use crate::engine::timer::Timer;

/// One timer's place in the preview: its index in the input and its effective priority
/// (`priority per cycle × W`, nanos × bps; `None`: below the lane basefee).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ranked {
    pub idx: usize,
    pub effective_priority: Option<u128>,
}

/// `timers` (one bucket, in queue order) in the auction's order at a lane basefee of
/// `lane_basefee`: the candidates first (effective priority descending, then the tie key),
/// then those below the basefee in queue order.
pub fn rank_preview(
    timers: &[&Timer],
    state: &PolicyState,
    cfg: &TimerConfig,
    lane_basefee: u128,
) -> Vec<Ranked> {
    let cip1 = &state.cip1;
    let c = &cip1.config;
    let default = default_gba(lane_basefee, cip1.p50_tip, None, c);
    let mut cands = Vec::with_capacity(timers.len());
    let mut of_cand = Vec::with_capacity(timers.len());
    let mut below = Vec::new();
    for (i, t) in timers.iter().enumerate() {
        let fees = FeeArgs::of(t.fee_caps.as_deref());
        let (max_fee, tip) = resolve(fees, None, default, c, cip1.p50_tip);
        let priority = match priority_per_cycle(max_fee, tip, lane_basefee) {
            None if c.variants.below_basefee == BelowBasefee::FireWithoutTip => Some(0),
            p => p,
        };
        let Some(p) = priority else {
            below.push(i);
            continue;
        };
        cands.push(Candidate {
            timer_id: tie_key(&c.variants, t),
            schedule_block: t.schedule_block,
            budget: fire_budget(t, cfg),
            priority_per_cycle: p,
            weight_bps: cip1.weight_bps(&t.actor_address),
        });
        of_cand.push(i);
    }
    let mut out: Vec<Ranked> = auction_order(&cands)
        .into_iter()
        .map(|k| Ranked {
            idx: of_cand[k],
            effective_priority: Some(effective_priority(&cands[k])),
        })
        .collect();
    out.extend(below.into_iter().map(|idx| Ranked {
        idx,
        effective_priority: None,
    }));
    out
}
