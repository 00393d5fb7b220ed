//! The node's command path: devnet controls with checked numbers, snapshots, revert, dump and
//! load, and the mine and outage limits.

use cowboy_devnet::chain::{Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::{Address, ErrorKind};
use cowboy_devnet::node::{
    DumpState, Halt, LoadState, MAX_MINE_PER_COMMAND, Mine, MiningMode, NodeConfig, NodeCore,
    NodeError, Revert, SendTx, SetBalance, Snapshot,
};
use cowboy_devnet::vm::DevnetRuntime;

fn alice() -> Address {
    Address::from_label("alice")
}

fn config(balance: u128) -> NodeConfig {
    let mut g = Genesis::default();
    g.accounts.push(GenesisAccount {
        address: alice(),
        balance,
    });
    let mut c = NodeConfig::new(g, DevnetRuntime::shared());
    c.mining = MiningMode::Manual;
    c.dev_accounts = 0;
    c
}

fn devnet(balance: u128) -> NodeCore {
    NodeCore::new(config(balance)).expect("genesis")
}

fn transfer(d: &mut NodeCore, amount: u128) {
    let tx = Transaction::new(
        alice(),
        TxKind::Transfer {
            to: Address::from_label("bob"),
            amount,
        },
    );
    let out = d.apply(SendTx(tx)).unwrap();
    assert!(out.receipt.success, "{:?}", out.receipt.error);
}

#[test]
fn node_set_balance_past_the_supply_limit_is_invalid_input_and_changes_nothing() {
    let mut d = devnet(u128::MAX);
    let root = d.chain().head().state_root;
    let e = d
        .apply(SetBalance {
            address: Address::from_label("bob"),
            balance: 1,
        })
        .expect_err("the supply would wrap");
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    assert_eq!(d.chain().supply(), u128::MAX);
    assert_eq!(d.chain().balance(&Address::from_label("bob")), 0);
    assert!(d.chain().funds_conserved());
    assert_eq!(d.chain().head().state_root, root);
    // Lowering a balance unmints.
    d.apply(SetBalance {
        address: alice(),
        balance: 5,
    })
    .unwrap();
    assert_eq!(d.chain().supply(), 5);
    assert!(d.chain().funds_conserved());
}

#[test]
fn node_genesis_balances_past_u128_max_are_refused() {
    let mut g = Genesis::default();
    for n in ["a", "b"] {
        g.accounts.push(GenesisAccount {
            address: Address::from_label(n),
            balance: u128::MAX / 2 + 1,
        });
    }
    let e =
        NodeCore::new(NodeConfig::headless(g, DevnetRuntime::shared(), 16)).expect_err("refused");
    assert!(matches!(e, NodeError::Timer(_)), "{e}");
}

#[test]
fn node_mine_and_halt_limits() {
    let mut d = devnet(1_000_000_000);
    for blocks in [0, MAX_MINE_PER_COMMAND + 1] {
        let e = d.apply(Mine { blocks }).expect_err("refused");
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
    }
    let e = d
        .apply(Halt {
            blocks: MAX_MINE_PER_COMMAND + 1,
        })
        .expect_err("refused");
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(d.chain().height(), 0);
    let m = d.apply(Mine { blocks: 3 }).unwrap();
    assert_eq!((m.first, m.last, m.head.header.height), (1, 3, 3));
    d.apply(Halt { blocks: 10 }).unwrap();
    let m = d.apply(Mine { blocks: 1 }).unwrap();
    assert_eq!((m.first, m.last), (14, 14));
}

#[test]
fn node_a_snapshot_stays_usable_after_a_revert() {
    let mut d = devnet(1_000_000_000);
    let id = d.apply(Snapshot).unwrap();
    let root0 = d.chain().head().state_root;
    for _ in 0..2 {
        transfer(&mut d, 10);
        d.apply(Mine { blocks: 1 }).unwrap();
        assert_ne!(d.chain().head().state_root, root0);
        d.apply(Revert { id }).unwrap();
        assert_eq!(d.chain().head().state_root, root0);
        assert_eq!(d.chain().height(), 0);
    }
    let e = d.apply(Revert { id: id + 1 }).expect_err("unknown");
    assert_eq!(e.kind(), ErrorKind::UnknownSnapshot);
}

#[test]
fn node_dump_and_load_round_trip() {
    let mut d = devnet(1_000_000_000);
    transfer(&mut d, 10);
    d.apply(Mine { blocks: 2 }).unwrap();
    let dump = d.apply(DumpState).unwrap();
    let root = d.chain().head().state_root;
    transfer(&mut d, 20);
    d.apply(Mine { blocks: 1 }).unwrap();
    d.apply(LoadState(dump.clone())).unwrap();
    assert_eq!(d.chain().head().state_root, root);
    assert_eq!(d.chain().height(), 2);
    let mut bad = dump;
    bad.format_version += 1;
    let e = d.apply(LoadState(bad)).expect_err("wrong version");
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
}

// ---- mining modes, events, snapshots, rejections (issue 13: the node's core) ----------------

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::engine::ScheduleArgs;
use cowboy_devnet::node::{
    CancelTimer, DeleteSnapshot, DeployActor, EstimateTimer, EventFilter, GovCancel, NodeEvent,
    Reset, ScheduleTimer, SetMining, TimerFilter, TimerStatus, dev_account,
};

fn with_mining(mining: MiningMode) -> NodeCore {
    let mut c = config(1_000_000_000);
    c.mining = mining;
    NodeCore::new(c).expect("genesis")
}

fn drain(d: &mut NodeCore) -> Vec<NodeEvent> {
    std::iter::from_fn(|| d.poll_event()).collect()
}

#[test]
fn node_interval_mining_seals_exactly_when_due_on_the_shells_clock() {
    let mut d = with_mining(MiningMode::Interval {
        block_time_ms: 1_000,
    });
    // The clock starts at the first tick.
    assert_eq!(d.next_deadline(), Some(0));
    d.tick(500);
    assert_eq!(d.height(), 0);
    assert_eq!(d.next_deadline(), Some(1_500));
    d.tick(1_499);
    assert_eq!(d.height(), 0, "not due yet");
    d.tick(1_500);
    assert_eq!(d.height(), 1, "due");
    assert_eq!(d.next_deadline(), Some(2_500));
    d.tick(2_500);
    assert_eq!(d.height(), 2);
    // Held up past several block times: one block, the next a full block time later.
    d.tick(9_000);
    assert_eq!(d.height(), 3);
    assert_eq!(d.next_deadline(), Some(10_000));
    // A transaction waits for its block.
    transfer(&mut d, 1);
    assert_eq!(d.height(), 3);
    assert_eq!(d.head().pending_txs, 1);
    d.tick(10_000);
    assert_eq!(d.height(), 4);
    assert_eq!(d.chain().last_block().unwrap().receipts.len(), 1);
}

#[test]
fn node_manual_mining_never_seals_on_time_and_auto_seals_every_transaction() {
    let mut m = with_mining(MiningMode::Manual);
    assert_eq!(m.next_deadline(), None);
    m.tick(u64::MAX);
    transfer(&mut m, 1);
    m.tick(u64::MAX);
    assert_eq!(m.height(), 0);
    assert_eq!(m.head().pending_txs, 1);
    assert_eq!(m.apply(Mine { blocks: 1 }).unwrap().head.receipts.len(), 1);

    let mut a = with_mining(MiningMode::Auto);
    assert_eq!(a.next_deadline(), None);
    for h in 1..=3 {
        let tx = Transaction::new(
            alice(),
            TxKind::Transfer {
                to: Address::from_label("bob"),
                amount: 1,
            },
        );
        let out = a.apply(SendTx(tx)).unwrap();
        assert_eq!(out.sealed, Some(h));
        assert_eq!(a.height(), h);
    }
    // Switching mode is an event; a zero block time is refused and changes nothing.
    let e = a
        .apply(SetMining(MiningMode::Interval { block_time_ms: 0 }))
        .expect_err("zero block time");
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(a.mining(), MiningMode::Auto);
    drain(&mut a);
    a.apply(SetMining(MiningMode::Manual)).unwrap();
    assert_eq!(
        drain(&mut a),
        vec![NodeEvent::MiningChanged(MiningMode::Manual)]
    );
}

#[test]
fn node_events_are_drained_in_the_order_they_happened() {
    let mut d = with_mining(MiningMode::Auto);
    d.apply(SetBalance {
        address: Address::from_label("carol"),
        balance: 7,
    })
    .unwrap();
    transfer(&mut d, 5);
    d.apply(Mine { blocks: 5 }).unwrap();
    let id = d.apply(Snapshot).unwrap();
    let ev = drain(&mut d);
    let kinds: Vec<String> = ev
        .iter()
        .map(|e| match e {
            NodeEvent::BalanceSet { .. } => "balance".to_string(),
            NodeEvent::BlockSealed(b) => format!("block {} quiet {}", b.height, b.quiet_before),
            NodeEvent::SnapshotTaken { id, height } => format!("snapshot {id} at {height}"),
            o => format!("{o:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "balance".to_string(),
            "block 1 quiet 0".into(),
            // A long mine reports its last block and counts the empty ones before it.
            "block 6 quiet 4".into(),
            format!("snapshot {id} at 6"),
        ]
    );
    assert!(d.poll_event().is_none());
}

#[test]
fn node_a_snapshot_shares_the_sealed_blocks_and_stays_usable_after_reverts() {
    let mut d = with_mining(MiningMode::Manual);
    transfer(&mut d, 3);
    d.apply(Mine { blocks: 2 }).unwrap();
    let b1 = d.block(1).expect("block 1");
    let a = d.apply(Snapshot).unwrap();
    let root_a = d.head().state_root;
    transfer(&mut d, 4);
    d.apply(Mine { blocks: 1 }).unwrap();
    let b = d.apply(Snapshot).unwrap();
    let root_b = d.head().state_root;
    // Back and forth: each snapshot can be reverted to again.
    for _ in 0..3 {
        d.apply(Revert { id: a }).unwrap();
        assert_eq!((d.height(), d.head().state_root), (2, root_a));
        assert!(d.block(3).is_none());
        d.apply(Revert { id: b }).unwrap();
        assert_eq!((d.height(), d.head().state_root), (3, root_b));
    }
    // The block is the same allocation: the snapshots share it, never copied it.
    assert!(std::sync::Arc::ptr_eq(&b1, &d.block(1).unwrap()));
    d.apply(DeleteSnapshot { id: a }).unwrap();
    assert_eq!(
        d.apply(Revert { id: a }).unwrap_err().kind(),
        ErrorKind::UnknownSnapshot
    );
    assert_eq!(
        d.apply(DeleteSnapshot { id: a }).unwrap_err().kind(),
        ErrorKind::UnknownSnapshot
    );
}

#[test]
fn node_the_snapshot_bound_drops_the_oldest_with_an_event() {
    let mut c = config(1_000_000_000);
    c.max_snapshots = 2;
    let mut d = NodeCore::new(c).unwrap();
    let ids: Vec<u64> = (0..3).map(|_| d.apply(Snapshot).unwrap()).collect();
    let ev = drain(&mut d);
    assert!(
        ev.contains(&NodeEvent::SnapshotDropped { id: ids[0] }),
        "{ev:?}"
    );
    let kept: Vec<u64> = d.snapshots().iter().map(|s| s.id).collect();
    assert_eq!(kept, ids[1..].to_vec());
    assert_eq!(
        d.apply(Revert { id: ids[0] }).unwrap_err().kind(),
        ErrorKind::UnknownSnapshot
    );
    d.apply(Revert { id: ids[1] }).unwrap();
}

/// A node with dev accounts and an actor deployed by `dev0`.
fn node_with_actor() -> (NodeCore, Address) {
    let mut c = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    c.mining = MiningMode::Auto;
    let mut d = NodeCore::new(c).unwrap();
    let actor = d
        .apply(DeployActor {
            from: None,
            code: ActorCode::none(),
            address: None,
            endowment: 1_000_000_000,
            name: Some("clock".into()),
        })
        .unwrap()
        .address;
    drain(&mut d);
    (d, actor)
}

#[test]
fn node_dev_accounts_are_deterministic_and_dev0_alone_is_a_system_deployer() {
    let (d, actor) = node_with_actor();
    let acc = d.accounts();
    assert_eq!(acc[0].address, dev_account(0));
    assert_eq!(acc[0].name.as_deref(), Some("dev0"));
    assert!(acc[0].system_deployer);
    assert!(!acc[1].system_deployer);
    assert_eq!(d.dev_accounts().len(), 10);
    assert!(
        acc.iter()
            .any(|a| a.address == actor && a.name.as_deref() == Some("clock"))
    );
    let s = d.supply();
    assert_eq!(s.minted, s.balances + s.burned);
}

#[test]
fn node_a_rejected_request_changes_nothing() {
    let (mut d, actor) = node_with_actor();
    let before = (
        d.height(),
        d.head().state_root,
        d.chain().nonce(&dev_account(0)),
    );
    let bad = [
        // Not in the future (CIP-5 §4.2).
        d.apply(ScheduleTimer {
            actor,
            args: ScheduleArgs {
                height: 1,
                ..ScheduleArgs::default()
            },
            ..Default::default()
        })
        .unwrap_err(),
        // Only the deployer may act as the actor.
        d.apply(ScheduleTimer {
            actor,
            from: Some(dev_account(1)),
            args: ScheduleArgs {
                height: 100,
                ..ScheduleArgs::default()
            },
            ..Default::default()
        })
        .unwrap_err(),
        // Governance from an account that is not a system deployer (CIP-5 §5.4).
        d.apply(GovCancel {
            from: dev_account(1),
            timer_id: cowboy_devnet::engine::TimerId([7; 32]),
        })
        .unwrap_err(),
        d.apply(CancelTimer {
            actor,
            timer_id: cowboy_devnet::engine::TimerId([7; 32]),
            from: None,
        })
        .unwrap_err(),
        d.apply(Mine { blocks: 0 }).unwrap_err(),
    ];
    let names: Vec<&str> = bad.iter().map(|e| e.kind().as_str()).collect();
    assert_eq!(
        names,
        [
            "InvalidInput",
            "Unauthorized",
            "Unauthorized",
            "TimerNotFound",
            "InvalidInput"
        ]
    );
    let after = (
        d.height(),
        d.head().state_root,
        d.chain().nonce(&dev_account(0)),
    );
    assert_eq!(before, after);
    assert!(drain(&mut d).is_empty(), "nothing happened");
}

#[test]
fn node_timer_requests_and_queries_follow_a_timer_after_it_left() {
    let (mut d, actor) = node_with_actor();
    let args = ScheduleArgs {
        height: d.height() + 3,
        ..ScheduleArgs::default()
    };
    let est = d
        .apply(EstimateTimer(ScheduleTimer {
            actor,
            args: args.clone(),
            ..Default::default()
        }))
        .unwrap();
    assert!(est.error.is_none(), "{:?}", est.error);
    assert_eq!(est.fire_height, Some(args.height));
    assert!(est.max_cost > 0);
    let root = d.head().state_root;
    assert_eq!(d.head().state_root, root, "an estimate changes nothing");
    let s = d
        .apply(ScheduleTimer {
            actor,
            args: args.clone(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(Some(s.timer_id), est.timer_id);
    let v = d.timer(&s.timer_id).expect("pending");
    assert_eq!(v.status, TimerStatus::Pending);
    assert_eq!(d.bucket(args.height)[0].timer_id, s.timer_id);
    d.apply(Mine { blocks: 5 }).unwrap();
    let v = d.timer(&s.timer_id).expect("known after it left");
    assert_eq!(v.status, TimerStatus::Fired);
    assert_eq!(v.actor, actor);
    let kinds: Vec<&str> = v.events.iter().map(|r| r.event.kind().as_str()).collect();
    assert_eq!(kinds, ["TimerScheduled", "TimerFired"]);
    let fired = d.timers(&TimerFilter {
        status: Some(TimerStatus::Fired),
        ..TimerFilter::default()
    });
    assert_eq!(fired.len(), 1);
    let ev = d.events(&EventFilter {
        kinds: Some(vec!["TimerFired".into()]),
        ..EventFilter::default()
    });
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].height, args.height);
    // Reset: back to genesis, the dev accounts funded again.
    d.apply(Reset).unwrap();
    assert_eq!(d.height(), 0);
    assert!(d.timer(&s.timer_id).is_none());
}

// ---- the shell ------------------------------------------------------------------------------

use cowboy_devnet::node::{ShellConfig, spawn, spawn_with};
use tokio::sync::broadcast::error::TryRecvError;

#[tokio::test]
async fn node_shell_takes_requests_from_async_tasks_and_publishes_the_head() {
    let h = spawn(with_mining(MiningMode::Manual));
    let mut events = h.subscribe();
    let m = h.request(Mine { blocks: 3 }).await.unwrap();
    assert_eq!(m.last, 3);
    // The reply comes before the head is published: wait for it, never by the clock.
    let mut head = h.watch_head();
    head.wait_for(|v| v.height == 3).await.unwrap();
    assert_eq!(h.head().height, 3);
    let Ok(e) = events.recv().await else {
        panic!("a notification")
    };
    assert!(matches!(&*e, NodeEvent::BlockSealed(b) if b.height == 3 && b.quiet_before == 2));
    let height = h.query(|n| n.height()).await.unwrap();
    assert_eq!(height, 3);
    let e = h.request(Revert { id: 99 }).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnknownSnapshot);
    h.shutdown();
    let e = h.request(Mine { blocks: 1 }).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NodeStopped);
}

#[tokio::test]
async fn node_shell_head_is_readable_while_a_long_request_runs() {
    let h = spawn(with_mining(MiningMode::Manual));
    h.request(Mine { blocks: 1 }).await.unwrap();
    h.watch_head().wait_for(|v| v.height == 1).await.unwrap();
    // Hold the node's thread inside a request until the test lets it go.
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let (started_tx, started_rx) = tokio::sync::oneshot::channel::<()>();
    let busy = h.clone();
    let long = tokio::spawn(async move {
        busy.query(move |_| {
            let _ = started_tx.send(());
            go_rx.recv().ok();
        })
        .await
    });
    let mine = {
        let h = h.clone();
        tokio::spawn(async move { h.request(Mine { blocks: 2_000 }).await })
    };
    started_rx.await.unwrap();
    // The node is busy: the head answers at once with the last published one.
    for _ in 0..100 {
        assert_eq!(h.head().height, 1);
    }
    go_tx.send(()).unwrap();
    long.await.unwrap().unwrap();
    let m = mine.await.unwrap().unwrap();
    assert_eq!(m.last, 2_001);
    h.watch_head()
        .wait_for(|v| v.height == 2_001)
        .await
        .unwrap();
}

#[test]
fn node_shell_a_lagging_subscriber_is_told_how_many_it_lost_and_the_node_goes_on() {
    let h = spawn_with(
        with_mining(MiningMode::Manual),
        ShellConfig {
            event_capacity: 4,
            ..ShellConfig::default()
        },
    );
    let mut slow = h.subscribe();
    for _ in 0..10 {
        h.request_blocking(Mine { blocks: 1 }).unwrap();
    }
    assert_eq!(h.query_blocking(|n| n.height()).unwrap(), 10);
    // Ten `BlockSealed` sent, four kept: the first receive says six were lost.
    assert_eq!(slow.try_recv().unwrap_err(), TryRecvError::Lagged(6));
    let rest: Vec<u64> = std::iter::from_fn(|| slow.try_recv().ok())
        .map(|e| match &*e {
            NodeEvent::BlockSealed(b) => b.height,
            o => panic!("{o:?}"),
        })
        .collect();
    assert_eq!(rest, vec![7, 8, 9, 10]);
}

// ---- a fixture played on a live node --------------------------------------------------------

use cowboy_devnet::scenario::live::FixturePlayer;
use cowboy_devnet::scenario::{RunOptions, builtin};

#[test]
fn node_a_fixture_played_live_reaches_the_headless_runs_state_and_expectations() {
    for name in ["demo", "governance", "outage"] {
        let rt = DevnetRuntime::shared();
        let s = builtin::scenario(name, &*rt).unwrap().unwrap();
        let report = s
            .run(rt.clone(), RunOptions::default(), &mut |_, _| {})
            .unwrap();
        let last = s.default_blocks;
        let mut c = NodeConfig::new(s.genesis().clone(), rt);
        c.mining = MiningMode::Manual;
        c.dev_accounts = 0;
        let mut d = NodeCore::new(c).unwrap();
        d.set_hook(Box::new(FixturePlayer::new(std::sync::Arc::new(s))));
        let mut checks = Vec::new();
        while d.chain().pending_height() <= last {
            d.apply(Mine { blocks: 1 }).unwrap();
            for e in drain(&mut d) {
                if let NodeEvent::Expectation { line, passed, .. } = e {
                    checks.push((line, passed));
                }
            }
        }
        assert_eq!(
            d.head().state_root,
            report.summary.final_state_root,
            "{name}"
        );
        checks.sort();
        let want: Vec<(usize, bool)> = report
            .expectations
            .iter()
            .map(|e| (e.line, e.passed))
            .collect();
        assert_eq!(checks, want, "{name}");
        assert!(!want.is_empty(), "{name} has expectations");
    }
}

#[test]
fn node_governance_and_extension_requests_cip5_5_4() {
    use cowboy_devnet::node::{ConfigChange, ExtendTimer, GovExtend, GovUpdateConfig};
    let (mut d, actor) = node_with_actor();
    let h = d.height();
    let schedule = |d: &mut NodeCore, height: u64| {
        d.apply(ScheduleTimer {
            actor,
            args: ScheduleArgs {
                height,
                expires_at: Some(height + 10),
                ..ScheduleArgs::default()
            },
            ..Default::default()
        })
        .unwrap()
        .timer_id
    };
    let a = schedule(&mut d, h + 50);
    let b = schedule(&mut d, h + 60);
    d.apply(ExtendTimer {
        actor,
        timer_id: a,
        new_expires_at: h + 100,
        from: None,
    })
    .unwrap();
    assert_eq!(d.timer(&a).unwrap().expires_at, h + 100);
    d.apply(GovExtend {
        from: dev_account(0),
        timer_id: b,
        new_expires_at: h + 200,
    })
    .unwrap();
    assert_eq!(d.timer(&b).unwrap().expires_at, h + 200);
    d.apply(GovCancel {
        from: dev_account(0),
        timer_id: b,
    })
    .unwrap();
    assert_eq!(
        d.timer(&b).unwrap().status,
        TimerStatus::CancelledByGovernance
    );
    let mut set = serde_json::Map::new();
    set.insert("max_timers_per_actor".into(), serde_json::json!(7));
    d.apply(GovUpdateConfig {
        from: dev_account(0),
        config: ConfigChange::Fields(set),
    })
    .unwrap();
    assert_eq!(d.config().0.max_timers_per_actor, 7);
    let mut bad = serde_json::Map::new();
    bad.insert("no_such_field".into(), serde_json::json!(1));
    let root = d.head().state_root;
    let e = d
        .apply(GovUpdateConfig {
            from: dev_account(0),
            config: ConfigChange::Fields(bad),
        })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(d.head().state_root, root);
    // The tiers: the pending timer sits in the ring at its height.
    let t = d.tiers();
    assert_eq!(t.counts.ring + t.counts.epoch + t.counts.overflow, 1);
    assert_eq!(t.ring, vec![(h + 50, 1)]);
    assert!(t.next_maintenance > d.height());
}

#[test]
fn node_handle_is_clone_send_and_sync() {
    fn shareable<T: Clone + Send + Sync + 'static>() {}
    shareable::<cowboy_devnet::node::NodeHandle>();
    let h = spawn(with_mining(MiningMode::Manual));
    let h2 = h.clone();
    let t = std::thread::spawn(move || h2.request_blocking(Mine { blocks: 2 }).unwrap().last);
    assert_eq!(t.join().unwrap(), 2);
    h.shutdown();
}

#[test]
fn node_dump_of_an_open_block_is_refused_and_mines_nothing() {
    let mut d = with_mining(MiningMode::Manual);
    d.apply(Mine { blocks: 1 }).unwrap();
    let (height, root) = (d.chain().height(), d.chain().state_root());
    transfer(&mut d, 10);
    let e = d.apply(DumpState).expect_err("a block is open");
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("mine it before dumping"), "{e}");
    assert_eq!(
        d.chain().height(),
        height,
        "the refused dump sealed nothing"
    );
    assert_eq!(d.chain().state_root(), root);
    d.apply(Mine { blocks: 1 }).unwrap();
    let dump = d.apply(DumpState).unwrap();
    assert_eq!(dump.height, height + 1);
    assert_eq!(d.chain().height(), height + 1);
}

/// Mines the fixture played by `d`'s hook up to its last height; returns the expectations it
/// reported on the way, as (line, passed).
fn play_to(d: &mut NodeCore, last: u64) -> Vec<(usize, bool)> {
    let mut checks = Vec::new();
    while d.chain().pending_height() <= last {
        d.apply(Mine { blocks: 1 }).unwrap();
        for e in drain(d) {
            if let NodeEvent::Expectation { line, passed, .. } = e {
                checks.push((line, passed));
            }
        }
    }
    checks.sort();
    checks
}

#[test]
fn node_a_fixture_played_live_replays_the_reverted_heights_after_revert_and_reset() {
    // Issue 13 (snapshots; `serve --fixture`): the player's position is part of a snapshot, so
    // the steps of the heights a revert or a reset takes back are played again, and the run
    // ends in the state a headless run reaches.
    let rt = DevnetRuntime::shared();
    let s = builtin::scenario("demo", &*rt).unwrap().unwrap();
    let report = s
        .run(rt.clone(), RunOptions::default(), &mut |_, _| {})
        .unwrap();
    let want: Vec<(usize, bool)> = report
        .expectations
        .iter()
        .map(|e| (e.line, e.passed))
        .collect();
    let last = s.default_blocks;
    let mut c = NodeConfig::new(s.genesis().clone(), rt);
    c.mining = MiningMode::Manual;
    c.dev_accounts = 0;
    let mut d = NodeCore::new(c).unwrap();
    d.set_hook(Box::new(FixturePlayer::new(std::sync::Arc::new(s))));
    d.apply(Mine { blocks: 5 }).unwrap();
    let id = d.apply(Snapshot).unwrap();
    drain(&mut d);
    let after_snapshot = play_to(&mut d, last);
    assert_eq!(d.head().state_root, report.summary.final_state_root);

    d.apply(Revert { id }).unwrap();
    assert_eq!(d.height(), 5);
    let again = play_to(&mut d, last);
    assert_eq!(
        d.head().state_root,
        report.summary.final_state_root,
        "after revert"
    );
    assert_eq!(
        again, after_snapshot,
        "the same expectations reported again"
    );

    d.apply(Reset).unwrap();
    assert_eq!(play_to(&mut d, last), want, "after reset, all of them");
    assert_eq!(
        d.head().state_root,
        report.summary.final_state_root,
        "after reset"
    );
}

#[test]
fn node_a_fixture_played_live_lets_a_long_mine_jump_its_quiet_heights() {
    // Issue 13 "Speed" (Spec note 42): with a fixture played live (`serve --fixture`),
    // `devnet_mine` still jumps the heights where the fixture has nothing to do, and ends in
    // the state a headless run to the same height reaches.
    use cowboy_devnet::node::MineStep;
    use std::ops::ControlFlow;
    let rt = DevnetRuntime::shared();
    let s = builtin::scenario("outage", &*rt).unwrap().unwrap();
    let mut c = NodeConfig::new(s.genesis().clone(), rt.clone());
    c.mining = MiningMode::Manual;
    c.dev_accounts = 0;
    let mut d = NodeCore::new(c).unwrap();
    let last = s.default_blocks;
    let s = std::sync::Arc::new(s);
    d.set_hook(Box::new(FixturePlayer::new(s.clone())));
    let checks = play_to(&mut d, last).len();
    let mut longest = 0;
    d.mine_with(8_000, &mut |step, _| {
        if let MineStep::Quiet { first, last } = step {
            longest = longest.max(last - first + 1);
        }
        ControlFlow::Continue(())
    });
    assert!(longest > 1_000, "quiet heights jumped ({longest} at most)");
    let opts = RunOptions {
        blocks: Some(d.height()),
        ..RunOptions::default()
    };
    let (report, _) = s
        .run_jumping(rt, opts, &mut |_, _| ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(report.summary.final_height, d.height());
    assert_eq!(d.head().state_root, report.summary.final_state_root);
    assert_eq!(checks, report.expectations.len());
}
