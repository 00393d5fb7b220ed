//! The overflow tier's `(height, seq)`-sorted set (see the module docs of [`super`]).
//!
//! Issue 31 (brief "carry"): the set is derived from the slab (the live timers whose tier is
//! the overflow, by `(height, seq)`), so a clone (a checkpoint, a snapshot, a past read's
//! replay) does not copy it: at a million pending timers far ahead it was most of the 52 B
//! per timer a clone copied whole. A clone gets it *stale*; the first migration that reads it
//! rebuilds it from the slab ([`CalendarQueue::ensure_overflow`]), and a height's timers are
//! found by a scan of the slab meanwhile ([`CalendarQueue::overflow_at`]).

use super::{CalendarQueue, Tier};
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub(super) struct OverflowSet {
    map: BTreeMap<(u64, u64), u32>,
    /// Not kept up to date (a clone's): rebuilt before it is read.
    stale: bool,
}

impl Clone for OverflowSet {
    /// Left stale (see the module docs).
    fn clone(&self) -> Self {
        OverflowSet {
            map: BTreeMap::new(),
            stale: true,
        }
    }
}

impl OverflowSet {
    pub(super) fn insert(&mut self, key: (u64, u64), slot: u32) {
        if !self.stale {
            self.map.insert(key, slot);
        }
    }

    pub(super) fn remove(&mut self, key: &(u64, u64)) {
        if !self.stale {
            self.map.remove(key);
        }
    }

    /// Entries held (0 while stale).
    pub(super) fn len(&self) -> usize {
        self.map.len()
    }

    /// The first `n` entries from `lo` on, as `(key, slot)`; the set must be up to date.
    pub(super) fn take_from(&self, lo: (u64, u64), n: usize) -> Vec<((u64, u64), u32)> {
        debug_assert!(!self.stale, "overflow set read before a rebuild");
        self.map
            .range(lo..)
            .take(n)
            .map(|(k, s)| (*k, *s))
            .collect()
    }
}

impl CalendarQueue {
    /// Rebuilds the overflow set from the slab if it is stale (a clone's).
    pub(super) fn ensure_overflow(&mut self) {
        if !self.overflow.stale {
            return;
        }
        let mut map = BTreeMap::new();
        for (i, s) in self.slots.iter().enumerate() {
            if let Some(t) = &s.timer
                && s.meta.tier == Tier::Overflow
            {
                map.insert((t.height, t.seq), i as u32);
            }
        }
        debug_assert_eq!(map.len(), self.counts.overflow);
        self.overflow = OverflowSet { map, stale: false };
    }

    /// The slots of the overflow tier's timers due at `height`, by seq: from the set, or by a
    /// scan of the slab while it is stale.
    pub(super) fn overflow_at(&self, height: u64) -> Vec<u32> {
        if !self.overflow.stale {
            return self
                .overflow
                .map
                .range((height, 0)..=(height, u64::MAX))
                .map(|(_, &s)| s)
                .collect();
        }
        let mut v: Vec<(u64, u32)> = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let t = s.timer.as_ref()?;
                (s.meta.tier == Tier::Overflow && t.height == height).then_some((t.seq, i as u32))
            })
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, s)| s).collect()
    }
}
