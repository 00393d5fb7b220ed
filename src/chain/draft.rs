//! The chain's side of the CIP-5 drafts: which fired timers stop re-arming at the end of the
//! block (see `Engine::end_draft_block`).

use crate::engine::draft::DraftKind;
use crate::engine::scheduler::variants::IntervalAfterFailure;
use crate::engine::{Engine, TimerId};
use std::collections::BTreeSet;

/// Timers fired in this block that must not re-arm.
#[derive(Debug, Default)]
pub(super) struct Stops {
    pub ids: BTreeSet<TimerId>,
}

impl Stops {
    /// A fire that cancelled its own timer stops it (watch or interval). A failed fire stops
    /// an interval timer only under `interval_after_failure = stop`.
    ///
    /// Spec note (open point 19, zh §11 "或在失败场景按策略决定是否滚动"): by default an
    /// interval rolls forward after a failed fire, which was charged like any other.
    pub fn note(&mut self, engine: &Engine, id: TimerId, cancelled: bool) {
        let stop_failed = engine.cip1().config.variants.interval_after_failure
            == IntervalAfterFailure::Stop
            && engine
                .draft()
                .meta
                .get(&id)
                .is_some_and(|m| matches!(m.kind, DraftKind::Interval { .. }));
        if cancelled || stop_failed {
            self.ids.insert(id);
        }
    }
}
