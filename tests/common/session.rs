//! A random session's moves through history, shared by the issue 31 proptests that compare a
//! kept answer with a walk or a rescan (tests/issue31_tally.rs, tests/issue31_ring_tally.rs):
//! snapshots, reverts to them or to a height, and a dump loaded back; and the actors they
//! schedule from.

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::engine::{Address, ScheduleArgs};
use cowboy_devnet::node::{
    DeployActor, DumpState, LoadState, NodeCore, Revert, RevertTo, ScheduleTimer, Snapshot,
};
use proptest::prelude::*;

/// An actor with an empty `handle_timer`, deployed by dev account `1 + i % 3`.
pub fn deploy(n: &mut NodeCore, i: usize) -> Address {
    let from = n.dev_accounts()[1 + i % 3];
    n.apply(DeployActor {
        from: Some(from),
        code: ActorCode::rhai("t", "fn handle_timer(p) {}"),
        address: None,
        endowment: 1_000_000_000_000_000,
        name: None,
    })
    .expect("deploy")
    .address
}

#[derive(Clone, Debug)]
pub enum Travel {
    Snapshot,
    /// Back to the snapshot numbered `i` modulo those taken.
    Revert(usize),
    /// Back `back` heights.
    RevertTo(u64),
    /// A dump loaded back.
    DumpLoad,
}

/// The moves, weighted one each.
pub fn travel() -> impl Strategy<Value = Travel> {
    prop_oneof![
        Just(Travel::Snapshot),
        (0..4usize).prop_map(Travel::Revert),
        (0..6u64).prop_map(Travel::RevertTo),
        Just(Travel::DumpLoad),
    ]
}

impl Travel {
    /// Applies the move; `snaps` holds the snapshots taken. A refused revert (a snapshot gone
    /// with a reset, a height not kept) and a refused dump (a block open with transactions)
    /// change nothing.
    pub fn apply(&self, n: &mut NodeCore, snaps: &mut Vec<u64>) -> Result<(), String> {
        match self {
            Travel::Snapshot => snaps.push(n.apply(Snapshot).map_err(|e| e.to_string())?),
            Travel::Revert(i) if !snaps.is_empty() => {
                let _ = n.apply(Revert {
                    id: snaps[i % snaps.len()],
                });
            }
            Travel::Revert(_) => {}
            Travel::RevertTo(back) => {
                let height = n.chain().height().saturating_sub(*back);
                let _ = n.apply(RevertTo { height });
            }
            Travel::DumpLoad => {
                if let Ok(dump) = n.apply(DumpState) {
                    n.apply(LoadState(dump)).map_err(|e| e.to_string())?;
                }
            }
        }
        Ok(())
    }
}

/// `count` timers of `actor` due at `height`, each with `gas`; a refused one (the actor holds
/// its most) changes nothing.
pub fn schedule_many(n: &mut NodeCore, actor: Address, height: u64, count: u64, gas: u64) {
    for _ in 0..count {
        let _ = n.apply(ScheduleTimer {
            actor,
            args: ScheduleArgs {
                height,
                gas_limit: Some(gas),
                ..ScheduleArgs::default()
            },
            ..Default::default()
        });
    }
}
