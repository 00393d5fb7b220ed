//! The lane pane's keys: under a draft scheduler it lists the drafts' watches and intervals,
//! where ↑/↓ choose a row and Enter opens its timer's life.

use crate::tui::keys::KeyAction;
use crate::tui::state::{App, Effect};

pub(super) fn on_action(app: &mut App, action: KeyAction) -> Option<Vec<Effect>> {
    match action {
        KeyAction::Up | KeyAction::Down => {
            crate::tui::draft_cursor::step(app, action == KeyAction::Down);
            Some(vec![])
        }
        KeyAction::Select if crate::tui::draft_cursor::focused(app) => {
            Some(crate::tui::draft_cursor::open(app))
        }
        KeyAction::Select => Some(vec![]),
        _ => None,
    }
}
