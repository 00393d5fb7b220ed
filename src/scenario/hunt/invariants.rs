//! The invariants a hunt checks on every run beside the ones the report states (funds
//! conserved, no panic, no refusal, the same root on replay): every timer leaves by exactly
//! one path; a block's fires never use more than the lane (`fifo`, `eip1559`); the drafts'
//! quotas hold (fires per block, per target); W(actor) stays in [1, 2] (`eip1559`, CIP-1 v3 §8).

use crate::chain::{Event, EventRecord, Genesis};
use crate::engine::scheduler::kind::{FireBound, Weights};
use crate::engine::{SchedulerKind, TimerEvent, TimerId};
use crate::scenario::report::Report;
use std::collections::BTreeMap;

/// The limits a run is held to, from its genesis.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub scheduler: SchedulerKind,
    pub activation: Option<u64>,
    pub lane_timer_cycles: u64,
    pub max_fires_per_block: u32,
    pub max_fires_per_target: u32,
}

impl Limits {
    pub fn of(g: &Genesis) -> Self {
        Limits {
            scheduler: g.scheduler,
            activation: g.activation_height,
            lane_timer_cycles: g.timer.lane_timer_cycles,
            max_fires_per_block: g.cip5_draft.max_fires_per_block,
            max_fires_per_target: g.cip5_draft.max_fires_per_target,
        }
    }
}

/// The timer a leaving event is of, if the event takes it out of the queue for good.
fn exit_of(e: &TimerEvent, drafts: bool) -> Option<TimerId> {
    match e {
        // A draft's interval timer fires again: a fire is not an exit there.
        TimerEvent::TimerFired { timer_id, .. } if !drafts => Some(*timer_id),
        TimerEvent::TimerExpired { timer_id, .. }
        | TimerEvent::TimerCancelled { timer_id, .. }
        | TimerEvent::TimerCancelledInsufficientFunds { timer_id, .. } => Some(*timer_id),
        TimerEvent::TimerCancelledByGovernance {
            timer_id,
            existed: true,
        } => Some(*timer_id),
        _ => None,
    }
}

fn timer_events(r: &Report) -> impl Iterator<Item = (&EventRecord, &TimerEvent)> {
    r.events.iter().filter_map(|rec| match &rec.event {
        Event::Timer(t) => Some((rec, t)),
        Event::Chain(_) => None,
    })
}

/// Every timer leaves by exactly one path: no second exit, no fire after it left.
fn one_exit(r: &Report, drafts: bool) -> Option<String> {
    let mut left: BTreeMap<TimerId, u64> = BTreeMap::new();
    for (rec, e) in timer_events(r) {
        if let TimerEvent::TimerFired { timer_id, .. } = e
            && let Some(h) = left.get(timer_id)
        {
            return Some(format!(
                "timer {} fired at #{} after it left at #{h}",
                timer_id.short(),
                rec.height
            ));
        }
        if let Some(id) = exit_of(e, drafts)
            && let Some(h) = left.insert(id, rec.height)
        {
            return Some(format!(
                "timer {} left twice (#{h}, then #{})",
                id.short(),
                rec.height
            ));
        }
    }
    None
}

/// The fires of each block: the cycles they used and their count, in all and per actor.
fn fires_by_block(r: &Report) -> BTreeMap<u64, (u64, u32, BTreeMap<String, u32>)> {
    let mut by: BTreeMap<u64, (u64, u32, BTreeMap<String, u32>)> = BTreeMap::new();
    for (rec, e) in timer_events(r) {
        if let TimerEvent::TimerFired {
            cycles_used, actor, ..
        } = e
        {
            let b = by.entry(rec.height).or_default();
            b.0 += cycles_used;
            b.1 += 1;
            *b.2.entry(actor.to_string()).or_default() += 1;
        }
    }
    by
}

/// A block whose fires used more than the lane, or broke a draft quota.
fn budgets(r: &Report, lim: &Limits) -> Option<String> {
    for (h, (cycles, n, per)) in fires_by_block(r) {
        let kind = match lim.activation {
            Some(a) if h < a => SchedulerKind::before_activation(),
            _ => lim.scheduler,
        };
        let bound = kind.facts().bound;
        match bound {
            FireBound::LaneCycles if cycles > lim.lane_timer_cycles => {
                return Some(format!(
                    "block #{h}: fires used {cycles} cycles, over the lane's {}",
                    lim.lane_timer_cycles
                ));
            }
            FireBound::FireQuota if n > lim.max_fires_per_block => {
                return Some(format!(
                    "block #{h}: {n} fires, over max_fires_per_block {}",
                    lim.max_fires_per_block
                ));
            }
            FireBound::FireQuota => {
                if let Some((a, m)) = per.iter().find(|(_, m)| **m > lim.max_fires_per_target) {
                    return Some(format!(
                        "block #{h}: {m} fires of {a}, over max_fires_per_target {}",
                        lim.max_fires_per_target
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

/// W(actor) in [1, 2] (`weight_bps` in [10,000, 20,000]) under eip1559.
fn weights(r: &Report, lim: &Limits) -> Option<String> {
    if lim.scheduler.facts().weights != Weights::Window {
        return None;
    }
    r.actors.iter().find_map(|a| {
        let w = a.weight_bps?;
        (!(10_000..=20_000).contains(&w))
            .then(|| format!("W({}) = {w} bps, outside [1, 2]", a.actor))
    })
}

/// The first invariant `r` breaks, in words.
pub fn broken(r: &Report, lim: &Limits) -> Option<String> {
    one_exit(r, lim.scheduler.facts().drafts)
        .or_else(|| budgets(r, lim))
        .or_else(|| weights(r, lim))
}
