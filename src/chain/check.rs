//! The checks a transaction passes before it is included (issues 29 and 30, one refusal
//! path): what [`Chain::apply_tx`] would refuse, refused here by the same code, so a refused
//! transaction changes nothing (no nonce, no fee, no block) from any front end.

use super::block::act_as;
use super::exec::{Frame, Meter};
use super::runtime::VmError;
use super::*;

impl Chain {
    /// Checks a transaction without applying it: what [`apply_tx`](Self::apply_tx) would reject.
    pub fn check_tx(&self, tx: &Transaction) -> Result<(), TxError> {
        let expected = self.nonce(&tx.from);
        if let Some(n) = tx.nonce
            && n != expected
        {
            return Err(TxError::NonceMismatch { expected, got: n });
        }
        let limit = tx.cycle_limit.unwrap_or(self.basefee.tx_cycle_limit);
        if limit < self.basefee.tx_base_cycles {
            return Err(TxError::InvalidInput(format!(
                "cycle_limit {limit} is below the {} base cycles of a transaction",
                self.basefee.tx_base_cycles
            )));
        }
        if limit > self.basefee.block_tx_cycles {
            return Err(TxError::InvalidInput(format!(
                "cycle_limit {limit} is above the block's transaction cycle limit {}",
                self.basefee.block_tx_cycles
            )));
        }
        let used = self.open.as_ref().map_or(0, |o| o.tx_cycles);
        let left = self.basefee.block_tx_cycles.saturating_sub(used);
        if limit > left {
            return Err(TxError::BlockFull(format!(
                "cycle_limit {limit} does not fit in the {left} cycles left of the block's {}",
                self.basefee.block_tx_cycles
            )));
        }
        let max_fee = self.max_tx_fee(limit);
        let have = self.balance(&tx.from);
        if have < max_fee {
            return Err(TxError::InsufficientFunds(format!(
                "{} holds {have}, the transaction may cost up to {max_fee}",
                tx.from
            )));
        }
        match &tx.kind {
            TxKind::Transfer { to, .. } if *to == Address::ZERO => {
                Err(TxError::InvalidInput("transfer to the zero address".into()))
            }
            TxKind::Transfer { .. } => Ok(()),
            // Issues 29 and 30, one refusal path: an instruction that would fail is refused by
            // the checks of `check_system`, and changes nothing.
            TxKind::System(ins) => self
                .check_system(&tx.from, ins, self.block_cfg())
                .map_err(|e| TxError::Code(VmError::Timer(e))),
            TxKind::ActAs { actor, op } => {
                let a = self
                    .actors
                    .get(actor)
                    .ok_or(TxError::UnknownActor(*actor))?;
                if a.deployer != tx.from {
                    return Err(TxError::Unauthorized(format!(
                        "only {actor}'s deployer {} may act as it",
                        a.deployer
                    )));
                }
                // Issues 29 and 30, one refusal path: the timer call runs as `apply_tx` runs it
                // (the same host call, the same meter), its writes discarded; a call that would
                // fail is refused here and changes nothing (no nonce, no fee, no block).
                let frame = Frame {
                    height: self.pending_height(),
                    actor: *actor,
                    sender: tx.from,
                    deployer: a.deployer,
                    meter: self.tx_meter(limit),
                };
                self.execute(self.block_cfg(), frame, |ctx, _| act_as(ctx, op))
                    .result
                    .map_err(TxError::Code)
            }
            TxKind::Deploy { address, code, .. } => {
                let addr = address.unwrap_or_else(|| self.derive_address(&tx.from));
                if addr == Address::ZERO || addr.is_system() {
                    return Err(TxError::InvalidInput(format!(
                        "cannot deploy at reserved address {addr}"
                    )));
                }
                if self.actors.contains_key(&addr) {
                    return Err(TxError::ActorExists(addr));
                }
                self.runtime.prepare(code).map_err(TxError::Code)
            }
            TxKind::Call {
                actor,
                handler,
                payload,
            } => {
                if !self.actors.contains_key(actor) {
                    return Err(TxError::UnknownActor(*actor));
                }
                if handler.is_empty() || handler.len() > engine::config::MAX_HANDLER_BYTES {
                    return Err(TxError::InvalidInput(format!(
                        "handler name must be 1..=256 bytes, got {}",
                        handler.len()
                    )));
                }
                if handler == "deploy" {
                    return Err(TxError::InvalidInput(
                        "`deploy` runs once, at deployment".into(),
                    ));
                }
                if payload.len() > engine::config::MAX_PAYLOAD_BYTES {
                    return Err(TxError::InvalidInput("payload over 1 MiB".into()));
                }
                Ok(())
            }
        }
    }

    /// What [`check_tx`](Self::check_tx) leaves to execution for a deploy: the sender must
    /// hold the endowment on top of the most the transaction may cost, or the deploy is
    /// refused before it is sent (issue 20: `actor_deploy` refused with `InsufficientFunds`
    /// changes nothing, as a refused `timer_schedule`). The node's `DeployActor` checks it;
    /// a fixture's deploy step keeps the chain's rule (a failed receipt), so fixtures keep
    /// their roots.
    pub fn check_deploy_funds(&self, tx: &Transaction) -> Result<(), TxError> {
        let TxKind::Deploy { endowment, .. } = &tx.kind else {
            return Ok(());
        };
        let limit = tx.cycle_limit.unwrap_or(self.basefee.tx_cycle_limit);
        let max_fee = self.max_tx_fee(limit);
        let have = self.balance(&tx.from);
        match max_fee.checked_add(*endowment) {
            Some(need) if have >= need => Ok(()),
            need => Err(TxError::InsufficientFunds(format!(
                "{} holds {have}; the endowment {endowment} plus up to {max_fee} in fees needs {}",
                tx.from,
                need.map_or_else(|| "more than 2^128".to_string(), |n| n.to_string())
            ))),
        }
    }

    /// The timer config the open block runs with (the one a block opened now would take).
    pub(super) fn block_cfg(&self) -> &TimerConfig {
        self.open.as_ref().map_or(&self.timer_config, |o| &o.cfg)
    }

    /// A transaction's meter: `cycle_limit`, the cell limit, the base cycles charged.
    pub(super) fn tx_meter(&self, cycle_limit: u64) -> Meter {
        let mut meter = Meter::new(cycle_limit, self.basefee.tx_cell_limit);
        meter.cycles = self.basefee.tx_base_cycles;
        meter
    }

    pub(super) fn max_tx_fee(&self, cycle_limit: u64) -> u128 {
        (cycle_limit as u128) * self.basefee.cycle_basefee
            + (self.basefee.tx_cell_limit as u128) * self.basefee.cell_basefee
    }
}
