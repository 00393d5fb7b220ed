//! Past heights (issue 24): the session log's recording, checkpoints of the chain within the
//! retained history, and the state as of any retained height (a checkpoint's chain, cloned,
//! with the session log replayed from it: at most [`CHECKPOINT_EVERY`] blocks with a body,
//! however many quiet heights lie between them, Spec note 151).

use super::NodeCore;
use super::past_cache::Slot;
use crate::chain::{Chain, Genesis};
use crate::node::NodeError;
use crate::node::session::{self, Entry, Link, SessionLog};
use std::collections::VecDeque;
use std::sync::Arc;

/// Blocks with a body (something happened in them) between two checkpoints (issue 31 item 5,
/// Spec note 151): checkpoints are placed by work done, not by heights passed, so a jump over
/// quiet heights places none, and a past-height query replays at most this many busy blocks
/// (the quiet heights between them are jumped).
pub const CHECKPOINT_EVERY: u64 = 256;

/// The work (transactions and events sealed) a checkpoint waits for at least (Spec note 218):
/// a past read replays about this much at most from the nearest checkpoint, when the chain is
/// small enough that copying it costs less.
pub const CHECKPOINT_WORK: u64 = 4096;

/// What a unit of work replayed is taken to cost, in bytes a checkpoint copies (Spec note
/// 218): a checkpoint of a chain whose copy is `B` bytes waits for `B / BYTES_PER_WORK` units,
/// so the node never spends more on copies than a fraction of the work they bound (a
/// `timer_schedule` call, two units, replays in microseconds; copying 2 KiB of indexes is
/// well under one).
pub const BYTES_PER_WORK: u64 = 1024;

/// The fewest timers migrated between the queue's tiers after which the newest checkpoint's
/// bytes are checked (Spec note 227): with an eighth of the pending timers, the check's walk
/// (which follows the queue's size) costs a bounded share of the migrations it follows.
pub const MIGRATED_CHECK: u64 = 1024;

/// Where the next checkpoint is placed (Spec notes 151, 218): after [`CHECKPOINT_EVERY`]
/// blocks with a body, or sooner once the transactions and events sealed since the last one
/// reach [`CHECKPOINT_WORK`] and what the last one copied (`Chain::clone_bytes`) over
/// [`BYTES_PER_WORK`]. Only sealed work counts: a jump over quiet heights adds nothing. A
/// past read so replays at most 256 busy blocks and, in a busy stretch, a bounded amount of
/// work, while the copies stay a fraction of the work they save.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pace {
    busy: u64,
    work: u64,
    work_at: u64,
    /// The chain's [`Chain::migrated_total`] at the last placement or check of the newest
    /// checkpoint's bytes (Spec note 227).
    migrated_at: u64,
    /// The work every checkpoint waits for, whatever the copy costs: set by
    /// [`NodeCore::set_checkpoint_work`] (a bench's floor), `None` by default.
    fixed: Option<u64>,
}

impl Default for Pace {
    fn default() -> Self {
        Pace {
            busy: 0,
            work: 0,
            work_at: CHECKPOINT_WORK,
            migrated_at: 0,
            fixed: None,
        }
    }
}

impl Pace {
    /// Counts a sealed height (`work`: its transactions and events, 0 for a quiet one);
    /// whether a checkpoint is due now.
    fn sealed(&mut self, work: u64) -> bool {
        if work > 0 {
            self.busy += 1;
            self.work += work;
        }
        self.busy >= CHECKPOINT_EVERY || self.work >= self.work_at
    }

    /// A checkpoint was placed that copied about `copied` bytes, `migrated` timers migrated
    /// so far: the next waits for as much work as that copy is worth.
    fn placed(&mut self, copied: usize, migrated: u64) {
        *self = Pace {
            busy: 0,
            work: 0,
            work_at: self
                .fixed
                .unwrap_or(CHECKPOINT_WORK.max(copied as u64 / BYTES_PER_WORK)),
            migrated_at: migrated,
            fixed: self.fixed,
        };
    }

    /// Whether the newest checkpoint's bytes are due a check (Spec note 227): the timers
    /// migrated since the last placement or check, out of `migrated` so far, reach
    /// [`MIGRATED_CHECK`] and an eighth of the `pending` timers. A chain that replaced the
    /// live one (a revert, a load) may count fewer: the count starts again from it.
    fn migrations_due(&mut self, migrated: u64, pending: u64) -> bool {
        self.migrated_at = self.migrated_at.min(migrated);
        migrated - self.migrated_at >= MIGRATED_CHECK.max(pending / 8)
    }
}

impl NodeCore {
    /// Places a checkpoint once `units` of work (transactions and events sealed) were sealed
    /// since the last one, whatever the chain's copy costs (1: after every block with a body).
    /// For the `rpc_requests` bench's floor (Spec note 220: what a past read costs when a
    /// checkpoint stands at or just below every height read), not a setting of the node.
    pub fn set_checkpoint_work(&mut self, units: u64) {
        let units = units.max(1);
        self.pace.fixed = Some(units);
        self.pace.work_at = units;
    }
}

/// The fewest entries a trim of the session log drops (Spec note 149).
pub const TRIM_AT_LEAST: usize = 1024;

/// The chain as of sealed block `height`, and where the session log stood then.
#[derive(Clone)]
pub(crate) struct Checkpoint {
    height: u64,
    /// Shared, so a checkpoint moved onto a trimmed log (Spec note 149) copies no chain. Its
    /// stored blocks are taken out, into `blocks`.
    chain: Arc<Chain>,
    /// The chain's stored blocks as of `height`, those below the history's first kept height
    /// dropped as it moves on (Spec note 209): no read reaches them, and the live node lets
    /// them go, so a checkpoint kept them alone (the oldest one held most of a window of
    /// blocks, or a backlog's loading blocks after a jump).
    blocks: VecDeque<Arc<crate::chain::Block>>,
    pos: Option<Arc<Link>>,
    count: usize,
    /// The addresses of the chain's shared allocations, sorted: found the first time a past
    /// state replayed from it is given its bound (Spec note 222), then kept with it.
    pages: std::sync::OnceLock<Box<[usize]>>,
}

impl Checkpoint {
    /// A checkpoint of `chain` (its stored blocks kept beside it), with the session log at
    /// `pos` after `count` entries.
    fn of(chain: &Chain, pos: Option<Arc<Link>>, count: usize) -> Self {
        let mut chain = chain.clone();
        let blocks = chain.take_stored_blocks();
        Checkpoint {
            height: chain.height(),
            chain: Arc::new(chain),
            blocks,
            pos,
            count,
            pages: Default::default(),
        }
    }

    /// A checkpoint at a session's start (the log before its first entry) sharing `chain`
    /// with whoever else holds it, or of a copy of it when it holds stored blocks (which a
    /// checkpoint keeps beside its chain).
    fn shared(chain: Arc<Chain>) -> Self {
        if chain.blocks().next().is_some() {
            return Checkpoint::of(&chain, None, 0);
        }
        Checkpoint {
            height: chain.height(),
            chain,
            blocks: VecDeque::new(),
            pos: None,
            count: 0,
            pages: Default::default(),
        }
    }

    /// The chain to replay from: the checkpoint's, its blocks given back, with `archive` (the
    /// live chain's dropped headers) when it covers more and ends by `upto` (Spec note 209).
    fn chain_for(&self, archive: &crate::chain::HeaderArchive, upto: u64) -> Chain {
        let mut chain = Chain::clone(&self.chain);
        chain.restore_stored_blocks(self.blocks.clone(), archive, upto);
        chain
    }

    /// Whether it holds a stored block below `height`.
    fn holds_below(&self, height: u64) -> bool {
        self.blocks
            .front()
            .is_some_and(|b| b.header.height < height)
    }

    pub(super) fn height(&self) -> u64 {
        self.height
    }

    /// The session log's entries up to it: a replay from it to a later one walks the
    /// difference (Spec note 226). Kept consistent across a trim (note 149).
    pub(super) fn count(&self) -> usize {
        self.count
    }

    pub(super) fn chain(&self) -> &Chain {
        &self.chain
    }

    /// The sorted addresses of the chain's shared allocations (found once).
    fn pages(&self) -> &[usize] {
        self.pages
            .get_or_init(|| super::checkpoint_budget::shared_pages(&self.chain))
    }
}

impl NodeCore {
    /// The checkpoints' chains, shared (a fit of the kept past states runs off the node's
    /// thread with them, `past_cache.rs`).
    pub(super) fn checkpoint_chains(&self) -> Vec<Arc<Chain>> {
        self.checkpoints.iter().map(|c| c.chain.clone()).collect()
    }
}

impl std::fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoint")
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

/// The checkpoints of a node starting at `chain` (none for a headless node, which keeps no
/// history).
pub(super) fn start(chain: &Chain, keep_history: bool) -> VecDeque<Arc<Checkpoint>> {
    let mut v = VecDeque::new();
    if keep_history {
        v.push_back(Arc::new(Checkpoint::of(chain, None, 0)));
    }
    v
}

/// The checkpoints of a node starting at `chain`, a copy shared with whoever else holds it (a
/// loaded session's log; a copy of its own if it holds stored blocks, which a checkpoint keeps
/// beside its chain): `None` for a headless node.
pub(super) fn start_shared(chain: Option<Arc<Chain>>) -> VecDeque<Arc<Checkpoint>> {
    let mut v = VecDeque::new();
    if let Some(chain) = chain {
        v.push_back(Arc::new(Checkpoint::shared(chain)));
    }
    v
}

impl NodeCore {
    /// The session log (issue 24): everything applied to the chain since its base.
    pub fn session(&self) -> &SessionLog {
        &self.session
    }

    /// The genesis the node started from (with its dev accounts).
    pub fn genesis(&self) -> &Genesis {
        &self.genesis
    }

    /// Turns the session log's recording on or off (benchmarks compare both). Off, the log
    /// and past-height queries stop following the chain.
    pub fn set_recording(&mut self, on: bool) {
        self.recording = on;
        self.drop_past_states();
    }

    /// Names the file a loaded state came from (`--load-state FILE`): the session's base.
    pub fn set_session_file(&mut self, file: String) {
        self.session = std::mem::take(&mut self.session).with_file(file);
        self.drop_past_states();
    }

    /// Records a change applied to the chain by a request.
    pub(crate) fn record(&mut self, e: Entry) {
        if self.recording {
            self.session.push(e);
        }
    }

    /// Records the seals up to the head, and keeps a checkpoint as [`Pace`] says (those older
    /// than the retained history are dropped, but for the one below the oldest retained
    /// height, which its state and its traces replay from: Spec note 221).
    pub(super) fn sealed(&mut self) {
        self.prune_history();
        if !self.recording {
            return;
        }
        let to = self.chain.height();
        self.session.push(Entry::Sealed { to });
        if !self.keep_history {
            return;
        }
        // A block with a body is stored by the chain; a quiet height (or a jump) is not.
        let work = self
            .chain
            .blocks()
            .next_back()
            .filter(|b| b.header.height == to)
            .map_or(0, |b| (b.receipts.len() + b.events.len()) as u64);
        if self.pace.sealed(work) {
            self.place_checkpoint();
        } else if self.pace.migrations_due(
            self.chain.migrated_total(),
            self.chain.engine().queue().len() as u64,
        ) {
            self.check_newest();
        }
        self.settle_checkpoints();
    }

    /// A checkpoint at the head, then the checkpoints fitted to their budget.
    fn place_checkpoint(&mut self) {
        let (pos, count) = self.session.position();
        let cp = Checkpoint::of(&self.chain, pos, count);
        self.pace
            .placed(self.chain.clone_bytes(), self.chain.migrated_total());
        self.checkpoints.push_back(Arc::new(cp));
        self.fit_checkpoints();
    }

    /// After a request that jumped `heights` quiet heights in all (Spec note 225): when they
    /// are at least [`CHECKPOINT_EVERY`], the newest checkpoint's check ([`Self::check_newest`]):
    /// one over the budget (the writes after it, a busy stretch's end or the jump's tier
    /// migrations, rewrote what it shared with the live chain) is replaced by one at the head;
    /// a node idle after the jump would otherwise keep it. Asked once a request: the walk
    /// costs one request, not one a height or a jump step.
    pub(super) fn after_jump(&mut self, heights: u64) {
        if heights < CHECKPOINT_EVERY || !self.recording || !self.keep_history {
            return;
        }
        self.check_newest();
        self.settle_checkpoints();
    }

    /// After the timers migrated between the queue's tiers since the last placement or check
    /// reached [`Pace::migrations_due`]'s share (Spec note 227; note 225 checks after a
    /// request that jumped 256 quiet heights): when the newest checkpoint, below the head,
    /// alone holds more than the whole budget (the migrations rewrote what it shared with the
    /// live chain), one is placed at the head and the fit lets the old one go, as a busy
    /// block's placement would have. A node that seals one height at a time (interval mining
    /// with nothing else happening) across a far backlog's migrations would otherwise keep it
    /// until its next placement. The walk follows the migrations, not the heights passed: a
    /// node with nothing to migrate never checks.
    fn check_newest(&mut self) {
        self.pace.migrated_at = self.chain.migrated_total();
        let head = self.chain.height();
        let over = self.checkpoints.back().is_some_and(|c| c.height < head)
            && (self.checkpoint_bytes().held.last()).is_some_and(|b| *b > self.checkpoint_budget);
        if over {
            self.place_checkpoint();
        }
    }

    /// What follows a seal or a placement: the checkpoints below the history, their blocks,
    /// the kept past states and the session log let go.
    fn settle_checkpoints(&mut self) {
        // The oldest checkpoint stays strictly below the first kept height: that height's
        // traces replay from a checkpoint below it (Spec note 221).
        let first_kept = self.first_kept();
        while self.checkpoints.len() > 1 && self.checkpoints[1].height < first_kept {
            self.checkpoints.pop_front();
        }
        self.trim_checkpoint_blocks(first_kept);
        self.prune_past_states();
        self.trim_session();
    }

    /// Lets go of the heights the history no longer keeps: its blocks, and (Spec note 209) the
    /// chain's, which no read reaches once the history let them go. After every seal or jump.
    fn prune_history(&mut self) {
        let first_kept = self.first_kept();
        self.pruned_to = first_kept;
        while self
            .history
            .front()
            .is_some_and(|f| f.header.height < first_kept)
        {
            self.history.pop_front();
        }
        if self.keep_history {
            self.chain.drop_blocks_below(first_kept);
        }
    }

    /// Drops the checkpoints' stored blocks below `first_kept` (Spec note 209): a block leaves
    /// each checkpoint once (a look at each checkpoint's oldest block per seal besides).
    fn trim_checkpoint_blocks(&mut self, first_kept: u64) {
        for cp in self.checkpoints.iter_mut() {
            if !cp.holds_below(first_kept) {
                continue;
            }
            let cp = Arc::make_mut(cp);
            while cp.holds_below(first_kept) {
                cp.blocks.pop_front();
            }
        }
    }

    /// Trims the session log with the history (issue 31 item 2, Spec note 149): the entries
    /// before the oldest checkpoint (which every past read and export replays from) leave
    /// the log. Done once they are at least [`TRIM_AT_LEAST`] and as many as the entries
    /// kept, so the copy it makes costs O(1) a recorded entry, amortized, and the log holds at
    /// most about twice what the window needs.
    fn trim_session(&mut self) {
        let Some(front) = self.checkpoints.front() else {
            return;
        };
        let before = front.count;
        let after = self.session.len().saturating_sub(before);
        if before < TRIM_AT_LEAST || before < after {
            return;
        }
        let (log, kept) = self.session.trimmed(before, front.height);
        let links = log.links_after(None);
        let moved: VecDeque<Arc<Checkpoint>> = self
            .checkpoints
            .iter()
            .map(|c| {
                let count = c.count - before + kept;
                Arc::new(Checkpoint {
                    pos: count.checked_sub(1).map(|i| links[i].clone()),
                    count,
                    ..Checkpoint::clone(c)
                })
            })
            .collect();
        self.session = log;
        self.checkpoints = moved;
        // Kept past states hold the old log's links: let them go with it.
        self.drop_past_states();
    }

    /// The oldest height a past-height query answers: the retained history's (Spec note 73),
    /// and not before the session's base.
    pub fn first_queryable(&self) -> u64 {
        let cp = self.checkpoints.front().map_or(u64::MAX, |c| c.height);
        self.first_kept().max(cp)
    }

    /// The oldest height a state read answers, as the head view says it (Spec note 225):
    /// [`first_queryable`](Self::first_queryable), or the history's first for a node that
    /// keeps no checkpoint (a headless one, whose past reads all answer `HistoryPruned`).
    pub fn first_state(&self) -> u64 {
        if self.checkpoints.is_empty() {
            return self.first_kept();
        }
        self.first_queryable()
    }

    /// Whether `height` is a sealed height of the retained history a past read answers.
    pub(super) fn check_past(&self, height: u64) -> Result<(), NodeError> {
        let head = self.height();
        if height > head {
            return Err(NodeError::InvalidInput(format!(
                "height {height} is past the head #{head}"
            )));
        }
        let first = self.first_queryable();
        // The oldest block this node's history holds: not one before the session's base (a
        // loaded state's), whose state this node never had.
        let blocks_from = self.first_kept().max(self.session.base_height());
        // Its block kept, its checkpoint gone (Spec note 225).
        let kept = self.recording && !self.checkpoints.is_empty() && height >= blocks_from;
        if kept && height < first {
            return Err(self.state_not_kept(height, first));
        }
        if height < first || !self.recording {
            // Where the blocks start when the block is gone (a read from there on may still
            // answer `StateNotKept`, Spec note 225), else the first state's.
            let from = match height < blocks_from {
                true => blocks_from,
                false => first,
            };
            return Err(NodeError::HistoryPruned {
                first_kept: from.min(head),
                keep: self.history_len,
            });
        }
        Ok(())
    }

    /// Spec note 225: the state at `height` (its block kept) cannot be rebuilt: no checkpoint
    /// at or below it is kept; `first` is the oldest height a state read answers.
    fn state_not_kept(&self, height: u64, first: u64) -> NodeError {
        NodeError::StateNotKept {
            height,
            first,
            budget_mib: self.checkpoint_budget >> 20,
        }
    }

    /// The chain as of sealed block `height`, and the session log as it stood then.
    fn replay_to(&self, height: u64) -> Result<(Chain, SessionLog), NodeError> {
        self.check_past(height)?;
        self.replay_from(height).run()
    }

    /// The chain as of the head (its open block left out) and the session log as it stood
    /// then: what `devnet_dropTransaction` rebuilds the open block on (`drop.rs`). The genesis
    /// head too, which past reads do not answer (Spec note 73), from the first checkpoint.
    pub(super) fn replay_head(&self) -> Result<(Chain, SessionLog), NodeError> {
        let head = self.height();
        if !self.recording || self.checkpoints.front().is_none_or(|c| c.height > head) {
            return Err(NodeError::HistoryPruned {
                first_kept: self.first_queryable().min(head),
                keep: self.history_len,
            });
        }
        self.replay_from(head).run()
    }

    /// What replaying to `height` starts from (its bounds checked by the caller): the
    /// checkpoint at or before it and the session log's links after the checkpoint, shared.
    fn replay_from(&self, height: u64) -> Replay {
        let i = self.checkpoints.partition_point(|c| c.height <= height);
        self.replay_from_checkpoint(i - 1, height)
    }

    /// A replay to `height` from the checkpoint at index `i` (at or below it).
    fn replay_from_checkpoint(&self, i: usize, height: u64) -> Replay {
        let cp = self.checkpoints[i].clone();
        // The nearest checkpoint above whose log position a replay to `height` stops at
        // (Spec note 220): the walk of the log starts there, not at its tail.
        let upto = self
            .checkpoints
            .iter()
            .skip(i + 1)
            .filter_map(|c| c.pos.as_ref())
            .find(|p| p.stops_replay_to(height))
            .cloned();
        Replay {
            height,
            log: self.session.clone(),
            archive: self.chain.header_archive().clone(),
            cp,
            upto,
            nearer: None,
            known: None,
        }
    }

    /// How many links of the session log a replay to sealed block `height` walks (Spec note
    /// 220): those between the checkpoint it starts from and the nearest checkpoint above
    /// that it stops before (the log's tail when none), not those up to the head.
    pub fn past_read_walk(&self, height: u64) -> Result<usize, NodeError> {
        self.check_past(height)?;
        let mut r = self.replay_from(height);
        Ok(r.start().3.len())
    }

    /// The chain as of sealed block `height` (within the retained history), a checkpoint's
    /// replayed (Spec note 110): at the head too, without what was applied after its block (a
    /// balance set, an outage asked for).
    pub fn chain_at(&self, height: u64) -> Result<Chain, NodeError> {
        self.replay_to(height).map(|(chain, _)| chain)
    }

    /// The node as of sealed block `height` (within the retained history) for a read, to build:
    /// its chain replayed from a checkpoint, its history up to that height. Taken on the node's thread: shared
    /// pointers (the checkpoint, the log's links, the history's blocks) and the node's small
    /// settings. [`PastSeed::build`] does the replay, on any thread (issue 31 item 7: past
    /// reads off the node's thread).
    pub(crate) fn past_seed(&self, height: u64) -> Result<PastSeed, NodeError> {
        self.check_past(height)?;
        let history = self.history_below(height + 1);
        Ok(PastSeed {
            replay: self.replay_from(height),
            history,
            genesis: self.genesis.clone(),
            runtime: self.runtime.clone(),
            keep_blocks: self.keep_blocks,
            mining: self.mining,
            keep_history: self.keep_history,
            history_len: self.history_len,
            pruned_to: self.pruned_to,
            max_snapshots: self.max_snapshots,
            checkpoint_budget: self.checkpoint_budget,
            dev: self.dev.clone(),
            names: self.names.clone(),
            initial_names: self.initial_names.clone(),
        })
    }

    /// The live history's blocks below height `end`, oldest first (shared pointers).
    fn history_below(&self, end: u64) -> VecDeque<Arc<crate::chain::Block>> {
        self.history
            .iter()
            .take_while(|b| b.header.height < end)
            .cloned()
            .collect()
    }

    /// `devnet_revertTo`: back to sealed block `height` of the retained history, without a
    /// snapshot taken before; the span after it leaves the chain, the history and the
    /// session log. Snapshots are kept. A block hook (a fixture being played) stays as it is.
    pub(crate) fn revert_to(&mut self, height: u64) -> Result<(), NodeError> {
        let (chain, session) = self.replay_to(height)?;
        self.drop_past_states();
        self.chain = chain;
        self.set_live_chain_notes();
        self.session = session;
        self.history.retain(|b| b.header.height <= height);
        self.checkpoints.retain(|c| c.height <= height);
        self.fates = std::mem::take(&mut self.fates).back_to(height);
        self.pending_txs = 0;
        self.quiet = 0;
        self.events
            .push_back(super::NodeEvent::StateLoaded { height });
        Ok(())
    }

    /// Issue 32 (Spec note 163): what rebuilds the traces of sealed block `height` by
    /// replaying it from the nearest checkpoint with tracing on ([`TraceReplay::run`]); the
    /// replayed block must be `hash`. Taking it is cheap (shared pointers): the replay itself
    /// runs on any thread (issue 31 item 7, a past read off the node's thread).
    pub(crate) fn trace_replay(
        &self,
        height: u64,
        hash: &crate::engine::H256,
    ) -> Result<TraceReplay, NodeError> {
        self.check_past(height)?;
        // The last checkpoint before the block: one at its height already ran it.
        let i = self.checkpoints.partition_point(|c| c.height < height);
        // None below the block (it is the oldest checkpoint's): the next block's traces are
        // the oldest that replay.
        let Some(i) = i.checked_sub(1) else {
            return Err(self.state_not_kept(height, height + 1));
        };
        // From a kept past state below the block when one is nearer (Spec note 198); the
        // blocks before it sealed with the history's headers (Spec note 228), the block
        // itself committed, so its hash checks the whole replay.
        let replay = self
            .replay_from_checkpoint(i, height)
            .nearer(self.past.nearest_below(height))
            .knowing(self.history_below(height));
        Ok(TraceReplay {
            hash: *hash,
            replay,
        })
    }
}

/// A block's traces to rebuild by replay ([`NodeCore::trace_replay`]).
pub(crate) struct TraceReplay {
    hash: crate::engine::H256,
    /// The replay to the block (its height), from a checkpoint before it or a nearer kept
    /// past state.
    replay: Replay,
}

impl TraceReplay {
    /// Replays the checkpoint's chain (or a nearer kept past state's) up to the block, traced
    /// for the block alone.
    pub(crate) fn run(self) -> Result<Vec<crate::chain::trace::Trace>, NodeError> {
        let TraceReplay { hash, mut replay } = self;
        let height = replay.height;
        let (mut chain, _, _, links) = replay.start();
        // Untraced up to the block before, traced for the block alone: the blocks between the
        // checkpoint and it keep no traces only to be dropped (issue 32 item 1).
        chain.replay_known(replay.known.take());
        let before = session::replay(&mut chain, &links, height - 1)
            .map_err(NodeError::InvalidInput)?
            .applied;
        chain.replay_known(None);
        chain.set_tracing(true);
        session::replay(&mut chain, &links[before..], height).map_err(NodeError::InvalidInput)?;
        let replayed = chain.block(height).map(|b| b.header.hash);
        if replayed.as_ref() != Some(&hash) {
            return Err(NodeError::InvalidInput(format!(
                "the replay of block #{height} diverged (block {} against {hash}): its traces cannot be rebuilt",
                replayed.map_or("missing".to_string(), |h| h.to_string())
            )));
        }
        let mut t = chain.take_traces();
        t.retain(|t| t.height == height);
        Ok(t)
    }
}

/// A replay from a checkpoint to a height: shared pointers only, so it is cheap to take on the
/// node's thread and can run on another.
struct Replay {
    height: u64,
    cp: Arc<Checkpoint>,
    /// The live log as the replay was taken (persistent: the links after the checkpoint are
    /// walked where the replay runs, not on the node's thread), cut at the height replayed to.
    log: SessionLog,
    /// The link of `log` the walk back starts from (`None`: its tail): a later checkpoint's
    /// position that the replay stops at or before (Spec note 220), so the walk costs the
    /// links up to the height's next checkpoint, not all those up to the head.
    upto: Option<Arc<Link>>,
    /// The live chain's archive of dropped headers, shared: given to the chain replayed from
    /// the checkpoint, whose blocks below the history were let go (Spec note 209).
    archive: crate::chain::HeaderArchive,
    /// A kept past state between the checkpoint and the height (Spec note 198): replayed
    /// from instead of the checkpoint when it is built by the time the replay runs.
    nearer: Option<Slot>,
    /// The live history's blocks, whose headers the replay takes instead of committing the
    /// state root at each of their seals (Spec note 228); `None`: every seal commits.
    known: Option<Arc<VecDeque<Arc<crate::chain::Block>>>>,
}

/// Where a replay starts: a chain, the log's position and count as of it, the links after.
type Start = (Chain, Option<Arc<Link>>, usize, Vec<Arc<Link>>);

impl Replay {
    /// Replays from `kept`, a kept past state at its height, when it lies between the
    /// checkpoint and the height replayed to (Spec note 198: fewer blocks to replay).
    fn nearer(mut self, kept: Option<(u64, Slot)>) -> Self {
        self.nearer = kept
            .filter(|(h, _)| *h > self.cp.height && *h < self.height)
            .map(|(_, s)| s);
        self
    }

    /// Seals the blocks of `history` (the live chain's, oldest first) with their headers
    /// instead of committing the state root (Spec note 228).
    fn knowing(mut self, history: VecDeque<Arc<crate::chain::Block>>) -> Self {
        self.known = Some(Arc::new(history));
        self
    }

    /// Where the replay starts: the nearer kept state when it is built by now, else the
    /// checkpoint (the log's links after it walked here).
    fn start(&mut self) -> Start {
        let cp = &self.cp;
        let upto = self.upto.as_ref();
        self.nearer
            .as_ref()
            .and_then(|s| kept_start(s, &self.log, upto))
            .unwrap_or_else(|| {
                let chain = cp.chain_for(&self.archive, self.height);
                let links = self.log.links_between(cp.pos.as_ref(), upto);
                (chain, cp.pos.clone(), cp.count, links)
            })
    }

    /// The chain as of the height, and the session log as it stood then.
    fn run(self) -> Result<(Chain, SessionLog), NodeError> {
        self.run_with(&mut |_| {})
    }

    /// [`run`](Self::run), calling `after_seal` on the chain after each seal replayed.
    fn run_with(
        mut self,
        after_seal: &mut dyn FnMut(&mut Chain),
    ) -> Result<(Chain, SessionLog), NodeError> {
        let (mut chain, pos0, count0, links) = self.start();
        // A replayed state keeps no departure notes (Spec note 224): only the live chain's
        // are read, and a kept state would hold its last block's.
        chain.note_departures(false);
        chain.replay_known(self.known.take());
        let (height, log) = (self.height, self.log);
        let done = session::replay_with(&mut chain, &links, height, after_seal);
        chain.replay_known(None);
        let done = done.map_err(NodeError::InvalidInput)?;
        let pos = match done.applied {
            0 => pos0,
            n => Some(links[n - 1].clone()),
        };
        Ok((chain, log.cut(pos, count0 + done.applied, done.partial)))
    }
}

/// A replay's start at a kept past state (Spec note 198): its chain and where its log stood,
/// when it is built (waiting while another reader builds it: a lower height, so no reader
/// waits on one that waits on it) and its log's position is in `log`.
fn kept_start(slot: &Slot, log: &SessionLog, upto: Option<&Arc<Link>>) -> Option<Start> {
    let guard = slot.lock().unwrap_or_else(|e| e.into_inner());
    let node = guard.as_ref()?;
    let (pos, count) = node.session().position();
    let links = log.links_between_found(pos.as_ref(), upto)?;
    Some((node.chain().clone(), pos, count, links))
}

/// A past node to build ([`NodeCore::past_seed`]): the replay and what the node takes from
/// the live one. Sent to a past-read thread by the shell.
pub(crate) struct PastSeed {
    replay: Replay,
    history: VecDeque<Arc<crate::chain::Block>>,
    genesis: Genesis,
    runtime: Arc<dyn crate::chain::runtime::ActorRuntime>,
    keep_blocks: Option<usize>,
    mining: crate::node::MiningMode,
    keep_history: bool,
    history_len: usize,
    pruned_to: u64,
    max_snapshots: usize,
    checkpoint_budget: usize,
    dev: Vec<crate::engine::Address>,
    names: Arc<std::collections::BTreeMap<crate::engine::Address, String>>,
    initial_names: std::collections::BTreeMap<crate::engine::Address, String>,
}

impl PastSeed {
    /// Replays from `kept`, a kept past state at `height`, when it lies between the
    /// checkpoint and the seed's height (Spec note 198: fewer blocks to replay).
    pub(crate) fn nearer(mut self, kept: Option<(u64, Slot)>) -> Self {
        self.replay = self.replay.nearer(kept);
        self
    }

    /// The node as of the seed's height: the checkpoint's chain replayed (the expensive part).
    pub(crate) fn build(self) -> Result<NodeCore, NodeError> {
        let cp = self.replay.cp.clone();
        // The blocks it seals again are the live history's (Spec note 223): as each seal is
        // replayed, those below the window go, as the live chain's went, and the rest are
        // swapped for the history's own (so the replay does not hold them all at its end).
        let (history, pruned_to) = (&self.history, self.pruned_to);
        let mut shared = 0;
        // Its seals take the history's headers instead of committing the state root (Spec
        // note 228): a past read's state is read, not sealed on.
        let (chain, session) = self.replay.knowing(history.clone()).run_with(&mut |c| {
            c.drop_blocks_below(pruned_to);
            shared = c.share_stored_blocks(shared, history);
        })?;
        // What the kept state holds beyond its checkpoint, found once (Spec note 222).
        let bound = super::past_cache::PastBound::of(&cp.chain, cp.pages(), &chain);
        drop(cp);
        Ok(NodeCore {
            chain,
            genesis: self.genesis,
            runtime: self.runtime,
            keep_blocks: self.keep_blocks,
            mining: self.mining,
            next_seal_at: None,
            pending_txs: 0,
            keep_history: self.keep_history,
            history: self.history,
            history_len: self.history_len,
            pruned_to: self.pruned_to,
            pace: Pace::default(),
            fates: Default::default(),
            // A past read knows no labels (Spec note 186).
            labels: Default::default(),
            snapshots: Default::default(),
            next_snapshot: 1,
            max_snapshots: self.max_snapshots,
            checkpoint_budget: self.checkpoint_budget,
            events: VecDeque::new(),
            quiet: 0,
            dev: self.dev,
            names: self.names,
            initial_names: self.initial_names,
            hook: None,
            initial_hook: None,
            start: None,
            session,
            recording: false,
            checkpoints: VecDeque::new(),
            past: super::past_cache::PastCache::of_kept(bound),
            traces: Default::default(),
        })
    }
}
