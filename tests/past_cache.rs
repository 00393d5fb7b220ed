//! Issue 24 ("a past view is not re-read from a checkpoint on each refresh"; docs/API.md
//! "Block tags", Spec note 73 for the retained history): the node keeps the last past states
//! it rebuilt, so a repeated read at one past height costs a lookup. Its answers are the
//! same as a node that keeps none, through mining, pruning, names, snapshots and reverts; a
//! revert drops what it kept.

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::engine::{Address, ScheduleArgs, TimerId};
use cowboy_devnet::node::{
    AccountsQuery, At, DeployActor, EventFilter, EventsQuery, HeadQuery, Mine, MiningMode,
    NamesQuery, NodeConfig, NodeCore, NodeError, NodeHandle, Query, Request, Revert, RevertTo,
    ScheduleTimer, SetMining, Snapshot, TiersQuery, TimerFilter, TimerQuery, TimersQuery,
};
use cowboy_devnet::vm::DevnetRuntime;
use proptest::prelude::*;

const SCRIPT: &str = r#"
fn handle_timer(payload) {
    emit("fired", `at height ${block_height()}`);
}
"#;

/// A manual-mining node keeping `history` heights, past states kept: `cache` of them.
fn node(history: usize, cache: usize) -> NodeCore {
    let mut c = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    c.history = history;
    c.keep_blocks = Some(history);
    c.mining = MiningMode::Manual;
    let mut n = NodeCore::new(c).expect("genesis");
    n.set_past_cache(cache);
    n
}

/// A node driven in the test: in-process ([`NodeCore`], every read on the caller's thread)
/// or spawned ([`NodeHandle`]: past reads answered on the past-read threads, issue 31 item 7).
trait Dev {
    fn req<R: Request>(&mut self, r: R) -> Result<R::Reply, NodeError>;
    fn read<Q: Query>(&self, q: Q) -> Result<Q::Reply, NodeError>;
}

impl Dev for NodeCore {
    fn req<R: Request>(&mut self, r: R) -> Result<R::Reply, NodeError> {
        self.apply(r)
    }
    fn read<Q: Query>(&self, q: Q) -> Result<Q::Reply, NodeError> {
        self.ask(&q)
    }
}

impl Dev for NodeHandle {
    fn req<R: Request>(&mut self, r: R) -> Result<R::Reply, NodeError> {
        self.request_blocking(r)
    }
    fn read<Q: Query>(&self, q: Q) -> Result<Q::Reply, NodeError> {
        self.ask_blocking(q)
    }
}

fn height(n: &impl Dev) -> u64 {
    n.read(HeadQuery).expect("head").height
}

fn deploy(n: &mut impl Dev, name: &str) -> Address {
    n.req(DeployActor {
        from: Some(cowboy_devnet::node::dev_account(1)),
        code: ActorCode::rhai(name, SCRIPT),
        address: None,
        endowment: 50_000_000_000,
        name: Some(name.into()),
    })
    .expect("deploy")
    .address
}

fn schedule(n: &mut impl Dev, actor: Address, after: u64) -> Option<TimerId> {
    let height = n.read(HeadQuery).expect("head").pending_height + after;
    let args = ScheduleArgs {
        height,
        payload: vec![after as u8],
        ..ScheduleArgs::default()
    };
    n.req(ScheduleTimer {
        actor,
        args,
        ..Default::default()
    })
    .ok()
    .map(|s| s.timer_id)
}

/// Everything a dashboard asks of a past height, as one comparable text (errors included).
fn read(n: &impl Dev, h: u64, timers: &[TimerId]) -> String {
    let at = Some(h);
    let mut out = Vec::new();
    out.push(format!("{:?}", n.read(At::new(HeadQuery, at))));
    out.push(format!("{:?}", n.read(At::new(TiersQuery, at))));
    out.push(format!("{:?}", n.read(At::new(AccountsQuery, at))));
    out.push(format!("{:?}", n.read(At::new(NamesQuery, at))));
    let all = EventsQuery(EventFilter::default());
    out.push(format!("{:?}", n.read(At::new(all, at))));
    let list = TimersQuery(TimerFilter::default());
    out.push(format!("{:?}", n.read(At::new(list, at))));
    for id in timers {
        out.push(format!("{:?}", n.read(At::new(TimerQuery { id: *id }, at))));
    }
    out.join("\n")
}

#[test]
fn issue24_a_repeated_past_read_is_kept_and_a_revert_drops_it() {
    let mut n = node(10_000, 4);
    let a = deploy(&mut n, "ticker");
    let mut timers = Vec::new();
    for i in 0..6 {
        timers.extend(schedule(&mut n, a, 3 + i));
        n.apply(Mine { blocks: 2 }).unwrap();
    }
    let snap = n.apply(Snapshot).unwrap();
    n.apply(Mine { blocks: 20 }).unwrap();
    let h = 9;
    let first = read(&n, h, &timers);
    assert_eq!(n.past_states_kept(), 1, "#{h} is kept");
    // The chain goes on: the same past read, from the kept state, the same answer.
    n.apply(Mine { blocks: 5 }).unwrap();
    assert_eq!(read(&n, h, &timers), first);
    assert_eq!(n.past_states_kept(), 1);
    // At most DEFAULT_PAST_CACHE (4) heights, the least recently read dropped first.
    for k in 1..=5 {
        read(&n, k, &timers);
    }
    assert_eq!(n.past_states_kept(), 4);
    // A revert to the snapshot drops them; a different chain then answers as a fresh node.
    read(&n, h, &timers);
    n.apply(Revert { id: snap }).unwrap();
    assert_eq!(n.past_states_kept(), 0, "a revert drops the kept states");
    // #9 is before the snapshot's head (#14): the same; then a new span with other timers.
    assert_eq!(read(&n, h, &timers), first);
    let after = n.height() + 3;
    read(&n, n.height() - 1, &timers);
    timers.extend(schedule(&mut n, a, 1));
    n.apply(Mine { blocks: 6 }).unwrap();
    let mut fresh = node(10_000, 0);
    let b = deploy(&mut fresh, "ticker");
    assert_eq!(a, b);
    let mut again = Vec::new();
    for i in 0..6 {
        again.extend(schedule(&mut fresh, b, 3 + i));
        fresh.apply(Mine { blocks: 2 }).unwrap();
    }
    again.extend(schedule(&mut fresh, b, 1));
    fresh.apply(Mine { blocks: 6 }).unwrap();
    assert_eq!(again, timers);
    assert_eq!(read(&n, after, &timers), read(&fresh, after, &timers));
    // devnet_revertTo drops them too, and a reread answers the new chain.
    read(&n, after, &timers);
    assert!(n.past_states_kept() > 0);
    n.apply(RevertTo { height: after }).unwrap();
    assert_eq!(n.past_states_kept(), 0, "revertTo drops the kept states");
    n.apply(Mine { blocks: 3 }).unwrap();
    fresh.apply(RevertTo { height: after }).unwrap();
    fresh.apply(Mine { blocks: 3 }).unwrap();
    for k in [after - 2, after, after + 2] {
        assert_eq!(read(&n, k, &timers), read(&fresh, k, &timers), "#{k}");
    }
}

#[derive(Clone, Debug)]
enum Cmd {
    Schedule(u64),
    Mine(u64),
    Read(u64),
    Snapshot,
    Revert,
    RevertTo(u64),
    Mining(bool),
    Deploy,
}

fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        3 => (1u64..30).prop_map(Cmd::Schedule),
        3 => (1u64..60).prop_map(Cmd::Mine),
        5 => (0u64..80).prop_map(Cmd::Read),
        1 => Just(Cmd::Snapshot),
        1 => Just(Cmd::Revert),
        1 => (0u64..40).prop_map(Cmd::RevertTo),
        1 => any::<bool>().prop_map(Cmd::Mining),
        1 => Just(Cmd::Deploy),
    ]
}

/// Applies `c` to `n` (the same on both nodes: the chain is deterministic).
fn apply(n: &mut impl Dev, c: &Cmd, actor: Address, timers: &mut Vec<TimerId>, deploys: &mut u32) {
    match c {
        Cmd::Schedule(after) => timers.extend(schedule(n, actor, *after)),
        Cmd::Mine(b) => {
            n.req(Mine { blocks: *b }).unwrap();
        }
        Cmd::Read(_) => {}
        Cmd::Snapshot => {
            n.req(Snapshot).unwrap();
        }
        Cmd::Revert => {
            let _ = n.req(Revert { id: 1 });
        }
        Cmd::RevertTo(back) => {
            let h = height(n).saturating_sub(*back);
            let _ = n.req(RevertTo { height: h });
        }
        Cmd::Mining(m) => {
            let mode = if *m {
                MiningMode::Manual
            } else {
                MiningMode::Interval { block_time_ms: 7 }
            };
            n.req(SetMining(mode)).unwrap();
        }
        Cmd::Deploy => {
            // A named actor: the names a past node shows are the node's now.
            *deploys += 1;
            deploy(n, &format!("extra{deploys}"));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Random sessions (mining past a short retained history, snapshots, reverts, names,
    /// mining modes) with past reads in between: the node that keeps past states answers
    /// every read as the node that keeps none.
    #[test]
    fn issue24_past_reads_are_the_same_with_and_without_kept_states(
        cmds in prop::collection::vec(cmd(), 1..30)
    ) {
        let mut kept = node(48, 2);
        let mut none = node(48, 0);
        let a = deploy(&mut kept, "ticker");
        prop_assert_eq!(deploy(&mut none, "ticker"), a);
        let (mut tk, mut tn) = (Vec::new(), Vec::new());
        let (mut dk, mut dn) = (0, 0);
        for c in &cmds {
            apply(&mut kept, c, a, &mut tk, &mut dk);
            apply(&mut none, c, a, &mut tn, &mut dn);
            prop_assert_eq!(kept.height(), none.height());
            if let Cmd::Read(back) = c {
                let h = kept.height().saturating_sub(*back);
                // Twice: the second from the kept state.
                for _ in 0..2 {
                    prop_assert_eq!(read(&kept, h, &tk), read(&none, h, &tn), "#{}", h);
                }
            }
        }
        prop_assert!(kept.past_states_kept() <= 2);
        prop_assert_eq!(none.past_states_kept(), 0);
    }

    /// Issue 31 item 7 (past reads off the node's thread): the same random sessions, the node
    /// that keeps past states spawned, so its past reads are built and answered on the
    /// past-read threads (kept states handed back to the node's thread): every read answers
    /// as the in-process node that keeps none.
    #[test]
    fn issue31_past_reads_off_the_node_thread_answer_the_same(
        cmds in prop::collection::vec(cmd(), 1..30)
    ) {
        let mut live = cowboy_devnet::node::spawn(node(48, 2));
        let mut none = node(48, 0);
        let a = deploy(&mut live, "ticker");
        prop_assert_eq!(deploy(&mut none, "ticker"), a);
        let (mut tk, mut tn) = (Vec::new(), Vec::new());
        let (mut dk, mut dn) = (0, 0);
        // A spawned node mines by the clock under interval mining: both stay manual here.
        let cmds = cmds.into_iter().filter(|c| !matches!(c, Cmd::Mining(false)));
        for c in &cmds.collect::<Vec<_>>() {
            apply(&mut live, c, a, &mut tk, &mut dk);
            apply(&mut none, c, a, &mut tn, &mut dn);
            prop_assert_eq!(height(&live), none.height());
            if let Cmd::Read(back) = c {
                let h = none.height().saturating_sub(*back);
                for _ in 0..2 {
                    prop_assert_eq!(read(&live, h, &tk), read(&none, h, &tn), "#{}", h);
                }
            }
        }
        live.shutdown();
    }
}

/// Issue 31 item 7: readers at past heights on three threads while the node mines and takes
/// schedules: every past read names the block sealed at its height (the hash the node gave
/// when it sealed it), and the live node's own reads go on answering.
#[test]
fn issue31_past_reads_run_beside_the_live_node() {
    let mut live = cowboy_devnet::node::spawn(node(10_000, 4));
    let a = deploy(&mut live, "ticker");
    let mut hashes = vec![];
    for i in 0..40 {
        schedule(&mut live, a, 2 + i % 5);
        live.req(Mine { blocks: 1 }).unwrap();
        let head = live.read(HeadQuery).unwrap();
        hashes.push((head.height, head.hash));
    }
    let hashes = std::sync::Arc::new(hashes);
    let readers: Vec<_> = (0..3u64)
        .map(|r| {
            let (node, hashes) = (live.clone(), hashes.clone());
            std::thread::spawn(move || {
                for k in 0..30u64 {
                    let (h, hash) = hashes[((r * 7 + k * 13) % hashes.len() as u64) as usize];
                    let past = node.read(At::new(HeadQuery, Some(h))).expect("past read");
                    assert_eq!((past.height, past.hash), (h, hash), "reader {r}");
                }
            })
        })
        .collect();
    for i in 0..20 {
        schedule(&mut live, a, 1 + i % 3);
        live.req(Mine { blocks: 1 }).unwrap();
    }
    for r in readers {
        r.join().expect("reader");
    }
    assert_eq!(height(&live), 60);
    live.shutdown();
}
