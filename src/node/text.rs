//! Events in words (issue 23): the one text of an event that the headless runner's lines
//! (`scenario::lines`) and the dashboard's feed both show. A layer both may import: the
//! scenario and the dashboard never import each other.

use crate::chain::{ChainEvent, Event};
use crate::engine::{Address, TimerEvent, TimerId};
use std::collections::BTreeMap;

/// An event's text without its kind, with the address book's names for addresses (the first
/// bytes of an address with none).
pub fn event_text(e: &Event, book: &BTreeMap<Address, String>) -> String {
    let who = |a: &Address| {
        book.get(a)
            .cloned()
            .unwrap_or_else(|| format!("{}…", &a.to_string()[..10]))
    };
    match e {
        Event::Timer(t) => timer_run_text(t, &who).unwrap_or_else(|| timer_change_text(t, &who)),
        Event::Chain(ChainEvent::ActorDeployed { actor, deployer }) => {
            format!("{} by {}", who(actor), who(deployer))
        }
        Event::Chain(ChainEvent::ActorEmitted { actor, topic, data }) => {
            format!("{} [{topic}] {data}", who(actor))
        }
    }
}

fn id(t: &TimerId) -> String {
    format!("timer {}", t.short())
}

/// A timer's scheduling, fire, deferral, expiry or unfunded removal; `None` for the others.
fn timer_run_text(t: &TimerEvent, who: &dyn Fn(&Address) -> String) -> Option<String> {
    use TimerEvent as T;
    let text = match t {
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
            to_height,
            reason,
            ..
        } => format!(
            "{} of {} → height {to_height} ({})",
            id(timer_id),
            who(actor),
            match reason {
                crate::engine::DeferReason::Lane => "lane full",
                crate::engine::DeferReason::GcBudget => "GC budget spent",
                crate::engine::DeferReason::Outbid => "outbid",
                crate::engine::DeferReason::OverCap => "over the per-fire cap",
                crate::engine::DeferReason::BelowBasefee => "max fee below the lane basefee",
            }
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
        _ => return None,
    };
    Some(text)
}

/// A timer's cancellation or extension, or a config update.
fn timer_change_text(t: &TimerEvent, who: &dyn Fn(&Address) -> String) -> String {
    use TimerEvent as T;
    match t {
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
        } => format!(
            "{} of {}: expires {old_expires_at} → {new_expires_at}",
            id(timer_id),
            who(actor)
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
            "{} of {}: priority {} clamped to {} per cycle (max fee − lane basefee)",
            id(timer_id),
            who(actor),
            nanos(*stated),
            nanos(*clamped)
        ),
        T::GbaFallback {
            timer_id,
            actor,
            reason,
        } => format!(
            "{} of {}: custom GBA failed ({}), the default GBA priced it",
            id(timer_id),
            who(actor),
            reason.as_str()
        ),
        T::SchedulerActivated { height } => format!("eip1559 plans blocks from #{height}"),
        _ => unreachable!("timer_run_text covers the other kinds"),
    }
}

/// A price in nanos per cycle in base units (`1_125_000_000` reads `1.125`).
fn nanos(v: u128) -> String {
    let scale = crate::engine::scheduler::lane::PRICE_SCALE;
    let frac = v % scale;
    if frac == 0 {
        (v / scale).to_string()
    } else {
        let f = format!("{frac:09}");
        format!("{}.{}", v / scale, f.trim_end_matches('0'))
    }
}
