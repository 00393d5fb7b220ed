//! The event feed's keys: ↑ goes back in time, ↓ towards the newest; the first move selects
//! the newest event. Enter opens the selected event's timer, or the event's detail.

use super::shared::open_selected_life;
use crate::tui::filter::FeedFilter;
use crate::tui::keys::KeyAction;
use crate::tui::state::{App, Effect, Overlay};

pub(super) fn on_action(app: &mut App, action: KeyAction) -> Option<Vec<Effect>> {
    match action {
        KeyAction::Up | KeyAction::Down => {
            move_cursor(app, action == KeyAction::Down);
            Some(vec![])
        }
        KeyAction::Select => Some(select(app)),
        _ => None,
    }
}

fn move_cursor(app: &mut App, down: bool) {
    if !app.feed_pin {
        // The first move selects the newest event; the feed then holds it.
        app.feed_pin = app.selected_event().is_some();
        app.event_sel = 0;
    } else if down {
        app.event_sel = app.event_sel.saturating_sub(1);
    } else {
        // Up goes back in time (away from the newest).
        let f = FeedFilter::parse(&app.filter);
        let older = app
            .feed
            .iter()
            .rev()
            .filter(|e| f.matches(e, &app.data))
            .nth(app.event_sel + 1);
        if older.is_some() {
            app.event_sel += 1;
        }
    }
}

/// Enter in the feed (details, changes nothing) selects the newest event when none is
/// selected, and opens its timer; an event without a timer (a deploy, an activation, a
/// block's backlog) opens its detail.
fn select(app: &mut App) -> Vec<Effect> {
    if !app.feed_pin {
        app.event_sel = 0;
        app.feed_pin = app.selected_event().is_some();
    }
    if let Some(out) = open_selected_life(app) {
        return out;
    }
    if let Some(e) = app.selected_event().cloned() {
        app.scroll = 0;
        app.scroll_max.set(None);
        app.overlay = Overlay::Event(Box::new(e));
        return vec![];
    }
    app.toast("no timer selected", true);
    vec![]
}
