//! CIP-1 v1 as a policy (`--scheduler cip1-v1`, issue 21 §1; `cip1-v1-calendar-queue-gba.md`
//! §3–§5): order by effective tip, ties by weight then id (§3 "Deliver Timers" d, "Priority
//! Weight" d(i)); the lane as the budget (§3 "Execute Prioritized Timers", §5); first-price
//! payment by the owner and `underfunded` deferral (§4.1); `below_basefee`; the EMA weight
//! (§3 "Priority Weight" a–c); `[cip1_v1]`; and a property test of the invariants (every timer
//! leaves by exactly one path, balances + burned = supply, the lane never exceeded).

mod common;

use common::*;
use cowboy_devnet::chain::{Block, Chain, Event};
use cowboy_devnet::engine::scheduler::PRICE_SCALE;
use cowboy_devnet::engine::{
    Address, DeferReason, ErrorKind, ScheduleArgs, SchedulerKind, TimerEvent, TimerId,
};
use cowboy_devnet::scenario::{LoadedFixture, RunOptions, Scenario, builtin};
use cowboy_devnet::vm::DevnetRuntime;
use proptest::prelude::*;
use std::collections::BTreeMap;

const S: u128 = PRICE_SCALE;
const GAS: u64 = 250_000;
const LANE: u64 = 2_000_000;

/// A timer at `height` with budget `GAS` bidding `tip` (max fee 10 S: far above the basefee).
fn bid(height: u64, tip: u128) -> ScheduleArgs {
    ScheduleArgs {
        height,
        gas_limit: Some(GAS),
        max_fee_per_cycle: Some(10 * S),
        max_priority_fee_per_cycle: Some(tip),
        ..ScheduleArgs::default()
    }
}

fn deferred(b: &Block) -> Vec<(TimerId, DeferReason)> {
    timer_events(b)
        .into_iter()
        .filter_map(|e| match e {
            TimerEvent::TimerDeferred {
                timer_id, reason, ..
            } => Some((*timer_id, *reason)),
            _ => None,
        })
        .collect()
}

fn weights(b: &Block) -> BTreeMap<Address, (u32, u32, Option<u32>)> {
    timer_events(b)
        .into_iter()
        .filter_map(|e| match e {
            TimerEvent::WeightUpdated {
                actor,
                old_bps,
                new_bps,
                score_bps,
            } => Some((*actor, (*old_bps, *new_bps, *score_bps))),
            _ => None,
        })
        .collect()
}

#[test]
fn cip1_v1_3_due_timers_fire_by_effective_tip_and_losers_are_carried_for_budget() {
    let mut c = v1_chain();
    let h = c.pending_height() + 1;
    let tips = [5u128, 9, 1, 7, 3, 8, 2, 6, 4, 10];
    let ids: Vec<TimerId> = tips
        .iter()
        .map(|t| schedule(&mut c, actor_a(), bid(h, t * S / 100)))
        .collect();
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    let mut want: Vec<(u128, TimerId)> = tips.iter().copied().zip(ids.clone()).collect();
    want.sort_by_key(|w| std::cmp::Reverse(w.0));
    // §5 "Bounded Execution": 8 × 250,000 fill the 2,000,000-cycle lane exactly.
    let order: Vec<TimerId> = want.iter().take(8).map(|w| w.1).collect();
    assert_eq!(fired(&b), order);
    assert!(b.lane.reserved <= LANE);
    let mut losers: Vec<(TimerId, DeferReason)> = want[8..]
        .iter()
        .map(|w| (w.1, DeferReason::Budget))
        .collect();
    losers.sort();
    let mut got = deferred(&b);
    got.sort();
    assert_eq!(got, losers);
    // §5 "Best-Effort Delivery": carried to the next block, where they fire.
    let b = c.seal_block().clone();
    assert_eq!(fired(&b).len(), 2);
    // Every due timer's bid is an event (§3 c).
    assert!(timer_events(&b).iter().any(|e| matches!(
        e,
        TimerEvent::TimerBid { max_fee_per_cycle, .. } if *max_fee_per_cycle == 10 * S
    )));
}

#[test]
fn cip1_v1_3_equal_tips_break_by_the_owners_weight() {
    let mut c = v1_chain();
    let h = c.pending_height() + 1;
    // Block h: a alone fires once: its weight moves below 1.0 (it consumed, did not wait).
    schedule(&mut c, actor_a(), bid(h, S / 100));
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    // S = tip 2,500 (the only firer, r = 1) + outcome 0 + lateness 0 + consumption
    // 5,000 × (2,000,000 − 250,000) / 2,000,000 = 4,375 → 6,875; w' = 0.8 × 10,000 + 0.2 × 6,875.
    assert_eq!(
        weights(&b)[&actor_a()],
        (10_000, 9_375, Some(6_875)),
        "the EMA w' = (1 − λ)·w + λ·S"
    );
    // Block h + 1: three timers each, equal tips: b (weight 1.0) before a (0.9375), whatever
    // their ids.
    let a: Vec<TimerId> = (0..3)
        .map(|_| schedule(&mut c, actor_a(), bid(h + 2, S / 100)))
        .collect();
    let bb: Vec<TimerId> = (0..3)
        .map(|_| schedule(&mut c, actor_b(), bid(h + 2, S / 100)))
        .collect();
    c.seal_block();
    let b = c.seal_block().clone();
    let order = fired(&b);
    let mut want_b = bb.clone();
    want_b.sort();
    let mut want_a = a.clone();
    want_a.sort();
    assert_eq!(order, [want_b, want_a].concat(), "weight desc, then id asc");
}

#[test]
fn cip1_v1_4_1_the_owner_pays_first_price_and_an_owner_who_cannot_pay_waits() {
    let mut c = v1_chain();
    let h = c.pending_height() + 1;
    c.set_balance(&actor_b(), 1_000);
    let poor = schedule(&mut c, actor_b(), bid(h, S / 100));
    let rich = schedule(&mut c, actor_a(), bid(h, S / 100));
    seal_until(&mut c, h);
    let before = c.balance(&actor_a());
    let b = c.seal_block().clone();
    assert_eq!(fired(&b), vec![rich]);
    assert_eq!(deferred(&b), vec![(poor, DeferReason::Underfunded)]);
    assert!(
        c.timer(&poor).is_some(),
        "deferred, not destroyed (against CIP-5 §5.4)"
    );
    // First price: the owner paid its own tip on the cycles it used.
    let TimerEvent::TimerFired {
        cost,
        tip,
        cycles_used,
        ..
    } = find_fired(&b, rich)
    else {
        unreachable!()
    };
    assert_eq!(before - c.balance(&actor_a()), cost);
    assert_eq!(tip, cycles_used as u128 * (S / 100) / S);
    // Funded, it fires at the next block.
    c.set_balance(&actor_b(), RICH);
    let b = c.seal_block().clone();
    assert_eq!(fired(&b), vec![poor]);
    assert_conserved(&c);
    // No fee payer in v1: one other than the owner is refused.
    let r = try_schedule(
        &mut c,
        actor_a(),
        ScheduleArgs {
            fee_payer: Some(alice()),
            ..bid(h + 9, S / 100)
        },
    );
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput);
}

#[test]
fn cip1_v1_3_a_max_fee_below_the_basefee_is_deferred_below_basefee() {
    let mut c = v1_chain();
    let h = c.pending_height() + 1;
    let low = schedule(
        &mut c,
        actor_a(),
        ScheduleArgs {
            max_fee_per_cycle: Some(S / 2),
            ..bid(h, 0)
        },
    );
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    assert_eq!(deferred(&b), vec![(low, DeferReason::BelowBasefee)]);
    assert!(c.timer(&low).is_some());
}

#[test]
fn cip1_v1_3_weights_move_by_the_score_rise_while_waiting_and_decay_to_one() {
    let mut c = v1_chain();
    let h = c.pending_height() + 1;
    // a fills the lane; b's one timer bids below the basefee and waits: b is starved.
    for _ in 0..8 {
        schedule(&mut c, actor_a(), bid(h, S / 10));
    }
    let starved = schedule(
        &mut c,
        actor_b(),
        ScheduleArgs {
            max_fee_per_cycle: Some(S / 2),
            expires_at: Some(h + 2),
            ..bid(h, 0)
        },
    );
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    let w = weights(&b);
    let v1 = |c: &Chain, a: Address| {
        let cip1 = c.engine().policies().lane_state();
        cip1.v1.weight_bps(&a, &cip1.v1_config())
    };
    // b: S = tip 0 + outcome 5,000 + lateness 0 + consumption 5,000 = 10,000: w stays 1.0.
    assert_eq!(v1(&c, actor_b()), 10_000);
    assert!(!w.contains_key(&actor_b()));
    assert!(deferred(&b).contains(&(starved, DeferReason::BelowBasefee)));
    // a: S = tip 2,500 + 0 + 0 + consumption 0 (it took the whole lane): 0.8 + 0.05.
    assert_eq!(w[&actor_a()], (10_000, 8_500, Some(2_500)));
    // b waits another block: lateness 1 adds 500 to S, so its weight rises above 1.0.
    let b = c.seal_block().clone();
    let (old, new, _) = weights(&b)[&actor_b()];
    assert_eq!((old, new), (10_000, 10_100));
    // b's timer expires after h + 2; then both are inactive and decay back to 1.0.
    let mut n = 0;
    while !c.engine().policies().lane_state().v1.weights.is_empty() {
        c.seal_block();
        n += 1;
        assert!(n < 200, "the weights decay to 1.0 and leave the map");
    }
    assert_eq!(
        c.engine()
            .policies()
            .lane_state()
            .v1
            .weight_bps(&actor_a(), &c.engine().policies().lane_state().v1_config()),
        10_000
    );
}

#[test]
fn cip1_v1_the_cip1_v1_table_sets_the_parameters() {
    let toml = r#"
name = "v1 params"
blocks = 3

[chain]
scheduler = "cip1-v1"

[cip1_v1]
lambda_bps = 5000
weight_max_bps = 30000
"#;
    let lf = LoadedFixture::parse("t.toml", toml.to_string()).expect("parses");
    let sc =
        Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader).expect("prepares");
    let (_, node) = sc
        .run_devnet(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |_, _| {},
        )
        .expect("runs");
    let cip1 = node.chain().engine().policies().lane_state();
    assert_eq!(node.chain().scheduler_at(2), SchedulerKind::Cip1V1);
    assert_eq!(
        (cip1.v1_config().lambda_bps, cip1.v1_config().weight_max_bps),
        (5_000, 30_000)
    );
    let bad = toml.replace("lambda_bps = 5000", "lambda_bps = 0");
    let lf = LoadedFixture::parse("t.toml", bad).expect("parses");
    let e = Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader)
        .err()
        .expect("refused");
    assert!(e.to_string().contains("lambda_bps"), "{e}");
}

// ---- property: the invariants hold under cip1-v1 ------------------------------------------------

#[derive(Clone, Debug)]
struct Sched {
    actor_b: bool,
    delta: u64,
    gas: u64,
    tip: u128,
    ttl: u64,
    poor: bool,
}

fn sched() -> impl Strategy<Value = Sched> {
    (
        any::<bool>(),
        1..6u64,
        prop_oneof![Just(20_000u64), Just(250_000), Just(550_000)],
        0..20u128,
        1..12u64,
        prop::bool::weighted(0.2),
    )
        .prop_map(|(actor_b, delta, gas, tip, ttl, poor)| Sched {
            actor_b,
            delta,
            gas,
            tip,
            ttl,
            poor,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every timer leaves by exactly one path, balances + burned = supply at every block, and
    /// the lane (§5 `TIMER_PROCESSING_BUDGET_CYCLES`) is never exceeded.
    #[test]
    fn cip1_v1_5_random_schedules_keep_exit_funds_and_lane_invariants(
        blocks in prop::collection::vec(prop::collection::vec(sched(), 0..8), 1..12)
    ) {
        let mut c = v1_chain();
        let mut exits: BTreeMap<TimerId, u32> = BTreeMap::new();
        let check = |b: &Block, exits: &mut BTreeMap<TimerId, u32>| {
            assert!(b.lane.reserved <= LANE && b.eob.lane_used <= LANE);
            for r in &b.events {
                if let Event::Timer(e) = &r.event
                    && matches!(
                        e,
                        TimerEvent::TimerFired { .. }
                            | TimerEvent::TimerExpired { .. }
                            | TimerEvent::TimerCancelledInsufficientFunds { .. }
                    )
                {
                    *exits.entry(e.timer_id().unwrap()).or_default() += 1;
                }
            }
        };
        for ops in &blocks {
            let h = c.pending_height();
            for s in ops {
                let actor = if s.actor_b { actor_b() } else { actor_a() };
                if s.poor {
                    c.set_balance(&actor, 10_000);
                } else if c.balance(&actor) < RICH / 2 {
                    c.set_balance(&actor, RICH);
                }
                let a = ScheduleArgs {
                    height: h + s.delta,
                    gas_limit: Some(s.gas),
                    expires_at: Some(h + s.delta + s.ttl),
                    max_fee_per_cycle: Some(2 * S),
                    max_priority_fee_per_cycle: Some(s.tip * S / 100),
                    ..ScheduleArgs::default()
                };
                let r = try_schedule(&mut c, actor, a);
                if r.success {
                    exits.insert(r.timers[0], 0);
                }
            }
            let b = c.seal_block().clone();
            check(&b, &mut exits);
            assert_conserved(&c);
        }
        let mut n = 0;
        while !c.engine().queue().is_empty() {
            let b = c.seal_block().clone();
            check(&b, &mut exits);
            assert_conserved(&c);
            n += 1;
            prop_assert!(n < 100, "the queue drains (every timer has a TTL)");
        }
        for (id, k) in &exits {
            prop_assert_eq!(*k, 1, "{:?} leaves by exactly one path", id);
        }
    }
}
