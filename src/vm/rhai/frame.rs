//! The state of the call running on this thread, and Rhai's per-operation hook.

use super::*;

/// The state of the call running on this thread.
pub(super) struct Frame {
    /// The call's host, lifetime-erased. `None` while a host function has it on loan.
    pub(super) host: Option<NonNull<dyn Host + 'static>>,
    /// The latest operation count Rhai reported.
    pub(super) ops: u64,
    /// Operations already charged to the host.
    pub(super) charged_ops: u64,
    /// The script is stopped at the first operation past this count.
    pub(super) op_limit: u64,
    /// The first error a host function raised: the call's result, whatever the script does.
    pub(super) fatal: Option<VmError>,
    /// The stack address where the call started.
    pub(super) stack_base: usize,
    /// The script was stopped by the native-stack guard.
    pub(super) stack_exhausted: bool,
    /// The deepest stack seen at an operation, in bytes below `stack_base`.
    pub(super) max_stack: usize,
    /// A host function is running (a panic caught now is the host's, and is resumed).
    pub(super) in_host: bool,
    /// `ops` at which the running function's live data is next walked.
    pub(super) next_data_check: u64,
    /// Operations charged for data walks and `Blob` reads so far (included in `ops`).
    pub(super) walk_ops: u64,
    /// Values visited by data walks and not yet charged (fewer than a whole operation's worth).
    pub(super) walk_carry: u64,
    /// Lines of `print`/`debug` output written to the log by this call.
    pub(super) printed: u32,
}

impl Frame {
    pub(super) fn new(host: Option<NonNull<dyn Host + 'static>>, op_limit: u64) -> Self {
        Frame {
            host,
            ops: 0,
            charged_ops: 0,
            op_limit,
            fatal: None,
            stack_base: stack_address(),
            stack_exhausted: false,
            max_stack: 0,
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
    pub(super) fn charge(&mut self, n: u64) {
        self.walk_ops = self.walk_ops.saturating_add(n);
        self.ops = self.ops.saturating_add(n);
    }
}

/// An address in the current stack frame.
#[inline(never)]
pub(super) fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Measures the native-stack guard of the running call from here (the stack the script runs on).
pub(super) fn set_stack_base() {
    FRAME.with(|slot| {
        if let Some(f) = slot.borrow_mut().as_mut() {
            f.stack_base = stack_address();
        }
    });
}

thread_local! {
    pub(super) static FRAME: RefCell<Option<Frame>> = const { RefCell::new(None) };
}

/// Rhai's per-operation hook: records the count and stops the script when it is out of cycles
/// or a host function failed. Outside a call (no frame) nothing may run.
pub(super) fn on_progress(count: u64) -> Option<Dynamic> {
    FRAME.with(|slot| {
        let Ok(mut slot) = slot.try_borrow_mut() else {
            return Some(Dynamic::UNIT);
        };
        match slot.as_mut() {
            Some(f) => {
                f.ops = count.saturating_add(f.walk_ops);
                let depth = f.stack_base.abs_diff(stack_address());
                f.max_stack = f.max_stack.max(depth);
                if depth > STACK_GUARD_BYTES {
                    f.stack_exhausted = true;
                }
                (f.fatal.is_some() || f.stack_exhausted || f.ops > f.op_limit)
                    .then_some(Dynamic::UNIT)
            }
            None => Some(Dynamic::UNIT),
        }
    })
}
