//! Sealing: the chain's side of the end of a block (CIP-5 §5.1 steps 2–5), whose sequence is
//! the engine's (`engine::block`): the chain hands over the open block, runs each fire's handler
//! and applies its writes, pays out the engine's settlements, and seals.

use super::exec::{Firing, Frame, Meter, Overlay, PendingFire};
use super::runtime::{ActorCode, VmError};
use super::trace::{self, TraceOf};
use super::{Block, Chain, ChainLedger, Event, Executed, Phase, Sealed};
use crate::engine::block::{Begun, EndOfBlock, Opened, Ran};
use crate::engine::{Failure, Fire, Settlement, TimerId};
use std::collections::BTreeMap;
use std::sync::Arc;

impl Chain {
    /// Test and bench hook (issue 31): with `true`, the `eip1559` auction walks every carried
    /// timer and sorts every candidate (the naive baseline); the blocks are the same.
    #[doc(hidden)]
    pub fn test_hook_full_auction_walk(&mut self, on: bool) {
        self.engine.set_full_auction_walk(on);
    }

    /// Bench hook (issue 31, where the queue's bytes are): lets go of a part of the queue
    /// (the chain is not meant to run on after it).
    #[doc(hidden)]
    pub fn test_hook_drop_queue_part(&mut self, part: crate::engine::queue::QueuePart) {
        self.engine.test_hook_queue_mut().test_hook_drop_part(part);
    }

    /// Bench hook (issue 31, where the live chain's bytes are): lets go of one of the chain's
    /// parts by name (`engine`, `accounts`, `actors`, `commit`, `recent`); the chain is not
    /// meant to run on after it.
    #[doc(hidden)]
    pub fn test_hook_drop_field(&mut self, name: &str) {
        match name {
            "engine" => {
                self.engine = crate::engine::Engine::new(
                    self.genesis.queue.clone(),
                    self.engine.genesis_scheduler(),
                    1,
                )
            }
            "accounts" => self.accounts = Default::default(),
            "actors" => self.actors = Default::default(),
            "commit" => self.commit = Default::default(),
            "recent" => {
                self.blocks = Default::default();
                self.quiet = Default::default();
                self.quiet_head = None;
                self.root_tpl = None;
                self.cancelled_fires = Default::default();
                self.traces = Vec::new();
                self.open = None;
            }
            _ => {}
        }
    }

    /// Runs the end of block (CIP-5 §5.1 steps 2–5) and seals the block.
    pub fn seal_block(&mut self) -> &Block {
        match self.seal_next() {
            Sealed::Block => self.blocks.back().expect("just sealed"),
            Sealed::Quiet => {
                let b = self.quiet_block(self.height).expect("just sealed");
                self.quiet_head.insert(Arc::new(b))
            }
        }
    }

    /// Seals the next block like [`seal_block`](Self::seal_block), without handing it out:
    /// a quiet height (see [`Sealed::Quiet`]) costs no stored body and no Merkle work.
    ///
    /// The end of the block is the engine's ([`crate::engine::block`]): the chain gives it the
    /// open block and its balances, records the plan's events, runs each fire's handler and
    /// pays out what the engine settled, then seals with the engine's figures.
    pub fn seal_next(&mut self) -> Sealed {
        self.quiet_head = None;
        self.open_block();
        let opened = {
            let o = self.open.as_ref().expect("open");
            Opened {
                height: o.height,
                cfg: o.cfg.clone(),
                quote: o.quote,
                quiet_so_far: self.quiet_so_far(),
                tx_cycles: o.tx_cycles,
            }
        };
        let mut eob = match self.begin_eob(opened) {
            Begun::Quiet(lane) => {
                self.seal_quiet(lane);
                return Sealed::Quiet;
            }
            Begun::Block(eob) => eob,
        };
        for e in eob.take_events() {
            self.push_event(Phase::Eob, Event::Timer(e));
        }
        let fires = eob.take_fires();
        let mut pending = pending_fires(&fires);
        for fire in fires {
            self.run_fire(&mut eob, &mut pending, fire);
        }
        self.cancelled_fires.clear();
        let tx_cycles = self.open.as_ref().expect("open").tx_cycles;
        let (stats, lane) = eob.close(&mut self.engine, tx_cycles);
        if self.header_only(&stats) {
            self.commit_root();
            let open = self.open.take().expect("open");
            self.push_run(open.height, open.height, lane, open.migrated);
            return Sealed::Quiet;
        }
        self.engine.rotate_departures();
        self.seal(stats, lane);
        Sealed::Block
    }

    /// Is the open block, its end run with `stats`, one that needs no stored body (issue 31,
    /// "cost follows what happens", Spec note 214)? Nothing happened in it but what its header
    /// and a quiet run hold: no transaction, no event, no skipped height, end-of-block
    /// counters all zero; only epoch maintenance may have moved timers between tiers (its
    /// root then differs from the height before). Such a block is kept as the first height of
    /// a [`QuietRun`](super::quiet::QuietRun) with its own root template, its migration count
    /// and lane statistics, and [`Chain::block`] rebuilds it whole, equal to the block a stored
    /// body would have answered (the header too: an empty body names its anchor).
    fn header_only(&self, stats: &crate::engine::EobStats) -> bool {
        let o = self.open.as_ref().expect("open");
        !self.no_quiet
            && !self.deferred_roots
            && o.receipts.is_empty()
            && o.events.is_empty()
            && o.skipped == 0
            && *stats == crate::engine::EobStats::default()
    }

    /// The engine's plan and quiet test for the open block, against the chain's balances.
    fn begin_eob(&mut self, opened: Opened) -> Begun {
        let mut ledger = ChainLedger {
            accounts: &mut self.accounts,
            commit: &mut self.commit,
            actors: &self.actors,
            runtime: &*self.runtime,
            height: opened.height,
            traces: self.tracing.then_some(&mut self.traces),
        };
        self.engine.begin_end_of_block(opened, &mut ledger)
    }

    /// Nothing happened in the open block before its end, and quiet sealing is on (see
    /// `quiet`).
    fn quiet_so_far(&self) -> bool {
        let o = self.open.as_ref().expect("open");
        !self.no_quiet
            && o.receipts.is_empty()
            && o.events.is_empty()
            && o.migrated == 0
            && o.skipped == 0
            && self.cancelled_fires.is_empty()
    }

    /// One planned fire: skipped if its owner cancelled it after its pre-charge, else its
    /// handler runs, the engine settles it, and its event, writes and money are applied.
    fn run_fire(
        &mut self,
        eob: &mut EndOfBlock,
        pending: &mut BTreeMap<TimerId, PendingFire>,
        fire: Fire,
    ) {
        let t = &fire.timer;
        pending.remove(&t.timer_id);
        if self.cancelled_fires.remove(&t.timer_id) {
            eob.skipped();
            return;
        }
        let (handler, payload) = t.dispatch();
        let entry = handler.name().to_string();
        let ex = self.execute_fire(eob, pending, &fire, &entry, &payload);
        let success = ex.result.is_ok();
        let ran = Ran {
            entry,
            cycles: ex.meter.cycles,
            cells: ex.meter.cells,
            error: ex.result.as_ref().err().map(Failure::from),
            cancelled_while_running: success && ex.overlay.firing_cancelled,
        };
        let (s, event) = eob.fired(&self.engine, &fire, ran);
        self.push_event(Phase::Eob, Event::Timer(event));
        // The overlay holds absolute balances read after the pre-charge, so it is applied
        // before the refund and tip are credited: crediting first would let a handler that
        // moves the fee payer's (or proposer's) funds overwrite them.
        if success {
            self.apply_overlay(ex.overlay, Phase::Eob);
        }
        self.pay_out(&fire, &s);
    }

    /// Runs a fire's handler as the actor (§5.2: the deferred transaction's sender is the
    /// actor itself), metered within the fire's budgets.
    ///
    /// Spec note (CIP-5 §6.3, "the same burn + tip breakdown as a normal user transaction"):
    /// a fire is charged the base cycles of a transaction (`tx_base_cycles`, 1,000 by
    /// default) before its handler runs. They count in its metered cycles, inside its cycle
    /// budget and the lane, and are paid by its fee payer at the block's basefee, even when
    /// the handler does not exist or reverts. A budget below the base cycles runs out before
    /// the handler starts.
    fn execute_fire(
        &mut self,
        eob: &EndOfBlock,
        pending: &BTreeMap<TimerId, PendingFire>,
        fire: &Fire,
        entry: &str,
        payload: &[u8],
    ) -> Executed {
        let t = &fire.timer;
        let mut meter = Meter::new(fire.cycles_limit, fire.cells_limit);
        let base_cycles = self.basefee.tx_base_cycles;
        if base_cycles > meter.cycles_limit {
            meter.cycles = meter.cycles_limit;
            return Executed {
                result: Err(VmError::OutOfCycles {
                    limit: meter.cycles_limit,
                }),
                overlay: Overlay::default(),
                meter,
            };
        }
        meter.cycles = base_cycles;
        let rt = self.runtime.clone();
        let none = ActorCode::none();
        let (code, deployer) = match self.actors.get(&t.actor_address) {
            Some(a) => (&a.code, a.deployer),
            None => (&none, t.actor_address),
        };
        let firing = Firing {
            timer_id: t.timer_id,
            height: t.height,
            expires_at: t.expires_at,
        };
        let frame = Frame {
            height: eob.height(),
            actor: t.actor_address,
            sender: t.actor_address,
            deployer,
            meter,
        };
        let mut traced = None;
        let of = TraceOf::Fire {
            timer_id: t.timer_id,
        };
        let site = self.trace_site(of, t.actor_address, eob.height());
        let ex = self.execute_with(eob.cfg(), pending, Some(firing), frame, |ctx, _| {
            let on = site.map(|s| (s, &mut traced));
            trace::invoke(&*rt, code, entry, payload, ctx, on)
        });
        self.keep_trace(traced, &ex);
        ex
    }

    /// A settled fire's refund to its fee payer, its burn, and its tip to the proposer.
    fn pay_out(&mut self, fire: &Fire, s: &Settlement) {
        self.credit(&fire.timer.fee_payer, s.refund);
        self.burned += s.burned;
        if s.tip > 0 {
            let p = self.proposer;
            self.credit(&p, s.tip);
        }
    }
}

/// The planned fires, as a handler sees them while they wait (CIP-5 §4.3).
fn pending_fires(fires: &[Fire]) -> BTreeMap<TimerId, PendingFire> {
    fires
        .iter()
        .map(|f| {
            let p = PendingFire {
                owner: f.timer.actor_address,
                fee_payer: f.timer.fee_payer,
                max_cost: f.max_cost,
                height: f.timer.height,
                expires_at: f.timer.expires_at,
            };
            (f.timer.timer_id, p)
        })
        .collect()
}
