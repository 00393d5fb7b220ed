//! The timer finder (issue 32, "Find any timer"; Spec note 173): `:` (or `C-f`) opens a
//! full-screen list of every timer the node knows, in every bucket and tier and the ones that
//! left, filtered as you type; ↑/↓ select, Enter opens the timer's life, Esc closes. The list is
//! the node's `timer_list` page ([`TimersPageQuery`]), asked in-process or over JSON-RPC through
//! the same [`crate::tui::model::DashboardSource::timer_page`], again as each block seals.
//!
//! The query: words separated by spaces, each narrowing the list.
//!
//! | word | matches |
//! | --- | --- |
//! | `0x1f2e`, `id:1f2e` | the id starts with these hex digits |
//! | `label:name`, `name` | the timer's label (a fixture's, or given when it was scheduled) contains it (the node matches it) |
//! | `actor:dev1`, `actor:0x..` | the actor, by name or address |
//! | `handler:ping` | the handler's name |
//! | `status:fired` (`s:`) | `pending`, `fired`, `expired`, `unfunded`, `cancelled`, `cancelled_by_governance` |
//! | `h:100..200`, `h:100..`, `h:..200`, `h:150` | the height it was scheduled for |

use crate::engine::{Address, TimerId};
use crate::node::{TimerPage, TimersPageQuery};
use crate::tui::keys::KeyAction;
use crate::tui::state::{App, Effect, Overlay};
use crate::tui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Row, Table, TableState, Wrap};

pub use crate::tui::finder_query::{Finder, FinderQuery, parse};

/// The timers of the page, in order (the node matched the label words too, Spec note 186).
pub fn rows<'a>(_app: &App, f: &'a Finder) -> Vec<&'a crate::node::TimerView> {
    match f.page.as_ref().filter(|_| f.error.is_none()) {
        Some(page) => page.timers.iter().collect(),
        None => Vec::new(),
    }
}

/// Opens the finder (the key `find`) and asks for its first page.
pub fn open(app: &mut App) -> Vec<Effect> {
    let mut f = Finder::default();
    let q = f.query(&app.data.names);
    app.overlay = Overlay::Finder(Box::new(f));
    q.map(Effect::Find).into_iter().collect()
}

/// Esc in a life opened from the finder: the finder again, with its query, page and
/// selection, asked again (issue 32 item 2a); `None` when the life was not opened from it.
pub fn back_from_life(app: &mut App, id: TimerId) -> Option<Vec<Effect>> {
    let (from, f) = app.finder_back.take()?;
    if from != id {
        return None;
    }
    let q = f.asked.clone();
    app.overlay = Overlay::Finder(f);
    app.raw = false;
    Some(q.map(Effect::Find).into_iter().collect())
}

/// A block sealed while the finder is open: ask again (the list is live).
pub fn on_refresh(app: &App) -> Option<Effect> {
    match &app.overlay {
        Overlay::Finder(f) => f.asked.clone().map(Effect::Find),
        _ => None,
    }
}

/// The node's page for `q`: shown if it answers the query the finder still has.
pub fn on_found(app: &mut App, q: TimersPageQuery, page: Option<TimerPage>) -> Vec<Effect> {
    let names = app.data.names.clone();
    if let Overlay::Finder(f) = &mut app.overlay
        && f.clone().query(&names).as_ref() == Some(&q)
    {
        f.asked = Some(q);
        f.page = page;
        if f.page.is_none() {
            f.error = Some("the devnet did not answer".into());
        }
    }
    let n = match &app.overlay {
        Overlay::Finder(f) => rows(app, f).len(),
        _ => return vec![],
    };
    if let Overlay::Finder(f) = &mut app.overlay {
        f.sel = f.sel.min(n.saturating_sub(1));
    }
    vec![]
}

/// A key while the finder is open: text edits the query, ↑/↓ select, Enter opens the life.
pub fn finder_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    let Overlay::Finder(f) = &app.overlay else {
        return vec![];
    };
    let mut f: Finder = (**f).clone();
    let n = rows(app, &f).len();
    let mut edited = false;
    let mut paged = false;
    match k.code {
        KeyCode::Esc => {
            app.overlay = Overlay::None;
            app.finder_back = None;
            return vec![];
        }
        KeyCode::Up | KeyCode::PageUp if f.sel == 0 => paged = f.prev_page().is_some(),
        KeyCode::Down | KeyCode::PageDown if f.sel + 1 >= n => paged = f.next_page().is_some(),
        KeyCode::Up => f.sel = f.sel.saturating_sub(1),
        KeyCode::Down => f.sel = (f.sel + 1).min(n.saturating_sub(1)),
        KeyCode::PageUp => f.sel = f.sel.saturating_sub(10),
        KeyCode::PageDown => f.sel = (f.sel + 10).min(n.saturating_sub(1)),
        KeyCode::Enter => {
            let id: Option<TimerId> = rows(app, &f).get(f.sel).map(|t| t.timer_id);
            return match id {
                Some(id) => {
                    // Esc in the life comes back here (issue 32 item 2a).
                    app.finder_back = Some((id, Box::new(f)));
                    app.overlay = Overlay::LifeLoading(id);
                    vec![Effect::LoadLife(id)]
                }
                None => vec![],
            };
        }
        KeyCode::Backspace => edited = f.text.pop().is_some(),
        KeyCode::Char('u')
            if k.modifiers
                .contains(crossterm::event::KeyModifiers::CONTROL) =>
        {
            edited = !f.text.is_empty();
            f.text.clear();
        }
        KeyCode::Char(c)
            if !k
                .modifiers
                .contains(crossterm::event::KeyModifiers::CONTROL) =>
        {
            f.text.push(c);
            edited = true;
        }
        _ => {}
    }
    let mut out = vec![];
    if edited {
        f.restart();
    }
    if (edited || paged)
        && f.text != "?"
        && let Some(q) = f.query(&app.data.names)
    {
        out.push(Effect::Find(q));
    }
    app.overlay = Overlay::Finder(Box::new(f));
    out
}

/// The help overlay's lines on the finder's query syntax.
pub fn help_lines(app: &App, theme: &Theme) -> Vec<Line<'static>> {
    let dim = theme.get("dim");
    let mut lines = vec![
        Line::from(""),
        Line::styled(
            format!(" timer finder ({})", app.keys.keys_label(KeyAction::Find)),
            theme.get("header"),
        ),
    ];
    for t in [
        "every timer the node knows (all buckets and tiers, and the ones that left); type to filter:",
        "0x1f2e or id:1f2e id prefix · label:name or a bare word: the fixture's label",
        "actor:dev1 (name or address) · handler:ping · status:fired (s:) · h:100..200 (h:100.. h:..200 h:150)",
        "↑/↓ PgUp/PgDn select, past a page's ends the next or previous page · Enter the timer's life",
        "Bksp, C-u edit · Esc closes (Esc in a life opened here comes back) · the list follows the head",
    ] {
        lines.push(Line::styled(format!("  {t}"), dim));
    }
    lines
}

/// Draws the finder over the whole area.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, f: &Finder, theme: &Theme) {
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .title(Line::styled(title(app), theme.get("title")))
        .border_style(theme.get("border_focus"));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [input, info, list] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(1),
    ])
    .areas(inner);
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("find: ", theme.get("hint_key")),
            Span::styled(format!("{}▏", f.text), theme.get("text")),
        ])),
        input,
    );
    // `?` alone (the title's "? syntax") shows the query syntax in place of the list.
    if f.text == "?" {
        let info_line = Line::styled(
            "the query syntax (Bksp, then type a query)",
            theme.get("dim"),
        );
        frame.render_widget(Paragraph::new(info_line), info);
        let syntax = Paragraph::new(help_lines(app, theme)).wrap(Wrap { trim: false });
        frame.render_widget(syntax, list);
        return;
    }
    let shown = rows(app, f);
    let info_line = match (&f.error, &f.page) {
        (Some(e), _) => Line::styled(e.clone(), theme.get("error")),
        (None, None) => Line::styled("asking the devnet…", theme.get("dim")),
        (None, Some(p)) => Line::styled(summary(f, shown.len(), p), theme.get("dim")),
    };
    frame.render_widget(Paragraph::new(info_line), info);
    draw_rows(frame, list, app, f, &shown, theme);
}

/// The finder lists the live head's timers, also while the panes show a past height (Spec
/// note 185): the title says which.
fn title(app: &App) -> String {
    let head = app.data.status.as_ref().map_or(0, |s| s.tip);
    match app.view_at {
        Some(h) => format!(
            " find a timer: the head's (#{head}), the panes show #{h} · Enter: life · Esc · ? syntax "
        ),
        None => {
            format!(" find a timer at the head #{head} (Enter: its life · Esc closes · ? syntax) ")
        }
    }
}

fn summary(f: &Finder, shown: usize, p: &TimerPage) -> String {
    let more = match (p.next_cursor.is_some(), f.back.is_empty()) {
        (true, true) => " · PgDn past the last row: next page",
        (true, false) => " · PgUp/PgDn past the ends: other pages",
        (false, false) => " · PgUp past the first row: the page before",
        (false, true) => "",
    };
    let (first, last) = (f.before + 1, f.before + p.timers.len());
    let rows = match (p.timers.len(), p.matched) {
        (0, 0) => return format!("no timer matched `{}` (? alone: the query syntax)", f.text),
        (0, _) => "none".to_string(),
        _ => format!("{first}-{last}"),
    };
    format!("{rows} of {} matched · {shown} shown{more}", p.matched)
}

fn draw_rows(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    f: &Finder,
    shown: &[&crate::node::TimerView],
    theme: &Theme,
) {
    let name = |a: &Address| app.data.label(a);
    // Only the rows on screen are laid out (a page holds up to 1,000): the window that keeps
    // the selection in view.
    let visible = (area.height as usize).saturating_sub(1).max(1);
    let start = f.sel.saturating_sub(visible - 1);
    let rows: Vec<Row> = shown
        .iter()
        .skip(start)
        .take(visible)
        .map(|t| {
            // The node's label (Spec note 191: given over RPC, in the form or by a fixture,
            // before this dashboard attached too), else the one the story told.
            let label = t
                .label
                .clone()
                .or_else(|| app.labels.get(&t.timer_id).cloned())
                .unwrap_or_default();
            let place = match (&t.tier, t.exit_height) {
                (Some(tier), _) => tier.clone(),
                (None, Some(h)) => format!("left #{h}"),
                (None, None) => String::new(),
            };
            Row::new(vec![
                t.timer_id.short(),
                label,
                t.status.as_str().to_string(),
                format!("#{}", t.height),
                place,
                name(&t.actor),
                t.handler.clone(),
            ])
        })
        .collect();
    let widths = [
        Constraint::Length(9),
        Constraint::Length(10),
        Constraint::Length(12),
        Constraint::Length(9),
        Constraint::Length(10),
        Constraint::Length(12),
        Constraint::Min(6),
    ];
    let header = Row::new([
        "id", "label", "status", "height", "where", "actor", "handler",
    ])
    .style(theme.get("header"));
    let table = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(theme.get("selection"));
    let mut state =
        TableState::default().with_selected((!shown.is_empty()).then_some(f.sel - start));
    frame.render_stateful_widget(table, area, &mut state);
}
