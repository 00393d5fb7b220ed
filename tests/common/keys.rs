//! Key presses and drawn screens for the dashboard's tests: keys as crossterm sends them, sent
//! through the same handler as the terminal's, and a frame drawn to a test backend as text.

use cowboy_devnet::tui::app::App;
use cowboy_devnet::tui::model::DashboardSource;
use cowboy_devnet::tui::theme::Theme;
use cowboy_devnet::tui::{handle_key, render};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::{Terminal, backend::TestBackend};

/// A character key (shifted when upper case).
pub fn key(c: char) -> KeyEvent {
    let m = if c.is_ascii_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    KeyEvent::new(KeyCode::Char(c), m)
}

/// A key without modifiers.
pub fn code(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

/// The keys of a typed text.
pub fn typed(s: &str) -> Vec<KeyEvent> {
    s.chars().map(key).collect()
}

/// Presses `keys` in order on `app`, against `src`.
pub fn press<S: DashboardSource + ?Sized>(src: &mut S, app: &mut App, keys: &[KeyEvent]) {
    for k in keys {
        handle_key(src, app, *k);
    }
}

/// `app` drawn at `w`x`h` in the default theme, as text.
pub fn screen_at(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render::render(f, app, &Theme::default()))
        .unwrap();
    t.backend().to_string()
}
