//! The dashboard's state (the Elm pattern's model): [`App`], what covers the panes
//! ([`Overlay`]), and what the loop must do for it ([`Effect`]). The update that changes it is
//! [`super::app::update`], the key handlers are in `super::input`; nothing here touches the
//! terminal or the node, and nothing here imports the modules that change or draw the state.

use super::command::UiCommand;
use super::data::{CommandError, DashboardData, EventRow, FairnessRow, TimerLife, ViewQuery};
use super::filter::FeedFilter;
use super::form::ScheduleForm;
use super::keys::KeyMap;
use super::prompt::{Confirm, Prompt};
use crate::engine::{Address, TimerId};
use std::collections::{BTreeMap, VecDeque};

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
            FairnessSort::Deferrals => "first deferrals",
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
    /// The message log (`!`).
    Log,
    /// A feed row's detail (`Enter` on an event without a timer): its text and every field.
    Event(Box<EventRow>),
    /// A destructive command waiting for the user's yes (focus starts on Cancel).
    Confirm(Box<Confirm>),
    /// The timer finder (issue 32, `panes/finder.rs`).
    Finder(Box<super::finder_query::Finder>),
    /// A fire's trace (issue 32), opened from a timer's life with `t`.
    Trace(Box<TraceOverlay>),
    /// The open block's transactions, with drop (issue 32, `panes/pool.rs`).
    Pool(Box<super::pool_state::PoolOverlay>),
    /// A dry run's answer (issue 32), opened from the schedule form.
    DryRun(Box<super::pool_state::DryRunShown>),
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
    /// Snapshot ids this dashboard took (shown by `R` until a refresh lists them).
    pub snapshots: Vec<u64>,
    /// How the source's link to the devnet stands when it is not well ("disconnected,
    /// retrying"); `None` while it answers.
    pub link: Option<String>,
    /// The commands sent and not answered yet, by method, oldest first (a long `devnet_mine`
    /// shows here while the panes keep the last view).
    pub waiting: Vec<&'static str>,
    pub quit: bool,
    /// The timer the user selected in the bucket list: the selection follows it while blocks
    /// pass and is cleared (never moved to another timer) when it leaves (issue 23).
    pub timer_pin: Option<TimerId>,
    /// The pinned timer was not in its bucket: the next block's bucket is being read for it.
    pub timer_seek: bool,
    /// The cursor moved to a row of the bucket the page read does not hold (issue 31): its
    /// timer is pinned when the next page brings it.
    pub timer_want: bool,
    /// Mouse capture (`m`, `--no-mouse`): off, the terminal selects text (issue 34).
    pub mouse: bool,
    /// The focused pane maximised (`z`), and how far it is scrolled sideways.
    pub zoom: bool,
    pub hscroll: u16,
    /// The charts' window of blocks: an index into [`super::chart_window::WINDOWS`] (`<`/`>`).
    pub lane_window: usize,
    /// The open life or event is shown raw (`v`).
    pub raw: bool,
    /// Where `b` returns to (issue 34: back to where I was).
    pub mark: Option<Box<Mark>>,
    /// Watched timers pinned beside [`watch`](Self::watch) (issue 34: several at once), the
    /// oldest first, each with its life as last read.
    pub pinned: Vec<(TimerId, Option<Box<TimerLife>>)>,
    /// The live head's height of the first refresh after the status-line message was shown
    /// (`None` until then: `mined to #33` counts from #33): it expires some blocks later
    /// (issue 34, item 13: `mined to #33` still shown at #40).
    pub toast_at: Option<u64>,
    /// The drafts' state watches seen so far (issue 34, item 10).
    pub known_watches: KnownWatches,
    /// Whether the user selected an event in the feed (Up/Down, a click): until then the feed
    /// follows the newest event and selects nothing.
    pub feed_pin: bool,
    /// This process owns the devnet (the default command): quitting stops it, so `q` asks.
    pub owns_devnet: bool,
    /// Every status-line message, oldest first, in full (`!` shows them).
    pub log: VecDeque<LogEntry>,
    /// Governance cancels sent whose event has not been seen yet: the event says whether the
    /// timer existed.
    pub gov_cancels: Vec<TimerId>,
    /// First line shown of the help or the log overlay.
    pub scroll: u16,
    /// The last first line the scrolled overlay could show when it was last drawn (its lines
    /// less its height; `None` before a draw): a scroll key starts from `scroll` clamped to it,
    /// so ↑ after `End` moves at once (issue 34, item 1).
    pub scroll_max: std::cell::Cell<Option<u16>>,
    /// The timer the watch strip follows (`w`); it stays after the timer leaves.
    pub watch: Option<TimerId>,
    /// The watched timer's life as last read.
    pub watch_life: Option<Box<TimerLife>>,
    /// Text `y` asked to copy: the loop writes it to the terminal (OSC 52) and clears it.
    pub clipboard: Option<String>,
    /// The fixture's story so far, oldest first (the story line shows the newest).
    pub story: Vec<super::story::StoryItem>,
    /// Labels the fixture's steps gave timers.
    pub labels: std::collections::BTreeMap<TimerId, String>,
    /// The sealed height the dashboard views (`[`, issue 24); `None`: the head, live.
    pub view_at: Option<u64>,
    /// The drafts' pane's selection (issue 22).
    pub draft: super::draft_cursor::DraftCursor,
    /// The finder a life was opened from, and that life's timer: Esc in it goes back there
    /// (issue 32 item 2a).
    pub finder_back: Option<(TimerId, Box<super::finder_query::Finder>)>,
}

/// Where the user was: the viewed height (`None`: the live head) and the selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub view_at: Option<u64>,
    pub focus: Pane,
    pub bucket_pin: Option<u64>,
    pub in_bucket: bool,
    pub timer_pin: Option<TimerId>,
    pub feed_pin: bool,
    pub event_sel: usize,
}

impl Mark {
    pub(crate) fn of(app: &App) -> Mark {
        Mark {
            view_at: app.view_at,
            focus: app.focus,
            bucket_pin: app.bucket_pin,
            in_bucket: app.in_bucket,
            timer_pin: app.timer_pin,
            feed_pin: app.feed_pin,
            event_sel: app.event_sel,
        }
    }
}

/// The state watches this dashboard has seen in the drafts' index, with their keys: kept after
/// a watch leaves so its registration still reads as one.
pub type KnownWatches = BTreeMap<TimerId, Vec<String>>;

/// The trace overlay: the timer, and its fire's trace once it came back (or why not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceOverlay {
    pub id: TimerId,
    /// `None` while it is being asked.
    pub traces: Option<Result<Vec<crate::chain::trace::Trace>, String>>,
}

/// One message of the log (`!`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// The head height when it was shown.
    pub height: u64,
    pub text: String,
    pub error: bool,
}

/// Messages the log keeps.
pub const LOG_CAPACITY: usize = 500;

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
    /// The timer finder's page (issue 32).
    Find(crate::node::TimersPageQuery),
    /// Ask the trace of a timer's last fire (issue 32).
    LoadTrace(TimerId),
    /// Ask a timer's payload as of a sealed height (issue 34, item 3: a timer that left).
    LoadPayload(TimerId, u64),
    /// Ask the open block's transactions (issue 32: the pool overlay).
    LoadPool,
    /// Run the schedule form's or the call prompt's request as a dry run (issue 32).
    DryRun(Box<super::command::DryRequest>),
}

impl App {
    /// The scheduler the node says is in force (the default one until its status arrives).
    pub fn scheduler(&self) -> crate::engine::SchedulerKind {
        self.data
            .status
            .as_ref()
            .map_or(Default::default(), |s| s.scheduler)
    }

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
            scroll_max: std::cell::Cell::new(None),
            overlay: Overlay::None,
            toast: None,
            block_time_ms: 1_000,
            snapshots: Vec::new(),
            link: None,
            waiting: Vec::new(),
            quit: false,
            timer_pin: None,
            timer_seek: false,
            timer_want: false,
            mouse: true,
            zoom: false,
            hscroll: 0,
            lane_window: super::chart_window::DEFAULT_WINDOW,
            raw: false,
            mark: None,
            pinned: Vec::new(),
            toast_at: None,
            known_watches: Default::default(),
            feed_pin: false,
            owns_devnet: false,
            log: VecDeque::new(),
            gov_cancels: Vec::new(),
            scroll: 0,
            watch: None,
            watch_life: None,
            clipboard: None,
            story: Vec::new(),
            labels: std::collections::BTreeMap::new(),
            view_at: None,
            draft: Default::default(),
            finder_back: None,
        }
    }

    /// The queries the next refresh should make.
    pub fn query(&self) -> ViewQuery {
        // The bucket the user pinned, else the one under the cursor: the selected timer is
        // looked for in the timers of the bucket it was selected in.
        ViewQuery {
            selected_bucket: self
                .bucket_pin
                .or_else(|| self.data.buckets.get(self.bucket_sel).map(|b| b.height)),
            // Issue 31: the rows around the cursor (a position in the whole bucket), and the
            // page of the selected timer wherever it moved.
            bucket_offset: (self.timer_sel as u64).saturating_sub(super::data::PAGE_ABOVE),
            bucket_limit: super::data::PAGE_ABOVE + super::data::PAGE_BELOW,
            bucket_timer: self.timer_pin,
            at: self.view_at,
            lane_blocks: super::chart_window::blocks(self.lane_window) as usize,
            ..ViewQuery::default()
        }
    }

    /// Whether the drafts' pane has the keys: it is drawn (a draft scheduler) and focused.
    pub fn draft_focused(&self) -> bool {
        self.focus == Pane::Lane && self.data.draft.is_some()
    }

    pub fn height(&self) -> u64 {
        self.data.status.as_ref().map_or(0, |s| s.height)
    }

    /// Whether `id` is watched (the strip's newest or a pinned one).
    pub fn is_watched(&self, id: &TimerId) -> bool {
        self.watch == Some(*id) || self.pinned.iter().any(|(p, _)| p == id)
    }

    /// The live head's height (the viewed one is [`height`](Self::height)).
    pub fn tip(&self) -> u64 {
        self.data.status.as_ref().map_or(0, |s| s.tip)
    }

    /// The snapshot ids `R` offers, oldest first: the node's, as of the last refresh, and the
    /// ones this dashboard took since.
    pub fn snapshot_ids(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self.data.snapshots.iter().map(|s| s.id).collect();
        let newest = ids.last().copied();
        ids.extend(
            self.snapshots
                .iter()
                .copied()
                .filter(|id| newest.is_none_or(|n| *id > n)),
        );
        ids
    }

    /// Whether an event passes the feed filter.
    pub fn passes(&self, e: &EventRow) -> bool {
        // Viewing the past (issue 24): the events up to the viewed height.
        self.shown_at().is_none_or(|h| e.height <= h)
            && FeedFilter::parse(&self.filter).matches(e, &self.data)
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
        let shown_at = self.shown_at();
        let mut v: Vec<&EventRow> = Vec::with_capacity(n);
        for e in self.feed.iter().rev() {
            if v.len() >= n {
                break;
            }
            if shown_at.is_none_or(|h| e.height <= h) && f.matches(e, &self.data) {
                v.push(e);
            }
        }
        v.reverse();
        v
    }

    /// The selected event (the newest passing the filter when nothing else is selected).
    pub fn selected_event(&self) -> Option<&EventRow> {
        let f = FeedFilter::parse(&self.filter);
        let shown_at = self.shown_at();
        self.feed
            .iter()
            .rev()
            .filter(|e| shown_at.is_none_or(|h| e.height <= h) && f.matches(e, &self.data))
            .nth(self.event_sel)
    }

    /// The timer a command would act on: the one the user selected in the bucket list or the
    /// feed; never a default (issue 23: no implicit selection).
    pub fn selected_timer(&self) -> Option<(TimerId, Option<Address>)> {
        match self.focus {
            Pane::Buckets if self.in_bucket => self
                .timer_pin
                .and_then(|p| self.data.bucket_timers.iter().find(|t| t.id == p))
                .map(|t| (t.id, Some(t.actor))),
            Pane::Events if self.feed_pin => self
                .selected_event()
                .and_then(|e| e.timer.map(|t| (t, e.actor))),
            Pane::Lane => self.draft.selected(),
            _ => None,
        }
    }

    pub(crate) fn toast(&mut self, text: impl Into<String>, error: bool) {
        let text = text.into();
        self.log_message(text.clone(), error);
        self.toast = Some(Toast { text, error });
        self.toast_at = None;
    }

    /// Keeps a message in the log (`!`) without showing it in the status line.
    pub(crate) fn log_message(&mut self, text: String, error: bool) {
        let h = self.height();
        self.log_at(h, text, error);
    }

    /// Keeps a message in the log as of `height`.
    pub(crate) fn log_at(&mut self, height: u64, text: String, error: bool) {
        if self.log.len() >= LOG_CAPACITY {
            self.log.pop_front();
        }
        self.log.push_back(LogEntry {
            height,
            text,
            error,
        });
    }

    /// Selects row `i` (a position in the whole bucket) of the open bucket and pins its
    /// timer; a row the page read does not hold is pinned when the next page brings it.
    pub(crate) fn select_timer_row(&mut self, i: usize) {
        self.timer_sel = i;
        self.timer_pin = self.data.bucket_row(i).map(|t| t.id);
        self.timer_want = self.timer_pin.is_none() && i < self.data.bucket_len();
    }

    /// Whether the cursor is near the edge of the page read (or off it), so the next page
    /// should be asked (issue 31): fewer than half the rows above it or a few below it.
    pub(crate) fn page_runs_out(&self) -> bool {
        use super::data::{PAGE_ABOVE, PAGE_BELOW};
        let (sel, first) = (self.timer_sel as u64, self.data.bucket_offset);
        let end = first + self.data.bucket_timers.len() as u64;
        let total = self.data.bucket_total;
        (sel < first + PAGE_ABOVE / 2 && first > 0) || (sel + PAGE_BELOW / 4 >= end && end < total)
    }

    /// A timer as commands and confirmations name it: its label (a fixture's, when it has
    /// one), its short id, its actor and due height when the dashboard knows them.
    pub fn describe_timer(&self, id: &TimerId) -> String {
        let mut s = format!("timer {}", self.timer_label(id));
        let known = self
            .data
            .bucket_timers
            .iter()
            .find(|t| t.id == *id)
            .map(|t| (Some(t.actor), t.height))
            .or_else(|| {
                self.feed
                    .iter()
                    .find(|e| e.timer == Some(*id) && e.kind == "TimerScheduled")
                    .map(|e| {
                        let h = e
                            .fields
                            .split_whitespace()
                            .find_map(|f| f.strip_prefix("height="))
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(e.height);
                        (e.actor, h)
                    })
            });
        match known {
            Some((actor, h)) => {
                if let Some(a) = actor {
                    s.push_str(&format!(" of {}", self.data.label(&a)));
                }
                s.push_str(&format!(", due #{h}"));
            }
            None => s.push_str(" (not a live timer the dashboard knows)"),
        }
        s
    }

    /// How a timer is written wherever it appears: the label its fixture gave it, else its
    /// short id (the first 8 hex digits).
    pub fn timer_label(&self, id: &TimerId) -> String {
        self.labels.get(id).cloned().unwrap_or_else(|| id.short())
    }

    /// The link to the devnet changed: back from an outage, the errors it caused leave the
    /// status line (they stay in the log).
    pub fn set_link(&mut self, link: Option<String>) {
        if self.link.is_some() && link.is_none() && self.toast.as_ref().is_some_and(|t| t.error) {
            self.toast = None;
        }
        self.link = link;
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
                if form.sent.as_ref() == Some(&req) {
                    return vec![];
                }
                form.estimate = None;
                form.sent = Some(req.clone());
                vec![Effect::Command(UiCommand::EstimateTimer(req))]
            }
            Err(m) => {
                // Invalid input shows only its error; a reply for older input is dropped.
                form.estimate = None;
                form.sent = None;
                form.error = Some(CommandError::new("InvalidInput", m));
                vec![]
            }
        }
    }
}
