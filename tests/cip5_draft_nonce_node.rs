//! The drafts' idempotent set (English §6.2, zh §7.2) through the node: replies say whether a
//! call created its timer; a refused repeat (a mismatch) changes nothing (balances, nonces,
//! root); the bindings survive snapshot/revert, dump/load (and its JSON) with the same root;
//! a session exported and `run` reaches the same roots; actor scripts' calls. Spec notes
//! 122-125.

mod common;

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{DraftTimerArgs, Genesis, Transaction, TxKind};
use cowboy_devnet::engine::{Address, ErrorKind, ScheduleArgs, SchedulerKind};
use cowboy_devnet::node::{
    DraftQuery, DraftTimer, DumpState, LoadState, Mine, MiningMode, NodeConfig, NodeCore, Revert,
    ScheduleTimer, SendTx, Snapshot, TimerQuery, dev_account,
};
use cowboy_devnet::vm::DevnetRuntime;

const SCRIPT: &str = r#"
fn handle_timer(payload) {
    emit("fired", `at ${block_height()}`);
}
fn twice(payload) {
    let me = self_address();
    let a = set_state_watch(me, ["k"], "p", 50000, 1, 9);
    let b = set_state_watch(me, ["k"], "q", 60000, 2, 9);
    if a != b { revert("two watches"); }
    let h = block_height() + 3;
    let c = schedule_timer_ex(h, "x", #{client_nonce: 4});
    let d = schedule_timer_ex(h, "y", #{client_nonce: 4, bid: 2});
    if c != d { revert("two height timers"); }
    storage_set("k", "1");
}
"#;

fn node(kind: SchedulerKind) -> (NodeCore, Address) {
    let g = Genesis {
        scheduler: kind,
        ..Genesis::default()
    };
    let mut c = NodeConfig::new(g, DevnetRuntime::shared());
    c.mining = MiningMode::Auto;
    c.history = 10_000;
    c.keep_blocks = Some(10_000);
    let mut n = NodeCore::new(c).expect("genesis");
    let a = common::node_deploy(&mut n, ActorCode::rhai("nonce.rhai", SCRIPT), "ticker");
    (n, a)
}

fn sched(n: &mut NodeCore, a: Address, height: u64, nonce: u64, payload: &[u8]) -> ScheduleTimer {
    let _ = n;
    ScheduleTimer {
        actor: a,
        args: ScheduleArgs {
            height,
            payload: payload.to_vec(),
            client_nonce: Some(nonce),
            ..ScheduleArgs::default()
        },
        ..Default::default()
    }
}

fn watch(a: Address, keys: &[&str], nonce: u64) -> DraftTimer {
    DraftTimer {
        actor: a,
        interval: false,
        args: DraftTimerArgs {
            keys: keys.iter().map(|k| k.to_string()).collect(),
            client_nonce: Some(nonce),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// English §6.2: `created` says whether the call made the timer; the queries show its nonce.
#[test]
fn english_6_2_replies_say_created_and_queries_show_the_nonce() {
    for kind in [SchedulerKind::Cip5Draft, SchedulerKind::Cip5DraftZh] {
        let (mut n, a) = node(kind);
        let h = n.chain().pending_height() + 5;
        let r = sched(&mut n, a, h, 1, b"v1");
        let s1 = n.apply(r).expect("create");
        assert!(s1.created, "{kind}");
        let r = sched(&mut n, a, h, 1, b"v2");
        let s2 = n.apply(r).expect("repeat");
        assert!(!s2.created, "{kind}");
        assert_eq!(s1.timer_id, s2.timer_id);
        let w1 = n.apply(watch(a, &["k"], 2)).unwrap();
        let w2 = n.apply(watch(a, &["k"], 2)).unwrap();
        assert!(w1.created && !w2.created && w1.timer_id == w2.timer_id);
        let t = n
            .ask(&TimerQuery { id: s1.timer_id })
            .expect("query")
            .expect("known");
        assert_eq!(t.client_nonce, Some(1));
        assert_eq!(t.payload.as_deref(), Some(&b"v2"[..]));
        let d = n.ask(&DraftQuery).unwrap();
        assert_eq!(d.watches[0].client_nonce, Some(2));
        assert_eq!(d.client_nonces.len(), 2);
    }
}

/// A refused repeat (a mismatch) and a `client_nonce` under `fifo` change nothing: no fee,
/// no nonce, the same root.
#[test]
fn english_6_2_a_refused_repeat_changes_nothing() {
    for kind in [SchedulerKind::Cip5Draft, SchedulerKind::Fifo] {
        let (mut n, a) = node(kind);
        let h = n.chain().pending_height() + 5;
        if kind != SchedulerKind::Fifo {
            let r = sched(&mut n, a, h, 1, b"v1");
            n.apply(r).expect("create");
        }
        let before = (
            n.head().state_root,
            n.chain().balance(&dev_account(1)),
            n.chain().nonce(&dev_account(1)),
            n.chain().nonce(&a),
            n.height(),
        );
        let r = sched(&mut n, a, h + 1, 1, b"v1");
        let e = n.apply(r).expect_err("refused");
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{kind}: {e}");
        if kind == SchedulerKind::Fifo {
            assert!(e.to_string().contains("cip5-draft or cip5-draft-zh"), "{e}");
        } else {
            let e = n.apply(watch(a, &["k"], 1)).expect_err("kind");
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
        }
        let after = (
            n.head().state_root,
            n.chain().balance(&dev_account(1)),
            n.chain().nonce(&dev_account(1)),
            n.chain().nonce(&a),
            n.height(),
        );
        assert_eq!(before, after, "{kind}");
    }
}

/// The bindings are state: a snapshot taken before a registration, reverted, loses it; a dump
/// (through its JSON, the `--state` file) loads to the same root and a repeat still matches.
#[test]
fn english_6_2_bindings_survive_snapshot_revert_and_dump_load() {
    let (mut n, a) = node(SchedulerKind::Cip5DraftZh);
    let snap = n.apply(Snapshot).unwrap();
    let root0 = n.head().state_root;
    let h = n.chain().pending_height() + 20;
    let r = sched(&mut n, a, h, 3, b"v1");
    let id = n.apply(r).unwrap().timer_id;
    n.apply(watch(a, &["k"], 4)).unwrap();
    n.apply(Mine { blocks: 2 }).unwrap();
    let root = n.head().state_root;
    let dump = n.apply(DumpState).unwrap();
    let json = serde_json::to_string(&dump).unwrap();
    assert!(
        json.contains("client_nonce"),
        "the dump carries the bindings"
    );
    n.apply(Revert { id: snap }).unwrap();
    assert_eq!(n.head().state_root, root0);
    let r = sched(&mut n, a, h, 3, b"v1");
    assert!(
        n.apply(r).unwrap().created,
        "no binding before the snapshot"
    );
    n.apply(LoadState(serde_json::from_str(&json).unwrap()))
        .unwrap();
    assert_eq!(n.head().state_root, root);
    let r = sched(&mut n, a, h, 3, b"v2");
    let s = n.apply(r).unwrap();
    assert!(!s.created);
    assert_eq!(s.timer_id, id);
}

/// Actor scripts: two calls with one `client_nonce` in one handler name one timer (the second
/// updates the first, still in the transaction's overlay).
#[test]
fn english_6_2_actor_scripts_repeat_in_one_handler() {
    let (mut n, a) = node(SchedulerKind::Cip5Draft);
    let tx = Transaction::new(
        dev_account(1),
        TxKind::Call {
            actor: a,
            handler: "twice".into(),
            payload: Vec::new(),
        },
    );
    let out = n.apply(SendTx(tx)).unwrap();
    assert!(out.receipt.success, "{:?}", out.receipt.error);
    assert_eq!(out.receipt.timers.len(), 2, "one watch, one height timer");
    let d = n.ask(&DraftQuery).unwrap();
    assert_eq!(d.watches.len(), 1);
    let t = n
        .ask(&TimerQuery {
            id: out.receipt.timers[0],
        })
        .unwrap()
        .expect("known");
    assert_eq!(
        t.payload.as_deref(),
        Some(&b"y"[..]),
        "the second call's payload"
    );
}

/// A session with registrations, repeats and updates, exported (`devnet_exportFixture`) and
/// `run`: the same hash and root at every height.
#[test]
fn english_6_2_export_then_run_reaches_the_same_roots() {
    for kind in [SchedulerKind::Cip5Draft, SchedulerKind::Cip5DraftZh] {
        let (mut n, a) = node(kind);
        let h = n.chain().pending_height() + 4;
        for (nonce, payload) in [(1, &b"a"[..]), (1, b"b"), (2, b"c")] {
            let r = sched(&mut n, a, h, nonce, payload);
            n.apply(r).unwrap();
        }
        n.apply(watch(a, &["k"], 5)).unwrap();
        n.apply(watch(a, &["k"], 5)).unwrap();
        n.apply(Mine { blocks: 6 }).unwrap();
        let r = sched(&mut n, a, h, 1, b"late");
        assert!(!n.apply(r).unwrap().created);
        n.apply(Mine { blocks: 2 }).unwrap();
        let fixture = common::replay::replay_matches(&n);
        assert!(fixture.contains("client_nonce"), "{kind}\n{fixture}");
    }
}
