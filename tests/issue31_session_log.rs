//! Issue 31, "a long-running serve holds under 300 MB" (Spec note 208): the session log keeps
//! a transaction entry as one compact encoded slice, decoded when it is read. What it answers
//! does not change: every entry reads back as it was pushed (every kind of transaction, with
//! every option set), consecutive seals are still one entry, and a node's past reads (which
//! replay the log) answer what the live node answered at that height. A backlog's
//! `timer_schedule` costs the log under 200 bytes (it was about 480).

mod common;

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{
    DraftTimerArgs, Genesis, SystemInstruction, TimerOp, Transaction, TxKind,
};
use cowboy_devnet::engine::{
    Address, ErrorKind, PriorityTier, ScheduleArgs, SchedulerParams, TimerConfig, TimerId,
};
use cowboy_devnet::node::{Base, Entry, Mine, NodeConfig, ScheduleTimer, SessionLog};
use cowboy_devnet::vm::DevnetRuntime;

#[path = "../benches/support/counting_alloc.rs"]
mod counting_alloc;

/// The tests of this file one at a time: the counting allocator counts every thread.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn addr(b: u8) -> Address {
    Address([b; 20])
}

/// A schedule with every option set (the fields a compact form could drop).
fn full_args() -> ScheduleArgs {
    ScheduleArgs {
        height: 1_234,
        payload: vec![1, 2, 3, 255],
        fee_payer: Some(addr(9)),
        gas_limit: Some(300_000),
        expires_at: Some(9_999),
        max_fee_per_cycle: Some(u128::MAX - 7),
        max_priority_fee_per_cycle: Some(42),
        priority_tier: Some(PriorityTier::Urgent),
        bid: Some(1 << 100),
        client_nonce: Some(77),
    }
}

/// One transaction of every kind.
fn every_kind() -> Vec<TxKind> {
    let draft = DraftTimerArgs {
        keys: vec!["k".into(), "prefix/".into()],
        every: Some(5),
        first: Some(12),
        payload: vec![7],
        fee_payer: Some(addr(3)),
        gas_limit: Some(1_000),
        expires_at: Some(50),
        ..Default::default()
    };
    vec![
        TxKind::Transfer {
            to: addr(2),
            amount: u128::MAX,
        },
        TxKind::Deploy {
            address: Some(addr(4)),
            code: ActorCode::rhai("counter", "fn handle_timer() { 1 }"),
            endowment: 10u128.pow(21),
        },
        TxKind::Call {
            actor: addr(4),
            handler: "poke".into(),
            payload: vec![0; 33],
        },
        TxKind::System(SystemInstruction::CancelTimer {
            timer_id: TimerId([5; 32]),
        }),
        TxKind::System(SystemInstruction::UpdateTimerConfig {
            config: TimerConfig::default(),
        }),
        TxKind::System(SystemInstruction::ExtendTimer {
            timer_id: TimerId([6; 32]),
            new_expires_at: 88,
        }),
        TxKind::System(SystemInstruction::UpdateSchedulerConfig {
            config: SchedulerParams {
                tier_economy_bps: 8_000,
                tier_standard_bps: 10_000,
                tier_fast_bps: 15_000,
                tier_urgent_bps: 25_000,
                fairness_window_blocks: 1_000,
                max_cycles_per_fire_auction: 250_000,
            },
            draft: Some(Default::default()),
        }),
        TxKind::ActAs {
            actor: addr(4),
            op: TimerOp::ScheduleTimer(full_args()),
        },
        TxKind::ActAs {
            actor: addr(4),
            op: TimerOp::ScheduleTimer(ScheduleArgs::default()),
        },
        TxKind::ActAs {
            actor: addr(4),
            op: TimerOp::SetStateWatch(draft.clone()),
        },
        TxKind::ActAs {
            actor: addr(4),
            op: TimerOp::SetInterval(draft),
        },
        TxKind::ActAs {
            actor: addr(4),
            op: TimerOp::WriteKey {
                key: "k".into(),
                value: "v".into(),
            },
        },
    ]
}

#[test]
fn every_entry_reads_back_as_pushed_spec_note_208() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut pushed = Vec::new();
    for (i, kind) in every_kind().into_iter().enumerate() {
        let i = i as u64;
        let tx = Transaction {
            from: addr(1),
            nonce: i.is_multiple_of(2).then_some(i),
            cycle_limit: i.is_multiple_of(3).then_some(1_000 + i),
            kind,
        };
        pushed.push(Entry::Tx {
            height: 10 + i,
            tx: Box::new(tx),
            timers: (0..i % 3).map(|k| TimerId([k as u8; 32])).collect(),
            created: (i % 2 == 1).then(|| addr(i as u8)),
            error: i
                .is_multiple_of(4)
                .then_some(ErrorKind::ALL[i as usize % ErrorKind::ALL.len()]),
        });
        pushed.push(Entry::Sealed { to: 10 + i });
    }
    pushed.push(Entry::SetBalance {
        at: 40,
        address: addr(2),
        balance: 5,
    });
    pushed.push(Entry::Halt {
        after: 40,
        blocks: 3,
    });
    pushed.push(Entry::Named {
        address: addr(4),
        name: "counter".into(),
    });
    pushed.push(Entry::Labelled {
        timer: TimerId([8; 32]),
        label: "t".into(),
    });
    let mut log = SessionLog::new(Base::Genesis);
    for e in &pushed {
        log.push(e.clone());
    }
    assert_eq!(log.entries(), pushed);
    // Consecutive seals are one entry, the last height.
    log.push(Entry::Sealed { to: 50 });
    log.push(Entry::Sealed { to: 60 });
    let entries = log.entries();
    assert_eq!(entries.len(), pushed.len() + 1);
    assert_eq!(entries.last(), Some(&Entry::Sealed { to: 60 }));
}

#[test]
fn a_backlog_schedule_costs_the_log_under_200_bytes_spec_note_208() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let entry = |i: u64| Entry::Tx {
        height: 100 + i / 10,
        tx: Box::new(Transaction::new(
            addr(1),
            TxKind::ActAs {
                actor: addr(2),
                op: TimerOp::ScheduleTimer(ScheduleArgs {
                    height: 2_000 + i % 200,
                    ..Default::default()
                }),
            },
        )),
        timers: vec![TimerId([i as u8; 32])],
        created: None,
        error: None,
    };
    let n = 1_000u64;
    let entries: Vec<Entry> = (0..n).map(entry).collect();
    let (log, heap) = counting_alloc::measure(|| {
        let mut log = SessionLog::new(Base::Genesis);
        for e in entries {
            log.push(e);
        }
        log
    });
    let per_entry = heap.retained / n as isize;
    assert!(
        per_entry < 200,
        "a schedule's log entry holds {per_entry} bytes"
    );
    assert_eq!(log.entries()[7], entry(7));
}

/// A node's past reads replay its log: under a backlog (a schedule ten a block, then blocks
/// that carry them) each past height answers the head it answered live.
#[test]
fn past_reads_replay_the_compact_log_to_the_same_heads_spec_note_208() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    let (mut n, actors) = common::node_with_actors(cfg, 3);
    let mut live = Vec::new();
    let due = n.height() + 8;
    for i in 0..60u64 {
        n.apply(ScheduleTimer {
            actor: actors[i as usize % actors.len()],
            args: ScheduleArgs {
                height: due + i % 2,
                ..Default::default()
            },
            ..Default::default()
        })
        .expect("schedule");
        if i % 10 == 9 {
            n.apply(Mine { blocks: 1 }).expect("mine");
            live.push(n.head());
        }
    }
    for _ in 0..10 {
        n.apply(Mine { blocks: 1 }).expect("mine");
        live.push(n.head());
    }
    for head in &live {
        let past = n.chain_at(head.height).expect("a kept height");
        assert_eq!(past.state_root(), head.state_root, "#{}", head.height);
        assert_eq!(past.head().hash, head.hash, "#{}", head.height);
    }
}

/// Issue 31 (a long-running node is bounded, at 1M timers): a log of many entries is let go
/// without a drop per link nested in the next. The node's thread aborted with a stack
/// overflow when a trim let go of the log of a 1M-timer load; here 200,000 entries are
/// dropped on a thread with a 256 KiB stack, first while a copy still shares them (the drop
/// stops at the first shared link), then the copy.
#[test]
fn a_long_log_is_dropped_without_overflowing_the_stack() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let worker = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let mut log = SessionLog::new(Base::Genesis);
            for i in 0..200_000u32 {
                log.push(Entry::Named {
                    address: addr((i % 251) as u8),
                    name: String::new(),
                });
            }
            let copy = log.clone();
            assert_eq!(copy.len(), 200_000);
            drop(log);
            assert_eq!(
                copy.entries().len(),
                200_000,
                "the copy still holds them all"
            );
            drop(copy);
        })
        .expect("a thread");
    worker.join().expect("no stack overflow");
}
