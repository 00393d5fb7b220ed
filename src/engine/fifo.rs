//! The FIFO end of block (CIP-5 §5.1): [`walk`], the walk of every due timer, and [`plan`], the
//! same decisions at a cost that follows what the block fires and changes, not the backlog
//! carried behind a full lane (issue 20). Both classify a due timer with the one [`step`]
//! (issue 29: FIFO classification written once).
//!
//! Spec note (issue 20, CIP-5 §5.1, §5.4, §6.5, §8; completes Spec note 71). The block decides
//! exactly what the walk of [`walk`] decides (who fires, what each pays, which
//! timers leave by expiry or unfunded self-destruct, under which GC budget, which are carried
//! and why, and the events, in the same order); it only avoids visiting the carried timers
//! whose outcome cannot change. The carried timers stay in the carry queue in firing order
//! (`(height, seq)`, `queue::carry`). The block:
//!
//! 1. walks the carry queue from its front as the walk does, firing, removing and deferring,
//!    until the lane closes (the first live, funded timer whose budget does not fit);
//! 2. after that point every carried timer is deferred by the lane unless it is expired
//!    (`height > expires_at`), unfunded (its fee payer's balance, after this block's
//!    pre-charges, is below its `max_cost`), or its last reason is not `lane` (its reason
//!    changes). Nothing else can change a carried timer's outcome: under FIFO the lane is
//!    closed for the rest of the block, no balance moves after the last pre-charge, and a
//!    timer deferred by the lane again keeps its leaf and records no event (Spec note 71).
//!    Those timers are found through the indexes by `expires_at`, by fee payer (per payer, the
//!    largest budget first: every payer with carried timers is asked its balance once) and by
//!    reason, and handled in firing order with the GC budget left;
//! 3. walks the height's own timers as the walk does; the ones not concluded join the back of
//!    the carry queue.
//!
//! The block's `eob.deferred` and backlog summary are the carry queue's counts. State roots
//! and block hashes are those of the walk: the carry queue is a function of the timer set.
//! A block's `eob` no longer lists its deferrals for the fairness window: FIFO does not keep
//! one (CIP-1 v3 §3 step 10 runs under `eip1559`, whose auction ranks every due timer and
//! walks them all).

use super::config::TimerConfig;
use super::eob::{
    Backlog, EobPlan, FeeQuote, Ledger, Price, Removal, defer, fire, fire_budget, max_cost,
    note_deferral, try_remove,
};
use super::events::DeferReason;
use super::queue::{CalendarQueue, DueTimer};

/// What became of one due timer.
enum Step {
    /// Fired or removed.
    Done,
    /// Carried.
    Kept(DueTimer),
    /// Carried, and it closed the lane.
    Closed(DueTimer),
}

/// The block being ended and what is left of its lanes.
struct Block<'a> {
    height: u64,
    cfg: &'a TimerConfig,
    quote: &'a FeeQuote,
    lane_left: u64,
    lane_closed: bool,
    gc_left: u64,
    /// The lane closes at the first live timer that does not fit (Spec note 3); `false` under
    /// the variant `fifo_lane = pass` (Spec note 154), the walk only.
    strict: bool,
    /// The walk counts each deferral in the block's own counts and list ([`defer`]); the carry
    /// queue's plan takes its counts from the carry queue ([`note_deferral`]).
    walk: bool,
}

impl<'a> Block<'a> {
    fn new(
        height: u64,
        cfg: &'a TimerConfig,
        quote: &'a FeeQuote,
        strict: bool,
        walk: bool,
    ) -> Self {
        Block {
            height,
            cfg,
            quote,
            lane_left: cfg.lane_timer_cycles,
            lane_closed: false,
            gc_left: cfg.gc_cycles_per_block,
            strict,
            walk,
        }
    }

    /// Records that `d` is carried for `reason`.
    fn defer(
        &self,
        out: &mut EobPlan,
        queue: &mut CalendarQueue,
        d: &DueTimer,
        reason: DeferReason,
    ) {
        if self.walk {
            defer(out, queue, d, reason);
        } else {
            note_deferral(out, queue, d, reason);
        }
    }
}

/// One due timer, classified as [`walk`]'s documentation says.
fn step(
    out: &mut EobPlan,
    queue: &mut CalendarQueue,
    ledger: &mut dyn Ledger,
    b: &mut Block<'_>,
    d: DueTimer,
) -> Step {
    let t = queue.due(&d);
    let expired = b.height > t.expires_at;
    let budget = fire_budget(t, b.cfg);
    let cost = max_cost(budget, b.cfg.max_cells_per_fire, b.quote, 0);
    let available = if expired {
        0
    } else {
        ledger.balance(&t.fee_payer)
    };
    if expired || available < cost {
        let removal = Removal {
            height: b.height,
            expired,
            required: cost,
            available,
        };
        return match try_remove(out, queue, d, &mut b.gc_left, removal) {
            Ok(()) => Step::Done,
            Err(d) => {
                b.defer(out, queue, &d, DeferReason::GcBudget);
                Step::Kept(d)
            }
        };
    }
    // A timer larger than the whole lane under this config (governance shrank the lane after
    // it was scheduled) waits for a larger lane or its TTL without closing the lane, or it
    // would stall every timer behind it.
    let never_fits = budget > b.cfg.lane_timer_cycles;
    if never_fits || b.lane_closed || budget > b.lane_left {
        let closes = b.strict && !never_fits && !b.lane_closed;
        b.lane_closed |= b.strict && !never_fits;
        b.defer(out, queue, &d, DeferReason::Lane);
        return if closes {
            Step::Closed(d)
        } else {
            Step::Kept(d)
        };
    }
    b.lane_left -= budget;
    let price = Price {
        budget,
        max_cost: cost,
        tip_per_cycle: 0,
        lane_basefee: 0,
    };
    fire(out, queue, ledger, d, price, b.quote, b.cfg);
    Step::Done
}

/// Classifies and selects the timers due at `height` under the FIFO scheduler (CIP-5 §5.1).
///
/// For each due timer, in bucket order:
/// 1. `height > expires_at` → TTL expiry (§5.4 path 3), under the GC budget.
/// 2. `balance(fee_payer) < max_cost` → insufficient-funds self-destruct (§5.4 path 2), under
///    the GC budget. The balance is read before the lane check, so an unfunded timer is cleared
///    on time even when the lane is full; reading it costs the owner nothing.
/// 3. Otherwise the timer fires if its `gas_limit_per_fire` fits the lane; it is pre-charged
///    `max_cost` (§6.3 step 4) and handed to the chain.
///
/// A removal that finds the GC budget spent is carried to the next block ("still expired means
/// still expired", §8), as is a timer that does not fit the lane (§6.5).
///
/// Spec note 71 (§6.5, `TimerDeferred`, replaces the recording of Spec note 18): a deferral
/// is recorded by the block that defers, in its end of block. A carried timer records a
/// `TimerDeferred` only when it is first deferred (Spec note 147 replaced the event on a change
/// of reason by the block's `backlog.reason_changes` counter); a block's whole backlog is summarised once, in its
/// [`EobStats::backlog`] (count, oldest height, count per reason). The event's target is "the
/// next block that runs" (the block it is recorded in plus one, or, after a devnet `halt`, an
/// outage of §8, the first height after the outage): it is not known when the deferring block
/// is sealed, so the event carries no `to_height` (the field it had until Spec note 71).
/// Nothing about a deferral waits in the state for the next block.
///
/// Spec note (open point 3): the lane is *reserved* by the fire budget, `gas_limit_per_fire`
/// bounded by the cap in force ([`fire_budget`]) (§6.5 compares `gas_limit_per_fire` with the
/// remaining budget; CIP-1 v3 §3 step 7 gates on it), because all
/// timers are classified and pre-charged before any handler runs (§5.1 steps 3–5), so the
/// actual cycles are not yet known. The lane can therefore never be exceeded. Under FIFO the
/// first live timer that does not fit *closes the lane for the block*: the smaller timers behind
/// it are deferred too, so execution never leaves insertion order. (The eip1559 scheduler's
/// "greedily fill" lets smaller timers pass; that is a different policy.) A timer whose budget
/// exceeds the whole lane would be deferred without closing the lane; since `TimerConfig`
/// requires `lane_timer_cycles >= max_cycles_per_fire` and the budget is bounded by the cap,
/// this guard cannot trigger under a valid config.
///
/// Issue 20: this walk is what the block decides. The FIFO policy makes the same decisions
/// without visiting the carried timers whose outcome cannot change in the block
/// ([`plan`], over the carry queue); the walk itself runs under the variant
/// `deferred_place = back`, and with `strict` false (variant `fifo_lane = pass`, Spec note 154,
/// the other reading of open point 3) a timer that does not fit is deferred and the timers
/// behind it that still fit the lane left fire, in bucket order.
pub fn walk(
    queue: &mut CalendarQueue,
    height: u64,
    cfg: &TimerConfig,
    quote: &FeeQuote,
    ledger: &mut dyn Ledger,
    strict: bool,
) -> EobPlan {
    let mut out = EobPlan::new(height);
    let due = queue.take_due(height);
    out.stats.due = due.len() as u64;
    let mut b = Block::new(height, cfg, quote, strict, true);
    let mut carried = Vec::new();
    for d in due {
        match step(&mut out, queue, ledger, &mut b, d) {
            Step::Done => {}
            Step::Kept(d) | Step::Closed(d) => carried.push(d),
        }
    }
    queue.carry(carried);
    out
}

/// [`walk`] with the carried timers in the carry queue (see the module docs).
pub fn plan(
    queue: &mut CalendarQueue,
    height: u64,
    cfg: &TimerConfig,
    quote: &FeeQuote,
    ledger: &mut dyn Ledger,
) -> EobPlan {
    let mut out = EobPlan::new(height);
    let (own, due) = queue.take_own_due(height);
    out.stats.due = due;
    let mut b = Block::new(height, cfg, quote, true, false);

    // 1. The carry queue from its front, until the lane closes.
    let mut kept = Vec::new();
    let mut closed_at = None;
    while let Some(d) = queue.carry_pop_front() {
        match step(&mut out, queue, ledger, &mut b, d) {
            Step::Done => {}
            Step::Kept(d) => kept.push(d),
            Step::Closed(d) => {
                closed_at = Some(queue.due_key(&d));
                kept.push(d);
                break;
            }
        }
    }
    queue.carry_put_front(kept);

    // 2. Behind the closed lane: only the carried timers whose outcome can change.
    if let Some(after) = closed_at {
        let cost = |gas: u64| {
            max_cost(
                gas.min(cfg.max_cycles_per_fire),
                cfg.max_cells_per_fire,
                quote,
                0,
            )
        };
        let changes = queue.carried_changes(height, after, &mut |a| ledger.balance(a), &cost);
        for d in changes {
            // A timer carried on keeps its place in the carry queue.
            let _ = step(&mut out, queue, ledger, &mut b, d);
        }
    }

    // 3. The height's own timers.
    for d in own {
        match step(&mut out, queue, ledger, &mut b, d) {
            Step::Done => {}
            Step::Kept(d) | Step::Closed(d) => queue.carry_push_back(d),
        }
    }

    let s = queue.carried_summary();
    out.stats.deferred = s.count;
    out.stats.backlog = Backlog::of_carried(s, out.stats.backlog.reason_changes);
    out
}
