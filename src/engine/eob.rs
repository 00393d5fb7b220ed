//! End-of-block classification, selection and settlement math (CIP-5 §5, §6.3, §6.5).
//!
//! The engine decides; the chain moves the money and runs the handlers. A policy's plan (FIFO's
//! is `engine::fifo`) drains the height's bucket, classifies each due timer and pre-charges the
//! ones selected to fire through the [`Ledger`] trait ([`fire`]); the chain executes them and settles each with [`settle`].

use super::config::{GC_CYCLES_PER_REMOVAL, TimerConfig};
use super::error::ErrorKind;
use super::events::Deferral;
use super::events::{DeferReason, TimerEvent};
use super::gba::{GbaBid, GbaContext};
use super::queue::{CalendarQueue, CarriedSummary, DueTimer};
use super::scheduler::lane::{PRICE_SCALE, charge_ceil, charge_floor};
use super::scheduler::{FairnessSlot, Tally};
use super::timer::Timer;
use super::types::Address;
use serde::{Deserialize, Serialize};

/// Balances as the engine sees them during classification.
pub trait Ledger {
    fn balance(&self, who: &Address) -> u128;
    /// Debits `amount`; the engine only calls this after checking the balance covers it.
    fn debit(&mut self, who: &Address, amount: u128);
    /// CIP-1 v3 §7.2: runs the custom GBA (`get_gas_bid(ctx)`) of `timer`'s actor, read-only,
    /// within `budget` cycles. `None` when the actor has no custom GBA; `Some(Err(kind))` when
    /// it failed, wrote or ran out of its budget (the caller falls back to the default GBA,
    /// Spec note 53). The default: no custom GBAs.
    fn gas_bid(
        &mut self,
        _timer: &Timer,
        _ctx: &GbaContext,
        _budget: u64,
    ) -> Option<Result<GbaBid, ErrorKind>> {
        None
    }
    /// Whether `actor` has a custom GBA ([`gas_bid`](Self::gas_bid) may answer `Some`). The
    /// `eip1559` auction prices the timers of such an actor one by one every block (issue 31);
    /// `true` by default (every timer priced one by one, always right).
    fn has_gba(&self, _actor: &Address) -> bool {
        true
    }
}

/// The per-unit prices in force for this block, read once at the block boundary (CIP-5 §7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeeQuote {
    pub cycle_basefee: u128,
    pub cell_basefee: u128,
}

/// A timer selected to fire, already pre-charged `max_cost`.
#[derive(Clone, Debug)]
pub struct Fire {
    pub timer: Timer,
    /// The cycle budget of this fire: `min(gas_limit_per_fire, max_cycles_per_fire)` under the
    /// config in force at fire time (see [`fire_budget`]). `max_cost`, the lane reservation
    /// and the metering all use it.
    pub cycles_limit: u64,
    pub max_cost: u128,
    /// The priority tip (CIP-1 v3 §3 step 6, `priority_per_cycle`), in nanos per cycle
    /// (Spec note 44); 0 under FIFO.
    pub tip_per_cycle: u128,
    /// The timer-lane basefee in force (CIP-1 v3 §5), nanos per cycle; 0 under FIFO.
    pub lane_basefee: u128,
    pub cycle_basefee: u128,
    pub cell_basefee: u128,
    pub cells_limit: u64,
    /// The owner's CIP-1 v3 fairness slot, when the plan looked the owner up in the window
    /// for W(actor) (under `eip1559`): handed back with the block's fires so the window's
    /// update needs no second lookup (issue 31). Not part of any state.
    pub fairness_slot: Option<FairnessSlot>,
}

/// Counters for one end of block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EobStats {
    pub due: u64,
    pub fired: u64,
    pub deferred: u64,
    pub expired: u64,
    pub unfunded: u64,
    /// Lane cycles reserved by the fired timers' `gas_limit_per_fire`.
    pub lane_reserved: u64,
    /// Lane cycles the fired handlers actually used (filled in by the chain).
    pub lane_used: u64,
    pub gc_cycles: u64,
    /// The backlog this block leaves behind (Spec note 71): the timers it carried, by reason.
    #[serde(default)]
    pub backlog: Backlog,
}

/// One block's summary of the timers it carried to the next block (Spec note 71): how many,
/// the oldest height among them, and how many for each reason. A carried timer records a
/// `TimerDeferred` event only when first deferred (Spec note 147: a later change of reason is
/// counted in `reason_changes`); this summary is what every block says about the whole
/// backlog, at a fixed size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backlog {
    /// Timers carried (equals `EobStats::deferred`).
    pub count: u64,
    /// The lowest scheduled height among them; 0 when none is carried.
    pub oldest_height: u64,
    pub lane: u64,
    pub gc_budget: u64,
    pub outbid: u64,
    pub over_cap: u64,
    pub below_basefee: u64,
    /// CIP-1 v1: the lane was used up (`budget`) or the owner could not pay (`underfunded`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub budget: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub underfunded: u64,
    /// CIP-5 drafts: over a fire quota.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub quota: u64,
    /// Carried timers whose deferral reason changed in this block (Spec note 147): a change
    /// of reason is counted here, not recorded as an event.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reason_changes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Backlog {
    /// The summary of a block's carried timers (from the carry queue's counts), with the
    /// block's `reason_changes` kept.
    pub fn of_carried(s: CarriedSummary, reason_changes: u64) -> Backlog {
        let [
            lane,
            gc_budget,
            outbid,
            over_cap,
            below_basefee,
            budget,
            underfunded,
            quota,
        ] = s.reasons;
        Backlog {
            count: s.count,
            oldest_height: s.oldest_height,
            lane,
            gc_budget,
            outbid,
            over_cap,
            below_basefee,
            budget,
            underfunded,
            quota,
            reason_changes,
        }
    }

    fn add(&mut self, height: u64, reason: DeferReason) {
        self.count += 1;
        if self.oldest_height == 0 || height < self.oldest_height {
            self.oldest_height = height;
        }
        *match reason {
            DeferReason::Lane => &mut self.lane,
            DeferReason::GcBudget => &mut self.gc_budget,
            DeferReason::Outbid => &mut self.outbid,
            DeferReason::OverCap => &mut self.over_cap,
            DeferReason::BelowBasefee => &mut self.below_basefee,
            DeferReason::Budget => &mut self.budget,
            DeferReason::Underfunded => &mut self.underfunded,
            DeferReason::Quota => &mut self.quota,
        } += 1;
    }
}

impl EobStats {
    /// Timers removed under the GC budget.
    pub fn gc_removed(&self) -> u64 {
        self.expired + self.unfunded
    }
}

/// What [`plan`] decided.
#[derive(Debug, Default)]
pub struct EobPlan {
    /// The height being ended.
    pub height: u64,
    pub fires: Vec<Fire>,
    pub events: Vec<TimerEvent>,
    pub stats: EobStats,
    /// This block's deferrals, for the block's CIP-1 outcome (the deferrals per actor of the
    /// fairness window) and lane statistics; dropped once the block is sealed (Spec note 71).
    pub deferrals: Vec<Deferral>,
    /// Deferrals per actor counted for the CIP-1 outcome beside [`deferrals`](Self::deferrals)
    /// (the `eip1559` auction over the carry queue gives its counts per actor instead of a
    /// list, issue 31); the execution lane's reasons only (not `gc_budget`). Each with the
    /// actor's fairness slot found with its W, for the window's update.
    pub deferrals_by_actor: std::collections::BTreeMap<Address, Tally>,
    /// Per actor of [`deferrals_by_actor`](Self::deferrals_by_actor), the sum of those
    /// deferred timers' scheduled heights (CIP-1 v1's lateness part of the score, issue 31).
    pub deferred_heights: std::collections::BTreeMap<Address, u128>,
}

impl EobPlan {
    /// An empty plan for the end of block `height`.
    pub fn new(height: u64) -> Self {
        EobPlan {
            height,
            ..Default::default()
        }
    }
}

/// `max_cost` of CIP-5 §6.3 step 2, with the CIP-1 v3 §3 step 8 tip term (zero under FIFO).
pub fn max_cost(gas_limit: u64, cells_limit: u64, quote: &FeeQuote, tip_per_cycle: u128) -> u128 {
    (gas_limit as u128)
        .saturating_mul(quote.cycle_basefee.saturating_add(tip_per_cycle))
        .saturating_add((cells_limit as u128).saturating_mul(quote.cell_basefee))
}

/// The cycle budget a timer fires with: its `gas_limit_per_fire`, bounded by the
/// `max_cycles_per_fire` in force at fire time.
///
/// Spec note (CIP-5 §6.2 "bounded by", §6.4 "lower per-fire caps"): a cap lowered by governance
/// binds timers already scheduled. Such a timer fires with the lowered cap as its budget; its
/// `max_cost` (§6.3 step 2), its funds check, its lane reservation and its metered limit all
/// follow that budget, so it can neither use nor be charged more than the cap allows. Raising
/// the cap never raises a timer's budget above the `gas_limit_per_fire` it was scheduled with.
pub fn fire_budget(timer: &Timer, cfg: &TimerConfig) -> u64 {
    timer.gas_limit_per_fire.min(cfg.max_cycles_per_fire)
}

/// A selected timer's price: its cycle budget ([`fire_budget`]), the `max_cost` it is
/// pre-charged, and the CIP-1 v3 terms (0 under FIFO and the drafts).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Price {
    pub budget: u64,
    pub max_cost: u128,
    pub tip_per_cycle: u128,
    pub lane_basefee: u128,
}

impl Fire {
    /// The fire of `timer` at `price`, under the block's `quote` and `cfg`: the one place a
    /// [`Fire`] is built (issue 29).
    pub(crate) fn new(timer: Timer, price: Price, quote: &FeeQuote, cfg: &TimerConfig) -> Fire {
        Fire {
            timer,
            cycles_limit: price.budget,
            max_cost: price.max_cost,
            tip_per_cycle: price.tip_per_cycle,
            lane_basefee: price.lane_basefee,
            cycle_basefee: quote.cycle_basefee,
            cell_basefee: quote.cell_basefee,
            cells_limit: cfg.max_cells_per_fire,
            fairness_slot: None,
        }
    }
}

/// Fires a selected due timer under every policy: pre-charges its fee payer `max_cost` (CIP-5
/// §6.3 step 4, the balance already checked), reserves its budget in the lane, takes it out of
/// the queue and adds its [`Fire`] to the plan.
pub(crate) fn fire(
    out: &mut EobPlan,
    queue: &mut CalendarQueue,
    ledger: &mut dyn Ledger,
    d: DueTimer,
    price: Price,
    quote: &FeeQuote,
    cfg: &TimerConfig,
) {
    let payer = queue.due(&d).fee_payer;
    ledger.debit(&payer, price.max_cost);
    out.stats.lane_reserved += price.budget;
    out.stats.fired += 1;
    let timer = queue.conclude(d);
    out.fires.push(Fire::new(timer, price, quote, cfg));
}

/// A due timer that leaves under the GC lane: `expired` at `height` (CIP-5 §5.4 path 3), or its
/// fee payer holds `available` < `required` (path 2).
pub(crate) struct Removal {
    pub height: u64,
    pub expired: bool,
    pub required: u128,
    pub available: u128,
}

/// Removes a due timer under the GC budget `gc_left` and records its exit event, or, when the
/// budget is spent, carries it to the next block as a `GcBudget` deferral ("still expired means
/// still expired", CIP-5 §8). Shared by every policy: the GC lane is outside the execution lane
/// and its auction (CIP-1 v3 §9).
pub(crate) fn remove_under_gc(
    out: &mut EobPlan,
    carried: &mut Vec<DueTimer>,
    queue: &mut CalendarQueue,
    d: DueTimer,
    gc_left: &mut u64,
    r: Removal,
) {
    if let Err(d) = try_remove(out, queue, d, gc_left, r) {
        defer(out, queue, &d, DeferReason::GcBudget);
        carried.push(d);
    }
}

/// The removal of [`remove_under_gc`]; gives the timer back when the GC budget is spent (the
/// caller carries it as a `GcBudget` deferral).
pub(crate) fn try_remove(
    out: &mut EobPlan,
    queue: &mut CalendarQueue,
    d: DueTimer,
    gc_left: &mut u64,
    r: Removal,
) -> Result<(), DueTimer> {
    if *gc_left < GC_CYCLES_PER_REMOVAL {
        return Err(d);
    }
    *gc_left -= GC_CYCLES_PER_REMOVAL;
    out.stats.gc_cycles += GC_CYCLES_PER_REMOVAL;
    let t = queue.conclude(d);
    if r.expired {
        out.stats.expired += 1;
        out.events.push(TimerEvent::TimerExpired {
            timer_id: t.timer_id,
            actor: t.actor_address,
            expires_at: t.expires_at,
            current_height: r.height,
        });
    } else {
        out.stats.unfunded += 1;
        out.events
            .push(TimerEvent::TimerCancelledInsufficientFunds {
                timer_id: t.timer_id,
                actor: t.actor_address,
                fee_payer: t.fee_payer,
                required: r.required,
                available: r.available,
            });
    }
    Ok(())
}

/// Carries a due timer: counts the deferral in its record (Spec note 54), adds it to the
/// block's backlog summary, and records a `TimerDeferred` when it is the timer's first
/// deferral (a change of reason is counted, Spec note 147).
pub(crate) fn defer(
    out: &mut EobPlan,
    queue: &mut CalendarQueue,
    d: &DueTimer,
    reason: DeferReason,
) {
    let deferral = note_deferral(out, queue, d, reason);
    out.stats.backlog.add(deferral.height, reason);
    out.deferrals.push(deferral);
    out.stats.deferred += 1;
}

/// The record and event of [`defer`], without the block's counts: updates the timer's carry
/// record and, on its first deferral or a change of reason, re-commits its leaf; records
/// `TimerDeferred` on the first deferral and counts a change of reason (Spec note 147).
pub(crate) fn note_deferral(
    out: &mut EobPlan,
    queue: &mut CalendarQueue,
    d: &DueTimer,
    reason: DeferReason,
) -> Deferral {
    let (_, before) = queue.due(d).carry();
    if before != Some(reason) {
        queue.recommit_due(d);
    }
    let t = queue.due_mut(d);
    let carried = t.record_deferral(reason, out.height);
    let deferral = Deferral {
        timer_id: t.timer_id,
        actor: t.actor_address,
        height: t.height,
        reason,
        carried,
    };
    if before != Some(reason) {
        // Spec note 147: the first deferral is an event; a later change of reason is the
        // block's counter, so a reason that flips every block costs no event per flip.
        if before.is_none() {
            out.events.push(TimerEvent::TimerDeferred {
                timer_id: deferral.timer_id,
                actor: deferral.actor,
                height: deferral.height,
                reason,
                carried,
            });
        } else {
            out.stats.backlog.reason_changes += 1;
        }
        queue.carried_reason_changed(d, before);
    }
    deferral
}

/// The money of one fire (CIP-5 §6.3 steps 6–7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settlement {
    /// `actual_cost`: what the fee payer ends up paying.
    pub cost: u128,
    /// `max_cost − actual_cost`, credited back to the fee payer.
    pub refund: u128,
    /// The basefee portion of `actual_cost`, burned.
    pub burned: u128,
    /// The priority-tip portion, paid to the block proposer.
    pub tip: u128,
    /// The timer-lane basefee part of `burned` (CIP-1 v3 §5, tracked apart for telemetry).
    pub lane_burned: u128,
}

/// Settles a fire that used `cycles` and `cells` (both already capped by the fire's limits).
/// A reverted handler settles the same way: what it used is charged (§6.3 step 5).
///
/// Under CIP-1 v3 (a fire with a lane basefee or a tip), Spec note 50 (open point 8):
/// `cost = ceil(cycles × (cycle_basefee × SCALE + lane_basefee + tip) / SCALE) + cells ×
/// cell_basefee` (at most `max_cost`, computed the same way from the fire's budget), `tip =
/// floor(cycles × tip / SCALE)` to the proposer, `burned = cost − tip`, of which `lane_burned`
/// is what exceeds the CIP-3 part `cycles × cycle_basefee + cells × cell_basefee`. A FIFO fire
/// (no lane basefee, no tip) settles exactly as CIP-5 §6.3.
pub fn settle(fire: &Fire, cycles: u64, cells: u64) -> Settlement {
    let cycles = cycles.min(fire.cycles_limit);
    let cells = cells.min(fire.cells_limit) as u128;
    if fire.lane_basefee == 0 && fire.tip_per_cycle == 0 {
        let cycles = cycles as u128;
        // Saturating: whatever the basefee, the cost is capped by `max_cost` just below, which
        // the fee payer was able to pay.
        let burned = cycles
            .saturating_mul(fire.cycle_basefee)
            .saturating_add(cells.saturating_mul(fire.cell_basefee));
        let cost = burned.min(fire.max_cost);
        return Settlement {
            cost,
            refund: fire.max_cost - cost,
            burned: cost,
            tip: 0,
            lane_burned: 0,
        };
    }
    let price = lane_price(fire.cycle_basefee, fire.lane_basefee, fire.tip_per_cycle);
    let cells_cost = cells.saturating_mul(fire.cell_basefee);
    let cost = charge_ceil(cycles, price)
        .saturating_add(cells_cost)
        .min(fire.max_cost);
    let tip = charge_floor(cycles, fire.tip_per_cycle).min(cost);
    let burned = cost - tip;
    let base = (cycles as u128)
        .saturating_mul(fire.cycle_basefee)
        .saturating_add(cells_cost);
    Settlement {
        cost,
        refund: fire.max_cost - cost,
        burned,
        tip,
        lane_burned: burned.saturating_sub(base),
    }
}

/// The price per cycle of a CIP-1 v3 fire in nanos: `cycle_basefee × SCALE + lane_basefee +
/// tip` (Spec note 50), saturating.
pub fn lane_price(cycle_basefee: u128, lane_basefee: u128, tip_nanos: u128) -> u128 {
    cycle_basefee
        .saturating_mul(PRICE_SCALE)
        .saturating_add(lane_basefee)
        .saturating_add(tip_nanos)
}

/// CIP-1 v3 §3 step 8 with Spec note 50: `max_cost = ceil(budget × (cycle_basefee ×
/// SCALE + lane_basefee + tip) / SCALE) + cells_limit × cell_basefee`.
pub fn lane_max_cost(
    budget: u64,
    cells_limit: u64,
    quote: &FeeQuote,
    lane_basefee: u128,
    tip_nanos: u128,
) -> u128 {
    charge_ceil(
        budget,
        lane_price(quote.cycle_basefee, lane_basefee, tip_nanos),
    )
    .saturating_add((cells_limit as u128).saturating_mul(quote.cell_basefee))
}
