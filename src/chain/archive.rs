//! The headers of blocks the chain no longer holds (issue 31, "A timer's fate outlives the
//! window"; Spec note 183).
//!
//! A live node keeps its last `--history` blocks whole; a block older than that answers its
//! header and a named error for its body. The chain therefore hands every block it drops to a
//! [`HeaderArchive`] (when the node turns it on, [`Chain::set_archive_headers`]):
//!
//! * a dropped stored block (a block with a body, or an empty block sealed with one) leaves
//!   its header: one entry per block where something happened;
//! * a dropped run of quiet heights leaves what rebuilds any of its headers (`chain::quiet`):
//!   its heights, anchor, proposer and root template. Consecutive runs that differ only in
//!   the queue's horizons (a long jump crosses one epoch per run) join one entry that keeps
//!   the horizons per run (24 bytes each), so a jump of any length adds one entry.
//!
//! So the archive grows per block with work, never per height passed. It is kept in
//! fixed-size chunks shared on clone: cloning the chain (a checkpoint, a snapshot, a past
//! read) copies two pointers, never the headers. Nothing in it is part of the state: a dump
//! leaves it out and a loaded chain starts with it empty (older heights then answer
//! `HistoryPruned` as before).

use super::quiet::{QuietRun, RootTemplate, quiet_header};
use super::{Account, Actor, Address, Block, BlockHeader, Chain, H256};
use std::collections::VecDeque;
use std::sync::Arc;

/// Entries per shared chunk.
const CHUNK: usize = 256;

/// Quiet heights `first..=last` with the queue's (ring, epoch) horizons they share.
type Span = (u64, u64, (u64, u64));

/// Consecutive quiet runs with one anchor, proposer and template but for the horizons.
#[derive(Clone, Debug)]
struct QuietSpan {
    anchor: H256,
    proposer: Address,
    tpl: Arc<RootTemplate>,
    runs: Vec<Span>,
}

#[derive(Clone, Debug)]
enum Entry {
    Header(BlockHeader),
    Quiet(Box<QuietSpan>),
}

impl Entry {
    fn first(&self) -> u64 {
        match self {
            Entry::Header(h) => h.height,
            Entry::Quiet(q) => q.runs[0].0,
        }
    }

    fn last(&self) -> u64 {
        match self {
            Entry::Header(h) => h.height,
            Entry::Quiet(q) => q.runs[q.runs.len() - 1].1,
        }
    }

    fn header(&self, height: u64) -> Option<BlockHeader> {
        match self {
            Entry::Header(h) => (h.height == height).then(|| h.clone()),
            Entry::Quiet(q) => {
                let i = q.runs.partition_point(|r| r.1 < height);
                let &(first, _, horizons) = q.runs.get(i)?;
                (first <= height).then(|| {
                    // The queue's next undrained height after `height` is `height + 1`.
                    let root = q.tpl.root_with(horizons, height + 1);
                    quiet_header(height, q.anchor, root, q.proposer)
                })
            }
        }
    }

    /// Joins `r` to this entry if both are quiet, adjacent and differ only in horizons.
    fn join(&mut self, r: &QuietRun) -> bool {
        let Entry::Quiet(q) = self else {
            return false;
        };
        let joins = q.runs[q.runs.len() - 1].1 + 1 == r.first
            && q.anchor == r.anchor
            && q.proposer == r.proposer
            && (Arc::ptr_eq(&q.tpl, &r.tpl) || q.tpl.same_but_horizons(&r.tpl));
        if joins {
            q.runs.push((r.first, r.last, r.tpl.horizons()));
        }
        joins
    }
}

/// The headers of the blocks a chain dropped, oldest first (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct HeaderArchive {
    on: bool,
    /// Full chunks of [`CHUNK`] entries, shared.
    chunks: Arc<Vec<Arc<[Entry]>>>,
    /// The entries after the last full chunk, shared until written.
    tail: Arc<Vec<Entry>>,
}

impl HeaderArchive {
    /// The bytes one entry takes in its chunk (an archived busy block costs this, plus its
    /// share of the chunk's pointer: 16 bytes per [`CHUNK`] entries).
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

    /// An empty archive, keeping what is pushed if `on`.
    pub fn new(on: bool) -> Self {
        HeaderArchive {
            on,
            ..Default::default()
        }
    }

    /// How many entries it holds: one per dropped stored block, one per span of quiet runs.
    pub fn len(&self) -> usize {
        self.chunks.len() * CHUNK + self.tail.len()
    }

    /// Does it keep what is pushed?
    pub fn is_on(&self) -> bool {
        self.on
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn last_height(&self) -> Option<u64> {
        match self.tail.last() {
            Some(e) => Some(e.last()),
            None => self.chunks.last().map(|c| c[CHUNK - 1].last()),
        }
    }

    /// Appends the header of a dropped stored block.
    pub(super) fn push_header(&mut self, h: &BlockHeader) {
        if self.on && self.last_height().is_none_or(|l| l < h.height) {
            self.push(Entry::Header(h.clone()));
        }
    }

    /// Appends a dropped run of quiet heights, joined to the last entry when it can be.
    pub(super) fn push_quiet(&mut self, r: &QuietRun) {
        if !self.on || self.last_height().is_some_and(|l| l >= r.first) {
            return;
        }
        if Arc::make_mut(&mut self.tail)
            .last_mut()
            .is_some_and(|e| e.join(r))
        {
            return;
        }
        // A run of one height (most often a migration-only height, Spec note 214) is kept as
        // its header: 176 bytes, where a span would also hold its root template (about 380).
        if r.first == r.last {
            let root = r.tpl.root(r.first + 1);
            self.push(Entry::Header(quiet_header(
                r.first, r.anchor, root, r.proposer,
            )));
            return;
        }
        self.push(Entry::Quiet(Box::new(QuietSpan {
            anchor: r.anchor,
            proposer: r.proposer,
            tpl: r.tpl.clone(),
            runs: vec![(r.first, r.last, r.tpl.horizons())],
        })));
    }

    fn push(&mut self, e: Entry) {
        let tail = Arc::make_mut(&mut self.tail);
        tail.push(e);
        if tail.len() == CHUNK {
            let full: Arc<[Entry]> = std::mem::take(tail).into();
            Arc::make_mut(&mut self.chunks).push(full);
        }
    }

    /// The archived header of `height`, if the archive holds one.
    pub fn header(&self, height: u64) -> Option<BlockHeader> {
        let i = self
            .chunks
            .partition_point(|c| c[CHUNK - 1].last() < height);
        let entries: &[Entry] = match self.chunks.get(i) {
            Some(c) => c,
            None => &self.tail,
        };
        let j = entries.partition_point(|e| e.last() < height);
        let e = entries.get(j)?;
        if e.first() > height {
            return None;
        }
        e.header(height)
    }
}

impl Chain {
    /// Starts the archive of dropped headers again, empty, keeping them if `on` (a live node
    /// with a bounded history, Spec note 183).
    pub fn set_archive_headers(&mut self, on: bool) {
        self.archive = HeaderArchive::new(on);
    }

    /// How many quiet runs the chain holds (a bench's report, issue 31).
    pub fn quiet_runs(&self) -> usize {
        self.quiet.len()
    }

    /// The archive of the headers this chain dropped.
    pub fn header_archive(&self) -> &HeaderArchive {
        &self.archive
    }

    /// The header of sealed height `height`: from a held block or quiet run, else from the
    /// archive (Spec note 183). `None` for a height skipped by an outage, not sealed yet, or
    /// dropped while the archive was off (or before a load).
    pub fn header(&self, height: u64) -> Option<BlockHeader> {
        if let Some(b) = self.block(height) {
            return Some(b.header.clone());
        }
        if height == 0 || height > self.height {
            return None;
        }
        self.archive.header(height)
    }

    /// Drops the oldest stored block, archiving its header; with the archive on, the quiet
    /// runs below it leave with it (archived first), so the archive stays in height order.
    pub(super) fn drop_oldest_block(&mut self) {
        let Some(b) = self.blocks.pop_front() else {
            return;
        };
        if self.archive.is_on() {
            while self.quiet.front().is_some_and(|r| r.last < b.header.height) {
                let r = self.quiet.pop_front().expect("checked");
                self.archive.push_quiet(&r);
            }
        }
        self.archive.push_header(&b.header);
    }
}

impl Chain {
    /// Drops (and archives, with the archive on) the stored blocks and quiet runs wholly below
    /// `height`, in height order (issue 31, Spec note 209): a live node's history keeps heights,
    /// not blocks, so after a jump the chain would otherwise hold blocks no read may reach (the
    /// history answers `HistoryPruned` below its first kept height) until as many newer blocks
    /// pushed them out.
    pub fn drop_blocks_below(&mut self, height: u64) {
        // Each dropped block takes the quiet runs below it to the archive first; the runs left
        // below `height` then lie above every dropped block.
        while self
            .blocks
            .front()
            .is_some_and(|b| b.header.height < height)
        {
            self.drop_oldest_block();
        }
        while self.quiet.front().is_some_and(|r| r.last < height) {
            let r = self.quiet.pop_front().expect("checked");
            self.archive.push_quiet(&r);
        }
    }

    /// Holds the blocks of `theirs` (sorted by height: a live node's history) in place of its
    /// own stored blocks above height `above` of the same height and hash (issue 31, Spec note
    /// 223): a chain replayed to a past height makes each block it seals again, the same
    /// block the live node keeps, and a kept past state so held thousands of them alone
    /// (30-66 MB under a 100,000-timer backlog). Equal hashes, equal blocks (the replay is
    /// deterministic). Returns the newest stored block's height (`above` if none is newer).
    pub fn share_stored_blocks(&mut self, above: u64, theirs: &VecDeque<Arc<Block>>) -> u64 {
        let newest = self
            .blocks
            .back()
            .map_or(above, |b| b.header.height.max(above));
        for b in self.blocks.iter_mut().rev() {
            let h = b.header.height;
            if h <= above {
                break;
            }
            if let Ok(i) = theirs.binary_search_by_key(&h, |t| t.header.height)
                && theirs[i].header.hash == b.header.hash
            {
                *b = Arc::clone(&theirs[i]);
            }
        }
        newest
    }

    /// Takes the stored blocks out of the chain (a checkpoint keeps them beside it, trimmed
    /// as the history moves on: Spec note 209).
    pub fn take_stored_blocks(&mut self) -> VecDeque<Arc<Block>> {
        std::mem::take(&mut self.blocks)
    }

    /// Gives a chain taken from a checkpoint its stored blocks back, and the live chain's
    /// archive of the headers it dropped when that archive ends at or below `upto`, the
    /// height the replay reaches, and goes further than the chain's own (Spec note 209): the
    /// headers of the blocks the checkpoint let go with the history. Headers at or below
    /// `upto` are the same in both timelines (a replay is deterministic), and a later drop of
    /// a header the archive holds already is ignored.
    pub fn restore_stored_blocks(
        &mut self,
        blocks: VecDeque<Arc<Block>>,
        archive: &HeaderArchive,
        upto: u64,
    ) {
        self.blocks = blocks;
        let theirs = archive.last_height();
        if archive.is_on()
            && theirs.is_some_and(|t| t <= upto)
            && self
                .archive
                .last_height()
                .is_none_or(|ours| Some(ours) <= theirs)
        {
            self.archive = archive.clone();
        }
    }
}

/// What a clone of the chain holds alone (issue 31, checkpoints bounded by bytes, Spec note
/// 194): a clone shares the engine's slab pages and commitment chunks and the sealed blocks
/// until one side writes (the blocks are counted with the history); the rest is copied.
impl Chain {
    /// The allocations this chain shares with its clones until written (the timer queue's
    /// pages and commitment chunks), each as its address and heap bytes.
    pub fn visit_shared(&self, f: &mut dyn FnMut(usize, usize)) {
        self.engine.queue().visit_shared(f);
    }

    /// Rough heap bytes a clone of this chain copies whole: the timer queue's indexes and
    /// tables, the lists of block and quiet-run pointers, the accounts, actors and the state
    /// commitment's leaves (the actors' storage counted by its keys and values).
    pub fn clone_bytes(&self) -> usize {
        use std::mem::size_of;
        let storage: usize = self
            .actors
            .values()
            .map(|a| {
                a.storage
                    .iter()
                    .map(|(k, v)| k.len() + v.len() + 48)
                    .sum::<usize>()
            })
            .sum();
        self.engine.queue().clone_bytes()
            + (self.blocks.len() + self.quiet.len()) * size_of::<Arc<Block>>()
            + self.accounts.len() * (size_of::<(Address, Account)>() + 16)
            + self.actors.len() * (size_of::<(Address, Actor)>() + 16)
            + storage
            + self.commit.clone_bytes()
    }

    /// Rough heap bytes this chain holds beyond its shared allocations: what a clone of it
    /// copies ([`clone_bytes`](Self::clone_bytes)) and the indexes a clone builds again on
    /// first use, when this one has built them (Spec note 223: a replayed past state has).
    pub fn held_bytes(&self) -> usize {
        self.clone_bytes() + self.engine.queue().built_index_bytes()
    }
}
