//! Draws the pool overlay and a dry run's answer (issue 32; the state and keys are in
//! [`crate::tui::pool`]).

use super::overlays::centered;
use crate::node::DryRunView;
use crate::tui::command::DryRequest;
use crate::tui::pool::{DryRunShown, PoolOverlay, short_hash};
use crate::tui::state::App;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph, Row, Table, TableState};

/// The pool overlay over the whole area: one row per pending transaction, newest first.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, p: &PoolOverlay, theme: &Theme) {
    frame.render_widget(Clear, area);
    let title = match app.view_at {
        Some(h) => format!(
            " pending transactions of the head's open block (the panes show #{h}: no drop) · Esc "
        ),
        None => " pending transactions of the open block · ↑/↓ · d: drop (asks) · r: again · Esc "
            .to_string(),
    };
    let block = Block::bordered()
        .title(Line::styled(title, theme.get("title")))
        .border_style(theme.get("border_focus"));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [info, list] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(inner);
    let rows = p.rows();
    let info_line = match &p.txs {
        None => Line::styled("asking the devnet…", theme.get("dim")),
        Some(Err(e)) => Line::styled(e.clone(), theme.get("error")),
        Some(Ok(_)) if rows.is_empty() => Line::styled(
            "the open block holds no transaction (each is sealed with its block: manual mining keeps them here until you mine)",
            theme.get("dim"),
        ),
        Some(Ok(_)) => Line::styled(
            format!("{} pending, newest first", rows.len()),
            theme.get("dim"),
        ),
    };
    frame.render_widget(Paragraph::new(info_line), info);
    let visible = (list.height as usize).saturating_sub(1).max(1);
    let start = p.sel.saturating_sub(visible - 1);
    let table_rows: Vec<Row> = rows
        .iter()
        .skip(start)
        .take(visible)
        .map(|t| {
            Row::new(vec![
                short_hash(&t.hash),
                format!("{}", t.index),
                app.data.label(&t.from),
                format!("{}", t.nonce),
                t.kind.clone(),
            ])
        })
        .collect();
    let widths = [
        Constraint::Length(12),
        Constraint::Length(4),
        Constraint::Length(12),
        Constraint::Length(6),
        Constraint::Min(10),
    ];
    let header = Row::new(["hash", "idx", "from", "nonce", "kind"]).style(theme.get("header"));
    let table = Table::new(table_rows, widths)
        .header(header)
        .row_highlight_style(theme.get("selection"));
    let mut state =
        TableState::default().with_selected((!rows.is_empty()).then_some(p.sel - start));
    frame.render_stateful_widget(table, list, &mut state);
}

/// The words of a dry run's answer (Spec note 190): whether it would be created and its
/// timer, cycles, fee, the state diff, then the compact trace.
pub fn dry_run_lines(app: &App, v: &DryRunView) -> Vec<String> {
    let r = &v.receipt;
    let mut out = vec![
        "a dry run: nothing was sent, nothing changed".to_string(),
        match (&v.registration, r.success) {
            (Some(g), _) if g.created => format!(
                "would create timer {} (id {})",
                g.timer_id.short(),
                g.timer_id
            ),
            (Some(g), _) => format!(
                "would update timer {} (a client_nonce repeat)",
                g.timer_id.short()
            ),
            (None, true) => "would succeed".into(),
            (None, false) => format!(
                "would fail: {}",
                r.error.as_ref().map_or("?".into(), |e| e.to_string())
            ),
        },
        format!(
            "in block #{} · cycles {} · cells {} · fee {} nanos",
            v.height, r.cycles_used, r.cells_used, r.fee
        ),
        "state diff:".into(),
    ];
    let d = &v.diff;
    for t in &d.timers.scheduled {
        out.push(format!("  timer scheduled {}", t.short()));
    }
    for t in &d.timers.cancelled {
        out.push(format!("  timer cancelled {}", t.short()));
    }
    for e in &d.timers.extended {
        out.push(format!(
            "  timer extended {}: expires #{} → #{}",
            e.timer_id.short(),
            e.old_expires_at,
            e.new_expires_at
        ));
    }
    for b in &d.balances {
        out.push(format!(
            "  balance {}: {} → {}",
            app.data.label(&b.address),
            b.before,
            b.after
        ));
    }
    for s in &d.storage {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "∅".into());
        out.push(format!(
            "  storage {} {}: {} → {}",
            app.data.label(&s.actor),
            s.key,
            show(&s.old),
            show(&s.new)
        ));
    }
    out.push("trace:".into());
    for t in v.trace.iter().flatten() {
        out.extend(crate::node::trace_text::trace_lines(t, &app.data.names));
    }
    out
}

/// A dry run's answer, centred, scrolled; Esc returns to the form or the call prompt.
pub fn draw_dry_run(frame: &mut Frame, area: Rect, app: &App, d: &DryRunShown, theme: &Theme) {
    let r = centered(
        area,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    let (req, result) = &d.reply;
    let title = match req {
        DryRequest::Schedule(s) => format!(
            "dry run: schedule on {} at #{} · Esc: back to the form",
            app.data.label(&s.actor),
            s.height
        ),
        DryRequest::Call(c) => format!(
            "dry run: call {}.{} from {} · Esc: back to the prompt",
            app.data.label(&c.actor),
            c.handler,
            app.data.label(&c.from)
        ),
    };
    let width = (r.width.saturating_sub(3) as usize).max(20);
    let lines: Vec<Line> = match result {
        Ok(v) => dry_run_lines(app, v)
            .iter()
            .flat_map(|l| wrapped(l, width))
            .map(|l| Line::styled(format!(" {l}"), theme.get("text")))
            .collect(),
        Err(e) => vec![Line::styled(
            format!(" the dry run was refused: {e}"),
            theme.get("error"),
        )],
    };
    super::modal::scrolled(frame, r, title, lines, app, theme);
}

/// `l` cut into lines of `width` characters, the rest indented under it.
fn wrapped(l: &str, width: usize) -> Vec<String> {
    let chars: Vec<char> = l.chars().collect();
    let mut out = vec![chars.iter().take(width).collect::<String>()];
    for c in chars.get(width..).unwrap_or_default().chunks(width - 6) {
        out.push(format!("      {}", c.iter().collect::<String>()));
    }
    out
}
