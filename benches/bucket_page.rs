//! Issue 31, "the dashboard asks for what it shows": one dashboard refresh (the composite query
//! and `assemble`, `LocalDevnet::dashboard`) with a selected bucket of 100,000 carried timers,
//! read a page at a time (the dashboard's page: the 100 rows above the cursor and 28 below,
//! here from the middle of the bucket), beside the naive baseline in the same run: the same
//! refresh with the bucket read whole (`BucketQuery`, what the refresh asked before; the
//! baseline leaves out the client-side rows and ranking it also did, so it is understated).
//! Under fifo and eip1559 (where the node ranks the bucket for each page), and with 1M pending
//! (900,000 more timers spread over 400,000 heights beside the bucket).
//!
//! Issue 31, second session of 2026-11-28 (Spec notes 206, 207): each group also measures
//! `walk_refresh`, the walk baseline: the same paged refresh plus the walks of the carried
//! bucket it made before the queue kept a count and gas sum per ring bucket (the tiers' count
//! of every ring height, the coming bucket's count and budget, the page's rows and the selected
//! timer's position found by a walk), and a group with the selected bucket at 1M carried
//! timers (`bucket_page_fifo_1m_carried`, the walk baseline only: the whole bucket read is
//! seconds an iteration there).
//!
//! Issue 31, fourth session of 2026-11-28 (Spec note 217): under eip1559 a page of the carried
//! bucket is read at the page's cost (`RankedBucket`); each eip1559 group also measures
//! `naive_refresh_whole_rank`, the refresh as it ran before: the refresh without the bucket plus
//! the page cut from the whole bucket ranked by `rank_preview` (the oracle), and the 1M groups
//! are `bucket_page_eip1559_1m_carried` (every other timer fee-capped: half the bucket priced
//! one by one) and `bucket_page_eip1559_1m_mostly_plain` (one timer in 100 fee-capped).
//!
//! Run: `cargo bench --bench bucket_page`.

#[path = "../tests/common/mod.rs"]
mod common;

use cowboy_devnet::engine::scheduler::policy::rank_preview;
use cowboy_devnet::engine::{Address, FeeCaps, SchedulerKind, Timer, TimerId};
use cowboy_devnet::node::{BucketQuery, NodeCore};
use cowboy_devnet::tui::data::ViewQuery;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::DashboardSource;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const BUCKET: u64 = 100_000;
const MILLION: u64 = 1_000_000;
const GAS: u64 = 10_000;
const ACTORS: u64 = 1_000;

fn actor(i: u64) -> Address {
    common::fleet::fleet_actor(ACTORS, i)
}

/// `size` timers due at 3 behind a lane of four, mined to 3 (all but four carried to 4), and
/// `spread` more over the heights after it; one timer in `capped` has fee caps of its own.
fn devnet(kind: SchedulerKind, size: u64, spread: u64, capped: u64) -> LocalDevnet {
    let bucket = (0..size).map(|k| Timer {
        schedule_block: 1,
        gas_limit_per_fire: GAS,
        fee_caps: (k % capped == 1).then(|| {
            Box::new(FeeCaps {
                max_fee_per_cycle: Some(50_000_000_000),
                max_priority_fee_per_cycle: Some((k as u128 * 7_919) % 3_000_000_000),
                ..FeeCaps::default()
            })
        }),
        ..common::fleet::bulk_timer(k, actor(k), 3)
    });
    let rest = common::fleet::spread_timers(size, spread, 10, 400_000, actor);
    let node = common::fleet::carried_bucket_node(kind, ACTORS, bucket.chain(rest));
    LocalDevnet::new(node, Default::default())
}

/// The dashboard's page from the middle of a bucket of `size`, with its middle timer selected.
fn paged(size: u64, timer: Option<TimerId>) -> ViewQuery {
    ViewQuery {
        selected_bucket: Some(4),
        bucket_offset: size / 2,
        bucket_timer: timer,
        ..ViewQuery::default()
    }
}

/// What a refresh walked before the queue kept its bucket tallies (issue 31): every ring
/// height's count (the tiers), the coming bucket's count and budget, the bucket's ids up to the
/// selected timer's position, and the page's rows.
fn walks(node: &NodeCore, q: &ViewQuery) -> (usize, u64, Option<usize>, usize) {
    let queue = node.chain().engine().queue();
    let hz = queue.horizons();
    let cap = node.chain().timer_config().max_cycles_per_fire;
    let ring: usize = (hz.next_height..hz.ring_horizon)
        .map(|h| queue.bucket_iter(h).count())
        .sum();
    let budget: u64 = queue
        .bucket_iter(4)
        .map(|t| t.gas_limit_per_fire.min(cap))
        .sum();
    let whole = queue.bucket(4);
    let at = q
        .bucket_timer
        .and_then(|id| whole.iter().position(|t| t.timer_id == id));
    let rows = whole
        .iter()
        .skip(q.bucket_offset as usize)
        .take(q.bucket_limit as usize)
        .count();
    (ring, budget, at, rows)
}

/// The page the dashboard asked before (Spec note 217's baseline): the whole bucket ranked by
/// `rank_preview`, the selected timer's position found in it and the rows cut.
fn whole_rank(node: &NodeCore, q: &ViewQuery) -> (Option<usize>, Vec<TimerId>) {
    let chain = node.chain();
    let timers = chain.engine().queue().bucket(4);
    let (cfg, _) = node.config();
    let order = rank_preview(
        &timers,
        chain.engine().policies(),
        &cfg,
        chain.lane_basefee(),
    );
    let at = q
        .bucket_timer
        .and_then(|id| order.iter().position(|r| timers[r.idx].timer_id == id));
    let rows = order
        .iter()
        .skip(q.bucket_offset as usize)
        .take(q.bucket_limit as usize)
        .map(|r| timers[r.idx].timer_id)
        .collect();
    (at, rows)
}

struct Scene {
    name: &'static str,
    kind: SchedulerKind,
    size: u64,
    spread: u64,
    capped: u64,
}

fn group(c: &mut Criterion, s: Scene) {
    let Scene {
        name,
        kind,
        size,
        spread,
        capped,
    } = s;
    let mut src = devnet(kind, size, spread, capped);
    let middle = src.devnet().chain().engine().queue().bucket(4)[(size / 2) as usize].timer_id;
    let query = paged(size, Some(middle));
    let d = src.dashboard(&query);
    assert_eq!(d.bucket_total, size - 4);
    assert_eq!(d.bucket_timers.len(), 128);
    let mut g = c.benchmark_group(name);
    g.sample_size(20);
    g.bench_function("refresh_paged", |b| {
        b.iter(|| black_box(src.dashboard(&query)))
    });
    g.bench_function("walk_refresh", |b| {
        b.iter(|| {
            let d = src.dashboard(&query);
            black_box((d, walks(src.devnet(), &query)))
        })
    });
    if kind == SchedulerKind::Eip1559 {
        let rest = ViewQuery {
            selected_bucket: None,
            ..ViewQuery::default()
        };
        let (at, rows) = whole_rank(src.devnet(), &query);
        let d = src.dashboard(&query);
        assert_eq!(d.bucket_timers.len(), rows.len().min(128));
        assert!(at.is_some());
        g.bench_function("naive_refresh_whole_rank", |b| {
            b.iter(|| black_box((src.dashboard(&rest), whole_rank(src.devnet(), &query))))
        });
    }
    if size > BUCKET {
        g.finish();
        return;
    }
    g.bench_function("naive_refresh_whole_bucket", |b| {
        let rest = ViewQuery {
            selected_bucket: None,
            ..ViewQuery::default()
        };
        b.iter(|| {
            let d = src.dashboard(&rest);
            let whole = src.devnet().ask(&BucketQuery { height: 4 }).unwrap();
            assert_eq!(whole.len() as u64, size - 4);
            black_box((d, whole))
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    use SchedulerKind::{Eip1559, Fifo};
    let scenes = [
        ("bucket_page_fifo_100k", Fifo, BUCKET, 0, 2),
        ("bucket_page_eip1559_100k", Eip1559, BUCKET, 0, 2),
        ("bucket_page_fifo_1m_pending", Fifo, BUCKET, 900_000, 2),
        ("bucket_page_fifo_1m_carried", Fifo, MILLION, 0, 2),
        ("bucket_page_eip1559_1m_carried", Eip1559, MILLION, 0, 2),
        (
            "bucket_page_eip1559_1m_mostly_plain",
            Eip1559,
            MILLION,
            0,
            100,
        ),
    ];
    let only = std::env::var("BUCKET_PAGE_ONLY").unwrap_or_default();
    for (name, kind, size, spread, capped) in scenes {
        if name.contains(only.as_str()) {
            let scene = Scene {
                name,
                kind,
                size,
                spread,
                capped,
            };
            group(c, scene);
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
