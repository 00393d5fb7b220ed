//! Long jumps (issue 13, "Speed"): `Mine { blocks: 1_000_000 }` on a node with 10,000 timers
//! of no-code actors spread over the range, each firing at its own height. Quiet heights are
//! jumped up to the next height where anything can happen (see `chain::quiet`), so the jump
//! costs what its busy heights cost.
//!
//! Beside it, in the same run:
//! * `step_1m_10k_timers`: the naive baseline, the same 1,000,000 heights sealed one by one
//!   (`Chain::seal_next` per height: each quiet height opened, maintained, drained, its root
//!   folded and its header hashed);
//! * `full_bodies_100k_1k_timers`: every height sealed with a stored body and a full commit
//!   (`Chain::test_hook_no_quiet`), over 100,000 heights with 1,000 timers (the same density);
//! * a report (printed) of the heap the 1,000,000-height jump leaves allocated and its peak,
//!   from a counting global allocator.
//!
//! Run: `cargo bench --bench long_jump -- --warm-up-time 1 --measurement-time 5`.

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Chain, Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::{Address, EventKind, Timer, TimerConfig, TimerId};
use cowboy_devnet::node::{LoadState, Mine, MiningMode, NodeConfig, NodeCore, NodeEvent};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

// ---- a counting allocator (counts only while enabled) ------------------------------------------

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);
static PEAK_BYTES: AtomicIsize = AtomicIsize::new(0);

fn grew(by: isize) {
    let now = LIVE_BYTES.fetch_add(by, Ordering::Relaxed) + by;
    PEAK_BYTES.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counters are a side
// effect only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            grew(layout.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            grew(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        if COUNTING.load(Ordering::Relaxed) {
            LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            grew(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

// ---- setup -------------------------------------------------------------------------------------

const ACTORS: u64 = 16;
const RICH: u128 = 1_000_000_000_000_000_000_000_000_000_000;

fn actor(i: u64) -> Address {
    Address::from_low_u64(0x1_0000 + i % ACTORS)
}

fn timer(n: u64, height: u64) -> Timer {
    let mut id = [0u8; 32];
    id[..8].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    id[8..16].copy_from_slice(&n.to_le_bytes());
    Timer {
        timer_id: TimerId(id),
        actor_address: actor(n),
        fee_payer: actor(n),
        height,
        seq: 0,
        schedule_block: 0,
        gas_limit_per_fire: 10_000,
        expires_at: height + 1_000,
        payload: Box::default(),
        fee_caps: None,
    }
}

/// A chain at height 1 with `timers` timers spread evenly over the next `span` heights.
fn chain(timers: u64, span: u64) -> (Chain, Genesis) {
    let funder = Address::from_label("bench-funder");
    let genesis = Genesis {
        timer: TimerConfig {
            max_timers_per_actor: u32::MAX,
            ..TimerConfig::default()
        },
        accounts: vec![GenesisAccount {
            address: funder,
            balance: RICH * (ACTORS as u128 + 1),
        }],
        ..Genesis::default()
    };
    let mut c = Chain::new(genesis.clone(), DevnetRuntime::shared()).expect("genesis");
    for i in 0..ACTORS {
        c.apply_tx(Transaction::new(
            funder,
            TxKind::Deploy {
                address: Some(actor(i)),
                code: ActorCode::none(),
                endowment: RICH,
            },
        ))
        .expect("deploy");
    }
    c.seal_block();
    c.test_hook_insert_timers((0..timers).map(|n| timer(n, 2 + n * span / timers)))
        .expect("fresh ids");
    (c, genesis)
}

fn node(c: &Chain, genesis: &Genesis) -> NodeCore {
    let mut cfg = NodeConfig::new(genesis.clone(), DevnetRuntime::shared());
    cfg.mining = MiningMode::Manual;
    cfg.dev_accounts = 0;
    let mut node = NodeCore::new(cfg).expect("node");
    node.apply(LoadState(Box::new(c.dump().expect("sealed"))))
        .expect("load");
    while node.poll_event().is_some() {}
    node
}

fn fired(node: &mut NodeCore) -> usize {
    let mut n = 0;
    while let Some(e) = node.poll_event() {
        if let NodeEvent::Chain(r) = e
            && r.event.kind() == EventKind::TimerFired
        {
            n += 1;
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    let (big, big_genesis) = chain(10_000, 1_000_000);
    let (small, _) = chain(1_000, 100_000);
    let mut g = c.benchmark_group("long_jump");
    g.sample_size(10);
    g.bench_function("mine_1m_10k_timers", |b| {
        b.iter_batched(
            || node(&big, &big_genesis),
            |mut n| {
                n.apply(Mine { blocks: 1_000_000 }).expect("mine");
                n
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("step_1m_10k_timers", |b| {
        b.iter_batched(
            || big.clone(),
            |mut c| {
                for _ in 0..1_000_000 {
                    c.seal_next();
                }
                c
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("full_bodies_100k_1k_timers", |b| {
        b.iter_batched(
            || {
                let mut c = small.clone();
                c.test_hook_no_quiet(true);
                c
            },
            |mut c| {
                for _ in 0..100_000 {
                    black_box(c.seal_block());
                }
                c
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();

    // Memory of the jump, and a check that every timer fired at its own height.
    let mut n = node(&big, &big_genesis);
    COUNTING.store(true, Ordering::SeqCst);
    let before = LIVE_BYTES.load(Ordering::SeqCst);
    PEAK_BYTES.store(before, Ordering::SeqCst);
    n.apply(Mine { blocks: 1_000_000 }).expect("mine");
    let after = LIVE_BYTES.load(Ordering::SeqCst);
    let peak = PEAK_BYTES.load(Ordering::SeqCst);
    COUNTING.store(false, Ordering::SeqCst);
    let fires = fired(&mut n);
    let mb = |b: isize| b as f64 / 1e6;
    println!(
        "long_jump/memory: Mine {{ blocks: 1_000_000 }} with 10,000 timers: heap +{:.1} MB \
         retained, +{:.1} MB at peak (counting allocator); {fires} timers fired; {} blocks \
         with a body stored; target < 50 MB",
        mb(after - before),
        mb(peak - before),
        n.chain().blocks().count()
    );
    assert_eq!(fires, 10_000, "every timer fires");
    // The baseline reaches the same head, root and hash.
    let mut stepped = big.clone();
    for _ in 0..1_000_000 {
        stepped.seal_next();
    }
    assert_eq!(stepped.head(), n.chain().head(), "the same head either way");
}

criterion_group!(benches, bench);
criterion_main!(benches);
