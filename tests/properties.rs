//! Property tests (proptest) for the CIP-5 invariants under random operation sequences:
//! schedules with random heights, gas, TTLs, payers and handlers; cancels and extends (owner or
//! not); governance 48/49/50; transfers, balance changes, outages; handlers that burn, write,
//! revert, re-schedule, cancel, extend and move funds.
//!
//! Checked at every block: funds are conserved; the lane and the GC budget are never exceeded;
//! no timer fires in the block that scheduled it; every timer leaves by exactly one path and a
//! concluded timer is no longer queued. Checked per run: replaying the ops on a fresh chain gives
//! the same state root at every height. A separate property drives timers through all three
//! tiers of a small calendar queue and checks they fire at their height in FIFO order, and another
//! drives busy buckets of a bare queue through removals and carries against a model.

mod common;

use common::*;
use cowboy_devnet::chain::{
    Chain, Event, Genesis, Phase, SystemInstruction, TimerOp, Transaction, TxKind,
};
use cowboy_devnet::engine::queue::Tier;
use cowboy_devnet::engine::timer::handler_payload;
use cowboy_devnet::engine::{Address, H256, QueueConfig, ScheduleArgs, TimerConfig, TimerEvent};
use cowboy_devnet::engine::{TimerId, config::GC_CYCLES_PER_REMOVAL};
use cowboy_devnet::vm::DevnetRuntime;
use proptest::prelude::*;
use std::collections::BTreeMap;

const HANDLERS: [&str; 10] = [
    "handle_timer",
    "burner",
    "writer",
    "reverter",
    "again",
    "again_far",
    "cancel_last",
    "extend_last",
    "pay",
    "sponge",
];

fn code() -> String {
    format!(
        r#"{{
        "handle_timer": [{{"op": "burn", "cycles": 2000}}],
        "burner": [{{"op": "burn", "cycles": 60000}}],
        "writer": [{{"op": "write", "key": "w", "bytes": 16}}],
        "reverter": [{{"op": "write", "key": "r", "bytes": 4}}, {{"op": "emit", "topic": "t", "data": "x"}},
                     {{"op": "revert", "reason": "no"}}],
        "again": [{{"op": "schedule", "delta": 2, "gas_limit": 20000, "save_as": "last"}}],
        "again_far": [{{"op": "schedule", "delta": 17, "gas_limit": 20000, "expires_in": 30, "save_as": "last"}}],
        "cancel_last": [{{"op": "cancel", "key": "last"}}],
        "extend_last": [{{"op": "extend", "key": "last", "blocks": 9}}],
        "pay": [{{"op": "transfer", "to": "{}", "amount": "5000"}}],
        "sponge": [{{"op": "write", "key": "s", "bytes": 600000}}]
    }}"#,
        bob()
    )
}

fn actors() -> [Address; 3] {
    [
        Address::from_label("p-actor-0"),
        Address::from_label("p-actor-1"),
        Address::from_label("p-actor-2"),
    ]
}

fn deployer_of(i: usize) -> Address {
    if i < 2 { alice() } else { bob() }
}

fn carol() -> Address {
    Address::from_label("carol")
}

fn genesis_cfg() -> TimerConfig {
    TimerConfig {
        lane_timer_cycles: 1_200_000,
        gc_cycles_per_block: 2 * GC_CYCLES_PER_REMOVAL,
        ..TimerConfig::default()
    }
}

fn prop_genesis() -> Genesis {
    let mut g = genesis();
    g.queue = QueueConfig {
        epoch_blocks: 4,
        epoch_slots: 3,
    };
    g.timer = genesis_cfg();
    g
}

#[derive(Clone, Debug)]
enum Op {
    Schedule {
        actor: usize,
        delta: u64,
        gas: u64,
        ttl: Option<u64>,
        payer: u8,
        handler: usize,
    },
    Cancel {
        pick: usize,
        as_actor: usize,
    },
    Extend {
        pick: usize,
        as_actor: usize,
        delta: u64,
    },
    GovCancel {
        pick: usize,
    },
    GovExtend {
        pick: usize,
        delta: u64,
    },
    GovConfig {
        lane: u64,
        gc_removals: u64,
        max_cycles: u64,
    },
    Call {
        actor: usize,
        handler: usize,
        by_bob: bool,
    },
    Transfer {
        to: usize,
        amount: u128,
    },
    SetBalance {
        who: usize,
        amount: u128,
    },
    Halt {
        blocks: u64,
    },
    Seal,
    /// Several timers at one height (lane and GC pressure).
    Burst {
        actor: usize,
        delta: u64,
        timers: Vec<(u64, u8, usize)>,
    },
    /// A `cancel_last` timer due at the same height as, and ahead of, the timer `again`
    /// schedules and saves as `last`: the owner cancels a pre-charged timer mid-block.
    CancelRace {
        actor: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let gas = prop::sample::select(vec![1_000u64, 20_000, 100_000, 300_000, 550_000]);
    let gas_b = gas.clone();
    let delta = prop_oneof![4 => 1..10u64, 1 => 10..60u64];
    let ttl =
        prop_oneof![2 => Just(None), 1 => (0..3u64).prop_map(Some), 1 => (3..50u64).prop_map(Some)];
    let amount = prop::sample::select(vec![0u128, 100_000, 700_000, 2_000_000, 50_000_000]);
    prop_oneof![
        6 => (0..3usize, delta, gas, ttl, 0..4u8, 0..HANDLERS.len())
            .prop_map(|(actor, delta, gas, ttl, payer, handler)| Op::Schedule {
                actor, delta, gas, ttl, payer, handler
            }),
        1 => (any::<usize>(), 0..3usize).prop_map(|(pick, as_actor)| Op::Cancel { pick, as_actor }),
        1 => (any::<usize>(), 0..3usize, 0..60u64)
            .prop_map(|(pick, as_actor, delta)| Op::Extend { pick, as_actor, delta }),
        1 => any::<usize>().prop_map(|pick| Op::GovCancel { pick }),
        1 => (any::<usize>(), 0..60u64).prop_map(|(pick, delta)| Op::GovExtend { pick, delta }),
        1 => (
            prop::sample::select(vec![550_000u64, 700_000, 1_200_000, 2_000_000]),
            1..4u64,
            prop::sample::select(vec![100_000u64, 300_000, 550_000]),
        )
            .prop_map(|(lane, gc_removals, max_cycles)| Op::GovConfig { lane, gc_removals, max_cycles }),
        2 => (0..3usize, 0..HANDLERS.len(), any::<bool>())
            .prop_map(|(actor, handler, by_bob)| Op::Call { actor, handler, by_bob }),
        1 => (0..3usize, amount.clone()).prop_map(|(to, amount)| Op::Transfer { to, amount }),
        1 => (0..5usize, amount).prop_map(|(who, amount)| Op::SetBalance { who, amount }),
        1 => (1..6u64).prop_map(|blocks| Op::Halt { blocks }),
        6 => Just(Op::Seal),
        2 => (0..3usize, 1..6u64, prop::collection::vec((gas_b, 0..4u8, 0..HANDLERS.len()), 2..7))
            .prop_map(|(actor, delta, timers)| Op::Burst { actor, delta, timers }),
        1 => (0..3usize).prop_map(|actor| Op::CancelRace { actor }),
    ]
}

/// What the checker knows about one timer.
#[derive(Clone, Debug)]
struct Known {
    height: u64,
    gas: u64,
    scheduled_in: u64,
    terminals: u32,
}

/// Runs the ops on a fresh chain, checking the per-block invariants; returns the state root of
/// every sealed block.
struct Run {
    chain: Chain,
    known: BTreeMap<TimerId, Known>,
    ids: Vec<TimerId>,
    cfg_at_open: TimerConfig,
    last_seen: u64,
    roots: Vec<(u64, H256)>,
    /// An included transaction opened a block that is not sealed yet.
    block_open: bool,
    sealed_checks: u64,
    draining: bool,
}

impl Run {
    fn new() -> Run {
        let mut chain = chain_with(prop_genesis());
        for (i, a) in actors().into_iter().enumerate() {
            deploy_native(&mut chain, deployer_of(i), a, &code());
            chain.set_balance(&a, 50_000_000);
        }
        let mut run = Run {
            cfg_at_open: chain.timer_config().clone(),
            chain,
            known: BTreeMap::new(),
            ids: Vec::new(),
            last_seen: 0,
            roots: Vec::new(),
            block_open: true,
            sealed_checks: 0,
            draining: false,
        };
        run.chain.seal_block();
        run.block_open = false;
        run.after_op();
        run
    }

    fn pick(&self, pick: usize) -> TimerId {
        if self.ids.is_empty() {
            TimerId([0xEE; 32])
        } else {
            self.ids[pick % self.ids.len()]
        }
    }

    fn tx(&mut self, tx: Transaction) {
        let before = self.chain.state_root();
        let height = self.chain.height();
        let r = self.chain.apply_tx(tx);
        self.block_open |= r.is_ok();
        if r.is_err() {
            assert_eq!(self.chain.height(), height);
            assert_eq!(
                self.chain.state_root(),
                before,
                "a rejected tx changes nothing"
            );
        }
    }

    fn schedule(
        &mut self,
        actor: usize,
        delta: u64,
        gas: u64,
        ttl: Option<u64>,
        payer: u8,
        handler: usize,
    ) {
        let acts = actors();
        let h = self.chain.pending_height();
        let fee_payer = match payer {
            0 => None,
            1 => Some(acts[actor]),
            2 => Some(deployer_of(actor)),
            _ => Some(carol()),
        };
        let payload = if handler == 0 {
            format!("p{delta}").into_bytes()
        } else {
            handler_payload(HANDLERS[handler], b"")
        };
        let args = ScheduleArgs {
            height: h + delta,
            payload,
            fee_payer,
            gas_limit: Some(gas),
            expires_at: ttl.map(|t| h + delta + t),
            ..Default::default()
        };
        self.tx(Transaction::new(
            deployer_of(actor),
            TxKind::ActAs {
                actor: acts[actor],
                op: TimerOp::ScheduleTimer(args),
            },
        ));
    }

    fn apply(&mut self, op: &Op) {
        let acts = actors();
        match *op {
            Op::Schedule {
                actor,
                delta,
                gas,
                ttl,
                payer,
                handler,
            } => self.schedule(actor, delta, gas, ttl, payer, handler),
            Op::Burst {
                actor,
                delta,
                ref timers,
            } => {
                for &(gas, payer, handler) in timers {
                    self.schedule(actor, delta, gas, None, payer, handler);
                }
            }
            Op::CancelRace { actor } => {
                self.schedule(actor, 2, 20_000, None, 0, 6);
                self.apply(&Op::Call {
                    actor,
                    handler: 4,
                    by_bob: false,
                });
                return;
            }
            Op::Cancel { pick, as_actor } => {
                let timer_id = self.pick(pick);
                self.tx(Transaction::new(
                    deployer_of(as_actor),
                    TxKind::ActAs {
                        actor: acts[as_actor],
                        op: TimerOp::CancelTimer { timer_id },
                    },
                ));
            }
            Op::Extend {
                pick,
                as_actor,
                delta,
            } => {
                let timer_id = self.pick(pick);
                let new_expires_at = self.chain.pending_height() + delta;
                self.tx(Transaction::new(
                    deployer_of(as_actor),
                    TxKind::ActAs {
                        actor: acts[as_actor],
                        op: TimerOp::ExtendTimer {
                            timer_id,
                            new_expires_at,
                        },
                    },
                ));
            }
            Op::GovCancel { pick } => {
                let timer_id = self.pick(pick);
                self.tx(Transaction::new(
                    gov(),
                    TxKind::System(SystemInstruction::CancelTimer { timer_id }),
                ));
            }
            Op::GovExtend { pick, delta } => {
                let timer_id = self.pick(pick);
                let new_expires_at = self.chain.pending_height() + delta;
                self.tx(Transaction::new(
                    gov(),
                    TxKind::System(SystemInstruction::ExtendTimer {
                        timer_id,
                        new_expires_at,
                    }),
                ));
            }
            Op::GovConfig {
                lane,
                gc_removals,
                max_cycles,
            } => {
                let config = TimerConfig {
                    lane_timer_cycles: lane,
                    gc_cycles_per_block: gc_removals * GC_CYCLES_PER_REMOVAL,
                    max_cycles_per_fire: max_cycles,
                    ..TimerConfig::default()
                };
                self.tx(Transaction::new(
                    gov(),
                    TxKind::System(SystemInstruction::UpdateTimerConfig { config }),
                ));
            }
            Op::Call {
                actor,
                handler,
                by_bob,
            } => {
                let from = if by_bob { bob() } else { deployer_of(actor) };
                self.tx(Transaction::new(
                    from,
                    TxKind::Call {
                        actor: acts[actor],
                        handler: HANDLERS[handler].into(),
                        payload: Vec::new(),
                    },
                ));
            }
            Op::Transfer { to, amount } => {
                self.tx(Transaction::new(
                    alice(),
                    TxKind::Transfer {
                        to: acts[to],
                        amount,
                    },
                ));
            }
            Op::SetBalance { who, amount } => {
                let who = match who {
                    0..=2 => acts[who],
                    3 => alice(),
                    _ => bob(),
                };
                // Deployers keep enough for a transaction now and then.
                self.chain.set_balance(&who, amount * 10);
            }
            Op::Halt { blocks } => {
                self.chain.halt(blocks);
                self.block_open = false;
            }
            Op::Seal => {
                self.chain.seal_block();
                self.block_open = false;
            }
        }
        self.after_op();
    }

    /// Checks every block sealed since the last call, then the always-true invariants.
    fn after_op(&mut self) {
        assert_conserved(&self.chain);
        let new: Vec<_> = self
            .chain
            .blocks()
            .filter(|b| b.header.height > self.last_seen)
            .cloned()
            .collect();
        for b in new {
            let cfg = self.cfg_at_open.clone();
            let height = b.header.height;
            let mut lane = 0u64;
            let mut gc_removed = 0u64;
            for r in &b.events {
                let Event::Timer(e) = &r.event else { continue };
                let id = e.timer_id();
                match e {
                    TimerEvent::TimerScheduled {
                        timer_id,
                        height: th,
                        gas_limit_per_fire,
                        ..
                    } => {
                        assert!(*th > height, "scheduled at or below the current height");
                        let prev = self.known.insert(
                            *timer_id,
                            Known {
                                height: *th,
                                gas: *gas_limit_per_fire,
                                scheduled_in: height,
                                terminals: 0,
                            },
                        );
                        assert!(prev.is_none(), "timer id reused: {timer_id:?}");
                        self.ids.push(*timer_id);
                    }
                    TimerEvent::TimerFired {
                        timer_id,
                        height: th,
                        max_cost,
                        cost,
                        refund,
                        burned,
                        tip,
                        ..
                    } => {
                        assert_eq!(r.phase, Phase::Eob);
                        let k = &self.known[timer_id];
                        assert!(
                            height > k.scheduled_in,
                            "{timer_id:?} fired in the block that scheduled it"
                        );
                        assert!(height >= k.height, "fired before its height");
                        assert_eq!(*th, k.height);
                        assert_eq!(cost + refund, *max_cost);
                        assert_eq!(burned + tip, *cost);
                        assert_eq!(*tip, 0, "no tip under FIFO");
                        // The budget is bounded by the cap in force at fire time (§6.2).
                        lane += k.gas.min(cfg.max_cycles_per_fire);
                    }
                    TimerEvent::TimerCancelled {
                        timer_id, refund, ..
                    } if r.phase == Phase::Eob && *refund > 0 => {
                        // Pre-charged, then cancelled by its owner: it held a lane reservation.
                        lane += self.known[timer_id].gas.min(cfg.max_cycles_per_fire);
                    }
                    TimerEvent::TimerExpired { .. }
                    | TimerEvent::TimerCancelledInsufficientFunds { .. } => {
                        assert_eq!(r.phase, Phase::Eob);
                        gc_removed += 1;
                    }
                    _ => {}
                }
                let terminal = match e {
                    TimerEvent::TimerFired { .. }
                    | TimerEvent::TimerExpired { .. }
                    | TimerEvent::TimerCancelledInsufficientFunds { .. }
                    | TimerEvent::TimerCancelled { .. } => true,
                    TimerEvent::TimerCancelledByGovernance { existed, .. } => *existed,
                    _ => false,
                };
                if terminal {
                    let id = id.expect("timer event");
                    let k = self.known.get_mut(&id).expect("terminal of a known timer");
                    k.terminals += 1;
                    assert_eq!(k.terminals, 1, "{id:?} left by more than one path");
                }
            }
            assert_eq!(b.eob.lane_reserved, lane);
            assert!(
                lane <= cfg.lane_timer_cycles,
                "lane exceeded at {height}: {lane} > {}",
                cfg.lane_timer_cycles
            );
            assert_eq!(b.eob.gc_cycles, gc_removed * GC_CYCLES_PER_REMOVAL);
            assert!(
                b.eob.gc_cycles <= cfg.gc_cycles_per_block,
                "GC budget exceeded"
            );
            assert_eq!(b.eob.gc_removed(), gc_removed);
            self.roots.push((height, b.header.state_root));
            self.last_seen = height;
            // The next block opens with the config in force now.
            self.cfg_at_open = self.chain.timer_config().clone();
        }
        if self.block_open {
            // The open block's events are not sealed yet.
            return;
        }
        // A concluded timer is not queued; a queued one has not concluded.
        for (id, k) in &self.known {
            assert_eq!(
                self.chain.timer(id).is_some(),
                k.terminals == 0,
                "{id:?}: queued = {}, terminals = {}",
                self.chain.timer(id).is_some(),
                k.terminals
            );
        }
        assert_eq!(
            self.chain.engine().queue().len(),
            self.known.values().filter(|k| k.terminals == 0).count()
        );
        // Reachable states (mid-migration, carried timers, a pending outage, devnet balance
        // changes) survive a dump and load with their root and queue intact. Sampled: a load
        // rehashes the whole state.
        self.sealed_checks += 1;
        if self.draining || !self.sealed_checks.is_multiple_of(5) {
            return;
        }
        let dump = self.chain.dump().expect("no block is open");
        let root = self.chain.state_root();
        let loaded = Chain::load(dump.clone(), DevnetRuntime::shared())
            .unwrap_or_else(|e| panic!("load of a genuine dump failed: {e}"));
        assert_eq!(loaded.state_root(), root);
        assert_eq!(loaded.pending_height(), self.chain.pending_height());
        assert_eq!(loaded.engine().queue().dump(), dump.queue);
    }

    /// Restores a generous config, lets the pending timers run, then starves every payer so
    /// that everything left self-destructs: the queue must empty.
    fn drain(&mut self) {
        self.draining = true;
        self.tx(Transaction::new(
            gov(),
            TxKind::System(SystemInstruction::UpdateTimerConfig {
                config: genesis_cfg(),
            }),
        ));
        for _ in 0..20 {
            self.apply(&Op::Seal);
        }
        for who in actors().into_iter().chain([alice(), bob()]) {
            self.chain.set_balance(&who, 0);
        }
        for _ in 0..400 {
            if self.chain.engine().queue().is_empty() {
                break;
            }
            self.apply(&Op::Seal);
        }
        assert!(
            self.chain.engine().queue().is_empty(),
            "queue did not drain"
        );
        for (id, k) in &self.known {
            assert_eq!(k.terminals, 1, "{id:?} has no exit");
        }
    }
}

fn run_ops(ops: &[Op]) -> Run {
    let mut run = Run::new();
    for op in ops {
        run.apply(op);
    }
    run.drain();
    run
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(48))]

    /// CIP-5 §5.4 (exactly one exit; a concluded timer is not queued), §5.3 (no fire in the
    /// scheduling block), §6.3 (balances + burned = supply; cost + refund = max_cost, no tip),
    /// §6.5 (lane and GC budgets never exceeded).
    #[test]
    fn cip5_5_4_random_ops_keep_exit_funds_and_budget_invariants(
        ops in prop::collection::vec(op(), 1..70)
    ) {
        let run = run_ops(&ops);
        prop_assert!(run.chain.engine().queue().is_empty());
    }
}

proptest! {
    #![proptest_config(config(16))]

    /// CIP-5 §7: the same ops on a fresh chain give the same state root at every height.
    #[test]
    fn cip5_7_random_ops_replay_to_the_same_root_at_every_height(
        ops in prop::collection::vec(op(), 1..70)
    ) {
        let first = run_ops(&ops);
        let second = run_ops(&ops);
        prop_assert!(!first.roots.is_empty());
        prop_assert_eq!(&first.roots, &second.roots);
        prop_assert_eq!(first.known.len(), second.known.len());
    }
}

/// A timer fires at its height, in FIFO order, after travelling overflow → epoch → ring.
fn tier_run(epoch_blocks: u64, epoch_slots: u64, batches: &[Vec<u64>]) {
    let mut g = genesis();
    g.queue = QueueConfig {
        epoch_blocks,
        epoch_slots,
    };
    let mut c = chain_with_actors(g);
    c.set_balance(&actor_a(), 1_000_000_000);
    c.set_balance(&actor_b(), 1_000_000_000);
    // Heights are relative to the first overflow height at the start.
    let base = c.engine().queue().horizons().epoch_horizon + epoch_blocks * epoch_slots;
    let mut order: BTreeMap<u64, Vec<TimerId>> = BTreeMap::new();
    let mut travelled: BTreeMap<TimerId, Vec<Tier>> = BTreeMap::new();
    let last = base + batches.iter().flatten().max().copied().unwrap_or(0);
    let mut batch = batches.iter();
    while c.pending_height() <= last {
        let h = c.pending_height();
        if let Some(offsets) = batch.next() {
            for (i, off) in offsets.iter().enumerate() {
                let target = base + off;
                if target <= h {
                    continue;
                }
                let actor = if i % 2 == 0 { actor_a() } else { actor_b() };
                let id = schedule(&mut c, actor, args_gas(target, 1_000));
                order.entry(target).or_default().push(id);
                travelled.insert(id, vec![c.engine().queue().tier_of(&id).unwrap()]);
            }
        }
        let b = c.seal_block().clone();
        let want = order.get(&b.header.height).cloned().unwrap_or_default();
        assert_eq!(fired(&b), want, "height {}", b.header.height);
        assert_eq!(b.eob.deferred, 0);
        for (id, path) in travelled.iter_mut() {
            if let Some(t) = c.engine().queue().tier_of(id)
                && *path.last().unwrap() != t
            {
                path.push(t);
            }
        }
    }
    assert!(c.engine().queue().is_empty());
    let mut through_all = 0;
    for path in travelled.values() {
        // Tiers only move inward.
        let rank = |t: &Tier| match t {
            Tier::Overflow => 0,
            Tier::Epoch => 1,
            Tier::Ring => 2,
        };
        assert!(
            path.windows(2).all(|w| rank(&w[0]) < rank(&w[1])),
            "{path:?}"
        );
        if path == &[Tier::Overflow, Tier::Epoch, Tier::Ring] {
            through_all += 1;
        }
    }
    if let Some(first) = batches.first()
        && !first.is_empty()
    {
        assert!(
            through_all > 0,
            "the first batch starts in the overflow set"
        );
    }
}

proptest! {
    #![proptest_config(config(32))]

    #[test]
    fn cip1_2_timers_through_all_tiers_fire_at_their_height_in_fifo_order(
        epoch_blocks in 1..6u64,
        epoch_slots in 2..5u64,
        batches in prop::collection::vec(prop::collection::vec(0..30u64, 0..6), 1..12),
    ) {
        tier_run(epoch_blocks, epoch_slots, &batches);
    }
}

/// One step of the busy-bucket property: timers inserted at a near height, a pending timer
/// removed, or a block drained with a share of its due timers carried to the next height.
#[derive(Clone, Debug)]
enum QueueOp {
    Insert { ahead: u64, count: usize },
    Remove { pick: usize },
    Advance { carry_pct: usize },
}

fn queue_op() -> impl Strategy<Value = QueueOp> {
    prop_oneof![
        4 => (1..=3u64, 1..400usize).prop_map(|(ahead, count)| QueueOp::Insert { ahead, count }),
        1 => any::<usize>().prop_map(|pick| QueueOp::Remove { pick }),
        2 => (0..=100usize).prop_map(|carry_pct| QueueOp::Advance { carry_pct }),
    ]
}

/// Runs `ops` on a bare queue beside a model of its buckets; checks every drained bucket's
/// order, then drains the rest and checks that every timer left exactly once.
fn busy_run(ops: &[QueueOp]) {
    use cowboy_devnet::engine::CalendarQueue;
    let cfg = QueueConfig {
        epoch_blocks: 4,
        epoch_slots: 3,
    };
    let mut q = CalendarQueue::new(cfg, 1);
    q.maintain(1);
    // Firing order per bucket height, as the spec and the carry rule say it must be.
    let mut model: BTreeMap<u64, Vec<TimerId>> = BTreeMap::new();
    let mut live: Vec<TimerId> = Vec::new();
    let mut left: BTreeMap<TimerId, u32> = BTreeMap::new();
    let mut n = 0u64;
    let advance = |q: &mut CalendarQueue,
                   model: &mut BTreeMap<u64, Vec<TimerId>>,
                   left: &mut BTreeMap<TimerId, u32>,
                   carry_pct: usize| {
        let h = q.next_height();
        q.maintain(h);
        let mut due = q.take_due(h);
        let ids: Vec<TimerId> = due.iter().map(|d| q.due(d).timer_id).collect();
        assert_eq!(ids, model.remove(&h).unwrap_or_default(), "bucket {h}");
        let fire = due.len() - due.len() * carry_pct / 100;
        let carried = due.split_off(fire);
        for d in due {
            *left.entry(q.conclude(d).timer_id).or_insert(0) += 1;
        }
        q.carry(carried);
        if fire < ids.len() {
            let next = model.entry(h + 1).or_default();
            next.splice(0..0, ids[fire..].iter().copied());
        }
    };
    for op in ops {
        match *op {
            QueueOp::Insert { ahead, count } => {
                let h = q.next_height() + ahead;
                for _ in 0..count {
                    let id = q.insert(queue_timer(n, h)).expect("fresh id");
                    n += 1;
                    model.entry(h).or_default().push(id);
                    live.push(id);
                }
            }
            QueueOp::Remove { pick } => {
                // `live` also holds timers that have fired since: skip those.
                while !live.is_empty() {
                    let id = live.swap_remove(pick % live.len());
                    if left.contains_key(&id) {
                        continue;
                    }
                    assert!(q.remove(&id).is_some());
                    *left.entry(id).or_insert(0) += 1;
                    for ids in model.values_mut() {
                        ids.retain(|t| *t != id);
                    }
                    break;
                }
            }
            QueueOp::Advance { carry_pct } => advance(&mut q, &mut model, &mut left, carry_pct),
        }
    }
    // A dump restores the same queue (pooled slots only) with the same roots.
    let mut restored = CalendarQueue::restore(q.dump()).expect("consistent dump");
    assert_eq!(restored.commit(), q.commit());
    while !q.is_empty() {
        advance(&mut q, &mut model, &mut left, 0);
    }
    assert_eq!(left.len() as u64, n, "every timer left");
    assert!(left.values().all(|&c| c == 1), "no timer left twice");
}

proptest! {
    #![proptest_config(config(24))]

    /// CIP-1 v3 §2.1 and CIP-5 §5.4: buckets of up to thousands of timers (whose records the
    /// queue lays out in pages of their own past 512) keep FIFO order through removals and
    /// timers carried to the next height, restore to the same roots, and every timer leaves
    /// exactly once.
    #[test]
    fn cip1_2_1_busy_buckets_keep_fifo_and_every_timer_leaves_once(
        ops in prop::collection::vec(queue_op(), 1..40)
    ) {
        busy_run(&ops);
    }
}
