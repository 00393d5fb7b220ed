//! CIP-1 v3 §8: the fairness update of one block (`Fairness::record_block`) in steady state,
//! with 1,000 and with 100,000 actors known in the 1,000-block window, beside a naive baseline
//! in the same run.
//!
//! Every block records about 1,000 fires from 500 actors (1 to 3 each) and 50 deferrals; the
//! actors of block h are the 500 after `h × 500 mod N`, so with N = 100,000 every actor fires in
//! 5 blocks of each window and all 100,000 stay known, and with N = 1,000 every actor fires every
//! other block. The window is filled (1,000 blocks) before the clock starts; each measured
//! iteration records the next block, so one block also leaves the window.
//!
//! * `record_block/N`: the update given counts by address (per-block lists in a ring,
//!   per-actor records by slot, a histogram of counts for the median): every actor of the block
//!   is looked up in the index of all actors.
//! * `record_block_slots/N` (issue 31): the engine's update as the `eip1559` plan feeds it: each
//!   fire carries its actor's dense fairness slot, found when the plan read W(actor)
//!   (`Fairness::weight_and_slot_by`, here before the clock starts: the plan reads W whether or
//!   not it keeps the slot), and so does each deferral (the auction's carried actors).
//! * `weight_lookups/N`: for scale, what the plan's W reads of the same actors cost (the
//!   lookups the slots reuse; not part of the update).
//! * `slot_floor/N`: the least work the update implies once actors are named by slot: add each
//!   actor's fires of the block recorded and subtract those of the block leaving, in a dense
//!   array indexed by the same slots.
//! * `naive/N`: the same ring and totals, with the median recomputed each block by collecting
//!   and sorting every known actor's count.
//! * `lookup_floor/N`: the least memory work a block implies: look up each actor of the block
//!   recorded and of the block leaving the window in an index of all N actors and add to its
//!   total. It shows how much of the N-dependence is the cache, not the algorithm.
//!
//! Run: `cargo bench --bench fairness_update`. Target (issue 31): the engine's update,
//! `record_block_slots`, at 100,000 actors within 1.2x of 1,000.

use cowboy_devnet::engine::Address;
use cowboy_devnet::engine::scheduler::variants::FairnessMedian;
use cowboy_devnet::engine::scheduler::{Fairness, Tally};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::collections::{BTreeMap, VecDeque};

#[path = "../tests/common/mod.rs"]
mod common;
use common::fleet::mix;

const WINDOW: u64 = 1_000;
const PER_BLOCK: u64 = 500;
/// Blocks of distinct content; the actor pattern repeats every 200 blocks for both N.
const PERIOD: u64 = 200;

fn actor(i: u64) -> Address {
    let mut a = [0u8; 20];
    a[..8].copy_from_slice(&mix(i).to_be_bytes());
    a[8..16].copy_from_slice(&mix(i ^ 0xABCD).to_be_bytes());
    Address(a)
}

type Counts = BTreeMap<Address, u32>;
/// A block in the naive ring: its height and `(actor, fires, deferrals)` rows.
type NaiveBlock = (u64, Vec<(Address, u32, u32)>);

/// The fires and deferrals of block `h mod PERIOD` with `n` actors.
fn blocks(n: u64) -> Vec<(Counts, Counts)> {
    (0..PERIOD)
        .map(|b| {
            let start = b * PER_BLOCK;
            let fires: Counts = (0..PER_BLOCK)
                .map(|j| (actor((start + j) % n), 1 + (mix(b * 7_919 + j) % 3) as u32))
                .collect();
            let defs: Counts = (0..PER_BLOCK / 10)
                .map(|j| (actor((start + 10 * j + 3) % n), 1))
                .collect();
            (fires, defs)
        })
        .collect()
}

/// The naive baseline: the same ring of per-block lists and per-actor totals, and the median
/// recomputed by collecting and sorting all actors' counts.
#[derive(Default)]
struct Naive {
    ring: VecDeque<NaiveBlock>,
    totals: BTreeMap<Address, (u64, u64)>,
    median: u64,
}

impl Naive {
    fn record(&mut self, h: u64, fires: &Counts, defs: &Counts, median: bool) {
        while self.ring.front().is_some_and(|b| b.0 + WINDOW <= h) {
            let (_, rows) = self.ring.pop_front().unwrap();
            for (a, f, d) in rows {
                let t = self.totals.get_mut(&a).unwrap();
                t.0 -= f as u64;
                t.1 -= d as u64;
                if *t == (0, 0) {
                    self.totals.remove(&a);
                }
            }
        }
        let mut rows = Vec::with_capacity(fires.len() + defs.len());
        for (a, f) in fires {
            self.totals.entry(*a).or_default().0 += *f as u64;
            rows.push((*a, *f, 0));
        }
        for (a, d) in defs {
            self.totals.entry(*a).or_default().1 += *d as u64;
            rows.push((*a, 0, *d));
        }
        self.ring.push_back((h, rows));
        if median {
            let mut c: Vec<u64> = self
                .totals
                .values()
                .map(|t| t.0)
                .filter(|n| *n > 0)
                .collect();
            c.sort_unstable();
            self.median = c.get(c.len().saturating_sub(1) / 2).copied().unwrap_or(0);
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("fairness_update");
    g.sample_size(30);
    for n in [1_000u64, 100_000] {
        let bl = blocks(n);
        let mut f = Fairness::new(WINDOW);
        let mut naive = Naive::default();
        for h in 1..=WINDOW {
            let (fi, de) = &bl[(h % PERIOD) as usize];
            f.record_block(h, fi, de);
            naive.record(h, fi, de, h == WINDOW);
        }
        assert_eq!(f.actor_count() as u64, n);
        assert_eq!(f.median(), naive.median);
        // The floor: one block's memory traffic alone, a lookup of each of its actors in an
        // index of all N and a touch of that actor's totals, plus the same for the block that
        // leaves the window.
        let index: hashbrown::HashMap<Address, u32> =
            (0..n).map(|i| (actor(i), i as u32)).collect();
        let mut totals = vec![0u64; n as usize];
        let mut h = WINDOW;
        g.bench_with_input(BenchmarkId::new("lookup_floor", n), &n, |b, _| {
            b.iter(|| {
                h += 1;
                for hh in [h, h - WINDOW] {
                    let (fi, _) = &bl[(hh % PERIOD) as usize];
                    for (a, c) in fi {
                        totals[index[a] as usize] += *c as u64;
                    }
                }
            })
        });
        // The blocks as the engine hands them over: counts with the slots the plan found.
        let tally = |m: &Counts| -> BTreeMap<Address, Tally> {
            m.iter()
                .map(|(a, c)| {
                    let slot = f.slot_of(a);
                    assert!(slot.is_some());
                    (*a, Tally { count: *c, slot })
                })
                .collect()
        };
        let hinted: Vec<BTreeMap<Address, Tally>> = bl.iter().map(|(fi, _)| tally(fi)).collect();
        let hinted_defs: Vec<BTreeMap<Address, Tally>> =
            bl.iter().map(|(_, de)| tally(de)).collect();
        let slots: Vec<Vec<(u32, u32)>> = hinted
            .iter()
            .map(|fi| {
                fi.values()
                    .map(|t| (t.slot.expect("known").index(), t.count))
                    .collect()
            })
            .collect();
        let top = slots.iter().flatten().map(|s| s.0).max().unwrap_or(0);
        let mut dense = vec![u64::MAX / 2; top as usize + 1];
        let mut h = WINDOW;
        g.bench_with_input(BenchmarkId::new("slot_floor", n), &n, |b, _| {
            b.iter(|| {
                h += 1;
                for &(s, c) in &slots[(h % PERIOD) as usize] {
                    dense[s as usize] += c as u64;
                }
                for &(s, c) in &slots[((h - WINDOW) % PERIOD) as usize] {
                    dense[s as usize] -= c as u64;
                }
            })
        });
        let mut h = WINDOW;
        g.bench_with_input(BenchmarkId::new("weight_lookups", n), &n, |b, _| {
            b.iter(|| {
                h += 1;
                let mut sum = 0u64;
                for a in bl[(h % PERIOD) as usize].0.keys() {
                    sum += f.weight_and_slot_by(a, FairnessMedian::Lower).0 as u64;
                }
                sum
            })
        });
        // Both updates go on from the height the other left (heights must not decrease).
        let mut h = WINDOW;
        g.bench_with_input(BenchmarkId::new("record_block_slots", n), &n, |b, _| {
            b.iter(|| {
                h += 1;
                let i = (h % PERIOD) as usize;
                f.record_block_tallied(h, &hinted[i], &hinted_defs[i]);
            })
        });
        g.bench_with_input(BenchmarkId::new("record_block", n), &n, |b, _| {
            b.iter(|| {
                h += 1;
                let (fi, de) = &bl[(h % PERIOD) as usize];
                f.record_block(h, fi, de);
            })
        });
        // The same window recorded afresh gives the same median and W.
        let mut fresh = Fairness::new(WINDOW);
        for hh in h + 1 - WINDOW..=h {
            let (fi, de) = &bl[(hh % PERIOD) as usize];
            fresh.record_block(hh, fi, de);
        }
        assert_eq!(f.median(), fresh.median());
        assert_eq!(f.rows(), fresh.rows());
        let mut h = WINDOW;
        g.bench_with_input(BenchmarkId::new("naive", n), &n, |b, _| {
            b.iter(|| {
                h += 1;
                let (fi, de) = &bl[(h % PERIOD) as usize];
                naive.record(h, fi, de, true);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
