//! The keys of what covers the panes: text overlays scroll, a timer's life takes the keys it
//! uses and passes the others to the dashboard, a trace goes back to its life; the form, the
//! prompts and the finder take every key.

use super::shared::{copy_id, copy_raw, quit, toggle_watch};
use crate::tui::keys::KeyAction;
use crate::tui::state::{App, Effect, Overlay};
use crossterm::event::{KeyCode, KeyEvent};

/// The overlay's answer to a key; `None`: no overlay, or one that lets the key through.
pub(super) fn on_key(app: &mut App, k: KeyEvent, a: Option<KeyAction>) -> Option<Vec<Effect>> {
    match app.overlay.clone() {
        Overlay::Form(_) => Some(super::text::form_key(app, k)),
        Overlay::Prompt(p) => Some(super::prompt::prompt_key(app, p, k)),
        Overlay::Confirm(c) => Some(super::prompt::confirm_key(app, *c, k)),
        Overlay::Finder(_) => Some(crate::tui::panes::finder::finder_key(app, k)),
        Overlay::Pool(_) => Some(crate::tui::pool::pool_key(app, k)),
        Overlay::DryRun(_) if a == Some(KeyAction::Close) => {
            crate::tui::pool::close_dry_run(app);
            Some(vec![])
        }
        Overlay::DryRun(_) => Some(scrolled(app, k, a)),
        Overlay::Trace(t) if a == Some(KeyAction::Close) => {
            // Back to the life it was opened from.
            app.overlay = Overlay::LifeLoading(t.id);
            Some(vec![Effect::LoadLife(t.id)])
        }
        Overlay::Help | Overlay::Log | Overlay::Event(_) | Overlay::Trace(_) => {
            Some(scrolled(app, k, a))
        }
        Overlay::Life(_) | Overlay::LifeLoading(_) => life(app, a),
        Overlay::None => None,
    }
}

/// How far a key scrolls a text overlay, if it scrolls.
fn scroll_step(k: &KeyEvent, a: Option<KeyAction>) -> Option<i32> {
    match k.code {
        KeyCode::PageUp => Some(-10),
        KeyCode::PageDown | KeyCode::Char(' ') => Some(10),
        KeyCode::Home => Some(i32::MIN / 2),
        KeyCode::End => Some(i32::MAX / 2),
        _ => match a {
            Some(KeyAction::Up) => Some(-1),
            Some(KeyAction::Down) => Some(1),
            _ => None,
        },
    }
}

/// The help, the log, an event's detail and a trace: scroll, close, raw, copy, quit.
fn scrolled(app: &mut App, k: KeyEvent, a: Option<KeyAction>) -> Vec<Effect> {
    if let Some(d) = scroll_step(&k, a) {
        // From where the overlay stands as last drawn (`End` and the log's opening ask for
        // the end, u16::MAX, which the draw clamps to the last page).
        let from = app
            .scroll_max
            .get()
            .map_or(app.scroll, |m| app.scroll.min(m));
        let max = app.scroll_max.get().unwrap_or(u16::MAX);
        app.scroll = (from as i64 + d as i64).clamp(0, max as i64) as u16;
    } else if matches!(
        a,
        Some(KeyAction::Close) | Some(KeyAction::Help) | Some(KeyAction::Log)
    ) {
        app.overlay = Overlay::None;
        app.raw = false;
    } else if a == Some(KeyAction::Raw) && matches!(app.overlay, Overlay::Event(_)) {
        app.raw = !app.raw;
    } else if a == Some(KeyAction::Copy) && app.raw {
        copy_raw(app);
    } else if a == Some(KeyAction::Quit) {
        return quit(app);
    }
    vec![]
}

/// A timer's life follows the chain while open; the keys it does not use (step, pause, ...)
/// pass through to the dashboard (`None`).
fn life(app: &mut App, a: Option<KeyAction>) -> Option<Vec<Effect>> {
    let a = a?;
    match a {
        KeyAction::Close | KeyAction::Select => {
            let id = match &app.overlay {
                Overlay::Life(l) => l.id,
                Overlay::LifeLoading(id) => *id,
                _ => unreachable!("a life is open"),
            };
            if let Some(e) = crate::tui::panes::finder::back_from_life(app, id) {
                return Some(e);
            }
            app.overlay = Overlay::None;
            app.raw = false;
        }
        KeyAction::Raw => app.raw = !app.raw,
        KeyAction::Trace => return Some(crate::tui::panes::trace::open(app)),
        KeyAction::Copy if app.raw => copy_raw(app),
        KeyAction::Up
        | KeyAction::Down
        | KeyAction::Left
        | KeyAction::Right
        | KeyAction::FocusNext
        | KeyAction::FocusPrev => {}
        KeyAction::Watch | KeyAction::Copy => {
            let id = match &app.overlay {
                Overlay::Life(l) => l.id,
                Overlay::LifeLoading(id) => *id,
                _ => unreachable!("a life is open"),
            };
            if a == KeyAction::Watch {
                return Some(toggle_watch(app, id));
            }
            copy_id(app, id.to_string(), "timer");
        }
        _ => return None,
    }
    Some(vec![])
}
