//! Calendar-queue tiers (CIP-1 v3 §2): ring occupancy, epoch buckets, overflow, maintenance.

use super::frame::pane_block;
use crate::tui::state::{App, Pane};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Sparkline};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let t = &app.data.tiers;
    let block = pane_block("calendar queue tiers".into(), Pane::Tiers, app, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [label, spark, text] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(2),
        Constraint::Length(3),
    ])
    .areas(inner);
    let w = (spark.width as usize).min(t.ring.len());
    let dim = theme.get("dim");
    let txt = theme.get("text");
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("ring ", theme.get("header")),
            Span::styled(
                format!(
                    "{} timers to #{}; per height, the next {} from #{}:",
                    t.ring_total,
                    t.ring_start + t.ring.len() as u64,
                    w,
                    t.ring_start
                ),
                txt,
            ),
        ])),
        label,
    );
    let data: Vec<u64> = t.ring.iter().take(w).map(|c| u64::from(*c)).collect();
    frame.render_widget(
        Sparkline::default()
            .data(&data)
            .style(theme.get("tier_ring")),
        spark,
    );
    let epochs: Vec<String> = t
        .epoch_buckets
        .iter()
        .filter(|(_, c)| *c > 0)
        .take(6)
        .map(|(h, c)| format!("#{h}:{c}"))
        .collect();
    let overflow: Vec<String> = t
        .overflow_epochs
        .iter()
        .take(4)
        .map(|(h, c)| format!("#{h}:{c}"))
        .collect();
    let root = t
        .overflow_root
        .map_or("—".into(), |r| format!("0x{}…", &r.to_string()[2..10]));
    let lines = vec![
        Line::from(vec![
            Span::styled("epoch ", theme.get("header")),
            Span::styled(
                format!(
                    "{} timers in {} buckets ",
                    t.epoch_total,
                    t.epoch_buckets.len()
                ),
                txt,
            ),
            Span::styled(
                if epochs.is_empty() {
                    "(all empty)".into()
                } else {
                    epochs.join(" ")
                },
                dim,
            ),
        ]),
        Line::from(vec![
            Span::styled("overflow ", theme.get("header")),
            Span::styled(format!("{} timers, root {root} ", t.overflow_size), txt),
            Span::styled(overflow.join(" "), dim),
        ]),
        Line::from(vec![
            Span::styled("maintenance ", theme.get("header")),
            Span::styled(
                format!(
                    "next #{} · next epoch #{} · moved inward last block: {}",
                    t.next_maintenance, t.next_epoch, t.last_migrated
                ),
                if t.last_migrated > 0 {
                    theme.get("warn")
                } else {
                    txt
                },
            ),
        ]),
    ];
    frame.render_widget(Paragraph::new(lines), text);
}
