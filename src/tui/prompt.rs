//! One-line prompts (`e`, `g`, `R`), what their text means, and the confirmation a
//! destructive command asks for before it is sent (issue 23: never act on the wrong thing).
//!
//! A timer named in a prompt is either a full id (`0x` and 64 hex digits) or a unique prefix
//! of a live timer's id, with or without `0x` (the 8-hex short ids the panes show are such
//! prefixes); anything else is an error naming it. A command without an id acts on the timer
//! the user selected, never on a default, and asks for confirmation naming it.

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
    /// A CIP-5 draft timer to register (`D`): `watch ...` or `interval ...`.
    Draft,
}

/// The `D` prompt's syntax.
pub const DRAFT_HELP: &str = "watch ACTOR KEY[,KEY..] | interval ACTOR EVERY [first=H] · then [gas=N] [bid=N] [nonce=N] [payload=TEXT] (cip5-draft, cip5-draft-zh)";

/// An actor by its label (fixture name, deploy name) or its `0x` address.
fn resolve_actor(app: &App, word: &str) -> Result<Address, String> {
    if let Some(a) = app.data.actors.iter().find(|a| app.data.label(a) == word) {
        return Ok(*a);
    }
    match word.parse::<Address>() {
        Ok(a) if app.data.actors.contains(&a) => Ok(a),
        _ => Err(format!(
            "`{word}` names no actor (a name or a 0x address of an actor)"
        )),
    }
}

/// `watch ACTOR KEYS [opts]` / `interval ACTOR EVERY [opts]` (issue 22).
fn draft_command(app: &App, input: &str) -> Result<UiCommand, String> {
    let num = |s: &str| super::form::parse_number::<u64>("", s);
    let words: Vec<&str> = input.split_whitespace().collect();
    let (interval, actor, what) = match words.as_slice() {
        ["watch", a, keys, ..] => (false, *a, *keys),
        ["interval", a, every, ..] => (true, *a, *every),
        ["watch" | "interval", ..] => {
            return Err("name the actor, then the keys (watch) or every (interval)".into());
        }
        _ => return Err(format!("start with `watch` or `interval`: {DRAFT_HELP}")),
    };
    let mut r = DraftRequest {
        actor: resolve_actor(app, actor)?,
        interval,
        keys: Vec::new(),
        every: None,
        first: None,
        payload: Vec::new(),
        gas_limit: None,
        bid: None,
        client_nonce: None,
    };
    if interval {
        r.every = Some(num(what)?);
    } else {
        r.keys = what
            .split(',')
            .filter(|k| !k.is_empty())
            .map(String::from)
            .collect();
    }
    for w in &words[3..] {
        match w.split_once('=') {
            Some(("gas", v)) => r.gas_limit = Some(num(v)?),
            Some(("bid", v)) => r.bid = Some(num(v)? as u128),
            Some(("nonce", v)) => r.client_nonce = Some(num(v)?),
            Some(("first", v)) if interval => r.first = Some(num(v)?),
            Some(("payload", v)) => r.payload = v.as_bytes().to_vec(),
            _ => {
                return Err(format!(
                    "`{w}`: expected gas=N, bid=N, nonce=N, payload=TEXT{}",
                    if interval { " or first=H" } else { "" }
                ));
            }
        }
    }
    Ok(UiCommand::DraftTimer(r))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub title: String,
    pub input: String,
    pub help: String,
    /// Why the node (or the parser) refused the last Enter; the prompt stays open with its
    /// input, as the schedule form does.
    pub error: Option<String>,
    /// The command sent from this prompt and not answered yet.
    pub sent: Option<Box<UiCommand>>,
    /// `D`: the input the shown estimate is for and its line (`timer_estimateDraft`, Spec
    /// note 129). Enter on an input without one estimates; Enter again registers.
    pub estimate: Option<(String, String)>,
}

impl Prompt {
    pub fn new(kind: PromptKind, title: String, input: String, help: String) -> Self {
        Prompt {
            kind,
            title,
            input,
            help,
            error: None,
            sent: None,
            estimate: None,
        }
    }
}

/// What a confirmation carries out when accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(
    clippy::large_enum_variant,
    reason = "one per open confirmation, never stored in bulk"
)]
pub enum Confirmed {
    Command(UiCommand),
    /// Quit a dashboard whose process owns the devnet (the devnet stops with it).
    Quit,
}

/// A modal naming what a destructive command acts on (as k9s does for delete): the focus
/// starts on Cancel; Enter acts on the focused button, `y` accepts, Esc or `n` cancels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confirm {
    pub title: String,
    /// What it acts on, in full.
    pub lines: Vec<String>,
    /// The accept button's text.
    pub yes: String,
    pub action: Confirmed,
    pub yes_focused: bool,
    /// The prompt it came from, reopened when cancelled.
    pub back: Option<Prompt>,
}

impl Confirm {
    pub fn new(title: impl Into<String>, lines: Vec<String>, yes: &str, action: Confirmed) -> Self {
        Confirm {
            title: title.into(),
            lines,
            yes: yes.into(),
            action,
            yes_focused: false,
            back: None,
        }
    }
}

/// The `TimerConfig` fields `g config` accepts (`gov_updateTimerConfig`); [`config_fields`]
/// adds the CIP-1 v3 scheduler parameters governance tunes (`gov_updateSchedulerConfig`,
/// issue 21 §3: §7.3 tier multipliers, §8 window, §10 cap) and the CIP-5 drafts' (English
/// §12, zh §13, through the same instruction). One line names `TimerConfig` fields or
/// scheduler fields.
pub const TIMER_CONFIG_FIELDS: [&str; 6] = [
    "max_ttl_blocks",
    "max_cycles_per_fire",
    "max_cells_per_fire",
    "max_timers_per_actor",
    "gc_cycles_per_block",
    "lane_timer_cycles",
];

/// Every field `g config` takes: [`TIMER_CONFIG_FIELDS`], then the scheduler's
/// ([`SchedulerParams::FIELDS`](crate::engine::SchedulerParams::FIELDS)) and the drafts'
/// ([`DraftParams::FIELDS`](crate::engine::draft::DraftParams::FIELDS)), as the engine names them.
pub fn config_fields() -> Vec<&'static str> {
    let mut v = TIMER_CONFIG_FIELDS.to_vec();
    v.extend(crate::engine::SchedulerParams::FIELDS);
    v.extend(crate::engine::draft::DraftParams::FIELDS);
    v
}

/// The governance prompt's commands.
pub const GOV_COMMANDS: [&str; 4] = ["cancel", "extend", "config", "activate"];

/// The governance prompt's help for what has been typed so far: the fields once `config` is
/// typed.
pub fn govern_help(input: &str) -> String {
    if input.trim_start().starts_with("config") {
        format!(
            "config FIELD=VALUE ... · fields: {}",
            config_fields().join(", ")
        )
    } else {
        "cancel [ID] | extend [ID] HEIGHT | config FIELD=VALUE ... | activate HEIGHT · Tab completes"
            .into()
    }
}

/// Completes the last word of a governance line: a command, or a config field name. `None`
/// when nothing (or more than one thing) starts with it.
pub fn complete(input: &str) -> Option<String> {
    let (before, last) = match input.rfind(' ') {
        Some(i) => (&input[..=i], &input[i + 1..]),
        None => ("", input),
    };
    let words = before.split_whitespace().count();
    let options: Vec<&str> = if words == 0 {
        GOV_COMMANDS.to_vec()
    } else if before.trim_start().starts_with("config") && !last.contains('=') {
        config_fields()
    } else {
        return None;
    };
    let hits: Vec<&str> = options
        .into_iter()
        .filter(|o| o.starts_with(last))
        .collect();
    match hits.as_slice() {
        [one] => Some(format!(
            "{before}{one}{}",
            if words == 0 { " " } else { "=" }
        )),
        _ => None,
    }
}

pub(crate) fn prompt_key(app: &mut App, mut p: Prompt, k: KeyEvent) -> Vec<Effect> {
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
            Err(m) => {
                // A refusal that already names its error (`UnknownSnapshot: ...`) keeps that
                // name; anything else is the input's fault.
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
        },
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
            if let Some(c) = complete(&p.input) {
                p.input = c;
            }
            p.help = govern_help(&p.input);
            app.overlay = Overlay::Prompt(p);
            vec![]
        }
        _ => {
            if edit(&mut p.input, &k) {
                p.error = None;
            }
            if matches!(p.kind, PromptKind::Govern { .. }) {
                p.help = govern_help(&p.input);
            }
            app.overlay = Overlay::Prompt(p);
            vec![]
        }
    }
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
pub fn revert_confirm(app: &App, id: u64) -> Confirm {
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
pub(crate) fn confirm_key(app: &mut App, mut c: Confirm, k: KeyEvent) -> Vec<Effect> {
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

/// The ids of the timers the dashboard knows to be live: the selected bucket's, and those
/// the feed saw scheduled and not leave (fired, expired, unfunded, cancelled).
pub fn live_timers(app: &App) -> Vec<TimerId> {
    let mut live: std::collections::BTreeSet<TimerId> =
        app.data.bucket_timers.iter().map(|t| t.id).collect();
    for e in app.feed.iter() {
        let Some(t) = e.timer else { continue };
        match e.kind.as_str() {
            "TimerScheduled" => {
                live.insert(t);
            }
            "TimerFired"
            | "TimerExpired"
            | "TimerCancelled"
            | "TimerCancelledInsufficientFunds" => {
                live.remove(&t);
            }
            "TimerCancelledByGovernance" if !e.fields.contains("existed=false") => {
                live.remove(&t);
            }
            _ => {}
        }
    }
    for t in &app.data.bucket_timers {
        live.insert(t.id);
    }
    live.into_iter().collect()
}

/// A timer named in a prompt: a full id (`0x` + 64 hex digits), or a unique prefix of a live
/// timer's id with or without `0x`; else an error naming the word.
pub fn resolve_timer(app: &App, word: &str) -> Result<TimerId, String> {
    let hex = word.strip_prefix("0x").unwrap_or(word).to_ascii_lowercase();
    if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) || hex.len() > 64 {
        return Err(format!(
            "`{word}` is not a timer id (0x and 64 hex digits, or the first digits of a live timer's id)"
        ));
    }
    if hex.len() == 64 {
        return word
            .parse::<TimerId>()
            .or_else(|_| format!("0x{hex}").parse::<TimerId>())
            .map_err(|e| format!("`{word}`: {}", e.0));
    }
    let hits: Vec<TimerId> = live_timers(app)
        .into_iter()
        .filter(|t| hex::encode(t.0).starts_with(&hex))
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!(
            "no live timer's id starts with `{word}` (give the full 0x id of any other)"
        )),
        many => Err(format!(
            "`{word}` starts {} live timers' ids ({}): type more digits",
            many.len(),
            many.iter()
                .take(4)
                .map(|t| hex::encode(&t.0[..6]))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn prompt_command(app: &App, p: &Prompt) -> Result<UiCommand, String> {
    let num = |s: &str| super::form::parse_number::<u64>("", s);
    match &p.kind {
        PromptKind::Extend { actor, timer_id } => Ok(UiCommand::ExtendTimer {
            actor: *actor,
            timer_id: *timer_id,
            new_expires_at: num(p.input.trim())?,
        }),
        PromptKind::Draft => draft_command(app, &p.input),
        PromptKind::Revert => {
            let v = p.input.trim();
            if v.is_empty() {
                return Err("name a snapshot id (S takes one)".into());
            }
            let id = num(v)?;
            // Issue 34, item 13: an id the node does not keep is refused before the
            // confirmation, as the node would refuse it (UnknownSnapshot).
            let ids = app.snapshot_ids();
            if !ids.contains(&id) {
                return Err(format!(
                    "UnknownSnapshot: no snapshot {id}; {}",
                    if ids.is_empty() {
                        "the node keeps none (S takes one)".to_string()
                    } else {
                        format!(
                            "the node keeps {}",
                            ids.iter()
                                .map(u64::to_string)
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }
                ));
            }
            Ok(UiCommand::Revert(id))
        }
        PromptKind::Govern { selected } => {
            let words: Vec<&str> = p.input.split_whitespace().collect();
            // A named id is resolved or refused; only a command that names none acts on the
            // selected timer (and a cancel asks for confirmation naming it).
            let pick = |w: Option<&&str>| -> Result<TimerId, String> {
                match (w, selected) {
                    (Some(w), _) => resolve_timer(app, w),
                    (None, Some(t)) => Ok(*t),
                    (None, None) => Err(
                        "name a timer (its id or the first digits of it) or select one first"
                            .into(),
                    ),
                }
            };
            match words.first().copied() {
                Some("cancel") => {
                    if words.len() > 2 {
                        return Err("cancel [ID]".into());
                    }
                    Ok(UiCommand::GovCancelTimer {
                        from: None,
                        timer_id: pick(words.get(1))?,
                    })
                }
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
                    let mut sched: Vec<(String, u64)> = Vec::new();
                    if words.len() < 2 {
                        return Err(format!(
                            "config FIELD=VALUE ... (fields: {})",
                            config_fields().join(", ")
                        ));
                    }
                    for w in &words[1..] {
                        let (f, v) = w
                            .split_once('=')
                            .ok_or(format!("`{w}` is not FIELD=VALUE"))?;
                        // Issue 34, item 5: the field is checked first, then its value, and
                        // the error names both (the help below lists the fields).
                        if !config_fields().contains(&f)
                            && !crate::engine::draft::DraftParams::is_field(f)
                        {
                            return Err(format!(
                                "no config field `{f}` (Tab completes the field names listed below)"
                            ));
                        }
                        let v = super::form::parse_number::<u64>(f, v)?;
                        match f {
                            "max_ttl_blocks" => patch.max_ttl_blocks = Some(v),
                            "max_cycles_per_fire" => patch.max_cycles_per_fire = Some(v),
                            "max_cells_per_fire" => patch.max_cells_per_fire = Some(v),
                            "max_timers_per_actor" => {
                                patch.max_timers_per_actor =
                                    Some(u32::try_from(v).map_err(|_| {
                                        format!(
                                            "max_timers_per_actor `{v}` is too large (at most {})",
                                            u32::MAX
                                        )
                                    })?)
                            }
                            "gc_cycles_per_block" => patch.gc_cycles_per_block = Some(v),
                            "lane_timer_cycles" => patch.lane_timer_cycles = Some(v),
                            f if crate::engine::SchedulerParams::FIELDS.contains(&f)
                                || crate::engine::draft::DraftParams::is_field(f) =>
                            {
                                sched.push((f.to_string(), v))
                            }
                            other => {
                                return Err(format!(
                                    "no config field `{other}` (fields: {})",
                                    config_fields().join(", ")
                                ));
                            }
                        }
                    }
                    match (sched.is_empty(), patch == ConfigPatch::default()) {
                        (true, _) => Ok(UiCommand::GovUpdateConfig { from: None, patch }),
                        (false, true) => Ok(UiCommand::GovUpdateSchedulerConfig {
                            from: None,
                            fields: sched,
                        }),
                        (false, false) => Err(
                            "TimerConfig fields and scheduler fields (tier_*, fairness_window_blocks, max_cycles_per_fire_auction) go in two lines"
                                .into(),
                        ),
                    }
                }
                Some("activate") => Ok(UiCommand::GovSetActivationHeight {
                    from: None,
                    height: num(words.get(1).ok_or("activate HEIGHT")?)?,
                }),
                _ => Err(format!("unknown governance command; {}", govern_help(""))),
            }
        }
    }
}
