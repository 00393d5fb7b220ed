//! The CIP-5 drafts' pane (issue 22), in the lane pane's place under `cip5-draft` /
//! `cip5-draft-zh` (there is no timer lane under the drafts): the Globalbox head first in its
//! frozen order (English §5.3, §8.3) with each fire's score, the last block's quota skips and
//! Mailbox size, then the watch index (English §5.2): each watch's keys or prefixes, its fires
//! (`fire_seq`) and its undelivered hit.

use crate::engine::SchedulerKind;
use crate::node::DraftView;
use crate::tui::app::{App, Pane};
use crate::tui::render::{pane_block, short_amount};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, Table};

/// A score (Q·2^96 fixed point, English §8.1) in whole bid units, shortened.
fn score_units(score: u128) -> String {
    short_amount(score >> 96)
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, d: &DraftView, theme: &Theme) {
    let english = d.scheduler == SchedulerKind::Cip5Draft;
    // The most telling first: a narrow pane cuts the title's end.
    let mut title = format!(
        "{} · quota skips {} · mailbox {}",
        d.scheduler,
        d.quota_skips,
        d.mailbox.len()
    );
    if english {
        title.push_str(&format!(" · globalbox {}", d.globalbox.len()));
    }
    let block = pane_block(title, Pane::Lane, app, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(inner);
    let dim = theme.get("dim");
    if d.globalbox.is_empty() {
        let msg = if english {
            "globalbox empty"
        } else {
            "no globalbox (zh): candidates re-sorted every block"
        };
        frame.render_widget(Paragraph::new(Line::styled(msg, dim)), top);
    } else {
        let rows = d
            .globalbox
            .iter()
            .enumerate()
            .take(top.height.saturating_sub(1) as usize)
            .map(|(i, g)| {
                Row::new(vec![
                    Cell::from(format!("{}", i + 1)),
                    Cell::from(g.timer_id.short()),
                    Cell::from(app.data.label(&g.target)),
                    Cell::from(g.kind.clone()),
                    Cell::from(score_units(g.score)),
                    Cell::from(g.anchor.to_string()),
                ])
            })
            .collect::<Vec<_>>();
        let t = Table::new(
            rows,
            [
                Constraint::Length(3),
                Constraint::Length(10),
                Constraint::Length(10),
                Constraint::Length(7),
                Constraint::Length(6),
                Constraint::Length(7),
            ],
        )
        .header(Row::new(["#", "timer", "target", "kind", "score", "anchor"]).style(dim));
        frame.render_widget(t, top);
    }
    if d.watches.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled("no state watches", dim)),
            bottom,
        );
        return;
    }
    let rows = d
        .watches
        .iter()
        .take(bottom.height.saturating_sub(1) as usize)
        .map(|w| {
            Row::new(vec![
                Cell::from(w.timer_id.short()),
                Cell::from(app.data.label(&w.target)),
                Cell::from(w.keys.join(",")),
                Cell::from(w.fire_seq.to_string()),
                Cell::from(w.hit.as_ref().map_or("-".into(), |h| h.height.to_string())),
            ])
        })
        .collect::<Vec<_>>();
    let t = Table::new(
        rows,
        [
            Constraint::Length(10),
            Constraint::Length(10),
            Constraint::Min(6),
            Constraint::Length(5),
            Constraint::Length(6),
        ],
    )
    .header(Row::new(["watch", "target", "keys", "fires", "hit"]).style(dim));
    frame.render_widget(t, bottom);
}
