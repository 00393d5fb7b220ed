//! Every read of the chain's state that the node's views make, in one place: the chain's
//! fields are becoming accessor methods, and only this module has to follow.

use super::views::{
    AccountView, DeferralCount, HeadView, SupplyView, TiersView, TimerStatus, TimerView,
};
use super::{EventView, MiningMode};
use crate::chain::{Chain, Event, EventRecord};
use crate::engine::{Address, DeferReason, QueueConfig, Timer, TimerConfig, TimerEvent, TimerId};

/// The head of `chain` with the node's own counters.
pub(super) fn head(chain: &Chain, mining: MiningMode, pending_txs: u64) -> HeadView {
    let quote = chain.fee_quote();
    HeadView {
        height: chain.height(),
        hash: chain.head().hash,
        state_root: chain.head().state_root,
        pending_height: chain.pending_height(),
        cycle_basefee: quote.cycle_basefee,
        cell_basefee: quote.cell_basefee,
        pending_timers: chain.engine().queue().len() as u64,
        pending_txs,
        mining,
        scheduler: chain.engine().scheduler(),
    }
}

pub(super) fn height(chain: &Chain) -> u64 {
    chain.height()
}

pub(super) fn timer_config(chain: &Chain) -> &TimerConfig {
    chain.timer_config()
}

pub(super) fn queue_config(chain: &Chain) -> &QueueConfig {
    chain.engine().queue().config()
}

pub(super) fn is_system_deployer(chain: &Chain, who: &Address) -> bool {
    chain.system_deployers().contains(who)
}

pub(super) fn account(chain: &Chain, address: Address, name: Option<String>) -> AccountView {
    AccountView {
        address,
        balance: chain.balance(&address),
        nonce: chain.nonce(&address),
        system_deployer: is_system_deployer(chain, &address),
        name,
    }
}

/// Every address holding an account, in address order.
pub(super) fn account_addresses(chain: &Chain) -> Vec<Address> {
    chain.accounts().keys().copied().collect()
}

pub(super) fn supply(chain: &Chain) -> SupplyView {
    SupplyView {
        minted: chain.supply(),
        burned: chain.burned(),
        balances: chain.checked_total_balances().unwrap_or(u128::MAX),
    }
}

pub(super) fn actor_deployer(chain: &Chain, who: &Address) -> Option<Address> {
    chain.actor(who).map(|a| a.deployer)
}

/// Live timers `actor` holds.
pub(super) fn actor_timers(chain: &Chain, actor: &Address) -> u32 {
    chain.engine().queue().actor_count(actor)
}

pub(super) fn live_timer<'c>(chain: &'c Chain, id: &TimerId) -> Option<&'c Timer> {
    chain.timer(id)
}

/// Every pending timer in firing order.
pub(super) fn pending_timers(chain: &Chain) -> Vec<&Timer> {
    chain.engine().queue().pending()
}

/// The timers of one height in execution order: the ring bucket, or for a height beyond the
/// ring the pending timers of that height in firing order.
pub(super) fn bucket(chain: &Chain, height: u64) -> Vec<&Timer> {
    let q = &chain.engine().queue();
    let h = q.horizons();
    if height >= h.next_height && height < h.ring_horizon {
        return q.bucket(height);
    }
    q.pending()
        .into_iter()
        .filter(|t| t.height.max(h.next_height) == height)
        .collect()
}

pub(super) fn tiers(chain: &Chain) -> TiersView {
    let q = &chain.engine().queue();
    let h = q.horizons();
    let ring = (h.next_height..h.ring_horizon)
        .map(|height| (height, q.bucket(height).len()))
        .filter(|(_, n)| *n > 0)
        .collect();
    let overflow_epochs = q.overflow_epochs();
    let eb = q.config().epoch_blocks;
    TiersView {
        counts: q.counts(),
        horizons: h,
        ring,
        epoch_buckets: q.epoch_buckets(),
        overflow_size: overflow_epochs.iter().map(|(_, n)| n).sum(),
        overflow_epochs,
        next_maintenance: (h.next_height / eb + 1).saturating_mul(eb),
    }
}

/// A timer as a view: from its live record if it is pending, else from its events.
/// `None` when neither knows it.
pub(super) fn timer_view(chain: &Chain, id: &TimerId, events: Vec<EventView>) -> Option<TimerView> {
    let live = chain.timer(id);
    let mut deferrals: Vec<DeferralCount> = Vec::new();
    let mut last: Option<(u32, DeferReason)> = None;
    for r in &events {
        if let Event::Timer(TimerEvent::TimerDeferred {
            reason, carried, ..
        }) = &r.event
        {
            last = Some((*carried, *reason));
            match deferrals.iter_mut().find(|d| d.reason == *reason) {
                Some(d) => d.count += 1,
                None => deferrals.push(DeferralCount {
                    reason: *reason,
                    count: 1,
                }),
            }
        }
    }
    deferrals.sort_by_key(|d| matches!(d.reason, DeferReason::GcBudget));
    let status = match live {
        Some(_) => TimerStatus::Pending,
        None => status_from_events(&events)?,
    };
    if let Some(t) = live {
        let (handler, _) = t.dispatch();
        return Some(TimerView {
            timer_id: t.timer_id,
            actor: t.actor_address,
            fee_payer: t.fee_payer,
            height: t.height,
            expires_at: t.expires_at,
            gas_limit_per_fire: t.gas_limit_per_fire,
            handler: handler.name().to_string(),
            payload: Some(t.payload.to_vec()),
            payload_len: t.payload.len() as u64,
            seq: Some(t.seq),
            schedule_block: Some(t.schedule_block),
            tier: chain.engine().queue().tier_of(id).map(tier_name),
            status,
            deferrals,
            max_fee_per_cycle: t.fee_caps.as_ref().and_then(|c| c.max_fee_per_cycle),
            max_priority_fee_per_cycle: t
                .fee_caps
                .as_ref()
                .and_then(|c| c.max_priority_fee_per_cycle),
            priority_tier: t.fee_caps.as_ref().and_then(|c| c.priority_tier),
            // The record counts a deferral when it is made; its event comes a block later.
            carried: t.fee_caps.as_ref().map_or(0, |c| c.carried),
            last_defer: t.fee_caps.as_ref().and_then(|c| c.last_defer),
            events,
        });
    }
    // Gone: its record is what its `TimerScheduled` event said, with the extensions since.
    let mut view: Option<TimerView> = None;
    for r in &events {
        match &r.event {
            Event::Timer(TimerEvent::TimerScheduled {
                timer_id,
                actor,
                height,
                fee_payer,
                gas_limit_per_fire,
                expires_at,
                handler,
                payload_len,
            }) => {
                view = Some(TimerView {
                    timer_id: *timer_id,
                    actor: *actor,
                    fee_payer: *fee_payer,
                    height: *height,
                    expires_at: *expires_at,
                    gas_limit_per_fire: *gas_limit_per_fire,
                    handler: handler.clone(),
                    payload: None,
                    payload_len: *payload_len,
                    seq: None,
                    schedule_block: Some(r.height),
                    tier: None,
                    status,
                    deferrals: Vec::new(),
                    max_fee_per_cycle: None,
                    max_priority_fee_per_cycle: None,
                    priority_tier: None,
                    carried: 0,
                    last_defer: None,
                    events: Vec::new(),
                })
            }
            Event::Timer(
                TimerEvent::TimerExtended { new_expires_at, .. }
                | TimerEvent::TimerExtendedByGovernance { new_expires_at, .. },
            ) => {
                if let Some(v) = &mut view {
                    v.expires_at = *new_expires_at;
                }
            }
            _ => {}
        }
    }
    let mut view = view?;
    view.deferrals = deferrals;
    if let Some((carried, reason)) = last {
        view.carried = carried;
        view.last_defer = Some(reason);
    }
    view.events = events;
    Some(view)
}

fn tier_name(t: crate::engine::Tier) -> String {
    match t {
        crate::engine::Tier::Ring => "ring",
        crate::engine::Tier::Epoch => "epoch",
        crate::engine::Tier::Overflow => "overflow",
    }
    .to_string()
}

/// The status of a timer that left the queue, from its last concluding event.
pub(super) fn status_from_events(events: &[EventRecord]) -> Option<TimerStatus> {
    events.iter().rev().find_map(|r| match &r.event {
        Event::Timer(t) => match t {
            TimerEvent::TimerFired { .. } => Some(TimerStatus::Fired),
            TimerEvent::TimerExpired { .. } => Some(TimerStatus::Expired),
            TimerEvent::TimerCancelledInsufficientFunds { .. } => Some(TimerStatus::Unfunded),
            TimerEvent::TimerCancelled { .. } => Some(TimerStatus::Cancelled),
            TimerEvent::TimerCancelledByGovernance { existed: true, .. } => {
                Some(TimerStatus::CancelledByGovernance)
            }
            _ => None,
        },
        _ => None,
    })
}
