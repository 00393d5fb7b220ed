//! The devnet chain: accounts, actors, transactions, blocks and the state root (DESIGN.md,
//! `chain/`). It drives the timer engine at the end of every block (CIP-5 §5).

mod archive;
mod block;
mod check;
pub mod dump;
pub mod exec;
mod gba;
mod genesis;
mod new_timer;
mod quiet;
pub mod runtime;
mod seal;
pub mod state;
pub mod trace;
pub mod types;

use crate::engine::scheduler::Fairness;
use crate::engine::types::{keccak, keccak_parts};
use crate::engine::{
    self, Address, AuctionEstimate, Cip1Config, EobStats, ErrorKind, Failure, FeeArgs, FeeQuote,
    GbaBid, GbaContext, H256, LaneStats, Ledger, PolicyState, RestoreError, SchedulerKind,
    TimerConfig, TimerError, TimerEvent, TimerId,
};
pub use archive::HeaderArchive;
pub use dump::ChainDump;
use exec::{Meter, Overlay};
use genesis::policy_genesis;
pub use genesis::{Genesis, GenesisAccount, default_governor};
pub use quiet::Sealed;
use quiet::{QuietRun, RootTemplate};
use runtime::{ActorRuntime, VmError};
use serde::{Deserialize, Serialize};
use state::{Account, Actor, StateCommit, StateKey};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
pub use types::*;

/// A transaction rejected before inclusion: nothing changed, not even the nonce.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "error", content = "message")]
pub enum TxError {
    #[error("NonceMismatch: expected nonce {expected}, got {got}")]
    NonceMismatch { expected: u64, got: u64 },
    #[error("InsufficientFunds: {0}")]
    InsufficientFunds(String),
    #[error("UnknownActor: {0} is not a deployed actor")]
    UnknownActor(Address),
    #[error("ActorExists: an actor is already deployed at {0}")]
    ActorExists(Address),
    #[error("InvalidInput: {0}")]
    InvalidInput(String),
    #[error("Unauthorized: {0}")]
    Unauthorized(String),
    /// The transaction's cycle limit does not fit in what is left of the block's
    /// `block_tx_cycles`: send it again in a later block.
    #[error("BlockFull: {0}")]
    BlockFull(String),
    /// The code failed to compile at deploy.
    #[error("{0}")]
    Code(VmError),
}

impl TxError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            TxError::NonceMismatch { .. } => ErrorKind::NonceMismatch,
            TxError::InsufficientFunds(_) => ErrorKind::InsufficientFunds,
            TxError::UnknownActor(_) => ErrorKind::UnknownActor,
            TxError::ActorExists(_) => ErrorKind::ActorExists,
            TxError::InvalidInput(_) => ErrorKind::InvalidInput,
            TxError::Unauthorized(_) => ErrorKind::Unauthorized,
            TxError::BlockFull(_) => ErrorKind::BlockFull,
            TxError::Code(e) => e.kind(),
        }
    }
}

impl From<&TxError> for Failure {
    fn from(e: &TxError) -> Self {
        Failure::from_error(e.kind(), e)
    }
}

/// A load of a dumped state failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("InvalidInput: state dump format version {found}, this build reads {expected}")]
    Version { found: u32, expected: u32 },
    #[error("InvalidInput: state dump is not valid: {0}")]
    Format(String),
    #[error("InvalidInput: state dump is not valid: {0}")]
    Queue(#[from] RestoreError),
    /// Issue 30 (Spec note 144): a head from which no next height exists (`height + 1 +
    /// halted` past `u64::MAX`).
    #[error(
        "InvalidInput: state dump is not valid: HeightCannotAdvance: head height {height} with {halted} halted height(s) leaves no next height below 2^64"
    )]
    HeightCannotAdvance { height: u64, halted: u64 },
    /// Issue 30 (Spec note 144): the head's `hash` is not the hash of its other fields.
    #[error(
        "InvalidInput: state dump is not valid: HeadHashMismatch: the head's hash {found} is not the hash of its fields ({expected})"
    )]
    HeadHashMismatch { found: H256, expected: H256 },
}

impl LoadError {
    /// Every rejected dump is bad input.
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}

/// A dump asked for while a block is open (see [`Chain::dump`]): nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("InvalidInput: block {height} is open with {txs} transaction(s): mine it before dumping")]
pub struct BlockOpen {
    pub height: u64,
    pub txs: usize,
}

/// The block being built.
#[derive(Clone, Debug)]
struct OpenBlock {
    height: u64,
    skipped: u64,
    /// TimerConfig read once at the block boundary (CIP-5 §7).
    cfg: TimerConfig,
    quote: FeeQuote,
    receipts: Vec<Receipt>,
    events: Vec<EventRecord>,
    migrated: u64,
    /// Cycles used by the block's transactions so far (at most `basefee.block_tx_cycles`).
    tx_cycles: u64,
}

/// State dump format version (bumped with any change to the dump or the timer codec).
pub const DUMP_FORMAT_VERSION: u32 = 2;

/// How many sealed blocks the chain keeps in memory by default.
pub const DEFAULT_KEEP_BLOCKS: usize = 100_000;

#[derive(Clone)]
pub struct Chain {
    genesis: Genesis,
    timer_config: TimerConfig,
    basefee: BasefeeConfig,
    system_deployers: BTreeSet<Address>,
    proposer: Address,
    accounts: BTreeMap<Address, Account>,
    actors: BTreeMap<Address, Actor>,
    engine: engine::Engine,
    /// Height of the last sealed block (0: genesis).
    height: u64,
    head: BlockHeader,
    /// Everything ever minted (genesis and devnet balance changes).
    supply: u128,
    /// Everything burned (basefees).
    burned: u128,
    /// The root of the state as last committed: at the seal of the head, or after a devnet
    /// control changed the state between blocks (see [`Chain::state_root`]).
    root: H256,
    /// Sealed blocks, shared: a cloned chain (a snapshot) shares them, never copies them.
    blocks: VecDeque<Arc<Block>>,
    keep_blocks: usize,
    open: Option<OpenBlock>,
    skip_next: u64,
    /// Timers epoch maintenance migrated between the queue's tiers since this chain was made
    /// (or loaded): not state, a count the node paces its checkpoints' check by (Spec note 227).
    migrated_total: u64,
    cancelled_fires: BTreeSet<TimerId>,
    commit: StateCommit,
    runtime: Arc<dyn ActorRuntime>,
    /// Runs of quiet heights sealed without a stored body, oldest first (see [`quiet`]).
    quiet: VecDeque<Arc<QuietRun>>,
    /// The state root's template as last committed, reused by quiet heights while nothing
    /// but the queue's `next_height` changes; `None` once anything else may have changed.
    root_tpl: Option<Arc<RootTemplate>>,
    /// The headers of the blocks dropped from `blocks` and `quiet` (Spec note 183).
    archive: HeaderArchive,
    /// The head materialized for [`Chain::seal_block`] when it sealed a quiet height.
    quiet_head: Option<Arc<Block>>,
    /// Test and bench switch: seal every height with a stored body (see
    /// [`Chain::test_hook_no_quiet`]).
    no_quiet: bool,
    /// Issue 32 (`--trace`): trace every handler run applied; not part of the state.
    tracing: bool,
    /// Issue 33 (a hunt's runs): the state root is committed once, at
    /// [`settle_roots`](Chain::settle_roots), not per block (see [`Chain::defer_roots`]).
    deferred_roots: bool,
    /// Issue 31 (Spec note 228): the blocks a replay seals again, as the live chain sealed
    /// them (oldest first), whose headers it takes instead of committing the state root (see
    /// [`Chain::replay_known`]). Not state; `None` but while a past state is built.
    known: Option<Arc<VecDeque<Arc<Block>>>>,
    /// The traces recorded and not yet taken ([`Chain::take_traces`]).
    traces: Vec<trace::Trace>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("height", &self.height)
            .field("head", &self.head.hash)
            .finish_non_exhaustive()
    }
}

struct ChainLedger<'a> {
    accounts: &'a mut BTreeMap<Address, Account>,
    commit: &'a mut StateCommit,
    /// For custom GBA calls (CIP-1 v3 §7.2): the actors, read-only, and the runtime.
    actors: &'a BTreeMap<Address, Actor>,
    runtime: &'a dyn ActorRuntime,
    height: u64,
    /// Issue 32 (`--trace`): where the GBA calls' traces go, when tracing.
    traces: Option<&'a mut Vec<trace::Trace>>,
}

impl Ledger for ChainLedger<'_> {
    fn balance(&self, who: &Address) -> u128 {
        self.accounts.get(who).map_or(0, |a| a.balance)
    }
    fn debit(&mut self, who: &Address, amount: u128) {
        let acc = self.accounts.entry(*who).or_default();
        acc.balance -= amount;
        self.commit.mark(StateKey::Account(*who));
    }

    fn gas_bid(
        &mut self,
        timer: &engine::Timer,
        ctx: &GbaContext,
        budget: u64,
    ) -> Option<Result<GbaBid, ErrorKind>> {
        let actor = (self.actors.get(&timer.actor_address))
            .filter(|a| self.runtime.has_gas_bid(&a.code))?;
        let mut host = gba::GbaHost::new(
            self.accounts,
            actor,
            timer.actor_address,
            self.height,
            budget,
        );
        let bid = match self.traces.as_deref_mut() {
            None => self.runtime.gas_bid(&actor.code, ctx, &mut host),
            Some(traces) => {
                let mut tracer = trace::Tracer::new(&mut host);
                let bid = self.runtime.gas_bid(&actor.code, ctx, &mut tracer);
                let of = trace::TraceOf::Bid {
                    timer_id: timer.timer_id,
                };
                let ended = bid.as_ref().map(|_| ()).map_err(Clone::clone);
                let entry = runtime::GAS_BID_ENTRY;
                let t = tracer.finish(of, timer.actor_address, entry, self.height, &ended);
                traces.push(t.with_source(&actor.code.source));
                bid
            }
        };
        Some(bid.map_err(|e| e.kind()))
    }
    fn has_gba(&self, a: &Address) -> bool {
        (self.actors.get(a)).is_some_and(|x| self.runtime.has_gas_bid(&x.code))
    }
}

/// The outcome of one execution, taken out of its context.
struct Executed {
    result: Result<(), VmError>,
    overlay: Overlay,
    meter: Meter,
}

impl Chain {
    /// A new chain at height 0 with `genesis` and the given actor runtime.
    pub fn new(genesis: Genesis, runtime: Arc<dyn ActorRuntime>) -> Result<Self, TimerError> {
        genesis.timer.validate()?;
        genesis.queue.validate()?;
        if genesis.basefee.block_tx_cycles < genesis.basefee.tx_cycle_limit {
            return Err(TimerError::InvalidInput(
                "basefee.block_tx_cycles must hold one transaction at tx_cycle_limit".into(),
            ));
        }
        genesis.cip1.validate()?;
        genesis.cip5_draft.validate()?;
        if genesis.activation_height == Some(0) {
            return Err(TimerError::InvalidInput(
                "activation_height 0 is genesis itself: the first block is height 1".into(),
            ));
        }
        if genesis.basefee.tx_cycle_limit < genesis.basefee.tx_base_cycles {
            return Err(TimerError::InvalidInput(
                "basefee.tx_cycle_limit must cover tx_base_cycles".into(),
            ));
        }
        let mut chain = Chain {
            timer_config: genesis.timer.clone(),
            basefee: genesis.basefee.clone(),
            system_deployers: genesis.system_deployers.iter().copied().collect(),
            proposer: genesis.proposer,
            accounts: BTreeMap::new(),
            actors: BTreeMap::new(),
            engine: engine::Engine::new(genesis.queue.clone(), genesis.scheduler, 1),
            height: 0,
            head: BlockHeader {
                height: 0,
                parent_hash: H256::default(),
                state_root: H256::default(),
                body_hash: H256::default(),
                proposer: genesis.proposer,
                skipped: 0,
                hash: H256::default(),
            },
            supply: 0,
            burned: 0,
            root: H256::default(),
            blocks: VecDeque::new(),
            keep_blocks: DEFAULT_KEEP_BLOCKS,
            open: None,
            skip_next: 0,
            migrated_total: 0,
            cancelled_fires: BTreeSet::new(),
            commit: StateCommit::default(),
            runtime,
            quiet: VecDeque::new(),
            root_tpl: None,
            archive: HeaderArchive::default(),
            quiet_head: None,
            no_quiet: false,
            tracing: false,
            deferred_roots: false,
            known: None,
            traces: Vec::new(),
            genesis,
        };
        let policies = PolicyState::for_genesis(&policy_genesis(&chain.genesis));
        chain.engine.set_policies(policies);
        for acc in chain.genesis.accounts.clone() {
            chain
                .try_set_balance(&acc.address, acc.balance)
                .map_err(|_| {
                    TimerError::InvalidInput(format!(
                        "genesis balances sum past u128::MAX at {}",
                        acc.address
                    ))
                })?;
        }
        let root = chain.commit_root();
        chain.head.state_root = root;
        chain.head.hash = H256(keccak_parts(&[b"genesis", &root.0]));
        Ok(chain)
    }

    pub fn runtime(&self) -> &Arc<dyn ActorRuntime> {
        &self.runtime
    }

    /// Replaces the actor runtime (after a load, or to swap runtimes in a benchmark).
    pub fn set_runtime(&mut self, runtime: Arc<dyn ActorRuntime>) {
        self.runtime = runtime;
    }

    /// Keep at most `n` sealed blocks in memory (older ones are dropped; headers stay hashed).
    pub fn set_keep_blocks(&mut self, n: usize) {
        self.keep_blocks = n.max(1);
        while self.blocks.len() > self.keep_blocks {
            self.drop_oldest_block();
        }
        self.prune_quiet();
    }

    // ---- reads ---------------------------------------------------------------------------

    /// The genesis the chain started from.
    pub fn genesis(&self) -> &Genesis {
        &self.genesis
    }

    /// The timer config in force (a governance update takes effect from the next block).
    pub fn timer_config(&self) -> &TimerConfig {
        &self.timer_config
    }

    pub fn basefee(&self) -> &BasefeeConfig {
        &self.basefee
    }

    /// Senders allowed to issue system instructions 48/49/50 (CIP-5 §5.4).
    pub fn system_deployers(&self) -> &BTreeSet<Address> {
        &self.system_deployers
    }

    /// Receives priority tips (CIP-1 v3 §3 step 8).
    pub fn proposer(&self) -> Address {
        self.proposer
    }

    pub fn accounts(&self) -> &BTreeMap<Address, Account> {
        &self.accounts
    }

    pub fn actors(&self) -> &BTreeMap<Address, Actor> {
        &self.actors
    }

    /// The timer engine, read-only: the chain alone drives it.
    pub fn engine(&self) -> &engine::Engine {
        &self.engine
    }

    /// Height of the last sealed block (0: genesis).
    pub fn height(&self) -> u64 {
        self.height
    }

    /// The header of the last sealed block (the genesis header at height 0).
    pub fn head(&self) -> &BlockHeader {
        &self.head
    }

    /// Everything ever minted (genesis and devnet balance changes).
    pub fn supply(&self) -> u128 {
        self.supply
    }

    /// Everything burned (basefees).
    pub fn burned(&self) -> u128 {
        self.burned
    }

    pub fn balance(&self, who: &Address) -> u128 {
        self.accounts.get(who).map_or(0, |a| a.balance)
    }

    pub fn nonce(&self, who: &Address) -> u64 {
        self.accounts.get(who).map_or(0, |a| a.nonce)
    }

    pub fn actor(&self, who: &Address) -> Option<&Actor> {
        self.actors.get(who)
    }

    pub fn timer(&self, id: &TimerId) -> Option<&engine::Timer> {
        self.engine.get(id)
    }

    /// Sum of all balances (for the conservation invariant: balances + burned = supply).
    /// Panics if the sum passes `u128::MAX`, which a state that conserves funds cannot do (the
    /// sum is at most the supply); [`funds_conserved`](Self::funds_conserved) checks instead.
    pub fn total_balances(&self) -> u128 {
        self.checked_total_balances()
            .expect("balances sum past u128::MAX: funds are not conserved")
    }

    /// Sum of all balances, `None` if it passes `u128::MAX`.
    pub fn checked_total_balances(&self) -> Option<u128> {
        self.accounts
            .values()
            .try_fold(0u128, |sum, a| sum.checked_add(a.balance))
    }

    /// Does balances + burned = supply hold? Computed with checked sums: a state whose sum
    /// passes `u128::MAX` does not conserve funds (a wrapped sum could match the supply).
    pub fn funds_conserved(&self) -> bool {
        self.checked_total_balances()
            .and_then(|b| b.checked_add(self.burned))
            == Some(self.supply)
    }

    /// The sealed blocks still held in memory with a body, oldest first. Quiet heights (see
    /// [`Sealed::Quiet`]) have no stored body and are not listed; [`block`](Self::block)
    /// answers for them.
    pub fn blocks(&self) -> impl DoubleEndedIterator<Item = &Block> {
        self.blocks.iter().map(|b| &**b)
    }

    /// The block at `height`: a stored block, or the empty block of a quiet height rebuilt
    /// from its run (see [`Sealed::Quiet`]). `None` for heights no longer held (older than
    /// the `keep_blocks` window), skipped by an outage, or not sealed yet.
    pub fn block(&self, height: u64) -> Option<std::borrow::Cow<'_, Block>> {
        if height == 0 || height > self.height {
            return None;
        }
        if let Some(b) = self.stored_block(height) {
            return Some(std::borrow::Cow::Borrowed(b));
        }
        self.quiet_block(height).map(std::borrow::Cow::Owned)
    }

    fn stored_block(&self, height: u64) -> Option<&Block> {
        let first = self.blocks.front()?.header.height;
        if height < first {
            return None;
        }
        // Heights may skip (outages, quiet runs): binary search by height.
        let i = self
            .blocks
            .binary_search_by_key(&height, |b| b.header.height)
            .ok()?;
        Some(&self.blocks[i])
    }

    /// The last sealed block, shared (a clone of the pointer, not of the block; a quiet head
    /// is rebuilt).
    pub fn last_block_shared(&self) -> Option<Arc<Block>> {
        match self.blocks.back() {
            Some(b) if b.header.height == self.height => Some(b.clone()),
            _ => self.quiet_block(self.height).map(Arc::new),
        }
    }

    pub fn last_block(&self) -> Option<std::borrow::Cow<'_, Block>> {
        self.block(self.height)
    }

    /// The height of the block being built (or that will be built next).
    /// The receipts of the open block so far, in order: its pending transactions (applied,
    /// not sealed). Empty while no block is open (issue 32).
    /// Issue 33 (a hunt plays thousands of runs and reads only their outcomes): from now on,
    /// blocks are sealed without committing the state root or hashing their bodies; each
    /// header carries the root of the last commit with its height folded in, not the state's,
    /// and a marker for a non-empty body. The commitments are
    /// history-independent (`engine::merkle`): the changes wait in their buffers, and
    /// [`settle_roots`](Self::settle_roots) commits them all at once to the root that
    /// per-block commits would have reached. Outcomes (fires, fees, events, receipts) do not
    /// read the root, so they are unchanged; block hashes are not the chain's.
    pub fn defer_roots(&mut self) {
        self.deferred_roots = true;
    }

    /// Issue 31 (Spec note 228, a cold past read's build): from now on (`Some`) until `None`,
    /// a block sealed at the height of one of `blocks` (the live history's, oldest first)
    /// with the same skipped heights takes that block's state root and body hash instead of
    /// committing the state root and hashing its body, when the header it then makes is that
    /// block's (the same parent, proposer and hash); any other block is sealed as before.
    /// The commitments are history-independent (`engine::merkle`), so the changes wait in
    /// their buffers and the next commit (a quiet run's template, a balance set, a seal not
    /// known, a read of the root that commits) reaches the root per-block commits would have.
    /// The seals replayed against the live history were 53 % of a past state's build (the
    /// queue's commit, keccak), BENCHMARKS.md "the cold past-read mix's floor".
    pub fn replay_known(&mut self, blocks: Option<Arc<VecDeque<Arc<Block>>>>) {
        self.known = blocks;
    }

    /// Ends [`defer_roots`](Self::defer_roots): commits every change since and returns the
    /// state root (also [`state_root`](Self::state_root) from now on).
    pub fn settle_roots(&mut self) -> H256 {
        self.deferred_roots = false;
        self.root_tpl = None;
        self.commit_root()
    }

    /// Timers epoch maintenance migrated between the queue's tiers since this chain was made
    /// or loaded (a copy carries the count on): the node checks its newest checkpoint's bytes
    /// after enough of them (Spec note 227).
    pub fn migrated_total(&self) -> u64 {
        self.migrated_total
    }

    /// Issue 31: note the timers that leave for good from now on (`on`), for the node's
    /// compact records (Spec note 224); read after each seal with
    /// [`last_departures`](Self::last_departures). A copy of the chain keeps the setting and
    /// the open block's notes, not the last block's.
    pub fn note_departures(&mut self, on: bool) {
        self.engine.note_departures(on);
    }

    /// The timers that left for good in the block sealed last (when noted).
    pub fn last_departures(&self) -> &[engine::Departure] {
        self.engine.queue().last_departures()
    }

    /// Issue 32: trace every handler run from now on (`on`), or stop. Traces change nothing:
    /// the same blocks, roots and receipts either way (`chain::trace`).
    pub fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
        if !on {
            self.traces.clear();
        }
    }

    /// Whether handler runs are traced.
    pub fn tracing(&self) -> bool {
        self.tracing
    }

    /// The traces recorded since the last call, oldest first.
    pub fn take_traces(&mut self) -> Vec<trace::Trace> {
        std::mem::take(&mut self.traces)
    }

    /// The traces recorded and not yet taken (the open block's transactions).
    pub fn recorded_traces(&self) -> &[trace::Trace] {
        &self.traces
    }

    pub fn open_receipts(&self) -> &[Receipt] {
        self.open.as_ref().map_or(&[], |o| &o.receipts)
    }

    /// The open block's events so far; `None` while no block is open (issue 32: a dry run
    /// tells its transaction's events from the ones before it).
    pub fn open_events(&self) -> Option<&[EventRecord]> {
        self.open.as_ref().map(|o| o.events.as_slice())
    }

    pub fn pending_height(&self) -> u64 {
        self.open
            .as_ref()
            .map_or(self.height + 1 + self.skip_next, |o| o.height)
    }

    // ---- CIP-1 v3 reads and governance -----------------------------------------------------------

    /// The scheduler that plans (or planned) the block at `height` (Spec note 49).
    pub fn scheduler_at(&self, height: u64) -> SchedulerKind {
        self.engine.scheduler_at(height)
    }

    /// The first height planned by eip1559, `None`: never.
    pub fn activation_height(&self) -> Option<u64> {
        self.engine.policies().activation_height()
    }

    /// The CIP-1 v3 parameters in force.
    pub fn cip1_config(&self) -> &Cip1Config {
        self.engine.policies().cip1_config()
    }

    /// The lane basefee in force for the next block, nanos per cycle (CIP-1 v3 §5; before
    /// activation the cycle basefee × `PRICE_SCALE`, §13.2).
    pub fn lane_basefee(&self) -> u128 {
        self.engine.lane_basefee(self.basefee.cycle_basefee)
    }

    /// The last block's p50 fired-timer tip, nanos per cycle (§7.1).
    pub fn p50_tip(&self) -> u128 {
        self.engine.policies().p50_tip()
    }

    /// The §8 fairness window.
    pub fn fairness(&self) -> &Fairness {
        self.engine.policies().fairness()
    }

    /// Sets the activation height (governance, CIP-1 v3 §13.2): only above the current height
    /// (the open block's, if one is open) and only before activation; `InvalidInput`
    /// otherwise, nothing changed.
    pub fn set_activation_height(&mut self, height: u64) -> Result<(), TxError> {
        let current = self.open.as_ref().map_or(self.height, |o| o.height);
        self.engine
            .set_activation_height(current, height)
            // The engine's text leads with `InvalidInput: ` already: keep what follows it, so
            // the RPC message does not say the name twice (issue 20).
            .map_err(|e| TxError::InvalidInput(Failure::from_error(e.kind(), &e).message))?;
        if self.open.is_none() {
            self.root_tpl = None;
            self.commit_root();
        }
        Ok(())
    }

    /// [`set_activation_height`](Self::set_activation_height) as `from` (the
    /// `gov_setActivationHeight` RPC): `from` must be a system deployer (`Unauthorized`).
    pub fn set_activation_height_from(
        &mut self,
        from: &Address,
        height: u64,
    ) -> Result<(), TxError> {
        if !self.system_deployers.contains(from) {
            return Err(TxError::Unauthorized(format!(
                "{from} is not in system_deployers: only governance sets the activation height"
            )));
        }
        self.set_activation_height(height)
    }

    /// Where a timer of `actor` due at `height` with budget `gas_limit` (default: the policy's)
    /// and fee arguments `fees` would stand in the auction now (see
    /// [`engine::scheduler::policy::estimate`]), named by the scheduler that orders that
    /// height's block (issue 29: the registry's key, not the CIP-1 v3 state's before/after
    /// activation view, which called every non-auction scheduler `fifo`).
    pub fn estimate_auction(
        &self,
        actor: &Address,
        height: u64,
        gas_limit: Option<u64>,
        fees: FeeArgs,
    ) -> AuctionEstimate {
        let ask = engine::scheduler::policy::EstimateAsk {
            actor: *actor,
            height,
            gas_limit,
            fees,
        };
        self.engine
            .estimate(&self.timer_config, self.lane_basefee(), &ask)
    }

    /// The quote the next fire would pay under, from the current config.
    pub fn fee_quote(&self) -> FeeQuote {
        FeeQuote {
            cycle_basefee: self.basefee.cycle_basefee,
            cell_basefee: self.basefee.cell_basefee,
        }
    }

    // ---- devnet controls -------------------------------------------------------------------

    /// Sets a balance directly (a devnet control, like anvil's `setBalance`). The difference is
    /// minted or unminted so that balances + burned = supply keeps holding. Panics where
    /// [`try_set_balance`](Self::try_set_balance) fails: for tests and set-ups with known
    /// amounts; input goes through `try_set_balance`.
    pub fn set_balance(&mut self, who: &Address, amount: u128) {
        if let Err(e) = self.try_set_balance(who, amount) {
            panic!("{e}");
        }
    }

    /// [`set_balance`](Self::set_balance), refusing (`InvalidInput`, nothing changed) an amount
    /// that would take the supply past `u128::MAX`, or a state whose supply is already below
    /// the balance being unminted.
    pub fn try_set_balance(&mut self, who: &Address, amount: u128) -> Result<(), TxError> {
        let old = self.balance(who);
        let supply = if amount >= old {
            self.supply.checked_add(amount - old).ok_or_else(|| {
                TxError::InvalidInput(format!(
                    "setting the balance of {who} to {amount} takes the supply ({}) past u128::MAX",
                    self.supply
                ))
            })?
        } else {
            self.supply.checked_sub(old - amount).ok_or_else(|| {
                TxError::InvalidInput(format!(
                    "the supply ({}) is below the {} being unminted from {who}",
                    self.supply,
                    old - amount
                ))
            })?
        };
        self.supply = supply;
        self.accounts.entry(*who).or_default().balance = amount;
        self.commit.mark(StateKey::Account(*who));
        if self.open.is_none() {
            // Between blocks the change is committed now, so that the root a read returns is
            // the state's; inside an open block it is committed with the block.
            self.commit_root();
        }
        Ok(())
    }

    /// Test and bench hook: sets a balance *without* minting or unminting the difference, a
    /// state no transaction or devnet control can make (it breaks balances + burned = supply).
    /// For tests of the conservation check only.
    #[doc(hidden)]
    pub fn test_hook_set_balance_unminted(&mut self, who: &Address, amount: u128) {
        self.accounts.entry(*who).or_default().balance = amount;
        self.commit.mark(StateKey::Account(*who));
        self.root_tpl = None;
    }

    /// Test and bench hook: replaces a deployed actor's code (no transaction can), then commits
    /// the state root between blocks as [`set_balance`](Self::set_balance) does. Returns
    /// `false`, changing nothing, if no actor is deployed at `who`.
    #[doc(hidden)]
    pub fn test_hook_replace_code(&mut self, who: &Address, code: runtime::ActorCode) -> bool {
        let Some(actor) = self.actors.get_mut(who) else {
            return false;
        };
        actor.code = code;
        self.commit.mark(StateKey::Actor(*who));
        if self.open.is_none() {
            self.commit_root();
        }
        true
    }

    /// Test and bench hook: puts timers straight into the queue, skipping the validation and
    /// fees of CIP-5 §4.2, then commits the state root (so a following block pays only for its
    /// own changes). Refuses a duplicate id or a drained height, like the queue.
    #[doc(hidden)]
    pub fn test_hook_insert_timers(
        &mut self,
        timers: impl IntoIterator<Item = engine::Timer>,
    ) -> Result<(), TimerError> {
        for t in timers {
            self.engine.schedule(t)?;
        }
        self.commit_root();
        Ok(())
    }

    /// Test and bench hook: with `true`, every height is sealed as a block with a stored body
    /// and a full commit, quiet or not (see [`Sealed::Quiet`]): the reference that quiet
    /// sealing must match root for root and hash for hash.
    #[doc(hidden)]
    pub fn test_hook_no_quiet(&mut self, on: bool) {
        self.no_quiet = on;
    }

    /// Simulates a halted chain: the next block is sealed `blocks` heights later, and every
    /// timer due in between becomes due at once (CIP-5 §8, resume-after-outage).
    pub fn halt(&mut self, blocks: u64) {
        if blocks == 0 {
            return;
        }
        if self.open.is_some() {
            self.seal_block();
        }
        // Applied when the next block opens (`open_block`): until then the state is still the
        // last sealed block's, so a dump taken during the outage matches its head's root.
        self.skip_next = self
            .skip_next
            .checked_add(blocks)
            .filter(|s| {
                s.checked_add(1)
                    .and_then(|s| self.height.checked_add(s))
                    .is_some()
            })
            .expect("an outage past u64::MAX (the node's `Halt` refuses it)");
    }
}
