//! A value built once on a past-read thread and shared by every read that asks for it meanwhile
//! (issue 31 item 7): the kept past states (`core/past_cache.rs`) and the traces rebuilt by
//! replay (`trace_cache.rs`). The node's thread makes an empty slot on the first ask; the
//! first reader builds the value under the slot's lock, and the readers that arrive while it
//! builds wait on that lock rather than building it again. The node's thread never waits on a
//! slot: it only peeks ([`failed`]).

use super::error::NodeError;
use std::sync::{Arc, Mutex, MutexGuard};

/// A value to build once: empty until its first reader has built it.
pub(crate) type Slot<T> = Arc<Mutex<Option<T>>>;

/// The slot locked with its value in it: built first by `build` when it is empty (the reader
/// that holds the slot's first build, or rebuilds one that failed). Without `build`, an
/// empty slot is one whose build failed: `failed` says so in the error.
pub(crate) fn filled<'a, T>(
    slot: &'a Mutex<Option<T>>,
    build: Option<impl FnOnce() -> Result<T, NodeError>>,
    failed: impl FnOnce() -> String,
) -> Result<MutexGuard<'a, Option<T>>, NodeError> {
    let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
    if guard.is_none() {
        let Some(build) = build else {
            return Err(NodeError::InvalidInput(failed()));
        };
        *guard = Some(build()?);
    }
    Ok(guard)
}

/// Whether a slot's build failed: empty and not locked by a reader building it (never waits).
pub(crate) fn failed<T>(slot: &Mutex<Option<T>>) -> bool {
    slot.try_lock().is_ok_and(|g| g.is_none())
}
