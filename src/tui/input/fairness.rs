//! The fairness table's keys: ↑/↓ choose an actor, `y` copies its id.

use super::shared::{copy_id, step};
use crate::tui::keys::KeyAction;
use crate::tui::state::{App, Effect};

pub(super) fn on_action(app: &mut App, action: KeyAction) -> Option<Vec<Effect>> {
    match action {
        KeyAction::Up | KeyAction::Down => {
            step(
                &mut app.fairness_sel,
                app.data.fairness.len(),
                action == KeyAction::Down,
            );
        }
        // The table selects actors, never a timer.
        KeyAction::Copy => match app.fairness_sorted().get(app.fairness_sel) {
            Some(r) => {
                let a = r.actor;
                copy_id(app, a.to_string(), "actor");
            }
            None => app.toast("select an actor or a timer to copy its id", true),
        },
        _ => return None,
    }
    Some(vec![])
}
