//! The buckets of a [`TimerCommitment`](super::merkle::TimerCommitment): many small sorted
//! lists of `(seq, leaf)`, kept [`GROUP`] buckets to one allocation, shared on clone and copied
//! on write.
//!
//! Issue 31 (a pending timer costs ≤ 400 B of RSS at 1M): each bucket was a `Vec` of its own,
//! 2 × 65,536 small allocations (about 15 leaves, 640 B, at a million pending) that grew among
//! the loading blocks' receipts, events and log entries. Once those left the history, the
//! holes between the buckets stayed resident: glibc returns only whole free pages. A group of
//! [`GROUP`] buckets in one allocation makes them eight times fewer and larger, and an
//! allocation grows by an eighth rather than doubling, so the leaves carry less slack.
//!
//! What a clone shares is a group (as [`CowVec`](super::cow::CowVec) shares a chunk): a write
//! to one bucket of a shared group copies the group's leaves, eight buckets rather than the
//! sixty-four a chunk of bucket `Vec`s copied.

use std::sync::Arc;

/// One entry: a timer's insertion sequence and its leaf.
pub type Entry = (u64, [u8; 32]);

const GROUP_BITS: u32 = 3;
/// Buckets per allocation.
pub const GROUP: usize = 1 << GROUP_BITS;

#[derive(Clone, Debug, Default)]
struct Group {
    /// `ends[i]`: one past the last entry of bucket `i` of the group in `entries`.
    ends: [u32; GROUP],
    entries: Vec<Entry>,
}

impl Group {
    fn range(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        start..self.ends[i] as usize
    }
}

#[derive(Clone, Debug)]
pub struct BucketStore {
    groups: Vec<Arc<Group>>,
}

impl BucketStore {
    /// `n` empty buckets (`n` a multiple of [`GROUP`]); every group is one shared empty group
    /// until written.
    pub fn new(n: usize) -> Self {
        assert!(n.is_multiple_of(GROUP), "buckets come in groups");
        let empty = Arc::new(Group::default());
        BucketStore {
            groups: vec![empty; n / GROUP],
        }
    }

    /// Bucket `b`'s entries.
    #[inline]
    pub fn get(&self, b: usize) -> &[Entry] {
        let g = &self.groups[b >> GROUP_BITS];
        &g.entries[g.range(b & (GROUP - 1))]
    }

    /// Replaces the entries of bucket `b` from `from` on (up to its end) with `tail`.
    pub fn replace_from(&mut self, b: usize, from: usize, tail: &[Entry]) {
        let g = Arc::make_mut(&mut self.groups[b >> GROUP_BITS]);
        let i = b & (GROUP - 1);
        let range = g.range(i);
        let (start, end) = (range.start + from, range.end);
        debug_assert!(start <= end);
        let old = end - start;
        if tail.len() > old {
            let grow = tail.len() - old;
            if g.entries.len() + grow > g.entries.capacity() {
                // Grow by an eighth (at least what is needed), not by doubling.
                g.entries.reserve_exact(grow.max(g.entries.len() / 8));
            }
        }
        let len = g.entries.len();
        if tail.len() > old {
            // Open a gap of the difference at `end`, then write the new tail over the old.
            let grow = tail.len() - old;
            g.entries.resize(len + grow, (0, [0; 32]));
            g.entries.copy_within(end..len, end + grow);
        } else if tail.len() < old {
            g.entries.drain(start + tail.len()..end);
        }
        g.entries[start..start + tail.len()].copy_from_slice(tail);
        let delta = tail.len() as i64 - old as i64;
        for e in &mut g.ends[i..] {
            *e = (*e as i64 + delta) as u32;
        }
        if g.entries.capacity() > 2 * g.entries.len() + 64 {
            // Drained (a height fired): give the slack back.
            let keep = g.entries.len() + g.entries.len() / 8;
            g.entries.shrink_to(keep);
        }
    }

    /// Keeps the entries of bucket `b` for which `keep` is true, in order, in place.
    pub fn retain(&mut self, b: usize, mut keep: impl FnMut(&Entry) -> bool) {
        let g = Arc::make_mut(&mut self.groups[b >> GROUP_BITS]);
        let i = b & (GROUP - 1);
        let range = g.range(i);
        let mut w = range.start;
        for r in range.clone() {
            if keep(&g.entries[r]) {
                g.entries[w] = g.entries[r];
                w += 1;
            }
        }
        let gone = range.end - w;
        if gone == 0 {
            return;
        }
        g.entries.drain(w..range.end);
        for e in &mut g.ends[i..] {
            *e -= gone as u32;
        }
        if g.entries.capacity() > 2 * g.entries.len() + 64 {
            let keep = g.entries.len() + g.entries.len() / 8;
            g.entries.shrink_to(keep);
        }
    }

    /// Replaces bucket `b`'s entries with `entries`.
    pub fn set(&mut self, b: usize, entries: &[Entry]) {
        self.replace_from(b, 0, entries);
    }

    /// Appends `entries` at the end of bucket `b`.
    pub fn append(&mut self, b: usize, entries: &[Entry]) {
        let len = self.get(b).len();
        self.replace_from(b, len, entries);
    }

    /// Each group's address and heap bytes (what a clone shares until one side writes it).
    pub fn visit_groups(&self, f: &mut dyn FnMut(usize, usize)) {
        for g in &self.groups {
            f(
                Arc::as_ptr(g) as *const u8 as usize,
                std::mem::size_of::<Group>() + g.entries.capacity() * std::mem::size_of::<Entry>(),
            );
        }
    }

    /// Heap bytes of the group table (what a clone copies).
    pub fn table_bytes(&self) -> usize {
        self.groups.capacity() * std::mem::size_of::<Arc<Group>>()
    }

    /// Heap bytes of the table and of every group (shared ones too; the shared empty group
    /// of untouched buckets counted once per bucket group).
    pub fn approx_bytes(&self) -> usize {
        self.table_bytes()
            + self
                .groups
                .iter()
                .map(|g| {
                    std::mem::size_of::<Group>()
                        + g.entries.capacity() * std::mem::size_of::<Entry>()
                })
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::{BucketStore, Entry, GROUP};

    fn e(seq: u64) -> Entry {
        (seq, [seq as u8; 32])
    }

    /// Issue 31: buckets of one group kept apart through appends, replacements and drains, and
    /// a clone keeps its buckets when the other side writes.
    #[test]
    fn buckets_of_a_group_stay_apart_and_clones_are_independent() {
        let mut s = BucketStore::new(4 * GROUP);
        for b in 0..4 * GROUP {
            assert!(s.get(b).is_empty());
        }
        for seq in 0..50u64 {
            s.append((seq % 3) as usize, &[e(seq)]);
        }
        s.append(GROUP + 1, &[e(7), e(9)]);
        let c = s.clone();
        assert_eq!(s.get(1).len(), 17);
        assert!(s.get(1).iter().all(|x| x.0 % 3 == 1));
        let kept: Vec<Entry> = s.get(1).iter().copied().filter(|x| x.0 > 20).collect();
        s.set(1, &kept);
        assert_eq!(s.get(1), &kept[..]);
        s.retain(1, |x| x.0 % 2 == 0);
        let even: Vec<Entry> = kept.iter().copied().filter(|x| x.0 % 2 == 0).collect();
        assert_eq!(s.get(1), &even[..]);
        assert_eq!(s.get(0).len(), 17);
        assert_eq!(s.get(2).len(), 16);
        s.set(0, &[]);
        assert!(s.get(0).is_empty());
        assert_eq!(s.get(2)[0], e(2));
        assert_eq!(s.get(GROUP + 1), &[e(7), e(9)]);
        assert_eq!(c.get(0).len(), 17);
        assert_eq!(c.get(1).len(), 17);
        assert_eq!(c.get(3).len(), 0);
    }
}
