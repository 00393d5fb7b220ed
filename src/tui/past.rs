//! Stepping the dashboard back in time, and writing the session as a fixture (issue 24,
//! "Step the dashboard back"). `[` `]` (`{` `}`: ten) move the view one block back or
//! forward: every query of a refresh is asked as of that sealed block ([`ViewQuery::at`],
//! through the API alone when attached), the feed shows the events up to it, and the status
//! bar says `viewing #N · head #M`. `Esc` returns to the head. While viewing the past, commands
//! that change the chain are refused, except `F` (fork here: `devnet_revertTo` the viewed
//! height, after a confirmation naming the blocks it drops). `W` writes the session
//! (`devnet_exportFixture`) to a new file in the dashboard's current directory.

use super::command::UiCommand;
use super::data::{CommandError, TimerLife};
use super::keys::KeyAction;
use super::prompt::{Confirm, Confirmed};
use super::state::{App, Effect, Overlay};
use crate::engine::TimerId;

impl App {
    /// The past height the panes show (`None`: the head): the last refresh's, not the one
    /// asked for. `[` and `Esc` change [`App::view_at`] at once; the banner, the panes, the
    /// feed, the timer life and the watch strip all follow the refresh that answers, together,
    /// so the dashboard never shows a mix of two heights.
    pub fn shown_at(&self) -> Option<u64> {
        let s = self.data.status.as_ref()?;
        (s.height < s.tip).then_some(s.height)
    }
}

/// A timer's life came back, read as of `at`. One read as of a height the panes no longer
/// show (the view moved meanwhile) is asked again as of the shown one. As of a past height, a
/// timer the node did not know then (scheduled later) says so in the strip and the open life.
pub(crate) fn on_life(
    app: &mut App,
    id: TimerId,
    at: Option<u64>,
    life: Option<Box<TimerLife>>,
) -> Vec<Effect> {
    let open = matches!(&app.overlay, Overlay::Life(l) if l.id == id);
    let loading = app.overlay == Overlay::LifeLoading(id);
    if at != app.shown_at() {
        return if open || loading || app.is_watched(&id) {
            vec![Effect::LoadLife(id)]
        } else {
            vec![]
        };
    }
    let life = match (life, at) {
        (None, Some(h)) if !loading => Some(Box::new(TimerLife {
            at,
            id,
            status: format!("not known at #{h}"),
            record: None,
            deferrals: 0,
            timeline: Vec::new(),
            payload: None,
            left_at: None,
            payload_note: None,
        })),
        (l, _) => l,
    };
    if let Some(p) = app.pinned.iter_mut().find(|(p, _)| *p == id)
        && let Some(l) = &life
    {
        p.1 = Some(l.clone());
    }
    if app.watch == Some(id) {
        // At the head, a watched timer the node no longer knows (a revert took it back)
        // keeps its last life.
        if let Some(l) = &life {
            app.watch_life = Some(l.clone());
        }
    }
    if open {
        if let Some(mut l) = life {
            if let Overlay::Life(old) = &app.overlay {
                super::gone_payload::carry(old, &mut l);
            }
            let effects = super::gone_payload::want(app, &mut l);
            app.overlay = Overlay::Life(l);
            return effects;
        }
    } else if loading {
        match life {
            Some(mut l) => {
                let effects = super::gone_payload::want(app, &mut l);
                app.overlay = Overlay::Life(l);
                return effects;
            }
            None => {
                app.overlay = Overlay::None;
                let when = at.map_or(String::new(), |h| format!(" as of #{h}"));
                app.toast(
                    format!("TimerNotFound: no timer {}{when}", id.short()),
                    true,
                );
            }
        }
    }
    vec![]
}

/// The history keys: `[` `]` `{` `}` move the view, `F` forks at it, `W` exports.
pub(crate) fn history_key(app: &mut App, action: KeyAction) -> Vec<Effect> {
    let step = match action {
        KeyAction::Back => -1,
        KeyAction::Forward => 1,
        KeyAction::BackTen => -10,
        KeyAction::ForwardTen => 10,
        KeyAction::Fork => return fork(app),
        KeyAction::Export => return vec![Effect::Command(UiCommand::ExportSession)],
        _ => return vec![],
    };
    let Some(s) = &app.data.status else {
        return vec![];
    };
    let (tip, first_kept) = (s.tip, s.first_kept);
    // The oldest height whose state the node reads (Spec note 225): the view stops there.
    let first_state = s.first_state.max(first_kept);
    if app.view_at.is_none() {
        // Into the past from the head: `b` comes back here (issue 34).
        super::extras::mark(app);
    }
    let from = app.view_at.unwrap_or(tip);
    let to = from.saturating_add_signed(step);
    if to >= tip {
        app.view_at = None;
        app.toast(format!("back at the head #{tip}: live"), false);
    } else if to < first_kept && first_kept <= 1 {
        // Issue 34, item 11: nothing was pruned; the view stops at the first kept block.
        app.view_at = Some(first_kept.min(tip));
        app.toast(
            format!("#{first_kept} is the oldest block to view: genesis (#0) comes before it, nothing is pruned"),
            false,
        );
    } else if to < first_state {
        // The view stops at the first state the node reads, saying why: the block is gone
        // (Spec note 73: what the node keeps), or kept without its state (Spec note 225).
        let why = match to < first_kept {
            true => format!(
                "HistoryPruned: #{to} is older than the kept history; the node keeps #{first_kept}..#{tip} (serve --history)"
            ),
            false => format!(
                "StateNotKept: states kept from #{first_state} (#{to}: its block only; serve --checkpoint-budget)"
            ),
        };
        app.view_at = Some(first_state.min(tip));
        app.toast(why, true);
    } else {
        app.view_at = Some(to);
    }
    vec![Effect::Refresh]
}

/// `Esc` with no overlay while viewing the past: back to the head.
pub(crate) fn to_head(app: &mut App) -> Option<Vec<Effect>> {
    app.view_at.take()?;
    app.toast("back at the head: live", false);
    Some(vec![Effect::Refresh])
}

/// `F`: fork at the viewed height, after a confirmation naming it and the blocks it drops.
fn fork(app: &mut App) -> Vec<Effect> {
    let (Some(at), Some(s)) = (app.view_at, &app.data.status) else {
        app.toast("F forks at a past height: step back with [ first", true);
        return vec![];
    };
    let drops = s.tip.saturating_sub(at);
    app.overlay = Overlay::Confirm(Box::new(Confirm::new(
        "fork here",
        vec![
            format!("revert the chain to #{at} (devnet_revertTo {at})"),
            format!(
                "drops {drops} block{} (#{}..#{}) and what they applied",
                if drops == 1 { "" } else { "s" },
                at + 1,
                s.tip
            ),
        ],
        "fork",
        Confirmed::Command(UiCommand::RevertTo(at)),
    )));
    vec![]
}

/// Whether `cmd` may be sent while viewing the past: reads, and the fork.
fn allowed_in_past(cmd: &UiCommand) -> bool {
    matches!(
        cmd,
        UiCommand::EstimateTimer(_)
            | UiCommand::EstimateDraft(_)
            | UiCommand::RevertTo(_)
            | UiCommand::ExportSession
    )
}

/// While viewing the past, drops the commands that change the chain, with a toast.
pub(crate) fn refuse_in_past(app: &mut App, effects: Vec<Effect>) -> Vec<Effect> {
    let Some(at) = app.view_at else {
        return effects;
    };
    let mut out = Vec::with_capacity(effects.len());
    for e in effects {
        match &e {
            Effect::Command(cmd) if !allowed_in_past(cmd) => {
                let text = format!(
                    "{} refused: viewing the past (#{at}); Esc returns to the head, F forks here",
                    cmd.method()
                );
                app.toast(text, true);
                // The prompt that sent it waits for no answer: Enter works again at the head.
                if let Overlay::Prompt(p) = &mut app.overlay
                    && p.sent.as_deref() == Some(cmd)
                {
                    p.sent = None;
                }
            }
            _ => out.push(e),
        }
    }
    out
}

/// After a command's answer: a fork returns the view to the (new) head.
/// A fork or a revert also undoes the fixture's story told after the height it returns to
/// (issue 34, item 6): the story line shows the newest step the new branch still has.
pub(crate) fn on_done(app: &mut App, cmd: &UiCommand, ok: bool, height: Option<u64>) {
    if ok && matches!(cmd, UiCommand::Revert(_)) {
        // `b` returns to the selection (and the head) before the revert (issue 34); a fork
        // keeps the mark its jump into the past made.
        super::extras::mark(app);
    }
    if ok && matches!(cmd, UiCommand::RevertTo(_)) {
        app.view_at = None;
    }
    let back_to = match cmd {
        UiCommand::RevertTo(h) if ok => Some(*h),
        UiCommand::Revert(_) if ok => height,
        _ => None,
    };
    if let Some(h) = back_to {
        forget_story_after(app, h);
    }
}

/// Drops the story from its first item played after `height` (what follows it, expectations
/// included, was told of the dropped blocks).
pub(crate) fn forget_story_after(app: &mut App, height: u64) {
    if let Some(i) = app
        .story
        .iter()
        .position(|it| it.height.is_some_and(|h| h > height))
    {
        app.story.truncate(i);
    }
}

/// Writes an exported fixture to a new file `session-<height>.toml` in the current directory
/// (`session-<height>-2.toml`, … when taken: never overwrites); returns its name. A fixture
/// with a base gets its base beside it, `session-<height>.base.json` (new too, the pair under
/// one number), and names it (Spec note 131).
pub fn write_session(
    fixture: &str,
    base: Option<&crate::chain::ChainDump>,
    height: u64,
) -> Result<String, CommandError> {
    use crate::scenario::export::{base_file_for, with_base_file};
    use std::io::Write;
    let io = |name: &str, e: std::io::Error| {
        CommandError::new("IoError", format!("cannot write {name}: {e}"))
    };
    let create = |name: &str| {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(name)
    };
    for n in 1..1000u32 {
        let name = match n {
            1 => format!("session-{height}.toml"),
            n => format!("session-{height}-{n}.toml"),
        };
        let mut text = fixture.to_string();
        let mut base_file = None;
        if let Some(d) = base {
            let bname = base_file_for(std::path::Path::new(&name));
            match create(&bname) {
                Ok(mut f) => {
                    let state = crate::chain::dump::state_text(d);
                    f.write_all(state.as_bytes()).map_err(|e| io(&bname, e))?;
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(&bname, e)),
            }
            text = with_base_file(fixture, &bname);
            base_file = Some(bname);
        }
        match create(&name) {
            Ok(mut f) => {
                return f
                    .write_all(text.as_bytes())
                    .map(|_| name.clone())
                    .map_err(|e| io(&name, e));
            }
            Err(e) => {
                // The base written for this number is not the pair's: removed.
                if let Some(b) = &base_file {
                    let _ = std::fs::remove_file(b);
                }
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    continue;
                }
                return Err(io(&name, e));
            }
        }
    }
    Err(CommandError::new(
        "IoError",
        format!("session-{height}.toml and its numbered names are all taken"),
    ))
}
