//! The host of a custom GBA call (CIP-1 v3 §7.2): read-only, metered with its own budget.
//!
//! Spec note (CIP-1 v3 §7.2 "called read-only at fire time", Spec note 53): a GBA runs
//! against the state the block's transaction phase left (before any pre-charge of the end of
//! block), sees its actor's storage, balances, the height and its own address, and may not
//! change anything: every state-changing host call fails the call with `InvalidInput`. It is
//! metered in cycles against `Cip1Config::gba_cycles` (default 50,000); running out is
//! `OutOfCycles`. These cycles are **not charged** to anyone and do not count in the lane: the
//! GBA is the protocol's pricing step, like the default GBA, and its cost is bounded by the
//! budget. Any failure falls back to the default GBA with a `GbaFallback` event.

use super::runtime::{Host, VmError, cost};
use super::state::{Account, Actor};
use crate::engine::Address;
use std::collections::BTreeMap;

pub(super) struct GbaHost<'a> {
    accounts: &'a BTreeMap<Address, Account>,
    actor: &'a Actor,
    address: Address,
    height: u64,
    limit: u64,
    used: u64,
}

impl<'a> GbaHost<'a> {
    pub(super) fn new(
        accounts: &'a BTreeMap<Address, Account>,
        actor: &'a Actor,
        address: Address,
        height: u64,
        limit: u64,
    ) -> Self {
        GbaHost {
            accounts,
            actor,
            address,
            height,
            limit,
            used: 0,
        }
    }

    fn refuse<T>(&self, what: &str) -> Result<T, VmError> {
        Err(VmError::InvalidInput(format!(
            "`{what}` changes state and a GBA call is read-only (CIP-1 v3 §7.2)"
        )))
    }
}

impl Host for GbaHost<'_> {
    crate::chain::runtime::refuse_state_changes!();
    fn charge_cycles(&mut self, n: u64) -> Result<(), VmError> {
        let next = self.used.saturating_add(n);
        self.used = next.min(self.limit);
        if next > self.limit {
            return Err(VmError::OutOfCycles { limit: self.limit });
        }
        Ok(())
    }
    fn cycles_used(&self) -> u64 {
        self.used
    }
    fn cycles_limit(&self) -> u64 {
        self.limit
    }
    fn block_height(&mut self) -> Result<u64, VmError> {
        self.charge_cycles(cost::CONTEXT_CYCLES)?;
        Ok(self.height)
    }
    fn self_address(&mut self) -> Result<Address, VmError> {
        self.charge_cycles(cost::CONTEXT_CYCLES)?;
        Ok(self.address)
    }
    fn tx_sender(&mut self) -> Result<Address, VmError> {
        self.charge_cycles(cost::CONTEXT_CYCLES)?;
        Ok(self.address)
    }
    fn deployer(&mut self) -> Result<Address, VmError> {
        self.charge_cycles(cost::CONTEXT_CYCLES)?;
        Ok(self.actor.deployer)
    }
    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, VmError> {
        self.charge_cycles(cost::STORAGE_READ_CYCLES)?;
        Ok(self.actor.storage.get(key).cloned())
    }
    fn balance(&mut self, who: &Address) -> Result<u128, VmError> {
        self.charge_cycles(cost::BALANCE_CYCLES)?;
        Ok(self.accounts.get(who).map_or(0, |a| a.balance))
    }
    fn revert(&mut self, reason: &str) -> VmError {
        VmError::Revert(reason.to_string())
    }
}
