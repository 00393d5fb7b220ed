//! The dashboard attached to a devnet served elsewhere (issue 15, `--attach URL`): a real
//! `cowboy-devnet serve` process started here on a free port, driven through
//! [`RemoteDevnet`], the JSON-RPC source. Commands lead to visible changes on the node; errors
//! come back named as the in-process node names them; the feed comes from the WebSocket
//! subscriptions; a server that goes away leaves the last view and a "disconnected, retrying"
//! link, and a server that comes back is reattached.
//!
//! The waits below poll until what is expected appears; their limits only keep a broken run
//! from hanging, they assert nothing about speed.

use cowboy_devnet::tui::app::{App, Pane};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::model::{
    CommandOutcome, ConfigPatch, DashboardSource, MiningMode, ScheduleRequest, UiCommand, ViewQuery,
};
use cowboy_devnet::tui::remote::RemoteDevnet;
use cowboy_devnet::tui::worker::Client;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_cowboy-devnet");

/// A `serve` process; killed when dropped.
struct Serve {
    child: Child,
    addr: String,
}

impl Serve {
    /// `cowboy-devnet serve` on the demo fixture, manual mining, on `port` (0: a free one).
    fn start(port: u16) -> Serve {
        Serve::start_with(port, &[])
    }

    /// [`start`](Self::start) with more `serve` options.
    fn start_with(port: u16, extra: &[&str]) -> Serve {
        let mut child = Command::new(BIN)
            .args(["serve", "--fixture", "demo", "--no-mining", "--port"])
            .arg(port.to_string())
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("serve starts");
        let out = child.stdout.take().unwrap();
        let mut lines = BufReader::new(out).lines();
        let addr = loop {
            let line = lines
                .next()
                .expect("serve prints `Listening on` before it ends")
                .unwrap();
            if let Some(rest) = line.strip_prefix("Listening on http://") {
                break rest.split_whitespace().next().unwrap().to_string();
            }
        };
        // Keep reading stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Serve { child, addr }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn port(&self) -> u16 {
        self.addr.rsplit(':').next().unwrap().parse().unwrap()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Ticks the source until `done` holds.
fn until(src: &mut RemoteDevnet, what: &str, mut done: impl FnMut(&mut RemoteDevnet) -> bool) {
    let limit = Instant::now() + Duration::from_secs(60);
    loop {
        src.tick(Instant::now());
        if done(src) {
            return;
        }
        assert!(Instant::now() < limit, "never saw: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn head(src: &mut RemoteDevnet) -> u64 {
    src.dashboard(&ViewQuery::default()).status.unwrap().height
}

#[test]
fn issue15_attach_commands_change_the_served_node_and_errors_are_named() {
    let serve = Serve::start(0);
    let mut src = RemoteDevnet::new(&serve.url()).expect("a valid URL");
    until(&mut src, "the subscriptions open", |s| s.subscribed());
    assert_eq!(src.link(), None);

    let d = src.dashboard(&ViewQuery::default());
    let status = d.status.expect("a status");
    assert_eq!(status.height, 0);
    assert_eq!(status.mining, MiningMode::Manual);
    assert_eq!(status.rpc_address.as_deref(), Some(serve.url().as_str()));
    assert!(d.names.values().any(|n| n == "dev0"), "{:?}", d.names);

    // Step: the demo's actors are deployed by block 1.
    assert_eq!(
        src.execute(UiCommand::Mine(2)),
        Ok(CommandOutcome::Mined { height: 2 })
    );
    let d = src.dashboard(&ViewQuery::default());
    assert_eq!(d.status.as_ref().unwrap().height, 2);
    assert!(!d.actors.is_empty(), "the demo's actors are known");
    assert_eq!(d.lane.last().map(|r| r.height), Some(2));
    let actor = d.actors[0];

    // Mining mode.
    let interval = MiningMode::Interval { ms: 250 };
    assert_eq!(
        src.execute(UiCommand::SetMining(interval)),
        Ok(CommandOutcome::MiningSet(interval))
    );
    assert_eq!(
        src.dashboard(&ViewQuery::default()).status.unwrap().mining,
        interval
    );
    src.execute(UiCommand::SetMining(MiningMode::Manual))
        .unwrap();
    let h = head(&mut src);

    // Estimate, schedule: the timer is in its bucket, with its life.
    let req = ScheduleRequest {
        actor,
        height: h + 5,
        payload: b"hi".to_vec(),
        gas_limit: Some(100_000),
        ..Default::default()
    };
    let Ok(CommandOutcome::Estimated(e)) = src.execute(UiCommand::EstimateTimer(req.clone()))
    else {
        panic!("an estimate")
    };
    assert_eq!(e.error, None);
    assert_eq!(e.fire_height, h + 5);
    assert!(e.max_cost > 0);
    let Ok(CommandOutcome::Scheduled { timer_id, height }) =
        src.execute(UiCommand::ScheduleTimer(req.clone()))
    else {
        panic!("scheduled")
    };
    assert_eq!(height, h + 5);
    let d = src.dashboard(&ViewQuery {
        selected_bucket: Some(h + 5),
        ..ViewQuery::default()
    });
    let b = d
        .buckets
        .iter()
        .find(|b| b.height == h + 5)
        .expect("its bucket");
    assert!(b.count >= 1 && b.gas >= 100_000, "{b:?}");
    assert!(d.bucket_timers.iter().any(|t| t.id == timer_id));
    // Its `TimerScheduled` is recorded when the open block seals.
    src.execute(UiCommand::Mine(1)).unwrap();
    let life = src.timer_life(&timer_id).expect("known");
    assert_eq!(life.status, "pending");
    assert_eq!(life.timeline[0].what, "TimerScheduled");
    assert_eq!(life.timeline[0].height, h + 1);

    // The CIP-1 v3 fee fields go through `timer_schedule` (nanos per cycle) and come back in
    // the bucket's rows; the estimate carries `timer_estimate`'s auction standing.
    let fees = ScheduleRequest {
        max_fee_per_cycle: Some(5_000_000_000),
        priority_tier: Some(cowboy_devnet::engine::PriorityTier::Fast),
        ..req.clone()
    };
    let Ok(CommandOutcome::Estimated(e)) = src.execute(UiCommand::EstimateTimer(fees.clone()))
    else {
        panic!("an estimate")
    };
    assert_eq!(e.error, None);
    assert!(e.auction.is_some(), "{e:?}");
    let Ok(CommandOutcome::Scheduled {
        timer_id: fee_id, ..
    }) = src.execute(UiCommand::ScheduleTimer(fees))
    else {
        panic!("scheduled with fee fields")
    };
    let d = src.dashboard(&ViewQuery {
        selected_bucket: Some(h + 5),
        ..ViewQuery::default()
    });
    let row = d
        .bucket_timers
        .iter()
        .find(|t| t.id == fee_id)
        .expect("in its bucket");
    assert_eq!(row.max_fee_per_cycle, Some(5_000_000_000));
    assert_eq!(row.priority_tier.map(|t| t.as_str()), Some("fast"));
    src.execute(UiCommand::CancelTimer {
        actor,
        timer_id: fee_id,
    })
    .expect("cancelled");

    // Extend, then cancel: both reach the node.
    let Ok(CommandOutcome::Applied { what }) = src.execute(UiCommand::ExtendTimer {
        actor,
        timer_id,
        new_expires_at: h + 500,
    }) else {
        panic!("extended")
    };
    assert!(what.contains(&format!("expires at #{}", h + 500)), "{what}");
    assert_eq!(
        src.timer_life(&timer_id)
            .unwrap()
            .record
            .unwrap()
            .expires_at,
        h + 500
    );
    src.execute(UiCommand::CancelTimer { actor, timer_id })
        .expect("cancelled");
    src.execute(UiCommand::Mine(1)).unwrap();
    assert_eq!(src.timer_life(&timer_id).unwrap().status, "cancelled");

    // The same error, named as the in-process node names it; nothing changed.
    let before = head(&mut src);
    let err = src
        .execute(UiCommand::CancelTimer { actor, timer_id })
        .unwrap_err();
    assert_eq!(err.reason, "TimerNotFound", "{err}");
    assert!(!err.message.starts_with("TimerNotFound"), "{err}");
    assert_eq!(head(&mut src), before);
    let err = src.execute(UiCommand::Revert(99)).unwrap_err();
    assert_eq!(err.reason, "UnknownSnapshot", "{err}");

    // Governance: cancel by instruction 48, and a config update.
    let Ok(CommandOutcome::Scheduled {
        timer_id: gov_id, ..
    }) = src.execute(UiCommand::ScheduleTimer(ScheduleRequest {
        height: h + 8,
        ..req.clone()
    }))
    else {
        panic!("scheduled")
    };
    src.execute(UiCommand::GovCancelTimer {
        from: None,
        timer_id: gov_id,
    })
    .expect("governance cancels");
    src.execute(UiCommand::Mine(1)).unwrap();
    assert_eq!(
        src.timer_life(&gov_id).unwrap().status,
        "cancelled_by_governance"
    );
    src.execute(UiCommand::GovUpdateConfig {
        from: None,
        patch: ConfigPatch {
            max_ttl_blocks: Some(9_999),
            ..ConfigPatch::default()
        },
    })
    .expect("governance updates the config");
    // The activation height through `gov_setActivationHeight`: a passed height is refused by
    // name, a coming one is set and read back by the next refresh.
    let err = src
        .execute(UiCommand::GovSetActivationHeight {
            from: None,
            height: 1,
        })
        .unwrap_err();
    assert_eq!(err.reason, "InvalidInput", "{err}");
    let Ok(CommandOutcome::Applied { what }) = src.execute(UiCommand::GovSetActivationHeight {
        from: None,
        height: 100,
    }) else {
        panic!("the activation height is set")
    };
    assert_eq!(what, "governance set the activation height to #100");
    let d = src.dashboard(&ViewQuery::default());
    assert_eq!(d.status.unwrap().activation_height, Some(100));

    // Snapshot and revert: the head goes back.
    let Ok(CommandOutcome::SnapshotTaken(id)) = src.execute(UiCommand::Snapshot) else {
        panic!("a snapshot")
    };
    let at = head(&mut src);
    src.execute(UiCommand::Mine(3)).unwrap();
    assert_eq!(head(&mut src), at + 3);
    assert_eq!(
        src.execute(UiCommand::Revert(id)),
        Ok(CommandOutcome::Reverted { id, height: at })
    );
    assert_eq!(head(&mut src), at);
}

#[test]
fn issue15_attach_feed_comes_from_the_subscriptions_without_gaps() {
    let serve = Serve::start(0);
    let mut src = RemoteDevnet::new(&serve.url()).unwrap();
    until(&mut src, "the subscriptions open", |s| s.subscribed());
    src.execute(UiCommand::Mine(1)).unwrap();
    let d = src.dashboard(&ViewQuery::default());
    let actor = d.actors[0];
    let mut from = 0;
    let mut feed = Vec::new();
    let mut take = |src: &mut RemoteDevnet, feed: &mut Vec<_>| {
        let ev = src.events(from, 5_000);
        if let Some(l) = ev.last() {
            from = l.height + 1;
        }
        feed.extend(ev);
    };
    // History before the subscription: read over HTTP.
    take(&mut src, &mut feed);
    assert!(feed.iter().any(|e| e.kind == "ActorDeployed"), "{feed:?}");
    let Ok(CommandOutcome::Scheduled { timer_id, height }) =
        src.execute(UiCommand::ScheduleTimer(ScheduleRequest {
            actor,
            height: 4,
            ..Default::default()
        }))
    else {
        panic!("scheduled")
    };
    src.execute(UiCommand::Mine(5)).unwrap();
    until(&mut src, "the timer fire in the feed", |s| {
        take(s, &mut feed);
        feed.iter()
            .any(|e| e.kind == "TimerFired" && e.timer == Some(timer_id))
    });
    let fired = feed
        .iter()
        .find(|e| e.kind == "TimerFired" && e.timer == Some(timer_id))
        .unwrap();
    assert_eq!(fired.height, height);
    // The subscriptions stayed open all along (the feed did not fall back to polling).
    src.tick(Instant::now());
    assert!(src.subscribed(), "{:?}", src.link());
    assert_eq!(src.link(), None);
    // Each event once, in height order (nothing read twice across HTTP and WebSocket).
    assert!(feed.windows(2).all(|w| w[0].height <= w[1].height));
    let scheduled = feed
        .iter()
        .filter(|e| e.kind == "TimerScheduled" && e.timer == Some(timer_id))
        .count();
    assert_eq!(scheduled, 1, "{feed:#?}");
}

#[test]
fn issue15_attach_keeps_the_last_view_when_the_server_goes_and_reattaches() {
    let serve = Serve::start(0);
    let port = serve.port();
    let url = serve.url();
    let mut src = RemoteDevnet::new(&url).unwrap();
    until(&mut src, "the subscriptions open", |s| s.subscribed());
    src.execute(UiCommand::Mine(3)).unwrap();
    let before = src.dashboard(&ViewQuery::default());
    assert_eq!(before.status.as_ref().unwrap().height, 3);

    drop(serve);
    until(&mut src, "the link report the server gone", |s| {
        s.dashboard(&ViewQuery::default());
        s.link().is_some_and(|l| l.contains("retrying"))
    });
    // The last view stays; a command fails, named.
    assert_eq!(src.dashboard(&ViewQuery::default()), before);
    let err = src.execute(UiCommand::Mine(1)).unwrap_err();
    assert_eq!(err.reason, "Disconnected", "{err}");

    // A devnet on the same address again: reattached (a fresh chain, back at height 0).
    let _again = Serve::start(port);
    until(&mut src, "the source reattach", |s| {
        s.dashboard(&ViewQuery::default())
            .status
            .is_some_and(|st| st.height == 0)
            && s.subscribed()
            && s.link().is_none()
    });
}

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

#[test]
fn issue15_attach_keys_go_through_the_worker_and_never_wait() {
    let serve = Serve::start(0);
    let src = RemoteDevnet::new(&serve.url()).unwrap();
    let mut app = App::new(KeyMap::default());
    let mut client = Client::spawn(src, Duration::from_millis(20));
    client.refresh(&app);
    let limit = Instant::now() + Duration::from_secs(60);
    while app.data.status.is_none() {
        assert!(Instant::now() < limit, "no data came");
        client.wait(&mut app, Duration::from_millis(100));
    }
    // `n` sends `devnet_mine`: the handler returns at once, the reply arrives as a message.
    client.handle_key(&mut app, key('n'));
    assert_eq!(app.waiting, ["devnet_mine"]);
    client.handle_key(&mut app, KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    assert_eq!(app.focus, Pane::Tiers);
    while app.height() < 1 || !app.waiting.is_empty() {
        assert!(Instant::now() < limit, "the step never showed");
        client.wait(&mut app, Duration::from_millis(100));
    }
    assert_eq!(
        app.toast.as_ref().map(|t| t.text.as_str()),
        Some("mined to #1")
    );
}

/// One devnet served beside its in-process node: the demo fixture, manual mining.
struct Both {
    node: cowboy_devnet::node::NodeHandle,
    local: cowboy_devnet::tui::local::LocalDevnet<cowboy_devnet::tui::local::LiveNode>,
    remote: RemoteDevnet,
    running: cowboy_devnet::rpc::server::Running,
    _rt: tokio::runtime::Runtime,
}

impl Both {
    fn start() -> Both {
        Both::start_on("demo")
    }

    /// The shipped fixture `name` played along a manual-mining node, served.
    fn start_on(name: &str) -> Both {
        use cowboy_devnet::node::{NodeConfig, NodeCore};
        use cowboy_devnet::scenario::builtin;
        use cowboy_devnet::scenario::live::FixturePlayer;
        use cowboy_devnet::vm::DevnetRuntime;
        use std::sync::Arc;

        let sc = Arc::new(
            builtin::scenario(name, &DevnetRuntime::new())
                .expect("the fixture ships")
                .expect("the fixture prepares"),
        );
        let mut cfg = NodeConfig::new(sc.genesis().clone(), DevnetRuntime::shared());
        cfg.mining = cowboy_devnet::node::MiningMode::Manual;
        cfg.names = sc.address_book();
        let mut core = NodeCore::new(cfg).expect("genesis");
        core.set_hook(Box::new(FixturePlayer::new(sc.clone())));
        Both::serve(core)
    }

    /// `core` on its own thread, served on a free port, with both sources on it.
    fn serve(core: cowboy_devnet::node::NodeCore) -> Both {
        use cowboy_devnet::node::spawn;
        use cowboy_devnet::rpc::methods::module;
        use cowboy_devnet::rpc::server::{self, ServerOptions};
        use cowboy_devnet::tui::local::LocalDevnet;
        let node = spawn(core);
        let rt = tokio::runtime::Runtime::new().unwrap();
        let running = rt
            .block_on(server::start(
                module(node.clone()),
                &ServerOptions {
                    port: 0,
                    ..ServerOptions::default()
                },
            ))
            .expect("the server starts");
        let url = format!("http://{}", running.addr);
        let local = LocalDevnet::live(node.clone()).with_rpc_address(url.clone());
        let remote = RemoteDevnet::new(&url).unwrap();
        Both {
            node,
            local,
            remote,
            running,
            _rt: rt,
        }
    }

    /// Mines up to `target`; the queries of a refresh with no bucket and with the first busy
    /// one selected.
    fn mine_to(&mut self, target: u64) -> Vec<ViewQuery> {
        let h = self.node.head().height;
        self.node
            .request_blocking(cowboy_devnet::node::Mine { blocks: target - h })
            .unwrap();
        let first = self.local.dashboard(&ViewQuery::default());
        let busy = first.buckets.iter().find(|b| b.count > 0).map(|b| b.height);
        [None, busy]
            .into_iter()
            .map(|selected_bucket| ViewQuery {
                selected_bucket,
                ..ViewQuery::default()
            })
            .collect()
    }

    fn stop(self) {
        drop(self.remote);
        let _ = self.running.handle.stop();
        self.node.shutdown();
    }
}

/// One devnet, both sources: the in-process source on the node's shell and the JSON-RPC source
/// on the server beside it show the same dashboard (the data interface does not depend on
/// which one the dashboard talks to): every field, the overflow root and the pending timers
/// per actor included (issue 19: the API carries them).
#[test]
fn issue15_attached_and_in_process_sources_show_the_same_dashboard() {
    let mut both = Both::start();
    // Through the demo's lane contention (#30) and one block past it.
    for target in [12, 32] {
        for q in both.mine_to(target) {
            let l = both.local.dashboard(&q);
            let r = both.remote.dashboard(&q);
            assert!(l.tiers.overflow_root.is_some(), "#{target}");
            assert!(!l.fairness.is_empty(), "#{target}");
            assert_eq!(l.status, r.status, "#{target}");
            assert_eq!(l.buckets, r.buckets, "#{target}");
            assert_eq!(l.bucket_timers, r.bucket_timers, "#{target}");
            assert_eq!(l.tiers, r.tiers, "#{target}");
            assert_eq!(l.lane, r.lane, "#{target}");
            assert_eq!(l.fairness, r.fairness, "#{target}");
            assert_eq!(l.actors, r.actors, "#{target}");
            assert_eq!(l.names, r.names, "#{target}");
            assert_eq!(l, r, "#{target}");
        }
        let le = both.local.events(0, 5_000);
        assert_eq!(le, both.remote.events(0, 5_000), "#{target}");
        for id in le.iter().filter_map(|e| e.timer).take(20) {
            assert_eq!(
                both.local.timer_life(&id),
                both.remote.timer_life(&id),
                "#{target}"
            );
        }
    }
    both.stop();
}

/// Issue 19: a transport computes no view field. Both sources hand back the replies of the
/// node's read requests, equal as typed values whether run in-process or sent as JSON-RPC, and
/// the view each shows is the one assembler's output for them.
#[test]
fn issue19_transports_return_the_same_typed_replies_and_the_view_is_assembled_from_them() {
    use cowboy_devnet::tui::view::{assemble, timer_life};
    let mut both = Both::start();
    for target in [12, 32] {
        for q in both.mine_to(target) {
            let rl = both.local.replies(&q).expect("the node answers");
            let rr = both.remote.replies(&q).expect("the server answers");
            assert_eq!(rl.head, rr.head, "#{target}");
            assert_eq!(rl.config, rr.config, "#{target}");
            assert_eq!(rl.tiers, rr.tiers, "#{target}");
            assert_eq!(rl.buckets, rr.buckets, "#{target}");
            assert_eq!(rl.bucket, rr.bucket, "#{target}");
            assert_eq!(rl.lane, rr.lane, "#{target}");
            assert_eq!(rl.shares, rr.shares, "#{target}");
            assert_eq!(rl.names, rr.names, "#{target}");
            assert_eq!(rl.actors, rr.actors, "#{target}");
            assert_eq!(rl.deferred, rr.deferred, "#{target}");
            assert_eq!(rl, rr, "#{target}");
            assert_eq!(both.local.info(), both.remote.info(), "#{target}");
            assert!(!rl.bucket.timers.is_empty() || q.selected_bucket.is_none());
            let info = both.local.info();
            assert_eq!(both.local.dashboard(&q), assemble(&rl, &q, &info));
            assert_eq!(both.remote.dashboard(&q), assemble(&rr, &q, &info));
        }
        let records = both.local.event_records(0, 5_000);
        assert!(!records.is_empty());
        assert_eq!(records, both.remote.event_records(0, 5_000), "#{target}");
        for id in records.iter().filter_map(|r| r.event.timer_id()).take(10) {
            let ll = both.local.life_replies(&id).expect("known");
            assert_eq!(Some(&ll), both.remote.life_replies(&id).as_ref());
            let names = both.local.info().names;
            assert_eq!(both.local.timer_life(&id), timer_life(&ll, &names));
        }
    }
    both.stop();
}

/// Issue 19: the attached dashboard counts every pending timer per actor, as the in-process one
/// does (it sampled the first 10,000 pending timers before), and shows the same view.
#[test]
fn issue19_pending_counts_beyond_10000_are_the_same_attached() {
    use cowboy_devnet::chain::Genesis;
    use cowboy_devnet::engine::{Address, Timer, TimerConfig, TimerId};
    use cowboy_devnet::node::{NodeConfig, NodeCore};
    use cowboy_devnet::vm::DevnetRuntime;
    const PENDING: u64 = 12_000;
    let genesis = Genesis {
        timer: TimerConfig {
            max_timers_per_actor: u32::MAX,
            ..TimerConfig::default()
        },
        ..Genesis::default()
    };
    let mut cfg = NodeConfig::new(genesis, DevnetRuntime::shared());
    cfg.mining = cowboy_devnet::node::MiningMode::Manual;
    let mut core = NodeCore::new(cfg).expect("genesis");
    let actor = |n: u64| Address::from_low_u64(0x1000 + n % 3);
    let timers = (0..PENDING).map(|n| {
        let mut id = [0u8; 32];
        id[..8].copy_from_slice(&n.to_le_bytes());
        id[8] = 0x19;
        Timer {
            timer_id: TimerId(id),
            actor_address: actor(n),
            fee_payer: actor(n),
            height: 5 + n % 40,
            seq: 0,
            schedule_block: 0,
            gas_limit_per_fire: 10_000,
            expires_at: 1_000,
            payload: Box::default(),
            fee_caps: None,
        }
    });
    core.test_hook_insert_timers(timers).expect("fresh ids");
    let mut both = Both::serve(core);
    let q = ViewQuery {
        selected_bucket: Some(5),
        ..ViewQuery::default()
    };
    let l = both.local.dashboard(&q);
    let r = both.remote.dashboard(&q);
    let pending: Vec<u64> = r.fairness.iter().map(|f| f.pending).collect();
    assert_eq!(pending, [4_000, 4_000, 4_000]);
    assert_eq!(r.status.as_ref().map(|s| s.pending_timers), Some(PENDING));
    assert_eq!(l, r);
    both.stop();
}

/// Spec note 73 (bounded history): a dashboard attached to a node that has pruned the heights
/// its feed starts from (a new dashboard asks from #0) goes on from the oldest kept height
/// instead of showing nothing.
#[test]
fn issue20_attached_feed_goes_on_from_the_oldest_kept_height() {
    let serve = Serve::start_with(0, &["--history", "20"]);
    let mut src = RemoteDevnet::new(&serve.url()).expect("a valid URL");
    until(&mut src, "the subscriptions open", |s| s.subscribed());
    src.execute(UiCommand::Mine(45)).expect("mine");
    assert_eq!(head(&mut src), 45);
    // A second dashboard whose feed had read up to #3 (a jump longer than the history).
    let mut late = RemoteDevnet::new(&serve.url()).expect("a valid URL");
    until(&mut late, "the subscriptions open", |s| s.subscribed());
    let rows = late.events(3, 1_000);
    assert!(!rows.is_empty(), "the feed is empty after pruning");
    assert!(
        rows.iter().all(|r| r.height >= 26),
        "only kept heights: {:?}",
        rows.iter().map(|r| r.height).collect::<Vec<_>>()
    );
}

/// Issue 23 ("the demo tells its story"), attached: the story line of the fixture the served
/// node plays (steps in words, the labels they give timers, expectations) reaches a dashboard
/// attached with `--attach`, through `devnet_subscribeStory`.
#[test]
fn issue23_attached_dashboard_gets_the_fixtures_story() {
    let serve = Serve::start(0);
    let mut src = RemoteDevnet::new(&serve.url()).expect("a valid URL");
    until(&mut src, "the subscriptions open", |s| s.subscribed());
    src.execute(UiCommand::Mine(12)).expect("mine");
    let mut story = Vec::new();
    let limit = Instant::now() + Duration::from_secs(20);
    while !story
        .iter()
        .any(|s: &cowboy_devnet::tui::story::StoryItem| s.label.is_some())
        && Instant::now() < limit
    {
        src.tick(Instant::now());
        story.extend(src.take_story());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        story.iter().any(|s| s.height == Some(2) && s.ok),
        "the step at #2: {story:?}"
    );
    let (name, _) = story
        .iter()
        .find_map(|s| s.label.clone())
        .expect("a schedule step's label");
    assert!(!name.is_empty());
}

/// Issue 24, "Step the dashboard back", attached: `[` views the served node as of a past
/// block through the API alone (the block tags), the same view the in-process source
/// assembles at that height; commands are refused meanwhile; `F` forks there with
/// `devnet_revertTo`.
#[test]
fn issue24_attached_dashboard_steps_back_and_forks_through_the_api() {
    let serve = Serve::start(0);
    let mut src = RemoteDevnet::new(&serve.url()).expect("a valid URL");
    until(&mut src, "the subscriptions open", |s| s.subscribed());
    src.execute(UiCommand::Mine(12)).expect("mine");
    let tip = head(&mut src);
    let mut app = App::new(KeyMap::default());
    cowboy_devnet::tui::refresh(&mut src, &mut app);
    for k in ['[', '{'] {
        cowboy_devnet::tui::handle_key(&mut src, &mut app, key(k));
    }
    let at = tip - 11;
    let s = app.data.status.clone().unwrap();
    assert_eq!((s.height, s.tip), (at, tip));
    // A refresh asks the same past height again: the same panes.
    let q = ViewQuery {
        at: Some(at),
        ..ViewQuery::default()
    };
    let past = src.dashboard(&q);
    assert_eq!(past.status.as_ref().unwrap().height, at);
    assert_eq!(past.buckets, app.data.buckets);
    // Refused while viewing.
    cowboy_devnet::tui::handle_key(&mut src, &mut app, key(' '));
    assert!(app.toast.as_ref().unwrap().text.contains("refused"));
    assert_eq!(head(&mut src), tip);
    // Fork here.
    for k in ['F', 'y'] {
        cowboy_devnet::tui::handle_key(&mut src, &mut app, key(k));
    }
    assert_eq!(head(&mut src), at);
    assert_eq!(app.view_at, None);
}

/// Issue 24 through both sources: viewing a past height, the timer life (`timer_get`,
/// `devnet_head`, `scheduler_config` with a block tag) and the drafts' pane (`scheduler_draft`
/// with a block tag) answer as of that height, the same typed replies in-process and attached;
/// the watch strip of an attached dashboard follows the viewed height.
#[test]
fn issue24_attached_life_watch_and_drafts_answer_as_of_the_viewed_height() {
    let mut both = Both::start_on("v19_replay");
    both.mine_to(8);
    let at = Some(5);
    let q = ViewQuery {
        at,
        ..ViewQuery::default()
    };
    let (l, r) = (
        both.local.replies(&q).unwrap(),
        both.remote.replies(&q).unwrap(),
    );
    assert_eq!(l, r);
    let past = l.draft.clone().expect("a draft scheduler");
    let now = both
        .local
        .replies(&ViewQuery::default())
        .unwrap()
        .draft
        .unwrap();
    assert!(!past.globalbox.is_empty(), "fires queued at #5");
    assert_ne!(past, now, "the drafts' state as of #5, not the head's");
    // A fire queued at #5 that ran later: pending then, gone now, both sources alike.
    let id = past.globalbox[0].timer_id;
    let ll = both.local.life_replies_at(&id, at).expect("known at #5");
    assert_eq!(Some(&ll), both.remote.life_replies_at(&id, at).as_ref());
    assert_eq!(ll.head.height, 5);
    let then = both.remote.timer_life_at(&id, at).unwrap();
    assert_eq!((then.at, then.status.as_str()), (at, "pending"));
    assert!(then.timeline.iter().all(|e| e.height <= 5));
    let later = both.remote.timer_life(&id).unwrap();
    assert_ne!(later.status, "pending", "{later:?}");
    // The attached dashboard: watch it, step back to #5.
    let mut app = App::new(KeyMap::default());
    app.watch = Some(id);
    cowboy_devnet::tui::refresh(&mut both.remote, &mut app);
    assert_eq!(app.watch_life.as_ref().unwrap().status, later.status);
    for _ in 0..3 {
        cowboy_devnet::tui::handle_key(&mut both.remote, &mut app, key('['));
    }
    assert_eq!(app.shown_at(), Some(5));
    assert_eq!(app.data.draft.as_ref(), Some(&past));
    let w = app.watch_life.clone().unwrap();
    assert_eq!((w.at, w.status.as_str()), (at, "pending"));
    both.stop();
}

/// Issue 34, attached: the charts' window of blocks (`<`/`>`) is the refresh's
/// `LaneQuery.last`, which the attached source sends as `scheduler_lane`'s `last`; and the raw
/// view of a timer that left reads its payload as of the block before it left over JSON-RPC
/// (a `timer_get` with a `block` param), as the in-process source does (Spec note 177).
#[test]
fn issue34_attach_charts_window_and_a_gone_timers_payload() {
    let serve = Serve::start(0);
    let mut src = RemoteDevnet::new(&serve.url()).expect("a valid URL");
    until(&mut src, "the subscriptions open", |s| s.subscribed());
    src.execute(UiCommand::Mine(12)).unwrap();
    let narrow = ViewQuery {
        lane_blocks: 4,
        ..ViewQuery::default()
    };
    let d = src.dashboard(&narrow);
    let heights: Vec<u64> = d.lane.iter().map(|r| r.height).collect();
    assert!(
        !heights.is_empty() && heights.iter().all(|h| *h > 8),
        "{heights:?}"
    );
    assert!(src.dashboard(&ViewQuery::default()).lane.len() > heights.len());
    // The demo's `settle-42` (payload `order-42`-like, fired at #8): read as of #7.
    let fired = src
        .events(1, 10_000)
        .into_iter()
        .find(|e| e.kind == "TimerFired" && e.height == 8)
        .and_then(|e| e.timer)
        .expect("a timer fired at #8");
    let life = src.timer_life(&fired).expect("its life");
    assert_eq!(life.status, "fired");
    assert_eq!(life.left_at, Some(8));
    let payload = src
        .payload_at(&fired, 7)
        .expect("read as of #7")
        .expect("pending then");
    assert_eq!(
        payload.len() as u64,
        life.record.as_ref().unwrap().payload_len
    );
    assert!(
        life.payload.is_none(),
        "the head keeps no payload of a gone timer"
    );
}

/// A refresh the node refuses (here a past view of a height it never had) is said in the
/// status bar, naming the query, and the panes keep the last answer; the next good refresh
/// clears it (issue 31: a dashboard newer than its server froze without a word).
#[test]
fn issue31_a_refused_refresh_is_said_and_the_last_answer_stays() {
    let serve = Serve::start(0);
    let mut src = RemoteDevnet::new(&serve.url()).unwrap();
    let good = src.dashboard(&ViewQuery::default());
    assert!(good.status.is_some());
    assert_eq!(src.link(), None);
    let bad = ViewQuery {
        at: Some(1_000_000_000),
        ..ViewQuery::default()
    };
    let kept = src.dashboard(&bad);
    assert_eq!(kept.status, good.status, "the last answer stays");
    let link = src.link().expect("the failure is said");
    assert!(link.starts_with("a refresh failed"), "{link}");
    assert!(
        link.contains("devnet_head: InvalidInput: height 1000000000 is past the head"),
        "the query and the node's words: {link}"
    );
    src.dashboard(&ViewQuery::default());
    assert_eq!(src.link(), None, "cleared by the next refresh");
}

/// Issue 30's reorg notification reaches an attached dashboard typed (issue 29: the dashboard
/// reads the server's messages through the server's own types, `rpc::notice::Notice`): a revert
/// while attached keeps the subscriptions open (the events stream's reorg message used to fail
/// to parse as an event and close them), and the feed goes on with the new chain's events,
/// each once.
#[test]
fn issue29_attached_feed_stays_subscribed_through_a_revert() {
    let serve = Serve::start(0);
    let mut src = RemoteDevnet::new(&serve.url()).unwrap();
    until(&mut src, "the subscriptions open", |s| s.subscribed());
    src.execute(UiCommand::Mine(1)).unwrap();
    let actor = src.dashboard(&ViewQuery::default()).actors[0];
    let Ok(CommandOutcome::SnapshotTaken(id)) = src.execute(UiCommand::Snapshot) else {
        panic!("a snapshot")
    };
    let at = head(&mut src);
    let schedule = |src: &mut RemoteDevnet, height: u64| {
        let Ok(CommandOutcome::Scheduled { timer_id, .. }) =
            src.execute(UiCommand::ScheduleTimer(ScheduleRequest {
                actor,
                height,
                ..Default::default()
            }))
        else {
            panic!("scheduled")
        };
        timer_id
    };
    let old = schedule(&mut src, at + 2);
    src.execute(UiCommand::Mine(3)).unwrap();
    until(&mut src, "the first timer's fire delivered", |s| {
        s.events(0, 5_000)
            .iter()
            .any(|e| e.kind == "TimerFired" && e.timer == Some(old))
    });
    src.execute(UiCommand::Revert(id)).unwrap();
    let new = schedule(&mut src, at + 3);
    src.execute(UiCommand::Mine(4)).unwrap();
    until(&mut src, "the new chain's fire delivered", |s| {
        s.events(0, 5_000)
            .iter()
            .any(|e| e.kind == "TimerFired" && e.timer == Some(new))
    });
    src.tick(Instant::now());
    assert!(src.subscribed(), "{:?}", src.link());
    assert_eq!(src.link(), None);
    let feed = src.events(0, 5_000);
    assert!(
        !feed.iter().any(|e| e.timer == Some(old)),
        "the reverted chain's events are gone from the feed: {feed:#?}"
    );
    let fired = feed
        .iter()
        .filter(|e| e.kind == "TimerFired" && e.timer == Some(new))
        .count();
    assert_eq!(fired, 1, "{feed:#?}");
}
