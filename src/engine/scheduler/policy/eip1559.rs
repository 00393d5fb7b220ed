//! The `eip1559` policy's plan step: CIP-1 v3 §3 steps 4–9 for one block.

use super::PlanEnv;
use crate::engine::config::GC_CYCLES_PER_REMOVAL;
use crate::engine::eob::{
    EobPlan, Fire, Ledger, Removal, defer, fire_budget, lane_max_cost, remove_under_gc,
};
use crate::engine::events::{DeferReason, TimerEvent};
use crate::engine::queue::{CalendarQueue, DueTimer};
use crate::engine::scheduler::pricing::{default_gba, priority_per_cycle, resolve};
use crate::engine::scheduler::select::{Candidate, select};
use crate::engine::scheduler::variants::{BelowBasefee, LaneBasefeeInMaxCost, OverCap, TieBreak};
use crate::engine::shared::{FeeArgs, GbaContext};
use crate::engine::types::TimerId;

/// One due timer that passed classification, with its price.
struct Priced {
    due: DueTimer,
    budget: u64,
    priority: u128,
    max_cost: u128,
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
pub(super) fn plan(
    queue: &mut CalendarQueue,
    env: &PlanEnv<'_>,
    ledger: &mut dyn Ledger,
) -> EobPlan {
    let (height, cfg, quote, cip1) = (env.height, env.cfg, env.quote, env.cip1);
    let basefee = env.lane_basefee;
    let mut out = EobPlan::new(height);
    let due = queue.take_due(height);
    out.stats.due = due.len() as u64;
    let mut carried = Vec::new();
    let mut gc_left = cfg.gc_cycles_per_block;
    let mut priced: Vec<Priced> = Vec::new();
    let mut cands: Vec<Candidate> = Vec::new();
    let default = default_gba(basefee, cip1.p50_tip, None, &cip1.config);
    let v = cip1.config.variants;
    let auction_cap = cip1.config.max_cycles_per_fire_auction;
    // Variant `lane_basefee_in_max_cost = no` (§3 step 8 as written): the lane basefee gates
    // and prices priority (step 6) but is not charged.
    let charged_lane_basefee = match v.lane_basefee_in_max_cost {
        LaneBasefeeInMaxCost::Yes => basefee,
        LaneBasefeeInMaxCost::No => 0,
    };

    for d in due {
        let t = queue.due(&d);
        let expired = height > t.expires_at;
        // Variant `over_cap = capped`: a budget above the auction cap competes cut to it.
        let budget = match v.over_cap {
            OverCap::Capped => fire_budget(t, cfg).min(auction_cap),
            OverCap::Defer | OverCap::OwnBudget => fire_budget(t, cfg),
        };
        let (priority, max_cost, fallback) = if expired {
            (None, 0, None)
        } else {
            let fees = FeeArgs::of(t.fee_caps.as_deref());
            let (bid, fallback) = if fees.complete() {
                (None, None)
            } else {
                let ctx = GbaContext {
                    trigger_block_height: t.height,
                    current_block_height: height,
                    basefee_cycle: quote.cycle_basefee,
                    basefee_cell: quote.cell_basefee,
                    basefee_lane_timer: basefee,
                    last_block_cycle_usage: cip1.last_block_cycles,
                    previous_block_p50_priority_tip_per_cycle: cip1.p50_tip,
                    owner_actor_balance: ledger.balance(&t.actor_address),
                };
                match ledger.gas_bid(t, &ctx, cip1.config.gba_cycles) {
                    None => (None, None),
                    Some(Ok(b)) => (Some(b), None),
                    Some(Err(kind)) => (None, Some(kind)),
                }
            };
            let (max_fee, max_prio) = resolve(fees, bid, default, &cip1.config, cip1.p50_tip);
            let priority = match (
                priority_per_cycle(max_fee, max_prio, basefee),
                v.below_basefee,
            ) {
                // Variant `below_basefee = fire_without_tip`: competes with no tip.
                (None, BelowBasefee::FireWithoutTip) => Some(0),
                (p, _) => p,
            };
            let cost = lane_max_cost(
                budget,
                cfg.max_cells_per_fire,
                quote,
                charged_lane_basefee,
                priority.unwrap_or(0),
            );
            (priority, cost, fallback)
        };
        if let Some(reason) = fallback {
            out.events.push(TimerEvent::GbaFallback {
                timer_id: t.timer_id,
                actor: t.actor_address,
                reason,
            });
        }
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
            remove_under_gc(&mut out, &mut carried, queue, d, &mut gc_left, removal);
            continue;
        }
        let Some(priority) = priority else {
            if v.below_basefee == BelowBasefee::SelfDestruct {
                // Variant `below_basefee = self_destruct`: CIP-5 §5.4 path 2.
                let removal = Removal {
                    height,
                    expired: false,
                    required: max_cost,
                    available,
                };
                remove_under_gc(&mut out, &mut carried, queue, d, &mut gc_left, removal);
                continue;
            }
            defer(&mut out, queue, &d, DeferReason::BelowBasefee);
            carried.push(d);
            continue;
        };
        cands.push(Candidate {
            timer_id: match v.tie_break {
                TieBreak::Id => t.timer_id,
                // Variant `tie_break = schedule_order`: `select` orders equal effective
                // priorities by this key ascending, so it is made of the schedule block and
                // the insertion sequence (then the id's first bytes, never deciding).
                TieBreak::ScheduleOrder => {
                    let mut k = [0u8; 32];
                    k[..8].copy_from_slice(&t.schedule_block.to_be_bytes());
                    k[8..16].copy_from_slice(&t.seq.to_be_bytes());
                    k[16..].copy_from_slice(&t.timer_id.0[..16]);
                    TimerId(k)
                }
            },
            schedule_block: t.schedule_block,
            budget,
            priority_per_cycle: priority,
            weight_bps: cip1.weight_bps(&t.actor_address),
        });
        priced.push(Priced {
            due: d,
            budget,
            priority,
            max_cost,
        });
    }

    // Variant `over_cap = own_budget`: no per-fire cap in the auction (budgets stay bounded by
    // `max_cycles_per_fire`, and every budget fits an empty lane, Spec note 3).
    let per_fire_cap = match v.over_cap {
        OverCap::OwnBudget => u64::MAX,
        OverCap::Defer | OverCap::Capped => auction_cap,
    };
    let sel = select(&cands, cfg.lane_timer_cycles, per_fire_cap);
    let mut slots: Vec<Option<Priced>> = priced.into_iter().map(Some).collect();
    for &i in &sel.selected {
        let p = slots[i].take().expect("selected once");
        let t = queue.due(&p.due);
        // §3 step 8 "on insufficient funds at any step → CIP-5 §5.4 path 2": the balances were
        // checked one timer at a time before selection; a fee payer whose earlier fires in
        // this block took what a later one needs cannot pay it now. It is removed under the GC
        // lane (or waits for GC budget); the room it was selected into stays unused this block
        // (selection is not rerun).
        let available = ledger.balance(&t.fee_payer);
        if available < p.max_cost {
            if gc_left < GC_CYCLES_PER_REMOVAL {
                defer(&mut out, queue, &p.due, DeferReason::GcBudget);
                carried.push(p.due);
                continue;
            }
            gc_left -= GC_CYCLES_PER_REMOVAL;
            out.stats.gc_cycles += GC_CYCLES_PER_REMOVAL;
            out.stats.unfunded += 1;
            let t = queue.conclude(p.due);
            out.events
                .push(TimerEvent::TimerCancelledInsufficientFunds {
                    timer_id: t.timer_id,
                    actor: t.actor_address,
                    fee_payer: t.fee_payer,
                    required: p.max_cost,
                    available,
                });
            continue;
        }
        ledger.debit(&t.fee_payer, p.max_cost);
        out.stats.lane_reserved += p.budget;
        out.stats.fired += 1;
        let timer = queue.conclude(p.due);
        out.fires.push(Fire {
            timer,
            cycles_limit: p.budget,
            max_cost: p.max_cost,
            tip_per_cycle: p.priority,
            lane_basefee: charged_lane_basefee,
            cycle_basefee: quote.cycle_basefee,
            cell_basefee: quote.cell_basefee,
            cells_limit: cfg.max_cells_per_fire,
        });
    }
    for &(i, reason) in &sel.deferred {
        let p = slots[i].take().expect("deferred once");
        defer(&mut out, queue, &p.due, reason);
        carried.push(p.due);
    }
    queue.carry(carried);
    out
}
