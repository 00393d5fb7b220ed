//! The confirmation modal, the message log (`!`), a feed row's detail and the help (`?`): the help scrolls and
//! explains the focused pane and its columns first, then that pane's keys, then the global
//! keys, then the other panes (as lazygit's per-view help).

use crate::tui::data::EventRow;
use crate::tui::keys::KeyAction;
use crate::tui::panes::overlays::centered;
use crate::tui::prompt::Confirm;
use crate::tui::state::{App, Pane};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

fn frame_block<'a>(title: String, theme: &Theme) -> Block<'a> {
    Block::bordered()
        .title(Line::styled(format!(" {title} "), theme.get("title")))
        .border_style(theme.get("border_focus"))
}

/// A destructive command's confirmation: what it acts on, and Cancel (focused first) / yes.
pub fn confirm(frame: &mut Frame, area: Rect, c: &Confirm, theme: &Theme) {
    let width = c
        .lines
        .iter()
        .map(|l| l.chars().count() as u16 + 4)
        .max()
        .unwrap_or(40)
        .clamp(44, area.width.saturating_sub(4));
    let r = centered(area, width, c.lines.len() as u16 + 6);
    frame.render_widget(Clear, r);
    let mut lines: Vec<Line> = c
        .lines
        .iter()
        .map(|l| Line::styled(format!(" {l}"), theme.get("text")))
        .collect();
    lines.push(Line::from(""));
    let button = |text: &str, focused: bool| {
        Span::styled(
            format!(" [ {text} ] "),
            if focused {
                theme.get("selection")
            } else {
                theme.get("dim")
            },
        )
    };
    lines.push(Line::from(vec![
        Span::raw(" "),
        // "Back", not "Cancel": beside `[ cancel the timer ]` the word would name both
        // answers (issue 34, item 13).
        button("Back", !c.yes_focused),
        Span::raw("  "),
        button(&c.yes, c.yes_focused),
    ]));
    lines.push(Line::styled(
        " ←/→ choose · Enter · y yes · n/Esc back",
        theme.get("dim"),
    ));
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(frame_block(format!("{}?", c.title), theme)),
        r,
    );
}

/// A scrollable text overlay: `scroll` is clamped so the last page stays full, and the last
/// first line is kept in `app.scroll_max` for the scroll keys (issue 34, item 1). The range
/// counts lines (a long message wraps over several).
pub(crate) fn scrolled(
    frame: &mut Frame,
    r: Rect,
    title: String,
    lines: Vec<Line>,
    app: &App,
    theme: &Theme,
) {
    frame.render_widget(Clear, r);
    let h = r.height.saturating_sub(2) as usize;
    let max = lines.len().saturating_sub(h);
    app.scroll_max.set(Some(max.min(u16::MAX as usize) as u16));
    let top = (app.scroll as usize).min(max);
    let more = if max > 0 {
        format!(
            "{title} · lines {}-{} of {} · ↑/↓ PgUp/PgDn Home/End",
            top + 1,
            (top + h).min(lines.len()),
            lines.len()
        )
    } else {
        title
    };
    let shown: Vec<Line> = lines.into_iter().skip(top).take(h).collect();
    frame.render_widget(Paragraph::new(shown).block(frame_block(more, theme)), r);
}

/// The message log: every status-line message in full, wrapped, newest last.
pub fn log(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let r = centered(
        area,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    let w = r.width.saturating_sub(3).max(20) as usize;
    let mut lines: Vec<Line> = Vec::new();
    if app.log.is_empty() {
        lines.push(Line::styled(" no messages yet", theme.get("dim")));
    }
    for e in &app.log {
        let style = theme.get(if e.error { "error" } else { "text" });
        let text = format!("#{:<6} {}", e.height, e.text);
        let chars: Vec<char> = text.chars().collect();
        for chunk in chars.chunks(w) {
            let s: String = chunk.iter().collect();
            lines.push(Line::styled(format!(" {s}"), style));
        }
    }
    scrolled(
        frame,
        r,
        format!(
            "{} · ! or Esc closes",
            plural(app.log.len(), "message", "messages")
        ),
        lines,
        app,
        theme,
    );
}

/// A feed row's detail: the event in words, then each `name=value` field on a line of its own
/// (values wrapped at the width, nothing cut).
pub fn event(frame: &mut Frame, area: Rect, app: &App, e: &EventRow, theme: &Theme) {
    let r = centered(area, area.width.saturating_sub(4).min(100), 16);
    let w = r.width.saturating_sub(3).max(20) as usize;
    let mut lines: Vec<Line> = Vec::new();
    let wrap = |text: &str, style, lines: &mut Vec<Line<'static>>| {
        let chars: Vec<char> = text.chars().collect();
        for chunk in chars.chunks(w.max(1)) {
            lines.push(Line::styled(
                format!(" {}", chunk.iter().collect::<String>()),
                style,
            ));
        }
    };
    wrap(&e.text, theme.get("text"), &mut lines);
    lines.push(Line::from(""));
    wrap(
        &format!("block    #{} (the block the event is in)", e.height),
        theme.get("dim"),
        &mut lines,
    );
    wrap(
        &format!("kind     {}", e.kind),
        theme.get("dim"),
        &mut lines,
    );
    if let Some(a) = &e.actor {
        wrap(
            &format!("actor    {} ({a})", app.data.label(a)),
            theme.get("dim"),
            &mut lines,
        );
    }
    for (name, value) in fields(&e.fields) {
        // A timer event's `height` is the timer's (its fire height), not the block's.
        let name = if name == "height" {
            "fires at".to_string()
        } else {
            name
        };
        wrap(&format!("{name:<8} {value}"), theme.get("text"), &mut lines);
    }
    scrolled(
        frame,
        r,
        format!("event at #{} · Esc closes", e.height),
        lines,
        app,
        theme,
    );
}

/// `name=value` pairs of a feed row's fields (a value may hold spaces when it is quoted or
/// bracketed; anything else splits at spaces).
fn fields(s: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for word in s.split(' ').filter(|w| !w.is_empty()) {
        match word.split_once('=') {
            Some((k, v))
                if !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') =>
            {
                out.push((k.to_string(), v.to_string()))
            }
            _ => match out.last_mut() {
                Some(last) => {
                    last.1.push(' ');
                    last.1.push_str(word);
                }
                None => out.push((String::new(), word.to_string())),
            },
        }
    }
    out
}

/// What a pane shows, line by line (the `?` help).
pub fn pane_help(p: Pane) -> (&'static str, &'static [&'static str]) {
    match p {
        Pane::Buckets => (
            "buckets",
            &[
                "Coming heights with timers due (left) and the selected bucket's timers in",
                "execution order (right).",
                "  height   the block that will fire them",
                "  timers   how many are due there",
                "  gas      their fire budgets summed (cycles they reserve in the lane)",
                "  fits     yes: the sum fits the timer lane; NO: some will be deferred",
                "  #        execution rank (eip1559: by effective priority; - below basefee)",
                "  id       the timer's fixture label, or the first 8 hex digits of its id",
                "  prio×W   effective priority per cycle: the tip it bids times W(actor)",
                "           (CIP-1 v3 §3); <basefee: its max fee is below the lane basefee",
                "  expires  expires_at: removed unfired after this height",
                "  maxcost  the most one fire may cost its payer at today's basefees",
                "  carried  blocks it has been deferred so far, and the last reason",
                "  fees     its tier, or max fee / max tip per cycle, or GBA (priced at fire)",
                "  payer    who pays the fire (the fee payer)",
            ],
        ),
        Pane::Tiers => (
            "calendar queue tiers",
            &[
                "Where pending timers wait (CIP-1 v3 §2): the ring holds the next heights",
                "one slot each; the epoch queue holds later epochs; the overflow set holds",
                "the rest under a Merkle root. Maintenance moves timers inward each block.",
            ],
        ),
        Pane::Lane => (
            "lane",
            &[
                "The timer lane of recent blocks (CIP-1 v3 §3, §5): how full it was,",
                "the lane basefee it set, what fired and what was deferred, and why.",
                "  used/reserved  cycles the fires used / pre-charged",
                "  deferred       timers carried to a later block, by reason: lane (did not",
                "                 fit), outbid, over_cap, below_basefee, gc_budget",
                "  tips, burned   paid to the proposer / burned by the fires",
                "The charts cover the window in the title: < and > step it through",
                "32, 64, 128, 256 blocks and all the node keeps.",
                "Under cip5-draft / cip5-draft-zh (no lane) it shows the drafts' state:",
                "  quota skips    candidates the fire quotas left in the last block",
                "  mailbox        fires the last block delivered",
                "  globalbox      (cip5-draft) queued fires, head first, order frozen:",
                "                 #, timer, target, kind, score (in whole bid units:",
                "                 W_age·age + W_bid·bid at insertion), anchor (due or hit",
                "                 height)",
                "  watches        each state watch: its keys or prefixes, fires so far",
                "                 (fire_seq), hit: the height of its undelivered hit",
                "  and, in the rows the lists leave, the fires per block over the window",
            ],
        ),
        Pane::Fairness => (
            "fairness",
            &[
                "Each actor's share of the lane over the fairness window (CIP-1 v3 §8).",
                "  W          the actor's weight, 1.00..2.00: actors with fewer recent",
                "             fires than the median get more (priority is multiplied by W)",
                "  fires      fires in the window",
                "  deferrals  deferrals in the window",
                "  pending    timers it has waiting",
                "o sorts by the next column; y copies the selected actor's address.",
            ],
        ),
        Pane::Events => (
            "events",
            &[
                "Every event of the sealed blocks, newest at the bottom, as the headless run",
                "prints them. ↑ selects an event (the feed then holds it), Enter opens its",
                "timer's life (an event without a timer: its detail, every field), Esc",
                "follows the newest again. / filters: words match the kind, the actor or",
                "the timer id; kind: actor: timer: narrow a word.",
            ],
        ),
    }
}

/// The keys that act on a pane's selection, listed first under it.
fn pane_keys(p: Pane) -> &'static [KeyAction] {
    match p {
        Pane::Buckets => &[
            KeyAction::Up,
            KeyAction::Down,
            KeyAction::Right,
            KeyAction::Left,
            KeyAction::Select,
            KeyAction::Cancel,
            KeyAction::Extend,
            KeyAction::Watch,
            KeyAction::Copy,
        ],
        Pane::Events => &[
            KeyAction::Up,
            KeyAction::Down,
            KeyAction::Select,
            KeyAction::Filter,
            KeyAction::PauseFeed,
            KeyAction::Cancel,
            KeyAction::Watch,
            KeyAction::Copy,
        ],
        Pane::Fairness => &[
            KeyAction::Up,
            KeyAction::Down,
            KeyAction::Sort,
            KeyAction::Copy,
        ],
        Pane::Tiers | Pane::Lane => &[],
    }
}

/// The help's lines for the focused pane.
pub fn help_lines(app: &App, theme: &Theme) -> Vec<Line<'static>> {
    let head = theme.get("header");
    let dim = theme.get("dim");
    let key_line = |a: KeyAction, help: &'static str| {
        Line::from(vec![
            Span::styled(
                format!("  {:<14}", app.keys.keys_label(a)),
                theme.get("hint_key"),
            ),
            Span::styled(help, theme.get("text")),
        ])
    };
    let mut lines = Vec::new();
    let (name, text) = pane_help(app.focus);
    lines.push(Line::styled(format!(" {name} (focused)"), head));
    lines.extend(
        text.iter()
            .map(|t| Line::styled(format!("  {t}"), theme.get("text"))),
    );
    let mine = pane_keys(app.focus);
    if !mine.is_empty() {
        lines.push(Line::from(""));
        lines.push(Line::styled(format!(" keys in {name}"), head));
        for b in app
            .keys
            .bindings()
            .iter()
            .filter(|b| mine.contains(&b.action))
        {
            lines.push(key_line(b.action, b.help));
        }
    }
    lines.push(Line::from(""));
    lines.push(Line::styled(" global keys", head));
    for b in app
        .keys
        .bindings()
        .iter()
        .filter(|b| !mine.contains(&b.action))
    {
        lines.push(key_line(b.action, b.help));
    }
    lines.push(Line::from(""));
    lines.push(Line::styled(" text fields", head));
    lines.push(Line::styled(
        "  forms: Tab/↓ next · S-Tab/↑ previous · ←/→ choose · C-u clear · Enter send · Esc close",
        dim,
    ));
    lines.push(Line::styled(
        "  governance: Tab completes commands and config field names",
        dim,
    ));
    lines.push(Line::styled(
        "  destructive commands ask first: Back is focused; y or ←/→ Enter confirms",
        dim,
    ));
    lines.extend(super::finder::help_lines(app, theme));
    for p in Pane::ALL.iter().filter(|p| **p != app.focus) {
        let (name, text) = pane_help(*p);
        lines.push(Line::from(""));
        lines.push(Line::styled(format!(" {name}"), head));
        lines.extend(
            text.iter()
                .map(|t| Line::styled(format!("  {t}"), theme.get("text"))),
        );
    }
    lines
}

pub fn help(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let lines = help_lines(app, theme);
    let r = centered(area, 96, area.height.saturating_sub(2));
    scrolled(frame, r, "help (? or Esc closes)".into(), lines, app, theme);
}

/// `n` and the noun in its number (`1 timer`, `2 timers`; issue 34, item 13).
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
