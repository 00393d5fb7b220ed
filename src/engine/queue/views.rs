//! Read-only views of the queue for front ends and reports: a ring bucket in firing order,
//! the epoch and overflow populations, every pending timer, and the memory estimate.

use super::slab::PageUse;
use super::{CalendarQueue, Change, Handle, Slot};
use crate::engine::timer::Timer;

impl CalendarQueue {
    /// The live timers of one height's ring bucket, in firing order (empty for heights outside
    /// the ring).
    pub fn bucket(&self, height: u64) -> Vec<&Timer> {
        self.bucket_iter(height).collect()
    }

    /// [`bucket`](Self::bucket) without collecting it: a count or a sum over a bucket of
    /// carried timers allocates nothing (issue 31: the dashboard's tiers and coming buckets
    /// read the carried bucket's size and budget on every refresh).
    pub fn bucket_iter(&self, height: u64) -> impl Iterator<Item = &Timer> + '_ {
        let in_ring = height >= self.next_height && height < self.ring_horizon;
        let carried = (in_ring && height == self.next_height)
            .then(|| self.carried_handles())
            .into_iter()
            .flatten();
        let ring = in_ring
            .then(|| self.ring[self.ring_pos(height)].iter())
            .into_iter()
            .flatten();
        carried
            .chain(ring)
            .filter(|h| self.slots[h.slot as usize].meta.generation == h.generation)
            .filter_map(|h| self.slots[h.slot as usize].timer.as_ref())
    }

    /// The ring's own timers of `height` (no carried timer), in the order
    /// [`bucket_iter`](Self::bucket_iter) lists them after the carried ones; nothing outside
    /// the ring.
    pub fn ring_timers(&self, height: u64) -> impl Iterator<Item = &Timer> + '_ {
        let in_ring = height >= self.next_height && height < self.ring_horizon;
        in_ring
            .then(|| self.ring[self.ring_pos(height)].iter())
            .into_iter()
            .flatten()
            .filter(|h| self.slots[h.slot as usize].meta.generation == h.generation)
            .filter_map(|h| self.slots[h.slot as usize].timer.as_ref())
    }

    /// The live timers scheduled for `height` itself (carried timers of earlier heights
    /// excluded), in insertion order, from whichever tier holds them. The cost follows the
    /// timers of `height` (a ring height, an overflow height) or of its epoch (an epoch-queue
    /// bucket), never the whole queue.
    pub fn height_timers(&self, height: u64) -> Vec<&Timer> {
        let live = |h: &Handle| {
            let s = &self.slots[h.slot as usize];
            (s.meta.generation == h.generation)
                .then_some(s.timer.as_ref())
                .flatten()
                .filter(|t| t.height == height)
        };
        if height < self.next_height {
            return Vec::new();
        }
        // A migration in progress leaves a height's timers split between two tiers, so each
        // tier that can hold `height` is read (a timer sits in exactly one).
        let mut v: Vec<&Timer> = Vec::new();
        if height - self.next_height < self.cfg.ring_size() {
            v.extend(self.ring[self.ring_pos(height)].iter().filter_map(live));
        }
        let (e, x) = (
            self.next_height / self.cfg.epoch_blocks,
            height / self.cfg.epoch_blocks,
        );
        if x > e && x - e <= self.cfg.epoch_slots {
            v.extend(self.epochs[self.epoch_pos(height)].iter().filter_map(live));
        }
        // The overflow set, and epoch-tier timers not yet migrated out of it.
        v.extend(
            self.overflow_at(height)
                .into_iter()
                .filter_map(|s| self.slots[s as usize].timer.as_ref()),
        );
        v.sort_by_key(|t| t.seq);
        v
    }

    /// Live timers per epoch-queue bucket, as `(first height of the epoch, count)`.
    pub fn epoch_buckets(&self) -> Vec<(u64, usize)> {
        let eb = self.cfg.epoch_blocks;
        let first = self.next_height / eb + 1;
        (first..first + self.cfg.epoch_slots)
            .map(|e| (e * eb, self.epoch_live[self.epoch_pos(e * eb)]))
            .filter(|(h, _)| *h < self.epoch_horizon)
            .collect()
    }

    /// Overflow-set population per epoch, as `(first height of the epoch, count)`.
    pub fn overflow_epochs(&self) -> Vec<(u64, usize)> {
        self.overflow_per_epoch
            .iter()
            .map(|(e, c)| (e * self.cfg.epoch_blocks, *c))
            .collect()
    }

    /// Every pending timer in firing order: by (due height, original height, seq).
    pub fn pending(&self) -> Vec<&Timer> {
        let mut v: Vec<&Timer> = self.slots.iter().filter_map(|s| s.timer.as_ref()).collect();
        let next = self.next_height;
        v.sort_by_key(|t| (t.height.max(next), t.height, t.seq));
        v
    }

    /// Rough heap bytes held per pending timer, payload excluded (for the memory report).
    pub fn approx_bytes(&self) -> usize {
        use std::mem::size_of;
        let slots = self.slots.len() * size_of::<Slot>()
            + self.slots.table_bytes()
            + self.slots.uses.capacity() * size_of::<PageUse>();
        let index = self.index.capacity() * (size_of::<u32>() + 1);
        let ring: usize = self
            .ring
            .iter()
            .chain(self.epochs.iter())
            .map(|b| b.capacity() * size_of::<Handle>())
            .sum();
        let overflow = self.overflow.heap_bytes();
        let commit = self.timers_commit.approx_bytes()
            + self.overflow_commit.approx_bytes()
            + self.changes.capacity() * size_of::<Change>();
        slots
            + index
            + ring
            + overflow
            + commit
            + self.free.capacity() * 4
            + self.free_pages.capacity() * 4
            + self.ring_page.capacity() * 4
            + self.ring_tally.capacity() * size_of::<super::tally::BucketTally>()
            + self.retired.capacity() * size_of::<(u64, u32)>()
    }

    /// Issue 31 (checkpoints bounded by bytes): the allocations a clone of the queue shares
    /// until one side writes them (the slab's pages, the commitments' chunks), each as its
    /// address and heap bytes, for a walk that tells what a clone holds alone.
    pub fn visit_shared(&self, f: &mut dyn FnMut(usize, usize)) {
        self.slots.visit_pages(f);
        self.timers_commit.visit_shared(f);
        self.overflow_commit.visit_shared(f);
    }

    /// Rough heap bytes a clone of the queue copies whole (not shared): the id index, the
    /// tiers' handle lists, the overflow map, the per-actor counts, the free lists and the
    /// tables of the shared parts.
    pub fn clone_bytes(&self) -> usize {
        use std::mem::size_of;
        let ring: usize = self
            .ring
            .iter()
            .chain(self.epochs.iter())
            .map(|b| {
                b.len() * size_of::<Handle>() + size_of::<std::collections::VecDeque<Handle>>()
            })
            .sum();
        self.index.len() * (size_of::<u32>() + 1)
            + self.per_actor.len() * (size_of::<(crate::engine::types::Address, u32)>() + 1)
            + ring
            + self.overflow.len() * (size_of::<(u64, u64)>() + size_of::<u32>() + 8)
            + self.slots.table_bytes()
            + self.slots.uses.len() * size_of::<PageUse>()
            + self.timers_commit.clone_bytes()
            + self.overflow_commit.clone_bytes()
            + (self.free.len() + self.free_pages.len() + self.ring_page.len()) * 4
            + self.ring_tally.len() * size_of::<super::tally::BucketTally>()
            + self.retired.len() * size_of::<(u64, u32)>()
            + self.carry.clone_bytes()
    }

    /// Rough heap bytes of the carry queue's indexes and the auction's, when built (Spec note
    /// 223): a clone copies none of them ([`clone_bytes`](Self::clone_bytes)) but builds them
    /// again on first use, so a chain replayed from a checkpoint (a kept past state) holds
    /// them alone: 70-110 B per carried timer, 7 MB of a state under a 94,000-timer backlog
    /// that the past states' budget did not count.
    pub fn built_index_bytes(&self) -> usize {
        self.carry.index_bytes()
    }
}

/// Rough heap bytes of a B-tree of `len` entries of `entry` bytes (key and value): Rust's
/// nodes hold up to 11 entries and split in the middle, so a tree filled in order is about
/// half full; twice the entries and a node's header share errs high (Spec note 223).
pub(super) fn btree_bytes(len: usize, entry: usize) -> usize {
    len * (2 * entry + 4)
}
