//! The source on its own thread (issue 15, "Rendering never waits on block production or RPC
//! load"): the UI sends [`Job`]s over a channel and takes the [`Reply`]s that came back between
//! frames, so neither a key handler nor a draw ever waits on the node or the network. A long
//! `Mine`, a slow block or a dead server holds the worker, not the UI: the panes keep the last
//! view, keys still answer, and the status bar says what is awaited.
//!
//! [`Client`] is the UI's end: it carries out an [`Effect`] by sending its job, keeps at most
//! one refresh in flight (the feed asks for events from the height the last refresh reached,
//! so two in flight would ask twice), and turns replies into [`Action`]s for [`update`].

use super::app::{Action, update};
use super::command::UiCommand;
use super::data::{CommandError, DashboardData, EventRow, MiningMode, TimerLife, ViewQuery};
use super::model::DashboardSource;
use super::outcome::CommandOutcome;
use super::state::{App, Effect};
use crate::engine::TimerId;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::thread;
use std::time::{Duration, Instant};

/// What the UI asks of the source.
#[derive(Clone, Debug)]
pub enum Job {
    /// A refresh: the data for `query` and the events from `events_from`.
    Refresh {
        query: ViewQuery,
        events_from: u64,
    },
    Command(UiCommand),
    /// A timer's life as of a sealed height (issue 24; `None`: the head).
    Life(TimerId, Option<u64>),
    /// The timer finder's page (issue 32).
    Find(crate::node::TimersPageQuery),
    Trace(TimerId),
    /// A timer's payload as of a sealed height (issue 34, item 3).
    Payload(TimerId, u64),
    /// The open block's transactions (issue 32: the pool overlay).
    Pool,
    /// A schedule or call request's dry run (issue 32).
    DryRun(super::command::DryRequest),
}

/// What comes back.
#[derive(Clone, Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "one message per key press or reply, never stored in bulk: a schedule request with its CIP-1 v3 fee fields is carried unboxed"
)]
pub enum Reply {
    Refreshed {
        data: Box<DashboardData>,
        events: Vec<EventRow>,
        dropped: u64,
        link: Option<String>,
    },
    Done(UiCommand, Result<CommandOutcome, CommandError>),
    Life(TimerId, Option<u64>, Option<Box<TimerLife>>),
    Found(crate::node::TimersPageQuery, Option<crate::node::TimerPage>),
    Traced(TimerId, Result<Vec<crate::chain::trace::Trace>, String>),
    Payload(TimerId, u64, Result<Option<Vec<u8>>, String>),
    Pool(Result<Vec<crate::node::TxView>, String>),
    DryRan(Box<crate::tui::pool_state::DryRanReply>),
    /// The source saw something new (a block): worth a refresh.
    News,
    /// The source's link changed (see [`DashboardSource::link`]).
    Link(Option<String>),
    /// A fixture's story went on (issue 23).
    Story(Vec<super::story::StoryItem>),
}

/// Runs `source` on a thread of its own until the UI's end of the channel goes away.
///
/// Between jobs the worker lets time pass for the source ([`DashboardSource::tick`]) at its
/// deadlines and at least every `poll`, and reports news and link changes.
pub fn spawn<S: DashboardSource + Send + 'static>(
    mut source: S,
    poll: Duration,
) -> (Sender<Job>, Receiver<Reply>) {
    let (job_tx, jobs) = mpsc::channel::<Job>();
    let (tx, replies) = mpsc::channel::<Reply>();
    thread::Builder::new()
        .name("dashboard-source".into())
        .spawn(move || {
            let mut link = source.link();
            loop {
                let now = Instant::now();
                let wait = source
                    .next_deadline()
                    .map_or(poll, |d| d.saturating_duration_since(now).min(poll));
                let reply = match jobs.recv_timeout(wait) {
                    Ok(job) => Some(run_job(&mut source, job)),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return,
                };
                let mut out: Vec<Reply> = reply.into_iter().collect();
                if source.tick(Instant::now()) {
                    out.push(Reply::News);
                }
                let story = source.take_story();
                if !story.is_empty() {
                    out.push(Reply::Story(story));
                }
                let l = source.link();
                if l != link {
                    link = l.clone();
                    out.push(Reply::Link(l));
                }
                for r in out {
                    if tx.send(r).is_err() {
                        return;
                    }
                }
            }
        })
        .expect("the dashboard's source thread starts");
    (job_tx, replies)
}

/// Carries out one job on the source.
pub fn run_job<S: DashboardSource + ?Sized>(source: &mut S, job: Job) -> Reply {
    match job {
        Job::Refresh { query, events_from } => {
            let dropped = source.take_dropped();
            let data = source.dashboard(&query);
            let events = source.events(events_from, super::drive::EVENTS_PER_REFRESH + 1);
            Reply::Refreshed {
                data: Box::new(data),
                events,
                dropped,
                link: source.link(),
            }
        }
        Job::Command(cmd) => {
            let result = source.execute(cmd.clone());
            Reply::Done(cmd, result)
        }
        Job::Life(id, at) => {
            let life = source.timer_life_at(&id, at).map(Box::new);
            Reply::Life(id, at, life)
        }
        Job::Find(q) => {
            let page = source.timer_page(&q);
            Reply::Found(q, page)
        }
        Job::Trace(id) => Reply::Traced(id, source.fire_trace(&id)),
        Job::Payload(id, h) => Reply::Payload(id, h, source.payload_at(&id, h)),
        Job::Pool => Reply::Pool(source.pending_txs()),
        Job::DryRun(req) => {
            let result = source.dry_run(&req);
            Reply::DryRan(Box::new((req, result)))
        }
    }
}

/// A block's news refreshes at most this often (issue 31, Spec note 199): a busy chain's
/// blocks are shown as they come, one refresh at a time, not one refresh per block.
pub const NEWS_GAP: Duration = Duration::from_millis(250);

/// The UI's end of the worker.
pub struct Client {
    jobs: Sender<Job>,
    replies: Receiver<Reply>,
    refresh_in_flight: bool,
    refresh_wanted: bool,
    /// News came that no refresh sent since has covered ([`NEWS_GAP`]).
    news: bool,
    /// When the last refresh was sent.
    last_sent: Option<Instant>,
    /// The worker is gone (it panicked): nothing more will come.
    pub gone: bool,
}

impl Client {
    /// Starts `source` on its own thread.
    pub fn spawn<S: DashboardSource + Send + 'static>(source: S, poll: Duration) -> Self {
        let (jobs, replies) = spawn(source, poll);
        Client {
            jobs,
            replies,
            refresh_in_flight: false,
            refresh_wanted: false,
            news: false,
            last_sent: None,
            gone: false,
        }
    }

    fn send(&mut self, job: Job) {
        if self.jobs.send(job).is_err() {
            self.gone = true;
        }
    }

    /// Asks for a refresh now, or right after the one in flight.
    pub fn refresh(&mut self, app: &App) {
        if self.refresh_in_flight {
            self.refresh_wanted = true;
            return;
        }
        self.refresh_in_flight = true;
        self.refresh_wanted = false;
        self.news = false;
        self.last_sent = Some(Instant::now());
        self.send(Job::Refresh {
            query: app.query(),
            events_from: app.events_from,
        });
    }

    /// Refreshes when one is due (Spec note 199) and none is in flight: news waiting for
    /// [`NEWS_GAP`] since the last refresh, or nothing sent for `idle` (the safety net for what
    /// sends no news: a balance set by another client without a block).
    pub fn tick(&mut self, app: &App, idle: Duration) {
        if self.refresh_in_flight {
            return;
        }
        let since = self.last_sent.map_or(Duration::MAX, |t| t.elapsed());
        if (self.news && since >= NEWS_GAP) || since >= idle {
            self.refresh(app);
        }
    }

    /// Whether a refresh was asked for and has not come back.
    pub fn refreshing(&self) -> bool {
        self.refresh_in_flight
    }

    /// Sends what `effects` ask for; never waits.
    pub fn dispatch(&mut self, app: &mut App, effects: Vec<Effect>) {
        for e in effects {
            match e {
                Effect::Command(cmd) => {
                    app.waiting.push(cmd.method());
                    self.send(Job::Command(cmd));
                }
                // As of the height the panes show (issue 24).
                Effect::LoadLife(id) => self.send(Job::Life(id, app.shown_at())),
                Effect::Refresh => self.refresh(app),
                Effect::Find(q) => self.send(Job::Find(q)),
                Effect::LoadTrace(id) => self.send(Job::Trace(id)),
                Effect::LoadPayload(id, h) => self.send(Job::Payload(id, h)),
                Effect::LoadPool => self.send(Job::Pool),
                Effect::DryRun(req) => self.send(Job::DryRun(*req)),
            }
        }
    }

    /// Feeds one key press through the app and sends what it asks for.
    pub fn handle_key(&mut self, app: &mut App, key: crossterm::event::KeyEvent) {
        let effects = update(app, Action::Key(key));
        self.dispatch(app, effects);
    }

    /// Applies one reply to the app.
    pub fn apply(&mut self, app: &mut App, reply: Reply) {
        match reply {
            Reply::Refreshed {
                data,
                events,
                dropped,
                link,
            } => {
                self.refresh_in_flight = false;
                if app.data.status.is_none()
                    && let Some(MiningMode::Interval { ms }) =
                        data.status.as_ref().map(|s| s.mining)
                {
                    app.block_time_ms = ms;
                }
                app.set_link(link);
                let effects = super::drive::apply_refresh(app, *data, events, dropped);
                self.dispatch(app, effects);
                if self.refresh_wanted {
                    self.refresh(app);
                }
            }
            Reply::Done(cmd, result) => {
                if let Some(i) = app.waiting.iter().position(|m| *m == cmd.method()) {
                    app.waiting.remove(i);
                }
                let effects = update(app, Action::Done(cmd, result));
                self.dispatch(app, effects);
            }
            Reply::Life(id, at, life) => {
                let effects = update(app, Action::Life(id, at, life));
                self.dispatch(app, effects);
            }
            Reply::Found(q, page) => {
                let effects = update(app, Action::Found(q, page));
                self.dispatch(app, effects);
            }
            Reply::Traced(id, t) => {
                let effects = update(app, Action::Traced(id, t));
                self.dispatch(app, effects);
            }
            Reply::Payload(id, h, p) => {
                let effects = update(app, Action::Payload(id, h, p));
                self.dispatch(app, effects);
            }
            Reply::Pool(p) => {
                let effects = update(app, Action::Pool(p));
                self.dispatch(app, effects);
            }
            Reply::DryRan(r) => {
                let effects = update(app, Action::DryRan(r));
                self.dispatch(app, effects);
            }
            Reply::News => {
                self.news = true;
                self.tick(app, Duration::MAX);
            }
            Reply::Story(s) => {
                let effects = update(app, Action::Story(s));
                self.dispatch(app, effects);
            }
            Reply::Link(l) => {
                app.set_link(l);
                self.refresh(app);
            }
        }
    }

    /// Applies every reply that has arrived; never waits. True when any did.
    pub fn pump(&mut self, app: &mut App) -> bool {
        let mut any = false;
        loop {
            match self.replies.try_recv() {
                Ok(r) => {
                    self.apply(app, r);
                    any = true;
                }
                Err(TryRecvError::Empty) => {
                    self.tick(app, Duration::MAX);
                    return any;
                }
                Err(TryRecvError::Disconnected) => {
                    self.gone = true;
                    return any;
                }
            }
        }
    }

    /// Waits up to `timeout` for one reply and applies it (tests and the frame loop's idle
    /// wait). False when none came.
    pub fn wait(&mut self, app: &mut App, timeout: Duration) -> bool {
        match self.replies.recv_timeout(timeout) {
            Ok(r) => {
                self.apply(app, r);
                true
            }
            Err(RecvTimeoutError::Timeout) => {
                self.tick(app, Duration::MAX);
                false
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.gone = true;
                false
            }
        }
    }
}
