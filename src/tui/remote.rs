//! The dashboard's data source over the JSON-RPC API (issue 15, `--attach URL`): a devnet
//! started elsewhere (`cowboy-devnet serve`) seen through the same [`DashboardSource`] as the
//! in-process node, with the calls a script would make.
//!
//! - Queries go over HTTP, batched: `devnet_head`, `scheduler_config`, `scheduler_tiers`,
//!   `devnet_accounts`, `devnet_getEvents` (new actors, the fairness window), `timer_list`
//!   (pending timers per actor), then `timer_bucket` per coming height and `devnet_getBlock`
//!   for the lane rows not seen yet (sealed blocks do not change, so each is read once).
//! - Live updates come over WebSocket: `devnet_subscribeBlocks` (a block was sealed: refresh)
//!   and `devnet_subscribeEvents` (the feed). A block's events are handed to the feed once all
//!   of them arrived (the block's summary says how many), so the feed never skips the rest of
//!   a half-received block. Heights before the subscription started, and every gap (a lagging
//!   subscriber, a reconnection), are read with `devnet_getEvents`.
//! - Every [`UiCommand`] is the JSON-RPC method [`UiCommand::method`] names; an error's
//!   `data.reason` and message become the [`CommandError`], as the in-process node gives them.
//!
//! The source is blocking (it runs its own small async runtime): the dashboard calls it from
//! its worker thread ([`crate::tui::worker`]), never from a key handler or a draw. When the
//! server does not answer, queries return the last view, [`DashboardSource::link`] says
//! "disconnected, retrying", and the WebSocket is reopened every second until it answers.

use crate::chain::{EventRecord, default_governor};
use crate::engine::eob::{FeeQuote, max_cost};
use crate::engine::{
    Address, DeferReason, LaneStats, PriorityTier, SchedulerKind, TierMultipliers, TimerId,
    TimerStatus,
};
use crate::tui::local::{defer_reason, event_row, label, lane_row, life_entry, patch_fields};
use crate::tui::model::*;
use jsonrpsee::core::client::{ClientT, Error as ClientError, SubscriptionClientT};
use jsonrpsee::core::params::{ArrayParams, BatchRequestBuilder};
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use jsonrpsee::ws_client::WsClientBuilder;
use serde::Deserialize;
use serde_json::{Value, json};
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
/// Pending timers read per refresh for the per-actor counts of the fairness pane.
pub const PENDING_SCAN: u64 = 10_000;
/// Calls per batch (the server's default limit is 100).
const BATCH: usize = 90;
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
    /// The node dropped notifications for this subscriber.
    Lagged,
    Closed(String),
}

/// A timer as `timer_get`, `timer_bucket` and `timer_list` answer it (the fields used here).
#[derive(Clone, Debug, Deserialize)]
struct RemoteTimer {
    timer_id: TimerId,
    actor: Address,
    fee_payer: Address,
    height: u64,
    expires_at: u64,
    gas_limit_per_fire: u64,
    handler: String,
    payload_len: u64,
    schedule_block: Option<u64>,
    status: TimerStatus,
    #[serde(default)]
    events: Vec<EventRecord>,
    #[serde(default, with = "crate::engine::types::opt_u128_str")]
    max_fee_per_cycle: Option<u128>,
    #[serde(default, with = "crate::engine::types::opt_u128_str")]
    max_priority_fee_per_cycle: Option<u128>,
    #[serde(default)]
    priority_tier: Option<PriorityTier>,
    #[serde(default)]
    carried: u32,
    #[serde(default)]
    last_defer: Option<DeferReason>,
}

/// What `scheduler_fairness` and the window's events give, read again only when the state
/// changed.
#[derive(Clone, Debug, Default)]
struct FairnessCache {
    rows: Vec<FairnessRow>,
    /// `(window_blocks, median)` under eip1559.
    window: Option<(u64, u64)>,
    /// Deferrals by reason over the lane window.
    reasons: Vec<(String, u64)>,
}

/// The figures of `scheduler_config` and `devnet_head` a refresh works from.
#[derive(Clone, Debug, Default)]
struct Figures {
    pending_height: u64,
    quote: FeeQuote,
    max_cycles_per_fire: u64,
    max_cells_per_fire: u64,
    lane_timer_cycles: u64,
    gc_cycles_per_block: u64,
    epoch_blocks: u64,
}

/// A sealed block's lane figures (the basefee column is filled in with today's).
#[derive(Clone, Debug)]
struct LaneCache {
    row: LaneRow,
    migrated: u64,
}

/// What the fairness figures depend on: the head's hash, the pending timers, the open block's
/// transactions and the window.
type StateKey = (String, u64, u64, u64);

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
    /// Heights up to this one are read with `devnet_getEvents`; above it the subscription
    /// delivers. `None`: no subscription.
    floor: Option<u64>,
    /// Read the history again before trusting the subscription (after a lag or a revert).
    resync: bool,
    /// Events delivered by the subscription above `floor`, not yet handed to the feed.
    live: BTreeMap<u64, Vec<EventRecord>>,
    /// Events each block above `floor` recorded, from its summary.
    expected: BTreeMap<u64, u64>,
    last: DashboardData,
    names: BTreeMap<Address, String>,
    actors: BTreeSet<Address>,
    /// The next height whose `ActorDeployed` events are to be read.
    actors_from: u64,
    lane: BTreeMap<u64, LaneCache>,
    /// The figures of the last refresh.
    figures: Figures,
    /// The fairness rows and the state they were read at (head hash, pending timers, open
    /// transactions, window).
    fairness: Option<(StateKey, FairnessCache)>,
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
            let reason = obj
                .data()
                .and_then(|d| serde_json::from_str::<Value>(d.get()).ok())
                .and_then(|d| d["reason"].as_str().map(str::to_string))
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

fn u64_at(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or(0)
}

fn u128_at(v: &Value, k: &str) -> u128 {
    match &v[k] {
        Value::String(s) => s.parse().unwrap_or(0),
        Value::Number(n) => n.as_u64().map_or(0, u128::from),
        _ => 0,
    }
}

fn pairs(v: &Value) -> Vec<(u64, u64)> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| Some((p[0].as_u64()?, p[1].as_u64()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// The mining mode as the API writes it (`{"mode": "interval", "block_time": 1.5}`).
fn mining_of(v: &Value) -> MiningMode {
    match v["mode"].as_str() {
        Some("auto") => MiningMode::Auto,
        Some("interval") => MiningMode::Interval {
            // Display only: the node's integer milliseconds, written as seconds on the wire.
            ms: v["block_time"]
                .as_f64()
                .map_or(0, |s| (s * 1000.0).round() as u64),
        },
        _ => MiningMode::Manual,
    }
}

fn mining_json(m: MiningMode) -> Value {
    match m {
        MiningMode::Auto => json!({"mode": "auto"}),
        MiningMode::Manual => json!({"mode": "manual"}),
        MiningMode::Interval { ms } => {
            json!({"mode": "interval", "block_time": ms as f64 / 1000.0})
        }
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
        .subscribe::<Value, _>(
            "devnet_subscribeBlocks",
            ArrayParams::new(),
            "devnet_unsubscribeBlocks",
        )
        .await?;
    let mut events = client
        .subscribe::<Value, _>(
            "devnet_subscribeEvents",
            ArrayParams::new(),
            "devnet_unsubscribeEvents",
        )
        .await?;
    Ok(tokio::spawn(async move {
        // The connection lives as long as the task: dropping the client closes it.
        let _client = client;
        let lagged = |v: &Value| v.get("lagged").and_then(Value::as_u64);
        loop {
            let note = tokio::select! {
                b = blocks.next() => match b {
                    Some(Ok(v)) => match lagged(&v) {
                        Some(_) => Note::Lagged,
                        None => Note::Block { height: u64_at(&v, "height"), events: u64_at(&v, "events") },
                    },
                    Some(Err(e)) => Note::Closed(format!("a block notification did not parse: {e}")),
                    None => Note::Closed("the server closed the WebSocket".into()),
                },
                e = events.next() => match e {
                    Some(Ok(v)) => match lagged(&v) {
                        Some(_) => Note::Lagged,
                        None => match serde_json::from_value::<EventRecord>(v) {
                            Ok(r) => Note::Event(Box::new(r)),
                            Err(e) => Note::Closed(format!("an event did not parse: {e}")),
                        },
                    },
                    Some(Err(e)) => Note::Closed(format!("an event did not parse: {e}")),
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
            ws_error: None,
            floor: None,
            resync: false,
            live: BTreeMap::new(),
            expected: BTreeMap::new(),
            last: DashboardData::default(),
            names: BTreeMap::new(),
            actors: BTreeSet::new(),
            actors_from: 0,
            lane: BTreeMap::new(),
            figures: Figures::default(),
            fairness: None,
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

    /// Many queries in as few round trips as the server's batch limit allows; a failed call
    /// answers `Value::Null`.
    fn batch(&mut self, calls: Vec<(&'static str, Vec<Value>)>) -> Result<Vec<Value>, ClientError> {
        let mut out = Vec::with_capacity(calls.len());
        for chunk in calls.chunks(BATCH) {
            let mut b = BatchRequestBuilder::new();
            for (m, a) in chunk {
                b.insert(m, params(a.clone()))
                    .expect("JSON values serialize");
            }
            let r = self.rt.block_on(self.queries.batch_request::<Value>(b));
            let r = self.note_http(r)?;
            out.extend(r.into_iter().map(|x| x.unwrap_or(Value::Null)));
        }
        Ok(out)
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
                // History up to here is read over HTTP.
                self.resync = true;
            }
            Err(e) => self.ws_error = Some(e.to_string()),
        }
    }

    fn figures(head: &Value, config: &Value) -> Figures {
        let t = &config["timer"];
        Figures {
            pending_height: u64_at(head, "pending_height"),
            quote: FeeQuote {
                cycle_basefee: u128_at(head, "cycle_basefee"),
                cell_basefee: u128_at(head, "cell_basefee"),
            },
            max_cycles_per_fire: u64_at(t, "max_cycles_per_fire"),
            max_cells_per_fire: u64_at(t, "max_cells_per_fire"),
            lane_timer_cycles: u64_at(t, "lane_timer_cycles"),
            gc_cycles_per_block: u64_at(t, "gc_cycles_per_block"),
            epoch_blocks: u64_at(&config["queue"], "epoch_blocks").max(1),
        }
    }

    /// A timer as a row: a pending timer's gas is its fire budget (Spec note 16), as the
    /// in-process source shows it.
    fn timer_row(t: &RemoteTimer, f: &Figures) -> TimerRow {
        let gas = if t.status == TimerStatus::Pending {
            t.gas_limit_per_fire.min(f.max_cycles_per_fire)
        } else {
            t.gas_limit_per_fire
        };
        let mut row = TimerRow::basic(
            t.timer_id,
            t.actor,
            t.fee_payer,
            t.height,
            t.schedule_block.unwrap_or(0),
            gas,
            t.expires_at,
            t.handler.clone(),
            t.payload_len,
            max_cost(gas, f.max_cells_per_fire, &f.quote, 0),
        );
        row.max_fee_per_cycle = t.max_fee_per_cycle;
        row.max_priority_fee_per_cycle = t.max_priority_fee_per_cycle;
        row.priority_tier = t.priority_tier;
        row.carried = t.carried;
        row.last_defer = t.last_defer.as_ref().map(defer_reason);
        row
    }

    fn timers(v: &Value) -> Vec<RemoteTimer> {
        serde_json::from_value(v.clone()).unwrap_or_default()
    }

    /// Forgets what a revert (or a different devnet behind the same URL) made stale.
    fn forget_history(&mut self) {
        self.lane.clear();
        self.actors.clear();
        self.actors_from = 0;
        self.live.clear();
        self.expected.clear();
        self.fairness = None;
        self.resync = true;
    }

    fn fetch(&mut self, q: &ViewQuery) -> Result<DashboardData, ClientError> {
        // Round trip 1: head, configuration, tiers, names, new actors, fairness, pending.
        let head = self.query("devnet_head", vec![])?;
        let height = u64_at(&head, "height");
        if self.last.status.as_ref().is_some_and(|s| s.height > height) {
            self.forget_history();
        }
        let window_from = height.saturating_sub(q.fairness_window) + 1;
        let pending_total = u64_at(&head, "pending_timers");
        // The fairness figures change only with the state: asked again when the head, the
        // pending count or the open block's transactions changed.
        let state_key = (
            head["hash"].to_string(),
            pending_total,
            u64_at(&head, "pending_txs"),
            q.fairness_window,
        );
        let fairness_stale = self.fairness.as_ref().is_none_or(|(k, _)| *k != state_key);
        let mut calls = vec![
            ("scheduler_config", vec![]),
            ("scheduler_tiers", vec![]),
            ("devnet_accounts", vec![]),
            (
                "devnet_getEvents",
                vec![
                    json!({"from_height": self.actors_from, "to_height": height, "kinds": ["ActorDeployed"]}),
                ],
            ),
            ("scheduler_lane", vec![json!({"last": 1})]),
        ];
        if fairness_stale {
            calls.push(("scheduler_fairness", vec![]));
            calls.push((
                "devnet_getEvents",
                vec![json!({"from_height": window_from, "to_height": height, "kinds": ["TimerFired", "TimerDeferred"]})],
            ));
            calls.push((
                "timer_list",
                vec![json!({"status": "pending", "limit": PENDING_SCAN.min(pending_total)})],
            ));
        }
        let mut r = self.batch(calls)?.into_iter();
        let mut next = || r.next().unwrap_or(Value::Null);
        let (config, tiers, accounts, deployed) = (next(), next(), next(), next());
        let sched = next();
        let (cip1_fairness, window, pending) = (next(), next(), next());
        // The scheduler of the next block, the activation height, the next lane basefee and
        // the last block's p50 tip (`scheduler_lane`).
        let next_kind: SchedulerKind =
            serde_json::from_value(sched["scheduler"].clone()).unwrap_or(SchedulerKind::Fifo);
        let activation_height = sched["activation_height"].as_u64();
        let next_lane_basefee = u128_at(&sched, "next_lane_basefee");
        let last_p50 = sched["blocks"]
            .as_array()
            .and_then(|b| b.last())
            .map_or(0, |b| u128_at(b, "p50_tip"));
        let eip_at = |h: u64| activation_height.is_some_and(|a| h >= a);
        let f = Self::figures(&head, &config);
        self.figures = f.clone();

        if let Some(accs) = accounts.as_array() {
            for a in accs {
                if let (Some(name), Ok(addr)) = (
                    a["name"].as_str(),
                    serde_json::from_value::<Address>(a["address"].clone()),
                ) {
                    self.names.insert(addr, name.to_string());
                }
            }
        }
        for r in serde_json::from_value::<Vec<EventRecord>>(deployed).unwrap_or_default() {
            if let Some(a) = r.event.actor() {
                self.actors.insert(a);
            }
        }
        self.actors_from = height + 1;

        // Ring occupancy, and from it the coming non-empty buckets (the next height always).
        let hz = &tiers["horizons"];
        let start = f.pending_height.max(u64_at(hz, "next_height"));
        let ring_horizon = u64_at(hz, "ring_horizon").max(start);
        let occupied: BTreeMap<u64, u64> = pairs(&tiers["ring"]).into_iter().collect();
        let ring: Vec<u32> = (start..ring_horizon)
            .map(|h| occupied.get(&h).copied().unwrap_or(0) as u32)
            .collect();
        let mut bucket_heights: Vec<u64> = std::iter::once(start)
            .chain(occupied.keys().copied().filter(|h| *h > start))
            .take(q.buckets)
            .collect();
        let selected_extra = q.selected_bucket.filter(|h| !bucket_heights.contains(h));
        bucket_heights.extend(selected_extra);

        // Round trip 2: the buckets' timers and the lane rows not read yet.
        let lane_from = height
            .saturating_sub((q.lane_blocks as u64).saturating_sub(1))
            .max(1);
        let missing: Vec<u64> = (lane_from..=height)
            .filter(|h| !self.lane.contains_key(h))
            .collect();
        let mut calls: Vec<(&'static str, Vec<Value>)> = bucket_heights
            .iter()
            .map(|h| ("timer_bucket", vec![json!(h)]))
            .collect();
        calls.extend(missing.iter().map(|h| ("devnet_getBlock", vec![json!(h)])));
        let answers = self.batch(calls)?;
        let (bucket_answers, block_answers) = answers.split_at(bucket_heights.len());
        for b in block_answers {
            if b.is_null() {
                continue;
            }
            let h = u64_at(&b["header"], "height");
            let lane: LaneStats = serde_json::from_value(b["lane"].clone()).unwrap_or_default();
            self.lane.insert(
                h,
                LaneCache {
                    row: lane_row(h, &lane, u64_at(&b["eob"], "fired")),
                    migrated: u64_at(b, "migrated"),
                },
            );
        }
        // Keep what the pane shows, and no more.
        self.lane = self.lane.split_off(&lane_from);
        let lane: Vec<LaneRow> = self.lane.values().map(|c| c.row.clone()).collect();

        let mut buckets = Vec::new();
        let mut bucket_timers = Vec::new();
        for (h, v) in bucket_heights.iter().zip(bucket_answers) {
            let ts = Self::timers(v);
            if Some(*h) == q.selected_bucket {
                bucket_timers = ts.iter().map(|t| Self::timer_row(t, &f)).collect();
            }
            if Some(*h) == selected_extra {
                continue;
            }
            let gas: u64 = ts
                .iter()
                .map(|t| t.gas_limit_per_fire.min(f.max_cycles_per_fire))
                .sum();
            buckets.push(BucketSummary {
                height: *h,
                count: ts.len() as u64,
                gas,
                fits_lane: gas <= f.lane_timer_cycles,
            });
        }

        let counts = &tiers["counts"];
        let tiers = Tiers {
            ring_start: start,
            ring,
            ring_total: u64_at(counts, "ring"),
            epoch_buckets: pairs(&tiers["epoch_buckets"]),
            epoch_total: u64_at(counts, "epoch"),
            overflow_size: u64_at(counts, "overflow"),
            // The overflow commitment is not part of the API.
            overflow_root: None,
            overflow_epochs: pairs(&tiers["overflow_epochs"]),
            next_maintenance: f.pending_height,
            next_epoch: (f.pending_height / f.epoch_blocks + 1) * f.epoch_blocks,
            last_migrated: self.lane.get(&height).map_or(0, |c| c.migrated),
        };

        // Fires and deferrals per actor over the window, pending per actor from the first
        // `PENDING_SCAN` pending timers in firing order.
        if fairness_stale {
            let cip1_window = (next_kind == SchedulerKind::Eip1559).then(|| {
                (
                    u64_at(&cip1_fairness, "window_blocks"),
                    u64_at(&cip1_fairness, "median"),
                )
            });
            let mut per: BTreeMap<Address, FairnessRow> = BTreeMap::new();
            let row = |a: Address| FairnessRow {
                actor: a,
                fires: 0,
                deferrals: 0,
                pending: 0,
                w_bps: None,
            };
            let events = serde_json::from_value::<Vec<EventRecord>>(window).unwrap_or_default();
            // Deferrals by reason over the lane window, as the in-process source counts them.
            let reasons: Vec<String> = events
                .iter()
                .filter(|r| r.height > lane_from)
                .filter_map(|r| match &r.event {
                    crate::chain::Event::Timer(crate::engine::TimerEvent::TimerDeferred {
                        reason,
                        ..
                    }) => Some(defer_reason(reason)),
                    _ => None,
                })
                .collect();
            if cip1_window.is_some() {
                // Under eip1559, the §8 window's own figures.
                for a in cip1_fairness["actors"].as_array().into_iter().flatten() {
                    let Ok(actor) = serde_json::from_value::<Address>(a["actor"].clone()) else {
                        continue;
                    };
                    per.insert(
                        actor,
                        FairnessRow {
                            actor,
                            fires: u64_at(a, "recent_fires"),
                            deferrals: u64_at(a, "recent_deferrals"),
                            pending: 0,
                            w_bps: Some(u64_at(a, "weight_bps") as u32),
                        },
                    );
                }
            } else {
                for r in &events {
                    let Some(a) = r.event.actor() else { continue };
                    let e = per.entry(a).or_insert_with(|| row(a));
                    match r.event.kind().as_str() {
                        "TimerFired" => e.fires += 1,
                        "TimerDeferred" => e.deferrals += 1,
                        _ => {}
                    }
                }
            }
            for t in Self::timers(&pending) {
                let e = per.entry(t.actor).or_insert_with(|| row(t.actor));
                e.pending += 1;
                if cip1_window.is_some() && e.w_bps.is_none() {
                    // Not in the window: no recent fire, W = 2 (§8).
                    e.w_bps = Some(crate::engine::scheduler::W_MAX_BPS);
                }
            }
            self.fairness = Some((
                state_key,
                FairnessCache {
                    rows: per.into_values().collect(),
                    window: cip1_window,
                    reasons: count_reasons(reasons.iter().map(String::as_str)),
                },
            ));
        }
        let cache = self
            .fairness
            .as_ref()
            .map(|(_, c)| c.clone())
            .unwrap_or_default();
        let fairness = cache.rows;

        // The selected bucket in eip1559's execution order, at the figures of now.
        if let Some(h) = q.selected_bucket
            && eip_at(h.max(f.pending_height))
        {
            let weights = fairness
                .iter()
                .filter_map(|r| r.w_bps.map(|w| (r.actor, w)))
                .collect();
            // Spec note: `scheduler_config` does not give the tier multipliers; the dashboard
            // attached ranks a tier-only timer at CIP-1 v3 §7.3's default multipliers.
            rank_bucket(
                &mut bucket_timers,
                &AuctionInputs {
                    lane_basefee: next_lane_basefee,
                    p50_tip: last_p50,
                    tiers: TierMultipliers::default(),
                    weights,
                },
            );
        }

        let cip1 = activation_height.is_some() || next_kind == SchedulerKind::Eip1559;
        let status = Status {
            height,
            mining: mining_of(&head["mining"]),
            scheduler: next_kind.to_string(),
            activation_height,
            cycle_basefee: f.quote.cycle_basefee,
            cell_basefee: f.quote.cell_basefee,
            lane_basefee: cip1.then_some(next_lane_basefee),
            pending_timers: pending_total,
            rpc_address: Some(self.url.clone()),
            lane_cycles: f.lane_timer_cycles,
            gc_cycles: f.gc_cycles_per_block,
        };
        let mut actors: Vec<Address> = self.actors.iter().copied().collect();
        actors.sort_by_key(|a| (label(&self.names, a), *a));
        Ok(DashboardData {
            status: Some(status),
            buckets,
            bucket_timers,
            tiers,
            lane,
            fairness,
            names: self.names.clone(),
            actors,
            defer_reasons: cache.reasons,
            fairness_window: cache.window,
        })
    }

    /// Events at `from..=to` over HTTP, the newest `BACKFILL_HEIGHTS` heights at most.
    fn backfill(&mut self, from: u64, to: u64) -> Result<Vec<EventRecord>, ClientError> {
        if from > to {
            return Ok(Vec::new());
        }
        let from = from.max(to.saturating_sub(BACKFILL_HEIGHTS - 1));
        let v = self.query(
            "devnet_getEvents",
            vec![json!({"from_height": from, "to_height": to})],
        )?;
        Ok(serde_json::from_value(v).unwrap_or_default())
    }

    fn fetch_events(&mut self, from: u64, limit: usize) -> Result<Vec<EventRow>, ClientError> {
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
        let skip = records.len().saturating_sub(limit);
        Ok(records[skip..]
            .iter()
            .map(|r| event_row(&self.names, r))
            .collect())
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
                Note::Lagged => {
                    // What was lost is read again from the history: nothing is dropped.
                    news = true;
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

    fn timer(&mut self, id: &TimerId) -> Result<Option<RemoteTimer>, ClientError> {
        let v = self.query("timer_get", vec![json!(id)])?;
        Ok(serde_json::from_value(v).ok())
    }
}

impl DashboardSource for RemoteDevnet {
    fn dashboard(&mut self, q: &ViewQuery) -> DashboardData {
        match self.fetch(q) {
            Ok(d) => {
                self.last = d.clone();
                d
            }
            // Unreachable: the last view stays, and the status bar says why.
            Err(_) => self.last.clone(),
        }
    }

    fn events(&mut self, from_height: u64, limit: usize) -> Vec<EventRow> {
        self.fetch_events(from_height, limit).unwrap_or_default()
    }

    fn timer_life(&mut self, id: &TimerId) -> Option<TimerLife> {
        let t = self.timer(id).ok().flatten()?;
        let f = self.figures.clone();
        let timeline: Vec<LifeEntry> = t
            .events
            .iter()
            .map(|r| life_entry(&self.names, r))
            .collect();
        let deferrals = timeline
            .iter()
            .filter(|e| e.what == "TimerDeferred")
            .count() as u64;
        Some(TimerLife {
            id: t.timer_id,
            status: t.status.as_str().to_string(),
            record: Some(Self::timer_row(&t, &f)),
            deferrals,
            timeline,
        })
    }

    fn execute(&mut self, cmd: UiCommand) -> Result<CommandOutcome, CommandError> {
        let governor = |f: Option<Address>| json!(f.unwrap_or_else(default_governor));
        let schedule = |r: &ScheduleRequest| {
            let mut o = json!({
                "actor": r.actor,
                "height": r.height,
                "payload": format!("0x{}", hex::encode(&r.payload)),
            });
            for (k, v) in [
                ("handler", r.handler.as_ref().map(|h| json!(h))),
                ("from", r.from.map(|a| json!(a))),
                ("fee_payer", r.fee_payer.map(|a| json!(a))),
                ("gas_limit", r.gas_limit.map(|g| json!(g))),
                ("expires_at", r.expires_at.map(|e| json!(e))),
                (
                    "max_fee_per_cycle",
                    r.max_fee_per_cycle.map(|a| json!(a.to_string())),
                ),
                (
                    "max_priority_fee_per_cycle",
                    r.max_priority_fee_per_cycle.map(|a| json!(a.to_string())),
                ),
                ("priority_tier", r.priority_tier.map(|t| json!(t.as_str()))),
            ] {
                if let Some(v) = v {
                    o[k] = v;
                }
            }
            o
        };
        let method = cmd.method();
        match cmd {
            UiCommand::Mine(n) => {
                let h = self.command(method, vec![json!(n)])?;
                Ok(CommandOutcome::Mined {
                    height: h.as_u64().unwrap_or(0),
                })
            }
            UiCommand::SetMining(mode) => {
                let v = self.command(method, vec![mining_json(mode)])?;
                Ok(CommandOutcome::MiningSet(mining_of(&v)))
            }
            UiCommand::ScheduleTimer(req) => {
                let v = self.command(method, vec![schedule(&req)])?;
                let timer_id = serde_json::from_value(v["timer_id"].clone()).map_err(|e| {
                    CommandError::new("InvalidResponse", format!("timer_schedule: {e}"))
                })?;
                Ok(CommandOutcome::Scheduled {
                    timer_id,
                    height: req.height,
                })
            }
            UiCommand::EstimateTimer(req) => {
                let v = self.command(method, vec![schedule(&req)])?;
                let error = v["error"].as_object().map(|e| {
                    let reason = e
                        .get("reason")
                        .and_then(Value::as_str)
                        .unwrap_or("Error")
                        .to_string();
                    let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
                    let msg = msg
                        .strip_prefix(reason.as_str())
                        .and_then(|m| m.strip_prefix(": "))
                        .unwrap_or(msg);
                    CommandError::new(reason.clone(), msg)
                });
                Ok(CommandOutcome::Estimated(Estimate {
                    max_cost: u128_at(&v, "max_cost"),
                    fire_height: v["fire_height"].as_u64().unwrap_or(req.height),
                    error,
                    auction: serde_json::from_value(v["auction"].clone())
                        .ok()
                        .map(Box::new),
                }))
            }
            UiCommand::CancelTimer { actor, timer_id } => {
                self.command(method, vec![json!({"actor": actor, "timer_id": timer_id})])?;
                Ok(CommandOutcome::Applied {
                    what: format!("cancelled timer {}", timer_id.short()),
                })
            }
            UiCommand::ExtendTimer {
                actor,
                timer_id,
                new_expires_at,
            } => {
                self.command(
                    method,
                    vec![json!({"actor": actor, "timer_id": timer_id, "new_expires_at": new_expires_at})],
                )?;
                // CIP-5 §5.4 clamps the new expiry to the TTL cap: report what was applied.
                let applied = self
                    .timer(&timer_id)
                    .ok()
                    .flatten()
                    .map_or(new_expires_at, |t| t.expires_at);
                Ok(CommandOutcome::Applied {
                    what: format!("extended timer {} to expire at {applied}", timer_id.short()),
                })
            }
            UiCommand::GovCancelTimer { from, timer_id } => {
                self.command(
                    method,
                    vec![json!({"from": governor(from), "timer_id": timer_id})],
                )?;
                Ok(CommandOutcome::Applied {
                    what: format!("governance cancelled timer {}", timer_id.short()),
                })
            }
            UiCommand::GovExtendTimer {
                from,
                timer_id,
                new_expires_at,
            } => {
                self.command(
                    method,
                    vec![json!({"from": governor(from), "timer_id": timer_id, "new_expires_at": new_expires_at})],
                )?;
                Ok(CommandOutcome::Applied {
                    what: format!(
                        "governance extended timer {} to {new_expires_at}",
                        timer_id.short()
                    ),
                })
            }
            UiCommand::GovUpdateConfig { from, patch } => {
                self.command(
                    method,
                    vec![json!({"from": governor(from), "config": patch_fields(&patch)})],
                )?;
                Ok(CommandOutcome::Applied {
                    what: "governance updated TimerConfig (from the next block)".into(),
                })
            }
            UiCommand::GovSetActivationHeight { from, height } => {
                let v = self.command(
                    method,
                    vec![json!({"from": governor(from), "height": height})],
                )?;
                Ok(CommandOutcome::Applied {
                    what: match v["activation_height"].as_u64() {
                        Some(h) => format!("governance set the activation height to #{h}"),
                        None => "governance cleared the activation height".into(),
                    },
                })
            }
            UiCommand::Snapshot => {
                let v = self.command(method, vec![])?;
                Ok(CommandOutcome::SnapshotTaken(v.as_u64().unwrap_or(0)))
            }
            UiCommand::Revert(id) => {
                self.command(method, vec![json!(id)])?;
                let height = self
                    .query("devnet_blockNumber", vec![])
                    .ok()
                    .and_then(|v| v.as_u64())
                    .unwrap_or(0);
                Ok(CommandOutcome::Reverted { id, height })
            }
        }
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
            _ => None,
        }
    }
}

impl Drop for RemoteDevnet {
    fn drop(&mut self) {
        if let Some(t) = self.subscription.take() {
            t.abort();
        }
    }
}
