//! Coming heights and their timers; the selected bucket's timers in execution order.

use super::frame::{pane_block, scroll_offset, short_amount};
use crate::tui::data::{TimerRow, fmt_nanos};
use crate::tui::state::{App, Pane};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Row, Table};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let lane = app.data.status.as_ref().map_or(0, |s| s.lane_cycles);
    // Issue 34, item 10: the CIP-5 drafts have no timer lane (their quotas pick the fires,
    // English §8, zh §6): no lane size and no `fits` column under them.
    let draft = app.data.draft.as_ref().map(|d| d.scheduler);
    let title = match draft {
        Some(k) => format!("buckets · {k}: no timer lane (quotas pick the fires)"),
        None => format!("buckets · lane {} cycles", short_amount(lane.into())),
    };
    let block = pane_block(title, Pane::Buckets, app, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [left, right] =
        Layout::horizontal([Constraint::Length(28), Constraint::Min(20)]).areas(inner);
    bucket_list(frame, left, app, theme, draft.is_some());
    let [title, list] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(right);
    let ranked = app.data.bucket_ranked;
    frame.render_widget(
        Paragraph::new(Line::styled(
            bucket_heading(app, ranked),
            theme.get("title"),
        )),
        title,
    );
    timer_list(frame, list, app, theme, ranked);
}

/// The coming heights: timers, summed gas, and whether they fit the lane (not under a draft).
fn bucket_list(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, draft: bool) {
    let focused = app.focus == Pane::Buckets;
    let h = area.height.saturating_sub(1) as usize;
    let off = scroll_offset(app.bucket_sel, app.data.buckets.len(), h);
    let next = app.data.status.as_ref().map_or(0, |s| s.height + 1);
    let rows: Vec<Row> = app
        .data
        .buckets
        .iter()
        .enumerate()
        .skip(off)
        .take(h)
        .map(|(i, b)| {
            let mut style = if !b.fits_lane && !draft {
                theme.get("bucket_over")
            } else if b.height == next {
                theme.get("bucket_due")
            } else {
                theme.get("text")
            };
            if i == app.bucket_sel {
                style = if focused && !app.in_bucket {
                    theme.get("selection")
                } else {
                    style.patch(theme.get("header"))
                };
            }
            Row::new(vec![
                format!("#{}", b.height),
                b.count.to_string(),
                short_amount(b.gas.into()),
                match (draft, b.fits_lane) {
                    (true, _) => String::new(),
                    (false, true) => "yes".into(),
                    (false, false) => "NO".into(),
                },
            ])
            .style(style)
        })
        .collect();
    let t = Table::new(
        rows,
        [
            Constraint::Length(8),
            Constraint::Length(6),
            Constraint::Length(6),
            Constraint::Length(4),
        ],
    )
    .header(
        Row::new(vec![
            "height",
            "timers",
            "gas",
            if draft { "" } else { "fits" },
        ])
        .style(theme.get("header")),
    )
    .block(
        Block::default()
            .borders(Borders::RIGHT)
            .border_style(theme.get("border")),
    );
    frame.render_widget(t, area);
}

/// The line over the selected bucket's timers.
fn bucket_heading(app: &App, ranked: bool) -> String {
    match app.data.buckets.get(app.bucket_sel) {
        Some(b) => format!(
            " bucket #{} · {} in execution order{}",
            b.height,
            crate::tui::panes::modal::plural(b.count as usize, "timer", "timers"),
            if ranked {
                format!(
                    " ({}: effective priority, then id)",
                    crate::engine::SchedulerKind::after_activation()
                )
            } else {
                String::new()
            }
        ),
        None => " no bucket".into(),
    }
}

/// The timer list's columns by priority: narrow panes drop the ones further right.
const COLS: [(&str, u16); 11] = [
    ("#", 3),
    ("id", 8),
    ("actor", 9),
    ("gas", 6),
    ("prio×W", 11),
    ("expires", 8),
    ("maxcost", 7),
    ("carried·why", 14),
    ("fees", 16),
    ("payer", 9),
    ("handler", 12),
];

/// How many of [`COLS`] fit in `width`.
fn columns_shown(width: u16) -> usize {
    let mut shown = 0;
    let mut used = 0u16;
    for (_, w) in COLS {
        if used + w > width {
            break;
        }
        used += w + 1;
        shown += 1;
    }
    shown
}

/// The selected bucket's timers in execution order.
fn timer_list(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, ranked: bool) {
    let focused = app.focus == Pane::Buckets;
    let h = area.height.saturating_sub(1) as usize;
    // Issue 31: positions in the whole bucket; the page read holds the rows on screen.
    let off = scroll_offset(app.timer_sel, app.data.bucket_len(), h);
    let shown = columns_shown(area.width);
    let rows: Vec<Row> = (off..off + h)
        .filter_map(|i| app.data.bucket_row(i).map(|t| (i, t)))
        .map(|(i, t)| {
            let style = if focused && app.in_bucket && app.timer_pin == Some(t.id) {
                theme.get("selection")
            } else if app.is_watched(&t.id) {
                crate::tui::panes::watch::watched(theme)
            } else {
                theme.get("text")
            };
            Row::new(timer_cells(app, t, i, ranked).into_iter().take(shown)).style(style)
        })
        .collect();
    let widths: Vec<Constraint> = COLS
        .iter()
        .take(shown)
        .map(|(_, w)| Constraint::Length(*w))
        .collect();
    let t = Table::new(rows, widths)
        .header(Row::new(COLS.iter().take(shown).map(|(n, _)| *n)).style(theme.get("header")));
    frame.render_widget(t, area);
}

/// One timer's cells, in the order of [`COLS`]; `i` is its place in the bucket.
fn timer_cells(app: &App, t: &TimerRow, i: usize, ranked: bool) -> [String; 11] {
    [
        match t.rank {
            Some(k) => k.to_string(),
            None if ranked => "-".into(),
            None => (i + 1).to_string(),
        },
        app.timer_label(&t.id),
        app.data.label(&t.actor),
        short_amount(t.gas_limit.into()),
        // Effective priority per cycle (priority × W), in base units.
        match (t.effective_priority, ranked) {
            (Some(p), _) => fmt_nanos(p / 10_000),
            (None, true) => "<basefee".into(),
            (None, false) => "—".into(),
        },
        t.expires_at.to_string(),
        short_amount(t.max_cost),
        // Issue 34, item 8: blocks this timer was carried, and the last reason.
        match (&t.last_defer, t.carried) {
            (Some(r), c) => format!("{c} blk {r}"),
            (None, 0) => "0".into(),
            (None, c) => format!("{c} blk"),
        },
        fee_cell(t),
        app.data.label(&t.fee_payer),
        t.handler.clone(),
    ]
}

/// A timer's fee fields in short: `tier`, or `cap/tip` in base units, or `GBA`.
fn fee_cell(t: &TimerRow) -> String {
    match (
        t.max_fee_per_cycle,
        t.max_priority_fee_per_cycle,
        t.priority_tier,
    ) {
        (None, None, None) => "GBA".into(),
        (None, None, Some(tier)) => tier.as_str().into(),
        (fee, tip, tier) => {
            let f = |v: Option<u128>| v.map_or("-".into(), fmt_nanos);
            match tier {
                Some(tier) => format!("{}/{} {}", f(fee), f(tip), tier.as_str()),
                None => format!("{}/{}", f(fee), f(tip)),
            }
        }
    }
}
