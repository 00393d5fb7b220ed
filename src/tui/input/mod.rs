//! What a key press does. The key is looked up once in the one key table
//! ([`super::keys::KeyMap`]) and handed to whatever has the keyboard, first come first served
//! (the way gitui's components and lazygit's controllers each take their own bindings): a text
//! field (the feed filter, the schedule form, a prompt, the finder), then the overlay on top,
//! then the focused pane, and last the dashboard's own keys. Each of them handles the actions it
//! knows and leaves the others to the next.

mod buckets;
mod dashboard;
mod fairness;
mod feed;
mod lane;
mod mining;
mod open;
mod overlay;
mod prompt;
mod prompt_command;
mod shared;
mod text;
mod window;

use super::keys::KeyAction;
use super::state::{App, Effect, Pane};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub(crate) fn on_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    // Ctrl-C always quits, whatever has the keyboard.
    if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
        app.quit = true;
        return vec![];
    }
    if app.filter_editing {
        return text::filter_key(app, k);
    }
    let action = app.keys.action_for(&k);
    if let Some(out) = overlay::on_key(app, k, action) {
        return out;
    }
    let Some(action) = action else {
        return vec![];
    };
    app.toast = None;
    if let Some(out) = pane_action(app, action) {
        return out;
    }
    dashboard::on_action(app, action)
}

/// The focused pane's keys; `None`: the pane leaves this action to the dashboard. A maximised
/// pane (`z`) takes ←/→ to scroll sideways, whichever it is.
fn pane_action(app: &mut App, action: KeyAction) -> Option<Vec<Effect>> {
    if matches!(action, KeyAction::Right | KeyAction::Left)
        && super::extras::zoom_scroll(app, action == KeyAction::Right)
    {
        return Some(vec![]);
    }
    match app.focus {
        Pane::Buckets => buckets::on_action(app, action),
        Pane::Events => feed::on_action(app, action),
        Pane::Fairness => fairness::on_action(app, action),
        Pane::Lane => lane::on_action(app, action),
        Pane::Tiers => None,
    }
}
