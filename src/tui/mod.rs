//! The terminal dashboard (issue 15): a live inspector of the timer engine.
//!
//! Built as the Elm pattern: [`app::App`] is the state, [`app::update`] turns an
//! [`app::Action`] into state changes and [`app::Effect`]s (node commands and queries), and
//! [`render::render`] draws a frame from the state alone. The data comes through one interface,
//! [`model::DashboardSource`], which an in-process node ([`crate::tui::local::LocalDevnet`])
//! implements today and a JSON-RPC client can implement later. [`keys`] holds the one key table,
//! [`theme`] the themes, [`term`] the terminal guard, and [`run`] the event loop.

pub mod app;
pub mod keys;
pub mod local;
pub mod model;
pub mod panes;
pub mod render;
pub mod term;
pub mod theme;

use app::{Action, App, Effect, update};
use keys::KeyMap;
use model::DashboardSource;
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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            theme: Theme::default(),
            keys: KeyMap::default(),
            frame: Duration::from_millis(100),
            refresh: Duration::from_millis(500),
        }
    }
}

/// Pulls fresh data and new events from the source into the app.
pub fn refresh<S: DashboardSource + ?Sized>(source: &mut S, app: &mut App) {
    app.events_dropped += source.take_dropped();
    let data = source.dashboard(&app.query());
    update(app, Action::Data(Box::new(data)));
    let events = source.events(app.events_from, EVENTS_PER_REFRESH + 1);
    let events = if events.len() > EVENTS_PER_REFRESH {
        app.events_dropped += (events.len() - EVENTS_PER_REFRESH) as u64;
        events[events.len() - EVENTS_PER_REFRESH..].to_vec()
    } else {
        events
    };
    if !events.is_empty() {
        update(app, Action::Events(events));
    }
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
                let life = source.timer_life(&id).map(Box::new);
                queue.extend(update(app, Action::Life(id, life)));
            }
            Effect::Refresh if !refreshed => {
                refresh(source, app);
                refreshed = true;
            }
            Effect::Refresh => {}
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
/// The loop waits for a key, a resize, the source's next deadline (an interval block) or the
/// frame tick, whichever comes first; it never waits on the source inside a draw. An
/// in-process source answers each query synchronously; a remote one answers from its cache.
pub fn run<S: DashboardSource + ?Sized>(source: &mut S, opts: RunOptions) -> io::Result<()> {
    let mut guard = TerminalGuard::new()?;
    let mut app = App::new(opts.keys.clone());
    if let Some(model::MiningMode::Interval { ms }) =
        source.dashboard(&app.query()).status.map(|s| s.mining)
    {
        app.block_time_ms = ms;
    }
    refresh(source, &mut app);
    let mut last_refresh = Instant::now();
    while !app.quit {
        guard
            .terminal
            .draw(|f| render::render(f, &app, &opts.theme))?;
        let now = Instant::now();
        let mut wait = opts.frame;
        if let Some(d) = source.next_deadline() {
            wait = wait.min(d.saturating_duration_since(now));
        }
        match term::next_event(wait)? {
            Some(TermEvent::Key(k)) => handle_key(source, &mut app, k),
            Some(TermEvent::Click { column, row }) => {
                let size = guard.terminal.size()?;
                update(
                    &mut app,
                    Action::Click {
                        column,
                        row,
                        width: size.width,
                        height: size.height,
                    },
                );
            }
            Some(TermEvent::Resize) | None => {}
        }
        let now = Instant::now();
        let sealed = source.tick(now);
        if sealed || now.duration_since(last_refresh) >= opts.refresh {
            refresh(source, &mut app);
            last_refresh = now;
        }
    }
    Ok(())
}
