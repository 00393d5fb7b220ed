//! One-line prompts (`e`, `g`, `R`) and what their text means.

use super::app::{App, Effect, Overlay};
use super::form::edit;
use super::model::*;
use crate::engine::{Address, TimerId};
use crossterm::event::{KeyCode, KeyEvent};

/// What a one-line prompt is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PromptKind {
    /// New `expires_at` for a timer (`e`).
    Extend { actor: Address, timer_id: TimerId },
    /// A governance command line (`g`).
    Govern { selected: Option<TimerId> },
    /// A snapshot id to revert to (`R`).
    Revert,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub title: String,
    pub input: String,
    pub help: String,
}

pub(crate) fn prompt_key(app: &mut App, mut p: Prompt, k: KeyEvent) -> Vec<Effect> {
    match k.code {
        KeyCode::Esc => {
            app.overlay = Overlay::None;
            vec![]
        }
        KeyCode::Enter => match prompt_command(&p) {
            Ok(cmd) => {
                app.overlay = Overlay::None;
                vec![Effect::Command(cmd)]
            }
            Err(m) => {
                app.toast(format!("InvalidInput: {m}"), true);
                vec![]
            }
        },
        _ => {
            edit(&mut p.input, &k);
            app.overlay = Overlay::Prompt(p);
            vec![]
        }
    }
}

fn parse_id(s: &str) -> Result<TimerId, String> {
    s.parse::<TimerId>().map_err(|e| e.0)
}

fn prompt_command(p: &Prompt) -> Result<UiCommand, String> {
    let num = |s: &str| {
        s.replace('_', "")
            .parse::<u64>()
            .map_err(|_| format!("`{s}` is not a number"))
    };
    match &p.kind {
        PromptKind::Extend { actor, timer_id } => Ok(UiCommand::ExtendTimer {
            actor: *actor,
            timer_id: *timer_id,
            new_expires_at: num(p.input.trim())?,
        }),
        PromptKind::Revert => Ok(UiCommand::Revert(num(p.input.trim())?)),
        PromptKind::Govern { selected } => {
            let words: Vec<&str> = p.input.split_whitespace().collect();
            let pick = |w: Option<&&str>| -> Result<TimerId, String> {
                match (w, selected) {
                    (Some(w), _) if w.starts_with("0x") => parse_id(w),
                    (_, Some(t)) => Ok(*t),
                    _ => Err("name a timer id (0x...) or select a timer first".into()),
                }
            };
            match words.first().copied() {
                Some("cancel") => Ok(UiCommand::GovCancelTimer {
                    from: None,
                    timer_id: pick(words.get(1))?,
                }),
                Some("extend") => {
                    let (id, h) = match words.len() {
                        3 => (pick(words.get(1))?, words[2]),
                        2 => (pick(None)?, words[1]),
                        _ => return Err("extend [ID] HEIGHT".into()),
                    };
                    Ok(UiCommand::GovExtendTimer {
                        from: None,
                        timer_id: id,
                        new_expires_at: num(h)?,
                    })
                }
                Some("config") => {
                    let mut patch = ConfigPatch::default();
                    if words.len() < 2 {
                        return Err("config FIELD=VALUE ...".into());
                    }
                    for w in &words[1..] {
                        let (f, v) = w.split_once('=').ok_or(format!("`{w}`: FIELD=VALUE"))?;
                        let v = num(v)?;
                        match f {
                            "max_ttl_blocks" => patch.max_ttl_blocks = Some(v),
                            "max_cycles_per_fire" => patch.max_cycles_per_fire = Some(v),
                            "max_cells_per_fire" => patch.max_cells_per_fire = Some(v),
                            "max_timers_per_actor" => {
                                patch.max_timers_per_actor =
                                    Some(u32::try_from(v).map_err(|_| "too large".to_string())?)
                            }
                            "gc_cycles_per_block" => patch.gc_cycles_per_block = Some(v),
                            "lane_timer_cycles" => patch.lane_timer_cycles = Some(v),
                            other => return Err(format!("no TimerConfig field `{other}`")),
                        }
                    }
                    Ok(UiCommand::GovUpdateConfig { from: None, patch })
                }
                Some("activate") => Ok(UiCommand::GovSetActivationHeight {
                    from: None,
                    height: num(words.get(1).ok_or("activate HEIGHT")?)?,
                }),
                _ => Err(format!("unknown governance command; {}", p.help)),
            }
        }
    }
}
