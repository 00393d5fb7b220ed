//! The bucket selection follows the selected timer, by id (issue 34, item 7).
//!
//! A timer deferred (`lane`, `outbid`, `over_cap`, ...) is carried to the next block's bucket
//! (CIP-5 §6.5): the bucket it was selected in drains, and the timer shows up at the next
//! height. The selection goes with it: the pinned bucket becomes the one the timer is in now,
//! so the row stays selected and `Enter` opens it while blocks pass (Spec note 164). When the
//! timer left (it fired, expired, was cancelled) and the others were carried, the cursor stays
//! inside the next block's bucket at its row.

use super::state::App;

/// After fresh data: keeps the pinned timer selected where it is now. Returns true when the
/// timer was not in the bucket read and the next block's bucket should be read (one more
/// refresh), or when it moved near the edge of the page read (issue 31: the page around it).
/// The pin is dropped only when it is not found there either (it fired, expired or was
/// cancelled); the cursor then stays in the next block's bucket if the others were carried.
pub(crate) fn follow_timer(app: &mut App) -> bool {
    let Some(pin) = app.timer_pin else {
        app.timer_seek = false;
        if app.timer_want && app.in_bucket {
            // Issue 31: the cursor went past the page read; the new page holds its row.
            app.timer_sel = app.timer_sel.min(app.data.bucket_len().saturating_sub(1));
            app.select_timer_row(app.timer_sel);
        }
        return false;
    };
    // Issue 31: the page read holds the timer, or the node said where it is in the bucket.
    let found = app.data.bucket_position(&pin).or_else(|| {
        app.data
            .bucket_found
            .filter(|(id, _)| *id == pin)
            .map(|(_, p)| p as usize)
    });
    if let Some(i) = found {
        app.timer_sel = i;
        app.timer_seek = false;
        if app.data.bucket_at.is_some() {
            app.bucket_pin = app.data.bucket_at;
        }
        // Issue 31: it moved near the edge of the page read; ask the page around it.
        return app.page_runs_out();
    }
    // Not in the bucket read. A carried timer is due at the next block: the bucket read came
    // due (its height is at or below the head), so look there once.
    let next = app.height() + 1;
    let came_due = app.data.bucket_at.is_some_and(|b| b < next);
    if came_due && !app.timer_seek {
        app.timer_seek = true;
        app.bucket_pin = Some(next);
        app.in_bucket = true;
        return true;
    }
    let seeking = app.timer_seek;
    app.timer_seek = false;
    app.timer_pin = None;
    app.timer_sel = app.timer_sel.min(app.data.bucket_len().saturating_sub(1));
    // The bucket the cursor was in came due (the timer was sought there, or the read is
    // already of the next block's bucket).
    let left_due = seeking || (app.in_bucket && app.bucket_pin.is_some_and(|b| b < next));
    if left_due {
        if app.data.bucket_len() > 0 && app.data.bucket_at == Some(next) {
            // Not carried (it fired, expired or was cancelled), but the bucket's others were:
            // the cursor stays inside the next block's bucket, at its row (Spec note 164, as
            // amended for issue 31: with a standing backlog the row the cursor is on is the
            // one that fires next, so leaving the bucket would leave it every block).
            app.bucket_pin = Some(next);
            app.select_timer_row(app.timer_sel);
            return app.page_runs_out() || app.timer_want;
        }
        // Nothing carried either: the cursor stays at its place in the list, inside no bucket.
        app.bucket_pin = None;
        app.in_bucket = false;
    }
    false
}
