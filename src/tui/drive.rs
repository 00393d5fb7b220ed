//! Drives the app against a source on the caller's thread: a refresh, a key press and the
//! effects the update asks for (tests and benches; the dashboard itself goes through
//! [`super::worker::Client`], which applies a refresh's reply with [`apply_refresh`]).

use super::app::{Action, update};
use super::data::{DashboardData, EventRow};
use super::model::DashboardSource;
use super::state::{App, Effect};
use std::collections::VecDeque;

/// Events the feed asks the source for per refresh; more arrive as "events dropped".
pub const EVENTS_PER_REFRESH: usize = 5_000;

/// Pulls fresh data and new events from the source into the app, on the caller's thread (tests
/// and benches; the dashboard itself refreshes through [`worker::Client`]).
pub fn refresh<S: DashboardSource + ?Sized>(source: &mut S, app: &mut App) {
    let dropped = source.take_dropped();
    let story = source.take_story();
    if !story.is_empty() {
        update(app, Action::Story(story));
    }
    let data = source.dashboard(&app.query());
    let events = source.events(app.events_from, EVENTS_PER_REFRESH + 1);
    let mut again = false;
    for e in apply_refresh(app, data, events, dropped) {
        match e {
            Effect::LoadLife(id) => {
                let at = app.shown_at();
                let life = source.timer_life_at(&id, at).map(Box::new);
                update(app, Action::Life(id, at, life));
            }
            // The selected timer is looked for in another bucket (issue 34, item 7): once.
            Effect::Refresh => again = true,
            Effect::Command(_) => {}
            Effect::Find(q) => {
                let page = source.timer_page(&q);
                update(app, Action::Found(q, page));
            }
            Effect::LoadTrace(id) => {
                let t = source.fire_trace(&id);
                update(app, Action::Traced(id, t));
            }
            Effect::LoadPayload(id, h) => {
                let p = source.payload_at(&id, h);
                update(app, Action::Payload(id, h, p));
            }
            Effect::LoadPool => {
                let p = source.pending_txs();
                update(app, Action::Pool(p));
            }
            Effect::DryRun(req) => {
                let r = source.dry_run(&req);
                update(app, Action::DryRan(Box::new((*req, r))));
            }
        }
    }
    if again {
        refresh(source, app);
    }
}

/// Puts one refresh's data and events (asked from `app.events_from`) into the app: the events
/// beyond [`EVENTS_PER_REFRESH`] count as dropped. Returns what the app asks for next (the
/// open timer life and the watched timer are read again).
pub fn apply_refresh(
    app: &mut App,
    data: DashboardData,
    events: Vec<EventRow>,
    dropped: u64,
) -> Vec<Effect> {
    app.events_dropped += dropped;
    let effects = update(app, Action::Data(Box::new(data)));
    let events = if events.len() > EVENTS_PER_REFRESH {
        app.events_dropped += (events.len() - EVENTS_PER_REFRESH) as u64;
        events[events.len() - EVENTS_PER_REFRESH..].to_vec()
    } else {
        events
    };
    if !events.is_empty() {
        update(app, Action::Events(events));
    }
    effects
}

/// Carries out effects (and the effects their results produce) against the source.
pub fn apply_effects<S: DashboardSource + ?Sized>(
    source: &mut S,
    app: &mut App,
    effects: Vec<Effect>,
) {
    let mut queue: VecDeque<Effect> = effects.into();
    let mut refreshed = false;
    while let Some(e) = queue.pop_front() {
        match e {
            Effect::Command(cmd) => {
                let result = source.execute(cmd.clone());
                queue.extend(update(app, Action::Done(cmd, result)));
            }
            Effect::LoadLife(id) => {
                let at = app.shown_at();
                let life = source.timer_life_at(&id, at).map(Box::new);
                queue.extend(update(app, Action::Life(id, at, life)));
            }
            Effect::Refresh if !refreshed => {
                refresh(source, app);
                refreshed = true;
            }
            Effect::Refresh => {}
            Effect::Find(q) => {
                let page = source.timer_page(&q);
                queue.extend(update(app, Action::Found(q, page)));
            }
            Effect::LoadTrace(id) => {
                let t = source.fire_trace(&id);
                queue.extend(update(app, Action::Traced(id, t)));
            }
            Effect::LoadPayload(id, h) => {
                let p = source.payload_at(&id, h);
                queue.extend(update(app, Action::Payload(id, h, p)));
            }
            Effect::LoadPool => {
                let p = source.pending_txs();
                queue.extend(update(app, Action::Pool(p)));
            }
            Effect::DryRun(req) => {
                let r = source.dry_run(&req);
                queue.extend(update(app, Action::DryRan(Box::new((*req, r)))));
            }
        }
    }
}

/// Feeds one key press through the app and carries out what it asks for.
pub fn handle_key<S: DashboardSource + ?Sized>(
    source: &mut S,
    app: &mut App,
    key: crossterm::event::KeyEvent,
) {
    let effects = update(app, Action::Key(key));
    apply_effects(source, app, effects);
}
