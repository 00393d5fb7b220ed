//! The transactions behind the node's timer and governance requests, built in one place for
//! the fixture runner, the RPC and the dashboard: a timer request is a transaction from `from`
//! in which `actor` itself performs the host call ([`TxKind::ActAs`]), under exactly the
//! engine's rules; a governance request is a system instruction (48/49/50).

use crate::chain::{SystemInstruction, TimerOp, Transaction, TxKind};
use crate::engine::{Address, ScheduleArgs, SchedulerParams, TimerConfig, TimerId};

/// `actor` calls `schedule_timer(args)` in a transaction sent by `from`.
pub fn schedule(from: Address, actor: Address, args: ScheduleArgs) -> Transaction {
    act_as(from, actor, TimerOp::ScheduleTimer(args))
}

/// `actor` calls `cancel_timer(timer_id)` in a transaction sent by `from`.
pub fn cancel(from: Address, actor: Address, timer_id: TimerId) -> Transaction {
    act_as(from, actor, TimerOp::CancelTimer { timer_id })
}

/// `actor` calls `extend_timer(timer_id, new_expires_at)` in a transaction sent by `from`.
pub fn extend(
    from: Address,
    actor: Address,
    timer_id: TimerId,
    new_expires_at: u64,
) -> Transaction {
    act_as(
        from,
        actor,
        TimerOp::ExtendTimer {
            timer_id,
            new_expires_at,
        },
    )
}

fn act_as(from: Address, actor: Address, op: TimerOp) -> Transaction {
    Transaction::new(from, TxKind::ActAs { actor, op })
}

/// `SYS_CANCEL_TIMER` (48) from `from`.
pub fn gov_cancel(from: Address, timer_id: TimerId) -> Transaction {
    system(from, SystemInstruction::CancelTimer { timer_id })
}

/// `SYS_EXTEND_TIMER` (50) from `from`.
pub fn gov_extend(from: Address, timer_id: TimerId, new_expires_at: u64) -> Transaction {
    system(
        from,
        SystemInstruction::ExtendTimer {
            timer_id,
            new_expires_at,
        },
    )
}

/// `SYS_UPDATE_TIMER_CONFIG` (49) from `from`.
pub fn gov_update_config(from: Address, config: TimerConfig) -> Transaction {
    system(from, SystemInstruction::UpdateTimerConfig { config })
}

/// `SYS_UPDATE_SCHEDULER_CONFIG` (51) from `from` (issue 21 §3).
/// `draft`: the CIP-5 drafts' parameters (English §12), when the update names any.
pub fn gov_update_scheduler_config(
    from: Address,
    config: SchedulerParams,
    draft: Option<crate::engine::draft::DraftParams>,
) -> Transaction {
    system(
        from,
        SystemInstruction::UpdateSchedulerConfig { config, draft },
    )
}

fn system(from: Address, i: SystemInstruction) -> Transaction {
    Transaction::new(from, TxKind::System(i))
}
