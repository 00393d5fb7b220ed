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
//! an unknown key is an `InvalidInput` error.
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
//! [`MAX_CALL_LEVELS`] frames beyond its entry: about 136 MiB in the worst case. The hostile
//! loops of `tests/vm_scripts.rs` stop after at most 4,300 operations, holding a few MB at most.
//!
//! # Host access
//!
//! The [`Host`] is a `&mut dyn Host` valid only during one call, while the Rhai engine (one per
//! process, shared by every call) holds `'static` functions. The call installs the host in a
//! thread-local *frame* for exactly its own duration (a closure-scoped guard restores the
//! previous frame on every exit, unwinding included); host functions borrow it from the frame
//! one call at a time. See [`RhaiRuntime::call`] and the `SAFETY` notes below.
//!
//! # Read-only calls
//!
//! [`RhaiRuntime::call_read_only`] runs any public function through a [`ReadOnlyHost`], which
//! answers every state-changing host call with `InvalidInput`; it is meant for custom GBA scripts
//! (`get_gas_bid(ctx)`), which must not write.

use crate::chain::runtime::{ActorCode, Host, VmError};
use crate::engine::timer::handler_payload;
use crate::engine::{Address, ScheduleArgs, TimerId};
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

/// Cycles charged per Rhai operation.
///
/// A context read (`block_height()`) costs 10 cycles, so one operation is priced like one
/// context read; the default 550,000-cycle fire budget buys 55,000 operations and the default
/// 5,000,000-cycle transaction 500,000.
pub const CYCLES_PER_OPERATION: u64 = 10;
/// A hard cap on operations per call, whatever the cycle limit (a backstop for genesis files
/// with huge cycle limits): 100,000,000 cycles' worth.
pub const MAX_OPERATIONS_PER_CALL: u64 = 10_000_000;
/// Maximum nesting of script function calls (recursion depth). With the expression depths below,
/// the deepest recursion a script can build uses about a quarter of [`STACK_GUARD_BYTES`] (each
/// level at most 32 expression levels deep, about 32 KiB of Rhai's evaluator frames), so this
/// counted limit, never the guard, stops it (see "Sandbox").
pub const MAX_CALL_LEVELS: usize = 16;
/// Maximum expression nesting at the top level (parse-time).
pub const MAX_EXPR_DEPTH: usize = 32;
/// Maximum expression nesting inside functions (parse-time).
pub const MAX_FUNCTION_EXPR_DEPTH: usize = 32;
/// Maximum string length in bytes (64 KiB). Larger payloads still pass through a handler as a
/// `Blob` (and on to `schedule_timer`, `emit`, `storage_set`) untouched.
pub const MAX_STRING_BYTES: usize = 65_536;
/// Maximum array length, counting nested elements, and `Blob` length in bytes, checked when a
/// method works on it in place (`payload.len()`; `payload.as_string()` takes it by value).
pub const MAX_ARRAY_SIZE: usize = 1_024;
/// Maximum object-map size, counting nested entries.
pub const MAX_MAP_SIZE: usize = 256;
/// Maximum variables in scope at once.
pub const MAX_VARIABLES: usize = 1_024;
/// Maximum script functions in one script.
pub const MAX_FUNCTIONS: usize = 1_024;
/// Maximum nesting of arrays and maps in one value (an array in an array counts two). Rhai
/// compares, prints, clones and drops nested data recursively; this counted limit bounds that
/// recursion (see "Sandbox").
pub const MAX_DATA_DEPTH: usize = 32;
/// The native-stack guard, a backstop: a call is stopped (`ScriptError`) at the first operation
/// evaluated this many bytes of stack below where the call started. The counted limits
/// ([`MAX_CALL_LEVELS`], the expression depths, [`MAX_DATA_DEPTH`]) stop every script well
/// before it, so where a script stops does not depend on the build or the machine.
pub const STACK_GUARD_BYTES: usize = 2 << 20;
/// Stack a call is guaranteed beyond the guard, for the data Rhai walks between two operations.
pub const STACK_MARGIN_BYTES: usize = 1 << 20;
/// A call runs on the caller's stack when at least [`STACK_GUARD_BYTES`] +
/// [`STACK_MARGIN_BYTES`] of it are left, else on a fresh stack of this size.
pub const CALL_STACK_BYTES: usize = 4 << 20;
/// Maximum script source size in bytes.
pub const MAX_SOURCE_BYTES: usize = 262_144;
/// Operations between two walks of the running script function's live data (its variables,
/// nested values included; see "Sandbox" in the module docs).
pub const DATA_CHECK_INTERVAL: u64 = 64;
/// Maximum live data of one script function call (one frame: its parameters and variables), in
/// data bytes: the bytes of its strings, `Blob`s and map keys plus [`DATA_BYTES_PER_VALUE`] for
/// every value (variable, array element, map entry).
pub const MAX_FRAME_DATA_BYTES: usize = 4 << 20;
/// Data bytes counted for each value on top of its string, `Blob` or key bytes.
pub const DATA_BYTES_PER_VALUE: usize = 16;
/// Reading a variable costs one more operation per this many data bytes it holds (rounded down;
/// data bytes as [`MAX_FRAME_DATA_BYTES`] counts them: string, `Blob` and map-key bytes plus
/// [`DATA_BYTES_PER_VALUE`] per nested value). Copying, comparing or passing on a value costs in
/// proportion to its size, far more than an operation for a large one, so a script pays for the
/// bytes it touches: a read of a 60,000-byte string costs 117 more operations, a read of an
/// array of 1,024 numbers 32 more, a read of a 1 MiB payload 2,048 more.
pub const READ_BYTES_PER_OPERATION: usize = 512;
/// `print` and `debug` cost this many operations each, plus one per [`PRINT_BYTES_PER_OPERATION`]
/// bytes of the text they produce (before it is cut to [`MAX_PRINT_BYTES`]).
pub const PRINT_BASE_OPERATIONS: u64 = 10;
/// See [`PRINT_BASE_OPERATIONS`]: formatting text (`debug` escapes every character) costs about
/// an operation per this many bytes.
pub const PRINT_BYTES_PER_OPERATION: usize = 64;
/// `print`/`debug` output reaches the `tracing` log (debug level, target
/// `cowboy_devnet::vm::rhai`) cut to this many bytes, marked as cut. It is never part of a block.
pub const MAX_PRINT_BYTES: usize = 256;
/// Lines of `print`/`debug` output one call may write to the log; further output is charged
/// the same but not logged (one line says so).
pub const MAX_PRINT_LINES_PER_CALL: u32 = 32;
/// Values a data walk visits per operation it is charged ([`CYCLES_PER_OPERATION`] each).
pub const DATA_VALUES_PER_OPERATION: u64 = 32;
/// The entry run once at deploy, with no parameters.
pub const DEPLOY_ENTRY: &str = "deploy";
/// The default timer handler (CIP-5 §3.1).
pub const TIMER_ENTRY: &str = crate::engine::config::DEFAULT_HANDLER;

type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

/// An amount: Rhai's `U128` (see the module docs). Every operation is checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct U128(pub u128);

// ---- the engine ---------------------------------------------------------------------------

/// The one engine every call shares (building one costs far more than a call).
static ENGINE: LazyLock<Engine> = LazyLock::new(build_engine);

fn build_engine() -> Engine {
    let mut e = Engine::new();
    e.set_module_resolver(DummyModuleResolver::new());
    e.disable_symbol("eval");
    e.disable_symbol("import");
    // `this` lets a method-style script function mutate its caller's variable without naming
    // any variable, out of reach of the data checks (see "Sandbox").
    e.disable_symbol("this");
    e.on_print(|s| print_line("print", s));
    e.on_debug(|s, src, pos| {
        let at = location(src.unwrap_or("<script>"), pos);
        print_line(&format!("debug {at}"), s)
    });
    e.set_optimization_level(OptimizationLevel::Simple);
    e.set_strict_variables(true);
    e.set_max_operations(MAX_OPERATIONS_PER_CALL);
    e.set_max_call_levels(MAX_CALL_LEVELS);
    e.set_max_expr_depths(MAX_EXPR_DEPTH, MAX_FUNCTION_EXPR_DEPTH);
    e.set_max_string_size(MAX_STRING_BYTES);
    e.set_max_array_size(MAX_ARRAY_SIZE);
    e.set_max_map_size(MAX_MAP_SIZE);
    e.set_max_variables(MAX_VARIABLES);
    e.set_max_functions(MAX_FUNCTIONS);
    e.on_progress(on_progress);
    // The variable hooks only check data; they never resolve or forbid a variable. (Rhai marks
    // them unstable, not deprecated.)
    #[allow(deprecated)]
    e.on_var(on_var).on_def_var(on_def_var);
    // The core package's `sleep(seconds)` blocks the thread: functions registered on the engine
    // are resolved before package functions, so this override shadows it.
    e.register_fn("sleep", |_: INT| -> RhaiResult<()> {
        Err("`sleep` is not available to actor scripts".into())
    });
    register_u128(&mut e);
    register_host_api(&mut e);
    e
}

// ---- the per-call frame ---------------------------------------------------------------------

/// The state of the call running on this thread.
struct Frame {
    /// The call's host, lifetime-erased. `None` while a host function has it on loan.
    host: Option<NonNull<dyn Host + 'static>>,
    /// The latest operation count Rhai reported.
    ops: u64,
    /// Operations already charged to the host.
    charged_ops: u64,
    /// The script is stopped at the first operation past this count.
    op_limit: u64,
    /// The first error a host function raised: the call's result, whatever the script does.
    fatal: Option<VmError>,
    /// The stack address where the call started.
    stack_base: usize,
    /// The script was stopped by the native-stack guard.
    stack_exhausted: bool,
    /// A host function is running (a panic caught now is the host's, and is resumed).
    in_host: bool,
    /// `ops` at which the running function's live data is next walked.
    next_data_check: u64,
    /// Operations charged for data walks and `Blob` reads so far (included in `ops`).
    walk_ops: u64,
    /// Values visited by data walks and not yet charged (fewer than a whole operation's worth).
    walk_carry: u64,
    /// Lines of `print`/`debug` output written to the log by this call.
    printed: u32,
}

impl Frame {
    fn new(host: Option<NonNull<dyn Host + 'static>>, op_limit: u64) -> Self {
        Frame {
            host,
            ops: 0,
            charged_ops: 0,
            op_limit,
            fatal: None,
            stack_base: stack_address(),
            stack_exhausted: false,
            in_host: false,
            next_data_check: DATA_CHECK_INTERVAL,
            walk_ops: 0,
            walk_carry: 0,
            printed: 0,
        }
    }
}

impl Frame {
    /// Charges `n` operations on top of those Rhai counts (data reads and walks, `print`).
    fn charge(&mut self, n: u64) {
        self.walk_ops = self.walk_ops.saturating_add(n);
        self.ops = self.ops.saturating_add(n);
    }
}

/// An address in the current stack frame.
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Measures the native-stack guard of the running call from here (the stack the script runs on).
fn set_stack_base() {
    FRAME.with(|slot| {
        if let Some(f) = slot.borrow_mut().as_mut() {
            f.stack_base = stack_address();
        }
    });
}

thread_local! {
    static FRAME: RefCell<Option<Frame>> = const { RefCell::new(None) };
}

/// Rhai's per-operation hook: records the count and stops the script when it is out of cycles
/// or a host function failed. Outside a call (no frame) nothing may run.
fn on_progress(count: u64) -> Option<Dynamic> {
    FRAME.with(|slot| {
        let Ok(mut slot) = slot.try_borrow_mut() else {
            return Some(Dynamic::UNIT);
        };
        match slot.as_mut() {
            Some(f) => {
                f.ops = count.saturating_add(f.walk_ops);
                if f.stack_base.abs_diff(stack_address()) > STACK_GUARD_BYTES {
                    f.stack_exhausted = true;
                }
                (f.fatal.is_some() || f.stack_exhausted || f.ops > f.op_limit)
                    .then_some(Dynamic::UNIT)
            }
            None => Some(Dynamic::UNIT),
        }
    })
}

/// `print`/`debug` output: charged to the running call by its size (see
/// [`PRINT_BASE_OPERATIONS`]) and written to the `tracing` log at debug level, cut to
/// [`MAX_PRINT_BYTES`], at most [`MAX_PRINT_LINES_PER_CALL`] lines per call. The output is never
/// part of a block, and the charge does not depend on whether the log is enabled. Past its
/// budget the call stops at its next operation (`OutOfCycles`).
fn print_line(what: &str, text: &str) {
    let logged = FRAME.with(|slot| {
        let Ok(mut slot) = slot.try_borrow_mut() else {
            return true;
        };
        let Some(f) = slot.as_mut() else {
            return true;
        };
        f.charge(PRINT_BASE_OPERATIONS + (text.len() / PRINT_BYTES_PER_OPERATION) as u64);
        f.printed = f.printed.saturating_add(1);
        if f.printed == MAX_PRINT_LINES_PER_CALL + 1 {
            tracing::debug!(
                target: "cowboy_devnet::vm::rhai",
                "further print/debug output of this call is not logged ({MAX_PRINT_LINES_PER_CALL} lines per call)"
            );
        }
        f.printed <= MAX_PRINT_LINES_PER_CALL
    });
    if !logged || !tracing::enabled!(target: "cowboy_devnet::vm::rhai", tracing::Level::DEBUG) {
        return;
    }
    if text.len() <= MAX_PRINT_BYTES {
        tracing::debug!(target: "cowboy_devnet::vm::rhai", "{what}: {text}");
    } else {
        let mut cut = MAX_PRINT_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        tracing::debug!(
            target: "cowboy_devnet::vm::rhai",
            "{what}: {}… (cut, {} bytes)",
            &text[..cut],
            text.len()
        );
    }
}

// ---- data checks ------------------------------------------------------------------------------

/// Rhai's variable-access hook, called before every read or write of a variable. It only checks
/// data and never resolves the variable itself (`Ok(None)`).
fn on_var(name: &str, offset: usize, ctx: EvalContext) -> RhaiResult<Option<Dynamic>> {
    let value = scope_var(&ctx, name, offset);
    if let Some(value) = value
        && value.is_map()
        && let Ok(map) = value.as_map_ref()
        && map.len() > MAX_MAP_SIZE
    {
        return Err(too_large("Size of object map".into()));
    }
    check_frame_data(&ctx, value)?;
    Ok(None)
}

/// The value of the variable `name` that Rhai's variable hook is about to access: `offset`
/// counts from the top of the scope (O(offset) to reach); 0 means Rhai has no offset for it and
/// it is looked up by name.
fn scope_var<'a>(ctx: &'a EvalContext, name: &str, offset: usize) -> Option<&'a Dynamic> {
    let mut vars = ctx.scope().iter_raw();
    let var = match offset {
        0 => vars.find(|(n, ..)| *n == name),
        n => vars.nth(n - 1),
    };
    var.map(|(_, _, value)| value)
}

/// Rhai's variable-definition hook (`let`, `const`): checks data, never forbids a definition.
fn on_def_var(at_runtime: bool, _: VarDefInfo, ctx: EvalContext) -> RhaiResult<bool> {
    if at_runtime {
        check_frame_data(&ctx, None)?;
    }
    Ok(true)
}

fn too_large(what: String) -> Box<EvalAltResult> {
    EvalAltResult::ErrorDataTooLarge(what, Position::NONE).into()
}

/// Walks the running function's live data when [`DATA_CHECK_INTERVAL`] operations have passed
/// since the last walk, and charges the walk to the call (one operation per
/// [`DATA_VALUES_PER_OPERATION`] values visited). Fails when a value is over the sandbox's array,
/// map or string limits or the frame holds more than [`MAX_FRAME_DATA_BYTES`].
///
/// `read` is the value of the variable about to be read, if any: the read is charged by the data
/// it holds (see [`READ_BYTES_PER_OPERATION`]).
fn check_frame_data(ctx: &EvalContext, read: Option<&Dynamic>) -> RhaiResult<()> {
    FRAME.with(|slot| {
        let Ok(mut slot) = slot.try_borrow_mut() else {
            return Ok(());
        };
        let Some(f) = slot.as_mut() else {
            return Ok(());
        };
        if let Some(value) = read
            && holds_data(value)
        {
            let tally = read_tally(value);
            f.charge((tally.bytes / READ_BYTES_PER_OPERATION) as u64);
            if tally.max_depth > MAX_DATA_DEPTH {
                return tally.check();
            }
        }
        if f.ops < f.next_data_check {
            return Ok(());
        }
        let mut tally = Tally::default();
        let result = tally.scope(ctx.scope());
        let visited = f.walk_carry.saturating_add(tally.values);
        f.walk_carry = visited % DATA_VALUES_PER_OPERATION;
        f.charge(visited / DATA_VALUES_PER_OPERATION);
        f.next_data_check = f.ops.saturating_add(DATA_CHECK_INTERVAL);
        result
    })
}

/// Sizes of live data, counted the way Rhai counts them for its limits (nested array elements
/// and `Blob` bytes, nested map entries, string bytes) except that map keys count as string
/// bytes too, plus the frame's data bytes.
#[derive(Default)]
struct Tally {
    /// Of the variable being walked: array elements and `Blob` bytes, nested.
    array: usize,
    /// Of the variable being walked: map entries, nested.
    map: usize,
    /// Of the variable being walked: string and map-key bytes, nested.
    string: usize,
    /// Of the whole frame: data bytes (see [`MAX_FRAME_DATA_BYTES`]).
    bytes: usize,
    /// Values visited.
    values: u64,
    /// Of the variable being walked: nesting of arrays and maps at the current value.
    depth: usize,
    /// Of the variable being walked: the deepest nesting seen.
    max_depth: usize,
}

impl Tally {
    /// Walks every variable of `scope`, stopping at the first limit exceeded.
    fn scope(&mut self, scope: &Scope) -> RhaiResult<()> {
        for (_, _, value) in scope.iter_raw() {
            (self.array, self.map, self.string, self.max_depth) = (0, 0, 0, 0);
            // A `Blob` variable (a handler's payload) may be larger than MAX_ARRAY_SIZE: it
            // passes through untouched (Rhai checks it when a method works on it in place).
            if value.is_blob()
                && let Ok(blob) = value.as_blob_ref()
            {
                self.values += 1;
                self.bytes = self.bytes.saturating_add(DATA_BYTES_PER_VALUE + blob.len());
            } else {
                self.value(value);
            }
            self.check()?;
        }
        Ok(())
    }

    fn exceeded(&self) -> bool {
        self.string > MAX_STRING_BYTES
            || self.array > MAX_ARRAY_SIZE
            || self.map > MAX_MAP_SIZE
            || self.bytes > MAX_FRAME_DATA_BYTES
            || self.max_depth > MAX_DATA_DEPTH
    }

    /// The error for the first limit exceeded, in the order Rhai checks its own.
    fn check(&self) -> RhaiResult<()> {
        let what = if self.string > MAX_STRING_BYTES {
            "Length of string".into()
        } else if self.array > MAX_ARRAY_SIZE {
            "Size of array/BLOB".into()
        } else if self.map > MAX_MAP_SIZE {
            "Size of object map".into()
        } else if self.bytes > MAX_FRAME_DATA_BYTES {
            format!(
                "Data of one script function call ({} MiB limit)",
                MAX_FRAME_DATA_BYTES >> 20
            )
        } else if self.max_depth > MAX_DATA_DEPTH {
            format!("Nesting of arrays and maps ({MAX_DATA_DEPTH} levels limit)")
        } else {
            return Ok(());
        };
        Err(too_large(what))
    }

    /// Adds one element of an array or map. Returns `false` once a limit is exceeded, when the
    /// walk stops.
    fn element(&mut self, item: &Dynamic) -> bool {
        if !holds_data(item) {
            // The common element (a number, a bool, `()`), counted inline.
            self.values += 1;
            self.bytes = self.bytes.saturating_add(DATA_BYTES_PER_VALUE);
            return true;
        }
        if self.exceeded() {
            return false;
        }
        self.value(item);
        true
    }

    /// Adds `value` and everything in it, stopping early once a limit is exceeded (which also
    /// bounds the recursion by [`MAX_DATA_DEPTH`]).
    fn value(&mut self, value: &Dynamic) {
        if value.is_array() || value.is_map() {
            self.depth += 1;
            self.max_depth = self.max_depth.max(self.depth);
            if self.depth <= MAX_DATA_DEPTH {
                self.container(value);
            }
            self.depth -= 1;
        } else {
            self.container(value);
        }
    }

    /// [`value`](Self::value) without the nesting count.
    fn container(&mut self, value: &Dynamic) {
        self.values += 1;
        self.bytes = self.bytes.saturating_add(DATA_BYTES_PER_VALUE);
        // The `is_*` tests are plain tag checks; a failed `as_*_ref` would build an error.
        if value.is_string()
            && let Ok(s) = value.as_immutable_string_ref()
        {
            self.string = self.string.saturating_add(s.len());
            self.bytes = self.bytes.saturating_add(s.len());
        } else if value.is_array()
            && let Ok(array) = value.as_array_ref()
        {
            for item in array.iter() {
                self.array += 1;
                if !self.element(item) {
                    return;
                }
            }
        } else if value.is_blob()
            && let Ok(blob) = value.as_blob_ref()
        {
            // Nested in an array or map: an element plus its bytes, as Rhai counts it.
            self.array = self.array.saturating_add(1 + blob.len());
            self.bytes = self.bytes.saturating_add(blob.len());
        } else if value.is_map()
            && let Ok(map) = value.as_map_ref()
        {
            for (key, item) in map.iter() {
                self.map += 1;
                self.string = self.string.saturating_add(key.len());
                self.bytes = self.bytes.saturating_add(key.len());
                if !self.element(item) {
                    return;
                }
            }
        }
    }
}

/// The data bytes `value` holds (counted as [`MAX_FRAME_DATA_BYTES`] counts them) and its
/// nesting. The walk stops once a sandbox limit is exceeded, which bounds its cost; a value
/// nested deeper than [`MAX_DATA_DEPTH`] fails the read, the other limits the next data check.
fn read_tally(value: &Dynamic) -> Tally {
    let mut tally = Tally::default();
    if let Ok(blob) = value.as_blob_ref() {
        tally.bytes = DATA_BYTES_PER_VALUE + blob.len();
    } else {
        tally.value(value);
    }
    tally
}

/// Whether `value` is a string, array, `Blob` or map (plain tag checks).
fn holds_data(value: &Dynamic) -> bool {
    value.is_string() || value.is_array() || value.is_map() || value.is_blob()
}

/// Restores the frame that was current before a call, on every exit path.
struct RestoreFrame(Option<Frame>);

impl Drop for RestoreFrame {
    fn drop(&mut self) {
        let prev = self.0.take();
        FRAME.with(|slot| *slot.borrow_mut() = prev);
    }
}

/// Runs `f` with `host` installed as this thread's host and returns `f`'s result with the final
/// state of the frame. The host is charged for every operation; the caller charges what is left
/// (`ops - charged_ops`).
fn with_frame<R>(host: &mut dyn Host, op_limit: u64, f: impl FnOnce() -> R) -> (R, Frame) {
    let ptr: NonNull<dyn Host + '_> = NonNull::from(&mut *host);
    // SAFETY: only the trait object's lifetime bound is erased (same layout, same vtable). The
    // pointer is dereferenced only by `host_call`, and only while this function runs: it is
    // removed from the thread-local slot before this function returns, by `RestoreFrame` on
    // every path, unwinding included, and `RestoreFrame` is private to this function so it
    // cannot be leaked. For that whole time `host` is exclusively borrowed by this function and
    // not otherwise used, so the referent is alive and the pointer's accesses are the only ones.
    let ptr: NonNull<dyn Host + 'static> = unsafe { std::mem::transmute(ptr) };
    let frame = Frame::new(Some(ptr), op_limit);
    let prev = FRAME.with(|slot| slot.borrow_mut().replace(frame));
    let restore = RestoreFrame(prev);
    let r = f();
    let frame = FRAME.with(|slot| slot.borrow_mut().take());
    drop(restore);
    let frame = frame.unwrap_or_else(|| {
        let mut lost = Frame::new(None, 0);
        lost.fatal = Some(VmError::Script("internal: the call frame was lost".into()));
        lost
    });
    (r, frame)
}

/// Wraps a host error for Rhai. `ErrorSystem` is not catchable by `try`/`catch`; when it is
/// wrapped by a script function call (which makes it catchable), the frame's `fatal` still stops
/// the script at its next operation.
fn host_error(e: VmError) -> Box<EvalAltResult> {
    EvalAltResult::ErrorSystem("host call failed".into(), Box::new(e)).into()
}

/// Runs one host function: charges the operations run so far, lends the host to `f`, records
/// any error as the call's fatal error and refreshes the operation budget from the host's
/// remaining cycles.
fn host_call<T>(f: impl FnOnce(&mut dyn Host) -> Result<T, VmError>) -> RhaiResult<T> {
    let lent = FRAME.with(|slot| {
        let mut slot = slot.borrow_mut();
        let Some(frame) = slot.as_mut() else {
            return Err(VmError::Script(
                "host functions are only available during an actor call".into(),
            ));
        };
        if let Some(e) = &frame.fatal {
            return Err(e.clone());
        }
        let Some(ptr) = frame.host.take() else {
            return Err(VmError::Script("re-entrant host call".into()));
        };
        let pending = frame.ops.saturating_sub(frame.charged_ops);
        frame.charged_ops = frame.ops;
        frame.in_host = true;
        Ok((ptr, pending))
    });
    let (mut ptr, pending) = lent.map_err(host_error)?;
    // SAFETY: `ptr` was installed by `with_frame`, which is still running (the frame exists), so
    // the host is alive and nothing else uses it (see `with_frame`). It was taken out of the
    // slot above, so no other `&mut` to it can be created until it is put back below.
    let host = unsafe { ptr.as_mut() };
    let result = host
        .charge_cycles(pending.saturating_mul(CYCLES_PER_OPERATION))
        .and_then(|()| f(host));
    let remaining = host.cycles_limit().saturating_sub(host.cycles_used());
    FRAME.with(|slot| {
        if let Some(frame) = slot.borrow_mut().as_mut() {
            frame.host = Some(ptr);
            frame.in_host = false;
            frame.op_limit = frame
                .charged_ops
                .saturating_add(remaining / CYCLES_PER_OPERATION);
            if let Err(e) = &result {
                frame.fatal.get_or_insert_with(|| e.clone());
            }
        }
    });
    result.map_err(host_error)
}

// ---- argument conversions -------------------------------------------------------------------

fn invalid(msg: String) -> VmError {
    VmError::InvalidInput(msg)
}

fn non_negative(what: &str, v: INT) -> Result<u64, VmError> {
    u64::try_from(v).map_err(|_| invalid(format!("{what} must not be negative, got {v}")))
}

fn to_int(what: &str, v: u64) -> Result<INT, VmError> {
    INT::try_from(v).map_err(|_| invalid(format!("{what} {v} does not fit an INT")))
}

fn parse_address(what: &str, s: &str) -> Result<Address, VmError> {
    Address::from_str(s).map_err(|e| invalid(format!("{what}: {e}")))
}

/// A timer id given as a `"0x…"` string: decoded to bytes, which the host validates (CIP-5 §3.1).
fn timer_id_bytes(s: &str) -> Result<Vec<u8>, VmError> {
    let t = s.strip_prefix("0x").unwrap_or(s);
    hex::decode(t).map_err(|e| invalid(format!("timer id `{s}` is not hex: {e}")))
}

/// Applies `schedule_timer_ex`'s options map (CIP-5 §4.1 Model B) to `args`. Every key is
/// optional and `()` means "the protocol default"; an unknown key is `InvalidInput`.
fn apply_schedule_options(opts: &Map, args: &mut ScheduleArgs) -> Result<(), VmError> {
    for (k, v) in opts {
        if v.is_unit() {
            continue;
        }
        let int = |what: &str| {
            v.as_int()
                .map_err(|t| {
                    invalid(format!(
                        "schedule_timer_ex: `{what}` must be an INT, got {t}"
                    ))
                })
                .and_then(|i| non_negative(what, i))
        };
        match k.as_str() {
            "fee_payer" => {
                let s = v.clone().into_immutable_string().map_err(|t| {
                    invalid(format!(
                        "schedule_timer_ex: `fee_payer` must be an address string, got {t}"
                    ))
                })?;
                args.fee_payer = Some(parse_address("fee_payer", &s)?);
            }
            "gas_limit" => args.gas_limit = Some(int("gas_limit")?),
            "expires_at" => args.expires_at = Some(int("expires_at")?),
            other => {
                return Err(invalid(format!(
                    "schedule_timer_ex: unknown option `{other}` (expected fee_payer, gas_limit, expires_at)"
                )));
            }
        }
    }
    Ok(())
}

fn schedule(height: INT, payload: &[u8], opts: Option<&Map>) -> RhaiResult<String> {
    host_call(|h| {
        let mut args = ScheduleArgs {
            height: non_negative("height", height)?,
            payload: payload.to_vec(),
            ..ScheduleArgs::default()
        };
        if let Some(m) = opts {
            apply_schedule_options(m, &mut args)?;
        }
        h.schedule_timer(args).map(|id| id.to_string())
    })
}

// ---- registration -------------------------------------------------------------------------

fn register_host_api(e: &mut Engine) {
    // CIP-5 §4.1 timer calls.
    e.register_fn("schedule_timer", |h: INT, p: &str| {
        schedule(h, p.as_bytes(), None)
    });
    e.register_fn("schedule_timer", |h: INT, p: Blob| schedule(h, &p, None));
    e.register_fn("schedule_timer_ex", |h: INT, p: &str, o: Map| {
        schedule(h, p.as_bytes(), Some(&o))
    });
    e.register_fn("schedule_timer_ex", |h: INT, p: Blob, o: Map| {
        schedule(h, &p, Some(&o))
    });
    e.register_fn("extend_timer", |id: &str, new_expires_at: INT| {
        host_call(|h| {
            let id = timer_id_bytes(id)?;
            let exp = non_negative("new_expires_at", new_expires_at)?;
            h.extend_timer(&id, exp)
        })
    });
    e.register_fn("extend_timer", |id: Blob, new_expires_at: INT| {
        host_call(|h| h.extend_timer(&id, non_negative("new_expires_at", new_expires_at)?))
    });
    e.register_fn("cancel_timer", |id: &str| {
        host_call(|h| h.cancel_timer(&timer_id_bytes(id)?))
    });
    e.register_fn("cancel_timer", |id: Blob| {
        host_call(|h| h.cancel_timer(&id))
    });

    // Context.
    e.register_fn("block_height", || {
        host_call(|h| to_int("block height", h.block_height()?))
    });
    e.register_fn("self_address", || {
        host_call(|h| h.self_address().map(|a| a.to_string()))
    });
    e.register_fn("tx_sender", || {
        host_call(|h| h.tx_sender().map(|a| a.to_string()))
    });
    e.register_fn("deployer", || {
        host_call(|h| h.deployer().map(|a| a.to_string()))
    });

    // Storage.
    e.register_fn("storage_get", |key: &str| {
        host_call(|h| match h.storage_get(key.as_bytes())? {
            None => Ok(Dynamic::UNIT),
            Some(v) => String::from_utf8(v).map(Dynamic::from).map_err(|_| {
                invalid(format!(
                    "the value under `{key}` is not UTF-8 text: read it with storage_get_blob"
                ))
            }),
        })
    });
    e.register_fn("storage_get_blob", |key: &str| {
        host_call(|h| {
            Ok(h.storage_get(key.as_bytes())?
                .map_or(Dynamic::UNIT, Dynamic::from_blob))
        })
    });
    e.register_fn("storage_set", |key: &str, value: &str| {
        host_call(|h| h.storage_set(key.as_bytes(), value.as_bytes()))
    });
    e.register_fn("storage_set", |key: &str, value: Blob| {
        host_call(|h| h.storage_set(key.as_bytes(), &value))
    });
    e.register_fn("storage_remove", |key: &str| {
        host_call(|h| h.storage_remove(key.as_bytes()))
    });

    // Funds.
    e.register_fn("balance", |who: &str| {
        host_call(|h| {
            let who = parse_address("balance", who)?;
            h.balance(&who).map(U128)
        })
    });
    e.register_fn("transfer", |to: &str, amount: U128| {
        host_call(|h| h.transfer(&parse_address("transfer", to)?, amount.0))
    });
    e.register_fn("transfer", |to: &str, amount: INT| {
        host_call(|h| {
            let to = parse_address("transfer", to)?;
            let amount = u128::try_from(amount)
                .map_err(|_| invalid(format!("transfer amount {amount} is negative")))?;
            h.transfer(&to, amount)
        })
    });

    // Events, metering, reverts.
    e.register_fn("emit", |topic: &str, data: &str| {
        host_call(|h| h.emit(topic, data.as_bytes()))
    });
    e.register_fn("emit", |topic: &str, data: Blob| {
        host_call(|h| h.emit(topic, &data))
    });
    e.register_fn("burn_cycles", |n: INT| {
        host_call(|h| h.charge_cycles(non_negative("burn_cycles", n)?))
    });
    e.register_fn("revert", |reason: &str| -> RhaiResult<Dynamic> {
        host_call(|h| Err(h.revert(reason)))
    });

    // Pure helpers.
    e.register_fn("handler_payload", |name: &str, inner: &str| {
        String::from_utf8_lossy(&handler_payload(name, inner.as_bytes())).into_owned()
    });
    e.register_fn("handler_payload", |name: &str, inner: Blob| {
        String::from_utf8_lossy(&handler_payload(name, &inner)).into_owned()
    });
}

fn arith(msg: String) -> Box<EvalAltResult> {
    EvalAltResult::ErrorArithmetic(msg, Position::NONE).into()
}

fn int_amount(v: INT) -> RhaiResult<u128> {
    u128::try_from(v).map_err(|_| arith(format!("U128 arithmetic on a negative INT ({v})")))
}

/// `a` compared with an `INT` (a negative `INT` is below every `U128`).
fn cmp_int(a: u128, b: INT) -> Ordering {
    match u128::try_from(b) {
        Ok(b) => a.cmp(&b),
        Err(_) => Ordering::Greater,
    }
}

type CheckedOp = fn(u128, u128) -> Option<u128>;
type CmpOp = fn(Ordering) -> bool;

fn register_u128(e: &mut Engine) {
    e.register_type_with_name::<U128>("U128");
    e.register_fn("u128", |v: INT| int_amount(v).map(U128));
    e.register_fn("u128", |s: &str| -> RhaiResult<U128> {
        let digits = s.replace('_', "");
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(arith(format!("`{s}` is not a decimal U128")));
        }
        digits
            .parse::<u128>()
            .map(U128)
            .map_err(|_| arith(format!("`{s}` does not fit a U128")))
    });
    e.register_fn("u128", |v: U128| v);
    e.register_fn("to_string", |v: &mut U128| v.0.to_string());
    e.register_fn("to_debug", |v: &mut U128| format!("u128({})", v.0));
    e.register_fn("to_int", |v: &mut U128| -> RhaiResult<INT> {
        INT::try_from(v.0).map_err(|_| arith(format!("U128 {} does not fit an INT", v.0)))
    });

    let ops: [(&str, CheckedOp); 5] = [
        ("+", u128::checked_add),
        ("-", u128::checked_sub),
        ("*", u128::checked_mul),
        ("/", u128::checked_div),
        ("%", u128::checked_rem),
    ];
    for (name, op) in ops {
        let apply = move |a: u128, b: u128| -> RhaiResult<U128> {
            op(a, b).map(U128).ok_or_else(|| {
                arith(format!(
                    "U128 {a} {name} {b}: overflow, underflow or division by zero"
                ))
            })
        };
        e.register_fn(name, move |a: U128, b: U128| apply(a.0, b.0));
        e.register_fn(name, move |a: U128, b: INT| apply(a.0, int_amount(b)?));
        e.register_fn(name, move |a: INT, b: U128| apply(int_amount(a)?, b.0));
    }

    let cmps: [(&str, CmpOp); 6] = [
        ("==", Ordering::is_eq),
        ("!=", Ordering::is_ne),
        ("<", Ordering::is_lt),
        ("<=", Ordering::is_le),
        (">", Ordering::is_gt),
        (">=", Ordering::is_ge),
    ];
    for (name, test) in cmps {
        e.register_fn(name, move |a: U128, b: U128| test(a.0.cmp(&b.0)));
        e.register_fn(name, move |a: U128, b: INT| test(cmp_int(a.0, b)));
        e.register_fn(name, move |a: INT, b: U128| test(cmp_int(b.0, a).reverse()));
    }
}

// ---- compiled scripts ---------------------------------------------------------------------

/// A compiled script and its entry points.
struct Script {
    ast: AST,
    /// Public functions: name -> bit set of the parameter counts defined.
    public: BTreeMap<String, u64>,
}

impl Script {
    fn defines(&self, name: &str, arity: usize) -> bool {
        arity < 64 && self.public.get(name).is_some_and(|m| m & (1 << arity) != 0)
    }
}

fn file_name(code: &ActorCode) -> &str {
    if code.name.is_empty() {
        "<script>"
    } else {
        &code.name
    }
}

fn location(file: &str, pos: Position) -> String {
    format!(
        "{file}:{}:{}",
        pos.line().unwrap_or(0),
        pos.position().unwrap_or(0)
    )
}

/// Where `fn <name>` is defined in `source`, for shape errors (the AST keeps no positions for
/// function definitions).
fn fn_location(file: &str, source: &str, name: &str) -> String {
    let needle = format!("fn {name}");
    for (i, line) in source.lines().enumerate() {
        if let Some(col) = line.find(&needle) {
            return format!("{file}:{}:{}", i + 1, col + 1);
        }
    }
    format!("{file}:0:0")
}

fn compile(code: &ActorCode) -> Result<Script, VmError> {
    let file = file_name(code);
    if code.source.len() > MAX_SOURCE_BYTES {
        return Err(VmError::Compile {
            location: format!("{file}:0:0"),
            message: format!(
                "the script is {} bytes, the limit is {MAX_SOURCE_BYTES}",
                code.source.len()
            ),
        });
    }
    let mut ast = ENGINE.compile(&code.source).map_err(|e| VmError::Compile {
        location: location(file, e.position()),
        message: e.err_type().to_string(),
    })?;
    ast.set_source(file);
    let mut public = BTreeMap::new();
    for f in ast.iter_functions() {
        let arity = f.params.len();
        let fixed = match f.name {
            DEPLOY_ENTRY => Some(0),
            TIMER_ENTRY => Some(1),
            _ => None,
        };
        if let Some(want) = fixed
            && (arity != want || f.access == FnAccess::Private)
        {
            return Err(VmError::Compile {
                location: fn_location(file, &code.source, f.name),
                message: format!(
                    "`fn {}` must be public and take {want} parameter{}",
                    f.name,
                    if want == 1 { "" } else { "s" }
                ),
            });
        }
        if f.access == FnAccess::Public && arity < 64 {
            *public.entry(f.name.to_string()).or_insert(0u64) |= 1 << arity;
        }
    }
    Ok(Script { ast, public })
}

/// The innermost error of a chain of script-function calls, the functions it went through and
/// the best position known for it (its own, else the innermost call site that has one).
fn root_error(err: EvalAltResult) -> (EvalAltResult, Vec<String>, Position) {
    let mut calls = Vec::new();
    let mut pos = Position::NONE;
    let mut e = err;
    loop {
        e = match e {
            EvalAltResult::ErrorInFunctionCall(name, _, inner, at) => {
                calls.push(name);
                if !at.is_none() {
                    pos = at;
                }
                *inner
            }
            EvalAltResult::ErrorInModule(_, inner, at) => {
                if !at.is_none() {
                    pos = at;
                }
                *inner
            }
            mut other => {
                let own = other.take_position();
                if !own.is_none() {
                    pos = own;
                }
                return (other, calls, pos);
            }
        };
    }
}

/// Maps a Rhai error (when no host error decided the outcome) to a [`VmError`].
///
/// Rhai moves a sandbox-limit error to the call site of the script function it escapes, which
/// for the entry point has no position; such errors name the entry function instead.
fn script_error(file: &str, entry: &str, err: EvalAltResult) -> VmError {
    let (root, calls, pos) = root_error(err);
    let kind = match &root {
        EvalAltResult::ErrorStackOverflow(_)
        | EvalAltResult::ErrorDataTooLarge(..)
        | EvalAltResult::ErrorTooManyOperations(_)
        | EvalAltResult::ErrorTooManyVariables(_)
        | EvalAltResult::ErrorTooManyModules(_) => "sandbox limit: ",
        EvalAltResult::ErrorTerminated(..) => "terminated: ",
        _ => "",
    };
    let at = if pos.is_none() {
        format!("{file}, fn {entry}")
    } else {
        location(file, pos)
    };
    let mut msg = format!("{at}: {kind}{root}");
    if !calls.is_empty() {
        msg.push_str(&format!(" (in fn {})", calls.join(" <- ")));
    }
    VmError::Script(msg)
}

// ---- the runtime --------------------------------------------------------------------------

/// Runs Rhai actor scripts: compiles each once and caches it by its source text.
///
/// The cache is keyed by the source itself, not by [`ActorCode::hash`]: a lookup then costs a
/// fast hash and one comparison of the text, where keccak of the source on every fire cost
/// about as much as running a small handler.
#[derive(Default)]
pub struct RhaiRuntime {
    scripts: Mutex<hashbrown::HashMap<Box<str>, Arc<Script>>>,
}

impl std::fmt::Debug for RhaiRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RhaiRuntime")
            .field("cached_scripts", &self.cached_scripts())
            .finish()
    }
}

impl RhaiRuntime {
    pub fn new() -> Self {
        Self::default()
    }

    /// How many compiled scripts the cache holds.
    pub fn cached_scripts(&self) -> usize {
        self.scripts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// The compiled script for `code`: from the cache, or compiled now (a cache miss, e.g. after
    /// a state load) and cached.
    fn script(&self, code: &ActorCode) -> Result<Arc<Script>, VmError> {
        if let Some(s) = self
            .scripts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(code.source.as_str())
        {
            return Ok(s.clone());
        }
        // Compiled outside the lock; two threads racing on one script both compile it, and the
        // results are identical.
        let s = Arc::new(compile(code)?);
        self.scripts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(code.source.as_str().into(), s.clone());
        Ok(s)
    }

    /// Compiles and caches `code` (at deploy). A syntax error is `CompileError` at
    /// `name:line:column`.
    pub fn prepare(&self, code: &ActorCode) -> Result<(), VmError> {
        self.script(code).map(|_| ())
    }

    /// Whether `code` defines the entry `entry`: `deploy()` with no parameters, any other name
    /// as a public function of one parameter (the payload).
    pub fn has_entry(&self, code: &ActorCode, entry: &str) -> bool {
        self.script(code)
            .is_ok_and(|s| s.defines(entry, entry_arity(entry)))
    }

    /// Runs the entry `entry` with `payload` (as a `Blob`; `deploy` takes none).
    pub fn invoke(
        &self,
        code: &ActorCode,
        entry: &str,
        payload: &[u8],
        host: &mut dyn Host,
    ) -> Result<(), VmError> {
        let args = if entry_arity(entry) == 0 {
            Vec::new()
        } else {
            vec![Dynamic::from_blob(payload.to_vec())]
        };
        self.call(code, entry, args, host).map(|_| ())
    }

    /// Calls any public function of the script with `args`, metered against `host`, and
    /// returns its value.
    ///
    /// The operation budget starts at `(cycles_limit - cycles_used) / CYCLES_PER_OPERATION` and
    /// is recomputed after every host call; the operations run are charged to `host` before each
    /// host call and at the end. The first host error is the result, whatever the script did
    /// after it.
    pub fn call(
        &self,
        code: &ActorCode,
        function: &str,
        args: Vec<Dynamic>,
        host: &mut dyn Host,
    ) -> Result<Dynamic, VmError> {
        let script = self.script(code)?;
        if !script.defines(function, args.len()) {
            return Err(VmError::HandlerNotFound(missing_entry(
                &script,
                function,
                args.len(),
            )));
        }
        let remaining = host.cycles_limit().saturating_sub(host.cycles_used());
        let op_limit = remaining / CYCLES_PER_OPERATION;
        let (result, frame) = with_frame(host, op_limit, || {
            // On a stack with room for the guard and its margin (the caller's, else a fresh one),
            // so the guard, not the end of the stack, is the backstop.
            stacker::maybe_grow(
                STACK_GUARD_BYTES + STACK_MARGIN_BYTES,
                CALL_STACK_BYTES,
                || {
                    set_stack_base();
                    // A safety net: a panic inside the engine fails this call instead of the
                    // node. (The engine is immutable and the frame is restored on unwinding, so
                    // nothing observed later is left half-updated.)
                    catch_unwind(AssertUnwindSafe(|| {
                        ENGINE.call_fn_with_options::<Dynamic>(
                            CallFnOptions::new().rewind_scope(false),
                            &mut Scope::new(),
                            &script.ast,
                            function,
                            args,
                        )
                    }))
                },
            )
        });
        let result = match result {
            Ok(r) => r,
            // A panic in the host is a bug of the chain, not of the script: let it through.
            Err(panic) if frame.in_host => resume_unwind(panic),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                return Err(VmError::Script(format!(
                    "{}, fn {function}: internal error: the script engine panicked: {what}",
                    file_name(code)
                )));
            }
        };
        let mut fatal = frame.fatal;
        let pending = frame.ops.saturating_sub(frame.charged_ops);
        if let Err(e) = host.charge_cycles(pending.saturating_mul(CYCLES_PER_OPERATION)) {
            fatal.get_or_insert(e);
        }
        if let Some(e) = fatal {
            return Err(e);
        }
        if frame.stack_exhausted {
            return Err(VmError::Script(format!(
                "{}, fn {function}: sandbox limit: native stack guard ({STACK_GUARD_BYTES} bytes)",
                file_name(code)
            )));
        }
        result.map_err(|e| script_error(file_name(code), function, *e))
    }

    /// [`call`](Self::call) through a [`ReadOnlyHost`]: any state-changing host call fails the
    /// call with `InvalidInput`. For scripts that must only compute (custom GBAs).
    pub fn call_read_only(
        &self,
        code: &ActorCode,
        function: &str,
        args: Vec<Dynamic>,
        host: &mut dyn Host,
    ) -> Result<Dynamic, VmError> {
        self.call(code, function, args, &mut ReadOnlyHost::new(host))
    }
}

/// The parameter count of an entry point: none for `deploy`, the payload for the rest.
fn entry_arity(entry: &str) -> usize {
    if entry == DEPLOY_ENTRY { 0 } else { 1 }
}

fn missing_entry(script: &Script, name: &str, arity: usize) -> String {
    match script.public.get(name) {
        Some(_) => format!(
            "the script defines `{name}` but not with {arity} parameter{} (handlers take the payload, `deploy` takes none)",
            if arity == 1 { "" } else { "s" }
        ),
        None => format!("the script defines no handler `{name}`"),
    }
}

// ---- read-only host -------------------------------------------------------------------------

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
    fn storage_set(&mut self, _: &[u8], _: &[u8]) -> Result<(), VmError> {
        self.refuse("storage_set")
    }
    fn storage_remove(&mut self, _: &[u8]) -> Result<(), VmError> {
        self.refuse("storage_remove")
    }
    fn balance(&mut self, who: &Address) -> Result<u128, VmError> {
        self.inner.balance(who)
    }
    fn transfer(&mut self, _: &Address, _: u128) -> Result<(), VmError> {
        self.refuse("transfer")
    }
    fn emit(&mut self, _: &str, _: &[u8]) -> Result<(), VmError> {
        self.refuse("emit")
    }
    fn schedule_timer(&mut self, _: ScheduleArgs) -> Result<TimerId, VmError> {
        self.refuse("schedule_timer")
    }
    fn extend_timer(&mut self, _: &[u8], _: u64) -> Result<(), VmError> {
        self.refuse("extend_timer")
    }
    fn cancel_timer(&mut self, _: &[u8]) -> Result<(), VmError> {
        self.refuse("cancel_timer")
    }
    fn revert(&mut self, reason: &str) -> VmError {
        self.inner.revert(reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal host: counts cycles, keeps storage, refuses timers.
    struct TestHost {
        limit: u64,
        used: u64,
        storage: BTreeMap<Vec<u8>, Vec<u8>>,
        fatal: Option<VmError>,
    }

    impl TestHost {
        fn new(limit: u64) -> Self {
            TestHost {
                limit,
                used: 0,
                storage: BTreeMap::new(),
                fatal: None,
            }
        }
        fn fail<T>(&mut self, e: VmError) -> Result<T, VmError> {
            self.fatal.get_or_insert(e.clone());
            Err(e)
        }
    }

    impl Host for TestHost {
        fn charge_cycles(&mut self, n: u64) -> Result<(), VmError> {
            if self.used.saturating_add(n) > self.limit {
                self.used = self.limit;
                return self.fail(VmError::OutOfCycles { limit: self.limit });
            }
            self.used += n;
            Ok(())
        }
        fn cycles_used(&self) -> u64 {
            self.used
        }
        fn cycles_limit(&self) -> u64 {
            self.limit
        }
        fn block_height(&mut self) -> Result<u64, VmError> {
            self.charge_cycles(10)?;
            Ok(7)
        }
        fn self_address(&mut self) -> Result<Address, VmError> {
            Ok(Address::from_low_u64(0x42))
        }
        fn tx_sender(&mut self) -> Result<Address, VmError> {
            Ok(Address::from_low_u64(0x43))
        }
        fn deployer(&mut self) -> Result<Address, VmError> {
            Ok(Address::from_low_u64(0x44))
        }
        fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, VmError> {
            Ok(self.storage.get(key).cloned())
        }
        fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), VmError> {
            self.storage.insert(key.to_vec(), value.to_vec());
            Ok(())
        }
        fn storage_remove(&mut self, key: &[u8]) -> Result<(), VmError> {
            self.storage.remove(key);
            Ok(())
        }
        fn balance(&mut self, _: &Address) -> Result<u128, VmError> {
            Ok(u128::MAX - 1)
        }
        fn transfer(&mut self, _: &Address, _: u128) -> Result<(), VmError> {
            Ok(())
        }
        fn emit(&mut self, _: &str, _: &[u8]) -> Result<(), VmError> {
            Ok(())
        }
        fn schedule_timer(&mut self, _: ScheduleArgs) -> Result<TimerId, VmError> {
            self.fail(VmError::InvalidInput("no timers here".into()))
        }
        fn extend_timer(&mut self, _: &[u8], _: u64) -> Result<(), VmError> {
            Ok(())
        }
        fn cancel_timer(&mut self, _: &[u8]) -> Result<(), VmError> {
            Ok(())
        }
        fn revert(&mut self, reason: &str) -> VmError {
            let e = VmError::Revert(reason.into());
            self.fatal.get_or_insert(e.clone());
            e
        }
    }

    fn run(src: &str, f: &str, host: &mut TestHost) -> Result<Dynamic, VmError> {
        let rt = RhaiRuntime::new();
        rt.call(
            &ActorCode::rhai("t.rhai", src),
            f,
            vec![Dynamic::UNIT],
            host,
        )
    }

    #[test]
    fn operations_are_charged_at_the_documented_rate() {
        let mut h = TestHost::new(1_000_000);
        let _ = run("fn f(p) { let x = 0; x }", "f", &mut h).unwrap();
        let small = h.used;
        assert!(
            small > 0 && small.is_multiple_of(CYCLES_PER_OPERATION),
            "{small}"
        );
        let mut h = TestHost::new(1_000_000);
        let _ = run(
            "fn f(p) { let x = 0; for i in 0..100 { x += i; } x }",
            "f",
            &mut h,
        )
        .unwrap();
        assert!(h.used > small + 100 * CYCLES_PER_OPERATION, "{}", h.used);
    }

    #[test]
    fn the_budget_follows_host_charges() {
        // 1,000 cycles: burning 950 leaves 5 operations, which the loop exceeds.
        let mut h = TestHost::new(1_000);
        let e = run("fn f(p) { burn_cycles(950); loop {} }", "f", &mut h).unwrap_err();
        assert_eq!(e, VmError::OutOfCycles { limit: 1_000 });
        assert_eq!(h.used, 1_000);
    }

    #[test]
    fn u128_is_checked() {
        let mut h = TestHost::new(1_000_000);
        let v = run(
            r#"fn f(p) { let a = u128("1_000") * 3 + 7; a.to_string() + "/" + (a > 3006) + "/" + (a == 3007) }"#,
            "f",
            &mut h,
        )
        .unwrap();
        assert_eq!(v.into_string().unwrap(), "3007/true/true");
        let e = run(
            r#"fn f(p) { balance("0x0000000000000000000000000000000000000001") + 2 }"#,
            "f",
            &mut h,
        )
        .unwrap_err();
        assert!(
            matches!(&e, VmError::Script(m) if m.contains("overflow")),
            "{e}"
        );
        let e = run("fn f(p) { u128(1) - 2 }", "f", &mut h).unwrap_err();
        assert!(
            matches!(&e, VmError::Script(m) if m.contains("underflow")),
            "{e}"
        );
        let e = run("fn f(p) { u128(-1) }", "f", &mut h).unwrap_err();
        assert!(
            matches!(&e, VmError::Script(m) if m.contains("negative")),
            "{e}"
        );
        let e = run("fn f(p) { u128(5) / 0 }", "f", &mut h).unwrap_err();
        assert!(
            matches!(&e, VmError::Script(m) if m.contains("division")),
            "{e}"
        );
    }

    #[test]
    fn read_only_calls_refuse_writes() {
        let rt = RhaiRuntime::new();
        let code = ActorCode::rhai(
            "gba.rhai",
            r#"fn get_gas_bid(ctx) { storage_get("bid") ?? "0" }
               fn greedy(ctx) { storage_set("bid", "9"); 9 }"#,
        );
        let mut h = TestHost::new(1_000_000);
        h.storage.insert(b"bid".to_vec(), b"5".to_vec());
        let v = rt
            .call_read_only(
                &code,
                "get_gas_bid",
                vec![Dynamic::from_map(Map::new())],
                &mut h,
            )
            .unwrap();
        assert_eq!(v.into_string().unwrap(), "5");
        let e = rt
            .call_read_only(&code, "greedy", vec![Dynamic::UNIT], &mut h)
            .unwrap_err();
        assert!(matches!(e, VmError::InvalidInput(_)), "{e}");
        assert_eq!(h.storage[&b"bid"[..]], b"5");
    }

    #[test]
    fn the_frame_is_cleared_after_every_call() {
        let mut h = TestHost::new(1_000);
        let _ = run("fn f(p) { loop {} }", "f", &mut h);
        assert!(FRAME.with(|s| s.borrow().is_none()));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut h = TestHost::new(1_000);
            with_frame(&mut h, 10, || panic!("boom"))
        }));
        assert!(r.is_err());
        assert!(FRAME.with(|s| s.borrow().is_none()));
        // A host function outside a call fails cleanly.
        assert!(host_call(|h| h.block_height()).is_err());
    }

    #[test]
    fn sandbox_blocks_sleep_eval_and_import() {
        let mut h = TestHost::new(1_000_000);
        let e = run("fn f(p) { sleep(100) }", "f", &mut h).unwrap_err();
        assert!(
            matches!(&e, VmError::Script(m) if m.contains("sleep")),
            "{e}"
        );
        for src in [r#"fn f(p) { eval("1") }"#, r#"import "x" as y; fn f(p) {}"#] {
            let e = run(src, "f", &mut h).unwrap_err();
            assert!(matches!(e, VmError::Compile { .. }), "{src}: {e}");
        }
    }
}
