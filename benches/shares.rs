//! Issue 31, "an attached dashboard adds under 5 % CPU to the node" (Spec note 204): the
//! fairness pane's query (`SharesQuery`, `scheduler_actors`) under fifo over a 1,000-block
//! window that holds the block where a 100,000-timer backlog formed (99,996 first deferrals),
//! the rest of the window each firing four carried timers.
//!
//! * `shares/tallied`: the query as it runs now, merging the window's per-block tallies
//!   (counted once per block, kept with it).
//! * `shares/naive_rescan`: the baseline in the same run, what the query did before: every
//!   event of the window walked into a per-actor map, plus the rest of the query (pending
//!   counts, weights: the same query over an empty window).
//! * `shares/count_once_backlog_block`: the one-off count of the backlog's block, what the
//!   first refresh after its seal pays once.
//! * `carried_bucket/iter_count` against `carried_bucket/collect_len` (the baseline, what the
//!   tiers and coming-buckets queries did): the size of the bucket of about 96,000 carried
//!   timers at #1000, which every refresh reads (`CalendarQueue::bucket_iter` counts without
//!   collecting).
//!
//! Run: `cargo bench --bench shares`.

#[path = "../tests/common/mod.rs"]
mod common;

use common::history::rescan_shares;
use cowboy_devnet::chain::count_block_events;
use cowboy_devnet::engine::{Address, SchedulerKind};
use cowboy_devnet::node::{Mine, NodeCore, SharesQuery};
use criterion::{Criterion, criterion_group, criterion_main};
use std::collections::BTreeMap;
use std::hint::black_box;

const BUCKET: u64 = 100_000;
const ACTORS: u64 = 100;
const WINDOW: u64 = 1_000;

/// `BUCKET` timers of `ACTORS` actors due at 3 behind a lane of four, mined to #1000: the
/// backlog's block (#3) and 997 blocks of four fires each are in the window.
fn devnet() -> NodeCore {
    let bucket =
        (0..BUCKET).map(|k| common::fleet::bulk_timer(k, common::fleet::fleet_actor(ACTORS, k), 3));
    let mut node = common::fleet::carried_bucket_node(SchedulerKind::Fifo, ACTORS, bucket);
    node.apply(Mine {
        blocks: WINDOW - node.height(),
    })
    .expect("mine");
    node
}

fn bench(c: &mut Criterion) {
    let node = devnet();
    let got = node.ask(&SharesQuery { window: WINDOW }).expect("shares");
    let counted: BTreeMap<Address, (u64, u64)> = got
        .actors
        .iter()
        .map(|r| (r.actor, (r.fires, r.deferrals)))
        .collect();
    assert_eq!(
        counted,
        rescan_shares(node.chain(), WINDOW),
        "the same counts"
    );
    let deferrals: u64 = got.actors.iter().map(|r| r.deferrals).sum();
    assert_eq!(
        deferrals,
        BUCKET - 4,
        "the backlog's block is in the window"
    );
    let backlog_block = node
        .chain()
        .blocks()
        .find(|b| b.header.height == 3)
        .expect("#3 kept");

    let mut g = c.benchmark_group("shares");
    g.sample_size(30);
    g.bench_function("tallied", |b| {
        b.iter(|| black_box(node.ask(&SharesQuery { window: WINDOW }).expect("shares")))
    });
    g.bench_function("naive_rescan", |b| {
        b.iter(|| {
            let counts = rescan_shares(node.chain(), WINDOW);
            let rest = node.ask(&SharesQuery { window: 0 }).expect("shares");
            black_box((counts, rest))
        })
    });
    g.bench_function("count_once_backlog_block", |b| {
        b.iter(|| black_box(count_block_events(&backlog_block.events)))
    });
    g.finish();

    let q = node.chain().engine().queue();
    let due = q.next_height();
    assert_eq!(q.bucket_iter(due).count(), q.bucket(due).len());
    let mut g = c.benchmark_group("carried_bucket");
    g.sample_size(30);
    g.bench_function("iter_count", |b| {
        b.iter(|| black_box(q.bucket_iter(black_box(due)).count()))
    });
    g.bench_function("collect_len", |b| {
        b.iter(|| black_box(q.bucket(black_box(due)).len()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
