//! A click selects the row under it (issue 23), not only the pane: a bucket, a bucket's
//! timer, an event of the feed. The geometry is the panes' own (`render::areas_with`, the
//! buckets pane's 28-column list, one header line per table).

use super::render::{areas_with, scroll_offset, strip_lines};
use super::state::{App, Effect, Pane};
use ratatui::layout::{Position, Rect};

/// Focuses the pane at `(column, row)` of a `width` x `height` terminal and selects the row
/// there, if any.
pub fn click(app: &mut App, column: u16, row: u16, width: u16, height: u16) -> Vec<Effect> {
    let a = areas_with(Rect::new(0, 0, width, height), strip_lines(app));
    let at = Position::new(column, row);
    for (pane, r) in [
        (Pane::Buckets, a.buckets),
        (Pane::Tiers, a.tiers),
        (Pane::Lane, a.lane),
        (Pane::Fairness, a.fairness),
        (Pane::Events, a.events),
    ] {
        if !r.contains(at) {
            continue;
        }
        app.focus = pane;
        let inner = Rect::new(
            r.x + 1,
            r.y + 1,
            r.width.saturating_sub(2),
            r.height.saturating_sub(2),
        );
        if !inner.contains(at) {
            return vec![];
        }
        return match pane {
            Pane::Buckets => bucket_click(app, inner, at),
            Pane::Events => {
                event_click(app, inner, at);
                vec![]
            }
            _ => vec![],
        };
    }
    vec![]
}

fn bucket_click(app: &mut App, inner: Rect, at: Position) -> Vec<Effect> {
    let list_w = 28.min(inner.width);
    if at.x < inner.x + list_w {
        // The bucket list: a header line, then the buckets.
        let h = inner.height.saturating_sub(1) as usize;
        let Some(line) = (at.y - inner.y).checked_sub(1) else {
            return vec![];
        };
        let off = scroll_offset(app.bucket_sel, app.data.buckets.len(), h);
        let i = off + line as usize;
        if i >= app.data.buckets.len() {
            return vec![];
        }
        let changed = i != app.bucket_sel;
        app.bucket_sel = i;
        app.bucket_pin = app.data.buckets.get(i).map(|b| b.height);
        app.in_bucket = false;
        app.timer_pin = None;
        return if changed {
            app.timer_sel = 0;
            vec![Effect::Refresh]
        } else {
            vec![]
        };
    }
    // The bucket's timers: a title line, a header line, then the timers.
    let h = inner.height.saturating_sub(2) as usize;
    let Some(line) = (at.y - inner.y).checked_sub(2) else {
        return vec![];
    };
    let off = scroll_offset(app.timer_sel, app.data.bucket_len(), h);
    let i = off + line as usize;
    if i < app.data.bucket_len() {
        app.in_bucket = true;
        app.bucket_pin = app.data.buckets.get(app.bucket_sel).map(|b| b.height);
        app.select_timer_row(i);
    }
    vec![]
}

fn event_click(app: &mut App, inner: Rect, at: Position) {
    // As the feed draws: the window of `h` rows that shows the selection.
    let h = inner.height as usize;
    let sel = if app.feed_pin { app.event_sel } else { 0 };
    let rows = app.visible_events(h + sel).len();
    let end = rows.saturating_sub(sel.saturating_sub(h.saturating_sub(1)));
    let start = end.saturating_sub(h);
    let i = start + (at.y - inner.y) as usize;
    if i < end {
        app.event_sel = rows - 1 - i;
        app.feed_pin = true;
    }
}
