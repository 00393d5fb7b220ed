//! The watch strip (`w`, issue 23): one watched timer's life as a line pinned under the
//! status bar, `scheduled → due → deferred ×n (reasons) → fired / reverted / expired /
//! unfunded / cancelled`, kept after the timer leaves. Its rows in the buckets and the feed are
//! highlighted with [`watched`]. Above it, the story line of a fixture played live.

use crate::engine::TimerId;
use crate::tui::data::TimerLife;
use crate::tui::state::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The style of a watched timer's rows.
pub fn watched(theme: &Theme) -> Style {
    theme
        .get("warn")
        .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
}

/// How a timer's life ended, or `None` while it is pending: a fire whose handler reverted
/// is `reverted`, not `fired`.
pub fn outcome(l: &TimerLife) -> Option<(u64, &'static str, String)> {
    for e in l.timeline.iter().rev() {
        let out = match e.what.as_str() {
            "TimerFired" if e.reason.starts_with("reverted") => "reverted",
            "TimerFired" => "fired",
            "TimerExpired" => "expired",
            "TimerCancelledInsufficientFunds" => "unfunded",
            "TimerCancelled" => "cancelled",
            "TimerCancelledByGovernance" if !e.reason.contains("no such timer") => {
                "cancelled by governance"
            }
            _ => continue,
        };
        return Some((e.height, out, e.reason.clone()));
    }
    None
}

/// The steps of a timer's life as the strip writes them.
pub fn timeline_steps(l: &TimerLife) -> Vec<(String, &'static str)> {
    let mut steps: Vec<(String, &'static str)> = Vec::new();
    if let Some(s) = l.timeline.iter().find(|e| e.what == "TimerScheduled") {
        steps.push((format!("scheduled #{}", s.height), "ok"));
    }
    if let Some(r) = &l.record {
        steps.push((format!("due #{}", r.height), "text"));
    }
    let reasons: Vec<&str> = l
        .timeline
        .iter()
        .filter(|e| e.what == "TimerDeferred")
        .map(|e| e.reason.split(':').next().unwrap_or("").trim())
        .collect();
    if !reasons.is_empty() {
        let mut uniq: Vec<(&str, usize)> = Vec::new();
        for r in &reasons {
            match uniq.iter_mut().find(|(n, _)| n == r) {
                Some(u) => u.1 += 1,
                None => uniq.push((r, 1)),
            }
        }
        let last = l
            .timeline
            .iter()
            .rev()
            .find(|e| e.what == "TimerDeferred")
            .map_or(0, |e| e.height);
        steps.push((
            format!(
                "deferred ×{} ({}) last #{last}",
                reasons.len(),
                uniq.iter()
                    .map(|(n, c)| if *c > 1 {
                        format!("{n} ×{c}")
                    } else {
                        n.to_string()
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "warn",
        ));
    }
    match outcome(l) {
        Some((h, what, why)) => {
            let style = match what {
                "fired" => "ok",
                _ => "error",
            };
            let why = why
                .strip_prefix("ok: ")
                .or_else(|| why.strip_prefix("reverted: "))
                .unwrap_or(&why)
                .to_string();
            steps.push((
                if why.is_empty() {
                    format!("{what} #{h}")
                } else {
                    format!("{what} #{h} ({why})")
                },
                style,
            ));
        }
        None if l.status == "pending" => steps.push(("pending".into(), "dim")),
        None => steps.push((l.status.clone(), "dim")),
    }
    steps
}

/// The strip's line of the newest watched timer.
pub fn strip_line(app: &App, id: &TimerId, theme: &Theme) -> Line<'static> {
    life_line(app, id, app.watch_life.as_deref(), theme)
}

/// A watched timer's line, from its life as last read.
pub fn life_line(
    app: &App,
    id: &TimerId,
    life: Option<&TimerLife>,
    theme: &Theme,
) -> Line<'static> {
    let mut spans = vec![Span::styled(
        format!(" watch {} ", app.timer_label(id)),
        watched(theme),
    )];
    // Issue 24: as of the viewed height.
    if let Some(h) = life
        .filter(|l| l.record.is_some() || !l.timeline.is_empty())
        .and_then(|l| l.at)
    {
        spans.push(Span::styled(format!("as of #{h}: "), theme.get("warn")));
    }
    match life {
        Some(l) if l.id == *id => {
            for (i, (text, style)) in timeline_steps(l).into_iter().enumerate() {
                if i > 0 {
                    spans.push(Span::styled(" → ", theme.get("dim")));
                }
                spans.push(Span::styled(text, theme.get(style)));
            }
        }
        _ => spans.push(Span::styled("reading its life…", theme.get("dim"))),
    }
    Line::from(spans)
}

/// The story line: the newest step or expectation of the fixture being played.
pub fn story_line(app: &App, theme: &Theme) -> Option<Line<'static>> {
    let it = app.story.last()?;
    let failed = crate::tui::story::failures(&app.story);
    let mut spans = vec![Span::styled(" story ", theme.get("status_key"))];
    if let Some(h) = it.height {
        spans.push(Span::styled(format!("#{h} "), theme.get("dim")));
    }
    // Issue 34, item 13: `demo:111` is the fixture and the line of its step: said so.
    let text = match fixture_ref(&it.text) {
        Some((name, line, rest)) => {
            spans.push(Span::styled(
                format!("{name}.toml line {line}: "),
                theme.get("dim"),
            ));
            rest.to_string()
        }
        None => it.text.clone(),
    };
    spans.push(Span::styled(
        text,
        theme.get(if it.ok { "text" } else { "error" }),
    ));
    if let Some(failed) = failed {
        spans.push(Span::styled(
            format!("  ({failed}: ! lists each)"),
            theme.get("error"),
        ));
    }
    Some(Line::from(spans))
}

/// A story step's leading `fixture:line` reference (`demo:111 crowd schedules ...`): the
/// fixture's name, the line and the rest.
pub fn fixture_ref(text: &str) -> Option<(&str, &str, &str)> {
    let (first, rest) = text.split_once(' ')?;
    let (name, line) = first.split_once(':')?;
    let ok = !name.is_empty()
        && !line.is_empty()
        && line.chars().all(|c| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    ok.then_some((name, line, rest))
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let mut lines = Vec::new();
    if let Some(l) = story_line(app, theme) {
        lines.push(l);
    }
    // Issue 34: the pinned watches, oldest first, then the newest.
    for (id, life) in &app.pinned {
        lines.push(life_line(app, id, life.as_deref(), theme));
    }
    if let Some(id) = &app.watch {
        lines.push(strip_line(app, id, theme));
    }
    frame.render_widget(Paragraph::new(lines), area);
}
