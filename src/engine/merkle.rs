//! Incremental, history-independent commitments to sets of 32-byte leaves.
//!
//! Both commitments spread their leaves over `2^bits` buckets; a bucket's hash is keccak256 of
//! its leaves in a canonical order, and the bucket hashes are the leaves of a fixed-depth binary
//! Merkle tree. The root depends only on the set, not on the order of insertion. Changes only
//! mark their bucket dirty; `root()` rehashes the dirty buckets and the paths above them once, so
//! the cost of a block's root follows what changed in the block, not the size of the set. Empty
//! subtrees hash to zero and cost nothing.
//!
//! * [`SetCommitment`] places a leaf by its own leading bits (accounts, actors, storage).
//! * [`TimerCommitment`] places a timer's leaf by its height and insertion sequence, so the
//!   timers of one height scheduled together share a few buckets: a block that fires, or
//!   schedules, thousands of timers of one height rehashes a handful of buckets instead of one
//!   per timer.

use super::buckets::BucketStore;
use super::cow::CowVec;
use super::types::keccak_parts;
use sha3::{Digest, Keccak256};

const ZERO: [u8; 32] = [0; 32];

/// The fixed-depth binary tree over bucket hashes, with its dirty set.
#[derive(Clone, Debug)]
struct BucketTree {
    bits: u32,
    /// Heap-ordered tree: node 1 is the root, the leaves (bucket hashes) start at `2^bits`.
    /// Shared with clones until written (a history checkpoint copies what changed since).
    nodes: CowVec<[u8; 32]>,
    dirty: Vec<u32>,
    dirty_flag: Vec<bool>,
}

impl BucketTree {
    fn new(bits: u32) -> Self {
        assert!((1..=20).contains(&bits), "bucket bits out of range");
        let n = 1usize << bits;
        BucketTree {
            bits,
            nodes: CowVec::from_elem(ZERO, 2 * n),
            dirty: Vec::new(),
            dirty_flag: vec![false; n],
        }
    }

    fn buckets(&self) -> usize {
        1 << self.bits
    }

    fn mark(&mut self, b: usize) {
        if !self.dirty_flag[b] {
            self.dirty_flag[b] = true;
            self.dirty.push(b as u32);
        }
    }

    /// Rehashes the dirty buckets with `hash_bucket` (zero for an empty one) and the paths
    /// above them, each parent once; returns the root.
    fn root(&mut self, mut hash_bucket: impl FnMut(usize) -> [u8; 32]) -> [u8; 32] {
        if self.dirty.is_empty() {
            return self.nodes[1];
        }
        let n = self.buckets();
        let mut level: Vec<u32> = std::mem::take(&mut self.dirty);
        level.sort_unstable();
        for &b in &level {
            let b = b as usize;
            self.dirty_flag[b] = false;
            self.nodes[n + b] = hash_bucket(b);
        }
        let mut idx: Vec<usize> = level.iter().map(|&b| (n + b as usize) / 2).collect();
        while !idx.is_empty() {
            idx.dedup();
            for &p in &idx {
                let (l, r) = (self.nodes[2 * p], self.nodes[2 * p + 1]);
                self.nodes[p] = if l == ZERO && r == ZERO {
                    ZERO
                } else {
                    keccak_parts(&[&l, &r])
                };
            }
            if idx == [1] {
                break;
            }
            for p in idx.iter_mut() {
                *p /= 2;
            }
        }
        level.clear();
        self.dirty = level;
        self.nodes[1]
    }

    fn approx_bytes(&self) -> usize {
        self.nodes.approx_bytes() + self.dirty_flag.capacity() + self.dirty.capacity() * 4
    }
}

/// keccak256("bucket" || leaves...), zero for an empty bucket.
fn hash_leaves<'a>(leaves: impl ExactSizeIterator<Item = &'a [u8; 32]>) -> [u8; 32] {
    if leaves.len() == 0 {
        return ZERO;
    }
    let mut parts: Vec<&[u8]> = Vec::with_capacity(leaves.len() + 1);
    parts.push(b"bucket");
    parts.extend(leaves.map(|l| &l[..]));
    keccak_parts(&parts)
}

/// Leaves a bucket holds before [`TimerCommitment`] keeps its running hash.
const SPONGE_MIN: usize = 32;

/// Leaves between two of a running hash's kept states ([`Sponge::marks`]).
const SPONGE_STEP: usize = 128;

/// The running keccak of a bucket, `"bucket" ‖ leaves[..len]` absorbed, not finalized: a bucket
/// that only grows at its end (a new timer has the largest `seq` yet) is rehashed by absorbing
/// its new leaves, not all of them.
///
/// Issue 31 (fifth session): it also keeps its state every [`SPONGE_STEP`] leaves, so a change
/// inside the bucket (a removal: a timer that fires from the middle of a crowded bucket, as an
/// auction's fires do) absorbs again from the last kept state before the change, not from the
/// first leaf. The hash is the same.
#[derive(Clone)]
struct Sponge {
    len: usize,
    hasher: Keccak256,
    /// `marks[k]`: the running hash after `(k + 1) × SPONGE_STEP` leaves.
    marks: Vec<Keccak256>,
}

/// Forgets what bucket `b`'s running hash absorbed from leaf `pos` on (the first leaf a change
/// moved or removed): back to its last kept state at or before `pos`, or dropped.
fn rewind(sponges: &mut CowVec<Option<Box<Sponge>>>, b: usize, pos: usize) {
    let Some(sp) = sponges[b].as_ref() else {
        return;
    };
    if pos >= sp.len {
        return;
    }
    let keep = pos / SPONGE_STEP;
    if keep == 0 {
        sponges[b] = None;
        return;
    }
    let sp = sponges[b].as_mut().expect("checked");
    sp.marks.truncate(keep);
    sp.hasher = sp.marks[keep - 1].clone();
    sp.len = keep * SPONGE_STEP;
}

impl Sponge {
    /// Heap bytes a kept running hash holds: its box and its kept states.
    fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Sponge>() + self.marks.capacity() * std::mem::size_of::<Keccak256>()
    }
}

impl std::fmt::Debug for Sponge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sponge").field("len", &self.len).finish()
    }
}

/// The hash of a timer bucket as [`hash_leaves`] computes it, through its cached running hash
/// when it has one (kept from [`SPONGE_MIN`] leaves on), so that appending to a crowded bucket
/// costs the appended leaves, not the bucket.
///
/// `sponges[b]` is written only when it changes: a write copies the entry's chunk away from a
/// clone that shares it (see [`CowVec`]), and a small bucket without a running hash has none to
/// drop.
fn hash_timer_bucket(
    bucket: &[(u64, [u8; 32])],
    sponges: &mut CowVec<Option<Box<Sponge>>>,
    b: usize,
) -> [u8; 32] {
    if bucket.len() < SPONGE_MIN {
        if sponges[b].is_some() {
            sponges[b] = None;
        }
        return hash_leaves(bucket.iter().map(|(_, l)| l));
    }
    let sp = sponges[b].get_or_insert_with(|| {
        let mut hasher = Keccak256::new();
        hasher.update(b"bucket");
        Box::new(Sponge {
            len: 0,
            hasher,
            marks: Vec::new(),
        })
    });
    for (i, (_, leaf)) in bucket.iter().enumerate().skip(sp.len) {
        sp.hasher.update(leaf);
        if (i + 1) % SPONGE_STEP == 0 {
            sp.marks.push(sp.hasher.clone());
        }
    }
    sp.len = bucket.len();
    sp.hasher.clone().finalize().into()
}

/// A set of leaves, each placed by its own leading bits and kept sorted in its bucket.
#[derive(Clone, Debug)]
pub struct SetCommitment {
    tree: BucketTree,
    buckets: CowVec<Vec<[u8; 32]>>,
    len: usize,
}

impl SetCommitment {
    /// A commitment with `2^bits` buckets (`bits` in 1..=20).
    pub fn new(bits: u32) -> Self {
        let tree = BucketTree::new(bits);
        SetCommitment {
            buckets: CowVec::from_elem(Vec::new(), tree.buckets()),
            tree,
            len: 0,
        }
    }

    fn bucket_of(&self, leaf: &[u8; 32]) -> usize {
        let top = u32::from_be_bytes([leaf[0], leaf[1], leaf[2], leaf[3]]);
        (top >> (32 - self.tree.bits)) as usize
    }

    /// Adds a leaf. Returns false (and changes nothing) if it is already present.
    pub fn insert(&mut self, leaf: [u8; 32]) -> bool {
        let b = self.bucket_of(&leaf);
        match self.buckets[b].binary_search(&leaf) {
            Ok(_) => false,
            Err(i) => {
                self.buckets[b].insert(i, leaf);
                self.len += 1;
                self.tree.mark(b);
                true
            }
        }
    }

    /// Removes a leaf. Returns false if it was not present.
    pub fn remove(&mut self, leaf: &[u8; 32]) -> bool {
        let b = self.bucket_of(leaf);
        match self.buckets[b].binary_search(leaf) {
            Ok(i) => {
                self.buckets[b].remove(i);
                self.len -= 1;
                self.tree.mark(b);
                true
            }
            Err(_) => false,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Buckets changed since the last root, pending rehash (a cost gauge for benchmarks).
    pub fn dirty_buckets(&self) -> usize {
        self.tree.dirty.len()
    }

    /// The root, rehashing only what changed since the previous call.
    pub fn root(&mut self) -> [u8; 32] {
        let buckets = &self.buckets;
        self.tree.root(|b| hash_leaves(buckets[b].iter()))
    }
}

/// The commitment to a set of timers, each a 32-byte leaf keyed by its `(height, seq)`.
///
/// A timer's bucket is a hash of its height and of its insertion sequence divided by
/// [`SEQ_GROUP`]; a bucket keeps `(seq, leaf)` sorted by `seq` (globally unique), and hashes its
/// leaves in that order. Both are functions of each timer's own fields, so the root is
/// history-independent. Timers scheduled together for one height share a bucket, which is what
/// makes a block that drains a height cheap to commit; a new timer's `seq` is the largest yet, so
/// inserting it appends to its bucket.
///
/// Changes are buffered and applied in [`root`](Self::root): removals are one merge pass per
/// touched bucket, so draining thousands of entries from one bucket is linear, not quadratic.
/// The caller removes only entries it inserted, and inserts only keys that are absent (after the
/// buffered removals).
#[derive(Clone, Debug)]
pub struct TimerCommitment {
    tree: BucketTree,
    /// Each bucket's `(seq, leaf)`, a group of buckets to an allocation (see [`BucketStore`]).
    buckets: BucketStore,
    /// Per bucket, its running hash while the bucket only grew at its end (see [`Sponge`]);
    /// rewound to its last kept state before a removal or an insertion before its end (or
    /// dropped when none is before it).
    sponges: CowVec<Option<Box<Sponge>>>,
    pending_remove: Vec<(u32, u64)>,
    pending_insert: Vec<(u32, u64, [u8; 32])>,
    /// A bucket's new entries while they are merged (kept for the next block; not state).
    scratch: Vec<(u64, [u8; 32])>,
    len: usize,
}

/// Consecutive insertion sequences that share a bucket when they are due at the same height.
pub const SEQ_GROUP: u64 = 1 << 10;

fn mix64(mut z: u64) -> u64 {
    // splitmix64's finalizer: a fixed, platform-independent bijection.
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl TimerCommitment {
    /// Issue 31 (checkpoints bounded by bytes): the allocations a clone shares until written
    /// (the tree's nodes, the buckets with their leaves, the sponges), each as its address and
    /// heap bytes ([`CowVec::visit_chunks`]).
    pub fn visit_shared(&self, f: &mut dyn FnMut(usize, usize)) {
        self.tree.nodes.visit_chunks(|_| 0, f);
        self.buckets.visit_groups(f);
        self.sponges
            .visit_chunks(|s| s.as_ref().map_or(0, |s| s.heap_bytes()), f);
    }

    /// Heap bytes a clone copies (the chunk tables, the dirty lists, the pending changes).
    pub fn clone_bytes(&self) -> usize {
        self.tree.nodes.table_bytes()
            + self.tree.dirty_flag.len()
            + self.tree.dirty.len() * 4
            + self.buckets.table_bytes()
            + self.sponges.table_bytes()
            + self.pending_remove.len() * std::mem::size_of::<(u32, u64)>()
            + self.pending_insert.len() * std::mem::size_of::<(u32, u64, [u8; 32])>()
    }

    /// A commitment with `2^bits` buckets (`bits` in 1..=20).
    pub fn new(bits: u32) -> Self {
        let tree = BucketTree::new(bits);
        TimerCommitment {
            buckets: BucketStore::new(tree.buckets().max(super::buckets::GROUP)),
            sponges: CowVec::from_elem(None, tree.buckets()),
            tree,
            pending_remove: Vec::new(),
            pending_insert: Vec::new(),
            scratch: Vec::new(),
            len: 0,
        }
    }

    fn bucket_of(&self, height: u64, seq: u64) -> u32 {
        let key = mix64(height.wrapping_add(0x9e37_79b9_7f4a_7c15)) ^ (seq / SEQ_GROUP);
        (mix64(key) >> (64 - self.tree.bits)) as u32
    }

    /// Buffers the insertion of the timer `(height, seq)` with its leaf.
    pub fn insert(&mut self, height: u64, seq: u64, leaf: [u8; 32]) {
        let b = self.bucket_of(height, seq);
        self.pending_insert.push((b, seq, leaf));
        self.len += 1;
    }

    /// Buffers the removal of the timer `(height, seq)`.
    pub fn remove(&mut self, height: u64, seq: u64) {
        let b = self.bucket_of(height, seq);
        self.pending_remove.push((b, seq));
        self.len -= 1;
    }

    /// Entries once the buffered changes are applied.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Applies the buffered changes: removals first, then insertions.
    fn apply(&mut self) {
        let mut removes = std::mem::take(&mut self.pending_remove);
        removes.sort_unstable();
        let mut scratch = std::mem::take(&mut self.scratch);
        for group in removes.chunk_by(|a, b| a.0 == b.0) {
            let b = group[0].0 as usize;
            let mut gone = group.iter().map(|r| r.1).peekable();
            let (mut at, mut first) = (0, usize::MAX);
            self.buckets.retain(b, |(seq, _)| {
                while gone.next_if(|g| g < seq).is_some() {}
                let removed = gone.next_if_eq(seq).is_some();
                if removed {
                    first = first.min(at);
                }
                at += 1;
                !removed
            });
            debug_assert!(gone.peek().is_none(), "removed a timer never inserted");
            rewind(&mut self.sponges, b, first);
            self.tree.mark(b);
        }
        self.pending_remove = recycle(removes);
        let mut inserts = std::mem::take(&mut self.pending_insert);
        inserts.sort_unstable_by_key(|i| (i.0, i.1));
        for group in inserts.chunk_by(|a, b| a.0 == b.0) {
            let b = group[0].0 as usize;
            let bucket = self.buckets.get(b);
            let new = group.iter().map(|i| (i.1, i.2));
            scratch.clear();
            if bucket.last().is_none_or(|l| l.0 < group[0].1) {
                scratch.extend(new);
                self.buckets.append(b, &scratch);
            } else {
                let first = bucket.partition_point(|l| l.0 < group[0].1);
                merge_by_seq(bucket, new, &mut scratch);
                self.buckets.set(b, &scratch);
                rewind(&mut self.sponges, b, first);
            }
            self.tree.mark(b);
        }
        self.pending_insert = recycle(inserts);
        self.scratch = recycle(scratch);
    }

    /// The root, applying and rehashing only what changed since the previous call.
    pub fn root(&mut self) -> [u8; 32] {
        self.apply();
        let (buckets, sponges) = (&self.buckets, &mut self.sponges);
        self.tree
            .root(|b| hash_timer_bucket(buckets.get(b), sponges, b))
    }

    /// Heap bytes held (for the memory report).
    pub fn approx_bytes(&self) -> usize {
        self.tree.approx_bytes()
            + self.buckets.approx_bytes()
            + self.sponges.approx_bytes()
            + self
                .sponges
                .iter()
                .flatten()
                .map(|s| s.heap_bytes())
                .sum::<usize>()
            + self.pending_remove.capacity() * 16
            + self.pending_insert.capacity() * 48
    }
}

/// Two seq-sorted runs merged into `out`.
fn merge_by_seq(
    old: &[(u64, [u8; 32])],
    new: impl Iterator<Item = (u64, [u8; 32])>,
    out: &mut Vec<(u64, [u8; 32])>,
) {
    let mut new = new.peekable();
    for &e in old {
        while let Some(n) = new.next_if(|n| n.0 < e.0) {
            out.push(n);
        }
        out.push(e);
    }
    out.extend(new);
}

/// Keeps an emptied change buffer's capacity for the next block, up to 64 Ki entries, so a
/// one-off burst does not pin its memory.
pub(super) fn recycle<T>(mut buf: Vec<T>) -> Vec<T> {
    buf.clear();
    buf.shrink_to(1 << 16);
    buf
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::types::keccak;

    #[test]
    fn root_is_order_independent() {
        let leaves: Vec<[u8; 32]> = (0u32..200).map(|i| keccak(&i.to_be_bytes())).collect();
        let mut a = SetCommitment::new(6);
        let mut b = SetCommitment::new(6);
        for l in &leaves {
            a.insert(*l);
        }
        let ra = a.root();
        for l in leaves.iter().rev() {
            b.insert(*l);
            b.root();
        }
        assert_eq!(ra, b.root());
        assert!(a.remove(&leaves[7]));
        assert_ne!(a.root(), ra);
        a.insert(leaves[7]);
        assert_eq!(a.root(), ra);
    }

    #[test]
    fn empty_root_is_zero() {
        let mut c = SetCommitment::new(4);
        assert_eq!(c.root(), [0; 32]);
        let l = keccak(b"x");
        c.insert(l);
        assert_ne!(c.root(), [0; 32]);
        c.remove(&l);
        assert_eq!(c.root(), [0; 32]);
    }

    fn entries() -> Vec<(u64, u64, [u8; 32])> {
        // 3,000 timers over 7 heights, seqs in insertion order.
        (0u64..3_000)
            .map(|seq| (100 + seq % 7, seq, keccak(&seq.to_be_bytes())))
            .collect()
    }

    #[test]
    fn timer_root_is_history_independent() {
        let all = entries();
        let mut a = TimerCommitment::new(8);
        for &(h, s, l) in &all {
            a.insert(h, s, l);
        }
        let ra = a.root();
        // Another history: in reverse, in small batches with roots between, with a detour.
        let mut b = TimerCommitment::new(8);
        for batch in all.rchunks(97) {
            for &(h, s, l) in batch {
                b.insert(h, s, l);
            }
            b.root();
        }
        for &(h, s, _) in all.iter().step_by(5) {
            b.remove(h, s);
        }
        assert_ne!(b.root(), ra);
        assert_eq!(b.len(), all.len() - all.len().div_ceil(5));
        for &(h, s, l) in all.iter().step_by(5) {
            b.insert(h, s, l);
        }
        assert_eq!(b.root(), ra);
        assert_eq!(b.len(), all.len());
    }

    #[test]
    fn timer_root_changes_with_a_leaf_and_empties_to_zero() {
        let all = entries();
        let mut c = TimerCommitment::new(8);
        for &(h, s, l) in &all {
            c.insert(h, s, l);
        }
        let r = c.root();
        // Replace one leaf (an extend): remove and re-insert under the same key.
        let (h, s, _) = all[1_234];
        c.remove(h, s);
        c.insert(h, s, keccak(b"extended"));
        assert_ne!(c.root(), r);
        c.remove(h, s);
        c.insert(h, s, all[1_234].2);
        assert_eq!(c.root(), r);
        // Drain everything, as blocks drain heights.
        for &(h, s, _) in &all {
            c.remove(h, s);
        }
        assert_eq!(c.root(), [0; 32]);
        assert!(c.is_empty());
    }

    #[test]
    fn appending_one_by_one_hashes_as_a_fresh_commitment() {
        // A crowded bucket rehashed through its running hash after each append, a removal and
        // an insertion before its end, and re-grown: the root of a commitment built at once.
        let leaf = |s: u64| keccak(&s.to_be_bytes());
        let mut c = TimerCommitment::new(4);
        let mut roots = Vec::new();
        for seq in 0..300u64 {
            c.insert(7, seq, leaf(seq));
            roots.push(c.root());
        }
        c.remove(7, 100);
        c.root();
        c.insert(7, 100, leaf(100));
        c.root();
        for seq in 300..400u64 {
            c.insert(7, seq, leaf(seq));
            c.root();
        }
        let mut fresh = TimerCommitment::new(4);
        for seq in 0..400u64 {
            fresh.insert(7, seq, leaf(seq));
        }
        assert_eq!(c.root(), fresh.root());
        let mut part = TimerCommitment::new(4);
        for seq in 0..150u64 {
            part.insert(7, seq, leaf(seq));
        }
        assert_eq!(part.root(), roots[149]);
    }

    #[test]
    fn removals_inside_a_crowded_bucket_rehash_from_a_kept_state_to_the_same_root() {
        // Issue 31 (fifth session): timers leave from inside crowded buckets (an auction's
        // fires) and come back before their end; after every step the root is the root of the
        // same set committed at once.
        let leaf = |s: u64| keccak(&s.to_be_bytes());
        let mut c = TimerCommitment::new(2);
        let mut live: std::collections::BTreeSet<u64> = (0..2_500u64).collect();
        for &seq in &live {
            c.insert(3, seq, leaf(seq));
        }
        c.root();
        let mut z = 7u64;
        for step in 0..40 {
            for _ in 0..(1 + step % 4) {
                z = mix64(z);
                let seq = z % 2_500;
                if live.remove(&seq) {
                    c.remove(3, seq);
                } else {
                    live.insert(seq);
                    c.insert(3, seq, leaf(seq));
                }
            }
            let mut fresh = TimerCommitment::new(2);
            for &seq in &live {
                fresh.insert(3, seq, leaf(seq));
            }
            assert_eq!(c.root(), fresh.root(), "step {step}");
        }
    }

    #[test]
    fn one_heights_batch_shares_few_buckets() {
        let mut c = TimerCommitment::new(16);
        for seq in 0..10_000u64 {
            c.insert(500, seq, keccak(&seq.to_be_bytes()));
        }
        c.apply();
        let dirty = c.tree.dirty.len() as u64;
        assert!(
            dirty <= 10_000u64.div_ceil(SEQ_GROUP) + 1,
            "{dirty} buckets"
        );
    }
}
