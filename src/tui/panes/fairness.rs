//! Fairness per actor (CIP-1 v3 §8): under eip1559 W(actor) from 1.00 to 2.00 with a bar,
//! the window's recent fires and deferrals, its median and length; under fifo the fires and
//! deferrals counted from the events (FIFO has no W). Pending timers per actor under both.

use super::frame::{pane_block, scroll_offset};
use crate::engine::SchedulerKind;
use crate::tui::data::fmt_w;
use crate::tui::state::{App, Pane};
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
            "fairness · {} W(actor) · window {window} blocks · median fires {median} · {sort}",
            SchedulerKind::after_activation()
        ),
        // The same median over the fires counted from the events (the node's query); the
        // scheduler named as it is (cip1-v1 shows its EMA weights, the others have no W).
        None => {
            let sched = app.scheduler().to_string();
            let w = if app.data.fairness.iter().any(|r| r.w_bps.is_some()) {
                "EMA weight"
            } else {
                "no W"
            };
            format!(
                "fairness · {sched} ({w}) · median fires {} · {sort}",
                app.data.fires_median
            )
        }
    };
    let block = pane_block(title, Pane::Fairness, app, theme);
    let inner = block.inner(area);
    let focused = app.focus == Pane::Fairness;
    // Only the rows on screen are built.
    let h = inner.height.saturating_sub(1) as usize;
    let off = scroll_offset(app.fairness_sel, rows.len(), h);
    // Columns by priority: W and its bar only where there is a W (eip1559); a narrow pane
    // drops the ones further right.
    let has_w = rows.iter().any(|r| r.w_bps.is_some());
    let mut cols: Vec<(&str, u16)> = vec![("actor", 10)];
    // The bar is drawn on the scheduler's own range (issue 34, item 10): 1..2 for eip1559's
    // W, weight_min..weight_max for cip1-v1's EMA weight; its header names the ends.
    let range = app.data.weight_range.unwrap_or((10_000, 20_000));
    let bar_head = format!("{}─{}", fmt_w(range.0), fmt_w(range.1));
    if has_w {
        cols.extend([("W", 4), (bar_head.as_str(), BAR as u16)]);
    }
    // Issue 34, item 8: the actor's first deferrals in the window (Spec note 147: a timer
    // carried for many blocks counts once), not blocks carried.
    cols.extend([("fires", 6), ("1st deferrals", 13), ("pending", 7)]);
    let mut shown = 0;
    let mut used = 0u16;
    for (_, w) in &cols {
        if used + w > inner.width {
            break;
        }
        used += w + 1;
        shown += 1;
    }
    let table_rows: Vec<Row> = rows
        .iter()
        .enumerate()
        .skip(off)
        .take(h)
        .map(|(i, r)| {
            let mut cells = vec![Cell::from(app.data.label(&r.actor))];
            if has_w {
                cells.push(Cell::from(r.w_bps.map_or("—".into(), fmt_w)));
                cells.push(
                    Cell::from(r.w_bps.map_or(String::new(), |w| w_bar(w, range)))
                        .style(theme.get("utilisation_line")),
                );
            }
            cells.extend([
                Cell::from(r.fires.to_string()),
                Cell::from(r.deferrals.to_string()),
                Cell::from(r.pending.to_string()),
            ]);
            Row::new(cells.into_iter().take(shown)).style(if focused && i == app.fairness_sel {
                theme.get("selection")
            } else {
                theme.get("text")
            })
        })
        .collect();
    let widths: Vec<Constraint> = cols
        .iter()
        .take(shown)
        .enumerate()
        .map(|(i, (_, w))| {
            if i == 0 {
                Constraint::Min(*w)
            } else {
                Constraint::Length(*w)
            }
        })
        .collect();
    let t = Table::new(table_rows, widths)
        .header(Row::new(cols.iter().take(shown).map(|(n, _)| *n)).style(theme.get("header")))
        .block(block);
    frame.render_widget(t, area);
}

/// Width of the W bar.
const BAR: usize = 9;

/// A weight from `lo` (empty) to `hi` (full) as a bar of [`BAR`] cells.
fn w_bar(bps: u32, (lo, hi): (u32, u32)) -> String {
    let span = hi.saturating_sub(lo).max(1) as usize;
    let over = (bps.clamp(lo, hi.max(lo)) - lo) as usize;
    let full = (over * BAR).div_ceil(span).min(BAR);
    format!("{}{}", "█".repeat(full), "·".repeat(BAR - full))
}
