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
//!   from a counting global allocator (as the request left it, and once the node's events are
//!   drained as the shell drains them), and where it is: each part the node retains dropped
//!   in turn (`RetainedPart::ALL`, then the live chain's fields), after one block and after
//!   the jump.
//!
//! Run: `cargo bench --bench long_jump -- --warm-up-time 1 --measurement-time 5`.

#[path = "../tests/common/mod.rs"]
mod common;

use cowboy_devnet::chain::{Chain, Genesis};
use cowboy_devnet::engine::EventKind;
use cowboy_devnet::node::{Mine, NodeCore, NodeEvent, RetainedPart};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

// ---- setup ------------------------------------------------------------------------------------

const ACTORS: u64 = 16;

/// A chain at height 1 with `timers` timers spread evenly over the next `span` heights.
fn chain(timers: u64, span: u64) -> (Chain, Genesis) {
    common::fleet::spread_chain(ACTORS, timers, span)
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
            || common::fleet::node_from(&big, big_genesis.clone()),
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
    let mut n = common::fleet::node_from(&big, big_genesis.clone());
    let ((), heap) = counting_alloc::measure(|| {
        n.apply(Mine { blocks: 1_000_000 }).expect("mine");
    });
    let (fires, drained) = counting_alloc::measure(|| fired(&mut n));
    let mb = |b: isize| b as f64 / 1e6;
    println!(
        "long_jump/memory: Mine {{ blocks: 1_000_000 }} with 10,000 timers: heap +{:.1} MB \
         retained as the request left it, +{:.1} MB once its node events are drained (what \
         the shell does after each request: {:.1} MB of them), +{:.1} MB at peak (counting \
         allocator); {fires} timers fired; {} blocks with a body held by the chain (first \
         kept height {}), {} header archive entries, {} quiet runs; target <= 30 MB",
        mb(heap.retained),
        mb(heap.retained + drained.retained),
        mb(-drained.retained),
        mb(heap.peak),
        n.chain().blocks().count(),
        n.first_kept(),
        n.chain().header_archive().len(),
        n.chain().quiet_runs(),
    );
    assert_eq!(fires, 10_000, "every timer fires");
    // Where the retained bytes are: each part dropped in turn, after one block and after the
    // jump (the difference is what the jump left).
    for blocks in [1, 1_000_000] {
        let mut m = common::fleet::node_from(&big, big_genesis.clone());
        m.apply(Mine { blocks }).expect("mine");
        while m.poll_event().is_some() {}
        let mut parts = Vec::new();
        for part in RetainedPart::ALL {
            let ((), h) = counting_alloc::measure(|| m.test_hook_drop_part(part));
            parts.push(format!("{part:?} {:.1}", mb(-h.retained)));
        }
        for field in ["engine", "accounts", "actors", "commit", "recent"] {
            let ((), h) = counting_alloc::measure(|| m.test_hook_drop_chain_field(field));
            parts.push(format!("chain {field} {:.1}", mb(-h.retained)));
        }
        let ((), h) = counting_alloc::measure(|| drop(m));
        parts.push(format!("rest {:.1}", mb(-h.retained)));
        println!(
            "long_jump/memory: after Mine {{ blocks: {blocks} }}, MB each part alone held: {}",
            parts.join(", ")
        );
    }
    // The baseline reaches the same head, root and hash.
    let mut stepped = big.clone();
    for _ in 0..1_000_000 {
        stepped.seal_next();
    }
    assert_eq!(stepped.head(), n.chain().head(), "the same head either way");
}

criterion_group!(benches, bench);
criterion_main!(benches);
