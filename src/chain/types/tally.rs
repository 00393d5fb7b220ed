//! A block's timer events counted once (issue 31, "an attached dashboard adds under 5 % CPU to
//! the node"): the fairness pane's fires and deferrals per actor over the last `window`
//! blocks, and the lane pane's deferrals per reason, merge these small per-block counts
//! instead of walking every event of the window on every refresh. Not consensus: nothing here
//! enters a root, a hash or a dump.

use super::{Event, EventRecord};
use crate::engine::{Address, DeferReason, TimerEvent};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One actor's timer events in one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActorTally {
    pub actor: Address,
    /// Its `TimerFired` events.
    pub fires: u64,
    /// Its `TimerDeferred` events (first deferrals and a carried timer's change of reason).
    pub deferrals: u64,
}

/// One block's timer events counted: what the fairness pane (`scheduler_actors`) and the
/// deferral chart (`scheduler_deferrals`) read of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockTally {
    /// Fires and deferrals per actor, in actor order; an actor with neither is not listed.
    pub actors: Box<[ActorTally]>,
    /// `TimerDeferred` events per reason, in the order each reason first occurs.
    pub reasons: Box<[(DeferReason, u64)]>,
}

/// Counts `events` into a [`BlockTally`]: what [`TallyCell`] keeps, and the rescan it
/// replaces.
pub fn count_block_events(events: &[EventRecord]) -> BlockTally {
    let mut per: BTreeMap<Address, (u64, u64)> = BTreeMap::new();
    let mut reasons: Vec<(DeferReason, u64)> = Vec::new();
    for r in events {
        match &r.event {
            Event::Timer(TimerEvent::TimerFired { actor, .. }) => {
                per.entry(*actor).or_default().0 += 1
            }
            Event::Timer(TimerEvent::TimerDeferred { actor, reason, .. }) => {
                per.entry(*actor).or_default().1 += 1;
                match reasons.iter_mut().find(|(r, _)| r == reason) {
                    Some((_, n)) => *n += 1,
                    None => reasons.push((*reason, 1)),
                }
            }
            _ => {}
        }
    }
    let actors = per
        .into_iter()
        .map(|(actor, (fires, deferrals))| ActorTally {
            actor,
            fires,
            deferrals,
        })
        .collect();
    BlockTally {
        actors,
        reasons: reasons.into_boxed_slice(),
    }
}

/// A sealed block's [`BlockTally`], counted from its events the first time they are asked
/// for and kept with the block, so they live and go with it: a block replaced by a revert, a
/// reset or a load is a new block with a new cell, and a past read's chain shares the blocks
/// (and their cells) it kept.
///
/// Spec note 204: counted on first read rather than at seal, so a node with no dashboard
/// attached pays nothing and a block read back from a dump or a session counts itself. Not
/// serialised; equal whatever it holds (it is derived from the events); a clone starts empty
/// (a clone's events may be edited), which costs one count again.
#[derive(Default)]
pub struct TallyCell(OnceLock<BlockTally>);

impl TallyCell {
    /// The tally of `events`, counted on the first call.
    pub fn get_or_count(&self, events: &[EventRecord]) -> &BlockTally {
        self.0.get_or_init(|| count_block_events(events))
    }
}

impl Clone for TallyCell {
    fn clone(&self) -> Self {
        TallyCell::default()
    }
}

impl PartialEq for TallyCell {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for TallyCell {}

impl std::fmt::Debug for TallyCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.get().map(|t| t.actors.len());
        f.debug_tuple("TallyCell").field(&n).finish()
    }
}
