//! The timer engine: pure, deterministic, no I/O (DESIGN.md, `engine/`).
//!
//! Timers ([`timer`]), their validation ([`validate_schedule`], [`validate_extend`]), the
//! three-tier calendar queue ([`queue`]), end-of-block classification and settlement ([`eob`])
//! and the events they produce ([`events`]); the scheduler policies ([`scheduler`]); and the
//! vocabulary those share ([`shared`]: deferrals, fee arguments and caps, tiers, GBA bids and
//! context, the scheduler kind, schedule requests), which imports none of them.
//!
//! Imports point one way, inner to outer (checked by `tests/layering.rs`): `types` ->
//! `error`, `config`, `events`, `merkle` -> `shared` -> `timer` -> `scheduler::{lane, select,
//! fairness}` -> `queue` -> `scheduler::cip1` -> `eob` -> `scheduler::pricing` ->
//! `scheduler::policy` -> this module (the [`Engine`] facade and the re-exports).

pub mod args;
pub mod block;
pub mod buckets;
pub mod config;
pub mod cow;
pub mod draft;
pub mod eob;
pub mod error;
pub mod events;
pub mod fifo;
pub mod gba;
pub mod merkle;
pub mod queue;
pub mod scheduler;
pub mod timer;
pub mod types;

pub use args::{FeeArgs, FeeCaps, PriorityTier, ScheduleArgs};
pub use config::{QueueConfig, SchedulerParams, TimerConfig};
pub use eob::{EobPlan, EobStats, FeeQuote, Fire, Ledger, Settlement};
pub use error::{ErrorKind, Failure, RestoreError, TimerError};
pub use events::Deferral;
pub use events::{DeferReason, EventKind, TimerEvent, TimerStatus};
pub use gba::{GbaBid, GbaContext};
pub use queue::{CalendarQueue, Departure, Tier, TierCounts};
pub use scheduler::kind::SchedulerKind;
pub use scheduler::policy::{
    AuctionEstimate, Cip1Config, Cip1State, LaneStats, Policy, PolicyDump, PolicyGenesis,
    PolicyState, TierMultipliers,
};
pub use scheduler::variants::Variants;
pub use timer::{Handler, Timer};
pub use types::{Address, H256, TimerId};

use config::{MAX_PAYLOAD_BYTES, MAX_TIMER_ID_BYTES};

/// The timer engine's state: the calendar queue, the scheduler the chain was created with, and
/// the policies' state.
///
/// The chain drives it through a small facade, one call per step of a block: open the block
/// ([`open_block`](Self::open_block)), schedule, cancel and extend timers as transactions
/// commit, plan the end of block ([`plan_end_of_block`](Self::plan_end_of_block)), settle
/// each fire ([`settle`](Self::settle)) and commit ([`commit`](Self::commit)). Front ends read
/// it through [`queue`](Self::queue) (buckets, tiers, counts, timers) and
/// [`policies`](Self::policies) (the policies' typed questions) and never change it.
#[derive(Clone, Debug)]
pub struct Engine {
    queue: CalendarQueue,
    scheduler: SchedulerKind,
    /// The roots of the timer set and of the overflow tier at the last [`commit`](Self::commit).
    roots: ([u8; 32], [u8; 32]),
    /// The policies' state, owned by the policy modules (issue 29; see [`PolicyState`]): every
    /// step that reads or moves it goes through it or through the [`Policy`] in force.
    policies: PolicyState,
}

impl Engine {
    pub fn new(queue_cfg: QueueConfig, scheduler: SchedulerKind, start_height: u64) -> Self {
        Engine {
            queue: CalendarQueue::new(queue_cfg, start_height),
            scheduler,
            roots: Default::default(),
            policies: PolicyState::default(),
        }
    }

    /// Rebuilds an engine from a dumped queue (see [`CalendarQueue::restore`]).
    pub fn restore(dump: queue::QueueDump, scheduler: SchedulerKind) -> Result<Self, RestoreError> {
        Ok(Engine {
            queue: CalendarQueue::restore(dump)?,
            scheduler,
            roots: Default::default(),
            policies: PolicyState::default(),
        })
    }

    /// After a load: the restored queue's carried timers are where the policies' placement
    /// puts them (Spec note 212).
    pub fn check_restored(&self) -> Result<(), RestoreError> {
        self.queue.check_carried_place(self.policies.carry_back())
    }

    /// Replaces the policies' state (at genesis and on a load: see
    /// [`PolicyState::for_genesis`], [`PolicyState::restore`]).
    pub fn set_policies(&mut self, state: PolicyState) {
        self.policies = state;
    }

    /// The policies' state, read-only: the typed questions (variants, parameters, the lane,
    /// the fairness window, the drafts' watches and nonces).
    pub fn policies(&self) -> &PolicyState {
        &self.policies
    }

    /// The policies' state as a dump writes it.
    pub fn dump_policies(&self) -> PolicyDump {
        self.policies.dump()
    }

    /// The policies' parts of the state root, in the order the root lists them (see
    /// [`PolicyState::root_parts`]).
    pub fn policy_root_parts(&self) -> [Vec<u8>; 2] {
        self.policies.root_parts()
    }

    /// The scheduler that plans the block at `height` (Spec note 49); a CIP-5 draft chosen at
    /// genesis plans every block.
    pub fn scheduler_at(&self, height: u64) -> SchedulerKind {
        self.policies.scheduler_at(self.scheduler, height)
    }

    /// Records a storage key written by the open block's transaction phase (the drafts'
    /// `ModifiedKeySet(h)`, English §7.1); kept only under a draft policy.
    pub fn note_written(&mut self, actor: Address, key: &[u8]) {
        self.policies.note_written(self.scheduler, actor, key);
    }

    /// Sets the open block's parent state root (the drafts' `deliver_id` input).
    pub fn set_parent_root(&mut self, root: [u8; 32]) {
        self.policies.set_parent_root(root);
    }

    /// Registers a timer scheduled under a draft policy (its kind, bid and, for a watch, its
    /// body).
    pub fn register_draft(&mut self, reg: draft::DraftReg) {
        self.policies.register(reg);
    }

    /// A draft timer's idempotent repeat (English §6.2, Spec note 123): its new payload, gas
    /// limit and bid for its future fires (a fire already queued keeps its place).
    pub fn update_draft(&mut self, u: draft::DraftUpdate) {
        self.policies.update(&mut self.queue, u);
    }

    /// The policy's step once the block's fires ran, before the after-block state update
    /// ([`Policy::after_fires`]; under the drafts zh §11 EOB-5: the intervals re-arm, the
    /// watches in `stopped` leave). `stopped`: the timers whose fire cancelled them or failed
    /// (the drafts' stop rules).
    pub fn after_fires(&mut self, height: u64, stopped: &std::collections::BTreeSet<TimerId>) {
        let policy = self.policy_at(height);
        policy.after_fires(&mut self.queue, &mut self.policies, stopped);
    }

    /// The policy that plans the block at `height`.
    pub fn policy_at(&self, height: u64) -> &'static dyn Policy {
        scheduler::policy::policy(self.scheduler_at(height))
    }

    /// What a schedule-time hook of the policy in force at `height` sees (`lane_basefee`: the
    /// lane basefee in force for the block, nanos per cycle).
    pub fn schedule_env<'a>(
        &'a self,
        height: u64,
        cfg: &'a TimerConfig,
        lane_basefee: u128,
    ) -> scheduler::policy::ScheduleEnv<'a> {
        scheduler::policy::ScheduleEnv {
            height,
            cfg,
            state: &self.policies,
            lane_basefee,
        }
    }

    /// Where a timer would stand in the auction now (see [`PolicyState::estimate`]), named
    /// by the scheduler that orders that height's block (issue 29: the registry's key, not the
    /// CIP-1 v3 state's before/after activation view, which called every non-auction scheduler
    /// `fifo`).
    pub fn estimate(
        &self,
        cfg: &TimerConfig,
        lane_basefee: u128,
        ask: &scheduler::policy::EstimateAsk,
    ) -> AuctionEstimate {
        self.policies
            .estimate(self.scheduler, &self.queue, cfg, lane_basefee, ask)
    }

    /// Sets the activation height (governance, CIP-1 v3 §13.2; Spec note 49): only to a
    /// height above `current`, and only before activation.
    pub fn set_activation_height(&mut self, current: u64, height: u64) -> Result<(), TimerError> {
        self.policies
            .set_activation_height(self.scheduler, current, height)
    }

    /// CIP-1 v3 §13.2: at the activation block the lane starts (see
    /// [`PolicyState::activate_if_due`]). Returns whether this block activates.
    pub fn activate_if_due(&mut self, height: u64, cycle_basefee: u128) -> bool {
        let scheduler = self.scheduler_at(height);
        self.policies.activate_if_due(scheduler, cycle_basefee)
    }

    /// The lane basefee in force for the next block (nanos per cycle).
    pub fn lane_basefee(&self, cycle_basefee: u128) -> u128 {
        self.policies.lane_basefee(cycle_basefee)
    }

    /// The after-block state update of block `height` (see [`PolicyState::end_block`]):
    /// returns the block's p50 tip and whether anything changed.
    pub fn end_block(
        &mut self,
        height: u64,
        lane_capacity: u64,
        outcome: &mut scheduler::policy::BlockOutcome,
    ) -> (u128, bool) {
        let at = scheduler::policy::AfterBlockAt {
            height,
            lane_capacity,
        };
        self.policies.end_block(self.scheduler, at, outcome)
    }

    /// Governance's update of the policies' parameters (`SYS_UPDATE_SCHEDULER_CONFIG`),
    /// staged for the end of the open block (see [`PolicyState::stage_update`]).
    pub fn stage_params(
        &mut self,
        config: &SchedulerParams,
        draft: Option<draft::DraftParams>,
    ) -> Result<(), TimerError> {
        self.policies.stage_update(self.scheduler, config, draft)
    }

    /// What [`stage_params`](Self::stage_params) refuses, without staging.
    pub fn check_params(
        &self,
        config: &SchedulerParams,
        draft: Option<&draft::DraftParams>,
    ) -> Result<(), TimerError> {
        PolicyState::check_update(self.scheduler, config, draft)
    }

    /// The CIP-5 draft parameters in force after the open block.
    pub fn next_draft_params(&self) -> draft::DraftParams {
        self.policies.next_draft_params()
    }

    /// The CIP-1 v3 parameters in force after the open block: governance's waiting ones, else
    /// the config's.
    pub fn next_scheduler_params(&self) -> SchedulerParams {
        self.policies.next_scheduler_params()
    }

    // ---- reads ---------------------------------------------------------------------------

    /// The calendar queue, read-only: buckets, tiers and counts, timers by id, what is pending.
    /// Issue 31: the `eip1559` auction's naive path (see [`CalendarQueue::set_full_walk`]).
    pub fn set_full_auction_walk(&mut self, on: bool) {
        self.queue.set_full_walk(on);
    }

    pub fn queue(&self) -> &CalendarQueue {
        &self.queue
    }

    /// Notes the timers that leave the queue for good, for the node's records (Spec note
    /// 224, [`CalendarQueue::note_departures`]). Not state.
    pub fn note_departures(&mut self, on: bool) {
        self.queue.note_departures(on);
    }

    /// Closes the sealed block's departure notes ([`CalendarQueue::rotate_departures`]).
    pub fn rotate_departures(&mut self) {
        self.queue.rotate_departures();
    }

    /// Bench hook (issue 31, where the queue's bytes are): the queue, to drop its parts.
    #[doc(hidden)]
    pub fn test_hook_queue_mut(&mut self) -> &mut CalendarQueue {
        &mut self.queue
    }

    /// The scheduler of the next block to plan.
    pub fn scheduler(&self) -> SchedulerKind {
        self.scheduler_at(self.queue.next_height())
    }

    /// The scheduler the chain was created with (its genesis setting).
    pub fn genesis_scheduler(&self) -> SchedulerKind {
        self.scheduler
    }

    /// A live timer (a state watch of the drafts included).
    pub fn get(&self, id: &TimerId) -> Option<&Timer> {
        self.queue.get(id).or_else(|| self.policies.watch(id))
    }

    /// Timers pending.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// The roots of the timer set and of the overflow tier as last committed (the chain
    /// commits at every seal): an open block's changes are not in them yet.
    pub fn committed_roots(&self) -> ([u8; 32], [u8; 32]) {
        self.roots
    }

    /// The queue, serializable.
    pub fn dump(&self) -> queue::QueueDump {
        self.queue.dump()
    }

    // ---- the block's steps -----------------------------------------------------------------

    /// Opens the block at `height`: after an outage the skipped heights' timers become due
    /// now (CIP-5 §8), then epoch maintenance runs (CIP-1 v3 §3 step 2). Returns how many
    /// timers maintenance moved.
    pub fn open_block(&mut self, height: u64) -> u64 {
        self.queue.jump_to(height);
        self.queue.maintain(height) as u64
    }

    /// Heights from the next undrained one on, at most `limit`, whose blocks would find
    /// nothing to do: nothing due, no deferral, no epoch maintenance (see
    /// [`CalendarQueue::quiet_heights`]).
    pub fn quiet_heights(&self, limit: u64) -> u64 {
        let limit = self.policies.quiet_limit(self.queue.next_height(), limit);
        if limit == 0 {
            return 0;
        }
        self.queue.quiet_heights(limit)
    }

    /// Idle heights from `first` on, at most `max`, over which the CIP-1 v3 state stands still
    /// (see [`PolicyState::rest_heights`]); `None` if the block at `first` would move it.
    pub fn rest_heights(&self, first: u64, lane_capacity: u64, max: u64) -> Option<u64> {
        self.policies
            .rest_heights(self.scheduler, first, lane_capacity, max)
    }

    /// Moves past `n` heights counted by [`quiet_heights`](Self::quiet_heights), as `n` empty
    /// blocks would (opened, maintained and drained), in one step.
    pub fn skip_quiet(&mut self, n: u64) {
        self.queue.skip_quiet(n);
    }

    /// Schedules a validated timer (CIP-5 §4.2 checks are the caller's; see
    /// [`validate_schedule`]). Refuses a duplicate id or a drained height.
    pub fn schedule(&mut self, timer: Timer) -> Result<TimerId, TimerError> {
        self.queue.insert(timer)
    }

    /// Cancels a timer; returns it if it was live. Under the drafts its metadata, pending
    /// watch hit and queued Globalbox fire go with it.
    pub fn cancel(&mut self, id: &TimerId) -> Option<Timer> {
        let t = self.queue.remove(id);
        let w = self.policies.forget(id);
        t.or(w)
    }

    /// Sets a live timer's `expires_at` (CIP-5 §5.4; the caller clamped it): a queued timer, a
    /// watch, or an interval fired in this block and waiting to re-arm (Spec note 138). Returns
    /// the previous value, `None` if the timer is not live.
    pub fn extend(&mut self, id: &TimerId, expires_at: u64) -> Option<u64> {
        self.queue
            .set_expires_at(id, expires_at)
            .or_else(|| self.policies.set_expiry(id, expires_at))
    }

    /// Classifies the timers due at `height` and pre-charges the fires, by the policy in force
    /// at `height` (CIP-5 §5.1 steps 2–4 under `fifo`, see [`fifo::walk`]; CIP-1 v3 §3 steps
    /// 4–9 under `eip1559`).
    pub fn plan_end_of_block(
        &mut self,
        height: u64,
        cfg: &TimerConfig,
        quote: &FeeQuote,
        ledger: &mut dyn Ledger,
    ) -> EobPlan {
        self.queue.set_carry_back(self.policies.carry_back());
        let at = scheduler::policy::PlanAt { height, cfg, quote };
        let policy = self.policy_at(height);
        let mut plan = policy.plan_with_state(&mut self.queue, &mut self.policies, &at, ledger);
        let events = policy.after_plan(&mut self.policies, &plan, cfg.lane_timer_cycles);
        plan.events.extend(events);
        plan
    }

    /// The money of one fire once its handler ran (CIP-5 §6.3 steps 6–7).
    pub fn settle(&self, fire: &Fire, cycles: u64, cells: u64) -> Settlement {
        eob::settle(fire, cycles, cells)
    }

    /// Folds the changes since the last commit into the timer commitments; returns the roots of
    /// the timer set and of the overflow tier.
    pub fn commit(&mut self) -> ([u8; 32], [u8; 32]) {
        self.roots = self.queue.commit();
        self.roots
    }
}

/// Who is scheduling, and when.
#[derive(Clone, Copy, Debug)]
pub struct ScheduleCtx {
    /// The height of the block being built (timers must be strictly later, §5.3).
    pub current_height: u64,
    /// The executing actor: the timer's owner.
    pub actor: Address,
    /// The transaction's sender (the actor itself inside a timer handler, §5.2).
    pub tx_sender: Address,
    /// The actor's nonce, fed into the timer id (§3.3).
    pub actor_nonce: u64,
    /// Live timers the actor will hold once this transaction's earlier side effects commit.
    pub actor_timers: u32,
}

/// Validates a schedule request against every CIP-5 §4.2 rule and builds the timer, with the
/// handler its payload names (parsed once here; the timer does not store it).
///
/// Spec note (open point 5): CIP-5 §4.2 bounds `expires_at` only from above. A timer with
/// `expires_at < height` could never fire, only cost GC budget, so it is rejected with
/// `InvalidInput`. In particular a height more than `max_ttl_blocks` ahead needs an explicit
/// (and still capped) `expires_at` that it cannot have, so such heights are rejected too.
pub fn validate_schedule(
    cfg: &TimerConfig,
    ctx: &ScheduleCtx,
    args: ScheduleArgs,
) -> Result<(Timer, Handler), TimerError> {
    let invalid = |m: String| Err(TimerError::InvalidInput(m));
    if args.height <= ctx.current_height {
        return invalid(format!(
            "height {} is not in the future: timers must be scheduled above the current height {} (CIP-5 §4.2, §5.3)",
            args.height, ctx.current_height
        ));
    }
    let handler = check_payload(&args.payload)?;
    let fee_payer = args.fee_payer.unwrap_or(ctx.actor);
    if fee_payer == Address::ZERO {
        return invalid("fee_payer is the zero (burn) address".into());
    }
    if fee_payer.is_system() {
        return invalid(format!(
            "fee_payer {fee_payer} is in the reserved system-actor band 0x01..=0x0F"
        ));
    }
    if fee_payer != ctx.actor && fee_payer != ctx.tx_sender {
        return invalid(format!(
            "fee_payer {fee_payer} must be the executing actor {} or the tx sender {}",
            ctx.actor, ctx.tx_sender
        ));
    }
    let gas_limit = check_gas_limit(cfg, args.gas_limit)?;
    let ttl_cap = ttl_cap(cfg, ctx.current_height)?;
    let expires_at = args.expires_at.unwrap_or(ttl_cap);
    if expires_at > ttl_cap {
        return invalid(format!(
            "expires_at {expires_at} is past current height + max_ttl_blocks = {ttl_cap}"
        ));
    }
    if expires_at < args.height {
        return invalid(format!(
            "expires_at {expires_at} is below the timer's height {}: it could only expire",
            args.height
        ));
    }
    if ctx.actor_timers >= cfg.max_timers_per_actor {
        return Err(TimerError::TimerCapExceeded(format!(
            "actor {} already holds {} live timers (max_timers_per_actor)",
            ctx.actor, ctx.actor_timers
        )));
    }
    let timer = Timer {
        timer_id: timer::derive_timer_id(&ctx.actor, args.height, &args.payload, ctx.actor_nonce),
        actor_address: ctx.actor,
        fee_payer,
        height: args.height,
        seq: 0,
        schedule_block: ctx.current_height,
        gas_limit_per_fire: gas_limit,
        expires_at,
        payload: args.payload.into_boxed_slice(),
        fee_caps: None,
    };
    Ok((timer, handler))
}

/// A timer's payload (CIP-5 §4.2): at most [`MAX_PAYLOAD_BYTES`], its handler convention
/// well formed and not naming `deploy`. Returns the handler it names.
pub fn check_payload(payload: &[u8]) -> Result<Handler, TimerError> {
    if payload.len() > MAX_PAYLOAD_BYTES {
        return Err(TimerError::InvalidInput(format!(
            "payload is {} bytes, the limit is {MAX_PAYLOAD_BYTES}",
            payload.len()
        )));
    }
    let (handler, _) =
        timer::parse_handler_convention(payload).map_err(TimerError::InvalidInput)?;
    if handler.name() == "deploy" {
        return Err(TimerError::InvalidInput(
            "a timer cannot invoke the `deploy` handler".into(),
        ));
    }
    Ok(handler)
}

/// A timer's `gas_limit` (default `max_cycles_per_fire`), in `1..=max_cycles_per_fire`.
pub fn check_gas_limit(cfg: &TimerConfig, gas_limit: Option<u64>) -> Result<u64, TimerError> {
    let gas_limit = gas_limit.unwrap_or(cfg.max_cycles_per_fire);
    if gas_limit == 0 || gas_limit > cfg.max_cycles_per_fire {
        return Err(TimerError::InvalidInput(format!(
            "gas_limit {gas_limit} must be in 1..={} (max_cycles_per_fire)",
            cfg.max_cycles_per_fire
        )));
    }
    Ok(gas_limit)
}

/// Parses a timer id given as bytes by a host call (at most 256 bytes, CIP-5 §3.1).
pub fn parse_timer_id(bytes: &[u8]) -> Result<TimerId, TimerError> {
    if bytes.len() > MAX_TIMER_ID_BYTES {
        return Err(TimerError::InvalidInput(format!(
            "timer id is {} bytes, the limit is {MAX_TIMER_ID_BYTES}",
            bytes.len()
        )));
    }
    let arr: [u8; 32] = bytes.try_into().map_err(|_| {
        TimerError::TimerNotFound(format!("0x{} is not a live timer id", hex::encode(bytes)))
    })?;
    Ok(TimerId(arr))
}

/// `current_height + max_ttl_blocks`, the latest `expires_at` anything may set (CIP-5 §4.2,
/// §5.4), or `InvalidInput` when the sum overflows `u64` (never a wrapped or saturated cap).
pub fn ttl_cap(cfg: &TimerConfig, current_height: u64) -> Result<u64, TimerError> {
    current_height
        .checked_add(cfg.max_ttl_blocks)
        .ok_or_else(|| {
            TimerError::InvalidInput(format!(
                "current height {current_height} + max_ttl_blocks {} overflows u64",
                cfg.max_ttl_blocks
            ))
        })
}

/// `base + blocks` for a height computed from an offset (a timer `after` blocks ahead, an
/// `expires_at` `ttl` blocks past a height): `InvalidInput` naming `what` when the sum
/// overflows `u64`, so that an overflow is never reported as a wrapped (past) height.
pub fn height_plus(base: u64, blocks: u64, what: &str) -> Result<u64, TimerError> {
    base.checked_add(blocks).ok_or_else(|| {
        TimerError::InvalidInput(format!(
            "{what}: height {base} + {blocks} blocks overflows u64"
        ))
    })
}

/// The TTL an extension sets (CIP-5 §5.4): strictly above the current height, clamped to
/// `current + max_ttl_blocks`, and never below the timer's own `height`. Shared by the actor
/// path and the governance path.
///
/// Spec note (open point 5, §5.4): an extension that would leave `expires_at` below the
/// timer's height (asked for, or after the clamp when governance lowered `max_ttl_blocks`
/// since it was scheduled) is rejected with `InvalidInput`, like a schedule with such an
/// `expires_at`: it would create a timer that could only expire.
pub fn clamp_extension(
    cfg: &TimerConfig,
    current_height: u64,
    timer_height: u64,
    new_expires_at: u64,
) -> Result<u64, TimerError> {
    if new_expires_at <= current_height {
        return Err(TimerError::InvalidInput(format!(
            "new expires_at {new_expires_at} must be greater than the current height {current_height}"
        )));
    }
    let cap = ttl_cap(cfg, current_height)?;
    let new = new_expires_at.min(cap);
    if new < timer_height {
        return Err(TimerError::InvalidInput(format!(
            "new expires_at {new} (asked {new_expires_at}, capped at current height + max_ttl_blocks = {cap}) is below the timer's height {timer_height}: it could only expire"
        )));
    }
    Ok(new)
}

/// Checks that `caller` owns `timer` (CIP-5 §4.2: cancel and extend are owner-only).
pub fn check_owner(timer: &Timer, caller: &Address) -> Result<(), TimerError> {
    if timer.actor_address != *caller {
        return Err(TimerError::Unauthorized(format!(
            "timer {} belongs to actor {}, not {caller}",
            timer.timer_id, timer.actor_address
        )));
    }
    Ok(())
}
