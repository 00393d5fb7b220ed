//! Issue 31, "an attached dashboard adds under 5 % CPU to the node" (Spec note 204): the
//! fairness pane's fires and deferrals per actor (`scheduler_actors` under fifo) come from
//! per-block tallies counted once and kept with each block, and answer what a rescan of the
//! window's events answers: at the head, at past heights, and after `devnet_revert`,
//! `devnet_revertTo`, `devnet_reset` and `devnet_loadState`, whichever tallies were counted
//! before.

mod common;

use common::history::rescan_shares as rescan;
use common::session::{Travel, deploy, schedule_many, travel};
use cowboy_devnet::chain::{Chain, Event, Genesis};
use cowboy_devnet::engine::{Address, SchedulerKind, TimerEvent};
use cowboy_devnet::node::{
    DeferralsQuery, Mine, NodeCore, NodeError, ReasonCount, Reset, SharesQuery, SharesView,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The rescan `scheduler_deferrals` made: the `TimerDeferred` events of the blocks
/// `from..=to` by reason, in the order each reason first occurs.
fn rescan_reasons(chain: &Chain, from: u64, to: u64) -> Vec<ReasonCount> {
    let mut counts: Vec<ReasonCount> = Vec::new();
    let blocks = chain
        .blocks()
        .filter(|b| (from..=to).contains(&b.header.height));
    for r in blocks.flat_map(|b| b.events.iter()) {
        if let Event::Timer(TimerEvent::TimerDeferred { reason, .. }) = &r.event {
            match counts.iter_mut().find(|c| c.reason == reason.as_str()) {
                Some(c) => c.count += 1,
                None => counts.push(ReasonCount {
                    reason: reason.as_str().to_string(),
                    count: 1,
                }),
            }
        }
    }
    counts
}

/// `scheduler_deferrals` over the last `w` blocks of `n` against the rescan.
fn reasons_agree(n: &NodeCore, w: u64) -> Result<(), String> {
    let to = n.chain().height();
    if to == 0 {
        return Ok(());
    }
    let from = to.saturating_sub(w) + 1;
    let got = n
        .ask(&DeferralsQuery {
            from_height: from,
            to_height: to,
        })
        .map_err(|e| e.to_string())?;
    let model = rescan_reasons(n.chain(), from, to);
    if got != model {
        return Err(format!(
            "deferrals {got:?}, rescan {model:?} over #{from}..=#{to}"
        ));
    }
    Ok(())
}

/// `got`'s counts are the rescan's, its median the lower median of the rescan's nonzero
/// fires, and an actor it lists beyond the rescan's has a pending timer and no count.
fn agrees(got: &SharesView, model: &BTreeMap<Address, (u64, u64)>) -> Result<(), String> {
    let counted: BTreeMap<Address, (u64, u64)> = got
        .actors
        .iter()
        .filter(|r| r.fires + r.deferrals > 0)
        .map(|r| (r.actor, (r.fires, r.deferrals)))
        .collect();
    if &counted != model {
        return Err(format!("counts {counted:?}, rescan {model:?}"));
    }
    if let Some(r) = got
        .actors
        .iter()
        .find(|r| r.fires + r.deferrals == 0 && r.pending == 0)
    {
        return Err(format!("{:?} listed with nothing", r.actor));
    }
    let mut fires: Vec<u64> = model.values().map(|c| c.0).filter(|n| *n > 0).collect();
    fires.sort_unstable();
    let median = fires.get(fires.len().saturating_sub(1) / 2).copied();
    if got.median != median.unwrap_or(0) {
        return Err(format!("median {}, rescan {median:?}", got.median));
    }
    Ok(())
}

const WINDOWS: [u64; 3] = [1, 4, 1000];

/// The head's and one past height's answers against the rescan, for each window; returns the
/// deferrals in the head's window of 1,000. Under eip1559 `scheduler_actors` answers the §8
/// window's own counts, which the tallies do not feed: only `scheduler_deferrals` is compared.
fn check(n: &NodeCore, past: u64) -> Result<u64, String> {
    let fifo = n.chain().scheduler_at(n.chain().pending_height()) == SchedulerKind::Fifo;
    let agrees = |got: &SharesView, model: &BTreeMap<Address, (u64, u64)>| {
        if fifo { agrees(got, model) } else { Ok(()) }
    };
    let deferrals = rescan(n.chain(), 1000).values().map(|c| c.1).sum();
    for w in WINDOWS {
        let got = n
            .ask(&SharesQuery { window: w })
            .map_err(|e| e.to_string())?;
        agrees(&got, &rescan(n.chain(), w)).map_err(|e| format!("head, window {w}: {e}"))?;
        reasons_agree(n, w).map_err(|e| format!("head: {e}"))?;
    }
    let h = n.chain().height();
    if h == 0 {
        return Ok(deferrals);
    }
    // A past read replays from a kept state: below a load's height it answers HistoryPruned
    // (its blocks are kept, its states are not), and the read moves to the first it answers.
    let mut at = 1 + past % h;
    for w in WINDOWS {
        let read = |at: u64| {
            n.with_at(at, |p| {
                let got = p.ask(&SharesQuery { window: w });
                (got, rescan(p.chain(), w), reasons_agree(p, w))
            })
        };
        let (got, model, reasons) = match read(at) {
            Err(NodeError::HistoryPruned { first_kept, .. }) if first_kept <= h => {
                at = first_kept;
                read(at)
            }
            r => r,
        }
        .map_err(|e| format!("#{at}: {e}"))?;
        let got = got.map_err(|e| e.to_string())?;
        agrees(&got, &model).map_err(|e| format!("#{at}, window {w}: {e}"))?;
        reasons.map_err(|e| format!("#{at}: {e}"))?;
    }
    Ok(deferrals)
}

#[derive(Clone, Debug)]
enum Op {
    /// `count` timers of actor `actor` due `ahead` blocks on, each a quarter of the lane's
    /// cycles (four fit a fifo block: the rest are carried, one first deferral each).
    Schedule {
        actor: usize,
        ahead: u64,
        count: u64,
    },
    Mine(u64),
    Reset,
    /// A snapshot, a revert, or a dump loaded back (its blocks' tallies counted anew).
    Travel(Travel),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..3usize, 1..5u64, 1..17u64)
            .prop_map(|(actor, ahead, count)| Op::Schedule { actor, ahead, count }),
        6 => (1..6u64).prop_map(Op::Mine),
        1 => Just(Op::Reset),
        4 => travel().prop_map(Op::Travel),
    ]
}

/// Plays `ops` on a manual node, checking after each; the deferrals seen (so a run that
/// carried nothing shows it).
fn play(ops: &[(Op, u64)], kind: SchedulerKind) -> Result<u64, String> {
    let genesis = Genesis::default()
        .with_scheduler(Some(kind), None)
        .map_err(|e| e.to_string())?;
    let mut n = common::fleet::manual_node(genesis);
    let mut actors: Vec<Address> = (0..3).map(|i| deploy(&mut n, i)).collect();
    n.apply(Mine { blocks: 1 }).map_err(|e| e.to_string())?;
    let mut snaps: Vec<u64> = Vec::new();
    let mut seen = 0;
    for (op, past) in ops {
        match op {
            Op::Schedule {
                actor,
                ahead,
                count,
            } => {
                let height = n.chain().height() + ahead;
                schedule_many(&mut n, actors[*actor], height, *count, 500_000);
            }
            Op::Mine(k) => {
                n.apply(Mine { blocks: *k }).map_err(|e| e.to_string())?;
            }
            // A refused move changes nothing; the check after it still runs.
            Op::Travel(t) => t.apply(&mut n, &mut snaps)?,
            Op::Reset => {
                n.apply(Reset).map_err(|e| e.to_string())?;
                // The actors are gone with the chain they were deployed on.
                actors = (0..3).map(|i| deploy(&mut n, i)).collect();
            }
        }
        seen += check(&n, *past).map_err(|e| format!("after {op:?}: {e}"))?;
    }
    Ok(seen)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Issue 31 item "the fairness pane's counts follow the blocks": the tallied answer is the
    /// rescan's over random sessions, with reverts, resets, loads and past reads.
    #[test]
    fn issue31_tallied_shares_answer_what_the_rescan_answers(
        ops in prop::collection::vec((op(), any::<u64>()), 4..28),
        eip1559 in any::<bool>(),
    ) {
        let kind = if eip1559 { SchedulerKind::Eip1559 } else { SchedulerKind::Fifo };
        let r = play(&ops, kind);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}

/// A fixed session that carries timers (first deferrals) and then goes back over them: the
/// tallies counted before a revert are not served after it, and those of a loaded dump are
/// counted from its blocks.
#[test]
fn issue31_tallies_follow_reverts_and_loads_of_a_carrying_session() {
    let ops = [
        (
            Op::Schedule {
                actor: 0,
                ahead: 2,
                count: 16,
            },
            0,
        ),
        (
            Op::Schedule {
                actor: 1,
                ahead: 2,
                count: 6,
            },
            1,
        ),
        (Op::Travel(Travel::Snapshot), 0),
        (Op::Mine(3), 2),
        (Op::Travel(Travel::RevertTo(2)), 3),
        (
            Op::Schedule {
                actor: 2,
                ahead: 1,
                count: 16,
            },
            0,
        ),
        (Op::Mine(4), 1),
        (Op::Travel(Travel::Revert(0)), 2),
        (Op::Mine(5), 4),
        (Op::Travel(Travel::DumpLoad), 3),
        (Op::Mine(2), 5),
        (Op::Reset, 0),
        (
            Op::Schedule {
                actor: 1,
                ahead: 1,
                count: 16,
            },
            0,
        ),
        (Op::Mine(2), 1),
    ];
    let seen = play(&ops, SchedulerKind::Fifo).unwrap_or_else(|e| panic!("fifo: {e}"));
    assert!(
        seen > 0,
        "the session carried timers: {seen} deferrals counted"
    );
    // eip1559's own §8 counts answer `scheduler_actors`; `scheduler_deferrals` reads the
    // tallies (this session carries nothing under it: its lane takes the cheap fires).
    play(&ops, SchedulerKind::Eip1559).unwrap_or_else(|e| panic!("eip1559: {e}"));
}
