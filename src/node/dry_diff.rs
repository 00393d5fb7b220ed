//! A dry run's state diff (issue 32, "Dry runs": "the receipt, the trace and the state diff";
//! Spec note 182): what the transaction would change, read off the throwaway copy against the
//! state it ran on. Storage keys written (actor, key, old, new), balances changed (address,
//! before, after) and the timers it would schedule, cancel or extend. Deterministic: the
//! state's `BTreeMap` order (actors, keys, addresses), the events' order for timers.

use crate::chain::{Chain, Event, EventRecord, Receipt};
use crate::engine::{Address, TimerEvent, TimerId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a dry run would change.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StateDiff {
    /// Storage keys whose value would change, by actor then key.
    pub storage: Vec<StorageChange>,
    /// Balances that would change (the sender's fee, transfers, endowments), by address.
    pub balances: Vec<BalanceChange>,
    /// The timers it would schedule, cancel or extend.
    pub timers: TimerChanges,
}

/// One storage key's change (`0x` hex; `null`: absent before, or deleted).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StorageChange {
    pub actor: Address,
    pub key: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// One balance's change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BalanceChange {
    pub address: Address,
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub before: u128,
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub after: u128,
}

/// The timers a dry run would touch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TimerChanges {
    /// Created (a `client_nonce` repeat creates none).
    pub scheduled: Vec<TimerId>,
    pub cancelled: Vec<TimerId>,
    pub extended: Vec<TimerExtension>,
}

/// A timer's `expires_at` moved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TimerExtension {
    pub timer_id: TimerId,
    pub old_expires_at: u64,
    pub new_expires_at: u64,
}

fn hex(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}

impl StateDiff {
    /// `after` (the copy the run was applied to) against `before` (the state it ran on);
    /// `receipt` and `events` are the run's, `bound` a registration's repeat (not created).
    pub fn of(
        before: &Chain,
        after: &Chain,
        receipt: &Receipt,
        events: &[EventRecord],
        bound: Option<TimerId>,
    ) -> StateDiff {
        let mut timers = timer_changes(events);
        timers.scheduled = receipt
            .timers
            .iter()
            .filter(|id| Some(**id) != bound)
            .copied()
            .collect();
        StateDiff {
            storage: storage_changes(before, after),
            balances: balance_changes(before, after),
            timers,
        }
    }
}

/// Every actor's storage in `after` against `before`'s (an actor new in `after` against an
/// empty storage).
fn storage_changes(before: &Chain, after: &Chain) -> Vec<StorageChange> {
    let empty = BTreeMap::new();
    let mut out = Vec::new();
    for (addr, actor) in after.actors() {
        let old = before.actor(addr).map_or(&empty, |a| &a.storage);
        if *old == actor.storage {
            continue;
        }
        let keys: std::collections::BTreeSet<&Vec<u8>> =
            old.keys().chain(actor.storage.keys()).collect();
        for k in keys {
            let (o, n) = (old.get(k), actor.storage.get(k));
            if o != n {
                out.push(StorageChange {
                    actor: *addr,
                    key: hex(k),
                    old: o.map(|v| hex(v)),
                    new: n.map(|v| hex(v)),
                });
            }
        }
    }
    out
}

/// Every account's balance in `after` against `before`'s.
fn balance_changes(before: &Chain, after: &Chain) -> Vec<BalanceChange> {
    let mut addrs: std::collections::BTreeSet<&Address> = after.accounts().keys().collect();
    addrs.extend(before.accounts().keys());
    addrs
        .into_iter()
        .filter_map(|a| {
            let (b, n) = (before.balance(a), after.balance(a));
            (b != n).then_some(BalanceChange {
                address: *a,
                before: b,
                after: n,
            })
        })
        .collect()
}

/// The timers the run's events cancel or extend.
fn timer_changes(events: &[EventRecord]) -> TimerChanges {
    let mut t = TimerChanges::default();
    for r in events {
        let Event::Timer(e) = &r.event else { continue };
        match e {
            TimerEvent::TimerCancelled { timer_id, .. }
            | TimerEvent::TimerCancelledByGovernance { timer_id, .. } => {
                t.cancelled.push(*timer_id);
            }
            TimerEvent::TimerExtended {
                timer_id,
                old_expires_at,
                new_expires_at,
                ..
            }
            | TimerEvent::TimerExtendedByGovernance {
                timer_id,
                old_expires_at,
                new_expires_at,
            } => t.extended.push(TimerExtension {
                timer_id: *timer_id,
                old_expires_at: *old_expires_at,
                new_expires_at: *new_expires_at,
            }),
            _ => {}
        }
    }
    t
}
