//! The execution lane over recent blocks (CIP-1 v3 §3, §5): which scheduler planned each
//! block (a marker where it switched), reserved and used cycles against the 50 % target, the
//! lane basefee in base units over the window, deferrals by reason, the p50 tip, tips and burn,
//! GC use. Under `fifo` the same figures FIFO has: lane use, deferrals, the cycle basefee.

use super::frame::pane_block;
use super::lane_chart::{self, CHART_MIN};
use super::lane_figures;
use crate::engine::SchedulerKind;
use crate::tui::chart_window;
use crate::tui::keys::KeyAction;
use crate::tui::state::{App, Pane};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let status = app.data.status.as_ref();
    let eip = status.is_some_and(|s| s.scheduler.facts().lane_basefee);
    // Issue 34: the charts' window of blocks in the title, with the keys that change it
    // where the title has the room.
    let window = chart_window::title(app.lane_window, Some(app.data.lane.len()));
    let sched = status.map_or("—", |s| s.scheduler.as_str());
    let keys = format!(
        "{}/{}",
        app.keys.keys_label(KeyAction::NarrowWindow),
        app.keys.keys_label(KeyAction::WidenWindow),
    );
    let full = format!("lane · {} · {window}", scheduler_title(app));
    let title = [
        format!("{full} {keys}"),
        full,
        format!("lane · {sched} · {window}"),
        format!("lane · {window}"),
    ]
    .into_iter()
    .find(|t| t.chars().count() + 4 <= area.width as usize)
    .unwrap_or_else(|| "lane".into());
    let block = pane_block(title, Pane::Lane, app, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // Issue 34, item 1: the figures in as many columns as the width takes, whole values
    // only, then the chart, then the basefee; a pane too short for every figure keeps the
    // chart its rows while it can and says which figures are hidden.
    let cells = lane_figures::cells(app, eip);
    let lines = lane_figures::grid(&cells, inner.width as usize);
    let (fig_h, chart_h) = split(inner.height, lines.len());
    let [figures, chart, fee] = Layout::vertical([
        Constraint::Length(fig_h),
        Constraint::Length(chart_h),
        Constraint::Length(BASEFEE_ROWS),
    ])
    .areas(inner);
    let shown = fig_h as usize;
    let cut = lines.len() > shown;
    let txt = theme.get("text");
    let warn = theme.get("warn");
    let mut out: Vec<Line> = lines
        .into_iter()
        .take(if cut { shown.saturating_sub(1) } else { shown })
        .map(|parts| {
            Line::from(
                parts
                    .into_iter()
                    .map(|(t, hot)| Span::styled(t, if hot { warn } else { txt }))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    if cut && shown > 0 {
        let zoom = app.keys.keys_label(KeyAction::Zoom);
        let note = lane_figures::hidden_note(&cells, shown - 1, inner.width as usize, &zoom);
        out.push(Line::styled(note, theme.get("dim")));
    }
    frame.render_widget(Paragraph::new(out), figures);
    lane_chart::lane(frame, chart, app, theme, eip);
    lane_chart::basefee(frame, fee, app, theme, eip);
}

/// The basefee's label and sparkline.
const BASEFEE_ROWS: u16 = 2;

/// `(figure rows, chart rows)` in a pane `height` rows high for `figures` rows of figures:
/// every figure and the chart when they fit; else the chart keeps [`CHART_MIN`] rows while
/// the figures keep 4; else the figures take what there is (the chart is under `z`).
fn split(height: u16, figures: usize) -> (u16, u16) {
    let avail = height.saturating_sub(BASEFEE_ROWS);
    let need = u16::try_from(figures).unwrap_or(u16::MAX);
    if avail >= need.saturating_add(CHART_MIN) {
        (need, avail - need)
    } else if avail >= CHART_MIN + 4 {
        (avail - CHART_MIN, CHART_MIN)
    } else {
        (avail, 0)
    }
}

/// `eip1559 since #1`, `fifo · eip1559 from #40`, or `fifo`.
pub fn scheduler_title(app: &App) -> String {
    let after = SchedulerKind::after_activation();
    match app.data.status.as_ref() {
        Some(s) => match (s.scheduler, s.activation_height) {
            (k, Some(a)) if k == after => format!("{after} since #{a}"),
            (k, Some(a)) => format!("{k} · {after} from #{a}"),
            (k, None) => k.to_string(),
        },
        None => "—".into(),
    }
}
