//! The execution lane over recent blocks: utilisation chart, basefee, GC use, p50 tip.

use crate::tui::app::{App, Pane};
use crate::tui::render::{pane_block, short_amount};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph, Sparkline};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let rows = &app.data.lane;
    let block = pane_block("lane".into(), Pane::Lane, app, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [summary, chart, fee_label, fee] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(4),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    let txt = theme.get("text");
    let head = theme.get("header");
    let last = rows.last();
    let deferred: u64 = rows.iter().map(|r| r.deferred).sum();
    let lines = vec![
        Line::from(vec![
            Span::styled("last ", head),
            Span::styled(
                match last {
                    Some(r) => format!(
                        "#{} used {} reserved {} ({}.{:02}%) fired {} deferred {}",
                        r.height,
                        short_amount(r.cycles_used.into()),
                        short_amount(r.cycles_reserved.into()),
                        r.utilisation_bps / 100,
                        r.utilisation_bps % 100,
                        r.fired,
                        r.deferred
                    ),
                    None => "no block yet".into(),
                },
                txt,
            ),
        ]),
        Line::from(vec![
            Span::styled("gc ", head),
            Span::styled(
                format!(
                    "{} cycles · deferrals in window {} · p50 tip {}",
                    short_amount(last.map_or(0, |r| r.gc_cycles).into()),
                    deferred,
                    last.and_then(|r| r.p50_tip)
                        .map_or("— (fifo)".into(), |t| t.to_string())
                ),
                txt,
            ),
        ]),
    ];
    frame.render_widget(Paragraph::new(lines), summary);

    let util: Vec<(f64, f64)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (i as f64, f64::from(r.utilisation_bps) / 100.0))
        .collect();
    let reserved: Vec<(f64, f64)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let lane = app.data.status.as_ref().map_or(1, |s| s.lane_cycles.max(1));
            (i as f64, r.cycles_reserved as f64 * 100.0 / lane as f64)
        })
        .collect();
    // GC lane use against the GC budget of the config now (CIP-5 §6.5, CIP-1 v3 §9).
    let gc_budget = app.data.status.as_ref().map_or(1, |s| s.gc_cycles.max(1));
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
    let ymax = util
        .iter()
        .chain(&reserved)
        .chain(&gc)
        .map(|p| p.1)
        .fold(100.0f64, f64::max);
    let c = Chart::new(vec![
        Dataset::default()
            .name("gc %")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.get("gc_line"))
            .data(&gc),
        Dataset::default()
            .name("reserved %")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.get("dim"))
            .data(&reserved),
        Dataset::default()
            .name("used %")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.get("utilisation_line"))
            .data(&util),
    ])
    .x_axis(
        Axis::default()
            .bounds([0.0, x1])
            .labels([format!("#{h0}"), format!("#{h1}")])
            .style(theme.get("dim")),
    )
    .hidden_legend_constraints((Constraint::Ratio(1, 3), Constraint::Ratio(1, 2)))
    .y_axis(
        Axis::default()
            .bounds([0.0, ymax])
            .labels(["0".to_string(), format!("{ymax:.0}%")])
            .style(theme.get("dim")),
    );
    frame.render_widget(c, chart);

    let fees: Vec<u64> = rows
        .iter()
        .rev()
        .take(fee.width as usize)
        .rev()
        .map(|r| u64::try_from(r.basefee).unwrap_or(u64::MAX))
        .collect();
    let basefee = last.map_or(0, |r| r.basefee);
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("basefee ", head),
            Span::styled(format!("{basefee} per cycle"), txt),
        ])),
        fee_label,
    );
    frame.render_widget(
        Sparkline::default()
            .data(&fees)
            .style(theme.get("basefee_line")),
        fee,
    );
}
