//! The queue's state commitment: this block's changes folded into the timer-set and
//! overflow roots (CIP-1 v3 §2.3, see [`TimerCommitment`]).

use super::{CalendarQueue, Change, Side};
use crate::engine::merkle::{TimerCommitment, recycle};

impl CalendarQueue {
    /// Folds this block's changes into the timer-set and overflow commitments and returns
    /// `(timers_root, overflow_root)`. Cost follows the timers that changed since the last call.
    ///
    /// The height index and the per-actor index of CIP-5 §3.2 are functions of the timer set:
    /// each committed record carries its actor, its height and its insertion `seq`, which fix
    /// its bucket and its FIFO position, so committing the records commits the indexes.
    pub fn commit(&mut self) -> ([u8; 32], [u8; 32]) {
        let mut changes = std::mem::take(&mut self.changes);
        for change in changes.drain(..) {
            match change {
                Change::Gone { height, seq, side } => self.commitment(side).remove(height, seq),
                Change::Dirty { slot, generation } => {
                    let meta = self.slots[slot as usize].meta;
                    if meta.generation != generation || !meta.dirty {
                        continue;
                    }
                    let t = self.slots[slot as usize]
                        .timer
                        .as_ref()
                        .expect("dirty slot is live");
                    let (height, seq, leaf) = (t.height, t.seq, t.leaf());
                    if meta.committed != Side::None {
                        self.commitment(meta.committed).remove(height, seq);
                    }
                    let side = meta.tier.side();
                    self.commitment(side).insert(height, seq, leaf);
                    let meta = &mut self.slots[slot as usize].meta;
                    meta.committed = side;
                    meta.dirty = false;
                }
            }
        }
        self.changes = recycle(changes);
        (self.timers_commit.root(), self.overflow_commit.root())
    }

    fn commitment(&mut self, side: Side) -> &mut TimerCommitment {
        match side {
            Side::Main => &mut self.timers_commit,
            Side::Overflow => &mut self.overflow_commit,
            Side::None => unreachable!("an uncommitted timer has no commitment"),
        }
    }

    /// Changes waiting for the next [`commit`](Self::commit).
    pub fn uncommitted(&self) -> usize {
        self.changes.len()
    }
}
