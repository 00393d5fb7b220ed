//! What every pane draws the same way: its frame, short amounts, the scrolled window of a
//! list. A leaf of the panes (the layout that places them is [`crate::tui::render`]).

use crate::tui::state::{App, Pane};
use crate::tui::theme::Theme;
use ratatui::text::Line;
use ratatui::widgets::Block;

/// A pane's frame: its title, focused or not.
pub fn pane_block<'a>(title: String, pane: Pane, app: &App, theme: &Theme) -> Block<'a> {
    let focused = app.focus == pane;
    Block::bordered()
        .title(Line::styled(format!(" {title} "), theme.get("title")))
        .border_style(theme.get(if focused { "border_focus" } else { "border" }))
}

/// Short display of an amount: `1.2M`, `35k`, exact below 10,000.
pub fn short_amount(v: u128) -> String {
    match v {
        0..10_000 => v.to_string(),
        10_000..10_000_000 => format!("{}k", v / 1_000),
        10_000_000..10_000_000_000 => format!("{}M", v / 1_000_000),
        _ => format!("{}G", v / 1_000_000_000),
    }
}

/// Keeps the selected row on screen: the first row to draw of `len` rows in `height` lines.
pub fn scroll_offset(selected: usize, len: usize, height: usize) -> usize {
    if height == 0 || len <= height {
        return 0;
    }
    selected
        .saturating_sub(height.saturating_sub(1))
        .min(len - height)
}
