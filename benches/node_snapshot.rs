//! Snapshots of the node (issue 13), with 100,000 and 1,000,000 timers pending and 20,000
//! sealed blocks with a transaction each in the node's history: `snapshot` (take one and
//! delete it) and `revert` (to a snapshot kept, which stays usable). The sealed blocks are
//! shared between the node and its snapshots (`Arc`), so either copies the state, not the
//! history. Beside them, the naive baseline: one copy of the state and of every block of the
//! history (what a snapshot costs when blocks are copied).
//!
//! Run: `cargo bench --bench node_snapshot`.

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Block, Chain, Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::{Address, Timer, TimerConfig, TimerId};
use cowboy_devnet::node::{
    DeleteSnapshot, LoadState, Mine, MiningMode, NodeConfig, NodeCore, Revert, SendTx, Snapshot,
};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const ACTORS: usize = 16;
const BLOCKS: u64 = 20_000;
const RICH: u128 = 1_000_000_000_000_000_000_000_000_000_000;

fn actor(i: usize) -> Address {
    Address::from_low_u64(0x1_0000 + (i % ACTORS) as u64)
}

fn timer(n: u64, owner: Address, height: u64) -> Timer {
    let mut id = [0u8; 32];
    id[..8].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    id[8..16].copy_from_slice(&n.to_le_bytes());
    Timer {
        timer_id: TimerId(id),
        actor_address: owner,
        fee_payer: owner,
        height,
        seq: 0,
        schedule_block: 0,
        gas_limit_per_fire: 10_000,
        expires_at: height + 1_000,
        payload: Box::default(),
        fee_caps: None,
    }
}

/// A node with `pending` timers far ahead and `BLOCKS` blocks of history.
fn node(pending: usize) -> NodeCore {
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
    let rt = DevnetRuntime::shared();
    let mut c = Chain::new(genesis.clone(), rt.clone()).expect("genesis");
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
    for n in 0..pending {
        let h = 10_000 + (n as u64 * 200_000) / pending as u64;
        c.engine
            .queue
            .insert(timer(n as u64, actor(n), h))
            .expect("fresh id");
    }
    c.seal_block();
    let mut cfg = NodeConfig::new(genesis, rt);
    cfg.mining = MiningMode::Manual;
    cfg.dev_accounts = 0;
    let mut node = NodeCore::new(cfg).expect("node");
    node.apply(LoadState(Box::new(c.dump()))).expect("load");
    for _ in 0..BLOCKS {
        let tx = Transaction::new(
            funder,
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
    for pending in [100_000usize, 1_000_000] {
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
