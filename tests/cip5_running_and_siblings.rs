//! CIP-5 §5.4 and §6.3 (issue 20, "CIP-5 paths still open"; Spec note 72): inside an end of
//! block, the timer whose handler is running and the siblings pre-charged to fire after it.

mod common;

use common::*;
use cowboy_devnet::chain::{Chain, ChainEvent, Event};
use cowboy_devnet::engine::timer::handler_payload;
use cowboy_devnet::engine::{Address, EventKind, ScheduleArgs, TimerEvent, TimerId};

/// An actor whose `setup` schedules a timer `delta` blocks ahead saved as `key`, and whose
/// `act` handler runs `ops`; a second timer running `act` is scheduled for the same height
/// before it, so `act` runs first and finds the other pre-charged and waiting.
fn siblings(ops: &str) -> (Chain, Address, TimerId, TimerId, u64) {
    let mut c = chain_with_actors(genesis());
    let own = Address::from_label("own");
    deploy_native(
        &mut c,
        alice(),
        own,
        &format!(
            r#"{{"act": {ops},
                "setup": [{{"op": "schedule", "delta": 3, "payload": "", "gas_limit": 100000, "save_as": "t2"}}]}}"#
        ),
    );
    c.set_balance(&own, 10_000_000);
    let h = c.pending_height() + 3;
    let t1 = schedule(
        &mut c,
        own,
        ScheduleArgs {
            height: h,
            payload: handler_payload("act", b""),
            gas_limit: Some(100_000),
            ..ScheduleArgs::default()
        },
    );
    let r = call(&mut c, alice(), own, "setup");
    assert!(r.success, "{:?}", r.error);
    (c, own, t1, r.timers[0], h)
}

fn success_of(b: &cowboy_devnet::chain::Block, id: TimerId) -> bool {
    let TimerEvent::TimerFired { success, error, .. } = find_fired(b, id) else {
        unreachable!()
    };
    assert!(success, "{error:?}");
    success
}

#[test]
fn cip5_6_3_a_sibling_precharged_in_the_same_end_of_block_can_be_extended() {
    let (mut c, own, t1, t2, h) = siblings(r#"[{"op": "extend", "key": "t2", "blocks": 10}]"#);
    let expires = c.timer(&t2).unwrap().expires_at;
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    assert!(
        success_of(&b, t1),
        "the extend no longer reverts the handler"
    );
    assert!(timer_events(&b).contains(&&TimerEvent::TimerExtended {
        timer_id: t2,
        actor: own,
        old_expires_at: expires,
        new_expires_at: h + 10,
        no_effect: true,
    }));
    // The sibling still fires in this block: the extension changed nothing.
    assert_eq!(
        eob_kinds(&b),
        vec![
            (EventKind::TimerFired, t1),
            (EventKind::TimerExtended, t2),
            (EventKind::TimerFired, t2)
        ]
    );
    assert!(c.timer(&t2).is_none());
    assert_conserved(&c);
}

#[test]
fn cip5_5_4_a_sibling_extended_then_cancelled_refunds_its_precharge() {
    let (mut c, own, t1, t2, h) =
        siblings(r#"[{"op": "extend", "key": "t2", "blocks": 10}, {"op": "cancel", "key": "t2"}]"#);
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    assert!(success_of(&b, t1));
    assert!(timer_events(&b).contains(&&TimerEvent::TimerCancelled {
        timer_id: t2,
        actor: own,
        refund: 650_000,
    }));
    assert_eq!(b.eob.fired, 1, "the cancelled sibling does not fire");
    assert!(!fired(&b).contains(&t2));
    assert_conserved(&c);
}

#[test]
fn cip5_5_4_the_running_timers_own_cancel_is_a_named_outcome_not_a_revert() {
    let mut c = chain_with_actors(genesis());
    let s = Address::from_label("self-cancel");
    deploy_native(
        &mut c,
        alice(),
        s,
        r#"{"handle_timer": [{"op": "cancel", "key": "me"},
                             {"op": "emit", "topic": "after-cancel", "data": ""}],
            "setup": [{"op": "schedule", "delta": 2, "payload": "", "gas_limit": 50000, "save_as": "me"}]}"#,
    );
    c.set_balance(&s, 10_000_000);
    let r = call(&mut c, alice(), s, "setup");
    assert!(r.success, "{:?}", r.error);
    let t = r.timers[0];
    let h = c.timer(&t).unwrap().height;
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    let TimerEvent::TimerFired {
        success,
        error,
        cancelled_while_running,
        ..
    } = find_fired(&b, t)
    else {
        unreachable!()
    };
    assert!(success, "{error:?}");
    assert!(cancelled_while_running, "the outcome is named in its fire");
    // It leaves by one path, its fire: no `TimerCancelled`, and the handler's writes stand.
    assert_eq!(eob_kinds(&b), vec![(EventKind::TimerFired, t)]);
    assert!(b.events.iter().any(|r| matches!(
        &r.event,
        Event::Chain(ChainEvent::ActorEmitted { topic, .. }) if topic == "after-cancel"
    )));
    assert!(c.timer(&t).is_none());
    assert_conserved(&c);
}

#[test]
fn cip5_6_3_an_extend_of_the_running_timer_says_it_changes_nothing() {
    let mut c = chain_with_actors(genesis());
    let s = Address::from_label("self-extend");
    deploy_native(
        &mut c,
        alice(),
        s,
        r#"{"handle_timer": [{"op": "extend", "key": "me", "blocks": 10}],
            "setup": [{"op": "schedule", "delta": 2, "payload": "", "gas_limit": 50000, "save_as": "me"}]}"#,
    );
    c.set_balance(&s, 10_000_000);
    let t = call(&mut c, alice(), s, "setup").timers[0];
    let h = c.timer(&t).unwrap().height;
    seal_until(&mut c, h);
    let b = c.seal_block().clone();
    assert!(success_of(&b, t));
    let extended: Vec<_> = timer_events(&b)
        .into_iter()
        .filter_map(|e| match e {
            TimerEvent::TimerExtended { no_effect, .. } => Some(*no_effect),
            _ => None,
        })
        .collect();
    assert_eq!(extended, vec![true]);
    assert!(c.timer(&t).is_none(), "a fired timer is gone all the same");
}
