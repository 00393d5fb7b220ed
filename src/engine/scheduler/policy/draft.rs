//! The CIP-5 early drafts as policies: `cip5-draft` (the English Globalbox, §5.3, §8) and
//! `cip5-draft-zh` (the Chinese draft: candidates re-sorted every block, `W_fifo`, round-robin
//! quota pruning, §9). Both plan through [`Policy::plan_with_state`] over the persistent
//! [`DraftState`] (see [`crate::engine::draft::deliver`]).

use super::{Entry, PlanAt, PlanEnv, Policy, PolicyState, ScheduleEnv, ScheduleFees};
use crate::engine::args::ScheduleArgs;
use crate::engine::config::DraftParams;
use crate::engine::draft::deliver::{self, DraftEnv, Flavor};
use crate::engine::eob::{EobPlan, Ledger};
use crate::engine::error::TimerError;
use crate::engine::queue::CalendarQueue;
use crate::engine::scheduler::kind::{
    Activation, Descriptor, Facts, FireBound, GovSection, Needs, SchedulerKind, Weights,
};
use crate::engine::timer::Timer;
use crate::engine::types::TimerId;
use std::collections::BTreeSet;

/// The facts of both drafts (no lane: fires counted against the quotas).
const DRAFT_FACTS: Facts = Facts {
    drafts: true,
    intervals: false,
    globalbox: false,
    lane_basefee: false,
    tips: true,
    auction_cap: false,
    weights: Weights::None,
    bound: FireBound::FireQuota,
    activation: Activation::Alone,
};

const DRAFT_NEEDS: Needs = Needs {
    draft_state: true,
    cip1_state: false,
};

/// `cip5-draft`'s registry entry (English).
pub const CIP5_DRAFT: Entry = Descriptor {
    kind: SchedulerKind::Cip5Draft,
    name: "cip5-draft",
    summary: "the CIP-5 early draft (English): state watches, the Globalbox with frozen order",
    spec: "cip5-draft-statewatch-globalbox.md",
    facts: Facts {
        globalbox: true,
        ..DRAFT_FACTS
    },
    governance: &[GovSection::Cip1V3, GovSection::Draft],
    variants: &["draft_exec_order", "watch_after_fire"],
    needs: DRAFT_NEEDS,
    policy: &Draft(Flavor::Globalbox),
};

/// `cip5-draft-zh`'s registry entry (Chinese).
pub const CIP5_DRAFT_ZH: Entry = Descriptor {
    kind: SchedulerKind::Cip5DraftZh,
    name: "cip5-draft-zh",
    summary: "the CIP-5 early draft (Chinese): state watches, interval timers, fifo_rank",
    spec: "cip5-draft-zh-interval-testvectors.md",
    facts: Facts {
        intervals: true,
        ..DRAFT_FACTS
    },
    governance: &[GovSection::Cip1V3, GovSection::Draft],
    variants: &[
        "draft_pruning",
        "draft_exec_order",
        "watch_after_fire",
        "interval_after_failure",
        "interval_first",
        "update_fifo_rank",
    ],
    needs: DRAFT_NEEDS,
    policy: &Draft(Flavor::Resort),
};

/// A CIP-5 draft policy.
pub struct Draft(pub Flavor);

impl Policy for Draft {
    fn kind(&self) -> SchedulerKind {
        match self.0 {
            Flavor::Globalbox => SchedulerKind::Cip5Draft,
            Flavor::Resort => SchedulerKind::Cip5DraftZh,
        }
    }

    /// The drafts take `bid` (`bid_fp`, English §6.1, zh §7.1) as a scoring input: it is
    /// never deprecated under them. Spec note: `bid` is given in whole units and stored
    /// Q32.96 (`bid << 96`); it must be below 2^32.
    fn prepare_schedule(
        &self,
        _: &ScheduleEnv<'_>,
        args: &mut ScheduleArgs,
    ) -> Result<(), TimerError> {
        if let Some(b) = args.bid {
            crate::engine::draft::bid_fp(b)?;
        }
        Ok(())
    }

    /// The CIP-1 v3 fee parameters are stored as given (as under `fifo`): the drafts price a
    /// fire at the CIP-3 basefees only (English §11, zh §12).
    fn check_fees(
        &self,
        _: &ScheduleEnv<'_>,
        args: &ScheduleArgs,
    ) -> Result<ScheduleFees, TimerError> {
        super::fees_as_given(args)
    }

    /// The drafts' §12 limits on a new timer ([`check_limits`], Spec note 128).
    fn check_timer(&self, state: &PolicyState, t: &Timer, live: u32) -> Result<(), TimerError> {
        check_limits(&state.draft.params, t, live)
    }

    /// Without the draft state (never called by the engine, which plans drafts through
    /// [`Policy::plan_with_state`]): CIP-5's FIFO plan.
    fn plan(
        &self,
        queue: &mut CalendarQueue,
        env: &PlanEnv<'_>,
        ledger: &mut dyn Ledger,
    ) -> EobPlan {
        super::Fifo.plan(queue, env, ledger)
    }

    fn plan_with_state(
        &self,
        queue: &mut CalendarQueue,
        state: &mut PolicyState,
        at: &PlanAt<'_>,
        ledger: &mut dyn Ledger,
    ) -> EobPlan {
        let (env, draft) = state.plan_env(at.height, at.cfg, at.quote);
        let denv = DraftEnv {
            height: env.height,
            cfg: env.cfg,
            quote: env.quote,
            variants: &env.cip1.config.variants,
        };
        deliver::plan(self.0, queue, draft, &denv, ledger)
    }

    /// The end of a block under a draft policy, once its fires ran (zh §11, EOB-5): the
    /// interval timers fired re-enter the calendar queue at their next due height, in one
    /// batch, except those in `stopped` (their fire cancelled them, or failed under
    /// `interval_after_failure = stop`) and those whose next due height is past their
    /// `expires_at`, read after the fires: an extension by a handler of the block, the
    /// interval's own included, applies (CIP-5 §6.3, Spec note 138). The watches in `stopped`
    /// leave.
    fn after_fires(
        &self,
        queue: &mut CalendarQueue,
        state: &mut PolicyState,
        stopped: &BTreeSet<TimerId>,
    ) {
        let draft = &mut state.draft;
        for id in stopped {
            if draft.watch(id).is_some() {
                draft.forget(id);
            }
        }
        for t in draft.take_rearm() {
            if stopped.contains(&t.timer_id) || t.height > t.expires_at {
                draft.forget(&t.timer_id);
                continue;
            }
            let id = t.timer_id;
            if queue.insert(t).is_err() {
                draft.forget(&id);
            }
        }
    }
}

/// The drafts' §12 robustness and abuse limits on a new draft timer of any kind, beside CIP-5
/// §4.2's (which already bound `gas_limit` by `max_cycles_per_fire`, the payload by 1 MiB and
/// the owner's timers by `max_timers_per_actor`, `MAX_TIMERS_PER_OWNER`): `gas_limit` at least
/// `MIN_GAS_LIMIT_PER_TIMER` and the payload at most `MAX_PAYLOAD_SIZE` (`InvalidInput`), and
/// the target's live timers, watches included, below `MAX_TIMERS_PER_TARGET`
/// (`TimerCapExceeded`). `live` counts the target's live timers before this one.
///
/// Spec note 128 (English §12, §14; zh §13): a draft timer's target is its owner (Spec note
/// 115), so `MAX_TIMERS_PER_TARGET` and `max_timers_per_actor` count the same timers and the
/// smaller cap binds; both count watches.
fn check_limits(p: &DraftParams, t: &Timer, live: u32) -> Result<(), TimerError> {
    if t.gas_limit_per_fire < p.min_gas_limit_per_timer {
        return Err(TimerError::InvalidInput(format!(
            "gas_limit {} is below MIN_GAS_LIMIT_PER_TIMER {}",
            t.gas_limit_per_fire, p.min_gas_limit_per_timer
        )));
    }
    if t.payload.len() as u64 > p.max_payload_size {
        return Err(TimerError::InvalidInput(format!(
            "payload is {} bytes, MAX_PAYLOAD_SIZE is {}",
            t.payload.len(),
            p.max_payload_size
        )));
    }
    if live >= p.max_timers_per_target {
        return Err(TimerError::TimerCapExceeded(format!(
            "target {} already holds {live} live timers (MAX_TIMERS_PER_TARGET {})",
            t.actor_address, p.max_timers_per_target
        )));
    }
    Ok(())
}
