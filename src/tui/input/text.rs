//! The text fields' keys: the feed filter and the schedule form take every key while they have
//! the keyboard (characters, Backspace, C-u), beside the few that move or close them.

use crate::tui::command::UiCommand;
use crate::tui::data::CommandError;
use crate::tui::form::{FormField, edit};
use crate::tui::state::{App, Effect, Overlay};
use crossterm::event::{KeyCode, KeyEvent};

/// The feed filter (`/`) while it is typed: Enter keeps it, Esc clears it.
pub(super) fn filter_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    match k.code {
        KeyCode::Enter => app.filter_editing = false,
        KeyCode::Esc => {
            app.filter_editing = false;
            app.filter.clear();
        }
        _ => {
            // Characters, Backspace and C-u (clears), as every text field.
            edit(&mut app.filter, &k);
        }
    }
    app.event_sel = 0;
    vec![]
}

/// The schedule form (`s`): Tab/↑/↓ move between fields, ←/→ choose the actor, Enter sends,
/// Esc closes; every edit asks a new estimate.
pub(super) fn form_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    let h = app.height();
    let n_actors = app.data.actors.len().max(1);
    let Overlay::Form(form) = &mut app.overlay else {
        return vec![];
    };
    let field = FormField::ALL[form.field];
    match k.code {
        KeyCode::Esc => {
            app.overlay = Overlay::None;
            return vec![];
        }
        // Issue 32: C-d runs the request as a dry run (no text field takes control keys).
        KeyCode::Char('d')
            if k.modifiers
                .contains(crossterm::event::KeyModifiers::CONTROL) =>
        {
            return crate::tui::pool::dry_run_form(app);
        }
        KeyCode::Tab | KeyCode::Down => form.field = (form.field + 1) % form.shown,
        KeyCode::BackTab | KeyCode::Up => form.field = (form.field + form.shown - 1) % form.shown,
        KeyCode::Enter => match form.request(&app.data, h) {
            Ok(req) => return vec![Effect::Command(UiCommand::ScheduleTimer(req))],
            Err(m) => {
                form.error = Some(CommandError::new("InvalidInput", m));
                return vec![];
            }
        },
        KeyCode::Left if field == FormField::Actor => {
            form.actor = (form.actor + n_actors - 1) % n_actors;
        }
        KeyCode::Right if field == FormField::Actor => form.actor = (form.actor + 1) % n_actors,
        _ if field == FormField::Actor => return vec![],
        _ => {
            if !edit(&mut form.values[form.field], &k) {
                return vec![];
            }
        }
    }
    app.form_estimate()
}
