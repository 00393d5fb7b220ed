//! Congestion at scale (issue 20, Spec note 71): a block's cost follows its fires, not the
//! backlog carried behind a full lane.
//!
//! * `backlog/seal/{fifo,eip1559}/N`: one `Chain::seal_block()` that fires `FIRES` timers
//!   while N = 0, 10,000 or 100,000 timers stay carried behind the full lane. Each measured
//!   block first inserts `FIRES` new timers at its own height (before the clock starts), so the
//!   backlog stays at N; N = 0 is the baseline: the same fires with none carried, in the same
//!   run. The target (issue 20): N = 100,000 under fifo within 1.5x of N = 0.
//! * `backlog/seal/eip1559-walk/N`: the same blocks under eip1559 planned by the naive walk
//!   (every carried timer priced, every candidate sorted: `test_hook_full_auction_walk`), the
//!   baseline of issue 31 in the same run. Target (issue 31): `eip1559/100000` within 2x of
//!   `eip1559/0`.
//! * `backlog/seal/cip1-v1/N` and `backlog/seal/cip1-v1-walk/N`: the same under CIP-1 v1, and
//!   planned by its naive walk (every due timer bid, every bid sorted, the lane's slices
//!   filled over all of them: `test_hook_full_auction_walk`), the baseline in the same run.
//!   Target (issue 31, fifth session): `cip1-v1/100000` within 2x of `cip1-v1/0`.
//! * `backlog/seal/cip5-draft/N` and `backlog/seal/cip5-draft-zh/N`: the same under the CIP-5
//!   drafts, whose quotas (16 fires a block by default) bound the block instead of a lane: each
//!   block inserts 16 timers, and the other N stay carried (in the Globalbox under
//!   `cip5-draft`, re-sorted every block under `cip5-draft-zh`). A draft block walks every
//!   due timer (English §8.3, zh §9): this measures what that walk costs per carried timer.
//! * A report (printed) of the bytes a block retains (its serialized body: header, receipts,
//!   events, stats) and its event count, per scheduler and backlog, after the backlog formed.
//!   Target: independent of the backlog.
//!
//! * A report (printed) of what a carried timer costs in the live chain (issue 31, brief
//!   "carry"): per scheduler, the chain's heap per timer with 100,000 timers due 1,000 heights
//!   ahead (pending, the baseline) and with them carried behind the lane, what a clone of the
//!   chain (a checkpoint, a snapshot) holds alone per timer, and the queue's heap by part
//!   (each dropped in turn, `QueuePart::ALL`), from a counting allocator.
//!
//! Run: `cargo bench --bench backlog` (the reports run every time; `cargo bench --bench
//! backlog carry` runs the carried-timer report alone).

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Chain, Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::queue::QueuePart;
use cowboy_devnet::engine::{Address, SchedulerKind, Timer, TimerConfig, TimerId};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use std::time::{Duration, Instant};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

/// Timers the lane takes per block.
const FIRES: usize = 100;
/// Timers a draft block fires (`max_fires_per_block`'s default, English §8.3).
const DRAFT_FIRES: usize = 16;
const GAS: u64 = 10_000;
const ACTORS: usize = 100;
const RICH: u128 = 1_000_000_000_000_000_000_000_000_000_000;
const BACKLOGS: [usize; 3] = [0, 10_000, 100_000];

fn actor(i: usize) -> Address {
    Address::from_low_u64(0x2_0000 + (i % ACTORS) as u64)
}

fn timer(n: u64, height: u64) -> Timer {
    let mut id = [0u8; 32];
    id[..8].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    id[8..16].copy_from_slice(&n.to_le_bytes());
    let owner = actor(n as usize);
    Timer {
        timer_id: TimerId(id),
        actor_address: owner,
        fee_payer: owner,
        height,
        seq: 0,
        schedule_block: height.saturating_sub(1),
        gas_limit_per_fire: GAS,
        // Far enough that no carried timer expires during a run.
        expires_at: height + 2_000_000,
        payload: Box::default(),
        fee_caps: None,
    }
}

/// A chain whose lane takes `FIRES` timers of `GAS` cycles a block, with `backlog` timers
/// carried behind it (the first block deferred them).
struct Congested {
    chain: Chain,
    next_id: u64,
    /// Timers a block fires (the lane's `FIRES`, or the drafts' quota).
    fires: usize,
}

impl Congested {
    fn new(scheduler: SchedulerKind, backlog: usize, walk: bool) -> Self {
        Self::due_ahead(scheduler, backlog, walk, 0)
    }

    /// [`new`](Self::new) with the `backlog` timers due `ahead` heights after the first
    /// block (pending, not carried, when `ahead` is above 2).
    fn due_ahead(scheduler: SchedulerKind, backlog: usize, walk: bool, ahead: u64) -> Self {
        let funder = Address::from_label("bench-funder");
        let genesis = Genesis {
            timer: TimerConfig {
                max_timers_per_actor: u32::MAX,
                max_cycles_per_fire: GAS,
                lane_timer_cycles: GAS * FIRES as u64,
                ..TimerConfig::default()
            },
            accounts: vec![GenesisAccount {
                address: funder,
                balance: RICH * (ACTORS as u128 + 1),
            }],
            ..Genesis::default()
        }
        .with_scheduler(Some(scheduler), None)
        .expect("scheduler");
        let mut chain = Chain::new(genesis, DevnetRuntime::shared()).expect("genesis");
        chain.set_keep_blocks(1);
        chain.test_hook_full_auction_walk(walk);
        for i in 0..ACTORS {
            chain
                .apply_tx(Transaction::new(
                    funder,
                    TxKind::Deploy {
                        address: Some(actor(i)),
                        code: ActorCode::none(),
                        endowment: RICH,
                    },
                ))
                .expect("deploy");
        }
        chain.seal_block();
        let fires = match scheduler {
            SchedulerKind::Cip5Draft | SchedulerKind::Cip5DraftZh => DRAFT_FIRES,
            _ => FIRES,
        };
        let mut s = Congested {
            chain,
            next_id: 0,
            fires,
        };
        if ahead > 0 {
            let h = s.chain.pending_height() + ahead;
            let timers: Vec<Timer> = (0..backlog).map(|i| timer(i as u64, h)).collect();
            s.next_id = backlog as u64;
            s.chain.test_hook_insert_timers(timers).expect("fresh ids");
        }
        s.insert(if ahead > 0 { fires } else { backlog + fires });
        s.chain.seal_block();
        // Two more blocks so the measured ones see a settled backlog.
        s.seal_one();
        s.seal_one();
        s
    }

    fn insert(&mut self, n: usize) {
        let h = self.chain.pending_height();
        let timers: Vec<Timer> = (0..n).map(|i| timer(self.next_id + i as u64, h)).collect();
        self.next_id += n as u64;
        self.chain
            .test_hook_insert_timers(timers)
            .expect("fresh ids");
    }

    /// Inserts this block's `fires` timers, then times its seal.
    fn seal_one(&mut self) -> Duration {
        self.insert(self.fires);
        let start = Instant::now();
        self.chain.seal_block();
        start.elapsed()
    }

    fn run(&mut self, blocks: u64) -> Duration {
        (0..blocks).map(|_| self.seal_one()).sum()
    }
}

fn bench_seal(c: &mut Criterion) {
    let runs = [
        (SchedulerKind::Fifo, ""),
        (SchedulerKind::Eip1559, ""),
        (SchedulerKind::Eip1559, "-walk"),
        (SchedulerKind::Cip1V1, ""),
        (SchedulerKind::Cip1V1, "-walk"),
        (SchedulerKind::Cip5Draft, ""),
        (SchedulerKind::Cip5DraftZh, ""),
    ];
    for (scheduler, walk) in runs {
        let name = format!("backlog/seal/{}{walk}", scheduler.as_str());
        let mut g = c.benchmark_group(name);
        g.sampling_mode(SamplingMode::Flat);
        g.sample_size(10);
        for backlog in BACKLOGS {
            let mut state: Option<Congested> = None;
            g.bench_function(BenchmarkId::from_parameter(backlog), |b| {
                b.iter_custom(|iters| {
                    state
                        .get_or_insert_with(|| Congested::new(scheduler, backlog, !walk.is_empty()))
                        .run(iters)
                })
            });
        }
        g.finish();
    }
}

/// Bytes a block retains (its serialized body) and its events, per scheduler and backlog.
fn report_retained(_c: &mut Criterion) {
    if !std::env::args()
        .skip(1)
        .all(|a| a.starts_with('-') || "retained".contains(a.as_str()))
    {
        return;
    }
    println!("backlog/retained: bytes and events per block (5 blocks after the backlog formed)");
    for scheduler in [
        SchedulerKind::Fifo,
        SchedulerKind::Eip1559,
        SchedulerKind::Cip1V1,
    ] {
        for backlog in BACKLOGS {
            let mut s = Congested::new(scheduler, backlog, false);
            let (mut bytes, mut events, mut fired, mut flips) = (0usize, 0usize, 0u64, 0u64);
            for _ in 0..5 {
                s.seal_one();
                let b = s.chain.last_block().expect("sealed");
                bytes += serde_json::to_vec(&*b).expect("serializes").len();
                events += b.events.len();
                fired += b.eob.fired;
                flips += b.eob.backlog.reason_changes;
            }
            println!(
                "  {:<8} backlog {:>7}: {:>8} bytes/block, {:>5} events/block, {:>4} fired/block, {:>6} reason changes/block",
                scheduler.as_str(),
                backlog,
                bytes / 5,
                events / 5,
                fired / 5,
                flips / 5
            );
        }
    }
}

/// What a carried timer costs in the live chain and in a clone (see the module docs).
fn report_carry_bytes(_c: &mut Criterion) {
    if !std::env::args()
        .skip(1)
        .all(|a| a.starts_with('-') || "carry".contains(a.as_str()))
    {
        return;
    }
    const N: usize = 100_000;
    let per = |bytes: isize| bytes as f64 / N as f64;
    println!("backlog/carry: {N} timers, lane {FIRES} fires a block; heap bytes per timer");
    for scheduler in [
        SchedulerKind::Fifo,
        SchedulerKind::Eip1559,
        SchedulerKind::Cip1V1,
    ] {
        let (_, none) = counting_alloc::measure(|| Congested::new(scheduler, 0, false));
        for ahead in [1_000, 0] {
            let (mut s, heap) =
                counting_alloc::measure(|| Congested::due_ahead(scheduler, N, false, ahead));
            let (copy, cloned) = counting_alloc::measure(|| s.chain.clone());
            drop(copy);
            println!(
                "  {:<8} {:<8}: chain {:>6.1} B, a clone holds {:>5.1} B",
                scheduler.as_str(),
                if ahead > 0 { "pending" } else { "carried" },
                per(heap.retained - none.retained),
                per(cloned.retained)
            );
            let mut parts = String::new();
            for part in QueuePart::ALL {
                let ((), h) = counting_alloc::measure(|| s.chain.test_hook_drop_queue_part(part));
                parts.push_str(&format!(" {part:?} {:.1},", per(-h.retained)));
            }
            println!("    queue by part:{}", parts.trim_end_matches(','));
        }
    }
}

criterion_group!(benches, bench_seal, report_retained, report_carry_bytes);
criterion_main!(benches);
