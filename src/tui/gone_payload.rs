//! The raw view's payload of a timer that left (issue 34, item 3). The node keeps a timer's
//! payload while it is pending; once it left, its `TimerScheduled` event and its compact
//! record (Spec note 150) keep the payload's length only. So the dashboard asks the node for
//! the timer as of the block before the one it left in (a past read, `TimerQuery` with a
//! block tag: the same request in-process and over JSON-RPC), where it was still pending,
//! while the node's history keeps that block; before the retained window it says so plainly.
//! Spec note 177.

use super::data::TimerLife;
use super::state::{App, Effect, Overlay};
use crate::engine::TimerId;

/// What the raw view says of a payload the node no longer keeps.
pub const NOT_KEPT: &str = "payload not kept (left before the retained window)";

/// The sealed height to read a gone timer's payload at (the block before it left), or why
/// there is none: left before the oldest block the node keeps (`first_kept`) or the oldest
/// state it can read (`first_state`, Spec note 225), or scheduled and gone in one block
/// (never pending at a sealed height).
pub fn read_height(life: &TimerLife, first_kept: u64, first_state: u64) -> Result<u64, String> {
    let left = life.left_at.ok_or_else(|| NOT_KEPT.to_string())?;
    let before = left.saturating_sub(1);
    let scheduled = life.record.as_ref().map_or(0, |r| r.schedule_block);
    if before < scheduled {
        return Err(format!(
            "payload not kept (scheduled and gone in block #{left}: never pending at a sealed height)"
        ));
    }
    if before < first_kept.max(1) {
        return Err(NOT_KEPT.to_string());
    }
    if before < first_state {
        return Err(format!(
            "payload not kept (the state at #{before} is no longer kept, its block is: states from #{first_state}, serve --checkpoint-budget)"
        ));
    }
    Ok(before)
}

/// The raw view opened on `life` (or `life` read again while it is): a gone timer without
/// its payload is asked for it as of the block before it left, once; what is known is noted.
pub(crate) fn want(app: &App, life: &mut TimerLife) -> Vec<Effect> {
    if !app.raw || life.payload.is_some() || life.status == "pending" || life.payload_note.is_some()
    {
        return vec![];
    }
    let (first_kept, first_state) = app
        .data
        .status
        .as_ref()
        .map_or((0, 0), |s| (s.first_kept, s.first_state));
    match read_height(life, first_kept, first_state) {
        Ok(h) => {
            life.payload_note = Some(format!("reading the payload as of #{h}…"));
            vec![Effect::LoadPayload(life.id, h)]
        }
        Err(why) => {
            life.payload_note = Some(why);
            vec![]
        }
    }
}

/// `v` on an open life: asks its payload when it left (see [`want`]).
pub(crate) fn on_raw(app: &mut App) -> Vec<Effect> {
    let Overlay::Life(l) = &app.overlay else {
        return vec![];
    };
    let mut l = l.clone();
    let effects = want(app, &mut l);
    app.overlay = Overlay::Life(l);
    effects
}

/// A life read again (a refresh) keeps the payload read for it before.
pub(crate) fn carry(old: &TimerLife, new: &mut TimerLife) {
    if old.id == new.id && new.payload.is_none() && new.status == old.status {
        new.payload.clone_from(&old.payload);
        new.payload_note.clone_from(&old.payload_note);
    }
}

/// The payload read as of `at` came back: shown with where it was read; a read refused with
/// `HistoryPruned` (the node replays no state that old) is said as [`NOT_KEPT`].
pub(crate) fn on_payload(
    app: &mut App,
    id: TimerId,
    at: u64,
    payload: Result<Option<Vec<u8>>, String>,
) {
    let Overlay::Life(l) = &mut app.overlay else {
        return;
    };
    if l.id != id {
        return;
    }
    l.payload_note = Some(match payload {
        Ok(Some(p)) => {
            l.payload = Some(p);
            format!(
                "as of #{at}, the block before it left (the node keeps a payload while the timer is pending)"
            )
        }
        Ok(None) => format!("payload not kept (the node has no payload for it as of #{at})"),
        Err(e) if e.contains("HistoryPruned") => NOT_KEPT.to_string(),
        Err(e) => format!("payload not read: {e}"),
    });
}
