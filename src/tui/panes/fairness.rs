//! Fairness per actor (CIP-1 v3 §8): under eip1559 W(actor) from 1.00 to 2.00 with a bar,
//! the window's recent fires and deferrals, its median and length; under fifo the fires and
//! deferrals counted from the events (FIFO has no W). Pending timers per actor under both.

use crate::tui::app::{App, Pane};
use crate::tui::render::{pane_block, scroll_offset};
use crate::tui::model::fmt_w;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Cell, Row, Table};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let rows = app.fairness_sorted();
    let sort = format!(
        "sort {} ({})",
        app.fairness_sort.label(),
        app.keys.keys_label(crate::tui::keys::KeyAction::Sort)
    );
    let title = match app.data.fairness_window {
        // CIP-1 v3 §8: the window's own median over the actors with a recent fire.
        Some((window, median)) => format!(
            "fairness · eip1559 W(actor) · window {window} blocks · median fires {median} · {sort}"
        ),
        None => {
            let mut fires: Vec<u64> = rows.iter().map(|r| r.fires).collect();
            fires.sort_unstable();
            let median = if fires.is_empty() {
                0
            } else {
                fires[(fires.len() - 1) / 2]
            };
            format!("fairness · fifo (no W) · median fires {median} · {sort}")
        }
    };
    let block = pane_block(title, Pane::Fairness, app, theme);
    let inner = block.inner(area);
    let focused = app.focus == Pane::Fairness;
    // Only the rows on screen are built.
    let h = inner.height.saturating_sub(1) as usize;
    let off = scroll_offset(app.fairness_sel, rows.len(), h);
    let table_rows: Vec<Row> = rows
        .iter()
        .enumerate()
        .skip(off)
        .take(h)
        .map(|(i, r)| {
            Row::new(vec![
                Cell::from(app.data.label(&r.actor)),
                Cell::from(r.w_bps.map_or("—".into(), fmt_w)),
                Cell::from(r.w_bps.map_or(String::new(), w_bar))
                    .style(theme.get("utilisation_line")),
                Cell::from(r.fires.to_string()),
                Cell::from(r.deferrals.to_string()),
                Cell::from(r.pending.to_string()),
            ])
            .style(if focused && i == app.fairness_sel {
                theme.get("selection")
            } else {
                theme.get("text")
            })
        })
        .collect();
    let t = Table::new(
        table_rows,
        [
            Constraint::Min(10),
            Constraint::Length(4),
            Constraint::Length(BAR as u16),
            Constraint::Length(6),
            Constraint::Length(9),
            Constraint::Length(7),
        ],
    )
    .header(
        Row::new(vec!["actor", "W", "1 ── 2", "fires", "deferrals", "pending"])
            .style(theme.get("header")),
    )
    .block(block);
    frame.render_widget(t, area);
}

/// Width of the W bar.
const BAR: usize = 6;

/// W from 1.00 (empty) to 2.00 (full) as a bar of [`BAR`] cells.
fn w_bar(bps: u32) -> String {
    let over = bps.clamp(10_000, 20_000) - 10_000;
    let full = (over as usize * BAR).div_ceil(10_000);
    format!("{}{}", "█".repeat(full), "·".repeat(BAR - full))
}
