//! The API shape of each command's params and of the replies written by hand (issue 29,
//! "OpenRPC derived from the types"): one struct per method whose fields are its positional
//! params, by name, in order. The struct's doc comment is the method's summary in
//! `rpc.discover`, each field's doc comment the param's description, `Option` an optional
//! param. `tests/rpc_schema.rs` checks that every command's [`RpcRequest::params`] validates
//! against the schema derived here and that the names are the decoder's.
//!
//! [`RpcRequest::params`]: super::command::RpcRequest::params

use super::types::{Amount, Bytes};
use crate::chain::ChainDump;
use crate::engine::{Address, PriorityTier, TimerId};
use crate::node::MiningMode;
use schemars::JsonSchema;

/// The params of a method that takes none.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct NoParams {}

/// Seal `n` blocks (default 1); the first holds the pending transactions.
#[derive(JsonSchema)]
pub struct MineParams {
    /// blocks to seal, 1..=1000000
    pub n: Option<u64>,
}

/// Set the mining mode.
#[derive(JsonSchema)]
pub struct SetMiningParams {
    /// {"mode": "auto"|"manual"|"interval", "block_time"?: seconds}
    pub mode: MiningMode,
}

/// Set a balance (minting or burning the difference).
#[derive(JsonSchema)]
pub struct SetBalanceParams {
    /// the account
    pub address: Address,
    /// the new balance
    pub amount: Amount,
}

/// Keep the state; returns the snapshot id (still usable after a revert).
#[derive(JsonSchema)]
pub struct SnapshotParams {}

/// Go back to a snapshot; the snapshot stays.
#[derive(JsonSchema)]
pub struct RevertParams {
    /// snapshot id
    pub id: u64,
}

/// Forget a snapshot.
#[derive(JsonSchema)]
pub struct DeleteSnapshotParams {
    /// snapshot id
    pub id: u64,
}

/// Back to a sealed height of the retained history, without a snapshot taken before (the span
/// after it leaves the chain and the session log).
#[derive(JsonSchema)]
pub struct RevertToParams {
    /// the height
    pub height: u64,
}

/// Back to genesis with the same accounts.
#[derive(JsonSchema)]
pub struct ResetParams {}

/// The whole state as a versioned dump (what `run --dump` writes), or with `page` its text a
/// page at a time (issue 31 item 7, Spec note 196). The dump is made off the node's thread.
#[derive(JsonSchema)]
pub struct DumpStateParams {
    /// absent: the whole dump (DumpTooLarge past 255 MiB of text); {"page_bytes"?: n} (1 KiB to 64 MiB, default 16 MiB) starts a paged dump and answers its first page; {"cursor": c} answers the page a cursor names
    pub page: Option<DumpPageParams>,
}

/// `devnet_dumpState`'s `page` param: one of the two fields.
#[derive(JsonSchema)]
pub struct DumpPageParams {
    /// bytes of text per page (starts a paged dump)
    pub page_bytes: Option<u64>,
    /// the `next` cursor of the page before (goes on with a paged dump)
    pub cursor: Option<String>,
}

/// What `devnet_dumpState` answers: the whole dump, or (with `page`) a page of its text.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum DumpStateResult {
    Whole(Box<ChainDump>),
    Page(super::dump_pages::DumpPage),
}

/// Replace the state with a dump.
#[derive(JsonSchema)]
pub struct LoadStateParams {
    /// a dump from devnet_dumpState or `run --dump`, or a state file's text (`serve --state`)
    pub state: StateParam,
}

// Read by `chain::dump::parse_state`. Both schemas are the chain's own types (issue 29:
// derived, not written), so a field the dump gains is in `rpc.discover` without an edit here.
/// A state: a bare chain dump (what `devnet_dumpState` answers and `run --dump` writes), or a
/// state file's envelope around one (what `serve --state` writes).
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum StateParam {
    Dump(Box<ChainDump>),
    File(StateFileEnvelope),
}

/// `{"format": "cowboy-devnet-state", "version": 1, "chain": <dump>}`.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateFileEnvelope {
    #[schemars(extend("const" = crate::chain::dump::STATE_FORMAT))]
    pub format: String,
    #[schemars(extend("const" = crate::chain::dump::STATE_VERSION))]
    pub version: u32,
    pub chain: Box<ChainDump>,
}

/// Drop a pending transaction (issue 32; anvil's anvil_dropTransaction): the open block is
/// rebuilt from the sealed head's state without it, the others applied again in order; a later
/// one that no longer applies (a nonce or funds it depended on) is dropped too. Result:
/// {dropped: [hash, ...]}, the one asked for first. An unknown or sealed hash:
/// TransactionNotFound, nothing changes.
#[derive(JsonSchema)]
pub struct DropTransactionParams {
    /// the pending transaction's hash
    pub hash: crate::engine::H256,
}

/// Send a transaction as the chain takes it (a fixture's `tx` step; devnet impersonation: any
/// `from`, no signature): a transfer, a deploy, a call, a governance instruction or a timer
/// host call made as an actor (`act_as`, sent by its deployer). Result: its receipt, which
/// says whether it reverted (an included transaction pays its fee either way). Refused
/// unsent, changing nothing, when the chain would not include it: a nonce other than the
/// sender's next, a sender who cannot pay the fee, a cycle limit over the block's, a host
/// call or instruction the chain's checks refuse (the same checks as the typed methods).
#[derive(JsonSchema)]
pub struct SendTransactionParams {
    /// {from, nonce?, cycle_limit?, kind: {type: "transfer"|"deploy"|"call"|"system"|"act_as", ...}}; unknown fields are refused by name
    pub transaction: crate::chain::Transaction,
}

/// An outage (CIP-5 §8): the next block comes `blocks` heights later.
#[derive(JsonSchema)]
pub struct HaltParams {
    /// heights skipped
    pub blocks: u64,
}

pub use crate::node::{ActivationReply, ReceiptReply, ReceiptStatus, ScheduledReply};

/// Deploy an actor; returns its address.
#[derive(JsonSchema)]
pub struct DeployParams {
    /// from? (default: first dev account), script? (Rhai source, default: a timer-ready no-op
    /// actor), balance?, name?
    pub deploy: Option<DeployFields>,
}

/// What to deploy.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct DeployFields {
    pub from: Option<Address>,
    /// Rhai source
    pub script: Option<String>,
    pub balance: Option<Amount>,
    pub name: Option<String>,
}

/// Call a handler in a transaction; returns the receipt.
#[derive(JsonSchema)]
pub struct CallParams {
    /// from, actor, handler, payload?
    pub call: CallFields,
}

/// A handler call.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct CallFields {
    pub from: Address,
    pub actor: Address,
    pub handler: String,
    pub payload: Option<Bytes>,
}

/// A transaction from `from` in which `actor` schedules a timer (CIP-5 §4.2).
#[derive(JsonSchema)]
pub struct ScheduleParams {
    /// the timer
    pub timer: ScheduleFields,
}

/// What timer_schedule would do: max cost per fire, the height it would fire at, or its
/// error. Changes nothing.
#[derive(JsonSchema)]
pub struct EstimateParams {
    /// as timer_schedule
    pub timer: ScheduleFields,
}

/// A timer to schedule (CIP-5 §4.1, CIP-1 v3 §6).
#[derive(JsonSchema)]
#[schemars(rename = "ScheduleTimer", deny_unknown_fields)]
pub struct ScheduleFields {
    pub actor: Address,
    pub height: u64,
    pub payload: Option<Bytes>,
    pub from: Option<Address>,
    pub fee_payer: Option<Address>,
    pub gas_limit: Option<u64>,
    pub expires_at: Option<u64>,
    /// a named handler (CIP-5 §4.2: it travels in the payload)
    pub handler: Option<String>,
    /// nanos per cycle (CIP-1 v3 §6); default: the default GBA's
    pub max_fee_per_cycle: Option<Amount>,
    /// nanos per cycle (CIP-1 v3 §6)
    pub max_priority_fee_per_cycle: Option<Amount>,
    /// CIP-1 v3 §7.3 multiplier on the p50 tip
    pub priority_tier: Option<PriorityTier>,
    /// CIP-1 v1's bid (whole units)
    pub bid: Option<Amount>,
    /// CIP-5 drafts' idempotent set (English §6.2)
    pub client_nonce: Option<u64>,
    /// the node's label for the timer (1 to 64 bytes of printable text; not unique; not
    /// chain state): timer_list finds the timer by it (Spec note 191)
    pub label: Option<String>,
}

/// A transaction in which `actor` cancels its timer.
#[derive(JsonSchema)]
pub struct CancelParams {
    /// actor, timer_id, from?
    pub cancel: CancelFields,
}

/// A timer to cancel.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct CancelFields {
    pub actor: Address,
    pub timer_id: TimerId,
    pub from: Option<Address>,
}

/// A transaction in which `actor` moves its timer's expiry.
#[derive(JsonSchema)]
pub struct ExtendParams {
    /// actor, timer_id, new_expires_at, from?
    pub extend: ExtendFields,
}

/// A timer's new expiry.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ExtendFields {
    pub actor: Address,
    pub timer_id: TimerId,
    pub new_expires_at: u64,
    pub from: Option<Address>,
}
