//! Issue 21 §3: CIP-1 v3's governance-tunable parameters on a running chain — the priority-tier
//! multipliers (§7.3), the fairness window (§8) and the auction per-fire cap (§10) — set by
//! `SYS_UPDATE_SCHEDULER_CONFIG` (51) from a system deployer, effective from the next block,
//! each change an event; refused changes change nothing.

mod common;

use common::*;
use cowboy_devnet::chain::{Chain, Genesis, SystemInstruction};
use cowboy_devnet::engine::scheduler::PRICE_SCALE;
use cowboy_devnet::engine::{
    ErrorKind, EventKind, PriorityTier, ScheduleArgs, SchedulerKind, SchedulerParams, TimerEvent,
    TimerId,
};
use cowboy_devnet::scenario::{LoadedFixture, RunOptions, Scenario, builtin};
use cowboy_devnet::vm::DevnetRuntime;

const S: u128 = PRICE_SCALE;

fn eip_chain() -> Chain {
    let mut c = chain_with_actors(Genesis {
        scheduler: SchedulerKind::Eip1559,
        ..genesis()
    });
    for a in [actor_a(), actor_b()] {
        c.set_balance(&a, RICH);
    }
    c
}

fn params(c: &Chain) -> SchedulerParams {
    c.cip1_config().scheduler_params()
}

fn update(c: &mut Chain, from: cowboy_devnet::engine::Address, p: SchedulerParams) -> bool {
    system(
        c,
        from,
        SystemInstruction::UpdateSchedulerConfig {
            config: p,
            draft: None,
        },
    )
    .success
}

fn fee(height: u64, max_fee: u128, tip: u128) -> ScheduleArgs {
    ScheduleArgs {
        height,
        max_fee_per_cycle: Some(max_fee),
        max_priority_fee_per_cycle: Some(tip),
        ..ScheduleArgs::default()
    }
}

fn tip_of(b: &cowboy_devnet::chain::Block, id: TimerId) -> u128 {
    match find_fired(b, id) {
        TimerEvent::TimerFired { tip, .. } => tip,
        _ => unreachable!(),
    }
}

#[test]
fn cip1_v3_7_3_governance_sets_the_tier_multipliers_from_the_next_block() {
    let mut c = eip_chain();
    let h = c.pending_height() + 1;
    // A p50 tip of 2 S/100 at h, then a Fast timer at h + 1 and another at h + 2 (tips small
    // enough to stay under the default GBA's `max_fee − basefee`).
    for t in [S / 100, 3 * S / 100, 2 * S / 100] {
        schedule(&mut c, actor_a(), fee(h, 10 * S, t));
    }
    let tier = |h| ScheduleArgs {
        priority_tier: Some(PriorityTier::Fast),
        ..args(h)
    };
    let f1 = schedule(&mut c, actor_b(), tier(h + 1));
    seal_until(&mut c, h + 1);
    // In block h + 1, governance raises Fast to 2×: that block's Fast timer still pays 1.5 × p50.
    let mut p = params(&c);
    p.tier_fast_bps = 20_000;
    assert!(update(&mut c, gov(), p.clone()));
    let f2 = schedule(&mut c, actor_b(), tier(h + 2));
    let b1 = c.seal_block().clone();
    assert_eq!(b1.header.height, h + 1);
    let p50 = 2 * S / 100;
    assert_eq!(tip_of(&b1, f1), 1_000 * (p50 * 15_000 / 10_000) / S);
    assert!(
        timer_events(&b1).contains(&&TimerEvent::SchedulerConfigUpdated {
            config: p.clone(),
            draft: None
        })
    );
    assert_eq!(params(&c), p, "in force once the setting block is sealed");
    // From h + 2 on the new multiplier prices the tier (the p50 is now the Fast fire's tip).
    let p50 = p50 * 15_000 / 10_000;
    let b2 = c.seal_block().clone();
    assert_eq!(tip_of(&b2, f2), 1_000 * (p50 * 20_000 / 10_000) / S);
}

#[test]
fn cip1_v3_8_governance_shortens_the_fairness_window() {
    let mut c = eip_chain();
    let h = c.pending_height() + 1;
    schedule(&mut c, actor_a(), fee(h, 10 * S, S));
    seal_until(&mut c, h);
    for _ in 0..3 {
        c.seal_block();
    }
    assert_eq!(
        c.fairness().recent_fires(&actor_a()),
        1,
        "in the 1,000-block window"
    );
    let mut p = params(&c);
    p.fairness_window_blocks = 2;
    assert!(update(&mut c, gov(), p));
    c.seal_block();
    assert_eq!(c.fairness().window_blocks(), 2);
    assert_eq!(
        c.fairness().recent_fires(&actor_a()),
        0,
        "the fire at h is outside the last 2 blocks"
    );
    assert!(c.fairness().rows().is_empty());
}

#[test]
fn cip1_v3_10_governance_lowers_the_auction_cap_from_the_next_block() {
    let mut c = eip_chain();
    let h = c.pending_height() + 10;
    let mut p = params(&c);
    p.max_cycles_per_fire_auction = 100_000;
    assert!(update(&mut c, gov(), p));
    // The same block still admits 250,000 (the block read its parameters at its start).
    let r = try_schedule(&mut c, actor_a(), args_gas(h, 200_000));
    assert!(r.success, "{:?}", r.error);
    c.seal_block();
    let r = try_schedule(&mut c, actor_a(), args_gas(h, 200_000));
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput);
    assert!(r.error.unwrap().message.contains("100000"));
    // The default budget follows the cap.
    let id = schedule(&mut c, actor_a(), args(h));
    assert_eq!(c.timer(&id).expect("live").gas_limit_per_fire, 100_000);
}

#[test]
fn cip1_v3_7_3_refused_changes_change_nothing() {
    let mut c = eip_chain();
    c.seal_block();
    let before = (params(&c), c.state_root());
    let mut bad = params(&c);
    bad.tier_fast_bps = 0;
    let r = system(
        &mut c,
        gov(),
        SystemInstruction::UpdateSchedulerConfig {
            config: bad,
            draft: None,
        },
    );
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput);
    let mut unordered = params(&c);
    unordered.tier_economy_bps = 30_000;
    assert!(!update(&mut c, gov(), unordered));
    let mut zero_window = params(&c);
    zero_window.fairness_window_blocks = 0;
    assert!(!update(&mut c, gov(), zero_window));
    let mut fine = params(&c);
    fine.tier_urgent_bps = 40_000;
    let r = system(
        &mut c,
        alice(),
        SystemInstruction::UpdateSchedulerConfig {
            config: fine,
            draft: None,
        },
    );
    assert_eq!(err_kind(&r), ErrorKind::Unauthorized);
    let b = c.seal_block().clone();
    assert!(
        !timer_events(&b)
            .iter()
            .any(|e| e.kind() == EventKind::SchedulerConfigUpdated)
    );
    assert_eq!(params(&c), before.0);
}

#[test]
fn cip1_v3_8_a_fixture_step_governs_the_scheduler() {
    let toml = r#"
name = "scheduler governance"
blocks = 4

[chain]
scheduler = "eip1559"

[[steps]]
at = 2
action = "gov_config"
set = { fairness_window_blocks = 7, tier_fast_bps = 20000 }

[[steps]]
at = 3
action = "gov_config"
set = { tier_fast_bps = 0 }
expect_error = "InvalidInput"

[[expect]]
kind = "SchedulerConfigUpdated"
count = 1
"#;
    let lf = LoadedFixture::parse("t.toml", toml.to_string()).expect("parses");
    let sc =
        Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader).expect("prepares");
    let (report, node) = sc
        .run_devnet(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |_, _| {},
        )
        .expect("runs");
    assert!(report.passed(), "{report:?}");
    let p = node.chain().cip1_config().scheduler_params();
    assert_eq!((p.fairness_window_blocks, p.tier_fast_bps), (7, 20_000));
    // One step sets one of the two configs: a mixed one is refused when the fixture is checked.
    let mixed = toml.replace(
        "tier_fast_bps = 0 }",
        "tier_fast_bps = 2, max_ttl_blocks = 5 }",
    );
    let lf = LoadedFixture::parse("t.toml", mixed).expect("parses");
    let e = Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader)
        .err()
        .expect("refused");
    assert!(e.to_string().contains("not both"), "{e}");
}
