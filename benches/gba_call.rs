//! Custom GBA cost per timer fire (CIP-1 v3 §7.2): one eip1559 block with 10,000 due timers
//! priced by their actors' Rhai `get_gas_bid(ctx)` (the default GBA's two lines, written as a
//! script), against the same block priced by the built-in default GBA (§7.1, the baseline: the
//! same scripts without `get_gas_bid`) in the same run. Only the sealing of that block is
//! measured, as in `benches/script_overhead.rs`; the difference divided by 10,000 is the cost
//! of one custom GBA call over the default.
//!
//! Setup: 10 Rhai actors each schedule 1,000 timers for one height from `deploy()` with
//! `gas_limit: 2_000` (the 1,000 base cycles of a fire and the no-op handler) and no fee
//! parameters (so the GBA prices them); the lane (`lane_timer_cycles`) holds all 10,000
//! reservations.
//!
//! Run: `cargo bench --bench gba_call`. Target: ≤ 5 µs per fire over the default GBA.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "support/fires.rs"]
mod fires;

use cowboy_devnet::chain::Chain;
use cowboy_devnet::engine::{SchedulerKind, TimerEvent};
use criterion::{Criterion, criterion_group, criterion_main};
use fires::{bench_seal, check_all_fired, count_timer_events, prepared, timer_script};

/// `gas_limit` of every timer: the 1,000 base cycles of a fire and the no-op handler.
const GAS_LIMIT: u64 = 2_000;

/// The default GBA (§7.1) as a custom one.
const GBA: &str = r#"
fn get_gas_bid(ctx) {
    #{
        max_fee_per_cycle: ctx.basefee_lane_timer * 2,
        max_priority_fee_per_cycle: ctx.previous_block_p50_priority_tip_per_cycle
    }
}
"#;

/// Seals the due block once and checks that every timer fired, with no GBA fallback.
fn check(mut chain: Chain) {
    let block = check_all_fired(&mut chain);
    assert_eq!(
        count_timer_events(block, &|e| matches!(e, TimerEvent::GbaFallback { .. })),
        0
    );
}

fn gba_call(c: &mut Criterion) {
    let handlers = timer_script(GAS_LIMIT);
    let custom = prepared(
        SchedulerKind::Eip1559,
        GAS_LIMIT,
        &format!("{handlers}{GBA}"),
    );
    let default = prepared(SchedulerKind::Eip1559, GAS_LIMIT, &handlers);
    check(custom.clone());
    check(default.clone());
    bench_seal(
        c,
        "seal_block_10k_fires_eip1559",
        ("default_gba_baseline", &default),
        ("custom_gba_rhai", &custom),
    );
}

criterion_group!(benches, gba_call);
criterion_main!(benches);
