//! Quiet heights: empty blocks sealed in constant time, without a stored body.
//!
//! Spec note (CIP-5 §5.1, long jumps): a devnet moves time by mining long runs of blocks
//! (`Mine { blocks: 1_000_000 }`, the default TTL being 2,592,000 blocks), and most of those
//! heights do nothing. A height is *quiet* when its block has no transaction, no event, no
//! fire, no end-of-block work at all (nothing due, nothing deferred or expired, no GC), no
//! epoch-maintenance migration and no outage. Its block is still sealed at its own height, by
//! the same steps as any block (the engine opens it, runs maintenance and drains its bucket),
//! so every timer fires at its own height and the state after the run is the state one-by-one
//! sealing gives. What a quiet height skips is the bookkeeping:
//!
//! * no stored body: consecutive quiet heights sharing a root template are kept as one
//!   [`QuietRun`] (first..last height, the template, a parent hash every [`CHECKPOINT`]
//!   heights), and [`Chain::block`] rebuilds the empty block of any of its heights on demand;
//! * no Merkle work: nothing in the state changed but the queue's `next_height` (and, at an
//!   epoch boundary, its horizons), so the state root is the last committed
//!   [`RootTemplate`] folded with the new `next_height`: one keccak of the scalars after it,
//!   never a recomputation of the account, storage or timer commitments.
//!
//! Under CIP-1 v3's eip1559 scheduler a height is quiet only if, on top of the above, the
//! lane's state does not move: the lane basefee is at its floor (an empty lane lowers any
//! higher basefee by at least 1 nano a block, contract decision 2), the last p50 tip is 0, the
//! last block's cycle usage is 0 and the fairness window is empty (so that no block can leave
//! it). A height where any of these moves is sealed with a stored (empty) body; after a busy
//! stretch the chain is therefore sealed block by block until the basefee has decayed to its
//! floor and the window has emptied (at most `fairness_window_blocks` heights after the last
//! fire or deferral), then quietly again.
//!
//! Roots and hashes are exactly those of one-by-one sealing: a quiet block's header is hashed
//! from its parent's hash, its root, the empty body's hash, the proposer and `skipped = 0`, as
//! any header (so a head after a jump is the same whichever way the heights were mined).
//! Quiet heights are not listed by [`Chain::blocks`], which lists the stored bodies.

use super::*;
use sha3::{Digest, Keccak256};
use std::sync::OnceLock;

/// A run of quiet heights keeps the parent hash of every `CHECKPOINT`-th height, so that
/// rebuilding one of its blocks rehashes at most `CHECKPOINT` headers.
pub const CHECKPOINT: u64 = 256;

/// What [`Chain::seal_next`] sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sealed {
    /// A block with a stored body.
    Block,
    /// A quiet height (see the module docs): no stored body, its root folded from the last
    /// committed template.
    Quiet,
}

/// The state root's preimage (see `Chain::commit_root`) with the queue's `next_height` left
/// out: the keccak state after the parts before it, and the bytes of the parts after it.
#[derive(Clone)]
pub struct RootTemplate {
    prefix: Keccak256,
    suffix: Vec<u8>,
    /// The queue's (ring, epoch) horizons the template holds.
    horizons: (u64, u64),
    /// Whether the template commits pending deferrals (then it is not reused for a quiet
    /// height, which has none).
    deferrals: bool,
}

impl std::fmt::Debug for RootTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RootTemplate")
            .field("horizons", &self.horizons)
            .finish_non_exhaustive()
    }
}

impl RootTemplate {
    pub(super) fn new(before: &[&[u8]], after: &[&[u8]], horizons: (u64, u64)) -> Self {
        let mut prefix = Keccak256::new();
        for p in before {
            prefix.update(p);
        }
        let suffix: Vec<u8> = after.concat();
        RootTemplate {
            prefix,
            deferrals: !after.last().is_none_or(|d| d.is_empty()),
            suffix,
            horizons,
        }
    }

    /// The state root with the queue at `next_height`.
    pub fn root(&self, next_height: u64) -> H256 {
        let mut h = self.prefix.clone();
        h.update(next_height.to_be_bytes());
        h.update(&self.suffix);
        H256(h.finalize().into())
    }
}

/// Consecutive quiet heights sharing one root template, proposer and pending count.
#[derive(Clone, Debug)]
pub struct QuietRun {
    first: u64,
    last: u64,
    tpl: Arc<RootTemplate>,
    proposer: Address,
    pending: u64,
    /// The lane statistics every height of the run shares (CIP-1 v3 §5: nothing selected or
    /// deferred, the basefee unchanged).
    lane: LaneStats,
    /// `checkpoints[i]`: the parent hash of height `first + i * CHECKPOINT`.
    checkpoints: Vec<H256>,
    /// The hash of `last`.
    last_hash: H256,
}

fn empty_body_hash() -> H256 {
    static EMPTY: OnceLock<H256> = OnceLock::new();
    *EMPTY.get_or_init(|| body_hash(&[], &[]))
}

/// The header of an empty block, hashed as [`Chain::seal_block`] hashes every header.
fn quiet_header(
    height: u64,
    parent_hash: H256,
    state_root: H256,
    proposer: Address,
) -> BlockHeader {
    let body_hash = empty_body_hash();
    let hash = H256(keccak_parts(&[
        &height.to_be_bytes(),
        &parent_hash.0,
        &state_root.0,
        &body_hash.0,
        &proposer.0,
        &0u64.to_be_bytes(),
    ]));
    BlockHeader {
        height,
        parent_hash,
        state_root,
        body_hash,
        proposer,
        skipped: 0,
        hash,
    }
}

impl Chain {
    /// Seals the open block as a quiet height (the caller checked it is one).
    pub(super) fn seal_quiet(&mut self, lane: LaneStats) {
        let open = self.open.take().expect("open");
        let q = self.engine.queue();
        let h = q.horizons();
        let reusable = q.deferrals().is_empty()
            && self
                .root_tpl
                .as_ref()
                .is_some_and(|t| !t.deferrals && t.horizons == (h.ring_horizon, h.epoch_horizon));
        let tpl = if reusable {
            self.root_tpl.clone().expect("checked")
        } else {
            let t = self.root_template();
            self.root_tpl = Some(t.clone());
            t
        };
        let next_height = self.engine.queue().next_height();
        let root = tpl.root(next_height);
        let parent = self.head.hash;
        let header = quiet_header(open.height, parent, root, self.proposer);
        let pending = self.engine.pending() as u64;
        let height = open.height;
        let extends = self.quiet.back().is_some_and(|r| {
            r.last + 1 == height
                && r.last_hash == parent
                && Arc::ptr_eq(&r.tpl, &tpl)
                && r.proposer == self.proposer
                && r.pending == pending
                && r.lane == lane
        });
        if extends {
            let r = Arc::make_mut(self.quiet.back_mut().expect("checked"));
            if (height - r.first).is_multiple_of(CHECKPOINT) {
                r.checkpoints.push(parent);
            }
            r.last = height;
            r.last_hash = header.hash;
        } else {
            self.quiet.push_back(Arc::new(QuietRun {
                first: height,
                last: height,
                tpl,
                proposer: self.proposer,
                pending,
                lane,
                checkpoints: vec![parent],
                last_hash: header.hash,
            }));
        }
        self.height = height;
        self.root = root;
        self.head = header;
        self.cancelled_fires.clear();
    }

    /// The empty block of a quiet height, rebuilt from its run.
    pub(super) fn quiet_block(&self, height: u64) -> Option<Block> {
        let i = self.quiet.partition_point(|r| r.first <= height);
        let r = self.quiet.get(i.checked_sub(1)?)?;
        if height > r.last {
            return None;
        }
        let k = (height - r.first) / CHECKPOINT;
        let mut parent = r.checkpoints[k as usize];
        let mut x = r.first + k * CHECKPOINT;
        loop {
            // The queue's next undrained height after `x` is `x + 1`.
            let header = quiet_header(x, parent, r.tpl.root(x + 1), r.proposer);
            if x == height {
                return Some(Block {
                    header,
                    receipts: Vec::new(),
                    events: Vec::new(),
                    eob: EobStats::default(),
                    migrated: 0,
                    pending: r.pending,
                    lane: r.lane.clone(),
                });
            }
            parent = header.hash;
            x += 1;
        }
    }

    /// Drops the quiet runs older than the oldest stored block, keeping at most
    /// `keep_blocks` runs.
    pub(super) fn prune_quiet(&mut self) {
        let Some(first) = self.blocks.front().map(|b| b.header.height) else {
            return;
        };
        while self
            .quiet
            .front()
            .is_some_and(|r| r.last < first || self.quiet.len() > self.keep_blocks)
        {
            self.quiet.pop_front();
        }
    }
}
