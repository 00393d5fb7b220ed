//! The node's core: one owner of the [`Chain`], synchronous and without a clock (like the
//! engine). Mining modes are its state; the shell tells it when time has passed
//! ([`NodeCore::next_deadline`], [`NodeCore::tick`]) and drains what happened
//! ([`NodeCore::poll_event`]).

use super::error::NodeError;
use super::read;
use super::session::{Entry, SessionLog};
use super::views::{
    AccountView, BlockSummary, BlockView, EventView, SnapshotInfo, SupplyView, TiersView,
};
use crate::chain::runtime::ActorRuntime;
use crate::chain::{
    Block, Chain, ChainDump, Genesis, GenesisAccount, Receipt, Sealed, Transaction,
};
use crate::engine::{Address, QueueConfig, TimerConfig};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::ops::ControlFlow;
use std::sync::Arc;

/// When blocks are sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum MiningMode {
    /// Every accepted transaction seals its block (as anvil's automine).
    Auto,
    /// A block every `block_time_ms` milliseconds of the shell's clock, transactions or not.
    Interval { block_time_ms: u64 },
    /// Only `Mine` seals.
    Manual,
}

/// How a node starts.
#[derive(Clone)]
pub struct NodeConfig {
    pub genesis: Genesis,
    pub runtime: Arc<dyn ActorRuntime>,
    pub mining: MiningMode,
    /// Snapshots kept at most; taking one more drops the oldest (with an event).
    pub max_snapshots: usize,
    /// Dev accounts `dev0`, `dev1`, ... ([`dev_account`]) funded at genesis; `dev0` is a
    /// system deployer, the others are not.
    pub dev_accounts: usize,
    pub dev_balance: u128,
    /// Keep every sealed block where something happened, for `block`, `events` and the
    /// history of timers that left. A headless run, which keeps its own, turns it off.
    pub keep_history: bool,
    /// Sealed blocks the chain itself keeps (`None`: the chain's default).
    pub keep_blocks: Option<usize>,
    /// Heights of history kept (`serve --history`, Spec note 73): blocks older than the last
    /// `history` heights leave the node's history; queries for them answer `HistoryPruned`.
    pub history: usize,
    /// Names of addresses (a fixture's accounts and actors), shown by `accounts`.
    pub names: BTreeMap<Address, String>,
    /// What the history's checkpoints may hold alone, in bytes (Spec note 194).
    pub checkpoint_budget: usize,
    /// What the past states kept for reads may hold alone, in bytes (Spec note 198).
    pub past_budget: usize,
}

/// Heights of history a live node keeps by default (`serve --history`, Spec note 73).
pub const DEFAULT_HISTORY: usize = 10_000;

/// The room the node's event queue keeps once drained (see [`NodeCore::poll_event`]).
const EVENT_ROOM_KEPT: usize = 1024;

/// Snapshots a node keeps by default.
pub const DEFAULT_MAX_SNAPSHOTS: usize = 64;
/// Dev accounts a node funds by default.
pub const DEFAULT_DEV_ACCOUNTS: usize = 10;
/// A dev account's balance by default: 10^24 base units.
pub const DEFAULT_DEV_BALANCE: u128 = 1_000_000_000_000_000_000_000_000;
/// Upper bound on blocks one `Mine` request may seal (a guard against runaway requests).
pub const MAX_MINE_PER_COMMAND: u64 = 1_000_000;

/// The `i`-th dev account: `Address::from_label("dev{i}")`, the same on every run.
pub fn dev_account(i: usize) -> Address {
    Address::from_label(&format!("dev{i}"))
}

impl NodeConfig {
    /// A live devnet's defaults: automine, [`DEFAULT_DEV_ACCOUNTS`] dev accounts with
    /// [`DEFAULT_DEV_BALANCE`], history kept, [`DEFAULT_MAX_SNAPSHOTS`] snapshots.
    pub fn new(genesis: Genesis, runtime: Arc<dyn ActorRuntime>) -> Self {
        NodeConfig {
            genesis,
            runtime,
            mining: MiningMode::Auto,
            max_snapshots: DEFAULT_MAX_SNAPSHOTS,
            dev_accounts: DEFAULT_DEV_ACCOUNTS,
            dev_balance: DEFAULT_DEV_BALANCE,
            keep_history: true,
            keep_blocks: Some(DEFAULT_HISTORY),
            history: DEFAULT_HISTORY,
            names: BTreeMap::new(),
            checkpoint_budget: DEFAULT_CHECKPOINT_BUDGET,
            past_budget: DEFAULT_PAST_BUDGET,
        }
    }

    /// A headless run's settings: the genesis as given (no dev accounts), manual mining, no
    /// history beyond the chain's last `keep_blocks` blocks.
    pub fn headless(genesis: Genesis, runtime: Arc<dyn ActorRuntime>, keep_blocks: usize) -> Self {
        NodeConfig {
            mining: MiningMode::Manual,
            dev_accounts: 0,
            dev_balance: 0,
            keep_history: false,
            keep_blocks: Some(keep_blocks),
            ..NodeConfig::new(genesis, runtime)
        }
    }
}

/// What happened in the node, in order, as data: the shell drains it into notifications.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum NodeEvent {
    /// A block was sealed. Reported for every block with a transaction or an event and for
    /// the last block of each request; empty blocks in between are counted in `quiet_before`.
    BlockSealed(BlockSummary),
    /// An event of a sealed block (after its `BlockSealed`).
    Chain(EventView),
    MiningChanged(MiningMode),
    SnapshotTaken {
        id: u64,
        height: u64,
    },
    SnapshotReverted {
        id: u64,
        height: u64,
    },
    SnapshotDeleted {
        id: u64,
    },
    /// The oldest snapshot was dropped to keep at most `max_snapshots`.
    SnapshotDropped {
        id: u64,
    },
    /// An outage: the next block comes `blocks` heights later.
    Halted {
        blocks: u64,
        resume_height: u64,
    },
    /// The chain went back to its genesis.
    Reset,
    StateLoaded {
        height: u64,
    },
    BalanceSet {
        address: Address,
        balance: String,
    },
    /// A fixture being played (a [`BlockHook`]) applied one of its steps, or finished
    /// (issue 23: the dashboard's story line). `ok` is false when the step did not do what
    /// the fixture says (it failed, or did not fail as `expect_error` said).
    FixtureStep {
        height: u64,
        /// The step's line in the fixture (0: the fixture's end).
        line: usize,
        text: String,
        ok: bool,
        /// The label a `schedule` step gave the timer it scheduled.
        label: Option<(String, crate::engine::TimerId)>,
    },
    /// A fixture being played (a [`BlockHook`]) checked one of its expectations.
    Expectation {
        /// The expectation's line in the fixture.
        line: usize,
        description: String,
        passed: bool,
        detail: String,
    },
}

/// Something played along as blocks are sealed: a fixture in a live node (`serve --fixture`)
/// applies its steps at their heights and checks its expectations after their blocks.
///
/// A hook that gives a [`snapshot`](Self::snapshot) of itself is part of the node's
/// snapshots: `Revert` puts back the hook as it was when the snapshot was taken, and `Reset`
/// the hook as it was set ([`NodeCore::set_hook`]). `LoadState` moves the chain, not the hook.
pub trait BlockHook: Send {
    /// Before the block at `height` is sealed. Transactions sent here (`node.apply(SendTx)`)
    /// go into that block: while a hook runs, nothing seals.
    fn before_seal(&mut self, height: u64, node: &mut NodeCore);
    /// After `block` was sealed (an outage asked for now starts after it).
    fn after_seal(&mut self, block: &Block, node: &mut NodeCore);
    /// The first height from `from` on whose block the hook must see (a step to play, an
    /// expectation to check); quiet heights before it are jumped without calling the hook
    /// (see [`NodeCore::mine_with`]). The default, `from`: the hook sees every height.
    fn next_height(&self, from: u64) -> u64 {
        from
    }
    /// A copy of the hook as it stands, kept with a node snapshot. `None` (the default): the
    /// hook is not part of snapshots, a revert leaves it as it is.
    fn snapshot(&self) -> Option<Box<dyn BlockHook>> {
        None
    }

    /// The hook's state for a state dump (`DumpState`): `None` (the default) keeps it out of
    /// dumps, and a load leaves the hook as it is.
    fn dump_state(&self) -> Option<serde_json::Value> {
        None
    }

    /// Takes back what [`dump_state`](Self::dump_state) gave (`LoadState`); an error refuses
    /// the whole load (the message says why).
    fn load_state(&mut self, _state: serde_json::Value) -> Result<(), String> {
        Ok(())
    }
}

/// A hook's state kept with a snapshot: each revert to it gets a fresh copy, so the snapshot
/// stays usable.
struct HookSnap(Box<dyn BlockHook>);

impl HookSnap {
    fn of(hook: &dyn BlockHook) -> Option<HookSnap> {
        hook.snapshot().map(HookSnap)
    }

    fn restore(&self) -> Box<dyn BlockHook> {
        self.0
            .snapshot()
            .expect("a hook that gave a snapshot gives another")
    }
}

impl Clone for HookSnap {
    fn clone(&self) -> Self {
        HookSnap(self.restore())
    }
}

/// What [`NodeCore::mine_with`] sealed, step by step, in height order.
#[derive(Clone, Copy, Debug)]
pub enum MineStep<'a> {
    /// A sealed block, handed out whole: one where something happened, or any block sealed
    /// while a [`BlockHook`] plays along.
    Block(&'a Arc<Block>),
    /// The quiet heights `first..=last` (empty blocks: see `chain::Sealed::Quiet`), sealed
    /// without being materialized, most often in one jump ([`Chain::jump_quiet`]).
    /// [`Chain::block`] rebuilds any of them.
    Quiet { first: u64, last: u64 },
}

/// A change to the node with its typed reply. One struct per request (see `requests.rs`);
/// the shell runs them on the node's thread.
pub trait Request: Send + 'static {
    type Reply: Send + 'static;
    fn apply(self, node: &mut NodeCore) -> Result<Self::Reply, NodeError>;
}

/// A kept state: the chain (its sealed blocks shared, not copied) and the node's history.
#[derive(Clone)]
struct Snap {
    chain: Chain,
    history: VecDeque<Arc<Block>>,
    names: Arc<BTreeMap<Address, String>>,
    /// The block hook's state, if it has one to keep.
    hook: Option<HookSnap>,
    session: SessionLog,
    checkpoints: VecDeque<Arc<past::Checkpoint>>,
    pruned_to: u64,
    fates: fates::Fates,
}

mod checkpoint_budget;
mod drop;
mod fates;
mod frozen;
mod labels;
mod past;
mod past_cache;
mod reads;
mod retained;
mod snapshots;
pub use checkpoint_budget::{CheckpointBytes, DEFAULT_CHECKPOINT_BUDGET};
pub use frozen::{DumpCopy, Frozen};
pub use past_cache::{DEFAULT_PAST_BUDGET, DEFAULT_PAST_CACHE};
pub use retained::RetainedPart;

/// The live devnet, without threads or clocks.
pub struct NodeCore {
    chain: Chain,
    /// The genesis with the dev accounts, for `Reset`.
    genesis: Genesis,
    runtime: Arc<dyn ActorRuntime>,
    keep_blocks: Option<usize>,
    pub(super) mining: MiningMode,
    /// Interval mining: when the next block is due (`None`: the clock has not started).
    next_seal_at: Option<u64>,
    pub(super) pending_txs: u64,
    pub(super) keep_history: bool,
    /// Sealed blocks where something happened, oldest first (only if `keep_history`), of
    /// the last `history_len` heights (Spec note 73).
    history: VecDeque<Arc<Block>>,
    pub(super) history_len: usize,
    /// The lowest height whose block and events the history may still hold: heights below it
    /// were pruned (issue 31 item 4). It only grows while the chain goes on; a revert to a
    /// snapshot takes the snapshot's, a reset or a load starts it again.
    pub(super) pruned_to: u64,
    /// A compact record of every timer seen scheduled (issue 31 item 3, `fates.rs`).
    pub(super) fates: fates::Fates,
    /// The labels fixtures gave timers (issue 32, Spec note 186): not part of the state.
    pub(super) labels: labels::Labels,
    /// The work sealed since the last checkpoint, and where the next one goes (Spec notes
    /// 151, 218).
    pub(super) pace: past::Pace,
    snapshots: BTreeMap<u64, Snap>,
    next_snapshot: u64,
    max_snapshots: usize,
    /// Spec note 194: what the checkpoints may hold alone (`checkpoint_budget.rs`).
    checkpoint_budget: usize,
    events: VecDeque<NodeEvent>,
    /// Empty blocks sealed since the last `BlockSealed`.
    quiet: u64,
    dev: Vec<Address>,
    /// Shared, so a past read takes the names as they are now without copying them.
    names: Arc<BTreeMap<Address, String>>,
    initial_names: BTreeMap<Address, String>,
    hook: Option<Box<dyn BlockHook>>,
    /// The hook as it was set, for `Reset`.
    initial_hook: Option<HookSnap>,
    /// What `Reset` returns to when not the genesis: a fixture's base ([`Self::reset_to_loaded`]).
    start: Option<SessionLog>,
    /// Everything applied to the chain (issue 24, `session.rs`).
    session: SessionLog,
    recording: bool,
    /// States of the retained history placed by the work sealed ([`past::Pace`], `past.rs`).
    checkpoints: VecDeque<Arc<past::Checkpoint>>,
    /// The last past states read (`past_cache.rs`).
    past: past_cache::PastCache,
    /// Execution traces kept per block (issue 32, `traces.rs`).
    pub(super) traces: super::traces::TraceStore,
}

impl std::fmt::Debug for NodeCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeCore")
            .field("chain", &self.chain)
            .field("mining", &self.mining)
            .finish_non_exhaustive()
    }
}

fn check_mining(m: MiningMode) -> Result<(), NodeError> {
    match m {
        MiningMode::Interval { block_time_ms: 0 } => Err(NodeError::InvalidInput(
            "interval mining needs a block time above 0 ms".into(),
        )),
        _ => Ok(()),
    }
}

impl NodeCore {
    /// A node at the genesis of `cfg` (with its dev accounts funded).
    pub fn new(cfg: NodeConfig) -> Result<NodeCore, NodeError> {
        check_mining(cfg.mining)?;
        if cfg.max_snapshots == 0 {
            return Err(NodeError::InvalidInput(
                "max_snapshots must be at least 1".into(),
            ));
        }
        let mut genesis = cfg.genesis;
        let dev: Vec<Address> = (0..cfg.dev_accounts).map(dev_account).collect();
        let mut names = cfg.names;
        for (i, a) in dev.iter().enumerate() {
            if !genesis.accounts.iter().any(|g| g.address == *a) {
                genesis.accounts.push(GenesisAccount {
                    address: *a,
                    balance: cfg.dev_balance,
                });
            }
            names.entry(*a).or_insert_with(|| format!("dev{i}"));
        }
        // Spec note (CIP-5 §5.4): dev0 may send the governance instructions 48/49/50, the
        // other dev accounts may not (a devnet shows both sides of the permission).
        if let Some(d0) = dev.first()
            && !genesis.system_deployers.contains(d0)
        {
            genesis.system_deployers.push(*d0);
        }
        let mut chain = new_chain(&genesis, &cfg.runtime, cfg.keep_blocks)?;
        chain.set_archive_headers(cfg.keep_history);
        chain.note_departures(cfg.keep_history);
        let checkpoints = past::start(&chain, cfg.keep_history);
        Ok(NodeCore {
            chain,
            genesis,
            runtime: cfg.runtime,
            keep_blocks: cfg.keep_blocks,
            mining: cfg.mining,
            next_seal_at: None,
            pending_txs: 0,
            keep_history: cfg.keep_history,
            history: VecDeque::new(),
            history_len: cfg.history.max(1),
            pruned_to: 0,
            fates: Default::default(),
            labels: Default::default(),
            pace: past::Pace::default(),
            snapshots: BTreeMap::new(),
            next_snapshot: 1,
            max_snapshots: cfg.max_snapshots,
            checkpoint_budget: cfg.checkpoint_budget,
            events: VecDeque::new(),
            quiet: 0,
            dev,
            initial_names: names.clone(),
            names: Arc::new(names),
            hook: None,
            initial_hook: None,
            start: None,
            session: SessionLog::default(),
            recording: true,
            checkpoints,
            past: past_cache::PastCache::new(DEFAULT_PAST_CACHE, cfg.past_budget),
            traces: Default::default(),
        })
    }

    /// Plays `hook` along from the next block on (replacing any hook set before).
    /// Makes `Reset` return to the state loaded last (a fixture's `base`, issue 24: its steps
    /// play from it), not to the genesis.
    pub fn reset_to_loaded(&mut self) {
        self.start = self
            .session
            .base_chain()
            .is_some()
            .then(|| self.session.clone());
    }

    pub fn set_hook(&mut self, hook: Box<dyn BlockHook>) {
        self.initial_hook = HookSnap::of(&*hook);
        self.hook = Some(hook);
    }

    /// Adds a notification (a [`BlockHook`] reports what it found this way).
    pub fn notify(&mut self, e: NodeEvent) {
        // A step's timer label is kept for the export (issue 34 item 12).
        if let NodeEvent::FixtureStep {
            label: Some((label, timer)),
            ..
        } = &e
        {
            let (timer, label) = (*timer, label.clone());
            self.label_timer(timer, label);
        }
        self.events.push_back(e);
    }

    /// Applies a request.
    pub fn apply<R: Request>(&mut self, r: R) -> Result<R::Reply, NodeError> {
        r.apply(self)
    }

    // ---- time ----------------------------------------------------------------------------

    /// When the shell must call [`tick`](Self::tick) next, in its milliseconds: the next
    /// interval block (0 while the interval clock has not started: tick at once). `None`
    /// when no time-driven work is due (auto and manual mining).
    pub fn next_deadline(&self) -> Option<u64> {
        match self.mining {
            MiningMode::Interval { .. } => Some(self.next_seal_at.unwrap_or(0)),
            _ => None,
        }
    }

    /// Time has passed: `now_ms` is the shell's monotonic clock. Interval mining seals a
    /// block when one is due. The first tick after interval mining starts only starts its
    /// clock. A shell that was held up past several block times gets one block, and the
    /// next is due a full block time later (blocks are not sealed in a burst to catch up).
    pub fn tick(&mut self, now_ms: u64) {
        let MiningMode::Interval { block_time_ms } = self.mining else {
            return;
        };
        match self.next_seal_at {
            None => self.next_seal_at = Some(now_ms.saturating_add(block_time_ms)),
            Some(due) if now_ms >= due => {
                self.seal();
                self.report_quiet();
                let next = due.saturating_add(block_time_ms);
                self.next_seal_at = Some(if next <= now_ms {
                    now_ms.saturating_add(block_time_ms)
                } else {
                    next
                });
            }
            Some(_) => {}
        }
    }

    /// The next thing that happened, oldest first.
    pub fn poll_event(&mut self) -> Option<NodeEvent> {
        let e = self.events.pop_front();
        // Issue 31 (cost follows what happens): a long jump queues an event per fire (10,000
        // over a 1M-height jump); once they are drained the queue lets go of their room
        // instead of holding it for good (9 MB after that jump).
        if e.is_none() && self.events.capacity() > EVENT_ROOM_KEPT {
            self.events.shrink_to(EVENT_ROOM_KEPT);
        }
        e
    }

    // ---- queries -------------------------------------------------------------------------

    /// The chain, read-only (the runner's expectations and the dashboard read it).
    pub fn chain(&self) -> &Chain {
        &self.chain
    }

    /// Benchmarks only: inserts timers straight into the queue (see
    /// [`Chain::test_hook_insert_timers`]), bypassing transactions.
    #[doc(hidden)]
    pub fn test_hook_insert_timers(
        &mut self,
        timers: impl IntoIterator<Item = crate::engine::Timer>,
    ) -> Result<(), crate::engine::TimerError> {
        self.chain.test_hook_insert_timers(timers)
    }

    pub fn height(&self) -> u64 {
        read::height(&self.chain)
    }

    pub fn mining(&self) -> MiningMode {
        self.mining
    }

    /// A sealed block: from the node's history, else from the chain's recent blocks.
    pub fn block(&self, height: u64) -> Option<BlockView> {
        if let Ok(i) = self
            .history
            .binary_search_by_key(&height, |b| b.header.height)
        {
            return Some(self.history[i].clone());
        }
        self.chain.block(height).map(|b| Arc::new(b.into_owned()))
    }

    /// The dev accounts (in order), then every other account, with their names.
    pub fn accounts(&self) -> Vec<AccountView> {
        let mut v: Vec<AccountView> = self
            .dev
            .iter()
            .map(|a| read::account(&self.chain, *a, self.names.get(a).cloned()))
            .collect();
        for a in read::account_addresses(&self.chain) {
            if !self.dev.contains(&a) {
                v.push(read::account(&self.chain, a, self.names.get(&a).cloned()));
            }
        }
        v
    }

    /// The names that label addresses: the dev accounts' and a fixture's address book.
    pub fn names(&self) -> &BTreeMap<Address, String> {
        &self.names
    }

    /// The dev accounts, `dev0` first.
    pub fn dev_accounts(&self) -> &[Address] {
        &self.dev
    }

    pub fn balance(&self, who: &Address) -> u128 {
        self.chain.balance(who)
    }

    pub fn supply(&self) -> SupplyView {
        read::supply(&self.chain)
    }

    pub fn config(&self) -> (TimerConfig, QueueConfig) {
        (
            read::timer_config(&self.chain).clone(),
            read::queue_config(&self.chain).clone(),
        )
    }

    pub fn tiers(&self) -> TiersView {
        read::tiers(&self.chain)
    }

    /// The snapshots kept, oldest first.
    pub fn snapshots(&self) -> Vec<SnapshotInfo> {
        self.snapshots
            .iter()
            .map(|(id, s)| SnapshotInfo {
                id: *id,
                height: read::height(&s.chain),
            })
            .collect()
    }

    // ---- the building blocks of requests ------------------------------------------------

    /// Applies a transaction; seals its block under automine.
    pub(super) fn send(&mut self, tx: Transaction) -> Result<(Receipt, Option<u64>), NodeError> {
        let height = self.chain.pending_height();
        let logged = self.recording.then(|| tx.clone());
        let receipt = self.chain.apply_tx(tx)?;
        if let Some(tx) = logged {
            self.session.push(Entry::Tx {
                height,
                tx: Box::new(tx),
                timers: receipt.timers.clone(),
                created: receipt.created,
                error: receipt.error.as_ref().map(|f| f.kind),
            });
        }
        self.pending_txs += 1;
        let sealed = match self.mining {
            MiningMode::Auto => {
                let h = self.seal().header.height;
                self.report_quiet();
                Some(h)
            }
            _ => None,
        };
        Ok((receipt, sealed))
    }

    /// Seals one block; reports it if something happened in it.
    pub(super) fn seal(&mut self) -> Arc<Block> {
        let Some(mut hook) = self.hook.take() else {
            return self.seal_plain();
        };
        // Nothing seals while the hook runs: its transactions go into this block.
        let mining = std::mem::replace(&mut self.mining, MiningMode::Manual);
        let height = self.chain.pending_height();
        hook.before_seal(height, self);
        let b = self.seal_plain();
        hook.after_seal(&b, self);
        self.mining = mining;
        self.hook = Some(hook);
        b
    }

    /// Seals one block like [`seal`](Self::seal), handing it out only if it has a body: a
    /// quiet height (see `chain::Sealed::Quiet`) is counted, not rebuilt. With a block hook
    /// (a fixture being played) every block is handed to it, so this is `seal`.
    pub(super) fn seal_step(&mut self) -> Option<Arc<Block>> {
        if self.hook.is_some() {
            return Some(self.seal());
        }
        let sealed = self.chain.seal_next();
        self.sealed();
        match sealed {
            Sealed::Quiet => {
                self.pending_txs = 0;
                self.quiet += 1;
                None
            }
            Sealed::Block => Some(self.after_seal_block()),
        }
    }

    /// Seals `blocks` blocks (the first holds the pending transactions) and hands each step to
    /// `f` as it is sealed, with the chain as it left it; `f` may stop the mining after any
    /// step. Quiet heights are jumped (see `chain::quiet`): up to the next height where
    /// anything can happen they are sealed in one step, so the cost follows the blocks where
    /// something happens. With a block hook (a fixture being played) the heights it must see
    /// ([`BlockHook::next_height`]) are sealed and handed out one by one. Returns how many
    /// heights were sealed.
    pub fn mine_with(
        &mut self,
        blocks: u64,
        f: &mut dyn FnMut(MineStep<'_>, &Chain) -> ControlFlow<()>,
    ) -> u64 {
        let (mut sealed, mut quiet) = (0, 0);
        while sealed < blocks {
            let first = self.chain.pending_height();
            let left = blocks - sealed;
            let jumped = match &self.hook {
                None => self.chain.jump_quiet(left),
                Some(h) => {
                    let free = h.next_height(first).saturating_sub(first);
                    self.chain.jump_quiet(left.min(free))
                }
            };
            let flow = if jumped > 0 {
                self.sealed();
                self.pending_txs = 0;
                self.quiet += jumped;
                sealed += jumped;
                quiet += jumped;
                let last = first + (jumped - 1);
                f(MineStep::Quiet { first, last }, &self.chain)
            } else {
                sealed += 1;
                match self.seal_step() {
                    Some(b) => f(MineStep::Block(&b), &self.chain),
                    None => f(MineStep::Quiet { first, last: first }, &self.chain),
                }
            };
            if flow.is_break() {
                break;
            }
        }
        self.after_jump(quiet);
        self.report_quiet();
        sealed
    }

    fn seal_plain(&mut self) -> Arc<Block> {
        self.chain.seal_block();
        self.sealed();
        self.after_seal_block()
    }

    /// What the live chain is set to and a chain that replaces it (a revert, a reset, a load,
    /// a drop's rebuild) takes: its tracing, and its departure notes for the compact records
    /// (Spec note 224), neither of which a replayed or loaded chain has.
    pub(super) fn set_live_chain_notes(&mut self) {
        self.chain.set_tracing(self.traces.on);
        self.chain.note_departures(self.keep_history);
    }

    fn after_seal_block(&mut self) -> Arc<Block> {
        let b = self
            .chain
            .last_block_shared()
            .expect("a block was just sealed");
        self.pending_txs = 0;
        let first_kept = self.first_kept();
        let traced = self.chain.take_traces();
        let (height, hash) = (b.header.height, b.header.hash);
        self.traces.sealed(traced, height, hash, first_kept);
        if b.receipts.is_empty() && b.events.is_empty() {
            self.quiet += 1;
        } else {
            if self.keep_history {
                self.history.push_back(b.clone());
                let q = self.chain.engine().queue();
                self.fates
                    .record(&b, q.last_departures(), |id| q.contains(id), q.next_seq());
            }
            self.events
                .push_back(NodeEvent::BlockSealed(BlockSummary::of(&b, self.quiet)));
            self.quiet = 0;
            self.events
                .extend(b.events.iter().cloned().map(NodeEvent::Chain));
        }
        b
    }

    /// Reports the last sealed block if it was empty and not reported yet.
    pub(super) fn report_quiet(&mut self) {
        if self.quiet == 0 {
            return;
        }
        if let Some(b) = self.chain.last_block() {
            let s = BlockSummary::of(&b, self.quiet - 1);
            self.events.push_back(NodeEvent::BlockSealed(s));
        }
        self.quiet = 0;
    }

    pub(super) fn push_event(&mut self, e: NodeEvent) {
        self.events.push_back(e);
    }

    pub(super) fn chain_mut(&mut self) -> &mut Chain {
        &mut self.chain
    }

    pub(super) fn set_mining(&mut self, m: MiningMode) -> Result<(), NodeError> {
        check_mining(m)?;
        // Switching to automine seals what is pending, as if it had been on.
        if m == MiningMode::Auto && self.pending_txs > 0 {
            self.seal();
            self.report_quiet();
        }
        self.mining = m;
        self.next_seal_at = None;
        self.events.push_back(NodeEvent::MiningChanged(m));
        Ok(())
    }

    pub(super) fn reset(&mut self) -> Result<(), NodeError> {
        self.drop_past_states();
        match self.start.as_ref().and_then(|s| Some((s, s.base_chain()?))) {
            Some((s, c)) => {
                self.chain = c.clone();
                if let Some(n) = self.keep_blocks {
                    self.chain.set_keep_blocks(n);
                }
                self.session = s.clone();
            }
            None => {
                self.chain = new_chain(&self.genesis, &self.runtime, self.keep_blocks)?;
                self.session = SessionLog::default();
            }
        }
        self.set_live_chain_notes();
        self.chain.set_archive_headers(self.keep_history);
        self.history.clear();
        self.pruned_to = 0;
        self.fates = Default::default();
        self.labels = Default::default();
        self.checkpoints = past::start(&self.chain, self.keep_history);
        self.names = Arc::new(self.initial_names.clone());
        if let Some(h) = &self.initial_hook {
            self.hook = Some(h.restore());
        }
        self.pending_txs = 0;
        self.quiet = 0;
        self.next_seal_at = None;
        self.events.push_back(NodeEvent::Reset);
        Ok(())
    }

    /// The state as of the last sealed block. A dump is a read: with transactions applied to a
    /// block not yet mined it is refused (`BlockOpen`), never mines the block itself.
    pub(super) fn dump(&self) -> Result<ChainDump, NodeError> {
        let mut d = self.chain.dump()?;
        d.fixture_player = self.hook.as_ref().and_then(|h| h.dump_state());
        Ok(d)
    }

    /// Replaces the chain with `d`; a fixture player that dumped its state with it takes
    /// that state back (issue 20), checked before anything changes.
    pub(super) fn load(&mut self, mut d: ChainDump) -> Result<(), NodeError> {
        let hook = match (d.fixture_player.take(), &self.hook) {
            (Some(state), Some(h)) => match h.snapshot() {
                Some(mut copy) => {
                    copy.load_state(state).map_err(NodeError::InvalidInput)?;
                    Some(copy)
                }
                None => None,
            },
            _ => None,
        };
        let mut chain = Chain::load(d, self.runtime.clone())?;
        if hook.is_some() {
            self.hook = hook;
        }
        if let Some(n) = self.keep_blocks {
            chain.set_keep_blocks(n);
        }
        self.drop_past_states();
        self.chain = chain;
        self.set_live_chain_notes();
        self.chain.set_archive_headers(self.keep_history);
        self.history.clear();
        self.pruned_to = 0;
        self.fates = Default::default();
        self.labels = Default::default();
        self.pending_txs = 0;
        self.quiet = 0;
        let height = self.height();
        // One copy of the loaded chain, shared by the log's base and the first checkpoint.
        let base = Arc::new(self.chain.clone());
        self.session = SessionLog::loaded(base.clone(), None);
        self.checkpoints = past::start_shared(self.keep_history.then_some(base));
        self.events.push_back(NodeEvent::StateLoaded { height });
        Ok(())
    }

    pub(super) fn set_name(&mut self, a: Address, name: String) {
        if self.recording {
            let (address, name) = (a, name.clone());
            self.session.push(Entry::Named { address, name });
        }
        Arc::make_mut(&mut self.names).insert(a, name);
    }

    /// The first dev account, the default sender.
    pub(super) fn default_sender(&self) -> Result<Address, NodeError> {
        self.dev.first().copied().ok_or_else(|| {
            NodeError::InvalidInput("`from` is required: this node has no dev accounts".into())
        })
    }
}

fn new_chain(
    genesis: &Genesis,
    runtime: &Arc<dyn ActorRuntime>,
    keep_blocks: Option<usize>,
) -> Result<Chain, NodeError> {
    let mut chain = Chain::new(genesis.clone(), runtime.clone())?;
    if let Some(n) = keep_blocks {
        chain.set_keep_blocks(n);
    }
    Ok(chain)
}
