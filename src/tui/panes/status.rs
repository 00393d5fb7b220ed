//! The status bar (top) and the hint line (bottom).

use crate::engine::SchedulerKind;
use crate::tui::data::{Status, fmt_nanos};
use crate::tui::keys::KeyAction;
use crate::tui::state::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// One part of the status bar: what it shows in full and in short, and how much it matters
/// (0 is kept longest).
struct Item {
    rank: u8,
    label: &'static str,
    full: String,
    short: String,
    style: Style,
}

/// The status bar's text for `width` columns: every part in full when it fits; else the
/// parts in short (the RPC address without its scheme, the basefees as `cycle/cell/lane`);
/// else the least important parts dropped, one at a time (variants, pending, basefees,
/// scheduler, mining, then the RPC address), so the height, the link's state and what is awaited stay
/// readable at any width the dashboard draws at.
pub fn status_line(app: &App, theme: &Theme, width: u16) -> Line<'static> {
    let title = Span::styled(" cowboy-devnet ", theme.get("status_key"));
    let Some(s) = &app.data.status else {
        return connecting_line(app, theme, title);
    };
    let mut items = view_items(app, s, theme);
    items.extend(chain_items(s, theme));
    fit_items(items, title, theme.get("status"), width)
}

impl Item {
    fn new(rank: u8, label: &'static str, full: String, short: String, style: Style) -> Item {
        Item {
            rank,
            label,
            full,
            short,
            style,
        }
    }

    /// A part that reads the same in short.
    fn same(rank: u8, label: &'static str, text: String, style: Style) -> Item {
        Item::new(rank, label, text.clone(), text, style)
    }
}

/// Before the first answer: the link's state and what is awaited.
fn connecting_line(app: &App, theme: &Theme, title: Span<'static>) -> Line<'static> {
    let base = theme.get("status");
    let mut spans = vec![title, Span::styled("  connecting…", base)];
    if let Some(l) = &app.link {
        spans.push(Span::styled(
            format!("  {}", link_short(l)),
            theme.get("error"),
        ));
    }
    if !app.waiting.is_empty() {
        spans.push(Span::styled("  waiting: ", base));
        spans.push(Span::styled(
            format!("{}…", app.waiting.join(", ")),
            theme.get("warn"),
        ));
    }
    Line::from(spans)
}

/// The parts about the dashboard's view: the height shown, the link, what is awaited, the
/// mouse and the maximised pane.
fn view_items(app: &App, s: &Status, theme: &Theme) -> Vec<Item> {
    let key = theme.get("status_key");
    let warn = theme.get("warn");
    let mut items = Vec::new();
    // Issue 24: the past is viewed, the chain goes on. The banner says what the panes show
    // (the last refresh's height), and where the view is going until the refresh answers.
    let going = match (app.shown_at(), app.view_at) {
        (shown, want) if shown == want => String::new(),
        (_, Some(h)) => format!(" · to #{h}…"),
        (_, None) => " · to the head…".into(),
    };
    items.push(match app.shown_at() {
        Some(_) => Item::same(
            0,
            "",
            format!("viewing #{} · head #{}{going}", s.height, s.tip),
            warn,
        ),
        None if going.is_empty() => Item::same(0, "#", s.height.to_string(), key),
        None => Item::same(0, "#", format!("{}{going}", s.height), warn),
    });
    if let Some(l) = &app.link {
        items.push(Item::same(
            0,
            "",
            link_short(l).to_string(),
            theme.get("error"),
        ));
    }
    if !app.waiting.is_empty() {
        items.push(Item::same(
            1,
            "waiting:",
            format!("{}…", app.waiting.join(", ")),
            warn,
        ));
    }
    // Issue 34: mouse capture off is said (the terminal selects text; `m` turns it on).
    if !app.mouse {
        let k = app.keys.keys_label(KeyAction::ToggleMouse);
        items.push(Item::new(
            2,
            "mouse",
            format!("off ({k})"),
            "off".into(),
            warn,
        ));
    }
    if app.zoom {
        let k = app.keys.keys_label(KeyAction::Zoom);
        items.push(Item::same(
            2,
            "",
            format!("maximised ←/→ ({k}: back)"),
            warn,
        ));
    }
    items
}

/// The parts about the chain: mining, the scheduler and its variants, the basefees, the
/// pending timers, the RPC address.
fn chain_items(s: &Status, theme: &Theme) -> Vec<Item> {
    let key = theme.get("status_key");
    let mut items = vec![Item::same(4, "mining", s.mining.label(), key)];
    let after = SchedulerKind::after_activation();
    let sched = match (s.scheduler, s.activation_height) {
        (k, Some(h)) if k == after => format!("{after} (since #{h})"),
        (k, Some(h)) => format!("{k} ({after} at #{h})"),
        (k, None) => k.to_string(),
    };
    // Issue 34, item 9: the scheduler outlasts the basefees and the pending count (after
    // activation its long form no longer fits at 120 columns; its short form does).
    items.push(Item::new(
        5,
        "scheduler",
        sched,
        s.scheduler.to_string(),
        key,
    ));
    // The non-default variants (issue 21), dropped first when the bar is short.
    if !s.variants.is_empty() {
        items.push(Item::same(
            8,
            "variants",
            s.variants.join(","),
            theme.get("warn"),
        ));
    }
    // The lane basefee is nanos per cycle: shown in base units (contract decision 1).
    let lane = s.lane_basefee.map_or("—".into(), fmt_nanos);
    items.push(Item::new(
        6,
        "basefee",
        format!(
            "cycle {} cell {} lane {lane}",
            s.cycle_basefee, s.cell_basefee
        ),
        // Short, still labelled (issue 23: `1/1/—` did not say which is which).
        format!(
            "cyc {} cell {} lane {lane}",
            s.cycle_basefee, s.cell_basefee
        ),
        key,
    ));
    items.push(Item::same(7, "pending", s.pending_timers.to_string(), key));
    let rpc = s.rpc_address.clone().unwrap_or_else(|| "off".into());
    let rpc_short = rpc
        .strip_prefix("http://")
        .unwrap_or(rpc.as_str())
        .to_string();
    items.push(Item::new(3, "rpc", rpc, rpc_short, key));
    items
}

/// The parts as spans, in full or in short.
fn spans_of(
    title: &Span<'static>,
    base: Style,
    items: &[&Item],
    short: bool,
) -> Vec<Span<'static>> {
    let mut spans = vec![title.clone()];
    for &i in items {
        let label = if i.label.is_empty() {
            "  ".to_string()
        } else {
            format!("  {} ", i.label)
        };
        spans.push(Span::styled(label, base));
        spans.push(Span::styled(
            if short {
                i.short.clone()
            } else {
                i.full.clone()
            },
            i.style,
        ));
    }
    spans
}

/// Every part in full when it fits `width`; else in short, dropping the least important
/// parts one at a time until it fits; then the dropped parts that fit the room left come back,
/// the most important first (a long lane basefee dropped under eip1559 leaves room for the
/// pending count, which ranks below it).
fn fit_items(items: Vec<Item>, title: Span<'static>, base: Style, width: u16) -> Line<'static> {
    let fits = |spans: &[Span]| spans.iter().map(Span::width).sum::<usize>() <= width as usize;
    let all: Vec<&Item> = items.iter().collect();
    let full = spans_of(&title, base, &all, false);
    if fits(&full) {
        return Line::from(full);
    }
    let mut kept = vec![true; items.len()];
    let short_of = |kept: &[bool]| {
        let shown: Vec<&Item> = items
            .iter()
            .zip(kept)
            .filter(|(_, k)| **k)
            .map(|(i, _)| i)
            .collect();
        spans_of(&title, base, &shown, true)
    };
    let mut dropped = Vec::new();
    while !fits(&short_of(&kept)) {
        let Some(drop) = (0..items.len())
            .filter(|&n| kept[n] && items[n].rank > 0)
            .max_by_key(|&n| (items[n].rank, n))
        else {
            break;
        };
        kept[drop] = false;
        dropped.push(drop);
    }
    for &n in dropped.iter().rev() {
        kept[n] = true;
        if !fits(&short_of(&kept)) {
            kept[n] = false;
        }
    }
    Line::from(short_of(&kept))
}

/// The link's state without its detail (`disconnected, retrying`); the detail shows in the
/// hint line.
pub fn link_short(l: &str) -> &str {
    l.split(" (").next().unwrap_or(l)
}

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let line = status_line(app, theme, area.width);
    frame.render_widget(Paragraph::new(line).style(theme.get("status")), area);
}

pub fn render_hints(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let line = match (&app.toast, &app.link) {
        // Disconnected, the link's state outranks a message that is no error (issue 34, item
        // 13: `back at the head: live` while the devnet does not answer).
        (Some(t), Some(l)) if !t.error => {
            Line::from(Span::styled(format!(" {l} "), theme.get("error")))
        }
        (Some(t), _) => Line::from(Span::styled(
            format!(" {} ", t.text),
            theme.get(if t.error { "error" } else { "ok" }),
        )),
        (None, Some(l)) => Line::from(Span::styled(format!(" {l} "), theme.get("error"))),
        (None, None) => {
            // Whole hints only: when they do not all fit, `help` and `quit` stay and the
            // others are kept in table order while they fit.
            let hints = app.keys.hints();
            let w = |(k, word): &(String, &str)| k.chars().count() + word.chars().count() + 3;
            let total: usize = hints.iter().map(w).sum();
            let reserved: usize = hints
                .iter()
                .filter(|(_, word)| matches!(*word, "help" | "quit"))
                .map(w)
                .sum();
            let mut room = (area.width as usize).saturating_sub(reserved);
            let mut spans = Vec::new();
            let mut full = false;
            for h in &hints {
                let keep = matches!(h.1, "help" | "quit") || total <= area.width as usize || {
                    let fits = !full && w(h) <= room;
                    if fits {
                        room -= w(h);
                    } else {
                        full = true;
                    }
                    fits
                };
                if keep {
                    spans.push(Span::styled(format!(" {}", h.0), theme.get("hint_key")));
                    spans.push(Span::styled(format!(" {} ", h.1), theme.get("dim")));
                }
            }
            Line::from(spans)
        }
    };
    frame.render_widget(Paragraph::new(line), area);
}
