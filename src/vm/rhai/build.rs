//! The one Rhai engine every call shares: its limits, hooks and registered functions.

use super::*;

/// The one engine every call shares (building one costs far more than a call).
pub(super) static ENGINE: LazyLock<Engine> = LazyLock::new(build_engine);

pub(super) fn build_engine() -> Engine {
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
    register_draft_api(&mut e);
    e
}

/// `print`/`debug` output: charged to the running call by its size (see
/// [`PRINT_BASE_OPERATIONS`]) and written to the `tracing` log at debug level, cut to
/// [`MAX_PRINT_BYTES`], at most [`MAX_PRINT_LINES_PER_CALL`] lines per call. The output is never
/// part of a block, and the charge does not depend on whether the log is enabled. Past its
/// budget the call stops at its next operation (`OutOfCycles`).
pub(super) fn print_line(what: &str, text: &str) {
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
    if logged {
        let mut cut = text.len().min(MAX_PRINT_BYTES);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        host_output(&format!("{what}: {}", &text[..cut]));
    }
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
