//! A live timer's body rewritten in place: the CIP-5 drafts' idempotent repeat (English §6.2,
//! zh §7.2) gives a timer a new `payload` and `gas_limit` for its future fires.

use super::CalendarQueue;
use crate::engine::types::TimerId;

impl CalendarQueue {
    /// Replaces a live timer's payload and `gas_limit_per_fire` (its leaf is re-committed, its
    /// carry index follows). Returns whether the timer is in the queue.
    pub fn update_body(&mut self, id: &TimerId, payload: Box<[u8]>, gas_limit: u64) -> bool {
        let Some(slot) = self.find_slot(id) else {
            return false;
        };
        self.mark_dirty(slot);
        let t = self.slots[slot as usize].timer.as_mut().expect("live slot");
        t.payload = payload;
        let old = std::mem::replace(&mut t.gas_limit_per_fire, gas_limit);
        self.carried_gas_changed(slot, old);
        true
    }
}
