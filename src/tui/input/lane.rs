//! The lane pane's keys: under a draft scheduler it lists the drafts' watches and intervals,
//! where ↑/↓ choose a row and Enter opens its timer's life.

use crate::tui::draft_cursor::rows;
use crate::tui::keys::KeyAction;
use crate::tui::state::{App, Effect, Overlay};

pub(super) fn on_action(app: &mut App, action: KeyAction) -> Option<Vec<Effect>> {
    match action {
        KeyAction::Up | KeyAction::Down => {
            step(app, action == KeyAction::Down);
            Some(vec![])
        }
        KeyAction::Select if app.draft_focused() => Some(open(app)),
        KeyAction::Select => Some(vec![]),
        _ => None,
    }
}

/// `↑`/`↓` in the drafts' pane: the first selects the row under the cursor.
fn step(app: &mut App, down: bool) {
    let Some(d) = &app.data.draft else { return };
    let rows = rows(d);
    let c = &mut app.draft;
    if c.pin.is_some() {
        c.sel = if down {
            (c.sel + 1).min(rows.len().saturating_sub(1))
        } else {
            c.sel.saturating_sub(1)
        };
    }
    c.sel = c.sel.min(rows.len().saturating_sub(1));
    c.pin = rows.get(c.sel).copied();
}

/// `Enter` in the drafts' pane: the selected row's timer life (the row under the cursor
/// when none is selected).
fn open(app: &mut App) -> Vec<Effect> {
    if app.draft.pin.is_none() {
        step(app, false);
    }
    match app.draft.pin {
        Some(r) => {
            app.overlay = Overlay::LifeLoading(r.timer);
            vec![Effect::LoadLife(r.timer)]
        }
        None => {
            app.toast("the drafts' pane lists no timer", true);
            vec![]
        }
    }
}
