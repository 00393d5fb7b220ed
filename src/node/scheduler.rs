//! The CIP-1 v3 scheduler as the node shows and steers it: the lane per block, the fairness
//! window, the activation height (a governance request).

use super::core::{NodeCore, Request};
use super::error::NodeError;
use super::read;
use crate::engine::scheduler::FairnessRow;
use crate::engine::scheduler::kind::Weights;
use crate::engine::types::u128_str;
use crate::engine::{Address, ErrorKind, Failure, LaneStats, SchedulerKind};
use serde::{Deserialize, Serialize};

/// The most blocks `scheduler_lane` returns at once.
pub const MAX_LANE_BLOCKS: u64 = 1_000;
/// What `scheduler_lane` returns without `last`.
pub const DEFAULT_LANE_BLOCKS: u64 = 32;

/// One block's timer lane (CIP-1 v3 §3, §5): `Block.lane` with its height.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LaneBlockView {
    pub height: u64,
    pub scheduler: SchedulerKind,
    /// The lane basefee in force for the block, nanos per cycle.
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub lane_basefee: u128,
    /// The §5 utilisation the lane basefee followed, in basis points of the capacity: the
    /// cycles `utilisation_of` names (Spec note 152).
    pub utilisation_bps: u32,
    /// What `utilisation_bps` counts: `consumed` (under eip1559 with the default reading) or
    /// `reserved` (the `utilisation = reserved` variant, and the other schedulers).
    #[serde(default = "reserved_reading")]
    pub utilisation_of: String,
    pub capacity: u64,
    /// Cycles reserved by the selected timers' budgets (what the lane is gated on).
    pub reserved: u64,
    /// Cycles the fired handlers used.
    pub cycles_used: u64,
    pub gc_cycles: u64,
    pub selected: u64,
    pub deferred: u64,
    /// The median tip per cycle of the block's fires, nanos (0 when none fired).
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub p50_tip: u128,
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub tips: u128,
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub burned: u128,
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub lane_burned: u128,
    /// A live timer did not fit.
    pub full: bool,
    /// Timers fired in the block.
    #[serde(default)]
    pub fired: u64,
    /// Of `deferred`, those that did not fit (`lane` and `outbid`).
    #[serde(default)]
    pub lane_deferred: u64,
}

fn reserved_reading() -> String {
    "reserved".into()
}

impl LaneBlockView {
    fn of(height: u64, l: &LaneStats, fired: u64) -> Self {
        LaneBlockView {
            height,
            scheduler: l.scheduler,
            lane_basefee: l.basefee,
            utilisation_bps: l.utilisation_bps(),
            utilisation_of: l.utilisation_of().into(),
            capacity: l.capacity,
            reserved: l.reserved,
            cycles_used: l.used,
            gc_cycles: l.gc_cycles,
            selected: l.selected,
            deferred: l.deferred,
            p50_tip: l.p50_tip,
            tips: l.tips,
            burned: l.burned,
            lane_burned: l.lane_burned,
            full: l.full(),
            fired,
            lane_deferred: l.lane_deferred,
        }
    }
}

/// `scheduler_lane`: the recent blocks' lanes and what comes next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "SchedulerLane")]
pub struct LaneView {
    /// The scheduler that plans the next block.
    pub scheduler: SchedulerKind,
    pub activation_height: Option<u64>,
    /// The lane basefee of the next block, nanos per cycle.
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub next_lane_basefee: u128,
    /// The last block's p50 fired-timer tip, nanos per cycle: what the default GBA prices
    /// the next block's tips at (§7.1).
    #[serde(with = "u128_str", default)]
    #[schemars(with = "String")]
    pub p50_tip: u128,
    /// Oldest first; blocks the node no longer keeps are left out.
    pub blocks: Vec<LaneBlockView>,
    /// The largest `gas_limit` a schedule takes now: `max_cycles_per_fire`, bounded under
    /// eip1559 by the §10 auction cap (issue 34 item 13, Spec note 168).
    #[serde(default)]
    pub max_gas_per_fire: u64,
}

/// One actor of the fairness window (CIP-1 v3 §8).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FairnessActorView {
    pub actor: Address,
    /// The name given at deploy, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub recent_fires: u64,
    pub recent_deferrals: u64,
    /// W(actor) in basis points: 10,000 = 1, 20,000 = 2.
    pub weight_bps: u32,
}

/// `scheduler_fairness`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "SchedulerFairness")]
pub struct FairnessView {
    /// The scheduler that plans the next block: under `cip1-v1` the actors are those whose
    /// CIP-1 v1 EMA weight is away from `weight_init_bps` (issue 21 §1), with that weight,
    /// and the window and median are 0.
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// Under `cip1-v1`: the weight of an actor not listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_init_bps: Option<u32>,
    pub window_blocks: u64,
    /// The median of recent fires over the actors with at least one.
    pub median: u64,
    /// Actors in address order.
    pub actors: Vec<FairnessActorView>,
}

impl NodeCore {
    /// The lanes of the last `last` sealed blocks (1..=[`MAX_LANE_BLOCKS`]).
    pub fn scheduler_lane(&self, last: u64) -> Result<LaneView, NodeError> {
        if last == 0 || last > MAX_LANE_BLOCKS {
            return Err(NodeError::InvalidInput(format!(
                "last must be in 1..={MAX_LANE_BLOCKS}, got {last}"
            )));
        }
        let chain = self.chain();
        let head = chain.height();
        let first = head.saturating_sub(last - 1).max(1);
        let blocks = (first..=head)
            .filter_map(|h| {
                chain
                    .block(h)
                    .map(|b| LaneBlockView::of(h, &b.lane, b.eob.fired))
            })
            .collect();
        let scheduler = chain.scheduler_at(chain.pending_height());
        let max_gas_per_fire = chain
            .engine()
            .policies()
            .max_gas_per_fire(scheduler, chain.timer_config());
        Ok(LaneView {
            scheduler,
            max_gas_per_fire,
            activation_height: chain.activation_height(),
            next_lane_basefee: chain.lane_basefee(),
            p50_tip: chain.p50_tip(),
            blocks,
        })
    }

    /// The fairness window: every actor it holds, with W.
    pub fn scheduler_fairness(&self) -> FairnessView {
        let f = self.chain().fairness();
        let names = self.names();
        let chain = self.chain();
        let scheduler = chain.scheduler_at(chain.pending_height());
        let policies = chain.engine().policies();
        if scheduler.facts().weights == Weights::Ema {
            let (weights, init) = policies.ema_weights();
            return FairnessView {
                scheduler,
                weight_init_bps: Some(init),
                window_blocks: 0,
                median: 0,
                actors: weights
                    .into_iter()
                    .map(|(a, w)| FairnessActorView {
                        name: names.get(&a).cloned(),
                        actor: a,
                        recent_fires: 0,
                        recent_deferrals: 0,
                        weight_bps: w,
                    })
                    .collect(),
            };
        }
        FairnessView {
            scheduler,
            weight_init_bps: None,
            window_blocks: f.window_blocks(),
            median: policies.fairness_median(),
            actors: policies
                .fairness_rows()
                .into_iter()
                .map(|r: FairnessRow| FairnessActorView {
                    name: names.get(&r.actor).cloned(),
                    actor: r.actor,
                    recent_fires: r.recent_fires,
                    recent_deferrals: r.recent_deferrals,
                    weight_bps: r.weight_bps,
                })
                .collect(),
        }
    }
}

/// `gov_setActivationHeight`: the height from which eip1559 plans blocks (CIP-1 v3 §13.2),
/// set by a system deployer. A height not above the current one, or a change after
/// activation, is `InvalidInput`.
///
/// Spec note (CIP-1 v3 §13.2, §15): activation is "a single governance proposal"; the devnet
/// applies it at once as a node control sent by a system deployer (the senders of
/// instructions 48/49/50), not as a transaction: CIP-1 v3 allocates no opcode for it (§12).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct SetActivationHeight {
    pub from: Address,
    pub height: u64,
}

impl Request for SetActivationHeight {
    type Reply = Option<u64>;
    fn apply(self, node: &mut NodeCore) -> Result<Option<u64>, NodeError> {
        if !read::is_system_deployer(node.chain(), &self.from) {
            return Err(NodeError::Refused(Failure::new(
                ErrorKind::Unauthorized,
                format!(
                    "{} is not a system deployer: only governance sets the activation height (CIP-1 v3 §13.2)",
                    self.from
                ),
            )));
        }
        let at = node.chain().pending_height();
        node.chain_mut()
            .set_activation_height_from(&self.from, self.height)?;
        let (from, height) = (self.from, self.height);
        node.record(super::Entry::Activation { at, from, height });
        Ok(node.chain().activation_height())
    }
}
