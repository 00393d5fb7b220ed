//! Every read of the chain's state that the node's views make, in one place: the chain's
//! fields are becoming accessor methods, and only this module has to follow.

use super::query::{BucketView, ShareView, SharesView};
use super::views::{
    AccountView, DeferralCount, HeadView, SupplyView, TiersView, TimerStatus, TimerView,
};
use super::{EventView, MiningMode};
use crate::chain::{Chain, Event, EventRecord};
use crate::engine::scheduler::kind::Weights;
use crate::engine::{
    Address, DeferReason, H256, QueueConfig, Timer, TimerConfig, TimerEvent, TimerId,
};
use std::collections::BTreeMap;

/// The head of `chain` with the node's own counters.
pub(super) fn head(
    chain: &Chain,
    mining: MiningMode,
    pending_txs: u64,
    first_kept: u64,
    first_state: u64,
) -> HeadView {
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
        first_kept,
        first_state,
        chain_id: chain_id(chain),
    }
}

/// Keccak-256 of the chain's genesis settings as JSON (issue 34 item 6): two chains started
/// from different genesis settings (another fixture) differ.
fn chain_id(chain: &Chain) -> H256 {
    let mut e = crate::engine::types::HashEncoder::new(b"cowboy-devnet/chain-id");
    e.bytes(&serde_json::to_vec(chain.genesis()).unwrap_or_default());
    H256(e.finish())
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
    let e = chain.engine();
    e.queue().actor_count(actor) + e.policies().watches_of(actor)
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
    if height < h.next_height {
        return Vec::new();
    }
    q.height_timers(height)
}

pub(super) fn tiers(chain: &Chain) -> TiersView {
    let q = &chain.engine().queue();
    let h = q.horizons();
    // Counted by the queue as timers come and go (issue 31): the heights shown, not a walk.
    let ring = (h.next_height..h.ring_horizon)
        .map(|height| (height, q.bucket_len(height) as usize))
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
        // The commitment is a function of the timer set: reading it changes no root.
        overflow_root: H256(chain.engine().committed_roots().1),
        last_migrated: chain.last_block().map_or(0, |b| b.migrated),
    }
}

/// The next height to drain (always) and the next ring heights that hold timers, `count` in
/// all, with their timers' summed fire budgets.
pub(super) fn coming_buckets(chain: &Chain, count: usize) -> Vec<BucketView> {
    let q = chain.engine().queue();
    let hz = q.horizons();
    let cfg = chain.timer_config();
    let start = chain.pending_height().max(hz.next_height);
    let mut out = Vec::new();
    for h in start..hz.ring_horizon.max(start) {
        if out.len() >= count {
            break;
        }
        // The queue's tallies (issue 31, Spec note 206): no walk of a carried bucket.
        let (timers, budget) = q.bucket_budget(h, cfg.max_cycles_per_fire);
        if timers > 0 || h == start {
            out.push(BucketView {
                height: h,
                timers,
                budget,
            });
        }
    }
    out
}

/// Every deployed actor, in address order.
pub(super) fn actors(chain: &Chain) -> Vec<Address> {
    chain.actors().keys().copied().collect()
}

/// Each actor's share of the lane (see [`super::query::SharesQuery`]).
///
/// Spec note (CIP-1 v3 §8, dashboard): under fifo the median shown is the one §8 defines (the
/// lower median over the actors with at least one fire in the window), taken over the fires
/// counted from the events; actors with only deferrals or pending timers do not count.
pub(super) fn shares(chain: &Chain, window: u64) -> SharesView {
    let f = chain.fairness();
    let queue = chain.engine().queue();
    let scheduler = chain.scheduler_at(chain.pending_height());
    let mut per: BTreeMap<Address, ShareView> = BTreeMap::new();
    // Under cip1-v1 the weight is CIP-1 v1's EMA weight (issue 21 §1), not the §8 W.
    let policies = chain.engine().policies();
    let weight = |a: &Address| policies.weight_bps_under(scheduler, a);
    let row = |a: Address| ShareView {
        actor: a,
        fires: 0,
        deferrals: 0,
        pending: 0,
        weight_bps: weight(&a),
    };
    let weights = scheduler.facts().weights;
    let (window_blocks, median) = if weights == Weights::Window {
        for r in policies.fairness_rows() {
            per.insert(
                r.actor,
                ShareView {
                    actor: r.actor,
                    fires: r.recent_fires,
                    deferrals: r.recent_deferrals,
                    pending: 0,
                    weight_bps: r.weight_bps,
                },
            );
        }
        (f.window_blocks(), policies.fairness_median())
    } else {
        // Each block's events counted per actor once and kept with it (issue 31): a refresh
        // merges at most `window` small tallies, not every event of the window.
        let from = chain.height().saturating_sub(window);
        for b in chain.blocks().rev().take_while(|b| b.header.height > from) {
            for t in &b.tally().actors {
                let r = per.entry(t.actor).or_insert_with(|| row(t.actor));
                r.fires += t.fires;
                r.deferrals += t.deferrals;
            }
        }
        let mut fires: Vec<u64> = per.values().map(|r| r.fires).filter(|n| *n > 0).collect();
        fires.sort_unstable();
        let median = if fires.is_empty() {
            0
        } else {
            fires[(fires.len() - 1) / 2]
        };
        (window, median)
    };
    for (a, c) in queue.actor_counts() {
        per.entry(a).or_insert_with(|| row(a)).pending = u64::from(c);
    }
    if weights == Weights::Ema {
        for (a, _) in policies.ema_weights().0 {
            per.entry(a).or_insert_with(|| row(a));
        }
    }
    let weight_range_bps = policies.weight_range_bps(scheduler);
    SharesView {
        scheduler,
        window_blocks,
        median,
        actors: per.into_values().collect(),
        weight_range_bps,
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
            carried: t.carried_by(chain.engine().queue().next_height()),
            last_defer: t.fee_caps.as_ref().and_then(|c| c.last_defer),
            client_nonce: chain.engine().policies().client_nonce_for(id),
            events,
            exit_height: None,
            fee_paid: None,
            history_pruned: false,
            label: None,
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
                    expires_at: *expires_at,
                    gas_limit_per_fire: *gas_limit_per_fire,
                    handler: handler.clone(),
                    payload_len: *payload_len,
                    client_nonce: chain.engine().policies().client_nonce_for(id),
                    ..TimerView::gone(*timer_id, *actor, *fee_payer, *height, r.height, status)
                })
            }
            // A `client_nonce` repeat's update (English §6.2).
            Event::Timer(TimerEvent::TimerUpdated {
                payload_len,
                gas_limit_per_fire,
                ..
            }) => {
                if let Some(v) = &mut view {
                    v.payload_len = *payload_len;
                    v.gas_limit_per_fire = *gas_limit_per_fire;
                }
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
