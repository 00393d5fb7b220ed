//! Scheduling into a crowded bucket (issue 20, benchmark (3)): the cost of one schedule does not
//! depend on how many timers already share its height, in any tier of the calendar queue.
//!
//! * `crowded_bucket/schedule/{ring_5000,epoch_50000,overflow_100000}/{first,10000th}`: one
//!   `timer_schedule` transaction as the node applies it under the default mining (a block per
//!   transaction): `Chain::apply_tx` of the schedule, then `Chain::seal_block`, into one height
//!   5,000 (ring tier, the baseline), 50,000 (epoch tier) or 100,000 (overflow tier) blocks
//!   ahead, with 0 (`first`) or 10,000 (`10000th`) timers already due at that height. The
//!   target: `10000th` within 1.25x of `first` in each tier.
//! * `crowded_bucket/floor/...`: the engine alone, the floor under a schedule: one
//!   `CalendarQueue::insert` into the same crowded height and one block's root update
//!   (`CalendarQueue::commit`).
//!
//! The bucket grows by one timer a measured schedule; the state is rebuilt (untimed) once a run
//! has added `REFILL` timers, so a `first` sample sees at most `REFILL` timers at its height.
//!
//! Run: `cargo bench --bench crowded_bucket`.

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Chain, Genesis, GenesisAccount, TimerOp, Transaction, TxKind};
use cowboy_devnet::engine::{
    Address, CalendarQueue, QueueConfig, ScheduleArgs, Timer, TimerConfig, TimerId,
};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use std::time::{Duration, Instant};

const TIERS: [(&str, u64); 3] = [
    ("ring_5000", 5_000),
    ("epoch_50000", 50_000),
    ("overflow_100000", 100_000),
];
const CROWDS: [(&str, usize); 2] = [("first", 0), ("10000th", 10_000)];
/// Measured schedules before the state is rebuilt.
const REFILL: usize = 300;
const RICH: u128 = 1_000_000_000_000_000_000_000_000_000_000;

fn timer(n: u64, height: u64) -> Timer {
    let mut id = [0u8; 32];
    id[..8].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    id[8..16].copy_from_slice(&n.to_le_bytes());
    id[16] = 0xcb;
    let owner = Address::from_low_u64(0x3_0000 + n % 64);
    Timer {
        timer_id: TimerId(id),
        actor_address: owner,
        fee_payer: owner,
        height,
        seq: 0,
        schedule_block: 1,
        gas_limit_per_fire: 10_000,
        expires_at: height + 1_000,
        payload: Box::default(),
        fee_caps: None,
    }
}

/// A chain with `crowd` timers due `ahead` blocks from now, and one actor to schedule more.
struct Crowded {
    chain: Chain,
    deployer: Address,
    actor: Address,
    height: u64,
    added: usize,
}

impl Crowded {
    fn new(ahead: u64, crowd: usize) -> Self {
        let deployer = Address::from_label("bench-deployer");
        let actor = Address::from_low_u64(0x4_0000);
        let genesis = Genesis {
            timer: TimerConfig {
                max_timers_per_actor: u32::MAX,
                ..TimerConfig::default()
            },
            accounts: vec![GenesisAccount {
                address: deployer,
                balance: RICH * 2,
            }],
            ..Genesis::default()
        };
        let mut chain = Chain::new(genesis, DevnetRuntime::shared()).expect("genesis");
        chain.set_keep_blocks(1);
        chain
            .apply_tx(Transaction::new(
                deployer,
                TxKind::Deploy {
                    address: Some(actor),
                    code: ActorCode::none(),
                    endowment: RICH,
                },
            ))
            .expect("deploy");
        chain.seal_block();
        let height = chain.pending_height() + ahead;
        chain
            .test_hook_insert_timers((0..crowd as u64).map(|n| timer(n, height)))
            .expect("fresh ids");
        chain.seal_block();
        Crowded {
            chain,
            deployer,
            actor,
            height,
            added: 0,
        }
    }

    /// One schedule into the crowded height, sealed in its own block.
    fn schedule(&mut self) -> Duration {
        let tx = Transaction::new(
            self.deployer,
            TxKind::ActAs {
                actor: self.actor,
                op: TimerOp::ScheduleTimer(ScheduleArgs {
                    height: self.height,
                    ..ScheduleArgs::default()
                }),
            },
        );
        let start = Instant::now();
        let receipt = self.chain.apply_tx(tx).expect("valid");
        self.chain.seal_block();
        let took = start.elapsed();
        assert!(receipt.success, "schedule failed: {receipt:?}");
        self.added += 1;
        took
    }
}

fn bench_schedule(c: &mut Criterion) {
    for (tier, ahead) in TIERS {
        let mut g = c.benchmark_group(format!("crowded_bucket/schedule/{tier}"));
        g.sampling_mode(SamplingMode::Flat);
        g.sample_size(10);
        for (name, crowd) in CROWDS {
            let mut state: Option<Crowded> = None;
            g.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        if state.as_ref().is_none_or(|s| s.added >= REFILL) {
                            state = Some(Crowded::new(ahead, crowd));
                        }
                        total += state.as_mut().expect("built").schedule();
                    }
                    total
                })
            });
        }
        g.finish();
    }
}

/// The engine alone: a queue with `crowd` timers due `ahead` blocks from its start.
struct Floor {
    queue: CalendarQueue,
    height: u64,
    next: u64,
    added: usize,
}

impl Floor {
    fn new(ahead: u64, crowd: usize) -> Self {
        let mut queue = CalendarQueue::new(QueueConfig::default(), 1);
        let height = 1 + ahead;
        for n in 0..crowd as u64 {
            queue.insert(timer(n, height)).expect("fresh id");
        }
        queue.commit();
        Floor {
            queue,
            height,
            next: 1 << 40,
            added: 0,
        }
    }

    fn insert_and_commit(&mut self) -> Duration {
        let t = timer(self.next, self.height);
        self.next += 1;
        let start = Instant::now();
        self.queue.insert(t).expect("fresh id");
        let roots = self.queue.commit();
        let took = start.elapsed();
        std::hint::black_box(roots);
        self.added += 1;
        took
    }
}

fn bench_floor(c: &mut Criterion) {
    for (tier, ahead) in TIERS {
        let mut g = c.benchmark_group(format!("crowded_bucket/floor/{tier}"));
        g.sampling_mode(SamplingMode::Flat);
        g.sample_size(10);
        for (name, crowd) in CROWDS {
            let mut state: Option<Floor> = None;
            g.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        if state.as_ref().is_none_or(|s| s.added >= REFILL) {
                            state = Some(Floor::new(ahead, crowd));
                        }
                        total += state.as_mut().expect("built").insert_and_commit();
                    }
                    total
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench_schedule, bench_floor);
criterion_main!(benches);
