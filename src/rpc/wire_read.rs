//! The reads' params (see [`super::wire`]): each struct's doc comment is the method's summary,
//! its fields the params before the block tag.

use crate::engine::TimerId;
use schemars::JsonSchema;

/// The dev accounts: address, balance, nonce, system_deployer, name.
#[derive(JsonSchema)]
pub struct AccountsParams {}

/// The names that label addresses (dev accounts, a fixture's address book, names given at
/// deploy): an object from address to name.
#[derive(JsonSchema)]
pub struct NamesParams {}

/// The snapshots kept, oldest first: each one's id and the head height it was taken at.
#[derive(JsonSchema)]
pub struct SnapshotsParams {}

/// Every deployed actor's address, in address order.
#[derive(JsonSchema)]
pub struct ActorsParams {}

/// Every field of a timer, its status, deferrals and event history; null when unknown.
#[derive(JsonSchema)]
pub struct TimerParams {
    /// the id
    pub timer_id: TimerId,
}

/// The timers due at a height, in execution order.
#[derive(JsonSchema)]
pub struct BucketParams {
    /// the height
    pub height: u64,
}

/// One page of the timers due at a height, in execution order (the queue's, or the eip1559
/// auction's from the activation height): the rows offset..offset+limit, the bucket's total,
/// and with timer_id the page holding that timer (issue 31).
#[derive(JsonSchema)]
pub struct BucketPageParams {
    /// the height
    pub height: u64,
    /// the first row's position in the bucket (default 0; past the end: no rows)
    pub offset: Option<u64>,
    /// rows at most (default 100, 1..=1000)
    pub limit: Option<u64>,
    /// a timer whose page to answer when it is not in the rows asked
    pub timer_id: Option<TimerId>,
    /// true: a height that came due (below the next block's) reads the next block's bucket,
    /// where its timers were carried (default false)
    pub follow_due: Option<bool>,
}

/// How many TimerDeferred events the kept blocks of sealed heights from_height..=to_height
/// hold, by reason: [{reason, count}] (issue 31; heights no longer kept count nothing).
#[derive(JsonSchema)]
pub struct DeferralsParams {
    /// the first height
    pub from_height: u64,
    /// the last height
    pub to_height: u64,
}

/// The TimerConfig, the queue sizes, the CIP-1 v3 governable parameters and the named
/// variants in force.
#[derive(JsonSchema)]
pub struct ConfigParams {}

/// Ring occupancy per slot, epoch buckets, overflow size and root (overflow_root), next
/// maintenance height, timers the last block's maintenance moved (last_migrated).
#[derive(JsonSchema)]
pub struct TiersParams {}

/// CIP-1 v3 §8 per actor with a fire or a deferral in the window: recent fires, recent
/// deferrals, W in bps (10000 = 1); the window and the median.
#[derive(JsonSchema)]
pub struct FairnessParams {}

/// The next height to drain and the next ring heights holding timers, count in all: height,
/// timers, budget (summed fire budgets, cycles).
#[derive(JsonSchema)]
pub struct BucketsParams {
    /// how many heights (default 32, at most 1000)
    pub count: Option<u64>,
}

/// Each actor with a fire or a deferral in the window or a pending timer: fires, deferrals,
/// pending (every pending timer counted), weight_bps; the next block's scheduler, the window
/// (the §8 window under eip1559, the one asked under fifo) and the median fires over the
/// actors with at least one.
#[derive(JsonSchema)]
pub struct SharesParams {
    /// window?: the fifo window in blocks (default 1000)
    pub options: Option<SharesOptions>,
}

/// `scheduler_actors`' options.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SharesOptions {
    pub window: Option<u64>,
}

/// CIP-1 v3 per block, oldest first: the scheduler, lane basefee (nanos per cycle),
/// utilisation (bps), cycles reserved and used, GC cycles, timers fired, selected, deferred and
/// lane_deferred, p50 tip (nanos); the next block's lane basefee, the last block's p50 tip
/// (p50_tip) and the activation height.
#[derive(JsonSchema)]
pub struct LaneParams {
    /// last?: how many recent blocks (default 32, at most 1000)
    pub options: Option<LaneOptions>,
}

/// `scheduler_lane`'s options.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct LaneOptions {
    pub last: Option<u64>,
}

/// The CIP-5 drafts' state (cip5-draft, cip5-draft-zh): the scheduler, the parameters, the
/// Globalbox in its frozen order (head first), the last block's Mailbox in deliver_seq order,
/// the quota skips of the last block, the state watches with their pending hits, the
/// idempotent set's bindings.
#[derive(JsonSchema)]
pub struct DraftStateParams {}
