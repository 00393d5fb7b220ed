//! A feed row's text as the events pane shows it: the headless line's text with a timer's
//! fixture label, and a CIP-5 draft's state watch said as a watch (issue 34, item 10): its
//! registration is a `TimerScheduled` event for a nominal height (the next block), which read
//! `TimerScheduled timer w … for height 3`.

use super::data::EventRow;
use super::state::App;

/// Remembers the watches of the refresh's drafts' state.
pub(crate) fn note_watches(app: &mut App) {
    if let Some(d) = &app.data.draft {
        for w in &d.watches {
            app.known_watches.insert(w.timer_id, w.keys.clone());
        }
    }
}

/// The text of `e` in the feed.
pub fn feed_text(app: &App, e: &EventRow) -> String {
    if e.text.is_empty() {
        return e.fields.clone();
    }
    let Some(t) = e.timer else {
        return e.text.clone();
    };
    let named = format!("timer {}", app.timer_label(&t));
    if e.kind == "TimerScheduled"
        && let Some(keys) = app.known_watches.get(&t)
    {
        let by = e.actor.map_or(String::new(), |a| app.data.label(&a));
        return format!(
            "state watch {} set by {by} on {}: fires when {by} writes them",
            app.timer_label(&t),
            keys.join(", ")
        );
    }
    if app.labels.contains_key(&t) {
        e.text.replacen(&format!("timer {}", t.short()), &named, 1)
    } else {
        e.text.clone()
    }
}
