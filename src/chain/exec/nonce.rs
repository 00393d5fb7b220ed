//! The drafts' idempotent set in an execution (English §6.2, zh §7.2; Spec notes 122-124):
//! a registration naming a `client_nonce` already bound for `(owner, target)` is a *repeat*.
//!
//! A repeat returns the bound `timer_id` and creates nothing (no new timer, the actor's nonce
//! unchanged); it is charged as the registration it restates (the cycles and cells were
//! charged before). While the timer lives the repeat updates its `payload`, `gas_limit` and
//! `bid` for its future fires (`TimerUpdated`); once it left (fired for good, cancelled,
//! expired) the repeat changes nothing. A repeat must restate what identifies the timer: its
//! kind, a watch's keys, an interval's `every_blocks`, a height timer's height, and (when
//! given) its fee payer and `expires_at`; anything else is `InvalidInput` and the call fails.

use super::{ExecCtx, VmError};
use crate::chain::types::Event;
use crate::engine::draft::{self, DraftKind, DraftUpdate, NonceKey};
use crate::engine::events::TimerEvent;
use crate::engine::scheduler::variants::UpdateFifoRank;
use crate::engine::{self, Address, ScheduleArgs, SchedulerKind, Timer, TimerError, TimerId};

/// What identifies a timer beyond its kind, for the mismatch checks.
struct Have {
    kind: DraftKind,
    height: u64,
    fee_payer: Address,
    expires_at: u64,
}

impl Have {
    fn of(kind: DraftKind, t: &Timer) -> Self {
        Have {
            kind,
            height: t.height,
            fee_payer: t.fee_payer,
            expires_at: t.expires_at,
        }
    }
}

impl ExecCtx<'_> {
    /// `(owner, target, client_nonce)` of a registration by this actor (the owner is the
    /// target, Spec note 115).
    pub(super) fn nonce_key(&self, client_nonce: u64) -> NonceKey {
        NonceKey {
            owner: self.actor,
            target: self.actor,
            client_nonce,
        }
    }

    /// A registration with `client_nonce = n`: `Some(id)` if it repeats a bound key (handled
    /// here), `None` if it creates the timer. Refused by name under a scheduler that is not a
    /// draft, and on a mismatch.
    pub(super) fn nonce_repeat(
        &mut self,
        n: u64,
        args: &ScheduleArgs,
        kind: &DraftKind,
    ) -> Result<Option<TimerId>, VmError> {
        let scheduler = self.chain.engine.scheduler_at(self.height);
        if !scheduler.facts().drafts {
            return self.timer_err(TimerError::InvalidInput(format!(
                "client_nonce needs a CIP-5 draft scheduler ({}), not {scheduler}",
                SchedulerKind::draft_names()
            )));
        }
        let key = self.nonce_key(n);
        // Registered earlier in this same execution.
        if let Some(i) = self
            .overlay
            .draft
            .iter()
            .position(|r| r.nonce.is_some_and(|b| b.key == key))
        {
            let id = self.overlay.draft[i].timer_id;
            let body = self.overlay.draft[i].watch.clone().or_else(|| {
                self.overlay
                    .scheduled
                    .iter()
                    .find(|t| t.timer_id == id)
                    .cloned()
            });
            let Some(body) = body else {
                return Ok(Some(id));
            };
            let have = Have::of(self.overlay.draft[i].kind.clone(), &body);
            let u = self.checked_update(n, id, &have, args, kind, false)?;
            self.overlay.draft[i].bid_fp = u.bid_fp;
            let pending = self.overlay.draft[i].watch.iter_mut().chain(
                self.overlay
                    .scheduled
                    .iter_mut()
                    .filter(|t| t.timer_id == id),
            );
            for t in pending {
                t.payload = u.payload.clone();
                t.gas_limit_per_fire = u.gas_limit;
            }
            return Ok(Some(id));
        }
        let d = self.chain.engine.policies();
        let Some(e) = d.nonce_entry(&key, self.height) else {
            return Ok(None);
        };
        let (id, bound) = (e.timer_id, e.kind.clone());
        let body = if e.left || self.overlay.cancelled.contains(&id) {
            None
        } else {
            self.chain
                .engine
                .get(&id)
                .or_else(|| d.rearming(&id))
                .cloned()
        };
        let Some(body) = body else {
            // The timer left: the repeat returns its id and changes nothing (English §6.2
            // "already materialized entries are unaffected"), once it restates the kind.
            if bound != *kind {
                return self.mismatch(n, id, &bound, "its kind, keys or interval");
            }
            return Ok(Some(id));
        };
        let raise = scheduler.facts().intervals
            && self.chain.engine.policies().variants().update_fifo_rank == UpdateFifoRank::Raise;
        let u = self.checked_update(n, id, &Have::of(bound, &body), args, kind, raise)?;
        self.overlay.draft_updates.push(u);
        Ok(Some(id))
    }

    /// Checks a repeat against the timer it names and builds its update (recording
    /// `TimerUpdated`).
    fn checked_update(
        &mut self,
        n: u64,
        id: TimerId,
        have: &Have,
        args: &ScheduleArgs,
        kind: &DraftKind,
        raise_rank: bool,
    ) -> Result<DraftUpdate, VmError> {
        if have.kind != *kind {
            return self.mismatch(n, id, &have.kind, "its kind, keys or interval");
        }
        if *kind == DraftKind::Height && args.height != have.height {
            return self.mismatch(n, id, &have.kind, &format!("its height {}", have.height));
        }
        if args.fee_payer.is_some_and(|f| f != have.fee_payer) {
            return self.mismatch(
                n,
                id,
                &have.kind,
                &format!("its fee payer {}", have.fee_payer),
            );
        }
        if args.expires_at.is_some_and(|x| x != have.expires_at) {
            return self.mismatch(
                n,
                id,
                &have.kind,
                &format!("its expires_at {} (extend_timer moves it)", have.expires_at),
            );
        }
        let checked = engine::check_payload(&args.payload)
            .and_then(|_| engine::check_gas_limit(self.cfg, args.gas_limit))
            .and_then(|g| draft::bid_fp(args.bid.unwrap_or(0)).map(|b| (g, b)));
        let (gas_limit, bid_fp) = match checked {
            Ok(v) => v,
            Err(e) => return self.timer_err(e),
        };
        self.overlay
            .events
            .push(Event::Timer(TimerEvent::TimerUpdated {
                timer_id: id,
                actor: self.actor,
                client_nonce: n,
                payload_len: args.payload.len() as u64,
                gas_limit_per_fire: gas_limit,
                bid: args.bid.unwrap_or(0),
                fifo_rank_raised: raise_rank,
            }));
        Ok(DraftUpdate {
            timer_id: id,
            payload: args.payload.clone().into_boxed_slice(),
            gas_limit,
            bid_fp,
            raise_rank,
        })
    }

    fn mismatch<T>(
        &mut self,
        n: u64,
        id: TimerId,
        have: &DraftKind,
        what: &str,
    ) -> Result<T, VmError> {
        self.timer_err(TimerError::InvalidInput(format!(
            "client_nonce {n} already names the {} timer {id}: a repeat must restate {what}; only payload, gas_limit and bid may change (English §6.2)",
            have.as_str()
        )))
    }
}
