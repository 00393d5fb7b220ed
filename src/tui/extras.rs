//! Issue 34's expected features: the mouse optional (`m`, `--no-mouse`), "back to where I
//! was" (`b`), a maximised pane (`z`, ←/→ scroll it sideways) and the raw view (`v`).

use super::state::{App, Effect, Mark, Overlay, Pane};

/// Remembers where the user is before a jump into the past, a fork or a revert.
pub(crate) fn mark(app: &mut App) {
    app.mark = Some(Box::new(Mark::of(app)));
}

/// `b`: back to the marked height and selection; the place left is marked in turn, so `b`
/// again comes back. A height the chain no longer has (forked or reverted away) is the head.
pub(crate) fn go_back(app: &mut App) -> Vec<Effect> {
    let Some(m) = app.mark.take() else {
        app.toast(
            "nowhere to go back to yet: b returns after a jump into the past ([ {), a fork or a revert",
            true,
        );
        return vec![];
    };
    app.mark = Some(Box::new(Mark::of(app)));
    let tip = app.tip();
    let view_at = m.view_at.filter(|h| *h < tip);
    app.view_at = view_at;
    app.focus = m.focus;
    app.bucket_pin = m.bucket_pin;
    app.in_bucket = m.in_bucket;
    app.timer_pin = m.timer_pin;
    app.feed_pin = m.feed_pin;
    app.event_sel = m.event_sel;
    let text = match (m.view_at, view_at) {
        (Some(h), Some(_)) => format!("back to #{h} and the selection there"),
        (Some(h), None) => format!("#{h} is gone (forked or reverted away): the head #{tip}"),
        (None, _) => format!("back to the head #{tip} and the selection there"),
    };
    app.toast(text, false);
    vec![Effect::Refresh]
}

/// `m`: mouse capture on or off (off: the terminal selects and copies text, k9s #874). The
/// loop applies it to the terminal.
pub(crate) fn toggle_mouse(app: &mut App) {
    app.mouse = !app.mouse;
    app.toast(
        if app.mouse {
            "mouse on: a click focuses a pane (m: off, to select text)"
        } else {
            "mouse off: the terminal selects text (m: on)"
        },
        false,
    );
}

/// Columns `←`/`→` scroll a maximised pane by.
pub const HSCROLL_STEP: u16 = 10;

/// `z`: the focused pane maximised, or back.
pub(crate) fn toggle_zoom(app: &mut App) {
    app.zoom = !app.zoom;
    app.hscroll = 0;
}

/// `←`/`→` on a maximised pane scroll it sideways; true when the key was used.
pub(crate) fn zoom_scroll(app: &mut App, right: bool) -> bool {
    if !app.zoom {
        return false;
    }
    app.hscroll = if right {
        app.hscroll.saturating_add(HSCROLL_STEP)
    } else {
        app.hscroll.saturating_sub(HSCROLL_STEP)
    };
    true
}

/// `v`: the raw view of the open life or event, or of the selected timer or event.
pub(crate) fn raw(app: &mut App) -> Vec<Effect> {
    match &app.overlay {
        Overlay::Life(_) | Overlay::Event(_) | Overlay::LifeLoading(_) => {
            app.raw = !app.raw;
            return super::gone_payload::on_raw(app);
        }
        Overlay::None => {}
        _ => return vec![],
    }
    if let Some((id, _)) = app.selected_timer() {
        app.raw = true;
        app.overlay = Overlay::LifeLoading(id);
        return vec![Effect::LoadLife(id)];
    }
    if app.focus == Pane::Events
        && let Some(e) = app.selected_event().cloned()
    {
        app.raw = true;
        app.overlay = Overlay::Event(Box::new(e));
        return vec![];
    }
    app.toast(
        "select a timer (buckets, feed) or an event to see it raw",
        true,
    );
    vec![]
}

/// Fresh data from another chain than the one shown (an attached server restarted on another
/// fixture, issue 34 item 6): what the dashboard kept of the old chain (the story, the labels,
/// the watches, the feed, the selection, the place `b` returns to) is dropped, and it says so.
pub(crate) fn on_chain(app: &mut App, d: &super::data::DashboardData) {
    let (Some(old), Some(new)) = (&app.data.status, &d.status) else {
        return;
    };
    if old.chain_id == new.chain_id {
        return;
    }
    app.story.clear();
    app.labels.clear();
    app.watch = None;
    app.watch_life = None;
    app.pinned.clear();
    app.known_watches.clear();
    app.mark = None;
    app.timer_pin = None;
    app.bucket_pin = None;
    app.in_bucket = false;
    app.view_at = None;
    app.feed.clear();
    app.held.clear();
    app.events_from = 0;
    app.event_sel = 0;
    app.feed_pin = false;
    if matches!(
        app.overlay,
        Overlay::Life(_) | Overlay::LifeLoading(_) | Overlay::Event(_)
    ) {
        app.overlay = Overlay::None;
    }
    app.toast(
        "another chain answers (the devnet restarted on another genesis): the story, watches and feed of the old one are gone",
        false,
    );
}
