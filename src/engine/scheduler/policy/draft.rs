//! The CIP-5 early drafts as policies: `cip5-draft` (the English Globalbox, §5.3, §8) and
//! `cip5-draft-zh` (the Chinese draft: candidates re-sorted every block, `W_fifo`, round-robin
//! quota pruning, §9). Both plan through [`Policy::plan_draft`] over the persistent
//! [`DraftState`] (see [`crate::engine::draft::deliver`]).

use super::{Entry, PlanEnv, Policy, ScheduleEnv, ScheduleFees};
use crate::engine::args::ScheduleArgs;
use crate::engine::draft::DraftState;
use crate::engine::draft::deliver::{self, DraftEnv, Flavor};
use crate::engine::eob::{EobPlan, Ledger};
use crate::engine::error::TimerError;
use crate::engine::queue::CalendarQueue;
use crate::engine::scheduler::kind::{
    Activation, Descriptor, Facts, FireBound, GovSection, Needs, SchedulerKind, Weights,
};
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

    /// Without the draft state (never called by the engine, which plans drafts through
    /// [`Policy::plan_draft`]): CIP-5's FIFO plan.
    fn plan(
        &self,
        queue: &mut CalendarQueue,
        env: &PlanEnv<'_>,
        ledger: &mut dyn Ledger,
    ) -> EobPlan {
        super::Fifo.plan(queue, env, ledger)
    }

    fn plan_draft(
        &self,
        queue: &mut CalendarQueue,
        draft: &mut DraftState,
        env: &PlanEnv<'_>,
        ledger: &mut dyn Ledger,
    ) -> EobPlan {
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
        draft: &mut DraftState,
        stopped: &BTreeSet<TimerId>,
    ) {
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
