//! The CIP-5 drafts' idempotent set (English §6.2, zh §7.2 幂等设置): `(owner, target,
//! client_nonce)` maps to a stable `timer_id`; a repeat updates `payload` / `gas_limit` / `bid`
//! (English §6.2: a fire queued in the Globalbox keeps its position; zh §7.2: `fifo_rank` is
//! raised); a mismatch is refused and changes nothing; the bindings are state (root, snapshots,
//! dumps, exports). Spec notes 122-125.

mod common;

use common::*;
use cowboy_devnet::chain::{Chain, DraftTimerArgs, TimerOp};
use cowboy_devnet::engine::draft::NonceKey;
use cowboy_devnet::engine::{
    Address, ErrorKind, EventKind, ScheduleArgs, SchedulerKind, TimerEvent, TimerId,
};
use proptest::prelude::*;

const BOTH: [SchedulerKind; 2] = [SchedulerKind::Cip5DraftZh, SchedulerKind::Cip5Draft];

fn at_nonce(height: u64, nonce: u64) -> ScheduleArgs {
    ScheduleArgs {
        height,
        client_nonce: Some(nonce),
        ..ScheduleArgs::default()
    }
}

fn watch_op(keys: &[&str], nonce: u64) -> TimerOp {
    TimerOp::SetStateWatch(DraftTimerArgs {
        keys: keys.iter().map(|k| k.to_string()).collect(),
        client_nonce: Some(nonce),
        ..Default::default()
    })
}

fn live_for(c: &Chain, actor: Address, nonce: u64) -> Vec<TimerId> {
    let key = NonceKey {
        owner: actor,
        target: actor,
        client_nonce: nonce,
    };
    let d = c.engine().policies().draft_state();
    d.nonce_entry(&key, c.pending_height())
        .filter(|e| !e.left)
        .map(|e| e.timer_id)
        .into_iter()
        .filter(|id| d.meta.contains_key(id))
        .collect()
}

/// The `TimerUpdated` events of block `h`.
fn updates(c: &Chain, h: u64) -> Vec<TimerEvent> {
    let b = c.block(h).expect("sealed");
    timer_events(&b)
        .into_iter()
        .filter(|e| e.kind() == EventKind::TimerUpdated)
        .cloned()
        .collect()
}

fn fired_at(c: &Chain, h: u64) -> Vec<TimerId> {
    c.block(h).map(|b| fired(&b)).unwrap_or_default()
}

/// English §6.2 / zh §7.2: a repeat returns the same `timer_id`, creates nothing (one timer,
/// the actor's nonce unchanged), is charged as the registration and updates the timer.
#[test]
fn english_6_2_a_repeat_returns_the_same_timer_and_leaves_one() {
    for kind in BOTH {
        let mut c = draft_chain(kind, |_| {});
        let first = try_schedule(&mut c, actor_a(), at_nonce(9, 7));
        assert!(first.success, "{kind}: {:?}", first.error);
        let id = first.timers[0];
        let nonce = c.nonce(&actor_a());
        let again = try_schedule(
            &mut c,
            actor_a(),
            ScheduleArgs {
                payload: b"new".to_vec(),
                gas_limit: Some(60_000),
                bid: Some(4),
                ..at_nonce(9, 7)
            },
        );
        assert!(again.success, "{kind}: {:?}", again.error);
        assert!(
            again.timers.is_empty(),
            "{kind}: a repeat schedules nothing"
        );
        assert_eq!(c.nonce(&actor_a()), nonce, "{kind}: no new id derived");
        assert!(again.fee > 0, "{kind}: an included transaction pays");
        assert_eq!(live_for(&c, actor_a(), 7), vec![id]);
        assert_eq!(c.engine().queue().len(), 1, "{kind}: one timer");
        let t = c.engine().get(&id).expect("live");
        assert_eq!((&*t.payload, t.gas_limit_per_fire), (&b"new"[..], 60_000));
        assert_eq!(
            c.engine().policies().draft_state().meta[&id].bid_fp,
            4u128 << 96,
            "{kind}: the new bid"
        );
        // A watch: the same.
        let w = act_as(&mut c, alice(), actor_a(), watch_op(&["k"], 8));
        let w2 = act_as(&mut c, alice(), actor_a(), watch_op(&["k"], 8));
        assert!(w.success && w2.success);
        assert_eq!(live_for(&c, actor_a(), 8), w.timers);
        assert_eq!(c.engine().policies().draft_state().watches.len(), 1);
        // Another actor's nonce 7 is another key.
        let b = try_schedule(&mut c, actor_b(), at_nonce(9, 7));
        assert!(b.success && b.timers[0] != id);
        c.seal_block();
        assert_eq!(
            updates(&c, c.height()).len(),
            2,
            "{kind}: TimerUpdated (height, watch)"
        );
        // Fired once at 9, whatever the repeats.
        seal_until(&mut c, 10);
        let fires = fired_at(&c, 9);
        assert_eq!(fires.iter().filter(|f| **f == id).count(), 1, "{kind}");
        assert_conserved(&c);
    }
}

/// A repeat in the same execution as the registration (two host calls in one transaction's
/// handler) names the timer being created; after the timer fired, a repeat returns its id and
/// schedules nothing (the binding is kept until the `expires_at` it was registered with);
/// past it, the key is free again.
#[test]
fn english_6_2_after_the_timer_left_a_repeat_changes_nothing_until_its_ttl() {
    for kind in BOTH {
        let mut c = draft_chain(kind, |_| {});
        let id = schedule(
            &mut c,
            actor_a(),
            ScheduleArgs {
                expires_at: Some(12),
                ..at_nonce(4, 1)
            },
        );
        seal_until(&mut c, 5);
        assert!(c.engine().get(&id).is_none(), "{kind}: fired at 4");
        let r = try_schedule(&mut c, actor_a(), at_nonce(4, 1));
        assert!(r.success, "{kind}: {:?}", r.error);
        assert!(r.timers.is_empty());
        assert_eq!(c.engine().queue().len(), 0, "{kind}: nothing new");
        // A different kind is still a mismatch.
        let w = act_as(&mut c, alice(), actor_a(), watch_op(&["k"], 1));
        assert_eq!(err_kind(&w), ErrorKind::InvalidInput, "{kind}");
        seal_until(&mut c, 13);
        let r = try_schedule(&mut c, actor_a(), at_nonce(20, 1));
        assert!(r.success, "{kind}: {:?}", r.error);
        assert_eq!(r.timers.len(), 1, "{kind}: a new timer past the TTL");
        assert_ne!(r.timers[0], id);
    }
}

/// A repeat that does not restate the timer (its kind, keys, height, interval, fee payer,
/// `expires_at`) is `InvalidInput` and the transaction reverts: the timer is unchanged.
#[test]
fn english_6_2_a_mismatch_is_invalid_input() {
    let mut c = draft_chain(SchedulerKind::Cip5DraftZh, |_| {});
    let id = schedule(&mut c, actor_a(), at_nonce(9, 3));
    act_as(&mut c, alice(), actor_a(), watch_op(&["a", "b"], 4));
    let iv = act_as(
        &mut c,
        alice(),
        actor_a(),
        TimerOp::SetInterval(DraftTimerArgs {
            every: Some(5),
            client_nonce: Some(5),
            ..Default::default()
        }),
    );
    assert!(iv.success);
    let root = c.engine().policies().draft_state().root_part();
    let bad = [
        try_schedule(&mut c, actor_a(), at_nonce(10, 3)),
        act_as(&mut c, alice(), actor_a(), watch_op(&["k"], 3)),
        act_as(&mut c, alice(), actor_a(), watch_op(&["a"], 4)),
        try_schedule(&mut c, actor_a(), at_nonce(9, 4)),
        act_as(
            &mut c,
            alice(),
            actor_a(),
            TimerOp::SetInterval(DraftTimerArgs {
                every: Some(6),
                client_nonce: Some(5),
                ..Default::default()
            }),
        ),
        try_schedule(
            &mut c,
            actor_a(),
            ScheduleArgs {
                fee_payer: Some(alice()),
                ..at_nonce(9, 3)
            },
        ),
        try_schedule(
            &mut c,
            actor_a(),
            ScheduleArgs {
                expires_at: Some(11),
                ..at_nonce(9, 3)
            },
        ),
        try_schedule(
            &mut c,
            actor_a(),
            ScheduleArgs {
                gas_limit: Some(0),
                ..at_nonce(9, 3)
            },
        ),
    ];
    for r in &bad {
        assert_eq!(err_kind(r), ErrorKind::InvalidInput, "{:?}", r.error);
        let m = &r.error.as_ref().unwrap().message;
        assert!(m.contains("client_nonce") || m.contains("gas_limit"), "{m}");
    }
    assert_eq!(
        c.engine().policies().draft_state().root_part(),
        root,
        "the drafts' state unchanged"
    );
    assert!(c.engine().get(&id).is_some());
}

/// English §5.3 / §6.2: a fire queued in the Globalbox keeps its frozen position when its
/// timer is updated (a higher bid does not move it ahead); under zh (no Globalbox, candidates
/// re-sorted every block) the new bid counts from the next block.
#[test]
fn english_6_2_a_queued_fire_keeps_its_position_zh_resorts() {
    for kind in BOTH {
        let mut c = draft_chain(kind, |g| g.cip5_draft.max_fires_per_block = 1);
        let ids: Vec<TimerId> = [(3, 1), (2, 2), (1, 3)]
            .iter()
            .map(|&(bid, n)| {
                schedule(
                    &mut c,
                    actor_a(),
                    ScheduleArgs {
                        bid: Some(bid),
                        ..at_nonce(5, n)
                    },
                )
            })
            .collect();
        seal_until(&mut c, 6);
        assert_eq!(fired_at(&c, 5), vec![ids[0]], "{kind}");
        if kind == SchedulerKind::Cip5Draft {
            let gb: Vec<TimerId> = c
                .engine()
                .policies()
                .draft_state()
                .globalbox
                .iter()
                .map(|g| g.timer_id)
                .collect();
            assert_eq!(gb, vec![ids[1], ids[2]], "queued in score order");
        }
        // Block 6's transactions: the last one bids 1000 and has a new payload.
        let r = try_schedule(
            &mut c,
            actor_a(),
            ScheduleArgs {
                bid: Some(1000),
                payload: b"late".to_vec(),
                ..at_nonce(5, 3)
            },
        );
        assert!(r.success, "{kind}: {:?}", r.error);
        c.seal_block();
        let at6 = fired_at(&c, 6);
        match kind {
            SchedulerKind::Cip5Draft => {
                assert_eq!(at6, vec![ids[1]], "the queued order is frozen");
                let gb: Vec<TimerId> = c
                    .engine()
                    .policies()
                    .draft_state()
                    .globalbox
                    .iter()
                    .map(|g| g.timer_id)
                    .collect();
                assert_eq!(gb, vec![ids[2]]);
            }
            _ => assert_eq!(at6, vec![ids[2]], "zh re-sorts: the new bid wins"),
        }
        seal_until(&mut c, 8);
        let late = if kind == SchedulerKind::Cip5Draft {
            7
        } else {
            6
        };
        assert!(fired_at(&c, late).contains(&ids[2]), "{kind}");
        let mb = &c.engine().policies().draft_state().mailbox;
        if kind == SchedulerKind::Cip5Draft {
            assert_eq!(
                mb[0].bid_fp,
                1000u128 << 96,
                "materialized with the new bid"
            );
        }
        assert_conserved(&c);
    }
}

/// zh §7.2 "更新 payload/gas_limit/bid 会提升 fifo_rank": with `W_fifo` the only weight, the
/// older of two timers due together fires first; after a repeat updates it, its `fifo_rank`
/// is raised and the other goes first. The variant `update_fifo_rank = keep` (the English
/// reading) keeps the order.
#[test]
fn zh_7_2_an_update_raises_fifo_rank_unless_keep() {
    for keep in [false, true] {
        let mut c = draft_chain(SchedulerKind::Cip5DraftZh, |g| {
            g.cip5_draft.max_fires_per_block = 1;
            g.cip5_draft.w_fifo = 1;
            g.cip5_draft.w_bid = 0;
            if keep {
                g.cip1.variants.set("update_fifo_rank", "keep").unwrap();
            }
        });
        let a = schedule(&mut c, actor_a(), at_nonce(6, 1));
        let b = schedule(&mut c, actor_b(), at_nonce(6, 1));
        let rank = c.engine().policies().draft_state().meta[&a].fifo_rank;
        c.seal_block();
        let r = try_schedule(
            &mut c,
            actor_a(),
            ScheduleArgs {
                payload: b"v2".to_vec(),
                ..at_nonce(6, 1)
            },
        );
        assert!(r.success, "{:?}", r.error);
        let raised = c.engine().policies().draft_state().meta[&a].fifo_rank;
        c.seal_block();
        let ev: Vec<bool> = updates(&c, c.height())
            .iter()
            .map(|e| {
                matches!(
                    e,
                    TimerEvent::TimerUpdated {
                        fifo_rank_raised: true,
                        ..
                    }
                )
            })
            .collect();
        assert_eq!(ev, vec![!keep]);
        seal_until(&mut c, 7);
        let first = fired_at(&c, 6);
        if keep {
            assert_eq!(raised, rank, "kept");
            assert_eq!(first, vec![a], "the older fires first");
        } else {
            assert!(
                raised
                    > c.engine()
                        .policies()
                        .draft_state()
                        .meta
                        .get(&b)
                        .map_or(0, |m| m.fifo_rank)
            );
            assert_eq!(
                first,
                vec![b],
                "the updated timer went to the back of the FIFO"
            );
        }
    }
}

/// Under `fifo`, `eip1559` and `cip1-v1` a `client_nonce` is refused by name.
#[test]
fn a_client_nonce_is_refused_by_name_under_the_other_schedulers() {
    for kind in [
        SchedulerKind::Fifo,
        SchedulerKind::Eip1559,
        SchedulerKind::Cip1V1,
    ] {
        let mut c = draft_chain(kind, |_| {});
        let r = try_schedule(&mut c, actor_a(), at_nonce(9, 1));
        assert_eq!(err_kind(&r), ErrorKind::InvalidInput, "{kind}");
        let m = &r.error.as_ref().unwrap().message;
        assert!(m.contains("cip5-draft or cip5-draft-zh"), "{kind}: {m}");
        assert_eq!(c.engine().queue().len(), 0);
    }
}

fn random_op() -> impl Strategy<Value = (u8, u8, u8, u8)> {
    // (what: schedule/watch/cancel/mine, actor, nonce, key/height)
    (0u8..4, 0u8..2, 0u8..3, 0u8..3)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// English §6.2: random registrations with repeated nonces never make two live timers for
    /// one `(owner, target, client_nonce)`, and every live binding names a live timer.
    #[test]
    fn english_6_2_never_two_live_timers_for_one_key(ops in prop::collection::vec(random_op(), 1..40)) {
        for kind in BOTH {
            let mut c = draft_chain(kind, |_| {});
            let actors = [actor_a(), actor_b()];
            for &(what, a, n, k) in &ops {
                let actor = actors[a as usize];
                let n = n as u64;
                match what {
                    0 => {
                        let h = c.pending_height() + 1 + k as u64;
                        try_schedule(&mut c, actor, at_nonce(h, n));
                    }
                    1 => { act_as(&mut c, alice(), actor, watch_op(&[["x", "y", "z"][k as usize]], n)); }
                    2 => {
                        let ids = live_for(&c, actor, n);
                        if let Some(id) = ids.first() { cancel(&mut c, actor, *id); }
                    }
                    _ => { c.seal_block(); }
                }
                let d = c.engine().policies().draft_state();
                let mut per_key = std::collections::BTreeMap::new();
                for (k, e) in &d.nonces {
                    if !e.left {
                        prop_assert!(d.meta.contains_key(&e.timer_id), "{kind}: a live binding names a live timer");
                        *per_key.entry(*k).or_insert(0) += 1;
                    }
                }
                let bound: std::collections::BTreeSet<TimerId> =
                    d.nonces.values().filter(|e| !e.left).map(|e| e.timer_id).collect();
                prop_assert_eq!(bound.len(), d.nonces.values().filter(|e| !e.left).count());
                prop_assert!(d.meta.len() <= c.engine().queue().len() + d.watches.len() + 1);
            }
            assert_conserved(&c);
        }
    }
}
