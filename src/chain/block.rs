//! Building blocks: the transaction phase, the end of block (CIP-5 §5.1) and sealing.

use super::exec::{ExecCtx, Firing, Frame, Meter, Overlay, PendingFire};
use super::runtime::{ActorCode, Host, Lang, VmError, cost};
use super::state::{Actor, StateKey};
use super::trace::{self, TraceOf};
use super::*;

impl Chain {
    pub(super) fn open_block(&mut self) -> &mut OpenBlock {
        if self.open.is_none() {
            let height = self.height + 1 + self.skip_next;
            // After an outage (CIP-5 §8) the skipped heights' timers become due now.
            let migrated = self.engine.open_block(height);
            self.migrated_total += migrated;
            self.engine.set_parent_root(self.root.0);
            let quote = self.fee_quote();
            // CIP-1 v3 §13.2: the first block at or after the activation height is planned by
            // eip1559, and its transactions are validated by it too.
            let activated = self.engine.activate_if_due(height, quote.cycle_basefee);
            self.open = Some(OpenBlock {
                height,
                skipped: std::mem::take(&mut self.skip_next),
                cfg: self.timer_config.clone(),
                quote,
                receipts: Vec::new(),
                events: Vec::new(),
                migrated,
                tx_cycles: 0,
            });
            if activated {
                self.push_event(
                    Phase::Tx,
                    Event::Timer(TimerEvent::SchedulerActivated { height }),
                );
            }
        }
        self.open.as_mut().expect("just opened")
    }

    /// The address a deploy without an explicit address gets: keccak(sender, nonce)[12..].
    pub fn derive_address(&self, sender: &Address) -> Address {
        let h = keccak_parts(&[b"deploy", &sender.0, &self.nonce(sender).to_be_bytes()]);
        let mut a = [0u8; 20];
        a.copy_from_slice(&h[12..]);
        Address(a)
    }

    /// Applies a transaction to the open block (opening one if needed).
    ///
    /// `Err` means the transaction was rejected before inclusion and nothing changed. An
    /// included transaction gets a receipt: if it failed, every effect is discarded (timer side
    /// effects included, CIP-5 §4.3) but the nonce advances and the cycles used are paid, as
    /// on any chain.
    pub fn apply_tx(&mut self, tx: Transaction) -> Result<Receipt, TxError> {
        self.check_tx(&tx)?;
        self.open_block();
        let cycle_limit = tx.cycle_limit.unwrap_or(self.basefee.tx_cycle_limit);
        let run = TxRun {
            height: self.pending_height(),
            tx_hash: tx.hash(),
            index: self.open.as_ref().map_or(0, |o| o.receipts.len() as u32),
            nonce: self.nonce(&tx.from),
            max_fee: self.max_tx_fee(cycle_limit),
            // Derived from the nonce *before* this transaction consumes it, as `check_tx` did.
            created: match &tx.kind {
                TxKind::Deploy { address, .. } => {
                    Some(address.unwrap_or_else(|| self.derive_address(&tx.from)))
                }
                _ => None,
            },
            meter: self.tx_meter(cycle_limit),
        };
        {
            let acc = self.accounts.entry(tx.from).or_default();
            acc.balance -= run.max_fee;
            acc.nonce += 1;
            self.commit.mark(StateKey::Account(tx.from));
        }
        let cfg = self.open.as_ref().expect("open").cfg.clone();
        let ran = self.run_tx(&tx, &cfg, &run);
        Ok(self.conclude_tx(&tx, &run, ran))
    }

    /// Runs an admitted transaction's kind: a system instruction, a transfer, a deploy, an
    /// act-as or a call.
    fn run_tx(&mut self, tx: &Transaction, cfg: &TimerConfig, run: &TxRun) -> Ran {
        match &tx.kind {
            TxKind::System(ins) => {
                let r = self.apply_system(ins, cfg).map_err(VmError::Timer);
                if let Some(site) = self.trace_site(run.trace_of(), tx.from, run.height) {
                    self.traces
                        .push(trace::system(site, ins, &r, run.meter.cycles));
                }
                (r, None, run.meter)
            }
            TxKind::Transfer { to, amount } => {
                let ex = self.execute(cfg, run.frame(tx.from, tx.from, tx.from), |ctx, _| {
                    ctx.charge_cycles(cost::TRANSFER_CYCLES)?;
                    ctx.move_funds(&tx.from, to, *amount)
                });
                (ex.result, Some(ex.overlay), ex.meter)
            }
            TxKind::Deploy {
                address: _,
                code,
                endowment,
            } => self.run_deploy(tx, cfg, run, code, *endowment),
            TxKind::ActAs { actor, op } => {
                let deployer = self.actors[actor].deployer;
                let frame = run.frame(*actor, tx.from, deployer);
                let mut traced = None;
                let site = self.trace_site(run.trace_of(), *actor, run.height);
                let ex = self.execute(cfg, frame, |ctx, _| {
                    let on = site.map(|s| (s, &mut traced));
                    trace::act_as(ctx, op, on)
                });
                self.keep_trace(traced, &ex);
                (ex.result, Some(ex.overlay), ex.meter)
            }
            TxKind::Call {
                actor,
                handler,
                payload,
            } => {
                let rt = self.runtime.clone();
                let deployer = self.actors[actor].deployer;
                let code = self.actors[actor].code.clone();
                let mut traced = None;
                let site = self.trace_site(run.trace_of(), *actor, run.height);
                let frame = run.frame(*actor, tx.from, deployer);
                let ex = self.execute(cfg, frame, |ctx, _| {
                    let on = site.map(|s| (s, &mut traced));
                    trace::invoke(&*rt, &code, handler, payload, ctx, on)
                });
                self.keep_trace(traced, &ex);
                (ex.result, Some(ex.overlay), ex.meter)
            }
        }
    }

    /// A deploy: the new actor, its endowment, and its `deploy` entry if the code has one.
    fn run_deploy(
        &mut self,
        tx: &Transaction,
        cfg: &TimerConfig,
        run: &TxRun,
        code: &ActorCode,
        endowment: u128,
    ) -> Ran {
        let addr = run.created.expect("a deploy");
        let rt = self.runtime.clone();
        let has_deploy = rt.has_entry(code, "deploy");
        let mut traced = None;
        let site = self.trace_site(run.trace_of(), addr, run.height);
        let ex = self.execute(cfg, run.frame(addr, tx.from, tx.from), |ctx, _| {
            ctx.overlay.new_actor = Some((
                addr,
                Actor {
                    code: code.clone(),
                    deployer: tx.from,
                    storage: BTreeMap::new(),
                },
            ));
            ctx.overlay
                .events
                .push(Event::Chain(ChainEvent::ActorDeployed {
                    actor: addr,
                    deployer: tx.from,
                }));
            ctx.charge_cycles(cost::TRANSFER_CYCLES)?;
            ctx.move_funds(&tx.from, &addr, endowment)?;
            if has_deploy {
                let on = site.map(|s| (s, &mut traced));
                trace::invoke(&*rt, code, "deploy", &[], ctx, on)?;
            }
            Ok(())
        });
        self.keep_trace(traced, &ex);
        (ex.result, Some(ex.overlay), ex.meter)
    }

    /// After the run: a success's writes committed, the fee for the cycles and cells used
    /// (the rest of the pre-charge refunded, the fee burned), and the receipt.
    fn conclude_tx(&mut self, tx: &Transaction, run: &TxRun, ran: Ran) -> Receipt {
        let (result, overlay, meter) = ran;
        let success = result.is_ok();
        let mut timers = Vec::new();
        if let (true, Some(o)) = (success, overlay) {
            timers = exec::scheduled_ids(&o);
            self.apply_overlay(o, Phase::Tx);
        }
        let max_fee = run.max_fee;
        let fee = (meter.cycles as u128) * self.basefee.cycle_basefee
            + (meter.cells as u128) * self.basefee.cell_basefee;
        let fee = fee.min(max_fee);
        self.accounts.entry(tx.from).or_default().balance += max_fee - fee;
        self.commit.mark(StateKey::Account(tx.from));
        self.burned += fee;
        let open = self.open.as_mut().expect("open");
        open.tx_cycles = open.tx_cycles.saturating_add(meter.cycles);
        let receipt = Receipt {
            tx_hash: run.tx_hash,
            index: open.receipts.len() as u32,
            from: tx.from,
            nonce: run.nonce,
            kind: tx.kind_name().to_string(),
            success,
            error: result.err().as_ref().map(Failure::from),
            cycles_used: meter.cycles,
            cells_used: meter.cells,
            fee,
            created: run.created.filter(|_| success),
            timers,
        };
        open.receipts.push(receipt.clone());
        receipt
    }

    /// Where a run is traced, when tracing is on (issue 32).
    pub(super) fn trace_site(
        &self,
        of: TraceOf,
        actor: Address,
        height: u64,
    ) -> Option<trace::Site> {
        self.tracing.then_some(trace::Site { of, actor, height })
    }

    /// Keeps a run's trace with its final outcome.
    pub(super) fn keep_trace(&mut self, traced: Option<trace::Trace>, ex: &Executed) {
        if let Some(t) = traced {
            let t = t.ended(&ex.result, ex.meter.cycles);
            let t = match self.actors.get(&t.actor) {
                Some(a) => t.with_source(&a.code.source),
                None => t,
            };
            self.traces.push(t);
        }
    }

    /// Runs `f` in a fresh execution context; a fatal host error overrides an `Ok`.
    pub(super) fn execute<F>(&self, cfg: &TimerConfig, frame: Frame, f: F) -> Executed
    where
        F: FnOnce(&mut ExecCtx<'_>, &Chain) -> Result<(), VmError>,
    {
        let no_pending = BTreeMap::new();
        self.execute_with(cfg, &no_pending, None, frame, f)
    }

    pub(super) fn execute_with<F>(
        &self,
        cfg: &TimerConfig,
        pending: &BTreeMap<TimerId, PendingFire>,
        firing: Option<Firing>,
        frame: Frame,
        f: F,
    ) -> Executed
    where
        F: FnOnce(&mut ExecCtx<'_>, &Chain) -> Result<(), VmError>,
    {
        let mut ctx = ExecCtx::new(self, cfg, pending, frame);
        ctx.firing = firing;
        let r = f(&mut ctx, self);
        let result = match (ctx.fatal.take(), r) {
            (Some(e), _) => Err(e),
            (None, r) => r,
        };
        Executed {
            result,
            overlay: ctx.overlay,
            meter: ctx.meter,
        }
    }

    pub(super) fn push_event(&mut self, phase: Phase, event: Event) {
        let open = self.open.as_mut().expect("open block");
        open.events.push(EventRecord {
            height: open.height,
            phase,
            event,
        });
    }

    /// Commits an execution's buffered writes.
    pub(super) fn apply_overlay(&mut self, o: Overlay, phase: Phase) {
        if let Some((addr, actor)) = o.new_actor {
            self.actors.insert(addr, actor);
            self.accounts.entry(addr).or_default();
            self.commit.mark(StateKey::Actor(addr));
            self.commit.mark(StateKey::Account(addr));
        }
        for (a, b) in o.balances {
            self.accounts.entry(a).or_default().balance = b;
            self.commit.mark(StateKey::Account(a));
        }
        for (a, n) in o.nonces {
            self.accounts.entry(a).or_default().nonce = n;
            self.commit.mark(StateKey::Account(a));
        }
        for ((a, k), v) in o.storage {
            if phase == Phase::Tx {
                self.engine.note_written(a, &k);
            }
            if let Some(actor) = self.actors.get_mut(&a) {
                match v {
                    Some(v) => actor.storage.insert(k.clone(), v),
                    None => actor.storage.remove(&k),
                };
                self.commit.mark(StateKey::Storage(a, k));
            }
        }
        for id in o.cancelled {
            self.engine.cancel(&id);
        }
        for (id, exp) in o.extended {
            self.engine.extend(&id, exp);
        }
        for t in o.scheduled {
            self.engine
                .schedule(t)
                .expect("validated in the execution context");
        }
        for r in o.draft {
            self.engine.register_draft(r);
        }
        for u in o.draft_updates {
            self.engine.update_draft(u);
        }
        // Applied after the overlay's absolute balances, so a refund is never overwritten.
        for (id, fee_payer, refund) in o.cancelled_fires {
            self.cancelled_fires.insert(id);
            self.credit(&fee_payer, refund);
        }
        for e in o.events {
            self.push_event(phase, e);
        }
    }

    /// System instructions 48/49/50 (CIP-5 §5.4, §6.4) and 51 (issue 21 §3), gated by
    /// `system_deployers`.
    ///
    /// Only called by [`apply_tx`](Self::apply_tx) after its [`check_tx`](Self::check_tx),
    /// which ran [`check_system`](Self::check_system): the sender, the configs and the
    /// extension are checked there, once.
    fn apply_system(
        &mut self,
        ins: &SystemInstruction,
        block_cfg: &TimerConfig,
    ) -> Result<(), TimerError> {
        match ins {
            SystemInstruction::CancelTimer { timer_id } => {
                let existed = self.engine.cancel(timer_id).is_some();
                self.push_event(
                    Phase::Tx,
                    Event::Timer(TimerEvent::TimerCancelledByGovernance {
                        timer_id: *timer_id,
                        existed,
                    }),
                );
            }
            SystemInstruction::ExtendTimer {
                timer_id,
                new_expires_at,
            } => {
                let new = self.governance_extension(timer_id, *new_expires_at, block_cfg)?;
                let old = self.engine.extend(timer_id, new).expect("looked up above");
                self.push_event(
                    Phase::Tx,
                    Event::Timer(TimerEvent::TimerExtendedByGovernance {
                        timer_id: *timer_id,
                        old_expires_at: old,
                        new_expires_at: new,
                    }),
                );
            }
            SystemInstruction::UpdateTimerConfig { config } => {
                // Takes effect from the next block: this block read its config at its start.
                self.timer_config = config.clone();
                self.push_event(
                    Phase::Tx,
                    Event::Timer(TimerEvent::TimerConfigUpdated {
                        config: config.clone(),
                    }),
                );
            }
            SystemInstruction::UpdateSchedulerConfig { config, draft } => {
                // Waits for the end of this block: its plan runs under the parameters it
                // started with (`Engine::stage_params`, Spec note 126). Both sets are
                // checked before either is staged (`check_system`).
                self.engine.stage_params(config, *draft)?;
                self.push_event(
                    Phase::Tx,
                    Event::Timer(TimerEvent::SchedulerConfigUpdated {
                        config: config.clone(),
                        draft: *draft,
                    }),
                );
            }
        }
        Ok(())
    }

    /// What [`apply_system`](Self::apply_system) would refuse (issues 29 and 30, one refusal
    /// path): a sender outside `system_deployers` (CIP-5 §5.4), `SYS_EXTEND_TIMER` of a timer
    /// that is not live or to an expiry below its height (Spec note 5), a config that does not
    /// validate, draft parameters under a scheduler that is not a draft. A refused instruction
    /// is not included: no nonce, no fee, no block.
    pub fn check_system(
        &self,
        from: &Address,
        ins: &SystemInstruction,
        block_cfg: &TimerConfig,
    ) -> Result<(), TimerError> {
        if !self.system_deployers.contains(from) {
            return Err(TimerError::Unauthorized(format!(
                "{from} is not in system_deployers (opcode {})",
                ins.opcode()
            )));
        }
        match ins {
            SystemInstruction::CancelTimer { .. } => Ok(()),
            SystemInstruction::ExtendTimer {
                timer_id,
                new_expires_at,
            } => self
                .governance_extension(timer_id, *new_expires_at, block_cfg)
                .map(|_| ()),
            SystemInstruction::UpdateTimerConfig { config } => config.validate(),
            SystemInstruction::UpdateSchedulerConfig { config, draft } => {
                self.engine.check_params(config, draft.as_ref())
            }
        }
    }

    /// `SYS_EXTEND_TIMER`'s new expiry: the live timer's, clamped (Spec notes 5 and 10);
    /// `TimerNotFound` for a timer that is not live.
    fn governance_extension(
        &self,
        timer_id: &TimerId,
        new_expires_at: u64,
        block_cfg: &TimerConfig,
    ) -> Result<u64, TimerError> {
        let timer_height =
            self.engine.get(timer_id).map(|t| t.height).ok_or_else(|| {
                TimerError::TimerNotFound(format!("{timer_id} is not a live timer"))
            })?;
        engine::clamp_extension(
            block_cfg,
            self.pending_height(),
            timer_height,
            new_expires_at,
        )
    }

    pub(super) fn credit(&mut self, who: &Address, amount: u128) {
        if amount == 0 {
            return;
        }
        self.accounts.entry(*who).or_default().balance += amount;
        self.commit.mark(StateKey::Account(*who));
    }

    pub(super) fn seal(&mut self, eob: EobStats, lane: LaneStats) -> &Block {
        let mut open = self.open.take().expect("open");
        // Issue 31 (Spec note 202): a sealed block is kept for the whole history window, so
        // it keeps no growth slack (a block of 10 receipts and 10 events held room for 16 of
        // each; the block of a backlog's first deferrals, tens of thousands of events, up to
        // twice what it needs).
        open.receipts.shrink_to_fit();
        open.events.shrink_to_fit();
        let header = match self.known_seal(open.height, open.skipped) {
            Some(known) => known,
            None => {
                let state_root = self.commit_root();
                let body_hash = if self.deferred_roots {
                    // Deferred (`Chain::defer_roots`): the body is not hashed either; an empty
                    // body keeps its hash, so a quiet block still names its anchor.
                    deferred_body_hash(&open.receipts, &open.events)
                } else {
                    body_hash(&open.receipts, &open.events)
                };
                self.make_header(open.height, open.skipped, state_root, body_hash)
            }
        };
        self.height = open.height;
        self.head = header.clone();
        self.blocks.push_back(Arc::new(Block {
            header,
            receipts: open.receipts,
            events: open.events,
            eob,
            migrated: open.migrated,
            pending: self.engine.pending() as u64,
            lane,
            tally: Default::default(),
        }));
        if self.blocks.len() > self.keep_blocks {
            self.drop_oldest_block();
            self.prune_quiet();
        }
        self.blocks.back().expect("just pushed")
    }

    /// The header of the block at `height` after `skipped` heights with this state root and
    /// body hash.
    fn make_header(
        &self,
        height: u64,
        skipped: u64,
        state_root: H256,
        body_hash: H256,
    ) -> BlockHeader {
        // An empty body names its anchor (see `chain::quiet`).
        let parent_hash = self.parent_of(&body_hash, skipped);
        BlockHeader::sealed(
            height,
            parent_hash,
            state_root,
            body_hash,
            self.proposer,
            skipped,
        )
    }

    /// A replay's seal against the live history (Spec note 228, [`Chain::replay_known`]):
    /// the known block at `height`'s header, when the header made from its state root and
    /// body hash on this chain's head is that block's (the same skipped heights, proposer,
    /// parent and hash); the state root is then left uncommitted (its changes wait for the
    /// next commit) and the template of the last commit dropped, since the state moved on
    /// from it.
    fn known_seal(&mut self, height: u64, skipped: u64) -> Option<BlockHeader> {
        let known = self.known.as_ref()?;
        let i = known
            .binary_search_by_key(&height, |b| b.header.height)
            .ok()?;
        let known = &known[i].header;
        let header = self.make_header(height, skipped, known.state_root, known.body_hash);
        if header != *known {
            return None;
        }
        self.root = header.state_root;
        self.root_tpl = None;
        Some(header)
    }

    /// Applies `txs` and seals a block. Rejected transactions are returned beside the block.
    pub fn produce_block(&mut self, txs: Vec<Transaction>) -> (&Block, Vec<TxError>) {
        let mut rejected = Vec::new();
        for tx in txs {
            if let Err(e) = self.apply_tx(tx) {
                rejected.push(e);
            }
        }
        (self.seal_block(), rejected)
    }

    /// The state root as last committed: the sealed head's
    /// (`head().state_root`), or, after a devnet control changed the state between blocks
    /// (`set_balance`), the root of the state it left. A read: an open block's changes are
    /// committed when it is sealed.
    pub fn state_root(&self) -> H256 {
        self.root
    }

    /// Commits the state root over everything: accounts, actors and storage, the timer set
    /// (which fixes the height and per-actor indexes), the overflow tier, the queue's scalars
    /// and the configs. Computed from what changed since the last commit.
    pub(super) fn commit_root(&mut self) -> H256 {
        let tpl = self.root_template();
        let root = tpl.root(self.engine.queue().next_height());
        self.root_tpl = Some(tpl);
        self.root = root;
        root
    }

    /// Commits what changed and returns the state root's template: every part of the root
    /// but the queue's `next_height` (see [`RootTemplate`]).
    pub(super) fn root_template(&mut self) -> Arc<RootTemplate> {
        // Deferred (`Chain::defer_roots`): the last template stands; nothing is committed.
        if self.deferred_roots
            && let Some(t) = &self.root_tpl
        {
            return t.clone();
        }
        let chain_root = self.commit.root(&self.accounts, &self.actors);
        let (timers_root, overflow_root) = self.engine.commit();
        let [cip1_part, draft_part] = self.engine.policy_root_parts();
        let q = self.engine.queue();
        let h = q.horizons();
        let mut deployers = Vec::new();
        for d in &self.system_deployers {
            deployers.extend_from_slice(&d.0);
        }
        Arc::new(RootTemplate::new(
            &[
                b"cowboy-devnet/state/1",
                &chain_root,
                &timers_root,
                &overflow_root,
                &keccak(&self.timer_config.encode()),
                &keccak(&self.basefee.encode()),
                &keccak(&deployers),
                &self.proposer.0,
                &q.next_seq().to_be_bytes(),
            ],
            &[
                &h.ring_horizon.to_be_bytes(),
                &h.epoch_horizon.to_be_bytes(),
                &self.supply.to_be_bytes(),
                &self.burned.to_be_bytes(),
                // (The digest of deferrals waiting for their events ended this list while they
                // waited in the state; none wait since Spec note 71.)
                &cip1_part,
                &draft_part,
            ],
            (h.ring_horizon, h.epoch_horizon),
        ))
    }

    /// Whether an actor's code is the no-code default.
    pub fn is_codeless(&self, who: &Address) -> bool {
        self.actors
            .get(who)
            .is_some_and(|a| a.code.lang == Lang::None)
    }
}

/// A `TxKind::ActAs` timer call, as both [`Chain::check_tx`] and [`Chain::apply_tx`] run it:
/// the host call the actor would make (its own address the drafts' `target`).
pub(super) fn act_as(ctx: &mut ExecCtx<'_>, op: &TimerOp) -> Result<(), VmError> {
    let actor = ctx.actor;
    act_as_on(ctx, &actor, op)
}

/// [`act_as`] on any host (the tracer wraps the context with one, issue 32 item 5).
pub(super) fn act_as_on(h: &mut dyn Host, actor: &Address, op: &TimerOp) -> Result<(), VmError> {
    match op {
        TimerOp::ScheduleTimer(args) => h.schedule_timer(args.clone()).map(|_| ()),
        TimerOp::CancelTimer { timer_id } => h.cancel_timer(&timer_id.0),
        TimerOp::ExtendTimer {
            timer_id,
            new_expires_at,
        } => h.extend_timer(&timer_id.0, *new_expires_at),
        TimerOp::SetStateWatch(a) => h.set_state_watch(actor, a).map(|_| ()),
        TimerOp::SetInterval(a) => h.set_interval(actor, a).map(|_| ()),
        TimerOp::WriteKey { key, value } => h.storage_set(key.as_bytes(), value.as_bytes()),
    }
}

/// An admitted transaction as it runs: where, its hash and index, the nonce it used, its
/// pre-charge (`max_fee`), the actor a deploy creates, and its fresh meter.
struct TxRun {
    height: u64,
    tx_hash: H256,
    index: u32,
    nonce: u64,
    max_fee: u128,
    created: Option<Address>,
    meter: Meter,
}

impl TxRun {
    /// The frame of this transaction's execution: `actor` runs, `sender` sends.
    fn frame(&self, actor: Address, sender: Address, deployer: Address) -> Frame {
        Frame {
            height: self.height,
            actor,
            sender,
            deployer,
            meter: self.meter,
        }
    }

    fn trace_of(&self) -> TraceOf {
        TraceOf::Tx {
            tx_hash: self.tx_hash,
            index: self.index,
        }
    }
}

/// What a transaction's run left: its result, its buffered writes (none for a system
/// instruction, which writes directly), and its meter.
type Ran = (Result<(), VmError>, Option<Overlay>, Meter);

/// The body hash a block sealed while roots are deferred carries: the empty body's for an
/// empty body, else a fixed marker (no body hashes to it but by a keccak collision).
fn deferred_body_hash(receipts: &[Receipt], events: &[EventRecord]) -> H256 {
    if receipts.is_empty() && events.is_empty() {
        super::quiet::empty_body_hash()
    } else {
        H256([0xff; 32])
    }
}
