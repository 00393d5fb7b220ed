//! The terminal dashboard (issue 15): a live inspector of the timer engine.
//!
//! Built as the Elm pattern: [`app::App`] is the state, [`app::update`] turns an
//! [`app::Action`] into state changes and [`app::Effect`]s (node commands and queries), and
//! [`render::render`] draws a frame from the state alone. The data comes through one interface,
//! [`model::DashboardSource`], which an in-process node ([`crate::tui::local::LocalDevnet`]) and
//! the JSON-RPC client ([`crate::tui::remote::RemoteDevnet`], `--attach`) implement; the source
//! runs on a thread of its own ([`worker`]), so the UI never waits on it. [`keys`] holds the one
//! key table, [`theme`] the themes, [`term`] the terminal guard, and [`run`] the event loop.

pub mod app;
pub mod chart_window;
mod click;
pub mod command;
pub mod draft_cursor;
pub mod draft_request;
pub mod extras;
pub mod feed_text;
pub mod filter;
mod follow;
pub mod form;
pub mod gone_payload;
mod input;
pub mod keys;
pub mod local;
pub mod model;
pub mod panes;
pub mod past;
pub mod prompt;
pub mod remote;
pub mod render;
pub mod state;
pub mod story;
pub mod term;
pub mod theme;
pub mod view;
pub mod worker;
pub mod zoom;

use app::{Action, App, Effect, update};
use keys::KeyMap;
use model::{DashboardData, DashboardSource, EventRow};
use std::collections::VecDeque;
use std::io;
use std::time::{Duration, Instant};
use term::{TermEvent, TerminalGuard};
use theme::Theme;

/// Events the feed asks the source for per refresh; more arrive as "events dropped".
pub const EVENTS_PER_REFRESH: usize = 5_000;

/// How the dashboard runs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub theme: Theme,
    pub keys: KeyMap,
    /// Longest wait between frames.
    pub frame: Duration,
    /// Longest wait between two data refreshes when nothing happens.
    pub refresh: Duration,
    /// The process runs the devnet it shows (the default command): `q` asks before quitting.
    pub owns_devnet: bool,
    /// Mouse capture at start (`--no-mouse`: off; `m` toggles it).
    pub mouse: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            theme: Theme::default(),
            keys: KeyMap::default(),
            frame: Duration::from_millis(100),
            refresh: Duration::from_millis(500),
            owns_devnet: false,
            mouse: true,
        }
    }
}

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

/// Runs the dashboard on this terminal until the user quits. The terminal is restored on
/// return, on error and on panic.
///
/// The source runs on a thread of its own ([`worker`]): this loop only draws, reads the
/// terminal and applies the replies that arrived, so a long `Mine`, a slow block or an
/// unreachable server never freezes it. A panic on any thread (the source's, the RPC server's
/// tasks) restores the terminal from the panic hook and ends this loop with an error, so no UI
/// keeps drawing on a restored screen.
pub fn run<S: DashboardSource + Send + 'static>(source: S, opts: RunOptions) -> io::Result<()> {
    let mut guard = TerminalGuard::with_mouse(opts.mouse)?;
    let mut app = App::new(opts.keys.clone());
    app.owns_devnet = opts.owns_devnet;
    app.mouse = opts.mouse;
    let mut mouse_on = opts.mouse;
    let mut client = worker::Client::spawn(source, opts.frame.min(Duration::from_millis(100)));
    client.refresh(&app);
    let mut last_refresh = Instant::now();
    while !app.quit {
        if let Some(what) = term::panicked() {
            return Err(io::Error::other(format!(
                "a task panicked ({what}); the dashboard stopped"
            )));
        }
        if client.gone {
            return Err(io::Error::other("the dashboard's source stopped"));
        }
        guard
            .terminal
            .draw(|f| render::render(f, &app, &opts.theme))?;
        if let Some(text) = app.clipboard.take() {
            term::copy_osc52(&text)?;
        }
        match term::next_event(opts.frame)? {
            Some(TermEvent::Key(k)) => client.handle_key(&mut app, k),
            Some(TermEvent::Click { column, row }) => {
                let size = guard.terminal.size()?;
                let effects = update(
                    &mut app,
                    Action::Click {
                        column,
                        row,
                        width: size.width,
                        height: size.height,
                    },
                );
                client.dispatch(&mut app, effects);
            }
            Some(TermEvent::Resize) | None => {}
        }
        if app.mouse != mouse_on {
            term::set_mouse(app.mouse)?;
            mouse_on = app.mouse;
        }
        client.pump(&mut app);
        let now = Instant::now();
        if !client.refreshing() && now.duration_since(last_refresh) >= opts.refresh {
            client.refresh(&app);
            last_refresh = now;
        }
    }
    Ok(())
}
