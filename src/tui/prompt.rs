//! One-line prompts (`e`, `g`, `R`), what their text means, and the confirmation a
//! destructive command asks for before it is sent (issue 23: never act on the wrong thing).
//!
//! A timer named in a prompt is either a full id (`0x` and 64 hex digits) or a unique prefix
//! of a live timer's id, with or without `0x` (the 8-hex short ids the panes show are such
//! prefixes); anything else is an error naming it. A command without an id acts on the timer
//! the user selected, never on a default, and asks for confirmation naming it.

use super::command::UiCommand;
use crate::engine::scheduler::kind::GovSection;
use crate::engine::{Address, SchedulerKind, TimerId};

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
    /// A handler call (`a`, issue 32): `actor method [args] [from=NAME]`; Enter sends
    /// `actor_call`, `C-d` runs it as a dry run.
    Call,
}

/// The call prompt's syntax (issue 32, Spec note 193).
pub const CALL_HELP: &str = "ACTOR METHOD [ARGS as a JSON array, sent as the payload] [from=NAME] · Tab completes the actor · Enter calls, C-d dry run";

/// The `D` prompt's syntax.
pub const DRAFT_HELP: &str = "watch ACTOR KEY[,KEY..] | interval ACTOR EVERY [first=H] · then [gas=N] [bid=N] [nonce=N] [payload=TEXT] (cip5-draft, cip5-draft-zh)";

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

/// Every field `g config` takes under `kind`: [`TIMER_CONFIG_FIELDS`], then those of each
/// governance section the scheduler's registry entry names (issue 29: the CIP-1 v3
/// parameters, [`SchedulerParams::FIELDS`](crate::engine::SchedulerParams::FIELDS), and under
/// the drafts theirs, [`DraftParams::FIELDS`](crate::engine::draft::DraftParams::FIELDS)), as
/// the engine names them: a field the chain would refuse under `kind` is not offered.
pub fn config_fields(kind: SchedulerKind) -> Vec<&'static str> {
    let mut v = TIMER_CONFIG_FIELDS.to_vec();
    for section in kind.descriptor().governance {
        match section {
            GovSection::Cip1V3 => v.extend(crate::engine::SchedulerParams::FIELDS),
            GovSection::Draft => v.extend(crate::engine::draft::DraftParams::FIELDS),
        }
    }
    v
}

/// The governance prompt's commands.
pub const GOV_COMMANDS: [&str; 4] = ["cancel", "extend", "config", "activate"];

/// The governance prompt's help for what has been typed so far: the fields once `config` is
/// typed.
pub fn govern_help(input: &str, kind: SchedulerKind) -> String {
    if input.trim_start().starts_with("config") {
        format!(
            "config FIELD=VALUE ... · fields under {kind}: {}",
            config_fields(kind).join(", ")
        )
    } else {
        "cancel [ID] | extend [ID] HEIGHT | config FIELD=VALUE ... | activate HEIGHT · Tab completes"
            .into()
    }
}

/// The line cut before its last word, and the last word.
pub fn last_word(input: &str) -> (&str, &str) {
    match input.rfind(' ') {
        Some(i) => (&input[..=i], &input[i + 1..]),
        None => ("", input),
    }
}

/// The one option that starts with `last`, if exactly one does.
pub fn unique_prefix<'a>(
    last: &str,
    options: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut hits = options.into_iter().filter(|o| o.starts_with(last));
    match (hits.next(), hits.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// Completes the last word of a governance line: a command, or a config field name. `None`
/// when nothing (or more than one thing) starts with it.
pub fn complete(input: &str, kind: SchedulerKind) -> Option<String> {
    let (before, last) = last_word(input);
    let words = before.split_whitespace().count();
    let options: Vec<&str> = if words == 0 {
        GOV_COMMANDS.to_vec()
    } else if before.trim_start().starts_with("config") && !last.contains('=') {
        config_fields(kind)
    } else {
        return None;
    };
    unique_prefix(last, options)
        .map(|one| format!("{before}{one}{}", if words == 0 { " " } else { "=" }))
}

/// Completes the call prompt's actor (its first word) from `actors`' names, or a `from=`
/// word from `accounts`' (issue 32). `None` when nothing (or more than one) fits.
pub fn complete_call(input: &str, actors: &[String], accounts: &[String]) -> Option<String> {
    let (before, last) = last_word(input);
    if before.trim().is_empty() {
        return unique_prefix(last, actors.iter().map(String::as_str)).map(|one| format!("{one} "));
    }
    let who = last.strip_prefix("from=")?;
    unique_prefix(who, accounts.iter().map(String::as_str))
        .map(|one| format!("{before}from={one} "))
}
