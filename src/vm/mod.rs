//! Actor runtimes (DESIGN.md, `vm/`): they run actor handlers for the chain through
//! [`ActorRuntime`] and reach the chain only through [`Host`](crate::chain::runtime::Host).
//!
//! [`DevnetRuntime`] dispatches on the code's language: no code (a no-op `handle_timer`),
//! native test programs ([`native`]) and Rhai scripts ([`rhai`]).

pub mod native;
pub mod rhai;

use crate::chain::runtime::{ActorCode, ActorRuntime, GAS_BID_ENTRY, Host, Lang, VmError};
use crate::engine::{GbaBid, GbaContext};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The runtime the devnet uses.
#[derive(Default)]
pub struct DevnetRuntime {
    /// Parsed native programs by their source text (as the Rhai cache keys its scripts: a
    /// lookup costs a string hash, not a keccak of the code on every call).
    native: Mutex<HashMap<String, Arc<native::Program>>>,
    rhai: self::rhai::RhaiRuntime,
}

impl DevnetRuntime {
    pub fn new() -> Self {
        Self::default()
    }

    /// A shareable handle, as the chain wants it.
    pub fn shared() -> Arc<dyn ActorRuntime> {
        Arc::new(Self::new())
    }

    /// The Rhai runtime, for calls beyond the [`ActorRuntime`] entry points (read-only calls of
    /// custom GBA scripts).
    pub fn rhai(&self) -> &self::rhai::RhaiRuntime {
        &self.rhai
    }

    fn native_program(&self, code: &ActorCode) -> Result<Arc<native::Program>, VmError> {
        let mut cache = self.native.lock().expect("native cache lock");
        if let Some(p) = cache.get(code.source.as_str()) {
            return Ok(p.clone());
        }
        let p = Arc::new(native::parse(code)?);
        cache.insert(code.source.clone(), p.clone());
        Ok(p)
    }
}

impl ActorRuntime for DevnetRuntime {
    fn prepare(&self, code: &ActorCode) -> Result<(), VmError> {
        match code.lang {
            Lang::None => Ok(()),
            Lang::Native => self.native_program(code).map(|_| ()),
            Lang::Rhai => self.rhai.prepare(code),
        }
    }

    fn has_entry(&self, code: &ActorCode, entry: &str) -> bool {
        match code.lang {
            Lang::None => entry == "handle_timer",
            Lang::Native => self
                .native_program(code)
                .is_ok_and(|p| p.contains_key(entry)),
            Lang::Rhai => self.rhai.has_entry(code, entry),
        }
    }

    fn invoke(
        &self,
        code: &ActorCode,
        entry: &str,
        payload: &[u8],
        host: &mut dyn Host,
    ) -> Result<(), VmError> {
        match code.lang {
            Lang::None if entry == "handle_timer" => Ok(()),
            Lang::None => Err(VmError::HandlerNotFound(format!(
                "actor has no code, so no handler `{entry}`"
            ))),
            Lang::Native => native::invoke(&*self.native_program(code)?, entry, host),
            Lang::Rhai => self.rhai.invoke(code, entry, payload, host),
        }
    }

    fn has_gas_bid(&self, code: &ActorCode) -> bool {
        match code.lang {
            Lang::None => false,
            Lang::Native => self
                .native_program(code)
                .is_ok_and(|p| p.contains_key(GAS_BID_ENTRY)),
            Lang::Rhai => self.rhai.has_entry(code, GAS_BID_ENTRY),
        }
    }

    fn gas_bid(
        &self,
        code: &ActorCode,
        ctx: &GbaContext,
        host: &mut dyn Host,
    ) -> Result<GbaBid, VmError> {
        match code.lang {
            Lang::None => Err(VmError::HandlerNotFound(format!(
                "actor has no code, so no `{GAS_BID_ENTRY}`"
            ))),
            Lang::Native => native::gas_bid(&*self.native_program(code)?, ctx, host),
            Lang::Rhai => self.rhai.gas_bid(code, ctx, host),
        }
    }
}
