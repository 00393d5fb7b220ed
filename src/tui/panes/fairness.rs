//! Fairness per actor: recent fires, deferrals, pending timers, W(actor) (CIP-1 v3 §8).

use crate::tui::app::{App, Pane};
use crate::tui::render::{pane_block, scroll_offset};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Row, Table};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let rows = app.fairness_sorted();
    let mut fires: Vec<u64> = rows.iter().map(|r| r.fires).collect();
    fires.sort_unstable();
    let median = if fires.is_empty() {
        0
    } else {
        fires[(fires.len() - 1) / 2]
    };
    let block = pane_block(
        format!(
            "fairness · median fires {median} · sort {} ({})",
            app.fairness_sort.label(),
            app.keys.keys_label(crate::tui::keys::KeyAction::Sort)
        ),
        Pane::Fairness,
        app,
        theme,
    );
    let inner = block.inner(area);
    let focused = app.focus == Pane::Fairness;
    let h = inner.height.saturating_sub(1) as usize;
    let off = scroll_offset(app.fairness_sel, rows.len(), h);
    let table_rows: Vec<Row> = rows
        .iter()
        .enumerate()
        .skip(off)
        .take(h)
        .map(|(i, r)| {
            Row::new(vec![
                app.data.label(&r.actor),
                r.fires.to_string(),
                r.deferrals.to_string(),
                r.pending.to_string(),
                r.w_bps.map_or("—".into(), |w| {
                    format!("{}.{:04}", w / 10_000, w % 10_000)
                }),
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
            Constraint::Length(6),
            Constraint::Length(9),
            Constraint::Length(7),
            Constraint::Length(6),
        ],
    )
    .header(
        Row::new(vec!["actor", "fires", "deferrals", "pending", "W"]).style(theme.get("header")),
    )
    .block(block);
    frame.render_widget(t, area);
}
