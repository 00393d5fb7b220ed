//! CIP-1 v3 §3 step 7: selecting one block's timers from 100,000 due candidates owned by 1,000
//! actors, lane 2,000,000 cycles, per-fire cap 250,000, beside the naive baseline in the same
//! run.
//!
//! * `select`: the engine's selection (partial selection of the best chunk, filled greedily,
//!   widened while the room left could still take a candidate).
//! * `select_naive`: compute every effective priority, sort all 100,000, fill.
//!
//! Candidates: budgets 1,000..=250,000 cycles with 2 % over the cap (250,001..=400,000); 70 %
//! price at the default GBA (the prior block's p50 tip, 1,000,000 nanos per cycle, so they tie
//! and the timer id decides), 20 % at a priority tier (0.8x, 1.5x, 2.5x), 10 % at a custom tip
//! up to 10x; W per actor spread over [10,000, 20,000] bps; random 32-byte timer ids. The two
//! results are checked equal before timing.
//!
//! Run: `cargo bench --bench scheduler_select`. Target: `select` ≤ 0.5x `select_naive` and
//! ≤ 20 ms.

use cowboy_devnet::engine::TimerId;
use cowboy_devnet::engine::scheduler::{Candidate, select, select_naive};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

#[path = "../tests/common/mod.rs"]
mod common;

const CANDIDATES: usize = 100_000;
const ACTORS: u64 = 1_000;
const LANE: u64 = 2_000_000;
const CAP: u64 = 250_000;
const P50: u128 = 1_000_000;

fn candidates() -> Vec<Candidate> {
    let mut r = common::fleet::Rng(14);
    let weights: Vec<u32> = (0..ACTORS)
        .map(|_| 10_000 + r.below(10_001) as u32)
        .collect();
    (0..CANDIDATES)
        .map(|_| {
            let mut id = [0u8; 32];
            for chunk in id.chunks_mut(8) {
                chunk.copy_from_slice(&r.next_u64().to_be_bytes());
            }
            let actor = r.below(ACTORS) as usize;
            let budget = if r.below(100) < 2 {
                CAP + 1 + r.below(150_000)
            } else {
                1_000 + r.below(CAP - 1_000 + 1)
            };
            let priority = match r.below(10) {
                0..=6 => P50,
                7 => P50 * [8, 15, 25][r.below(3) as usize] / 10,
                8 => P50 * 15 / 10,
                _ => r.below(10 * P50 as u64) as u128,
            };
            Candidate {
                timer_id: TimerId(id),
                schedule_block: 100 + r.below(5),
                budget,
                priority_per_cycle: priority,
                weight_bps: weights[actor],
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let cands = candidates();
    let fast = select(&cands, LANE, CAP);
    assert_eq!(fast, select_naive(&cands, LANE, CAP));
    println!(
        "scheduler_select: {} candidates, {} selected, {} deferred",
        cands.len(),
        fast.selected.len(),
        fast.deferred.len()
    );
    let mut g = c.benchmark_group("scheduler_select");
    g.sample_size(20);
    g.bench_function("select", |b| {
        b.iter(|| select(black_box(&cands), LANE, CAP))
    });
    g.bench_function("select_naive", |b| {
        b.iter(|| select_naive(black_box(&cands), LANE, CAP))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
