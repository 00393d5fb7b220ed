//! Overlays: a timer's life, the schedule form, prompts (help, log, confirm: [`super::modal`]).

use crate::engine::TimerId;
use crate::tui::data::{TimerLife, TimerRow, fmt_nanos};
use crate::tui::form::{FormField, ScheduleForm};
use crate::tui::outcome::auction_line;
use crate::tui::prompt::Prompt;
use crate::tui::state::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Row, Table, Wrap};

/// A centred rectangle of at most `w` x `h` inside `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn frame_block<'a>(title: String, theme: &Theme) -> Block<'a> {
    Block::bordered()
        .title(Line::styled(format!(" {title} "), theme.get("title")))
        .border_style(theme.get("border_focus"))
}

pub fn loading(frame: &mut Frame, area: Rect, id: &TimerId, theme: &Theme) {
    let r = centered(area, 40, 3);
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(format!("loading timer {}…", id.short()))
            .block(frame_block("timer".into(), theme)),
        r,
    );
}

pub fn life(frame: &mut Frame, area: Rect, app: &App, l: &TimerLife, theme: &Theme) {
    let r = centered(
        area,
        area.width.saturating_sub(8).min(110),
        area.height.saturating_sub(4),
    );
    frame.render_widget(Clear, r);
    // A handler that reverted reads `reverted`, not `fired` (issue 23).
    let status = match crate::tui::panes::watch::outcome(l) {
        Some((_, "reverted", _)) => "fired, handler reverted".to_string(),
        _ => l.status.clone(),
    };
    let block = frame_block(life_title(app, l, &status), theme);
    let inner = block.inner(r);
    frame.render_widget(block, r);
    let lines = life_fields(app, l, status, theme);
    let [top, bottom] = Layout::vertical([
        Constraint::Length(lines.len() as u16 + 1),
        Constraint::Min(1),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(lines), top);
    life_timeline(frame, bottom, l, theme);
}

/// The life's title: the timer, its status, and whether it follows the chain.
fn life_title(app: &App, l: &TimerLife, status: &str) -> String {
    match l.at {
        // Issue 24: read as of the viewed height.
        Some(h) => format!(
            "timer {} · {status} · as of #{h} (Esc closes)",
            app.timer_label(&l.id)
        ),
        None => format!(
            "timer {} · {status} · follows the chain (Esc closes)",
            app.timer_label(&l.id)
        ),
    }
}

/// One `name   value` line of the life.
fn life_field(k: &str, v: String, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!(" {k:<16}"), theme.get("header")),
        Span::styled(v, theme.get("text")),
    ])
}

/// The life's fields: the record as scheduled, its fees, its deferrals.
fn life_fields(app: &App, l: &TimerLife, status: String, theme: &Theme) -> Vec<Line<'static>> {
    let field = |k: &str, v: String| life_field(k, v, theme);
    let mut lines = vec![field("id", l.id.to_string()), field("status", status)];
    if let Some(t) = &l.record {
        lines.extend([
            field(
                "actor",
                format!("{} ({})", app.data.label(&t.actor), t.actor),
            ),
            field(
                "fee payer",
                format!("{} ({})", app.data.label(&t.fee_payer), t.fee_payer),
            ),
            field(
                "height",
                format!("#{} (scheduled in #{})", t.height, t.schedule_block),
            ),
            field("expires_at", t.expires_at.to_string()),
            field("gas per fire", t.gas_limit.to_string()),
            field("max cost", t.max_cost.to_string()),
            field(
                "handler",
                format!("{} ({} payload bytes)", t.handler, t.payload_len),
            ),
        ]);
        lines.extend(fee_fields(app, t, theme));
    }
    // Issue 34, item 8: the same count as the fairness table's (Spec note 147).
    lines.push(field("first deferrals", l.deferrals.to_string()));
    lines
}

/// CIP-1 v3: the fee caps and tier as scheduled, the carry record, and where the bucket's
/// auction ranks it now (from the bucket view when it is the selected one); `— (fifo)`
/// otherwise.
fn fee_fields(app: &App, t: &TimerRow, theme: &Theme) -> Vec<Line<'static>> {
    let field = |k: &str, v: String| life_field(k, v, theme);
    let caps = |v: Option<u128>| v.map_or("GBA".to_string(), fmt_nanos);
    let cip1 = app
        .data
        .status
        .as_ref()
        .is_some_and(|s| s.lane_basefee.is_some())
        || t.max_fee_per_cycle.is_some()
        || t.max_priority_fee_per_cycle.is_some()
        || t.priority_tier.is_some()
        || t.carried > 0;
    if !cip1 {
        let fifo = crate::engine::SchedulerKind::before_activation();
        return vec![field("priority", format!("— ({fifo})"))];
    }
    vec![
        field(
            "fee caps",
            format!(
                "max fee {} · max priority fee {} per cycle",
                caps(t.max_fee_per_cycle),
                caps(t.max_priority_fee_per_cycle)
            ),
        ),
        field(
            "priority tier",
            t.priority_tier
                .map_or("— (tip: max priority fee or p50)".into(), |p| {
                    p.as_str().to_string()
                }),
        ),
        field(
            "carried",
            match &t.last_defer {
                Some(r) => format!("{} block(s), last deferred: {r}", t.carried),
                None => format!("{} block(s)", t.carried),
            },
        ),
        field("priority", priority_text(app, t)),
    ]
}

/// Where the bucket's auction ranks the timer now, when its bucket is the selected one.
fn priority_text(app: &App, t: &TimerRow) -> String {
    let ranked = app
        .data
        .bucket_timers
        .iter()
        .find(|b| b.id == t.id)
        .filter(|b| b.rank.is_some() || b.effective_priority.is_some());
    match ranked {
        Some(b) => match (b.effective_priority, b.rank) {
            (Some(p), Some(k)) => format!(
                "effective {} per cycle (× W) · rank {k} of {} in bucket #{}",
                fmt_nanos(p / 10_000),
                app.data.bucket_len(),
                b.height
            ),
            _ => "max fee below the lane basefee: waits (below_basefee)".into(),
        },
        None if app
            .data
            .status
            .as_ref()
            .is_some_and(|s| s.scheduler.facts().lane_basefee) =>
        {
            "select its bucket to see its rank".into()
        }
        None => format!(
            "— ({}: queue order)",
            crate::engine::SchedulerKind::before_activation()
        ),
    }
}

/// The life's timeline, the latest steps when it is longer than the screen.
fn life_timeline(frame: &mut Frame, area: Rect, l: &TimerLife, theme: &Theme) {
    let h = area.height.saturating_sub(1) as usize;
    let skip = l.timeline.len().saturating_sub(h);
    let rows: Vec<Row> = l
        .timeline
        .iter()
        .skip(skip)
        .map(|e| {
            Row::new(vec![
                Span::styled(format!("#{}", e.height), theme.get("dim")),
                Span::styled(e.what.clone(), theme.kind(&e.what)),
                Span::styled(e.reason.clone(), theme.get("text")),
            ])
        })
        .collect();
    frame.render_widget(
        Table::new(
            rows,
            [
                Constraint::Length(8),
                Constraint::Length(32),
                Constraint::Min(10),
            ],
        )
        .header(Row::new(vec!["height", "what", "why"]).style(theme.get("header"))),
        area,
    );
}

pub fn form(frame: &mut Frame, area: Rect, app: &App, f: &ScheduleForm, theme: &Theme) {
    let r = centered(area, 100, f.shown as u16 + 8);
    frame.render_widget(Clear, r);
    let block = frame_block(
        "schedule a timer (Enter sends, C-d dry run, Esc closes)".into(),
        theme,
    );
    let inner = block.inner(r);
    frame.render_widget(block, r);
    let mut lines = Vec::new();
    // The label column fits the longest label (`max_priority_fee_per_cycle`): a label that
    // overflowed its column wrapped its row at 80 columns.
    let label_w = FormField::ALL
        .iter()
        .map(|f| f.label().chars().count())
        .max()
        .unwrap_or(17)
        + 1;
    for (i, field) in FormField::ALL.iter().take(f.shown).enumerate() {
        let value = match field {
            FormField::Actor => app
                .data
                .actors
                .get(f.actor)
                .map_or("(no actor)".into(), |a| {
                    format!("◂ {} ▸", app.data.label(a))
                }),
            // A long value scrolls inside its field: the current one shows its end (where
            // typing goes), the others their start.
            _ if i == f.field => tail(f.value(*field), 24),
            _ => head(f.value(*field), 24),
        };
        let current = i == f.field;
        // The hint takes what is left of the line and is cut, never wrapped onto the border.
        let room = (inner.width as usize).saturating_sub(label_w + 1 + 25 + 2);
        lines.push(Line::from(vec![
            Span::styled(
                format!(" {:<w$}", field.label(), w = label_w),
                theme.get("header"),
            ),
            Span::styled(
                format!("{value:<24}{}", if current { "▏" } else { " " }),
                if current {
                    theme.get("selection")
                } else {
                    theme.get("text")
                },
            ),
            Span::styled(format!("  {}", head(field.hint(), room)), theme.get("dim")),
        ]));
    }
    lines.push(Line::from(""));
    match &f.estimate {
        Some(e) => {
            lines.push(Line::styled(
                format!(
                    " estimate: max cost {} per fire, fires at #{}",
                    e.max_cost, e.fire_height
                ),
                theme.get("ok"),
            ));
            // The auction standing `timer_estimate` gives (CIP-1 v3 §3 step 7).
            if let Some(a) = &e.auction {
                lines.push(Line::styled(
                    format!(" auction: {}", auction_line(a, e.funded())),
                    if a.would_be_selected && e.funded() {
                        theme.get("ok")
                    } else {
                        theme.get("warn")
                    },
                ));
            }
        }
        None => lines.push(Line::styled(" estimate: —", theme.get("dim"))),
    }
    // CIP-5 §5.4: a fee payer that cannot pay the fire's max cost loses the timer.
    if let Some(f) = f.estimate.as_ref().and_then(|e| e.funding.as_ref())
        && !f.funded
    {
        lines.push(Line::styled(
            format!(
                " fee payer {} holds {}, a fire needs up to {}: removed unfunded when due (CIP-5 §5.4)",
                app.data.label(&f.fee_payer),
                f.balance,
                f.needed
            ),
            theme.get("warn"),
        ));
    }
    if let Some(e) = &f.error {
        lines.push(Line::styled(format!(" {e}"), theme.get("error")));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

pub fn prompt(frame: &mut Frame, area: Rect, p: &Prompt, theme: &Theme) {
    // Issue 34, item 5: the answer to the last Enter (the error, or what was sent) comes
    // right under the input, before the help, and the box grows to hold the help wrapped, so
    // a long field list never pushes the error out of view.
    let width = 96u16.min(area.width.saturating_sub(2));
    let w = width.saturating_sub(6) as usize;
    let inner = width.saturating_sub(2).max(1) as usize;
    let rows = |t: &str| t.chars().count().div_ceil(inner).max(1) as u16;
    let mut lines = vec![Line::from(vec![
        Span::styled(" > ", theme.get("hint_key")),
        Span::styled(format!("{}▏", tail(&p.input, w)), theme.get("selection")),
    ])];
    let mut h = 1u16;
    let mut push = |lines: &mut Vec<Line<'static>>, text: String, style| {
        h += rows(&text);
        lines.push(Line::styled(text, style));
    };
    match (&p.sent, &p.error) {
        (Some(cmd), _) => push(
            &mut lines,
            format!(" sent {}, waiting for the answer…", cmd.method()),
            theme.get("warn"),
        ),
        (None, Some(e)) => push(&mut lines, format!(" {e}"), theme.get("error")),
        (None, None) => {}
    }
    if let Some((input, line)) = &p.estimate
        && *input == p.input
    {
        push(&mut lines, format!(" estimate: {line}"), theme.get("ok"));
    }
    push(&mut lines, format!(" {}", p.help), theme.get("dim"));
    push(
        &mut lines,
        " Enter sends · Esc closes".to_string(),
        theme.get("dim"),
    );
    let r = centered(area, width, (h + 2).max(8));
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(frame_block(p.title.clone(), theme)),
        r,
    );
}

/// The last `w` characters of `s` (a long value scrolls inside its field: the end, where
/// the cursor is, stays in view), with `…` when cut.
pub fn tail(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n <= w || w < 2 {
        return s.to_string();
    }
    let keep: String = s.chars().skip(n - (w - 1)).collect();
    format!("…{keep}")
}

/// The first `w` characters of `s`, with `…` when cut.
pub fn head(s: &str, w: usize) -> String {
    if s.chars().count() <= w || w < 2 {
        return s.to_string();
    }
    let keep: String = s.chars().take(w - 1).collect();
    format!("{keep}…")
}
