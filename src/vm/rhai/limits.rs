//! The sandbox's limits and prices (see "Metering" and "Sandbox" in the module docs).

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
