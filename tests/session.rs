//! Issue 24: the session log, its export as a fixture that `run` replays to the same roots and
//! hashes at every height, past-height reads and `devnet_revertTo` (docs/FIXTURES.md
//! "Exported sessions", docs/API.md "Block tags").

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{DraftTimerArgs, Transaction, TxKind};
use cowboy_devnet::engine::{Address, ErrorKind, ScheduleArgs};
use cowboy_devnet::node::ConfigChange;
use cowboy_devnet::node::{
    AccountsQuery, At, Base, CallActor, CancelTimer, DraftQuery, DraftTimer, DryCall, DryRun,
    EventFilter, GovUpdateConfig, Halt, Mine, MiningMode, NodeConfig, NodeCore, PendingTxsQuery,
    Revert, RevertTo, ScheduleTimer, SendTx, SetBalance, SetMining, Snapshot, TiersQuery,
    TimerQuery, dev_account,
};
use cowboy_devnet::node::{DumpState, LoadState};
use cowboy_devnet::scenario::export::export;
use cowboy_devnet::vm::DevnetRuntime;
mod common;

use common::replay::{replay_from, replay_matches};
use proptest::prelude::*;
use std::collections::BTreeMap;

const SCRIPT: &str = r#"
fn handle_timer(payload) {
    emit("fired", `at height ${block_height()}`);
}
"#;

fn node(history: usize) -> NodeCore {
    let mut c = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    c.history = history;
    c.keep_blocks = Some(history);
    NodeCore::new(c).expect("genesis")
}

fn deploy(n: &mut NodeCore, name: &str) -> Address {
    common::node_deploy(n, ActorCode::rhai(name, SCRIPT), name)
}

fn schedule(n: &mut NodeCore, actor: Address, after: u64) -> Result<(), ()> {
    let height = n.chain().pending_height() + after;
    let args = ScheduleArgs {
        height,
        payload: b"hello".to_vec(),
        ..ScheduleArgs::default()
    };
    n.apply(ScheduleTimer {
        actor,
        args,
        ..Default::default()
    })
    .map(|_| ())
    .map_err(|_| ())
}

#[test]
fn issue24_export_of_a_session_replays_to_the_same_hash_and_root_at_every_height() {
    let mut n = node(10_000);
    let a = deploy(&mut n, "ticker");
    schedule(&mut n, a, 5).unwrap();
    schedule(&mut n, a, 9).unwrap();
    n.apply(Mine { blocks: 3 }).unwrap();
    // A transfer to an unnamed address, a balance set, a governance change.
    let stranger = Address::from_label("stranger");
    let tx = Transaction::new(
        dev_account(2),
        TxKind::Transfer {
            to: stranger,
            amount: 7,
        },
    );
    n.apply(SendTx(tx)).unwrap();
    n.apply(SetBalance {
        address: dev_account(3),
        balance: 42,
    })
    .unwrap();
    let mut set = serde_json::Map::new();
    set.insert("gc_cycles_per_block".into(), 4_000_000.into());
    n.apply(GovUpdateConfig {
        from: dev_account(0),
        config: ConfigChange::Fields(set),
    })
    .unwrap();
    // Manual mining: three transactions in one block, one of them reverted (a cancel of a
    // timer by an account that is not the actor's deployer is refused before it is sent;
    // a schedule in the past reverts in the block).
    n.apply(SetMining(MiningMode::Manual)).unwrap();
    schedule(&mut n, a, 20).unwrap();
    let id = n.apply(ScheduleTimer {
        actor: a,
        args: ScheduleArgs {
            height: n.chain().pending_height() + 30,
            payload: b"x".to_vec(),
            ..ScheduleArgs::default()
        },
        ..Default::default()
    });
    let id = id.unwrap().timer_id;
    n.apply(Mine { blocks: 1 }).unwrap();
    n.apply(CancelTimer {
        actor: a,
        timer_id: id,
        from: None,
    })
    .unwrap();
    n.apply(Mine { blocks: 2 }).unwrap();
    n.apply(Halt { blocks: 4 }).unwrap();
    n.apply(Mine { blocks: 40 }).unwrap();
    let text = replay_matches(&n);
    assert!(text.contains("[[actors]]"), "{text}");
    assert!(text.contains("name = \"ticker\""), "{text}");
    assert!(text.contains("action = \"schedule\""), "{text}");
    assert!(text.contains("action = \"halt\""), "{text}");
    assert!(text.contains("state_root"), "{text}");
    assert!(text.contains("status = \"cancelled\""), "{text}");
}

/// Issue 29 ("export writes commands"): a transaction no named step says (here one with an
/// explicit nonce, and one with a cycle limit) is exported as the node's own
/// `devnet_sendTransaction` command step, and the fixture replays to the same roots.
#[test]
fn issue29_an_export_writes_unnamed_transactions_as_commands() {
    let mut n = node(10_000);
    deploy(&mut n, "ticker");
    n.apply(Mine { blocks: 2 }).unwrap();
    let stranger = Address::from_label("stranger");
    let from = dev_account(2);
    let nonce = n.chain().nonce(&from);
    let mut tx = Transaction::new(
        from,
        TxKind::Transfer {
            to: stranger,
            amount: 7,
        },
    );
    tx.nonce = Some(nonce);
    n.apply(SendTx(tx)).unwrap();
    let mut tx = Transaction::new(
        dev_account(3),
        TxKind::Transfer {
            to: stranger,
            amount: 9,
        },
    );
    tx.cycle_limit = Some(40_000);
    n.apply(SendTx(tx)).unwrap();
    n.apply(Mine { blocks: 3 }).unwrap();
    let text = replay_matches(&n);
    assert_eq!(
        text.matches("action = \"command\"").count(),
        2,
        "two command steps: {text}"
    );
    assert!(
        text.contains("method = \"devnet_sendTransaction\""),
        "{text}"
    );
    assert!(!text.contains("action = \"tx\""), "no JSON tx step: {text}");
}

#[test]
fn issue24_a_long_jump_is_one_entry_and_the_log_follows_the_commands() {
    let mut n = node(10_000);
    n.apply(Mine { blocks: 1 }).unwrap();
    let before = n.session().len();
    n.apply(Mine { blocks: 1_000_000 }).unwrap();
    n.apply(Mine { blocks: 1_000_000 }).unwrap();
    assert_eq!(n.session().len(), before, "consecutive seals are one entry");
    assert_eq!(n.session().base(), &Base::Genesis);
}

#[test]
fn issue24_a_reverted_span_is_not_in_the_export() {
    let mut n = node(10_000);
    let a = deploy(&mut n, "ticker");
    n.apply(Mine { blocks: 2 }).unwrap();
    let snap = n.apply(Snapshot).unwrap();
    schedule(&mut n, a, 3).unwrap();
    n.apply(Mine { blocks: 5 }).unwrap();
    n.apply(Revert { id: snap }).unwrap();
    schedule(&mut n, a, 7).unwrap();
    n.apply(Mine { blocks: 8 }).unwrap();
    let text = replay_matches(&n);
    assert_eq!(text.matches("action = \"schedule\"").count(), 1, "{text}");
}

#[test]
fn issue24_past_height_reads_answer_the_state_as_of_that_block() {
    let mut n = node(10_000);
    let a = deploy(&mut n, "ticker");
    let mut seen = BTreeMap::new();
    for i in 0..40u64 {
        schedule(&mut n, a, 3 + i % 7).unwrap();
        if i % 3 == 0 {
            n.apply(Mine { blocks: 1 + i % 5 }).unwrap();
        }
        let h = n.height();
        let tiers = n.ask(&TiersQuery).unwrap();
        let accounts = n.ask(&AccountsQuery).unwrap();
        seen.insert(h, (tiers, accounts));
    }
    n.apply(Mine { blocks: 600 }).unwrap();
    for (h, (tiers, accounts)) in &seen {
        assert_eq!(
            &n.ask(&At::new(TiersQuery, Some(*h))).unwrap(),
            tiers,
            "#{h}"
        );
        assert_eq!(
            &n.ask(&At::new(AccountsQuery, Some(*h))).unwrap(),
            accounts,
            "#{h}"
        );
    }
    let head = n.height();
    let e = n.ask(&At::new(TiersQuery, Some(head + 1))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    // A timer's view at a past height: pending then, fired now.
    let (h, _) = seen.iter().next().unwrap();
    let t = n
        .ask(&At::new(
            TimerQuery {
                id: first_timer(&n),
            },
            Some(*h),
        ))
        .unwrap()
        .expect("known then");
    assert_eq!(t.status.as_str(), "pending");
}

fn first_timer(n: &NodeCore) -> cowboy_devnet::engine::TimerId {
    n.session()
        .entries()
        .iter()
        .find_map(|e| match e {
            cowboy_devnet::node::Entry::Tx { timers, .. } => timers.first().copied(),
            _ => None,
        })
        .expect("a timer was scheduled")
}

#[test]
fn issue24_heights_older_than_the_retained_history_are_history_pruned() {
    let mut n = node(300);
    let a = deploy(&mut n, "ticker");
    for _ in 0..20 {
        schedule(&mut n, a, 2).unwrap();
        n.apply(Mine { blocks: 50 }).unwrap();
    }
    let e = n.ask(&At::new(TiersQuery, Some(2))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HistoryPruned, "{e}");
    let kept = n.first_queryable();
    assert!(n.ask(&At::new(TiersQuery, Some(kept))).is_ok());
}

#[test]
fn issue24_revert_to_a_height_gives_that_block_back_and_the_chain_goes_on_from_it() {
    let mut n = node(10_000);
    let a = deploy(&mut n, "ticker");
    for i in 0..12 {
        schedule(&mut n, a, 2 + i).unwrap();
        n.apply(Mine { blocks: 30 }).unwrap();
    }
    let target = 150;
    let root = n.block(target).unwrap().header.state_root;
    let tiers = n.ask(&At::new(TiersQuery, Some(target))).unwrap();
    n.apply(RevertTo { height: target }).unwrap();
    assert_eq!(n.height(), target);
    assert_eq!(n.chain().state_root(), root);
    assert_eq!(n.ask(&TiersQuery).unwrap(), tiers);
    schedule(&mut n, a, 4).unwrap();
    n.apply(Mine { blocks: 10 }).unwrap();
    replay_matches(&n);
    let e = n
        .apply(RevertTo {
            height: n.height() + 1,
        })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
}

#[derive(Clone, Debug)]
enum Cmd {
    Schedule(u64),
    Mine(u64),
    Transfer(u8, u128),
    SetBalance(u8, u128),
    Manual(bool),
    Halt(u64),
    Cancel,
    /// A schedule with a `client_nonce`: refused by name under `fifo` (CIP-5 drafts §6.2),
    /// so it changes nothing and is not exported.
    Nonce(u64),
    /// Issue 32: a dry run (of kind `.0`, see [`dry_call`]), which must change nothing.
    Dry(u8, u64),
}

fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        4 => (1u64..40).prop_map(Cmd::Schedule),
        3 => (1u64..300).prop_map(Cmd::Mine),
        1 => (1u8..5, 1u128..1_000_000).prop_map(|(a, v)| Cmd::Transfer(a, v)),
        1 => (1u8..5, 0u128..1_000_000).prop_map(|(a, v)| Cmd::SetBalance(a, v)),
        1 => any::<bool>().prop_map(Cmd::Manual),
        1 => (1u64..6).prop_map(Cmd::Halt),
        1 => Just(Cmd::Cancel),
        1 => (1u64..40).prop_map(Cmd::Nonce),
        3 => (0u8..DRY_KINDS, 1u64..40).prop_map(|(k, x)| Cmd::Dry(k, x)),
    ]
}

/// What a dry run must leave as it was (issue 32, "What bad input gets"): the state root, the
/// head (height, hash, pending transactions and timers), every balance and nonce, every
/// actor's storage, the pending transactions' hashes, the events count, the drafts' state
/// and the session log.
fn fingerprint(n: &NodeCore) -> serde_json::Value {
    let storage: Vec<String> = n
        .chain()
        .actors()
        .iter()
        .map(|(a, x)| format!("{a}: {:?}", x.storage))
        .collect();
    let pending: Vec<_> = n
        .ask(&PendingTxsQuery)
        .unwrap()
        .into_iter()
        .map(|t| t.hash)
        .collect();
    let events = n.events_kept(&EventFilter::default()).unwrap().len()
        + n.chain().open_events().map_or(0, <[_]>::len);
    serde_json::json!({
        "root": n.chain().state_root(),
        "head": n.head(),
        "accounts": n.chain().accounts(),
        "storage": storage,
        "pending": pending,
        "events": events,
        "draft": n.ask(&DraftQuery).ok(),
        "session": n.session().len(),
    })
}

/// How many kinds of dry run [`dry_call`] makes: 0 a call, 1 a failing call (no such
/// handler), 2 a schedule, 3 a refused schedule (in the past), 4 a schedule with a
/// `client_nonce` (refused under fifo), 5 a watch, 6 an interval (refused but under a draft
/// scheduler), 7 a call against the state of the block before the head.
const DRY_KINDS: u8 = 8;

/// The dry run of kind `kind` by actor `a` (`x`: a height offset or a nonce).
fn dry_call(n: &NodeCore, a: Address, kind: u8, x: u64) -> At<DryRun> {
    let call = |handler: &str| {
        DryCall::Call(CallActor {
            from: dev_account(1),
            actor: a,
            handler: handler.into(),
            payload: b"p".to_vec(),
        })
    };
    let sched = |height, client_nonce| {
        DryCall::Schedule(ScheduleTimer {
            actor: a,
            args: ScheduleArgs {
                height,
                client_nonce,
                payload: b"p".to_vec(),
                ..ScheduleArgs::default()
            },
            ..Default::default()
        })
    };
    let draft = |interval: bool| {
        DryCall::Draft(DraftTimer {
            actor: a,
            interval,
            args: DraftTimerArgs {
                keys: if interval { vec![] } else { vec!["k/".into()] },
                every: interval.then_some(x),
                fee_payer: Some(dev_account(1)),
                client_nonce: x.is_multiple_of(2).then_some(x),
                ..DraftTimerArgs::default()
            },
            ..Default::default()
        })
    };
    let pending = n.chain().pending_height();
    let call = match kind {
        0 | 7 => call("handle_timer"),
        1 => call("no_such_handler"),
        2 => sched(pending + x, None),
        3 => sched(1, None),
        4 => sched(pending + x, Some(x)),
        5 => draft(false),
        _ => draft(true),
    };
    let at = (kind == 7)
        .then(|| n.height().saturating_sub(1))
        .filter(|h| *h > 0);
    At::new(
        DryRun {
            call,
            trace: x.is_multiple_of(3),
        },
        at,
    )
}

/// Runs a dry run and checks it changed nothing; answers whether it was refused.
fn dry(n: &NodeCore, a: Address, kind: u8, x: u64) -> bool {
    let before = fingerprint(n);
    let out = n.ask(&dry_call(n, a, kind, x));
    assert_eq!(
        fingerprint(n),
        before,
        "dry run {kind} ({x}) changed nothing: {out:?}"
    );
    out.is_err()
}

/// Applies `cmds` to `n` (actor `a`; `timers` collects what it schedules).
fn play(
    n: &mut NodeCore,
    a: Address,
    timers: &mut Vec<cowboy_devnet::engine::TimerId>,
    cmds: Vec<Cmd>,
) {
    for c in cmds {
        match c {
            Cmd::Schedule(after) => {
                let height = n.chain().pending_height() + after;
                let args = ScheduleArgs {
                    height,
                    payload: b"p".to_vec(),
                    ..ScheduleArgs::default()
                };
                if let Ok(s) = n.apply(ScheduleTimer {
                    actor: a,
                    args,
                    ..Default::default()
                }) {
                    timers.push(s.timer_id);
                }
            }
            Cmd::Mine(b) => {
                n.apply(Mine { blocks: b }).unwrap();
            }
            Cmd::Transfer(i, v) => {
                let tx = Transaction::new(
                    dev_account(i as usize),
                    TxKind::Transfer {
                        to: dev_account(0),
                        amount: v,
                    },
                );
                // Refused (the balance was set too low) changes nothing.
                let _ = n.apply(SendTx(tx));
            }
            Cmd::SetBalance(i, v) => {
                n.apply(SetBalance {
                    address: dev_account(i as usize),
                    balance: v,
                })
                .unwrap();
            }
            Cmd::Manual(m) => {
                let mode = if m {
                    MiningMode::Manual
                } else {
                    MiningMode::Auto
                };
                n.apply(SetMining(mode)).unwrap();
            }
            Cmd::Halt(b) => {
                n.apply(Halt { blocks: b }).unwrap();
            }
            Cmd::Cancel => {
                if let Some(id) = timers.pop() {
                    let _ = n.apply(CancelTimer {
                        actor: a,
                        timer_id: id,
                        from: None,
                    });
                }
            }
            Cmd::Nonce(after) => {
                let height = n.chain().pending_height() + after;
                let args = ScheduleArgs {
                    height,
                    client_nonce: Some(after),
                    ..ScheduleArgs::default()
                };
                let e = n
                    .apply(ScheduleTimer {
                        actor: a,
                        args,
                        ..Default::default()
                    })
                    .unwrap_err();
                // Refused under fifo by name, unless the sender cannot pay first (a balance
                // set low): either way nothing changes, which the replay checks.
                assert!(
                    matches!(
                        e.kind(),
                        ErrorKind::InvalidInput | ErrorKind::InsufficientFunds
                    ),
                    "{e}"
                );
            }
            Cmd::Dry(kind, x) => {
                let refused = dry(n, a, kind, x);
                // Under fifo a watch, an interval and a `client_nonce` are refused by name.
                assert!(
                    refused || !(4..=6).contains(&kind),
                    "dry run {kind} not refused under fifo"
                );
            }
        }
    }
}

/// A node that starts from `n`'s state (as `--load-state` of its dump), after sealing any
/// open block.
fn loaded_from(n: &mut NodeCore) -> NodeCore {
    n.apply(Mine { blocks: 1 }).unwrap();
    let d = n.apply(DumpState).unwrap();
    let mut m = node(10_000);
    m.apply(LoadState(d)).unwrap();
    m.set_session_file("state.json".into());
    m
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Random sessions through the node, exported, replayed: the same hash and root at every
    /// height, every expectation holds.
    #[test]
    fn issue24_random_sessions_replay_height_by_height(cmds in prop::collection::vec(cmd(), 1..25)) {
        let mut n = node(10_000);
        let a = deploy(&mut n, "ticker");
        play(&mut n, a, &mut Vec::new(), cmds);
        n.apply(Mine { blocks: 3 }).unwrap();
        replay_matches(&n);
    }

    /// Issue 24 "Record": random sessions that start from a state dump (`--load-state`) or
    /// from genesis, exported whole and from a random retained `from_height` (the base is the
    /// state as of that height): `run` of the export gives the same hash and root at every
    /// height after its base, every expectation holds.
    #[test]
    fn issue24_record_random_sessions_from_a_dump_and_from_any_height_replay(
        before in prop::collection::vec(cmd(), 0..10),
        cmds in prop::collection::vec(cmd(), 1..20),
        loaded in any::<bool>(),
        pick in 0u64..10_000,
    ) {
        let mut n = node(10_000);
        let a = deploy(&mut n, "ticker");
        let mut timers = Vec::new();
        play(&mut n, a, &mut timers, before);
        if loaded {
            n = loaded_from(&mut n);
        }
        play(&mut n, a, &mut timers, cmds);
        n.apply(Mine { blocks: 3 }).unwrap();
        if loaded {
            let text = replay_matches(&n);
            prop_assert!(text.contains("base = "), "{}", text);
        }
        let start = n.session().base_height();
        let from = start + pick % (n.height() - start + 1);
        replay_from(&n, Some(from));
    }
}

/// A node under the CIP-5 zh draft (watches and intervals) with `SCRIPT` deployed.
fn draft_node() -> (NodeCore, Address) {
    let g = Genesis {
        scheduler: cowboy_devnet::engine::SchedulerKind::Cip5DraftZh,
        ..Genesis::default()
    };
    let mut n = NodeCore::new(NodeConfig::new(g, DevnetRuntime::shared())).expect("genesis");
    let a = deploy(&mut n, "ticker");
    (n, a)
}

/// Under a draft scheduler: `Cmd::Nonce(x)` is a real registration (a watch for an even `x`,
/// an interval of `x` blocks for an odd one); a dry run's drafts' kinds may pass; the rest as
/// [`play`].
fn play_draft(n: &mut NodeCore, a: Address, cmds: Vec<Cmd>) {
    for c in cmds {
        match c {
            Cmd::Nonce(x) => {
                let r = dry_call(n, a, if x.is_multiple_of(2) { 5 } else { 6 }, x);
                if let DryCall::Draft(d) = r.query.call {
                    // Refused (an interval's nonce already bound, a balance) changes nothing.
                    let _ = n.apply(d);
                }
            }
            Cmd::Dry(kind, x) => {
                dry(n, a, kind, x);
            }
            c => play(n, a, &mut Vec::new(), vec![c]),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// Issue 32 "What bad input gets": under a draft scheduler, dry runs of calls, failing
    /// calls, schedules, refused schedules, watches and intervals interleaved with real
    /// commands (registrations among them) change nothing: root, head, balances, nonces,
    /// storage, pending transactions, events, the drafts' state and the session log are the
    /// same before and after each (`dry`).
    #[test]
    fn issue32_dry_runs_under_a_draft_scheduler_change_nothing(
        cmds in prop::collection::vec(cmd(), 1..20),
    ) {
        let (mut n, a) = draft_node();
        play_draft(&mut n, a, cmds);
        n.apply(SetBalance { address: dev_account(1), balance: common::RICH }).unwrap();
        n.apply(Mine { blocks: 2 }).unwrap();
        let refused: Vec<bool> = (0..DRY_KINDS).map(|k| dry(&n, a, k, 2)).collect();
        // A call, a failing call (a receipt), a schedule and a watch run; the past one is
        // refused.
        prop_assert_eq!(&refused[..4], &[false, false, false, true]);
        prop_assert!(!refused[5]);
        let failing = n.ask(&dry_call(&n, a, 1, 2)).unwrap();
        prop_assert!(!failing.receipt.success);
    }
}

/// Issue 24 (found by the random sessions): a balance set while the next block was one an
/// outage then skipped is exported before the block after the outage (a fixture step may not
/// stand inside an outage), and the session replays to the same roots.
#[test]
fn issue24_a_balance_set_before_an_outage_replays() {
    let mut n = node(10_000);
    let _ = deploy(&mut n, "ticker");
    n.apply(SetBalance {
        address: dev_account(1),
        balance: 0,
    })
    .unwrap();
    n.apply(Halt { blocks: 1 }).unwrap();
    // A second outage after the same block adds to the first.
    n.apply(Halt { blocks: 2 }).unwrap();
    n.apply(Mine { blocks: 3 }).unwrap();
    let text = replay_matches(&n);
    assert!(text.contains("action = \"set_balance\""), "{text}");
}

/// Issue 24 "Record": a `from_height` older than the retained history is `HistoryPruned`, and
/// one before a loaded session's base too; past the head `InvalidInput`.
#[test]
fn issue24_record_from_height_outside_the_history_is_refused_by_name() {
    let mut n = node(300);
    let a = deploy(&mut n, "ticker");
    for _ in 0..10 {
        schedule(&mut n, a, 2).unwrap();
        n.apply(Mine { blocks: 60 }).unwrap();
    }
    let e = export(&n, Some(2)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HistoryPruned, "{e}");
    let e = export(&n, Some(n.height() + 1)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    replay_from(&n, Some(n.first_queryable()));
    let mut m = loaded_from(&mut n);
    let base = m.height();
    schedule(&mut m, a, 3).unwrap();
    m.apply(Mine { blocks: 5 }).unwrap();
    let e = export(&m, Some(base - 1)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HistoryPruned, "{e}");
    let whole = replay_matches(&m);
    assert!(whole.contains("base = \"session.base.json\""), "{whole}");
    assert_eq!(replay_from(&m, Some(base)), whole);
}

/// Issue 24 (found by the random exports from a height): a checkpoint taken at the end of a
/// run of seals, which the next seal extends, still replays from its own height: a read or an
/// export as of a height at or after it gives that block's state.
#[test]
fn issue24_a_checkpoint_at_the_end_of_a_run_of_seals_replays_from_its_height() {
    let mut n = node(10_000);
    let a = deploy(&mut n, "ticker");
    schedule(&mut n, a, 1).unwrap();
    n.apply(Mine { blocks: 300 }).unwrap();
    n.apply(Mine { blocks: 100 }).unwrap();
    schedule(&mut n, a, 1).unwrap();
    n.apply(Mine { blocks: 3 }).unwrap();
    for h in [257, 300, 302, 350] {
        let live = n.block(h).unwrap().header.state_root;
        assert_eq!(n.chain_at(h).unwrap().state_root(), live, "#{h}");
        assert_eq!(
            n.ask(&At::new(AccountsQuery, Some(h))).unwrap(),
            n.ask(&At::new(AccountsQuery, Some(h - 1))).unwrap(),
            "#{h}: nothing happened between"
        );
        replay_from(&n, Some(h));
    }
}

/// Issue 31 item 2 (Spec note 149): the session log is trimmed with the history: after many
/// busy blocks under a short `--history` it holds the window's entries (and at most about as
/// many again), not the whole session; a past read and an export from any height still
/// inside the window work, and an export without a height starts from the oldest one.
#[test]
fn issue31_the_session_log_is_trimmed_with_the_history_and_exports_inside_it_replay() {
    let mut n = node(40);
    let a = deploy(&mut n, "ticker");
    n.apply(SetMining(MiningMode::Manual)).unwrap();
    let bob = Address::from_label("bob");
    let mut recorded = 0;
    for _ in 0..1_500 {
        let tx = Transaction::new(dev_account(1), TxKind::Transfer { to: bob, amount: 1 });
        n.apply(SendTx(tx)).unwrap();
        n.apply(Mine { blocks: 1 }).unwrap();
        recorded += 2;
    }
    schedule(&mut n, a, 3).unwrap();
    n.apply(Mine { blocks: 5 }).unwrap();
    let log = n.session();
    assert!(log.trimmed_at().is_some(), "the log was trimmed");
    assert!(
        log.len() < recorded / 2,
        "{} entries kept of {recorded}",
        log.len()
    );
    // Inside the window: reads and exports as before.
    let first = n.first_queryable();
    assert!(first > 1_000, "the window moved on: {first}");
    let root = n.block(first).unwrap().header.state_root;
    assert_eq!(n.chain_at(first).unwrap().state_root(), root);
    replay_from(&n, Some(first));
    replay_from(&n, Some(n.height() - 3));
    let whole = export(&n, None).unwrap();
    assert!(
        whole.base.is_some(),
        "a trimmed session exports from a base"
    );
    // Before the window: named.
    let e = export(&n, Some(first - 1)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HistoryPruned, "{e}");
}

/// Issue 31 item 3 (Spec note 150): a timer's fate outlives the window: once its events left
/// the history, `timer_get` still answers its final status, the block it left in and what it
/// paid, and says its event history is no longer kept.
#[test]
fn issue31_a_timers_fate_outlives_the_retained_history() {
    let mut n = node(20);
    let a = deploy(&mut n, "ticker");
    schedule(&mut n, a, 2).unwrap();
    let id = first_timer(&n);
    n.apply(Mine { blocks: 3 }).unwrap();
    let fresh = n.ask(&TimerQuery { id }).unwrap().expect("known");
    assert_eq!(fresh.status.as_str(), "fired");
    assert!(!fresh.history_pruned);
    let exit = fresh.exit_height.expect("an exit height");
    let paid = fresh.fee_paid.expect("a fee");
    assert!(paid > 0);
    assert!(fresh.events.iter().any(|e| e.height == exit));
    // The window passes it.
    n.apply(Mine { blocks: 100 }).unwrap();
    let bob = Address::from_label("bob");
    let tx = Transaction::new(dev_account(1), TxKind::Transfer { to: bob, amount: 1 });
    n.apply(SendTx(tx)).unwrap();
    n.apply(Mine { blocks: 1 }).unwrap();
    assert!(n.first_kept() > exit);
    let old = n.ask(&TimerQuery { id }).unwrap().expect("still known");
    assert_eq!(old.status.as_str(), "fired");
    assert_eq!(old.exit_height, Some(exit));
    assert_eq!(old.fee_paid, Some(paid));
    assert_eq!(old.actor, a);
    assert!(old.history_pruned);
    assert!(old.events.is_empty());
    // A timer never scheduled is still unknown.
    let other = cowboy_devnet::engine::TimerId([7; 32]);
    assert!(n.ask(&TimerQuery { id: other }).unwrap().is_none());
    // Going back before its exit makes it pending again.
    let snap = n.apply(Snapshot).unwrap();
    n.apply(Revert { id: snap }).unwrap();
    assert_eq!(
        n.ask(&TimerQuery { id }).unwrap().unwrap().exit_height,
        Some(exit)
    );
}

/// Spec notes 110 and 131 (issue 24, "an export from any height replays"): a height an outage skipped
/// has no block; an export from it starts from the block the outage follows, with every
/// outage asked for after that block in its base, even when a balance set stands between
/// two of them (found by the property test above: the second outage was neither in the base
/// nor a step, and the replay sealed a block at a skipped height).
#[test]
fn issue24_spec110_an_export_from_a_height_an_outage_skipped_replays() {
    let mut n = node(10_000);
    let a = deploy(&mut n, "ticker");
    let mut timers = Vec::new();
    let outage = vec![Cmd::Halt(1), Cmd::SetBalance(1, 0), Cmd::Halt(1)];
    play(&mut n, a, &mut timers, outage);
    n.apply(Mine { blocks: 3 }).unwrap();
    let first = n.height() - 2;
    assert_eq!(
        n.chain().block(first - 1),
        None,
        "#{} was skipped",
        first - 1
    );
    // Each height the two outages skipped, and the block before them.
    for from in first - 3..first {
        let text = replay_from(&n, Some(from));
        assert!(
            text.contains(&format!("from the state at #{}", first - 3)),
            "{text}"
        );
    }
}
