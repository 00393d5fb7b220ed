//! Custom GBA cost per timer fire (CIP-1 v3 §7.2): one eip1559 block with 10,000 due timers
//! priced by their actors' Rhai `get_gas_bid(ctx)` (the default GBA's two lines, written as a
//! script), against the same block priced by the built-in default GBA (§7.1, the baseline: the
//! same scripts without `get_gas_bid`) in the same run. Only the sealing of that block is
//! measured, as in `benches/script_overhead.rs`; the difference divided by 10,000 is the cost
//! of one custom GBA call over the default.
//!
//! Setup: 10 Rhai actors each schedule 1,000 timers for one height from `deploy()` with
//! `gas_limit: 1_000` and no fee parameters (so the GBA prices them); the lane
//! (`lane_timer_cycles`) holds all 10,000 reservations.
//!
//! Run: `cargo bench --bench gba_call`. Target: ≤ 5 µs per fire over the default GBA.

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Chain, Event, Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::{Address, SchedulerKind, TimerConfig, TimerEvent};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::time::Duration;

const ACTORS: u64 = 10;
const TIMERS_PER_ACTOR: u64 = 1_000;
const FIRES: u64 = ACTORS * TIMERS_PER_ACTOR;
const DUE_HEIGHT: u64 = 3;

const HANDLERS: &str = r#"
const DUE = 3;
const TIMERS = 1_000;

fn deploy() {
    for i in 0..global::TIMERS {
        schedule_timer_ex(global::DUE, "", #{ gas_limit: 1_000 });
    }
}

fn handle_timer(payload) {}
"#;

/// The default GBA (§7.1) as a custom one.
const GBA: &str = r#"
fn get_gas_bid(ctx) {
    #{
        max_fee_per_cycle: ctx.basefee_lane_timer * 2,
        max_priority_fee_per_cycle: ctx.previous_block_p50_priority_tip_per_cycle
    }
}
"#;

/// A chain at height `DUE_HEIGHT - 1` with `FIRES` timers due at `DUE_HEIGHT`, their actors'
/// code `source`.
fn prepared(source: &str) -> Chain {
    let owner = Address::from_label("owner");
    let genesis = Genesis {
        scheduler: SchedulerKind::Eip1559,
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
                    code: ActorCode::rhai("bench.rhai", source),
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

/// Seals the due block once and checks that every timer fired, with no GBA fallback.
fn check(mut chain: Chain) {
    let block = chain.seal_block();
    let count = |f: &dyn Fn(&TimerEvent) -> bool| {
        block
            .events
            .iter()
            .filter(|r| matches!(&r.event, Event::Timer(e) if f(e)))
            .count() as u64
    };
    assert_eq!(
        count(&|e| matches!(e, TimerEvent::TimerFired { success: true, .. })),
        FIRES
    );
    assert_eq!(count(&|e| matches!(e, TimerEvent::GbaFallback { .. })), 0);
}

fn gba_call(c: &mut Criterion) {
    let custom = prepared(&format!("{HANDLERS}{GBA}"));
    let default = prepared(HANDLERS);
    check(custom.clone());
    check(default.clone());

    let mut g = c.benchmark_group("seal_block_10k_fires_eip1559");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g.bench_function("default_gba_baseline", |b| {
        b.iter_batched(
            || default.clone(),
            |mut chain| {
                chain.seal_block();
                chain
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("custom_gba_rhai", |b| {
        b.iter_batched(
            || custom.clone(),
            |mut chain| {
                chain.seal_block();
                chain
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, gba_call);
criterion_main!(benches);
