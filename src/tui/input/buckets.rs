//! The bucket list's keys: ↑/↓ move between buckets or, inside one, between its timers;
//! →/Enter go into the bucket; Enter on a timer opens its life.

use super::shared::{open_selected_life, step};
use crate::tui::keys::KeyAction;
use crate::tui::state::{App, Effect};

pub(super) fn on_action(app: &mut App, action: KeyAction) -> Option<Vec<Effect>> {
    match action {
        KeyAction::Up | KeyAction::Down => Some(move_cursor(app, action == KeyAction::Down)),
        KeyAction::PageUp | KeyAction::PageDown if app.in_bucket => {
            Some(move_rows(app, PAGE_KEY_ROWS, action == KeyAction::PageDown))
        }
        KeyAction::Right => {
            if !app.in_bucket && app.data.bucket_len() > 0 {
                enter(app);
            }
            Some(vec![])
        }
        KeyAction::Select if !app.in_bucket => {
            if app.data.bucket_len() > 0 {
                enter(app);
            }
            Some(vec![])
        }
        KeyAction::Select => Some(open_selected_life(app).unwrap_or_else(|| {
            app.toast("no timer selected", true);
            vec![]
        })),
        _ => None,
    }
}

/// Into the bucket under the cursor: its first timer selected.
fn enter(app: &mut App) {
    app.in_bucket = true;
    app.bucket_pin = app.data.buckets.get(app.bucket_sel).map(|b| b.height);
    app.select_timer_row(0);
}

/// Rows `PgUp`/`PgDn` move in a bucket's timers.
const PAGE_KEY_ROWS: usize = 20;

/// The cursor `rows` rows up or down a bucket's timers (positions in the whole bucket).
fn move_rows(app: &mut App, rows: usize, down: bool) -> Vec<Effect> {
    // The first move selects the row under the cursor.
    let mut i = app.timer_sel;
    if app.timer_pin.is_some() || app.timer_want {
        let last = app.data.bucket_len().saturating_sub(1);
        i = if down {
            i.saturating_add(rows).min(last)
        } else {
            i.saturating_sub(rows)
        };
    }
    app.select_timer_row(i);
    // Issue 31: the next page is asked before the cursor leaves the one read.
    if app.page_runs_out() {
        vec![Effect::Refresh]
    } else {
        vec![]
    }
}

fn move_cursor(app: &mut App, down: bool) -> Vec<Effect> {
    if app.in_bucket {
        return move_rows(app, 1, down);
    }
    let before = app.bucket_sel;
    step(&mut app.bucket_sel, app.data.buckets.len(), down);
    app.bucket_pin = app.data.buckets.get(app.bucket_sel).map(|b| b.height);
    if before != app.bucket_sel {
        app.timer_sel = 0;
        return vec![Effect::Refresh];
    }
    vec![]
}
