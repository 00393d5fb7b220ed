//! The end of a block as the engine runs it (CIP-5 §5.1 steps 2–5, CIP-1 v3 §3; issue 29, "the
//! block in the engine"): the plan (classify, select, pre-charge), the quiet-block test, each
//! fire's settlement and its `TimerFired` event, the policy's after-fires step, the after-block
//! state update and the lane's figures, in that order, all decided here.
//!
//! The chain opens the block, runs each fire's handler (the engine cannot: a handler reads and
//! writes the chain and schedules through the engine), applies what the handler wrote, moves
//! the money the engine computed, and seals. So the sequence is a value the chain steps
//! through rather than one call with a callback:
//!
//! 1. [`Engine::begin_end_of_block`] plans and answers [`Begun::Quiet`] (seal the height
//!    quiet: nothing happened and nothing changed) or [`Begun::Block`] with an
//!    [`EndOfBlock`] holding the plan's events and fires, in order;
//! 2. for each fire the chain runs the handler and reports it: [`EndOfBlock::fired`] settles
//!    it and gives the event to record, or [`EndOfBlock::skipped`] when its owner cancelled it
//!    after its pre-charge;
//! 3. [`EndOfBlock::close`] runs the after-fires and after-block steps and gives the block's
//!    statistics and lane figures to seal with.

use super::Engine;
use super::SchedulerKind;
use super::config::TimerConfig;
use super::eob::{EobPlan, EobStats, FeeQuote, Fire, Ledger, Settlement};
use super::error::Failure;
use super::events::TimerEvent;
use super::scheduler::policy::{BlockOutcome, LaneStats};
use super::scheduler::variants::Utilisation;
use super::types::TimerId;
use std::collections::BTreeSet;

/// The open block as the chain hands it to the end of block.
#[derive(Clone, Debug)]
pub struct Opened {
    pub height: u64,
    /// The timer config in force for the block.
    pub cfg: TimerConfig,
    pub quote: FeeQuote,
    /// Nothing happened in the block before its end (no transaction, event, migration, skip,
    /// or fire cancelled after its pre-charge), and quiet sealing is allowed: the block may
    /// be sealed quiet if its end changes nothing either (`chain::quiet`).
    pub quiet_so_far: bool,
    /// Cycles the block's transactions used.
    pub tx_cycles: u64,
}

/// How the end of a block begins. Not boxed: one is made per block and taken apart at once.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Begun {
    /// Nothing is due and nothing changed: the chain seals the height quiet with these figures.
    Quiet(LaneStats),
    /// The block's end, to step through.
    Block(EndOfBlock),
}

/// What a fire's handler run came to, as the chain reports it.
#[derive(Clone, Debug)]
pub struct Ran {
    /// The entry point that ran.
    pub entry: String,
    /// Metered cycles and cells, within the fire's limits.
    pub cycles: u64,
    pub cells: u64,
    pub error: Option<Failure>,
    /// The handler cancelled its own timer and succeeded.
    pub cancelled_while_running: bool,
}

/// One block's end while its fires run: the block's settings and what its fires add up to.
#[derive(Debug)]
pub struct EndOfBlock {
    height: u64,
    cfg: TimerConfig,
    scheduler: SchedulerKind,
    stats: EobStats,
    outcome: BlockOutcome,
    lane: LaneStats,
    /// The after-block state update already ran (in the quiet test).
    ended: bool,
    events: Vec<TimerEvent>,
    fires: Vec<Fire>,
    /// The drafts' timers stopped by their fire (cancelled, or failed under
    /// `interval_after_failure = stop`).
    stops: BTreeSet<TimerId>,
}

impl Engine {
    /// Plans the end of the open block `o` against the chain's balances (`ledger`) and runs
    /// the quiet-block test: see the module docs.
    pub fn begin_end_of_block(&mut self, o: Opened, ledger: &mut dyn Ledger) -> Begun {
        let lane_basefee = self.lane_basefee(o.quote.cycle_basefee);
        let scheduler = self.scheduler_at(o.height);
        let plan = self.plan_end_of_block(o.height, &o.cfg, &o.quote, ledger);
        let mut outcome = BlockOutcome {
            reserved: plan.stats.lane_reserved,
            ..Default::default()
        };
        outcome.count_plan_deferrals(&plan);
        let lane = self.lane_stats(scheduler, lane_basefee, &o.cfg, &plan);
        // The CIP-1 v3 state update once the block ran (`end_block`); a quiet candidate runs it
        // first, and is sealed quiet only if it changed nothing.
        let mut ended = false;
        if o.quiet_so_far && quiet_plan(&plan) && !self.policies.changed_by_plan() {
            outcome.cycles = o.tx_cycles;
            let (_, changed) = self.end_block(o.height, o.cfg.lane_timer_cycles, &mut outcome);
            if !changed {
                return Begun::Quiet(lane);
            }
            ended = true;
        }
        Begun::Block(EndOfBlock {
            height: o.height,
            cfg: o.cfg,
            scheduler,
            stats: plan.stats,
            outcome,
            lane,
            ended,
            events: plan.events,
            fires: plan.fires,
            stops: BTreeSet::new(),
        })
    }

    /// The block's lane statistics as the plan leaves them (the fires' figures follow).
    fn lane_stats(
        &self,
        scheduler: SchedulerKind,
        basefee: u128,
        cfg: &TimerConfig,
        plan: &EobPlan,
    ) -> LaneStats {
        LaneStats {
            scheduler,
            basefee,
            capacity: cfg.lane_timer_cycles,
            fire_quota: self.policies.fire_quota(scheduler),
            reserved: plan.stats.lane_reserved,
            gc_cycles: plan.stats.gc_cycles,
            selected: plan.stats.fired,
            deferred: plan.stats.deferred,
            // The block's carried timers by reason (Spec note 71): FIFO does not list them
            // one by one (issue 20); cip1-v1's `budget` is its lane deferral.
            lane_deferred: plan.stats.backlog.lane
                + plan.stats.backlog.outbid
                + plan.stats.backlog.budget,
            ..Default::default()
        }
    }
}

/// The plan changes nothing: no event, no fire, no statistic.
fn quiet_plan(plan: &EobPlan) -> bool {
    plan.events.is_empty() && plan.fires.is_empty() && plan.stats == EobStats::default()
}

impl EndOfBlock {
    pub fn height(&self) -> u64 {
        self.height
    }

    /// The config in force for the block.
    pub fn cfg(&self) -> &TimerConfig {
        &self.cfg
    }

    /// The plan's events (removals, deferrals, the policy's), to record before the fires.
    pub fn take_events(&mut self) -> Vec<TimerEvent> {
        std::mem::take(&mut self.events)
    }

    /// The fires, in the order they run.
    pub fn take_fires(&mut self) -> Vec<Fire> {
        std::mem::take(&mut self.fires)
    }

    /// A planned fire its owner cancelled after its pre-charge: it does not run (its refund
    /// and `TimerCancelled` were committed with the cancelling handler, CIP-5 §4.3, §5.4).
    pub fn skipped(&mut self) {
        self.stats.fired -= 1;
    }

    /// Settles a fire whose handler ran (CIP-5 §6.3 steps 6–7) and counts it: the settlement
    /// for the chain to pay out and the `TimerFired` event to record.
    pub fn fired(&mut self, engine: &Engine, fire: &Fire, ran: Ran) -> (Settlement, TimerEvent) {
        let failed = ran.error.is_some();
        let id = fire.timer.timer_id;
        if self.scheduler.facts().drafts
            && (ran.cancelled_while_running || failed)
            && engine
                .policies
                .stops_timer(&id, ran.cancelled_while_running)
        {
            self.stops.insert(id);
        }
        let s = engine.settle(fire, ran.cycles, ran.cells);
        self.count(fire, ran.cycles, &s);
        (s, fired_event(fire, ran, &s))
    }

    /// Adds a settled fire to the block's statistics, outcome and lane figures.
    fn count(&mut self, fire: &Fire, cycles: u64, s: &Settlement) {
        self.stats.lane_used += cycles;
        self.outcome.cycles = self.outcome.cycles.saturating_add(cycles);
        self.outcome.tips.push(fire.tip_per_cycle);
        let tally = self
            .outcome
            .fires
            .entry(fire.timer.actor_address)
            .or_default();
        tally.count += 1;
        tally.slot = tally.slot.or(fire.fairness_slot);
        self.lane.tips += s.tip;
        self.lane.burned += s.burned;
        self.lane.lane_burned += s.lane_burned;
    }

    /// After the fires: the policy's step ([`Engine::after_fires`]), the after-block state
    /// update (unless the quiet test ran it) and the lane's figures. `tx_cycles`: the cycles
    /// the block's transactions used. Gives the block's statistics and lane figures to seal.
    pub fn close(mut self, engine: &mut Engine, tx_cycles: u64) -> (EobStats, LaneStats) {
        engine.after_fires(self.height, &self.stops);
        if !self.ended {
            self.outcome.cycles = self.outcome.cycles.saturating_add(tx_cycles);
            self.outcome.consumed = self.stats.lane_used;
            let lane_capacity = self.cfg.lane_timer_cycles;
            let (p50, _) = engine.end_block(self.height, lane_capacity, &mut self.outcome);
            self.lane.p50_tip = p50;
        }
        self.lane.used = self.stats.lane_used;
        let reading = engine.policies.variants().utilisation;
        self.lane.utilised_consumed = by_consumed(&self.lane, reading);
        (self.stats, self.lane)
    }
}

/// A fire's `TimerFired` event.
fn fired_event(fire: &Fire, ran: Ran, s: &Settlement) -> TimerEvent {
    let t = &fire.timer;
    TimerEvent::TimerFired {
        timer_id: t.timer_id,
        actor: t.actor_address,
        fee_payer: t.fee_payer,
        height: t.height,
        handler: ran.entry,
        cycles_used: ran.cycles,
        cells_used: ran.cells,
        max_cost: fire.max_cost,
        cost: s.cost,
        refund: s.refund,
        burned: s.burned,
        tip: s.tip,
        success: ran.error.is_none(),
        error: ran.error,
        cancelled_while_running: ran.cancelled_while_running,
    }
}

/// The cycles §5's utilisation counts for a block (Spec note 152): under eip1559 the reading
/// in force (`utilisation = consumed`, the default as written, or `reserved`), so the figure
/// reports show is the one the lane basefee followed; under the other schedulers, whose
/// basefee does not follow the lane, the budgets reserved (how full the lane was).
fn by_consumed(lane: &LaneStats, reading: Utilisation) -> bool {
    lane.scheduler.facts().lane_basefee && reading == Utilisation::Consumed
}
