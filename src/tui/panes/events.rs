//! The event feed: newest at the bottom, coloured by kind, filtered, pausable. Only the rows on
//! screen are looked at (the app walks back from the newest event as far as the pane is tall).

use super::frame::pane_block;
use crate::tui::keys::KeyAction;
use crate::tui::state::{App, Pane};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let mut title = format!("events · {} kept", app.feed.len());
    if app.filter_editing || !app.filter.is_empty() {
        title.push_str(&format!(
            " · filter /{}{}",
            app.filter,
            if app.filter_editing { "▏" } else { "" }
        ));
    }
    if app.feed_paused {
        title.push_str(&format!(
            " · PAUSED ({} new, {} resumes)",
            app.held.len(),
            app.keys.keys_label(KeyAction::PauseFeed)
        ));
    }
    if app.events_dropped > 0 {
        title.push_str(&format!(" · {} events dropped", app.events_dropped));
    }
    let block = pane_block(title, Pane::Events, app, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let h = inner.height as usize;
    // Enough rows that the selection is on screen; then the window that shows it.
    let rows = app.visible_events(h + app.event_sel);
    let end = rows
        .len()
        .saturating_sub(app.event_sel.saturating_sub(h.saturating_sub(1)));
    let start = end.saturating_sub(h);
    let focused = app.focus == Pane::Events;
    let lines: Vec<Line> = rows[start..end]
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let from_newest = rows.len() - 1 - (start + i);
            let selected = focused && app.feed_pin && from_newest == app.event_sel;
            // The headless lines' text (issue 23), a timer named by its fixture label when it
            // has one, a state watch said as one; `key=value` fields only from a source that
            // gives no text.
            let body = crate::tui::feed_text::feed_text(app, e);
            let mut spans = vec![
                Span::styled(format!("#{:<6} ", e.height), theme.get("dim")),
                Span::styled(format!("{:<31} ", e.kind), theme.kind(&e.kind)),
                Span::styled(body, theme.get("text")),
            ];
            if selected {
                let sel = theme.get("selection");
                for s in &mut spans {
                    s.style = sel;
                }
            } else if e.timer.is_some_and(|t| app.is_watched(&t)) {
                let w = crate::tui::panes::watch::watched(theme);
                for s in &mut spans {
                    s.style = s.style.patch(w);
                }
            }
            Line::from(spans)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}
