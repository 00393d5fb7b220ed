//! Issue 32, "Traces": every handler run (a call, a deploy, a fire) can be traced: its host
//! calls in order with arguments, answers, cycles and cells, its storage writes with the value
//! replaced, its printed lines and its end; the totals agree with the receipt to the cycle.
//! Tracing changes nothing (the same roots), and a trace not kept is rebuilt by replay to the
//! same trace (Spec note 163).

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::trace::{Trace, TraceOf, TraceStep};
use cowboy_devnet::engine::{Address, TimerId};
use cowboy_devnet::node::Query;
use cowboy_devnet::node::{CallActor, DeployActor, Mine, NodeCore, TraceQuery, TxOutcome};

const SCRIPT: &str = r#"
fn deploy() { storage_set("n", "0"); }
fn ping(p) {
    print("ping " + p.len());
    let n = storage_get("n");
    storage_set("n", "1");
    emit("pinged", "yes");
    schedule_timer(block_height() + 2, "later");
}
fn handle_timer(p) {
    debug("fired");
    storage_set("n", "2");
}
fn broken(p) {
    let x = 1;
    no_such_function(x);
}
"#;

struct Run {
    node: NodeCore,
    actor: Address,
    ping: TxOutcome,
    broken: TxOutcome,
    timer: TimerId,
}

/// Deploys the actor (endowed, so its timer is funded), calls `ping` and `broken`, and mines
/// past the timer's fire.
fn play(trace: bool) -> Run {
    let mut node = common::fleet::manual_node(Genesis::default());
    node.set_tracing(trace);
    let from = node.accounts()[0].address;
    let d = node
        .apply(DeployActor {
            from: Some(from),
            code: ActorCode::rhai("tracee", SCRIPT),
            address: None,
            endowment: 10_000_000_000,
            name: Some("tracee".into()),
        })
        .expect("deploys");
    node.apply(Mine { blocks: 1 }).unwrap();
    let call = |node: &mut NodeCore, handler: &str| {
        node.apply(CallActor {
            from,
            actor: d.address,
            handler: handler.into(),
            payload: vec![1, 2],
        })
        .expect("included")
    };
    let ping = call(&mut node, "ping");
    let broken = call(&mut node, "broken");
    node.apply(Mine { blocks: 4 }).unwrap();
    let timer = ping.receipt.timers[0];
    Run {
        node,
        actor: d.address,
        ping,
        broken,
        timer,
    }
}

fn ask(node: &NodeCore, q: TraceQuery) -> Vec<Trace> {
    q.run(node).unwrap_or_else(|e| panic!("{q:?}: {e}"))
}

fn calls(t: &Trace) -> Vec<&str> {
    t.steps
        .iter()
        .filter_map(|s| match s {
            TraceStep::Call { call, .. } => Some(call.as_str()),
            TraceStep::Print { .. } => None,
        })
        .collect()
}

/// The trace's cycles add up: what was charged before, the script's operations and each host
/// call's own charge make the receipt's cycles.
fn adds_up(t: &Trace, receipt_cycles: u64) {
    let host: u64 = t
        .steps
        .iter()
        .map(|s| match s {
            TraceStep::Call { cycles, .. } => *cycles,
            TraceStep::Print { .. } => 0,
        })
        .sum();
    assert_eq!(t.cycles_end, receipt_cycles, "the receipt's cycles");
    assert_eq!(
        t.cycles_start + t.script_cycles + host,
        t.cycles_end,
        "start + script + host calls = end: {t:?}"
    );
}

#[test]
fn issue32_a_call_is_traced_in_order_and_adds_up_to_its_receipt() {
    let r = play(true);
    let t = ask(&r.node, TraceQuery::Tx(r.ping.receipt.tx_hash));
    assert_eq!(t.len(), 1);
    let t = &t[0];
    assert_eq!(t.entry, "ping");
    assert_eq!(t.actor, r.actor);
    assert!(t.end.success);
    assert_eq!(
        calls(t),
        [
            "storage_get",
            "storage_set",
            "emit",
            "block_height",
            "schedule_timer"
        ]
    );
    assert!(matches!(&t.steps[0], TraceStep::Print { line } if line == "print: ping 2"));
    // The write says what it replaced (the deploy wrote "0").
    let set = t.steps.iter().find_map(|s| match s {
        TraceStep::Call { call, args, .. } if call == "storage_set" => Some(args),
        _ => None,
    });
    assert_eq!(
        set,
        Some(&serde_json::json!({"key": "n", "old": "0", "new": "1"}))
    );
    // The timer it scheduled is named by its answer.
    let sched = t.steps.iter().find_map(|s| match s {
        TraceStep::Call { call, result, .. } if call == "schedule_timer" => Some(result),
        _ => None,
    });
    assert_eq!(sched, Some(&serde_json::json!(r.timer)));
    adds_up(t, r.ping.receipt.cycles_used);
}

#[test]
fn issue32_a_fire_and_a_deploy_are_traced() {
    let r = play(true);
    let f = ask(
        &r.node,
        TraceQuery::Fire {
            timer_id: r.timer,
            height: None,
        },
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].of, TraceOf::Fire { timer_id: r.timer });
    assert_eq!(f[0].entry, "handle_timer");
    assert_eq!(calls(&f[0]), ["storage_set"]);
    assert!(
        matches!(&f[0].steps[0], TraceStep::Print { line } if line.starts_with("debug") && line.contains("fired"))
    );
    let fired_cycles =
        r.node
            .events(&Default::default())
            .iter()
            .find_map(|e| match &e.event {
                cowboy_devnet::chain::Event::Timer(
                    cowboy_devnet::engine::TimerEvent::TimerFired { cycles_used, .. },
                ) => Some(*cycles_used),
                _ => None,
            })
            .expect("it fired");
    adds_up(&f[0], fired_cycles);
    let deploy = ask(&r.node, TraceQuery::Block(1));
    assert_eq!(deploy.len(), 1);
    assert_eq!(deploy[0].entry, "deploy");
    assert_eq!(calls(&deploy[0]), ["storage_set"]);
}

#[test]
fn issue32_a_failing_script_says_where() {
    let r = play(true);
    let t = &ask(&r.node, TraceQuery::Tx(r.broken.receipt.tx_hash))[0];
    assert!(!t.end.success);
    assert!(!r.broken.receipt.success);
    let (line, col) = t.end.at.expect("the script's line and column");
    // `no_such_function(x)` is on the script's line 16 (counting the leading newline).
    assert_eq!(line, 16, "{:?}", t.end);
    assert!(col > 0);
    // The failing line as deployed, and in words under a caret at its column.
    let src = t
        .end
        .source_line
        .as_deref()
        .expect("the failing source line");
    assert!(src.contains("no_such_function(x)"), "{src:?}");
    let words = cowboy_devnet::node::trace_text::trace_lines(t, &Default::default());
    let at = words
        .iter()
        .position(|l| l.trim_start().starts_with("16 | "))
        .expect("the numbered source line");
    assert!(words[at].contains("no_such_function(x)"), "{words:?}");
    let caret = &words[at + 1];
    assert_eq!(caret.trim_end().chars().last(), Some('^'), "{words:?}");
    // The caret sits under the column Rhai named (positions count from 1).
    let bar = words[at].find(" | ").expect("a bar") + 3;
    assert_eq!(
        caret.trim_end().len() - 1,
        bar + col as usize - 1,
        "{words:?}"
    );
    adds_up(t, r.broken.receipt.cycles_used);
}

#[test]
fn issue32_tracing_changes_nothing_and_a_replayed_trace_is_the_same() {
    let on = play(true);
    let off = play(false);
    let (a, b) = (on.node.head(), off.node.head());
    assert_eq!((a.hash, a.state_root), (b.hash, b.state_root), "same roots");
    for h in 1..=on.node.height() {
        let kept = ask(&on.node, TraceQuery::Block(h));
        let rebuilt = ask(&off.node, TraceQuery::Block(h));
        assert_eq!(kept, rebuilt, "block #{h}: kept and replayed traces differ");
    }
    assert!(
        !ask(&off.node, TraceQuery::Tx(off.ping.receipt.tx_hash)).is_empty(),
        "a transaction's trace is rebuilt without --trace"
    );
}

#[test]
fn issue32_bad_trace_queries_are_named_errors() {
    let r = play(false);
    let head = r.node.height();
    let e = TraceQuery::Block(head + 1).run(&r.node).unwrap_err();
    assert!(e.to_string().contains("no sealed block"), "{e}");
    let e = TraceQuery::Tx(cowboy_devnet::engine::H256([9; 32]))
        .run(&r.node)
        .unwrap_err();
    assert!(e.to_string().contains("TransactionNotFound"), "{e}");
    let e = TraceQuery::Fire {
        timer_id: r.timer,
        height: Some(2),
    }
    .run(&r.node)
    .unwrap_err();
    assert!(e.to_string().contains("did not fire in block #2"), "{e}");
}

/// Over JSON-RPC: the full and the compact form, rebuilt by replay on a node that does not
/// trace; bad params are `-32602` naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue32_traces_over_rpc() {
    use common::served::{rpc_err, rpc_ok};
    use serde_json::json;
    let served = common::served::serve(Genesis::default(), &common::served::port0()).await;
    let c = jsonrpsee::http_client::HttpClientBuilder::default()
        .build(format!("http://{}", served.addr))
        .expect("client");
    let acc = rpc_ok(&c, "devnet_accounts", &json!([])).await;
    let from = acc[1]["address"].clone();
    let actor = rpc_ok(
        &c,
        "actor_deploy",
        &json!([{"from": from, "script": SCRIPT, "balance": "1000000000"}]),
    )
    .await;
    let r = rpc_ok(
        &c,
        "actor_call",
        &json!([{"from": from, "actor": actor, "handler": "ping", "payload": "0x0102"}]),
    )
    .await;
    let hash = r["tx_hash"].clone();
    let full = rpc_ok(&c, "devnet_traceTransaction", &json!([hash])).await;
    assert_eq!(full[0]["entry"], "ping");
    assert_eq!(full[0]["cycles_end"], r["cycles_used"]);
    assert_eq!(full[0]["steps"][1]["args"]["key"], "n");
    let compact = rpc_ok(
        &c,
        "devnet_traceTransaction",
        &json!([hash, {"compact": true}]),
    )
    .await;
    let names: Vec<&str> = compact[0]["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["call"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "storage_get",
            "storage_set",
            "emit",
            "block_height",
            "schedule_timer"
        ]
    );
    assert!(compact[0].get("steps").is_none(), "compact: no arguments");
    let block = rpc_ok(&c, "devnet_traceBlock", &json!([r["height"]])).await;
    assert_eq!(block, full);
    let (code, _, data) = rpc_err(&c, "devnet_traceBlock", &json!([1, {"compakt": true}])).await;
    assert_eq!((code, data["field"].clone()), (-32602, json!("compakt")));
    let (code, _, data) = rpc_err(&c, "devnet_traceFire", &json!(["0x12"])).await;
    assert_eq!((code, data["field"].clone()), (-32602, json!("timer_id")));
}

/// `run --trace=NAME` prints the named actor's runs after the summary, readably: the demo's
/// worker plans, settles, and reverts at height 15 (its `fail` handler).
#[test]
fn issue32_run_trace_prints_an_actors_runs() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
        .args(["run", "demo", "-q", "--trace=worker"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let traces = text.split("traces:\n").nth(1).expect("a traces section");
    assert!(
        traces.contains("#8 fire of timer") && traces.contains("worker.settle ok"),
        "{traces}"
    );
    assert!(
        traces.contains("storage_set(settled: none → order-42)"),
        "{traces}"
    );
    assert!(
        traces.contains("worker.fail failed: Reverted: cannot settle order-43"),
        "{traces}"
    );
    assert!(
        !traces.contains("heartbeat."),
        "only the worker's runs: {traces}"
    );
}

/// `run --trace=LABEL` prints the fires of the timer the fixture labelled so (issue 32,
/// "`run --trace` by timer label"): the demo's `settle-42` fires once, at #8, in the worker's
/// `settle`; nothing else is printed.
#[test]
fn issue32_run_trace_by_timer_label() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
        .args(["run", "demo", "-q", "--trace=settle-42"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let traces = text.split("traces:\n").nth(1).expect("a traces section");
    let heads: Vec<&str> = traces.lines().filter(|l| l.starts_with("  #")).collect();
    assert_eq!(heads.len(), 1, "one fire of settle-42: {traces}");
    assert!(heads[0].starts_with("  #8 fire of timer"), "{traces}");
    assert!(traces.contains("worker.settle ok"), "{traces}");
    assert!(!traces.contains("worker.fail"), "{traces}");
}

/// A fixture's `trace` expectations (issue 32): a host call made in a labelled timer's fire
/// or an actor's runs, a storage key's new value, a printed line; checked against the run's
/// traces (the runner traces when a fixture asks), a miss reported like any expectation.
#[test]
fn issue32_fixture_expectations_pin_trace_facts() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("trace_expect");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("t.toml");
    std::fs::write(
        &f,
        r#"
name = "trace-expect"
blocks = 20

[[accounts]]
name = "alice"
balance = "1_000_000_000"

[[actors]]
name = "hb"
script = "../../../fixtures/scripts/heartbeat.rhai"
deployer = "alice"
balance = "50_000_000"

[[steps]]
at = 2
action = "schedule"
actor = "hb"
after = 3
label = "one"

[[expect]]
trace = "storage_set"
timer = "one"
key = "beats"
value = "1"
description = "the labelled fire (at 5, before the deploy's timer at 6) writes beats = 1"

[[expect]]
trace = "emit"
actor = "hb"
min = 3

[[expect]]
trace = "transfer"
actor = "hb"
count = 0

[[expect]]
trace = "storage_set"
actor = "hb"
at = 6
value = "99"
"#,
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
        .arg("run")
        .arg(&f)
        .arg("-q")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("expectations: 3 passed, 1 failed"), "{text}");
    assert!(
        text.contains("FAIL") && text.contains("trace: storage_set = `99` in the runs of hb at 6"),
        "the miss is named: {text}"
    );
    assert!(
        text.contains("0 matching step(s) in 1 traced run(s)"),
        "{text}"
    );
}

/// A `trace` expectation that cannot hold is refused before the run, by name.
#[test]
fn issue32_bad_trace_expectations_are_named_errors() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("trace_expect_bad");
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "trace = \"teleport\"\nactor = \"hb\"",
            "unknown host call `teleport`",
        ),
        ("trace = \"emit\"", "names whose runs"),
        (
            "trace = \"emit\"\nactor = \"hb\"\nkey = \"k\"",
            "`key` is a storage call's",
        ),
        (
            "trace = \"emit\"\nactor = \"hb\"\nvalue = \"v\"",
            "`value` is a storage write's",
        ),
        (
            "kind = \"TimerFired\"\nkey = \"k\"",
            "`key` belongs to a `trace` expectation",
        ),
    ];
    for (i, (expect, why)) in cases.iter().enumerate() {
        let f = dir.join(format!("bad{i}.toml"));
        std::fs::write(
            &f,
            format!(
                "name = \"bad\"\nblocks = 5\n[[accounts]]\nname = \"alice\"\nbalance = \"1000\"\n[[actors]]\nname = \"hb\"\nscript = \"../../../fixtures/scripts/heartbeat.rhai\"\ndeployer = \"alice\"\n[[expect]]\n{expect}\n"
            ),
        )
        .unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
            .arg("check")
            .arg(&f)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "case {i} accepted");
        assert!(err.contains(why), "case {i}: {err}");
    }
}

/// Issue 32 ("every handler run ... a custom GBA call ... can be traced") and CIP-1 v3 §7.2:
/// under `--trace` the shipped `custom_gba` fixture records each `get_gas_bid` call as a `bid`
/// trace of its timer, in its block before the block's fires; tracing changes no root.
#[test]
fn issue32_a_custom_gba_call_is_traced_as_its_timers_bid() {
    use cowboy_devnet::scenario::{RunOptions, builtin};
    use cowboy_devnet::vm::DevnetRuntime;
    let run = |trace: bool| {
        let mut s = builtin::scenario("custom_gba", &DevnetRuntime::new())
            .expect("shipped")
            .expect("checks");
        s.trace = trace;
        s.run_devnet(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |_, _| {},
        )
        .expect("plays")
    };
    let ((on_report, on), (off_report, _)) = (run(true), run(false));
    assert_eq!(
        on_report.summary.final_state_root,
        off_report.summary.final_state_root
    );
    let blocks = on.kept_traces();
    let mut bids = 0;
    for block in &blocks {
        let kinds: Vec<&TraceOf> = block.iter().map(|t| &t.of).collect();
        let first_fire = kinds.iter().position(|o| matches!(o, TraceOf::Fire { .. }));
        for (i, t) in block.iter().enumerate() {
            if let TraceOf::Bid { timer_id } = &t.of {
                bids += 1;
                assert_eq!(t.entry, "get_gas_bid");
                assert!(t.end.success, "{:?}", t.end);
                assert!(t.cycles_end > 0);
                // Before the block's fires, and the bid's timer fires in the same block or
                // is carried (the fixture's urgent timers fire on time).
                assert!(first_fire.is_none_or(|f| i < f), "{kinds:?}");
                assert!(
                    block
                        .iter()
                        .any(|f| matches!(&f.of, TraceOf::Fire { timer_id: id } if id == timer_id)),
                    "the urgent timer {timer_id} fires in the block that priced it"
                );
            }
        }
    }
    assert!(bids > 0, "no bid traced");
}

/// Issue 31 item 7 (past reads off the node's thread): a trace that is not kept is rebuilt by
/// a replay the node's thread only prepares (shared pointers); the replay finishes on another
/// thread and gives the kept trace. Kept traces, empty blocks and refusals answer at once.
/// Served, `ask` gives the same answers as the node itself.
#[test]
fn issue31_a_replayed_trace_is_finished_off_the_nodes_thread() {
    use cowboy_devnet::node::Answer;
    let on = play(true);
    let off = play(false);
    let mut replayed = 0;
    for h in 1..=off.node.height() {
        let q = TraceQuery::Block(h);
        let Answer::Done(kept) = q.answer(&on.node) else {
            panic!("#{h}: a kept trace is answered on the node's thread");
        };
        let rebuilt = match q.answer(&off.node) {
            Answer::Off(work) => {
                replayed += 1;
                std::thread::spawn(work).join().expect("no panic")
            }
            Answer::Done(r) => r,
        };
        assert_eq!(kept.unwrap(), rebuilt.unwrap(), "block #{h}");
    }
    assert!(
        replayed >= 2,
        "the blocks with runs were replayed: {replayed}"
    );
    // A refusal needs no replay.
    let bad = TraceQuery::Block(off.node.height() + 5).answer(&off.node);
    assert!(matches!(bad, Answer::Done(Err(_))), "a block past the head");
    let fire = TraceQuery::Fire {
        timer_id: off.timer,
        height: None,
    };
    let tx = TraceQuery::Tx(off.ping.receipt.tx_hash);
    let (want_fire, want_tx) = (ask(&on.node, fire.clone()), ask(&on.node, tx.clone()));
    let served = cowboy_devnet::node::spawn(off.node);
    assert_eq!(
        served.ask_blocking(fire).unwrap(),
        want_fire,
        "the fire, served"
    );
    assert_eq!(
        served.ask_blocking(tx).unwrap(),
        want_tx,
        "the call, served"
    );
    let err = served
        .ask_blocking(TraceQuery::Fire {
            timer_id: off.timer,
            height: Some(1),
        })
        .unwrap_err();
    assert!(
        err.to_string().contains("did not fire in block #1"),
        "{err}"
    );
    served.shutdown();
}

/// Runs a trace query to its end: off the node's thread when it answers `Off`. Whether it
/// replayed.
fn finish(q: &TraceQuery, node: &NodeCore) -> (Vec<Trace>, bool) {
    use cowboy_devnet::node::Answer;
    match q.answer(node) {
        Answer::Off(work) => (
            std::thread::spawn(work).join().expect("no panic").unwrap(),
            true,
        ),
        Answer::Done(r) => (r.unwrap(), false),
    }
}

/// Issue 31 item 7, issue 32 (Spec note 205): a block's traces rebuilt by replay are kept, so
/// asking them again answers on the node's thread without a replay, the same traces as the
/// kept (`--trace`) ones; a fire and a transaction of that block are answered from them too.
/// With the budget at 0 every ask replays, and answers the same.
#[test]
fn issue31_a_rebuilt_trace_is_kept_and_answers_again_without_a_replay() {
    let on = play(true);
    let mut off = play(false);
    let busy: Vec<u64> = (1..=off.node.height())
        .filter(|h| !ask(&on.node, TraceQuery::Block(*h)).is_empty())
        .collect();
    assert!(busy.len() >= 2, "blocks with runs: {busy:?}");
    // Each busy block asked twice: whether each ask replayed.
    let twice = |node: &NodeCore, replays: (bool, bool)| {
        for &h in &busy {
            let q = TraceQuery::Block(h);
            let want = ask(&on.node, q.clone());
            assert_eq!(
                finish(&q, node),
                (want.clone(), replays.0),
                "#{h}: first ask"
            );
            assert_eq!(finish(&q, node), (want, replays.1), "#{h}: asked again");
        }
    };
    twice(&off.node, (true, false));
    let (blocks, bytes) = off.node.rebuilt_traces_held();
    assert_eq!(blocks, busy.len(), "one entry per block rebuilt");
    assert!(bytes > 0, "their size is estimated");
    let tx = TraceQuery::Tx(off.ping.receipt.tx_hash);
    assert_eq!(finish(&tx, &off.node), (ask(&on.node, tx.clone()), false));
    off.node.set_rebuilt_traces_budget(0);
    twice(&off.node, (true, true));
    assert_eq!(
        off.node.rebuilt_traces_held().1,
        0,
        "nothing held at budget 0"
    );
}

/// Spec note 205: a rebuilt trace is kept for its block's hash, so after `devnet_revertTo` and
/// another block at the same height, the new block's traces are answered, not the old ones.
#[test]
fn issue31_a_kept_rebuilt_trace_never_answers_for_a_replaced_block() {
    use cowboy_devnet::node::RevertTo;
    let mut off = play(false);
    // Deployed in #1; `ping` and `broken` sealed in #2.
    let h = 2;
    let old = finish(&TraceQuery::Block(h), &off.node).0;
    assert!(old.iter().any(|t| t.entry == "broken"), "{old:?}");
    off.node.apply(RevertTo { height: h - 1 }).unwrap();
    let from = off.node.accounts()[0].address;
    off.node
        .apply(CallActor {
            from,
            actor: off.actor,
            handler: "ping".into(),
            payload: vec![9, 9, 9],
        })
        .unwrap();
    off.node.apply(Mine { blocks: 1 }).unwrap();
    let (new, replayed) = finish(&TraceQuery::Block(h), &off.node);
    assert!(
        replayed,
        "the new block is replayed, not answered from the old entry"
    );
    assert_ne!(new, old);
    assert!(new.iter().all(|t| t.entry != "broken"), "{new:?}");
}

/// Spec note 205 (Spec note 198's nearer start): a block's trace replayed from a kept past
/// state just below it (read before) is the kept trace, as from its checkpoint.
#[test]
fn issue31_a_trace_replayed_from_a_kept_past_state_is_the_same() {
    let on = play(true);
    let off = play(false);
    for h in 2..=off.node.height() {
        off.node.with_at(h - 1, |_| ()).expect("a past state kept");
        let q = TraceQuery::Block(h);
        assert_eq!(finish(&q, &off.node).0, ask(&on.node, q), "#{h}");
    }
}
