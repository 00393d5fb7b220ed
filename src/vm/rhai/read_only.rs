//! The read-only host (custom GBA calls).

use super::*;

/// A [`Host`] that forwards reads and metering and refuses every state change with
/// `InvalidInput` (for read-only calls such as custom GBAs' `get_gas_bid(ctx)`).
pub struct ReadOnlyHost<'a> {
    inner: &'a mut dyn Host,
}

impl<'a> ReadOnlyHost<'a> {
    pub fn new(inner: &'a mut dyn Host) -> Self {
        ReadOnlyHost { inner }
    }

    fn refuse<T>(&self, what: &str) -> Result<T, VmError> {
        Err(VmError::InvalidInput(format!(
            "`{what}` changes state and this is a read-only call"
        )))
    }
}

impl Host for ReadOnlyHost<'_> {
    crate::chain::runtime::refuse_state_changes!();
    fn charge_cycles(&mut self, n: u64) -> Result<(), VmError> {
        self.inner.charge_cycles(n)
    }
    fn cycles_used(&self) -> u64 {
        self.inner.cycles_used()
    }
    fn cycles_limit(&self) -> u64 {
        self.inner.cycles_limit()
    }
    fn block_height(&mut self) -> Result<u64, VmError> {
        self.inner.block_height()
    }
    fn self_address(&mut self) -> Result<Address, VmError> {
        self.inner.self_address()
    }
    fn tx_sender(&mut self) -> Result<Address, VmError> {
        self.inner.tx_sender()
    }
    fn deployer(&mut self) -> Result<Address, VmError> {
        self.inner.deployer()
    }
    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, VmError> {
        self.inner.storage_get(key)
    }
    fn balance(&mut self, who: &Address) -> Result<u128, VmError> {
        self.inner.balance(who)
    }
    fn revert(&mut self, reason: &str) -> VmError {
        self.inner.revert(reason)
    }
}
