//! One struct per change to the node, each with its typed reply ([`Request`]). A request that
//! returns `Err` changed nothing.

use super::core::{DumpCopy, MAX_MINE_PER_COMMAND, MiningMode, NodeCore, NodeEvent, Request};
use super::error::NodeError;
use super::read;
use super::registration::{self, Scheduled};
use super::txs;
use super::views::BlockView;
use crate::chain::runtime::ActorCode;
use crate::chain::{ChainDump, Receipt, Transaction, TxError, TxKind};
use crate::engine::eob::{lane_max_cost, max_cost};
use crate::engine::{
    self, Address, AuctionEstimate, ErrorKind, Failure, FeeArgs, ScheduleArgs, ScheduleCtx,
    TimerConfig, TimerId,
};
use serde::Serialize;

/// Seal `blocks` blocks (the first holds the pending transactions).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Mine {
    pub blocks: u64,
}

/// What a [`Mine`] sealed.
#[derive(Clone, Debug)]
pub struct Mined {
    /// Height of the first block sealed.
    pub first: u64,
    /// Height of the last block sealed: the new head.
    pub last: u64,
    /// The new head block.
    pub head: BlockView,
}

impl Request for Mine {
    type Reply = Mined;
    fn apply(self, node: &mut NodeCore) -> Result<Mined, NodeError> {
        if self.blocks == 0 || self.blocks > MAX_MINE_PER_COMMAND {
            return Err(NodeError::InvalidInput(format!(
                "blocks must be in 1..={MAX_MINE_PER_COMMAND}, got {}",
                self.blocks
            )));
        }
        // The heights must stay heights: checked, never wrapped.
        let pending = node.chain().pending_height();
        if pending.checked_add(self.blocks).is_none() {
            return Err(NodeError::InvalidInput(format!(
                "{} blocks after height {} pass u64::MAX",
                self.blocks,
                node.height()
            )));
        }
        // Quiet heights are jumped without being materialized (see `chain::quiet`): a long
        // jump costs what its busy heights cost.
        let first = node.chain().pending_height();
        node.mine_with(self.blocks, &mut |_, _| std::ops::ControlFlow::Continue(()));
        let head = node
            .chain()
            .last_block_shared()
            .expect("a block was just sealed");
        Ok(Mined {
            first,
            last: head.header.height,
            head,
        })
    }
}

/// Apply a transaction to the open block (sealed at once under automine).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SendTx(pub Transaction);

/// An included transaction: its receipt (which may say it reverted), and the block it was
/// sealed in if it was (automine).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TxOutcome {
    pub receipt: Receipt,
    pub sealed: Option<u64>,
}

impl Request for SendTx {
    type Reply = TxOutcome;
    fn apply(self, node: &mut NodeCore) -> Result<TxOutcome, NodeError> {
        let (receipt, sealed) = node.send(self.0)?;
        Ok(TxOutcome { receipt, sealed })
    }
}

/// Set a balance (minting or unminting the difference).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct SetBalance {
    pub address: Address,
    #[serde(with = "crate::engine::types::u128_str")]
    pub balance: u128,
}

impl Request for SetBalance {
    type Reply = ();
    fn apply(self, node: &mut NodeCore) -> Result<(), NodeError> {
        node.chain_mut()
            .try_set_balance(&self.address, self.balance)?;
        node.record(super::Entry::SetBalance {
            at: node.chain().pending_height(),
            address: self.address,
            balance: self.balance,
        });
        node.push_event(NodeEvent::BalanceSet {
            address: self.address,
            balance: self.balance.to_string(),
        });
        Ok(())
    }
}

/// Simulate an outage: the next block comes `blocks` heights later (CIP-5 §8). A pending
/// block is sealed first.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Halt {
    pub blocks: u64,
}

impl Request for Halt {
    type Reply = ();
    fn apply(self, node: &mut NodeCore) -> Result<(), NodeError> {
        let blocks = self.blocks;
        if blocks > MAX_MINE_PER_COMMAND {
            return Err(NodeError::InvalidInput(format!(
                "an outage may skip at most {MAX_MINE_PER_COMMAND} heights, got {blocks}"
            )));
        }
        // The resume height must be a height: checked, never wrapped.
        let resume = node
            .chain()
            .pending_height()
            .checked_add(blocks)
            .ok_or_else(|| {
                NodeError::InvalidInput(format!(
                    "an outage of {blocks} heights after height {} passes u64::MAX",
                    node.height()
                ))
            })?;
        if blocks == 0 {
            return Ok(());
        }
        if node.head().pending_txs > 0 {
            node.seal();
            node.report_quiet();
        }
        node.chain_mut().halt(blocks);
        let after = node.height();
        node.record(super::Entry::Halt { after, blocks });
        node.push_event(NodeEvent::Halted {
            blocks,
            resume_height: resume,
        });
        Ok(())
    }
}

/// Change the mining mode.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct SetMining(pub MiningMode);

/// Replies with the mode now in force.
impl Request for SetMining {
    type Reply = MiningMode;
    fn apply(self, node: &mut NodeCore) -> Result<MiningMode, NodeError> {
        node.set_mining(self.0)?;
        Ok(self.0)
    }
}

/// Keep the current state; returns its id. Sealed blocks are shared with the snapshot, not
/// copied. At most `max_snapshots` are kept: the oldest is dropped (`SnapshotDropped`).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Snapshot;

impl Request for Snapshot {
    type Reply = u64;
    fn apply(self, node: &mut NodeCore) -> Result<u64, NodeError> {
        Ok(node.take_snapshot())
    }
}

/// Go back to a snapshot, which stays usable (revert to it again later).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Revert {
    pub id: u64,
}

impl Request for Revert {
    type Reply = ();
    fn apply(self, node: &mut NodeCore) -> Result<(), NodeError> {
        node.revert(self.id)
    }
}

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct DeleteSnapshot {
    pub id: u64,
}

impl Request for DeleteSnapshot {
    type Reply = ();
    fn apply(self, node: &mut NodeCore) -> Result<(), NodeError> {
        node.delete_snapshot(self.id)
    }
}

/// `devnet_revertTo`: back to sealed block `height` of the retained history, without a
/// snapshot taken in advance (issue 24): the chain as of that block is rebuilt from a
/// checkpoint and the session log; what came after leaves the chain and the log.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct RevertTo {
    pub height: u64,
}

impl Request for RevertTo {
    type Reply = ();
    fn apply(self, node: &mut NodeCore) -> Result<(), NodeError> {
        node.revert_to(self.height)
    }
}

/// Back to the genesis (dev accounts funded again); snapshots are kept.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Reset;

impl Request for Reset {
    type Reply = ();
    fn apply(self, node: &mut NodeCore) -> Result<(), NodeError> {
        node.reset()
    }
}

/// The state as a dump (a pending block is sealed first).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct DumpState;

impl Request for DumpState {
    type Reply = Box<ChainDump>;
    fn apply(self, node: &mut NodeCore) -> Result<Box<ChainDump>, NodeError> {
        Ok(Box::new(node.dump()?))
    }
}

/// The state for a save (`serve --state`, issue 30, Spec note 141): as [`DumpState`], but a
/// block open with transactions is sealed first (as `devnet_mine 1` would), so that a save
/// never fails because a block is open and the open block's transactions are in it.
///
/// Issue 31 item 7: the reply is the copy to dump ([`DumpCopy::dump`]), taken on the node's
/// thread; the dump and its text are made on another thread.
#[derive(Clone, Copy, Debug)]
pub struct SaveState;

impl Request for SaveState {
    type Reply = Box<DumpCopy>;
    fn apply(self, node: &mut NodeCore) -> Result<Box<DumpCopy>, NodeError> {
        match node.dump_copy() {
            Err(NodeError::BlockOpen(_)) => {
                Mine { blocks: 1 }.apply(node)?;
                Ok(Box::new(node.dump_copy()?))
            }
            r => r.map(Box::new),
        }
    }
}

/// The state to dump on another thread (`devnet_dumpState`, issue 31 item 7): refused as
/// [`DumpState`] is (a block open with transactions is `BlockOpen`); the copy is taken on the
/// node's thread, [`DumpCopy::dump`] gives the same dump [`DumpState`] would have.
#[derive(Clone, Copy, Debug)]
pub struct DumpStateCopy;

impl Request for DumpStateCopy {
    type Reply = Box<DumpCopy>;
    fn apply(self, node: &mut NodeCore) -> Result<Box<DumpCopy>, NodeError> {
        node.dump_copy().map(Box::new)
    }
}

/// Replace the state with a dump (checked whole first: a bad dump changes nothing).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct LoadState(pub Box<ChainDump>);

impl Request for LoadState {
    type Reply = ();
    fn apply(self, node: &mut NodeCore) -> Result<(), NodeError> {
        node.load(*self.0)
    }
}

// ---- actors ---------------------------------------------------------------------------------

/// Deploy an actor. `from` defaults to the first dev account.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct DeployActor {
    pub from: Option<Address>,
    pub code: ActorCode,
    /// Where (default: derived from the sender and its nonce).
    pub address: Option<Address>,
    /// Moved from `from` to the actor.
    #[serde(with = "crate::engine::types::u128_str")]
    pub endowment: u128,
    /// A name shown by `accounts`.
    pub name: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Deployed {
    pub address: Address,
    pub receipt: Receipt,
    pub sealed: Option<u64>,
}

impl Request for DeployActor {
    type Reply = Deployed;
    fn apply(self, node: &mut NodeCore) -> Result<Deployed, NodeError> {
        let from = match self.from {
            Some(f) => f,
            None => node.default_sender()?,
        };
        let tx = Transaction::new(
            from,
            TxKind::Deploy {
                address: self.address,
                code: self.code,
                endowment: self.endowment,
            },
        );
        // Refused before it is sent: a deploy the sender cannot fund changes nothing.
        node.chain().check_tx(&tx)?;
        node.chain().check_deploy_funds(&tx)?;
        let (receipt, sealed) = node.send(tx)?;
        if !receipt.success {
            return Err(NodeError::reverted(receipt));
        }
        let address = receipt.created.expect("a deploy receipt names its actor");
        if let Some(n) = self.name {
            node.set_name(address, n);
        }
        Ok(Deployed {
            address,
            receipt,
            sealed,
        })
    }
}

/// Call a handler of an actor. A handler that fails is a receipt with `success: false`, not
/// an error.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CallActor {
    pub from: Address,
    pub actor: Address,
    pub handler: String,
    pub payload: Vec<u8>,
}

impl Request for CallActor {
    type Reply = TxOutcome;
    fn apply(self, node: &mut NodeCore) -> Result<TxOutcome, NodeError> {
        let tx = Transaction::new(
            self.from,
            TxKind::Call {
                actor: self.actor,
                handler: self.handler,
                payload: self.payload,
            },
        );
        SendTx(tx).apply(node)
    }
}

// ---- timers ---------------------------------------------------------------------------------

/// `actor` schedules a timer in a transaction from `from`.
///
/// Built field by field in tests: end the literal with `..Default::default()` so that a new
/// optional field touches none of them.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ScheduleTimer {
    pub actor: Address,
    /// The sender (default: the actor's deployer, the one account that may act as it).
    pub from: Option<Address>,
    pub args: ScheduleArgs,
    /// A label for the timer (issue 32, Spec note 191): kept by the node beside it, not by
    /// the chain (no root, fee or transaction sees it); `timer_list` finds the timer by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// A registration's `label`, if any, checked (Spec note 191): a bad one is `InvalidInput`,
/// before anything is sent.
pub(super) fn check_opt_label(label: Option<&str>) -> Result<(), NodeError> {
    match label {
        Some(l) => {
            super::views::check_label(l).map_err(|m| NodeError::InvalidInput(format!("label: {m}")))
        }
        None => Ok(()),
    }
}

/// The sender of a timer request: `from`, or the actor's deployer.
pub(super) fn act_as_sender(
    node: &NodeCore,
    actor: &Address,
    from: Option<Address>,
) -> Result<Address, NodeError> {
    match from {
        Some(f) => Ok(f),
        None => read::actor_deployer(node.chain(), actor)
            .ok_or(NodeError::Tx(TxError::UnknownActor(*actor))),
    }
}

/// A timer request's transaction, sent; a reverted one is an error naming why.
fn send_checked(node: &mut NodeCore, tx: Transaction) -> Result<TxOutcome, NodeError> {
    let (receipt, sealed) = node.send(tx)?;
    if !receipt.success {
        return Err(NodeError::reverted(receipt));
    }
    Ok(TxOutcome { receipt, sealed })
}

impl Request for ScheduleTimer {
    type Reply = Scheduled;
    fn apply(self, node: &mut NodeCore) -> Result<Scheduled, NodeError> {
        check_opt_label(self.label.as_deref())?;
        let from = act_as_sender(node, &self.actor, self.from)?;
        let client_nonce = self.args.client_nonce;
        let tx = txs::schedule(from, self.actor, self.args);
        // Refused before it is included when the schedule would fail: the chain runs the
        // host call's own checks first (`Chain::check_tx`, issues 29 and 30), so a refused
        // request changes nothing (no nonce, no fee).
        let bound = registration::nonce_bound(node, &self.actor, client_nonce);
        let out = send_checked(node, tx)?;
        let (timer_id, created) = registration::named_timer(&out.receipt, bound);
        if let Some(l) = self.label {
            node.label_timer(timer_id, l);
        }
        Ok(Scheduled {
            timer_id,
            created,
            tx_hash: out.receipt.tx_hash,
            receipt: out.receipt,
            sealed: out.sealed,
        })
    }
}

/// `actor` cancels one of its timers.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CancelTimer {
    pub actor: Address,
    pub timer_id: TimerId,
    pub from: Option<Address>,
}

impl Request for CancelTimer {
    type Reply = TxOutcome;
    fn apply(self, node: &mut NodeCore) -> Result<TxOutcome, NodeError> {
        let from = act_as_sender(node, &self.actor, self.from)?;
        let tx = txs::cancel(from, self.actor, self.timer_id);
        // The chain refuses a cancel that would fail (`Chain::check_tx` runs the host call).
        send_checked(node, tx)
    }
}

/// `actor` extends one of its timers' `expires_at`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ExtendTimer {
    pub actor: Address,
    pub timer_id: TimerId,
    pub new_expires_at: u64,
    pub from: Option<Address>,
}

impl Request for ExtendTimer {
    type Reply = TxOutcome;
    fn apply(self, node: &mut NodeCore) -> Result<TxOutcome, NodeError> {
        let from = act_as_sender(node, &self.actor, self.from)?;
        let tx = txs::extend(from, self.actor, self.timer_id, self.new_expires_at);
        // The chain refuses an extension that would fail (`Chain::check_tx` runs the host
        // call: a timer that is not live, another actor's, an expiry below its height).
        send_checked(node, tx)
    }
}

/// What a [`ScheduleTimer`] would do, without doing it: the most one fire may cost, the
/// height it would fire at, and the error it would get.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct EstimateTimer(pub ScheduleTimer);

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, serde::Deserialize)]
pub struct Estimate {
    /// `max_cost` of one fire under the current basefees (CIP-5 §6.3 step 2).
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub max_cost: u128,
    /// The timer's id if it were scheduled now.
    pub timer_id: Option<TimerId>,
    /// The height it would fire at given the queue and the lane now.
    pub fire_height: Option<u64>,
    /// Why `ScheduleTimer` would refuse it, written as the refused call would answer it:
    /// `{code, reason, message}` ([`super::command_reply::api_failure`]).
    #[serde(with = "super::command_reply::api_failure")]
    #[schemars(with = "Option<super::command_reply::api_failure::ApiFailure>")]
    pub error: Option<Failure>,
    /// Where the timer would stand in the CIP-1 v3 auction of its height now (the lane
    /// basefee, its priority and W, its rank among the timers due there and whether it would
    /// be selected); absent when the schedule would be refused.
    pub auction: Option<AuctionEstimate>,
    /// Whether the fee payer could fund one fire now (CIP-5 §5.4: a fee payer that cannot
    /// pay the fire's `max_cost` when it comes due has the timer removed, `unfunded`);
    /// absent when the schedule would be refused.
    pub funding: Option<Funding>,
}

/// The fee payer's balance beside what one fire pre-charges (CIP-5 §5.4), as of now: other
/// fires and transfers before the timer comes due can change it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Funding {
    pub fee_payer: crate::engine::Address,
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub balance: u128,
    /// `max_cost` of one fire.
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub needed: u128,
    /// `balance >= needed`: false means the fire would be removed `unfunded` if nothing
    /// changes before it comes due.
    pub funded: bool,
}

impl Funding {
    /// `fee_payer` holding `balance` against one fire's `needed`.
    pub fn of(fee_payer: crate::engine::Address, balance: u128, needed: u128) -> Funding {
        Funding {
            fee_payer,
            balance,
            needed,
            funded: balance >= needed,
        }
    }
}

impl Request for EstimateTimer {
    type Reply = Estimate;
    fn apply(self, node: &mut NodeCore) -> Result<Estimate, NodeError> {
        let from = act_as_sender(node, &self.0.actor, self.0.from)?;
        let tx = txs::schedule(from, self.0.actor, self.0.args);
        Ok(estimate(node, &tx, true))
    }
}

impl EstimateTimer {
    /// The estimate from `&NodeCore` (it changes nothing).
    pub fn estimate(self, node: &NodeCore) -> Result<Estimate, NodeError> {
        let from = act_as_sender(node, &self.0.actor, self.0.from)?;
        let tx = txs::schedule(from, self.0.actor, self.0.args);
        Ok(estimate(node, &tx, true))
    }
}

/// The checks of a schedule transaction (the transaction's, then CIP-5 §4.2's), as the engine
/// makes them when the actor's host call runs in it; with `full`, also where the timer would
/// fire and stand in its height's auction (what `timer_estimate` answers; a schedule needs
/// only the checks, whose cost does not depend on how many timers share the height).
fn estimate(node: &NodeCore, tx: &Transaction, full: bool) -> Estimate {
    let chain = node.chain();
    let cfg = read::timer_config(chain);
    let TxKind::ActAs {
        actor,
        op: crate::chain::TimerOp::ScheduleTimer(args),
    } = &tx.kind
    else {
        unreachable!("estimate of a schedule transaction");
    };
    let gas = args.gas_limit.unwrap_or(cfg.max_cycles_per_fire);
    let quote = chain.fee_quote();
    let mut est = Estimate {
        max_cost: max_cost(gas, cfg.max_cells_per_fire, &quote, 0),
        timer_id: None,
        fire_height: None,
        error: None,
        auction: None,
        funding: None,
    };
    if let Err(e) = chain.check_tx(tx) {
        est.error = Some(Failure::from_error(e.kind(), &e));
        return est;
    }
    let current = chain.pending_height();
    let ctx = ScheduleCtx {
        current_height: current,
        actor: *actor,
        tx_sender: tx.from,
        actor_nonce: chain.nonce(actor),
        actor_timers: read::actor_timers(chain, actor),
    };
    // The policy in force for the block being built makes the same checks as the chain's
    // schedule path (`chain/exec.rs`): its defaults and caps, CIP-5 §4.2, its own and the
    // drafts' §12 limits (`Chain::check_new_timer`, Spec note 128), its fee checks.
    let policy = chain.engine().policy_at(current);
    if args.client_nonce.is_some() && !policy.kind().facts().drafts {
        let e = engine::TimerError::InvalidInput(format!(
            "client_nonce needs a CIP-5 draft scheduler ({}), not {}",
            engine::SchedulerKind::draft_names(),
            policy.kind()
        ));
        est.error = Some(Failure::from_error(e.kind(), &e));
        return est;
    }
    let env = chain
        .engine()
        .schedule_env(current, cfg, chain.lane_basefee());
    let mut args = args.clone();
    let checked = policy
        .prepare_schedule(&env, &mut args)
        .and_then(|()| engine::validate_schedule(cfg, &ctx, args.clone()))
        .and_then(|t| {
            chain.check_new_timer(current, &t.0, ctx.actor_timers)?;
            policy.check_fees(&env, &args).map(|_| t)
        });
    if let Some(g) = args.gas_limit {
        est.max_cost = max_cost(g, cfg.max_cells_per_fire, &quote, 0);
    }
    match checked {
        Err(e) => est.error = Some(Failure::from_error(e.kind(), &e)),
        Ok((timer, _)) => {
            if read::live_timer(chain, &timer.timer_id).is_some() {
                est.error = Some(Failure::new(
                    ErrorKind::InvalidInput,
                    format!("timer id {} already exists", timer.timer_id),
                ));
            }
            est.timer_id = Some(timer.timer_id);
            if !full {
                return est;
            }
            est.fire_height = Some(fire_height(node, timer.height, timer.gas_limit_per_fire));
            let fees = FeeArgs {
                max_fee_per_cycle: args.max_fee_per_cycle,
                max_priority_fee_per_cycle: args.max_priority_fee_per_cycle,
                priority_tier: args.priority_tier,
            };
            // The drafts have no lane auction (their quotas pick the fires;
            // `timer_estimateDraft` ranks a fire there): no auction standing (issue 29).
            if !chain.engine().scheduler_at(timer.height).facts().drafts {
                let auction = chain.estimate_auction(actor, timer.height, args.gas_limit, fees);
                // Under eip1559 a fire also pays the lane basefee and its tip (contract
                // decision 3), at today's lane basefee.
                if auction.scheduler.facts().lane_basefee {
                    est.max_cost = lane_max_cost(
                        timer.gas_limit_per_fire,
                        cfg.max_cells_per_fire,
                        &quote,
                        auction.lane_basefee,
                        auction.priority_per_cycle,
                    );
                }
                est.auction = Some(auction);
            }
            est.funding = Some(Funding::of(
                timer.fee_payer,
                chain.balance(&timer.fee_payer),
                est.max_cost,
            ));
        }
    }
    est
}

/// The first height from `height` on whose bucket, with the timers already due there ahead
/// of it (FIFO), leaves room in the timer lane for `gas` (CIP-5 §6.5). Timers carried from
/// earlier heights are not counted: an estimate, exact on a queue without deferrals.
fn fire_height(node: &NodeCore, height: u64, gas: u64) -> u64 {
    let chain = node.chain();
    let cfg = read::timer_config(chain);
    let lane = cfg.lane_timer_cycles;
    let mut h = height;
    let mut carried: u64 = 0;
    for _ in 0..10_000 {
        let due: u64 = read::bucket(chain, h)
            .iter()
            .filter(|t| t.height == h)
            .map(|t| t.gas_limit_per_fire.min(cfg.max_cycles_per_fire))
            .fold(carried, |a, g| a.saturating_add(g));
        if due.saturating_add(gas) <= lane {
            return h;
        }
        carried = due.saturating_sub(lane);
        h = h.saturating_add(1);
    }
    h
}

// ---- governance -----------------------------------------------------------------------------

/// `SYS_CANCEL_TIMER` (48) from `from` (a system deployer).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct GovCancel {
    pub from: Address,
    pub timer_id: TimerId,
}

impl Request for GovCancel {
    type Reply = TxOutcome;
    fn apply(self, node: &mut NodeCore) -> Result<TxOutcome, NodeError> {
        let tx = txs::gov_cancel(self.from, self.timer_id);
        gov_checked(node, tx)
    }
}

/// `SYS_EXTEND_TIMER` (50) from `from` (a system deployer).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct GovExtend {
    pub from: Address,
    pub timer_id: TimerId,
    pub new_expires_at: u64,
}

impl Request for GovExtend {
    type Reply = TxOutcome;
    fn apply(self, node: &mut NodeCore) -> Result<TxOutcome, NodeError> {
        let tx = txs::gov_extend(self.from, self.timer_id, self.new_expires_at);
        gov_checked(node, tx)
    }
}

/// The config a `GovUpdateConfig` sets: whole, or the named fields of the config in force.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum ConfigChange {
    Full(TimerConfig),
    /// Field name -> new value; an unknown field or a value of the wrong type is
    /// `InvalidInput`.
    Fields(serde_json::Map<String, serde_json::Value>),
}

/// `SYS_UPDATE_TIMER_CONFIG` (49) from `from` (a system deployer).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct GovUpdateConfig {
    pub from: Address,
    pub config: ConfigChange,
}

impl Request for GovUpdateConfig {
    type Reply = TxOutcome;
    fn apply(self, node: &mut NodeCore) -> Result<TxOutcome, NodeError> {
        let config = match self.config {
            ConfigChange::Full(c) => c,
            // An update naming no field would restate the config in force and charge for it:
            // refused, as `gov_updateSchedulerConfig {}` is (issue 30).
            ConfigChange::Fields(set) if set.is_empty() => {
                return Err(NodeError::InvalidInput(
                    "no TimerConfig field given: the update would change nothing".into(),
                ));
            }
            ConfigChange::Fields(set) => merge_config_json(read::timer_config(node.chain()), &set)?,
        };
        let tx = txs::gov_update_config(self.from, config);
        gov_checked(node, tx)
    }
}

/// Overrides fields of `base` with `set` (names and types checked).
pub fn merge_config_json(
    base: &TimerConfig,
    set: &serde_json::Map<String, serde_json::Value>,
) -> Result<TimerConfig, NodeError> {
    let serde_json::Value::Object(mut t) = serde_json::to_value(base).expect("a config serializes")
    else {
        unreachable!("a config is an object");
    };
    for (k, v) in set {
        if !t.contains_key(k) {
            return Err(NodeError::InvalidInput(format!(
                "`{k}` is not a TimerConfig field"
            )));
        }
        t.insert(k.clone(), v.clone());
    }
    serde_json::from_value(serde_json::Value::Object(t))
        .map_err(|e| NodeError::InvalidInput(format!("config: {e}")))
}

/// A governance transaction. The chain refuses, unsent, what the instruction would refuse
/// (`Chain::check_system`, which `apply_tx` runs first through `check_tx`: a sender that is not a system
/// deployer, an extension of a timer that is not live or into the past, a config that does
/// not validate, draft fields under a scheduler without the drafts): a refused one changes
/// nothing (issues 29 and 30).
pub(super) fn gov_checked(node: &mut NodeCore, tx: Transaction) -> Result<TxOutcome, NodeError> {
    send_checked(node, tx)
}
