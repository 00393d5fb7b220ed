//! What a prompt's text means: the command it sends, or why it cannot (a named error). A timer
//! is a full id or a unique prefix of a live timer's id; an actor a label or a `0x` address.

use crate::engine::{Address, SchedulerKind, TimerId};
use crate::tui::command::{CallRequest, ConfigPatch, UiCommand};
use crate::tui::draft_request::DraftRequest;
use crate::tui::form::parse_number;
use crate::tui::prompt::{
    CALL_HELP, DRAFT_HELP, Prompt, PromptKind, TIMER_CONFIG_FIELDS, config_fields, govern_help,
};
use crate::tui::state::App;

fn num(s: &str) -> Result<u64, String> {
    parse_number::<u64>("", s)
}

/// The command a prompt's text asks for.
pub(super) fn prompt_command(app: &App, p: &Prompt) -> Result<UiCommand, String> {
    match &p.kind {
        PromptKind::Extend { actor, timer_id } => Ok(UiCommand::ExtendTimer {
            actor: *actor,
            timer_id: *timer_id,
            new_expires_at: num(p.input.trim())?,
        }),
        PromptKind::Draft => draft_command(app, &p.input),
        PromptKind::Call => call_request(app, &p.input).map(UiCommand::CallActor),
        PromptKind::Revert => revert_command(app, p.input.trim()),
        PromptKind::Govern { selected } => govern_command(app, &p.input, *selected),
    }
}

/// `R`: a snapshot id the node keeps.
fn revert_command(app: &App, v: &str) -> Result<UiCommand, String> {
    if v.is_empty() {
        return Err("name a snapshot id (S takes one)".into());
    }
    let id = num(v)?;
    // Issue 34, item 13: an id the node does not keep is refused before the confirmation, as
    // the node would refuse it (UnknownSnapshot).
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

/// `g`: a governance command line (system instructions 48/49/50 and the activation height).
fn govern_command(app: &App, input: &str, selected: Option<TimerId>) -> Result<UiCommand, String> {
    let words: Vec<&str> = input.split_whitespace().collect();
    // A named id is resolved or refused; only a command that names none acts on the selected
    // timer (and a cancel asks for confirmation naming it).
    let pick = |w: Option<&&str>| -> Result<TimerId, String> {
        match (w, selected) {
            (Some(w), _) => resolve_timer(app, w),
            (None, Some(t)) => Ok(t),
            (None, None) => {
                Err("name a timer (its id or the first digits of it) or select one first".into())
            }
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
        Some("config") => config_command(&words[1..], app.scheduler()),
        Some("activate") => Ok(UiCommand::GovSetActivationHeight {
            from: None,
            height: num(words.get(1).ok_or("activate HEIGHT")?)?,
        }),
        _ => Err(format!(
            "unknown governance command; {}",
            govern_help("", app.scheduler())
        )),
    }
}

/// `config FIELD=VALUE ...`: TimerConfig fields (49) or the scheduler's, not both in a line.
fn config_command(fields: &[&str], kind: SchedulerKind) -> Result<UiCommand, String> {
    let mut patch = ConfigPatch::default();
    let mut sched: Vec<(String, u64)> = Vec::new();
    let known = config_fields(kind);
    if fields.is_empty() {
        return Err(format!(
            "config FIELD=VALUE ... (fields under {kind}: {})",
            known.join(", ")
        ));
    }
    for w in fields {
        let (f, v) = w
            .split_once('=')
            .ok_or(format!("`{w}` is not FIELD=VALUE"))?;
        // Issue 34, item 5: the field is checked first, then its value, and the error names
        // both (the help below lists the fields).
        if !known.contains(&f) {
            let anywhere = SchedulerKind::ALL
                .iter()
                .any(|k| config_fields(*k).contains(&f));
            return Err(if anywhere {
                format!("`{f}` is not a {kind} field (Tab completes the field names listed below)")
            } else {
                format!("no config field `{f}` (Tab completes the field names listed below)")
            });
        }
        let v = parse_number::<u64>(f, v)?;
        if !set_config_field(&mut patch, f, v)? {
            sched.push((f.to_string(), v));
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

/// Sets a TimerConfig field of the patch (true), or says it is a scheduler's field (false).
fn set_config_field(patch: &mut ConfigPatch, f: &str, v: u64) -> Result<bool, String> {
    match f {
        "max_ttl_blocks" => patch.max_ttl_blocks = Some(v),
        "max_cycles_per_fire" => patch.max_cycles_per_fire = Some(v),
        "max_cells_per_fire" => patch.max_cells_per_fire = Some(v),
        "max_timers_per_actor" => {
            patch.max_timers_per_actor = Some(u32::try_from(v).map_err(|_| {
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
            return Ok(false);
        }
        other => {
            return Err(format!(
                "no config field `{other}` (fields: {})",
                TIMER_CONFIG_FIELDS.join(", ")
            ));
        }
    }
    Ok(true)
}

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

/// The ids of the timers the dashboard knows to be live: the selected bucket's, and those
/// the feed saw scheduled and not leave (fired, expired, unfunded, cancelled).
fn live_timers(app: &App) -> Vec<TimerId> {
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
fn resolve_timer(app: &App, word: &str) -> Result<TimerId, String> {
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

/// The call prompt's default sender (issue 32, Spec note 193): the dev account `dev0` when the
/// node names one, else the first named account (by name) that is not an actor, the governor
/// or the proposer.
pub(crate) fn default_sender(app: &App) -> Option<Address> {
    let names = &app.data.names;
    if let Some((a, _)) = names.iter().find(|(_, n)| n.as_str() == "dev0") {
        return Some(*a);
    }
    names
        .iter()
        .filter(|(a, n)| {
            !app.data.actors.contains(a) && !matches!(n.as_str(), "governance" | "proposer")
        })
        .min_by(|x, y| x.1.cmp(y.1))
        .map(|(a, _)| *a)
}

/// An account named in `from=`: a name the node knows or a `0x` address.
fn resolve_account(app: &App, word: &str) -> Result<Address, String> {
    if let Some((a, _)) = app.data.names.iter().find(|(_, n)| n.as_str() == word) {
        return Ok(*a);
    }
    word.parse::<Address>()
        .map_err(|_| format!("from=`{word}` names no account (a name or a 0x address)"))
}

/// The args of a call: a JSON array at the start of `rest`, and what follows it.
fn call_args(rest: &str) -> Result<(Vec<u8>, &str), String> {
    let rest = rest.trim_start();
    if !rest.starts_with('[') {
        return Ok((Vec::new(), rest));
    }
    let mut it = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
    match it.next() {
        Some(Ok(v)) => {
            let end = it.byte_offset();
            Ok((v.to_string().into_bytes(), &rest[end..]))
        }
        Some(Err(e)) => Err(format!("the args are not a JSON array: {e}")),
        None => Err("the args are not a JSON array".into()),
    }
}

/// `a`: `ACTOR METHOD [ARGS] [from=NAME]` (issue 32, Spec note 193): the actor by name or
/// address, the handler, the args (a JSON array, sent as its text in the payload), the
/// sender (default: [`default_sender`]).
pub(crate) fn call_request(app: &App, input: &str) -> Result<CallRequest, String> {
    let input = input.trim_start();
    let (actor, rest) = input.split_once(' ').unwrap_or((input, ""));
    if actor.is_empty() {
        return Err(format!("name the actor, then the method: {CALL_HELP}"));
    }
    let actor = resolve_actor(app, actor)?;
    let rest = rest.trim_start();
    let (handler, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    if handler.is_empty() || handler.starts_with('[') {
        return Err("name the method (the handler) after the actor".into());
    }
    let (payload, rest) = call_args(rest)?;
    let mut from = None;
    for w in rest.split_whitespace() {
        match w.split_once('=') {
            Some(("from", v)) => from = Some(resolve_account(app, v)?),
            Some(("value", _)) => {
                return Err("actor_call carries no value (a call moves no funds here)".into());
            }
            _ => return Err(format!("`{w}`: expected from=NAME after the args")),
        }
    }
    let from = from
        .or_else(|| default_sender(app))
        .ok_or("no account to send from: give from=NAME")?;
    Ok(CallRequest {
        from,
        actor,
        handler: handler.to_string(),
        payload,
    })
}
