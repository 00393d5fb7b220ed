//! Issue 31, "the dashboard asks for what it shows": one dashboard refresh (the composite query
//! and `assemble`, `LocalDevnet::dashboard`) with a selected bucket of 100,000 carried timers,
//! read a page at a time (the dashboard's page: the 100 rows above the cursor and 28 below,
//! here from the middle of the bucket), beside the naive baseline in the same run: the same
//! refresh with the bucket read whole (`BucketQuery`, what the refresh asked before; the
//! baseline leaves out the client-side rows and ranking it also did, so it is understated).
//! Under fifo and eip1559 (where the node ranks the bucket for each page), and with 1M pending
//! (900,000 more timers spread over 400,000 heights beside the bucket).
//!
//! Run: `cargo bench --bench bucket_page`.

#[path = "../tests/common/mod.rs"]
mod common;

use cowboy_devnet::engine::{Address, FeeCaps, SchedulerKind, Timer};
use cowboy_devnet::node::BucketQuery;
use cowboy_devnet::tui::data::ViewQuery;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::DashboardSource;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const BUCKET: u64 = 100_000;
const GAS: u64 = 10_000;
const ACTORS: u64 = 1_000;

fn actor(i: u64) -> Address {
    common::fleet::fleet_actor(ACTORS, i)
}

/// `BUCKET` timers due at 3 behind a lane of four, mined to 3 (all but four carried to 4), and
/// `spread` more over the heights after it.
fn devnet(kind: SchedulerKind, spread: u64) -> LocalDevnet {
    let bucket = (0..BUCKET).map(|k| Timer {
        schedule_block: 1,
        gas_limit_per_fire: GAS,
        fee_caps: (k % 2 == 1).then(|| {
            Box::new(FeeCaps {
                max_fee_per_cycle: Some(50_000_000_000),
                max_priority_fee_per_cycle: Some((k as u128 * 7_919) % 3_000_000_000),
                ..FeeCaps::default()
            })
        }),
        ..common::fleet::bulk_timer(k, actor(k), 3)
    });
    let rest = common::fleet::spread_timers(BUCKET, spread, 10, 400_000, actor);
    let node = common::fleet::carried_bucket_node(kind, ACTORS, bucket.chain(rest));
    LocalDevnet::new(node, Default::default())
}

fn paged() -> ViewQuery {
    ViewQuery {
        selected_bucket: Some(4),
        bucket_offset: BUCKET / 2,
        ..ViewQuery::default()
    }
}

fn group(c: &mut Criterion, name: &str, kind: SchedulerKind, spread: u64) {
    let mut src = devnet(kind, spread);
    let d = src.dashboard(&paged());
    assert_eq!(d.bucket_total, BUCKET - 4);
    assert_eq!(d.bucket_timers.len(), 128);
    let mut g = c.benchmark_group(name);
    g.sample_size(20);
    g.bench_function("refresh_paged", |b| {
        b.iter(|| black_box(src.dashboard(&paged())))
    });
    g.bench_function("naive_refresh_whole_bucket", |b| {
        let rest = ViewQuery {
            selected_bucket: None,
            ..ViewQuery::default()
        };
        b.iter(|| {
            let d = src.dashboard(&rest);
            let whole = src.devnet().ask(&BucketQuery { height: 4 }).unwrap();
            assert_eq!(whole.len() as u64, BUCKET - 4);
            black_box((d, whole))
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    group(c, "bucket_page_fifo_100k", SchedulerKind::Fifo, 0);
    group(c, "bucket_page_eip1559_100k", SchedulerKind::Eip1559, 0);
    group(
        c,
        "bucket_page_fifo_1m_pending",
        SchedulerKind::Fifo,
        900_000,
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
