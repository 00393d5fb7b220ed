//! Live counts per ring bucket (issue 31, "every key answers within 100 ms ... with the same
//! figures at 1M pending"): how many timers each ring bucket and the carry queue hold, and
//! their summed `gas_limit_per_fire`, kept up to date by every insert, removal, carry, move and
//! body update (O(1) each), so that the dashboard's tiers and coming buckets cost the buckets
//! shown instead of a walk of a carried bucket of a million timers on every refresh.
//!
//! Spec note 206: the tallies are derived from the timer set and the buckets' lists, like the
//! carry queue: they are not part of the state root, the dumps or the state files; a clone
//! copies them (a few words per ring height) and a restored queue counts them again while its
//! buckets are refilled. A fire's budget is `min(gas_limit_per_fire, max_cycles_per_fire)`
//! with the cap read at the time of the query, so a tally keeps the plain sum with an upper
//! bound of the largest `gas_limit_per_fire` it ever held since it was last empty: when that
//! bound is within the cap (always, unless governance lowered the cap below a pending timer's
//! gas limit) the sum is the budget; otherwise the bucket is walked, as before.

use super::{CalendarQueue, Handle, Meta, Place, Tier};
use crate::engine::timer::Timer;
use crate::engine::types::TimerId;

/// One bucket's live timers and their summed gas limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct BucketTally {
    pub(super) count: u64,
    gas: u128,
    /// At least the largest `gas_limit_per_fire` among the timers (an upper bound: it is only
    /// reset when the bucket empties).
    max_gas: u64,
}

impl BucketTally {
    #[inline]
    pub(super) fn add(&mut self, gas: u64) {
        self.count += 1;
        self.gas += u128::from(gas);
        self.max_gas = self.max_gas.max(gas);
    }

    #[inline]
    pub(super) fn remove(&mut self, gas: u64) {
        self.count -= 1;
        self.gas -= u128::from(gas);
        if self.count == 0 {
            *self = BucketTally::default();
        }
    }

    #[inline]
    pub(super) fn regas(&mut self, old: u64, new: u64) {
        self.gas = self.gas - u128::from(old) + u128::from(new);
        self.max_gas = self.max_gas.max(new);
    }

    /// The summed budgets `min(gas, cap)`, when the bound allows reading them off the sum.
    fn budget(&self, cap: u64) -> Option<u64> {
        (self.max_gas <= cap).then(|| u64::try_from(self.gas).unwrap_or(u64::MAX))
    }
}

impl CalendarQueue {
    /// The ring bucket a listed ring timer's handle sits in: its own height's, or for a timer
    /// of an earlier height (carried behind the next height's own timers under `deferred_place
    /// = back`, or after a jump) the next height's.
    #[inline]
    pub(super) fn listed_pos(&self, t: &Timer) -> usize {
        self.ring_pos(t.height.max(self.next_height))
    }

    /// Counts a handle just pushed into the ring bucket at `pos`.
    #[inline]
    pub(super) fn tally_listed(&mut self, pos: usize, slot: u32) {
        let gas = self.slots[slot as usize]
            .timer
            .as_ref()
            .expect("live slot")
            .gas_limit_per_fire;
        self.slots[slot as usize].meta.place = Place::Listed;
        self.ring_tally[pos].add(gas);
    }

    /// Uncounts a timer leaving the queue, `meta` its bookkeeping as it was before.
    #[inline]
    pub(super) fn untally(&mut self, meta: &Meta, t: &Timer) {
        if meta.tier == Tier::Ring && meta.place == Place::Listed {
            let pos = self.listed_pos(t);
            self.ring_tally[pos].remove(t.gas_limit_per_fire);
        }
    }

    /// A listed ring timer's gas limit changed from `old`.
    pub(super) fn tally_regas(&mut self, slot: u32, old: u64) {
        let meta = self.slots[slot as usize].meta;
        if meta.tier == Tier::Ring && meta.place == Place::Listed {
            let t = self.slots[slot as usize].timer.as_ref().expect("live slot");
            let (pos, new) = (self.listed_pos(t), t.gas_limit_per_fire);
            self.ring_tally[pos].regas(old, new);
        }
    }

    /// The carried part of `height`'s bucket (the carry queue heads the next height's) and its
    /// own ring bucket, `None` outside the ring.
    fn tallies(&self, height: u64) -> Option<(Option<BucketTally>, BucketTally)> {
        if height < self.next_height || height >= self.ring_horizon {
            return None;
        }
        let carried = (height == self.next_height).then_some(self.carry.tally);
        Some((carried, self.ring_tally[self.ring_pos(height)]))
    }

    /// Timers in the bucket of `height` (what [`bucket_iter`](Self::bucket_iter) walks, counted
    /// without walking it).
    pub fn bucket_len(&self, height: u64) -> u64 {
        self.tallies(height)
            .map_or(0, |(c, own)| c.map_or(0, |c| c.count) + own.count)
    }

    /// The bucket of `height`'s timer count and summed fire budgets (`min(gas_limit_per_fire,
    /// cap)`, `cap` the `max_cycles_per_fire` in force): from the tallies, or by a walk when a
    /// timer's gas limit may exceed the cap (see the module docs).
    pub fn bucket_budget(&self, height: u64, cap: u64) -> (u64, u64) {
        let Some((carried, own)) = self.tallies(height) else {
            return (0, 0);
        };
        let count = carried.map_or(0, |c| c.count) + own.count;
        let kept = match carried {
            Some(c) => c.budget(cap).zip(own.budget(cap)).map(|(a, b)| a + b),
            None => own.budget(cap),
        };
        let budget = kept.unwrap_or_else(|| {
            self.bucket_iter(height)
                .map(|t| t.gas_limit_per_fire.min(cap))
                .sum()
        });
        (count, budget)
    }

    /// Rows `offset..offset + limit` of the bucket of `height` in firing order (what
    /// [`bucket_iter`](Self::bucket_iter) yields there). When neither list of the bucket holds
    /// a stale handle (a standing backlog drained from its front holds none) a row is found by
    /// its index, so the cost is the rows; otherwise the handles up to the page are walked.
    pub fn bucket_rows(&self, height: u64, offset: u64, limit: u64) -> Vec<&Timer> {
        let (offset, limit) = (
            usize::try_from(offset).unwrap_or(usize::MAX),
            usize::try_from(limit).unwrap_or(usize::MAX),
        );
        let Some((carried, own)) = self.tallies(height) else {
            return Vec::new();
        };
        let ring = &self.ring[self.ring_pos(height)];
        let queue = &self.carry.queue;
        let carried_len = carried.map_or(0, |c| c.count as usize);
        let clean =
            ring.len() as u64 == own.count && (carried.is_none() || queue.len() == carried_len);
        if !clean {
            return self.bucket_iter(height).skip(offset).take(limit).collect();
        }
        let timer = |h: &Handle| self.slots[h.slot as usize].timer.as_ref().expect("live");
        let from_carried = queue
            .iter()
            .take(carried_len)
            .skip(offset)
            .take(limit)
            .map(|c| timer(&c.h));
        let own_from = offset.saturating_sub(carried_len);
        let own_limit = limit.saturating_sub(carried_len.saturating_sub(offset).min(limit));
        from_carried
            .chain(
                ring.range(own_from.min(ring.len())..)
                    .take(own_limit)
                    .map(timer),
            )
            .collect()
    }

    /// Where the timer `id` is in the bucket of `height` (its index in firing order), `None`
    /// when it is not in it. Whether it is follows from its place (no walk); its index is found
    /// by a binary search of the list it sits in when that list holds no stale handle (the
    /// carry queue by position, a ring bucket by `(height, seq)`), else by a walk of the bucket.
    pub fn bucket_position(&self, height: u64, id: &TimerId) -> Option<u64> {
        let (carried, own) = self.tallies(height)?;
        let slot = self.find_slot(id)?;
        let meta = self.slots[slot as usize].meta;
        let t = self.slots[slot as usize].timer.as_ref()?;
        let carried_len = carried.map_or(0, |c| c.count);
        let found = match meta.place {
            Place::Carried => {
                carried?;
                let q = &self.carry.queue;
                let i = q.partition_point(|c| c.pos < meta.carry_pos);
                (q.len() as u64 == carried_len)
                    .then(|| q.get(i).filter(|c| c.h.slot == slot))
                    .flatten()
                    .map(|_| i as u64)
            }
            Place::Listed
                if meta.tier == Tier::Ring && self.listed_pos(t) == self.ring_pos(height) =>
            {
                let ring = &self.ring[self.ring_pos(height)];
                let key = |h: &Handle| {
                    let x = self.slots[h.slot as usize].timer.as_ref();
                    x.map_or((0, 0), |x| (x.height, x.seq))
                };
                let i = ring.partition_point(|h| key(h) < (t.height, t.seq));
                (ring.len() as u64 == own.count)
                    .then(|| ring.get(i).filter(|h| h.slot == slot))
                    .flatten()
                    .map(|_| carried_len + i as u64)
            }
            _ => return None,
        };
        found.or_else(|| {
            self.bucket_iter(height)
                .position(|x| x.timer_id == *id)
                .map(|p| p as u64)
        })
    }
}
