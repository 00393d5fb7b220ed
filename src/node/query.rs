//! The node's read requests (issue 19): one struct per question, each with a reply type that
//! serialises for the JSON-RPC API and deserialises back from it. They are the one vocabulary
//! of reads: the RPC methods answer by running them, the dashboard runs them in-process
//! ([`crate::tui::local`]) or sends them as JSON-RPC ([`crate::tui::remote`]) and assembles
//! its view from the replies once ([`crate::tui::view`]).
//!
//! | query | JSON-RPC method | reply |
//! | --- | --- | --- |
//! | [`HeadQuery`] | `devnet_head` | [`HeadView`] |
//! | [`ConfigQuery`] | `scheduler_config` | [`ConfigView`] |
//! | [`TiersQuery`] | `scheduler_tiers` | [`TiersView`] |
//! | [`BucketsQuery`] | `scheduler_buckets` | `Vec<`[`BucketView`]`>` |
//! | [`BucketQuery`] | `timer_bucket` | `Vec<`[`TimerView`]`>` |
//! | [`BucketPageQuery`](super::BucketPageQuery) | `timer_bucketPage` | [`BucketPage`](super::BucketPage) |
//! | [`DeferralsQuery`](super::DeferralsQuery) | `scheduler_deferrals` | `Vec<`[`ReasonCount`](super::ReasonCount)`>` |
//! | [`TimerQuery`] | `timer_get` | `Option<`[`TimerView`]`>` |
//! | [`TimersQuery`] | `timer_list` | `Vec<`[`TimerView`]`>` |
//! | [`EventsQuery`] | `devnet_getEvents` | `Vec<`[`EventView`]`>` |
//! | [`LaneQuery`] | `scheduler_lane` | [`LaneView`] |
//! | [`FairnessQuery`] | `scheduler_fairness` | [`FairnessView`] |
//! | [`SharesQuery`] | `scheduler_actors` | [`SharesView`] |
//! | [`AccountsQuery`] | `devnet_accounts` | `Vec<`[`AccountView`]`>` |
//! | [`NamesQuery`] | `devnet_names` | `BTreeMap<Address, String>` |
//! | [`ActorsQuery`] | `actor_list` | `Vec<Address>` |
//! | [`SnapshotsQuery`] | `devnet_snapshots` | `Vec<`[`SnapshotInfo`]`>` |

use super::core::NodeCore;
use super::error::NodeError;
use super::read;
use super::scheduler::{FairnessView, LaneView};
use super::views::{
    AccountView, EventFilter, EventView, HeadView, SnapshotInfo, TiersView, TimerFilter, TimerView,
};
use crate::engine::{Address, QueueConfig, SchedulerKind, TierMultipliers, TimerConfig, TimerId};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A read of the node's state with its typed reply (beside [`super::Request`], which
/// changes it). Running one changes nothing.
pub trait Query: Send + 'static {
    type Reply: Serialize + DeserializeOwned + Clone + PartialEq + std::fmt::Debug + Send + 'static;
    fn run(&self, node: &NodeCore) -> Result<Self::Reply, NodeError>;
    /// The sealed height this read is pinned to (a block tag), if any: the shell answers such
    /// a read off the node's thread ([`super::At`], issue 31 item 7).
    fn past_height(&self) -> Option<u64> {
        None
    }
    /// The read run on the node as of [`past_height`](Self::past_height) (already built).
    fn run_past(&self, node: &NodeCore) -> Result<Self::Reply, NodeError> {
        self.run(node)
    }
    /// The read as the node's thread leaves it: answered, or (a replay) work over shared
    /// pointers that the shell finishes on a past-read thread (issue 31 item 7). Most reads
    /// answer at once; [`run`](Self::run) must answer what this one finishes to.
    fn answer(&self, node: &NodeCore) -> Answer<Self::Reply> {
        Answer::Done(self.run(node))
    }
}

/// A read's answer as the node's thread leaves it ([`Query::answer`]).
pub enum Answer<T> {
    /// Answered on the node's thread.
    Done(Result<T, NodeError>),
    /// To finish anywhere: it holds no borrow of the node.
    Off(Box<dyn FnOnce() -> Result<T, NodeError> + Send>),
}

impl<T: 'static> Answer<T> {
    /// The answer, finished on this thread.
    pub fn finish(self) -> Result<T, NodeError> {
        match self {
            Answer::Done(r) => r,
            Answer::Off(f) => f(),
        }
    }

    /// The answer passed through `f` where it is finished.
    pub fn and_then<U>(
        self,
        f: impl FnOnce(T) -> Result<U, NodeError> + Send + 'static,
    ) -> Answer<U> {
        match self {
            Answer::Done(r) => Answer::Done(r.and_then(f)),
            Answer::Off(g) => Answer::Off(Box::new(move || g().and_then(f))),
        }
    }
}

/// The head and the node's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeadQuery;

impl Query for HeadQuery {
    type Reply = HeadView;
    fn run(&self, node: &NodeCore) -> Result<HeadView, NodeError> {
        Ok(node.head())
    }
}

/// `scheduler_config`: the timer and queue configuration in force.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConfigView {
    pub timer: TimerConfig,
    pub queue: QueueConfig,
    pub ring_size: u64,
    pub pending_timers: u64,
    /// The CIP-1 v3 §7.3 tier multipliers in force (what a tier-only timer's tip is).
    #[serde(default)]
    pub tier_multipliers: TierMultipliers,
    /// The CIP-1 v3 governable parameters in force (issue 21).
    #[serde(default)]
    pub cip1: Cip1Params,
    /// Every named variant's value in force (issue 21, `cowboy-devnet variants`).
    #[serde(default)]
    pub variants: std::collections::BTreeMap<String, String>,
}

/// CIP-1 v3's governable parameters: §7.3 tier multipliers, §8 fairness window, §10 auction cap.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cip1Params {
    pub tier_multipliers: TierMultipliers,
    pub fairness_window_blocks: u64,
    pub max_cycles_per_fire_auction: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConfigQuery;

impl Query for ConfigQuery {
    type Reply = ConfigView;
    fn run(&self, node: &NodeCore) -> Result<ConfigView, NodeError> {
        let (timer, queue) = node.config();
        let cip1 = node.chain().cip1_config();
        Ok(ConfigView {
            ring_size: queue.ring_size(),
            timer,
            queue,
            pending_timers: node.head().pending_timers,
            tier_multipliers: cip1.tier_multipliers.clone(),
            cip1: Cip1Params {
                tier_multipliers: cip1.tier_multipliers.clone(),
                fairness_window_blocks: cip1.fairness_window_blocks,
                max_cycles_per_fire_auction: cip1.max_cycles_per_fire_auction,
            },
            variants: cip1
                .variants
                .values()
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        })
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TiersQuery;

impl Query for TiersQuery {
    type Reply = TiersView;
    fn run(&self, node: &NodeCore) -> Result<TiersView, NodeError> {
        Ok(node.tiers())
    }
}

/// One coming ring height and what is due there (`scheduler_buckets`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BucketView {
    pub height: u64,
    pub timers: u64,
    /// Sum of the timers' fire budgets (`gas_limit_per_fire` bounded by the
    /// `max_cycles_per_fire` in force, Spec note 16): the lane they reserve.
    pub budget: u64,
}

/// The next height to drain and the next `count - 1` ring heights that hold timers, in height
/// order (the next height is listed even when empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BucketsQuery {
    pub count: usize,
}

impl Query for BucketsQuery {
    type Reply = Vec<BucketView>;
    fn run(&self, node: &NodeCore) -> Result<Vec<BucketView>, NodeError> {
        Ok(read::coming_buckets(node.chain(), self.count))
    }
}

/// The timers of one height in execution order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BucketQuery {
    pub height: u64,
}

impl Query for BucketQuery {
    type Reply = Vec<TimerView>;
    fn run(&self, node: &NodeCore) -> Result<Vec<TimerView>, NodeError> {
        Ok(node.bucket(self.height))
    }
}

/// A timer, pending or gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerQuery {
    pub id: TimerId,
}

impl Query for TimerQuery {
    type Reply = Option<TimerView>;
    fn run(&self, node: &NodeCore) -> Result<Option<TimerView>, NodeError> {
        Ok(node.timer(&self.id))
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimersQuery(pub TimerFilter);

impl Query for TimersQuery {
    type Reply = Vec<TimerView>;
    fn run(&self, node: &NodeCore) -> Result<Vec<TimerView>, NodeError> {
        Ok(node.timers(&self.0))
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventsQuery(pub EventFilter);

impl Query for EventsQuery {
    type Reply = Vec<EventView>;
    /// `HistoryPruned` when the filter's `from_height` asks for pruned heights (Spec note 73).
    fn run(&self, node: &NodeCore) -> Result<Vec<EventView>, NodeError> {
        node.events_kept(&self.0)
    }
}

/// The lanes of the last `last` sealed blocks (1..=`MAX_LANE_BLOCKS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneQuery {
    pub last: u64,
}

impl Query for LaneQuery {
    type Reply = LaneView;
    fn run(&self, node: &NodeCore) -> Result<LaneView, NodeError> {
        node.scheduler_lane(self.last)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FairnessQuery;

impl Query for FairnessQuery {
    type Reply = FairnessView;
    fn run(&self, node: &NodeCore) -> Result<FairnessView, NodeError> {
        Ok(node.scheduler_fairness())
    }
}

/// One actor's share of the lane (`scheduler_actors`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ShareView {
    pub actor: Address,
    /// Fires in the window.
    pub fires: u64,
    pub deferrals: u64,
    /// Its pending timers (all of them, from the queue's per-actor count).
    pub pending: u64,
    /// W(actor) in basis points as the §8 window gives it now (20,000 outside the window);
    /// what the auction weighs its timers by from the activation height on.
    pub weight_bps: u32,
}

/// `scheduler_actors`: every actor with a fire or a deferral in the window or a pending timer,
/// in address order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SharesView {
    /// The scheduler that plans the next block.
    pub scheduler: SchedulerKind,
    /// Under eip1559 the CIP-1 v3 §8 window's length; under fifo the window asked for.
    pub window_blocks: u64,
    /// The median of the fires over the actors with at least one (CIP-1 v3 §8's median,
    /// under both schedulers).
    pub median: u64,
    pub actors: Vec<ShareView>,
    /// The range the scheduler's own weight moves in, `[low, high]` in basis points (issue 34
    /// item 10, Spec note 166): eip1559's §8 W `[10000, 20000]`, cip1-v1's EMA weight
    /// `[weight_min_bps, weight_max_bps]`; absent under the schedulers with no weight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_range_bps: Option<[u32; 2]>,
}

/// Each actor's share of the lane. Under eip1559 the fires and deferrals are the §8 window's
/// own (what W counts); under fifo they are counted from the events of the last `window`
/// blocks, with the last block's deferrals (their events wait for the next block, Spec note 18).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharesQuery {
    pub window: u64,
}

impl Query for SharesQuery {
    type Reply = SharesView;
    fn run(&self, node: &NodeCore) -> Result<SharesView, NodeError> {
        Ok(read::shares(node.chain(), self.window))
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccountsQuery;

impl Query for AccountsQuery {
    type Reply = Vec<AccountView>;
    fn run(&self, node: &NodeCore) -> Result<Vec<AccountView>, NodeError> {
        Ok(node.accounts())
    }
}

/// An address's balance (`devnet_getBalance`): with [`At`](crate::node::At) a past one, read
/// on a past-read thread like every other block-tagged read (issue 31, "past reads off the
/// node's thread"; it was replayed on the node's thread, holding its blocks back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BalanceQuery(pub Address);

impl Query for BalanceQuery {
    type Reply = u128;
    fn run(&self, node: &NodeCore) -> Result<u128, NodeError> {
        Ok(node.balance(&self.0))
    }
}

/// The names that label addresses: the dev accounts', a fixture's address book, the names
/// actors were deployed with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NamesQuery;

impl Query for NamesQuery {
    type Reply = BTreeMap<Address, String>;
    fn run(&self, node: &NodeCore) -> Result<BTreeMap<Address, String>, NodeError> {
        Ok(node.names().clone())
    }
}

/// Every deployed actor, in address order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ActorsQuery;

impl Query for ActorsQuery {
    type Reply = Vec<Address>;
    fn run(&self, node: &NodeCore) -> Result<Vec<Address>, NodeError> {
        Ok(read::actors(node.chain()))
    }
}

/// The snapshots kept (id and the head height each was taken at), oldest first: what
/// `devnet_revert` can go back to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SnapshotsQuery;

impl Query for SnapshotsQuery {
    type Reply = Vec<SnapshotInfo>;
    fn run(&self, node: &NodeCore) -> Result<Vec<SnapshotInfo>, NodeError> {
        Ok(node.snapshots())
    }
}

impl NodeCore {
    /// Runs a read request.
    pub fn ask<Q: Query>(&self, q: &Q) -> Result<Q::Reply, NodeError> {
        q.run(self)
    }
}
