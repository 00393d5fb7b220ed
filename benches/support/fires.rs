//! The set-up the per-fire benches share (`script_overhead`, `gba_call`): a chain one block
//! before `DUE_HEIGHT`, with `FIRES` timers due at it, scheduled by `ACTORS` Rhai actors from
//! their `deploy()`, and the measurement of the sealing of that one block against a baseline.
//!
//! The bench that includes it also includes the shared test and bench support as `common`
//! (`#[path = "../tests/common/mod.rs"] mod common;`).

use crate::common;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Block, Chain, Genesis, GenesisAccount};
use cowboy_devnet::engine::{Address, SchedulerKind, TimerConfig, TimerEvent};
use criterion::{BatchSize, Criterion};
use std::time::Duration;

pub const ACTORS: u64 = 10;
pub const TIMERS_PER_ACTOR: u64 = 1_000;
pub const FIRES: u64 = ACTORS * TIMERS_PER_ACTOR;
pub const DUE_HEIGHT: u64 = 3;

/// An actor script whose `deploy()` schedules `TIMERS_PER_ACTOR` timers at `DUE_HEIGHT` with
/// `gas_limit` and no fee parameters, and whose `handle_timer` does nothing.
pub fn timer_script(gas_limit: u64) -> String {
    format!(
        r#"
const DUE = {DUE_HEIGHT};
const TIMERS = {TIMERS_PER_ACTOR};

fn deploy() {{
    for i in 0..global::TIMERS {{
        schedule_timer_ex(global::DUE, "", #{{ gas_limit: {gas_limit} }});
    }}
}}

fn handle_timer(payload) {{}}
"#
    )
}

/// A chain under `scheduler` at height `DUE_HEIGHT - 1`, its lane holding all `FIRES`
/// reservations of `gas_limit`, with `ACTORS` actors running `source` (which schedules the
/// timers with that `gas_limit` from `deploy()`, see [`timer_script`]).
pub fn prepared(scheduler: SchedulerKind, gas_limit: u64, source: &str) -> Chain {
    let owner = Address::from_label("owner");
    let genesis = Genesis {
        scheduler,
        timer: TimerConfig {
            max_cells_per_fire: 1_000,
            lane_timer_cycles: 2 * FIRES * gas_limit,
            ..TimerConfig::default()
        },
        accounts: vec![GenesisAccount {
            address: owner,
            balance: 1 << 100,
        }],
        ..Genesis::default()
    };
    let mut chain = common::chain_with(genesis);
    for i in 0..ACTORS {
        let address = Address::from_label(&format!("bench-actor-{i}"));
        let code = ActorCode::rhai("bench.rhai", source);
        let r = common::deploy_endowed(&mut chain, owner, address, code, 1_000_000_000);
        assert_eq!(r.timers.len() as u64, TIMERS_PER_ACTOR);
    }
    common::seal_until(&mut chain, DUE_HEIGHT);
    chain
}

/// The timer events of `block` that `f` accepts.
pub fn count_timer_events(block: &Block, f: &dyn Fn(&TimerEvent) -> bool) -> u64 {
    common::timer_events(block)
        .into_iter()
        .filter(|e| f(e))
        .count() as u64
}

/// Seals the due block once and checks that all `FIRES` timers fired successfully; returns the
/// block for further checks.
pub fn check_all_fired(chain: &mut Chain) -> &Block {
    let block = chain.seal_block();
    let ok = count_timer_events(block, &|e| {
        matches!(e, TimerEvent::TimerFired { success: true, .. })
    });
    assert_eq!(ok, FIRES, "every due timer must fire in the measured block");
    block
}

/// Measures the sealing of the due block of `baseline` and of `measured` (each a
/// `(name, chain)`), in group `group`, from a fresh clone each time.
pub fn bench_seal(
    c: &mut Criterion,
    group: &str,
    baseline: (&str, &Chain),
    measured: (&str, &Chain),
) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, chain) in [baseline, measured] {
        g.bench_function(name, |b| {
            b.iter_batched(
                || chain.clone(),
                |mut chain| {
                    chain.seal_block();
                    chain
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}
