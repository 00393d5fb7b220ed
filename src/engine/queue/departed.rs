//! What a timer was, noted as it leaves the queue for good (issue 31, Spec note 224).
//!
//! The node keeps a compact record of each timer that left (`node::core::fates`), so that
//! `timer_get` answers a timer's fate after its events left the history. A pending timer needs
//! no record (the queue holds it); once it leaves, the events of its exit do not all name its
//! fee payer, the height it was scheduled for, or the block that scheduled it. The queue notes
//! them here as it retires the timer, when asked to ([`CalendarQueue::note_departures`]):
//! the notes of the open block, and those of the block sealed last
//! ([`CalendarQueue::rotate_departures`]), which the node reads after each seal.
//!
//! Not state: nothing the chain computes reads them. A copy of the queue keeps the setting and
//! the open block's notes (a snapshot taken with a block open seals it as the original would),
//! not the last block's; a replay turns the notes off (`node::core::past`).

use super::CalendarQueue;
use crate::engine::timer::Timer;
use crate::engine::types::{Address, TimerId};

/// A timer as it left the queue for good (a fire, an expiry, a cancel, insufficient funds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Departure {
    pub timer_id: TimerId,
    pub actor: Address,
    pub fee_payer: Address,
    /// The height it was scheduled for.
    pub height: u64,
    /// The block that scheduled it.
    pub schedule_block: u64,
    /// Its insertion sequence number (the queue's scheduling order).
    pub seq: u64,
}

impl Departure {
    fn of(t: &Timer) -> Departure {
        Departure {
            timer_id: t.timer_id,
            actor: t.actor_address,
            fee_payer: t.fee_payer,
            height: t.height,
            schedule_block: t.schedule_block,
            seq: t.seq,
        }
    }
}

/// The notes, off unless the owner turns them on. A clone keeps the setting and the open
/// block's notes.
#[derive(Debug, Default)]
pub(super) struct Departures {
    on: bool,
    open: Vec<Departure>,
    last: Vec<Departure>,
}

impl Clone for Departures {
    fn clone(&self) -> Self {
        Departures {
            on: self.on,
            open: self.open.clone(),
            last: Vec::new(),
        }
    }
}

impl Departures {
    #[inline]
    pub(super) fn note(&mut self, t: &Timer) {
        if self.on {
            self.open.push(Departure::of(t));
        }
    }
}

impl CalendarQueue {
    /// Notes every timer that leaves for good from now on (or stops noting and forgets).
    pub fn note_departures(&mut self, on: bool) {
        let d = &mut self.departed;
        d.on = on;
        if !on {
            d.open = Vec::new();
            d.last = Vec::new();
        }
    }

    /// The block being sealed closes its notes: they become the last block's, and the next
    /// block starts with none. Bounded by one block's exits.
    pub fn rotate_departures(&mut self) {
        let d = &mut self.departed;
        d.last.clear();
        std::mem::swap(&mut d.last, &mut d.open);
    }

    /// The timers that left for good in the block sealed last, in the order they left.
    pub fn last_departures(&self) -> &[Departure] {
        &self.departed.last
    }
}
