//! The seam between the chain and actor code (DESIGN.md: `vm` is called by `chain` through a
//! small trait). The chain implements [`Host`]; runtimes (Rhai scripts, the native test
//! runtime) implement [`ActorRuntime`].

use crate::engine::{
    Address, ErrorKind, Failure, GbaBid, GbaContext, ScheduleArgs, TimerError, TimerId,
};
use serde::{Deserialize, Serialize};

/// Host-call prices in cycles. CIP-5 §6.1 fixes the timer calls; the rest are this devnet's
/// (CIP-3's full table is not in our specs) and are documented in docs/ACTORS.md.
pub mod cost {
    pub use crate::engine::config::{
        CANCEL_TIMER_CYCLES, EXTEND_TIMER_CYCLES, SET_TIMER_BASE_CYCLES,
    };
    /// Reading context (`block_height`, `self_address`, ...).
    pub const CONTEXT_CYCLES: u64 = 10;
    pub const STORAGE_READ_CYCLES: u64 = 100;
    /// Plus one cell per byte of key and value written.
    pub const STORAGE_WRITE_CYCLES: u64 = 200;
    pub const BALANCE_CYCLES: u64 = 50;
    pub const TRANSFER_CYCLES: u64 = 500;
    /// Plus one cell per byte of topic and data.
    pub const EMIT_CYCLES: u64 = 100;
}

/// The language an actor is written in.
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    /// No code: a no-op `handle_timer`, nothing else.
    #[default]
    None,
    /// A Rhai script (`src/vm/rhai.rs`).
    Rhai,
    /// A JSON list of native test operations (`src/vm/native.rs`).
    Native,
}

/// An actor's code as deployed. `name` is where it came from (a file path), for error messages.
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ActorCode {
    pub lang: Lang,
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub name: String,
}

impl ActorCode {
    pub fn none() -> Self {
        ActorCode::default()
    }
    pub fn rhai(name: impl Into<String>, source: impl Into<String>) -> Self {
        ActorCode {
            lang: Lang::Rhai,
            source: source.into(),
            name: name.into(),
        }
    }
    pub fn native(source: impl Into<String>) -> Self {
        ActorCode {
            lang: Lang::Native,
            source: source.into(),
            name: "native".into(),
        }
    }
    /// keccak256 of the language tag and source: what the state root commits to.
    pub fn hash(&self) -> [u8; 32] {
        let tag: &[u8] = match self.lang {
            Lang::None => b"none",
            Lang::Rhai => b"rhai",
            Lang::Native => b"native",
        };
        crate::engine::types::keccak_parts(&[tag, self.source.as_bytes()])
    }
}

/// Why a handler did not complete. Every variant reverts the call's writes; the cycles and
/// cells used are still charged (CIP-5 §6.3 step 5).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "error", content = "detail")]
pub enum VmError {
    #[error("OutOfCycles: the {limit}-cycle limit was reached")]
    OutOfCycles { limit: u64 },
    #[error("OutOfCells: the {limit}-cell limit was reached")]
    OutOfCells { limit: u64 },
    /// A timer host call was rejected (CIP-5 §4.3: the transaction reverts).
    #[error("{0}")]
    Timer(TimerError),
    /// The script called `revert(reason)`.
    #[error("Reverted: {0}")]
    Revert(String),
    #[error("InsufficientFunds: {0}")]
    InsufficientFunds(String),
    #[error("HandlerNotFound: {0}")]
    HandlerNotFound(String),
    /// The code does not compile. `location` is `file:line:column`.
    #[error("CompileError: {location}: {message}")]
    Compile { location: String, message: String },
    /// A runtime error in the script (type error, sandbox limit, ...).
    #[error("ScriptError: {0}")]
    Script(String),
    #[error("InvalidInput: {0}")]
    InvalidInput(String),
}

impl VmError {
    /// The error's kind, as receipts and reports name it.
    pub fn kind(&self) -> ErrorKind {
        match self {
            VmError::OutOfCycles { .. } => ErrorKind::OutOfCycles,
            VmError::OutOfCells { .. } => ErrorKind::OutOfCells,
            VmError::Timer(e) => e.kind(),
            VmError::Revert(_) => ErrorKind::Reverted,
            VmError::InsufficientFunds(_) => ErrorKind::InsufficientFunds,
            VmError::HandlerNotFound(_) => ErrorKind::HandlerNotFound,
            VmError::Compile { .. } => ErrorKind::CompileError,
            VmError::Script(_) => ErrorKind::ScriptError,
            VmError::InvalidInput(_) => ErrorKind::InvalidInput,
        }
    }
}

impl From<&VmError> for Failure {
    fn from(e: &VmError) -> Self {
        Failure::from_error(e.kind(), e)
    }
}

impl From<TimerError> for VmError {
    fn from(e: TimerError) -> Self {
        VmError::Timer(e)
    }
}

/// The state-changing [`Host`] calls of a read-only host, each refused through the host's own
/// `fn refuse<T>(&self, what: &str) -> Result<T, VmError>` (a custom GBA's host,
/// `chain::gba`, and the read-only calls' `vm::rhai::ReadOnlyHost`): written once, so a call
/// added to [`Host`] is refused by both or fails to compile in both.
macro_rules! refuse_state_changes {
    () => {
        fn storage_set(
            &mut self,
            _: &[u8],
            _: &[u8],
        ) -> Result<(), $crate::chain::runtime::VmError> {
            self.refuse("storage_set")
        }
        fn storage_remove(&mut self, _: &[u8]) -> Result<(), $crate::chain::runtime::VmError> {
            self.refuse("storage_remove")
        }
        fn transfer(
            &mut self,
            _: &$crate::engine::Address,
            _: u128,
        ) -> Result<(), $crate::chain::runtime::VmError> {
            self.refuse("transfer")
        }
        fn emit(&mut self, _: &str, _: &[u8]) -> Result<(), $crate::chain::runtime::VmError> {
            self.refuse("emit")
        }
        fn schedule_timer(
            &mut self,
            _: $crate::engine::ScheduleArgs,
        ) -> Result<$crate::engine::TimerId, $crate::chain::runtime::VmError> {
            self.refuse("schedule_timer")
        }
        fn extend_timer(
            &mut self,
            _: &[u8],
            _: u64,
        ) -> Result<(), $crate::chain::runtime::VmError> {
            self.refuse("extend_timer")
        }
        fn cancel_timer(&mut self, _: &[u8]) -> Result<(), $crate::chain::runtime::VmError> {
            self.refuse("cancel_timer")
        }
        fn set_state_watch(
            &mut self,
            _: &$crate::engine::Address,
            _: &$crate::chain::DraftTimerArgs,
        ) -> Result<$crate::engine::TimerId, $crate::chain::runtime::VmError> {
            self.refuse("set_state_watch")
        }
        fn set_interval(
            &mut self,
            _: &$crate::engine::Address,
            _: &$crate::chain::DraftTimerArgs,
        ) -> Result<$crate::engine::TimerId, $crate::chain::runtime::VmError> {
            self.refuse("set_interval")
        }
    };
}
pub(crate) use refuse_state_changes;

/// What actor code can ask of the chain: the `pvm_host` API of CIP-5 §4.1 and Appendix B.
///
/// Every call charges its cycles (and cells) before acting. Any `Err` returned here is *fatal*:
/// the chain records it and reverts the call even if the script swallowed the error.
pub trait Host {
    /// Charges `n` cycles of computation (runtimes call this for their own work).
    fn charge_cycles(&mut self, n: u64) -> Result<(), VmError>;
    fn cycles_used(&self) -> u64;
    fn cycles_limit(&self) -> u64;
    /// Cells charged so far (a trace's per-call cells; 0 where a host has no cell meter).
    fn cells_used(&self) -> u64 {
        0
    }
    /// A storage value of the running actor as the run sees it, read without a charge: for
    /// traces only (the value a write replaces), never for the code.
    fn peek_storage(&self, _key: &[u8]) -> Option<Vec<u8>> {
        None
    }
    /// A line the code printed (`print` / `debug`): kept by a tracing host, dropped otherwise.
    /// Charges nothing (the runtime charged the print).
    fn output(&mut self, _line: &str) {}
    fn block_height(&mut self) -> Result<u64, VmError>;
    fn self_address(&mut self) -> Result<Address, VmError>;
    fn tx_sender(&mut self) -> Result<Address, VmError>;
    fn deployer(&mut self) -> Result<Address, VmError>;
    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, VmError>;
    fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), VmError>;
    fn storage_remove(&mut self, key: &[u8]) -> Result<(), VmError>;
    fn balance(&mut self, who: &Address) -> Result<u128, VmError>;
    fn transfer(&mut self, to: &Address, amount: u128) -> Result<(), VmError>;
    fn emit(&mut self, topic: &str, data: &[u8]) -> Result<(), VmError>;
    fn schedule_timer(&mut self, args: ScheduleArgs) -> Result<TimerId, VmError>;
    fn extend_timer(&mut self, timer_id: &[u8], new_expires_at: u64) -> Result<(), VmError>;
    fn cancel_timer(&mut self, timer_id: &[u8]) -> Result<(), VmError>;
    /// CIP-5 drafts (English §6.1, zh §7.1): `set_state_watch(target, watch_keys[], payload,
    /// gas_limit, bid_fp?)`. `target` must be the calling actor (Spec note: a watch fires its
    /// registrant and sees its storage). Refused by name under `fifo` / `eip1559`.
    fn set_state_watch(
        &mut self,
        target: &Address,
        args: &crate::chain::DraftTimerArgs,
    ) -> Result<TimerId, VmError>;
    /// CIP-5 draft zh §7.1: `set_interval(target, every_blocks, payload, gas_limit, bid_fp?)`,
    /// `args.every` set. Refused by name under `cip5-draft` (English §4), `fifo`, `eip1559`.
    fn set_interval(
        &mut self,
        target: &Address,
        args: &crate::chain::DraftTimerArgs,
    ) -> Result<TimerId, VmError>;
    /// Records a script-requested revert (`revert(reason)`); always returns the error.
    fn revert(&mut self, reason: &str) -> VmError;
}

/// Runs actor code. Implementations must be deterministic and must not reach the host machine.
pub trait ActorRuntime: Send + Sync {
    /// Checks (and may compile and cache) code at deploy. An error rejects the deploy.
    fn prepare(&self, code: &ActorCode) -> Result<(), VmError>;
    /// Whether `code` defines `entry`.
    fn has_entry(&self, code: &ActorCode, entry: &str) -> bool;
    /// Runs `entry(payload)`. `Ok` means the handler returned normally.
    fn invoke(
        &self,
        code: &ActorCode,
        entry: &str,
        payload: &[u8],
        host: &mut dyn Host,
    ) -> Result<(), VmError>;

    /// Whether `code` defines a custom GBA, `get_gas_bid(ctx)` (CIP-1 v3 §7.2). Default: no.
    fn has_gas_bid(&self, _code: &ActorCode) -> bool {
        false
    }

    /// Calls `code`'s custom GBA with the §7.2 context, read-only, metered against `host` (the
    /// chain's GBA host: its own small budget, every write refused). Any `Err` makes the chain
    /// fall back to the default GBA (Spec note 53).
    fn gas_bid(
        &self,
        _code: &ActorCode,
        _ctx: &GbaContext,
        _host: &mut dyn Host,
    ) -> Result<GbaBid, VmError> {
        Err(VmError::HandlerNotFound(format!(
            "no `{GAS_BID_ENTRY}` handler"
        )))
    }
}

/// The custom GBA entry point (CIP-1 v3 §7.2 `getGasBid(context)`).
pub const GAS_BID_ENTRY: &str = "get_gas_bid";
