//! The dashboard's data source over the JSON-RPC API (issue 15, `--attach URL`): a devnet
//! started elsewhere (`cowboy-devnet serve`) seen through the same [`DashboardSource`] as the
//! in-process node, with the calls a script would make.
//!
//! - Queries go over HTTP, batched: the view's read requests ([`crate::tui::view::ViewQueries`])
//!   as the JSON-RPC methods [`RpcQuery::METHOD`] names, decoded into the node's own reply
//!   types; the view is assembled from them as for the in-process node.
//! - Live updates come over WebSocket: `devnet_subscribeBlocks` (a block was sealed: refresh)
//!   and `devnet_subscribeEvents` (the feed). A block's events are handed to the feed once all
//!   of them arrived (the block's summary says how many), so the feed never skips the rest of
//!   a half-received block. Heights before the subscription started, and every gap (a lagging
//!   subscriber, a reconnection), are read with `devnet_getEvents`.
//! - Every [`UiCommand`] is the node request the in-process source applies
//!   ([`UiCommand::request`]), sent with the params its method decodes ([`RpcRequest`]); an
//!   error's `data.reason` and message become the [`CommandError`], as the in-process node
//!   gives them.
//!
//! The source is blocking (it runs its own small async runtime): the dashboard calls it from
//! its worker thread ([`crate::tui::worker`]), never from a key handler or a draw. When the
//! server does not answer, queries return the last replies, [`DashboardSource::link`] says
//! "disconnected, retrying", and the WebSocket is reopened every second until it answers.

use super::command::UiCommand;
use super::data::{CommandError, ViewQuery};
use super::model::DashboardSource;
use super::outcome::{Answer, CommandOutcome};
use crate::chain::EventRecord;
use crate::engine::{Address, TimerId};
use crate::node::{At, EventFilter, EventsPage, EventsPageQuery, HeadQuery, MAX_PAGE, TimerQuery};
use crate::node::{BlockSummary, StoryNote};
use crate::rpc::error::ErrorData;
use crate::rpc::notice::Notice;
use crate::rpc::queries::RpcQuery;
use crate::tui::story::StoryItem;
use crate::tui::view::{
    LifeReplies, QueryReplies, SourceInfo, deferred_query, draft_query, life_queries,
};
use jsonrpsee::core::client::{ClientT, Error as ClientError, SubscriptionClientT};
use jsonrpsee::core::params::{ArrayParams, BatchRequestBuilder};
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use jsonrpsee::ws_client::WsClientBuilder;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Longest wait for a query's answer before the server counts as not answering.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait for a command (a `devnet_mine` of 1,000,000 blocks takes a while).
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(3_600);
/// Wait between two attempts to reopen the WebSocket.
pub const RETRY: Duration = Duration::from_secs(1);
/// How far back the feed reads history it did not see live, in heights.
pub const BACKFILL_HEIGHTS: u64 = 1_000;
/// Calls per batch (the server's default limit is 100).
const BATCH: usize = 90;
/// `HistoryPruned` (Spec note 73; docs/API.md "Errors").
const PRUNED: i32 = -32069;
/// Largest answer accepted, as the server's own limit.
const MAX_RESPONSE: u32 = 256 * 1024 * 1024;

/// What the subscription task reports.
#[derive(Debug)]
enum Note {
    /// A block summary: its height and how many events it recorded.
    Block {
        height: u64,
        events: u64,
    },
    Event(Box<EventRecord>),
    /// A story line of the fixture played live (`devnet_subscribeStory`).
    Story(StoryItem),
    /// The node dropped notifications for this subscriber.
    Lagged,
    /// The chain was replaced under the subscriptions (a revert, a reset, a load: issue 30).
    Reorg,
    Closed(String),
}

/// Calls of one batch, in order; their answers are decoded in the same order
/// ([`Answers::take`]).
#[derive(Default)]
struct Calls(Vec<(&'static str, Vec<Value>)>);

impl Calls {
    fn push<Q: RpcQuery>(&mut self, q: &Q) {
        self.0.push((Q::METHOD, q.params()));
    }
}

/// A batch's answers.
struct Answers(std::vec::IntoIter<Result<Value, String>>);

impl Answers {
    /// The next answer as `Q`'s reply.
    fn take<Q: RpcQuery>(&mut self) -> Result<Q::Reply, String> {
        let v = self
            .0
            .next()
            .ok_or("the batch answered fewer calls")?
            .map_err(|e| format!("{}: {e}", Q::METHOD))?;
        serde_json::from_value(v).map_err(|e| format!("{}: {e}", Q::METHOD))
    }
}

/// A devnet reached over its JSON-RPC API.
pub struct RemoteDevnet {
    rt: tokio::runtime::Runtime,
    url: String,
    ws_url: String,
    queries: HttpClient,
    commands: HttpClient,
    notes_tx: mpsc::UnboundedSender<Note>,
    notes: mpsc::UnboundedReceiver<Note>,
    subscription: Option<tokio::task::JoinHandle<()>>,
    next_try: Instant,
    http_error: Option<String>,
    ws_error: Option<String>,
    /// Why the last refresh failed while the node answered (a query it refused, a reply
    /// that did not decode): said in the status bar, the panes keep the last answer.
    refresh_error: Option<String>,
    /// Whether this connection's API was compared with this build's (`api_check.rs`), and
    /// what differs, as the status bar says it.
    api_checked: bool,
    api_differs: Option<String>,
    /// Heights up to this one are read with `devnet_getEvents`; above it the subscription
    /// delivers. `None`: no subscription.
    floor: Option<u64>,
    /// Read the history again before trusting the subscription (after a lag or a revert).
    resync: bool,
    /// Events delivered by the subscription above `floor`, not yet handed to the feed.
    live: BTreeMap<u64, Vec<EventRecord>>,
    /// Events each block above `floor` recorded, from its summary.
    expected: BTreeMap<u64, u64>,
    /// The last replies, shown while the server does not answer.
    last: Option<QueryReplies>,
    /// The node's names as of the last refresh.
    names: BTreeMap<Address, String>,
    /// Story lines the subscription delivered, not yet handed to the dashboard.
    story: Vec<StoryItem>,
}

/// `http://host:port` (or `ws://`, or `host:port`) as the HTTP and WebSocket URLs.
pub fn urls(url: &str) -> Result<(String, String), String> {
    let u = url.trim().trim_end_matches('/');
    let rest = if let Some(r) = u.strip_prefix("http://") {
        r
    } else if let Some(r) = u.strip_prefix("ws://") {
        r
    } else if u.starts_with("https://") || u.starts_with("wss://") {
        return Err(format!(
            "{url}: the devnet's JSON-RPC server speaks plain http:// and ws://"
        ));
    } else if u.contains("://") {
        return Err(format!(
            "{url}: expected http://HOST:PORT (or ws://HOST:PORT, or HOST:PORT)"
        ));
    } else {
        u
    };
    if rest.is_empty() {
        return Err(format!("{url}: no host"));
    }
    Ok((format!("http://{rest}"), format!("ws://{rest}")))
}

fn transport(e: &ClientError) -> bool {
    !matches!(e, ClientError::Call(_) | ClientError::ParseError(_))
}

/// A JSON-RPC error as the dashboard shows it: `data.reason` and the message without its
/// leading `Reason: ` (the in-process node's [`CommandError`]).
fn command_error(e: &ClientError, url: &str) -> CommandError {
    match e {
        ClientError::Call(obj) => {
            let reason = ErrorData::of(obj)
                .map(|d| d.reason)
                .unwrap_or_else(|| match obj.code() {
                    -32601 => "Unsupported".into(),
                    -32602 => "InvalidInput".into(),
                    c => format!("Error{c}"),
                });
            let msg = obj.message();
            let msg = msg
                .strip_prefix(reason.as_str())
                .and_then(|m| m.strip_prefix(": "))
                .unwrap_or(msg);
            CommandError::new(reason, msg)
        }
        other => CommandError::new("Disconnected", format!("{url}: {other}")),
    }
}

/// A chain subscription's message as the loop's note: an item by `item`, a lost stretch or a
/// replaced chain as a resync (the feed reads the history again from the node).
fn chain_note<T>(n: Notice<T>, item: impl FnOnce(T) -> Note) -> Note {
    match n {
        Notice::Item(t) => item(t),
        Notice::Lagged { .. } => Note::Lagged,
        Notice::Reorg { .. } => Note::Reorg,
    }
}

fn params(values: Vec<Value>) -> ArrayParams {
    let mut p = ArrayParams::new();
    for v in values {
        p.insert(v).expect("JSON values serialize");
    }
    p
}

/// The subscriptions' task: forwards block summaries and events until the connection ends.
async fn subscribe(
    ws_url: String,
    tx: mpsc::UnboundedSender<Note>,
) -> Result<tokio::task::JoinHandle<()>, ClientError> {
    let client = WsClientBuilder::default()
        .max_response_size(MAX_RESPONSE)
        .connection_timeout(QUERY_TIMEOUT)
        .request_timeout(QUERY_TIMEOUT)
        .build(&ws_url)
        .await?;
    let mut blocks = client
        .subscribe::<Notice<BlockSummary>, _>(
            "devnet_subscribeBlocks",
            ArrayParams::new(),
            "devnet_unsubscribeBlocks",
        )
        .await?;
    let mut events = client
        .subscribe::<Notice<EventRecord>, _>(
            "devnet_subscribeEvents",
            ArrayParams::new(),
            "devnet_unsubscribeEvents",
        )
        .await?;
    let mut story = client
        .subscribe::<Notice<StoryNote>, _>(
            "devnet_subscribeStory",
            ArrayParams::new(),
            "devnet_unsubscribeStory",
        )
        .await?;
    Ok(tokio::spawn(async move {
        // The connection lives as long as the task: dropping the client closes it.
        let _client = client;
        loop {
            let note = tokio::select! {
                b = blocks.next() => match b {
                    Some(Ok(n)) => chain_note(n, |b| Note::Block { height: b.height, events: b.events }),
                    Some(Err(e)) => Note::Closed(format!("a block notification did not parse: {e}")),
                    None => Note::Closed("the server closed the WebSocket".into()),
                },
                e = events.next() => match e {
                    Some(Ok(n)) => chain_note(n, |r| Note::Event(Box::new(r))),
                    Some(Err(e)) => Note::Closed(format!("an event did not parse: {e}")),
                    None => Note::Closed("the server closed the WebSocket".into()),
                },
                s = story.next() => match s {
                    Some(Ok(Notice::Item(n))) => Note::Story(crate::tui::story::from_note(n)),
                    // A lost story line is only lost (the chain's history is not); a story
                    // has no reorg.
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => Note::Closed(format!("a story line did not parse: {e}")),
                    None => Note::Closed("the server closed the WebSocket".into()),
                },
            };
            let closed = matches!(note, Note::Closed(_));
            if tx.send(note).is_err() || closed {
                return;
            }
        }
    }))
}

impl RemoteDevnet {
    /// A source for the devnet at `url` (`http://127.0.0.1:8645`). Nothing is asked yet: an
    /// unreachable server shows as "disconnected, retrying" in the dashboard.
    pub fn new(url: &str) -> Result<Self, String> {
        let (url, ws_url) = urls(url)?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("dashboard-rpc")
            .enable_all()
            .build()
            .map_err(|e| format!("starting the async runtime: {e}"))?;
        let http = |timeout: Duration| {
            HttpClientBuilder::default()
                .max_response_size(MAX_RESPONSE)
                .request_timeout(timeout)
                .build(&url)
                .map_err(|e| format!("{url}: {e}"))
        };
        let (queries, commands) = {
            let _in = rt.enter();
            (http(QUERY_TIMEOUT)?, http(COMMAND_TIMEOUT)?)
        };
        let (notes_tx, notes) = mpsc::unbounded_channel();
        Ok(RemoteDevnet {
            rt,
            url,
            ws_url,
            queries,
            commands,
            notes_tx,
            notes,
            subscription: None,
            next_try: Instant::now(),
            http_error: None,
            refresh_error: None,
            api_checked: false,
            api_differs: None,
            ws_error: None,
            story: Vec::new(),
            floor: None,
            resync: false,
            live: BTreeMap::new(),
            expected: BTreeMap::new(),
            last: None,
            names: BTreeMap::new(),
        })
    }

    /// The HTTP URL this source talks to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether the WebSocket subscriptions are open.
    pub fn subscribed(&self) -> bool {
        self.subscription.is_some()
    }

    fn note_http<T>(&mut self, r: Result<T, ClientError>) -> Result<T, ClientError> {
        match &r {
            Ok(_) => self.http_error = None,
            Err(e) if transport(e) => self.http_error = Some(e.to_string()),
            Err(_) => {}
        }
        r
    }

    /// One query.
    fn query(&mut self, method: &str, args: Vec<Value>) -> Result<Value, ClientError> {
        let r = self
            .rt
            .block_on(self.queries.request::<Value, _>(method, params(args)));
        self.note_http(r)
    }

    /// Many queries in as few round trips as the server's batch limit allows.
    fn batch(&mut self, calls: Calls) -> Result<Answers, String> {
        let mut out = Vec::with_capacity(calls.0.len());
        for chunk in calls.0.chunks(BATCH) {
            let mut b = BatchRequestBuilder::new();
            for (m, a) in chunk {
                b.insert(m, params(a.clone()))
                    .expect("JSON values serialize");
            }
            let r = self.rt.block_on(self.queries.batch_request::<Value>(b));
            let r = self.note_http(r).map_err(|e| e.to_string())?;
            out.extend(
                r.into_iter()
                    .map(|x| x.map_err(|e| format!("{} ({})", e.message(), e.code()))),
            );
        }
        Ok(Answers(out.into_iter()))
    }

    /// One read request.
    fn ask<Q: RpcQuery>(&mut self, q: &Q) -> Result<Q::Reply, String> {
        let mut c = Calls::default();
        c.push(q);
        self.batch(c)?.take::<Q>()
    }

    /// One command (the long timeout).
    fn command(&mut self, method: &str, args: Vec<Value>) -> Result<Value, CommandError> {
        let r = self
            .rt
            .block_on(self.commands.request::<Value, _>(method, params(args)));
        let url = self.url.clone();
        self.note_http(r).map_err(|e| command_error(&e, &url))
    }

    /// Opens the subscriptions when they are closed and a retry is due.
    fn ensure_subscribed(&mut self, now: Instant) {
        if let Some(task) = &self.subscription
            && !task.is_finished()
        {
            return;
        }
        if now < self.next_try {
            return;
        }
        self.next_try = now + RETRY;
        let r = self
            .rt
            .block_on(subscribe(self.ws_url.clone(), self.notes_tx.clone()));
        match r {
            Ok(task) => {
                self.subscription = Some(task);
                self.ws_error = None;
                // A new connection may be to another server (restarted, another build).
                self.api_checked = false;
                // History up to here is read over HTTP.
                self.resync = true;
            }
            Err(e) => self.ws_error = Some(e.to_string()),
        }
    }

    /// Compares the server's API with this build's (`rpc.discover` against the document
    /// this build serves); on a failed query it is tried again on the next refresh.
    fn check_api(&mut self) {
        let Ok(theirs) = self.query("rpc.discover", Vec::new()) else {
            return;
        };
        let ours = crate::rpc::openrpc::document();
        let differs = super::api_check::differences(&ours, &theirs);
        self.api_differs = super::api_check::status_line(&self.url, &differs);
        self.api_checked = true;
    }

    /// One refresh's queries in two batches: the view's queries, then the lane window's
    /// deferrals (which need the lane's first height).
    fn fetch(&mut self, q: &ViewQuery) -> Result<QueryReplies, String> {
        let v = q.queries();
        let mut calls = Calls::default();
        // Issue 24: a past view asks each read as of its height, and the live head after.
        calls.push(&At::new(v.head, v.at));
        calls.push(&At::new(v.config, v.at));
        calls.push(&At::new(v.tiers, v.at));
        calls.push(&At::new(v.buckets, v.at));
        calls.push(&At::new(v.lane, v.at));
        calls.push(&At::new(v.shares, v.at));
        calls.push(&At::new(v.names, v.at));
        calls.push(&At::new(v.actors, v.at));
        calls.push(&v.snapshots);
        if let Some(b) = &v.bucket {
            calls.push(&At::new(*b, v.at));
        }
        if v.at.is_some() {
            calls.push(&HeadQuery);
        }
        let mut a = self.batch(calls)?;
        let head = a.take::<HeadQuery>()?;
        let config = a.take::<crate::node::ConfigQuery>()?;
        let tiers = a.take::<crate::node::TiersQuery>()?;
        let buckets = a.take::<crate::node::BucketsQuery>()?;
        let lane = a.take::<crate::node::LaneQuery>()?;
        let shares = a.take::<crate::node::SharesQuery>()?;
        let names = a.take::<crate::node::NamesQuery>()?;
        let actors = a.take::<crate::node::ActorsQuery>()?;
        let snapshots = a.take::<crate::node::SnapshotsQuery>()?;
        let bucket = match &v.bucket {
            Some(_) => a.take::<crate::node::BucketPageQuery>()?,
            None => Default::default(),
        };
        let tip = match v.at {
            Some(_) => Some(a.take::<HeadQuery>()?),
            None => None,
        };
        let deferred = deferred_query(&lane, &head)
            .map(|q| self.ask(&q))
            .transpose()?
            .unwrap_or_default();
        // The drafts' state as of the viewed block too (`scheduler_draft` takes the tag).
        let draft = draft_query(&lane)
            .map(|q| self.ask(&At::new(q, v.at)))
            .transpose()?;
        // A revert (or another devnet behind the URL): the feed reads its history again.
        let live = |r: &QueryReplies| r.tip.as_ref().unwrap_or(&r.head).height;
        let now = tip.as_ref().unwrap_or(&head).height;
        if self.last.as_ref().is_some_and(|l| live(l) > now) {
            self.live.clear();
            self.expected.clear();
            self.resync = true;
        }
        Ok(QueryReplies {
            head,
            config,
            tiers,
            buckets,
            bucket,
            lane,
            shares,
            names,
            actors,
            snapshots,
            deferred,
            draft,
            tip,
        })
    }

    /// Events at `from..=to` over HTTP, the newest `BACKFILL_HEIGHTS` heights at most, and of
    /// those the newest [`MAX_PAGE`] events (a page with `newest`, issue 31): a window that
    /// holds a block of a million first deferrals is not sent whole (it was, on every refresh,
    /// while the answer failed: the feed stayed empty and the server spent a core on it).
    fn backfill(&mut self, from: u64, to: u64) -> Result<Vec<EventRecord>, ClientError> {
        if from > to {
            return Ok(Vec::new());
        }
        let from = from.max(to.saturating_sub(BACKFILL_HEIGHTS - 1));
        let q = EventsPageQuery {
            filter: EventFilter {
                from_height: Some(from),
                to_height: Some(to),
                ..EventFilter::default()
            },
            cursor: None,
            limit: MAX_PAGE,
            newest: true,
        };
        let v = match self.query(EventsPageQuery::METHOD, q.params()) {
            // Spec note 73: the node no longer keeps `from`; go on from its oldest kept height.
            Err(ClientError::Call(e)) if e.code() == PRUNED => {
                let first_kept = ErrorData::of(&e).and_then(|d| d.first_kept);
                match first_kept {
                    Some(kept) if kept > from && kept <= to => return self.backfill(kept, to),
                    _ => return Err(ClientError::Call(e)),
                }
            }
            r => r?,
        };
        let page: Option<EventsPage> = serde_json::from_value(v).ok();
        Ok(page.map(|p| p.events).unwrap_or_default())
    }

    fn fetch_events(&mut self, from: u64, limit: usize) -> Result<Vec<EventRecord>, ClientError> {
        // Delivered already: below `from`.
        self.live = self.live.split_off(&from);
        self.expected = self.expected.split_off(&from);
        let mut records = Vec::new();
        if self.resync || self.floor.is_none() {
            let head = self
                .query("devnet_blockNumber", vec![])?
                .as_u64()
                .unwrap_or(0);
            if self.subscription.is_some() {
                self.resync = false;
                self.floor = Some(head);
                self.live = self.live.split_off(&(head + 1));
                self.expected = self.expected.split_off(&(head + 1));
            }
            records = self.backfill(from, head)?;
        } else if let Some(floor) = self.floor
            && from <= floor
        {
            records = self.backfill(from, floor)?;
        }
        // Then the complete blocks the subscription delivered, in height order, up to the
        // first block still missing events.
        let mut heights: BTreeSet<u64> = self.live.keys().copied().collect();
        heights.extend(self.expected.keys().copied());
        for h in heights {
            let got = self.live.get(&h).map_or(0, Vec::len) as u64;
            match self.expected.get(&h) {
                // A block without events has nothing more to wait for.
                Some(0) if got == 0 => {
                    self.expected.remove(&h);
                }
                Some(n) if *n == got => {
                    records.extend(self.live.get(&h).cloned().unwrap_or_default());
                }
                _ => break,
            }
        }
        records.drain(..records.len().saturating_sub(limit));
        Ok(records)
    }

    fn drain_notes(&mut self) -> bool {
        let mut news = false;
        while let Ok(n) = self.notes.try_recv() {
            match n {
                Note::Block { height, events } => {
                    news = true;
                    if self.floor.is_none_or(|f| height > f) {
                        self.expected.insert(height, events);
                    }
                }
                Note::Event(r) => {
                    if self.floor.is_none_or(|f| r.height > f) {
                        self.live.entry(r.height).or_default().push(*r);
                    }
                }
                Note::Story(item) => {
                    news = true;
                    self.story.push(item);
                }
                Note::Lagged => {
                    // What was lost is read again from the history: nothing is dropped.
                    news = true;
                    self.resync = true;
                }
                Note::Reorg => {
                    // What was delivered may be of the old chain: read the new one's history.
                    news = true;
                    self.live.clear();
                    self.expected.clear();
                    self.resync = true;
                }
                Note::Closed(why) => {
                    news = true;
                    if let Some(t) = self.subscription.take() {
                        t.abort();
                    }
                    self.ws_error = Some(why);
                    self.floor = None;
                    self.live.clear();
                    self.expected.clear();
                }
            }
        }
        news
    }
}

impl DashboardSource for RemoteDevnet {
    fn replies(&mut self, q: &ViewQuery) -> Option<QueryReplies> {
        if !self.api_checked {
            self.check_api();
        }
        match self.fetch(q) {
            Ok(r) => {
                self.refresh_error = None;
                self.names = r.names.clone();
                self.last = Some(r.clone());
                Some(r)
            }
            // Unreachable, or a query refused: the last replies stay, and the status bar
            // says why.
            Err(e) => {
                self.refresh_error = Some(e);
                self.last.clone()
            }
        }
    }

    fn event_records(&mut self, from_height: u64, limit: usize) -> Vec<EventRecord> {
        self.fetch_events(from_height, limit).unwrap_or_default()
    }

    /// Issue 24: a past view asks each with the block tag (`timer_get`, `devnet_head`,
    /// `scheduler_config` take it as their last param).
    fn fire_trace(&mut self, id: &TimerId) -> Result<Vec<crate::chain::trace::Trace>, String> {
        self.ask(&crate::node::FireTrace {
            timer_id: *id,
            height: None,
        })
    }

    fn timer_page(&mut self, q: &crate::node::TimersPageQuery) -> Option<crate::node::TimerPage> {
        self.ask(q).ok()
    }

    fn pending_txs(&mut self) -> Result<Vec<crate::node::TxView>, String> {
        self.ask(&crate::node::PendingTxsQuery)
    }

    fn dry_run(
        &mut self,
        req: &super::command::DryRequest,
    ) -> Result<crate::node::DryRunView, String> {
        let c = req.command().request().ok_or("no request to dry run")?;
        let (method, args) = crate::rpc::command::encode(&c)?;
        let v = self
            .command("devnet_call", super::remote_dry::params(method, args)?)
            .map_err(|e| e.to_string())?;
        super::remote_dry::decode(v)
    }

    fn payload_at(&mut self, id: &TimerId, at: u64) -> Result<Option<Vec<u8>>, String> {
        let (timer, _, _) = life_queries(*id, Some(at));
        let mut calls = Calls::default();
        calls.push(&timer);
        let t = self.batch(calls)?.take::<TimerQuery>()?;
        Ok(t.and_then(|t| t.payload))
    }

    fn life_replies_at(&mut self, id: &TimerId, at: Option<u64>) -> Option<LifeReplies> {
        let (timer, head, config) = life_queries(*id, at);
        let mut calls = Calls::default();
        calls.push(&timer);
        calls.push(&head);
        calls.push(&config);
        let mut a = self.batch(calls).ok()?;
        Some(LifeReplies {
            timer: a.take::<TimerQuery>().ok()?,
            head: a.take::<HeadQuery>().ok()?,
            config: a.take::<crate::node::ConfigQuery>().ok()?,
            at,
        })
    }

    fn info(&self) -> SourceInfo {
        SourceInfo {
            rpc_address: Some(self.url.clone()),
            names: self.names.clone(),
        }
    }

    /// Each command is the node's [`Command`](crate::node::Command) the in-process source
    /// executes ([`UiCommand::request`]), sent as JSON-RPC by the RPC adapter's encoding
    /// ([`crate::rpc::command::encode`]); the result decodes into the same typed reply.
    fn execute(&mut self, cmd: UiCommand) -> Result<CommandOutcome, CommandError> {
        let Some(c) = cmd.request() else {
            return self.export().map(|a| CommandOutcome::of(&cmd, a));
        };
        let (method, args) =
            crate::rpc::command::encode(&c).map_err(|e| CommandError::new("InvalidInput", e))?;
        let v = self.command(method, args)?;
        let reply = c
            .decode_reply(v)
            .map_err(|e| CommandError::new("InvalidResponse", format!("{method}: {e}")))?;
        let answer = super::reply::answer(&cmd, reply, self);
        Ok(CommandOutcome::of(&cmd, answer))
    }

    /// Reopens the subscriptions when they are closed (at most every [`RETRY`]) and takes
    /// what they delivered: true when a block was sealed or the link changed.
    fn tick(&mut self, now: Instant) -> bool {
        let was = self.subscription.is_some();
        self.ensure_subscribed(now);
        let news = self.drain_notes();
        news || was != self.subscription.is_some()
    }

    fn link(&self) -> Option<String> {
        match (&self.http_error, &self.ws_error) {
            (Some(e), _) => Some(format!("disconnected, retrying ({}: {e})", self.url)),
            (None, Some(e)) if self.subscription.is_none() => {
                Some(format!("no live updates, retrying ({}: {e})", self.ws_url))
            }
            _ => {
                let failed = self
                    .refresh_error
                    .as_ref()
                    .map(|e| format!("a refresh failed, showing the last answer ({e})"));
                match (failed, &self.api_differs) {
                    (Some(f), Some(d)) => Some(format!("{f}; {d}")),
                    (f, d) => f.or_else(|| d.clone()),
                }
            }
        }
    }

    fn take_story(&mut self) -> Vec<StoryItem> {
        self.drain_notes();
        std::mem::take(&mut self.story)
    }
}

impl Drop for RemoteDevnet {
    fn drop(&mut self) {
        if let Some(t) = self.subscription.take() {
            t.abort();
        }
    }
}

impl RemoteDevnet {
    /// `devnet_exportFixture`'s fixture, written here, beside the dashboard (issue 24: the
    /// server's directory may be another machine's).
    fn export(&mut self) -> Result<Answer, CommandError> {
        let v = self.command("devnet_exportFixture", Vec::new())?;
        // The reply decodes into the type the server wrote it from; with a base, the base
        // dump came in it (Spec note 131).
        let x: crate::scenario::export::Exported = serde_json::from_value(v)
            .map_err(|e| CommandError::new("InvalidInput", format!("the export's reply: {e}")))?;
        let (text, base, blocks) = (x.fixture.as_str(), x.base.as_deref(), x.blocks);
        let path = crate::tui::past::write_session(text, base, blocks)?;
        Ok(Answer::Exported(path, blocks))
    }
}

impl super::reply::AfterReads for RemoteDevnet {
    fn expiry(&mut self, id: &TimerId) -> Option<u64> {
        let t = self.ask(&TimerQuery { id: *id }).ok().flatten();
        t.map(|t| t.expires_at)
    }
    fn height(&mut self) -> u64 {
        self.ask(&HeadQuery).map_or(0, |h| h.height)
    }
}
