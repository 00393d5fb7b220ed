//! What a key press does when no text field has the keyboard.

use super::app::*;
use super::form::ScheduleForm;
use super::keys::KeyAction;
use super::model::*;
use super::prompt::{Prompt, PromptKind};
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
        Overlay::Help | Overlay::Life(_) | Overlay::LifeLoading(_) => {
            let a = app.keys.action_for(&k);
            if matches!(a, Some(KeyAction::Close) | Some(KeyAction::Help))
                || (a == Some(KeyAction::Select) && app.overlay != Overlay::Help)
            {
                app.overlay = Overlay::None;
            } else if a == Some(KeyAction::Quit) {
                app.quit = true;
            }
            return vec![];
        }
        Overlay::None => {}
    }
    let Some(action) = app.keys.action_for(&k) else {
        return vec![];
    };
    app.toast = None;
    match action {
        KeyAction::Quit => app.quit = true,
        KeyAction::Help => app.overlay = Overlay::Help,
        KeyAction::Close => app.in_bucket = false,
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
                    step(&mut app.timer_sel, app.data.bucket_timers.len())
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
        KeyAction::Right => {
            if app.focus == Pane::Buckets && !app.data.bucket_timers.is_empty() {
                app.in_bucket = true;
            }
        }
        KeyAction::Left => app.in_bucket = false,
        KeyAction::Select => match app.focus {
            Pane::Buckets if !app.in_bucket && !app.data.bucket_timers.is_empty() => {
                app.in_bucket = true;
                app.timer_sel = 0;
            }
            Pane::Buckets if !app.in_bucket => {}
            Pane::Buckets | Pane::Events => {
                if let Some((id, _)) = app.selected_timer() {
                    app.overlay = Overlay::LifeLoading(id);
                    return vec![Effect::LoadLife(id)];
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
                return vec![Effect::Command(UiCommand::CancelTimer { actor, timer_id })];
            }
            _ => app.toast("select a pending timer (buckets or feed) to cancel", true),
        },
        KeyAction::Extend => match app.selected_timer() {
            Some((timer_id, Some(actor))) => {
                let current = app
                    .data
                    .bucket_timers
                    .iter()
                    .find(|t| t.id == timer_id)
                    .map(|t| t.expires_at);
                let default = current.map_or(app.height() + 100, |e| e + 100);
                app.overlay = Overlay::Prompt(Prompt {
                    kind: PromptKind::Extend { actor, timer_id },
                    title: format!("extend timer {}", timer_id.short()),
                    input: default.to_string(),
                    help: format!(
                        "new expires_at{}",
                        current.map_or(String::new(), |c| format!(" (now {c})"))
                    ),
                });
            }
            _ => app.toast("select a pending timer (buckets or feed) to extend", true),
        },
        KeyAction::Govern => {
            let selected = app.selected_timer().map(|(t, _)| t);
            app.overlay = Overlay::Prompt(Prompt {
                kind: PromptKind::Govern { selected },
                title: "governance (system instructions 48/49/50)".into(),
                input: String::new(),
                help: "cancel [ID] | extend [ID] HEIGHT | config FIELD=VALUE ... | activate HEIGHT"
                    .into(),
            });
        }
        KeyAction::Snapshot => return vec![Effect::Command(UiCommand::Snapshot)],
        KeyAction::Revert => {
            app.overlay = Overlay::Prompt(Prompt {
                kind: PromptKind::Revert,
                title: "revert to snapshot".into(),
                input: app
                    .snapshots
                    .last()
                    .map_or(String::new(), |s| s.to_string()),
                help: "snapshot id".into(),
            });
        }
    }
    vec![]
}
