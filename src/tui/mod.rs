//! The terminal dashboard (issue 15): a live inspector of the timer engine.
//!
//! Built as the Elm pattern: [`app::App`] is the state, [`app::update`] turns an
//! [`app::Action`] into state changes and [`app::Effect`]s (node commands and queries), and
//! [`render::render`] draws a frame from the state alone. The data comes through one interface,
//! [`model::DashboardSource`], which an in-process node ([`crate::tui::local::LocalDevnet`]) and
//! the JSON-RPC client ([`crate::tui::remote::RemoteDevnet`], `--attach`) implement; the source
//! runs on a thread of its own ([`worker`]), so the UI never waits on it. [`keys`] holds the one
//! key table, [`theme`] the themes, [`term`] the terminal guard, and [`run`] the event loop.

pub mod api_check;
pub mod app;
pub mod chart_window;
pub mod click;
pub mod command;
pub mod data;
pub mod draft_cursor;
pub mod draft_request;
pub mod drive;
pub mod extras;
pub mod feed_text;
pub mod filter;
pub mod finder_query;
pub mod follow;
pub mod form;
pub mod gone_payload;
pub mod input;
pub mod keys;
pub mod local;
pub mod model;
pub mod outcome;
pub mod panes;
pub mod past;
pub mod pool;
pub mod pool_state;
pub mod prompt;
pub mod remote;
pub mod remote_dry;
pub mod render;
pub mod reply;
pub mod state;
pub mod story;
pub mod term;
pub mod theme;
pub mod view;
pub mod worker;
pub mod zoom;

use app::{Action, App, update};
pub use drive::{EVENTS_PER_REFRESH, apply_effects, apply_refresh, handle_key, refresh};
use keys::KeyMap;
use model::DashboardSource;
use std::io;
use std::time::Duration;
use term::{TermEvent, TerminalGuard};
use theme::Theme;

/// How the dashboard runs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub theme: Theme,
    pub keys: KeyMap,
    /// Longest wait between frames.
    pub frame: Duration,
    /// Longest wait between two data refreshes when nothing happens and the source sends no
    /// live updates (an attached dashboard whose subscription is down).
    pub refresh: Duration,
    /// The same while the source sends live updates (Spec note 199): blocks and the story
    /// refresh as they come, so this only catches what sends no news (a balance set by
    /// another client under manual mining).
    pub refresh_live: Duration,
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
            refresh_live: Duration::from_secs(2),
            owns_devnet: false,
            mouse: true,
        }
    }
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
        let idle = match app.link {
            None => opts.refresh_live,
            Some(_) => opts.refresh,
        };
        client.tick(&app, idle);
    }
    Ok(())
}
