//! Events in words: the one text of an event that the headless runner's lines
//! (`scenario::lines`) and the dashboard's feed both show (issue 23). A layer both may import:
//! the scenario and the dashboard never import each other.

use crate::chain::{ChainEvent, Event};
use crate::engine::{Address, DeferReason, TimerEvent, TimerId};
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
        Event::Timer(t) => timer_text(t, &who),
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

/// Every timer event as text. The match names every kind and has no catch-all arm, so a new
/// kind does not compile until it has a line (issue 20: the runner panicked on three kinds);
/// the kinds are written in three groups, each by its own function.
fn timer_text(t: &TimerEvent, who: &dyn Fn(&Address) -> String) -> String {
    use TimerEvent as T;
    match t {
        T::TimerScheduled { .. }
        | T::TimerFired { .. }
        | T::TimerDeferred { .. }
        | T::TimerExpired { .. }
        | T::TimerCancelledInsufficientFunds { .. } => life_text(t, who),
        T::TimerCancelled { .. }
        | T::TimerCancelledByGovernance { .. }
        | T::TimerExtended { .. }
        | T::TimerExtendedByGovernance { .. }
        | T::TimerPriorityClampedAtSchedule { .. }
        | T::TimerUpdated { .. } => change_text(t, who),
        T::TimerConfigUpdated { .. }
        | T::GbaFallback { .. }
        | T::SchedulerActivated { .. }
        | T::SchedulerConfigUpdated { .. }
        | T::TimerBid { .. }
        | T::WeightUpdated { .. } => scheduler_text(t, who),
    }
}

/// A timer's own life at the end of a block: scheduled, fired, deferred, expired, cancelled
/// for want of funds.
fn life_text(t: &TimerEvent, who: &dyn Fn(&Address) -> String) -> String {
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
        _ => unreachable!("life_text is called for its own kinds only"),
    }
}

/// A pending timer changed by a transaction or by governance.
fn change_text(t: &TimerEvent, who: &dyn Fn(&Address) -> String) -> String {
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
        T::TimerUpdated {
            timer_id,
            actor,
            client_nonce,
            payload_len,
            gas_limit_per_fire,
            bid,
            fifo_rank_raised,
        } => format!(
            "{} of {}: client_nonce {client_nonce} repeated: payload {payload_len} B, gas {gas_limit_per_fire}, bid {bid}{}",
            id(timer_id),
            who(actor),
            if *fifo_rank_raised {
                ", fifo_rank raised"
            } else {
                ""
            }
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
        _ => unreachable!("change_text is called for its own kinds only"),
    }
}

/// The scheduler's own facts: configuration, activation, GBA fallbacks, bids and weights.
fn scheduler_text(t: &TimerEvent, who: &dyn Fn(&Address) -> String) -> String {
    use TimerEvent as T;
    match t {
        T::TimerConfigUpdated { config } => format!(
            "lane {} · GC {} · max/fire {} · TTL {} · cap {}",
            config.lane_timer_cycles,
            config.gc_cycles_per_block,
            config.max_cycles_per_fire,
            config.max_ttl_blocks,
            config.max_timers_per_actor
        ),
        T::TimerBid {
            timer_id,
            actor,
            max_fee_per_cycle,
            tip_per_cycle,
        } => format!(
            "{} of {}: bids max fee {max_fee_per_cycle}, tip {tip_per_cycle} per cycle",
            id(timer_id),
            who(actor)
        ),
        T::WeightUpdated {
            actor,
            old_bps,
            new_bps,
            score_bps,
        } => match score_bps {
            Some(s) => format!(
                "{}: weight {old_bps} → {new_bps} bps (score {s})",
                who(actor)
            ),
            None => format!(
                "{}: weight {old_bps} → {new_bps} bps (inactive)",
                who(actor)
            ),
        },
        T::SchedulerConfigUpdated { draft: Some(d), .. } => format!(
            "drafts: fires {}/block {}/target · W_age {} W_bid {} W_fifo {} · watch keys {} · min gas {} · payload {} B · timers {}/target (from the next block)",
            d.max_fires_per_block,
            d.max_fires_per_target,
            d.w_age,
            d.w_bid,
            d.w_fifo,
            d.max_watch_keys,
            d.min_gas_limit_per_timer,
            d.max_payload_size,
            d.max_timers_per_target
        ),
        T::SchedulerConfigUpdated {
            config: c,
            draft: None,
        } => format!(
            "tiers {}/{}/{}/{} bps · fairness window {} · auction cap {} (from the next block)",
            c.tier_economy_bps,
            c.tier_standard_bps,
            c.tier_fast_bps,
            c.tier_urgent_bps,
            c.fairness_window_blocks,
            c.max_cycles_per_fire_auction
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
            format!(
                "{} scheduler plans from height {height} on",
                crate::engine::SchedulerKind::after_activation()
            )
        }
        _ => unreachable!("scheduler_text is called for its own kinds only"),
    }
}

fn defer_reason(r: &DeferReason) -> &'static str {
    match r {
        DeferReason::Lane => "lane full",
        DeferReason::GcBudget => "GC budget spent",
        DeferReason::Outbid => "outbid",
        DeferReason::OverCap => "over the per-fire cap",
        DeferReason::BelowBasefee => "max fee below the lane basefee",
        DeferReason::Budget => "timer budget used up",
        DeferReason::Underfunded => "owner cannot pay its bid",
        DeferReason::Quota => "over a fire quota",
    }
}
