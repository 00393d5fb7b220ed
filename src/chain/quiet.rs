//! Quiet heights: empty blocks sealed in constant time, without a stored body, and long runs of
//! them jumped over at once.
//!
//! Spec note (CIP-5 §5.1, long jumps): a devnet moves time by mining long runs of blocks
//! (`Mine { blocks: 1_000_000 }`, the default TTL being 2,592,000 blocks), and most of those
//! heights do nothing. A height is *quiet* when its block has no transaction, no event, no
//! fire, no end-of-block work at all (nothing due, nothing deferred or expired, no GC), no
//! epoch-maintenance migration and no outage. The state after it is the state before it with
//! the queue's `next_height` one further (and, at an epoch's first height, its horizons moved).
//!
//! * **Jumps.** [`Chain::jump_quiet`] seals every height up to the next one where anything can
//!   happen in one step: the next non-empty bucket, a pending deferral, the end of the epoch
//!   (whose first height runs epoch maintenance), an open block or an outage. Every timer still
//!   fires at its own height, by the same steps as one-by-one sealing; the cost follows the
//!   heights where something happens, not the heights jumped.
//! * **No stored body.** Consecutive quiet heights sharing a root template are kept as one
//!   [`QuietRun`] (first..last height, the template, the anchor below), and [`Chain::block`]
//!   rebuilds the empty block of any of its heights on demand, in constant time.
//! * **No Merkle work.** Nothing in the state changed but the queue's scalars, so a quiet
//!   height's state root is the last committed [`RootTemplate`] folded with its `next_height`:
//!   one keccak of the scalars after it, computed only for the head and for a block asked for.
//! * **Headers anchored, not chained.** Spec note: a block whose body is empty and that skipped
//!   no heights names as its `parent_hash` its *anchor*: the hash of the last block before it
//!   with a non-empty body or skipped heights (the genesis hash if none). Every other block
//!   names the block before it. The hash is computed from the header's fields as for any block
//!   (height, parent_hash, state_root, body_hash, proposer, skipped), so the hash of any
//!   height of a run needs its height, the run's anchor and its root, never the heights before
//!   it, and the first block after a run names the run's last height. The rule reads only the
//!   header (its body hash and `skipped`), so a chain sealed height by height with every body
//!   stored (`Chain::test_hook_no_quiet`), one jumped, or one mined in any mix of requests has
//!   the same header, root and hash at every height (tests/long_jump.rs).
//!
//! Under CIP-1 v3's eip1559 scheduler a height is quiet only if, on top of the above, the
//! lane's state does not move: the lane basefee is at its floor (an empty lane lowers any
//! higher basefee by at least 1 nano a block, Spec note 45), the last p50 tip is 0, the
//! last block's cycle usage is 0 and the fairness window is empty (so that no block can leave
//! it). A height where any of these moves is sealed with a stored (empty) body; after a busy
//! stretch the chain is therefore sealed block by block until the basefee has decayed to its
//! floor and the window has emptied (at most `fairness_window_blocks` heights after the last
//! fire or deferral), then quietly again.
//!
//! **Migration-only heights** (Spec note 214): a block where nothing happened but epoch
//! maintenance moving timers between tiers is not quiet (its root differs from the height
//! before), but it needs no stored body either: it is sealed with a full root commit and kept
//! as the first height of a run of its own ([`Chain::push_run`]), with its migration count and
//! lane statistics; the quiet heights after it join that run, and [`Chain::block`] rebuilds
//! it equal to the stored block it replaced.
//!
//! Quiet and migration-only heights are not listed by [`Chain::blocks`], which lists the
//! stored bodies.

use super::*;
use sha3::{Digest, Keccak256};
use std::sync::OnceLock;

/// What [`Chain::seal_next`] sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sealed {
    /// A block with a stored body.
    Block,
    /// A quiet height (see the module docs): no stored body, its root folded from the last
    /// committed template; or a migration-only height, its root committed, kept as the
    /// first height of a quiet run (Spec note 214).
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

    /// The queue's (ring, epoch) horizons the template holds.
    pub(super) fn horizons(&self) -> (u64, u64) {
        self.horizons
    }

    /// The state root with the queue at `next_height` and its horizons at `horizons` (the
    /// suffix starts with them, see `Chain::root_template`): the root of a quiet height of a
    /// later epoch whose state differs only there (Spec note 183).
    pub(super) fn root_with(&self, horizons: (u64, u64), next_height: u64) -> H256 {
        let mut h = self.prefix.clone();
        h.update(next_height.to_be_bytes());
        h.update(horizons.0.to_be_bytes());
        h.update(horizons.1.to_be_bytes());
        h.update(&self.suffix[16..]);
        H256(h.finalize().into())
    }

    /// Does `other` hold the same state but for the horizons? (Equal prefix digests: the same
    /// bytes were hashed before `next_height`.)
    pub(super) fn same_but_horizons(&self, other: &RootTemplate) -> bool {
        self.suffix.get(16..) == other.suffix.get(16..)
            && self.prefix.clone().finalize() == other.prefix.clone().finalize()
    }
}

/// Consecutive quiet heights sharing one root template, proposer, pending count and anchor.
#[derive(Clone, Debug)]
pub struct QuietRun {
    pub(super) first: u64,
    pub(super) last: u64,
    pub(super) tpl: Arc<RootTemplate>,
    pub(super) proposer: Address,
    pending: u64,
    /// The `parent_hash` of every height of the run (see the module docs).
    pub(super) anchor: H256,
    /// The lane statistics every height of the run shares (CIP-1 v3 §5: nothing selected or
    /// deferred, the basefee unchanged).
    lane: LaneStats,
    /// Timers epoch maintenance migrated between tiers at the run's first height (Spec note
    /// 210: a block where only that happened is kept as a run's first height); 0 at the
    /// others, which are quiet.
    migrated: u64,
}

pub(super) fn empty_body_hash() -> H256 {
    static EMPTY: OnceLock<H256> = OnceLock::new();
    *EMPTY.get_or_init(|| body_hash(&[], &[]))
}

/// The header of an empty block, hashed as [`Chain::seal_block`] hashes every header.
pub(super) fn quiet_header(
    height: u64,
    parent_hash: H256,
    state_root: H256,
    proposer: Address,
) -> BlockHeader {
    BlockHeader::sealed(
        height,
        parent_hash,
        state_root,
        empty_body_hash(),
        proposer,
        0,
    )
}

impl Chain {
    /// The parent a block sealed now names (see the module docs): its anchor if its body is
    /// empty and it skipped no heights, else the head.
    pub(super) fn parent_of(&self, body_hash: &H256, skipped: u64) -> H256 {
        if skipped == 0 && *body_hash == empty_body_hash() {
            self.anchor()
        } else {
            self.head.hash
        }
    }

    /// The anchor of a block with an empty body sealed now: the head's own anchor if the head
    /// is such a block, else the head.
    fn anchor(&self) -> H256 {
        if self.head.skipped == 0 && self.head.body_hash == empty_body_hash() {
            self.head.parent_hash
        } else {
            self.head.hash
        }
    }

    /// Seals at most `max` heights at once, every one of them quiet (see the module docs), and
    /// returns how many: the heights up to the next one where anything can happen (a bucket
    /// with a timer, a pending deferral, the end of the epoch). Returns 0, sealing nothing,
    /// when the next height may not be quiet (a block is open, an outage is pending, a timer
    /// is due or a deferral waits, epoch maintenance has work): seal it with
    /// [`seal_next`](Self::seal_next), which finds out.
    pub fn jump_quiet(&mut self, max: u64) -> u64 {
        if self.no_quiet
            || self.open.is_some()
            || self.skip_next != 0
            || !self.cancelled_fires.is_empty()
        {
            return 0;
        }
        let first = self.height + 1;
        let capacity = self.timer_config().lane_timer_cycles;
        // CIP-1 v3: the lane's state must stand still over the heights jumped (see the module
        // docs), and the jump stops below the activation block, which starts the lane.
        let Some(max) = self.engine.rest_heights(first, capacity, max) else {
            return 0;
        };
        let n = self.engine.quiet_heights(max);
        if n == 0 {
            return 0;
        }
        let scheduler = self.engine.scheduler_at(first);
        let lane = LaneStats {
            scheduler,
            basefee: self.engine.lane_basefee(self.fee_quote().cycle_basefee),
            capacity,
            fire_quota: self.engine.policies().fire_quota(scheduler),
            ..Default::default()
        };
        self.quiet_head = None;
        self.engine.skip_quiet(n);
        self.push_run(first, first + n - 1, lane, 0);
        n
    }

    /// Seals the open block as a quiet height (the caller checked it is one).
    pub(super) fn seal_quiet(&mut self, lane: LaneStats) {
        let open = self.open.take().expect("open");
        self.push_run(open.height, open.height, lane, 0);
    }

    /// Records the heights `first..=last` (the queue already drained them), quiet but for
    /// `migrated` timers moved by epoch maintenance at `first` (Spec note 214), and makes the
    /// last the head: its root and hash are the only ones computed.
    pub(super) fn push_run(&mut self, first: u64, last: u64, lane: LaneStats, migrated: u64) {
        let q = self.engine.queue();
        let h = q.horizons();
        let reusable = self
            .root_tpl
            .as_ref()
            .is_some_and(|t| t.horizons == (h.ring_horizon, h.epoch_horizon));
        let tpl = if reusable {
            self.root_tpl.clone().expect("checked")
        } else {
            let t = self.root_template();
            self.root_tpl = Some(t.clone());
            t
        };
        debug_assert_eq!(self.engine.queue().next_height(), last + 1);
        let root = tpl.root(last + 1);
        let anchor = self.anchor();
        let header = quiet_header(last, anchor, root, self.proposer);
        let pending = self.engine.pending() as u64;
        let extends = migrated == 0
            && self.quiet.back().is_some_and(|r| {
                r.last + 1 == first
                    && r.anchor == anchor
                    && Arc::ptr_eq(&r.tpl, &tpl)
                    && r.proposer == self.proposer
                    && r.pending == pending
                    && r.lane == lane
            });
        if extends {
            Arc::make_mut(self.quiet.back_mut().expect("checked")).last = last;
        } else {
            self.quiet.push_back(Arc::new(QuietRun {
                first,
                last,
                tpl,
                proposer: self.proposer,
                pending,
                anchor,
                lane,
                migrated,
            }));
            self.bound_runs();
        }
        self.height = last;
        self.root = root;
        self.head = header;
        self.cancelled_fires.clear();
    }

    /// The empty block of a quiet height, rebuilt from its run in constant time.
    pub(super) fn quiet_block(&self, height: u64) -> Option<Block> {
        let i = self.quiet.partition_point(|r| r.first <= height);
        let r = self.quiet.get(i.checked_sub(1)?)?;
        if height > r.last {
            return None;
        }
        // The queue's next undrained height after `height` is `height + 1`.
        let header = quiet_header(height, r.anchor, r.tpl.root(height + 1), r.proposer);
        Some(Block {
            header,
            receipts: Vec::new(),
            events: Vec::new(),
            eob: EobStats::default(),
            migrated: if height == r.first { r.migrated } else { 0 },
            pending: r.pending,
            lane: r.lane.clone(),
            tally: Default::default(),
        })
    }

    /// Drops the quiet runs older than the oldest stored block, keeping at most
    /// `keep_blocks` runs; each goes to the header archive (Spec note 183), after the stored
    /// blocks below it, so the archive stays in height order.
    pub(super) fn prune_quiet(&mut self) {
        let Some(first) = self.blocks.front().map(|b| b.header.height) else {
            return;
        };
        while self
            .quiet
            .front()
            .is_some_and(|r| r.last < first || self.quiet.len() > self.keep_blocks)
        {
            let r = self.quiet.pop_front().expect("checked");
            if r.first > first {
                self.archive_blocks_below(r.first);
            }
            self.archive.push_quiet(&r);
        }
    }

    /// Keeps at most `keep_blocks` quiet runs, as the stored blocks are kept (a run per
    /// migration-only height, Spec note 214): the oldest go to the header archive, after the
    /// stored blocks below them.
    fn bound_runs(&mut self) {
        while self.quiet.len() > self.keep_blocks {
            let r = self.quiet.pop_front().expect("more than one");
            self.archive_blocks_below(r.first);
            self.archive.push_quiet(&r);
        }
    }

    /// With the archive on, drops (and archives) the stored blocks below `height`: a quiet run
    /// dropped above them would otherwise enter the archive before them. Off, it keeps them
    /// (the chain holds what it held before the archive).
    fn archive_blocks_below(&mut self, height: u64) {
        if !self.archive.is_on() {
            return;
        }
        while self
            .blocks
            .front()
            .is_some_and(|b| b.header.height < height)
        {
            self.drop_oldest_block();
        }
    }
}
