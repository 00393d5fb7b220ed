//! The dashboard's view, assembled once (issue 19).
//!
//! A refresh is a fixed set of the node's read requests ([`crate::node::query`]): the same
//! query values whether the source runs them in-process ([`crate::tui::local`]) or sends them
//! as batched JSON-RPC ([`crate::tui::remote`]), answered by the same reply types. A source
//! hands back the replies ([`QueryReplies`], [`LifeReplies`], event records) and nothing else;
//! every view field (ring occupancy, fits-the-lane, the fee columns, the lane rows, the
//! deferral counts, the labels, the feed's text) is computed here (a bucket's auction rank is
//! the node's, issue 31: the page it answers is in the order the block runs), from the replies,
//! by [`assemble`], [`timer_life`] and [`event_rows`]. A new pane is written once.

use super::data::{
    BucketSummary, DashboardData, EventRow, FairnessRow, LaneRow, LifeEntry, MiningMode, Status,
    Tiers, TimerLife, TimerRow, ViewQuery, count_reasons, fmt_nanos,
};
use crate::chain::{Event, EventRecord};
use crate::engine::eob::{FeeQuote, max_cost};
use crate::engine::scheduler::kind::Weights;
use crate::engine::{Address, DeferReason, TimerEvent, TimerId, TimerStatus};
use crate::node::{
    self, ActorsQuery, BucketPage, BucketPageQuery, BucketView, BucketsQuery, ConfigQuery,
    ConfigView, DeferralsQuery, DraftQuery, DraftView, HeadQuery, HeadView, LaneQuery, LaneView,
    MAX_LANE_BLOCKS, NamesQuery, ReasonCount, SharesQuery, SharesView, SnapshotInfo,
    SnapshotsQuery, TiersQuery, TiersView, TimerQuery, TimerView,
};
use std::collections::BTreeMap;

/// The queries of one refresh, all independent of the node's state: a source may run them
/// together (one batch). The deferral counts need a second step ([`deferred_query`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewQueries {
    pub head: HeadQuery,
    pub config: ConfigQuery,
    pub tiers: TiersQuery,
    pub buckets: BucketsQuery,
    /// The page of the selected bucket's timers (issue 31).
    pub bucket: Option<BucketPageQuery>,
    pub lane: LaneQuery,
    pub shares: SharesQuery,
    pub names: NamesQuery,
    pub actors: ActorsQuery,
    pub snapshots: SnapshotsQuery,
    /// The sealed height every query but `snapshots` is asked as of (issue 24): a source
    /// wraps them in [`node::At`], and asks the live head ([`HeadQuery`]) beside them.
    pub at: Option<u64>,
}

impl ViewQuery {
    /// What this refresh asks the node.
    pub fn queries(&self) -> ViewQueries {
        ViewQueries {
            head: HeadQuery,
            config: ConfigQuery,
            tiers: TiersQuery,
            buckets: BucketsQuery {
                count: self.buckets,
            },
            bucket: self.selected_bucket.map(|height| BucketPageQuery {
                height,
                offset: self.bucket_offset,
                limit: self.bucket_limit.clamp(1, node::MAX_BUCKET_PAGE),
                timer: self.bucket_timer,
                // Spec note 199: the cursor's bucket may have come due since it was read.
                follow_due: true,
            }),
            lane: LaneQuery {
                last: (self.lane_blocks as u64).clamp(1, MAX_LANE_BLOCKS),
            },
            shares: SharesQuery {
                window: self.fairness_window,
            },
            names: NamesQuery,
            actors: ActorsQuery,
            snapshots: SnapshotsQuery,
            at: self.at,
        }
    }
}

/// The second step of a refresh: the `TimerDeferred` events over the lane window, within the
/// heights the node keeps (Spec note 73: the lane window can reach further back than a short
/// `--history`). `None` when that window is empty (no lane history yet): no query is sent, as
/// the node refuses a window with `from_height` above `to_height` (Spec note 171).
///
/// Issue 31: the node counts them by reason ([`DeferralsQuery`]); the events themselves are a
/// first deferral per carried timer of a backlog, too many to move on every refresh.
pub fn deferred_query(lane: &LaneView, head: &HeadView) -> Option<DeferralsQuery> {
    let lane_from = lane.blocks.first()?.height + 1;
    let from = lane_from.max(head.first_kept);
    // A past view's (issue 24) head: nothing after it.
    (from <= head.height).then_some(DeferralsQuery {
        from_height: from,
        to_height: head.height,
    })
}

/// The second step's draft query (issue 22): the Globalbox, the Mailbox and the watch index,
/// asked only when the scheduler is a CIP-5 draft, so other policies pay nothing.
pub fn draft_query(lane: &LaneView) -> Option<DraftQuery> {
    lane.scheduler.facts().drafts.then_some(DraftQuery)
}

/// The replies to one refresh's queries, as typed values.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryReplies {
    pub head: HeadView,
    pub config: ConfigView,
    pub tiers: TiersView,
    pub buckets: Vec<BucketView>,
    /// The page of the selected bucket (empty when none is selected).
    pub bucket: BucketPage,
    pub lane: LaneView,
    pub shares: SharesView,
    pub names: BTreeMap<Address, String>,
    pub actors: Vec<Address>,
    pub snapshots: Vec<SnapshotInfo>,
    /// The reply to [`deferred_query`].
    pub deferred: Vec<ReasonCount>,
    /// The reply to [`draft_query`] (`None` under fifo / eip1559).
    pub draft: Option<DraftView>,
    /// The live head when the view is of a past height (`None`: `head` is it).
    pub tip: Option<HeadView>,
}

/// The replies a timer's life is assembled from.
#[derive(Clone, Debug, PartialEq)]
pub struct LifeReplies {
    pub timer: Option<TimerView>,
    pub head: HeadView,
    pub config: ConfigView,
    /// The sealed height they were asked as of (issue 24; `None`: the head).
    pub at: Option<u64>,
}

/// The queries of a timer's life as of sealed block `at` (`None`: the head): the timer's
/// status then and its events up to then, with the head and the config of that block.
pub fn life_queries(
    id: TimerId,
    at: Option<u64>,
) -> (
    node::At<TimerQuery>,
    node::At<HeadQuery>,
    node::At<ConfigQuery>,
) {
    (
        node::At::new(TimerQuery { id }, at),
        node::At::new(HeadQuery, at),
        node::At::new(ConfigQuery, at),
    )
}

/// What a source itself knows (not asked of the node): where the API it talks to listens, and
/// the labels it was given beyond the node's names (a fixture's address book).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceInfo {
    pub rpc_address: Option<String>,
    pub names: BTreeMap<Address, String>,
}

/// The labels of a refresh: the node's names, with the source's own on top.
pub fn labels(
    node_names: &BTreeMap<Address, String>,
    info: &SourceInfo,
) -> BTreeMap<Address, String> {
    let mut names = node_names.clone();
    names.extend(info.names.iter().map(|(a, n)| (*a, n.clone())));
    names
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

/// One refresh's view from its replies.
pub fn assemble(r: &QueryReplies, q: &ViewQuery, info: &SourceInfo) -> DashboardData {
    let names = labels(&r.names, info);
    let cfg = &r.config.timer;
    let buckets = r
        .buckets
        .iter()
        .take(q.buckets)
        .map(|b| BucketSummary {
            height: b.height,
            count: b.timers,
            gas: b.budget,
            fits_lane: b.budget <= cfg.lane_timer_cycles,
        })
        .collect();
    let lane: Vec<LaneRow> = {
        let skip = r.lane.blocks.len().saturating_sub(q.lane_blocks);
        r.lane.blocks[skip..].iter().map(lane_row).collect()
    };
    let defer_reasons = lane_defer_reasons(r);
    let eip = r.shares.scheduler.facts().weights == Weights::Window;
    let mut actors = r.actors.clone();
    actors.sort_by_key(|a| (label(&names, a), *a));
    DashboardData {
        status: Some(status_of(r, info)),
        buckets,
        bucket_timers: selected_bucket_timers(r, q),
        bucket_offset: r.bucket.offset,
        bucket_total: r.bucket.total,
        bucket_found: q.bucket_timer.zip(r.bucket.timer_position),
        bucket_ranked: r.bucket.ranked,
        // The bucket the page is of: the next block's when the asked one came due and the
        // selected timer was carried there (issue 31).
        bucket_at: q.selected_bucket.map(|_| r.bucket.height),
        tiers: tiers(&r.tiers, &r.head, &r.config),
        lane,
        fairness: fairness_rows(r),
        names,
        actors,
        defer_reasons,
        fairness_window: eip.then_some((r.shares.window_blocks, r.shares.median)),
        fires_median: r.shares.median,
        weight_range: r.shares.weight_range_bps.map(|[lo, hi]| (lo, hi)),
        snapshots: r.snapshots.clone(),
        draft: r.draft.clone(),
    }
}

/// The status bar's facts: the head, the scheduler and its activation, the basefees, the
/// config's caps, the non-default variants.
fn status_of(r: &QueryReplies, info: &SourceInfo) -> Status {
    let head = &r.head;
    let cfg = &r.config.timer;
    let next_kind = r.lane.scheduler;
    let activation_height = r.lane.activation_height;
    let cip1 = activation_height.is_some() || next_kind.facts().lane_basefee;
    // The live head (`head` is the viewed height when the view is of a past one).
    let tip = r.tip.as_ref().unwrap_or(head);
    Status {
        height: head.height,
        mining: mining_from_node(head.mining),
        scheduler: next_kind,
        activation_height,
        cycle_basefee: head.cycle_basefee,
        cell_basefee: head.cell_basefee,
        lane_basefee: cip1.then_some(r.lane.next_lane_basefee),
        pending_timers: head.pending_timers,
        rpc_address: info.rpc_address.clone(),
        lane_cycles: cfg.lane_timer_cycles,
        gc_cycles: cfg.gc_cycles_per_block,
        tip: tip.height,
        first_kept: tip.first_kept,
        first_state: tip.first_state,
        max_ttl_blocks: r.config.timer.max_ttl_blocks,
        gas_cap: r.lane.max_gas_per_fire,
        chain_id: tip.chain_id,
        variants: {
            let d = crate::engine::Variants::default().values();
            d.iter()
                .filter_map(|(k, def)| {
                    let v = r.config.variants.get(*k)?;
                    (v != def).then(|| format!("{k}={v}"))
                })
                .collect()
        },
    }
}

/// The page of the selected bucket read, in execution order as the node gave it (FIFO's queue
/// order, or the eip1559 auction's, ranked by the node: issue 31).
fn selected_bucket_timers(r: &QueryReplies, q: &ViewQuery) -> Vec<TimerRow> {
    if q.selected_bucket.is_none() {
        return Vec::new();
    }
    r.bucket
        .timers
        .iter()
        .map(|e| TimerRow {
            effective_priority: e.effective_priority,
            rank: e.rank,
            ..timer_row(&e.timer, &r.head, &r.config.timer)
        })
        .collect()
}

/// The deferrals' reasons over the lane rows shown (counted by the node, issue 31).
fn lane_defer_reasons(r: &QueryReplies) -> Vec<(String, u64)> {
    let mut out = count_reasons([]);
    for c in &r.deferred {
        match out.iter_mut().find(|(n, _)| *n == c.reason) {
            Some(e) => e.1 += c.count,
            None => out.push((c.reason.clone(), c.count)),
        }
    }
    out
}

/// The fairness table: fires, deferrals, pending and the weight per actor.
fn fairness_rows(r: &QueryReplies) -> Vec<FairnessRow> {
    let weights = r.shares.scheduler.facts().weights;
    r.shares
        .actors
        .iter()
        .map(|s| FairnessRow {
            actor: s.actor,
            fires: s.fires,
            deferrals: s.deferrals,
            pending: s.pending,
            // Under cip1-v1 the EMA weight (issue 21 §1), under eip1559 the §8 W.
            w_bps: (weights != Weights::None).then_some(s.weight_bps),
        })
        .collect()
}

/// The tiers pane: the ring from the next height to drain up to the ring horizon.
fn tiers(t: &TiersView, head: &HeadView, config: &ConfigView) -> Tiers {
    let start = head.pending_height.max(t.horizons.next_height);
    let end = t.horizons.ring_horizon.max(start);
    // Every height of the ring, the occupied ones from the reply.
    let mut ring = vec![0u32; (end - start) as usize];
    for (h, n) in t.ring.iter().filter(|(h, _)| (start..end).contains(h)) {
        ring[(h - start) as usize] = *n as u32;
    }
    let eb = config.queue.epoch_blocks.max(1);
    let wide = |v: &[(u64, usize)]| v.iter().map(|(h, n)| (*h, *n as u64)).collect();
    Tiers {
        ring_start: start,
        ring,
        ring_total: t.counts.ring as u64,
        epoch_buckets: wide(&t.epoch_buckets),
        epoch_total: t.counts.epoch as u64,
        overflow_size: t.counts.overflow as u64,
        overflow_root: Some(t.overflow_root),
        overflow_epochs: wide(&t.overflow_epochs),
        next_maintenance: head.pending_height,
        next_epoch: (head.pending_height / eb + 1) * eb,
        last_migrated: t.last_migrated,
    }
}

/// A sealed block's lane figures (`Block.lane`, CIP-1 v3 §3, §5).
fn lane_row(l: &node::LaneBlockView) -> LaneRow {
    LaneRow {
        height: l.height,
        scheduler: l.scheduler.to_string(),
        basefee: l.lane_basefee,
        utilisation_bps: l.utilisation_bps,
        utilisation_of: l.utilisation_of.clone(),
        cycles_used: l.cycles_used,
        cycles_reserved: l.reserved,
        gc_cycles: l.gc_cycles,
        fired: l.fired,
        selected: l.selected,
        deferred: l.deferred,
        lane_deferred: l.lane_deferred,
        p50_tip: l.scheduler.facts().tips.then_some(l.p50_tip),
        tips: l.tips,
        burned: l.burned,
        lane_burned: l.lane_burned,
    }
}

/// A timer as a row. A pending timer's gas is its fire budget, `gas_limit_per_fire` bounded by
/// the `max_cycles_per_fire` in force (Spec note 16): what its fire reserves of the lane and
/// what its `max_cost` is charged on. A timer no longer pending shows its record as scheduled
/// (its carries are in its timeline).
fn timer_row(t: &TimerView, head: &HeadView, cfg: &crate::engine::TimerConfig) -> TimerRow {
    let pending = t.status == TimerStatus::Pending;
    let gas = if pending {
        t.gas_limit_per_fire.min(cfg.max_cycles_per_fire)
    } else {
        t.gas_limit_per_fire
    };
    let quote = FeeQuote {
        cycle_basefee: head.cycle_basefee,
        cell_basefee: head.cell_basefee,
    };
    TimerRow {
        id: t.timer_id,
        actor: t.actor,
        fee_payer: t.fee_payer,
        height: t.height,
        schedule_block: t.schedule_block.unwrap_or(0),
        gas_limit: gas,
        expires_at: t.expires_at,
        handler: t.handler.clone(),
        payload_len: t.payload_len,
        max_cost: max_cost(gas, cfg.max_cells_per_fire, &quote, 0),
        effective_priority: None,
        rank: None,
        max_fee_per_cycle: t.max_fee_per_cycle,
        max_priority_fee_per_cycle: t.max_priority_fee_per_cycle,
        priority_tier: t.priority_tier,
        carried: if pending { t.carried } else { 0 },
        last_defer: t
            .last_defer
            .filter(|_| pending)
            .map(|d| defer_reason(&d).to_string()),
    }
}

/// Everything known about one timer, from its replies; `None` when the node does not know it.
pub fn timer_life(r: &LifeReplies, names: &BTreeMap<Address, String>) -> Option<TimerLife> {
    let t = r.timer.as_ref()?;
    let timeline: Vec<LifeEntry> = t.events.iter().map(|e| life_entry(names, e)).collect();
    let deferrals = timeline
        .iter()
        .filter(|e| e.what == "TimerDeferred")
        .count() as u64;
    Some(TimerLife {
        at: r.at,
        id: t.timer_id,
        status: t.status.as_str().to_string(),
        record: Some(timer_row(t, &r.head, &r.config.timer)),
        deferrals,
        timeline,
        payload: t.payload.clone(),
        left_at: (t.status != TimerStatus::Pending)
            .then(|| t.exit_height.or(t.events.last().map(|e| e.height)))
            .flatten(),
        payload_note: None,
    })
}

/// A short label: the name when known, else the address's first bytes.
pub fn label(names: &BTreeMap<Address, String>, a: &Address) -> String {
    names
        .get(a)
        .cloned()
        .unwrap_or_else(|| a.to_string()[..10].to_string())
}

/// Events as feed rows.
pub fn event_rows(names: &BTreeMap<Address, String>, records: &[EventRecord]) -> Vec<EventRow> {
    records.iter().map(|r| event_row(names, r)).collect()
}

/// An event as a feed row.
pub fn event_row(names: &BTreeMap<Address, String>, r: &EventRecord) -> EventRow {
    EventRow {
        height: r.height,
        kind: r.event.kind().to_string(),
        fields: fields(names, &r.event),
        timer: r.event.timer_id(),
        actor: r.event.actor(),
        // Issue 23: the feed reads as the headless lines.
        text: crate::node::text::event_text(&r.event, names),
    }
}

/// The event's fields other than its kind, id and actor, `name=value`, addresses by name.
fn fields(names: &BTreeMap<Address, String>, e: &Event) -> String {
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
fn life_entry(names: &BTreeMap<Address, String>, r: &EventRecord) -> LifeEntry {
    let reason = match &r.event {
        Event::Timer(t) => timer_reason(names, t),
        Event::Chain(_) => String::new(),
    };
    LifeEntry {
        height: r.height,
        what: r.event.kind().to_string(),
        reason,
    }
}

fn timer_reason(names: &BTreeMap<Address, String>, t: &TimerEvent) -> String {
    match t {
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
            reason, carried, ..
        } => format!(
            "{}: carried to the next block (carried {carried} block{})",
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
            format!(
                "{} plans blocks from #{height}",
                crate::engine::SchedulerKind::after_activation()
            )
        }
        TimerEvent::TimerUpdated {
            client_nonce,
            gas_limit_per_fire,
            bid,
            fifo_rank_raised,
            ..
        } => format!(
            "client_nonce {client_nonce}: gas {gas_limit_per_fire}, bid {bid}{}",
            if *fifo_rank_raised {
                ", fifo_rank raised"
            } else {
                ""
            }
        ),
        TimerEvent::TimerConfigUpdated { .. }
        | TimerEvent::SchedulerConfigUpdated { .. }
        | TimerEvent::TimerBid { .. }
        | TimerEvent::WeightUpdated { .. } => String::new(),
    }
}

/// A deferral's reason as events name it (`lane`, `gc_budget`, ...).
pub fn defer_reason(reason: &DeferReason) -> &'static str {
    match reason {
        DeferReason::Lane => "lane",
        DeferReason::GcBudget => "gc_budget",
        DeferReason::Outbid => "outbid",
        DeferReason::OverCap => "over_cap",
        DeferReason::BelowBasefee => "below_basefee",
        DeferReason::Budget => "budget",
        DeferReason::Underfunded => "underfunded",
        DeferReason::Quota => "quota",
    }
}
