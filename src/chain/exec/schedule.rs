//! The parts of `schedule_timer` in an execution after the checks: the id's uniqueness, the
//! events a schedule records, and a draft timer's registration.

use super::{ExecCtx, VmError};
use crate::chain::types::Event;
use crate::engine::draft::{self, DraftKind, DraftReg, NonceBind};
use crate::engine::{Timer, TimerEvent, TimerId};

/// A draft policy's registration of a timer just scheduled (English §6, zh §7).
pub(super) struct DraftSchedule {
    pub id: TimerId,
    pub kind: DraftKind,
    /// The stated bid, before its fixed-point form.
    pub bid: u128,
    pub client_nonce: Option<u64>,
    pub expires_at: u64,
}

impl ExecCtx<'_> {
    /// Whether a timer with this id is pending on the chain or scheduled earlier in this
    /// execution.
    pub(super) fn id_taken(&self, id: &TimerId) -> bool {
        self.chain.engine.queue().contains(id)
            || self.overlay.scheduled.iter().any(|t| t.timer_id == *id)
    }

    /// `TimerScheduled`, then `TimerPriorityClampedAtSchedule` when the policy clamped the
    /// stated priority to `clamped`.
    pub(super) fn record_scheduled(
        &mut self,
        timer: &Timer,
        handler: &str,
        clamped: Option<(u128, u128)>,
    ) {
        let id = timer.timer_id;
        self.overlay
            .events
            .push(Event::Timer(TimerEvent::TimerScheduled {
                timer_id: id,
                actor: timer.actor_address,
                height: timer.height,
                fee_payer: timer.fee_payer,
                gas_limit_per_fire: timer.gas_limit_per_fire,
                expires_at: timer.expires_at,
                handler: handler.to_string(),
                payload_len: timer.payload.len() as u64,
            }));
        if let Some((stated, clamped)) = clamped {
            self.overlay
                .events
                .push(Event::Timer(TimerEvent::TimerPriorityClampedAtSchedule {
                    timer_id: id,
                    actor: timer.actor_address,
                    stated,
                    clamped,
                }));
        }
    }

    /// Registers a draft timer with its kind, its bid in fixed point and its `client_nonce`
    /// binding (Spec note 122); a bid out of range fails the call.
    pub(super) fn register_draft(&mut self, reg: DraftSchedule) -> Result<(), VmError> {
        let bid_fp = match draft::bid_fp(reg.bid) {
            Ok(b) => b,
            Err(e) => return self.timer_err(e),
        };
        let nonce = reg.client_nonce.map(|n| NonceBind {
            key: self.nonce_key(n),
            until: reg.expires_at,
            height: self.height,
        });
        self.overlay.draft.push(DraftReg {
            timer_id: reg.id,
            kind: reg.kind,
            bid_fp,
            watch: None,
            nonce,
        });
        Ok(())
    }
}
