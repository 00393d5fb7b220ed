//! The CIP-5 drafts' governance-tunable parameters (English §12, zh §13; Spec note 126) set
//! through `SYS_UPDATE_SCHEDULER_CONFIG` (51) and in force from the next block; the §12 limits
//! (`MIN_GAS_LIMIT_PER_TIMER`, `MAX_PAYLOAD_SIZE`, `MAX_TIMERS_PER_TARGET`); watches counted
//! against the caps and swept at their TTL (English §14, CIP-5 §5.4; Spec notes 127-128);
//! `extend_timer` on a watch (CIP-5 §6.3).

mod common;

use common::*;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Chain, DraftTimerArgs, Genesis, SystemInstruction, TimerOp};
use cowboy_devnet::engine::draft::DraftParams;
use cowboy_devnet::engine::{
    Address, ErrorKind, EventKind, ScheduleArgs, SchedulerKind, TimerEvent, TimerId,
};
use cowboy_devnet::node::{
    DraftTimer, GovUpdateSchedulerConfig, Mine, NodeConfig, NodeCore, dev_account,
};
use cowboy_devnet::scenario::{LoadedFixture, RunOptions, Scenario, builtin};
use cowboy_devnet::vm::DevnetRuntime;

const BOTH: [SchedulerKind; 2] = [SchedulerKind::Cip5DraftZh, SchedulerKind::Cip5Draft];

fn set_draft(c: &mut Chain, from: Address, d: DraftParams) -> cowboy_devnet::chain::Receipt {
    let config = c.engine().next_scheduler_params();
    system(
        c,
        from,
        SystemInstruction::UpdateSchedulerConfig {
            config,
            draft: Some(d),
        },
    )
}

fn try_watch(c: &mut Chain, on: Address, expires_at: Option<u64>) -> cowboy_devnet::chain::Receipt {
    act_as(
        c,
        alice(),
        on,
        TimerOp::SetStateWatch(DraftTimerArgs {
            keys: vec!["k".into()],
            expires_at,
            ..Default::default()
        }),
    )
}

fn watch(c: &mut Chain, on: Address, expires_at: Option<u64>) -> TimerId {
    let r = try_watch(c, on, expires_at);
    assert!(r.success, "watch refused: {:?}", r.error);
    r.timers[0]
}

fn expired(b: &cowboy_devnet::chain::Block) -> Vec<TimerId> {
    timer_events(b)
        .into_iter()
        .filter_map(|e| match e {
            TimerEvent::TimerExpired { timer_id, .. } => Some(*timer_id),
            _ => None,
        })
        .collect()
}

/// English §12 / zh §13, Spec note 126: a quota set in block `h` applies from `h + 1`; block
/// `h` still plans under the old one. The CIP-1 v3 parameters and their root part stay as
/// they were (the update named draft fields only).
#[test]
fn english_12_governance_sets_the_quotas_from_the_next_block() {
    for kind in BOTH {
        let mut c = draft_chain(kind, |_| {});
        let h = c.pending_height() + 2;
        for a in [actor_a(), actor_b()] {
            schedule(&mut c, a, args(h));
            schedule(&mut c, a, args(h + 1));
        }
        seal_until(&mut c, h);
        let cip1 = (
            c.engine().policy_root_parts()[0].clone(),
            c.cip1_config().clone(),
        );
        let mut d = c.engine().policies().draft_params();
        d.max_fires_per_block = 1;
        assert!(set_draft(&mut c, gov(), d).success);
        assert_eq!(c.engine().next_draft_params(), d);
        let b = c.seal_block().clone();
        assert_eq!(b.header.height, h);
        assert_eq!(
            fired(&b).len(),
            2,
            "{kind}: block h plans under the old quota"
        );
        assert!(timer_events(&b).iter().any(|e| matches!(e,
            TimerEvent::SchedulerConfigUpdated { draft: Some(p), .. } if *p == d)));
        assert_eq!(
            c.engine().policies().draft_params(),
            d,
            "{kind}: in force once h is sealed"
        );
        let b = c.seal_block().clone();
        assert_eq!(fired(&b).len(), 1, "{kind}: h + 1 under the new quota");
        assert_eq!(
            (
                c.engine().policy_root_parts()[0].clone(),
                c.cip1_config().clone()
            ),
            cip1,
            "{kind}: the CIP-1 v3 state is untouched"
        );
        // The state root commits the parameters: a dump reloads to the same root.
        let dump = c.dump().expect("no open block");
        let loaded = Chain::load(dump, c.runtime().clone()).expect("loads");
        assert_eq!(loaded.state_root(), c.state_root());
        assert_eq!(loaded.engine().policies().draft_params(), d);
    }
}

/// English §12: refused values (a zero quota, a payload limit over CIP-5's 1 MiB), a sender
/// who is not a system deployer, and draft fields under a scheduler without the drafts change
/// nothing and make no event.
#[test]
fn english_12_refused_values_change_nothing() {
    let mut c = draft_chain(SchedulerKind::Cip5Draft, |_| {});
    c.seal_block();
    let before = c.engine().policies().draft_params();
    let mut zero = before;
    zero.max_fires_per_block = 0;
    assert_eq!(
        err_kind(&set_draft(&mut c, gov(), zero)),
        ErrorKind::InvalidInput
    );
    let mut big = before;
    big.max_payload_size = 2 << 20;
    assert_eq!(
        err_kind(&set_draft(&mut c, gov(), big)),
        ErrorKind::InvalidInput
    );
    let mut fine = before;
    fine.w_bid = 3;
    assert_eq!(
        err_kind(&set_draft(&mut c, alice(), fine)),
        ErrorKind::Unauthorized
    );
    assert_eq!(c.engine().next_draft_params(), before);
    let b = c.seal_block().clone();
    assert!(
        !timer_events(&b)
            .iter()
            .any(|e| e.kind() == EventKind::SchedulerConfigUpdated)
    );
    assert_eq!(c.engine().policies().draft_params(), before);

    let mut fifo = draft_chain(SchedulerKind::Fifo, |_| {});
    fifo.seal_block();
    let root = fifo.state_root();
    let r = set_draft(&mut fifo, gov(), fine);
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput, "{:?}", r.error);
    fifo.seal_block();
    assert!(
        fifo.engine().policies().draft_state().is_pristine(),
        "no draft state under fifo"
    );
    assert_ne!(root, fifo.state_root(), "(a block was sealed)");
}

/// English §12 robustness and abuse limits: `MIN_GAS_LIMIT_PER_TIMER`, `MAX_PAYLOAD_SIZE` and
/// `MAX_TIMERS_PER_TARGET` (watches counted) refuse by name.
#[test]
fn english_12_min_gas_payload_and_per_target_cap() {
    let mut c = draft_chain(SchedulerKind::Cip5DraftZh, |g| {
        g.cip5_draft.min_gas_limit_per_timer = 1_000;
        g.cip5_draft.max_payload_size = 4;
        g.cip5_draft.max_timers_per_target = 2;
    });
    let h = c.pending_height() + 3;
    let r = try_schedule(&mut c, actor_a(), args_gas(h, 999));
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput, "{:?}", r.error);
    let r = try_schedule(
        &mut c,
        actor_a(),
        ScheduleArgs {
            payload: b"hello".to_vec(),
            ..args(h)
        },
    );
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput, "{:?}", r.error);
    watch(&mut c, actor_a(), None);
    schedule(&mut c, actor_a(), args(h));
    let r = try_watch(&mut c, actor_a(), None);
    assert_eq!(err_kind(&r), ErrorKind::TimerCapExceeded, "{:?}", r.error);
    let r = try_schedule(&mut c, actor_a(), args(h));
    assert_eq!(err_kind(&r), ErrorKind::TimerCapExceeded, "{:?}", r.error);
    // Another target is not held back.
    watch(&mut c, actor_b(), None);
}

/// English §14 / §12 "MAX_TIMERS_PER_OWNER" (CIP-5's `max_timers_per_actor`): a watch counts
/// against the cap; a cancelled one frees its place.
#[test]
fn english_14_a_watch_over_the_cap_is_refused() {
    let mut c = draft_chain(SchedulerKind::Cip5Draft, |g| {
        g.timer.max_timers_per_actor = 2;
    });
    let w1 = watch(&mut c, actor_a(), None);
    watch(&mut c, actor_a(), None);
    let r = try_watch(&mut c, actor_a(), None);
    assert_eq!(err_kind(&r), ErrorKind::TimerCapExceeded, "{:?}", r.error);
    c.seal_block();
    let h = c.pending_height() + 2;
    let r = try_schedule(&mut c, actor_a(), args(h));
    assert_eq!(err_kind(&r), ErrorKind::TimerCapExceeded, "{:?}", r.error);
    assert!(cancel(&mut c, actor_a(), w1).success);
    watch(&mut c, actor_a(), None);
}

/// English §14 "Timer GC / TTL", Spec note 127: an idle watch is removed in the first block
/// past its `expires_at`, with `TimerExpired`, whether the blocks are sealed one by one or
/// jumped quiet; the root replays through a dump and load.
#[test]
fn english_14_an_idle_watch_expires_at_its_ttl() {
    for kind in BOTH {
        let mut c = draft_chain(kind, |_| {});
        let exp = c.pending_height() + 4;
        let w = watch(&mut c, actor_a(), Some(exp));
        let keep = watch(&mut c, actor_a(), None);
        seal_until(&mut c, exp);
        let dump = c.dump().expect("no open block");
        let mut loaded = Chain::load(dump, c.runtime().clone()).expect("loads");
        let b = c.seal_block().clone();
        assert!(
            expired(&b).is_empty(),
            "{kind}: live through its expires_at"
        );
        let b = c.seal_block().clone();
        assert_eq!(b.header.height, exp + 1);
        assert_eq!(expired(&b), vec![w], "{kind}");
        assert!(c.engine().policies().watch(&w).is_none());
        assert!(c.engine().policies().watch(&keep).is_some());
        assert_eq!(c.engine().policies().watches_of(&actor_a()), 1);
        // The loaded copy jumps quiet heights: the jump stops at the sweep.
        while loaded.height() < exp + 1 {
            if loaded.jump_quiet(100) == 0 {
                loaded.seal_block();
            }
        }
        assert_eq!(loaded.height(), exp + 1);
        assert_eq!(loaded.state_root(), c.state_root(), "{kind}");
        assert!(loaded.engine().policies().watch(&w).is_none());
    }
}

/// CIP-5 §5.4 GC budget, Spec note 127: the sweep draws from `gc_cycles_per_block`; a watch
/// it does not reach is swept first in the next block.
#[test]
fn english_14_the_sweep_spends_the_gc_budget() {
    let mut c = draft_chain(SchedulerKind::Cip5Draft, |g| {
        g.timer.gc_cycles_per_block = 5_000;
    });
    let exp = c.pending_height() + 2;
    let w1 = watch(&mut c, actor_a(), Some(exp));
    let w2 = watch(&mut c, actor_b(), Some(exp));
    seal_until(&mut c, exp + 1);
    let b = c.seal_block().clone();
    assert_eq!(expired(&b), vec![w1.min(w2)]);
    let b = c.seal_block().clone();
    assert_eq!(expired(&b), vec![w1.max(w2)]);
}

/// CIP-5 §6.3 `extend_timer` / `SYS_EXTEND_TIMER` (50) on a watch move its `expires_at`: it
/// expires at the new TTL, not the old one.
#[test]
fn cip5_6_3_extend_timer_on_a_watch() {
    let mut c = draft_chain(SchedulerKind::Cip5DraftZh, |_| {});
    let exp = c.pending_height() + 3;
    let w = watch(&mut c, actor_a(), Some(exp));
    let g = watch(&mut c, actor_b(), Some(exp));
    c.seal_block();
    let r = extend(&mut c, actor_a(), w, exp + 5);
    assert!(r.success, "{:?}", r.error);
    let r = system(
        &mut c,
        gov(),
        SystemInstruction::ExtendTimer {
            timer_id: g,
            new_expires_at: exp + 2,
        },
    );
    assert!(r.success, "{:?}", r.error);
    c.seal_block();
    assert_eq!(c.engine().policies().watch(&w).unwrap().expires_at, exp + 5);
    assert_eq!(c.engine().policies().watch(&g).unwrap().expires_at, exp + 2);
    seal_until(&mut c, exp + 1);
    assert!(c.engine().policies().watch(&w).is_some());
    let mut swept = Vec::new();
    while c.height() < exp + 6 {
        let b = c.seal_block().clone();
        swept.extend(expired(&b).into_iter().map(|id| (b.header.height, id)));
    }
    assert_eq!(swept, vec![(exp + 3, g), (exp + 6, w)]);
}

const SCRIPT: &str = r#"
fn handle_timer(payload) {
    emit("fired", `at height ${block_height()}`);
}
fn touch(payload) {
    storage_set("k", "v");
}
"#;

/// English §12 through the node (`gov_updateSchedulerConfig`'s request): draft fields and CIP-1
/// ones in one update, a bad value refused with nothing changed; the session with a watch
/// that expires exports as a fixture that replays to the same roots.
#[test]
fn english_12_node_update_and_the_export_replays() {
    let g = Genesis {
        scheduler: SchedulerKind::Cip5Draft,
        ..Genesis::default()
    };
    let mut n = NodeCore::new(NodeConfig::new(g, DevnetRuntime::shared())).expect("genesis");
    let actor = common::node_deploy(&mut n, ActorCode::rhai("w", SCRIPT), "w");
    n.apply(Mine { blocks: 1 }).unwrap();
    let exp = n.chain().pending_height() + 3;
    let reg = n
        .apply(DraftTimer {
            actor,
            interval: false,
            args: DraftTimerArgs {
                keys: vec!["k".into()],
                expires_at: Some(exp),
                ..Default::default()
            },
            ..Default::default()
        })
        .expect("watch");
    let set = |pairs: &[(&str, u64)]| {
        let mut m = serde_json::Map::new();
        for (k, v) in pairs {
            m.insert(k.to_string(), serde_json::json!(v));
        }
        m
    };
    let root = n.head().state_root;
    let e = n
        .apply(GovUpdateSchedulerConfig {
            from: dev_account(0),
            fields: set(&[("max_fires_per_target", 0)]),
        })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    let e = n
        .apply(GovUpdateSchedulerConfig {
            from: dev_account(0),
            fields: set(&[("w_agee", 2)]),
        })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(n.head().state_root, root, "refused: nothing changed");
    n.apply(GovUpdateSchedulerConfig {
        from: dev_account(0),
        fields: set(&[
            ("w_age", 3),
            ("max_timers_per_target", 9),
            ("fairness_window_blocks", 7),
        ]),
    })
    .expect("update");
    n.apply(Mine { blocks: 6 }).unwrap();
    let d = n.chain().engine().policies().draft_params();
    assert_eq!((d.w_age, d.max_timers_per_target), (3, 9));
    assert_eq!(n.chain().cip1_config().fairness_window_blocks, 7);
    assert!(
        n.chain().engine().policies().watch(&reg.timer_id).is_none(),
        "expired"
    );

    common::replay::replay_matches(&n);
}

/// English §12 in a fixture: a `gov_config` step names draft fields; a refused value is a
/// failed instruction the step may expect.
#[test]
fn english_12_a_fixture_step_governs_the_drafts() {
    let toml = r#"
name = "draft governance"
blocks = 4

[chain]
scheduler = "cip5-draft-zh"

[[steps]]
at = 2
action = "gov_config"
set = { max_fires_per_block = 3, w_fifo = 2, min_gas_limit_per_timer = 10 }

[[steps]]
at = 3
action = "gov_config"
set = { max_payload_size = 2000000 }
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
    let d = node.chain().engine().policies().draft_params();
    assert_eq!(
        (d.max_fires_per_block, d.w_fifo, d.min_gas_limit_per_timer),
        (3, 2, 10)
    );
}
