//! The raw view (`v`, issue 34): every field of a timer or an event, the payload as hex and
//! decoded where it is UTF-8 (pretty-printed where it is JSON). `y` copies it (OSC 52).

use crate::tui::data::{EventRow, TimerLife, fmt_nanos};
use crate::tui::state::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

/// A timer's raw lines.
pub fn timer_lines(l: &TimerLife) -> Vec<String> {
    let mut v = vec![
        format!("timer_id: {}", l.id),
        format!("status: {}", l.status),
        format!("first_deferrals: {}", l.deferrals),
    ];
    if let Some(h) = l.at {
        v.push(format!("as_of: #{h}"));
    }
    if let Some(r) = &l.record {
        let opt = |o: Option<u128>| o.map_or("-".to_string(), fmt_nanos);
        v.extend([
            format!("actor: {}", r.actor),
            format!("fee_payer: {}", r.fee_payer),
            format!("height: {}", r.height),
            format!("schedule_block: {}", r.schedule_block),
            format!("gas_limit: {}", r.gas_limit),
            format!("expires_at: {}", r.expires_at),
            format!("handler: {}", r.handler),
            format!("payload_len: {}", r.payload_len),
            format!("max_cost: {}", r.max_cost),
            format!("max_fee_per_cycle: {}", opt(r.max_fee_per_cycle)),
            format!(
                "max_priority_fee_per_cycle: {}",
                opt(r.max_priority_fee_per_cycle)
            ),
            format!(
                "priority_tier: {}",
                r.priority_tier.map_or("-", |t| t.as_str())
            ),
            format!(
                "effective_priority: {}",
                opt(r.effective_priority.map(|p| p / 10_000))
            ),
            format!("rank: {}", r.rank.map_or("-".into(), |k| k.to_string())),
            format!("carried: {}", r.carried),
            format!("last_defer: {}", r.last_defer.as_deref().unwrap_or("-")),
        ]);
    }
    match (&l.payload, &l.payload_note) {
        (Some(p), note) => {
            v.extend(note.iter().map(|n| format!("payload_from: {n}")));
            v.extend(payload_lines(p));
        }
        (None, Some(note)) => v.push(format!("payload: {note}")),
        (None, None) => {
            v.push("payload: (not kept once the timer left; its length is above)".into())
        }
    }
    for e in &l.timeline {
        v.push(format!("event #{} {} {}", e.height, e.what, e.reason));
    }
    v
}

/// The payload as hex, and decoded: JSON pretty-printed, else UTF-8 text.
pub fn payload_lines(p: &[u8]) -> Vec<String> {
    let hex: String = p.iter().map(|b| format!("{b:02x}")).collect();
    let mut v = vec![format!("payload_hex: 0x{hex}")];
    match std::str::from_utf8(p) {
        Ok(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(j) if !text.trim().is_empty() => {
                v.push("payload_json:".into());
                let pretty = serde_json::to_string_pretty(&j).unwrap_or_default();
                v.extend(pretty.lines().map(|l| format!("  {l}")));
            }
            _ => v.push(format!("payload_utf8: {text:?}")),
        },
        Err(_) => v.push("payload_utf8: (not UTF-8)".into()),
    }
    v
}

/// An event's raw lines: its kind, height, every field, its text.
pub fn event_lines(e: &EventRow) -> Vec<String> {
    let mut v = vec![format!("kind: {}", e.kind), format!("height: {}", e.height)];
    if let Some(t) = e.timer {
        v.push(format!("timer_id: {t}"));
    }
    if let Some(a) = e.actor {
        v.push(format!("actor: {a}"));
    }
    v.extend(
        e.fields
            .split_whitespace()
            .map(|f| match f.split_once('=') {
                Some((k, val)) => format!("{k}: {val}"),
                None => f.to_string(),
            }),
    );
    v.push(format!("text: {}", e.text));
    v
}

/// The raw lines of what the open overlay shows, if it is a life or an event in raw mode.
pub fn raw_of(app: &App) -> Option<(String, Vec<String>)> {
    if !app.raw {
        return None;
    }
    match &app.overlay {
        crate::tui::state::Overlay::Life(l) => Some((
            format!("raw · timer {}", app.timer_label(&l.id)),
            timer_lines(l),
        )),
        crate::tui::state::Overlay::Event(e) => Some((
            format!("raw · event {} #{}", e.kind, e.height),
            event_lines(e),
        )),
        _ => None,
    }
}

/// Draws the raw view over `area`.
pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) -> bool {
    let Some((title, lines)) = raw_of(app) else {
        return false;
    };
    let r = Rect::new(
        area.x + 2,
        area.y + 1,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    frame.render_widget(Clear, r);
    let block = Block::bordered()
        .title(Line::styled(
            format!(" {title} · y copies it · v: back · Esc closes "),
            theme.get("title"),
        ))
        .border_style(theme.get("border_focus"));
    let text: Vec<Line> = lines
        .into_iter()
        .map(|l| Line::styled(l, theme.get("text")))
        .collect();
    frame.render_widget(
        Paragraph::new(text).wrap(Wrap { trim: false }).block(block),
        r,
    );
    true
}
