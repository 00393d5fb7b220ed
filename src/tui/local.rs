//! The dashboard's data source over the in-process node (issue 15): fills the plain data
//! types of [`crate::tui::model`] from the node's state and runs every [`UiCommand`] as the
//! node request the matching JSON-RPC method sends, so results and errors are the same.
//!
//! [`LocalDevnet`] is generic over how it reaches the node ([`NodeAccess`]):
//! - a [`NodeHandle`] (what the binary uses): the node runs on its own thread and mines by its
//!   own mining mode; reads are `query_blocking` calls made after a block was announced on the
//!   node's notification channel (`subscribe`), so a refresh does not queue behind a seal, and
//!   a frame is drawn from the app state alone;
//! - a [`NodeCore`] driven synchronously (tests and benches: deterministic), told the time by
//!   [`DashboardSource::tick`].
//!
//! The mining mode is the node's: `p`, `+` and `-` send `SetMining`.

use crate::chain::{Chain, Event, EventRecord, default_governor};
use crate::engine::eob::{fire_budget, max_cost};
use crate::engine::timer::handler_payload;
use crate::engine::{
    Address, DeferReason, Failure, ScheduleArgs, SchedulerKind, Timer, TimerEvent, TimerId,
};
use crate::node::{
    self, CancelTimer, ConfigChange, EstimateTimer, ExtendTimer, GovCancel, GovExtend,
    GovUpdateConfig, Mine, NodeCore, NodeError, NodeEvent, NodeHandle, Request, Revert,
    ScheduleTimer, SetActivationHeight, SetMining, Snapshot,
};
use crate::tui::model::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::broadcast::{self, error::TryRecvError};

/// How the dashboard reaches a node: reads on `&NodeCore`, requests with typed replies, and
/// the passing of time.
pub trait NodeAccess {
    /// Runs a read on the node's current state.
    fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> T + Send + 'static,
    ) -> Result<T, NodeError>;
    /// Applies a request.
    fn apply<R: Request>(&mut self, r: R) -> Result<R::Reply, NodeError>;
    /// Lets time pass; true when something new happened (a block, an event).
    fn tick(&mut self, now: Instant) -> bool;
    /// When [`tick`](Self::tick) next has something to do.
    fn next_deadline(&self) -> Option<Instant>;
    /// Notifications lost since the last call (a subscriber that fell behind).
    fn take_dropped(&mut self) -> u64 {
        0
    }
    // --- issue 23 (branch dash): the story of a fixture played live ---
    /// The fixture's steps and expectations reported since the last call.
    fn take_story(&mut self) -> Vec<crate::tui::story::StoryItem> {
        Vec::new()
    }
}

/// A core driven on the caller's thread: its clock starts at the first [`tick`](NodeAccess::tick).
pub struct SyncNode {
    core: NodeCore,
    epoch: Option<Instant>,
}

impl NodeAccess for SyncNode {
    fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> T + Send + 'static,
    ) -> Result<T, NodeError> {
        Ok(f(&self.core))
    }
    fn apply<R: Request>(&mut self, r: R) -> Result<R::Reply, NodeError> {
        let out = self.core.apply(r);
        while self.core.poll_event().is_some() {}
        out
    }
    fn tick(&mut self, now: Instant) -> bool {
        let epoch = *self.epoch.get_or_insert(now);
        let before = self.core.height();
        self.core
            .tick(now.saturating_duration_since(epoch).as_millis() as u64);
        while self.core.poll_event().is_some() {}
        self.core.height() != before
    }
    fn next_deadline(&self) -> Option<Instant> {
        let due = self.core.next_deadline()?;
        Some(match self.epoch {
            Some(e) => e + std::time::Duration::from_millis(due),
            None => Instant::now(),
        })
    }
}

/// A node running on its own thread (the shell), and its notifications.
pub struct LiveNode {
    handle: NodeHandle,
    rx: broadcast::Receiver<Arc<NodeEvent>>,
    dropped: u64,
    /// issue 23 (branch dash): fixture steps and expectations not taken yet.
    story: Vec<crate::tui::story::StoryItem>,
}

impl LiveNode {
    pub fn new(handle: NodeHandle) -> Self {
        let rx = handle.subscribe();
        LiveNode {
            handle,
            rx,
            dropped: 0,
            story: Vec::new(),
        }
    }
}

impl NodeAccess for LiveNode {
    fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> T + Send + 'static,
    ) -> Result<T, NodeError> {
        self.handle.query_blocking(f)
    }
    fn apply<R: Request>(&mut self, r: R) -> Result<R::Reply, NodeError> {
        self.handle.request_blocking(r)
    }
    /// Drains the notifications that arrived: anything but an expectation report is news.
    /// Never waits: the node mines on its own thread.
    fn tick(&mut self, _now: Instant) -> bool {
        let mut news = false;
        loop {
            match self.rx.try_recv() {
                Ok(ev) => {
                    news |= !matches!(&*ev, NodeEvent::Expectation { .. });
                    // issue 23 (branch dash): the story line.
                    if let Some(s) = crate::tui::story::from_node_event(&ev) {
                        self.story.push(s);
                    }
                }
                Err(TryRecvError::Lagged(n)) => {
                    self.dropped += n;
                    news = true;
                }
                Err(TryRecvError::Empty) | Err(TryRecvError::Closed) => return news,
            }
        }
    }
    fn next_deadline(&self) -> Option<Instant> {
        None
    }
    fn take_dropped(&mut self) -> u64 {
        std::mem::take(&mut self.dropped)
    }
    fn take_story(&mut self) -> Vec<crate::tui::story::StoryItem> {
        std::mem::take(&mut self.story)
    }
}

/// The node's mining mode as the dashboard shows it.
pub fn mining_from_node(m: node::MiningMode) -> MiningMode {
    match m {
        node::MiningMode::Auto => MiningMode::Auto,
        node::MiningMode::Manual => MiningMode::Manual,
        node::MiningMode::Interval { block_time_ms } => MiningMode::Interval { ms: block_time_ms },
    }
}

/// The dashboard's mining mode as the node takes it.
pub fn mining_to_node(m: MiningMode) -> node::MiningMode {
    match m {
        MiningMode::Auto => node::MiningMode::Auto,
        MiningMode::Manual => node::MiningMode::Manual,
        MiningMode::Interval { ms } => node::MiningMode::Interval { block_time_ms: ms },
    }
}

/// The in-process devnet seen through the dashboard's interface.
pub struct LocalDevnet<N: NodeAccess = SyncNode> {
    node: N,
    names: Arc<BTreeMap<Address, String>>,
    rpc_address: Option<String>,
}

impl LocalDevnet<SyncNode> {
    /// Wraps a core driven on this thread; `names` labels addresses (a fixture's address book)
    /// beside the node's own names.
    pub fn new(devnet: NodeCore, names: BTreeMap<Address, String>) -> Self {
        LocalDevnet {
            node: SyncNode {
                core: devnet,
                epoch: None,
            },
            names: Arc::new(names),
            rpc_address: None,
        }
    }

    /// Sets the node's mining mode (as `SetMining`).
    pub fn with_mining(mut self, mode: MiningMode) -> Self {
        let _ = self.node.apply(SetMining(mining_to_node(mode)));
        self
    }

    pub fn devnet(&self) -> &NodeCore {
        &self.node.core
    }

    pub fn chain(&self) -> &Chain {
        self.node.core.chain()
    }

    pub fn mining(&self) -> MiningMode {
        mining_from_node(self.node.core.mining())
    }
}

impl LocalDevnet<LiveNode> {
    /// The dashboard on a running node; the node's names label addresses.
    pub fn live(handle: NodeHandle) -> Self {
        let names = handle
            .query_blocking(|core| core.names().clone())
            .unwrap_or_default();
        LocalDevnet {
            node: LiveNode::new(handle),
            names: Arc::new(names),
            rpc_address: None,
        }
    }

    pub fn mining(&self) -> MiningMode {
        mining_from_node(self.node.handle.head().mining)
    }
}

impl<N: NodeAccess> LocalDevnet<N> {
    /// The address the status bar shows for the JSON-RPC API.
    pub fn with_rpc_address(mut self, addr: impl Into<String>) -> Self {
        self.rpc_address = Some(addr.into());
        self
    }

    /// Runs `f` on a view of the node's state (on the node's thread for a live node).
    fn view<T: Send + 'static>(
        &self,
        f: impl FnOnce(&View<'_>) -> T + Send + 'static,
    ) -> Result<T, NodeError> {
        let names = self.names.clone();
        let rpc = self.rpc_address.clone();
        self.node.read(move |core| {
            f(&View {
                core,
                names: &names,
                rpc_address: rpc.as_deref(),
            })
        })
    }

    fn apply<R: Request>(&mut self, r: R) -> Result<R::Reply, CommandError> {
        self.node.apply(r).map_err(node_error)
    }

    fn height(&self) -> u64 {
        self.node.read(|c| c.height()).unwrap_or(0)
    }
}

/// A read-only view of the node's state with the names that label addresses.
struct View<'a> {
    core: &'a NodeCore,
    names: &'a BTreeMap<Address, String>,
    rpc_address: Option<&'a str>,
}

impl View<'_> {
    fn chain(&self) -> &Chain {
        self.core.chain()
    }

    fn label(&self, a: &Address) -> String {
        label(self.names, a)
    }

    /// A pending timer's row. Its gas is its fire budget, `gas_limit_per_fire` bounded by the
    /// `max_cycles_per_fire` in force (Spec note 16): what its fire reserves of the lane and
    /// what its `max_cost` is charged on.
    fn timer_row(&self, t: &Timer) -> TimerRow {
        let chain = self.chain();
        let budget = fire_budget(t, chain.timer_config());
        let mut row = TimerRow::basic(
            t.timer_id,
            t.actor_address,
            t.fee_payer,
            t.height,
            t.schedule_block,
            budget,
            t.expires_at,
            t.handler().name().to_string(),
            t.payload.len() as u64,
            max_cost(
                budget,
                chain.timer_config().max_cells_per_fire,
                &chain.fee_quote(),
                0,
            ),
        );
        if let Some(c) = t.fee_caps.as_deref() {
            row.max_fee_per_cycle = c.max_fee_per_cycle;
            row.max_priority_fee_per_cycle = c.max_priority_fee_per_cycle;
            row.priority_tier = c.priority_tier;
            row.carried = c.carried;
            row.last_defer = c.last_defer.as_ref().map(defer_reason);
        }
        row
    }

    /// What the auction ranks a bucket's timers at now (CIP-1 v3 §3 step 6).
    fn auction_inputs(&self, actors: impl Iterator<Item = Address>) -> AuctionInputs {
        let chain = self.chain();
        let f = chain.fairness();
        AuctionInputs {
            lane_basefee: chain.lane_basefee(),
            p50_tip: chain.p50_tip(),
            tiers: chain.cip1_config().tier_multipliers.clone(),
            weights: actors.map(|a| (a, f.weight_bps(&a))).collect(),
        }
    }

    fn event_row(&self, r: &EventRecord) -> EventRow {
        event_row(self.names, r)
    }

    fn life_entry(&self, r: &EventRecord) -> LifeEntry {
        life_entry(self.names, r)
    }

    fn dashboard(&self, q: &ViewQuery) -> DashboardData {
        // The overflow root is folded on demand, as sealing does (the commitment is a function
        // of the timer set, so folding early changes no root).
        let chain = self.chain();
        let overflow_root = crate::engine::H256(chain.engine().committed_roots().1);
        let queue = chain.engine().queue();
        let cfg = chain.timer_config();
        let next_kind = chain.scheduler_at(chain.pending_height());
        let activation_height = chain.activation_height();
        let cip1 = activation_height.is_some() || next_kind == SchedulerKind::Eip1559;
        let status = Status {
            height: chain.height(),
            mining: mining_from_node(self.core.mining()),
            scheduler: next_kind.to_string(),
            activation_height,
            cycle_basefee: chain.basefee().cycle_basefee,
            cell_basefee: chain.basefee().cell_basefee,
            lane_basefee: cip1.then(|| chain.lane_basefee()),
            pending_timers: queue.len() as u64,
            rpc_address: self.rpc_address.map(str::to_string),
            lane_cycles: cfg.lane_timer_cycles,
            gc_cycles: cfg.gc_cycles_per_block,
        };

        // Ring occupancy, and from it the coming non-empty buckets (the next height always).
        let hz = queue.horizons();
        let start = chain.pending_height().max(hz.next_height);
        let mut ring = Vec::new();
        let mut buckets = Vec::new();
        for h in start..hz.ring_horizon.max(start) {
            let b = queue.bucket(h);
            ring.push(b.len() as u32);
            if (!b.is_empty() || h == start) && buckets.len() < q.buckets {
                let gas: u64 = b.iter().map(|t| fire_budget(t, cfg)).sum();
                buckets.push(BucketSummary {
                    height: h,
                    count: b.len() as u64,
                    gas,
                    fits_lane: gas <= cfg.lane_timer_cycles,
                });
            }
        }
        // The selected bucket in execution order: FIFO's queue order, or eip1559's auction.
        let bucket_timers = q
            .selected_bucket
            .map(|h| {
                let mut rows: Vec<TimerRow> = queue
                    .bucket(h)
                    .into_iter()
                    .map(|t| self.timer_row(t))
                    .collect();
                if chain.scheduler_at(h.max(chain.pending_height())) == SchedulerKind::Eip1559 {
                    let inputs = self.auction_inputs(rows.iter().map(|r| r.actor));
                    rank_bucket(&mut rows, &inputs);
                }
                rows
            })
            .unwrap_or_default();
        let counts = queue.counts();
        let eb = queue.config().epoch_blocks;
        let epoch_buckets: Vec<(u64, u64)> = queue
            .epoch_buckets()
            .into_iter()
            .map(|(h, c)| (h, c as u64))
            .collect();
        let tiers = Tiers {
            ring_start: start,
            ring_total: counts.ring as u64,
            ring,
            epoch_total: counts.epoch as u64,
            epoch_buckets,
            overflow_size: counts.overflow as u64,
            overflow_root: Some(overflow_root),
            overflow_epochs: queue
                .overflow_epochs()
                .into_iter()
                .map(|(h, c)| (h, c as u64))
                .collect(),
            next_maintenance: chain.pending_height(),
            next_epoch: (chain.pending_height() / eb + 1) * eb,
            last_migrated: chain.last_block().map_or(0, |b| b.migrated),
        };

        // Every sealed height, quiet ones included (they have no stored body), from the
        // oldest stored block (or 100,000 heights back) up.
        let oldest = chain
            .blocks()
            .next()
            .map_or(1, |b| b.header.height)
            .min(chain.height().saturating_sub(100_000))
            .max(1);
        let mut lane: Vec<LaneRow> = (oldest..=chain.height())
            .rev()
            .filter_map(|h| chain.block(h))
            .take(q.lane_blocks)
            .map(|b| lane_row(b.header.height, &b.lane, b.eob.fired))
            .collect();
        lane.reverse();
        // Deferrals by reason over the lane window, from the `TimerDeferred` events (recorded
        // by the block a timer is carried into, Spec note 18: the last block's deferrals are
        // in its lane row's count and show here with the next block).
        let lane_from = lane.first().map_or(u64::MAX, |r| r.height);
        let mut reasons: Vec<String> = Vec::new();
        for b in chain
            .blocks()
            .rev()
            .take_while(|b| b.header.height > lane_from)
        {
            for r in &b.events {
                if let Event::Timer(TimerEvent::TimerDeferred { reason, .. }) = &r.event {
                    reasons.push(defer_reason(reason));
                }
            }
        }
        let defer_reasons = count_reasons(reasons.iter().map(String::as_str));

        // Fires and deferrals per actor over the window; pending per actor from the queue index.
        let mut per: BTreeMap<Address, FairnessRow> = BTreeMap::new();
        let row = |a: Address| FairnessRow {
            actor: a,
            fires: 0,
            deferrals: 0,
            pending: 0,
            w_bps: None,
        };
        // Under eip1559 the figures are the §8 window's own (recent fires and deferrals as
        // W(actor) counts them); under fifo they are counted from the events of the window.
        let fairness_window = if next_kind == SchedulerKind::Eip1559 {
            let f = chain.fairness();
            for r in f.rows() {
                per.insert(
                    r.actor,
                    FairnessRow {
                        actor: r.actor,
                        fires: r.recent_fires,
                        deferrals: r.recent_deferrals,
                        pending: 0,
                        w_bps: Some(r.weight_bps),
                    },
                );
            }
            Some((f.window_blocks(), f.median()))
        } else {
            let from = chain.height().saturating_sub(q.fairness_window);
            for b in chain.blocks().rev().take_while(|b| b.header.height > from) {
                for r in &b.events {
                    match &r.event {
                        Event::Timer(TimerEvent::TimerFired { actor, .. }) => {
                            per.entry(*actor).or_insert_with(|| row(*actor)).fires += 1
                        }
                        Event::Timer(TimerEvent::TimerDeferred { actor, .. }) => {
                            per.entry(*actor).or_insert_with(|| row(*actor)).deferrals += 1
                        }
                        _ => {}
                    }
                }
            }
            // The last block's deferrals too: their events wait for the block the timers are
            // carried into (Spec note 18), while the lane pane already counts them.
            for d in queue.deferrals() {
                per.entry(d.actor).or_insert_with(|| row(d.actor)).deferrals += 1;
            }
            None
        };
        for (a, c) in queue.actor_counts() {
            let e = per.entry(a).or_insert_with(|| row(a));
            e.pending = u64::from(c);
            if fairness_window.is_some() && e.w_bps.is_none() {
                e.w_bps = Some(chain.fairness().weight_bps(&a));
            }
        }

        let mut actors: Vec<Address> = chain.actors().keys().copied().collect();
        actors.sort_by_key(|a| (self.label(a), *a));
        DashboardData {
            status: Some(status),
            buckets,
            bucket_timers,
            tiers,
            lane,
            fairness: per.into_values().collect(),
            names: self.names.clone(),
            actors,
            defer_reasons,
            fairness_window,
        }
    }

    fn events(&self, from_height: u64, limit: usize) -> Vec<EventRow> {
        let mut out = Vec::new();
        'blocks: for b in self
            .chain()
            .blocks()
            .rev()
            .take_while(|b| b.header.height >= from_height)
        {
            for r in b.events.iter().rev() {
                if out.len() >= limit {
                    break 'blocks;
                }
                out.push(self.event_row(r));
            }
        }
        out.reverse();
        out
    }

    fn timer_life(&self, id: &TimerId) -> Option<TimerLife> {
        let chain = self.chain();
        let records: Vec<&EventRecord> = chain
            .blocks()
            .flat_map(|b| b.events.iter())
            .filter(|r| r.event.timer_id() == Some(*id))
            .collect();
        let pending = chain.timer(id);
        if records.is_empty() && pending.is_none() {
            return None;
        }
        let status = status_of(pending.is_some(), &records).to_string();
        let record = match pending {
            Some(t) => Some(self.timer_row(t)),
            None => records.iter().find_map(|r| match &r.event {
                Event::Timer(TimerEvent::TimerScheduled {
                    actor,
                    height,
                    fee_payer,
                    gas_limit_per_fire,
                    expires_at,
                    handler,
                    payload_len,
                    ..
                }) => Some(TimerRow::basic(
                    *id,
                    *actor,
                    *fee_payer,
                    *height,
                    r.height,
                    *gas_limit_per_fire,
                    *expires_at,
                    handler.clone(),
                    *payload_len,
                    max_cost(
                        *gas_limit_per_fire,
                        chain.timer_config().max_cells_per_fire,
                        &chain.fee_quote(),
                        0,
                    ),
                )),
                _ => None,
            }),
        };
        // A timer that left keeps the expiry its extensions gave it, as `timer_get` shows it.
        let record = match (pending, record) {
            (None, Some(mut row)) => {
                for r in &records {
                    if let Event::Timer(
                        TimerEvent::TimerExtended { new_expires_at, .. }
                        | TimerEvent::TimerExtendedByGovernance { new_expires_at, .. },
                    ) = &r.event
                    {
                        row.expires_at = *new_expires_at;
                    }
                }
                Some(row)
            }
            (_, record) => record,
        };
        let mut timeline: Vec<LifeEntry> = records.iter().map(|r| self.life_entry(r)).collect();
        // Deferred by the last block: its `TimerDeferred` is recorded by the block it is
        // carried into (Spec note 18), but the deferral has happened.
        if let Some(d) = chain
            .engine()
            .queue()
            .deferrals()
            .iter()
            .find(|d| d.timer_id == *id)
        {
            timeline.push(LifeEntry {
                height: chain.height(),
                what: "TimerDeferred".into(),
                reason: format!(
                    "{}: carried to the next block, which records the event",
                    defer_reason(&d.reason)
                ),
            });
        }
        let deferrals = timeline
            .iter()
            .filter(|e| e.what == "TimerDeferred")
            .count() as u64;
        Some(TimerLife {
            id: *id,
            status,
            record,
            deferrals,
            timeline,
        })
    }
}

/// A sealed block's lane figures from its `Block.lane` (CIP-1 v3 §3, §5).
pub(crate) fn lane_row(height: u64, l: &crate::engine::LaneStats, fired: u64) -> LaneRow {
    let eip = l.scheduler == SchedulerKind::Eip1559;
    LaneRow {
        height,
        scheduler: l.scheduler.to_string(),
        basefee: l.basefee,
        utilisation_bps: l.utilisation_bps(),
        cycles_used: l.used,
        cycles_reserved: l.reserved,
        gc_cycles: l.gc_cycles,
        fired,
        selected: l.selected,
        deferred: l.deferred,
        lane_deferred: l.lane_deferred,
        p50_tip: eip.then_some(l.p50_tip),
        tips: l.tips,
        burned: l.burned,
        lane_burned: l.lane_burned,
    }
}

/// A short label: the name when known, else the address's first bytes.
pub(crate) fn label(names: &BTreeMap<Address, String>, a: &Address) -> String {
    names
        .get(a)
        .cloned()
        .unwrap_or_else(|| a.to_string()[..10].to_string())
}

/// An event as a feed row.
pub(crate) fn event_row(names: &BTreeMap<Address, String>, r: &EventRecord) -> EventRow {
    EventRow {
        height: r.height,
        kind: r.event.kind().to_string(),
        fields: fields(names, &r.event),
        timer: r.event.timer_id(),
        actor: r.event.actor(),
        // issue 23 (branch dash): the headless lines' text.
        text: crate::node::text::event_text(&r.event, names),
    }
}

/// The event's fields other than its kind, id and actor, `name=value`, addresses by name.
pub(crate) fn fields(names: &BTreeMap<Address, String>, e: &Event) -> String {
    let v = serde_json::to_value(e).unwrap_or_default();
    let Some(map) = v.as_object() else {
        return String::new();
    };
    // The telling fields first (where, why, outcome), the rest in name order.
    const FIRST: &[&str] = &[
        "handler",
        "height",
        "to_height",
        "reason",
        "success",
        "error",
        "expires_at",
        "current_height",
        "old_expires_at",
        "new_expires_at",
        "cycles_used",
        "cost",
        "refund",
        "required",
        "available",
    ];
    let mut keys: Vec<&String> = map
        .keys()
        .filter(|k| !matches!(k.as_str(), "kind" | "timer_id" | "actor"))
        .collect();
    keys.sort_by_key(|k| {
        (
            FIRST.iter().position(|f| f == k).unwrap_or(FIRST.len()),
            k.as_str(),
        )
    });
    let mut out = Vec::new();
    for k in keys {
        let v = &map[k];
        let s = match v {
            // CIP-1 v3 prices are nanos per cycle: shown in base units.
            serde_json::Value::String(s)
                if matches!(k.as_str(), "stated" | "clamped") && s.parse::<u128>().is_ok() =>
            {
                format!("{}/cycle", fmt_nanos(s.parse().unwrap_or_default()))
            }
            serde_json::Value::String(s) => match s.parse::<Address>() {
                Ok(a) => label(names, &a),
                Err(_) => s.clone(),
            },
            // A typed failure reads as the headless lines print it: `Kind: message`.
            serde_json::Value::Object(o) if o.len() == 2 && o.contains_key("kind") => {
                match serde_json::from_value::<crate::engine::Failure>(v.clone()) {
                    Ok(f) => f.to_string(),
                    Err(_) => v.to_string(),
                }
            }
            other => other.to_string(),
        };
        out.push(format!("{k}={s}"));
    }
    out.join(" ")
}

/// One step of a timer's life from its event.
pub(crate) fn life_entry(names: &BTreeMap<Address, String>, r: &EventRecord) -> LifeEntry {
    let reason = match &r.event {
        Event::Timer(t) => match t {
            TimerEvent::TimerScheduled {
                height, fee_payer, ..
            } => format!("for #{height}, paid by {}", label(names, fee_payer)),
            TimerEvent::TimerFired {
                success,
                error,
                cycles_used,
                cost,
                ..
            } => {
                if *success {
                    format!("ok: {cycles_used} cycles, cost {cost}")
                } else {
                    format!(
                        "reverted: {} (cost {cost})",
                        error
                            .as_ref()
                            .map_or_else(|| "error".to_string(), |f| f.to_string())
                    )
                }
            }
            TimerEvent::TimerDeferred {
                reason,
                to_height,
                carried,
                ..
            } => format!(
                "{}: carried to #{to_height} (carried {carried} block{})",
                defer_reason(reason),
                if *carried == 1 { "" } else { "s" }
            ),
            TimerEvent::TimerExpired { expires_at, .. } => {
                format!("expires_at {expires_at} passed")
            }
            TimerEvent::TimerCancelledInsufficientFunds {
                required,
                available,
                ..
            } => format!("needs {required}, fee payer has {available}"),
            TimerEvent::TimerCancelled { refund, .. } => format!("refund {refund}"),
            TimerEvent::TimerCancelledByGovernance { existed, .. } => {
                if *existed {
                    "system instruction 48".into()
                } else {
                    "48: no such timer (idempotent)".into()
                }
            }
            TimerEvent::TimerExtended {
                old_expires_at,
                new_expires_at,
                ..
            }
            | TimerEvent::TimerExtendedByGovernance {
                old_expires_at,
                new_expires_at,
                ..
            } => format!("expires_at {old_expires_at} -> {new_expires_at}"),
            TimerEvent::TimerPriorityClampedAtSchedule {
                stated, clamped, ..
            } => format!(
                "priority {} clamped to {} per cycle (max fee − lane basefee)",
                fmt_nanos(*stated),
                fmt_nanos(*clamped)
            ),
            TimerEvent::GbaFallback { reason, .. } => {
                format!(
                    "custom GBA failed ({}): default GBA priced it",
                    reason.as_str()
                )
            }
            TimerEvent::SchedulerActivated { height } => {
                format!("eip1559 plans blocks from #{height}")
            }
            TimerEvent::TimerConfigUpdated { .. } => String::new(),
        },
        Event::Chain(_) => String::new(),
    };
    LifeEntry {
        height: r.height,
        what: r.event.kind().to_string(),
        reason,
    }
}

/// A schedule request's arguments, as `timer_schedule` builds them (a named handler is
/// encoded in the payload).
pub(crate) fn schedule_args(req: &ScheduleRequest) -> ScheduleArgs {
    let payload = match &req.handler {
        Some(h) if !h.is_empty() => handler_payload(h, &req.payload),
        _ => req.payload.clone(),
    };
    ScheduleArgs {
        height: req.height,
        payload,
        fee_payer: req.fee_payer,
        gas_limit: req.gas_limit,
        expires_at: req.expires_at,
        max_fee_per_cycle: req.max_fee_per_cycle,
        max_priority_fee_per_cycle: req.max_priority_fee_per_cycle,
        priority_tier: req.priority_tier,
        ..Default::default()
    }
}

/// A timer's status as the fixture format names it, from whether it is pending and its events
/// (the last exit event decides; a governance cancel of a missing timer is no exit).
pub(crate) fn status_of(pending: bool, records: &[&EventRecord]) -> &'static str {
    if pending {
        return "pending";
    }
    for r in records.iter().rev() {
        if let Event::Timer(t) = &r.event {
            match t {
                TimerEvent::TimerFired { .. } => return "fired",
                TimerEvent::TimerExpired { .. } => return "expired",
                TimerEvent::TimerCancelledInsufficientFunds { .. } => return "unfunded",
                TimerEvent::TimerCancelled { .. } => return "cancelled",
                TimerEvent::TimerCancelledByGovernance { existed: true, .. } => {
                    return "cancelled_by_governance";
                }
                _ => {}
            }
        }
    }
    "unknown"
}

/// A deferral's reason as events name it (`lane`, `gc_budget`).
pub(crate) fn defer_reason(reason: &DeferReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn node_error(e: NodeError) -> CommandError {
    CommandError::from_failure(&Failure::from_error(e.kind(), &e))
}

impl<N: NodeAccess> DashboardSource for LocalDevnet<N> {
    fn dashboard(&mut self, q: &ViewQuery) -> DashboardData {
        let q = q.clone();
        self.view(move |v| v.dashboard(&q)).unwrap_or_default()
    }

    fn events(&mut self, from_height: u64, limit: usize) -> Vec<EventRow> {
        self.view(move |v| v.events(from_height, limit))
            .unwrap_or_default()
    }

    fn timer_life(&mut self, id: &TimerId) -> Option<TimerLife> {
        let id = *id;
        self.view(move |v| v.timer_life(&id)).ok().flatten()
    }

    /// Each command is the node request its JSON-RPC method sends (`rpc::methods`), so the
    /// result and the error are the same.
    fn execute(&mut self, cmd: UiCommand) -> Result<CommandOutcome, CommandError> {
        let governor = |f: Option<Address>| f.unwrap_or_else(default_governor);
        match cmd {
            UiCommand::Mine(n) => Ok(CommandOutcome::Mined {
                height: self.apply(Mine { blocks: n })?.last,
            }),
            UiCommand::SetMining(mode) => {
                self.apply(SetMining(mining_to_node(mode)))?;
                Ok(CommandOutcome::MiningSet(mode))
            }
            UiCommand::ScheduleTimer(req) => {
                let s = self.apply(ScheduleTimer {
                    actor: req.actor,
                    from: req.from,
                    args: schedule_args(&req),
                })?;
                Ok(CommandOutcome::Scheduled {
                    timer_id: s.timer_id,
                    height: req.height,
                })
            }
            UiCommand::EstimateTimer(req) => {
                let e = self.apply(EstimateTimer(ScheduleTimer {
                    actor: req.actor,
                    from: req.from,
                    args: schedule_args(&req),
                }))?;
                Ok(CommandOutcome::Estimated(Estimate {
                    max_cost: e.max_cost,
                    fire_height: e.fire_height.unwrap_or(req.height),
                    error: e.error.as_ref().map(CommandError::from_failure),
                    auction: e.auction.map(Box::new),
                }))
            }
            UiCommand::CancelTimer { actor, timer_id } => {
                self.apply(CancelTimer {
                    actor,
                    timer_id,
                    from: None,
                })?;
                Ok(CommandOutcome::Applied {
                    what: format!("cancelled timer {}", timer_id.short()),
                })
            }
            UiCommand::ExtendTimer {
                actor,
                timer_id,
                new_expires_at,
            } => {
                self.apply(ExtendTimer {
                    actor,
                    timer_id,
                    new_expires_at,
                    from: None,
                })?;
                // CIP-5 §5.4 clamps the new expiry to the TTL cap: report what was applied.
                let applied = self
                    .node
                    .read(move |c| c.chain().timer(&timer_id).map(|t| t.expires_at))
                    .ok()
                    .flatten()
                    .unwrap_or(new_expires_at);
                Ok(CommandOutcome::Applied {
                    what: format!("extended timer {} to expire at {applied}", timer_id.short()),
                })
            }
            UiCommand::GovCancelTimer { from, timer_id } => {
                self.apply(GovCancel {
                    from: governor(from),
                    timer_id,
                })?;
                Ok(CommandOutcome::Applied {
                    what: format!("governance cancelled timer {}", timer_id.short()),
                })
            }
            UiCommand::GovExtendTimer {
                from,
                timer_id,
                new_expires_at,
            } => {
                self.apply(GovExtend {
                    from: governor(from),
                    timer_id,
                    new_expires_at,
                })?;
                Ok(CommandOutcome::Applied {
                    what: format!(
                        "governance extended timer {} to {new_expires_at}",
                        timer_id.short()
                    ),
                })
            }
            UiCommand::GovUpdateConfig { from, patch } => {
                self.apply(GovUpdateConfig {
                    from: governor(from),
                    config: ConfigChange::Fields(patch_fields(&patch)),
                })?;
                Ok(CommandOutcome::Applied {
                    what: "governance updated TimerConfig (from the next block)".into(),
                })
            }
            UiCommand::GovSetActivationHeight { from, height } => {
                let h = self.apply(SetActivationHeight {
                    from: governor(from),
                    height,
                })?;
                Ok(CommandOutcome::Applied {
                    what: match h {
                        Some(h) => format!("governance set the activation height to #{h}"),
                        None => "governance cleared the activation height".into(),
                    },
                })
            }
            UiCommand::Snapshot => self.apply(Snapshot).map(CommandOutcome::SnapshotTaken),
            UiCommand::Revert(id) => {
                self.apply(Revert { id })?;
                Ok(CommandOutcome::Reverted {
                    id,
                    height: self.height(),
                })
            }
        }
    }

    fn tick(&mut self, now: Instant) -> bool {
        self.node.tick(now)
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.node.next_deadline()
    }

    fn take_dropped(&mut self) -> u64 {
        self.node.take_dropped()
    }

    // issue 23 (branch dash).
    fn take_story(&mut self) -> Vec<crate::tui::story::StoryItem> {
        self.node.take_story()
    }
}

/// The fields a [`ConfigPatch`] names, as `gov_updateTimerConfig`'s partial config.
pub(crate) fn patch_fields(p: &ConfigPatch) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    let mut put = |k: &str, v: Option<u64>| {
        if let Some(v) = v {
            m.insert(k.into(), v.into());
        }
    };
    put("max_ttl_blocks", p.max_ttl_blocks);
    put("max_cycles_per_fire", p.max_cycles_per_fire);
    put("max_cells_per_fire", p.max_cells_per_fire);
    put(
        "max_timers_per_actor",
        p.max_timers_per_actor.map(u64::from),
    );
    put("gc_cycles_per_block", p.gc_cycles_per_block);
    put("lane_timer_cycles", p.lane_timer_cycles);
    m
}
