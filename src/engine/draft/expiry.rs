//! The drafts' watches against their TTL and their owners' caps (English §12 "abuse
//! protection", §14 "Timer GC / TTL"; CIP-5 §5.4).
//!
//! Two indexes derived from `DraftState::watches` (rebuilt on load, so committed through the
//! watches' leaves in the state root): watches by `expires_at`, and live watches per target.
//!
//! Spec note 127 (English §14, CIP-5 §5.4 for height timers): a watch is removed at the first
//! block past its `expires_at` (`h > expires_at`, as a due height timer), whether it waits with
//! an undelivered hit or a queued Globalbox fire or is idle, with a `TimerExpired` event. The
//! sweep walks the index from the oldest `expires_at`, after the due height timers' own
//! expiries, and draws `GC_CYCLES_PER_REMOVAL` per watch from the same `gc_cycles_per_block`
//! budget; a watch the budget does not reach stays indexed and is swept first in the next
//! block, and until then it is not hit and does not fire. The block's work follows the
//! expiring watches, never all watches.

use super::{DraftState, Timer};
use crate::engine::config::GC_CYCLES_PER_REMOVAL;
use crate::engine::eob::EobPlan;
use crate::engine::events::TimerEvent;
use crate::engine::types::{Address, TimerId};

impl DraftState {
    pub(super) fn index_watch(&mut self, w: &Timer) {
        self.expiry
            .entry(w.expires_at)
            .or_default()
            .insert(w.timer_id);
        *self.watches_per_target.entry(w.actor_address).or_default() += 1;
    }

    pub(super) fn unindex_watch(&mut self, w: &Timer) {
        if let Some(s) = self.expiry.get_mut(&w.expires_at) {
            s.remove(&w.timer_id);
            if s.is_empty() {
                self.expiry.remove(&w.expires_at);
            }
        }
        if let Some(n) = self.watches_per_target.get_mut(&w.actor_address) {
            *n -= 1;
            if *n == 0 {
                self.watches_per_target.remove(&w.actor_address);
            }
        }
    }

    pub(super) fn reindex_watches(&mut self) {
        self.expiry.clear();
        self.watches_per_target.clear();
        let all: Vec<Timer> = self.watches.values().cloned().collect();
        for w in &all {
            self.index_watch(w);
        }
    }

    /// Live watches whose target is `target` (they count against `max_timers_per_actor` and
    /// `MAX_TIMERS_PER_TARGET` beside the calendar queue's timers).
    pub fn watches_of(&self, target: &Address) -> u32 {
        self.watches_per_target.get(target).copied().unwrap_or(0)
    }

    /// The smallest `expires_at` of a live watch: the block after it sweeps it.
    pub fn next_watch_expiry(&self) -> Option<u64> {
        self.expiry.keys().next().copied()
    }

    /// Sets a live watch's `expires_at` (`extend_timer` / `SYS_EXTEND_TIMER`, CIP-5 §6.3; the
    /// caller clamped it). Returns the previous value, `None` if `id` is not a live watch.
    pub fn set_watch_expiry(&mut self, id: &TimerId, expires_at: u64) -> Option<u64> {
        let w = self.watches.get(id)?.clone();
        self.unindex_watch(&w);
        let old = w.expires_at;
        let w = self.watches.get_mut(id).expect("looked up above");
        w.expires_at = expires_at;
        let w = w.clone();
        self.index_watch(&w);
        Some(old)
    }

    /// Removes the watches past their TTL at block `h` (see the module docs), oldest
    /// `expires_at` first, while the GC budget lasts.
    pub(super) fn sweep_expired(&mut self, out: &mut EobPlan, h: u64, gc_left: &mut u64) {
        while let Some((&exp, ids)) = self.expiry.first_key_value() {
            if exp >= h {
                return;
            }
            let id = *ids.first().expect("no empty set is kept");
            if *gc_left < GC_CYCLES_PER_REMOVAL {
                return;
            }
            *gc_left -= GC_CYCLES_PER_REMOVAL;
            out.stats.gc_cycles += GC_CYCLES_PER_REMOVAL;
            out.stats.expired += 1;
            let actor = self.watches[&id].actor_address;
            out.events.push(TimerEvent::TimerExpired {
                timer_id: id,
                actor,
                expires_at: exp,
                current_height: h,
            });
            self.forget(&id);
            self.dirty = true;
        }
    }
}
