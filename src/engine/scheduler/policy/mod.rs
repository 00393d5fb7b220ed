//! The scheduler policies: the one small interface the engine plans a block through
//! ([`Policy`]), what its hooks see ([`ScheduleEnv`], [`PlanEnv`]), the schedule-time checks
//! (§6, contract decisions 7 and 9) and the two policies, `fifo` and `eip1559`.
//!
//! A policy is a unit value behind `&'static dyn Policy` ([`policy`]): `fifo` (CIP-5 §5.1, the
//! FIFO plan of [`crate::engine::fifo`], unchanged) and `eip1559` (CIP-1 v3 §3 steps 4–10,
//! in the private `eip1559` file). An earlier design (`../shared/spec/`) joins as one more
//! implementation of [`Policy`] and one more [`SchedulerKind`]; nothing else in the engine or
//! the chain names a policy.
//!
//! The CIP-1 v3 configuration and state ([`super::cip1`]) and the pricing and estimate
//! ([`super::pricing`]) are re-exported here, where they were before the split.

mod auction_carry;
mod cip1v1;
mod cip1v1_carry;
mod draft;
mod eip1559;
mod preview;
mod preview_page;
mod registry;
mod state;

pub use preview::{Ranked, rank_preview};
pub use preview_page::RankedBucket;

pub use registry::{COMPARE_DEFAULT, Entry, REGISTRY};
pub use state::{DraftCompetitor, EstimateAsk, PolicyDump, PolicyGenesis, PolicyState};

pub use super::cip1::{BlockOutcome, Cip1Config, Cip1State, LaneStats, TierMultipliers};
pub use super::pricing::{
    AuctionEstimate, EstimateTimer, default_gba, estimate, estimate_fees, priority_per_cycle,
};

use crate::engine::args::{FeeCaps, ScheduleArgs};
use crate::engine::config::TimerConfig;
use crate::engine::eob::{EobPlan, FeeQuote, Ledger, fire_budget};
use crate::engine::error::TimerError;
use crate::engine::events::TimerEvent;
use crate::engine::fifo;
use crate::engine::queue::CalendarQueue;
use crate::engine::scheduler::kind::{
    Activation, Descriptor, Facts, FireBound, GovSection, Needs, SchedulerKind, Weights,
};
use crate::engine::scheduler::variants::FifoLane;
use crate::engine::timer::Timer;
use crate::engine::types::TimerId;
use std::collections::BTreeSet;

// ---- the policy interface ----------------------------------------------------------------------

/// What a schedule-time hook sees.
#[derive(Clone, Copy, Debug)]
pub struct ScheduleEnv<'a> {
    /// The height of the block whose transaction schedules.
    pub height: u64,
    pub cfg: &'a TimerConfig,
    /// The policies' state (see `Engine::schedule_env`).
    pub state: &'a PolicyState,
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

    /// Checks a timer the CIP-5 checks built, before it is queued (issue 21: `cip1-v1`
    /// refuses a fee payer other than the owner; the drafts' §12 limits). `live` counts the
    /// owner's live timers before this one. Every timer passes by default.
    fn check_timer(
        &self,
        _state: &PolicyState,
        _timer: &Timer,
        _live: u32,
    ) -> Result<(), TimerError> {
        Ok(())
    }

    /// Plans the block with the policies' state ([`PolicyState`]: the CIP-5 drafts' queue that
    /// persists across blocks, the block's written keys, timers that re-arm). A policy that
    /// needs only the height's bucket and the CIP-1 state keeps the default, its
    /// [`plan`](Self::plan).
    fn plan_with_state(
        &self,
        queue: &mut CalendarQueue,
        state: &mut PolicyState,
        at: &PlanAt<'_>,
        ledger: &mut dyn Ledger,
    ) -> EobPlan {
        let (env, _) = state.plan_env(at.height, at.cfg, at.quote);
        self.plan(queue, &env, ledger)
    }

    /// Updates the policy's state once the block's plan is made (issue 21: `cip1-v1`'s
    /// weights); returns the events it records. Nothing by default.
    fn after_plan(&self, _state: &mut PolicyState, _plan: &EobPlan, _lane: u64) -> Vec<TimerEvent> {
        Vec::new()
    }

    /// The after-block state update of the block at `at.height`, once its fires ran (or
    /// before them, for a quiet candidate: `Engine::begin_end_of_block`), run by
    /// [`PolicyState::end_block`] with the policy of that height. The cycle usage (§7.2
    /// `last_block_cycle_usage`) is recorded first, for every policy, once an activation height
    /// is set. Returns the block's p50 tip (§7.1; 0 where the policy has none) and whether the
    /// policy moved state that the lane basefee, p50 tip and cycle usage do not show (the §8
    /// window). Nothing more by default (`fifo` and the CIP-5 drafts).
    ///
    /// Spec note 215: this is the one after-block step of CIP-1 v3 and v1; it was a branch on
    /// the scheduler inside `Cip1State::end_block`.
    fn after_block(
        &self,
        _cip1: &mut Cip1State,
        _at: AfterBlockAt,
        _outcome: &mut BlockOutcome,
    ) -> AfterBlock {
        AfterBlock::default()
    }

    /// How many idle heights from `first` on, at most `max`, leave the policy's CIP-1 state
    /// as it is (the long jump over quiet heights, `Chain::jump_quiet`); `None` when an idle
    /// block at `first` would move it. [`PolicyState::rest_heights`] asks the policy of
    /// `first`, after the check every policy shares (a cycle usage to reset). By default
    /// `max`, cut below the activation height, whose block starts the lane.
    fn rest_heights(
        &self,
        cip1: &Cip1State,
        first: u64,
        _lane_capacity: u64,
        max: u64,
    ) -> Option<u64> {
        Some(match cip1.activation_height {
            Some(a) if a > first => max.min(a - first),
            _ => max,
        })
    }

    /// Where a timer due at `timer.height` would stand among the timers due there now
    /// (`timer_estimate`, the dashboard's schedule form), asked of the policy planning that
    /// height. By default the queue's order (CIP-5 §5.1 FIFO): behind every timer due there,
    /// selected if the lane still has room for its budget after theirs.
    fn estimate(
        &self,
        cip1: &Cip1State,
        queue: &CalendarQueue,
        cfg: &TimerConfig,
        lane_basefee: u128,
        timer: &EstimateTimer,
    ) -> AuctionEstimate {
        let due = queue.bucket(timer.height);
        let before: u64 = due.iter().map(|t| fire_budget(t, cfg)).sum();
        let due_at_height = due.len() as u64;
        AuctionEstimate {
            scheduler: self.kind(),
            lane_basefee,
            max_fee_per_cycle: estimate_fees(cip1, lane_basefee, timer).0,
            priority_per_cycle: 0,
            weight_bps: 0,
            effective_priority: 0,
            due_at_height,
            rank: due_at_height + 1,
            would_be_selected: before.saturating_add(timer.budget) <= cfg.lane_timer_cycles,
        }
    }

    /// The step once the block's fires ran, before the after-block state update (the engine's
    /// end of block calls it once per block, through `Engine::after_fires`). `stopped`: the
    /// timers whose fire cancelled them or failed. Nothing by default.
    fn after_fires(
        &self,
        _queue: &mut CalendarQueue,
        _state: &mut PolicyState,
        _stopped: &BTreeSet<TimerId>,
    ) {
    }
}

/// The block an after-block step is for.
#[derive(Clone, Copy, Debug)]
pub struct AfterBlockAt {
    pub height: u64,
    /// The lane's capacity in cycles (`LANE_TIMER_CYCLES`), what the lane basefee follows.
    pub lane_capacity: u64,
}

/// What an after-block step reports (see [`Policy::after_block`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AfterBlock {
    /// The block's p50 fired-timer tip, nanos per cycle (§7.1).
    pub p50: u128,
    /// The policy moved state beyond the lane basefee, the p50 tip and the cycle usage.
    pub moved: bool,
}

/// The block a plan step is for.
#[derive(Clone, Copy)]
pub struct PlanAt<'a> {
    pub height: u64,
    pub cfg: &'a TimerConfig,
    pub quote: &'a FeeQuote,
}

/// The policy of a kind (from the registry).
pub fn policy(kind: SchedulerKind) -> &'static dyn Policy {
    kind.policy()
}

/// The variants of the calendar queue's carry, every lane scheduler's (CIP-5 §6.5).
const LANE_VARIANTS: [&str; 1] = ["deferred_place"];

/// The facts every scheduler starts from: a FIFO lane, no fees beyond the cycle basefee.
const PLAIN: Facts = Facts {
    drafts: false,
    intervals: false,
    globalbox: false,
    lane_basefee: false,
    tips: false,
    auction_cap: false,
    weights: Weights::None,
    bound: FireBound::LaneCycles,
    activation: Activation::Alone,
};

const NEEDS_CIP1: Needs = Needs {
    draft_state: false,
    cip1_state: true,
};

/// `fifo`'s registry entry.
pub const FIFO: Entry = Descriptor {
    kind: SchedulerKind::Fifo,
    name: "fifo",
    summary: "CIP-5's FIFO per height bucket (the default; below an activation height)",
    spec: "cip5-timers-fifo-feepayer.md",
    facts: Facts {
        activation: Activation::Before,
        ..PLAIN
    },
    governance: &[GovSection::Cip1V3],
    variants: &[LANE_VARIANTS[0], "fifo_lane"],
    needs: NEEDS_CIP1,
    policy: &Fifo,
};

/// `eip1559`'s registry entry.
pub const EIP1559: Entry = Descriptor {
    kind: SchedulerKind::Eip1559,
    name: "eip1559",
    summary: "CIP-1 v3's timer-lane auction (from genesis unless --activation-height says when)",
    spec: "cip1-v3-scheduler-eip1559-lane.md",
    facts: Facts {
        lane_basefee: true,
        tips: true,
        auction_cap: true,
        weights: Weights::Window,
        activation: Activation::After,
        ..PLAIN
    },
    governance: &[GovSection::Cip1V3],
    variants: &[
        "basefee_step",
        "utilisation",
        "p50_even",
        "below_basefee",
        "lane_basefee_in_max_cost",
        LANE_VARIANTS[0],
        "over_cap",
        "tie_break",
        "fairness_median",
    ],
    needs: NEEDS_CIP1,
    policy: &Eip1559,
};

/// `cip1-v1`'s registry entry.
pub const CIP1_V1: Entry = Descriptor {
    kind: SchedulerKind::Cip1V1,
    name: "cip1-v1",
    summary: "CIP-1 v1's GBA-priced first-price auction with per-actor EMA weights",
    spec: "cip1-v1-calendar-queue-gba.md",
    facts: Facts {
        tips: true,
        weights: Weights::Ema,
        bound: FireBound::LaneSlices,
        ..PLAIN
    },
    governance: &[GovSection::Cip1V3],
    variants: &LANE_VARIANTS,
    needs: NEEDS_CIP1,
    policy: &Cip1V1,
};

/// Contract decision 9 (open point 11), every policy: `bid` is accepted and ignored before
/// `bid_deprecation_end` (by default the activation height), rejected `TimerArgDeprecated` at
/// and after it; with no activation and no configured end, always accepted and ignored.
fn check_bid(env: &ScheduleEnv<'_>, args: &ScheduleArgs) -> Result<(), TimerError> {
    if args.bid.is_none() {
        return Ok(());
    }
    match env.state.cip1.bid_deprecation_end() {
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

/// The fee parameters stored as given, not checked against a lane price (`fifo`, `cip1-v1`
/// and the CIP-5 drafts: none of them has a lane basefee at schedule time).
fn fees_as_given(args: &ScheduleArgs) -> Result<ScheduleFees, TimerError> {
    check_tip_args(args)?;
    Ok(ScheduleFees {
        caps: caps_of(args),
        clamped: None,
    })
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
        fees_as_given(args)
    }

    fn plan(
        &self,
        queue: &mut CalendarQueue,
        env: &PlanEnv<'_>,
        ledger: &mut dyn Ledger,
    ) -> EobPlan {
        // Issue 20: the same decisions as the walk of every due timer (`fifo::walk`), over the
        // carry queue when the carried timers are placed in front (the default).
        // Variant `fifo_lane = pass` (Spec note 154): the walk, with timers that fit passing
        // one that does not.
        let strict = env.cip1.config.variants.fifo_lane == FifoLane::Strict;
        if strict && queue.carries_in_front() {
            return fifo::plan(queue, env.height, env.cfg, env.quote, ledger);
        }
        fifo::walk(queue, env.height, env.cfg, env.quote, ledger, strict)
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
    /// larger one is `InvalidInput`. A refused `gas_limit` (0 too) is told the range in force
    /// here, `1..=` that cap, not `max_cycles_per_fire`'s (issue 34, item 13).
    fn prepare_schedule(
        &self,
        env: &ScheduleEnv<'_>,
        args: &mut ScheduleArgs,
    ) -> Result<(), TimerError> {
        check_bid(env, args)?;
        let cap = env
            .state
            .cip1
            .config
            .max_cycles_per_fire_auction
            .min(env.cfg.max_cycles_per_fire);
        match args.gas_limit {
            None => args.gas_limit = Some(cap),
            Some(g) if g == 0 || g > cap => {
                return Err(TimerError::InvalidInput(format!(
                    "gas_limit {g} must be in 1..={cap} (MAX_CYCLES_PER_FIRE_AUCTION_PHASE, CIP-1 v3 §10)"
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
        auction_carry::plan(queue, env, ledger)
    }

    fn after_block(
        &self,
        cip1: &mut Cip1State,
        at: AfterBlockAt,
        outcome: &mut BlockOutcome,
    ) -> AfterBlock {
        eip1559::after_block(cip1, at, outcome)
    }

    fn rest_heights(&self, cip1: &Cip1State, _: u64, lane_capacity: u64, max: u64) -> Option<u64> {
        eip1559::rest_heights(cip1, lane_capacity, max)
    }

    fn estimate(
        &self,
        cip1: &Cip1State,
        queue: &CalendarQueue,
        cfg: &TimerConfig,
        lane_basefee: u128,
        timer: &EstimateTimer,
    ) -> AuctionEstimate {
        estimate(cip1, queue, cfg, lane_basefee, timer)
    }
}

/// CIP-1 v1's GBA-priced first-price auction with per-actor EMA weights (see `cip1v1.rs`).
pub struct Cip1V1;

impl Policy for Cip1V1 {
    fn kind(&self) -> SchedulerKind {
        SchedulerKind::Cip1V1
    }

    fn prepare_schedule(
        &self,
        env: &ScheduleEnv<'_>,
        args: &mut ScheduleArgs,
    ) -> Result<(), TimerError> {
        cip1v1::prepare_schedule(env, args)
    }

    fn check_fees(
        &self,
        _: &ScheduleEnv<'_>,
        args: &ScheduleArgs,
    ) -> Result<ScheduleFees, TimerError> {
        fees_as_given(args)
    }

    fn plan(
        &self,
        queue: &mut CalendarQueue,
        env: &PlanEnv<'_>,
        ledger: &mut dyn Ledger,
    ) -> EobPlan {
        cip1v1::plan(queue, env, ledger)
    }

    fn check_timer(&self, _: &PolicyState, timer: &Timer, _: u32) -> Result<(), TimerError> {
        cip1v1::check_owner_pays(&timer.actor_address, &timer.fee_payer)
    }

    /// v1 §3 "Priority Weight": every due timer of the block (fired, or deferred by the
    /// execution lane) scores its owner; the weights move by the EMA.
    fn after_plan(&self, state: &mut PolicyState, plan: &EobPlan, lane: u64) -> Vec<TimerEvent> {
        let cip1 = &mut state.cip1;
        use super::v1::{Deferred, DueOutcome, counts_as_deferred};
        let h = plan.height;
        let mut outcomes: Vec<DueOutcome> = plan
            .fires
            .iter()
            .map(|f| DueOutcome {
                actor: f.timer.actor_address,
                lateness: h.saturating_sub(f.timer.height),
                fired: Some((f.tip_per_cycle, f.cycles_limit)),
            })
            .collect();
        outcomes.extend(
            plan.deferrals
                .iter()
                .filter(|d| counts_as_deferred(d.reason))
                .map(|d| DueOutcome {
                    actor: d.actor,
                    lateness: h.saturating_sub(d.height),
                    fired: None,
                }),
        );
        // The carried timers the plan counted per actor (issue 31): their lateness from the
        // sum of their heights.
        let carried: std::collections::BTreeMap<crate::engine::types::Address, Deferred> = plan
            .deferrals_by_actor
            .iter()
            .map(|(a, t)| {
                let count = t.count as u64;
                let heights = plan.deferred_heights.get(a).copied().unwrap_or(0);
                let late = (count as u128 * h as u128).saturating_sub(heights);
                (
                    *a,
                    Deferred {
                        count,
                        late: u64::try_from(late).unwrap_or(u64::MAX),
                    },
                )
            })
            .collect();
        let cfg = cip1.v1_config();
        cip1.v1.update(&outcomes, &carried, lane, &cfg)
    }

    /// v1 §3: the default GBA bids the last block's p50 tip (the weights moved with the plan,
    /// [`after_plan`](Policy::after_plan)).
    fn after_block(
        &self,
        cip1: &mut Cip1State,
        _: AfterBlockAt,
        outcome: &mut BlockOutcome,
    ) -> AfterBlock {
        cip1v1::after_block(cip1, outcome)
    }

    fn rest_heights(&self, cip1: &Cip1State, _: u64, _: u64, max: u64) -> Option<u64> {
        cip1v1::rest_heights(cip1, max)
    }

    /// v1's own order and per-actor slices (Spec note 216).
    fn estimate(
        &self,
        cip1: &Cip1State,
        queue: &CalendarQueue,
        cfg: &TimerConfig,
        lane_basefee: u128,
        timer: &EstimateTimer,
    ) -> AuctionEstimate {
        cip1v1::estimate(cip1, queue, cfg, lane_basefee, timer)
    }
}
