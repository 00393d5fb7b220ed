//! The FIFO end of block (CIP-5 §5.1, [`super::eob::plan`], the walk of every due timer) at a cost that follows what the
//! block fires and changes, not the backlog carried behind a full lane (issue 20).
//!
//! Spec note (issue 20, CIP-5 §5.1, §5.4, §6.5, §8; completes Spec note 71). The block decides
//! exactly what the walk of [`super::eob::plan`] decides (who fires, what each pays, which
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
    Backlog, EobPlan, FeeQuote, Fire, Ledger, Removal, fire_budget, max_cost, note_deferral,
    try_remove,
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
}

/// One due timer as the walk of [`super::eob::plan`] classifies it.
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
                note_deferral(out, queue, &d, DeferReason::GcBudget);
                Step::Kept(d)
            }
        };
    }
    let never_fits = budget > b.cfg.lane_timer_cycles;
    if never_fits || b.lane_closed || budget > b.lane_left {
        let closes = !never_fits && !b.lane_closed;
        b.lane_closed |= !never_fits;
        note_deferral(out, queue, &d, DeferReason::Lane);
        return if closes {
            Step::Closed(d)
        } else {
            Step::Kept(d)
        };
    }
    b.lane_left -= budget;
    out.stats.lane_reserved += budget;
    ledger.debit(&t.fee_payer, cost);
    let timer = queue.conclude(d);
    out.stats.fired += 1;
    out.fires.push(Fire {
        timer,
        cycles_limit: budget,
        max_cost: cost,
        tip_per_cycle: 0,
        lane_basefee: 0,
        cycle_basefee: b.quote.cycle_basefee,
        cell_basefee: b.quote.cell_basefee,
        cells_limit: b.cfg.max_cells_per_fire,
    });
    Step::Done
}

/// [`super::eob::plan`] with the carried timers in the carry queue (see the module docs).
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
    let mut b = Block {
        height,
        cfg,
        quote,
        lane_left: cfg.lane_timer_cycles,
        lane_closed: false,
        gc_left: cfg.gc_cycles_per_block,
    };

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
