//! Session history (issue 24): past-height reads and the cost of recording.
//!
//! * `history/past_query`: `TiersQuery` as of a height anywhere in the 10,000 retained blocks
//!   of a node with 100,000 timers pending (and 5 fires in each of those blocks), through
//!   `At` (a checkpoint's chain cloned, the session log replayed from it, at most 256 heights'
//!   blocks). Baseline `replay_from_base`, same run: the node's base state cloned and the whole
//!   log replayed to that height (what a read costs without checkpoints). Target: <= 50 ms.
//! * `history/seal`: one `Mine { blocks: 1 }` of the node firing 1,000 timers with 100,000
//!   pending, with the session log recording (`recording_on`, checkpoints included) and
//!   without (`recording_off`), same run. Target: recording <= 5 % of the seal.
//!
//! Run: `cargo bench --bench history`.

use cowboy_devnet::engine::Address;
use cowboy_devnet::node::{At, Mine, NodeCore, TiersQuery};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "../tests/common/mod.rs"]
mod common;

const ACTORS: u64 = 100;
const PENDING: u64 = 100_000;
const RETAINED: u64 = 10_000;
const FIRES_PER_BLOCK: u64 = 5;

fn owner(i: u64) -> Address {
    common::fleet::fleet_actor(ACTORS, i % ACTORS)
}

/// A node at height 2 with `PENDING` timers beyond every height a run reaches and `due`
/// timers over the next `span` heights; and its base chain (for the baseline).
fn node(due: u64, span: u64) -> NodeCore {
    let (mut chain, genesis) = common::fleet::fleet_chain(
        common::fleet::uncapped_genesis(),
        ACTORS,
        common::fleet::FLEET_RICH / 1_000,
    );
    chain.seal_block();
    let far = common::fleet::spread_timers(0, PENDING, 1_000_000, 500_000, owner).map(|mut t| {
        t.expires_at = t.height + 1_000;
        t
    });
    chain.test_hook_insert_timers(far).expect("pending timers");
    let soon = common::fleet::spread_timers(PENDING, due, 3, span, owner);
    chain.test_hook_insert_timers(soon).expect("due timers");
    chain.seal_block();
    common::fleet::node_from(&chain, genesis)
}

fn past_query(c: &mut Criterion) {
    let mut n = node(RETAINED * FIRES_PER_BLOCK, RETAINED);
    // The replay from a checkpoint is measured: no kept past states (a repeated height would
    // be a lookup).
    n.set_past_cache(0);
    let base = n.chain().clone();
    n.apply(Mine { blocks: RETAINED }).expect("mine");
    let head = n.height();
    let first = n.first_queryable();
    // Heights spread over the retained history (a fixed sequence, the same for both).
    let heights: Vec<u64> = (0..64)
        .map(|i| first + common::fleet::mix(i) % (head - first))
        .collect();
    let mut g = c.benchmark_group("history/past_query");
    g.sample_size(10);
    g.bench_function(BenchmarkId::new("checkpoint", PENDING), |b| {
        let mut i = 0;
        b.iter(|| {
            i += 1;
            let h = heights[i % heights.len()];
            black_box(n.ask(&At::new(TiersQuery, Some(h))).expect("retained"))
        })
    });
    g.bench_function(BenchmarkId::new("replay_from_base", PENDING), |b| {
        let mut i = 0;
        b.iter(|| {
            i += 1;
            let h = heights[i % heights.len()];
            let mut c = base.clone();
            n.session().replay_on(&mut c, h).expect("replays");
            black_box(c.state_root())
        })
    });
    g.finish();
}

fn seal(c: &mut Criterion) {
    let mut g = c.benchmark_group("history/seal");
    g.sample_size(10);
    for (name, on) in [("recording_off", false), ("recording_on", true)] {
        let mut n = node(0, 1);
        n.set_recording(on);
        let mut next = 2 * PENDING;
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let h = n.chain().pending_height();
                    let due = common::fleet::spread_timers(next, 1_000, h, 1, owner);
                    next += 1_000;
                    n.test_hook_insert_timers(due).expect("due timers");
                    let t = Instant::now();
                    black_box(n.apply(Mine { blocks: 1 }).expect("mine"));
                    total += t.elapsed();
                    while n.poll_event().is_some() {}
                }
                total
            })
        });
    }
    g.finish();
}

/// A report (printed): the same blocks sealed by a recording node and by one that does not,
/// one block of each in turn (so the drift of a shared machine stays out of the ratio), over
/// 600 blocks (two checkpoints and more), with the medians' ratio.
fn seal_ratio(_: &mut Criterion) {
    let mut off = node(0, 1);
    off.set_recording(false);
    let mut on = node(0, 1);
    let (mut t_off, mut t_on) = (Vec::new(), Vec::new());
    let mut next = 2 * PENDING;
    for _ in 0..600 {
        for (n, times) in [(&mut off, &mut t_off), (&mut on, &mut t_on)] {
            let h = n.chain().pending_height();
            let due = common::fleet::spread_timers(next, 1_000, h, 1, owner);
            n.test_hook_insert_timers(due).expect("due timers");
            let t = Instant::now();
            black_box(n.apply(Mine { blocks: 1 }).expect("mine"));
            times.push(t.elapsed());
            while n.poll_event().is_some() {}
        }
        next += 1_000;
    }
    assert_eq!(off.chain().head(), on.chain().head(), "the same blocks");
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let mean = |v: &[Duration]| v.iter().sum::<Duration>() / v.len() as u32;
    let (mo, mn) = (mean(&t_off), mean(&t_on));
    let (a, b) = (median(&mut t_off), median(&mut t_on));
    println!(
        "history/seal_ratio: 600 blocks of 1,000 fires with {PENDING} pending: recording off \
         median {a:?} mean {mo:?}, on median {b:?} mean {mn:?} (checkpoints included); \
         on/off medians {:.3}, means {:.3}; target <= 1.05",
        b.as_secs_f64() / a.as_secs_f64(),
        mn.as_secs_f64() / mo.as_secs_f64()
    );
}

criterion_group!(benches, past_query, seal, seal_ratio);
criterion_main!(benches);
