//! The prompts' keys (`e`, `g`, `R`, `D`) and the confirmation's: Enter turns the prompt's
//! text into a command ([`super::prompt_command`]) and, for a destructive one, asks first.

use super::prompt_command::{call_request, prompt_command};
use crate::tui::command::{DryRequest, UiCommand};
use crate::tui::form::edit;
use crate::tui::prompt::{
    Confirm, Confirmed, Prompt, PromptKind, complete, complete_call, govern_help,
};
use crate::tui::state::{App, Effect, Overlay};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub(super) fn prompt_key(app: &mut App, mut p: Prompt, k: KeyEvent) -> Vec<Effect> {
    match k.code {
        KeyCode::Esc => {
            app.overlay = Overlay::None;
            vec![]
        }
        KeyCode::Enter if p.sent.is_some() => vec![],
        KeyCode::Enter => match prompt_command(app, &p) {
            Ok(cmd) => {
                p.error = None;
                if let Some(c) = confirmation(app, &p, &cmd) {
                    app.overlay = Overlay::Confirm(Box::new(Confirm { back: Some(p), ..c }));
                    return vec![];
                }
                // `D` shows the estimate of what it registers before sending it.
                let cmd = match cmd {
                    UiCommand::DraftTimer(r)
                        if p.estimate.as_ref().map(|e| &e.0) != Some(&p.input) =>
                    {
                        p.estimate = None;
                        UiCommand::EstimateDraft(r)
                    }
                    cmd => cmd,
                };
                p.sent = Some(Box::new(cmd.clone()));
                app.overlay = Overlay::Prompt(p);
                vec![Effect::Command(cmd)]
            }
            Err(m) => refuse(app, p, m),
        },
        // Issue 32: `C-d` in the call prompt runs the call as a dry run (Spec note 193).
        KeyCode::Char('d')
            if k.modifiers.contains(KeyModifiers::CONTROL) && p.kind == PromptKind::Call =>
        {
            match call_request(app, &p.input) {
                Ok(r) => {
                    p.error = None;
                    app.overlay = Overlay::Prompt(p);
                    vec![Effect::DryRun(Box::new(DryRequest::Call(r)))]
                }
                Err(m) => refuse(app, p, m),
            }
        }
        KeyCode::Tab if p.kind == PromptKind::Call => {
            let actors: Vec<String> = app.data.actors.iter().map(|a| app.data.label(a)).collect();
            let accounts: Vec<String> = app.data.names.values().cloned().collect();
            if let Some(c) = complete_call(&p.input, &actors, &accounts) {
                p.input = c;
            }
            app.overlay = Overlay::Prompt(p);
            vec![]
        }
        // `R` lists the devnet's snapshots newest first: ↓ goes down that list, to an older
        // one, ↑ to a newer one (issue 34, item 13).
        KeyCode::Up | KeyCode::Down
            if p.kind == PromptKind::Revert && !app.snapshot_ids().is_empty() =>
        {
            let ids = app.snapshot_ids();
            let at = ids.iter().position(|i| i.to_string() == p.input.trim());
            let i = match (at, k.code) {
                (Some(i), KeyCode::Down) => i.saturating_sub(1),
                (Some(i), _) => (i + 1).min(ids.len() - 1),
                (None, _) => ids.len() - 1,
            };
            p.input = ids[i].to_string();
            p.error = None;
            app.overlay = Overlay::Prompt(p);
            vec![]
        }
        KeyCode::Tab if matches!(p.kind, PromptKind::Govern { .. }) => {
            if let Some(c) = complete(&p.input, app.scheduler()) {
                p.input = c;
            }
            p.help = govern_help(&p.input, app.scheduler());
            app.overlay = Overlay::Prompt(p);
            vec![]
        }
        _ => {
            if edit(&mut p.input, &k) {
                p.error = None;
            }
            if matches!(p.kind, PromptKind::Govern { .. }) {
                p.help = govern_help(&p.input, app.scheduler());
            }
            app.overlay = Overlay::Prompt(p);
            vec![]
        }
    }
}

/// Input the prompt cannot send: named in the prompt (which stays open with it) and in the
/// status line; nothing is sent.
fn refuse(app: &mut App, mut p: Prompt, m: String) -> Vec<Effect> {
    // A refusal that already names its error (`UnknownSnapshot: ...`) keeps that name;
    // anything else is the input's fault.
    let named = m.split_once(':').is_some_and(|(w, _)| {
        w.starts_with(|c: char| c.is_ascii_uppercase())
            && w.chars().all(|c| c.is_ascii_alphanumeric())
    });
    let text = if named {
        m
    } else {
        format!("InvalidInput: {m}")
    };
    p.error = Some(text.clone());
    // The status line shows this answer, not an older message (issue 34, item 5).
    app.toast(text, true);
    app.overlay = Overlay::Prompt(p);
    vec![]
}

/// The confirmation a prompt's command needs before it is sent: governance cancels and
/// reverts.
fn confirmation(app: &App, p: &Prompt, cmd: &UiCommand) -> Option<Confirm> {
    let _ = p;
    match cmd {
        UiCommand::GovCancelTimer { timer_id, .. } => Some(Confirm::new(
            "governance cancel (system instruction 48)",
            vec![
                format!("cancel {}", app.describe_timer(timer_id)),
                format!("id {timer_id}"),
                "by the devnet's governor; the timer's owner cannot undo it".into(),
            ],
            "cancel the timer",
            Confirmed::Command(cmd.clone()),
        )),
        UiCommand::Revert(id) => Some(revert_confirm(app, *id)),
        _ => None,
    }
}

/// The confirmation of a revert to snapshot `id`.
fn revert_confirm(app: &App, id: u64) -> Confirm {
    Confirm::new(
        "revert",
        vec![
            format!("revert the devnet to snapshot {id}"),
            format!(
                "the blocks after it (the head is #{}) and their events are dropped",
                app.height()
            ),
        ],
        "revert",
        Confirmed::Command(UiCommand::Revert(id)),
    )
}

/// Keys of a confirmation: ←/→/Tab/h/l move between the buttons, Enter acts on the focused
/// one, `y` accepts, Esc and `n` cancel (back to the prompt it came from, if any).
pub(super) fn confirm_key(app: &mut App, mut c: Confirm, k: KeyEvent) -> Vec<Effect> {
    let accept = match k.code {
        KeyCode::Left
        | KeyCode::Right
        | KeyCode::Tab
        | KeyCode::BackTab
        | KeyCode::Char('h')
        | KeyCode::Char('l') => {
            c.yes_focused = !c.yes_focused;
            app.overlay = Overlay::Confirm(Box::new(c));
            return vec![];
        }
        KeyCode::Enter => c.yes_focused,
        KeyCode::Char('y') | KeyCode::Char('Y') => true,
        KeyCode::Esc | KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Char('q') => false,
        _ => return vec![],
    };
    if !accept {
        app.overlay = c.back.map_or(Overlay::None, Overlay::Prompt);
        app.toast("cancelled: nothing was sent", false);
        return vec![];
    }
    match c.action {
        Confirmed::Quit => {
            app.overlay = Overlay::None;
            app.quit = true;
            vec![]
        }
        Confirmed::Command(cmd) => {
            app.overlay = match c.back {
                Some(mut p) => {
                    p.sent = Some(Box::new(cmd.clone()));
                    Overlay::Prompt(p)
                }
                None => Overlay::None,
            };
            vec![Effect::Command(cmd)]
        }
    }
}
