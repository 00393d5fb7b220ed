//! The `eip1559` policy's plan step: CIP-1 v3 §3 steps 4–9 for one block.

use super::{AfterBlock, AfterBlockAt, BlockOutcome, Cip1State, PlanEnv};
use crate::engine::args::FeeArgs;
use crate::engine::config::GC_CYCLES_PER_REMOVAL;
use crate::engine::eob::{
    EobPlan, Ledger, Price, Removal, defer, fire, fire_budget, lane_max_cost, remove_under_gc,
};
use crate::engine::error::ErrorKind;
use crate::engine::events::{DeferReason, TimerEvent};
use crate::engine::gba::{GbaBid, GbaContext};
use crate::engine::queue::{CalendarQueue, DueTimer};
use crate::engine::scheduler::FairnessSlot;
use crate::engine::scheduler::lane::{next_lane_basefee_with, p50_tip_with};
use crate::engine::scheduler::pricing::{default_gba, priority_per_cycle, resolve};
use crate::engine::scheduler::select::{Candidate, Selection, select};
use crate::engine::scheduler::variants::{
    BelowBasefee, LaneBasefeeInMaxCost, OverCap, TieBreak, Utilisation, Variants,
};
use crate::engine::timer::Timer;
use crate::engine::types::TimerId;

/// One due timer that passed classification, with its price.
pub(super) struct Priced {
    pub(super) due: DueTimer,
    pub(super) budget: u64,
    pub(super) priority: u128,
    pub(super) max_cost: u128,
    /// The owner's fairness slot, found with its W (handed on with the fire).
    pub(super) slot: Option<FairnessSlot>,
}

/// CIP-1 v3 §3 steps 4–9 for the block at `env.height` (step 10, the fairness counters, and
/// the next lane basefee follow the block's execution: `Engine::end_block`).
///
/// For each due timer, in bucket order:
/// 1. TTL expired → GC lane (§9, CIP-5 §5.4 path 3), as under FIFO.
/// 2. Its fee parameters are resolved ([`resolve`]; a custom GBA is called here, read-only,
///    against the balances the transaction phase left: no pre-charge has happened yet, so the
///    GBAs of one block see the same state whatever their order).
/// 3. `balance(fee_payer) < max_cost` (Spec note 50, with its tip; a timer below the
///    basefee is checked with a tip of 0) → GC lane (path 2), `required` = that `max_cost`.
/// 4. `max_fee < lane basefee` → deferred `below_basefee` (Spec note 54; variant
///    `below_basefee = fire_without_tip`: a candidate with priority 0).
/// 5. Otherwise a candidate: `priority = min(max_priority, max_fee − basefee)`, W(actor) from
///    the window as it stood before this block (§3 step 10: this block's fires count from the
///    next).
///
/// Then [`select`] (effective priority desc, `timer_id` asc; greedy fill of
/// `lane_timer_cycles`; over the per-fire cap → `over_cap`); the selected timers are
/// pre-charged in selection order (a fee payer that can no longer pay is path 2, §3 step 8)
/// and fire in it; the others are carried with their reason (§3 step 9), each counted in its
/// record.
///
/// Issue 31: this is the walk of every due timer, the naive baseline; the policy plans through
/// `auction_carry::plan`, which decides the same without walking the carried timers whose price
/// is the block's common one.
pub(super) fn plan_walk(
    queue: &mut CalendarQueue,
    env: &PlanEnv<'_>,
    ledger: &mut dyn Ledger,
) -> EobPlan {
    let auction = Auction::new(env);
    let due = queue.take_due(env.height);
    let mut round = Round::new(env.height, env.cfg.gc_cycles_per_block);
    round.out.stats.due = due.len() as u64;
    for d in due {
        auction.classify(&mut round, queue, ledger, d);
    }
    let sel = select(
        &round.cands,
        env.cfg.lane_timer_cycles,
        auction.per_fire_cap(),
    );
    auction.run_selection(round, queue, ledger, sel)
}

/// What every due timer of the block is priced against.
pub(super) struct Auction<'a> {
    env: &'a PlanEnv<'a>,
    /// The default GBA's `(max_fee, max_priority)` for this block (§6).
    pub(super) default: (u128, u128),
    auction_cap: u64,
    /// The lane basefee a fire is charged: the basefee, or 0 under the variant
    /// `lane_basefee_in_max_cost = no`.
    charged_lane_basefee: u128,
}

/// The block's plan as far as it is decided: the plan, the timers carried, the GC budget
/// left, and the candidates of the auction with their prices (one `Priced` per `Candidate`).
pub(super) struct Round {
    pub(super) out: EobPlan,
    pub(super) carried: Vec<DueTimer>,
    gc_left: u64,
    pub(super) priced: Vec<Priced>,
    pub(super) cands: Vec<Candidate>,
}

impl Round {
    pub(super) fn new(height: u64, gc_left: u64) -> Self {
        Round {
            out: EobPlan::new(height),
            carried: Vec::new(),
            gc_left,
            priced: Vec::new(),
            cands: Vec::new(),
        }
    }
}

impl<'a> Auction<'a> {
    pub(super) fn new(env: &'a PlanEnv<'a>) -> Self {
        let cip1 = env.cip1;
        let basefee = env.lane_basefee;
        // Variant `lane_basefee_in_max_cost = no` (§3 step 8 as written): the lane basefee
        // gates and prices priority (step 6) but is not charged.
        let charged_lane_basefee = match cip1.config.variants.lane_basefee_in_max_cost {
            LaneBasefeeInMaxCost::Yes => basefee,
            LaneBasefeeInMaxCost::No => 0,
        };
        Auction {
            env,
            default: default_gba(basefee, cip1.p50_tip, None, &cip1.config),
            auction_cap: cip1.config.max_cycles_per_fire_auction,
            charged_lane_basefee,
        }
    }

    pub(super) fn variants(&self) -> &Variants {
        &self.env.cip1.config.variants
    }

    /// The cycles a timer competes with: its fire budget, cut to the auction cap under the
    /// variant `over_cap = capped`.
    fn budget(&self, t: &Timer) -> u64 {
        match self.variants().over_cap {
            OverCap::Capped => fire_budget(t, self.env.cfg).min(self.auction_cap),
            OverCap::Defer | OverCap::OwnBudget => fire_budget(t, self.env.cfg),
        }
    }

    /// [`budget`](Self::budget) of a timer with this `gas_limit_per_fire`.
    pub(super) fn budget_of_gas(&self, gas: u64) -> u64 {
        let b = gas.min(self.env.cfg.max_cycles_per_fire);
        match self.variants().over_cap {
            OverCap::Capped => b.min(self.auction_cap),
            OverCap::Defer | OverCap::OwnBudget => b,
        }
    }

    /// The `max_cost` of a timer with this `gas_limit_per_fire` priced at `priority` (§3 step
    /// 8, Spec note 50), as [`price`](Self::price) computes it.
    pub(super) fn plain_cost(&self, gas: u64, priority: u128) -> u128 {
        lane_max_cost(
            self.budget_of_gas(gas),
            self.env.cfg.max_cells_per_fire,
            self.env.quote,
            self.charged_lane_basefee,
            priority,
        )
    }

    /// The lane's capacity (`lane_timer_cycles`).
    pub(super) fn lane(&self) -> u64 {
        self.env.cfg.lane_timer_cycles
    }

    /// W(actor) as the window stood before this block (§8), and the actor's fairness slot
    /// (kept with its fires for the window's update, issue 31).
    pub(super) fn weight_and_slot(
        &self,
        a: &crate::engine::types::Address,
    ) -> (u32, Option<FairnessSlot>) {
        self.env.cip1.weight_and_slot(a)
    }

    /// Variant `over_cap = own_budget`: no per-fire cap in the auction (budgets stay bounded
    /// by `max_cycles_per_fire`, and every budget fits an empty lane, Spec note 3).
    pub(super) fn per_fire_cap(&self) -> u64 {
        match self.variants().over_cap {
            OverCap::OwnBudget => u64::MAX,
            OverCap::Defer | OverCap::Capped => self.auction_cap,
        }
    }

    /// Steps 1 to 5 of [`plan`] for one due timer: removed, deferred below the basefee, or a
    /// candidate of the auction.
    pub(super) fn classify(
        &self,
        r: &mut Round,
        queue: &mut CalendarQueue,
        ledger: &mut dyn Ledger,
        d: DueTimer,
    ) {
        let height = self.env.height;
        let t = queue.due(&d);
        let expired = height > t.expires_at;
        let budget = self.budget(t);
        let (priority, max_cost) = if expired {
            (None, 0)
        } else {
            self.price(r, t, budget, ledger)
        };
        let available = if expired {
            0
        } else {
            ledger.balance(&t.fee_payer)
        };
        if expired || available < max_cost {
            let removal = Removal {
                height,
                expired,
                required: max_cost,
                available,
            };
            remove_under_gc(
                &mut r.out,
                &mut r.carried,
                queue,
                d,
                &mut r.gc_left,
                removal,
            );
            return;
        }
        let Some(priority) = priority else {
            if self.variants().below_basefee == BelowBasefee::SelfDestruct {
                // Variant `below_basefee = self_destruct`: CIP-5 §5.4 path 2.
                let removal = Removal {
                    height,
                    expired: false,
                    required: max_cost,
                    available,
                };
                remove_under_gc(
                    &mut r.out,
                    &mut r.carried,
                    queue,
                    d,
                    &mut r.gc_left,
                    removal,
                );
                return;
            }
            defer(&mut r.out, queue, &d, DeferReason::BelowBasefee);
            r.carried.push(d);
            return;
        };
        let (weight_bps, slot) = self.weight_and_slot(&t.actor_address);
        r.cands.push(Candidate {
            timer_id: self.tie_key(t),
            schedule_block: t.schedule_block,
            budget,
            priority_per_cycle: priority,
            weight_bps,
        });
        r.priced.push(Priced {
            due: d,
            budget,
            priority,
            max_cost,
            slot,
        });
    }

    /// A live timer's priority per cycle (`None`: below the lane basefee) and `max_cost`,
    /// from its fee parameters completed by its GBA or the default one; a GBA that failed is
    /// told as a `GbaFallback` event.
    fn price(
        &self,
        r: &mut Round,
        t: &Timer,
        budget: u64,
        ledger: &mut dyn Ledger,
    ) -> (Option<u128>, u128) {
        let (cip1, basefee) = (self.env.cip1, self.env.lane_basefee);
        let fees = FeeArgs::of(t.fee_caps.as_deref());
        let (bid, fallback) = if fees.complete() {
            (None, None)
        } else {
            self.gas_bid(t, ledger)
        };
        let (max_fee, max_prio) = resolve(fees, bid, self.default, &cip1.config, cip1.p50_tip);
        let priority = match (
            priority_per_cycle(max_fee, max_prio, basefee),
            self.variants().below_basefee,
        ) {
            // Variant `below_basefee = fire_without_tip`: competes with no tip.
            (None, BelowBasefee::FireWithoutTip) => Some(0),
            (p, _) => p,
        };
        let cost = lane_max_cost(
            budget,
            self.env.cfg.max_cells_per_fire,
            self.env.quote,
            self.charged_lane_basefee,
            priority.unwrap_or(0),
        );
        if let Some(reason) = fallback {
            r.out.events.push(TimerEvent::GbaFallback {
                timer_id: t.timer_id,
                actor: t.actor_address,
                reason,
            });
        }
        (priority, cost)
    }

    /// The timer's custom GBA, called read-only (step 2): its bid, or why it failed.
    fn gas_bid(&self, t: &Timer, ledger: &mut dyn Ledger) -> (Option<GbaBid>, Option<ErrorKind>) {
        let (cip1, quote) = (self.env.cip1, self.env.quote);
        let ctx = GbaContext {
            trigger_block_height: t.height,
            current_block_height: self.env.height,
            basefee_cycle: quote.cycle_basefee,
            basefee_cell: quote.cell_basefee,
            basefee_lane_timer: self.env.lane_basefee,
            last_block_cycle_usage: cip1.last_block_cycles,
            previous_block_p50_priority_tip_per_cycle: cip1.p50_tip,
            owner_actor_balance: ledger.balance(&t.actor_address),
        };
        match ledger.gas_bid(t, &ctx, cip1.config.gba_cycles) {
            None => (None, None),
            Some(Ok(b)) => (Some(b), None),
            Some(Err(kind)) => (None, Some(kind)),
        }
    }

    /// The key [`select`] orders equal effective priorities by, ascending.
    fn tie_key(&self, t: &Timer) -> TimerId {
        tie_key(self.variants(), t)
    }

    /// Fires the selected timers in selection order and carries the others with their reason
    /// (§3 steps 8 and 9).
    fn run_selection(
        &self,
        mut r: Round,
        queue: &mut CalendarQueue,
        ledger: &mut dyn Ledger,
        sel: Selection,
    ) -> EobPlan {
        let mut slots: Vec<Option<Priced>> = std::mem::take(&mut r.priced)
            .into_iter()
            .map(Some)
            .collect();
        for &i in &sel.selected {
            let p = slots[i].take().expect("selected once");
            self.fire(&mut r, queue, ledger, p);
        }
        for &(i, reason) in &sel.deferred {
            let p = slots[i].take().expect("deferred once");
            defer(&mut r.out, queue, &p.due, reason);
            r.carried.push(p.due);
        }
        queue.carry(r.carried);
        r.out
    }

    /// One selected timer: pre-charged and fired, or removed when its fee payer can no longer
    /// pay.
    pub(super) fn fire(
        &self,
        r: &mut Round,
        queue: &mut CalendarQueue,
        ledger: &mut dyn Ledger,
        p: Priced,
    ) {
        let t = queue.due(&p.due);
        // §3 step 8 "on insufficient funds at any step → CIP-5 §5.4 path 2": the balances were
        // checked one timer at a time before selection; a fee payer whose earlier fires in
        // this block took what a later one needs cannot pay it now. It is removed under the GC
        // lane (or waits for GC budget); the room it was selected into stays unused this block
        // (selection is not rerun).
        let available = ledger.balance(&t.fee_payer);
        if available < p.max_cost {
            self.remove_unfunded(r, queue, p, available);
            return;
        }
        let price = Price {
            budget: p.budget,
            max_cost: p.max_cost,
            tip_per_cycle: p.priority,
            lane_basefee: self.charged_lane_basefee,
        };
        let (cfg, quote) = (self.env.cfg, self.env.quote);
        fire(&mut r.out, queue, ledger, p.due, price, quote, cfg);
        if let Some(f) = r.out.fires.last_mut() {
            f.fairness_slot = p.slot;
        }
    }

    /// A selected timer whose fee payer can no longer pay: removed under the GC lane, or
    /// carried to wait for GC budget.
    fn remove_unfunded(
        &self,
        r: &mut Round,
        queue: &mut CalendarQueue,
        p: Priced,
        available: u128,
    ) {
        if r.gc_left < GC_CYCLES_PER_REMOVAL {
            defer(&mut r.out, queue, &p.due, DeferReason::GcBudget);
            r.carried.push(p.due);
            return;
        }
        r.gc_left -= GC_CYCLES_PER_REMOVAL;
        r.out.stats.gc_cycles += GC_CYCLES_PER_REMOVAL;
        r.out.stats.unfunded += 1;
        let t = queue.conclude(p.due);
        r.out
            .events
            .push(TimerEvent::TimerCancelledInsufficientFunds {
                timer_id: t.timer_id,
                actor: t.actor_address,
                fee_payer: t.fee_payer,
                required: p.max_cost,
                available,
            });
    }
}

/// The key [`select`] orders equal effective priorities by, ascending, under the variant
/// `tie_break` in force (the block's auction and the bucket's preview, [`super::preview`]).
pub(super) fn tie_key(v: &Variants, t: &Timer) -> TimerId {
    match v.tie_break {
        TieBreak::Id => t.timer_id,
        // Variant `tie_break = schedule_order`: the schedule block and the insertion
        // sequence (then the id's first bytes, never deciding).
        TieBreak::ScheduleOrder => {
            let mut k = [0u8; 32];
            k[..8].copy_from_slice(&t.schedule_block.to_be_bytes());
            k[8..16].copy_from_slice(&t.seq.to_be_bytes());
            k[16..].copy_from_slice(&t.timer_id.0[..16]);
            TimerId(k)
        }
    }
}

/// §3 steps 5 and 10 and §7.1 after the block: the p50 tip, the fairness window and the next
/// lane basefee (see `Policy::after_block`). `moved`: the §8 window may have changed (an
/// empty window stays empty over an idle block; Spec note, quiet heights: under eip1559 a
/// height is quiet only with the window empty and the lane basefee at its floor).
pub(super) fn after_block(
    cip1: &mut Cip1State,
    at: AfterBlockAt,
    outcome: &mut BlockOutcome,
) -> AfterBlock {
    let v = cip1.config.variants;
    let p50 = p50_tip_with(v.p50_even, &mut outcome.tips);
    cip1.p50_tip = p50;
    let idle = outcome.fires.is_empty() && outcome.deferrals.is_empty();
    let was_idle = cip1.fairness.is_idle();
    if idle {
        cip1.fairness.skip_to(at.height);
    } else {
        cip1.fairness
            .record_block_tallied(at.height, &outcome.fires, &outcome.deferrals);
    }
    let basefee = cip1.lane_basefee.unwrap_or(0);
    let used = match v.utilisation {
        Utilisation::Reserved => outcome.reserved,
        Utilisation::Consumed => outcome.consumed,
    };
    cip1.lane_basefee = Some(next_lane_basefee_with(
        v.basefee_step,
        basefee,
        used,
        at.lane_capacity,
        &cip1.config.lane,
    ));
    AfterBlock {
        p50,
        moved: !(idle && was_idle),
    }
}

/// An idle block leaves the lane at rest when the p50 tip is 0, the window empty and the
/// basefee at the floor the next block's update would keep.
pub(super) fn rest_heights(cip1: &Cip1State, lane_capacity: u64, max: u64) -> Option<u64> {
    let basefee = cip1.lane_basefee?;
    let still = cip1.p50_tip == 0
        && cip1.fairness.is_idle()
        && next_lane_basefee_with(
            cip1.config.variants.basefee_step,
            basefee,
            0,
            lane_capacity,
            &cip1.config.lane,
        ) == basefee;
    still.then_some(max)
}
