//! The policies' state, owned here (issue 29, "Schedulers as plug-ins": a policy owns its
//! state): [`PolicyState`] is the one value the engine keeps for whichever policy plans, and
//! everything that reads or moves it goes through its methods — the plan, after-plan and
//! after-fires steps (through [`Policy`](super::Policy), which takes it whole), the root part,
//! the dump and the restore, governance's staged parameters, and the typed questions the chain,
//! the node and the front ends ask.
//!
//! Spec note 211 (issue 29, "an enum or a boxed trait object"): a struct of the two parts, the
//! CIP-1 family's ([`Cip1State`]: `fifo`, `eip1559`, `cip1-v1`) and the drafts'
//! ([`DraftState`]), each private to the policy modules. Neither an enum (one part per policy)
//! nor a boxed trait object fits what the chain already commits: every chain carries both
//! parts whatever its scheduler — the CIP-1 config holds the variants every policy reads (the
//! drafts' `interval_after_failure`, `interval_first`, ... included), a `fifo` chain with
//! `[cip5_draft]` parameters commits the drafts' part, and an activation height switches
//! `fifo` to `eip1559` over one CIP-1 state — and the dump (`cip1`, `draft`) and the state
//! root (two parts, in that order) write them apart. Keeping both keeps every state file,
//! fixture, root and hash byte-identical.

use super::{
    AfterBlockAt, AuctionEstimate, BlockOutcome, Cip1Config, Cip1State, EstimateTimer, PlanEnv,
};
use crate::engine::args::FeeArgs;
use crate::engine::config::{SchedulerParams, TimerConfig};
use crate::engine::draft::{
    DraftKind, DraftParams, DraftReg, DraftState, DraftUpdate, NonceEntry, NonceKey,
};
use crate::engine::eob::FeeQuote;
use crate::engine::error::TimerError;
use crate::engine::queue::CalendarQueue;
use crate::engine::scheduler::fairness::{Fairness, FairnessRow};
use crate::engine::scheduler::kind::{FireBound, GovSection, SchedulerKind, Weights};
use crate::engine::scheduler::variants::{DeferredPlace, IntervalAfterFailure, Variants};
use crate::engine::timer::Timer;
use crate::engine::types::{Address, TimerId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The state of the policies of one chain (see the module docs and Spec note 211).
#[derive(Clone, Debug, Default)]
pub struct PolicyState {
    /// The CIP-1 family's configuration and state: the shared variants, the activation height,
    /// the lane basefee, the p50 tip, the fairness window, cip1-v1's weights.
    pub(in crate::engine::scheduler) cip1: Cip1State,
    /// The CIP-5 drafts' state (watches, Globalbox, Mailbox, nonces); pristine under the
    /// other policies unless the genesis set draft parameters.
    pub(in crate::engine::scheduler) draft: DraftState,
}

/// The policies' state as a dump writes it (`ChainDump`'s `cip1` and `draft`, unchanged).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyDump {
    /// The CIP-1 family's part; always written, absent in dumps from before CIP-1 v3.
    pub cip1: Option<Cip1State>,
    /// The drafts' part; absent when pristine.
    pub draft: Option<DraftState>,
}

/// A competitor of a draft fire at a height: its bid, its anchor height, its target, its FIFO
/// rank ([`PolicyState::draft_competitors`]).
pub type DraftCompetitor = (u128, u64, Address, u64);

/// A timer to estimate ([`PolicyState::estimate`]): its owner, due height, budget (`None`:
/// the policy's default) and fee arguments.
#[derive(Clone, Copy, Debug)]
pub struct EstimateAsk {
    pub actor: Address,
    pub height: u64,
    pub gas_limit: Option<u64>,
    pub fees: FeeArgs,
}

/// What a chain's genesis sets for its policies.
#[derive(Clone, Copy, Debug)]
pub struct PolicyGenesis<'a> {
    pub scheduler: SchedulerKind,
    pub cip1: &'a Cip1Config,
    pub activation_height: Option<u64>,
    pub draft: DraftParams,
}

impl PolicyState {
    /// The state of a new chain.
    pub fn for_genesis(g: &PolicyGenesis<'_>) -> Self {
        PolicyState {
            cip1: Cip1State::for_genesis(g.cip1.clone(), g.scheduler, g.activation_height),
            draft: DraftState::new(g.draft),
        }
    }

    /// The state a dump carries, its absent parts from the genesis settings (a dump from
    /// before CIP-1 v3; pristine drafts).
    pub fn restore(g: &PolicyGenesis<'_>, d: PolicyDump) -> Self {
        let cip1 = d
            .cip1
            .unwrap_or_else(|| Cip1State::new(g.cip1.clone(), g.activation_height));
        let mut draft = d.draft.unwrap_or_else(|| DraftState::new(g.draft));
        draft.reindex();
        PolicyState { cip1, draft }
    }

    /// The state as a dump writes it.
    pub fn dump(&self) -> PolicyDump {
        PolicyDump {
            cip1: Some(self.cip1.clone()),
            draft: (!self.draft.is_pristine()).then(|| self.draft.clone()),
        }
    }

    /// The policies' parts of the state root, in the order the root lists them: the CIP-1
    /// family's (empty while the chain has no CIP-1 setting, so a CIP-5 chain's root is
    /// unchanged; the carry records are committed through the timers' leaves, Spec note 71),
    /// then the drafts' (empty while pristine).
    pub fn root_parts(&self) -> [Vec<u8>; 2] {
        let cip1 = if self.cip1.committed() {
            self.cip1.root_bytes()
        } else {
            Vec::new()
        };
        [cip1, self.draft.root_part()]
    }

    /// The scheduler that plans the block at `height` (Spec note 49) on a chain created with
    /// `genesis`: a CIP-5 draft chosen at genesis plans every block.
    pub fn scheduler_at(&self, genesis: SchedulerKind, height: u64) -> SchedulerKind {
        if genesis.facts().drafts {
            return genesis;
        }
        self.cip1.scheduler_at(height)
    }

    /// What the plan step sees, and the drafts' state it may change.
    pub(in crate::engine) fn plan_env<'a>(
        &'a mut self,
        height: u64,
        cfg: &'a TimerConfig,
        quote: &'a FeeQuote,
    ) -> (PlanEnv<'a>, &'a mut DraftState) {
        let env = PlanEnv {
            height,
            cfg,
            quote,
            cip1: &self.cip1,
            lane_basefee: self.cip1.lane_basefee(quote.cycle_basefee),
        };
        (env, &mut self.draft)
    }

    // ---- the block's steps -------------------------------------------------------------------

    /// Records a storage key written by the open block's transaction phase (the drafts'
    /// `ModifiedKeySet(h)`, English §7.1); kept only under a draft policy.
    pub fn note_written(&mut self, genesis: SchedulerKind, actor: Address, key: &[u8]) {
        if genesis.needs().draft_state {
            self.draft.note_written(actor, key.to_vec());
        }
    }

    /// Sets the open block's parent state root (the drafts' `deliver_id` input).
    pub fn set_parent_root(&mut self, root: [u8; 32]) {
        self.draft.set_parent_root(root);
    }

    /// Registers a timer scheduled under a draft policy.
    pub fn register(&mut self, reg: DraftReg) {
        self.draft.register(reg);
    }

    /// A draft timer's idempotent repeat (English §6.2, Spec note 123): its queued body takes
    /// the new payload and gas limit.
    pub fn update(&mut self, queue: &mut CalendarQueue, u: DraftUpdate) {
        if self.draft.apply_update(&u) {
            queue.update_body(&u.timer_id, u.payload.clone(), u.gas_limit);
        }
    }

    /// Whether the carried timers go behind the height's own (`deferred_place = back`).
    pub fn carry_back(&self) -> bool {
        self.cip1.config.variants.deferred_place == DeferredPlace::Back
    }

    /// Whether the last plan changed the drafts' state (a quiet block cannot be sealed quiet).
    pub fn changed_by_plan(&self) -> bool {
        self.draft.changed_by_plan()
    }

    /// The fire quota of a block planned by `scheduler` (0 unless its fires are bounded by a
    /// quota: the drafts' `max_fires_per_block`).
    pub fn fire_quota(&self, scheduler: SchedulerKind) -> u64 {
        if scheduler.facts().bound == FireBound::FireQuota {
            self.draft.params.max_fires_per_block.into()
        } else {
            0
        }
    }

    /// A draft's fire that cancelled its own timer stops it (watch or interval); a failed fire
    /// stops an interval only under `interval_after_failure = stop`.
    ///
    /// Spec note (open point 19, zh §11 "或在失败场景按策略决定是否滚动"): by default an
    /// interval rolls forward after a failed fire, which was charged like any other.
    pub fn stops_timer(&self, id: &TimerId, cancelled: bool) -> bool {
        let stop_failed = self.cip1.config.variants.interval_after_failure
            == IntervalAfterFailure::Stop
            && self
                .draft
                .meta
                .get(id)
                .is_some_and(|m| matches!(m.kind, DraftKind::Interval { .. }));
        cancelled || stop_failed
    }

    /// The after-block state update of block `height`: the cycle usage (§7.2, once an
    /// activation height is set), the step of the policy planning that height
    /// ([`Policy::after_block`](super::Policy::after_block)), then governance's waiting
    /// parameters. Returns the block's p50 tip and whether anything changed (a height that
    /// changes nothing may be sealed quiet).
    pub fn end_block(
        &mut self,
        genesis: SchedulerKind,
        at: AfterBlockAt,
        outcome: &mut BlockOutcome,
    ) -> (u128, bool) {
        let policy = self.scheduler_at(genesis, at.height).policy();
        let cip1 = &mut self.cip1;
        let before = (cip1.lane_basefee, cip1.p50_tip, cip1.last_block_cycles);
        if cip1.activation_height.is_some() || cip1.v1.active {
            cip1.last_block_cycles = outcome.cycles;
        }
        let after = policy.after_block(cip1, at, outcome);
        let changed =
            after.moved || before != (cip1.lane_basefee, cip1.p50_tip, cip1.last_block_cycles);
        let governed = self.cip1.apply_pending_params(at.height);
        let drafted = self.draft.apply_pending_params();
        (after.p50, changed || governed || drafted)
    }

    /// Sets the activation height (governance, CIP-1 v3 §13.2; Spec note 49): only to a
    /// height above `current`, and only before activation.
    pub fn set_activation_height(
        &mut self,
        genesis: SchedulerKind,
        current: u64,
        height: u64,
    ) -> Result<(), TimerError> {
        let cip1 = &mut self.cip1;
        if cip1.v1.active {
            return Err(TimerError::InvalidInput(format!(
                "this chain runs {} from genesis: there is no {} activation",
                cip1.scheduler_at(current),
                SchedulerKind::after_activation()
            )));
        }
        // Issue 30: a draft chain never switches (its plan is the draft's at every height), so
        // an activation height would be accepted and do nothing: refused by name.
        if genesis.facts().drafts {
            return Err(TimerError::InvalidInput(format!(
                "this chain runs {genesis} from genesis: there is no {} activation",
                SchedulerKind::after_activation()
            )));
        }
        if cip1.lane_basefee.is_some() {
            return Err(TimerError::InvalidInput(format!(
                "the {} scheduler is already active (since height {})",
                SchedulerKind::after_activation(),
                cip1.activation_height.unwrap_or_default()
            )));
        }
        if height <= current {
            return Err(TimerError::InvalidInput(format!(
                "activation height {height} is not above the current height {current}"
            )));
        }
        cip1.activation_height = Some(height);
        Ok(())
    }

    /// CIP-1 v3 §13.2: at the activation block (the first at or after the activation height,
    /// planned by `scheduler`) the lane basefee starts at the cycle basefee (Spec note 44:
    /// × `PRICE_SCALE`) and the fairness window starts empty (every actor W = 2; timers
    /// already scheduled keep their buckets). Returns whether this block activates.
    pub fn activate_if_due(&mut self, scheduler: SchedulerKind, cycle_basefee: u128) -> bool {
        let cip1 = &mut self.cip1;
        if cip1.lane_basefee.is_some() || !scheduler.facts().lane_basefee {
            return false;
        }
        let scale = crate::engine::scheduler::lane::PRICE_SCALE;
        cip1.lane_basefee = Some(cycle_basefee.saturating_mul(scale));
        cip1.fairness = Fairness::new(cip1.config.fairness_window_blocks);
        cip1.p50_tip = 0;
        true
    }

    // ---- governance's staged parameters ------------------------------------------------------

    /// Governance's update of the policies' parameters (`SYS_UPDATE_SCHEDULER_CONFIG`: the
    /// CIP-1 v3 set, and the drafts' when given), staged to take effect once the open block
    /// ends: its plan runs under the parameters it started with (Spec note 126). An update
    /// naming only draft fields restates the CIP-1 v3 ones and leaves them unstaged.
    /// [`check_update`](Self::check_update) is what it refuses.
    pub fn stage_update(
        &mut self,
        genesis: SchedulerKind,
        config: &SchedulerParams,
        draft: Option<DraftParams>,
    ) -> Result<(), TimerError> {
        if let Some(d) = draft {
            self.stage_draft_params(genesis, d)?;
        }
        if draft.is_none() || *config != self.next_scheduler_params() {
            self.stage_scheduler_params(config.clone())?;
        }
        Ok(())
    }

    /// What [`stage_update`](Self::stage_update) refuses, without staging: a CIP-1 v3 set
    /// that does not validate, draft parameters that do not, or any under a scheduler that is
    /// not a draft.
    pub fn check_update(
        genesis: SchedulerKind,
        config: &SchedulerParams,
        draft: Option<&DraftParams>,
    ) -> Result<(), TimerError> {
        config.validate()?;
        match draft {
            Some(d) => Self::check_draft_params(genesis, d),
            None => Ok(()),
        }
    }

    /// Governance's new CIP-1 v3 parameters (`SYS_UPDATE_SCHEDULER_CONFIG`, issue 21 §3),
    /// validated, to take effect once the open block ends (see
    /// [`Cip1State::apply_pending_params`]). A second update in the same block replaces the
    /// first.
    fn stage_scheduler_params(&mut self, p: SchedulerParams) -> Result<(), TimerError> {
        p.validate()?;
        self.cip1.pending_params = Some(p);
        Ok(())
    }

    /// Governance's new CIP-5 draft parameters (English §12, zh §13), validated, in force from
    /// the next block (Spec note 126). Refused by name unless a draft plans the blocks.
    fn stage_draft_params(
        &mut self,
        genesis: SchedulerKind,
        p: DraftParams,
    ) -> Result<(), TimerError> {
        Self::check_draft_params(genesis, &p)?;
        self.draft.stage_params(p)
    }

    /// What [`stage_draft_params`](Self::stage_draft_params) refuses, without staging.
    fn check_draft_params(genesis: SchedulerKind, p: &DraftParams) -> Result<(), TimerError> {
        if !genesis.descriptor().governance.contains(&GovSection::Draft) {
            return Err(TimerError::InvalidInput(format!(
                "the CIP-5 draft parameters ({}) need a draft scheduler ({}), not {genesis}",
                DraftParams::FIELDS.join(", "),
                SchedulerKind::draft_names(),
            )));
        }
        p.validate()
    }

    /// The CIP-5 draft parameters in force after the open block.
    pub fn next_draft_params(&self) -> DraftParams {
        self.draft.next_params()
    }

    /// The CIP-1 v3 parameters in force after the open block: governance's waiting ones, else
    /// the config's.
    pub fn next_scheduler_params(&self) -> SchedulerParams {
        self.cip1
            .pending_params
            .clone()
            .unwrap_or_else(|| self.cip1.config.scheduler_params())
    }

    // ---- timers the drafts keep beside the queue ---------------------------------------------

    /// A live state watch of the drafts.
    pub fn watch(&self, id: &TimerId) -> Option<&Timer> {
        self.draft.watch(id)
    }

    /// An interval timer fired in the open block and waiting to re-arm.
    pub fn rearming(&self, id: &TimerId) -> Option<&Timer> {
        self.draft.rearming(id)
    }

    /// The live state watches `actor` holds (they count toward its timer cap, Spec note 128).
    pub fn watches_of(&self, actor: &Address) -> u32 {
        self.draft.watches_of(actor)
    }

    /// The `client_nonce` a timer was scheduled with, if any.
    pub fn client_nonce_for(&self, id: &TimerId) -> Option<u64> {
        self.draft.client_nonce_for(id)
    }

    /// The drafts' binding of a `client_nonce` key, as it stands at `height`.
    pub fn nonce_entry(&self, key: &NonceKey, height: u64) -> Option<&NonceEntry> {
        self.draft.nonce_entry(key, height)
    }

    /// Forgets a timer that left (see [`DraftState::forget`]); the watch body if it was one.
    pub fn forget(&mut self, id: &TimerId) -> Option<Timer> {
        self.draft.forget(id)
    }

    /// Sets a watch's or a re-arming interval's `expires_at`; the previous value, `None` if
    /// neither holds the timer.
    pub fn set_expiry(&mut self, id: &TimerId, expires_at: u64) -> Option<u64> {
        self.draft
            .set_watch_expiry(id, expires_at)
            .or_else(|| self.draft.set_rearm_expiry(id, expires_at))
    }

    /// At most `limit` of the heights from `next` on over which an idle block leaves the
    /// drafts' state as it is: 0 while a hit or a queued fire waits; cut at a watch's TTL
    /// sweep, which runs at the block after its `expires_at` (Spec note 127).
    pub fn quiet_limit(&self, next: u64, limit: u64) -> u64 {
        if self.draft.busy() {
            return 0;
        }
        match self.draft.next_watch_expiry() {
            Some(e) => limit.min(e.saturating_add(1).saturating_sub(next)),
            None => limit,
        }
    }

    /// Idle heights from `first` on, at most `max`, over which the CIP-1 state stands still:
    /// `None` while the last block's cycle usage is to be reset, else what the policy of
    /// `first` says ([`Policy::rest_heights`](super::Policy::rest_heights)).
    pub fn rest_heights(
        &self,
        genesis: SchedulerKind,
        first: u64,
        lane_capacity: u64,
        max: u64,
    ) -> Option<u64> {
        let cip1 = &self.cip1;
        if cip1.activation_height.is_some() && cip1.last_block_cycles != 0 {
            return None;
        }
        let policy = self.scheduler_at(genesis, first).policy();
        policy.rest_heights(cip1, first, lane_capacity, max)
    }

    // ---- the estimate --------------------------------------------------------------------------

    /// Where a timer would stand now, as the policy planning its height estimates it
    /// ([`Policy::estimate`](super::Policy::estimate)): its budget the one asked, else the
    /// policy's default (the auction cap under a scheduler that has one, CIP-1 v3 §10;
    /// `max_cycles_per_fire` otherwise).
    pub fn estimate(
        &self,
        genesis: SchedulerKind,
        queue: &CalendarQueue,
        cfg: &TimerConfig,
        lane_basefee: u128,
        ask: &EstimateAsk,
    ) -> AuctionEstimate {
        let cip1 = &self.cip1;
        let kind = self.scheduler_at(genesis, ask.height);
        let budget = ask
            .gas_limit
            .unwrap_or_else(|| self.max_gas_per_fire(kind, cfg));
        let timer = EstimateTimer {
            actor: ask.actor,
            height: ask.height,
            budget,
            fees: ask.fees,
        };
        kind.policy()
            .estimate(cip1, queue, cfg, lane_basefee, &timer)
    }

    /// A fire's largest budget under `scheduler` (its default `gas_limit`): the auction cap
    /// (`MAX_CYCLES_PER_FIRE_AUCTION_PHASE`, CIP-1 v3 §10) under a scheduler that has one,
    /// bounded by `max_cycles_per_fire`; `max_cycles_per_fire` otherwise.
    pub fn max_gas_per_fire(&self, scheduler: SchedulerKind, cfg: &TimerConfig) -> u64 {
        if scheduler.facts().auction_cap {
            self.cip1
                .config
                .max_cycles_per_fire_auction
                .min(cfg.max_cycles_per_fire)
        } else {
            cfg.max_cycles_per_fire
        }
    }

    // ---- typed questions ---------------------------------------------------------------------

    /// The variants in force (every policy's open points, Spec notes passim).
    pub fn variants(&self) -> &Variants {
        &self.cip1.config.variants
    }

    /// The CIP-1 v3 parameters in force.
    pub fn cip1_config(&self) -> &Cip1Config {
        &self.cip1.config
    }

    /// The drafts' parameters in force.
    pub fn draft_params(&self) -> DraftParams {
        self.draft.params
    }

    /// The first height planned by the scheduler after activation; `None`: never.
    pub fn activation_height(&self) -> Option<u64> {
        self.cip1.activation_height
    }

    /// The lane basefee in force for the next block (nanos per cycle): before activation the
    /// cycle basefee × `PRICE_SCALE` (§13.2).
    pub fn lane_basefee(&self, cycle_basefee: u128) -> u128 {
        self.cip1.lane_basefee(cycle_basefee)
    }

    /// The last block's p50 fired-timer tip, nanos per cycle (§7.1).
    pub fn p50_tip(&self) -> u128 {
        self.cip1.p50_tip
    }

    /// The §8 fairness window.
    pub fn fairness(&self) -> &Fairness {
        &self.cip1.fairness
    }

    /// The fairness window's rows, W against the median in force (Spec note 155).
    pub fn fairness_rows(&self) -> Vec<FairnessRow> {
        self.cip1.fairness_rows()
    }

    /// The §8 network median under the variant in force (Spec note 155).
    pub fn fairness_median(&self) -> u64 {
        self.cip1.fairness_median()
    }

    /// An actor's weight in basis points under the policy that plans (W(actor) under
    /// `eip1559`, the EMA weight under `cip1-v1`).
    pub fn weight_bps(&self, actor: &Address) -> u32 {
        self.cip1.weight_bps(actor)
    }

    /// An actor's weight in basis points as `scheduler` weighs it: CIP-1 v1's EMA weight
    /// under a scheduler with EMA weights (issue 21 §1), else the §8 W.
    pub fn weight_bps_under(&self, scheduler: SchedulerKind, actor: &Address) -> u32 {
        if scheduler.facts().weights == Weights::Ema {
            self.cip1.v1.weight_bps(actor, &self.cip1.v1_config())
        } else {
            self.cip1.weight_bps(actor)
        }
    }

    /// The range an actor's weight moves in under `scheduler` (basis points): W's `[1, 2]`
    /// (CIP-1 v3 §8), the EMA's configured bounds (CIP-1 v1 §3); `None` without weights.
    pub fn weight_range_bps(&self, scheduler: SchedulerKind) -> Option<[u32; 2]> {
        use crate::engine::scheduler::fairness::{W_MAX_BPS, W_ONE_BPS};
        match scheduler.facts().weights {
            Weights::Window => Some([W_ONE_BPS, W_MAX_BPS]),
            Weights::Ema => {
                let c = self.cip1.v1_config();
                Some([c.weight_min_bps, c.weight_max_bps])
            }
            Weights::None => None,
        }
    }

    /// The EMA weights (CIP-1 v1 §3), by actor, and the weight a new actor starts at.
    pub fn ema_weights(&self) -> (Vec<(Address, u32)>, u32) {
        let w = self.cip1.v1.weights.iter().map(|(a, w)| (*a, *w));
        (w.collect(), self.cip1.v1_config().weight_init_bps)
    }

    /// A draft timer's kind and bid (`bid_fp`, Q32.96), if the drafts registered it.
    pub fn draft_timer(&self, id: &TimerId) -> Option<(&DraftKind, u128)> {
        self.draft.meta.get(id).map(|m| (&m.kind, m.bid_fp))
    }

    /// The fires known now that would be the drafts' candidates at `h` (Spec note 129): the
    /// Globalbox, the watches' undelivered hits, and `due` (the timers due at `h`) unless
    /// expired by then; each with its bid, anchor height, target and FIFO rank (a timer the
    /// drafts did not register: bid 0, ranked last).
    pub fn draft_competitors(&self, due: &[&Timer], h: u64) -> BTreeMap<TimerId, DraftCompetitor> {
        let now = &self.draft;
        let mut cands: BTreeMap<TimerId, DraftCompetitor> = BTreeMap::new();
        for g in &now.globalbox {
            let rank = now.meta.get(&g.timer_id).map_or(0, |m| m.fifo_rank);
            cands.insert(g.timer_id, (g.bid_fp, g.anchor, g.target, rank));
        }
        for (hid, hit) in &now.hits {
            if let (Some(w), Some(m)) = (now.watches.get(hid), now.meta.get(hid)) {
                cands
                    .entry(*hid)
                    .or_insert((m.bid_fp, hit.height, w.actor_address, m.fifo_rank));
            }
        }
        for t in due {
            if h > t.expires_at {
                continue;
            }
            let (bid, rank) = now
                .meta
                .get(&t.timer_id)
                .map_or((0, u64::MAX), |m| (m.bid_fp, m.fifo_rank));
            cands
                .entry(t.timer_id)
                .or_insert((bid, t.height, t.actor_address, rank));
        }
        cands
    }

    /// The CIP-1 family's state, read-only (the auction's estimate and the views that show it
    /// whole).
    pub fn lane_state(&self) -> &Cip1State {
        &self.cip1
    }

    /// The drafts' state as their query and pane show it, under `scheduler` (the one planning
    /// next).
    pub fn draft_view(&self, scheduler: SchedulerKind) -> crate::engine::draft::DraftView {
        self.draft.view(scheduler)
    }

    /// The drafts' state, read-only (white-box tests).
    pub fn draft_state(&self) -> &DraftState {
        &self.draft
    }
}
