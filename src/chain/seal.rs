//! The end of a block (CIP-5 §5.1 steps 2–5) and sealing: the engine's plan, the quiet-block
//! test, each fire run and settled, the engine's after-block step, then the seal.

use super::draft::Stops;
use super::exec::{Firing, Frame, Meter, Overlay, PendingFire};
use super::runtime::{ActorCode, VmError};
use super::trace::{self, TraceOf};
use super::{Block, Chain, ChainLedger, Event, Executed, Phase, Sealed};
use crate::engine::scheduler::kind::FireBound;
use crate::engine::scheduler::policy::BlockOutcome;
use crate::engine::scheduler::variants::Utilisation;
use crate::engine::{
    EobPlan, EobStats, Failure, FeeQuote, Fire, LaneStats, SchedulerKind, Settlement, TimerConfig,
    TimerEvent, TimerId,
};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One block's end as it runs: the block's settings and what its fires add up to.
struct EobRun {
    height: u64,
    cfg: TimerConfig,
    scheduler: SchedulerKind,
    stats: EobStats,
    outcome: BlockOutcome,
    lane: LaneStats,
    /// The fires not run yet (a handler may cancel one of them, CIP-5 §4.3).
    pending: BTreeMap<TimerId, PendingFire>,
    draft_stops: Stops,
}

impl Chain {
    /// Test and bench hook (issue 31): with `true`, the `eip1559` auction walks every carried
    /// timer and sorts every candidate (the naive baseline); the blocks are the same.
    #[doc(hidden)]
    pub fn test_hook_full_auction_walk(&mut self, on: bool) {
        self.engine.set_full_auction_walk(on);
    }

    /// Runs the end of block (CIP-5 §5.1 steps 2–5) and seals the block.
    pub fn seal_block(&mut self) -> &Block {
        match self.seal_next() {
            Sealed::Block => self.blocks.back().expect("just sealed"),
            Sealed::Quiet => {
                let b = self.quiet_block(self.height).expect("just sealed");
                self.quiet_head.insert(Arc::new(b))
            }
        }
    }

    /// Seals the next block like [`seal_block`](Self::seal_block), without handing it out:
    /// a quiet height (see [`Sealed::Quiet`]) costs no stored body and no Merkle work.
    pub fn seal_next(&mut self) -> Sealed {
        self.quiet_head = None;
        self.open_block();
        let (height, cfg, quote) = {
            let o = self.open.as_ref().expect("open");
            (o.height, o.cfg.clone(), o.quote)
        };
        let lane_basefee = self.engine.lane_basefee(quote.cycle_basefee);
        let scheduler = self.engine.scheduler_at(height);
        let mut plan = self.plan_eob(height, &cfg, &quote);
        let mut outcome = BlockOutcome {
            reserved: plan.stats.lane_reserved,
            ..Default::default()
        };
        outcome.count_plan_deferrals(&plan);
        let lane = self.lane_stats(scheduler, lane_basefee, &cfg, &plan);
        // The CIP-1 v3 state update once the block ran (`end_block`); a quiet candidate runs it
        // first, and is sealed quiet only if it changed nothing (see `quiet`).
        let mut ended = false;
        if self.quiet_candidate(&plan) {
            outcome.cycles = self.open.as_ref().expect("open").tx_cycles;
            let (_, changed) = self
                .engine
                .end_block(height, cfg.lane_timer_cycles, &mut outcome);
            if !changed {
                self.seal_quiet(lane);
                return Sealed::Quiet;
            }
            ended = true;
        }
        for e in std::mem::take(&mut plan.events) {
            self.push_event(Phase::Eob, Event::Timer(e));
        }
        let mut run = EobRun {
            height,
            cfg,
            scheduler,
            stats: plan.stats,
            outcome,
            lane,
            pending: pending_fires(&plan.fires),
            draft_stops: Stops::default(),
        };
        for fire in plan.fires {
            self.run_fire(&mut run, fire);
        }
        self.cancelled_fires.clear();
        self.finish_eob(run, ended);
        Sealed::Block
    }

    /// The engine's end-of-block plan for the open block, against the chain's balances.
    fn plan_eob(&mut self, height: u64, cfg: &TimerConfig, quote: &FeeQuote) -> EobPlan {
        let mut ledger = ChainLedger {
            accounts: &mut self.accounts,
            commit: &mut self.commit,
            actors: &self.actors,
            runtime: &*self.runtime,
            height,
            traces: self.tracing.then_some(&mut self.traces),
        };
        self.engine
            .plan_end_of_block(height, cfg, quote, &mut ledger)
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
            fire_quota: if scheduler.facts().bound == FireBound::FireQuota {
                self.engine.draft().params.max_fires_per_block.into()
            } else {
                0
            },
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

    /// Whether the block may be sealed quiet: no transaction, event, migration, skip, fire
    /// or plan statistic, and nothing the drafts' plan changed (see `quiet`).
    fn quiet_candidate(&self, plan: &EobPlan) -> bool {
        let o = self.open.as_ref().expect("open");
        !self.no_quiet
            && o.receipts.is_empty()
            && o.events.is_empty()
            && o.migrated == 0
            && o.skipped == 0
            && plan.events.is_empty()
            && plan.fires.is_empty()
            && plan.stats == EobStats::default()
            && self.cancelled_fires.is_empty()
            && !self.engine.draft().changed_by_plan()
    }

    /// One planned fire: skipped if its owner cancelled it after its pre-charge, else its
    /// handler runs and the fire is settled, told and paid out.
    fn run_fire(&mut self, run: &mut EobRun, fire: Fire) {
        let t = &fire.timer;
        run.pending.remove(&t.timer_id);
        if self.cancelled_fires.remove(&t.timer_id) {
            // Cancelled by its owner after its pre-charge: its refund and `TimerCancelled`
            // were committed with the cancelling handler (CIP-5 §4.3, §5.4).
            run.stats.fired -= 1;
            return;
        }
        let (handler, payload) = t.dispatch();
        let entry = handler.name().to_string();
        let ex = self.execute_fire(run, &fire, &entry, &payload);
        let success = ex.result.is_ok();
        let cancelled_while_running = success && ex.overlay.firing_cancelled;
        if run.scheduler.facts().drafts && (cancelled_while_running || !success) {
            run.draft_stops
                .note(&self.engine, t.timer_id, cancelled_while_running);
        }
        let s = self.engine.settle(&fire, ex.meter.cycles, ex.meter.cells);
        run.count(&fire, &ex.meter, &s);
        let fired = Fired {
            entry,
            meter: &ex.meter,
            settlement: &s,
            error: ex.result.as_ref().err().map(Failure::from),
            cancelled_while_running,
        };
        self.push_event(Phase::Eob, Event::Timer(fired.event(&fire)));
        // The overlay holds absolute balances read after the pre-charge, so it is applied
        // before the refund and tip are credited: crediting first would let a handler that
        // moves the fee payer's (or proposer's) funds overwrite them.
        if success {
            self.apply_overlay(ex.overlay, Phase::Eob);
        }
        self.pay_out(&fire, &s);
    }

    /// Runs a fire's handler as the actor (§5.2: the deferred transaction's sender is the
    /// actor itself), metered within the fire's budgets.
    ///
    /// Spec note (CIP-5 §6.3, "the same burn + tip breakdown as a normal user transaction"):
    /// a fire is charged the base cycles of a transaction (`tx_base_cycles`, 1,000 by
    /// default) before its handler runs. They count in its metered cycles, inside its cycle
    /// budget and the lane, and are paid by its fee payer at the block's basefee, even when
    /// the handler does not exist or reverts. A budget below the base cycles runs out before
    /// the handler starts.
    fn execute_fire(&mut self, run: &EobRun, fire: &Fire, entry: &str, payload: &[u8]) -> Executed {
        let t = &fire.timer;
        let mut meter = Meter::new(fire.cycles_limit, fire.cells_limit);
        let base_cycles = self.basefee.tx_base_cycles;
        if base_cycles > meter.cycles_limit {
            meter.cycles = meter.cycles_limit;
            return Executed {
                result: Err(VmError::OutOfCycles {
                    limit: meter.cycles_limit,
                }),
                overlay: Overlay::default(),
                meter,
            };
        }
        meter.cycles = base_cycles;
        let rt = self.runtime.clone();
        let none = ActorCode::none();
        let (code, deployer) = match self.actors.get(&t.actor_address) {
            Some(a) => (&a.code, a.deployer),
            None => (&none, t.actor_address),
        };
        let firing = Firing {
            timer_id: t.timer_id,
            height: t.height,
            expires_at: t.expires_at,
        };
        let frame = Frame {
            height: run.height,
            actor: t.actor_address,
            sender: t.actor_address,
            deployer,
            meter,
        };
        let mut traced = None;
        let of = TraceOf::Fire {
            timer_id: t.timer_id,
        };
        let site = self.trace_site(of, t.actor_address, run.height);
        let ex = self.execute_with(&run.cfg, &run.pending, Some(firing), frame, |ctx, _| {
            let on = site.map(|s| (s, &mut traced));
            trace::invoke(&*rt, code, entry, payload, ctx, on)
        });
        self.keep_trace(traced, &ex);
        ex
    }

    /// A settled fire's refund to its fee payer, its burn, and its tip to the proposer.
    fn pay_out(&mut self, fire: &Fire, s: &Settlement) {
        self.credit(&fire.timer.fee_payer, s.refund);
        self.burned += s.burned;
        if s.tip > 0 {
            let p = self.proposer;
            self.credit(&p, s.tip);
        }
    }

    /// After the fires: the policy's step (`Engine::after_fires`), the engine's after-block step (unless the
    /// quiet test ran it), the lane's figures, and the seal.
    fn finish_eob(&mut self, mut run: EobRun, ended: bool) {
        self.engine.after_fires(run.height, &run.draft_stops.ids);
        if !ended {
            let tx_cycles = self.open.as_ref().expect("open").tx_cycles;
            run.outcome.cycles = run.outcome.cycles.saturating_add(tx_cycles);
            run.outcome.consumed = run.stats.lane_used;
            let (p50, _) =
                self.engine
                    .end_block(run.height, run.cfg.lane_timer_cycles, &mut run.outcome);
            run.lane.p50_tip = p50;
        }
        run.lane.used = run.stats.lane_used;
        let reading = self.engine.cip1().config.variants.utilisation;
        run.lane.utilised_consumed = by_consumed(&run.lane, reading);
        self.seal(run.stats, run.lane);
    }
}

impl EobRun {
    /// Adds a settled fire to the block's statistics, outcome and lane figures.
    fn count(&mut self, fire: &Fire, meter: &Meter, s: &Settlement) {
        self.stats.lane_used += meter.cycles;
        self.outcome.cycles = self.outcome.cycles.saturating_add(meter.cycles);
        self.outcome.tips.push(fire.tip_per_cycle);
        *self
            .outcome
            .fires
            .entry(fire.timer.actor_address)
            .or_insert(0) += 1;
        self.lane.tips += s.tip;
        self.lane.burned += s.burned;
        self.lane.lane_burned += s.lane_burned;
    }
}

/// What a fire's `TimerFired` event tells beyond the fire itself.
struct Fired<'a> {
    entry: String,
    meter: &'a Meter,
    settlement: &'a Settlement,
    error: Option<Failure>,
    cancelled_while_running: bool,
}

impl Fired<'_> {
    fn event(self, fire: &Fire) -> TimerEvent {
        let (t, s) = (&fire.timer, self.settlement);
        TimerEvent::TimerFired {
            timer_id: t.timer_id,
            actor: t.actor_address,
            fee_payer: t.fee_payer,
            height: t.height,
            handler: self.entry,
            cycles_used: self.meter.cycles,
            cells_used: self.meter.cells,
            max_cost: fire.max_cost,
            cost: s.cost,
            refund: s.refund,
            burned: s.burned,
            tip: s.tip,
            success: self.error.is_none(),
            error: self.error,
            cancelled_while_running: self.cancelled_while_running,
        }
    }
}

/// The planned fires, as a handler sees them while they wait (CIP-5 §4.3).
fn pending_fires(fires: &[Fire]) -> BTreeMap<TimerId, PendingFire> {
    fires
        .iter()
        .map(|f| {
            let p = PendingFire {
                owner: f.timer.actor_address,
                fee_payer: f.timer.fee_payer,
                max_cost: f.max_cost,
                height: f.timer.height,
                expires_at: f.timer.expires_at,
            };
            (f.timer.timer_id, p)
        })
        .collect()
}

/// The cycles §5's utilisation counts for a block (Spec note 152): under eip1559 the reading
/// in force (`utilisation = consumed`, the default as written, or `reserved`), so the figure
/// reports show is the one the lane basefee followed; under the other schedulers, whose
/// basefee does not follow the lane, the budgets reserved (how full the lane was).
fn by_consumed(lane: &LaneStats, reading: Utilisation) -> bool {
    lane.scheduler.facts().lane_basefee && reading == Utilisation::Consumed
}
