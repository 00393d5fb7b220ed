//! Behaviour tests for CIP-5 (timers, FIFO, fee payer), one per rule, named after the section.

mod common;

use common::*;
use cowboy_devnet::chain::{Event, EventRecord, Genesis, Phase, SystemInstruction, TxKind};
use cowboy_devnet::engine::timer::handler_payload;
use cowboy_devnet::engine::{
    Address, DeferReason, ErrorKind, EventKind, Failure, ScheduleArgs, TimerConfig, TimerEvent,
    TimerId,
};

const MAX_TTL: u64 = 2_592_000;
const MAX_CYCLES: u64 = 550_000;
const MAX_CELLS: u128 = 550_000;

fn genesis_cfg(f: impl FnOnce(&mut TimerConfig)) -> Genesis {
    let mut g = genesis();
    f(&mut g.timer);
    g
}

/// Asserts that a schedule is rejected with `kind` and changes nothing (Spec note 156: the
/// devnet's act-as transactions run the host call's checks before inclusion, so a rejected
/// one takes no nonce and no fee; a script's own failing host call still reverts its whole
/// transaction, which is included and pays, CIP-5 §4.3: see `cip5_4_2_per_actor_cap`).
fn assert_schedule_rejected(
    c: &mut cowboy_devnet::chain::Chain,
    actor: Address,
    a: ScheduleArgs,
    kind: ErrorKind,
) {
    let pending = c.engine().queue().len();
    let actor_nonce = c.nonce(&actor);
    let sender_nonce = c.nonce(&alice());
    let sender_balance = c.balance(&alice());
    let root = c.state_root();
    let r = try_schedule(c, actor, a);
    assert_eq!(err_kind(&r), kind, "{:?}", r.error);
    assert!(r.timers.is_empty());
    assert_eq!(c.engine().queue().len(), pending, "no timer persisted");
    assert_eq!(c.nonce(&actor), actor_nonce, "actor nonce unchanged");
    assert_eq!(c.nonce(&alice()), sender_nonce, "refused: no nonce taken");
    assert_eq!((r.cycles_used, r.fee), (0, 0), "refused: nothing charged");
    assert_eq!(c.balance(&alice()), sender_balance);
    assert_eq!(c.state_root(), root, "refused: nothing changed");
}

// ---- §3.3 timer id -------------------------------------------------------------------------

#[test]
fn cip5_3_3_timer_id_is_keccak_of_actor_height_payload_actor_nonce() {
    let mut c = chain_with_actors(genesis());
    assert_eq!(c.nonce(&actor_a()), 0);
    let a = ScheduleArgs {
        height: 10,
        payload: b"p".to_vec(),
        ..ScheduleArgs::default()
    };
    let id0 = schedule(&mut c, actor_a(), a.clone());
    assert_eq!(id0, expected_id(&actor_a(), 10, b"p", 0));
    assert_eq!(
        c.nonce(&actor_a()),
        1,
        "the actor's nonce advances per schedule"
    );
    // The same call again: the actor's nonce, not the sender's, disambiguates.
    let id1 = schedule(&mut c, actor_a(), a);
    assert_eq!(id1, expected_id(&actor_a(), 10, b"p", 1));
    assert_ne!(id0, id1);
    assert_eq!(c.nonce(&actor_a()), 2);
    // A rejected schedule does not consume a nonce.
    assert_schedule_rejected(&mut c, actor_a(), args(1), ErrorKind::InvalidInput);
    let id2 = schedule(&mut c, actor_a(), args(11));
    assert_eq!(id2, expected_id(&actor_a(), 11, b"", 2));
}

#[test]
fn cip5_3_3_identical_schedules_in_one_tx_get_distinct_ids() {
    let mut c = chain_with_actors(genesis());
    let twice = Address::from_label("twice");
    deploy_native(
        &mut c,
        alice(),
        twice,
        r#"{"go": [{"op": "schedule", "delta": 5, "payload": "x", "gas_limit": 1000},
                   {"op": "schedule", "delta": 5, "payload": "x", "gas_limit": 1000}]}"#,
    );
    c.set_balance(&twice, 10_000_000);
    let h = c.pending_height();
    let r = call(&mut c, bob(), twice, "go");
    assert!(r.success, "{:?}", r.error);
    let want = vec![
        expected_id(&twice, h + 5, b"x", 0),
        expected_id(&twice, h + 5, b"x", 1),
    ];
    assert_eq!(r.timers, want);
    seal_until(&mut c, h + 5);
    let b = c.seal_block();
    assert_eq!(fired(b), want, "both fire, in scheduling order");
}

// ---- §4.2 constraints ----------------------------------------------------------------------

#[test]
fn cip5_4_2_height_must_be_strictly_future() {
    let mut c = chain_with_actors(genesis());
    let cur = c.pending_height();
    assert_eq!(cur, 2);
    assert_schedule_rejected(&mut c, actor_a(), args(cur), ErrorKind::InvalidInput);
    assert_schedule_rejected(&mut c, actor_a(), args(cur - 1), ErrorKind::InvalidInput);
    assert_schedule_rejected(&mut c, actor_a(), args(0), ErrorKind::InvalidInput);
    let id = schedule(&mut c, actor_a(), args(cur + 1));
    assert_eq!(c.timer(&id).unwrap().height, cur + 1);
}

#[test]
fn cip5_4_2_expires_at_bounds() {
    let mut c = chain_with_actors(genesis());
    let cur = c.pending_height();
    let with_exp = |height, exp| ScheduleArgs {
        height,
        expires_at: Some(exp),
        ..ScheduleArgs::default()
    };
    // Below the timer's height: it could only expire.
    assert_schedule_rejected(&mut c, actor_a(), with_exp(10, 9), ErrorKind::InvalidInput);
    // Equal to the height: accepted.
    let id = schedule(&mut c, actor_a(), with_exp(10, 10));
    assert_eq!(c.timer(&id).unwrap().expires_at, 10);
    // Up to current + max_ttl_blocks, not one more.
    let id = schedule(&mut c, actor_a(), with_exp(10, cur + MAX_TTL));
    assert_eq!(c.timer(&id).unwrap().expires_at, cur + MAX_TTL);
    assert_schedule_rejected(
        &mut c,
        actor_a(),
        with_exp(10, cur + MAX_TTL + 1),
        ErrorKind::InvalidInput,
    );
    // Default: current + max_ttl_blocks.
    let id = schedule(&mut c, actor_a(), args(12));
    assert_eq!(c.timer(&id).unwrap().expires_at, cur + MAX_TTL);
    // A height past the TTL cap can have no valid expires_at.
    assert_schedule_rejected(
        &mut c,
        actor_a(),
        args(cur + MAX_TTL + 1),
        ErrorKind::InvalidInput,
    );
    let id = schedule(&mut c, actor_a(), args(cur + MAX_TTL));
    assert_eq!(c.timer(&id).unwrap().height, cur + MAX_TTL);
}

#[test]
fn cip5_4_2_payload_at_most_1_mib() {
    let mut c = chain_with_actors(genesis());
    let ok = ScheduleArgs {
        height: 5,
        payload: vec![7u8; 1_048_576],
        ..ScheduleArgs::default()
    };
    let r = try_schedule(&mut c, actor_a(), ok);
    assert!(r.success, "{:?}", r.error);
    assert_eq!(r.cells_used, 1_048_576);
    assert_eq!(r.fee, 1_200 + 1_048_576);
    let big = ScheduleArgs {
        height: 5,
        payload: vec![7u8; 1_048_577],
        ..ScheduleArgs::default()
    };
    assert_schedule_rejected(&mut c, actor_a(), big, ErrorKind::InvalidInput);
}

#[test]
fn cip5_4_2_handler_name_at_most_256_bytes() {
    let mut c = chain_with_actors(genesis());
    let named = |n: usize| ScheduleArgs {
        height: 5,
        payload: handler_payload(&"h".repeat(n), b"inner"),
        ..ScheduleArgs::default()
    };
    let id = schedule(&mut c, actor_a(), named(256));
    let t = c.timer(&id).unwrap();
    assert_eq!(t.handler().name(), "h".repeat(256));
    assert_eq!(t.delivered_payload(), b"inner");
    assert_schedule_rejected(&mut c, actor_a(), named(257), ErrorKind::InvalidInput);
}

#[test]
fn cip5_4_2_fee_payer_must_be_actor_or_sender() {
    let mut c = chain_with_actors(genesis());
    let payer = |p: Address| ScheduleArgs {
        height: 5,
        fee_payer: Some(p),
        ..ScheduleArgs::default()
    };
    for bad in [
        Address::ZERO,
        Address::from_low_u64(0x01),
        Address::from_low_u64(0x09),
        Address::from_low_u64(0x0F),
        Address::from_low_u64(0x10), // outside the band, but a third party
        bob(),
        actor_b(),
    ] {
        assert_schedule_rejected(&mut c, actor_a(), payer(bad), ErrorKind::InvalidInput);
    }
    // The actor itself, explicitly or by default, and the tx sender are accepted.
    let id = schedule(&mut c, actor_a(), payer(actor_a()));
    assert_eq!(c.timer(&id).unwrap().fee_payer, actor_a());
    let id = schedule(&mut c, actor_a(), args(5));
    assert_eq!(c.timer(&id).unwrap().fee_payer, actor_a());
    let id = schedule(&mut c, actor_a(), payer(alice()));
    assert_eq!(c.timer(&id).unwrap().fee_payer, alice());
}

#[test]
fn cip5_4_2_gas_limit_within_1_and_max_cycles_per_fire() {
    let mut c = chain_with_actors(genesis());
    assert_schedule_rejected(&mut c, actor_a(), args_gas(5, 0), ErrorKind::InvalidInput);
    assert_schedule_rejected(
        &mut c,
        actor_a(),
        args_gas(5, MAX_CYCLES + 1),
        ErrorKind::InvalidInput,
    );
    let id = schedule(&mut c, actor_a(), args_gas(5, 1));
    assert_eq!(c.timer(&id).unwrap().gas_limit_per_fire, 1);
    let id = schedule(&mut c, actor_a(), args_gas(5, MAX_CYCLES));
    assert_eq!(c.timer(&id).unwrap().gas_limit_per_fire, MAX_CYCLES);
    let id = schedule(&mut c, actor_a(), args(5));
    assert_eq!(
        c.timer(&id).unwrap().gas_limit_per_fire,
        MAX_CYCLES,
        "default gas_limit is max_cycles_per_fire"
    );
}

#[test]
fn cip5_4_2_per_actor_cap() {
    let mut c = chain_with_actors(genesis_cfg(|t| t.max_timers_per_actor = 2));
    let t1 = schedule(&mut c, actor_a(), args(5));
    let _t2 = schedule(&mut c, actor_a(), args(6));
    assert_eq!(c.engine().queue().actor_count(&actor_a()), 2);
    assert_schedule_rejected(&mut c, actor_a(), args(7), ErrorKind::TimerCapExceeded);
    // Another actor has its own count.
    schedule(&mut c, actor_b(), args(7));
    // Cancelling frees a place, even within the same block.
    assert!(cancel(&mut c, actor_a(), t1).success);
    assert_eq!(c.engine().queue().actor_count(&actor_a()), 1);
    schedule(&mut c, actor_a(), args(7));
    assert_schedule_rejected(&mut c, actor_a(), args(8), ErrorKind::TimerCapExceeded);
}

#[test]
fn cip5_4_2_per_actor_cap_counts_schedules_of_the_same_tx() {
    let mut c = chain_with_actors(genesis_cfg(|t| t.max_timers_per_actor = 2));
    let three = Address::from_label("three");
    deploy_native(
        &mut c,
        alice(),
        three,
        r#"{"go": [{"op": "schedule", "delta": 3}, {"op": "schedule", "delta": 4},
                   {"op": "schedule", "delta": 5}]}"#,
    );
    let r = call(&mut c, alice(), three, "go");
    assert_eq!(err_kind(&r), ErrorKind::TimerCapExceeded);
    assert_eq!(
        c.engine().queue().actor_count(&three),
        0,
        "the whole tx reverted"
    );
}

#[test]
fn cip5_4_2_cancel_and_extend_are_owner_only() {
    let mut c = chain_with_actors(genesis());
    let id = schedule(&mut c, actor_a(), args(20));
    let exp = c.timer(&id).unwrap().expires_at;
    let r = cancel(&mut c, actor_b(), id);
    assert_eq!(err_kind(&r), ErrorKind::Unauthorized);
    assert_eq!(
        r.cycles_used, 0,
        "refused before inclusion: nothing charged (Spec note 156)"
    );
    let r = extend(&mut c, actor_b(), id, 30);
    assert_eq!(err_kind(&r), ErrorKind::Unauthorized);
    assert!(c.timer(&id).is_some());
    assert_eq!(c.timer(&id).unwrap().expires_at, exp);
    // Unknown ids.
    let ghost = TimerId([0x42; 32]);
    assert_eq!(
        err_kind(&cancel(&mut c, actor_a(), ghost)),
        ErrorKind::TimerNotFound
    );
    assert_eq!(
        err_kind(&extend(&mut c, actor_a(), ghost, 30)),
        ErrorKind::TimerNotFound
    );
    // The owner may.
    let r = extend(&mut c, actor_a(), id, 30);
    assert!(r.success, "{:?}", r.error);
    assert_eq!(c.timer(&id).unwrap().expires_at, 30);
    let r = cancel(&mut c, actor_a(), id);
    assert!(r.success, "{:?}", r.error);
    assert!(c.timer(&id).is_none());
    assert_eq!(
        err_kind(&cancel(&mut c, actor_a(), id)),
        ErrorKind::TimerNotFound
    );
    let b = c.seal_block();
    let kinds: Vec<_> = timer_events(b).iter().map(|e| e.kind()).collect();
    assert_eq!(
        kinds,
        [
            EventKind::TimerScheduled,
            EventKind::TimerExtended,
            EventKind::TimerCancelled
        ]
    );
}

#[test]
fn cip5_4_2_actor_extend_must_be_future_and_is_clamped() {
    let mut c = chain_with_actors(genesis());
    let id = schedule(&mut c, actor_a(), args(20));
    let cur = c.pending_height();
    assert_eq!(
        err_kind(&extend(&mut c, actor_a(), id, cur)),
        ErrorKind::InvalidInput
    );
    assert!(extend(&mut c, actor_a(), id, u64::MAX).success);
    assert_eq!(c.timer(&id).unwrap().expires_at, cur + MAX_TTL);
    let b = c.seal_block();
    assert!(timer_events(b).iter().any(|e| matches!(
        e,
        TimerEvent::TimerExtended { timer_id, new_expires_at, .. }
            if *timer_id == id && *new_expires_at == cur + MAX_TTL
    )));
}

// ---- §4.3 side effects revert with the tx ----------------------------------------------------

#[test]
fn cip5_4_3_rejected_timer_call_reverts_the_whole_tx() {
    let mut c = chain_with_actors(genesis());
    let prog = Address::from_label("prog");
    deploy_native(
        &mut c,
        alice(),
        prog,
        r#"{"go": [{"op": "write", "key": "k", "bytes": 4},
                   {"op": "schedule", "delta": 3, "payload": "ok"},
                   {"op": "schedule", "delta": 0, "payload": "bad"}]}"#,
    );
    c.seal_block();
    let burned = c.burned();
    let bal = c.balance(&bob());
    let nonce = c.nonce(&bob());
    let r = call(&mut c, bob(), prog, "go");
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput);
    // 1,000 base + write 200 + 2 × (block_height 10 + schedule 200) cycles;
    // cells: "k" + 4 bytes, "ok", "bad".
    assert_eq!(r.cycles_used, 1_620);
    assert_eq!(r.cells_used, 10);
    assert_eq!(r.fee, 1_630);
    assert!(r.timers.is_empty());
    assert_eq!(c.balance(&bob()), bal - 1_630);
    assert_eq!(c.nonce(&bob()), nonce + 1);
    assert_eq!(c.burned(), burned + 1_630);
    assert!(c.engine().queue().is_empty(), "no timer persisted");
    assert!(
        c.actor(&prog).unwrap().storage.is_empty(),
        "no write persisted"
    );
    assert_eq!(c.nonce(&prog), 0, "the actor's nonce rolled back");
    let b = c.seal_block();
    assert!(timer_events(b).is_empty(), "no TimerScheduled event");
    assert_eq!(b.receipts.len(), 1, "but the tx is included");
}

// ---- §5.2 / open point 7: handler identity -------------------------------------------------

#[test]
fn cip5_5_2_handler_sender_is_the_actor_so_fee_payer_must_be_actor() {
    let mut c = chain_with_actors(genesis());
    let svc = Address::from_label("svc");
    deploy_native(
        &mut c,
        alice(),
        svc,
        r#"{"handle_timer": [{"op": "schedule", "delta": 2, "payload": "next", "fee_payer": "sender",
                              "gas_limit": 1000, "save_as": "n"}],
            "to_deployer": [{"op": "schedule", "delta": 2, "payload": "bad", "fee_payer": "deployer"}]}"#,
    );
    c.set_balance(&svc, 10_000_000);
    let h = c.pending_height() + 2;
    let t1 = schedule(&mut c, svc, args_gas(h, 10_000));
    let t2 = schedule(
        &mut c,
        svc,
        ScheduleArgs {
            height: h,
            payload: handler_payload("to_deployer", b""),
            gas_limit: Some(10_000),
            ..ScheduleArgs::default()
        },
    );
    // Deployer-funded from the deployer's own tx is fine (§4.2 / Appendix B).
    let deployer_paid = schedule(
        &mut c,
        svc,
        ScheduleArgs {
            height: h + 5,
            fee_payer: Some(alice()),
            ..ScheduleArgs::default()
        },
    );
    assert_eq!(c.timer(&deployer_paid).unwrap().fee_payer, alice());
    seal_until(&mut c, h);
    let nonce = c.nonce(&svc);
    let b = c.seal_block().clone();
    let TimerEvent::TimerFired { success, .. } = find_fired(&b, t1) else {
        unreachable!()
    };
    assert!(success);
    let next = expected_id(&svc, h + 2, b"next", nonce);
    let t = c.timer(&next).expect("rescheduled from the handler");
    assert_eq!(t.fee_payer, svc, "tx_sender inside a handler is the actor");
    assert_eq!(t.schedule_block, h);
    let TimerEvent::TimerFired { success, error, .. } = find_fired(&b, t2) else {
        unreachable!()
    };
    assert!(!success);
    assert_eq!(error.unwrap().kind, ErrorKind::InvalidInput);
    assert_eq!(
        c.engine().queue().actor_count(&svc),
        2,
        "next + deployer_paid"
    );
}

// ---- §5.3 same-block prohibition -------------------------------------------------------------

#[test]
fn cip5_5_3_timer_never_fires_in_the_block_that_scheduled_it() {
    let mut c = chain_with_actors(genesis());
    let loop_actor = Address::from_label("loop");
    let inner = r#"{\"_handler\":\"noop\",\"_payload\":\"\"}"#;
    deploy_native(
        &mut c,
        alice(),
        loop_actor,
        &format!(
            r#"{{"handle_timer": [{{"op": "schedule", "delta": 1, "payload": "{inner}", "gas_limit": 1000, "save_as": "n"}}],
                "noop": [],
                "zero": [{{"op": "schedule", "delta": 0, "payload": "z"}}]}}"#
        ),
    );
    c.set_balance(&loop_actor, 10_000_000);
    let h = c.pending_height() + 1;
    let first = schedule(&mut c, loop_actor, args_gas(h, 10_000));
    let zero = schedule(
        &mut c,
        loop_actor,
        ScheduleArgs {
            height: h,
            payload: handler_payload("zero", b""),
            gas_limit: Some(10_000),
            ..ScheduleArgs::default()
        },
    );
    // The scheduling block does not fire them.
    let b = c.seal_block();
    assert!(fired(b).is_empty());
    let b = c.seal_block().clone();
    assert_eq!(b.header.height, h);
    assert_eq!(fired(&b), vec![first, zero]);
    // `first` rescheduled at h + 1 from its handler: scheduled in block h, not fired in it.
    let next = TimerId(
        c.actor(&loop_actor).unwrap().storage[&b"n".to_vec()]
            .clone()
            .try_into()
            .unwrap(),
    );
    assert!(b.events.iter().any(|r| r.phase == Phase::Eob
        && r.event.kind() == EventKind::TimerScheduled
        && r.event.timer_id() == Some(next)));
    assert_eq!(c.timer(&next).unwrap().height, h + 1);
    // `zero` tried to schedule at the current height from its handler: InvalidInput.
    let TimerEvent::TimerFired { success, error, .. } = find_fired(&b, zero) else {
        unreachable!()
    };
    assert!(!success);
    assert_eq!(error.unwrap().kind, ErrorKind::InvalidInput);
    let b = c.seal_block();
    assert_eq!(fired(b), vec![next]);
}

// ---- §5.4 exit paths -------------------------------------------------------------------------

#[test]
fn cip5_5_4_ttl_expiry_is_destroyed_without_executing() {
    // A lane of 1,000,000 holds one 550,000 timer, so the second is deferred past its TTL.
    let mut c = chain_with_actors(genesis_cfg(|t| t.lane_timer_cycles = 1_000_000));
    c.set_balance(&actor_a(), 10_000_000);
    let h = 5;
    let a = schedule(
        &mut c,
        actor_a(),
        ScheduleArgs {
            height: h,
            expires_at: Some(h),
            ..ScheduleArgs::default()
        },
    );
    let b_id = schedule(
        &mut c,
        actor_a(),
        ScheduleArgs {
            height: h,
            expires_at: Some(h),
            ..ScheduleArgs::default()
        },
    );
    seal_until(&mut c, h);
    let b = c.seal_block();
    // expires_at == height is still within TTL: `a` fires.
    assert_eq!(fired(b), vec![a]);
    // Spec note 71: the deferral is recorded by the block that made it.
    assert_eq!(
        eob_kinds(b),
        vec![(EventKind::TimerDeferred, b_id), (EventKind::TimerFired, a)]
    );
    assert!(timer_events(b).contains(&&TimerEvent::TimerDeferred {
        timer_id: b_id,
        actor: actor_a(),
        height: h,
        reason: DeferReason::Lane,
        carried: 1,
    }));
    assert_eq!(b.eob.deferred, 1);
    let bal = c.balance(&actor_a());
    let burned = c.burned();
    let b = c.seal_block();
    assert_eq!(b.header.height, h + 1);
    assert_eq!(
        timer_events(b),
        vec![&TimerEvent::TimerExpired {
            timer_id: b_id,
            actor: actor_a(),
            expires_at: h,
            current_height: h + 1,
        }]
    );
    assert_eq!(b.eob.expired, 1);
    assert_eq!(b.eob.gc_cycles, 5_000);
    assert_eq!(b.eob.fired, 0);
    assert_eq!(
        c.balance(&actor_a()),
        bal,
        "expiry costs the fee payer nothing"
    );
    assert_eq!(c.burned(), burned);
    assert!(c.timer(&b_id).is_none());
}

#[test]
fn cip5_5_4_insufficient_funds_reports_required_and_available() {
    let mut c = chain_with_actors(genesis());
    let gas = 100_000;
    let max_cost = gas as u128 + MAX_CELLS; // 650,000 at basefees 1/1
    let h = 4;
    // actor_a: one short of max_cost. actor_b: exactly max_cost.
    c.set_balance(&actor_a(), max_cost - 1);
    c.set_balance(&actor_b(), max_cost);
    let short = schedule(&mut c, actor_a(), args_gas(h, gas));
    let exact = schedule(&mut c, actor_b(), args_gas(h, gas));
    seal_until(&mut c, h);
    let b = c.seal_block();
    assert_eq!(
        timer_events(b)[0],
        &TimerEvent::TimerCancelledInsufficientFunds {
            timer_id: short,
            actor: actor_a(),
            fee_payer: actor_a(),
            required: 650_000,
            available: 649_999,
        }
    );
    assert_eq!(fired(b), vec![exact], "balance == max_cost is enough");
    assert_eq!(b.eob.unfunded, 1);
    assert_eq!(b.eob.gc_cycles, 5_000);
    assert_eq!(c.balance(&actor_a()), max_cost - 1, "nothing debited");
    // A code-less handler uses only the fire's 1,000 base cycles (§6.3): the rest comes back.
    assert_eq!(c.balance(&actor_b()), max_cost - 1_000);
    assert!(c.timer(&short).is_none());
}

#[test]
fn cip5_5_4_precharges_accumulate_within_one_block() {
    let mut c = chain_with_actors(genesis());
    c.set_balance(&actor_a(), 1_299_999);
    let h = 4;
    let t1 = schedule(&mut c, actor_a(), args_gas(h, 100_000));
    let t2 = schedule(&mut c, actor_a(), args_gas(h, 100_000));
    seal_until(&mut c, h);
    let b = c.seal_block();
    // t1's 650,000 pre-charge is already taken when t2 is classified.
    assert_eq!(fired(b), vec![t1]);
    assert!(
        timer_events(b).contains(&&TimerEvent::TimerCancelledInsufficientFunds {
            timer_id: t2,
            actor: actor_a(),
            fee_payer: actor_a(),
            required: 650_000,
            available: 649_999,
        })
    );
    // t1 paid its 1,000 base cycles (§6.3); the rest of its pre-charge came back.
    assert_eq!(c.balance(&actor_a()), 1_299_999 - 1_000);
}

#[test]
fn cip5_5_4_classification_order_ttl_then_funds_then_lane() {
    let mut c = chain_with_actors(genesis_cfg(|t| t.lane_timer_cycles = 1_000_000));
    c.set_balance(&actor_a(), 100_000_000);
    let h = 5;
    let within = |gas| ScheduleArgs {
        height: h,
        gas_limit: Some(gas),
        expires_at: Some(h),
        ..ScheduleArgs::default()
    };
    let a = schedule(&mut c, actor_a(), args_gas(h, 550_000));
    let blocker = schedule(&mut c, actor_a(), within(550_000));
    // Behind the lane-closing timer an unfunded one is still removed on time: funds are
    // checked before the lane.
    let unfunded = schedule(&mut c, actor_b(), args_gas(h, 1_000));
    let small = schedule(&mut c, actor_a(), within(1_000));
    seal_until(&mut c, h);
    let b = c.seal_block();
    assert_eq!(
        eob_kinds(b),
        vec![
            (EventKind::TimerDeferred, blocker),
            (EventKind::TimerCancelledInsufficientFunds, unfunded),
            (EventKind::TimerDeferred, small),
            (EventKind::TimerFired, a),
        ]
    );
    assert_eq!(b.eob.deferred, 2);
    // At h + 1 both carried timers are past their TTL *and* unfunded: TTL is checked first.
    c.set_balance(&actor_a(), 0);
    let b = c.seal_block();
    assert_eq!(
        eob_kinds(b),
        vec![
            (EventKind::TimerExpired, blocker),
            (EventKind::TimerExpired, small)
        ]
    );
    assert_eq!((b.eob.expired, b.eob.unfunded), (2, 0));
}

#[test]
fn cip5_5_4_owner_cancel_of_precharged_timer_refunds_in_full() {
    let mut c = chain_with_actors(genesis());
    let own = Address::from_label("own");
    deploy_native(
        &mut c,
        alice(),
        own,
        r#"{"cancel_t2": [{"op": "cancel", "key": "t2"}],
            "setup": [{"op": "schedule", "delta": 3, "payload": "", "gas_limit": 100000, "save_as": "t2"}]}"#,
    );
    c.seal_block();
    c.set_balance(&own, 10_000_000);
    let h = c.pending_height() + 3;
    let t1 = schedule(
        &mut c,
        own,
        ScheduleArgs {
            height: h,
            payload: handler_payload("cancel_t2", b""),
            gas_limit: Some(100_000),
            ..ScheduleArgs::default()
        },
    );
    let r = call(&mut c, alice(), own, "setup");
    assert!(r.success, "{:?}", r.error);
    let t2 = r.timers[0];
    seal_until(&mut c, h);
    let burned = c.burned();
    let b = c.seal_block();
    assert_eq!(
        eob_kinds(b),
        vec![(EventKind::TimerFired, t1), (EventKind::TimerCancelled, t2)]
    );
    assert!(timer_events(b).contains(&&TimerEvent::TimerCancelled {
        timer_id: t2,
        actor: own,
        refund: 650_000,
    }));
    // t1: 1,000 base cycles, storage read 100 + cancel 200 cycles, no cells.
    let TimerEvent::TimerFired { cost, .. } = find_fired(b, t1) else {
        unreachable!()
    };
    assert_eq!(cost, 1_300);
    assert_eq!(b.eob.fired, 1);
    assert_eq!(c.balance(&own), 10_000_000 - 1_300);
    assert_eq!(c.burned(), burned + 1_300);
    assert!(c.timer(&t2).is_none());
    assert_conserved(&c);
}

#[test]
fn cip5_5_4_second_cancel_of_a_cancelled_precharged_timer_is_not_found() {
    let mut c = chain_with_actors(genesis());
    let own = Address::from_label("own");
    deploy_native(
        &mut c,
        alice(),
        own,
        r#"{"cancel_t3": [{"op": "cancel", "key": "t3"}],
            "setup": [{"op": "schedule", "delta": 3, "payload": "", "gas_limit": 100000, "save_as": "t3"}]}"#,
    );
    c.set_balance(&own, 10_000_000);
    let h = c.pending_height() + 3;
    let canceller = || ScheduleArgs {
        height: h,
        payload: handler_payload("cancel_t3", b""),
        gas_limit: Some(100_000),
        ..ScheduleArgs::default()
    };
    let t1 = schedule(&mut c, own, canceller());
    let t2 = schedule(&mut c, own, canceller());
    let t3 = call(&mut c, alice(), own, "setup").timers[0];
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    assert_eq!(
        eob_kinds(&b),
        vec![
            (EventKind::TimerFired, t1),
            (EventKind::TimerCancelled, t3),
            (EventKind::TimerFired, t2)
        ]
    );
    let TimerEvent::TimerFired { success, .. } = find_fired(&b, t1) else {
        unreachable!()
    };
    assert!(success);
    // The second cancel finds nothing to cancel, as it would for a queued timer.
    let TimerEvent::TimerFired { success, error, .. } = find_fired(&b, t2) else {
        unreachable!()
    };
    assert!(!success);
    assert_eq!(error.unwrap().kind, ErrorKind::TimerNotFound);
    assert_eq!(c.balance(&own), 10_000_000 - 1_300 - 1_300);
    assert_conserved(&c);
}

#[test]
fn cip5_5_4_handler_cancel_of_queued_timer_refunds_nothing() {
    let mut c = chain_with_actors(genesis());
    let own = Address::from_label("own");
    deploy_native(
        &mut c,
        alice(),
        own,
        r#"{"handle_timer": [{"op": "cancel", "key": "later"}],
            "setup": [{"op": "schedule", "delta": 10, "save_as": "later"}]}"#,
    );
    c.set_balance(&own, 10_000_000);
    let later = call(&mut c, alice(), own, "setup").timers[0];
    let h = c.pending_height() + 2;
    let first = schedule(&mut c, own, args_gas(h, 10_000));
    seal_until(&mut c, h);
    let b = c.seal_block();
    assert_eq!(
        eob_kinds(b),
        vec![
            (EventKind::TimerFired, first),
            (EventKind::TimerCancelled, later)
        ]
    );
    assert!(timer_events(b).contains(&&TimerEvent::TimerCancelled {
        timer_id: later,
        actor: own,
        refund: 0,
    }));
    assert!(c.timer(&later).is_none());
}

// ---- §5.4 / §6.4 system instructions 48/49/50 ------------------------------------------------

#[test]
fn cip5_5_4_sys_cancel_timer_48_is_gated_and_idempotent() {
    let mut c = chain_with_actors(genesis());
    let id = schedule(&mut c, actor_a(), args(10));
    let ins = SystemInstruction::CancelTimer { timer_id: id };
    assert_eq!(ins.opcode(), 48);
    // Not a system deployer.
    let r = system(&mut c, alice(), ins.clone());
    assert_eq!(err_kind(&r), ErrorKind::Unauthorized);
    assert_eq!(r.fee, 0, "refused before inclusion (Spec note 156)");
    assert!(c.timer(&id).is_some());
    // Governance.
    let r = system(&mut c, gov(), ins.clone());
    assert!(r.success, "{:?}", r.error);
    assert_eq!(r.fee, 1_000);
    assert!(c.timer(&id).is_none());
    assert_eq!(c.engine().queue().actor_count(&actor_a()), 0);
    // Again: a no-op that succeeds.
    let r = system(&mut c, gov(), ins);
    assert!(r.success, "{:?}", r.error);
    let b = c.seal_block();
    let gov_events: Vec<_> = timer_events(b)
        .into_iter()
        .filter(|e| e.kind() == EventKind::TimerCancelledByGovernance)
        .cloned()
        .collect();
    assert_eq!(
        gov_events,
        vec![
            TimerEvent::TimerCancelledByGovernance {
                timer_id: id,
                existed: true
            },
            TimerEvent::TimerCancelledByGovernance {
                timer_id: id,
                existed: false
            },
        ]
    );
    // Cancelling a timer that already self-destructed is a no-op too.
    let h = c.pending_height() + 1;
    let gone = schedule(&mut c, actor_b(), args_gas(h, 1_000)); // actor_b is unfunded
    seal_until(&mut c, h);
    let b = c.seal_block();
    assert_eq!(
        eob_kinds(b),
        vec![(EventKind::TimerCancelledInsufficientFunds, gone)]
    );
    let r = system(
        &mut c,
        gov(),
        SystemInstruction::CancelTimer { timer_id: gone },
    );
    assert!(r.success);
    let b = c.seal_block();
    assert_eq!(
        timer_events(b),
        vec![&TimerEvent::TimerCancelledByGovernance {
            timer_id: gone,
            existed: false
        }]
    );
}

#[test]
fn cip5_5_4_sys_extend_timer_50_clamps_and_rescues_from_expiry() {
    let mut c = chain_with_actors(genesis_cfg(|t| t.lane_timer_cycles = 1_000_000));
    c.set_balance(&actor_a(), 10_000_000);
    let h = 5;
    let a = schedule(&mut c, actor_a(), args(h));
    let b_id = schedule(
        &mut c,
        actor_a(),
        ScheduleArgs {
            height: h,
            expires_at: Some(h),
            ..ScheduleArgs::default()
        },
    );
    let ext = |timer_id, new_expires_at| SystemInstruction::ExtendTimer {
        timer_id,
        new_expires_at,
    };
    assert_eq!(ext(a, 1).opcode(), 50);
    assert_eq!(
        err_kind(&system(&mut c, alice(), ext(a, 100))),
        ErrorKind::Unauthorized
    );
    assert_eq!(
        err_kind(&system(&mut c, gov(), ext(TimerId([9; 32]), 100))),
        ErrorKind::TimerNotFound
    );
    let cur = c.pending_height();
    assert_eq!(
        err_kind(&system(&mut c, gov(), ext(a, cur))),
        ErrorKind::InvalidInput
    );
    assert!(system(&mut c, gov(), ext(a, u64::MAX)).success);
    assert_eq!(c.timer(&a).unwrap().expires_at, cur + MAX_TTL, "clamped");
    seal_until(&mut c, h);
    let blk = c.seal_block();
    assert_eq!(fired(blk), vec![a]);
    assert_eq!(
        eob_kinds(blk),
        vec![(EventKind::TimerDeferred, b_id), (EventKind::TimerFired, a)]
    );
    assert_eq!(blk.eob.deferred, 1, "b deferred by the lane");
    // b is past its TTL at h + 1 unless governance extends it in h + 1's tx phase.
    let r = system(&mut c, gov(), ext(b_id, h + 3));
    assert!(r.success, "{:?}", r.error);
    let blk = c.seal_block();
    assert_eq!(fired(blk), vec![b_id]);
    assert!(
        timer_events(blk).contains(&&TimerEvent::TimerExtendedByGovernance {
            timer_id: b_id,
            old_expires_at: h,
            new_expires_at: h + 3,
        })
    );
}

#[test]
fn cip5_6_4_sys_update_timer_config_49_applies_from_next_block() {
    let mut c = chain_with_actors(genesis());
    c.set_balance(&actor_a(), 100_000_000);
    let h = c.pending_height() + 1; // 3
    // Due at h: two maximal timers (fit the default 2,000,000 lane).
    let a1 = schedule(&mut c, actor_a(), args_gas(h, 550_000));
    let a2 = schedule(&mut c, actor_a(), args_gas(h, 550_000));
    // Due at h + 1: two 300,000 timers.
    let b1 = schedule(&mut c, actor_a(), args_gas(h + 1, 300_000));
    let b2 = schedule(&mut c, actor_a(), args_gas(h + 1, 300_000));
    c.seal_block();
    let new_cfg = cfg_with(|t| {
        t.max_cycles_per_fire = 300_000;
        t.lane_timer_cycles = 300_000;
    });
    let upd = SystemInstruction::UpdateTimerConfig {
        config: new_cfg.clone(),
    };
    assert_eq!(upd.opcode(), 49);
    assert_eq!(
        err_kind(&system(&mut c, alice(), upd.clone())),
        ErrorKind::Unauthorized
    );
    // Invalid configs are rejected and change nothing.
    let bad = SystemInstruction::UpdateTimerConfig {
        config: cfg_with(|t| t.lane_timer_cycles = 1),
    };
    assert_eq!(
        err_kind(&system(&mut c, gov(), bad)),
        ErrorKind::InvalidInput
    );
    assert_eq!(*c.timer_config(), TimerConfig::default());
    // Block h: the update lands; the block keeps the config it opened with.
    assert!(system(&mut c, gov(), upd).success);
    assert_eq!(*c.timer_config(), new_cfg);
    let still_old = schedule(&mut c, actor_a(), args_gas(h + 5, 550_000));
    assert_eq!(c.timer(&still_old).unwrap().gas_limit_per_fire, 550_000);
    let blk = c.seal_block();
    assert_eq!(blk.header.height, h);
    assert_eq!(
        fired(blk),
        vec![a1, a2],
        "old 2,000,000 lane for this block"
    );
    assert!(
        timer_events(blk).contains(&&TimerEvent::TimerConfigUpdated {
            config: new_cfg.clone()
        })
    );
    // Block h + 1: the new config.
    assert_schedule_rejected(
        &mut c,
        actor_a(),
        args_gas(h + 5, 300_001),
        ErrorKind::InvalidInput,
    );
    let blk = c.seal_block();
    assert_eq!(fired(blk), vec![b1]);
    // Spec note 71: b2's deferral is recorded by this block, which made it.
    assert_eq!(
        eob_kinds(blk),
        vec![(EventKind::TimerDeferred, b2), (EventKind::TimerFired, b1)]
    );
    assert_eq!(blk.eob.deferred, 1, "b2 waits for the next block");
    assert_eq!(blk.eob.lane_reserved, 300_000);
    let blk = c.seal_block();
    assert!(!eob_kinds(blk).contains(&(EventKind::TimerDeferred, b2)));
}

#[test]
fn cip5_5_4_system_deployers_come_from_genesis() {
    let mut g = genesis();
    g.system_deployers = vec![bob()];
    let mut c = chain_with_actors(g);
    let id = schedule(&mut c, actor_a(), args(10));
    let ins = SystemInstruction::CancelTimer { timer_id: id };
    assert_eq!(
        err_kind(&system(&mut c, gov(), ins.clone())),
        ErrorKind::Unauthorized
    );
    assert!(c.timer(&id).is_some());
    assert!(system(&mut c, bob(), ins).success);
    assert!(c.timer(&id).is_none());
}

// ---- §6.1 costs ------------------------------------------------------------------------------

#[test]
fn cip5_6_1_schedule_extend_cancel_cost_200_cycles_paid_by_sender() {
    let mut c = chain_with_actors(genesis());
    let bal = c.balance(&alice());
    let r = try_schedule(
        &mut c,
        actor_a(),
        ScheduleArgs {
            height: 10,
            payload: b"1234567".to_vec(),
            ..ScheduleArgs::default()
        },
    );
    assert_eq!((r.cycles_used, r.cells_used, r.fee), (1_200, 7, 1_207));
    let id = r.timers[0];
    let r = extend(&mut c, actor_a(), id, 20);
    assert_eq!((r.cycles_used, r.cells_used, r.fee), (1_200, 0, 1_200));
    let r = cancel(&mut c, actor_a(), id);
    assert_eq!((r.cycles_used, r.cells_used, r.fee), (1_200, 0, 1_200));
    assert_eq!(c.balance(&alice()), bal - 1_207 - 1_200 - 1_200);
    assert_eq!(
        c.balance(&actor_a()),
        0,
        "the fee payer pays only at fire time"
    );
    // From actor code, called by bob: bob pays, the actor does not.
    let prog = Address::from_label("prog");
    deploy_native(
        &mut c,
        alice(),
        prog,
        r#"{"s": [{"op": "schedule", "delta": 2, "payload": "abc"}]}"#,
    );
    let bob_bal = c.balance(&bob());
    let r = call(&mut c, bob(), prog, "s");
    // 1,000 base + block_height 10 + schedule 200; 3 payload cells.
    assert_eq!((r.cycles_used, r.cells_used, r.fee), (1_210, 3, 1_213));
    assert_eq!(c.balance(&bob()), bob_bal - 1_213);
    assert_eq!(c.balance(&prog), 0);
}

// ---- §6.3 settlement -------------------------------------------------------------------------

#[test]
fn cip5_6_3_precharge_refund_burn_arithmetic() {
    let mut g = genesis();
    g.basefee.cycle_basefee = 2;
    g.basefee.cell_basefee = 3;
    let mut c = chain_with(g);
    let w = Address::from_label("worker");
    deploy_native(
        &mut c,
        alice(),
        w,
        r#"{"handle_timer": [{"op": "burn", "cycles": 1000}, {"op": "write", "key": "k", "bytes": 10}]}"#,
    );
    c.set_balance(&w, 10_000_000);
    let h = c.pending_height() + 2;
    let by_actor = schedule(&mut c, w, args_gas(h, 100_000));
    let by_deployer = schedule(
        &mut c,
        w,
        ScheduleArgs {
            height: h,
            gas_limit: Some(100_000),
            fee_payer: Some(alice()),
            ..ScheduleArgs::default()
        },
    );
    seal_until(&mut c, h);
    let (w_bal, a_bal, burned, supply) =
        (c.balance(&w), c.balance(&alice()), c.burned(), c.supply());
    let b = c.seal_block().clone();
    // max_cost = 100,000 × 2 + 550,000 × 3; actual = 2,200 cycles × 2 + 11 cells × 3 (1,000
    // base cycles, burn 1,000, write 200).
    for (id, payer) in [(by_actor, w), (by_deployer, alice())] {
        assert_eq!(
            find_fired(&b, id),
            TimerEvent::TimerFired {
                timer_id: id,
                actor: w,
                fee_payer: payer,
                height: h,
                handler: "handle_timer".into(),
                cycles_used: 2_200,
                cells_used: 11,
                max_cost: 1_850_000,
                cost: 4_433,
                refund: 1_845_567,
                burned: 4_433,
                tip: 0,
                success: true,
                error: None,
                cancelled_while_running: false,
            }
        );
    }
    assert_eq!(c.balance(&w), w_bal - 4_433);
    assert_eq!(c.balance(&alice()), a_bal - 4_433);
    assert_eq!(c.burned(), burned + 2 * 4_433);
    assert_eq!(c.supply(), supply);
    assert_eq!(c.balance(&c.proposer()), 0, "no tip under FIFO");
    assert_eq!(c.actor(&w).unwrap().storage[&b"k".to_vec()], vec![0xAB; 10]);
    assert_eq!(b.eob.lane_reserved, 200_000);
    assert_eq!(b.eob.lane_used, 4_400);
    assert_conserved(&c);
}

#[test]
fn cip5_6_3_reverted_handler_pays_what_it_used_and_its_writes_are_discarded() {
    let mut c = chain_with_actors(genesis());
    let r = Address::from_label("reverter");
    deploy_native(
        &mut c,
        alice(),
        r,
        r#"{"handle_timer": [{"op": "write", "key": "k", "bytes": 10},
                             {"op": "emit", "topic": "t", "data": "d"},
                             {"op": "schedule", "delta": 5, "gas_limit": 1000},
                             {"op": "burn", "cycles": 500},
                             {"op": "revert", "reason": "boom"}],
            "hog": [{"op": "burn", "cycles": 200000}]}"#,
    );
    c.set_balance(&r, 10_000_000);
    let h = c.pending_height() + 2;
    let t = schedule(&mut c, r, args_gas(h, 100_000));
    let hog = schedule(
        &mut c,
        r,
        ScheduleArgs {
            height: h,
            payload: handler_payload("hog", b""),
            gas_limit: Some(50_000),
            ..ScheduleArgs::default()
        },
    );
    seal_until(&mut c, h);
    let (bal, burned, nonce) = (c.balance(&r), c.burned(), c.nonce(&r));
    let b = c.seal_block().clone();
    // 1,000 base + write 200 + emit 100 + block_height 10 + schedule 200 + burn 500 cycles;
    // cells: k + 10, t + d, empty payload.
    let TimerEvent::TimerFired {
        cycles_used,
        cells_used,
        cost,
        refund,
        burned: fire_burned,
        success,
        error,
        ..
    } = find_fired(&b, t)
    else {
        unreachable!()
    };
    assert_eq!((cycles_used, cells_used), (2_010, 13));
    assert_eq!((cost, refund, fire_burned), (2_023, 650_000 - 2_023, 2_023));
    assert!(!success);
    assert_eq!(error.unwrap().kind, ErrorKind::Reverted);
    // Out of cycles: the whole gas limit is used and charged.
    let TimerEvent::TimerFired {
        cycles_used,
        cost,
        success,
        error,
        ..
    } = find_fired(&b, hog)
    else {
        unreachable!()
    };
    assert_eq!((cycles_used, cost), (50_000, 50_000));
    assert!(!success);
    assert_eq!(error.unwrap().kind, ErrorKind::OutOfCycles);
    assert_eq!(c.balance(&r), bal - 2_023 - 50_000);
    assert_eq!(c.burned(), burned + 52_023);
    assert!(c.actor(&r).unwrap().storage.is_empty(), "write discarded");
    assert!(c.engine().queue().is_empty(), "schedule discarded");
    assert_eq!(c.nonce(&r), nonce);
    assert!(
        !b.events
            .iter()
            .any(|e| e.event.kind() == EventKind::ActorEmitted),
        "emit discarded"
    );
    assert_conserved(&c);
}

#[test]
fn cip5_6_3_refund_is_kept_when_the_handler_moves_fee_payer_funds() {
    let mut c = chain_with_actors(genesis());
    let payer = Address::from_label("payer");
    deploy_native(
        &mut c,
        alice(),
        payer,
        &format!(
            r#"{{"handle_timer": [{{"op": "transfer", "to": "{}", "amount": "1000"}}]}}"#,
            bob()
        ),
    );
    c.set_balance(&payer, 10_000_000);
    let h = c.pending_height() + 1;
    let t = schedule(&mut c, payer, args(h));
    seal_until(&mut c, h);
    let bob_bal = c.balance(&bob());
    let b = c.seal_block().clone();
    let TimerEvent::TimerFired {
        cost,
        refund,
        success,
        ..
    } = find_fired(&b, t)
    else {
        unreachable!()
    };
    assert!(success);
    // 1,000 base cycles + the 500-cycle transfer.
    assert_eq!((cost, refund), (1_500, 1_100_000 - 1_500));
    assert_eq!(c.balance(&payer), 10_000_000 - 1_000 - 1_500);
    assert_eq!(c.balance(&bob()), bob_bal + 1_000);
    assert_conserved(&c);
}

#[test]
fn cip5_6_3_balances_plus_burned_equal_supply_at_every_block() {
    let mut c = chain_with_actors(genesis());
    assert_conserved(&c);
    let busy = Address::from_label("busy");
    deploy_native(
        &mut c,
        alice(),
        busy,
        &format!(
            r#"{{"handle_timer": [{{"op": "burn", "cycles": 7000}}, {{"op": "write", "key": "x", "bytes": 3}},
                                 {{"op": "transfer", "to": "{}", "amount": "77"}},
                                 {{"op": "schedule", "delta": 2, "gas_limit": 20000}}]}}"#,
            bob()
        ),
    );
    c.set_balance(&busy, 5_000_000);
    schedule(&mut c, busy, args_gas(3, 20_000));
    schedule(&mut c, actor_b(), args(3)); // unfunded
    assert_conserved(&c);
    for _ in 0..12 {
        c.seal_block();
        assert_conserved(&c);
    }
    c.set_balance(&bob(), 5);
    assert_conserved(&c);
}

// ---- §6.5 lane and GC budgets ----------------------------------------------------------------

#[test]
fn cip5_6_5_lane_reserved_by_gas_limit_strict_fifo() {
    let mut c = chain_with_actors(genesis_cfg(|t| t.lane_timer_cycles = 1_000_000));
    c.set_balance(&actor_a(), 100_000_000);
    let h = 5;
    let a = schedule(&mut c, actor_a(), args_gas(h, 500_000));
    let b = schedule(&mut c, actor_a(), args_gas(h, 550_000));
    let small = schedule(&mut c, actor_a(), args_gas(h, 100_000));
    let d = schedule(&mut c, actor_a(), args_gas(h + 1, 100_000));
    seal_until(&mut c, h);
    let blk = c.seal_block().clone();
    assert_eq!(fired(&blk), vec![a]);
    // `small` would fit the 500,000 left, but the lane closed at `b`.
    let deferred = |id| TimerEvent::TimerDeferred {
        timer_id: id,
        actor: actor_a(),
        height: h,
        reason: DeferReason::Lane,
        carried: 1,
    };
    // Spec note 71: recorded by the block that defers them.
    let evs = timer_events(&blk);
    assert!(evs.contains(&&deferred(b)) && evs.contains(&&deferred(small)));
    assert_eq!(blk.eob.fired, 1);
    assert_eq!(blk.eob.deferred, 2);
    assert_eq!(blk.eob.lane_reserved, 500_000);
    // A deferred timer costs nothing in the block that defers it: only `a` was pre-charged.
    // Deferred timers stand at the front of h + 1, ahead of those originally due there.
    let order: Vec<TimerId> = c
        .engine()
        .queue()
        .bucket(h + 1)
        .iter()
        .map(|t| t.timer_id)
        .collect();
    assert_eq!(order, vec![b, small, d]);
    let blk = c.seal_block();
    assert!(
        !timer_events(blk)
            .iter()
            .any(|e| e.kind() == EventKind::TimerDeferred)
    );
    assert_eq!(fired(blk), vec![b, small, d]);
    assert_eq!(blk.eob.lane_reserved, 750_000);
    let TimerEvent::TimerFired { height, .. } = find_fired(blk, b) else {
        unreachable!()
    };
    assert_eq!(height, h, "a carried timer keeps its original height");
}

#[test]
fn cip5_6_5_deferred_keep_their_own_fifo_order_across_blocks() {
    // Each 550,000 timer fills a 550,000 lane: one fire per block, strictly in insertion order.
    let mut c = chain_with_actors(genesis_cfg(|t| t.lane_timer_cycles = 550_000));
    c.set_balance(&actor_a(), 100_000_000);
    let h = 4;
    let ids: Vec<TimerId> = (0..3)
        .map(|_| schedule(&mut c, actor_a(), args_gas(h, 550_000)))
        .collect();
    let next = schedule(&mut c, actor_a(), args_gas(h + 1, 550_000));
    seal_until(&mut c, h);
    let mut order = Vec::new();
    for _ in 0..4 {
        let b = c.seal_block();
        assert_eq!(b.eob.fired, 1);
        order.extend(fired(b));
    }
    assert_eq!(order, vec![ids[0], ids[1], ids[2], next]);
}

#[test]
fn cip5_6_5_gc_budget_carries_leftover_removals() {
    // 10,000 GC cycles = two removals of 5,000.
    let mut c = chain_with_actors(genesis_cfg(|t| t.gc_cycles_per_block = 10_000));
    let h = 4;
    let t: Vec<TimerId> = (0..3)
        .map(|_| schedule(&mut c, actor_b(), args_gas(h, 1_000)))
        .collect();
    let t4 = schedule(&mut c, actor_b(), args_gas(h + 1, 1_000));
    let t5 = schedule(&mut c, actor_b(), args_gas(h + 1, 1_000));
    seal_until(&mut c, h);
    let b = c.seal_block();
    assert_eq!(
        eob_kinds(b),
        vec![
            (EventKind::TimerCancelledInsufficientFunds, t[0]),
            (EventKind::TimerCancelledInsufficientFunds, t[1]),
            (EventKind::TimerDeferred, t[2]),
        ]
    );
    assert_eq!(b.eob.gc_cycles, 10_000);
    assert_eq!(b.eob.unfunded, 2);
    assert_eq!(b.eob.deferred, 1);
    assert!(timer_events(b).contains(&&TimerEvent::TimerDeferred {
        timer_id: t[2],
        actor: actor_b(),
        height: h,
        reason: DeferReason::GcBudget,
        carried: 1,
    }));
    let b = c.seal_block();
    assert_eq!(
        eob_kinds(b),
        vec![
            (EventKind::TimerCancelledInsufficientFunds, t[2]),
            (EventKind::TimerCancelledInsufficientFunds, t4),
            (EventKind::TimerDeferred, t5),
        ]
    );
    let b = c.seal_block();
    assert_eq!(
        eob_kinds(b),
        vec![(EventKind::TimerCancelledInsufficientFunds, t5)]
    );
    assert!(c.engine().queue().is_empty());
}

// ---- §7 determinism: TimerConfig read once per block ----------------------------------------

#[test]
fn cip5_7_timer_config_read_once_per_block() {
    let mut c = chain_with_actors(genesis());
    c.set_balance(&actor_a(), 100_000_000);
    let h = c.pending_height();
    // In block h: lower the GC budget and the TTL cap; the rest of the block still uses the old.
    let upd = cfg_with(|t| {
        t.max_ttl_blocks = 10;
        t.gc_cycles_per_block = 5_000;
    });
    assert!(
        system(
            &mut c,
            gov(),
            SystemInstruction::UpdateTimerConfig { config: upd }
        )
        .success
    );
    let far = schedule(&mut c, actor_a(), args(h + 100));
    assert_eq!(c.timer(&far).unwrap().expires_at, h + MAX_TTL);
    let u1 = schedule(&mut c, actor_b(), args_gas(h + 1, 1));
    let u2 = schedule(&mut c, actor_b(), args_gas(h + 1, 1));
    c.seal_block();
    // Block h + 1: the new TTL cap and a one-removal GC budget.
    assert_schedule_rejected(&mut c, actor_a(), args(h + 100), ErrorKind::InvalidInput);
    let near = schedule(&mut c, actor_a(), args(h + 5));
    assert_eq!(c.timer(&near).unwrap().expires_at, h + 1 + 10);
    let b = c.seal_block();
    assert_eq!(
        eob_kinds(b),
        vec![
            (EventKind::TimerCancelledInsufficientFunds, u1),
            (EventKind::TimerDeferred, u2)
        ]
    );
    assert_eq!(b.eob.deferred, 1);
    let b = c.seal_block();
    assert_eq!(
        eob_kinds(b),
        vec![(EventKind::TimerCancelledInsufficientFunds, u2)]
    );
}

// ---- §8 resume after outage ------------------------------------------------------------------

#[test]
fn cip5_8_outage_skipped_heights_fire_at_resume_in_height_seq_order() {
    let mut c = chain_with_actors(genesis());
    c.set_balance(&actor_a(), 100_000_000);
    assert_eq!(c.pending_height(), 2);
    let ta = schedule(&mut c, actor_a(), args_gas(5, 1_000));
    let tb = schedule(&mut c, actor_a(), args_gas(4, 1_000));
    let tc = schedule(
        &mut c,
        actor_a(),
        ScheduleArgs {
            height: 4,
            gas_limit: Some(1_000),
            expires_at: Some(5),
            ..ScheduleArgs::default()
        },
    );
    let td = schedule(&mut c, actor_a(), args_gas(7, 1_000));
    let te = schedule(&mut c, actor_a(), args_gas(9, 1_000));
    c.seal_block(); // height 2
    c.halt(4); // heights 3..=6 never happen
    assert_eq!(c.pending_height(), 7);
    let b = c.seal_block().clone();
    assert_eq!(b.header.height, 7);
    assert_eq!(b.header.skipped, 4);
    assert_eq!(
        eob_kinds(&b),
        vec![
            (EventKind::TimerExpired, tc),
            (EventKind::TimerFired, tb),
            (EventKind::TimerFired, ta),
            (EventKind::TimerFired, td),
        ]
    );
    assert!(timer_events(&b).contains(&&TimerEvent::TimerExpired {
        timer_id: tc,
        actor: actor_a(),
        expires_at: 5,
        current_height: 7,
    }));
    assert_eq!(
        b.eob.gc_cycles, 5_000,
        "expired ones go through the GC budget"
    );
    assert_eq!(c.timer(&te).unwrap().height, 9);
    seal_until(&mut c, 9);
    assert_eq!(fired(c.seal_block()), vec![te]);
    assert_conserved(&c);
}

#[test]
fn cip5_8_outage_expiry_storm_is_paced_by_the_gc_budget() {
    let mut c = chain_with_actors(genesis_cfg(|t| t.gc_cycles_per_block = 10_000));
    c.set_balance(&actor_a(), 100_000_000);
    let exp = |height| ScheduleArgs {
        height,
        gas_limit: Some(1_000),
        expires_at: Some(height),
        ..ScheduleArgs::default()
    };
    let e: Vec<TimerId> = (3..6)
        .map(|h| schedule(&mut c, actor_a(), exp(h)))
        .collect();
    let live = schedule(&mut c, actor_a(), args_gas(4, 1_000));
    c.seal_block();
    c.halt(10);
    let b = c.seal_block();
    assert_eq!(
        eob_kinds(b),
        vec![
            (EventKind::TimerExpired, e[0]),
            (EventKind::TimerExpired, e[1]),
            (EventKind::TimerDeferred, e[2]),
            (EventKind::TimerFired, live),
        ],
        "live timers are not crowded out by the expiry storm"
    );
    assert_eq!(b.eob.deferred, 1);
    let b = c.seal_block();
    assert_eq!(eob_kinds(b), vec![(EventKind::TimerExpired, e[2])]);
}

/// §6.5/§8 (Spec note 71): a deferral is recorded by the block that made it, also when an
/// outage follows; nothing about it waits in the state, so a dump taken during the outage
/// restores the same root and the next block that runs is the same block.
#[test]
fn cip5_8_a_deferral_before_an_outage_is_recorded_by_the_deferring_block() {
    // A 550,000 lane: the second 550,000 timer of a height waits for the next block.
    let mut c = chain_with_actors(genesis_cfg(|t| t.lane_timer_cycles = 550_000));
    c.set_balance(&actor_a(), 100_000_000);
    let h = 4;
    let first = schedule(&mut c, actor_a(), args_gas(h, 550_000));
    let second = schedule(&mut c, actor_a(), args_gas(h, 550_000));
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    assert_eq!(fired(&b), vec![first]);
    assert_eq!(b.eob.deferred, 1);
    assert!(timer_events(&b).contains(&&TimerEvent::TimerDeferred {
        timer_id: second,
        actor: actor_a(),
        height: h,
        reason: DeferReason::Lane,
        carried: 1,
    }));
    // The chain halts after block h: heights h+1..=h+5 never happen.
    c.halt(5);
    let root = c.state_root();
    let dump = c.dump().expect("no block is open");
    let mut restored = cowboy_devnet::chain::Chain::load(
        serde_json::from_str(&serde_json::to_string(&dump).unwrap()).unwrap(),
        cowboy_devnet::vm::DevnetRuntime::shared(),
    )
    .expect("loads");
    assert_eq!(restored.state_root(), root);
    let b = c.seal_block().clone();
    assert_eq!(b.header.height, h + 6);
    assert_eq!(fired(&b), vec![second]);
    assert!(
        !timer_events(&b)
            .iter()
            .any(|e| e.kind() == EventKind::TimerDeferred)
    );
    let rb = restored.seal_block();
    assert_eq!(rb.header.hash, b.header.hash, "same block from the dump");
}

// ---- event kind names ------------------------------------------------------------------------

#[test]
fn cip5_5_4_event_kind_names() {
    let id = TimerId([1; 32]);
    let a = actor_a();
    let cases: Vec<(TimerEvent, &str)> = vec![
        (
            TimerEvent::TimerScheduled {
                timer_id: id,
                actor: a,
                height: 1,
                fee_payer: a,
                gas_limit_per_fire: 1,
                expires_at: 1,
                handler: "handle_timer".into(),
                payload_len: 0,
            },
            "TimerScheduled",
        ),
        (
            TimerEvent::TimerFired {
                timer_id: id,
                actor: a,
                fee_payer: a,
                height: 1,
                handler: "handle_timer".into(),
                cycles_used: 0,
                cells_used: 0,
                max_cost: 0,
                cost: 0,
                refund: 0,
                burned: 0,
                tip: 0,
                success: true,
                error: None,
                cancelled_while_running: false,
            },
            "TimerFired",
        ),
        (
            TimerEvent::TimerDeferred {
                timer_id: id,
                actor: a,
                height: 1,
                reason: DeferReason::Lane,
                carried: 1,
            },
            "TimerDeferred",
        ),
        (
            TimerEvent::TimerExpired {
                timer_id: id,
                actor: a,
                expires_at: 1,
                current_height: 2,
            },
            "TimerExpired",
        ),
        (
            TimerEvent::TimerCancelledInsufficientFunds {
                timer_id: id,
                actor: a,
                fee_payer: a,
                required: 2,
                available: 1,
            },
            "TimerCancelledInsufficientFunds",
        ),
        (
            TimerEvent::TimerCancelled {
                timer_id: id,
                actor: a,
                refund: 0,
            },
            "TimerCancelled",
        ),
        (
            TimerEvent::TimerCancelledByGovernance {
                timer_id: id,
                existed: true,
            },
            "TimerCancelledByGovernance",
        ),
        (
            TimerEvent::TimerExtended {
                timer_id: id,
                actor: a,
                old_expires_at: 1,
                new_expires_at: 2,
                no_effect: false,
            },
            "TimerExtended",
        ),
        (
            TimerEvent::TimerExtendedByGovernance {
                timer_id: id,
                old_expires_at: 1,
                new_expires_at: 2,
            },
            "TimerExtendedByGovernance",
        ),
        (
            TimerEvent::TimerConfigUpdated {
                config: TimerConfig::default(),
            },
            "TimerConfigUpdated",
        ),
    ];
    for (e, name) in cases {
        assert_eq!(e.kind().as_str(), name);
        let rec = EventRecord {
            height: 3,
            phase: Phase::Eob,
            event: Event::Timer(e.clone()),
        };
        let json = serde_json::to_string(&rec).unwrap();
        assert_eq!(
            json.matches("\"height\":").count(),
            usize::from(
                json.contains("\"kind\":\"TimerScheduled\"")
                    || json.contains("\"kind\":\"TimerFired\"")
                    || json.contains("\"kind\":\"TimerDeferred\"")
            ),
            "no duplicate keys: {json}"
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["kind"], name, "flat `kind` tag in JSON");
        assert_eq!(v["phase"], "eob");
        assert_eq!(v["block_height"], 3);
        let back: EventRecord = serde_json::from_value(v).unwrap();
        assert_eq!(back, rec);
    }
    let v = serde_json::to_value(DeferReason::GcBudget).unwrap();
    assert_eq!(v, "gc_budget");
    assert_eq!(serde_json::to_value(DeferReason::Lane).unwrap(), "lane");
    // Amounts travel as decimal strings.
    let e = TimerEvent::TimerCancelledInsufficientFunds {
        timer_id: id,
        actor: a,
        fee_payer: a,
        required: 650_000,
        available: 1,
    };
    let v = serde_json::to_value(&e).unwrap();
    assert_eq!(v["required"], "650000");
}

#[test]
fn cip5_4_3_act_as_only_from_the_deployer() {
    let mut c = chain_with_actors(genesis());
    let before = c.state_root();
    let err = c
        .apply_tx(cowboy_devnet::chain::Transaction::new(
            bob(),
            TxKind::ActAs {
                actor: actor_a(),
                op: cowboy_devnet::chain::TimerOp::ScheduleTimer(args(9)),
            },
        ))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unauthorized);
    assert_eq!(c.nonce(&bob()), 0, "rejected before inclusion");
    assert_eq!(c.state_root(), before);
}

/// CIP-5 §6.4/§6.5: after governance shrinks the lane (and with it `max_cycles_per_fire`) below
/// a pending timer's `gas_limit_per_fire`, that timer fires within the new cap and does not
/// stall the timers behind it.
#[test]
fn cip5_6_5_timer_larger_than_a_shrunk_lane_fires_within_the_new_cap() {
    use cowboy_devnet::chain::{SystemInstruction, TimerOp, Transaction, TxKind};
    use cowboy_devnet::engine::{ScheduleArgs, TimerConfig};
    let gov = cowboy_devnet::chain::default_governor();
    let alice = cowboy_devnet::engine::Address::from_label("alice");
    let actor = cowboy_devnet::engine::Address::from_label("act");
    let mut g = cowboy_devnet::chain::Genesis::default();
    for a in [gov, alice] {
        g.accounts.push(cowboy_devnet::chain::GenesisAccount {
            address: a,
            balance: 10_000_000_000,
        });
    }
    let mut c =
        cowboy_devnet::chain::Chain::new(g, cowboy_devnet::vm::DevnetRuntime::shared()).unwrap();
    c.apply_tx(Transaction::new(
        alice,
        TxKind::Deploy {
            address: Some(actor),
            code: cowboy_devnet::chain::runtime::ActorCode::none(),
            endowment: 1_000_000_000,
        },
    ))
    .unwrap();
    let sched = |c: &mut cowboy_devnet::chain::Chain, gas| {
        let r = c
            .apply_tx(Transaction::new(
                alice,
                TxKind::ActAs {
                    actor,
                    op: TimerOp::ScheduleTimer(ScheduleArgs {
                        height: 10,
                        gas_limit: Some(gas),
                        ..Default::default()
                    }),
                },
            ))
            .unwrap();
        r.timers[0]
    };
    let big = sched(&mut c, 500_000);
    let small = sched(&mut c, 50_000);
    let r = c
        .apply_tx(Transaction::new(
            gov,
            TxKind::System(SystemInstruction::UpdateTimerConfig {
                config: TimerConfig {
                    lane_timer_cycles: 400_000,
                    max_cycles_per_fire: 100_000,
                    ..TimerConfig::default()
                },
            }),
        ))
        .unwrap();
    assert!(r.success, "{r:?}");
    while c.pending_height() < 10 {
        c.seal_block();
    }
    let b = c.seal_block();
    assert_eq!(b.header.height, 10);
    let kinds: Vec<_> = b
        .events
        .iter()
        .map(|e| (e.event.kind(), e.event.timer_id().unwrap()))
        .collect();
    // The lowered max_cycles_per_fire binds the big timer too (§6.2, §6.4): it fires with a
    // 100,000-cycle budget, which the shrunk lane holds, so it no longer waits.
    assert_eq!(
        kinds,
        vec![(EventKind::TimerFired, big), (EventKind::TimerFired, small)]
    );
    assert_eq!(b.eob.lane_reserved, 150_000);
    let TimerEvent::TimerFired { max_cost, .. } = find_fired(b, big) else {
        unreachable!()
    };
    assert_eq!(max_cost, 100_000 + 550_000);
}

/// A deploy without an explicit address lands where `Chain::derive_address` says, and a second
/// one from the same sender gets a new address.
#[test]
fn deploy_without_address_lands_at_the_derived_address() {
    use cowboy_devnet::chain::{Transaction, TxKind};
    let alice = cowboy_devnet::engine::Address::from_label("alice");
    let mut g = cowboy_devnet::chain::Genesis::default();
    g.accounts.push(cowboy_devnet::chain::GenesisAccount {
        address: alice,
        balance: 10_000_000_000,
    });
    let mut c =
        cowboy_devnet::chain::Chain::new(g, cowboy_devnet::vm::DevnetRuntime::shared()).unwrap();
    let deploy = || {
        Transaction::new(
            alice,
            TxKind::Deploy {
                address: None,
                code: cowboy_devnet::chain::runtime::ActorCode::none(),
                endowment: 0,
            },
        )
    };
    let first = c.derive_address(&alice);
    let r = c.apply_tx(deploy()).unwrap();
    assert_eq!(r.created, Some(first));
    let second = c.derive_address(&alice);
    assert_ne!(first, second);
    let r = c.apply_tx(deploy()).unwrap();
    assert_eq!(r.created, Some(second));
    assert!(c.actor(&first).is_some() && c.actor(&second).is_some());
}

// ---- hardening (issue 11): CIP-5 rules the engine got wrong --------------------------------

/// The `error` of a failed fire.
fn fire_error(b: &cowboy_devnet::chain::Block, id: TimerId) -> Failure {
    let TimerEvent::TimerFired { success, error, .. } = find_fired(b, id) else {
        unreachable!()
    };
    assert!(!success, "expected a failed fire");
    error.expect("a failed fire has an error")
}

/// The issue's example: three timers due at one height, each pre-charged 560,000; the first
/// handler cancels the third, the second transfers 600,000. The third's pre-charge is credited
/// on the first handler's commit, so the second handler sees it.
#[test]
fn cip5_4_3_cancelled_precharge_is_refunded_on_the_same_commit() {
    let mut c = chain_with_actors(genesis());
    let own = Address::from_label("own");
    deploy_native(
        &mut c,
        alice(),
        own,
        &format!(
            r#"{{"cancel_t3": [{{"op": "cancel", "key": "t3"}}],
                "pay": [{{"op": "transfer", "to": "{}", "amount": "600000"}}],
                "setup": [{{"op": "schedule", "delta": 3, "payload": "", "gas_limit": 10000, "save_as": "t3"}}]}}"#,
            bob()
        ),
    );
    c.seal_block();
    // 3 × 560,000 pre-charged, 1,000 left over.
    c.set_balance(&own, 3 * 560_000 + 1_000);
    let h = c.pending_height() + 3;
    let named = |handler: &str| ScheduleArgs {
        height: h,
        payload: handler_payload(handler, b""),
        gas_limit: Some(10_000),
        ..ScheduleArgs::default()
    };
    let t1 = schedule(&mut c, own, named("cancel_t3"));
    let t2 = schedule(&mut c, own, named("pay"));
    let r = call(&mut c, alice(), own, "setup");
    assert!(r.success, "{:?}", r.error);
    let t3 = r.timers[0];
    seal_until(&mut c, h);
    let bob_bal = c.balance(&bob());
    let b = c.seal_block().clone();
    assert_eq!(
        eob_kinds(&b),
        vec![
            (EventKind::TimerFired, t1),
            (EventKind::TimerCancelled, t3),
            (EventKind::TimerFired, t2)
        ]
    );
    assert!(timer_events(&b).contains(&&TimerEvent::TimerCancelled {
        timer_id: t3,
        actor: own,
        refund: 560_000,
    }));
    // Before the pay handler: 1,000 + t1's refund (560,000 - 1,300) + t3's refund 560,000.
    let TimerEvent::TimerFired { success, error, .. } = find_fired(&b, t2) else {
        unreachable!()
    };
    assert!(success, "{error:?}");
    assert_eq!(c.balance(&bob()), bob_bal + 600_000);
    // t1: 1,000 base + 100 read + 200 cancel; t2: 1,000 base + 500 transfer.
    assert_eq!(
        c.balance(&own),
        1_000 + 3 * 560_000 - 1_300 - 1_500 - 600_000
    );
    assert_eq!(b.eob.fired, 2);
    assert!(c.timer(&t3).is_none());
    assert_conserved(&c);
}

/// §6.2 "bounded by", §6.4: a `max_cycles_per_fire` lowered after a timer was scheduled binds
/// it at fire time: its budget, `max_cost` and metering follow the cap in force.
#[test]
fn cip5_6_2_lowered_max_cycles_per_fire_binds_timers_already_scheduled() {
    let mut c = chain_with_actors(genesis());
    let w = Address::from_label("worker");
    deploy_native(
        &mut c,
        alice(),
        w,
        r#"{"handle_timer": [{"op": "burn", "cycles": 300000}]}"#,
    );
    c.set_balance(&w, 10_000_000);
    let h = c.pending_height() + 3;
    let t = schedule(&mut c, w, args_gas(h, 550_000));
    let r = system(
        &mut c,
        gov(),
        SystemInstruction::UpdateTimerConfig {
            config: cfg_with(|t| t.max_cycles_per_fire = 100_000),
        },
    );
    assert!(r.success, "{:?}", r.error);
    seal_until(&mut c, h);
    let bal = c.balance(&w);
    let b = c.seal_block().clone();
    let TimerEvent::TimerFired {
        cycles_used,
        max_cost,
        cost,
        ..
    } = find_fired(&b, t)
    else {
        unreachable!()
    };
    assert_eq!(fire_error(&b, t).kind, ErrorKind::OutOfCycles);
    assert_eq!(cycles_used, 100_000, "the cap in force bounds the fire");
    assert_eq!(max_cost, 100_000 + MAX_CELLS);
    assert_eq!(cost, 100_000);
    assert_eq!(b.eob.lane_reserved, 100_000);
    assert_eq!(c.balance(&w), bal - 100_000);
    assert_conserved(&c);
}

/// Spec note 5 and 10 reconciled (§4.2, §5.4): an actor's extension may not leave
/// `expires_at` below the timer's height, whether asked for or produced by the clamp.
#[test]
fn cip5_5_4_actor_extend_below_the_timers_height_is_invalid_input() {
    let mut c = chain_with_actors(genesis());
    let t = schedule(&mut c, actor_a(), args(20));
    let before = c.timer(&t).unwrap().expires_at;
    let r = extend(&mut c, actor_a(), t, 10);
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput, "{:?}", r.error);
    assert!(
        r.error
            .unwrap()
            .message
            .contains("below the timer's height 20")
    );
    // Governance lowers max_ttl_blocks: the clamp would now land below the height.
    let r = system(
        &mut c,
        gov(),
        SystemInstruction::UpdateTimerConfig {
            config: cfg_with(|t| t.max_ttl_blocks = 5),
        },
    );
    assert!(r.success);
    c.seal_block();
    let r = extend(&mut c, actor_a(), t, 1_000);
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput, "{:?}", r.error);
    assert_eq!(c.timer(&t).unwrap().expires_at, before, "nothing changed");
    // At or above the height it is accepted.
    let r = extend(&mut c, actor_a(), t, 20);
    assert_eq!(
        err_kind(&r),
        ErrorKind::InvalidInput,
        "clamped to {} + 5 < 20",
        c.height() + 1
    );
    seal_until(&mut c, 16);
    let r = extend(&mut c, actor_a(), t, 1_000);
    assert!(r.success, "{:?}", r.error);
    assert_eq!(c.timer(&t).unwrap().expires_at, 21);
}

#[test]
fn cip5_5_4_sys_extend_timer_50_below_the_timers_height_is_invalid_input() {
    let mut c = chain_with_actors(genesis());
    let t = schedule(&mut c, actor_a(), args(20));
    let before = c.timer(&t).unwrap().expires_at;
    let ext = |new_expires_at| SystemInstruction::ExtendTimer {
        timer_id: t,
        new_expires_at,
    };
    let r = system(&mut c, gov(), ext(10));
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput, "{:?}", r.error);
    let r = system(
        &mut c,
        gov(),
        SystemInstruction::UpdateTimerConfig {
            config: cfg_with(|t| t.max_ttl_blocks = 5),
        },
    );
    assert!(r.success);
    c.seal_block();
    let r = system(&mut c, gov(), ext(1_000));
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput, "{:?}", r.error);
    assert_eq!(c.timer(&t).unwrap().expires_at, before, "nothing changed");
    // A missing timer is still TimerNotFound (Spec note 10).
    let r = system(
        &mut c,
        gov(),
        SystemInstruction::ExtendTimer {
            timer_id: TimerId([7; 32]),
            new_expires_at: 10,
        },
    );
    assert_eq!(err_kind(&r), ErrorKind::TimerNotFound);
}

/// §4.2 `_handler` convention: JSON whitespace around the object is allowed, `_payload` may be
/// absent; a convention payload with a non-string `_handler` or a `_payload` that is not base64
/// is rejected at schedule time.
#[test]
fn cip5_4_2_handler_convention_accepts_json_whitespace_and_rejects_broken_conventions() {
    let mut c = chain_with_actors(genesis());
    let n = Address::from_label("named");
    deploy_native(
        &mut c,
        alice(),
        n,
        r#"{"tick": [{"op": "emit", "topic": "tick", "data": ""}]}"#,
    );
    c.set_balance(&n, 10_000_000);
    let h = c.pending_height() + 2;
    let with = |payload: &str| ScheduleArgs {
        height: h,
        payload: payload.as_bytes().to_vec(),
        gas_limit: Some(10_000),
        ..ScheduleArgs::default()
    };
    let spaced = schedule(
        &mut c,
        n,
        with(" \n{\"_handler\": \"tick\", \"_payload\": \"aGk=\"}\n"),
    );
    let bare = schedule(&mut c, n, with("{\"_handler\":\"tick\"}"));
    for broken in [
        "{\"_handler\": 7, \"_payload\": \"\"}",
        "{\"_handler\": \"tick\", \"_payload\": \"not base64!\"}",
        "{\"_handler\": \"tick\", \"_payload\": 5}",
    ] {
        assert_schedule_rejected(&mut c, n, with(broken), ErrorKind::InvalidInput);
    }
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    for t in [spaced, bare] {
        let TimerEvent::TimerFired {
            handler, success, ..
        } = find_fired(&b, t)
        else {
            unreachable!()
        };
        assert_eq!((handler.as_str(), success), ("tick", true));
    }
    assert_eq!(c.engine().queue().len(), 0);
}

/// §6.3 "the same burn + tip breakdown as a normal user transaction": a fire pays the base
/// cycles of a transaction, also when its handler does not exist.
#[test]
fn cip5_6_3_fire_pays_the_base_cycles_of_a_transaction_even_without_a_handler() {
    let mut g = genesis();
    g.basefee.cycle_basefee = 2;
    let mut c = chain_with(g);
    let n = Address::from_label("native");
    deploy_native(&mut c, alice(), n, r#"{"other": []}"#);
    c.set_balance(&n, 10_000_000);
    let h = c.pending_height() + 2;
    let missing = schedule(
        &mut c,
        n,
        ScheduleArgs {
            height: h,
            payload: handler_payload("missing", b""),
            gas_limit: Some(10_000),
            ..ScheduleArgs::default()
        },
    );
    // A budget below the base cycles runs out before the handler starts.
    let tiny = schedule(&mut c, n, args_gas(h, 400));
    seal_until(&mut c, h);
    let (bal, burned) = (c.balance(&n), c.burned());
    let b = c.seal_block().clone();
    assert_eq!(fire_error(&b, missing).kind, ErrorKind::HandlerNotFound);
    let TimerEvent::TimerFired {
        cycles_used, cost, ..
    } = find_fired(&b, missing)
    else {
        unreachable!()
    };
    assert_eq!(
        (cycles_used, cost),
        (1_000, 2_000),
        "1,000 base cycles × basefee 2"
    );
    assert_eq!(fire_error(&b, tiny).kind, ErrorKind::OutOfCycles);
    let TimerEvent::TimerFired {
        cycles_used, cost, ..
    } = find_fired(&b, tiny)
    else {
        unreachable!()
    };
    assert_eq!((cycles_used, cost), (400, 800));
    assert_eq!(b.eob.lane_used, 1_400);
    assert_eq!(c.balance(&n), bal - 2_800);
    assert_eq!(c.burned(), burned + 2_800);
    assert_conserved(&c);
}

/// §6.3 "extend_timer on the current timer before returning": the running timer is still
/// addressable; the extension is recorded, the handler succeeds, and the one-shot timer does
/// not fire again.
#[test]
fn cip5_6_3_extend_timer_on_the_current_timer_succeeds_and_does_not_refire() {
    let mut c = chain_with_actors(genesis());
    let s = Address::from_label("selfext");
    deploy_native(
        &mut c,
        alice(),
        s,
        r#"{"handle_timer": [{"op": "extend", "key": "me", "blocks": 10},
                             {"op": "emit", "topic": "after-extend", "data": ""}],
            "setup": [{"op": "schedule", "delta": 2, "payload": "", "gas_limit": 50000, "save_as": "me"}]}"#,
    );
    c.set_balance(&s, 10_000_000);
    let r = call(&mut c, alice(), s, "setup");
    assert!(r.success, "{:?}", r.error);
    let t = r.timers[0];
    let h = c.timer(&t).unwrap().height;
    let old = c.timer(&t).unwrap().expires_at;
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    let TimerEvent::TimerFired { success, error, .. } = find_fired(&b, t) else {
        unreachable!()
    };
    assert!(success, "{error:?}");
    assert!(timer_events(&b).contains(&&TimerEvent::TimerExtended {
        timer_id: t,
        actor: s,
        old_expires_at: old,
        new_expires_at: h + 10,
        no_effect: true,
    }));
    assert!(
        b.events
            .iter()
            .any(|e| e.event.kind() == EventKind::ActorEmitted)
    );
    assert!(c.timer(&t).is_none(), "a fired one-shot timer is removed");
    for _ in 0..12 {
        let b = c.seal_block();
        assert!(fired(b).is_empty());
    }
}

/// Numbers that wrap: every sum of heights is checked; an overflow is `InvalidInput` naming
/// it, never a wrapped height reported as "not in the future" or an `expires_at` below it.
#[test]
fn cip5_4_2_height_sums_that_overflow_are_invalid_input() {
    let mut c = chain_with_actors(genesis());
    let n = Address::from_label("wrap");
    deploy_native(
        &mut c,
        alice(),
        n,
        r#"{"far": [{"op": "schedule", "delta": 18446744073709551615, "payload": ""}],
            "ttl": [{"op": "schedule_many", "count": 1, "delta": 5, "ttl": 18446744073709551615}],
            "setup": [{"op": "schedule", "delta": 5, "payload": "", "save_as": "k"}],
            "ext": [{"op": "extend", "key": "k", "blocks": 18446744073709551615}]}"#,
    );
    for handler in ["far", "ttl"] {
        let r = call(&mut c, alice(), n, handler);
        assert_eq!(
            err_kind(&r),
            ErrorKind::InvalidInput,
            "{handler}: {:?}",
            r.error
        );
        assert!(r.error.unwrap().message.contains("overflows u64"));
    }
    assert!(call(&mut c, alice(), n, "setup").success);
    let r = call(&mut c, alice(), n, "ext");
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput, "{:?}", r.error);
    assert!(r.error.unwrap().message.contains("overflows u64"));

    // current height + max_ttl_blocks (the TTL cap of a schedule and an extension).
    use cowboy_devnet::engine::{ScheduleCtx, clamp_extension, validate_schedule};
    let cfg = cfg_with(|t| t.max_ttl_blocks = u64::MAX);
    let ctx = ScheduleCtx {
        current_height: 5,
        actor: actor_a(),
        tx_sender: actor_a(),
        actor_nonce: 0,
        actor_timers: 0,
    };
    let e = validate_schedule(&cfg, &ctx, args(6)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("overflows u64"), "{e}");
    let e = clamp_extension(&cfg, 5, 6, 10).unwrap_err();
    assert!(e.to_string().contains("overflows u64"), "{e}");
}
