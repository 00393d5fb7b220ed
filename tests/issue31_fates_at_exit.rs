//! Issue 31, "a timer's fate outlives the window" and "a pending timer costs ≤ 400 B of RSS"
//! (Spec notes 150, 224): the node writes a timer's compact record as it leaves, from what the
//! queue noted of it, not when it is scheduled: a pending timer is the queue's alone. What a
//! reader sees does not change: every timer that left answers its fate after its events left
//! the history, and `timer_list` pages over every timer in scheduling order with a cursor that
//! stays put while timers leave.
//!
//! Each scene runs under every scheduler twice, with a history that keeps everything (the
//! views read from events) and with a short one (the views of the timers that left read from
//! their records), and compares the two.

mod common;
#[path = "../benches/support/counting_alloc.rs"]
mod counting_alloc;

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{DraftTimerArgs, Genesis};
use cowboy_devnet::engine::{Address, ScheduleArgs, SchedulerKind, TimerId};
use cowboy_devnet::node::{
    CancelTimer, DeployActor, DraftTimer, DropTransaction, DumpState, LoadState, Mine, NodeConfig,
    NodeCore, RetainedPart, Revert, ScheduleTimer, Snapshot, TimerFilter, TimerQuery, TimerStatus,
    TimerView, TimersPageQuery,
};
use cowboy_devnet::vm::DevnetRuntime;

const KINDS: [SchedulerKind; 5] = [
    SchedulerKind::Fifo,
    SchedulerKind::Eip1559,
    SchedulerKind::Cip1V1,
    SchedulerKind::Cip5Draft,
    SchedulerKind::Cip5DraftZh,
];

fn node(kind: SchedulerKind, history: usize) -> (NodeCore, Vec<Address>) {
    let genesis = Genesis {
        scheduler: kind,
        ..Genesis::default()
    };
    let mut cfg = NodeConfig::new(genesis, DevnetRuntime::shared());
    cfg.history = history;
    cfg.keep_blocks = Some(history);
    common::node_with_actors(cfg, 4)
}

/// A timer's fate as `timer_get` answers it.
fn fate(v: &TimerView) -> String {
    format!(
        "{:?} exit {:?} paid {:?} actor {} payer {} height {} block {:?}",
        v.status, v.exit_height, v.fee_paid, v.actor, v.fee_payer, v.height, v.schedule_block
    )
}

/// Every timer the node lists, a page of `limit` at a time, mining `mine_between` blocks
/// between pages.
fn list_all(n: &mut NodeCore, limit: usize, mine_between: u64) -> Vec<TimerId> {
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let page = n
            .ask(&TimersPageQuery {
                filter: TimerFilter::default(),
                cursor,
                limit,
            })
            .expect("a page");
        out.extend(page.timers.iter().map(|t| t.timer_id));
        let Some(next) = page.next_cursor else {
            return out;
        };
        cursor = Some(next.parse().expect("a position"));
        if mine_between > 0 {
            n.apply(Mine {
                blocks: mine_between,
            })
            .expect("mine");
        }
    }
}

/// Timers that fire, are cancelled, are carried, run dry (an actor with no funds) and, under
/// the drafts, intervals that re-arm and state watches that expire; then 150 heights with a
/// transaction at the end, so that a 40-height window has let all of it go.
fn scene(kind: SchedulerKind, history: usize) -> (NodeCore, Vec<TimerId>) {
    let (mut n, actors) = node(kind, history);
    let drafts = kind.facts().drafts;
    let poor = n
        .apply(DeployActor {
            from: None,
            code: ActorCode::none(),
            address: None,
            endowment: 1,
            name: None,
        })
        .expect("deploy")
        .address;
    let mut ids = Vec::new();
    for b in 0..40u64 {
        for i in 0..6u64 {
            let h = n.height() + 2 + i % 3;
            let (actor, expires_at) = match i {
                5 => (poor, None),
                4 => (actors[(b % 4) as usize], Some(h)),
                _ => (actors[((b + i) % 4) as usize], None),
            };
            let args = ScheduleArgs {
                height: h,
                expires_at,
                ..Default::default()
            };
            let s = n.apply(ScheduleTimer {
                actor,
                args,
                ..Default::default()
            });
            if let Ok(s) = s {
                ids.push(s.timer_id);
            }
        }
        if drafts && b % 10 == 0 {
            let kinds = if kind.facts().intervals {
                vec![true, false]
            } else {
                vec![false]
            };
            for interval in kinds {
                let args = DraftTimerArgs {
                    keys: if interval { vec![] } else { vec!["k".into()] },
                    every: interval.then_some(3),
                    expires_at: Some(n.height() + 12),
                    ..Default::default()
                };
                let s = n
                    .apply(DraftTimer {
                        actor: actors[0],
                        interval,
                        args,
                        ..Default::default()
                    })
                    .expect("a draft registration");
                ids.push(s.timer_id);
            }
        }
        n.apply(Mine { blocks: 1 }).expect("mine");
        if b % 7 == 3 {
            // Cancel the newest pending timer of an actor that can.
            let last = ids
                .iter()
                .rev()
                .filter_map(|id| n.ask(&TimerQuery { id: *id }).ok().flatten())
                .find(|v| v.status == TimerStatus::Pending && v.actor != poor);
            if let Some(v) = last {
                n.apply(CancelTimer {
                    actor: v.actor,
                    timer_id: v.timer_id,
                    from: None,
                })
                .expect("cancel");
            }
        }
        while n.poll_event().is_some() {}
    }
    n.apply(Mine { blocks: 150 }).expect("mine");
    n.apply(ScheduleTimer {
        actor: actors[1],
        args: ScheduleArgs {
            height: n.height() + 500,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("schedule");
    n.apply(Mine { blocks: 1 }).expect("mine");
    while n.poll_event().is_some() {}
    (n, ids)
}

#[test]
fn issue31_spec224_every_timer_that_left_answers_its_fate_from_its_record() {
    for kind in KINDS {
        let (whole, ids) = scene(kind, 10_000);
        let (short, ids2) = scene(kind, 40);
        assert_eq!(ids, ids2, "{kind:?}: the same scene");
        let first_kept = short.first_kept();
        let (mut left, mut pruned) = (0, 0);
        for id in &ids {
            let a = whole.ask(&TimerQuery { id: *id }).unwrap().expect("known");
            let b = short
                .ask(&TimerQuery { id: *id })
                .unwrap()
                .unwrap_or_else(|| panic!("{kind:?}: {id} unknown after the window"));
            assert_eq!(fate(&a), fate(&b), "{kind:?}: {id}");
            if a.status != TimerStatus::Pending {
                left += 1;
                assert!(a.exit_height.is_some(), "{kind:?}: {id} {}", fate(&a));
                if a.exit_height < Some(first_kept) {
                    pruned += 1;
                    assert!(b.history_pruned, "{kind:?}: {id}");
                    assert!(b.events.is_empty(), "{kind:?}: {id}");
                }
            }
        }
        assert!(
            pruned > 100,
            "{kind:?}: {pruned} of {left} read from records"
        );
        // The statuses the scene means to reach.
        let statuses: std::collections::BTreeSet<String> = ids
            .iter()
            .map(|id| {
                format!(
                    "{:?}",
                    whole.ask(&TimerQuery { id: *id }).unwrap().unwrap().status
                )
            })
            .collect();
        // (Under cip1-v1 an actor without funds does not win its bid: it is carried, not
        // cancelled.)
        let mut want = vec!["Fired", "Cancelled"];
        if kind != SchedulerKind::Cip1V1 {
            want.push("Unfunded");
        }
        for s in want {
            assert!(statuses.contains(s), "{kind:?}: no {s} timer: {statuses:?}");
        }
    }
}

/// The timers `listed`, each of which it names once.
fn each_once(listed: &[TimerId], kind: SchedulerKind) -> std::collections::BTreeSet<&TimerId> {
    let set: std::collections::BTreeSet<_> = listed.iter().collect();
    assert_eq!(set.len(), listed.len(), "{kind:?}: a timer listed twice");
    set
}

#[test]
fn issue31_spec224_timer_list_keeps_scheduling_order_and_its_cursor_while_timers_leave() {
    for kind in KINDS {
        let (mut n, ids) = scene(kind, 40);
        let listed = list_all(&mut n, 1000, 0);
        // Every timer once. In scheduling order where the scene's timers are the queue's (the
        // drafts' watches take the place of the queue's next timer, Spec note 224).
        let known = each_once(&listed, kind);
        assert!(ids.iter().all(|id| known.contains(id)), "{kind:?}");
        if !kind.facts().drafts {
            let scene_order: Vec<_> = listed.iter().filter(|id| ids.contains(id)).collect();
            assert_eq!(scene_order, ids.iter().collect::<Vec<_>>(), "{kind:?}");
        }
        // Paged 7 at a time with a block between pages: pending timers leave meanwhile, and
        // every timer listed at the start is met exactly once.
        let (mut m, _) = scene(kind, 40);
        let paged = list_all(&mut m, 7, 1);
        let met = each_once(&paged, kind);
        for id in &listed {
            assert!(met.contains(id), "{kind:?}: {id} skipped");
        }
    }
}

#[test]
fn issue31_spec224_a_pending_timer_keeps_no_compact_record() {
    let mut cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    cfg.history = 10_000;
    let mut n = common::carried_backlog(cfg, 0);
    let pending = n.head().pending_timers as isize;
    assert!(pending > 1_000, "{pending} pending");
    let ((), heap) = counting_alloc::measure(|| n.test_hook_drop_part(RetainedPart::Fates));
    let freed = -heap.retained;
    println!("{pending} pending: the compact records held {freed} B");
    // 2,760 timers were scheduled; a record is 88 B and an index slot. Before, every one of
    // them, pending or not, had its record.
    let left = 2_760 - pending;
    assert!(
        freed < left * 128 + 64 * 1024,
        "{freed} B of records for {left} timers that left"
    );
}

/// `actor` schedules a timer `after` heights on (in the open block: the node mines by hand).
fn schedule_at(
    n: &mut NodeCore,
    actor: Address,
    after: u64,
) -> (TimerId, cowboy_devnet::engine::H256) {
    let s = n
        .apply(ScheduleTimer {
            actor,
            args: ScheduleArgs {
                height: n.chain().pending_height() + after,
                ..Default::default()
            },
            ..Default::default()
        })
        .expect("schedule");
    (s.timer_id, s.tx_hash)
}

/// Moves a 40-height window past everything so far (a block with a body at the end).
fn pass_window(n: &mut NodeCore, actor: Address) {
    n.apply(Mine { blocks: 100 }).expect("mine");
    schedule_at(n, actor, 1_000);
    n.apply(Mine { blocks: 1 }).expect("mine");
}

/// The timer's fate once its events left the window: its status and exit height.
fn old_fate(n: &NodeCore, id: TimerId) -> (TimerStatus, Option<u64>) {
    let v = n
        .ask(&TimerQuery { id })
        .unwrap()
        .unwrap_or_else(|| panic!("{id} unknown after the window"));
    assert!(v.history_pruned, "{id}: its events left the window");
    (v.status, v.exit_height)
}

/// A timer pending in a loaded state has no record (nor had it before: the records start
/// again at a load, and its `TimerScheduled` is not in the new history); as it leaves, the
/// queue's note gives it one. Before Spec note 224 `timer_get` answered `null` for it as soon
/// as it fired.
#[test]
fn issue31_spec224_a_timer_pending_in_a_loaded_state_answers_its_fate_after_the_window() {
    let (mut a, actors) = node(SchedulerKind::Fifo, 40);
    let (id, _) = schedule_at(&mut a, actors[0], 3);
    a.apply(Mine { blocks: 1 }).expect("mine");
    let dump = a.apply(DumpState).expect("dump");
    let (mut b, _) = node(SchedulerKind::Fifo, 40);
    b.apply(LoadState(dump)).expect("load");
    b.apply(Mine { blocks: 5 }).expect("mine");
    let fresh = b.ask(&TimerQuery { id }).unwrap().expect("known");
    assert_eq!(fresh.status, TimerStatus::Fired);
    pass_window(&mut b, actors[1]);
    assert_eq!(old_fate(&b, id), (TimerStatus::Fired, fresh.exit_height));
}

/// The queue's notes of an open block go with a snapshot taken while it is open, and with
/// the open block a dropped transaction leaves (its other transactions applied again).
#[test]
fn issue31_spec224_a_cancel_in_an_open_block_is_recorded_after_a_snapshot_or_a_drop() {
    let (mut n, actors) = node(SchedulerKind::Fifo, 40);
    let (first, _) = schedule_at(&mut n, actors[0], 20);
    let (second, _) = schedule_at(&mut n, actors[0], 20);
    n.apply(Mine { blocks: 1 }).expect("mine");
    // Cancelled in the open block, a snapshot taken, a block mined, and back to the snapshot:
    // the open block's cancel is sealed by the next block.
    n.apply(CancelTimer {
        actor: actors[0],
        timer_id: first,
        from: None,
    })
    .expect("cancel");
    let snap = n.apply(Snapshot).expect("snapshot");
    n.apply(Mine { blocks: 1 }).expect("mine");
    n.apply(Revert { id: snap }).expect("revert");
    n.apply(Mine { blocks: 1 }).expect("mine");
    let exit_first = n
        .ask(&TimerQuery { id: first })
        .unwrap()
        .unwrap()
        .exit_height;
    // Cancelled in the open block beside another transaction, which is dropped: the cancel
    // is applied again to the block the drop rebuilt.
    n.apply(CancelTimer {
        actor: actors[0],
        timer_id: second,
        from: None,
    })
    .expect("cancel");
    let (_, other) = schedule_at(&mut n, actors[1], 5);
    n.apply(DropTransaction { hash: other }).expect("drop");
    n.apply(Mine { blocks: 1 }).expect("mine");
    let exit_second = n
        .ask(&TimerQuery { id: second })
        .unwrap()
        .unwrap()
        .exit_height;
    pass_window(&mut n, actors[1]);
    assert_eq!(old_fate(&n, first), (TimerStatus::Cancelled, exit_first));
    assert_eq!(old_fate(&n, second), (TimerStatus::Cancelled, exit_second));
}
