//! The dashboard's commands (issue 15): every key press that acts is a [`UiCommand`], which
//! names its JSON-RPC method and is the node's [`Command`](node::Command) that method is
//! (issue 29), the same in process and over JSON-RPC. Their answers are in [`super::model`]
//! ([`CommandOutcome`](super::outcome::CommandOutcome)).

use super::data::MiningMode;
use super::draft_request::DraftRequest;
use crate::engine::{Address, PriorityTier, TimerConfig, TimerId};
use crate::node;

/// A schedule request, as `timer_schedule` takes it. Built field by field in tests: end the
/// literal with `..Default::default()`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScheduleRequest {
    pub actor: Address,
    pub height: u64,
    pub payload: Vec<u8>,
    /// A named handler (the `_handler` convention); `None` for `handle_timer`.
    pub handler: Option<String>,
    /// The sender; `None`: the actor's deployer.
    pub from: Option<Address>,
    pub fee_payer: Option<Address>,
    pub gas_limit: Option<u64>,
    pub expires_at: Option<u64>,
    /// CIP-1 v3 §6 fee caps, nanos per cycle; `None`: the GBA prices it at fire time.
    pub max_fee_per_cycle: Option<u128>,
    pub max_priority_fee_per_cycle: Option<u128>,
    /// §7.3 tier: the tip as a multiple of the fire-time p50.
    pub priority_tier: Option<PriorityTier>,
    /// The node's label for the timer (issue 32, Spec note 191).
    pub label: Option<String>,
}

/// A handler call, as `actor_call` takes it (issue 32: the call prompt, `a`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallRequest {
    pub from: Address,
    pub actor: Address,
    pub handler: String,
    /// The args as typed (a JSON array's text), sent as the payload's bytes.
    pub payload: Vec<u8>,
}

impl CallRequest {
    fn node(&self) -> node::CallActor {
        node::CallActor {
            from: self.from,
            actor: self.actor,
            handler: self.handler.clone(),
            payload: self.payload.clone(),
        }
    }
}

/// What the dashboard runs as a dry run (issue 32, Spec notes 190 and 193): the schedule
/// form's request or the call prompt's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DryRequest {
    Schedule(ScheduleRequest),
    Call(CallRequest),
}

impl DryRequest {
    /// The command the dry run stands for (what Enter would send).
    pub fn command(&self) -> UiCommand {
        match self {
            DryRequest::Schedule(r) => UiCommand::ScheduleTimer(r.clone()),
            DryRequest::Call(r) => UiCommand::CallActor(r.clone()),
        }
    }
}

/// A partial `TimerConfig`: the named fields change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigPatch {
    pub max_ttl_blocks: Option<u64>,
    pub max_cycles_per_fire: Option<u64>,
    pub max_cells_per_fire: Option<u64>,
    pub max_timers_per_actor: Option<u32>,
    pub gc_cycles_per_block: Option<u64>,
    pub lane_timer_cycles: Option<u64>,
}

impl ConfigPatch {
    /// The fields it names, as `gov_updateTimerConfig`'s partial config.
    pub fn fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut m = serde_json::Map::new();
        let mut put = |k: &str, v: Option<u64>| {
            if let Some(v) = v {
                m.insert(k.into(), v.into());
            }
        };
        put("max_ttl_blocks", self.max_ttl_blocks);
        put("max_cycles_per_fire", self.max_cycles_per_fire);
        put("max_cells_per_fire", self.max_cells_per_fire);
        put(
            "max_timers_per_actor",
            self.max_timers_per_actor.map(u64::from),
        );
        put("gc_cycles_per_block", self.gc_cycles_per_block);
        put("lane_timer_cycles", self.lane_timer_cycles);
        m
    }

    pub fn apply(&self, base: &TimerConfig) -> TimerConfig {
        let mut c = base.clone();
        macro_rules! set {
            ($($f:ident),*) => { $( if let Some(v) = self.$f { c.$f = v; } )* };
        }
        set!(
            max_ttl_blocks,
            max_cycles_per_fire,
            max_cells_per_fire,
            max_timers_per_actor,
            gc_cycles_per_block,
            lane_timer_cycles
        );
        c
    }
}

/// Everything the dashboard can ask the node to do. Each maps to one JSON-RPC method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UiCommand {
    /// `devnet_mine [n]`.
    Mine(u64),
    /// `devnet_setMining`.
    SetMining(MiningMode),
    /// `timer_schedule`.
    ScheduleTimer(ScheduleRequest),
    /// `timer_estimate`: changes nothing.
    EstimateTimer(ScheduleRequest),
    /// `timer_cancel` (sent by the actor's deployer acting as the actor).
    CancelTimer { actor: Address, timer_id: TimerId },
    /// `timer_extend`.
    ExtendTimer {
        actor: Address,
        timer_id: TimerId,
        new_expires_at: u64,
    },
    /// `gov_cancelTimer` (system instruction 48); `from: None` is the devnet's governor.
    GovCancelTimer {
        from: Option<Address>,
        timer_id: TimerId,
    },
    /// `gov_extendTimer` (50).
    GovExtendTimer {
        from: Option<Address>,
        timer_id: TimerId,
        new_expires_at: u64,
    },
    /// `gov_updateTimerConfig` (49).
    GovUpdateConfig {
        from: Option<Address>,
        patch: ConfigPatch,
    },
    /// `gov_updateSchedulerConfig` (51, issue 21 §3): field name and new value.
    GovUpdateSchedulerConfig {
        from: Option<Address>,
        fields: Vec<(String, u64)>,
    },
    /// `gov_setActivationHeight` (the CIP-1 v3 scheduler issue).
    GovSetActivationHeight { from: Option<Address>, height: u64 },
    /// `devnet_snapshot`.
    Snapshot,
    /// `devnet_revert [id]`.
    Revert(u64),
    /// `timer_watch` / `timer_interval` (the CIP-5 drafts, issue 22).
    DraftTimer(DraftRequest),
    /// `timer_estimateDraft`: changes nothing.
    EstimateDraft(DraftRequest),
    /// `devnet_revertTo height` (issue 24: `F`, fork at the viewed height).
    RevertTo(u64),
    /// `devnet_exportFixture`, written to a new file here (issue 24: `W`).
    ExportSession,
    /// `devnet_dropTransaction` (issue 32: the pool overlay's `d`).
    DropTransaction(crate::engine::H256),
    /// `actor_call` (issue 32: the call prompt, `a`).
    CallActor(CallRequest),
}

impl UiCommand {
    /// The JSON-RPC method this command is: its node [`Command`](node::Command)'s, or the
    /// export's read.
    pub fn method(&self) -> &'static str {
        self.request()
            .map_or("devnet_exportFixture", |c| c.method())
    }
}

impl UiCommand {
    /// The node [`Command`](node::Command) this is (`from: None` on a governance command: the
    /// devnet's governor; a named handler encoded in the payload, as `timer_schedule` does);
    /// `None` for [`UiCommand::ExportSession`], a read whose file is written beside the
    /// dashboard.
    pub fn request(&self) -> Option<node::Command> {
        use crate::tui::view::mining_to_node;
        let gov = |f: &Option<Address>| f.unwrap_or_else(crate::chain::default_governor);
        Some(match self.clone() {
            UiCommand::Mine(blocks) => node::Mine { blocks }.into(),
            UiCommand::SetMining(m) => node::SetMining(mining_to_node(m)).into(),
            UiCommand::ScheduleTimer(r) => schedule_request(&r).into(),
            UiCommand::EstimateTimer(r) => node::EstimateTimer(schedule_request(&r)).into(),
            UiCommand::CancelTimer { actor, timer_id } => {
                node::Command::CancelTimer(node::CancelTimer {
                    actor,
                    timer_id,
                    from: None,
                })
            }
            UiCommand::ExtendTimer {
                actor,
                timer_id,
                new_expires_at,
            } => node::Command::ExtendTimer(node::ExtendTimer {
                actor,
                timer_id,
                new_expires_at,
                from: None,
            }),
            UiCommand::GovCancelTimer { from, timer_id } => {
                node::Command::GovCancel(node::GovCancel {
                    from: gov(&from),
                    timer_id,
                })
            }
            UiCommand::GovExtendTimer {
                from,
                timer_id,
                new_expires_at,
            } => node::Command::GovExtend(node::GovExtend {
                from: gov(&from),
                timer_id,
                new_expires_at,
            }),
            UiCommand::GovUpdateConfig { from, patch } => {
                node::Command::GovUpdateConfig(node::GovUpdateConfig {
                    from: gov(&from),
                    config: node::ConfigChange::Fields(patch.fields()),
                })
            }
            UiCommand::GovUpdateSchedulerConfig { from, fields } => {
                node::Command::GovUpdateSchedulerConfig(node::GovUpdateSchedulerConfig {
                    from: gov(&from),
                    fields: fields.into_iter().map(|(k, v)| (k, v.into())).collect(),
                })
            }
            UiCommand::GovSetActivationHeight { from, height } => {
                node::Command::SetActivationHeight(node::SetActivationHeight {
                    from: gov(&from),
                    height,
                })
            }
            UiCommand::Snapshot => node::Snapshot.into(),
            UiCommand::Revert(id) => node::Revert { id }.into(),
            UiCommand::DraftTimer(r) => r.request().into(),
            UiCommand::EstimateDraft(r) => r.estimate().into(),
            UiCommand::RevertTo(height) => node::RevertTo { height }.into(),
            UiCommand::DropTransaction(hash) => {
                node::Command::DropTransaction(node::DropTransaction { hash })
            }
            UiCommand::CallActor(r) => node::Command::CallActor(r.node()),
            UiCommand::ExportSession => return None,
        })
    }
}

/// A schedule request as `timer_schedule` builds it (a named handler is encoded in the
/// payload).
fn schedule_request(req: &ScheduleRequest) -> node::ScheduleTimer {
    let payload = match &req.handler {
        Some(h) if !h.is_empty() => crate::engine::timer::handler_payload(h, &req.payload),
        _ => req.payload.clone(),
    };
    let args = crate::engine::ScheduleArgs {
        height: req.height,
        payload,
        fee_payer: req.fee_payer,
        gas_limit: req.gas_limit,
        expires_at: req.expires_at,
        max_fee_per_cycle: req.max_fee_per_cycle,
        max_priority_fee_per_cycle: req.max_priority_fee_per_cycle,
        priority_tier: req.priority_tier,
        ..Default::default()
    };
    node::ScheduleTimer {
        actor: req.actor,
        from: req.from,
        args,
        label: req.label.clone(),
    }
}

/// A dry run (issue 32, `devnet_call`): the schedule form's request as `{"schedule": ...}`,
/// the same transaction `timer_schedule` would send, or the call prompt's as `actor_call`
/// sends it; with the handler run's trace.
pub fn dry_run(req: &DryRequest) -> node::DryRun {
    let call = match req {
        DryRequest::Schedule(r) => node::DryCall::Schedule(schedule_request(r)),
        DryRequest::Call(r) => node::DryCall::Call(r.node()),
    };
    node::DryRun { call, trace: true }
}
