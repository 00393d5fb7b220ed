//! The `cip1-v1` policy (`cip1-v1-calendar-queue-gba.md` §3–§5, issue 21 §1): a GBA prices
//! each due timer with the six-field v1 context; due timers are ordered by effective tip (ties:
//! the owner's weight, then timer id); the lane (`TIMER_PROCESSING_BUDGET_CYCLES`) is shared in
//! per-actor slices by weight and then filled in that order; the owner pays its bid (first
//! price); an owner who cannot pay is deferred `underfunded`; every loser is carried (in its
//! bucket place, Spec note 219). Over a standing backlog the block runs over the carry queue's
//! indexes (`cip1v1_carry.rs`, issue 31) and decides what [`plan_walk`] decides.
//!
//! Spec notes (conflicts with the canonical pair, CIP-5 + CIP-1 v3), each a choice:
//! - **Timers before transactions** (v1 §3 delivers timers first): the devnet keeps the chain's
//!   one block order, transactions then the end of block, for every policy, so that the same
//!   fixture plays under all three; a timer is priced against the state the block's
//!   transactions left.
//! - **Mandatory GBA** (v1 §4.2): a timer without a custom GBA is priced by the default GBA
//!   (`max_fee = 2 × basefee`, tip = last block's p50 tip, as under eip1559); explicit fee
//!   parameters stored on the timer act as a fixed GBA.
//! - **No fee payer** (v1 §4.1: "deducted from the owning actor's main balance"): a schedule
//!   naming a fee payer other than the owner is `InvalidInput` under this policy.
//! - **No TTL** (v1 has none): CIP-5's `expires_at` still bounds a timer (it expires under the
//!   GC lane as under the other policies), so that "every timer leaves by exactly one path"
//!   holds on a chain whose owners never pay.
//! - **"Until the cycles used exceed the budget"**: a timer reserves its whole budget and is
//!   selected only if it fits the room left; the lane is never exceeded (not overshot by the
//!   last timer), and smaller timers behind one that does not fit may still be selected.
//! - **The basefee**: v1 has no lane basefee; a bid is checked against and charged the cycle
//!   basefee (`max_fee < cycle basefee` → deferred `below_basefee`); the v3 context fields
//!   (`basefee_lane_timer`, the p50) are 0 in the GBA context.

use super::{
    AfterBlock, AuctionEstimate, BlockOutcome, Cip1State, EstimateTimer, PlanEnv, ScheduleEnv,
    check_bid,
};
use crate::engine::args::{FeeArgs, ScheduleArgs};
use crate::engine::config::TimerConfig;
use crate::engine::eob::{
    EobPlan, Ledger, Price, Removal, defer, fire, fire_budget, lane_max_cost, remove_under_gc,
};
use crate::engine::error::TimerError;
use crate::engine::events::{DeferReason, TimerEvent};
use crate::engine::gba::{GbaBid, GbaContext};
use crate::engine::queue::{CalendarQueue, DueTimer};
use crate::engine::scheduler::kind::SchedulerKind;
use crate::engine::scheduler::lane::{PRICE_SCALE, p50_tip_with};
use crate::engine::scheduler::pricing::{default_gba, priority_per_cycle, resolve};
use crate::engine::scheduler::v1::V1Config;
use crate::engine::timer::Timer;
use crate::engine::types::Address;
use std::cmp::Ordering;
use std::collections::BTreeMap;

pub(super) fn prepare_schedule(
    env: &ScheduleEnv<'_>,
    args: &mut ScheduleArgs,
) -> Result<(), TimerError> {
    check_bid(env, args)
}

/// v1 §4.1 "deducted from the owning actor's main balance": a fee payer other than the owner
/// is refused.
pub(super) fn check_owner_pays(actor: &Address, fee_payer: &Address) -> Result<(), TimerError> {
    if actor != fee_payer {
        return Err(TimerError::InvalidInput(format!(
            "cip1-v1 has no fee payer: the owner {actor} pays its timers (CIP-1 v1 §4.1), not {fee_payer}"
        )));
    }
    Ok(())
}

/// A due timer that bid and can pay.
pub(super) struct Bid {
    pub(super) due: DueTimer,
    /// A carried timer's bid, recorded only if it fires (Spec note 159).
    pub(super) event: Option<TimerEvent>,
    pub(super) actor: Address,
    pub(super) id: [u8; 32],
    pub(super) budget: u64,
    pub(super) tip: u128,
    pub(super) weight: u32,
    pub(super) max_cost: u128,
    /// Its place among the block's bids in bucket order (where a bid that loses is carried).
    pub(super) order: usize,
}

/// v1's order of two bids: effective tip desc, then the owner's weight desc, then timer id
/// asc (`Less` when `a` comes first).
pub(super) fn bid_order(a: (u128, u32, &[u8; 32]), b: (u128, u32, &[u8; 32])) -> Ordering {
    b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then_with(|| a.2.cmp(b.2))
}

/// v1 §3 "Deliver Timers" and "Execute Prioritized Timers" for the block at `env.height`:
/// over the carry queue ([`super::cip1v1_carry`], issue 31) unless the placement variant
/// (`deferred_place = back`), the bench and test hook, or a default GBA that bids below the
/// basefee asks for the walk of every due timer ([`plan_walk`]); both decide the same.
pub(super) fn plan(
    queue: &mut CalendarQueue,
    env: &PlanEnv<'_>,
    ledger: &mut dyn Ledger,
) -> EobPlan {
    let block = V1Block::new(env);
    let fast = queue.carries_in_front() && !queue.full_walk();
    match block.plain_tip().filter(|_| fast) {
        Some(p) => super::cip1v1_carry::plan(queue, &block, ledger, p),
        None => plan_walk(queue, &block, ledger),
    }
}

/// The walk of every due timer: each bids, every bid is sorted, the lane's slices are filled
/// over all of them.
///
/// Spec note 219 (issue 31, fifth session): a bid that loses is carried in its place in the
/// block's bucket (the carried timers ahead of the height's own, each in its order), behind
/// the timers deferred while bidding (expired under the GC budget, below the basefee, owner
/// short) and those whose owner ran short at fire time, as the `eip1559` auction carries
/// (Spec note 188); until then the losers were carried in the auction's order, so the carry
/// queue was re-sorted by the block's tips and weights every block, a cost that follows the
/// backlog.
pub(super) fn plan_walk(
    queue: &mut CalendarQueue,
    block: &V1Block<'_>,
    ledger: &mut dyn Ledger,
) -> EobPlan {
    let env = block.env;
    let due = queue.take_due(env.height);
    let mut r = Round::new(env);
    r.out.stats.due = due.len() as u64;
    let mut bids: Vec<Bid> = Vec::new();
    for d in due {
        if let Some(mut bid) = block.bid(&mut r, queue, ledger, d) {
            bid.order = bids.len();
            bids.push(bid);
        }
    }
    bids.sort_by(|a, b| bid_order((a.tip, a.weight, &a.id), (b.tip, b.weight, &b.id)));
    let chosen = fill(&bids, env.cfg.lane_timer_cycles, |b| Ask {
        actor: b.actor,
        weight: b.weight,
        budget: b.budget,
    });
    let mut losers = Vec::new();
    for (b, selected) in bids.into_iter().zip(chosen) {
        if selected {
            block.fire(&mut r, queue, ledger, b);
        } else {
            defer(&mut r.out, queue, &b.due, DeferReason::Budget);
            losers.push((b.order, b.due));
        }
    }
    losers.sort_unstable_by_key(|l| l.0);
    r.carried.extend(losers.into_iter().map(|l| l.1));
    queue.carry(r.carried);
    r.out
}

/// What every due timer of the block is priced against.
pub(super) struct V1Block<'a> {
    pub(super) env: &'a PlanEnv<'a>,
    v1cfg: V1Config,
    /// The cycle basefee, in the lane's price scale (v1 has no lane basefee).
    basefee: u128,
    /// The default GBA's `(max_fee, max_priority)`.
    default: (u128, u128),
}

/// The block's plan as far as it is decided: the plan, the timers carried, the GC budget left.
pub(super) struct Round {
    pub(super) out: EobPlan,
    pub(super) carried: Vec<DueTimer>,
    gc_left: u64,
}

impl Round {
    pub(super) fn new(env: &PlanEnv<'_>) -> Self {
        Round {
            out: EobPlan::new(env.height),
            carried: Vec::new(),
            gc_left: env.cfg.gc_cycles_per_block,
        }
    }
}

impl<'a> V1Block<'a> {
    fn new(env: &'a PlanEnv<'a>) -> Self {
        let cip1 = env.cip1;
        let basefee = env.quote.cycle_basefee.saturating_mul(PRICE_SCALE);
        V1Block {
            env,
            v1cfg: cip1.v1_config(),
            basefee,
            default: default_gba(basefee, cip1.p50_tip, None, &cip1.config),
        }
    }

    /// The effective tip of every *plain* timer (no fee parameter of its own, an owner
    /// without a custom GBA): the default GBA's bid against the basefee; `None` when it bids
    /// below it.
    pub(super) fn plain_tip(&self) -> Option<u128> {
        let (max_fee, max_prio) = self.plain_bid();
        priority_per_cycle(max_fee, max_prio, self.basefee)
    }

    /// The default GBA's `max_fee_per_cycle` (a plain timer's bid).
    pub(super) fn plain_max_fee(&self) -> u128 {
        self.plain_bid().0
    }

    /// A plain timer's `(max_fee_per_cycle, max_priority_fee_per_cycle)`: the default GBA's.
    fn plain_bid(&self) -> (u128, u128) {
        let cip1 = self.env.cip1;
        resolve(
            FeeArgs::default(),
            None,
            self.default,
            &cip1.config,
            cip1.p50_tip,
        )
    }

    /// A plain timer's budget for its `gas_limit_per_fire`.
    pub(super) fn budget_of_gas(&self, gas: u64) -> u64 {
        gas.min(self.env.cfg.max_cycles_per_fire)
    }

    /// A plain timer's `max_cost` for its `gas_limit_per_fire`, at the plain tip `p`
    /// (nondecreasing in the gas).
    pub(super) fn plain_cost(&self, gas: u64, p: u128) -> u128 {
        let cfg = self.env.cfg;
        lane_max_cost(
            self.budget_of_gas(gas),
            cfg.max_cells_per_fire,
            self.env.quote,
            0,
            p,
        )
    }

    /// The owner's EMA weight.
    pub(super) fn weight(&self, actor: &Address) -> u32 {
        self.env.cip1.v1.weight_bps(actor, &self.v1cfg)
    }

    /// One due timer: expired (removed under the GC lane), deferred (below the basefee, or
    /// its owner cannot pay), or a bid of the block.
    pub(super) fn bid(
        &self,
        r: &mut Round,
        queue: &mut CalendarQueue,
        ledger: &mut dyn Ledger,
        d: DueTimer,
    ) -> Option<Bid> {
        let (height, cfg, cip1) = (self.env.height, self.env.cfg, self.env.cip1);
        let t = queue.due(&d);
        if height > t.expires_at {
            let removal = Removal {
                height,
                expired: true,
                required: 0,
                available: 0,
            };
            remove_under_gc(
                &mut r.out,
                &mut r.carried,
                queue,
                d,
                &mut r.gc_left,
                removal,
            );
            return None;
        }
        let fees = FeeArgs::of(t.fee_caps.as_deref());
        let owner_balance = ledger.balance(&t.actor_address);
        let bid = if fees.complete() {
            None
        } else {
            self.gas_bid(r, t, ledger, owner_balance)
        };
        let (max_fee, max_prio) = resolve(fees, bid, self.default, &cip1.config, cip1.p50_tip);
        let tip = priority_per_cycle(max_fee, max_prio, self.basefee);
        let bid_event = TimerEvent::TimerBid {
            timer_id: t.timer_id,
            actor: t.actor_address,
            max_fee_per_cycle: max_fee,
            tip_per_cycle: tip.unwrap_or(0),
        };
        // Spec note 159 (issue 31: events follow the work done, not the backlog): a timer's bid
        // is recorded the first block it is due, and again in the block it fires; a carried
        // timer that loses again is not re-recorded each block (its deferral was recorded
        // when it was first deferred, Spec note 71).
        let first_due = t.carry().0 == 0;
        if first_due {
            r.out.events.push(bid_event.clone());
        }
        let budget = fire_budget(t, cfg);
        let max_cost =
            tip.map(|tip| lane_max_cost(budget, cfg.max_cells_per_fire, self.env.quote, 0, tip));
        let reason = match (tip, max_cost) {
            (Some(tip), Some(max_cost)) if owner_balance >= max_cost => {
                return Some(Bid {
                    event: (!first_due).then_some(bid_event),
                    actor: t.actor_address,
                    id: t.timer_id.0,
                    weight: cip1.v1.weight_bps(&t.actor_address, &self.v1cfg),
                    due: d,
                    budget,
                    tip,
                    max_cost,
                    order: 0,
                });
            }
            (None, _) | (_, None) => DeferReason::BelowBasefee,
            _ => DeferReason::Underfunded,
        };
        defer(&mut r.out, queue, &d, reason);
        r.carried.push(d);
        None
    }

    /// The timer's custom GBA with the six v1 fields (§4.2; the two v3 fields are 0); a GBA
    /// that failed is told as a `GbaFallback` event and the default prices the timer.
    fn gas_bid(
        &self,
        r: &mut Round,
        t: &Timer,
        ledger: &mut dyn Ledger,
        owner_balance: u128,
    ) -> Option<GbaBid> {
        let (quote, cip1) = (self.env.quote, self.env.cip1);
        let ctx = GbaContext {
            trigger_block_height: t.height,
            current_block_height: self.env.height,
            basefee_cycle: quote.cycle_basefee,
            basefee_cell: quote.cell_basefee,
            basefee_lane_timer: 0,
            last_block_cycle_usage: cip1.last_block_cycles,
            previous_block_p50_priority_tip_per_cycle: 0,
            owner_actor_balance: owner_balance,
        };
        match ledger.gas_bid(t, &ctx, cip1.config.gba_cycles) {
            Some(Ok(b)) => Some(b),
            Some(Err(reason)) => {
                r.out.events.push(TimerEvent::GbaFallback {
                    timer_id: t.timer_id,
                    actor: t.actor_address,
                    reason,
                });
                None
            }
            None => None,
        }
    }

    /// A selected bid: the owner pays its bid and the timer fires, or it is deferred
    /// `underfunded` when the owner's earlier fires in this block took what it needs.
    pub(super) fn fire(
        &self,
        r: &mut Round,
        queue: &mut CalendarQueue,
        ledger: &mut dyn Ledger,
        b: Bid,
    ) {
        let (cfg, quote) = (self.env.cfg, self.env.quote);
        if ledger.balance(&b.actor) < b.max_cost {
            defer(&mut r.out, queue, &b.due, DeferReason::Underfunded);
            r.carried.push(b.due);
            return;
        }
        if let Some(e) = b.event {
            r.out.events.push(e);
        }
        let price = Price {
            budget: b.budget,
            max_cost: b.max_cost,
            tip_per_cycle: b.tip,
            lane_basefee: 0,
        };
        fire(&mut r.out, queue, ledger, b.due, price, quote, cfg);
    }
}

/// What [`fill`] needs of a bid: its owner, the owner's weight and its budget.
#[derive(Clone, Copy)]
struct Ask {
    actor: Address,
    weight: u32,
    budget: u64,
}

/// v1 §3 d (ii): the lane in per-actor slices, `lane × w / Σw` over the actors that bid
/// (floored); first each bid in order takes room from its owner's slice, then the room left
/// (unused slices and rounding) goes to the others in order. A bid is selected only if its
/// budget fits. Returns, per bid, whether it is selected. `ask` reads a bid (the plan's
/// [`Bid`]s, or the estimate's).
fn fill<T>(bids: &[T], lane: u64, ask: impl Fn(&T) -> Ask) -> Vec<bool> {
    let asks = || bids.iter().map(&ask);
    let mut weights: BTreeMap<Address, u64> = BTreeMap::new();
    for b in asks() {
        weights.insert(b.actor, b.weight as u64);
    }
    let total: u128 = weights.values().map(|&w| w as u128).sum();
    let mut slices: BTreeMap<Address, u64> = weights
        .iter()
        .map(|(a, &w)| (*a, (lane as u128 * w as u128 / total.max(1)) as u64))
        .collect();
    let mut room = lane;
    let mut chosen = vec![false; bids.len()];
    for (i, b) in asks().enumerate() {
        let slice = slices.get_mut(&b.actor).expect("every bidder has a slice");
        if b.budget <= *slice && b.budget <= room {
            *slice -= b.budget;
            room -= b.budget;
            chosen[i] = true;
        }
    }
    for (i, b) in asks().enumerate() {
        if !chosen[i] && b.budget <= room {
            room -= b.budget;
            chosen[i] = true;
        }
    }
    chosen
}

/// v1's estimate (`Policy::estimate`, issue 29: each policy estimates by its own rules): the
/// timers due at `timer.height` now bid as the block would bid them (their stated parameters,
/// the default GBA for the rest: a custom GBA runs only at fire time), against the cycle
/// basefee (v1 has no lane basefee); the new timer is ranked by v1's order (tip, then its
/// owner's EMA weight; ties go to the timers already queued) and selected if the per-actor
/// slices and the room left take it. A timer that would be deferred `below_basefee` is left
/// out, as the block leaves it; the owners' balances are not asked (`timer_estimate.funding`
/// does that). `effective_priority` is the tip: v1 orders by the tip, the weight only breaks
/// ties (Spec note 216).
pub(super) fn estimate(
    cip1: &Cip1State,
    queue: &CalendarQueue,
    cfg: &TimerConfig,
    quote_basefee: u128,
    timer: &EstimateTimer,
) -> AuctionEstimate {
    let v1cfg = cip1.v1_config();
    let default = default_gba(quote_basefee, cip1.p50_tip, None, &cip1.config);
    let tip_of = |fees: FeeArgs| {
        let (max_fee, max_prio) = resolve(fees, None, default, &cip1.config, cip1.p50_tip);
        (
            max_fee,
            priority_per_cycle(max_fee, max_prio, quote_basefee),
        )
    };
    let due = queue.bucket(timer.height);
    // (tip, weight, id, ask) of every due timer that bids, and the new one with the largest id.
    let mut bids: Vec<(u128, u32, [u8; 32], Ask)> = due
        .iter()
        .filter_map(|t| {
            let tip = tip_of(FeeArgs::of(t.fee_caps.as_deref())).1?;
            let weight = cip1.v1.weight_bps(&t.actor_address, &v1cfg);
            let ask = Ask {
                actor: t.actor_address,
                weight,
                budget: fire_budget(t, cfg),
            };
            Some((tip, weight, t.timer_id.0, ask))
        })
        .collect();
    let (max_fee, tip) = tip_of(timer.fees);
    let weight = cip1.v1.weight_bps(&timer.actor, &v1cfg);
    let mine = [0xFF; 32];
    let ahead = |&(t, w, id, _): &(u128, u32, [u8; 32], Ask)| {
        (t, w) > (tip.unwrap_or(0), weight) || ((t, w) == (tip.unwrap_or(0), weight) && id < mine)
    };
    let rank = 1 + bids.iter().filter(|b| ahead(b)).count() as u64;
    let would_be_selected = tip.is_some() && {
        let me = Ask {
            actor: timer.actor,
            weight,
            budget: timer.budget,
        };
        bids.push((tip.unwrap_or(0), weight, mine, me));
        // v1's order: the tip desc, the owner's weight desc, the id asc (the new timer last
        // among equals).
        bids.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        let at = bids
            .iter()
            .rposition(|b| b.2 == mine)
            .expect("the new timer is listed");
        fill(&bids, cfg.lane_timer_cycles, |b| b.3)[at]
    };
    AuctionEstimate {
        scheduler: SchedulerKind::Cip1V1,
        lane_basefee: quote_basefee,
        max_fee_per_cycle: max_fee,
        priority_per_cycle: tip.unwrap_or(0),
        weight_bps: weight,
        effective_priority: tip.unwrap_or(0),
        due_at_height: due.len() as u64,
        rank,
        would_be_selected,
    }
}

/// v1 §3 after the block: the p50 tip the default GBA bids next (see `Policy::after_block`).
pub(super) fn after_block(cip1: &mut Cip1State, outcome: &mut BlockOutcome) -> AfterBlock {
    let p50 = p50_tip_with(cip1.config.variants.p50_even, &mut outcome.tips);
    cip1.p50_tip = p50;
    AfterBlock { p50, moved: false }
}

/// An idle block moves the weights (decay), the p50 and the cycle usage: none while all three
/// are at rest.
pub(super) fn rest_heights(cip1: &Cip1State, max: u64) -> Option<u64> {
    (cip1.v1.weights.is_empty() && cip1.p50_tip == 0 && cip1.last_block_cycles == 0).then_some(max)
}
