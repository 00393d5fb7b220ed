//! Lending the call's [`Host`] to host functions: the only `unsafe` code of the runtime (the rest
//! of `vm::rhai` denies it).
//!
//! The [`Host`] is a `&mut dyn Host` valid only during one call, while the Rhai engine (one per
//! process, shared by every call) holds `'static` functions. The call installs the host in the
//! thread-local frame ([`FRAME`]) for exactly its own duration, and host functions borrow it from
//! the frame one call at a time.
//!
//! Safety argument, in full:
//!
//! - [`with_frame`] erases only the lifetime bound of the trait object (same layout, same
//!   vtable) and stores the pointer in the frame it installs. It removes that frame before it
//!   returns, on every path, unwinding included (`RestoreFrame`, private to this file, so it
//!   cannot be leaked or forgotten elsewhere). For that whole time `host` is exclusively borrowed
//!   by `with_frame` and not otherwise used, so the referent is alive and nothing else accesses
//!   it.
//! - [`host_call`] is the only place the pointer is dereferenced. It takes the pointer out of
//!   the frame first (a nested host call finds none and fails), so at most one `&mut` to the host
//!   exists at a time, and puts it back when done.
#![allow(unsafe_code)]

use super::*;

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
pub(super) fn with_frame<R>(
    host: &mut dyn Host,
    op_limit: u64,
    f: impl FnOnce() -> R,
) -> (R, Frame) {
    let ptr: NonNull<dyn Host + '_> = NonNull::from(&mut *host);
    // SAFETY: only the trait object's lifetime bound is erased (same layout, same vtable). The
    // pointer is dereferenced only by `host_call`, and only while this function runs: it is
    // removed from the thread-local slot before this function returns, by `RestoreFrame` on
    // every path, unwinding included, and `RestoreFrame` is private to this file so it cannot
    // be leaked. For that whole time `host` is exclusively borrowed by this function and
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
pub(super) fn host_error(e: VmError) -> Box<EvalAltResult> {
    EvalAltResult::ErrorSystem("host call failed".into(), Box::new(e)).into()
}

/// Runs one host function: charges the operations run so far, lends the host to `f`, records
/// any error as the call's fatal error and refreshes the operation budget from the host's
/// remaining cycles.
pub(super) fn host_call<T>(f: impl FnOnce(&mut dyn Host) -> Result<T, VmError>) -> RhaiResult<T> {
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

/// Hands a line the script printed to the call's host ([`Host::output`]: a tracing host keeps
/// it), charging nothing. Does nothing outside a call or while a host function has the host on
/// loan.
pub(super) fn host_output(line: &str) {
    let taken = FRAME.with(|slot| {
        let mut slot = slot.try_borrow_mut().ok()?;
        slot.as_mut()?.host.take()
    });
    let Some(mut ptr) = taken else {
        return;
    };
    // SAFETY: as in `host_call`: `ptr` was installed by `with_frame`, which is still running
    // (the frame held it), so the host is alive; it was taken out of the slot above, so this is
    // the only `&mut` to it until it is put back below.
    unsafe { ptr.as_mut() }.output(line);
    FRAME.with(|slot| {
        if let Some(f) = slot.borrow_mut().as_mut() {
            f.host = Some(ptr);
        }
    });
}
