//! The pure update (the Elm pattern ratatui recommends): [`update`] turns an [`Action`] (a key
//! press, fresh data, a command's reply) into changes of the state ([`super::state`]) and a list
//! of [`Effect`]s for the loop to carry out (node commands and queries). Nothing here touches the
//! terminal or the node. The state's types are re-exported here, where the dashboard's users
//! (tests, benches) name them.

use super::command::UiCommand;
use super::data::{CommandError, DashboardData, EventRow, MiningMode, TimerLife};
use super::outcome::CommandOutcome;
use super::story::{StoryItem, StoryKind};
use crate::engine::TimerId;
use crossterm::event::KeyEvent;

pub use super::filter::FeedFilter;
pub use super::form::{FormField, ScheduleForm};
pub use super::prompt::{Confirm, Confirmed, Prompt, PromptKind};
pub use super::state::{
    App, BLOCK_TIMES_MS, Effect, FEED_CAPACITY, FairnessSort, LOG_CAPACITY, LogEntry, Overlay,
    Pane, Toast,
};

/// Inputs of [`update`].
#[derive(Clone, Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "one message per key press or reply, never stored in bulk: a schedule request with its CIP-1 v3 fee fields is carried unboxed"
)]
pub enum Action {
    Key(KeyEvent),
    Data(Box<DashboardData>),
    Events(Vec<EventRow>),
    /// A timer's life as of a sealed height (issue 24; `None`: the head).
    Life(TimerId, Option<u64>, Option<Box<TimerLife>>),
    Done(UiCommand, Result<CommandOutcome, CommandError>),
    /// A fixture's story went on: steps played, expectations checked, timers labelled.
    Story(Vec<StoryItem>),
    /// A mouse button went down at this cell of a terminal of this size: focus the pane there.
    Click {
        column: u16,
        row: u16,
        width: u16,
        height: u16,
    },
    /// The timer finder's page (issue 32).
    Found(crate::node::TimersPageQuery, Option<crate::node::TimerPage>),
    /// A fire's trace came back (issue 32).
    Traced(TimerId, Result<Vec<crate::chain::trace::Trace>, String>),
    /// A timer's payload as of a sealed height came back (issue 34, item 3).
    Payload(TimerId, u64, Result<Option<Vec<u8>>, String>),
    /// The open block's transactions came back (issue 32: the pool overlay).
    Pool(Result<Vec<crate::node::TxView>, String>),
    /// A dry run came back (issue 32).
    DryRan(Box<super::pool_state::DryRanReply>),
}

/// Blocks a message stays in the status line (an error stays longer); it stays in the log.
pub const TOAST_BLOCKS: u64 = 3;
pub const ERROR_TOAST_BLOCKS: u64 = 10;

/// Drops a status-line message shown some blocks ago (issue 34, item 13).
fn expire_toast(app: &mut App) {
    if let Some(t) = &app.toast {
        let keep = if t.error {
            ERROR_TOAST_BLOCKS
        } else {
            TOAST_BLOCKS
        };
        match app.toast_at {
            None => app.toast_at = Some(app.tip()),
            Some(at) if app.tip() >= at.saturating_add(keep) => app.toast = None,
            Some(_) => {}
        }
    }
}

/// Applies one action; returns what the loop must do next.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    match action {
        Action::Data(d) => on_data(app, *d),
        Action::Events(ev) => {
            on_events(app, ev);
            vec![]
        }
        Action::Life(id, at, life) => super::past::on_life(app, id, at, life),
        Action::Found(q, page) => super::panes::finder::on_found(app, q, page),
        Action::Traced(id, t) => super::panes::trace::on_trace(app, id, t),
        Action::Payload(id, at, p) => {
            super::gone_payload::on_payload(app, id, at, p);
            vec![]
        }
        Action::Pool(p) => super::pool::on_pool(app, p),
        Action::DryRan(r) => super::pool::on_dry_run(app, *r),
        Action::Done(cmd, result) => on_done(app, cmd, result),
        Action::Story(items) => on_story(app, items),
        Action::Click {
            column,
            row,
            width,
            height,
        } => {
            if app.overlay == Overlay::None {
                return super::click::click(app, column, row, width, height);
            }
            vec![]
        }
        Action::Key(k) => {
            let out = super::input::on_key(app, k);
            super::past::refuse_in_past(app, out)
        }
    }
}

/// Fresh data: it replaces the shown data, the selections follow it, and the open life, the
/// finder and the watched timers are read again when a block was sealed.
fn on_data(app: &mut App, d: DashboardData) -> Vec<Effect> {
    let before = app.height();
    // The live head's height: a past view (issue 24) is lower and is no revert.
    if d.status.as_ref().map(|s| s.tip) < app.data.status.as_ref().map(|s| s.tip) {
        // A revert went back: the feed restarts from the new head's history.
        app.feed.clear();
        app.held.clear();
        app.events_from = 0;
        app.event_sel = 0;
    }
    super::extras::on_chain(app, &d);
    app.data = d;
    // The selected timer stays selected while it is pending, in whichever bucket it is
    // carried to (issue 34, item 7); when it leaves, nothing is selected.
    let seek = super::follow::follow_timer(app);
    expire_toast(app);
    super::feed_text::note_watches(app);
    if let (Some(at), Some(s)) = (app.view_at, &app.data.status)
        && at >= s.tip
    {
        // A revert went below the viewed height: the view is the head again.
        app.view_at = None;
    }
    keep_selections(app);
    // The open life and the watched timer follow the chain (issue 23): read again when a
    // block was sealed (or the watched life was never read).
    let moved = app.height() != before;
    let mut out = Vec::new();
    if seek {
        out.push(Effect::Refresh);
    }
    out.extend(reads_after_data(app, moved));
    out
}

/// The cursors stay on what the user selected, within the lists as they are now.
fn keep_selections(app: &mut App) {
    match app
        .bucket_pin
        .and_then(|h| app.data.buckets.iter().position(|b| b.height == h))
    {
        Some(i) => app.bucket_sel = i,
        // Issue 31: the page read is of the pinned bucket (the next block's, where the selected
        // timer was carried) and holds timers, but the list of buckets, read a moment before
        // it (attached, the reads are not one snapshot), does not show it yet: the selection
        // stays, the next refresh lists it.
        None if app.bucket_pin.is_some()
            && app.bucket_pin == app.data.bucket_at
            && app.data.bucket_total > 0 => {}
        None => {
            // The user's bucket left (drained, or its last timer cancelled): the cursor
            // stays at its place in the list, inside no bucket.
            if app.bucket_pin.take().is_some() {
                app.in_bucket = false;
            }
            app.bucket_sel = app.bucket_sel.min(app.data.buckets.len().saturating_sub(1));
        }
    }
    app.draft.follow(app.data.draft.as_ref());
    app.fairness_sel = app
        .fairness_sel
        .min(app.data.fairness.len().saturating_sub(1));
    if let Overlay::Form(f) = &mut app.overlay {
        f.actor = f.actor.min(app.data.actors.len().saturating_sub(1));
    }
}

/// What fresh data asks to read again: the open life, the finder's page and the watched
/// timers when the chain moved (a watched timer never read, also when it did not).
fn reads_after_data(app: &App, moved: bool) -> Vec<Effect> {
    let mut out = Vec::new();
    if let Overlay::Life(l) = &app.overlay
        && moved
    {
        out.push(Effect::LoadLife(l.id));
    }
    out.extend(super::panes::finder::on_refresh(app).filter(|_| moved));
    out.extend(super::pool::on_refresh(app).filter(|_| moved));
    if let Some(w) = app.watch
        && (moved || app.watch_life.is_none())
        && !out.contains(&Effect::LoadLife(w))
    {
        out.push(Effect::LoadLife(w));
    }
    for (p, life) in &app.pinned {
        if (moved || life.is_none()) && !out.contains(&Effect::LoadLife(*p)) {
            out.push(Effect::LoadLife(*p));
        }
    }
    out
}

/// New events: into the feed (or held while it is paused); a governance cancel's event says
/// whether the timer existed.
fn on_events(app: &mut App, ev: Vec<EventRow>) {
    if let Some(last) = ev.last() {
        app.events_from = last.height + 1;
    }
    if !app.gov_cancels.is_empty() {
        gov_cancel_toasts(app, &ev);
    }
    if app.feed_paused {
        app.held.extend(ev);
    } else {
        // A selected event stays selected as newer ones arrive.
        if app.feed_pin {
            let f = FeedFilter::parse(&app.filter);
            app.event_sel += ev.iter().filter(|e| f.matches(e, &app.data)).count();
        }
        app.push_events(ev);
    }
}

/// The governance cancels this dashboard sent, told when their event arrives.
fn gov_cancel_toasts(app: &mut App, ev: &[EventRow]) {
    for e in ev.iter().filter(|e| e.kind == "TimerCancelledByGovernance") {
        let Some(t) = e.timer else { continue };
        let Some(i) = app.gov_cancels.iter().position(|g| *g == t) else {
            continue;
        };
        app.gov_cancels.remove(i);
        let text = if e.fields.contains("existed=false") {
            format!(
                "governance cancel: timer {} did not exist, nothing was cancelled (#{})",
                app.timer_label(&t),
                e.height
            )
        } else {
            format!(
                "governance cancelled timer {} (#{})",
                app.timer_label(&t),
                e.height
            )
        };
        let missing = e.fields.contains("existed=false");
        app.toast(text, missing);
    }
}

/// The fixture's story went on: labels, the log, and a failure in the status line.
fn on_story(app: &mut App, items: Vec<StoryItem>) -> Vec<Effect> {
    let mut out = Vec::new();
    for it in items {
        if let Some((l, id)) = &it.label {
            let first = app.labels.is_empty();
            app.labels.insert(*id, l.clone());
            // The demo starts with its first labelled timer watched, unless the user chose
            // something already.
            if first && app.watch.is_none() && app.timer_pin.is_none() && !app.feed_pin {
                app.watch = Some(*id);
                out.push(Effect::LoadLife(*id));
            }
        }
        let at = it.height.unwrap_or(app.height());
        if it.ok {
            app.log_at(at, format!("story: {}", it.text), false);
        } else {
            // A step that failed on the live node is an error, with its step; a failed
            // expectation and an end with failures say what they are.
            let text = match it.kind {
                StoryKind::Step => format!("fixture step failed: {}", it.text),
                StoryKind::Expectation => format!("story: {}", it.text),
                StoryKind::End => format!("story: {}", it.text),
            };
            app.log_at(at, text.clone(), true);
            app.toast = Some(Toast { text, error: true });
            app.toast_at = None;
        }
        app.story.push(it);
    }
    out
}

fn on_done(
    app: &mut App,
    cmd: UiCommand,
    result: Result<CommandOutcome, CommandError>,
) -> Vec<Effect> {
    let reverted_to = match &result {
        Ok(CommandOutcome::Reverted { height, .. }) => Some(*height),
        _ => None,
    };
    super::past::on_done(app, &cmd, result.is_ok(), reverted_to);
    let mut pool = super::pool::after_drop(app, &cmd);
    if let UiCommand::EstimateTimer(req) = &cmd {
        // Only the reply for the form's current input counts: one for older input (the user
        // typed on meanwhile) is dropped, as is any while the input is invalid.
        if let Overlay::Form(f) = &mut app.overlay
            && f.sent.as_ref() == Some(req)
        {
            match result {
                Ok(CommandOutcome::Estimated(e)) => match e.error.clone() {
                    Some(err) => {
                        f.estimate = None;
                        f.error = Some(err);
                    }
                    None => {
                        f.error = None;
                        f.estimate = Some(e);
                    }
                },
                Ok(_) => {}
                Err(e) => {
                    f.estimate = None;
                    f.error = Some(e);
                }
            }
        }
        return vec![];
    }
    if let UiCommand::EstimateDraft(_) = &cmd {
        // The `D` prompt stays open with the estimate of its input (or why it would fail).
        if let Overlay::Prompt(p) = &mut app.overlay
            && p.sent.as_deref() == Some(&cmd)
        {
            p.sent = None;
            match result {
                Ok(CommandOutcome::DraftEstimated(e)) => match &e.error {
                    Some(err) => p.error = Some(err.to_string()),
                    None => {
                        p.error = None;
                        p.estimate = Some((p.input.clone(), e.line()));
                    }
                },
                Ok(_) => {}
                Err(e) => p.error = Some(e.to_string()),
            }
        }
        return vec![];
    }
    // A prompt that sent this command stays open until it is answered: closed when it went
    // through, kept with its input and the error when it was refused.
    if let Overlay::Prompt(p) = &mut app.overlay
        && p.sent.as_deref() == Some(&cmd)
    {
        p.sent = None;
        match &result {
            Ok(_) => app.overlay = Overlay::None,
            Err(e) => p.error = Some(e.to_string()),
        }
    }
    if let (UiCommand::GovCancelTimer { timer_id, .. }, Ok(_)) = (&cmd, &result) {
        // Whether the timer existed shows in the event (system instruction 48 is idempotent).
        app.gov_cancels.push(*timer_id);
        let text = format!(
            "governance cancel of {} sent; its event says whether it existed",
            app.timer_label(timer_id)
        );
        app.toast(text, false);
        return vec![Effect::Refresh];
    }
    match result {
        Ok(out) => {
            match &out {
                CommandOutcome::SnapshotTaken(id) => app.snapshots.push(*id),
                CommandOutcome::MiningSet(MiningMode::Interval { ms }) => app.block_time_ms = *ms,
                _ => {}
            }
            if matches!(cmd, UiCommand::ScheduleTimer(_)) && matches!(app.overlay, Overlay::Form(_))
            {
                app.overlay = Overlay::None;
            }
            app.toast(out.summary(), false);
        }
        Err(e) => {
            if let (UiCommand::ScheduleTimer(_), Overlay::Form(f)) = (&cmd, &mut app.overlay) {
                f.error = Some(e.clone());
            }
            app.toast(format!("{} failed: {e}", cmd.method()), true);
        }
    }
    pool.push(Effect::Refresh);
    pool
}
