//! The status bar (top) and the hint line (bottom).

use crate::tui::app::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let base = theme.get("status");
    let key = theme.get("status_key");
    let mut spans = vec![Span::styled(" cowboy-devnet ", key)];
    match &app.data.status {
        None => spans.push(Span::styled("  connecting…", base)),
        Some(s) => {
            let mut item = |label: &str, value: String| {
                spans.push(Span::styled(format!("  {label} "), base));
                spans.push(Span::styled(value, key));
            };
            item("#", s.height.to_string());
            item("mining", s.mining.label());
            item(
                "scheduler",
                match s.activation_height {
                    Some(h) => format!("{} (eip1559 at #{h})", s.scheduler),
                    None => s.scheduler.clone(),
                },
            );
            item(
                "basefee",
                format!(
                    "cycle {} cell {} lane {}",
                    s.cycle_basefee,
                    s.cell_basefee,
                    s.lane_basefee.map_or("—".into(), |l| l.to_string())
                ),
            );
            item("pending", s.pending_timers.to_string());
            item("rpc", s.rpc_address.clone().unwrap_or_else(|| "off".into()));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(base), area);
}

pub fn render_hints(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let line = match &app.toast {
        Some(t) => Line::from(Span::styled(
            format!(" {} ", t.text),
            theme.get(if t.error { "error" } else { "ok" }),
        )),
        None => {
            let mut spans = Vec::new();
            for (k, word) in app.keys.hints() {
                spans.push(Span::styled(format!(" {k}"), theme.get("hint_key")));
                spans.push(Span::styled(format!(" {word} "), theme.get("dim")));
            }
            Line::from(spans)
        }
    };
    frame.render_widget(Paragraph::new(line), area);
}
