//! The lane pane's charts over the window of blocks ([`crate::tui::chart_window`]): reserved,
//! used and GC cycles per block as a share of their budgets, with the 50 % target (CIP-1 v3
//! §5) and a marker where the scheduler switched; under the CIP-5 drafts (no timer lane) the
//! fires per block. Each with its legend and units on the x axis's label row (issue 34, item
//! 9: never over the newest blocks), and the basefee over the window below.

use super::frame::short_amount;
use crate::tui::data::{LaneRow, fmt_nanos};
use crate::tui::state::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph, Sparkline};

/// Rows a chart needs to be drawn: two of plot, one of legend.
pub const CHART_MIN: u16 = 3;

/// One series: its points (one x step per sealed block), legend word and style name.
struct Series {
    points: Vec<(f64, f64)>,
    word: &'static str,
    style: &'static str,
}

fn series(rows: &[LaneRow], f: impl Fn(&LaneRow) -> f64) -> Vec<(f64, f64)> {
    rows.iter()
        .enumerate()
        .map(|(i, r)| (i as f64, f(r)))
        .collect()
}

/// The lane chart (used, reserved, GC) into `area`, when it has [`CHART_MIN`] rows.
pub fn lane(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, eip: bool) {
    let rows = &app.data.lane;
    let status = app.data.status.as_ref();
    let lane = status.map_or(1, |s| s.lane_cycles.max(1)) as f64;
    // GC lane use against the GC budget of the config now (CIP-5 §6.5, CIP-1 v3 §9).
    let gc_budget = status.map_or(1, |s| s.gc_cycles.max(1)) as f64;
    // The budgets the selected timers reserved; the basefee follows the used line by default
    // (CIP-1 v3 §5 as written, Spec note 152) and the reserved one under `utilisation =
    // reserved`.
    let sets = vec![
        Series {
            points: series(rows, |r| r.gc_cycles as f64 * 100.0 / gc_budget),
            word: "gc",
            style: "gc_line",
        },
        Series {
            points: series(rows, |r| r.cycles_used as f64 * 100.0 / lane),
            word: "used",
            style: "dim",
        },
        Series {
            points: series(rows, |r| r.cycles_reserved as f64 * 100.0 / lane),
            word: "reserved",
            style: "utilisation_line",
        },
    ];
    let unit = format!("% of {} per block", short_amount(u128::from(lane as u64)));
    draw(frame, area, app, theme, &sets, eip, &unit);
}

/// Under the CIP-5 drafts: the fires per block over the window.
pub fn fires(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let rows = &app.data.lane;
    let sets = vec![Series {
        points: series(rows, |r| r.fired as f64),
        word: "fires",
        style: "utilisation_line",
    }];
    let unit = format!(
        "per block · {}",
        crate::tui::chart_window::title(app.lane_window, Some(rows.len()))
    );
    draw(frame, area, app, theme, &sets, false, &unit);
}

/// Draws `sets` (the last one on top) with the legend, the units and the window's ends.
fn draw(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    theme: &Theme,
    sets: &[Series],
    eip: bool,
    unit: &str,
) {
    if area.height < CHART_MIN {
        return;
    }
    let rows = &app.data.lane;
    let percent = unit.starts_with('%');
    // One x step per sealed block (an outage's skipped heights take no width); the axis is
    // labelled with the first and last heights.
    let x1 = (rows.len().max(2) - 1) as f64;
    let top = sets
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(if percent { 100.0f64 } else { 1.0 }, f64::max);
    // The 50 % target line of CIP-1 v3 §5, and a vertical marker where the policy switched.
    let target = [(0.0, 50.0), (x1, 50.0)];
    let switch_at = rows
        .windows(2)
        .position(|w| w[0].scheduler != w[1].scheduler)
        .map(|i| i + 1);
    let switch: Vec<(f64, f64)> = switch_at
        .map(|i| {
            (0..=8)
                .map(|k| (i as f64, top * f64::from(k) / 8.0))
                .collect()
        })
        .unwrap_or_default();
    let mut data: Vec<Dataset> = sets
        .iter()
        .map(|s| {
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme.get(s.style))
                .data(&s.points)
        })
        .collect();
    if eip {
        let t = Dataset::default()
            .marker(Marker::Dot)
            .graph_type(GraphType::Line)
            .style(theme.get("dim"))
            .data(&target);
        data.insert(data.len() - 1, t);
    }
    if !switch.is_empty() {
        let s = Dataset::default()
            .marker(Marker::Dot)
            .graph_type(GraphType::Scatter)
            .style(theme.get("warn"))
            .data(&switch);
        data.insert(data.len() - 1, s);
    }
    let top_label = if percent {
        format!("{top:.0}%")
    } else {
        format!("{top:.0}")
    };
    let chart = Chart::new(data)
        .x_axis(Axis::default().bounds([0.0, x1]).style(theme.get("dim")))
        .legend_position(None)
        .y_axis(
            Axis::default()
                .bounds([0.0, top])
                .labels(["0".to_string(), top_label])
                .style(theme.get("dim")),
        );
    let [plot, labels] = Layout::vertical([Constraint::Min(2), Constraint::Length(1)]).areas(area);
    frame.render_widget(chart, plot);
    let h0 = rows.first().map_or(0, |r| r.height);
    let h1 = rows.last().map_or(0, |r| r.height);
    let right = format!(" #{h1}");
    let rw = right.chars().count() as u16;
    let [left_area, right_area] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(rw)]).areas(labels);
    let mut spans = vec![Span::styled(format!("#{h0} "), theme.get("dim"))];
    spans.extend(legend(
        theme,
        sets,
        eip,
        !switch.is_empty(),
        unit,
        area.width,
    ));
    frame.render_widget(Paragraph::new(Line::from(spans)), left_area);
    frame.render_widget(
        Paragraph::new(Line::styled(right, theme.get("dim"))),
        right_area,
    );
}

/// The legend and units in one line: each series in its colour (the top one first), the
/// target and the switch where the chart is wide, what the y axis counts.
fn legend(
    theme: &Theme,
    sets: &[Series],
    eip: bool,
    switch: bool,
    unit: &str,
    width: u16,
) -> Vec<Span<'static>> {
    let wide = width >= 80;
    let mut spans: Vec<Span> = sets
        .iter()
        .rev()
        .map(|s| {
            let word = if wide && s.word == "gc" {
                "gc (of its budget)"
            } else {
                s.word
            };
            Span::styled(format!("▬{word} "), theme.get(s.style))
        })
        .collect();
    if eip && wide {
        spans.push(Span::styled("··target 50% ", theme.get("dim")));
    }
    if switch && wide {
        spans.push(Span::styled("⁞switch ", theme.get("warn")));
    }
    spans.push(Span::styled(unit.to_string(), theme.get("dim")));
    spans
}

/// The basefee over the window into two rows: its label (whole values only: the window's
/// range goes first, then `next`, when the line is short) and a sparkline (in words when it
/// did not move: a sparkline of equal values reads as a progress bar, issue 34, item 9).
pub fn basefee(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, eip: bool) {
    let [label_area, line] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(area);
    let rows = &app.data.lane;
    let status = app.data.status.as_ref();
    let lo = rows.iter().map(|r| r.basefee).min().unwrap_or(0);
    let hi = rows.iter().map(|r| r.basefee).max().unwrap_or(0);
    let head = if eip { "lane basefee " } else { "basefee " };
    let room = (label_area.width as usize).saturating_sub(head.len());
    let sched = app.scheduler().as_str();
    let label = match (rows.last(), status.and_then(|s| s.lane_basefee)) {
        (Some(r), Some(next)) if eip => {
            let (now, next) = (fmt_nanos(r.basefee), fmt_nanos(next));
            vec![
                format!(
                    "{now} per cycle (next {next}, window {}..{})",
                    fmt_nanos(lo),
                    fmt_nanos(hi)
                ),
                format!("{now} per cycle (next {next})"),
                format!("{now} (next {next})"),
                now,
            ]
        }
        // Issue 34, item 10: the scheduler in force, not always fifo.
        (Some(r), _) => {
            let now = fmt_nanos(r.basefee);
            vec![
                format!("{now} per cycle ({sched}: no lane basefee)"),
                format!("{now} per cycle ({sched})"),
                format!("{now} per cycle"),
                now,
            ]
        }
        (None, _) => vec!["—".into()],
    };
    let last = label.last().cloned().unwrap_or_default();
    let label = label
        .into_iter()
        .find(|l| l.chars().count() <= room)
        .unwrap_or(last);
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(head, theme.get("header")),
            Span::styled(label, theme.get("text")),
        ])),
        label_area,
    );
    if lo == hi {
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!("flat over these {} blocks", rows.len()),
                theme.get("dim"),
            )),
            line,
        );
        return;
    }
    let fees: Vec<u64> = rows
        .iter()
        .map(|r| u64::try_from(r.basefee).unwrap_or(u64::MAX))
        .collect();
    let fees = crate::tui::chart_window::squeeze(&fees, line.width as usize);
    frame.render_widget(
        Sparkline::default()
            .data(&fees)
            .style(theme.get("basefee_line")),
        line,
    );
}
