//! Script overhead per timer fire: one block with 10,000 due timers whose `handle_timer` is a
//! no-op Rhai script, against the same block with the no-code runtime (`ActorCode::none()`,
//! the baseline) in the same run. Only the sealing of that block is measured.
//!
//! Setup: 10 Rhai actors each schedule 1,000 timers for one height from `deploy()` through
//! `schedule_timer_ex` with `gas_limit: 1_000` (a no-op script fire uses far less); the genesis
//! lane (`lane_timer_cycles`) holds all 10,000 reservations. The baseline is a clone of the same
//! prepared chain with every actor's code replaced by `ActorCode::none()`.
//!
//! Run: `cargo bench --bench script_overhead`. Target: ≤ 5 µs of script overhead per fire.

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Chain, Event, Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::{Address, TimerConfig, TimerEvent};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::time::Duration;

const ACTORS: u64 = 10;
const TIMERS_PER_ACTOR: u64 = 1_000;
const FIRES: u64 = ACTORS * TIMERS_PER_ACTOR;
const DUE_HEIGHT: u64 = 3;

const SCRIPT: &str = r#"
const DUE = 3;
const TIMERS = 1_000;

fn deploy() {
    for i in 0..global::TIMERS {
        schedule_timer_ex(global::DUE, "", #{ gas_limit: 1_000 });
    }
}

fn handle_timer(payload) {}
"#;

/// A chain at height `DUE_HEIGHT - 1` with `FIRES` timers due at `DUE_HEIGHT`.
fn prepared() -> Chain {
    let owner = Address::from_label("owner");
    let genesis = Genesis {
        timer: TimerConfig {
            max_cells_per_fire: 1_000,
            lane_timer_cycles: 2 * FIRES * 1_000,
            ..TimerConfig::default()
        },
        accounts: vec![GenesisAccount {
            address: owner,
            balance: 1 << 100,
        }],
        ..Genesis::default()
    };
    let mut chain = Chain::new(genesis, DevnetRuntime::shared()).expect("genesis");
    for i in 0..ACTORS {
        let r = chain
            .apply_tx(Transaction::new(
                owner,
                TxKind::Deploy {
                    address: Some(Address::from_label(&format!("bench-actor-{i}"))),
                    code: ActorCode::rhai("bench.rhai", SCRIPT),
                    endowment: 1_000_000_000,
                },
            ))
            .expect("deploy accepted");
        assert!(r.success, "deploy failed: {:?}", r.error);
        assert_eq!(r.timers.len() as u64, TIMERS_PER_ACTOR);
    }
    while chain.pending_height() < DUE_HEIGHT {
        chain.seal_block();
    }
    chain
}

/// The same chain with every actor's code replaced by no code (a no-op `handle_timer`).
fn codeless(chain: &Chain) -> Chain {
    let mut c = chain.clone();
    let actors: Vec<Address> = c.actors().keys().copied().collect();
    for a in &actors {
        assert!(c.test_hook_replace_code(a, ActorCode::none()));
    }
    c
}

/// Seals the due block once and checks that all `FIRES` timers fired successfully.
fn check(mut chain: Chain) {
    let block = chain.seal_block();
    let ok = block
        .events
        .iter()
        .filter(|r| {
            matches!(
                r.event,
                Event::Timer(TimerEvent::TimerFired { success: true, .. })
            )
        })
        .count() as u64;
    assert_eq!(ok, FIRES, "every due timer must fire in the measured block");
}

fn script_overhead(c: &mut Criterion) {
    let rhai = prepared();
    let none = codeless(&rhai);
    check(rhai.clone());
    check(none.clone());

    let mut g = c.benchmark_group("seal_block_10k_fires");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g.bench_function("no_code_baseline", |b| {
        b.iter_batched(
            || none.clone(),
            |mut chain| {
                chain.seal_block();
                chain
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("rhai_noop", |b| {
        b.iter_batched(
            || rhai.clone(),
            |mut chain| {
                chain.seal_block();
                chain
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, script_overhead);
criterion_main!(benches);
