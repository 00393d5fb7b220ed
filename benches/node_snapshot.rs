//! Snapshots of the node (issue 13), with 100,000 and 1,000,000 timers pending and 20,000
//! sealed blocks with a transaction each in the node's history: `snapshot` (take one and
//! delete it) and `revert` (to a snapshot kept, which stays usable). The sealed blocks are
//! shared between the node and its snapshots (`Arc`), so either copies the state, not the
//! history. Beside them, the naive baseline: one copy of the state and of every block of the
//! history (what a snapshot costs when blocks are copied).
//!
//! Run: `cargo bench --bench node_snapshot`.

#[path = "../tests/common/mod.rs"]
mod common;

use cowboy_devnet::chain::{Block, Transaction, TxKind};
use cowboy_devnet::engine::Address;
use cowboy_devnet::node::{DeleteSnapshot, Mine, NodeCore, Revert, SendTx, Snapshot};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const ACTORS: u64 = 16;
const BLOCKS: u64 = 20_000;

/// A node with `pending` timers far ahead and `BLOCKS` blocks of history.
fn node(pending: u64) -> NodeCore {
    let (mut c, genesis) = common::fleet::fleet_chain(
        common::fleet::uncapped_genesis(),
        ACTORS,
        common::fleet::FLEET_RICH,
    );
    let owner = |i| common::fleet::fleet_actor(ACTORS, i);
    c.test_hook_insert_timers(common::fleet::spread_timers(
        0, pending, 10_000, 200_000, owner,
    ))
    .expect("fresh ids");
    c.seal_block();
    let mut node = common::fleet::node_from(&c, genesis);
    for _ in 0..BLOCKS {
        let tx = Transaction::new(
            common::fleet::fleet_funder(),
            TxKind::Transfer {
                to: Address::from_label("bench-sink"),
                amount: 1,
            },
        );
        node.apply(SendTx(tx)).expect("transfer");
        node.apply(Mine { blocks: 1 }).expect("mine");
    }
    while node.poll_event().is_some() {}
    node
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("node_snapshot");
    g.sample_size(10);
    for pending in [100_000u64, 1_000_000] {
        let mut n = node(pending);
        g.bench_with_input(BenchmarkId::new("snapshot", pending), &pending, |b, _| {
            b.iter(|| {
                let id = n.apply(Snapshot).unwrap();
                n.apply(DeleteSnapshot { id }).unwrap();
                while n.poll_event().is_some() {}
            })
        });
        let kept = n.apply(Snapshot).unwrap();
        g.bench_with_input(BenchmarkId::new("revert", pending), &pending, |b, _| {
            b.iter(|| {
                n.apply(Revert { id: kept }).unwrap();
                while n.poll_event().is_some() {}
            })
        });
        g.bench_with_input(
            BenchmarkId::new("naive_copy_state_and_blocks", pending),
            &pending,
            |b, _| {
                b.iter(|| {
                    let chain = n.chain().clone();
                    let blocks: Vec<Block> = (0..=n.height())
                        .filter_map(|h| n.block(h))
                        .map(|b| (*b).clone())
                        .collect();
                    black_box((chain, blocks))
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
