//! The dashboard's data source over an in-process [`NodeCore`] (issue 15): fills the plain data
//! types of [`crate::tui::model`] from the chain and runs [`UiCommand`]s synchronously through
//! node requests, as the matching JSON-RPC method would.
//!
//! Mining modes live here until the live node (issue 13) owns them: `auto` seals a block after
//! every transaction, `manual` only on request, `interval` whenever [`LocalDevnet::tick`] is told
//! that a block time has passed. No clock is read here: the caller passes `now`.

use crate::chain::{
    Chain, Event, EventRecord, SystemInstruction, TimerOp, Transaction, TxKind, default_governor,
};
use crate::engine::eob::{fire_budget, max_cost};
use crate::engine::timer::handler_payload;
use crate::engine::{
    Address, DeferReason, Failure, ScheduleArgs, ScheduleCtx, Timer, TimerEvent, TimerId,
    validate_schedule,
};
use crate::node::{Mine, NodeCore, NodeError, Revert, SendTx, Snapshot};
use crate::tui::model::*;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Shortest interval block time accepted (a guard against a UI that asks for 0 ms).
pub const MIN_BLOCK_TIME_MS: u64 = 50;
/// Blocks an interval miner seals at most per tick when it has fallen behind.
const MAX_CATCH_UP: u32 = 10;

/// An in-process devnet seen through the dashboard's interface.
pub struct LocalDevnet {
    devnet: NodeCore,
    names: BTreeMap<Address, String>,
    mining: MiningMode,
    last_seal: Option<Instant>,
    rpc_address: Option<String>,
}

impl LocalDevnet {
    /// Wraps a devnet; `names` labels addresses (a fixture's address book). Mining starts
    /// `manual`.
    pub fn new(devnet: NodeCore, names: BTreeMap<Address, String>) -> Self {
        LocalDevnet {
            devnet,
            names,
            mining: MiningMode::Manual,
            last_seal: None,
            rpc_address: None,
        }
    }

    pub fn with_mining(mut self, mode: MiningMode) -> Self {
        self.mining = mode;
        self
    }

    /// The address the status bar shows for the JSON-RPC API.
    pub fn with_rpc_address(mut self, addr: impl Into<String>) -> Self {
        self.rpc_address = Some(addr.into());
        self
    }

    pub fn devnet(&self) -> &NodeCore {
        &self.devnet
    }

    pub fn chain(&self) -> &Chain {
        self.devnet.chain()
    }

    pub fn mining(&self) -> MiningMode {
        self.mining
    }

    fn label(&self, a: &Address) -> String {
        self.names
            .get(a)
            .cloned()
            .unwrap_or_else(|| a.to_string()[..10].to_string())
    }

    /// A pending timer's row. Its gas is its fire budget, `gas_limit_per_fire` bounded by the
    /// `max_cycles_per_fire` in force (Spec note 16): what its fire reserves of the lane and
    /// what its `max_cost` is charged on.
    fn timer_row(&self, t: &Timer) -> TimerRow {
        let chain = self.chain();
        let budget = fire_budget(t, chain.timer_config());
        TimerRow {
            id: t.timer_id,
            actor: t.actor_address,
            fee_payer: t.fee_payer,
            height: t.height,
            schedule_block: t.schedule_block,
            gas_limit: budget,
            expires_at: t.expires_at,
            handler: t.handler().name().to_string(),
            payload_len: t.payload.len() as u64,
            max_cost: max_cost(
                budget,
                chain.timer_config().max_cells_per_fire,
                &chain.fee_quote(),
                0,
            ),
            effective_priority: None,
        }
    }

    fn seal(&mut self, blocks: u64) -> Result<u64, CommandError> {
        self.devnet.apply(Mine { blocks }).map_err(node_error)?;
        Ok(self.chain().height())
    }

    /// Sends a transaction (sealing it at once under `auto` mining); a reverted one is an error.
    fn send(&mut self, tx: Transaction) -> Result<Vec<TimerId>, CommandError> {
        let receipt = self.devnet.apply(SendTx(tx)).map_err(node_error)?.receipt;
        if self.mining == MiningMode::Auto {
            self.seal(1)?;
        }
        if !receipt.success {
            return Err(receipt.error.as_ref().map_or_else(
                || CommandError::new("Reverted", "the transaction failed"),
                CommandError::from_failure,
            ));
        }
        Ok(receipt.timers)
    }

    fn deployer(&self, actor: &Address) -> Result<Address, CommandError> {
        self.chain()
            .actor(actor)
            .map(|a| a.deployer)
            .ok_or_else(|| {
                CommandError::new(
                    "UnknownActor",
                    format!("{} is not a deployed actor", self.label(actor)),
                )
            })
    }

    fn schedule_args(req: &ScheduleRequest) -> ScheduleArgs {
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
        }
    }

    /// `timer_estimate`: the checks `timer_schedule` makes, the max cost per fire, and the
    /// height the timer would fire at: its own, or under FIFO the first height from there whose
    /// bucket still has lane room for it (CIP-5 §5.1 carries the rest over one block at a time).
    /// A bucket's room is counted in fire budgets (Spec notes 16, 28).
    fn estimate(&self, req: &ScheduleRequest) -> Result<Estimate, CommandError> {
        let chain = self.chain();
        let from = match req.from {
            Some(f) => f,
            None => self.deployer(&req.actor)?,
        };
        let deployer = self.deployer(&req.actor)?;
        let cfg = chain.timer_config();
        let gas = req.gas_limit.unwrap_or(cfg.max_cycles_per_fire);
        let cost = max_cost(gas, cfg.max_cells_per_fire, &chain.fee_quote(), 0);
        let mut error = None;
        if from != deployer {
            error = Some(CommandError::new(
                "Unauthorized",
                format!(
                    "only {}'s deployer {} may act as it",
                    self.label(&req.actor),
                    self.label(&deployer)
                ),
            ));
        }
        let ctx = ScheduleCtx {
            current_height: chain.pending_height(),
            actor: req.actor,
            tx_sender: from,
            actor_nonce: chain.nonce(&req.actor),
            actor_timers: chain.engine().queue().actor_count(&req.actor),
        };
        let mut gas_limit = gas;
        match validate_schedule(cfg, &ctx, Self::schedule_args(req)) {
            Ok((t, _)) => gas_limit = t.gas_limit_per_fire,
            Err(e) => {
                error.get_or_insert_with(|| {
                    CommandError::from_failure(&Failure::from_error(e.kind(), &e))
                });
            }
        }
        let lane = cfg.lane_timer_cycles;
        let mut fire = req.height;
        let horizon = chain.engine().queue().horizons().ring_horizon;
        while fire < horizon {
            let used: u64 = chain
                .engine()
                .queue()
                .bucket(fire)
                .iter()
                .map(|t| fire_budget(t, cfg))
                .sum();
            if used.saturating_add(gas_limit) <= lane {
                break;
            }
            fire += 1;
        }
        Ok(Estimate {
            max_cost: cost,
            fire_height: fire,
            error,
        })
    }

    fn event_row(&self, r: &EventRecord) -> EventRow {
        EventRow {
            height: r.height,
            kind: r.event.kind().to_string(),
            fields: self.fields(&r.event),
            timer: r.event.timer_id(),
            actor: r.event.actor(),
        }
    }

    /// The event's fields other than its kind, id and actor, `name=value`, addresses by name.
    fn fields(&self, e: &Event) -> String {
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
                serde_json::Value::String(s) => match s.parse::<Address>() {
                    Ok(a) => self.label(&a),
                    Err(_) => s.clone(),
                },
                other => other.to_string(),
            };
            out.push(format!("{k}={s}"));
        }
        out.join(" ")
    }

    fn life_entry(&self, r: &EventRecord) -> LifeEntry {
        let reason = match &r.event {
            Event::Timer(t) => match t {
                TimerEvent::TimerScheduled {
                    height, fee_payer, ..
                } => format!("for #{height}, paid by {}", self.label(fee_payer)),
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
                    reason, to_height, ..
                } => format!("{}: carried to #{to_height}", defer_reason(reason)),
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
}

/// A timer's status as the fixture format names it, from whether it is pending and its events
/// (the last exit event decides; a governance cancel of a missing timer is no exit).
fn status_of(pending: bool, records: &[&EventRecord]) -> &'static str {
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
fn defer_reason(reason: &DeferReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn node_error(e: NodeError) -> CommandError {
    CommandError::from_failure(&Failure::from_error(e.kind(), &e))
}

impl DashboardSource for LocalDevnet {
    fn dashboard(&mut self, q: &ViewQuery) -> DashboardData {
        // The overflow root is folded on demand, as sealing does (the commitment is a function
        // of the timer set, so folding early changes no root).
        let chain = self.chain();
        let overflow_root = crate::engine::H256(chain.engine().committed_roots().1);
        let queue = chain.engine().queue();
        let cfg = chain.timer_config();
        let scheduler = serde_json::to_value(chain.engine().scheduler())
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "fifo".into());
        let status = Status {
            height: chain.height(),
            mining: self.mining,
            scheduler,
            activation_height: None,
            cycle_basefee: chain.basefee().cycle_basefee,
            cell_basefee: chain.basefee().cell_basefee,
            lane_basefee: None,
            pending_timers: queue.len() as u64,
            rpc_address: self.rpc_address.clone(),
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
        let bucket_timers = q
            .selected_bucket
            .map(|h| {
                queue
                    .bucket(h)
                    .into_iter()
                    .map(|t| self.timer_row(t))
                    .collect()
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

        let lane_cycles = cfg.lane_timer_cycles.max(1);
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
            .map(|b| LaneRow {
                height: b.header.height,
                basefee: chain.basefee().cycle_basefee,
                utilisation_bps: (u128::from(b.eob.lane_used) * 10_000 / u128::from(lane_cycles))
                    .min(u128::from(u32::MAX)) as u32,
                cycles_used: b.eob.lane_used,
                cycles_reserved: b.eob.lane_reserved,
                gc_cycles: b.eob.gc_cycles,
                fired: b.eob.fired,
                deferred: b.eob.deferred,
                p50_tip: None,
            })
            .collect();
        lane.reverse();

        // Fires and deferrals per actor over the window; pending per actor from the queue index.
        let mut per: BTreeMap<Address, FairnessRow> = BTreeMap::new();
        let row = |a: Address| FairnessRow {
            actor: a,
            fires: 0,
            deferrals: 0,
            pending: 0,
            w_bps: None,
        };
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
        for (a, c) in queue.actor_counts() {
            per.entry(a).or_insert_with(|| row(a)).pending = u64::from(c);
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
        }
    }

    fn events(&mut self, from_height: u64, limit: usize) -> Vec<EventRow> {
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

    fn timer_life(&mut self, id: &TimerId) -> Option<TimerLife> {
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
                }) => Some(TimerRow {
                    id: *id,
                    actor: *actor,
                    fee_payer: *fee_payer,
                    height: *height,
                    schedule_block: r.height,
                    gas_limit: *gas_limit_per_fire,
                    expires_at: *expires_at,
                    handler: handler.clone(),
                    payload_len: *payload_len,
                    max_cost: max_cost(
                        *gas_limit_per_fire,
                        chain.timer_config().max_cells_per_fire,
                        &chain.fee_quote(),
                        0,
                    ),
                    effective_priority: None,
                }),
                _ => None,
            }),
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

    fn execute(&mut self, cmd: UiCommand) -> Result<CommandOutcome, CommandError> {
        let governor = |f: Option<Address>| f.unwrap_or_else(default_governor);
        match cmd {
            UiCommand::Mine(n) => Ok(CommandOutcome::Mined {
                height: self.seal(n)?,
            }),
            UiCommand::SetMining(mode) => {
                if let MiningMode::Interval { ms } = mode
                    && ms < MIN_BLOCK_TIME_MS
                {
                    return Err(CommandError::new(
                        "InvalidInput",
                        format!("block time must be at least {MIN_BLOCK_TIME_MS} ms, got {ms}"),
                    ));
                }
                self.mining = mode;
                self.last_seal = None;
                Ok(CommandOutcome::MiningSet(mode))
            }
            UiCommand::ScheduleTimer(req) => {
                let from = match req.from {
                    Some(f) => f,
                    None => self.deployer(&req.actor)?,
                };
                let tx = Transaction::new(
                    from,
                    TxKind::ActAs {
                        actor: req.actor,
                        op: TimerOp::ScheduleTimer(Self::schedule_args(&req)),
                    },
                );
                let timers = self.send(tx)?;
                let timer_id = *timers.first().ok_or_else(|| {
                    CommandError::new("InvalidInput", "the transaction scheduled no timer")
                })?;
                Ok(CommandOutcome::Scheduled {
                    timer_id,
                    height: req.height,
                })
            }
            UiCommand::EstimateTimer(req) => self.estimate(&req).map(CommandOutcome::Estimated),
            UiCommand::CancelTimer { actor, timer_id } => {
                let from = self.deployer(&actor)?;
                self.send(Transaction::new(
                    from,
                    TxKind::ActAs {
                        actor,
                        op: TimerOp::CancelTimer { timer_id },
                    },
                ))?;
                Ok(CommandOutcome::Applied {
                    what: format!("cancelled timer {}", timer_id.short()),
                })
            }
            UiCommand::ExtendTimer {
                actor,
                timer_id,
                new_expires_at,
            } => {
                let from = self.deployer(&actor)?;
                self.send(Transaction::new(
                    from,
                    TxKind::ActAs {
                        actor,
                        op: TimerOp::ExtendTimer {
                            timer_id,
                            new_expires_at,
                        },
                    },
                ))?;
                // CIP-5 §5.4 clamps the new expiry to the TTL cap: report what was applied.
                let applied = self
                    .chain()
                    .timer(&timer_id)
                    .map_or(new_expires_at, |t| t.expires_at);
                Ok(CommandOutcome::Applied {
                    what: format!("extended timer {} to expire at {applied}", timer_id.short()),
                })
            }
            UiCommand::GovCancelTimer { from, timer_id } => {
                self.send(Transaction::new(
                    governor(from),
                    TxKind::System(SystemInstruction::CancelTimer { timer_id }),
                ))?;
                Ok(CommandOutcome::Applied {
                    what: format!("governance cancelled timer {}", timer_id.short()),
                })
            }
            UiCommand::GovExtendTimer {
                from,
                timer_id,
                new_expires_at,
            } => {
                self.send(Transaction::new(
                    governor(from),
                    TxKind::System(SystemInstruction::ExtendTimer {
                        timer_id,
                        new_expires_at,
                    }),
                ))?;
                Ok(CommandOutcome::Applied {
                    what: format!(
                        "governance extended timer {} to {new_expires_at}",
                        timer_id.short()
                    ),
                })
            }
            UiCommand::GovUpdateConfig { from, patch } => {
                let config = patch.apply(self.chain().timer_config());
                self.send(Transaction::new(
                    governor(from),
                    TxKind::System(SystemInstruction::UpdateTimerConfig { config }),
                ))?;
                Ok(CommandOutcome::Applied {
                    what: "governance updated TimerConfig (from the next block)".into(),
                })
            }
            UiCommand::GovSetActivationHeight { .. } => Err(CommandError::new(
                "Unsupported",
                "this node runs the fifo scheduler only: the CIP-1 v3 scheduler and its activation height are not built yet",
            )),
            UiCommand::Snapshot => self
                .devnet
                .apply(Snapshot)
                .map(CommandOutcome::SnapshotTaken)
                .map_err(node_error),
            UiCommand::Revert(id) => {
                self.devnet.apply(Revert { id }).map_err(node_error)?;
                Ok(CommandOutcome::Reverted {
                    id,
                    height: self.chain().height(),
                })
            }
        }
    }

    fn tick(&mut self, now: Instant) -> bool {
        let MiningMode::Interval { ms } = self.mining else {
            return false;
        };
        let period = Duration::from_millis(ms.max(MIN_BLOCK_TIME_MS));
        let Some(last) = self.last_seal else {
            self.last_seal = Some(now);
            return false;
        };
        let mut due = last + period;
        let mut sealed = 0;
        while due <= now && sealed < MAX_CATCH_UP {
            if self.seal(1).is_err() {
                break;
            }
            sealed += 1;
            due += period;
        }
        // Far behind (a long pause of the caller): start counting again from now.
        self.last_seal = Some(if due <= now { now } else { due - period });
        sealed > 0
    }

    fn next_deadline(&self) -> Option<Instant> {
        match (self.mining, self.last_seal) {
            (MiningMode::Interval { ms }, Some(last)) => {
                Some(last + Duration::from_millis(ms.max(MIN_BLOCK_TIME_MS)))
            }
            _ => None,
        }
    }
}
