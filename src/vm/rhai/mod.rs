//! The Rhai actor runtime (DESIGN.md, `vm/`): actors are [Rhai](https://rhai.rs) scripts that
//! reach the chain through the CIP-5 §4.1 `pvm_host` API, under the spec's names, so the spec's
//! examples (Appendix B) read the same.
//!
//! # Script shape
//!
//! A script is a set of functions, compiled once at deploy ([`RhaiRuntime::prepare`]) and cached
//! by [`ActorCode::hash`]:
//!
//! - `fn deploy()` (optional, no parameters) runs once, inside the deploy transaction, with the
//!   deployer as `tx_sender()`.
//! - `fn handle_timer(payload)` receives timers whose payload does not use the `_handler`
//!   convention.
//! - any other public `fn name(payload)` (one parameter) is a handler, reached by a Call
//!   transaction or by a timer whose payload is `{"_handler": "name", "_payload": "<base64>"}`
//!   (CIP-5 §4.2; build one with `handler_payload(name, inner)`).
//!
//! Functions with another number of parameters, and `private fn`s, are helpers, never entry
//! points: calling one as a handler is `HandlerNotFound`. A `deploy` or `handle_timer` with the
//! wrong number of parameters is a compile error, so a typo cannot silently skip it.
//! Top-level statements run before every entry call (metered like the rest): keep them to
//! `const` declarations, which handlers read as `global::NAME`.
//!
//! # Values
//!
//! - **Payloads** are bytes. A handler's `payload` is always a `Blob`: `payload.as_string()`
//!   reads it as UTF-8 text (up to [`MAX_STRING_BYTES`]), `payload.len()` and the other in-place
//!   `Blob` methods work up to [`MAX_ARRAY_SIZE`] bytes, and a larger payload can still be passed
//!   on untouched. Like every value, it costs more to read the larger it is (see "Metering").
//!   `schedule_timer`, `emit`, `storage_set` and `handler_payload` accept a string (sent as its
//!   UTF-8 bytes) or a `Blob`.
//! - **Addresses** are `"0x…"` hex strings (20 bytes, any case on input, lower case on output).
//! - **Timer ids** are `"0x…"` hex strings of the 32-byte id; `cancel_timer` and `extend_timer`
//!   take them back (or a `Blob` of the raw bytes), so an id can be kept in storage as a string.
//! - **Storage** keys are strings; values are bytes: `storage_set` takes a string or a `Blob`,
//!   `storage_get` returns the value as a string (`()` when absent, an error when the bytes are
//!   not UTF-8) and `storage_get_blob` returns it as a `Blob` (`()` when absent).
//! - **Amounts** are `U128`, a registered integer type (Rhai's own `INT` is `i64`, and floats are
//!   compiled out). Build one with `u128(42)` or `u128("340282366920938463463374607431768211455")`
//!   (decimal, `_` separators allowed). `+ - * / %` and `== != < <= > >=` work between two `U128`
//!   and between a `U128` and an `INT`; every operation is checked: overflow, underflow, division
//!   by zero or a negative `INT` is a script error, never a wrap or a panic. `to_string()`
//!   prints it in decimal (also in `${}` interpolation), `to_int()` converts back when it fits.
//!   `balance()` returns a `U128`; `transfer()` takes an `INT` or a `U128`.
//!
//! # Host functions
//!
//! Every host function charges its cycles (and cells) through [`Host`] at the prices in
//! [`crate::chain::runtime::cost`] before it acts.
//!
//! | function | returns | cost (cycles) |
//! | --- | --- | --- |
//! | `schedule_timer(height, payload)` | timer id | 200 + 1 cell per payload byte |
//! | `schedule_timer_ex(height, payload, #{fee_payer, gas_limit, expires_at})` | timer id | 200 + cells |
//! | `extend_timer(id, new_expires_at)` | `()` | 200 |
//! | `cancel_timer(id)` | `()` | 200 |
//! | `block_height()`, `self_address()`, `tx_sender()`, `deployer()` | `INT` / address | 10 |
//! | `storage_get(key)`, `storage_get_blob(key)` | string / `Blob` / `()` | 100 |
//! | `storage_set(key, value)` | `()` | 200 + 1 cell per key and value byte |
//! | `storage_remove(key)` | `()` | 200 |
//! | `balance(addr)` | `U128` | 50 |
//! | `transfer(to, amount)` | `()` | 500 |
//! | `emit(topic, data)` | `()` | 100 + 1 cell per topic and data byte |
//! | `burn_cycles(n)` | `()` | `n` |
//! | `revert(reason)` | never returns | 0 |
//! | `handler_payload(name, inner)` | string | (pure, operations only) |
//!
//! `schedule_timer_ex`'s map keys are all optional (`()` also means "the protocol default");
//! an unknown key is an `InvalidInput` error. Beside CIP-5's `fee_payer`, `gas_limit` and
//! `expires_at` it takes CIP-1 v3 §6's `max_fee_per_cycle`, `max_priority_fee_per_cycle` (nanos
//! per cycle: `INT`, `U128` or a decimal string), `priority_tier` (§7.3: `"economy"`,
//! `"standard"`, `"fast"`, `"urgent"`) and the legacy `bid` (accepted and ignored during its
//! deprecation window, then `TimerArgDeprecated`).
//!
//! A script may define a custom GBA, `fn get_gas_bid(ctx)` (CIP-1 v3 §7.2, see `gba.rs`),
//! called read-only at fire time for its timers whose fees were left to the GBA.
//!
//! **Host errors cannot be swallowed.** Any error a host function raises (a rejected timer,
//! insufficient funds, a bad argument such as a malformed address, a write in a read-only call,
//! `revert`) is fatal: the chain records it and reverts the call, and this runtime stops the
//! script at its next operation, so a `try { … } catch { … }` around a host call can neither
//! continue nor commit anything. Script-level errors (`throw`, type errors, U128 overflow) are
//! catchable as usual; uncaught, they are `ScriptError`.
//!
//! # Metering
//!
//! Rhai counts *operations* (roughly one per expression node, loop iteration or call). Each
//! costs [`CYCLES_PER_OPERATION`] cycles, charged to the host on top of the host calls' own
//! prices. A call's operation budget is derived from `host.cycles_limit() - host.cycles_used()`
//! and recomputed after every host call, so a script can never spend more than its cycles: it is
//! stopped at the first operation past the budget with `OutOfCycles`, and the chain charges the
//! whole limit. `burn_cycles(n)` charges `n` cycles. Compilation is not metered (it happens once,
//! at deploy, and the deploy transaction is rejected if it fails).
//!
//! Work is priced by the bytes it touches, not only by the operations Rhai counts:
//!
//! - each read of a variable costs one more operation per [`READ_BYTES_PER_OPERATION`] data bytes
//!   its value holds (strings, `Blob`s, map keys, [`DATA_BYTES_PER_VALUE`] per nested value), since
//!   copying, comparing or passing on a value costs in proportion to its size;
//! - `print` and `debug` cost [`PRINT_BASE_OPERATIONS`] plus one operation per
//!   [`PRINT_BYTES_PER_OPERATION`] bytes of the text they produce;
//! - the data walks of the sandbox cost one operation per [`DATA_VALUES_PER_OPERATION`] values.
//!
//! With these charges the most expensive scripts known (copying a 60 KB string or array, printing
//! it, comparing a 1 MiB payload: `benches/hostile_scripts.rs`) hold the node for a few tens of
//! milliseconds per million cycles at most, within a small factor of `loop {}`.
//!
//! # Sandbox
//!
//! No file, clock, network, randomness or module access: modules resolve through a
//! `DummyModuleResolver`, `import` and `eval` are disabled symbols (as is `this`, see below),
//! `sleep` is overridden to fail, the time package is compiled out (`no_time`), and `print`/`debug`
//! only reach the `tracing` log at debug level (target `cowboy_devnet::vm::rhai`), each line cut to
//! [`MAX_PRINT_BYTES`], at most [`MAX_PRINT_LINES_PER_CALL`] lines per call; their output is never
//! part of a block, and their charge does not depend on whether the log is on. Closures cannot capture variables (Rhai's
//! `no_closure`): a captured variable is shared behind a lock, and under the `sync` feature Rhai
//! sleeps up to 50 ms waiting for a locked value before it reports a data race, which a script
//! could catch and repeat to stall the node for minutes. Limits, set explicitly so that debug and
//! release builds agree (Rhai's own defaults differ between them): [`MAX_OPERATIONS_PER_CALL`],
//! [`MAX_CALL_LEVELS`], [`MAX_EXPR_DEPTH`], [`MAX_FUNCTION_EXPR_DEPTH`], [`MAX_STRING_BYTES`],
//! [`MAX_ARRAY_SIZE`] (array elements and `Blob` bytes), [`MAX_MAP_SIZE`], [`MAX_VARIABLES`],
//! [`MAX_FUNCTIONS`] and [`MAX_SOURCE_BYTES`], [`MAX_DATA_DEPTH`] levels of nested arrays and
//! maps, and [`MAX_FRAME_DATA_BYTES`] of live data per function call. An infinite loop is `OutOfCycles`; deep recursion, an oversized value or any
//! other runtime failure is `ScriptError` naming `file:line:column` (or `file, fn entry` where Rhai
//! keeps no position, as for sandbox limits); a syntax error is `CompileError` at
//! `file:line:column`, with [`ActorCode::name`] as the file.
//!
//! **Depth is counted.** Recursion and nesting end at counted limits, so the same script stops at
//! the same point in every build and on every machine: [`MAX_CALL_LEVELS`] script calls, each at
//! most [`MAX_FUNCTION_EXPR_DEPTH`] expression levels deep (checked at compile time), and
//! [`MAX_DATA_DEPTH`] levels of nested arrays and maps (Rhai compares, prints, clones and drops
//! nested data recursively; every read of a variable checks its nesting, so a value is at most
//! one statement's worth of nesting past the limit when Rhai walks it). The deepest recursion
//! these allow uses about a quarter of [`STACK_GUARD_BYTES`]. Two backstops remain for what the
//! limits would miss (an engine bug): a native-stack guard, [`STACK_GUARD_BYTES`] below where
//! the call started, checked at every operation, and a `catch_unwind` around the engine. A call
//! runs on a stack with room for the guard and [`STACK_MARGIN_BYTES`] more (the caller's, else a
//! fresh stack of [`CALL_STACK_BYTES`]), so the backstop is met before the end of the stack.
//!
//! **Data limits between Rhai's checks.** Rhai re-checks a container's size on method calls,
//! `op=` assignments and function results, but not on `m[key] = value` (nor on a nested
//! `m.inner[key] = value`), which inserts into a map unchecked: a loop could grow one map until
//! the call ran out of cycles, gigabytes later. Two checks, run from Rhai's
//! variable hooks (`on_var` before every read or write of a variable, `on_def_var` at every
//! `let`), close the gap:
//!
//! - every access to a variable checks its map size and nesting (and charges the read, see
//!   "Metering"): a map grown by `m[key] = value` fails at its next use, one entry past
//!   [`MAX_MAP_SIZE`];
//! - every [`DATA_CHECK_INTERVAL`] operations the running function's variables are walked, nested
//!   values included: a value over [`MAX_ARRAY_SIZE`], [`MAX_MAP_SIZE`] or [`MAX_STRING_BYTES`]
//!   (map keys count as string bytes), or a frame holding more than [`MAX_FRAME_DATA_BYTES`],
//!   fails. A `Blob` variable counts only towards the frame, so a large payload still passes
//!   through. The walk is charged to the call: one operation per [`DATA_VALUES_PER_OPERATION`]
//!   values visited (about what visiting them costs, measured against an operation).
//!
//! Both fail with `ScriptError: … sandbox limit: <what> too large`, which `try` cannot catch, and
//! the call reverts like any failed call. Every change to a function's data begins with an access
//! to one of its variables or a `let`, so both checks see it: `this`, through which a method-style
//! function changes its caller's variable without naming a variable, is a disabled symbol, and
//! closures cannot capture. A frame can exceed its limits only by what it does between two walks
//! (at most [`DATA_CHECK_INTERVAL`] operations, each creating at most a string of
//! [`MAX_STRING_BYTES`] or a copy of a value already checked), and a call nests at most
//! [`MAX_CALL_LEVELS`] frames beyond its entry: about 136 MiB in the worst case.
//!
//! # Host access
//!
//! The [`Host`] is a `&mut dyn Host` valid only during one call; the call lends it to host
//! functions through a thread-local frame. The `unsafe` this takes, and why it is sound, is all
//! in `host_frame.rs`; the rest of this module denies `unsafe` code.
//!
//! # Read-only calls
//!
//! [`RhaiRuntime::call_read_only`] runs any public function through a [`ReadOnlyHost`], which
//! answers every state-changing host call with `InvalidInput`; it is meant for custom GBA scripts
//! (`get_gas_bid(ctx)`), which must not write.

#![deny(unsafe_code)]

use crate::chain::runtime::{ActorCode, Host, VmError};
use crate::engine::timer::handler_payload;
use crate::engine::{Address, ScheduleArgs};
use ::rhai::module_resolvers::DummyModuleResolver;
use ::rhai::{
    AST, Blob, CallFnOptions, Dynamic, Engine, EvalAltResult, EvalContext, FnAccess, INT, Map,
    OptimizationLevel, Position, Scope, VarDefInfo,
};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::ptr::NonNull;
use std::str::FromStr;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

mod amount;
mod args;
mod build;
mod cache;
mod compile;
mod data;
mod draft_api;
mod frame;
mod gba;
mod host_api;
mod host_frame;
mod limits;
mod read_only;
mod runtime;

pub use amount::U128;
pub use cache::RhaiRuntime;
pub use compile::{DEPLOY_ENTRY, TIMER_ENTRY};
pub use limits::*;
pub use read_only::ReadOnlyHost;

use amount::*;
use args::*;
use build::*;
use compile::*;
use data::*;
use draft_api::*;
use frame::*;
use host_api::*;
use host_frame::*;

type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

#[cfg(test)]
mod tests;
