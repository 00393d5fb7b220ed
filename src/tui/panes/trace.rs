//! A fire's trace (issue 32, "the dashboard's timer life opens a fire's trace"): `t` in a
//! timer's life asks the node for the trace of its last fire (kept with `--trace`, else rebuilt
//! by replay) and shows it in the words `run --trace` prints (`node::trace_text`): the host calls
//! in order with their cycles and cells, the storage writes as `key: old → new`, the printed
//! lines, and the end; a failing call and the failure are in the error colour. Esc returns to
//! the life; ↑/↓ PgUp/PgDn scroll.

use super::overlays::centered;
use crate::chain::trace::Trace;
use crate::engine::TimerId;
use crate::tui::state::{App, Effect, Overlay};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

pub use crate::tui::state::TraceOverlay;

/// `t` in a timer's life: ask its last fire's trace.
pub fn open(app: &mut App) -> Vec<Effect> {
    let id = match &app.overlay {
        Overlay::Life(l) => l.id,
        Overlay::LifeLoading(id) => *id,
        _ => return vec![],
    };
    app.scroll = 0;
    app.scroll_max.set(None);
    app.overlay = Overlay::Trace(Box::new(TraceOverlay { id, traces: None }));
    vec![Effect::LoadTrace(id)]
}

/// `t` outside a life: the selected timer's last fire's trace (Esc then opens its life).
pub fn open_selected(app: &mut App) -> Vec<Effect> {
    match app.selected_timer() {
        Some((id, _)) => {
            app.overlay = Overlay::LifeLoading(id);
            open(app)
        }
        None => {
            app.toast(
                "select a timer (buckets, feed, finder) to see its last fire's trace",
                true,
            );
            vec![]
        }
    }
}

/// The trace came back: shown if its overlay is still open.
pub fn on_trace(app: &mut App, id: TimerId, t: Result<Vec<Trace>, String>) -> Vec<Effect> {
    if let Overlay::Trace(o) = &mut app.overlay
        && o.id == id
    {
        o.traces = Some(t);
    }
    vec![]
}

/// `l` wrapped at `width`, the rest indented under the line it continues.
fn wrapped<'a>(l: &str, width: usize, style: ratatui::style::Style) -> Vec<Line<'a>> {
    let first = width.max(20);
    let chars: Vec<char> = l.chars().collect();
    let mut out = vec![Line::styled(
        format!(" {}", chars.iter().take(first).collect::<String>()),
        style,
    )];
    if chars.len() > first {
        for c in chars[first..].chunks(width.saturating_sub(6).max(14)) {
            out.push(Line::styled(
                format!("       {}", c.iter().collect::<String>()),
                style,
            ));
        }
    }
    out
}

/// The overlay's lines: each trace in words, a failing line in the error colour.
fn lines<'a>(o: &TraceOverlay, app: &App, theme: &Theme, width: usize) -> Vec<Line<'a>> {
    let text = theme.get("text");
    let bad = theme.get("error");
    match &o.traces {
        None => vec![Line::styled(
            " asking the node (a replay when it does not trace)…",
            theme.get("dim"),
        )],
        Some(Err(e)) => {
            // Wrapped at the width: the reason is the whole message.
            let chars: Vec<char> = format!("no trace: {e}").chars().collect();
            chars
                .chunks(width.max(20))
                .map(|c| Line::styled(format!(" {}", c.iter().collect::<String>()), bad))
                .collect()
        }
        Some(Ok(ts)) => ts
            .iter()
            .flat_map(|t| crate::node::trace_text::trace_lines(t, &app.data.names))
            .flat_map(|l| {
                let failing = l.contains(" ✗ ") || l.contains(" failed") || source_line(&l);
                wrapped(&l, width, if failing { bad } else { text })
            })
            .collect(),
    }
}

/// The failing source line (`  16 | text`) or the caret under it (`node::trace_text`).
fn source_line(l: &str) -> bool {
    let t = l.trim_start();
    let numbered = t
        .split_once(" | ")
        .is_some_and(|(n, _)| n.parse::<u32>().is_ok());
    numbered || (t.starts_with("| ") && t.trim_end().ends_with('^'))
}

/// Draws the overlay over `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, o: &TraceOverlay, theme: &Theme) {
    let r: Rect = centered(
        area,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    let title = format!(
        "trace of timer {}'s last fire · Esc: back to its life",
        o.id.short()
    );
    let width = r.width.saturating_sub(3) as usize;
    super::modal::scrolled(frame, r, title, lines(o, app, theme, width), app, theme);
}
