//! Script overhead per timer fire: one block with 10,000 due timers whose `handle_timer` is a
//! no-op Rhai script, against the same block with the no-code runtime (`ActorCode::none()`,
//! the baseline) in the same run. Only the sealing of that block is measured.
//!
//! Setup: 10 Rhai actors each schedule 1,000 timers for one height from `deploy()` through
//! `schedule_timer_ex` with `gas_limit: 2_000` (the 1,000 base cycles of a fire and the no-op handler); the genesis
//! lane (`lane_timer_cycles`) holds all 10,000 reservations. The baseline is a clone of the same
//! prepared chain with every actor's code replaced by `ActorCode::none()`.
//!
//! Run: `cargo bench --bench script_overhead`. Target: ≤ 5 µs of script overhead per fire.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "support/fires.rs"]
mod fires;

use cowboy_devnet::chain::Chain;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::engine::{Address, SchedulerKind};
use criterion::{Criterion, criterion_group, criterion_main};
use fires::{bench_seal, check_all_fired, prepared, timer_script};

/// `gas_limit` of every timer: the 1,000 base cycles every fire pays (Spec note 17) and the no-op
/// handler.
const GAS_LIMIT: u64 = 2_000;

/// The same chain with every actor's code replaced by no code (a no-op `handle_timer`).
fn codeless(chain: &Chain) -> Chain {
    let mut c = chain.clone();
    let actors: Vec<Address> = c.actors().keys().copied().collect();
    for a in &actors {
        assert!(c.test_hook_replace_code(a, ActorCode::none()));
    }
    c
}

fn script_overhead(c: &mut Criterion) {
    let rhai = prepared(SchedulerKind::Fifo, GAS_LIMIT, &timer_script(GAS_LIMIT));
    let none = codeless(&rhai);
    check_all_fired(&mut rhai.clone());
    check_all_fired(&mut none.clone());
    bench_seal(
        c,
        "seal_block_10k_fires",
        ("no_code_baseline", &none),
        ("rhai_noop", &rhai),
    );
}

criterion_group!(benches, script_overhead);
criterion_main!(benches);
