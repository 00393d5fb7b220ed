//! A vector in fixed chunks, shared on clone and copied on write (issue 24's checkpoints).
//!
//! The node keeps a clone of the chain every 256 heights of its retained history, and each
//! snapshot is one too. The state commitments' tables are fixed-size (a bucket tree of `2^16`
//! buckets is 4 MiB of node hashes whatever the chain holds), so a plain clone copied megabytes
//! that the next blocks mostly leave as they are. A [`CowVec`] clone copies its chunk table;
//! a chunk is copied the first time it is written while shared (`Arc::make_mut`), so what a
//! clone holds on to follows what was written since, not the table's size.

use std::sync::Arc;

const CHUNK_BITS: u32 = 6;
/// Elements per chunk.
const CHUNK: usize = 1 << CHUNK_BITS;

#[derive(Clone, Debug, Default)]
pub struct CowVec<T> {
    chunks: Vec<Arc<[T]>>,
    len: usize,
}

impl<T: Clone> CowVec<T> {
    /// `len` copies of `value`. The full chunks are one chunk shared until written, so a
    /// table of `2^17` zero hashes costs its chunk table (16 KiB), not 4 MiB allocated and
    /// zeroed: a headless run (a hunt plays thousands) builds four such tables at genesis.
    pub fn from_elem(value: T, len: usize) -> Self {
        let full = len / CHUNK;
        let mut chunks = Vec::with_capacity(len.div_ceil(CHUNK));
        if full > 0 {
            let shared: Arc<[T]> = Arc::from(vec![value.clone(); CHUNK]);
            chunks.extend(std::iter::repeat_n(shared, full));
        }
        if !len.is_multiple_of(CHUNK) {
            chunks.push(Arc::from(vec![value; len % CHUNK]));
        }
        CowVec { chunks, len }
    }
}

impl<T> CowVec<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// Issue 31 (checkpoints bounded by bytes): each chunk's address and heap bytes (its
    /// elements, plus `extra` of each for what an element holds on the heap), for a walk that
    /// tells which chunks a clone holds alone. The chunk table itself is copied by a clone:
    /// [`table_bytes`](Self::table_bytes).
    pub fn visit_chunks(&self, extra: impl Fn(&T) -> usize, f: &mut dyn FnMut(usize, usize)) {
        for c in &self.chunks {
            let bytes = std::mem::size_of_val::<[T]>(c) + c.iter().map(&extra).sum::<usize>();
            f(Arc::as_ptr(c) as *const u8 as usize, bytes);
        }
    }

    /// Heap bytes of the chunk table (what a clone copies).
    pub fn table_bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<Arc<[T]>>()
    }

    /// Heap bytes of the chunk table and of the chunks this clone holds (shared ones too).
    pub fn approx_bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<Arc<[T]>>()
            + self.len * std::mem::size_of::<T>()
    }
}

impl<T> std::ops::Index<usize> for CowVec<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i >> CHUNK_BITS][i & (CHUNK - 1)]
    }
}

impl<T: Clone> std::ops::IndexMut<usize> for CowVec<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut Arc::make_mut(&mut self.chunks[i >> CHUNK_BITS])[i & (CHUNK - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::CowVec;

    #[test]
    fn a_clone_is_independent_and_shares_what_neither_wrote() {
        let mut a = CowVec::from_elem(0u32, 200);
        assert_eq!(a.len(), 200);
        for i in 0..200 {
            a[i] = i as u32;
        }
        let mut b = a.clone();
        b[5] = 1_000;
        a[150] = 2_000;
        assert_eq!(a[5], 5);
        assert_eq!(b[5], 1_000);
        assert_eq!(b[150], 150);
        assert_eq!(a[150], 2_000);
        // The chunks neither wrote are the same allocation.
        assert!(std::sync::Arc::ptr_eq(&a.chunks[1], &b.chunks[1]));
        assert!(!std::sync::Arc::ptr_eq(&a.chunks[0], &b.chunks[0]));
        assert_eq!(b.iter().copied().filter(|&x| x >= 1_000).count(), 1);
        assert_eq!(a.iter().count(), 200);
    }
}
