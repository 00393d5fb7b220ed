//! One command vocabulary (issue 29): every change a front end can ask of the node is one
//! variant of [`Command`], answered by one typed [`CommandReply`] through one
//! [`NodeCore::execute`]. A variant's serialised name is its JSON-RPC method; the RPC adapter
//! (`rpc::command`), the dashboard (in process and attached over JSON-RPC) and the fixture
//! runner all send a `Command`. Each variant wraps its request struct, whose
//! [`Request::apply`] stays the one place the command is checked and applied: a refused
//! command returns `Err` and changes nothing.

use super::command_reply::{
    ActivationReply, CommandReply, ReceiptReply, ReplyKind, ScheduledReply,
};
use super::core::{NodeCore, Request};
use super::draft::DraftTimer;
use super::draft_estimate::EstimateDraftTimer;
use super::drop::DropTransaction;
use super::error::NodeError;
use super::governance::GovUpdateSchedulerConfig;
use super::registration::Scheduled;
use super::requests::{
    CallActor, CancelTimer, DeleteSnapshot, DeployActor, DumpState, EstimateTimer, ExtendTimer,
    GovCancel, GovExtend, GovUpdateConfig, Halt, LoadState, Mine, Reset, Revert, RevertTo,
    ScheduleTimer, SendTx, SetBalance, SetMining, Snapshot, TxOutcome,
};
use super::scheduler::SetActivationHeight;
use serde::{Deserialize, Serialize};

/// Every state-changing command (and the two estimates, which change nothing but are asked
/// as commands). Serialised `{"method": ..., "params": ...}` with the JSON-RPC method name.
///
/// Not boxed: a command is built once and executed at once (the CIP-1 v3 fee fields of
/// `ScheduleArgs` make the timer variants the large ones).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "method", content = "params")]
#[allow(clippy::large_enum_variant)]
pub enum Command {
    #[serde(rename = "devnet_mine")]
    Mine(Mine),
    #[serde(rename = "devnet_setMining")]
    SetMining(SetMining),
    #[serde(rename = "devnet_setBalance")]
    SetBalance(SetBalance),
    #[serde(rename = "devnet_snapshot")]
    Snapshot(Snapshot),
    #[serde(rename = "devnet_revert")]
    Revert(Revert),
    #[serde(rename = "devnet_deleteSnapshot")]
    DeleteSnapshot(DeleteSnapshot),
    #[serde(rename = "devnet_revertTo")]
    RevertTo(RevertTo),
    #[serde(rename = "devnet_reset")]
    Reset(Reset),
    #[serde(rename = "devnet_dumpState")]
    DumpState(DumpState),
    #[serde(rename = "devnet_loadState")]
    LoadState(LoadState),
    #[serde(rename = "devnet_halt")]
    Halt(Halt),
    #[serde(rename = "devnet_dropTransaction")]
    DropTransaction(DropTransaction),
    /// A transaction as the chain takes it (a fixture's `tx` step; any transaction kind,
    /// where the typed commands below each build one kind).
    #[serde(rename = "devnet_sendTransaction")]
    SendTx(SendTx),
    #[serde(rename = "actor_deploy")]
    DeployActor(DeployActor),
    #[serde(rename = "actor_call")]
    CallActor(CallActor),
    #[serde(rename = "timer_schedule")]
    ScheduleTimer(ScheduleTimer),
    #[serde(rename = "timer_estimate")]
    EstimateTimer(EstimateTimer),
    #[serde(rename = "timer_cancel")]
    CancelTimer(CancelTimer),
    #[serde(rename = "timer_extend")]
    ExtendTimer(ExtendTimer),
    #[serde(rename = "gov_cancelTimer")]
    GovCancel(GovCancel),
    #[serde(rename = "gov_extendTimer")]
    GovExtend(GovExtend),
    #[serde(rename = "gov_updateTimerConfig")]
    GovUpdateConfig(GovUpdateConfig),
    #[serde(rename = "gov_updateSchedulerConfig")]
    GovUpdateSchedulerConfig(GovUpdateSchedulerConfig),
    #[serde(rename = "gov_setActivationHeight")]
    SetActivationHeight(SetActivationHeight),
    /// A state watch (a [`DraftTimer`] with `interval: false`).
    #[serde(rename = "timer_watch")]
    Watch(DraftTimer),
    /// An interval timer (a [`DraftTimer`] with `interval: true`).
    #[serde(rename = "timer_interval")]
    Interval(DraftTimer),
    #[serde(rename = "timer_estimateDraft")]
    EstimateDraft(EstimateDraftTimer),
}

/// `From<Request>` for each variant (but the drafts': [`DraftTimer`]'s `interval` says which),
/// and the reply kind each answers.
macro_rules! variants {
    ($($v:ident($r:ty) => $k:ident),* $(,)?) => {
        $(impl From<$r> for Command {
            fn from(r: $r) -> Command {
                Command::$v(r)
            }
        })*

        impl Command {
            /// How this command's reply decodes from its serialised form.
            pub fn reply_kind(&self) -> ReplyKind {
                match self {
                    $(Command::$v(_) => ReplyKind::$k,)*
                    Command::Watch(_) | Command::Interval(_) => ReplyKind::Scheduled,
                }
            }
        }
    };
}

variants!(
    Mine(Mine) => Height,
    SetMining(SetMining) => Mining,
    SetBalance(SetBalance) => Done,
    Snapshot(Snapshot) => SnapshotId,
    Revert(Revert) => Done,
    DeleteSnapshot(DeleteSnapshot) => Done,
    RevertTo(RevertTo) => Done,
    Reset(Reset) => Done,
    DumpState(DumpState) => Dump,
    LoadState(LoadState) => Done,
    Halt(Halt) => Done,
    DropTransaction(DropTransaction) => Dropped,
    SendTx(SendTx) => Receipt,
    DeployActor(DeployActor) => Address,
    CallActor(CallActor) => Receipt,
    ScheduleTimer(ScheduleTimer) => Scheduled,
    EstimateTimer(EstimateTimer) => Estimate,
    CancelTimer(CancelTimer) => Receipt,
    ExtendTimer(ExtendTimer) => Receipt,
    GovCancel(GovCancel) => Receipt,
    GovExtend(GovExtend) => Receipt,
    GovUpdateConfig(GovUpdateConfig) => Receipt,
    GovUpdateSchedulerConfig(GovUpdateSchedulerConfig) => Receipt,
    SetActivationHeight(SetActivationHeight) => Activation,
    EstimateDraft(EstimateDraftTimer) => DraftEstimate,
);

/// `timer_interval` or `timer_watch`, as the registration's `interval` says.
impl From<DraftTimer> for Command {
    fn from(r: DraftTimer) -> Command {
        if r.interval {
            Command::Interval(r)
        } else {
            Command::Watch(r)
        }
    }
}

impl Command {
    /// The JSON-RPC method this command is (its serialised name).
    pub fn method(&self) -> &'static str {
        macro_rules! names {
            ($($v:ident => $m:literal),* $(,)?) => {
                match self {
                    $(Command::$v(_) => $m,)*
                }
            };
        }
        names!(
            Mine => "devnet_mine", SetMining => "devnet_setMining",
            SetBalance => "devnet_setBalance", Snapshot => "devnet_snapshot",
            Revert => "devnet_revert", DeleteSnapshot => "devnet_deleteSnapshot",
            RevertTo => "devnet_revertTo", Reset => "devnet_reset",
            DumpState => "devnet_dumpState", LoadState => "devnet_loadState",
            Halt => "devnet_halt", SendTx => "devnet_sendTransaction",
            DropTransaction => "devnet_dropTransaction",
            DeployActor => "actor_deploy", CallActor => "actor_call",
            ScheduleTimer => "timer_schedule", EstimateTimer => "timer_estimate",
            CancelTimer => "timer_cancel", ExtendTimer => "timer_extend",
            GovCancel => "gov_cancelTimer", GovExtend => "gov_extendTimer",
            GovUpdateConfig => "gov_updateTimerConfig",
            GovUpdateSchedulerConfig => "gov_updateSchedulerConfig",
            SetActivationHeight => "gov_setActivationHeight",
            Watch => "timer_watch", Interval => "timer_interval",
            EstimateDraft => "timer_estimateDraft",
        )
    }

    /// A method's result decoded into this command's typed reply.
    pub fn decode_reply(&self, v: serde_json::Value) -> Result<CommandReply, serde_json::Error> {
        self.reply_kind().decode(v)
    }
}

impl NodeCore {
    /// Applies `c` through its request's [`Request::apply`] (the one place it is checked and
    /// applied) and answers its typed reply.
    pub fn execute(&mut self, c: Command) -> Result<CommandReply, NodeError> {
        use CommandReply as R;
        let done = |r: Result<(), NodeError>| r.map(|()| R::Done);
        match c {
            Command::Mine(r) => Ok(R::Height(r.apply(self)?.last)),
            Command::SetMining(r) => Ok(R::Mining(r.apply(self)?)),
            Command::SetBalance(r) => done(r.apply(self)),
            Command::Snapshot(r) => Ok(R::SnapshotId(r.apply(self)?)),
            Command::Revert(r) => done(r.apply(self)),
            Command::DeleteSnapshot(r) => done(r.apply(self)),
            Command::RevertTo(r) => done(r.apply(self)),
            Command::Reset(r) => done(r.apply(self)),
            Command::DumpState(r) => Ok(R::Dump(r.apply(self)?)),
            Command::LoadState(r) => done(r.apply(self)),
            Command::Halt(r) => done(r.apply(self)),
            Command::DropTransaction(r) => Ok(R::Dropped(r.apply(self)?)),
            Command::DeployActor(r) => Ok(R::Address(r.apply(self)?.address)),
            Command::EstimateTimer(r) => Ok(R::Estimate(Box::new(r.apply(self)?))),
            Command::EstimateDraft(r) => Ok(R::DraftEstimate(Box::new(r.apply(self)?))),
            Command::SetActivationHeight(r) => Ok(R::Activation(ActivationReply {
                activation_height: r.apply(self)?,
            })),
            Command::ScheduleTimer(r) => {
                let s = r.apply(self)?;
                Ok(self.scheduled(s))
            }
            Command::Watch(r) | Command::Interval(r) => {
                let s = r.apply(self)?;
                Ok(self.scheduled(s))
            }
            c => self.execute_tx(c),
        }
    }

    /// The commands answered by a receipt.
    fn execute_tx(&mut self, c: Command) -> Result<CommandReply, NodeError> {
        let out = match c {
            Command::SendTx(r) => r.apply(self)?,
            Command::CallActor(r) => r.apply(self)?,
            Command::CancelTimer(r) => r.apply(self)?,
            Command::ExtendTimer(r) => r.apply(self)?,
            Command::GovCancel(r) => r.apply(self)?,
            Command::GovExtend(r) => r.apply(self)?,
            Command::GovUpdateConfig(r) => r.apply(self)?,
            Command::GovUpdateSchedulerConfig(r) => r.apply(self)?,
            c => unreachable!("{} is answered by `execute`", c.method()),
        };
        Ok(CommandReply::Receipt(self.receipt_reply(out)))
    }

    /// A receipt as the API shows it (its height: the block it is in, sealed or open).
    fn receipt_reply(&self, out: TxOutcome) -> ReceiptReply {
        ReceiptReply::new(out.receipt, out.sealed, self.chain().pending_height())
    }

    fn scheduled(&self, s: Scheduled) -> CommandReply {
        CommandReply::Scheduled(ScheduledReply {
            timer_id: s.timer_id,
            created: s.created,
            tx_hash: s.tx_hash,
            receipt: self.receipt_reply(TxOutcome {
                receipt: s.receipt,
                sealed: s.sealed,
            }),
        })
    }
}

/// A command is a request like any other: the node's shell runs it on the node's thread.
impl Request for Command {
    type Reply = CommandReply;
    fn apply(self, node: &mut NodeCore) -> Result<CommandReply, NodeError> {
        node.execute(self)
    }
}
