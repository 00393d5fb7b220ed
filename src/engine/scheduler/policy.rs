//! The scheduler policies and the CIP-1 v3 integration: the one small interface the engine
//! plans a block through ([`Policy`]), the CIP-1 v3 configuration and state ([`Cip1Config`],
//! [`Cip1State`]), schedule-time fee validation (§6), the GBAs (§7), the per-block lane
//! statistics ([`LaneStats`]) and the auction estimate ([`AuctionEstimate`]).
//!
//! A policy is a unit value behind `&'static dyn Policy` ([`policy`]): `fifo` (CIP-5 §5.1, the
//! FIFO plan of [`crate::engine::eob::plan`], unchanged) and `eip1559` (CIP-1 v3 §3 steps 4–10).
//! An earlier design (`../shared/spec/`) joins as one more implementation of [`Policy`] and one
//! more [`SchedulerKind`]; nothing else in the engine or the chain names a policy.

use super::fairness::Fairness;
use super::lane::{LaneParams, PRICE_SCALE, next_lane_basefee, p50_tip};
use super::select::{Candidate, effective_priority, select};
use crate::engine::config::{GC_CYCLES_PER_REMOVAL, TimerConfig};
use crate::engine::eob::{
    self, Deferral, EobPlan, FeeQuote, Fire, Ledger, Removal, defer, fire_budget, lane_max_cost,
    record_pending_deferrals, remove_under_gc,
};
use crate::engine::error::TimerError;
use crate::engine::events::{DeferReason, TimerEvent};
use crate::engine::queue::CalendarQueue;
use crate::engine::timer::FeeCaps;
use crate::engine::types::{Address, HashEncode, HashEncoder, TimerId, u128_str};
use crate::engine::{ScheduleArgs, SchedulerKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One in basis points.
const BPS: u128 = 10_000;

// ---- priority tiers (§7.3) ---------------------------------------------------------------------

/// CIP-1 v3 §7.3 `PriorityTier`: a multiplier on the p50 tip (`priority_tier` in
/// `schedule_timer`). Serde: `economy`, `standard`, `fast`, `urgent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriorityTier {
    Economy,
    Standard,
    Fast,
    Urgent,
}

impl PriorityTier {
    pub const ALL: [PriorityTier; 4] = [
        PriorityTier::Economy,
        PriorityTier::Standard,
        PriorityTier::Fast,
        PriorityTier::Urgent,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            PriorityTier::Economy => "economy",
            PriorityTier::Standard => "standard",
            PriorityTier::Fast => "fast",
            PriorityTier::Urgent => "urgent",
        }
    }

    /// The one-byte tag hashes commit to (1..=4).
    pub const fn tag(self) -> u8 {
        match self {
            PriorityTier::Economy => 1,
            PriorityTier::Standard => 2,
            PriorityTier::Fast => 3,
            PriorityTier::Urgent => 4,
        }
    }
}

impl std::fmt::Display for PriorityTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl std::str::FromStr for PriorityTier {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PriorityTier::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| {
                format!("`{s}` is not a priority tier (expected economy, standard, fast or urgent)")
            })
    }
}

impl HashEncode for PriorityTier {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u8(self.tag());
    }
}

/// CIP-1 v3 §7.3: the tier multipliers in basis points of 1 (0.8, 1.0, 1.5, 2.5 as 8,000,
/// 10,000, 15,000, 25,000: fixed point, no floats), stored with the CIP-1 config and
/// governance-tunable like it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TierMultipliers {
    pub economy: u32,
    pub standard: u32,
    pub fast: u32,
    pub urgent: u32,
}

impl Default for TierMultipliers {
    fn default() -> Self {
        TierMultipliers {
            economy: 8_000,
            standard: 10_000,
            fast: 15_000,
            urgent: 25_000,
        }
    }
}

impl TierMultipliers {
    pub fn bps(&self, t: PriorityTier) -> u32 {
        match t {
            PriorityTier::Economy => self.economy,
            PriorityTier::Standard => self.standard,
            PriorityTier::Fast => self.fast,
            PriorityTier::Urgent => self.urgent,
        }
    }

    /// `p50 × multiplier / 10,000`, floored (§7.3 "1.5 × p50_priority_tip").
    pub fn apply(&self, t: PriorityTier, p50: u128) -> u128 {
        p50.saturating_mul(self.bps(t) as u128) / BPS
    }
}

// ---- configuration -----------------------------------------------------------------------------

/// The CIP-1 v3 parameters (`[cip1]` in a fixture, `Genesis::cip1`), governance-tunable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Cip1Config {
    /// §5: target 50 %, step ±12.5 %, floor (Spec note 45).
    pub lane: LaneParams,
    /// §8 `FAIRNESS_WINDOW_BLOCKS` (1,000).
    pub fairness_window_blocks: u64,
    /// §10 `MAX_CYCLES_PER_FIRE_AUCTION_PHASE` (250,000).
    pub max_cycles_per_fire_auction: u64,
    /// §7.3.
    pub tier_multipliers: TierMultipliers,
    /// §7.2: the cycle budget of one custom GBA call (Spec note 53; 50,000).
    pub gba_cycles: u64,
    /// Contract decision 9 (open point 11): from this height on, a `bid` is rejected
    /// `TimerArgDeprecated`; `None` = the activation height (§13.2 "post-activation: rejected").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bid_deprecation_end: Option<u64>,
}

impl Default for Cip1Config {
    fn default() -> Self {
        Cip1Config {
            lane: LaneParams::default(),
            fairness_window_blocks: super::fairness::FAIRNESS_WINDOW_BLOCKS,
            max_cycles_per_fire_auction: 250_000,
            tier_multipliers: TierMultipliers::default(),
            gba_cycles: 50_000,
            bid_deprecation_end: None,
        }
    }
}

impl Cip1Config {
    /// Rejects parameters under which the lane could not work.
    pub fn validate(&self) -> Result<(), TimerError> {
        let bad = |m: &str| Err(TimerError::InvalidInput(format!("cip1: {m}")));
        if self.lane.target_bps == 0 || self.lane.target_bps > 10_000 {
            return bad("lane.target_bps must be in 1..=10000");
        }
        if self.lane.max_step_bps == 0 || self.lane.max_step_bps > 10_000 {
            return bad("lane.max_step_bps must be in 1..=10000");
        }
        if self.lane.min_basefee_nanos == 0 {
            return bad("lane.min_basefee_nanos must be at least 1 (a basefee of 0 never rises)");
        }
        if self.fairness_window_blocks == 0 {
            return bad("fairness_window_blocks must be at least 1");
        }
        if self.max_cycles_per_fire_auction == 0 {
            return bad("max_cycles_per_fire_auction must be at least 1");
        }
        if self.gba_cycles == 0 || self.gba_cycles > 10_000_000 {
            return bad("gba_cycles must be in 1..=10000000");
        }
        Ok(())
    }
}

impl HashEncode for Cip1Config {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u32(self.lane.target_bps);
        e.u32(self.lane.max_step_bps);
        e.u128(self.lane.min_basefee_nanos);
        e.u64(self.fairness_window_blocks);
        e.u64(self.max_cycles_per_fire_auction);
        let t = &self.tier_multipliers;
        for m in [t.economy, t.standard, t.fast, t.urgent] {
            e.u32(m);
        }
        e.u64(self.gba_cycles);
        self.bid_deprecation_end.hash_encode(e);
    }
}

// ---- state -------------------------------------------------------------------------------------

/// The CIP-1 v3 state of the engine (dumped, and in the state root once the chain has any
/// CIP-1 setting: see `Engine::cip1_root_part`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Cip1State {
    pub config: Cip1Config,
    /// The first height planned by `eip1559` (Spec note 49); `None`: never.
    pub activation_height: Option<u64>,
    /// The lane basefee in force for the next block, nanos per cycle (§5); `None` before
    /// activation, when it equals the cycle basefee (§13.2 table).
    #[serde(with = "crate::engine::types::opt_u128_str")]
    pub lane_basefee: Option<u128>,
    /// The last block's p50 fired-timer tip, nanos per cycle (§7.1; 0 on a cold start).
    #[serde(with = "u128_str")]
    pub p50_tip: u128,
    /// Cycles the last block used, transactions and timers (§7.2 `last_block_cycle_usage`),
    /// tracked once an activation height is set.
    pub last_block_cycles: u64,
    /// The §8 window.
    pub fairness: Fairness,
}

impl Cip1State {
    pub fn new(config: Cip1Config, activation_height: Option<u64>) -> Self {
        Cip1State {
            fairness: Fairness::new(config.fairness_window_blocks),
            config,
            activation_height,
            ..Default::default()
        }
    }

    /// The scheduler that plans the block at `height` (Spec note 49).
    pub fn scheduler_at(&self, height: u64) -> SchedulerKind {
        match self.activation_height {
            Some(a) if height >= a => SchedulerKind::Eip1559,
            _ => SchedulerKind::Fifo,
        }
    }

    /// How many idle heights from `first` on, at most `max`, leave this state as it is (the
    /// long jump over quiet heights, `Chain::jump_quiet`): `None` when an idle block at `first`
    /// would change it (it is the activation block, or the lane basefee is above its floor, the
    /// last p50 tip or the last block's cycles are not 0, or the fairness window is not empty);
    /// else `max`, cut below the activation height, whose block starts the lane.
    pub fn rest_heights(&self, first: u64, lane_capacity: u64, max: u64) -> Option<u64> {
        if self.activation_height.is_some() && self.last_block_cycles != 0 {
            return None;
        }
        match self.scheduler_at(first) {
            SchedulerKind::Eip1559 => {
                let basefee = self.lane_basefee?;
                let still = self.p50_tip == 0
                    && self.fairness.is_idle()
                    && next_lane_basefee(basefee, 0, lane_capacity, &self.config.lane) == basefee;
                still.then_some(max)
            }
            SchedulerKind::Fifo => Some(match self.activation_height {
                Some(a) if a > first => max.min(a - first),
                _ => max,
            }),
        }
    }

    /// The lane basefee in force for the next block, nanos per cycle: before activation the
    /// cycle basefee (§13.2 "equal to global cycle basefee").
    pub fn lane_basefee(&self, cycle_basefee: u128) -> u128 {
        self.lane_basefee
            .unwrap_or_else(|| cycle_basefee.saturating_mul(PRICE_SCALE))
    }

    /// Whether the state root commits this state: once any CIP-1 setting exists. A chain that
    /// never activates, with the default config, keeps CIP-5's root exactly.
    pub fn committed(&self) -> bool {
        self.activation_height.is_some() || self.config != Cip1Config::default()
    }

    /// The height from which `bid` is rejected (Spec note 52).
    pub fn bid_deprecation_end(&self) -> Option<u64> {
        self.config.bid_deprecation_end.or(self.activation_height)
    }

    /// The state's bytes for the state root, with the carry record of the pending deferrals.
    pub fn root_bytes(&self, deferrals: &[Deferral]) -> Vec<u8> {
        let mut e = HashEncoder::new(b"cowboy-devnet/cip1/1");
        self.config.hash_encode(&mut e);
        self.activation_height.hash_encode(&mut e);
        self.lane_basefee.hash_encode(&mut e);
        e.u128(self.p50_tip);
        e.u64(self.last_block_cycles);
        HashEncode::hash_encode(&self.fairness, &mut e);
        e.length(deferrals.len());
        for d in deferrals {
            d.timer_id.hash_encode(&mut e);
            e.u32(d.carried);
        }
        e.finish().to_vec()
    }
}

// ---- lane statistics ---------------------------------------------------------------------------

/// One block's timer lane, for reports, the RPC and the dashboard. Filled under FIFO too
/// (basefee = cycle basefee × SCALE, no tips); quiet heights synthesize it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LaneStats {
    pub scheduler: SchedulerKind,
    /// The lane basefee in force for this block, nanos per cycle.
    #[serde(with = "u128_str")]
    pub basefee: u128,
    /// `LANE_TIMER_CYCLES`.
    pub capacity: u64,
    /// Lane cycles reserved by the selected timers' budgets (what the basefee follows).
    pub reserved: u64,
    /// Lane cycles the fired handlers used.
    pub used: u64,
    pub gc_cycles: u64,
    /// Timers selected (pre-charged) to fire.
    pub selected: u64,
    pub deferred: u64,
    /// Of `deferred`, those that did not fit the room left (`lane` and `outbid`).
    pub lane_deferred: u64,
    /// The p50 tip of this block's fired timers, nanos per cycle (the next block's default).
    #[serde(with = "u128_str")]
    pub p50_tip: u128,
    /// Tips paid to the proposer (base units).
    #[serde(with = "u128_str")]
    pub tips: u128,
    /// Burned by the fires (base units), the lane basefee part included.
    #[serde(with = "u128_str")]
    pub burned: u128,
    /// The lane basefee part of `burned` (§5 "tracked apart").
    #[serde(with = "u128_str")]
    pub lane_burned: u128,
}

impl LaneStats {
    /// `reserved / capacity` in basis points (the §5 utilisation).
    pub fn utilisation_bps(&self) -> u32 {
        if self.capacity == 0 {
            return 0;
        }
        ((self.reserved.min(self.capacity) as u128 * BPS) / self.capacity as u128) as u32
    }

    /// Whether the lane was full: a timer did not fit the room left (`lane` or `outbid`), or
    /// the reservations took the whole capacity.
    pub fn full(&self) -> bool {
        self.lane_deferred > 0 || (self.capacity > 0 && self.reserved >= self.capacity)
    }
}

// ---- GBAs (§7) ---------------------------------------------------------------------------------

/// CIP-1 v3 §7.2: what a GBA is told, every field of the spec's context. Prices of the lane
/// and tips in nanos per cycle; CIP-3 basefees in base units.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GbaContext {
    pub trigger_block_height: u64,
    pub current_block_height: u64,
    #[serde(with = "u128_str")]
    pub basefee_cycle: u128,
    #[serde(with = "u128_str")]
    pub basefee_cell: u128,
    #[serde(with = "u128_str")]
    pub basefee_lane_timer: u128,
    pub last_block_cycle_usage: u64,
    #[serde(with = "u128_str")]
    pub previous_block_p50_priority_tip_per_cycle: u128,
    #[serde(with = "u128_str")]
    pub owner_actor_balance: u128,
}

/// What a GBA answers (§7.1 `TxFeeParams`, cycle side; the cell side is the CIP-3 cell basefee
/// without a tip, §7.1). A field it leaves out takes the default GBA's value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GbaBid {
    #[serde(default, with = "crate::engine::types::opt_u128_str")]
    pub max_fee_per_cycle: Option<u128>,
    #[serde(default, with = "crate::engine::types::opt_u128_str")]
    pub max_priority_fee_per_cycle: Option<u128>,
}

/// CIP-1 v3 §7.1, normative: `max_fee = 2 × lane basefee`, `tip = previous block's p50`
/// (0 on a cold start), scaled by the tier's multiplier when one is given (§7.3; `standard`
/// is 1.0).
pub fn default_gba(
    lane_basefee: u128,
    p50: u128,
    tier: Option<PriorityTier>,
    cfg: &Cip1Config,
) -> (u128, u128) {
    let tip = match tier {
        Some(t) => cfg.tier_multipliers.apply(t, p50),
        None => p50,
    };
    (lane_basefee.saturating_mul(2), tip)
}

/// The fee parameters of a schedule request (the estimate's input).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeeArgs {
    #[serde(default, with = "crate::engine::types::opt_u128_str")]
    pub max_fee_per_cycle: Option<u128>,
    #[serde(default, with = "crate::engine::types::opt_u128_str")]
    pub max_priority_fee_per_cycle: Option<u128>,
    #[serde(default)]
    pub priority_tier: Option<PriorityTier>,
}

impl FeeArgs {
    fn of(caps: Option<&FeeCaps>) -> FeeArgs {
        caps.map_or_else(FeeArgs::default, |c| FeeArgs {
            max_fee_per_cycle: c.max_fee_per_cycle,
            max_priority_fee_per_cycle: c.max_priority_fee_per_cycle,
            priority_tier: c.priority_tier,
        })
    }

    /// Whether a GBA has anything left to price.
    fn complete(&self) -> bool {
        self.max_fee_per_cycle.is_some()
            && (self.max_priority_fee_per_cycle.is_some() || self.priority_tier.is_some())
    }
}

/// Resolves a timer's `(max_fee_per_cycle, max_priority_fee_per_cycle)` at fire time.
///
/// Spec note (CIP-1 v3 §6, §7, §13.2 "caller migration"): each parameter is taken, in this
/// order, from the schedule call, then (for the tip) from its `priority_tier` (§7.3, a
/// multiple of the fire-time p50), then from the actor's custom GBA (§7.2), then from the
/// default GBA (§7.1). A custom GBA is only called when the schedule left something to price.
fn resolve(
    fees: FeeArgs,
    gba: Option<GbaBid>,
    default: (u128, u128),
    cfg: &Cip1Config,
    p50: u128,
) -> (u128, u128) {
    let gba = gba.unwrap_or_default();
    let max_fee = fees
        .max_fee_per_cycle
        .or(gba.max_fee_per_cycle)
        .unwrap_or(default.0);
    let tip = fees
        .max_priority_fee_per_cycle
        .or(fees
            .priority_tier
            .map(|t| cfg.tier_multipliers.apply(t, p50)))
        .or(gba.max_priority_fee_per_cycle)
        .unwrap_or(default.1);
    (max_fee, tip)
}

/// §3 step 6: `min(max_priority_fee, max_fee − lane basefee)`; `None` when `max_fee` is below
/// the basefee (open point 9: the timer waits, Spec note 54).
pub fn priority_per_cycle(max_fee: u128, max_priority: u128, lane_basefee: u128) -> Option<u128> {
    max_fee
        .checked_sub(lane_basefee)
        .map(|room| room.min(max_priority))
}

// ---- the policy interface ----------------------------------------------------------------------

/// What a schedule-time hook sees.
#[derive(Clone, Copy, Debug)]
pub struct ScheduleEnv<'a> {
    /// The height of the block whose transaction schedules.
    pub height: u64,
    pub cfg: &'a TimerConfig,
    pub cip1: &'a Cip1State,
    /// The lane basefee in force for this block, nanos per cycle.
    pub lane_basefee: u128,
}

/// What a schedule-time hook decided beyond the CIP-5 checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScheduleFees {
    /// The CIP-1 v3 extension to store on the timer, if any fee parameter was given.
    pub caps: Option<FeeCaps>,
    /// `(stated, clamped)` when the tip was clamped (§6 `TimerPriorityClampedAtSchedule`).
    pub clamped: Option<(u128, u128)>,
}

/// What the per-block plan step sees.
pub struct PlanEnv<'a> {
    pub height: u64,
    pub cfg: &'a TimerConfig,
    pub quote: &'a FeeQuote,
    pub cip1: &'a Cip1State,
    /// The lane basefee in force for this block, nanos per cycle.
    pub lane_basefee: u128,
}

/// A scheduler policy: the schedule-time hooks and the per-block plan step.
pub trait Policy: Sync {
    fn kind(&self) -> SchedulerKind;

    /// Fills the policy's defaults into a schedule request and rejects what the policy forbids,
    /// before the CIP-5 §4.2 checks (which are every policy's).
    fn prepare_schedule(
        &self,
        env: &ScheduleEnv<'_>,
        args: &mut ScheduleArgs,
    ) -> Result<(), TimerError>;

    /// Validates the fee parameters of a request that passed the CIP-5 checks.
    fn check_fees(
        &self,
        env: &ScheduleEnv<'_>,
        args: &ScheduleArgs,
    ) -> Result<ScheduleFees, TimerError>;

    /// Classifies the timers due at `env.height`, selects and pre-charges the fires.
    fn plan(
        &self,
        queue: &mut CalendarQueue,
        env: &PlanEnv<'_>,
        ledger: &mut dyn Ledger,
    ) -> EobPlan;
}

/// The policy of a kind.
pub fn policy(kind: SchedulerKind) -> &'static dyn Policy {
    match kind {
        SchedulerKind::Fifo => &Fifo,
        SchedulerKind::Eip1559 => &Eip1559,
    }
}

/// Contract decision 9 (open point 11), every policy: `bid` is accepted and ignored before
/// `bid_deprecation_end` (by default the activation height), rejected `TimerArgDeprecated` at
/// and after it; with no activation and no configured end, always accepted and ignored.
fn check_bid(env: &ScheduleEnv<'_>, args: &ScheduleArgs) -> Result<(), TimerError> {
    if args.bid.is_none() {
        return Ok(());
    }
    match env.cip1.bid_deprecation_end() {
        Some(end) if env.height >= end => Err(TimerError::ArgDeprecated(format!(
            "`bid` was withdrawn by CIP-1 v3 (§6); its deprecation window ended at height {end}: use max_fee_per_cycle / max_priority_fee_per_cycle"
        ))),
        _ => Ok(()),
    }
}

/// Checks the tip arguments' shape (both a tip and a tier is ambiguous).
fn check_tip_args(args: &ScheduleArgs) -> Result<(), TimerError> {
    if args.max_priority_fee_per_cycle.is_some() && args.priority_tier.is_some() {
        return Err(TimerError::InvalidInput(
            "give max_priority_fee_per_cycle or priority_tier, not both (§7.3: the tier sets the tip)".into(),
        ));
    }
    Ok(())
}

fn caps_of(args: &ScheduleArgs) -> Option<FeeCaps> {
    args.has_fee_params().then(|| FeeCaps {
        max_fee_per_cycle: args.max_fee_per_cycle,
        max_priority_fee_per_cycle: args.max_priority_fee_per_cycle,
        priority_tier: args.priority_tier,
        ..Default::default()
    })
}

/// CIP-5's FIFO (the default before activation).
pub struct Fifo;

impl Policy for Fifo {
    fn kind(&self) -> SchedulerKind {
        SchedulerKind::Fifo
    }

    fn prepare_schedule(
        &self,
        env: &ScheduleEnv<'_>,
        args: &mut ScheduleArgs,
    ) -> Result<(), TimerError> {
        check_bid(env, args)
    }

    /// Spec note (CIP-1 v3 §13.2): before activation the fee parameters are stored as given,
    /// for the auction after activation, and not checked against a lane price (FIFO has none;
    /// the fire-time rules, Spec note 54 and the §3 step 6 `min`, apply to them then).
    fn check_fees(
        &self,
        _: &ScheduleEnv<'_>,
        args: &ScheduleArgs,
    ) -> Result<ScheduleFees, TimerError> {
        check_tip_args(args)?;
        Ok(ScheduleFees {
            caps: caps_of(args),
            clamped: None,
        })
    }

    fn plan(
        &self,
        queue: &mut CalendarQueue,
        env: &PlanEnv<'_>,
        ledger: &mut dyn Ledger,
    ) -> EobPlan {
        eob::plan(queue, env.height, env.cfg, env.quote, ledger)
    }
}

/// CIP-1 v3's hybrid: EIP-1559 lane basefee, priority tips, W(actor), greedy fill.
pub struct Eip1559;

impl Policy for Eip1559 {
    fn kind(&self) -> SchedulerKind {
        SchedulerKind::Eip1559
    }

    /// Contract decision 7 (§10): after activation the default `gas_limit` is
    /// `MAX_CYCLES_PER_FIRE_AUCTION_PHASE` (250,000, bounded by `max_cycles_per_fire`) and a
    /// larger one is `InvalidInput`.
    fn prepare_schedule(
        &self,
        env: &ScheduleEnv<'_>,
        args: &mut ScheduleArgs,
    ) -> Result<(), TimerError> {
        check_bid(env, args)?;
        let cap = env.cip1.config.max_cycles_per_fire_auction;
        match args.gas_limit {
            None => args.gas_limit = Some(cap.min(env.cfg.max_cycles_per_fire)),
            Some(g) if g > cap => {
                return Err(TimerError::InvalidInput(format!(
                    "gas_limit {g} is above MAX_CYCLES_PER_FIRE_AUCTION_PHASE {cap} (CIP-1 v3 §10)"
                )));
            }
            Some(_) => {}
        }
        Ok(())
    }

    /// CIP-1 v3 §6 scheduling-time validation against the lane basefee in force for the
    /// scheduling block: `max_fee_per_cycle` below it is `TimerRejectedBelowBasefee`; a tip
    /// above `max_fee − basefee` is clamped and reported.
    ///
    /// Spec note (§6): the clamp needs a `max_fee_per_cycle`; when the call leaves it to the
    /// GBA (priced at fire time) the stated tip is stored as given and bounded at fire time by
    /// §3 step 6's `min`.
    fn check_fees(
        &self,
        env: &ScheduleEnv<'_>,
        args: &ScheduleArgs,
    ) -> Result<ScheduleFees, TimerError> {
        check_tip_args(args)?;
        let mut caps = caps_of(args);
        let mut clamped = None;
        if let Some(max_fee) = args.max_fee_per_cycle {
            if max_fee < env.lane_basefee {
                return Err(TimerError::RejectedBelowBasefee(format!(
                    "max_fee_per_cycle {max_fee} is below the lane basefee {} (nanos per cycle)",
                    env.lane_basefee
                )));
            }
            let room = max_fee - env.lane_basefee;
            if let Some(stated) = args.max_priority_fee_per_cycle
                && stated > room
            {
                clamped = Some((stated, room));
                if let Some(c) = caps.as_mut() {
                    c.max_priority_fee_per_cycle = Some(room);
                }
            }
        }
        Ok(ScheduleFees { caps, clamped })
    }

    fn plan(
        &self,
        queue: &mut CalendarQueue,
        env: &PlanEnv<'_>,
        ledger: &mut dyn Ledger,
    ) -> EobPlan {
        plan_eip1559(queue, env, ledger)
    }
}

/// One due timer that passed classification, with its price.
struct Priced {
    due: crate::engine::queue::DueTimer,
    budget: u64,
    priority: u128,
    max_cost: u128,
}

/// CIP-1 v3 §3 steps 4–9 for the block at `env.height` (step 10, the fairness counters, and
/// the next lane basefee follow the block's execution: `Engine::end_block`).
///
/// For each due timer, in bucket order:
/// 1. TTL expired → GC lane (§9, CIP-5 §5.4 path 3), as under FIFO.
/// 2. Its fee parameters are resolved ([`resolve`]; a custom GBA is called here, read-only,
///    against the balances the transaction phase left: no pre-charge has happened yet, so the
///    GBAs of one block see the same state whatever their order).
/// 3. `balance(fee_payer) < max_cost` (Spec note 50, with its tip; a timer below the
///    basefee is checked with a tip of 0) → GC lane (path 2), `required` = that `max_cost`.
/// 4. `max_fee < lane basefee` → deferred `below_basefee` (Spec note 54).
/// 5. Otherwise a candidate: `priority = min(max_priority, max_fee − basefee)`, W(actor) from
///    the window as it stood before this block (§3 step 10: this block's fires count from the
///    next).
///
/// Then [`select`] (effective priority desc, `timer_id` asc; greedy fill of
/// `lane_timer_cycles`; over the per-fire cap → `over_cap`); the selected timers are
/// pre-charged in selection order (a fee payer that can no longer pay is path 2, §3 step 8)
/// and fire in it; the others are carried with their reason (§3 step 9), each counted in its
/// record.
fn plan_eip1559(queue: &mut CalendarQueue, env: &PlanEnv<'_>, ledger: &mut dyn Ledger) -> EobPlan {
    let (height, cfg, quote, cip1) = (env.height, env.cfg, env.quote, env.cip1);
    let basefee = env.lane_basefee;
    let mut out = EobPlan::default();
    record_pending_deferrals(queue, height, &mut out);
    let due = queue.take_due(height);
    out.stats.due = due.len() as u64;
    let mut deferrals = Vec::new();
    let mut carried = Vec::new();
    let mut gc_left = cfg.gc_cycles_per_block;
    let mut priced: Vec<Priced> = Vec::new();
    let mut cands: Vec<Candidate> = Vec::new();
    let default = default_gba(basefee, cip1.p50_tip, None, &cip1.config);

    for d in due {
        let t = queue.due(&d);
        let expired = height > t.expires_at;
        let budget = fire_budget(t, cfg);
        let (priority, max_cost, fallback) = if expired {
            (None, 0, None)
        } else {
            let fees = FeeArgs::of(t.fee_caps.as_deref());
            let (bid, fallback) = if fees.complete() {
                (None, None)
            } else {
                let ctx = GbaContext {
                    trigger_block_height: t.height,
                    current_block_height: height,
                    basefee_cycle: quote.cycle_basefee,
                    basefee_cell: quote.cell_basefee,
                    basefee_lane_timer: basefee,
                    last_block_cycle_usage: cip1.last_block_cycles,
                    previous_block_p50_priority_tip_per_cycle: cip1.p50_tip,
                    owner_actor_balance: ledger.balance(&t.actor_address),
                };
                match ledger.gas_bid(t, &ctx, cip1.config.gba_cycles) {
                    None => (None, None),
                    Some(Ok(b)) => (Some(b), None),
                    Some(Err(kind)) => (None, Some(kind)),
                }
            };
            let (max_fee, max_prio) = resolve(fees, bid, default, &cip1.config, cip1.p50_tip);
            let priority = priority_per_cycle(max_fee, max_prio, basefee);
            let cost = lane_max_cost(
                budget,
                cfg.max_cells_per_fire,
                quote,
                basefee,
                priority.unwrap_or(0),
            );
            (priority, cost, fallback)
        };
        if let Some(reason) = fallback {
            out.events.push(TimerEvent::GbaFallback {
                timer_id: t.timer_id,
                actor: t.actor_address,
                reason,
            });
        }
        let available = if expired {
            0
        } else {
            ledger.balance(&t.fee_payer)
        };
        if expired || available < max_cost {
            let removal = Removal {
                height,
                expired,
                required: max_cost,
                available,
            };
            remove_under_gc(
                &mut out,
                &mut deferrals,
                &mut carried,
                queue,
                d,
                &mut gc_left,
                removal,
            );
            continue;
        }
        let Some(priority) = priority else {
            defer(
                &mut out,
                &mut deferrals,
                queue,
                &d,
                DeferReason::BelowBasefee,
            );
            carried.push(d);
            continue;
        };
        cands.push(Candidate {
            timer_id: t.timer_id,
            schedule_block: t.schedule_block,
            budget,
            priority_per_cycle: priority,
            weight_bps: cip1.fairness.weight_bps(&t.actor_address),
        });
        priced.push(Priced {
            due: d,
            budget,
            priority,
            max_cost,
        });
    }

    let sel = select(
        &cands,
        cfg.lane_timer_cycles,
        cip1.config.max_cycles_per_fire_auction,
    );
    let mut slots: Vec<Option<Priced>> = priced.into_iter().map(Some).collect();
    for &i in &sel.selected {
        let p = slots[i].take().expect("selected once");
        let t = queue.due(&p.due);
        // §3 step 8 "on insufficient funds at any step → CIP-5 §5.4 path 2": the balances were
        // checked one timer at a time before selection; a fee payer whose earlier fires in
        // this block took what a later one needs cannot pay it now. It is removed under the GC
        // lane (or waits for GC budget); the room it was selected into stays unused this block
        // (selection is not rerun).
        let available = ledger.balance(&t.fee_payer);
        if available < p.max_cost {
            if gc_left < GC_CYCLES_PER_REMOVAL {
                defer(
                    &mut out,
                    &mut deferrals,
                    queue,
                    &p.due,
                    DeferReason::GcBudget,
                );
                carried.push(p.due);
                continue;
            }
            gc_left -= GC_CYCLES_PER_REMOVAL;
            out.stats.gc_cycles += GC_CYCLES_PER_REMOVAL;
            out.stats.unfunded += 1;
            let t = queue.conclude(p.due);
            out.events
                .push(TimerEvent::TimerCancelledInsufficientFunds {
                    timer_id: t.timer_id,
                    actor: t.actor_address,
                    fee_payer: t.fee_payer,
                    required: p.max_cost,
                    available,
                });
            continue;
        }
        ledger.debit(&t.fee_payer, p.max_cost);
        out.stats.lane_reserved += p.budget;
        out.stats.fired += 1;
        let timer = queue.conclude(p.due);
        out.fires.push(Fire {
            timer,
            cycles_limit: p.budget,
            max_cost: p.max_cost,
            tip_per_cycle: p.priority,
            lane_basefee: basefee,
            cycle_basefee: quote.cycle_basefee,
            cell_basefee: quote.cell_basefee,
            cells_limit: cfg.max_cells_per_fire,
        });
    }
    for &(i, reason) in &sel.deferred {
        let p = slots[i].take().expect("deferred once");
        defer(&mut out, &mut deferrals, queue, &p.due, reason);
        carried.push(p.due);
    }
    queue.carry(carried);
    queue.set_deferrals(deferrals);
    out
}

/// What a block did in the lane, for the CIP-1 v3 state update after its execution.
#[derive(Clone, Debug, Default)]
pub struct BlockOutcome {
    /// The tip per cycle (nanos) of every timer that fired.
    pub tips: Vec<u128>,
    /// Fires per actor (§3 step 10).
    pub fires: BTreeMap<Address, u32>,
    /// Execution-lane deferrals per actor (not the GC lane's).
    pub deferrals: BTreeMap<Address, u32>,
    /// Lane cycles reserved (Spec note 45: what the basefee follows).
    pub reserved: u64,
    /// Every cycle the block used: transactions and fires (§7.2 `last_block_cycle_usage`).
    pub cycles: u64,
}

impl BlockOutcome {
    /// Counts a plan's deferrals per actor (the execution lane's reasons).
    pub fn count_deferrals(&mut self, deferrals: &[Deferral]) {
        for d in deferrals {
            if d.reason != DeferReason::GcBudget {
                *self.deferrals.entry(d.actor).or_insert(0) += 1;
            }
        }
    }
}

impl Cip1State {
    /// The state update after block `height` ran (§3 steps 5 and 10, §7.1): the p50 tip, the
    /// fairness window, the next lane basefee and the cycle usage. Returns the block's p50 and
    /// whether anything changed (a height that changes nothing may be sealed quiet).
    pub fn end_block(
        &mut self,
        height: u64,
        lane_capacity: u64,
        outcome: &mut BlockOutcome,
    ) -> (u128, bool) {
        let before = (self.lane_basefee, self.p50_tip, self.last_block_cycles);
        let mut p50 = 0;
        if self.activation_height.is_some() {
            self.last_block_cycles = outcome.cycles;
        }
        if self.scheduler_at(height) == SchedulerKind::Eip1559 {
            p50 = p50_tip(&mut outcome.tips);
            self.p50_tip = p50;
            let idle = outcome.fires.is_empty() && outcome.deferrals.is_empty();
            let was_idle = self.fairness.is_idle();
            if idle {
                self.fairness.skip_to(height);
            } else {
                self.fairness
                    .record_block(height, &outcome.fires, &outcome.deferrals);
            }
            let basefee = self.lane_basefee.unwrap_or(0);
            self.lane_basefee = Some(next_lane_basefee(
                basefee,
                outcome.reserved,
                lane_capacity,
                &self.config.lane,
            ));
            // An empty window stays empty over an idle block; anything else may have changed
            // (Spec note, quiet heights: under eip1559 a height is quiet only with the window
            // empty and the lane basefee at its floor, so that nothing moves).
            let fair_changed = !(idle && was_idle);
            let changed =
                fair_changed || before != (self.lane_basefee, self.p50_tip, self.last_block_cycles);
            return (p50, changed);
        }
        (
            p50,
            before != (self.lane_basefee, self.p50_tip, self.last_block_cycles),
        )
    }
}

// ---- the auction estimate ----------------------------------------------------------------------

/// Where a timer would stand in the auction now (`timer_estimate`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuctionEstimate {
    pub scheduler: SchedulerKind,
    #[serde(with = "u128_str")]
    pub lane_basefee: u128,
    #[serde(with = "u128_str")]
    pub max_fee_per_cycle: u128,
    #[serde(with = "u128_str")]
    pub priority_per_cycle: u128,
    pub weight_bps: u32,
    #[serde(with = "u128_str")]
    pub effective_priority: u128,
    /// Timers due at that height now.
    pub due_at_height: u64,
    /// 1-based rank among them (and this one) now.
    pub rank: u64,
    pub would_be_selected: bool,
}

/// Estimates a timer of `actor` with budget `budget` and fee arguments `fees` among the
/// timers now due at `height`, at the current lane basefee, p50 tip and W.
///
/// Spec note (CIP-1 v3 §3 steps 6–7, estimate only): the other due timers are priced with
/// their stated parameters and the default GBA for what they leave out; custom GBAs are not
/// called by an estimate (they run at fire time).
#[allow(clippy::too_many_arguments)]
pub fn estimate(
    cip1: &Cip1State,
    queue: &CalendarQueue,
    cfg: &TimerConfig,
    lane_basefee: u128,
    actor: &Address,
    height: u64,
    budget: u64,
    fees: FeeArgs,
) -> AuctionEstimate {
    let kind = cip1.scheduler_at(height);
    let default = default_gba(lane_basefee, cip1.p50_tip, None, &cip1.config);
    let (max_fee, max_prio) = resolve(fees, None, default, &cip1.config, cip1.p50_tip);
    let due = queue.bucket(height);
    let due_at_height = due.len() as u64;
    if kind == SchedulerKind::Fifo {
        let before: u64 = due.iter().map(|t| fire_budget(t, cfg)).sum();
        return AuctionEstimate {
            scheduler: kind,
            lane_basefee,
            max_fee_per_cycle: max_fee,
            priority_per_cycle: 0,
            weight_bps: 0,
            effective_priority: 0,
            due_at_height,
            rank: due_at_height + 1,
            would_be_selected: before.saturating_add(budget) <= cfg.lane_timer_cycles,
        };
    }
    let priority = priority_per_cycle(max_fee, max_prio, lane_basefee);
    let weight_bps = cip1.fairness.weight_bps(actor);
    let mut cands: Vec<Candidate> = due
        .iter()
        .filter_map(|t| {
            let (mf, mp) = resolve(
                FeeArgs::of(t.fee_caps.as_deref()),
                None,
                default,
                &cip1.config,
                cip1.p50_tip,
            );
            Some(Candidate {
                timer_id: t.timer_id,
                schedule_block: t.schedule_block,
                budget: fire_budget(t, cfg),
                priority_per_cycle: priority_per_cycle(mf, mp, lane_basefee)?,
                weight_bps: cip1.fairness.weight_bps(&t.actor_address),
            })
        })
        .collect();
    let me = Candidate {
        // The largest id: ties go to the timers already queued.
        timer_id: TimerId([0xFF; 32]),
        schedule_block: u64::MAX,
        budget,
        priority_per_cycle: priority.unwrap_or(0),
        weight_bps,
    };
    let eff = effective_priority(&me);
    let rank = 1 + cands
        .iter()
        .filter(|c| effective_priority(c) >= eff)
        .count() as u64;
    let would_be_selected = priority.is_some() && {
        cands.push(me);
        let last = cands.len() - 1;
        select(
            &cands,
            cfg.lane_timer_cycles,
            cip1.config.max_cycles_per_fire_auction,
        )
        .selected
        .contains(&last)
    };
    AuctionEstimate {
        scheduler: kind,
        lane_basefee,
        max_fee_per_cycle: max_fee,
        priority_per_cycle: priority.unwrap_or(0),
        weight_bps,
        effective_priority: eff,
        due_at_height,
        rank,
        would_be_selected,
    }
}
