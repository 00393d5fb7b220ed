//! Where the queue's bytes are (issue 31, brief "carry"): a bench drops one part of the queue
//! at a time under a counting allocator and reads what that part alone held
//! (`benches/backlog.rs`, its carried-timer report). Not part of the queue's behaviour: the queue is not meant to
//! run on after a part is dropped.

use super::CalendarQueue;
use crate::engine::merkle::TimerCommitment;

/// A part of the queue, in the order [`CalendarQueue::test_hook_drop_part`] is meant to drop
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueuePart {
    /// The carry queue's handles.
    CarryHandles,
    /// The carry queue's own indexes (by expiry, by payer, not `lane`).
    CarryIndexes,
    /// The `eip1559` auction's indexes of the carried timers.
    AuctionIndexes,
    /// The timers' boxed fee parameters and carry records.
    FeeCaps,
    /// The id index.
    IdIndex,
    /// The ring's and the epoch queue's handle lists (with the spare buffers).
    TierLists,
    /// The overflow tier's sorted set and per-epoch counts.
    Overflow,
    /// The per-actor counts.
    PerActor,
    /// The two timer commitments.
    Commitments,
    /// The slab (the timer records, their payloads) and its free lists.
    Slab,
}

impl QueuePart {
    /// Every part, in the order to drop them.
    pub const ALL: [QueuePart; 10] = [
        QueuePart::CarryHandles,
        QueuePart::CarryIndexes,
        QueuePart::AuctionIndexes,
        QueuePart::FeeCaps,
        QueuePart::IdIndex,
        QueuePart::TierLists,
        QueuePart::Overflow,
        QueuePart::PerActor,
        QueuePart::Commitments,
        QueuePart::Slab,
    ];
}

impl CalendarQueue {
    /// Bench hook: lets go of `part` (see [`QueuePart`]).
    #[doc(hidden)]
    pub fn test_hook_drop_part(&mut self, part: QueuePart) {
        match part {
            QueuePart::CarryHandles => self.carry.queue = Default::default(),
            QueuePart::CarryIndexes => {
                let auction = std::mem::take(&mut self.carry.auction);
                self.carry = Default::default();
                self.carry.auction = auction;
            }
            QueuePart::AuctionIndexes => self.carry.auction = Default::default(),
            QueuePart::FeeCaps => {
                for i in 0..self.slots.len() {
                    if self.slots[i]
                        .timer
                        .as_ref()
                        .is_some_and(|t| t.fee_caps.is_some())
                    {
                        self.slots[i].timer.as_mut().expect("live").fee_caps = None;
                    }
                }
            }
            QueuePart::IdIndex => {
                self.index = Default::default();
                self.retired = Vec::new();
            }
            QueuePart::TierLists => {
                self.ring = Vec::new();
                self.epochs = Vec::new();
                self.spare = Vec::new();
            }
            QueuePart::Overflow => {
                self.overflow = Default::default();
                self.overflow_per_epoch = Default::default();
            }
            QueuePart::PerActor => self.per_actor = Default::default(),
            QueuePart::Commitments => {
                self.timers_commit = TimerCommitment::new(1);
                self.overflow_commit = TimerCommitment::new(1);
                self.changes = Vec::new();
            }
            QueuePart::Slab => {
                self.slots = Default::default();
                self.free = Vec::new();
                self.free_pages = Vec::new();
                self.ring_page = Vec::new();
            }
        }
    }
}
