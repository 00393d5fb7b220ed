//! A fixture step as the node's [`Command`] (issue 29: the one vocabulary the RPC and the
//! dashboard send too; a transaction step is the command that sends that transaction): a pure
//! function of the step, the height it is played
//! at, the fixture's names and the timer labels known so far. The transactions are built by
//! the node's own builders (`node::txs`), shared with the RPC and the dashboard.

use super::fixture::Step;
use super::gov_set::{GovSet, MergeConfigError, merge_gov_set};
use crate::chain::{Transaction, TxKind, default_governor};
use crate::engine::timer::handler_payload;
use crate::engine::{
    Address, ErrorKind, Failure, ScheduleArgs, SchedulerParams, TimerConfig, TimerId,
};
use crate::node::{Command, SendTx, SetActivationHeight, SetBalance, txs};

use std::collections::BTreeMap;

/// What a step needs to know to become a command.
pub struct StepContext<'a> {
    /// Height of the block the step is played in.
    pub height: u64,
    pub names: &'a BTreeMap<String, Address>,
    /// The deployer of each actor, by name.
    pub deployers: &'a BTreeMap<String, Address>,
    /// Timer ids by label, for the schedules that succeeded.
    pub labels: &'a BTreeMap<String, TimerId>,
    /// The timer config in force (`gov_config` overrides its fields).
    pub config: &'a TimerConfig,
    /// The scheduler parameters in force after this block (`gov_config` overrides their
    /// fields, issue 21 §3).
    pub scheduler: SchedulerParams,
    /// The CIP-5 drafts' parameters in force after this block (English §12).
    pub draft: crate::engine::draft::DraftParams,
}

/// Why a step could not become a command (it fails without reaching the node). The text is
/// the message; [`kind`](Self::kind) names the error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotSent {
    /// A label whose schedule failed.
    #[error("label `{0}` names no scheduled timer (its schedule failed)")]
    TimerNotFound(String),
    /// A `gov_config` whose fields do not make a config.
    #[error(transparent)]
    Config(#[from] MergeConfigError),
    /// A `tx` step whose JSON is not a transaction.
    #[error("not a transaction: {0}")]
    Tx(String),
    /// A `command` step whose table is not a command a step can send.
    #[error("not a step command: {0}")]
    Command(String),
}

impl NotSent {
    pub fn kind(&self) -> ErrorKind {
        match self {
            NotSent::TimerNotFound(_) => ErrorKind::TimerNotFound,
            NotSent::Config(_) | NotSent::Tx(_) | NotSent::Command(_) => ErrorKind::InvalidInput,
        }
    }
}

impl From<&NotSent> for Failure {
    fn from(e: &NotSent) -> Self {
        Failure::new(e.kind(), e.to_string())
    }
}

impl StepContext<'_> {
    fn addr(&self, n: &str) -> Address {
        match self.names.get(n) {
            Some(a) => *a,
            None => n.parse().expect("validated: a name or a 0x address"),
        }
    }

    /// The sender of a step acting as `actor`: `from`, or the actor's deployer.
    fn sender(&self, actor: &str, from: &Option<String>) -> Address {
        from.as_deref().map_or_else(
            || {
                self.deployers
                    .get(actor)
                    .copied()
                    .unwrap_or_else(|| self.addr(actor))
            },
            |f| self.addr(f),
        )
    }

    fn gov(&self, from: &Option<String>) -> Address {
        from.as_deref()
            .map_or_else(default_governor, |f| self.addr(f))
    }

    fn timer(&self, t: &str) -> Result<TimerId, NotSent> {
        let id = if t.starts_with("0x") {
            t.parse().ok()
        } else {
            self.labels.get(t).copied()
        };
        id.ok_or_else(|| NotSent::TimerNotFound(t.to_string()))
    }
}

/// The command a step sends, `Ok(None)` for a step that is not a command (`halt`, which the
/// runner applies after the block). The step was validated by [`Scenario::prepare`]: its
/// names resolve and its sums fit.
///
/// [`Scenario::prepare`]: super::Scenario::prepare
pub fn command_for(step: &Step, cx: &StepContext<'_>) -> Result<Option<Command>, NotSent> {
    let h = cx.height;
    let tx = |t: Transaction| Command::SendTx(SendTx(t));
    let cmd = match step {
        Step::Schedule { actor, from, .. } => tx(txs::schedule(
            cx.sender(actor, from),
            cx.addr(actor),
            schedule_args(step, cx),
        )),
        Step::Cancel {
            actor, timer, from, ..
        } => tx(txs::cancel(
            cx.sender(actor, from),
            cx.addr(actor),
            cx.timer(timer)?,
        )),
        Step::Extend {
            actor,
            timer,
            to,
            by,
            from,
            ..
        } => {
            let timer_id = cx.timer(timer)?;
            let new_expires_at = to.unwrap_or_else(|| h.saturating_add(by.unwrap_or(0)));
            tx(txs::extend(
                cx.sender(actor, from),
                cx.addr(actor),
                timer_id,
                new_expires_at,
            ))
        }
        Step::Call {
            from,
            actor,
            handler,
            payload,
            ..
        } => tx(Transaction::new(
            cx.addr(from),
            TxKind::Call {
                actor: cx.addr(actor),
                handler: handler.clone(),
                payload: payload.clone().unwrap_or_default().into_bytes(),
            },
        )),
        Step::Transfer {
            from, to, amount, ..
        } => tx(Transaction::new(
            cx.addr(from),
            TxKind::Transfer {
                to: cx.addr(to),
                amount: amount.0,
            },
        )),
        Step::GovCancel { timer, from, .. } => tx(txs::gov_cancel(cx.gov(from), cx.timer(timer)?)),
        Step::GovExtend {
            timer, to, from, ..
        } => tx(txs::gov_extend(cx.gov(from), cx.timer(timer)?, *to)),
        Step::GovConfig { set, from, .. } => tx(
            match merge_gov_set(cx.config, &cx.scheduler, &cx.draft, set)? {
                GovSet::Timer(c) => txs::gov_update_config(cx.gov(from), c),
                GovSet::Scheduler(p, d) => txs::gov_update_scheduler_config(cx.gov(from), p, d),
            },
        ),
        Step::SetBalance {
            account, balance, ..
        } => Command::SetBalance(SetBalance {
            address: cx.addr(account),
            balance: balance.0,
        }),
        Step::Halt { .. } => return Ok(None),
        Step::Tx { tx: json, .. } => {
            tx(serde_json::from_str(json).map_err(|e| NotSent::Tx(e.to_string()))?)
        }
        Step::Command { command, .. } => {
            let address = |n: &str| cx.names.get(n).copied();
            super::command_step::parse(command, &address).map_err(NotSent::Command)?
        }
        Step::Activate { height, from, .. } => Command::SetActivationHeight(SetActivationHeight {
            from: cx.gov(from),
            height: *height,
        }),
        Step::Watch(d) | Step::Interval(d) | Step::Write(d) => tx(Transaction::new(
            cx.sender(&d.actor, &d.from),
            TxKind::ActAs {
                actor: cx.addr(&d.actor),
                op: d.op(step.action()),
            },
        )),
    };
    Ok(Some(cmd))
}

/// The arguments of a `schedule` step (`after` and `ttl` resolved against the height; their
/// sums were checked when the fixture was prepared).
fn schedule_args(step: &Step, cx: &StepContext<'_>) -> ScheduleArgs {
    let Step::Schedule {
        actor,
        from,
        height,
        after,
        payload,
        handler,
        fee_payer,
        gas_limit,
        expires_at,
        ttl,
        max_fee_per_cycle,
        max_priority_fee_per_cycle,
        priority_tier,
        bid,
        client_nonce,
        ..
    } = step
    else {
        unreachable!("schedule_args of a schedule step");
    };
    let height = height.unwrap_or_else(|| cx.height.saturating_add(after.unwrap_or(0)));
    let raw = payload.clone().unwrap_or_default().into_bytes();
    let payload = match handler {
        Some(name) => handler_payload(name, &raw),
        None => raw,
    };
    let fee_payer = match fee_payer.as_deref() {
        None | Some("self") => None,
        Some("sender") => Some(cx.sender(actor, from)),
        Some(n) => Some(cx.addr(n)),
    };
    ScheduleArgs {
        height,
        payload,
        fee_payer,
        gas_limit: *gas_limit,
        expires_at: expires_at.or(ttl.map(|t| height.saturating_add(t))),
        max_fee_per_cycle: max_fee_per_cycle.map(|a| a.0),
        max_priority_fee_per_cycle: max_priority_fee_per_cycle.map(|a| a.0),
        priority_tier: *priority_tier,
        bid: bid.map(|a| a.0),
        client_nonce: *client_nonce,
    }
}
