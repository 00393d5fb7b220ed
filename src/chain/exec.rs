//! One execution (a transaction's handler or a timer fire) against a read-only view of the
//! chain, with every write buffered in an [`Overlay`]. The chain applies the overlay if the
//! handler succeeds and drops it if it reverts (CIP-5 §4.3): timer side effects included.

use super::Chain;
use super::runtime::{Host, VmError, cost};
use super::state::Actor;
use super::types::{ChainEvent, Event};
use crate::engine::{
    self, Address, ScheduleArgs, ScheduleCtx, Timer, TimerConfig, TimerError, TimerEvent, TimerId,
};
use std::collections::{BTreeMap, BTreeSet};

mod nonce;
mod schedule;

use schedule::DraftSchedule;

/// Buffered writes of one execution.
#[derive(Debug, Default)]
pub struct Overlay {
    pub balances: BTreeMap<Address, u128>,
    pub storage: BTreeMap<(Address, Vec<u8>), Option<Vec<u8>>>,
    pub nonces: BTreeMap<Address, u64>,
    pub new_actor: Option<(Address, Actor)>,
    pub scheduled: Vec<Timer>,
    pub cancelled: Vec<TimerId>,
    /// Pre-charged timers of this end of block cancelled before their turn, with the fee payer
    /// and the pre-charge refunded when this overlay commits (CIP-5 §4.3, §5.4).
    pub cancelled_fires: Vec<(TimerId, Address, u128)>,
    /// The `expires_at` the running handler set on its own timer (CIP-5 §6.3), if it did.
    pub firing_extended: Option<u64>,
    /// The running handler cancelled its own timer (Spec note 72).
    pub firing_cancelled: bool,
    /// `expires_at` set on pre-charged siblings of this end of block (Spec note 72): recorded,
    /// changing nothing, kept for the next extension's `old_expires_at`.
    pub fire_extended: BTreeMap<TimerId, u64>,
    pub extended: BTreeMap<TimerId, u64>,
    pub events: Vec<Event>,
    /// Registrations under a CIP-5 draft policy (kind, bid, a watch's body).
    pub draft: Vec<engine::draft::DraftReg>,
    /// Idempotent repeats of live draft timers (English §6.2): their updates.
    pub draft_updates: Vec<engine::draft::DraftUpdate>,
}

/// A timer pre-charged in this end of block and not yet run.
#[derive(Debug, Clone, Copy)]
pub struct PendingFire {
    pub owner: Address,
    pub fee_payer: Address,
    /// Its pre-charge, refunded whole if its owner cancels it before its turn.
    pub max_cost: u128,
    /// Its scheduled height and `expires_at`, to validate an extension (Spec note 72).
    pub height: u64,
    pub expires_at: u64,
}

/// The timer whose handler is running (none for a transaction).
#[derive(Debug, Clone, Copy)]
pub struct Firing {
    pub timer_id: TimerId,
    pub height: u64,
    pub expires_at: u64,
}

/// Metered limits of one execution.
#[derive(Debug, Clone, Copy)]
pub struct Meter {
    pub cycles_limit: u64,
    pub cells_limit: u64,
    pub cycles: u64,
    pub cells: u64,
}

impl Meter {
    pub fn new(cycles_limit: u64, cells_limit: u64) -> Self {
        Meter {
            cycles_limit,
            cells_limit,
            cycles: 0,
            cells: 0,
        }
    }
}

/// The frame of one execution: the height it runs at, the executing actor, the transaction's
/// sender (the actor itself for a timer fire, CIP-5 §5.2), the actor's deployer and the meter.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub height: u64,
    pub actor: Address,
    pub sender: Address,
    pub deployer: Address,
    pub meter: Meter,
}

/// Adds `n` to a metered counter; past `limit` the counter is pinned at the limit (running out
/// charges everything, CIP-5 §6.3) and `false` is returned.
fn charge(used: &mut u64, limit: u64, n: u64) -> bool {
    let next = used.saturating_add(n);
    *used = next.min(limit);
    next <= limit
}

/// The execution context: implements the actor host API.
pub struct ExecCtx<'a> {
    chain: &'a Chain,
    cfg: &'a TimerConfig,
    /// Timers pre-charged in this end of block and not yet run.
    pending_fires: &'a BTreeMap<TimerId, PendingFire>,
    /// The timer whose handler this execution is.
    pub firing: Option<Firing>,
    pub height: u64,
    pub actor: Address,
    pub sender: Address,
    pub deployer: Address,
    pub meter: Meter,
    pub overlay: Overlay,
    /// The first fatal error a host call returned; the execution reverts if set.
    pub fatal: Option<VmError>,
    /// The draft kind the next `schedule_timer` registers (set by the drafts' host calls;
    /// `Height` when unset).
    draft_kind: Option<engine::draft::DraftKind>,
}

impl<'a> ExecCtx<'a> {
    pub fn new(
        chain: &'a Chain,
        cfg: &'a TimerConfig,
        pending_fires: &'a BTreeMap<TimerId, PendingFire>,
        frame: Frame,
    ) -> Self {
        ExecCtx {
            chain,
            cfg,
            pending_fires,
            firing: None,
            height: frame.height,
            actor: frame.actor,
            sender: frame.sender,
            deployer: frame.deployer,
            meter: frame.meter,
            overlay: Overlay::default(),
            fatal: None,
            draft_kind: None,
        }
    }

    fn fail<T>(&mut self, e: VmError) -> Result<T, VmError> {
        if self.fatal.is_none() {
            self.fatal = Some(e.clone());
        }
        Err(e)
    }

    fn cycles(&mut self, n: u64) -> Result<(), VmError> {
        let limit = self.meter.cycles_limit;
        if !charge(&mut self.meter.cycles, limit, n) {
            return self.fail(VmError::OutOfCycles { limit });
        }
        Ok(())
    }

    fn cells(&mut self, n: u64) -> Result<(), VmError> {
        let limit = self.meter.cells_limit;
        if !charge(&mut self.meter.cells, limit, n) {
            return self.fail(VmError::OutOfCells { limit });
        }
        Ok(())
    }

    /// Records an extension in the call's overlay (`TimerExtended`), by whichever path it came.
    fn push_extended(&mut self, timer_id: TimerId, old: u64, new: u64, no_effect: bool) {
        self.overlay
            .events
            .push(Event::Timer(TimerEvent::TimerExtended {
                timer_id,
                actor: self.actor,
                old_expires_at: old,
                new_expires_at: new,
                no_effect,
            }));
    }

    /// Whether a pre-charged timer of this end of block was cancelled by an earlier handler
    /// (or by this execution).
    fn fire_cancelled(&self, id: &TimerId) -> bool {
        self.overlay.cancelled_fires.iter().any(|c| c.0 == *id)
            || self.chain.cancelled_fires.contains(id)
    }

    /// Spec note (English §6.1, zh §7.1 `target`): a draft timer registered from actor code
    /// fires its registrant and watches its storage, so `target` must be the calling actor;
    /// another address is `InvalidInput` (the drafts' `ERR_INVALID_PARAM`).
    fn own_target(&mut self, target: &Address, call: &str) -> Result<(), VmError> {
        if *target == self.actor {
            return Ok(());
        }
        self.timer_err(TimerError::InvalidInput(format!(
            "{call}: target {target} is not the calling actor {}",
            self.actor
        )))
    }

    fn timer_err<T>(&mut self, e: TimerError) -> Result<T, VmError> {
        self.fail(VmError::Timer(e))
    }

    /// Current balance as this execution sees it.
    pub fn balance_of(&self, who: &Address) -> u128 {
        self.overlay
            .balances
            .get(who)
            .copied()
            .unwrap_or_else(|| self.chain.balance(who))
    }

    /// Moves funds inside the overlay (used by `transfer` and deploy endowments).
    pub fn move_funds(
        &mut self,
        from: &Address,
        to: &Address,
        amount: u128,
    ) -> Result<(), VmError> {
        let have = self.balance_of(from);
        if have < amount {
            return self.fail(VmError::InsufficientFunds(format!(
                "{from} holds {have}, cannot send {amount}"
            )));
        }
        if from == to {
            return Ok(());
        }
        let to_bal = self.balance_of(to);
        let Some(new_to) = to_bal.checked_add(amount) else {
            return self.fail(VmError::InvalidInput("balance overflow".into()));
        };
        self.overlay.balances.insert(*from, have - amount);
        self.overlay.balances.insert(*to, new_to);
        Ok(())
    }

    fn actor_nonce(&self) -> u64 {
        self.overlay
            .nonces
            .get(&self.actor)
            .copied()
            .unwrap_or_else(|| self.chain.nonce(&self.actor))
    }

    /// The actor's live timers: the calendar queue's and the drafts' watches (Spec note 128),
    /// with this execution's schedules and cancellations.
    fn live_timers_of_actor(&self) -> u32 {
        let e = &self.chain.engine;
        let base = e.queue().actor_count(&self.actor) + e.policies().watches_of(&self.actor);
        let cancelled = self
            .overlay
            .cancelled
            .iter()
            .filter(|id| e.get(id).is_some_and(|t| t.actor_address == self.actor))
            .count() as u32;
        let watches = self.overlay.draft.iter().filter(|r| r.watch.is_some());
        base + self.overlay.scheduled.len() as u32 + watches.count() as u32 - cancelled
    }

    fn actor_exists(&self, who: &Address) -> bool {
        self.chain.actors.contains_key(who)
            || self
                .overlay
                .new_actor
                .as_ref()
                .is_some_and(|(a, _)| a == who)
    }
}

/// The CIP-5 drafts' host calls (English §6.1, zh §7.1), made through `TxKind::ActAs`.
impl ExecCtx<'_> {
    /// `set_state_watch(target, watch_keys, payload, gas_limit, bid?)`: a timer that fires when
    /// this actor writes a key starting with one of `keys` (from the next block on). Its CIP-5
    /// checks are `schedule_timer`'s (for a nominal height, the next block).
    ///
    /// Spec note (English §6.1 `ERR_UNSUPPORTED_TIMER_TYPE`): under `fifo` and `eip1559` a
    /// watch is `InvalidInput`, naming the schedulers that have them.
    pub fn set_state_watch(
        &mut self,
        a: &super::types::DraftTimerArgs,
    ) -> Result<TimerId, VmError> {
        let params = self.chain.engine.policies().draft_params();
        if a.keys.is_empty() || a.keys.len() > params.max_watch_keys as usize {
            return self.timer_err(TimerError::InvalidInput(format!(
                "a state watch names 1..={} keys or prefixes, got {}",
                params.max_watch_keys,
                a.keys.len()
            )));
        }
        let max_key = engine::config::MAX_WATCH_KEY_BYTES;
        if let Some(k) = a.keys.iter().find(|k| k.len() > max_key) {
            return self.timer_err(TimerError::InvalidInput(format!(
                "a state watch key is at most {max_key} bytes, got one of {} bytes",
                k.len()
            )));
        }
        // Spec note 162: the keys are stored with the watch, so they are charged as cells, as
        // a timer's payload is (CIP-5 §6.1).
        let key_bytes: usize = a.keys.iter().map(|k| k.len()).sum();
        self.cells(key_bytes as u64)?;
        let kind = engine::draft::DraftKind::Watch {
            keys: a.keys.iter().map(|k| k.as_bytes().to_vec()).collect(),
        };
        let id = self.draft_timer(a, self.height + 1, "a state watch", kind)?;
        let Some(i) = self.overlay.scheduled.iter().position(|t| t.timer_id == id) else {
            return Ok(id);
        };
        let body = self.overlay.scheduled.remove(i);
        if let Some(r) = self.overlay.draft.iter_mut().find(|r| r.timer_id == id) {
            r.kind = engine::draft::DraftKind::Watch {
                keys: a.keys.iter().map(|k| k.as_bytes().to_vec()).collect(),
            };
            r.watch = Some(body);
        }
        Ok(id)
    }

    /// `set_interval(target, every_blocks, payload, gas_limit, bid?)` (zh §7.1): due at `first`
    /// (by default by the `interval_first` variant), then every `every` blocks after each fire.
    pub fn set_interval(&mut self, a: &super::types::DraftTimerArgs) -> Result<TimerId, VmError> {
        let k = self.chain.engine.scheduler_at(self.height);
        if k.facts().drafts && !k.facts().intervals {
            // Spec note: the English draft has no interval timers (§4 "the SDK/Runner issues a
            // new set_timeout"): `ERR_UNSUPPORTED_TIMER_TYPE`, here `InvalidInput`.
            return self.timer_err(TimerError::InvalidInput(format!(
                "set_interval is not in the English CIP-5 draft ({k}): use {}, or re-arm with set_timeout",
                engine::SchedulerKind::names_where(|f| f.intervals)
            )));
        }
        let every = a.every.unwrap_or(0);
        if every == 0 {
            return self.timer_err(TimerError::InvalidInput(
                "set_interval: every_blocks must be at least 1".into(),
            ));
        }
        let variants = self.chain.engine.policies().variants();
        let first = a.first.unwrap_or(match variants.interval_first {
            engine::scheduler::variants::IntervalFirst::Every => self.height.saturating_add(every),
            engine::scheduler::variants::IntervalFirst::NextBlock => self.height + 1,
        });
        let kind = engine::draft::DraftKind::Interval { every };
        let id = self.draft_timer(a, first, "an interval timer", kind)?;
        if let Some(r) = self.overlay.draft.iter_mut().find(|r| r.timer_id == id) {
            r.kind = engine::draft::DraftKind::Interval { every };
        }
        Ok(id)
    }

    fn draft_timer(
        &mut self,
        a: &super::types::DraftTimerArgs,
        height: u64,
        what: &str,
        kind: engine::draft::DraftKind,
    ) -> Result<TimerId, VmError> {
        if !self.chain.engine.scheduler_at(self.height).facts().drafts {
            return self.timer_err(TimerError::InvalidInput(format!(
                "{what} needs a CIP-5 draft scheduler ({}), not {}",
                engine::SchedulerKind::draft_names(),
                self.chain.engine.scheduler_at(self.height)
            )));
        }
        self.draft_kind = Some(kind);
        self.schedule_timer(ScheduleArgs {
            height,
            payload: a.payload.clone(),
            fee_payer: a.fee_payer,
            gas_limit: a.gas_limit,
            expires_at: a.expires_at,
            bid: a.bid,
            client_nonce: a.client_nonce,
            ..Default::default()
        })
    }
}

impl Host for ExecCtx<'_> {
    fn charge_cycles(&mut self, n: u64) -> Result<(), VmError> {
        self.cycles(n)
    }
    fn cycles_used(&self) -> u64 {
        self.meter.cycles
    }
    fn cycles_limit(&self) -> u64 {
        self.meter.cycles_limit
    }
    fn cells_used(&self) -> u64 {
        self.meter.cells
    }
    fn peek_storage(&self, key: &[u8]) -> Option<Vec<u8>> {
        if let Some(v) = self.overlay.storage.get(&(self.actor, key.to_vec())) {
            return v.clone();
        }
        let actor = self.chain.actors.get(&self.actor)?;
        actor.storage.get(key).cloned()
    }
    fn block_height(&mut self) -> Result<u64, VmError> {
        self.cycles(cost::CONTEXT_CYCLES)?;
        Ok(self.height)
    }
    fn self_address(&mut self) -> Result<Address, VmError> {
        self.cycles(cost::CONTEXT_CYCLES)?;
        Ok(self.actor)
    }
    fn tx_sender(&mut self) -> Result<Address, VmError> {
        self.cycles(cost::CONTEXT_CYCLES)?;
        Ok(self.sender)
    }
    fn deployer(&mut self) -> Result<Address, VmError> {
        self.cycles(cost::CONTEXT_CYCLES)?;
        Ok(self.deployer)
    }

    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, VmError> {
        self.cycles(cost::STORAGE_READ_CYCLES)?;
        if let Some(v) = self.overlay.storage.get(&(self.actor, key.to_vec())) {
            return Ok(v.clone());
        }
        Ok(self
            .chain
            .actors
            .get(&self.actor)
            .and_then(|a| a.storage.get(key).cloned()))
    }

    fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), VmError> {
        self.cycles(cost::STORAGE_WRITE_CYCLES)?;
        self.cells((key.len() + value.len()) as u64)?;
        self.overlay
            .storage
            .insert((self.actor, key.to_vec()), Some(value.to_vec()));
        Ok(())
    }

    fn storage_remove(&mut self, key: &[u8]) -> Result<(), VmError> {
        self.cycles(cost::STORAGE_WRITE_CYCLES)?;
        self.overlay
            .storage
            .insert((self.actor, key.to_vec()), None);
        Ok(())
    }

    fn balance(&mut self, who: &Address) -> Result<u128, VmError> {
        self.cycles(cost::BALANCE_CYCLES)?;
        Ok(self.balance_of(who))
    }

    fn transfer(&mut self, to: &Address, amount: u128) -> Result<(), VmError> {
        self.cycles(cost::TRANSFER_CYCLES)?;
        if *to == Address::ZERO {
            return self.fail(VmError::InvalidInput(
                "transfer to the zero address: use burn_cycles to burn".into(),
            ));
        }
        let from = self.actor;
        self.move_funds(&from, to, amount)
    }

    fn emit(&mut self, topic: &str, data: &[u8]) -> Result<(), VmError> {
        self.cycles(cost::EMIT_CYCLES)?;
        self.cells((topic.len() + data.len()) as u64)?;
        let data = match std::str::from_utf8(data) {
            Ok(s) => s.to_string(),
            Err(_) => format!("0x{}", hex::encode(data)),
        };
        self.overlay
            .events
            .push(Event::Chain(ChainEvent::ActorEmitted {
                actor: self.actor,
                topic: topic.to_string(),
                data,
            }));
        Ok(())
    }

    fn schedule_timer(&mut self, args: ScheduleArgs) -> Result<TimerId, VmError> {
        let kind = self
            .draft_kind
            .take()
            .unwrap_or(engine::draft::DraftKind::Height);
        self.cycles(cost::SET_TIMER_BASE_CYCLES)?;
        self.cells(args.payload.len() as u64)?;
        if !self.actor_exists(&self.actor) {
            return self.timer_err(TimerError::InvalidInput(format!(
                "{} is not an actor",
                self.actor
            )));
        }
        // English §6.2 / zh §7.2: a repeat of a `client_nonce` returns its timer (Spec note 122).
        if let Some(n) = args.client_nonce
            && let Some(id) = self.nonce_repeat(n, &args, &kind)?
        {
            return Ok(id);
        }
        let client_nonce = args.client_nonce;
        let ctx = ScheduleCtx {
            current_height: self.height,
            actor: self.actor,
            tx_sender: self.sender,
            actor_nonce: self.actor_nonce(),
            actor_timers: self.live_timers_of_actor(),
        };
        // The policy in force for this block: its defaults and limits (CIP-1 v3 §10 under
        // eip1559), the CIP-5 §4.2 checks, then its fee checks (CIP-1 v3 §6).
        let engine = &self.chain.engine;
        let policy = engine.policy_at(self.height);
        let env = engine.schedule_env(self.height, self.cfg, self.chain.lane_basefee());
        let mut args = args;
        if let Err(e) = policy.prepare_schedule(&env, &mut args) {
            return self.timer_err(e);
        }
        let fee_args = ScheduleArgs {
            max_fee_per_cycle: args.max_fee_per_cycle,
            max_priority_fee_per_cycle: args.max_priority_fee_per_cycle,
            priority_tier: args.priority_tier,
            bid: args.bid,
            ..Default::default()
        };
        let (mut timer, handler) = match engine::validate_schedule(self.cfg, &ctx, args) {
            Ok(t) => t,
            Err(e) => return self.timer_err(e),
        };
        if let Err(e) = self
            .chain
            .check_new_timer(self.height, &timer, ctx.actor_timers)
        {
            return self.timer_err(e);
        }
        let fees = match policy.check_fees(&env, &fee_args) {
            Ok(f) => f,
            Err(e) => return self.timer_err(e),
        };
        timer.fee_caps = fees.caps.map(Box::new);
        if self.id_taken(&timer.timer_id) {
            return self.timer_err(TimerError::InvalidInput(format!(
                "timer id {} already exists",
                timer.timer_id
            )));
        }
        let id = timer.timer_id;
        self.record_scheduled(&timer, handler.name(), fees.clamped);
        self.overlay.nonces.insert(self.actor, ctx.actor_nonce + 1);
        let expires_at = timer.expires_at;
        self.overlay.scheduled.push(timer);
        if policy.kind().facts().drafts {
            let reg = DraftSchedule {
                id,
                kind,
                bid: fee_args.bid.unwrap_or(0),
                client_nonce,
                expires_at,
            };
            self.register_draft(reg)?;
        }
        Ok(id)
    }

    fn extend_timer(&mut self, timer_id: &[u8], new_expires_at: u64) -> Result<(), VmError> {
        self.cycles(cost::EXTEND_TIMER_CYCLES)?;
        let id = match engine::parse_timer_id(timer_id) {
            Ok(id) => id,
            Err(e) => return self.timer_err(e),
        };
        let (cfg, height) = (self.cfg, self.height);
        if let Some(i) = self.overlay.scheduled.iter().position(|t| t.timer_id == id) {
            // Scheduled earlier in this same execution: owned by this actor by construction.
            let new = match engine::clamp_extension(
                cfg,
                height,
                self.overlay.scheduled[i].height,
                new_expires_at,
            ) {
                Ok(n) => n,
                Err(e) => return self.timer_err(e),
            };
            let t = &mut self.overlay.scheduled[i];
            let old = t.expires_at;
            t.expires_at = new;
            self.push_extended(id, old, new, false);
            return Ok(());
        }
        // A firing watch stays live after its fire (unless `watch_after_fire = once`): its
        // handler extends it like any live timer (Spec note 127). So does a firing interval's
        // handler, its timer waiting to re-arm at its next due height, unless the handler
        // cancelled it (Spec note 138).
        let draft = self.chain.engine.policies();
        let own_rearm = self
            .firing
            .filter(|f| f.timer_id == id && !self.overlay.firing_cancelled)
            .and_then(|_| draft.rearming(&id));
        let stays_live = draft.watch(&id).is_some() || own_rearm.is_some();
        if let Some(f) = self.firing.filter(|f| f.timer_id == id && !stays_live) {
            // Spec note (CIP-5 §6.3, "extend_timer on the current timer before returning"):
            // while its handler runs, a timer is still addressable by extend_timer. The
            // extension is validated like any other and recorded (`TimerExtended`, marked
            // `no_effect`, Spec note 72), but a fired one-shot timer is removed all the same:
            // it cannot fire again. A handler that wants to keep firing schedules a new timer.
            let new = match engine::clamp_extension(cfg, height, f.height, new_expires_at) {
                Ok(n) => n,
                Err(e) => return self.timer_err(e),
            };
            let old = self.overlay.firing_extended.unwrap_or(f.expires_at);
            self.overlay.firing_extended = Some(new);
            self.push_extended(id, old, new, true);
            return Ok(());
        }
        if let Some(p) = self.pending_fires.get(&id).copied()
            && !self.fire_cancelled(&id)
        {
            // Spec note 72 (CIP-5 §5.4, §6.3): a sibling pre-charged to fire later in this end
            // of block is live, so it can be extended by its owner. It fires in this block
            // whatever its `expires_at` (its expiry was checked when it was selected), so the
            // extension is validated and recorded, marked `no_effect`.
            if p.owner != self.actor {
                return self.timer_err(TimerError::Unauthorized(format!(
                    "timer {id} belongs to actor {}, not {}",
                    p.owner, self.actor
                )));
            }
            let new = match engine::clamp_extension(cfg, height, p.height, new_expires_at) {
                Ok(n) => n,
                Err(e) => return self.timer_err(e),
            };
            let old = self
                .overlay
                .fire_extended
                .insert(id, new)
                .unwrap_or(p.expires_at);
            self.push_extended(id, old, new, true);
            return Ok(());
        }
        let found = self
            .chain
            .engine
            .get(&id)
            .or(own_rearm)
            .filter(|_| !self.overlay.cancelled.contains(&id))
            .map(|t| (t.actor_address, t.expires_at, t.height));
        let Some((owner, committed, timer_height)) = found else {
            return self.timer_err(TimerError::TimerNotFound(format!(
                "{id} is not a live timer"
            )));
        };
        if owner != self.actor {
            return self.timer_err(TimerError::Unauthorized(format!(
                "timer {id} belongs to actor {owner}, not {}",
                self.actor
            )));
        }
        let new = match engine::clamp_extension(cfg, height, timer_height, new_expires_at) {
            Ok(n) => n,
            Err(e) => return self.timer_err(e),
        };
        let old = self.overlay.extended.get(&id).copied().unwrap_or(committed);
        self.overlay.extended.insert(id, new);
        self.push_extended(id, old, new, false);
        Ok(())
    }

    fn cancel_timer(&mut self, timer_id: &[u8]) -> Result<(), VmError> {
        self.cycles(cost::CANCEL_TIMER_CYCLES)?;
        let id = match engine::parse_timer_id(timer_id) {
            Ok(id) => id,
            Err(e) => return self.timer_err(e),
        };
        let actor = self.actor;
        if let Some(i) = self.overlay.scheduled.iter().position(|t| t.timer_id == id) {
            self.overlay.scheduled.remove(i);
            self.overlay
                .events
                .push(Event::Timer(TimerEvent::TimerCancelled {
                    timer_id: id,
                    actor,
                    refund: 0,
                }));
            return Ok(());
        }
        if self.firing.is_some_and(|f| f.timer_id == id) {
            // Spec note 72 (CIP-5 §5.4): the running timer's own cancel. Its fire concludes it
            // (one exit path: `TimerFired`, which names this outcome), so there is nothing left
            // to cancel and nothing to refund; the handler goes on and is not reverted.
            self.overlay.firing_cancelled = true;
            return Ok(());
        }
        // A pre-charged timer an earlier handler of this end of block already cancelled is gone.
        let owner = if self.overlay.cancelled.contains(&id) || self.fire_cancelled(&id) {
            None
        } else if let Some(t) = self.chain.engine.get(&id) {
            Some((t.actor_address, None))
        } else {
            self.pending_fires.get(&id).map(|p| (p.owner, Some(*p)))
        };
        let Some((owner, pending)) = owner else {
            return self.timer_err(TimerError::TimerNotFound(format!(
                "{id} is not a live timer"
            )));
        };
        if owner != actor {
            return self.timer_err(TimerError::Unauthorized(format!(
                "timer {id} belongs to actor {owner}, not {actor}: cross-actor cancel is only possible through SYS_CANCEL_TIMER"
            )));
        }
        if let Some(p) = pending {
            // CIP-5 §4.3 "refunded on the same commit": the pre-charge is credited when this
            // execution's writes commit, so the handlers that run after it in this end of
            // block see the refunded balance. The timer is skipped when its turn comes.
            self.overlay
                .cancelled_fires
                .push((id, p.fee_payer, p.max_cost));
            self.overlay
                .events
                .push(Event::Timer(TimerEvent::TimerCancelled {
                    timer_id: id,
                    actor,
                    refund: p.max_cost,
                }));
        } else {
            self.overlay.extended.remove(&id);
            self.overlay.cancelled.push(id);
            self.overlay
                .events
                .push(Event::Timer(TimerEvent::TimerCancelled {
                    timer_id: id,
                    actor,
                    refund: 0,
                }));
        }
        Ok(())
    }

    fn set_state_watch(
        &mut self,
        target: &Address,
        args: &super::types::DraftTimerArgs,
    ) -> Result<TimerId, VmError> {
        self.own_target(target, "set_state_watch")?;
        ExecCtx::set_state_watch(self, args)
    }
    fn set_interval(
        &mut self,
        target: &Address,
        args: &super::types::DraftTimerArgs,
    ) -> Result<TimerId, VmError> {
        self.own_target(target, "set_interval")?;
        ExecCtx::set_interval(self, args)
    }
    fn revert(&mut self, reason: &str) -> VmError {
        let e = VmError::Revert(reason.to_string());
        if self.fatal.is_none() {
            self.fatal = Some(e.clone());
        }
        e
    }
}

/// Ids of the scheduled timers an overlay will persist (for receipts).
pub fn scheduled_ids(o: &Overlay) -> Vec<TimerId> {
    let watches = o.draft.iter().filter(|r| r.watch.is_some());
    o.scheduled
        .iter()
        .map(|t| t.timer_id)
        .chain(watches.map(|r| r.timer_id))
        .collect()
}

/// Actors touched by an overlay's storage writes.
pub fn touched_actors(o: &Overlay) -> BTreeSet<Address> {
    o.storage.keys().map(|(a, _)| *a).collect()
}
