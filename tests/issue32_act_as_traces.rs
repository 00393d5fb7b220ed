//! Issue 32 item 5 ("Traces": every handler run can be traced): a `timer_schedule` /
//! `timer_cancel` sent over RPC runs an act-as host call, and a `gov_*` method a system
//! instruction; `devnet_traceTransaction` of such a transaction answers what it did (the host
//! call, its arguments and answer, the cycles charged, the timer id), recorded with `--trace`
//! and the same when rebuilt by replay on a node that does not trace.

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::trace::{Trace, TraceStep};
use cowboy_devnet::engine::{H256, ScheduleArgs};
use cowboy_devnet::node::{
    CancelTimer, DeployActor, GovCancel, Mine, NodeCore, Query, ScheduleTimer, TraceQuery,
};

const SCRIPT: &str = "fn handle_timer(p) { }";

struct Played {
    node: NodeCore,
    schedule: (H256, u64),
    cancel: (H256, u64),
    gov: (H256, u64),
    timer: String,
}

/// Deploys an actor, schedules two timers for it as its deployer (act-as), cancels one
/// (act-as) and cancels the other by governance, then seals.
fn play(trace: bool) -> Played {
    let mut node = common::fleet::manual_node(Genesis::default());
    node.set_tracing(trace);
    let from = node.accounts()[0].address;
    let d = node
        .apply(DeployActor {
            from: Some(from),
            code: ActorCode::rhai("acted", SCRIPT),
            address: None,
            endowment: 10_000_000_000,
            name: Some("acted".into()),
        })
        .expect("deploys");
    node.apply(Mine { blocks: 1 }).unwrap();
    let schedule = |node: &mut NodeCore, h: u64| {
        node.apply(ScheduleTimer {
            actor: d.address,
            args: ScheduleArgs {
                height: h,
                ..ScheduleArgs::default()
            },
            ..Default::default()
        })
        .expect("scheduled")
    };
    let h = node.height();
    let a = schedule(&mut node, h + 10);
    let b = schedule(&mut node, h + 12);
    let c = node
        .apply(CancelTimer {
            actor: d.address,
            from: None,
            timer_id: a.timer_id,
        })
        .expect("cancelled");
    let g = node
        .apply(GovCancel {
            from,
            timer_id: b.timer_id,
        })
        .expect("governance cancels");
    node.apply(Mine { blocks: 1 }).unwrap();
    let at = |r: &cowboy_devnet::chain::Receipt| (r.tx_hash, r.cycles_used);
    Played {
        schedule: at(&a.receipt),
        cancel: at(&c.receipt),
        gov: at(&g.receipt),
        timer: a.timer_id.to_string(),
        node,
    }
}

fn one(node: &NodeCore, hash: H256) -> Trace {
    let q = TraceQuery::Tx(hash);
    let mut t = q.run(node).unwrap_or_else(|e| panic!("{q:?}: {e}"));
    assert_eq!(t.len(), 1, "one run: {t:?}");
    t.remove(0)
}

/// The one host call of the trace: its name, arguments, answer and cycles.
fn call(t: &Trace) -> (&str, &serde_json::Value, &serde_json::Value, u64) {
    match t.steps.as_slice() {
        [
            TraceStep::Call {
                call,
                args,
                result,
                cycles,
                ..
            },
        ] => (call.as_str(), args, result, *cycles),
        other => panic!("one host call, got {other:?}"),
    }
}

/// Issue 32 item 5: the act-as schedule and cancel are traced as the host calls they make,
/// their cycles adding up to the receipt's; the governance cancel as its instruction.
#[test]
fn issue32_item5_act_as_calls_and_governance_are_traced() {
    let p = play(true);
    let s = one(&p.node, p.schedule.0);
    assert_eq!(s.entry, "act_as schedule_timer");
    let (name, _, result, cycles) = call(&s);
    assert_eq!(name, "schedule_timer");
    assert!(result.to_string().contains(&p.timer), "the id: {result}");
    assert!(s.end.success);
    assert_eq!(s.cycles_end, p.schedule.1, "the receipt's cycles");
    assert_eq!(s.cycles_start + s.script_cycles + cycles, s.cycles_end);

    let c = one(&p.node, p.cancel.0);
    assert_eq!(c.entry, "act_as cancel_timer");
    let (name, args, _, cycles) = call(&c);
    assert_eq!(name, "cancel_timer");
    assert!(
        args.to_string().contains(&p.timer[2..10]),
        "the id cancelled: {args}"
    );
    assert_eq!(c.cycles_start + c.script_cycles + cycles, p.cancel.1);

    let g = one(&p.node, p.gov.0);
    assert!(g.entry.starts_with("system "), "{}", g.entry);
    let (_, args, _, _) = call(&g);
    assert!(args.get("op").is_some(), "the instruction: {args}");
    assert!(g.end.success);
    assert_eq!(g.cycles_end, p.gov.1, "the receipt's cycles");
}

/// Issue 32 item 5: tracing changes nothing (the same roots) and a node that does not trace
/// rebuilds the same traces by replay.
#[test]
fn issue32_item5_rebuilt_act_as_traces_are_the_recorded_ones() {
    let (on, off) = (play(true), play(false));
    assert_eq!(on.node.chain().state_root(), off.node.chain().state_root());
    for (a, b) in [
        (on.schedule.0, off.schedule.0),
        (on.cancel.0, off.cancel.0),
        (on.gov.0, off.gov.0),
    ] {
        assert_eq!(one(&on.node, a), one(&off.node, b));
    }
}
