//! The API shape of the methods registered by hand in [`super::methods`], [`super::pool`],
//! [`super::traces`], [`super::dry_run`] and the subscriptions (issue 29, "OpenRPC derived
//! from the types"): one params struct per method as in [`super::wire`] (its doc comment the
//! summary, its fields the positional params), and the result types their writers follow.

use super::schema::{MethodSchema, method};
use super::types::Bytes;
use super::wire::ScheduleFields;
use super::wire_gov::{IntervalFields, WatchFields};
use crate::chain::EventRecord;
use crate::engine::{Address, H256, TimerId};
use crate::node::{EventFilter, ReceiptReply, StateDiff};
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value};

/// The OpenRPC document of this server: every method with its params and result, the named
/// types under `components.schemas`.
#[derive(JsonSchema)]
pub struct DiscoverParams {}

/// The OpenRPC document (an object).
#[derive(JsonSchema)]
pub struct Document(pub Map<String, Value>);

/// A sealed block: header, receipts, events, end-of-block counters; null when not kept.
#[derive(JsonSchema)]
pub struct GetBlockParams {
    /// block height
    pub height: u64,
}

/// A sealed block as the API writes it: `{header, receipts, events, eob, migrated, pending,
/// lane}` while it is in the kept history; older, its header alone with `body: null` and
/// `body_error: {reason: "HistoryPruned", code, message, first_kept, keep}` (issue 31, Spec
/// note 181); `null` above the head.
#[derive(JsonSchema)]
#[schemars(rename = "Block")]
pub struct BlockReply(pub Option<BlockReplyShape>);

/// The two shapes of a sealed block's reply.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum BlockReplyShape {
    /// A block in the kept history, whole.
    Whole(Map<String, Value>),
    /// A block older than the kept history: its header, no body, and why.
    HeaderOnly(PrunedBlockReply),
}

/// A block older than the kept history (issue 31, Spec note 183).
#[derive(JsonSchema)]
pub struct PrunedBlockReply {
    /// height, hash, parent_hash, state_root, body_hash, proposer, skipped
    pub header: Map<String, Value>,
    /// always null: the receipts and events are no longer kept
    pub body: Option<()>,
    /// why the body is not answered
    pub body_error: BodyErrorReply,
}

/// Why a block's body is not answered.
#[derive(JsonSchema)]
pub struct BodyErrorReply {
    /// the error's name: `HistoryPruned`
    pub reason: String,
    /// its JSON-RPC code (-32069)
    pub code: i32,
    pub message: String,
    /// the oldest height answered whole
    pub first_kept: u64,
    /// the kept history's length (`--history`)
    pub keep: u64,
}

/// The session as a fixture (TOML): genesis or base state, steps at their heights,
/// expectations pinning what was seen; written to `path` when given (with its base beside it,
/// `<stem>.base.json`); without `path` the reply holds the text and, for a fixture with a
/// base, the base dump (`base`) and the file name the fixture gives it (`base_file`).
#[derive(JsonSchema)]
pub struct ExportFixtureParams {
    /// the height of the state the fixture starts from (its base; its steps are those after
    /// it); default: the session's start (its genesis or loaded state)
    pub from_height: Option<u64>,
    /// a file to write; without it the reply holds the text
    pub path: Option<String>,
}

/// An exported session: `{fixture, blocks, base?, base_file?}` or, written, `{path, blocks}`.
#[derive(JsonSchema)]
pub struct ExportReply(pub Map<String, Value>);

/// A transaction by hash (issue 32): status `pending` (its block is open) or `sealed`, height,
/// index, from, nonce, kind. TransactionNotFound when the node holds none (unknown, or older
/// than the kept history).
#[derive(JsonSchema)]
pub struct GetTransactionParams {
    /// the transaction hash
    pub hash: H256,
}

/// Whether a transaction's block is open or sealed.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TxStatus {
    Pending,
    Sealed,
}

/// A transaction as `devnet_getTransaction` shows it.
#[derive(JsonSchema)]
pub struct TransactionReply {
    pub hash: H256,
    pub status: TxStatus,
    pub height: u64,
    pub index: u32,
    pub from: Address,
    pub nonce: u64,
    pub kind: String,
}

/// A receipt by hash (issue 32), shaped as every sending method's; `status: "pending"` while
/// its block is open. TransactionNotFound when the node holds none.
#[derive(JsonSchema)]
pub struct GetReceiptParams {
    /// the transaction hash
    pub hash: H256,
}

/// The open block's transactions in order (applied, not sealed: manual or interval mining), as
/// devnet_getTransaction shows each.
#[derive(JsonSchema)]
pub struct PendingTransactionsParams {}

/// How a trace is written.
#[derive(JsonSchema)]
pub struct TraceOptions {
    /// host calls with their cycles only
    pub compact: Option<bool>,
}

/// The execution trace of a transaction's call or deploy (issue 32): its host calls in order
/// with their arguments, answers, cycles and cells (storage writes with the value replaced),
/// printed lines, and the end (success, or the error with the script's line and column and
/// the host call it failed in). Kept with --trace, else rebuilt by replaying its block.
/// Options: {compact: true} for host calls with their cycles only.
#[derive(JsonSchema)]
pub struct TraceTransactionParams {
    /// the transaction hash
    pub hash: H256,
    /// {compact?}
    pub options: Option<TraceOptions>,
}

/// The execution trace of a timer's fire (as devnet_traceTransaction's): at `height`, or the
/// last fire the node knows.
#[derive(JsonSchema)]
pub struct TraceFireParams {
    /// the timer
    pub timer_id: TimerId,
    /// the fire's block (default: its last fire)
    pub height: Option<u64>,
    /// {compact?}
    pub options: Option<TraceOptions>,
}

/// The execution traces of every handler run of a sealed block, in order (transactions, then
/// fires).
#[derive(JsonSchema)]
pub struct TraceBlockParams {
    /// the block
    pub height: u64,
    /// {compact?}
    pub options: Option<TraceOptions>,
}

/// One handler run's trace.
#[derive(JsonSchema)]
pub struct TraceReply {
    /// {kind: tx, tx_hash, index}, {kind: fire, timer_id} or {kind: bid, timer_id}
    pub of: Map<String, Value>,
    pub actor: Address,
    pub entry: String,
    pub height: u64,
    /// {step: call, call, args, result, cycles, cells, error?} or {step: print, line}
    pub steps: Vec<Map<String, Value>>,
    pub cycles_start: u64,
    pub script_cycles: u64,
    pub cycles_end: u64,
    /// success, error?, at? [line, column], failed_in?, source_line?
    pub end: Map<String, Value>,
}

/// What `devnet_call` runs: a call as actor_call takes it, or one registration: `{schedule}`,
/// `{watch}` or `{interval}` (Spec note 181).
#[derive(JsonSchema)]
pub struct DryCallFields {
    pub from: Option<Address>,
    pub actor: Option<Address>,
    pub handler: Option<String>,
    pub payload: Option<Bytes>,
    /// timer_schedule's fields
    pub schedule: Option<ScheduleFields>,
    /// timer_watch's fields (cip5-draft / cip5-draft-zh)
    pub watch: Option<WatchFields>,
    /// timer_interval's fields (cip5-draft-zh)
    pub interval: Option<IntervalFields>,
}

/// `devnet_call`'s result: the receipt the transaction would get, with what else it would do.
#[derive(JsonSchema)]
pub struct DryCallReply {
    #[serde(flatten)]
    pub receipt: ReceiptReply,
    /// always true
    pub dry_run: bool,
    /// the events it would emit
    pub events: Vec<EventRecord>,
    /// a registration's (schedule, watch, interval) timer_id, as the real method names it,
    /// and created: false for a client_nonce repeat naming the bound timer (Spec note 192);
    /// absent for a call
    pub registration: Option<crate::node::Registration>,
    /// with {"trace": true}: the handler run's trace
    pub trace: Option<Vec<TraceReply>>,
    /// what it would change: storage keys (actor, key, old, new), balances (address, before,
    /// after), timers scheduled / cancelled / extended (Spec note 182)
    pub diff: StateDiff,
}

/// `devnet_call`'s options.
#[derive(JsonSchema)]
pub struct DryCallOptions {
    /// add the handler run's trace (Spec note 175)
    pub trace: Option<bool>,
    /// the trace in the trace methods' compact form
    pub compact: Option<bool>,
}

/// A dry run (issue 32, Spec note 174; anvil's eth_call): `call` as actor_call takes it, or
/// {"schedule": {..}} with timer_schedule's fields, or {"watch": {..}} / {"interval": {..}}
/// with timer_watch's / timer_interval's (Spec note 181), run against the head (or the state
/// as of `block`) and thrown away. Result: the receipt the transaction would get (a failing
/// handler: success false, status reverted, its error), with dry_run: true, its events, the
/// timers it would schedule (and registration: {timer_id, created} for one), its state diff. What
/// the real call refuses is the same named error. Nothing changes: no block, nonce, balance,
/// timer or pending transaction.
#[derive(JsonSchema)]
pub struct CallParams {
    /// what to run
    pub call: DryCallFields,
    /// trace: add the handler run's trace (Spec note 175); compact: in the trace methods'
    /// compact form
    pub options: Option<DryCallOptions>,
}

/// A subscription's id.
#[derive(JsonSchema)]
#[schemars(rename = "SubscriptionId")]
pub struct SubscriptionId(pub Value);

/// WebSocket: a `devnet_subscribeBlocks` notification per sealed block; `{"lagged": n}` when
/// n were lost.
#[derive(JsonSchema)]
pub struct SubscribeBlocksParams {}

/// WebSocket: a `devnet_subscribeEvents` notification per matching event; `{"lagged": n}` when
/// n were lost.
#[derive(JsonSchema)]
pub struct SubscribeEventsParams {
    /// which events (heights are ignored)
    pub filter: Option<EventFilter>,
}

/// WebSocket: the story of a fixture played live (serve --fixture): `{"step": {height, line,
/// text, ok, label}}` per step played, `{"expectation": {line, description, passed, detail}}`
/// per expectation checked; `{"lagged": n}` when n were lost.
#[derive(JsonSchema)]
pub struct SubscribeStoryParams {}

/// End a subscription.
#[derive(JsonSchema)]
pub struct UnsubscribeParams {
    /// the id
    pub subscription: SubscriptionId,
}

/// The methods registered by hand, in `rpc.discover`, from the types above.
pub(super) fn schemas(g: &mut SchemaGenerator) -> Vec<MethodSchema> {
    let h = &["hash"][..];
    let mut v = vec![
        method::<DiscoverParams, Document>(g, "rpc.discover", &[]),
        method::<GetBlockParams, BlockReply>(g, "devnet_getBlock", &["height"]),
        method::<ExportFixtureParams, ExportReply>(
            g,
            "devnet_exportFixture",
            &["from_height", "path"],
        ),
        method::<GetTransactionParams, TransactionReply>(g, "devnet_getTransaction", h),
        method::<GetReceiptParams, ReceiptReply>(g, "devnet_getReceipt", h),
        method::<TraceTransactionParams, Vec<TraceReply>>(
            g,
            "devnet_traceTransaction",
            &["hash", "options"],
        ),
        method::<TraceFireParams, Vec<TraceReply>>(
            g,
            "devnet_traceFire",
            &["timer_id", "height", "options"],
        ),
        method::<TraceBlockParams, Vec<TraceReply>>(g, "devnet_traceBlock", &["height", "options"]),
        method::<PendingTransactionsParams, Vec<TransactionReply>>(
            g,
            "devnet_pendingTransactions",
            &[],
        ),
        method::<CallParams, DryCallReply>(g, "devnet_call", &["call", "options"]).with_block(g),
    ];
    v.extend(subscriptions(g));
    v
}

/// The subscriptions and their ends.
fn subscriptions(g: &mut SchemaGenerator) -> Vec<MethodSchema> {
    let mut v = Vec::new();
    for (name, end) in [
        ("Blocks", "devnet_unsubscribeBlocks"),
        ("Events", "devnet_unsubscribeEvents"),
        ("Story", "devnet_unsubscribeStory"),
    ] {
        v.push(match name {
            "Blocks" => {
                method::<SubscribeBlocksParams, SubscriptionId>(g, "devnet_subscribeBlocks", &[])
            }
            "Events" => method::<SubscribeEventsParams, SubscriptionId>(
                g,
                "devnet_subscribeEvents",
                &["filter"],
            ),
            _ => method::<SubscribeStoryParams, SubscriptionId>(g, "devnet_subscribeStory", &[]),
        });
        let mut u = method::<UnsubscribeParams, bool>(g, end, &["subscription"]);
        u.summary = format!(
            "End a {} subscription.",
            name.trim_end_matches('s').to_lowercase()
        );
        v.push(u);
    }
    v
}
