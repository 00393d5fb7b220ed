//! Estimates of the CIP-5 drafts' watches and intervals (`timer_estimateDraft`, Spec note
//! 129): the first fire heights, the score a fire enters with (English §8.1, zh §9.1), the
//! fires ranked ahead (§8.2), the quotas (§8.3), `max_cost` and funding, checked against what
//! the mined blocks then do.

mod common;

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{DraftTimerArgs, Genesis, TimerOp, Transaction, TxKind};
use cowboy_devnet::engine::draft::BID_ONE;
use cowboy_devnet::engine::{Address, ErrorKind, ScheduleArgs, SchedulerKind};
use cowboy_devnet::node::{
    DraftTimer, EstimateDraftTimer, EstimateTimer, GovUpdateSchedulerConfig, Mine, NodeConfig,
    NodeCore, ScheduleTimer, SendTx, dev_account,
};
use cowboy_devnet::vm::DevnetRuntime;

const SCRIPT: &str = r#"
fn handle_timer(payload) {
    emit("fired", `at height ${block_height()}`);
}
"#;

fn node(kind: SchedulerKind, per_target: u32) -> (NodeCore, Address) {
    let mut g = Genesis {
        scheduler: kind,
        ..Genesis::default()
    };
    g.cip5_draft.max_fires_per_target = per_target;
    let mut n = NodeCore::new(NodeConfig::new(g, DevnetRuntime::shared())).expect("genesis");
    let a = common::node_deploy(&mut n, ActorCode::rhai("w", SCRIPT), "w");
    (n, a)
}

fn draft(actor: Address, interval: bool, args: DraftTimerArgs) -> DraftTimer {
    DraftTimer {
        actor,
        interval,
        args,
        ..Default::default()
    }
}

/// zh §11 / §9.1: an interval's estimate lists its fire heights and the score its fire enters
/// with; mined, it fires at each of them, with the estimated id, within the quotas.
#[test]
fn zh_11_interval_estimate_matches_the_mined_fires() {
    let (mut n, a) = node(SchedulerKind::Cip5DraftZh, 4);
    let args = DraftTimerArgs {
        every: Some(3),
        bid: Some(2),
        ..Default::default()
    };
    let e = EstimateDraftTimer(draft(a, true, args.clone()))
        .estimate(&n)
        .expect("estimate");
    assert_eq!(e.error, None);
    let first = e.first_block.expect("a first block");
    assert_eq!(e.due_heights[..3], [first, first + 3, first + 6]);
    assert_eq!(e.score, 2 * BID_ONE);
    assert_eq!((e.ahead, e.fires_in_first_block), (0, true));
    let f = e.funding.clone().expect("funding");
    assert!(f.funded && f.needed == e.max_cost && f.fee_payer == a);
    let reg = n.apply(draft(a, true, args)).expect("registers");
    assert_eq!(Some(reg.timer_id), e.timer_id, "the estimated id");
    let mut fired = Vec::new();
    while n.height() < first + 6 {
        n.apply(Mine { blocks: 1 }).unwrap();
        let d = n.chain().engine().policies().draft_state();
        fired.extend(
            d.mailbox
                .iter()
                .filter(|m| m.height == n.height())
                .map(|m| {
                    assert_eq!(m.timer_id, reg.timer_id);
                    m.height
                }),
        );
    }
    assert_eq!(fired, e.due_heights[..3]);
}

/// English §8.2 / §8.3: a watch whose first block already holds a better fire of its target
/// is estimated behind it and over `MAX_FIRES_PER_TARGET`; mined, its fire waits in the
/// Globalbox with the estimated score.
#[test]
fn english_8_watch_estimate_matches_the_globalbox() {
    let (mut n, a) = node(SchedulerKind::Cip5Draft, 1);
    let h = n.chain().pending_height() + 2;
    n.apply(ScheduleTimer {
        actor: a,
        args: ScheduleArgs {
            height: h,
            bid: Some(5),
            ..ScheduleArgs::default()
        },
        ..Default::default()
    })
    .expect("schedules");
    let args = DraftTimerArgs {
        keys: vec!["k".into()],
        bid: Some(1),
        ..Default::default()
    };
    let e = EstimateDraftTimer(draft(a, false, args.clone()))
        .estimate(&n)
        .expect("estimate");
    assert_eq!(e.first_block, Some(h));
    assert!(e.due_heights.is_empty());
    assert_eq!((e.ahead, e.ahead_same_target), (1, 1));
    assert!(!e.fires_in_first_block);
    let reg = n.apply(draft(a, false, args)).expect("registers");
    assert_eq!(Some(reg.timer_id), e.timer_id);
    let write = Transaction::new(
        dev_account(1),
        TxKind::ActAs {
            actor: a,
            op: TimerOp::WriteKey {
                key: "k".into(),
                value: "v".into(),
            },
        },
    );
    let out = n.apply(SendTx(write)).expect("writes");
    assert_eq!(
        out.sealed,
        Some(h),
        "the write is in the watch's first block"
    );
    let d = n.chain().engine().policies().draft_state();
    let queued: Vec<_> = d.globalbox.iter().map(|g| (g.timer_id, g.score)).collect();
    assert_eq!(
        queued,
        vec![(reg.timer_id, e.score)],
        "waits with the estimated score"
    );
}

/// A registration the chain would refuse is estimated with its named error.
#[test]
fn estimate_names_the_refusal() {
    let (n, a) = node(SchedulerKind::Cip5Draft, 4);
    let args = DraftTimerArgs {
        every: Some(3),
        ..Default::default()
    };
    let e = EstimateDraftTimer(draft(a, true, args))
        .estimate(&n)
        .expect("estimate");
    assert_eq!(
        e.error.map(|f| f.kind),
        Some(ErrorKind::InvalidInput),
        "no intervals in the English draft"
    );
}

/// English §12 / Spec note 128: under a draft scheduler `timer_estimate` of a height timer
/// makes the drafts' limits (`MIN_GAS_LIMIT_PER_TIMER`, `MAX_PAYLOAD_SIZE`) as `timer_schedule`
/// does, from the same check: after governance raises them, the estimate answers the schedule's
/// refusal, and the refused schedule changes nothing (no block, no nonce, no fee).
#[test]
fn english_12_timer_estimate_answers_the_schedules_refusal() {
    let (mut n, a) = node(SchedulerKind::Cip5Draft, 4);
    let mut fields = serde_json::Map::new();
    fields.insert("min_gas_limit_per_timer".into(), 1_000.into());
    fields.insert("max_payload_size".into(), 4.into());
    n.apply(GovUpdateSchedulerConfig {
        from: dev_account(0),
        fields,
    })
    .expect("governance");
    n.apply(Mine { blocks: 1 }).unwrap();
    let params = n.chain().engine().policies().draft_params();
    assert_eq!(
        (params.min_gas_limit_per_timer, params.max_payload_size),
        (1_000, 4)
    );
    let h = n.chain().pending_height() + 3;
    let sched = |gas_limit: u64, payload: &[u8]| ScheduleTimer {
        actor: a,
        args: ScheduleArgs {
            height: h,
            gas_limit: Some(gas_limit),
            payload: payload.to_vec(),
            ..ScheduleArgs::default()
        },
        ..Default::default()
    };
    for (gas, payload, what) in [
        (999, &b""[..], "MIN_GAS_LIMIT_PER_TIMER"),
        (1_000, &b"hello"[..], "MAX_PAYLOAD_SIZE"),
    ] {
        let e = EstimateTimer(sched(gas, payload))
            .estimate(&n)
            .expect("estimate");
        let refusal = e.error.expect("the estimate names the refusal");
        assert_eq!(refusal.kind, ErrorKind::InvalidInput);
        assert!(refusal.message.contains(what), "{refusal:?}");
        assert!(e.auction.is_none() && e.funding.is_none());
        let (root, height, balance) = (n.head().state_root, n.height(), n.chain().balance(&a));
        // Refused before it is sent, by the chain's one refusal path (Spec note 156).
        let err = n.apply(sched(gas, payload)).unwrap_err();
        assert_eq!(
            err.failure(),
            refusal,
            "the estimate answers the schedule's error"
        );
        assert_eq!(
            (n.head().state_root, n.height(), n.chain().balance(&a)),
            (root, height, balance),
            "a refused schedule changes nothing"
        );
    }
    // At the floor and within the size both pass, estimated and scheduled alike.
    let e = EstimateTimer(sched(1_000, b"hi"))
        .estimate(&n)
        .expect("estimate");
    assert_eq!(e.error, None);
    let s = n.apply(sched(1_000, b"hi")).expect("schedules");
    assert_eq!(Some(s.timer_id), e.timer_id);
}
