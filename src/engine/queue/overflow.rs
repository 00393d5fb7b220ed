//! The overflow tier's `(height, seq)`-sorted set (see the module docs of [`super`]).
//!
//! Issue 31 (brief "carry"): the set is derived from the slab (the live timers whose tier is
//! the overflow, by `(height, seq)`), so a clone (a checkpoint, a snapshot, a past read's
//! replay) does not copy it: at a million pending timers far ahead it was most of the 52 B
//! per timer a clone copied whole. A clone gets it *stale*; the first migration that reads it
//! rebuilds it from the slab ([`CalendarQueue::ensure_overflow`]), and a height's timers are
//! found by a scan of the slab meanwhile ([`CalendarQueue::overflow_at`]).
//!
//! Issue 31 (a pending timer's RSS at 1M): the set is kept in sorted chunks of at most
//! [`CHUNK`] entries (about 12 KiB each), not in a `BTreeMap`. A million far-future timers made
//! about 150,000 small tree nodes, allocated among the loading blocks' receipts, events and log
//! entries: once those left the history, the holes between the nodes stayed resident (glibc
//! returns only whole free pages). A few thousand large chunks leave no such holes.

use super::{CalendarQueue, Tier};

/// Entries per chunk at most: a full chunk splits in two halves.
const CHUNK: usize = 512;

/// `(height, seq)` and the slot of the timer.
type Entry = ((u64, u64), u32);

#[derive(Debug, Default)]
pub(super) struct OverflowSet {
    /// Sorted, none empty, each chunk's entries below the next chunk's.
    chunks: Vec<Vec<Entry>>,
    len: usize,
    /// Not kept up to date (a clone's): rebuilt before it is read.
    stale: bool,
}

impl Clone for OverflowSet {
    /// Left stale (see the module docs).
    fn clone(&self) -> Self {
        OverflowSet {
            chunks: Vec::new(),
            len: 0,
            stale: true,
        }
    }
}

impl OverflowSet {
    /// Built from entries sorted by key.
    fn from_sorted(entries: Vec<Entry>) -> Self {
        let len = entries.len();
        let chunks = entries
            .chunks(CHUNK / 2 + CHUNK / 4)
            .map(|c| {
                let mut v = Vec::with_capacity(CHUNK);
                v.extend_from_slice(c);
                v
            })
            .collect();
        OverflowSet {
            chunks,
            len,
            stale: false,
        }
    }

    /// The chunk that holds `key`, or would: the first whose last entry is not below it (the
    /// last chunk for a key above all).
    fn chunk_of(&self, key: &(u64, u64)) -> usize {
        self.chunks
            .partition_point(|c| c.last().is_some_and(|e| e.0 < *key))
            .min(self.chunks.len().saturating_sub(1))
    }

    pub(super) fn insert(&mut self, key: (u64, u64), slot: u32) {
        if self.stale {
            return;
        }
        if self.chunks.is_empty() {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        let c = self.chunk_of(&key);
        let chunk = &mut self.chunks[c];
        let i = chunk.partition_point(|e| e.0 < key);
        debug_assert!(chunk.get(i).is_none_or(|e| e.0 != key), "key present");
        chunk.insert(i, (key, slot));
        self.len += 1;
        if chunk.len() == CHUNK {
            // An append at the end (a schedule further out than any before) leaves the chunk
            // full and starts the next; an insertion inside splits it in halves.
            let at = if i == CHUNK - 1 { CHUNK - 1 } else { CHUNK / 2 };
            let mut upper = Vec::with_capacity(CHUNK);
            upper.extend_from_slice(&chunk[at..]);
            chunk.truncate(at);
            self.chunks.insert(c + 1, upper);
        }
    }

    pub(super) fn remove(&mut self, key: &(u64, u64)) {
        if self.stale || self.chunks.is_empty() {
            return;
        }
        let c = self.chunk_of(key);
        let chunk = &mut self.chunks[c];
        if let Ok(i) = chunk.binary_search_by(|e| e.0.cmp(key)) {
            chunk.remove(i);
            self.len -= 1;
            let len = chunk.len();
            if len == 0 {
                self.chunks.remove(c);
            } else if len < CHUNK / 8
                && c + 1 < self.chunks.len()
                && len + self.chunks[c + 1].len() < CHUNK / 2
            {
                // A thin chunk takes in its thin neighbour, so the chunks stay few.
                let next = self.chunks.remove(c + 1);
                self.chunks[c].extend_from_slice(&next);
            }
        }
    }

    /// Entries held (0 while stale).
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Heap bytes of the chunks.
    pub(super) fn heap_bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<Vec<Entry>>()
            + self
                .chunks
                .iter()
                .map(|c| c.capacity() * std::mem::size_of::<Entry>())
                .sum::<usize>()
    }

    /// The entries from `lo` on, in order.
    fn iter_from(&self, lo: (u64, u64)) -> impl Iterator<Item = &Entry> {
        let c = if self.chunks.is_empty() {
            0
        } else {
            self.chunk_of(&lo)
        };
        self.chunks[c..]
            .iter()
            .flat_map(|ch| ch.iter())
            .skip_while(move |e| e.0 < lo)
    }

    /// The first `n` entries from `lo` on, as `(key, slot)`; the set must be up to date.
    pub(super) fn take_from(&self, lo: (u64, u64), n: usize) -> Vec<Entry> {
        debug_assert!(!self.stale, "overflow set read before a rebuild");
        self.iter_from(lo).take(n).copied().collect()
    }
}

impl CalendarQueue {
    /// Rebuilds the overflow set from the slab if it is stale (a clone's).
    pub(super) fn ensure_overflow(&mut self) {
        if !self.overflow.stale {
            return;
        }
        let mut entries: Vec<Entry> = Vec::with_capacity(self.counts.overflow);
        for (i, s) in self.slots.iter().enumerate() {
            if let Some(t) = &s.timer
                && s.meta.tier == Tier::Overflow
            {
                entries.push(((t.height, t.seq), i as u32));
            }
        }
        entries.sort_unstable();
        debug_assert_eq!(entries.len(), self.counts.overflow);
        self.overflow = OverflowSet::from_sorted(entries);
    }

    /// The slots of the overflow tier's timers due at `height`, by seq: from the set, or by a
    /// scan of the slab while it is stale.
    pub(super) fn overflow_at(&self, height: u64) -> Vec<u32> {
        if !self.overflow.stale {
            return self
                .overflow
                .iter_from((height, 0))
                .take_while(|e| e.0.0 == height)
                .map(|e| e.1)
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

#[cfg(test)]
mod tests {
    use super::{CHUNK, OverflowSet};
    use std::collections::BTreeMap;

    /// Issue 31: the chunked set answers as an ordered map would, through appends, insertions
    /// inside, removals from the front (migrations) and from anywhere (cancels), and a rebuild
    /// from sorted entries.
    #[test]
    fn chunked_set_orders_as_a_map() {
        let mut set = OverflowSet::default();
        let mut map = BTreeMap::new();
        let mut x = 12_345u64;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            x >> 33
        };
        for seq in 0..20_000u64 {
            // Far-future heights cycling over 3,000, so later passes insert inside chunks.
            let key = (1_000 + seq % 3_000, seq);
            set.insert(key, seq as u32);
            map.insert(key, seq as u32);
            if next() % 5 == 0 {
                let k = (1_000 + next() % 3_000, next() % (seq + 1));
                set.remove(&k);
                map.remove(&k);
            }
        }
        assert_eq!(set.len(), map.len());
        assert!(set.chunks.iter().all(|c| !c.is_empty() && c.len() < CHUNK));
        let all: Vec<_> = map.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(set.take_from((0, 0), usize::MAX), all);
        assert_eq!(
            set.take_from((2_000, 0), 7),
            map.range((2_000, 0)..)
                .take(7)
                .map(|(k, v)| (*k, *v))
                .collect::<Vec<_>>()
        );
        // Migrations take from the front.
        for (k, _) in all.iter().take(15_000) {
            set.remove(k);
            map.remove(k);
        }
        let rest: Vec<_> = map.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(set.take_from((0, 0), usize::MAX), rest);
        assert!(set.chunks.len() <= rest.len().div_ceil(CHUNK / 8) + 1);
        let rebuilt = OverflowSet::from_sorted(rest.clone());
        assert_eq!(rebuilt.take_from((0, 0), usize::MAX), rest);
        assert_eq!(rebuilt.len(), rest.len());
    }
}
