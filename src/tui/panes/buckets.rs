//! Coming heights and their timers; the selected bucket's timers in execution order.

use super::frame::{pane_block, scroll_offset, short_amount};
use crate::tui::data::{TimerRow, fmt_nanos};
use crate::tui::model::BucketSummary;
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
    let cols = list_columns(app, draft.is_some(), inner.width.saturating_sub(RIGHT_MIN));
    let left_w = cols.iter().map(|c| c.1 + 1).sum::<u16>();
    let [left, right] =
        Layout::horizontal([Constraint::Length(left_w), Constraint::Min(RIGHT_MIN)]).areas(inner);
    bucket_list(frame, left, app, theme, &cols, draft.is_some());
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

/// The width the selected bucket's timers keep beside the list of heights.
const RIGHT_MIN: u16 = 20;

/// One column of the list of heights: its header and width.
type Column = (&'static str, u16);

/// The list's columns that fit `room` (its right border included): `height`, `timers`, `gas`
/// and `fits` (none under a draft) at their usual widths when all fit; else each as wide as
/// its header and the longest value, dropped from the right while they do not fit (the
/// over-lane colour still marks a bucket that does not fit). A height is never cut: at 80
/// columns with five-digit heights it was (`#1005` for #10053).
fn list_columns(app: &App, draft: bool, room: u16) -> Vec<Column> {
    let fits = if draft { "" } else { "fits" };
    let usual: Vec<Column> = vec![("height", 8), ("timers", 6), ("gas", 6), (fits, 4)];
    if usual.iter().map(|c| c.1 + 1).sum::<u16>() <= room {
        return usual;
    }
    let longest = |f: &dyn Fn(&BucketSummary) -> usize| {
        app.data.buckets.iter().map(f).max().unwrap_or(0) as u16
    };
    let widths = [
        longest(&|b| b.height.to_string().len() + 1),
        longest(&|b| b.count.to_string().len()),
        longest(&|b| short_amount(b.gas.into()).len()),
        3,
    ];
    let mut out = Vec::new();
    let mut used = 0;
    for (i, (name, _)) in usual.into_iter().enumerate() {
        let w = widths[i].max(name.len() as u16);
        if i > 0 && (name.is_empty() || used + w + 1 > room) {
            break;
        }
        used += w + 1;
        out.push((name, w));
    }
    out
}

/// The coming heights, in `cols`: timers, summed gas, and whether they fit the lane (not under
/// a draft).
fn bucket_list(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    theme: &Theme,
    cols: &[Column],
    draft: bool,
) {
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
            let cells = [
                format!("#{}", b.height),
                b.count.to_string(),
                short_amount(b.gas.into()),
                match (draft, b.fits_lane) {
                    (true, _) => String::new(),
                    (false, true) => "yes".into(),
                    (false, false) => "NO".into(),
                },
            ];
            Row::new(cells.into_iter().take(cols.len())).style(style)
        })
        .collect();
    let t = Table::new(rows, cols.iter().map(|c| Constraint::Length(c.1)))
        .header(Row::new(cols.iter().map(|c| c.0)).style(theme.get("header")))
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
            let cells = timer_cells(app, t, i, ranked).into_iter().zip(COLS);
            Row::new(cells.take(shown).map(|(c, (_, w))| clipped(c, w))).style(style)
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

/// `cell` cut to `width` characters, its last one `…` when something was cut (a label
/// `settle-42` in an 8-wide id column reads `settle-…`, not a different label `settle-4`).
fn clipped(cell: String, width: u16) -> String {
    let width = usize::from(width);
    if cell.chars().count() <= width {
        return cell;
    }
    let mut cut: String = cell.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
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
