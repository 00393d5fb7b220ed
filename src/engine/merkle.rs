//! An incremental, history-independent commitment to a set of 32-byte leaves.
//!
//! Leaves are spread over `2^bits` buckets by their leading bits; a bucket's hash is keccak256
//! of its sorted leaves, and the buckets are the leaves of a fixed-depth binary Merkle tree.
//! The root depends only on the set, not on the order of insertion. Inserts and removals only
//! mark their bucket dirty; [`SetCommitment::root`] rehashes the dirty buckets and the paths
//! above them once, so the cost of a block's root follows what changed in the block, not the
//! size of the set. Empty subtrees hash to zero and cost nothing.

use super::types::keccak_parts;

#[derive(Clone, Debug)]
pub struct SetCommitment {
    bits: u32,
    buckets: Vec<Vec<[u8; 32]>>,
    /// Heap-ordered tree: node 1 is the root, the leaves (bucket hashes) start at `2^bits`.
    nodes: Vec<[u8; 32]>,
    dirty: Vec<u32>,
    dirty_flag: Vec<bool>,
    len: usize,
}

const ZERO: [u8; 32] = [0; 32];

impl SetCommitment {
    /// A commitment with `2^bits` buckets (`bits` in 1..=20).
    pub fn new(bits: u32) -> Self {
        assert!((1..=20).contains(&bits), "bucket bits out of range");
        let n = 1usize << bits;
        SetCommitment {
            bits,
            buckets: vec![Vec::new(); n],
            nodes: vec![ZERO; 2 * n],
            dirty: Vec::new(),
            dirty_flag: vec![false; n],
            len: 0,
        }
    }

    fn bucket_of(&self, leaf: &[u8; 32]) -> usize {
        let top = u32::from_be_bytes([leaf[0], leaf[1], leaf[2], leaf[3]]);
        (top >> (32 - self.bits)) as usize
    }

    fn mark(&mut self, b: usize) {
        if !self.dirty_flag[b] {
            self.dirty_flag[b] = true;
            self.dirty.push(b as u32);
        }
    }

    /// Adds a leaf. Returns false (and changes nothing) if it is already present.
    pub fn insert(&mut self, leaf: [u8; 32]) -> bool {
        let b = self.bucket_of(&leaf);
        match self.buckets[b].binary_search(&leaf) {
            Ok(_) => false,
            Err(i) => {
                self.buckets[b].insert(i, leaf);
                self.len += 1;
                self.mark(b);
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
                self.mark(b);
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

    /// Leaves changed since the last root, pending rehash (a cost gauge for benchmarks).
    pub fn dirty_buckets(&self) -> usize {
        self.dirty.len()
    }

    /// The root, rehashing only what changed since the previous call.
    pub fn root(&mut self) -> [u8; 32] {
        if self.dirty.is_empty() {
            return self.nodes[1];
        }
        let n = 1usize << self.bits;
        let mut level: Vec<u32> = std::mem::take(&mut self.dirty);
        level.sort_unstable();
        for &b in &level {
            let b = b as usize;
            self.dirty_flag[b] = false;
            let bucket = &self.buckets[b];
            self.nodes[n + b] = if bucket.is_empty() {
                ZERO
            } else {
                let mut parts: Vec<&[u8]> = Vec::with_capacity(bucket.len() + 1);
                parts.push(b"bucket");
                parts.extend(bucket.iter().map(|l| &l[..]));
                keccak_parts(&parts)
            };
        }
        // Walk up, one level at a time, each parent once.
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
}
