//! CIP-1 v3's configuration and state as the engine keeps them: the tier multipliers (§7.3),
//! the parameters ([`Cip1Config`]), the state between blocks ([`Cip1State`]: activation, lane
//! basefee, p50 tip, fairness window), what a block did for its update after the block
//! ([`BlockOutcome`]; the update itself is each policy's `Policy::after_block`), and one
//! block's lane statistics ([`LaneStats`]).

use super::fairness::Fairness;
use super::lane::{LaneParams, PRICE_SCALE};
use super::v1::{V1Config, V1State};
use super::variants::Variants;
use crate::engine::args::PriorityTier;
use crate::engine::config::SchedulerParams;
use crate::engine::error::TimerError;
use crate::engine::events::DeferReason;
use crate::engine::events::Deferral;
use crate::engine::scheduler::kind::SchedulerKind;
use crate::engine::types::{Address, HashEncode, HashEncoder, u128_str};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One in basis points.
const BPS: u128 = 10_000;

// ---- priority tiers (§7.3) ---------------------------------------------------------------------

/// CIP-1 v3 §7.3: the tier multipliers in basis points of 1 (0.8, 1.0, 1.5, 2.5 as 8,000,
/// 10,000, 15,000, 25,000: fixed point, no floats), stored with the CIP-1 config and
/// governance-tunable like it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// The named variants in force (issue 21; `[variants]` in a fixture, `--variant`):
    /// committed with the config only when not the default.
    #[serde(skip_serializing_if = "Variants::is_default")]
    pub variants: Variants,
    /// CIP-1 v1's parameters (`[cip1_v1]`), present only on a chain that runs `cip1-v1`
    /// (committed only then, so every other chain keeps its roots).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v1: Option<V1Config>,
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
            variants: Variants::default(),
            v1: None,
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
        if let Some(v1) = &self.v1 {
            v1.validate()?;
        }
        Ok(())
    }
}

impl Cip1Config {
    /// The parameters governance tunes (issue 21 §3), as they stand.
    pub fn scheduler_params(&self) -> SchedulerParams {
        let t = &self.tier_multipliers;
        SchedulerParams {
            tier_economy_bps: t.economy,
            tier_standard_bps: t.standard,
            tier_fast_bps: t.fast,
            tier_urgent_bps: t.urgent,
            fairness_window_blocks: self.fairness_window_blocks,
            max_cycles_per_fire_auction: self.max_cycles_per_fire_auction,
        }
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
        self.variants.hash_encode(e);
        if let Some(v1) = &self.v1 {
            v1.hash_encode(e);
        }
    }
}

// ---- state -------------------------------------------------------------------------------------

/// The CIP-1 v3 state of the engine (dumped, and in the state root once the chain has any
/// CIP-1 setting: see `PolicyState::root_parts`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct Cip1State {
    pub config: Cip1Config,
    /// The first height planned by `eip1559` (Spec note 49); `None`: never.
    pub activation_height: Option<u64>,
    /// The lane basefee in force for the next block, nanos per cycle (§5); `None` before
    /// activation, when it equals the cycle basefee (§13.2 table).
    #[serde(with = "crate::engine::types::opt_u128_str")]
    #[schemars(with = "Option<String>")]
    pub lane_basefee: Option<u128>,
    /// The last block's p50 fired-timer tip, nanos per cycle (§7.1; 0 on a cold start).
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub p50_tip: u128,
    /// Cycles the last block used, transactions and timers (§7.2 `last_block_cycle_usage`),
    /// tracked once an activation height is set.
    pub last_block_cycles: u64,
    /// The §8 window.
    pub fairness: Fairness,
    /// Governance's new parameters (`SYS_UPDATE_SCHEDULER_CONFIG`), waiting for the end of
    /// the block that set them: the block's own plan ran under the old ones, the next block
    /// runs under these (CIP-1 v3 §7.3/§8/§10 "governance-tunable", effective from the next
    /// block like `TimerConfig`). Never committed: it is always empty when a block is sealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_params: Option<SchedulerParams>,
    /// CIP-1 v1's weights, when it plans the blocks (issue 21 §1).
    #[serde(default, skip_serializing_if = "V1State::is_inactive")]
    pub v1: V1State,
}

impl Cip1State {
    /// W(actor) in basis points (§8) against the median of the variant in force
    /// (`fairness_median`, Spec note 155).
    pub fn weight_bps(&self, actor: &crate::engine::types::Address) -> u32 {
        self.fairness
            .weight_bps_by(actor, self.config.variants.fairness_median)
    }

    /// [`weight_bps`](Self::weight_bps) and the actor's fairness slot, from one lookup: the
    /// plan keeps the slot with the actor's fire, and the window's update after the block
    /// reaches the actor's record by it ([`BlockOutcome::fires`], issue 31).
    pub fn weight_and_slot(
        &self,
        actor: &crate::engine::types::Address,
    ) -> (u32, Option<super::fairness::FairnessSlot>) {
        self.fairness
            .weight_and_slot_by(actor, self.config.variants.fairness_median)
    }

    /// The §8 network median under the variant in force (Spec note 155).
    pub fn fairness_median(&self) -> u64 {
        self.fairness
            .median_by(self.config.variants.fairness_median)
    }

    /// The fairness window's rows, W against the median in force (Spec note 155).
    pub fn fairness_rows(&self) -> Vec<super::fairness::FairnessRow> {
        self.fairness.rows_by(self.config.variants.fairness_median)
    }

    pub fn new(config: Cip1Config, activation_height: Option<u64>) -> Self {
        Cip1State {
            fairness: Fairness::new(config.fairness_window_blocks),
            config,
            activation_height,
            ..Default::default()
        }
    }

    /// The state of a new chain whose genesis names `scheduler`: `cip1-v1` plans every block
    /// (with `[cip1_v1]`, or its defaults); under the others `[cip1_v1]` is dropped.
    pub fn for_genesis(
        mut config: Cip1Config,
        scheduler: SchedulerKind,
        activation_height: Option<u64>,
    ) -> Self {
        let v1 = scheduler == SchedulerKind::Cip1V1;
        if v1 {
            config.v1.get_or_insert_with(V1Config::default);
        } else {
            config.v1 = None;
        }
        let mut s = Cip1State::new(config, activation_height);
        s.v1.active = v1;
        s
    }

    /// The CIP-1 v1 parameters in force (the defaults when `[cip1_v1]` gave none).
    pub fn v1_config(&self) -> V1Config {
        self.config.v1.unwrap_or_default()
    }

    /// The scheduler that plans the block at `height` (Spec note 49).
    pub fn scheduler_at(&self, height: u64) -> SchedulerKind {
        if self.v1.active {
            return SchedulerKind::Cip1V1;
        }
        match self.activation_height {
            Some(a) if height >= a => SchedulerKind::Eip1559,
            _ => SchedulerKind::Fifo,
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
        self.activation_height.is_some() || self.config != Cip1Config::default() || self.v1.active
    }

    /// The height from which `bid` is rejected (Spec note 52).
    pub fn bid_deprecation_end(&self) -> Option<u64> {
        self.config.bid_deprecation_end.or(self.activation_height)
    }

    /// Applies governance's waiting parameters, if any, at the end of block `height`: the tier
    /// multipliers and the auction cap are replaced; the fairness window takes its new length
    /// at once, a shorter one dropping the blocks now outside it (CIP-1 v3 §8: the window holds
    /// the last `FAIRNESS_WINDOW_BLOCKS` blocks). Returns whether anything was waiting.
    pub fn apply_pending_params(&mut self, height: u64) -> bool {
        let Some(p) = self.pending_params.take() else {
            return false;
        };
        self.config.tier_multipliers = TierMultipliers {
            economy: p.tier_economy_bps,
            standard: p.tier_standard_bps,
            fast: p.tier_fast_bps,
            urgent: p.tier_urgent_bps,
        };
        self.config.max_cycles_per_fire_auction = p.max_cycles_per_fire_auction;
        self.config.fairness_window_blocks = p.fairness_window_blocks;
        self.fairness.set_window(p.fairness_window_blocks, height);
        true
    }

    /// The state's bytes for the state root (the carry records are in the timers' leaves,
    /// Spec note 71).
    pub fn root_bytes(&self) -> Vec<u8> {
        let mut e = HashEncoder::new(b"cowboy-devnet/cip1/1");
        self.config.hash_encode(&mut e);
        self.activation_height.hash_encode(&mut e);
        self.lane_basefee.hash_encode(&mut e);
        e.u128(self.p50_tip);
        e.u64(self.last_block_cycles);
        HashEncode::hash_encode(&self.fairness, &mut e);
        if self.v1.active {
            self.v1.hash_encode(&mut e);
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
    /// Under the CIP-5 drafts (which have no lane): `MAX_FIRES_PER_BLOCK` in force for the
    /// block, what its fires are counted against (issue 30); 0 under the other schedulers.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fire_quota: u64,
    /// Lane cycles reserved by the selected timers' budgets (what the basefee follows).
    pub reserved: u64,
    /// Lane cycles the fired handlers used.
    pub used: u64,
    /// Whether §5's utilisation counted the cycles consumed (`used`: under eip1559 with
    /// `utilisation = consumed`, the default, Spec note 152), not the budgets `reserved`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub utilised_consumed: bool,
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
    /// The cycles §5's utilisation counted for this block: `used` or `reserved`.
    pub fn utilised(&self) -> u64 {
        if self.utilised_consumed {
            self.used
        } else {
            self.reserved
        }
    }

    /// [`utilised`](Self::utilised) over the capacity in basis points: the §5 utilisation the
    /// lane basefee followed (Spec note 152).
    pub fn utilisation_bps(&self) -> u32 {
        if self.capacity == 0 {
            return 0;
        }
        ((self.utilised().min(self.capacity) as u128 * BPS) / self.capacity as u128) as u32
    }

    /// What [`utilisation_bps`](Self::utilisation_bps) counts: `consumed` or `reserved`.
    pub fn utilisation_of(&self) -> &'static str {
        if self.utilised_consumed {
            "consumed"
        } else {
            "reserved"
        }
    }

    /// Whether the lane was full: a timer did not fit the room left (`lane` or `outbid`), or
    /// the reservations took the whole capacity.
    pub fn full(&self) -> bool {
        self.lane_deferred > 0 || (self.capacity > 0 && self.reserved >= self.capacity)
    }
}

/// What a block did in the lane, for the CIP-1 v3 state update after its execution.
#[derive(Clone, Debug, Default)]
pub struct BlockOutcome {
    /// The tip per cycle (nanos) of every timer that fired.
    pub tips: Vec<u128>,
    /// Fires per actor (§3 step 10), each with the actor's fairness slot when the plan found
    /// it (`Fire::fairness_slot`).
    pub fires: BTreeMap<Address, super::fairness::Tally>,
    /// Execution-lane deferrals per actor (not the GC lane's), with the actor's fairness slot
    /// when the plan found it (the `eip1559` auction's carried actors).
    pub deferrals: BTreeMap<Address, super::fairness::Tally>,
    /// Lane cycles reserved (Spec note 45: what the basefee follows by default).
    pub reserved: u64,
    /// Lane cycles the fired handlers consumed (what the basefee follows under the
    /// `utilisation = consumed` variant, §5's text).
    pub consumed: u64,
    /// Every cycle the block used: transactions and fires (§7.2 `last_block_cycle_usage`).
    pub cycles: u64,
}

impl BlockOutcome {
    /// Counts a plan's deferrals per actor (the execution lane's reasons).
    pub fn count_deferrals(&mut self, deferrals: &[Deferral]) {
        for d in deferrals {
            if d.reason != DeferReason::GcBudget {
                self.deferrals.entry(d.actor).or_default().count += 1;
            }
        }
    }

    /// Counts a plan's deferrals per actor: its list and its per-actor counts (issue 31).
    pub fn count_plan_deferrals(&mut self, plan: &crate::engine::eob::EobPlan) {
        self.count_deferrals(&plan.deferrals);
        for (a, n) in &plan.deferrals_by_actor {
            let tally = self.deferrals.entry(*a).or_default();
            tally.count += n.count;
            tally.slot = tally.slot.or(n.slot);
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
