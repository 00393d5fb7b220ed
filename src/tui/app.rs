//! App state and the pure update (the Elm pattern ratatui recommends): [`update`] turns an
//! [`Action`] (a key press, fresh data, a command's reply) into state changes and a list of
//! [`Effect`]s for the loop to carry out (node commands and queries). Nothing here touches the
//! terminal or the node.

use super::keys::KeyMap;
use super::model::*;
use crate::engine::{Address, TimerId};
use crossterm::event::KeyEvent;
use std::collections::VecDeque;

pub use super::filter::FeedFilter;
pub use super::form::{FormField, ScheduleForm};
pub use super::prompt::{Prompt, PromptKind};

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

    pub(crate) fn index(self) -> usize {
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
    pub(crate) fn next(self) -> Self {
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

    pub(crate) fn toast(&mut self, text: impl Into<String>, error: bool) {
        self.toast = Some(Toast {
            text: text.into(),
            error,
        });
    }

    pub(crate) fn push_events(&mut self, events: Vec<EventRow>) {
        for e in events {
            if self.feed.len() >= FEED_CAPACITY {
                self.feed.pop_front();
                self.events_dropped += 1;
            }
            self.feed.push_back(e);
        }
    }

    pub(crate) fn form_estimate(&mut self) -> Vec<Effect> {
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
        Action::Key(k) => super::input::on_key(app, k),
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
