//! The text lines the headless runner prints: one per block, one per event. The dashboard's
//! event feed uses the same text.

use crate::chain::{Block, ChainEvent, Event};
use crate::engine::{Address, DeferReason, TimerEvent, TimerId};
use std::collections::BTreeMap;

fn short(h: &crate::engine::H256) -> String {
    hex::encode(&h.0[..4])
}

/// One sealed block as a line of fixed-width columns: heights up to [`MAX_RUN_BLOCKS`] (nine
/// digits), counts up to six digits and lane figures up to ten keep every column in place.
///
/// [`MAX_RUN_BLOCKS`]: super::MAX_RUN_BLOCKS
pub fn block_line(b: &Block) -> String {
    let e = &b.eob;
    let outage = if b.header.skipped > 0 {
        format!("  (resumed after {} skipped)", b.header.skipped)
    } else {
        String::new()
    };
    format!(
        "#{:<9} txs {:<6} fired {:<6} deferred {:<6} gc {:<6} lane {:>10}/{:<10} (used {:>10})  pending {:<8} root {}{}",
        b.header.height,
        b.receipts.len(),
        e.fired,
        e.deferred,
        e.gc_removed(),
        e.lane_reserved,
        // The capacity the block ran with, not the one its transactions set for the next.
        b.lane.capacity,
        e.lane_used,
        b.pending,
        short(&b.header.state_root),
        outage
    )
}

/// One event as a human line, with the fixture's names for addresses.
pub fn event_line(e: &Event, book: &BTreeMap<Address, String>) -> String {
    let who = |a: &Address| {
        book.get(a)
            .cloned()
            .unwrap_or_else(|| format!("{}…", &a.to_string()[..10]))
    };
    let body = match e {
        Event::Timer(t) => timer_text(t, &who),
        Event::Chain(ChainEvent::ActorDeployed { actor, deployer }) => {
            format!("{} by {}", who(actor), who(deployer))
        }
        Event::Chain(ChainEvent::ActorEmitted { actor, topic, data }) => {
            format!("{} [{topic}] {data}", who(actor))
        }
    };
    format!("         {:<32} {body}", e.kind().as_str())
}

fn id(t: &TimerId) -> String {
    format!("timer {}", t.short())
}

/// Every timer event as text. The match names every kind and has no catch-all arm, so a new
/// kind does not compile until it has a line (issue 20: the runner panicked on three kinds).
fn timer_text(t: &TimerEvent, who: &dyn Fn(&Address) -> String) -> String {
    use TimerEvent as T;
    match t {
        T::TimerScheduled {
            timer_id,
            actor,
            height,
            fee_payer,
            gas_limit_per_fire,
            expires_at,
            handler,
            ..
        } => format!(
            "{} by {} for height {height} → {handler}, gas {gas_limit_per_fire}, paid by {}, expires {expires_at}",
            id(timer_id),
            who(actor),
            who(fee_payer)
        ),
        T::TimerFired {
            timer_id,
            actor,
            handler,
            cycles_used,
            cost,
            refund,
            success,
            error,
            ..
        } => format!(
            "{} of {} ran {handler}: {cycles_used} cycles, cost {cost}, refund {refund}{}",
            id(timer_id),
            who(actor),
            if *success {
                String::new()
            } else {
                format!(
                    " — REVERTED ({})",
                    error.as_ref().map(|e| e.to_string()).unwrap_or_default()
                )
            }
        ),
        T::TimerDeferred {
            timer_id,
            actor,
            reason,
            ..
        } => format!(
            "{} of {} → the next block that runs ({})",
            id(timer_id),
            who(actor),
            defer_reason(reason)
        ),
        T::TimerExpired {
            timer_id,
            actor,
            expires_at,
            current_height,
        } => format!(
            "{} of {} expired at {expires_at}, removed at {current_height}",
            id(timer_id),
            who(actor)
        ),
        T::TimerCancelledInsufficientFunds {
            timer_id,
            fee_payer,
            required,
            available,
            ..
        } => format!(
            "{}: {} holds {available}, a fire needs {required}",
            id(timer_id),
            who(fee_payer)
        ),
        T::TimerCancelled {
            timer_id,
            actor,
            refund,
        } => format!(
            "{} by its owner {}{}",
            id(timer_id),
            who(actor),
            if *refund > 0 {
                format!(", pre-charge {refund} refunded")
            } else {
                String::new()
            }
        ),
        T::TimerCancelledByGovernance { timer_id, existed } => format!(
            "{}{}",
            id(timer_id),
            if *existed {
                ""
            } else {
                " (already gone: no-op)"
            }
        ),
        T::TimerExtended {
            timer_id,
            actor,
            old_expires_at,
            new_expires_at,
            no_effect,
        } => format!(
            "{} of {}: expires {old_expires_at} → {new_expires_at}{}",
            id(timer_id),
            who(actor),
            if *no_effect {
                " (no effect: it fires in this block)"
            } else {
                ""
            }
        ),
        T::TimerExtendedByGovernance {
            timer_id,
            old_expires_at,
            new_expires_at,
        } => format!(
            "{}: expires {old_expires_at} → {new_expires_at}",
            id(timer_id)
        ),
        T::TimerConfigUpdated { config } => format!(
            "lane {} · GC {} · max/fire {} · TTL {} · cap {}",
            config.lane_timer_cycles,
            config.gc_cycles_per_block,
            config.max_cycles_per_fire,
            config.max_ttl_blocks,
            config.max_timers_per_actor
        ),
        T::TimerPriorityClampedAtSchedule {
            timer_id,
            actor,
            stated,
            clamped,
        } => format!(
            "{} of {}: priority fee {stated} clamped to {clamped} per cycle (max fee − lane basefee)",
            id(timer_id),
            who(actor)
        ),
        T::GbaFallback {
            timer_id,
            actor,
            reason,
        } => format!(
            "{} of {}: custom GBA failed ({}), priced by the default GBA",
            id(timer_id),
            who(actor),
            reason.as_str()
        ),
        T::SchedulerActivated { height } => {
            format!("eip1559 scheduler plans from height {height} on")
        }
    }
}

fn defer_reason(r: &DeferReason) -> &'static str {
    match r {
        DeferReason::Lane => "lane full",
        DeferReason::GcBudget => "GC budget spent",
        DeferReason::Outbid => "outbid",
        DeferReason::OverCap => "over the per-fire cap",
        DeferReason::BelowBasefee => "max fee below the lane basefee",
    }
}
