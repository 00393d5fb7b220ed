//! What several key handlers do the same way: quit, watch, copy, step a cursor.

use crate::engine::TimerId;
use crate::tui::prompt::{Confirm, Confirmed};
use crate::tui::state::{App, Effect, Overlay};

/// Watched timers kept pinned beside the newest one.
pub const MAX_PINNED: usize = 3;

/// One step of a list cursor: down to the last row at most, up to the first.
pub(super) fn step(v: &mut usize, len: usize, down: bool) {
    if down {
        *v = (*v + 1).min(len.saturating_sub(1));
    } else {
        *v = v.saturating_sub(1);
    }
}

/// `y` in the raw view: the whole of it to the clipboard (OSC 52).
pub(super) fn copy_raw(app: &mut App) {
    if let Some((title, lines)) = crate::tui::panes::raw::raw_of(app) {
        app.clipboard = Some(lines.join("\n"));
        app.toast(format!("copied {title} ({} lines)", lines.len()), false);
    }
}

/// `q`: a dashboard whose process owns the devnet asks first (the devnet stops with it).
pub(super) fn quit(app: &mut App) -> Vec<Effect> {
    if !app.owns_devnet {
        app.quit = true;
        return vec![];
    }
    app.overlay = Overlay::Confirm(Box::new(Confirm::new(
        "quit",
        vec![
            "quit the dashboard and stop the devnet it runs".into(),
            format!(
                "at #{}; its JSON-RPC server stops too (save with --state to keep it)",
                app.height()
            ),
        ],
        "quit",
        Confirmed::Quit,
    )));
    vec![]
}

/// `w`: watches the timer (the ones watched before stay pinned in the strip, at most
/// [`MAX_PINNED`] of them, issue 34), or stops watching it.
pub(super) fn toggle_watch(app: &mut App, id: TimerId) -> Vec<Effect> {
    if app.watch == Some(id) {
        // The newest pinned one takes its line.
        match app.pinned.pop() {
            Some((p, life)) => {
                app.watch = Some(p);
                app.watch_life = life;
            }
            None => {
                app.watch = None;
                app.watch_life = None;
            }
        }
        return vec![];
    }
    if let Some(i) = app.pinned.iter().position(|(p, _)| *p == id) {
        app.pinned.remove(i);
        return vec![];
    }
    if let Some(w) = app.watch.take() {
        app.pinned.push((w, app.watch_life.take()));
        if app.pinned.len() > MAX_PINNED {
            app.pinned.remove(0);
        }
    }
    app.watch = Some(id);
    app.watch_life = None;
    vec![Effect::LoadLife(id)]
}

/// `y`: puts `text` on the terminal's clipboard with OSC 52 (works over tmux and ssh).
pub(super) fn copy_id(app: &mut App, text: String, what: &str) {
    app.clipboard = Some(text.clone());
    app.toast(format!("copied the {what} id {text} (OSC 52)"), false);
}

/// `Enter` on a selected timer (the buckets', the feed's): its life.
pub(super) fn open_selected_life(app: &mut App) -> Option<Vec<Effect>> {
    let (id, _) = app.selected_timer()?;
    app.overlay = Overlay::LifeLoading(id);
    Some(vec![Effect::LoadLife(id)])
}
