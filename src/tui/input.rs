//! What a key press does when no text field has the keyboard.

use super::app::*;
use super::form::ScheduleForm;
use super::keys::KeyAction;
use super::model::*;
use super::prompt::{Confirm, Confirmed, Prompt, PromptKind};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub(crate) fn on_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    // Ctrl-C always quits, whatever has the keyboard.
    if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
        app.quit = true;
        return vec![];
    }
    if app.filter_editing {
        return super::filter::filter_key(app, k);
    }
    match app.overlay.clone() {
        Overlay::Form(_) => return super::form::form_key(app, k),
        Overlay::Prompt(p) => return super::prompt::prompt_key(app, p, k),
        Overlay::Confirm(c) => return super::prompt::confirm_key(app, *c, k),
        Overlay::Finder(_) => return super::panes::finder::finder_key(app, k),
        Overlay::Trace(t) if app.keys.action_for(&k) == Some(KeyAction::Close) => {
            // Back to the life it was opened from.
            app.overlay = Overlay::LifeLoading(t.id);
            return vec![Effect::LoadLife(t.id)];
        }
        Overlay::Help | Overlay::Log | Overlay::Event(_) | Overlay::Trace(_) => {
            let a = app.keys.action_for(&k);
            let page = match k.code {
                KeyCode::PageUp => Some(-10),
                KeyCode::PageDown | KeyCode::Char(' ') => Some(10),
                KeyCode::Home => Some(i32::MIN / 2),
                KeyCode::End => Some(i32::MAX / 2),
                _ => match a {
                    Some(KeyAction::Up) => Some(-1),
                    Some(KeyAction::Down) => Some(1),
                    _ => None,
                },
            };
            if let Some(d) = page {
                // From where the overlay stands as last drawn (`End` and the log's opening
                // ask for the end, u16::MAX, which the draw clamps to the last page).
                let from = app
                    .scroll_max
                    .get()
                    .map_or(app.scroll, |m| app.scroll.min(m));
                let max = app.scroll_max.get().unwrap_or(u16::MAX);
                app.scroll = (from as i64 + d as i64).clamp(0, max as i64) as u16;
            } else if matches!(
                a,
                Some(KeyAction::Close) | Some(KeyAction::Help) | Some(KeyAction::Log)
            ) {
                app.overlay = Overlay::None;
                app.raw = false;
            } else if a == Some(KeyAction::Raw) && matches!(app.overlay, Overlay::Event(_)) {
                app.raw = !app.raw;
            } else if a == Some(KeyAction::Copy) && app.raw {
                copy_raw(app);
            } else if a == Some(KeyAction::Quit) {
                return quit(app);
            }
            return vec![];
        }
        Overlay::Life(_) | Overlay::LifeLoading(_) => {
            // The life follows the chain while open; the keys it does not use (step, pause,
            // watch, ...) pass through to the dashboard.
            let a = app.keys.action_for(&k);
            if matches!(a, Some(KeyAction::Close) | Some(KeyAction::Select)) {
                app.overlay = Overlay::None;
                app.raw = false;
                return vec![];
            }
            if a == Some(KeyAction::Raw) {
                app.raw = !app.raw;
                return vec![];
            }
            if a == Some(KeyAction::Trace) {
                return super::panes::trace::open(app);
            }
            if a == Some(KeyAction::Copy) && app.raw {
                copy_raw(app);
                return vec![];
            }
            if matches!(
                a,
                Some(KeyAction::Up)
                    | Some(KeyAction::Down)
                    | Some(KeyAction::Left)
                    | Some(KeyAction::Right)
                    | Some(KeyAction::FocusNext)
                    | Some(KeyAction::FocusPrev)
            ) {
                return vec![];
            }
            if a == Some(KeyAction::Watch) || a == Some(KeyAction::Copy) {
                let id = match &app.overlay {
                    Overlay::Life(l) => l.id,
                    Overlay::LifeLoading(id) => *id,
                    _ => unreachable!("matched above"),
                };
                return if a == Some(KeyAction::Watch) {
                    toggle_watch(app, id)
                } else {
                    copy_id(app, id.to_string(), "timer");
                    vec![]
                };
            }
        }
        Overlay::None => {}
    }
    let Some(action) = app.keys.action_for(&k) else {
        return vec![];
    };
    app.toast = None;
    match action {
        KeyAction::Quit => return quit(app),
        KeyAction::Help => {
            app.scroll = 0;
            app.scroll_max.set(None);
            app.overlay = Overlay::Help;
        }
        KeyAction::Find => return super::panes::finder::open(app),
        KeyAction::Trace => return super::panes::trace::open_selected(app),
        KeyAction::Log => {
            // The newest messages first in view: scrolled to the end when drawn.
            app.scroll = u16::MAX;
            app.scroll_max.set(None);
            app.overlay = Overlay::Log;
        }
        KeyAction::Watch => match app.selected_timer() {
            Some((id, _)) => return toggle_watch(app, id),
            None if app.watch.is_some() => {
                app.watch = None;
                app.pinned.clear();
                app.watch_life = None;
            }
            None => app.toast("select a timer (buckets, feed or drafts) to watch", true),
        },
        KeyAction::Copy => match (app.selected_timer(), app.focus) {
            (Some((id, _)), _) => copy_id(app, id.to_string(), "timer"),
            (None, Pane::Fairness) => match app.fairness_sorted().get(app.fairness_sel) {
                Some(r) => {
                    let a = r.actor;
                    copy_id(app, a.to_string(), "actor");
                }
                None => app.toast("select an actor or a timer to copy its id", true),
            },
            _ => app.toast("select a timer (buckets, feed) or an actor (fairness) to copy its id", true),
        },
        KeyAction::Close => {
            if let Some(out) = super::past::to_head(app) {
                return out;
            }
            app.in_bucket = false;
            app.timer_pin = None;
            app.draft.pin = None;
            if app.focus == Pane::Events {
                app.feed_pin = false;
                app.event_sel = 0;
            }
        }
        KeyAction::FocusNext => {
            app.focus = Pane::ALL[(app.focus.index() + 1) % Pane::ALL.len()];
        }
        KeyAction::FocusPrev => {
            app.focus = Pane::ALL[(app.focus.index() + Pane::ALL.len() - 1) % Pane::ALL.len()];
        }
        KeyAction::Up | KeyAction::Down => {
            let down = action == KeyAction::Down;
            let step = |v: &mut usize, len: usize| {
                if down {
                    *v = (*v + 1).min(len.saturating_sub(1));
                } else {
                    *v = v.saturating_sub(1);
                }
            };
            match app.focus {
                Pane::Buckets if app.in_bucket => {
                    // The first move selects the row under the cursor.
                    let mut i = app.timer_sel;
                    if app.timer_pin.is_some() {
                        step(&mut i, app.data.bucket_timers.len());
                    }
                    app.select_timer_row(i);
                }
                Pane::Buckets => {
                    let before = app.bucket_sel;
                    step(&mut app.bucket_sel, app.data.buckets.len());
                    app.bucket_pin = app.data.buckets.get(app.bucket_sel).map(|b| b.height);
                    if before != app.bucket_sel {
                        app.timer_sel = 0;
                        return vec![Effect::Refresh];
                    }
                }
                Pane::Fairness => step(&mut app.fairness_sel, app.data.fairness.len()),
                Pane::Lane => super::draft_cursor::step(app, down),
                Pane::Events if !app.feed_pin => {
                    // The first move selects the newest event; the feed then holds it.
                    app.feed_pin = app.selected_event().is_some();
                    app.event_sel = 0;
                }
                Pane::Events => {
                    // Up goes back in time (away from the newest).
                    if down {
                        app.event_sel = app.event_sel.saturating_sub(1);
                    } else {
                        let f = FeedFilter::parse(&app.filter);
                        let older = app
                            .feed
                            .iter()
                            .rev()
                            .filter(|e| f.matches(e, &app.data))
                            .nth(app.event_sel + 1);
                        if older.is_some() {
                            app.event_sel += 1;
                        }
                    }
                }
                _ => {}
            }
        }
        // A maximised pane (`z`) scrolls sideways.
        KeyAction::Right | KeyAction::Left
            if super::extras::zoom_scroll(app, action == KeyAction::Right) => {}
        KeyAction::Right => {
            if app.focus == Pane::Buckets && !app.in_bucket && !app.data.bucket_timers.is_empty() {
                app.in_bucket = true;
                app.bucket_pin = app.data.buckets.get(app.bucket_sel).map(|b| b.height);
                app.select_timer_row(0);
            }
        }
        KeyAction::Left => {
            app.in_bucket = false;
            app.timer_pin = None;
        }
        KeyAction::Select => match app.focus {
            Pane::Buckets if !app.in_bucket && !app.data.bucket_timers.is_empty() => {
                app.in_bucket = true;
                app.bucket_pin = app.data.buckets.get(app.bucket_sel).map(|b| b.height);
                app.select_timer_row(0);
            }
            Pane::Buckets if !app.in_bucket => {}
            Pane::Lane if super::draft_cursor::focused(app) => {
                return super::draft_cursor::open(app);
            }
            Pane::Buckets | Pane::Events => {
                // Enter in the feed (details, changes nothing) selects the newest event when
                // none is selected, and opens its timer.
                if app.focus == Pane::Events && !app.feed_pin {
                    app.event_sel = 0;
                    app.feed_pin = app.selected_event().is_some();
                }
                if let Some((id, _)) = app.selected_timer() {
                    app.overlay = Overlay::LifeLoading(id);
                    return vec![Effect::LoadLife(id)];
                }
                // An event without a timer (a deploy, an activation, a block's backlog):
                // its detail.
                if app.focus == Pane::Events
                    && let Some(e) = app.selected_event().cloned()
                {
                    app.scroll = 0;
                    app.scroll_max.set(None);
                    app.overlay = Overlay::Event(Box::new(e));
                    return vec![];
                }
                app.toast("no timer selected", true);
            }
            _ => {}
        },
        KeyAction::Filter => {
            app.focus = Pane::Events;
            app.filter_editing = true;
        }
        KeyAction::PauseFeed => {
            app.feed_paused = !app.feed_paused;
            if !app.feed_paused {
                let held = std::mem::take(&mut app.held);
                app.push_events(held);
            }
        }
        KeyAction::Sort => app.fairness_sort = app.fairness_sort.next(),
        KeyAction::Step => return vec![Effect::Command(UiCommand::Mine(1))],
        KeyAction::StepTen => return vec![Effect::Command(UiCommand::Mine(10))],
        KeyAction::ToggleMining => {
            let mode = match app.data.status.as_ref().map(|s| s.mining) {
                Some(MiningMode::Interval { .. }) => MiningMode::Manual,
                _ => MiningMode::Interval {
                    ms: app.block_time_ms,
                },
            };
            return vec![Effect::Command(UiCommand::SetMining(mode))];
        }
        KeyAction::Faster | KeyAction::Slower => {
            let i = BLOCK_TIMES_MS
                .iter()
                .position(|t| *t >= app.block_time_ms)
                .unwrap_or(BLOCK_TIMES_MS.len() - 1);
            let j = if action == KeyAction::Faster {
                i.saturating_sub(1)
            } else {
                (i + 1).min(BLOCK_TIMES_MS.len() - 1)
            };
            app.block_time_ms = BLOCK_TIMES_MS[j];
            match app.data.status.as_ref().map(|s| s.mining) {
                Some(MiningMode::Interval { .. }) => {
                    return vec![Effect::Command(UiCommand::SetMining(
                        MiningMode::Interval {
                            ms: app.block_time_ms,
                        },
                    ))];
                }
                _ => app.toast(
                    format!(
                        "block time {} ms (applies when mining resumes: p)",
                        app.block_time_ms
                    ),
                    false,
                ),
            }
        }
        KeyAction::Schedule => {
            let actor = app
                .selected_timer()
                .and_then(|(_, a)| a)
                .and_then(|a| app.data.actors.iter().position(|x| *x == a))
                .unwrap_or(0);
            app.overlay = Overlay::Form(Box::new(ScheduleForm::new(actor)));
            return app.form_estimate();
        }
        KeyAction::Cancel => match app.selected_timer() {
            Some((timer_id, Some(actor))) => {
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
            _ => app.toast(
                "select a timer first: Enter or → opens a bucket, ↑/↓ picks a timer (or select a feed row)",
                true,
            ),
        },
        KeyAction::Extend => match app.selected_timer() {
            Some((timer_id, Some(actor))) => {
                let current = app
                    .data
                    .bucket_timers
                    .iter()
                    .find(|t| t.id == timer_id)
                    .map(|t| t.expires_at);
                // Issue 34, item 4: the extension runs in the next block, whose TTL cap is
                // its height + max_ttl_blocks (CIP-5 §5.4); prefill a value the cap allows
                // and that moves the expiry (100 blocks later, or the cap).
                let cap = app.data.status.as_ref().map(|s| {
                    s.tip
                        .saturating_add(1)
                        .saturating_add(s.max_ttl_blocks)
                });
                let wanted = current.map_or(app.height() + 100, |e| e.saturating_add(100));
                let default = cap.map_or(wanted, |c| wanted.min(c));
                let hint = match (current, cap) {
                    (Some(c), Some(cap)) if c >= cap => format!(
                        "new expires_at (now #{c}; the TTL cap is #{cap}: it cannot move later yet)"
                    ),
                    (Some(c), Some(cap)) => {
                        format!("new expires_at (now #{c}; the TTL cap allows up to #{cap})")
                    }
                    (None, Some(cap)) => format!("new expires_at (the TTL cap allows up to #{cap})"),
                    (Some(c), None) => format!("new expires_at (now #{c})"),
                    (None, None) => "new expires_at".to_string(),
                };
                app.overlay = Overlay::Prompt(Prompt::new(
                    PromptKind::Extend { actor, timer_id },
                    format!(
                        "extend {}: move its expiry (not its fire height)",
                        app.describe_timer(&timer_id)
                    ),
                    default.to_string(),
                    hint,
                ));
            }
            _ => app.toast("select a timer first (buckets or feed) to extend it", true),
        },
        KeyAction::Govern => {
            let selected = app.selected_timer().map(|(t, _)| t);
            let title = match &selected {
                Some(t) => format!(
                    "governance (48/49/50) · no ID: {}",
                    app.describe_timer(t)
                ),
                None => "governance (system instructions 48/49/50)".into(),
            };
            app.overlay = Overlay::Prompt(Prompt::new(
                PromptKind::Govern { selected },
                title,
                String::new(),
                super::prompt::govern_help(""),
            ));
        }
        KeyAction::Snapshot => return vec![Effect::Command(UiCommand::Snapshot)],
        KeyAction::ToggleMouse => super::extras::toggle_mouse(app),
        KeyAction::Return => return super::extras::go_back(app),
        KeyAction::Zoom => super::extras::toggle_zoom(app),
        KeyAction::NarrowWindow => return super::chart_window::step(app, false),
        KeyAction::WidenWindow => return super::chart_window::step(app, true),
        KeyAction::Raw => return super::extras::raw(app),
        KeyAction::Draft => {
            app.overlay = Overlay::Prompt(Prompt::new(
                PromptKind::Draft,
                "CIP-5 drafts: register a state watch or an interval timer".into(),
                String::new(),
                super::prompt::DRAFT_HELP.into(),
            ));
        }
        KeyAction::Back
        | KeyAction::Forward
        | KeyAction::BackTen
        | KeyAction::ForwardTen
        | KeyAction::Fork
        | KeyAction::Export => return super::past::history_key(app, action),
        KeyAction::Revert => {
            let ids = app.snapshot_ids();
            // The snapshots are the node's, not a block's state: while viewing the past the
            // list is the live one (the title says so), counted back from the head.
            let head = app.data.status.as_ref().map_or(0, |s| s.tip);
            let list = if ids.is_empty() {
                "the devnet keeps no snapshot (S takes one)".to_string()
            } else {
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
            };
            let title = match app.shown_at() {
                Some(h) => format!("revert to snapshot · the node's list now, not as of #{h}"),
                None => "revert to snapshot".into(),
            };
            app.overlay = Overlay::Prompt(Prompt::new(
                PromptKind::Revert,
                title,
                ids.last().map_or(String::new(), |s| s.to_string()),
                list,
            ));
        }
    }
    vec![]
}

/// `y` in the raw view: the whole of it to the clipboard (OSC 52).
fn copy_raw(app: &mut App) {
    if let Some((title, lines)) = super::panes::raw::raw_of(app) {
        app.clipboard = Some(lines.join("\n"));
        app.toast(format!("copied {title} ({} lines)", lines.len()), false);
    }
}

/// `q`: a dashboard whose process owns the devnet asks first (the devnet stops with it).
fn quit(app: &mut App) -> Vec<Effect> {
    if !app.owns_devnet {
        app.quit = true;
        return vec![];
    }
    app.overlay = Overlay::Confirm(Box::new(Confirm::new(
        "quit",
        vec![
            "quit the dashboard and stop the devnet it runs".into(),
            format!(
                "at #{}; its JSON-RPC server stops too (save with --state to keep it)",
                app.height()
            ),
        ],
        "quit",
        Confirmed::Quit,
    )));
    vec![]
}

/// `w`: watch a timer (or stop watching it).
/// `w`: watches the timer (the ones watched before stay pinned in the strip, at most
/// [`MAX_PINNED`] of them, issue 34), or stops watching it.
fn toggle_watch(app: &mut App, id: crate::engine::TimerId) -> Vec<Effect> {
    if app.watch == Some(id) {
        // The newest pinned one takes its line.
        match app.pinned.pop() {
            Some((p, life)) => {
                app.watch = Some(p);
                app.watch_life = life;
            }
            None => {
                app.watch = None;
                app.watch_life = None;
            }
        }
        return vec![];
    }
    if let Some(i) = app.pinned.iter().position(|(p, _)| *p == id) {
        app.pinned.remove(i);
        return vec![];
    }
    if let Some(w) = app.watch.take() {
        app.pinned.push((w, app.watch_life.take()));
        if app.pinned.len() > MAX_PINNED {
            app.pinned.remove(0);
        }
    }
    app.watch = Some(id);
    app.watch_life = None;
    vec![Effect::LoadLife(id)]
}

/// Watched timers kept pinned beside the newest one.
pub const MAX_PINNED: usize = 3;

/// `y`: puts `text` on the terminal's clipboard with OSC 52 (works over tmux and ssh).
fn copy_id(app: &mut App, text: String, what: &str) {
    app.clipboard = Some(text.clone());
    app.toast(format!("copied the {what} id {text} (OSC 52)"), false);
}
