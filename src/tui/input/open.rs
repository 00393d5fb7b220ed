//! The keys that open a form, a prompt or a confirmation: schedule (`s`), cancel (`c`),
//! extend (`e`), governance (`g`), the drafts (`D`), revert to a snapshot (`R`). Nothing is
//! sent until the user confirms.

use crate::engine::{Address, TimerId};
use crate::tui::command::UiCommand;
use crate::tui::form::ScheduleForm;
use crate::tui::keys::KeyAction;
use crate::tui::prompt::{Confirm, Confirmed, Prompt, PromptKind};
use crate::tui::state::{App, Effect, Overlay};

pub(super) fn on_action(app: &mut App, action: KeyAction) -> Option<Vec<Effect>> {
    match action {
        KeyAction::Schedule => return Some(schedule(app)),
        KeyAction::Cancel => cancel(app),
        KeyAction::Extend => match app.selected_timer() {
            Some((timer_id, Some(actor))) => extend(app, actor, timer_id),
            _ => app.toast("select a timer first (buckets or feed) to extend it", true),
        },
        KeyAction::Govern => govern(app),
        KeyAction::Draft => {
            app.overlay = Overlay::Prompt(Prompt::new(
                PromptKind::Draft,
                "CIP-5 drafts: register a state watch or an interval timer".into(),
                String::new(),
                crate::tui::prompt::DRAFT_HELP.into(),
            ));
        }
        KeyAction::Revert => revert(app),
        KeyAction::Call => {
            let from = super::prompt_command::default_sender(app)
                .map_or("no account known: give from=NAME".into(), |a| {
                    format!("from= defaults to {}", app.data.label(&a))
                });
            app.overlay = Overlay::Prompt(Prompt::new(
                PromptKind::Call,
                format!("call an actor's handler (actor_call) · {from}"),
                String::new(),
                crate::tui::prompt::CALL_HELP.into(),
            ));
        }
        _ => return None,
    }
    Some(vec![])
}

/// `s`: the schedule form, for the selected timer's actor (the first actor otherwise).
fn schedule(app: &mut App) -> Vec<Effect> {
    let actor = app
        .selected_timer()
        .and_then(|(_, a)| a)
        .and_then(|a| app.data.actors.iter().position(|x| *x == a))
        .unwrap_or(0);
    let form = ScheduleForm::for_scheduler(actor, app.scheduler());
    app.overlay = Overlay::Form(Box::new(form));
    app.form_estimate()
}

/// `c`: cancel the selected timer, after a confirmation naming it.
fn cancel(app: &mut App) {
    let Some((timer_id, Some(actor))) = app.selected_timer() else {
        app.toast(
            "select a timer first: Enter or → opens a bucket, ↑/↓ picks a timer (or select a feed row)",
            true,
        );
        return;
    };
    app.overlay = Overlay::Confirm(Box::new(Confirm::new(
        "cancel a timer",
        vec![
            format!("cancel {}", app.describe_timer(&timer_id)),
            format!("id {timer_id}"),
            format!(
                "sent by {}'s deployer, as the actor (timer_cancel)",
                app.data.label(&actor)
            ),
        ],
        "cancel the timer",
        Confirmed::Command(UiCommand::CancelTimer { actor, timer_id }),
    )));
}

/// `e`: the extend prompt, prefilled with a new expiry the TTL cap allows.
fn extend(app: &mut App, actor: Address, timer_id: TimerId) {
    let current = app
        .data
        .bucket_timers
        .iter()
        .find(|t| t.id == timer_id)
        .map(|t| t.expires_at);
    // Issue 34, item 4: the extension runs in the next block, whose TTL cap is its height +
    // max_ttl_blocks (CIP-5 §5.4); prefill a value the cap allows and that moves the expiry
    // (100 blocks later, or the cap).
    let cap = app
        .data
        .status
        .as_ref()
        .map(|s| s.tip.saturating_add(1).saturating_add(s.max_ttl_blocks));
    let wanted = current.map_or(app.height() + 100, |e| e.saturating_add(100));
    let default = cap.map_or(wanted, |c| wanted.min(c));
    app.overlay = Overlay::Prompt(Prompt::new(
        PromptKind::Extend { actor, timer_id },
        format!(
            "extend {}: move its expiry (not its fire height)",
            app.describe_timer(&timer_id)
        ),
        default.to_string(),
        extend_hint(current, cap),
    ));
}

/// What the extend prompt says of the expiry now and the TTL cap.
fn extend_hint(current: Option<u64>, cap: Option<u64>) -> String {
    match (current, cap) {
        (Some(c), Some(cap)) if c >= cap => {
            format!("new expires_at (now #{c}; the TTL cap is #{cap}: it cannot move later yet)")
        }
        (Some(c), Some(cap)) => {
            format!("new expires_at (now #{c}; the TTL cap allows up to #{cap})")
        }
        (None, Some(cap)) => format!("new expires_at (the TTL cap allows up to #{cap})"),
        (Some(c), None) => format!("new expires_at (now #{c})"),
        (None, None) => "new expires_at".to_string(),
    }
}

/// `g`: the governance prompt; the selected timer is what `48`/`50` act on without an id.
fn govern(app: &mut App) {
    let selected = app.selected_timer().map(|(t, _)| t);
    let title = match &selected {
        Some(t) => format!("governance (48/49/50) · no ID: {}", app.describe_timer(t)),
        None => "governance (system instructions 48/49/50)".into(),
    };
    app.overlay = Overlay::Prompt(Prompt::new(
        PromptKind::Govern { selected },
        title,
        String::new(),
        crate::tui::prompt::govern_help("", app.scheduler()),
    ));
}

/// `R`: the revert prompt, prefilled with the newest snapshot.
fn revert(app: &mut App) {
    let ids = app.snapshot_ids();
    let title = match app.shown_at() {
        Some(h) => format!("revert to snapshot · the node's list now, not as of #{h}"),
        None => "revert to snapshot".into(),
    };
    app.overlay = Overlay::Prompt(Prompt::new(
        PromptKind::Revert,
        title,
        ids.last().map_or(String::new(), |s| s.to_string()),
        snapshot_list(app, &ids),
    ));
}

/// The revert prompt's help: the newest snapshots with their heights. The snapshots are the
/// node's, not a block's state: while viewing the past the list is the live one (the title
/// says so), counted back from the head.
fn snapshot_list(app: &App, ids: &[u64]) -> String {
    if ids.is_empty() {
        return "the devnet keeps no snapshot (S takes one)".to_string();
    }
    let head = app.data.status.as_ref().map_or(0, |s| s.tip);
    let shown: Vec<String> = app
        .data
        .snapshots
        .iter()
        .rev()
        .take(6)
        .map(|s| {
            format!(
                "{} at #{} ({} back)",
                s.id,
                s.height,
                head.saturating_sub(s.height)
            )
        })
        .collect();
    let more = ids.len().saturating_sub(shown.len());
    format!(
        "snapshots (newest first): {}{} · ↑/↓ choose",
        shown.join(", "),
        if more > 0 {
            format!(", {more} older")
        } else {
            String::new()
        }
    )
}
