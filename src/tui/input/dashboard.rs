//! The dashboard's own keys, whichever pane has the focus: overlays to open, focus, watch and
//! copy, the feed's filter and pause, the view (history, zoom, raw, mouse, the charts'
//! window). Mining keys are in [`super::mining`], the keys that open a form or a prompt in
//! [`super::open`].

use super::shared::{copy_id, quit, toggle_watch};
use crate::tui::keys::KeyAction;
use crate::tui::state::{App, Effect, Overlay, Pane};

pub(super) fn on_action(app: &mut App, action: KeyAction) -> Vec<Effect> {
    if let Some(out) = super::mining::on_action(app, action) {
        return out;
    }
    if let Some(out) = super::open::on_action(app, action) {
        return out;
    }
    if let Some(out) = view_action(app, action) {
        return out;
    }
    match action {
        KeyAction::Quit => return quit(app),
        KeyAction::Help => open_text(app, Overlay::Help, 0),
        // The newest messages first in view: scrolled to the end when drawn.
        KeyAction::Log => open_text(app, Overlay::Log, u16::MAX),
        KeyAction::Find => return crate::tui::panes::finder::open(app),
        KeyAction::Pool => return crate::tui::pool::open(app),
        KeyAction::Trace => return crate::tui::panes::trace::open_selected(app),
        KeyAction::Watch => return watch(app),
        KeyAction::Copy => match app.selected_timer() {
            Some((id, _)) => copy_id(app, id.to_string(), "timer"),
            None => app.toast(
                "select a timer (buckets, feed) or an actor (fairness) to copy its id",
                true,
            ),
        },
        KeyAction::Close => return close(app),
        KeyAction::FocusNext => {
            app.focus = Pane::ALL[(app.focus.index() + 1) % Pane::ALL.len()];
        }
        KeyAction::FocusPrev => {
            app.focus = Pane::ALL[(app.focus.index() + Pane::ALL.len() - 1) % Pane::ALL.len()];
        }
        KeyAction::Left => {
            app.in_bucket = false;
            app.timer_pin = None;
        }
        KeyAction::Filter => {
            app.focus = Pane::Events;
            app.filter_editing = true;
        }
        KeyAction::PauseFeed => {
            app.feed_paused = !app.feed_paused;
            if !app.feed_paused {
                let held = std::mem::take(&mut app.held);
                app.push_events(held);
            }
        }
        KeyAction::Sort => app.fairness_sort = app.fairness_sort.next(),
        // The panes' keys (↑/↓, →, Enter) where the focused pane has no use for them.
        _ => {}
    }
    vec![]
}

/// The keys that change what is viewed and how: history, zoom, raw, mouse, back, the charts'
/// window.
fn view_action(app: &mut App, action: KeyAction) -> Option<Vec<Effect>> {
    let out = match action {
        KeyAction::ToggleMouse => {
            crate::tui::extras::toggle_mouse(app);
            vec![]
        }
        KeyAction::Return => crate::tui::extras::go_back(app),
        KeyAction::Zoom => {
            crate::tui::extras::toggle_zoom(app);
            vec![]
        }
        KeyAction::NarrowWindow => super::window::step(app, false),
        KeyAction::WidenWindow => super::window::step(app, true),
        KeyAction::Raw => crate::tui::extras::raw(app),
        KeyAction::Back
        | KeyAction::Forward
        | KeyAction::BackTen
        | KeyAction::ForwardTen
        | KeyAction::Fork
        | KeyAction::Export => crate::tui::past::history_key(app, action),
        _ => return None,
    };
    Some(out)
}

/// Opens the help or the log, scrolled to `scroll` (the draw clamps it).
fn open_text(app: &mut App, overlay: Overlay, scroll: u16) {
    app.scroll = scroll;
    app.scroll_max.set(None);
    app.overlay = overlay;
}

/// `w`: the selected timer watched (or no longer); with nothing selected, every watch stops.
fn watch(app: &mut App) -> Vec<Effect> {
    match app.selected_timer() {
        Some((id, _)) => return toggle_watch(app, id),
        None if app.watch.is_some() => {
            app.watch = None;
            app.pinned.clear();
            app.watch_life = None;
        }
        None => app.toast("select a timer (buckets, feed or drafts) to watch", true),
    }
    vec![]
}

/// `Esc` with no overlay: back to the head when viewing the past, else the selections go.
fn close(app: &mut App) -> Vec<Effect> {
    if let Some(out) = crate::tui::past::to_head(app) {
        return out;
    }
    app.in_bucket = false;
    app.timer_pin = None;
    app.draft.pin = None;
    if app.focus == Pane::Events {
        app.feed_pin = false;
        app.event_sel = 0;
    }
    vec![]
}
