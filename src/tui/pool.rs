//! The pool overlay and the schedule form's dry run (issue 32, "Dry runs, receipts, the pool";
//! Spec notes 189 and 190). A leaf of the dashboard's state: `P` opens [`PoolOverlay`], the
//! open block's transactions (`devnet_pendingTransactions`) newest first; `d` (or Delete) on
//! one asks to confirm, then sends `devnet_dropTransaction` and the list is asked again. `C-d`
//! in the schedule form runs its request as `devnet_call {"schedule": ...}` and opens the
//! answer ([`DryRanReply`]); nothing changes. Drawn by [`crate::tui::panes::pool`].

use super::command::UiCommand;
use super::prompt::{Confirm, Confirmed};
use super::state::{App, Effect, Overlay};
use crate::node::TxView;

pub use super::pool_state::{DryBack, DryRanReply, DryRunShown, PoolOverlay};
use crossterm::event::{KeyCode, KeyEvent};

/// `P`: opens the pool overlay and asks for the open block's transactions.
pub fn open(app: &mut App) -> Vec<Effect> {
    app.overlay = Overlay::Pool(Box::default());
    vec![Effect::LoadPool]
}

/// The node's answer: shown if the overlay is still open (the selection stays in range).
pub fn on_pool(app: &mut App, txs: Result<Vec<TxView>, String>) -> Vec<Effect> {
    if let Overlay::Pool(p) = &mut app.overlay {
        p.txs = Some(txs);
        p.sel = p.sel.min(p.rows().len().saturating_sub(1));
    }
    vec![]
}

/// A block sealed (or a drop went through) while the overlay is open: ask again.
pub fn on_refresh(app: &App) -> Option<Effect> {
    matches!(app.overlay, Overlay::Pool(_)).then_some(Effect::LoadPool)
}

/// A transaction's hash, short (`0xabcd1234…`).
pub fn short_hash(h: &crate::engine::H256) -> String {
    format!("{}…", &h.to_string()[..10])
}

/// The confirmation of a drop (Spec note 189): what it drops, and that the later
/// transactions which no longer apply without it leave too (the node says which after).
fn confirm_drop(app: &App, tx: &TxView) -> Confirm {
    let lines = vec![
        format!(
            "drop transaction {} from {} (nonce {}, {})?",
            short_hash(&tx.hash),
            app.data.label(&tx.from),
            tx.nonce,
            tx.kind
        ),
        "the open block is rebuilt without it: a later transaction that no longer".into(),
        "applies without it (a nonce after it, funds it sent) is dropped too".into(),
    ];
    let mut c = Confirm::new(
        "drop a pending transaction",
        lines,
        "drop",
        Confirmed::Command(UiCommand::DropTransaction(tx.hash)),
    );
    c.back = None;
    c
}

/// A key while the pool overlay is open: ↑/↓ select, `d`/Delete asks to drop, Esc closes.
pub fn pool_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    let Overlay::Pool(p) = &app.overlay else {
        return vec![];
    };
    let mut p = (**p).clone();
    let n = p.rows().len();
    match k.code {
        KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('P') => {
            app.overlay = Overlay::None;
            return vec![];
        }
        KeyCode::Up | KeyCode::Char('k') => p.sel = p.sel.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => p.sel = (p.sel + 1).min(n.saturating_sub(1)),
        KeyCode::Char('r') => {
            app.overlay = Overlay::Pool(Box::new(p));
            return vec![Effect::LoadPool];
        }
        KeyCode::Char('d') | KeyCode::Delete => {
            let Some(tx) = p.rows().get(p.sel).map(|t| (*t).clone()) else {
                app.toast("the open block holds no transaction to drop", true);
                return vec![];
            };
            if let Some(at) = app.view_at {
                let text = format!(
                    "devnet_dropTransaction refused: viewing the past (#{at}); Esc returns to the head"
                );
                app.toast(text, true);
                return vec![];
            }
            app.overlay = Overlay::Confirm(Box::new(confirm_drop(app, &tx)));
            return vec![];
        }
        _ => {}
    }
    app.overlay = Overlay::Pool(Box::new(p));
    vec![]
}

/// After a drop's answer: the pool overlay again, asked again (the status line has the result).
pub fn after_drop(app: &mut App, cmd: &UiCommand) -> Vec<Effect> {
    if !matches!(cmd, UiCommand::DropTransaction(_)) {
        return vec![];
    }
    if matches!(app.overlay, Overlay::None | Overlay::Pool(_)) {
        app.overlay = Overlay::Pool(Box::default());
    }
    vec![Effect::LoadPool]
}

/// `C-d` in the schedule form: its request as a dry run; input that does not parse shows why
/// in the form, as Enter does.
pub fn dry_run_form(app: &mut App) -> Vec<Effect> {
    let h = app.height();
    let Overlay::Form(f) = &mut app.overlay else {
        return vec![];
    };
    match f.request(&app.data, h) {
        Ok(req) => vec![Effect::DryRun(Box::new(
            super::command::DryRequest::Schedule(req),
        ))],
        Err(m) => {
            f.error = Some(super::data::CommandError::new("InvalidInput", m));
            vec![]
        }
    }
}

/// A dry run's answer: opened over the form or the prompt it came from (Esc returns to it).
pub fn on_dry_run(app: &mut App, reply: DryRanReply) -> Vec<Effect> {
    let back = match &app.overlay {
        Overlay::Form(f) => Some(DryBack::Form(f.clone())),
        Overlay::Prompt(p) => Some(DryBack::Prompt(Box::new(p.clone()))),
        _ => None,
    };
    app.scroll = 0;
    app.scroll_max.set(None);
    app.overlay = Overlay::DryRun(Box::new(DryRunShown { reply, back }));
    vec![]
}

/// Esc in a dry run's answer: back to the form it came from.
pub fn close_dry_run(app: &mut App) {
    app.overlay = match &app.overlay {
        Overlay::DryRun(d) => match d.back.clone() {
            Some(DryBack::Form(f)) => Overlay::Form(f),
            Some(DryBack::Prompt(p)) => Overlay::Prompt(*p),
            None => Overlay::None,
        },
        _ => Overlay::None,
    };
}
