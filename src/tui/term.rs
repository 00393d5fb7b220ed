//! The terminal: raw mode and the alternate screen while the dashboard runs, restored when the
//! guard drops (a normal exit or an error) and by a panic hook before the panic message prints,
//! so a panic anywhere (any thread) never leaves a half-restored screen.

use crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEvent, KeyEventKind, MouseEventKind,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};
use std::time::Duration;

/// Whether the terminal is currently in the dashboard's mode (so restoring twice is harmless).
static ACTIVE: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// What panicked while the dashboard held the terminal (the first such panic).
static PANICKED: Mutex<Option<String>> = Mutex::new(None);

/// Puts the terminal back: leaves the alternate screen, shows the cursor, ends raw mode.
/// Does nothing when the dashboard does not hold the terminal. True when it did.
pub fn restore() -> bool {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = disable_raw_mode();
        let _ = execute!(
            io::stdout(),
            DisableMouseCapture,
            LeaveAlternateScreen,
            cursor::Show
        );
        return true;
    }
    false
}

/// The panic that took the terminal back from the dashboard, if one did: `thread 'name': message`.
/// The dashboard's loop stops when it sees one, so it never draws on the restored screen.
pub fn panicked() -> Option<String> {
    PANICKED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Installs (once) the panic hook that restores the terminal before the panic message prints
/// and records the panic for [`panicked`] when the dashboard held the terminal.
pub fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if restore() {
                let thread = std::thread::current();
                let what = format!("thread '{}': {info}", thread.name().unwrap_or("unnamed"));
                let mut p = PANICKED.lock().unwrap_or_else(|e| e.into_inner());
                p.get_or_insert(what);
            }
            previous(info);
        }));
    });
}

/// Marks the terminal as held by the dashboard without touching it: what [`TerminalGuard::new`]
/// records, for tests of the panic path on a machine with no terminal.
#[doc(hidden)]
pub fn test_hook_mark_active() {
    install_panic_hook();
    ACTIVE.store(true, Ordering::SeqCst);
}

/// Holds the terminal for the dashboard; dropping it restores the terminal.
pub struct TerminalGuard {
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TerminalGuard {
    pub fn new() -> io::Result<Self> {
        Self::with_mouse(true)
    }

    /// The terminal held, with mouse capture on or off (`--no-mouse`, issue 34).
    pub fn with_mouse(mouse: bool) -> io::Result<Self> {
        install_panic_hook();
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        if let Err(e) = execute!(io::stdout(), EnterAlternateScreen, cursor::Hide)
            .and_then(|_| set_mouse(mouse))
        {
            let _ = restore();
            return Err(e);
        }
        match Terminal::new(CrosstermBackend::new(io::stdout())) {
            Ok(terminal) => Ok(TerminalGuard { terminal }),
            Err(e) => {
                let _ = restore();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = restore();
    }
}

/// Turns mouse capture on (a click focuses a pane) or off (the terminal selects text).
pub fn set_mouse(on: bool) -> io::Result<()> {
    if on {
        execute!(io::stdout(), EnableMouseCapture)
    } else {
        execute!(io::stdout(), DisableMouseCapture)
    }
}

/// What the terminal said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermEvent {
    Key(KeyEvent),
    /// A mouse button went down at `(column, row)`.
    Click {
        column: u16,
        row: u16,
    },
    Resize,
}

/// Waits up to `timeout` for a terminal event. Only key presses count: releases and repeats
/// (reported by terminals with the kitty keyboard protocol) are dropped.
pub fn next_event(timeout: Duration) -> io::Result<Option<TermEvent>> {
    if !event::poll(timeout)? {
        return Ok(None);
    }
    Ok(filter_event(event::read()?))
}

/// The events the dashboard acts on: key presses (not releases or repeats), mouse clicks and
/// resizes.
pub fn filter_event(ev: Event) -> Option<TermEvent> {
    match ev {
        Event::Key(k) if k.kind == KeyEventKind::Press => Some(TermEvent::Key(k)),
        Event::Resize(..) => Some(TermEvent::Resize),
        Event::Mouse(m) if matches!(m.kind, MouseEventKind::Down(_)) => Some(TermEvent::Click {
            column: m.column,
            row: m.row,
        }),
        _ => None,
    }
}

/// The OSC 52 sequence that puts `text` on the terminal's clipboard (xterm, kitty, iTerm2,
/// WezTerm; tmux passes it on with `set-clipboard on`, and it crosses ssh).
pub fn osc52(text: &str) -> String {
    use base64::Engine;
    format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(text)
    )
}

/// Writes [`osc52`] for `text` to the terminal.
pub fn copy_osc52(text: &str) -> io::Result<()> {
    use std::io::Write;
    let mut out = io::stdout();
    out.write_all(osc52(text).as_bytes())?;
    out.flush()
}
