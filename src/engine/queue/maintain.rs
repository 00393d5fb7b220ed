//! Epoch maintenance (CIP-1 v3 §3 step 2: the amortized migration between tiers, see the
//! queue's module docs) and the height moves: quiet heights skipped at once, and the jump
//! after an outage (CIP-5 §8).

use super::{CalendarQueue, Handle, Tier};
use crate::engine::timer::Timer;

impl CalendarQueue {
    /// Epoch maintenance for the block at `height` (CIP-1 v3 §3 step 2): migrates this block's
    /// slice of the next epoch into the ring and of the overflow set into the epoch queue.
    /// Returns how many timers moved.
    pub fn maintain(&mut self, height: u64) -> usize {
        self.flush_retired();
        let eb = self.cfg.epoch_blocks;
        let s = self.cfg.epoch_slots;
        let e = height / eb;
        let blocks_left = ((e + 1) * eb).saturating_sub(height).max(1) as usize;
        let mut moved = 0;

        // Epoch e+1: epoch queue -> ring.
        let ring_target = (e + 2) * eb;
        if self.ring_horizon < ring_target {
            let pos = self.epoch_pos((e + 1) * eb);
            let remaining = self.epoch_live[pos];
            let mut quota = remaining.div_ceil(blocks_left);
            while quota > 0 {
                let Some(h) = self.epochs[pos].pop_front() else {
                    break;
                };
                let m = self.slots[h.slot as usize].meta;
                if m.generation != h.generation || self.slots[h.slot as usize].timer.is_none() {
                    continue;
                }
                let height = self.slots[h.slot as usize]
                    .timer
                    .as_ref()
                    .expect("live")
                    .height;
                self.slots[h.slot as usize].meta.tier = Tier::Ring;
                let rpos = self.ring_pos(height);
                self.ring_bucket(rpos).push_back(h);
                self.tally_listed(rpos, h.slot);
                self.epoch_live[pos] -= 1;
                self.counts.epoch -= 1;
                self.counts.ring += 1;
                quota -= 1;
                moved += 1;
            }
            if self.epoch_live[pos] == 0 {
                self.epochs[pos].clear();
                self.ring_horizon = ring_target;
            }
        }

        // Epoch e+S: overflow -> epoch queue.
        let epoch_target = (e + s + 1) * eb;
        if self.epoch_horizon < epoch_target {
            let target_epoch = e + s;
            let remaining = self
                .overflow_per_epoch
                .get(&target_epoch)
                .copied()
                .unwrap_or(0);
            let quota = remaining.div_ceil(blocks_left);
            if quota > 0 {
                self.ensure_overflow();
            }
            let lo = (target_epoch * eb, 0);
            let entries = if quota > 0 {
                self.overflow.take_from(lo, quota)
            } else {
                Vec::new()
            };
            for (k, slot) in entries {
                self.overflow.remove(&k);
                let t = self.slots[slot as usize].timer.as_ref().expect("live");
                let pos = self.epoch_pos(t.height);
                let c = self
                    .overflow_per_epoch
                    .get_mut(&target_epoch)
                    .expect("counted");
                *c -= 1;
                if *c == 0 {
                    self.overflow_per_epoch.remove(&target_epoch);
                }
                let generation = self.slots[slot as usize].meta.generation;
                self.slots[slot as usize].meta.tier = Tier::Epoch;
                self.mark_dirty(slot);
                self.epochs[pos].push_back(Handle { slot, generation });
                self.epoch_live[pos] += 1;
                self.counts.overflow -= 1;
                self.counts.epoch += 1;
                moved += 1;
            }
            if !self.overflow_per_epoch.contains_key(&target_epoch) {
                self.epoch_horizon = epoch_target;
            }
        }
        moved
    }

    /// How many heights from [`next_height`](Self::next_height) on, at most `limit`, a block
    /// would find nothing at: no handle in their buckets and no epoch maintenance left in the epoch (both horizons already at the targets
    /// [`maintain`](Self::maintain) moves them to during it). The count stops at the end of the
    /// epoch, whose first height may move a horizon. [`skip_quiet`](Self::skip_quiet) moves past
    /// such heights at once; the cost is a scan of empty buckets, nothing per timer.
    pub fn quiet_heights(&self, limit: u64) -> u64 {
        if limit == 0 || self.carry.live > 0 {
            return 0;
        }
        let eb = self.cfg.epoch_blocks;
        let h = self.next_height;
        let e = h / eb;
        let ring_target = e.saturating_add(2).saturating_mul(eb);
        let epoch_target = e
            .saturating_add(self.cfg.epoch_slots)
            .saturating_add(1)
            .saturating_mul(eb);
        if self.ring_horizon < ring_target || self.epoch_horizon < epoch_target {
            return 0;
        }
        let end = e
            .saturating_add(1)
            .saturating_mul(eb)
            .min(h.saturating_add(limit));
        let mut x = h;
        while x < end && self.ring[self.ring_pos(x)].is_empty() {
            x += 1;
        }
        x - h
    }

    /// Moves past `n` heights counted by [`quiet_heights`](Self::quiet_heights): the state is
    /// the one `n` rounds of [`maintain`](Self::maintain) and [`take_due`](Self::take_due) that
    /// find nothing leave, only `next_height` changes.
    pub fn skip_quiet(&mut self, n: u64) {
        debug_assert!(
            self.quiet_heights(n) == n,
            "skip_quiet past a height with work"
        );
        self.flush_retired();
        self.next_height += n;
    }

    /// Moves the queue to `height` without draining the heights in between (a halted chain
    /// resuming, CIP-5 §8 "resume-after-outage"). Timers of the skipped heights become due at
    /// `height`, ordered by (height, seq). Rebuilds the tiers: O(n log n), a rare operation.
    pub fn jump_to(&mut self, height: u64) {
        if height <= self.next_height {
            return;
        }
        for pos in 0..self.ring_page.len() {
            self.close_page(pos);
        }
        let mut live: Vec<u32> = (0..self.slots.len() as u32)
            .filter(|&s| self.slots[s as usize].timer.is_some())
            .collect();
        live.sort_by_key(|&s| {
            let t = self.slots[s as usize].timer.as_ref().expect("live");
            (t.height, t.seq)
        });
        let timers: Vec<Timer> = live.into_iter().map(|s| self.unstore(s)).collect();
        self.carry.queue.clear();
        self.flush_retired();
        for b in self.ring.iter_mut().chain(self.epochs.iter_mut()) {
            b.clear();
        }
        self.epoch_live.iter_mut().for_each(|c| *c = 0);
        debug_assert!(self.ring_tally.iter().all(|t| t.count == 0));
        self.ring_tally
            .iter_mut()
            .for_each(|t| *t = Default::default());
        self.next_height = height;
        self.reset_horizons(height);
        for t in timers {
            let carry = (t.height < height).then_some(height);
            self.store(t, carry);
        }
    }
}
