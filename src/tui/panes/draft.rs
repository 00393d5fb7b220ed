//! The CIP-5 drafts' pane (issue 22), in the lane pane's place under `cip5-draft` /
//! `cip5-draft-zh` (there is no timer lane under the drafts), one scrolling list: the
//! Globalbox head first in its frozen order (English §5.3, §8.3) with each fire's score, the
//! last block's Mailbox entries in `deliver_seq` order (English §9, zh §10: `deliver_seq`,
//! timer, target, kind, `fire_seq`, `deliver_id` in short), then the watch index (English
//! §5.2): each watch's fires (`fire_seq`), its undelivered hit and its keys or prefixes. The
//! title counts each list and the last block's quota skips. Focused (`Tab`), `↑`/`↓` select a
//! row ([`crate::tui::draft_cursor`]), `Enter` opens its timer's life, `w` watches it, `y` copies its id.

use super::frame::{pane_block, scroll_offset, short_amount};
use crate::engine::TimerId;
use crate::node::DraftView;
use crate::tui::panes::lane_chart::CHART_MIN;
use crate::tui::state::{App, Pane};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

/// A score (Q·2^96 fixed point, English §8.1) in whole bid units, shortened.
fn score_units(score: u128) -> String {
    short_amount(score >> 96)
}

/// Column widths: every cell but a row's last is padded (or cut) to its column's; the last
/// takes the rest of the line (the watches' keys).
const WIDTHS: [usize; 5] = [5, 9, 9, 8, 7];

/// One line of cells in the columns.
fn cells_line(cells: &[String]) -> String {
    let mut out = String::new();
    let last = cells.len().saturating_sub(1);
    for (k, c) in cells.iter().enumerate() {
        match WIDTHS.get(k).filter(|_| k < last) {
            Some(w) => {
                let cut: String = c.chars().take(w - 1).collect();
                out.push_str(&format!("{cut:<w$}"));
            }
            None => out.push_str(c),
        }
    }
    out
}

/// What the pane draws, line by line: section heads and notes (not selectable) and rows
/// (each selectable one at its index in [`crate::tui::draft_cursor::rows`] order).
struct Lines {
    lines: Vec<Line<'static>>,
    /// The line of each selectable row.
    at: Vec<usize>,
}

impl Lines {
    fn head(&mut self, cells: &[&str], theme: &Theme) {
        let cells: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
        let text = cells_line(&cells);
        self.lines.push(Line::styled(text, theme.get("header")));
    }
    fn note(&mut self, text: &str, theme: &Theme) {
        self.lines
            .push(Line::styled(format!("  {text}"), theme.get("dim")));
    }
    fn row(&mut self, cells: &[String], style: Style) {
        self.at.push(self.lines.len());
        self.lines.push(Line::styled(cells_line(cells), style));
    }
    /// A selectable row of `timer`: selected (the pane focused and a row picked), watched, or
    /// plain.
    fn timer_row(&mut self, cells: &[String], timer: &TimerId, app: &App, theme: &Theme) {
        let i = self.at.len();
        let selected = app.draft_focused() && app.draft.pin.is_some() && app.draft.sel == i;
        let style = if selected {
            theme.get("selection")
        } else if app.watch == Some(*timer) {
            crate::tui::panes::watch::watched(theme)
        } else {
            theme.get("text")
        };
        self.row(cells, style);
    }
}

/// A `deliver_id` (hex) in short: its first 8 digits.
fn short_hex(s: &str) -> String {
    s.trim_start_matches("0x").chars().take(8).collect()
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, d: &DraftView, theme: &Theme) {
    let english = d.scheduler.facts().globalbox;
    let block = pane_block(draft_title(d, english), Pane::Lane, app, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut l = Lines {
        lines: Vec::new(),
        at: Vec::new(),
    };
    // English §5.3: the Globalbox head first, in its frozen order (zh has none).
    if english {
        globalbox(&mut l, app, d, theme);
    }
    mailbox(&mut l, app, d, theme);
    watches(&mut l, app, d, theme);
    if !english {
        l.note("no globalbox (zh): candidates re-sorted every block", theme);
    }
    let inner = with_chart(frame, inner, l.lines.len(), app, theme);
    // Scrolled so the selected row (else the cursor's) is on screen.
    let h = inner.height as usize;
    let line = l.at.get(app.draft.sel).copied().unwrap_or(0);
    let off = if app.draft_focused() {
        scroll_offset(line, l.lines.len(), h)
    } else {
        0
    };
    let lines: Vec<Line> = l.lines.into_iter().skip(off).take(h).collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The pane's title, the most telling first: a narrow pane cuts its end.
fn draft_title(d: &DraftView, english: bool) -> String {
    let mut title = format!(
        "{} · quota skips {} · mailbox {}",
        d.scheduler,
        d.quota_skips,
        d.mailbox.len()
    );
    if english {
        title.push_str(&format!(" · globalbox {}", d.globalbox.len()));
    }
    title.push_str(&format!(" · watches {}", d.watches.len()));
    title
}

/// English §5.3: the Globalbox head in its frozen order, each fire's score.
fn globalbox(l: &mut Lines, app: &App, d: &DraftView, theme: &Theme) {
    l.head(
        &["box#", "timer", "target", "kind", "score", "anchor"],
        theme,
    );
    if d.globalbox.is_empty() {
        l.note("globalbox empty", theme);
    }
    for (k, g) in d.globalbox.iter().enumerate() {
        let cells = [
            format!("{}", k + 1),
            app.timer_label(&g.timer_id),
            app.data.label(&g.target),
            g.kind.clone(),
            score_units(g.score),
            g.anchor.to_string(),
        ];
        l.timer_row(&cells, &g.timer_id, app, theme);
    }
}

/// English §9, zh §10: the last block's Mailbox in execution (`deliver_seq`) order.
fn mailbox(l: &mut Lines, app: &App, d: &DraftView, theme: &Theme) {
    l.head(
        &["seq", "timer", "target", "kind", "fire", "deliver"],
        theme,
    );
    if d.mailbox.is_empty() {
        l.note("mailbox empty: the last block delivered nothing", theme);
    }
    for m in &d.mailbox {
        let cells = [
            m.deliver_seq.to_string(),
            app.timer_label(&m.timer_id),
            app.data.label(&m.target),
            m.kind.clone(),
            m.fire_seq.to_string(),
            short_hex(&m.deliver_id),
        ];
        l.timer_row(&cells, &m.timer_id, app, theme);
    }
}

/// English §5.2: the watch index, each watch's fires and undelivered hit.
fn watches(l: &mut Lines, app: &App, d: &DraftView, theme: &Theme) {
    l.head(&["fires", "watch", "target", "hit", "keys"], theme);
    if d.watches.is_empty() {
        l.note("no state watches", theme);
    }
    for w in &d.watches {
        let cells = [
            w.fire_seq.to_string(),
            app.timer_label(&w.timer_id),
            app.data.label(&w.target),
            w.hit.as_ref().map_or("-".into(), |h| h.height.to_string()),
            w.keys.join(","),
        ];
        l.timer_row(&cells, &w.timer_id, app, theme);
    }
}

/// Issue 34, item 1: the rows the lists leave draw the fires per block over the charts'
/// window (there is no timer lane to chart under the drafts). Returns the lists' area.
fn with_chart(frame: &mut Frame, inner: Rect, used: usize, app: &App, theme: &Theme) -> Rect {
    let spare = (inner.height as usize).saturating_sub(used + 1);
    if spare < CHART_MIN as usize {
        return inner;
    }
    let chart_h = spare as u16;
    let lists = Rect {
        height: inner.height - chart_h,
        ..inner
    };
    let chart = Rect {
        y: inner.y + lists.height,
        height: chart_h,
        ..inner
    };
    crate::tui::panes::lane_chart::fires(frame, chart, app, theme);
    lists
}
