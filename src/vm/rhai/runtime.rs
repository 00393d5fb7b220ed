//! Running an entry point: the metered call.

use super::*;

impl RhaiRuntime {
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
        #[cfg(test)]
        tests::DEEPEST_STACK.with(|d| d.set(frame.max_stack));
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
