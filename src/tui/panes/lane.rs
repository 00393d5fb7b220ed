//! The execution lane over recent blocks (CIP-1 v3 §3, §5): which scheduler planned each
//! block (a marker where it switched), reserved and used cycles against the 50 % target, the
//! lane basefee in base units over the window, deferrals by reason, the p50 tip, tips and burn,
//! GC use. Under `fifo` the same figures FIFO has: lane use, deferrals, the cycle basefee.

use crate::tui::app::{App, Pane};
use crate::tui::model::{LaneRow, fmt_nanos};
use crate::tui::render::{pane_block, short_amount};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph, Sparkline};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let rows = &app.data.lane;
    let status = app.data.status.as_ref();
    let eip = status.is_some_and(|s| s.scheduler == "eip1559");
    let block = pane_block(
        format!("lane · {}", scheduler_title(app)),
        Pane::Lane,
        app,
        theme,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // Issue 34, item 9: the summary is packed whole value by whole value (never a number cut
    // mid-value) and takes the rows it needs before the chart, which keeps at least 2; what
    // does not fit ends the last line with `…` (a wider terminal shows it).
    let txt = theme.get("text");
    let head = theme.get("header");
    let warn = theme.get("warn");
    let last = rows.last();
    let mut groups: Vec<(&str, Vec<(String, bool)>)> = Vec::new();
    groups.push((
        "last ",
        match last {
            Some(r) => vec![
                (format!("#{} {}", r.height, r.scheduler), false),
                (
                    // The cycles the basefee followed (Spec note 152): consumed under
                    // eip1559 by default, else the budgets reserved.
                    format!(
                        "{} {} = {}.{:02}%",
                        r.utilisation_of,
                        short_amount(if r.utilisation_of == "consumed" {
                            r.cycles_used.into()
                        } else {
                            r.cycles_reserved.into()
                        }),
                        r.utilisation_bps / 100,
                        r.utilisation_bps % 100
                    ),
                    false,
                ),
                ("target 50%".into(), false),
                // The other reading's figure beside it.
                (
                    if r.utilisation_of == "consumed" {
                        format!("reserved {}", short_amount(r.cycles_reserved.into()))
                    } else {
                        format!("used {}", short_amount(r.cycles_used.into()))
                    },
                    false,
                ),
                (format!("timers selected {}", r.selected), false),
                (format!("fired {}", r.fired), false),
                // Issue 34, item 8: the block's own count (carried timers again each block).
                (
                    format!("deferred this block {}", r.deferred),
                    r.deferred > 0,
                ),
            ],
            None => vec![("no block yet".into(), false)],
        },
    ));
    groups.push((
        "tips ",
        if eip || rows.iter().any(|r| r.p50_tip.is_some()) {
            let tips: u128 = rows.iter().map(|r| r.tips).sum();
            let burned: u128 = rows.iter().map(|r| r.burned).sum();
            let lane_burned: u128 = rows.iter().map(|r| r.lane_burned).sum();
            vec![
                (
                    format!(
                        "p50 {} per cycle",
                        last.and_then(|r| r.p50_tip).map_or("—".into(), fmt_nanos)
                    ),
                    false,
                ),
                (format!("in window: tips {}", short_amount(tips)), false),
                (
                    format!(
                        "burned {} (lane {})",
                        short_amount(burned),
                        short_amount(lane_burned)
                    ),
                    false,
                ),
            ]
        } else {
            vec![(
                format!(
                    "— ({}: no tips, no lane basefee)",
                    status.map_or("fifo", |s| s.scheduler.as_str())
                ),
                false,
            )]
        },
    ));
    // Issue 34, item 8: these count `TimerDeferred` events over the lane window, recorded on
    // a timer's first deferral only (Spec note 147): a timer carried for 40 blocks counts once.
    groups.push((
        "first deferrals in window ",
        app.data
            .defer_reasons
            .iter()
            .map(|(r, n)| (format!("{r} {n}"), *n > 0))
            .collect(),
    ));
    groups.push((
        "gc ",
        vec![(
            format!(
                "{} cycles of {} last block",
                short_amount(last.map_or(0, |r| r.gc_cycles).into()),
                short_amount(status.map_or(0, |s| s.gc_cycles).into())
            ),
            false,
        )],
    ));
    let packed = pack(&groups, inner.width as usize);
    // The numbers first: the chart takes the rows left, drawn only when it has 3 or more.
    let summary_h = (packed.len() as u16).min(inner.height.saturating_sub(2));
    let [summary, chart, fee_label, fee] = Layout::vertical([
        Constraint::Length(summary_h),
        Constraint::Min(0),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    let shown_rows = summary_h as usize;
    let cut = packed.len() > shown_rows;
    let lines: Vec<Line> = packed
        .into_iter()
        .take(shown_rows)
        .enumerate()
        .map(|(i, parts)| {
            let mut spans: Vec<Span> = parts
                .into_iter()
                .map(|(t, kind)| match kind {
                    Part::Head => Span::styled(t, head),
                    Part::Warn => Span::styled(t, warn),
                    Part::Text => Span::styled(t, txt),
                })
                .collect();
            if cut && i + 1 == shown_rows {
                spans.push(Span::styled(" …", theme.get("dim")));
            }
            Line::from(spans)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), summary);

    let lane = status.map_or(1, |s| s.lane_cycles.max(1));
    let used: Vec<(f64, f64)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (i as f64, r.cycles_used as f64 * 100.0 / lane as f64))
        .collect();
    // The budgets the selected timers reserved; the basefee follows the used line by default
    // (CIP-1 v3 §5 as written, Spec note 152) and this one under `utilisation = reserved`.
    let reserved: Vec<(f64, f64)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (i as f64, r.cycles_reserved as f64 * 100.0 / lane as f64))
        .collect();
    // GC lane use against the GC budget of the config now (CIP-5 §6.5, CIP-1 v3 §9).
    let gc_budget = status.map_or(1, |s| s.gc_cycles.max(1));
    let gc: Vec<(f64, f64)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (i as f64, r.gc_cycles as f64 * 100.0 / gc_budget as f64))
        .collect();
    // One x step per sealed block (an outage's skipped heights take no width); the axis is
    // labelled with the first and last heights.
    let x1 = (rows.len().max(2) - 1) as f64;
    let h0 = rows.first().map_or(0, |r| r.height);
    let h1 = rows.last().map_or(0, |r| r.height);
    let ymax = used
        .iter()
        .chain(&reserved)
        .chain(&gc)
        .map(|p| p.1)
        .fold(100.0f64, f64::max);
    // The 50 % target line of CIP-1 v3 §5, and a vertical marker where the policy switched.
    let target = [(0.0, 50.0), (x1, 50.0)];
    let switch_at = rows
        .windows(2)
        .position(|w| w[0].scheduler != w[1].scheduler)
        .map(|i| i + 1);
    let switch: Vec<(f64, f64)> = switch_at
        .map(|i| {
            (0..=8)
                .map(|k| (i as f64, ymax * f64::from(k) / 8.0))
                .collect()
        })
        .unwrap_or_default();
    let switch_name = switch_at.map_or(String::new(), |i| {
        format!("{} from #{}", rows[i].scheduler, rows[i].height)
    });
    let mut sets = vec![
        Dataset::default()
            .name("gc %")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.get("gc_line"))
            .data(&gc),
        Dataset::default()
            .name("used %")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.get("dim"))
            .data(&used),
    ];
    if eip {
        sets.push(
            Dataset::default()
                .name("target 50%")
                .marker(Marker::Dot)
                .graph_type(GraphType::Line)
                .style(theme.get("dim"))
                .data(&target),
        );
    }
    if !switch.is_empty() {
        sets.push(
            Dataset::default()
                .name(switch_name)
                .marker(Marker::Dot)
                .graph_type(GraphType::Scatter)
                .style(theme.get("warn"))
                .data(&switch),
        );
    }
    sets.push(
        Dataset::default()
            .name("reserved %")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.get("utilisation_line"))
            .data(&reserved),
    );
    let c = Chart::new(sets)
        .x_axis(
            Axis::default()
                .bounds([0.0, x1])
                // The x labels are drawn below with the legend (issue 34, item 9).
                .style(theme.get("dim")),
        )
        // Issue 34, item 9: the legend is a line of its own above the chart (it never covers
        // the newest blocks, and shows at 120 columns where a legend box did not fit).
        .legend_position(None)
        .y_axis(
            Axis::default()
                .bounds([0.0, ymax])
                .labels(["0".to_string(), format!("{ymax:.0}%")])
                .style(theme.get("dim")),
        );
    if chart.height >= 3 {
        // The legend and units take the x axis's label row (issue 34, item 9): seen whenever
        // the chart is, never over the newest blocks.
        let [plot, labels] =
            Layout::vertical([Constraint::Min(2), Constraint::Length(1)]).areas(chart);
        frame.render_widget(c, plot);
        let right = format!("#{h1}");
        let rw = right.chars().count() as u16;
        let [left_area, right_area] =
            Layout::horizontal([Constraint::Min(0), Constraint::Length(rw)]).areas(labels);
        let mut legend = legend_line(theme, eip, !switch.is_empty(), lane, chart.width);
        legend
            .spans
            .insert(0, Span::styled(format!("#{h0} "), theme.get("dim")));
        frame.render_widget(Paragraph::new(legend), left_area);
        frame.render_widget(
            Paragraph::new(Line::styled(right, theme.get("dim"))),
            right_area,
        );
    }

    // The basefee over the window: the lane basefee under eip1559 (nanos per cycle, shown in
    // base units), the cycle basefee under fifo.
    let shown: Vec<&LaneRow> = rows.iter().rev().take(fee.width as usize).rev().collect();
    let fees: Vec<u64> = shown
        .iter()
        .map(|r| u64::try_from(r.basefee).unwrap_or(u64::MAX))
        .collect();
    let lo = shown.iter().map(|r| r.basefee).min().unwrap_or(0);
    let hi = shown.iter().map(|r| r.basefee).max().unwrap_or(0);
    // Whole values only (issue 34, item 9): the window's range goes first, then `next`, when
    // the line is short.
    let room = (fee_label.width as usize).saturating_sub("lane basefee ".len());
    let label = match (last, status.and_then(|s| s.lane_basefee)) {
        (Some(r), Some(next)) if eip => {
            let (now, next) = (fmt_nanos(r.basefee), fmt_nanos(next));
            [
                format!(
                    "{now} per cycle (next {next}, window {}..{})",
                    fmt_nanos(lo),
                    fmt_nanos(hi)
                ),
                format!("{now} per cycle (next {next})"),
                format!("{now} (next {next})"),
                now.clone(),
            ]
            .into_iter()
            .find(|l| l.chars().count() <= room)
            .unwrap_or(now)
        }
        // Issue 34, item 10: the scheduler in force, not always fifo.
        (Some(r), _) => format!(
            "{} per cycle ({}: no lane basefee)",
            fmt_nanos(r.basefee),
            status.map_or("fifo", |s| s.scheduler.as_str())
        ),
        (None, _) => "—".into(),
    };
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(if eip { "lane basefee " } else { "basefee " }, head),
            Span::styled(label, txt),
        ])),
        fee_label,
    );
    // A basefee that did not move over the window is said in words: a sparkline of equal
    // values is a solid bar that reads as a progress bar (issue 34, item 9).
    if lo == hi {
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!("flat over the last {} blocks", shown.len()),
                theme.get("dim"),
            )),
            fee,
        );
    } else {
        frame.render_widget(
            Sparkline::default()
                .data(&fees)
                .style(theme.get("basefee_line")),
            fee,
        );
    }
}

/// The chart's legend and units in one line: each series in its colour, what the y axis is a
/// share of, one x step per block; the longer words where the chart is wide.
fn legend_line(theme: &Theme, eip: bool, switch: bool, lane: u64, width: u16) -> Line<'static> {
    let wide = width >= 80;
    let mut spans = vec![
        Span::styled("▬reserved ", theme.get("utilisation_line")),
        Span::styled("▬used ", theme.get("dim")),
        Span::styled(
            if wide {
                "▬gc (of its budget) "
            } else {
                "▬gc "
            },
            theme.get("gc_line"),
        ),
    ];
    if eip && wide {
        spans.push(Span::styled("··target ", theme.get("dim")));
    }
    if switch && wide {
        spans.push(Span::styled("⁞switch ", theme.get("warn")));
    }
    spans.push(Span::styled(
        format!("% of {} per block", short_amount(lane.into())),
        theme.get("dim"),
    ));
    Line::from(spans)
}

#[derive(Clone, Copy)]
enum Part {
    Head,
    Text,
    Warn,
}

/// Packs each group (a header, then its values) into lines of `width`, a value never split:
/// a value that does not fit the rest of the line starts the next one (indented), and only a
/// value wider than a whole line is cut, with `…`.
fn pack(groups: &[(&str, Vec<(String, bool)>)], width: usize) -> Vec<Vec<(String, Part)>> {
    let mut out: Vec<Vec<(String, Part)>> = Vec::new();
    let w = width.max(8);
    for (header, values) in groups {
        let mut line = vec![(header.to_string(), Part::Head)];
        let mut used = header.chars().count();
        for (i, (v, hot)) in values.iter().enumerate() {
            let sep = if i == 0 { "" } else { " · " };
            let n = v.chars().count();
            if i > 0 && used + sep.len() + n > w {
                out.push(std::mem::take(&mut line));
                line.push(("  ".to_string(), Part::Text));
                used = 2;
            } else if !sep.is_empty() {
                line.push((sep.to_string(), Part::Text));
                used += 3;
            }
            let room = w.saturating_sub(used);
            let v = if n > room {
                crate::tui::panes::overlays::head(v, room)
            } else {
                v.clone()
            };
            used += v.chars().count();
            line.push((v, if *hot { Part::Warn } else { Part::Text }));
        }
        out.push(line);
    }
    out
}

/// `eip1559 since #1`, `fifo · eip1559 from #40`, or `fifo`.
pub fn scheduler_title(app: &App) -> String {
    match app.data.status.as_ref() {
        Some(s) => match (s.scheduler.as_str(), s.activation_height) {
            ("eip1559", Some(a)) => format!("eip1559 since #{a}"),
            (k, Some(a)) => format!("{k} · eip1559 from #{a}"),
            (k, None) => k.to_string(),
        },
        None => "—".into(),
    }
}
