//! App state and the pure update (the Elm pattern ratatui recommends): [`update`] turns an
//! [`Action`] (a key press, fresh data, a command's reply) into state changes and a list of
//! [`Effect`]s for the loop to carry out (node commands and queries). Nothing here touches the
//! terminal or the node.

use super::keys::{KeyAction, KeyMap};
use super::model::*;
use crate::engine::{Address, PriorityTier, TimerId};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::VecDeque;

/// Events the feed keeps; older ones are dropped (and counted).
pub const FEED_CAPACITY: usize = 100_000;
/// Block times `+` and `-` step through, in milliseconds.
pub const BLOCK_TIMES_MS: &[u64] = &[100, 250, 500, 1_000, 2_000, 5_000, 10_000];

/// The panes, in focus order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Buckets,
    Tiers,
    Lane,
    Fairness,
    Events,
}

impl Pane {
    pub const ALL: [Pane; 5] = [
        Pane::Buckets,
        Pane::Tiers,
        Pane::Lane,
        Pane::Fairness,
        Pane::Events,
    ];

    fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).expect("listed")
    }
}

/// Columns the fairness table sorts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FairnessSort {
    Fires,
    Deferrals,
    Pending,
    W,
    Actor,
}

impl FairnessSort {
    fn next(self) -> Self {
        match self {
            FairnessSort::Fires => FairnessSort::Deferrals,
            FairnessSort::Deferrals => FairnessSort::Pending,
            FairnessSort::Pending => FairnessSort::W,
            FairnessSort::W => FairnessSort::Actor,
            FairnessSort::Actor => FairnessSort::Fires,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            FairnessSort::Fires => "fires",
            FairnessSort::Deferrals => "deferrals",
            FairnessSort::Pending => "pending",
            FairnessSort::W => "W",
            FairnessSort::Actor => "actor",
        }
    }
}

/// The schedule form's fields, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormField {
    Actor,
    When,
    Handler,
    Payload,
    FeePayer,
    Gas,
    ExpiresAt,
    /// CIP-1 v3 §6 fee caps and §7.3 tier (optional: empty fields are priced by the GBA).
    MaxFee,
    MaxPriorityFee,
    Tier,
}

impl FormField {
    pub const ALL: [FormField; 10] = [
        FormField::Actor,
        FormField::When,
        FormField::Handler,
        FormField::Payload,
        FormField::FeePayer,
        FormField::Gas,
        FormField::ExpiresAt,
        FormField::MaxFee,
        FormField::MaxPriorityFee,
        FormField::Tier,
    ];

    pub fn label(self) -> &'static str {
        match self {
            FormField::Actor => "actor",
            FormField::When => "height or +delay",
            FormField::Handler => "handler",
            FormField::Payload => "payload",
            FormField::FeePayer => "fee payer",
            FormField::Gas => "gas per fire",
            FormField::ExpiresAt => "expires_at",
            FormField::MaxFee => "max_fee_per_cycle",
            FormField::MaxPriorityFee => "max_priority_fee_per_cycle",
            FormField::Tier => "priority_tier",
        }
    }

    pub fn hint(self) -> &'static str {
        match self {
            FormField::Actor => "←/→ choose",
            FormField::When => "+N: N blocks from now",
            FormField::Handler => "empty: handle_timer",
            FormField::Payload => "text",
            FormField::FeePayer => "self, or a name / 0x address",
            FormField::Gas => "empty: max per fire",
            FormField::ExpiresAt => "empty: height + max TTL",
            FormField::MaxFee => "nanos/cycle; empty: 2 × lane basefee",
            FormField::MaxPriorityFee => "nanos/cycle; empty: tier or p50 tip",
            FormField::Tier => "economy|standard|fast|urgent",
        }
    }
}

/// The schedule form (`s`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleForm {
    pub actor: usize,
    /// Text of every field but the actor.
    pub values: [String; FormField::ALL.len()],
    pub field: usize,
    pub estimate: Option<Estimate>,
    pub error: Option<CommandError>,
}

impl ScheduleForm {
    fn new(actor: usize) -> Self {
        let mut values: [String; FormField::ALL.len()] = Default::default();
        values[1] = "+5".into();
        values[4] = "self".into();
        ScheduleForm {
            actor,
            values,
            field: 1,
            estimate: None,
            error: None,
        }
    }

    pub fn value(&self, f: FormField) -> &str {
        &self.values[f as usize]
    }

    /// The request the form describes at head `height`, or what is wrong with it.
    pub fn request(&self, data: &DashboardData, height: u64) -> Result<ScheduleRequest, String> {
        let actor = *data
            .actors
            .get(self.actor)
            .ok_or("no actor is deployed: nothing can schedule a timer")?;
        let when = self.value(FormField::When).trim();
        // `+N` counts from the block being built (the head's next), as a fixture's `after`.
        let at = if let Some(d) = when.strip_prefix('+') {
            height
                + 1
                + d.parse::<u64>()
                    .map_err(|_| format!("delay `{d}` is not a number"))?
        } else {
            when.parse::<u64>()
                .map_err(|_| format!("height `{when}` is not a number (or +delay)"))?
        };
        let opt_u64 = |f: FormField| -> Result<Option<u64>, String> {
            let v = self.value(f).trim();
            if v.is_empty() {
                Ok(None)
            } else {
                v.replace('_', "")
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("{} `{v}` is not a number", f.label()))
            }
        };
        let payer = self.value(FormField::FeePayer).trim();
        let fee_payer = match payer {
            "" | "self" => None,
            p => Some(resolve_address(data, p)?),
        };
        let handler = self.value(FormField::Handler).trim();
        // Prices are nanos per cycle, as `timer_schedule` takes them (contract decision 1).
        let opt_u128 = |f: FormField| -> Result<Option<u128>, String> {
            let v = self.value(f).trim();
            if v.is_empty() {
                Ok(None)
            } else {
                v.replace('_', "")
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("{} `{v}` is not a number of nanos per cycle", f.label()))
            }
        };
        let tier = match self.value(FormField::Tier).trim() {
            "" => None,
            t => Some(
                PriorityTier::ALL
                    .into_iter()
                    .find(|p| p.as_str() == t)
                    .ok_or_else(|| {
                        format!("priority_tier `{t}` is not economy, standard, fast or urgent")
                    })?,
            ),
        };
        Ok(ScheduleRequest {
            actor,
            height: at,
            payload: self.value(FormField::Payload).as_bytes().to_vec(),
            handler: (!handler.is_empty()).then(|| handler.to_string()),
            from: None,
            fee_payer,
            gas_limit: opt_u64(FormField::Gas)?,
            expires_at: opt_u64(FormField::ExpiresAt)?,
            max_fee_per_cycle: opt_u128(FormField::MaxFee)?,
            max_priority_fee_per_cycle: opt_u128(FormField::MaxPriorityFee)?,
            priority_tier: tier,
        })
    }
}

/// A name from the address book or a `0x` address.
fn resolve_address(data: &DashboardData, s: &str) -> Result<Address, String> {
    if let Some((a, _)) = data.names.iter().find(|(_, n)| n.as_str() == s) {
        return Ok(*a);
    }
    s.parse::<Address>()
        .map_err(|_| format!("`{s}` is neither a known name nor a 0x address"))
}

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

/// What covers the panes.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Overlay {
    #[default]
    None,
    Help,
    Life(Box<TimerLife>),
    /// Waiting for a timer's life.
    LifeLoading(TimerId),
    Form(Box<ScheduleForm>),
    Prompt(Prompt),
}

/// A message in the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toast {
    pub text: String,
    pub error: bool,
}

/// Everything the dashboard shows and remembers.
#[derive(Clone, Debug)]
pub struct App {
    pub keys: KeyMap,
    pub data: DashboardData,
    pub feed: VecDeque<EventRow>,
    /// Events that arrived while the feed was paused.
    pub held: Vec<EventRow>,
    pub feed_paused: bool,
    /// Events dropped from the front of the feed (capacity) or by the source.
    pub events_dropped: u64,
    /// The next height whose events the feed asks for.
    pub events_from: u64,
    pub focus: Pane,
    pub bucket_sel: usize,
    /// The height the user selected, kept selected while blocks pass (until it is drained).
    pub bucket_pin: Option<u64>,
    /// Inside the selected bucket's timer list.
    pub in_bucket: bool,
    pub timer_sel: usize,
    /// Offset of the selected event from the newest one that passes the filter.
    pub event_sel: usize,
    pub fairness_sel: usize,
    pub fairness_sort: FairnessSort,
    pub filter: String,
    pub filter_editing: bool,
    pub overlay: Overlay,
    pub toast: Option<Toast>,
    /// The interval block time `p` resumes with and `+`/`-` adjust.
    pub block_time_ms: u64,
    pub snapshots: Vec<u64>,
    /// How the source's link to the devnet stands when it is not well ("disconnected,
    /// retrying"); `None` while it answers.
    pub link: Option<String>,
    /// The commands sent and not answered yet, by method, oldest first (a long `devnet_mine`
    /// shows here while the panes keep the last view).
    pub waiting: Vec<&'static str>,
    pub quit: bool,
}

/// The event feed's filter, parsed once per use: every word must match the event's kind, its
/// actor (name or address prefix) or its timer id (hex prefix); `kind:`, `actor:` and
/// `timer:` narrow a word to one of them. Case does not matter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeedFilter {
    words: Vec<(Scope, String)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    Any,
    Kind,
    Actor,
    Timer,
}

impl FeedFilter {
    pub fn parse(s: &str) -> Self {
        let words = s
            .split_whitespace()
            .map(|w| {
                let w = w.to_ascii_lowercase();
                for (p, scope) in [
                    ("kind:", Scope::Kind),
                    ("actor:", Scope::Actor),
                    ("timer:", Scope::Timer),
                ] {
                    if let Some(v) = w.strip_prefix(p) {
                        return (scope, v.to_string());
                    }
                }
                (Scope::Any, w)
            })
            .collect();
        FeedFilter { words }
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn matches(&self, e: &EventRow, data: &DashboardData) -> bool {
        let contains_ci = |hay: &str, w: &str| {
            hay.as_bytes()
                .windows(w.len().max(1))
                .any(|win| win.eq_ignore_ascii_case(w.as_bytes()))
        };
        let actor = |w: &str| {
            e.actor.is_some_and(|a| {
                data.names.get(&a).is_some_and(|n| contains_ci(n, w))
                    || (w.len() > 2 && w.starts_with("0x") && a.to_string().starts_with(w))
            })
        };
        let timer = |w: &str| {
            let w = w.trim_start_matches("0x");
            !w.is_empty()
                && w.len() <= 64
                && w.bytes().all(|b| b.is_ascii_hexdigit())
                && e.timer
                    .is_some_and(|t| hex::encode(&t.0[..w.len().div_ceil(2)]).starts_with(w))
        };
        self.words.iter().all(|(scope, w)| match scope {
            Scope::Kind => contains_ci(&e.kind, w),
            Scope::Actor => actor(w),
            Scope::Timer => timer(w),
            Scope::Any => contains_ci(&e.kind, w) || actor(w) || timer(w),
        })
    }
}

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
    Life(TimerId, Option<Box<TimerLife>>),
    Done(UiCommand, Result<CommandOutcome, CommandError>),
    /// A mouse button went down at this cell of a terminal of this size: focus the pane there.
    Click {
        column: u16,
        row: u16,
        width: u16,
        height: u16,
    },
}

/// What the loop must do for the app.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(
    clippy::large_enum_variant,
    reason = "one message per key press or reply, never stored in bulk: a schedule request with its CIP-1 v3 fee fields is carried unboxed"
)]
pub enum Effect {
    Command(UiCommand),
    LoadLife(TimerId),
    Refresh,
}

impl App {
    pub fn new(keys: KeyMap) -> Self {
        App {
            keys,
            data: DashboardData::default(),
            feed: VecDeque::new(),
            held: Vec::new(),
            feed_paused: false,
            events_dropped: 0,
            events_from: 0,
            focus: Pane::Buckets,
            bucket_sel: 0,
            bucket_pin: None,
            in_bucket: false,
            timer_sel: 0,
            event_sel: 0,
            fairness_sel: 0,
            fairness_sort: FairnessSort::Fires,
            filter: String::new(),
            filter_editing: false,
            overlay: Overlay::None,
            toast: None,
            block_time_ms: 1_000,
            snapshots: Vec::new(),
            link: None,
            waiting: Vec::new(),
            quit: false,
        }
    }

    /// The queries the next refresh should make.
    pub fn query(&self) -> ViewQuery {
        ViewQuery {
            selected_bucket: self.data.buckets.get(self.bucket_sel).map(|b| b.height),
            ..ViewQuery::default()
        }
    }

    pub fn height(&self) -> u64 {
        self.data.status.as_ref().map_or(0, |s| s.height)
    }

    /// Whether an event passes the feed filter.
    pub fn passes(&self, e: &EventRow) -> bool {
        FeedFilter::parse(&self.filter).matches(e, &self.data)
    }

    /// The fairness rows in the current sort order.
    pub fn fairness_sorted(&self) -> Vec<&FairnessRow> {
        let mut v: Vec<&FairnessRow> = self.data.fairness.iter().collect();
        match self.fairness_sort {
            FairnessSort::Fires => v.sort_by_key(|r| (std::cmp::Reverse(r.fires), r.actor)),
            FairnessSort::Deferrals => v.sort_by_key(|r| (std::cmp::Reverse(r.deferrals), r.actor)),
            FairnessSort::Pending => v.sort_by_key(|r| (std::cmp::Reverse(r.pending), r.actor)),
            FairnessSort::W => v.sort_by_key(|r| (std::cmp::Reverse(r.w_bps), r.actor)),
            FairnessSort::Actor => v.sort_by_key(|r| (self.data.label(&r.actor), r.actor)),
        }
        v
    }

    /// The newest events that pass the filter, at most `n`, oldest first, with the index (from
    /// the newest) of each. Walks back only as far as it needs.
    pub fn visible_events(&self, n: usize) -> Vec<&EventRow> {
        let f = FeedFilter::parse(&self.filter);
        let mut v: Vec<&EventRow> = Vec::with_capacity(n);
        for e in self.feed.iter().rev() {
            if v.len() >= n {
                break;
            }
            if f.matches(e, &self.data) {
                v.push(e);
            }
        }
        v.reverse();
        v
    }

    /// The selected event (the newest passing the filter when nothing else is selected).
    pub fn selected_event(&self) -> Option<&EventRow> {
        let f = FeedFilter::parse(&self.filter);
        self.feed
            .iter()
            .rev()
            .filter(|e| f.matches(e, &self.data))
            .nth(self.event_sel)
    }

    /// The timer a command would act on: the selected one in the bucket list or the feed.
    pub fn selected_timer(&self) -> Option<(TimerId, Option<Address>)> {
        match self.focus {
            Pane::Buckets if self.in_bucket => self
                .data
                .bucket_timers
                .get(self.timer_sel)
                .map(|t| (t.id, Some(t.actor))),
            Pane::Buckets => self
                .data
                .bucket_timers
                .first()
                .map(|t| (t.id, Some(t.actor))),
            Pane::Events => self
                .selected_event()
                .and_then(|e| e.timer.map(|t| (t, e.actor))),
            _ => None,
        }
    }

    fn toast(&mut self, text: impl Into<String>, error: bool) {
        self.toast = Some(Toast {
            text: text.into(),
            error,
        });
    }

    fn push_events(&mut self, events: Vec<EventRow>) {
        for e in events {
            if self.feed.len() >= FEED_CAPACITY {
                self.feed.pop_front();
                self.events_dropped += 1;
            }
            self.feed.push_back(e);
        }
    }

    fn form_estimate(&mut self) -> Vec<Effect> {
        let h = self.height();
        let Overlay::Form(form) = &mut self.overlay else {
            return vec![];
        };
        match form.request(&self.data, h) {
            Ok(req) => {
                form.error = None;
                vec![Effect::Command(UiCommand::EstimateTimer(req))]
            }
            Err(m) => {
                form.estimate = None;
                form.error = Some(CommandError::new("InvalidInput", m));
                vec![]
            }
        }
    }
}

/// Applies one action; returns what the loop must do next.
pub fn update(app: &mut App, action: Action) -> Vec<Effect> {
    match action {
        Action::Data(d) => {
            let d = *d;
            if d.status.as_ref().map(|s| s.height) < app.data.status.as_ref().map(|s| s.height) {
                // A revert went back: the feed restarts from the new head's history.
                app.feed.clear();
                app.held.clear();
                app.events_from = 0;
                app.event_sel = 0;
            }
            app.data = d;
            match app
                .bucket_pin
                .and_then(|h| app.data.buckets.iter().position(|b| b.height == h))
            {
                Some(i) => app.bucket_sel = i,
                None => {
                    app.bucket_pin = None;
                    app.bucket_sel = app.bucket_sel.min(app.data.buckets.len().saturating_sub(1));
                }
            }
            app.timer_sel = app
                .timer_sel
                .min(app.data.bucket_timers.len().saturating_sub(1));
            app.fairness_sel = app
                .fairness_sel
                .min(app.data.fairness.len().saturating_sub(1));
            if let Overlay::Form(f) = &mut app.overlay {
                f.actor = f.actor.min(app.data.actors.len().saturating_sub(1));
            }
            vec![]
        }
        Action::Events(ev) => {
            if let Some(last) = ev.last() {
                app.events_from = last.height + 1;
            }
            if app.feed_paused {
                app.held.extend(ev);
            } else {
                // A selection away from the newest stays on its event as newer ones arrive.
                if app.event_sel > 0 {
                    let f = FeedFilter::parse(&app.filter);
                    app.event_sel += ev.iter().filter(|e| f.matches(e, &app.data)).count();
                }
                app.push_events(ev);
            }
            vec![]
        }
        Action::Life(id, life) => {
            if app.overlay == Overlay::LifeLoading(id) {
                match life {
                    Some(l) => app.overlay = Overlay::Life(l),
                    None => {
                        app.overlay = Overlay::None;
                        app.toast(format!("TimerNotFound: no timer {}", id.short()), true);
                    }
                }
            }
            vec![]
        }
        Action::Done(cmd, result) => on_done(app, cmd, result),
        Action::Click {
            column,
            row,
            width,
            height,
        } => {
            if app.overlay == Overlay::None {
                let a = super::render::areas(ratatui::layout::Rect::new(0, 0, width, height));
                let at = ratatui::layout::Position::new(column, row);
                for (pane, r) in [
                    (Pane::Buckets, a.buckets),
                    (Pane::Tiers, a.tiers),
                    (Pane::Lane, a.lane),
                    (Pane::Fairness, a.fairness),
                    (Pane::Events, a.events),
                ] {
                    if r.contains(at) {
                        app.focus = pane;
                    }
                }
            }
            vec![]
        }
        Action::Key(k) => on_key(app, k),
    }
}

fn on_done(
    app: &mut App,
    cmd: UiCommand,
    result: Result<CommandOutcome, CommandError>,
) -> Vec<Effect> {
    if let UiCommand::EstimateTimer(_) = cmd {
        if let Overlay::Form(f) = &mut app.overlay {
            match result {
                Ok(CommandOutcome::Estimated(e)) => {
                    f.error = e.error.clone();
                    f.estimate = Some(e);
                }
                Ok(_) => {}
                Err(e) => f.error = Some(e),
            }
        }
        return vec![];
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
    vec![Effect::Refresh]
}

fn on_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    // Ctrl-C always quits, whatever has the keyboard.
    if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
        app.quit = true;
        return vec![];
    }
    if app.filter_editing {
        return filter_key(app, k);
    }
    match app.overlay.clone() {
        Overlay::Form(_) => return form_key(app, k),
        Overlay::Prompt(p) => return prompt_key(app, p, k),
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

fn filter_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    match k.code {
        KeyCode::Enter => app.filter_editing = false,
        KeyCode::Esc => {
            app.filter_editing = false;
            app.filter.clear();
        }
        KeyCode::Backspace => {
            app.filter.pop();
        }
        KeyCode::Char(c) => app.filter.push(c),
        _ => {}
    }
    app.event_sel = 0;
    vec![]
}

/// Edits a text field: characters append, Backspace deletes one, Ctrl-U clears it.
fn edit(s: &mut String, k: &KeyEvent) -> bool {
    if k.modifiers.contains(KeyModifiers::CONTROL) {
        if k.code == KeyCode::Char('u') {
            s.clear();
            return true;
        }
        return false;
    }
    match k.code {
        KeyCode::Backspace => {
            s.pop();
            true
        }
        KeyCode::Char(c) => {
            s.push(c);
            true
        }
        _ => false,
    }
}

fn form_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    let h = app.height();
    let n_actors = app.data.actors.len().max(1);
    let Overlay::Form(form) = &mut app.overlay else {
        return vec![];
    };
    let field = FormField::ALL[form.field];
    match k.code {
        KeyCode::Esc => {
            app.overlay = Overlay::None;
            return vec![];
        }
        KeyCode::Tab | KeyCode::Down => form.field = (form.field + 1) % FormField::ALL.len(),
        KeyCode::BackTab | KeyCode::Up => {
            form.field = (form.field + FormField::ALL.len() - 1) % FormField::ALL.len()
        }
        KeyCode::Enter => match form.request(&app.data, h) {
            Ok(req) => return vec![Effect::Command(UiCommand::ScheduleTimer(req))],
            Err(m) => {
                form.error = Some(CommandError::new("InvalidInput", m));
                return vec![];
            }
        },
        KeyCode::Left if field == FormField::Actor => {
            form.actor = (form.actor + n_actors - 1) % n_actors;
        }
        KeyCode::Right if field == FormField::Actor => form.actor = (form.actor + 1) % n_actors,
        _ if field == FormField::Actor => return vec![],
        _ => {
            if !edit(&mut form.values[form.field], &k) {
                return vec![];
            }
        }
    }
    app.form_estimate()
}

fn prompt_key(app: &mut App, mut p: Prompt, k: KeyEvent) -> Vec<Effect> {
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
