//! Issue 31 (Spec notes 163, 221): every block of the retained history has its traces, kept or
//! rebuilt by replay, down to the first kept height, whatever the checkpoints' placement. A
//! trace replays from a checkpoint strictly below its block, so the oldest checkpoint stays
//! below the first kept height (a checkpoint placed at the first kept height, or at #1 on a
//! chain whose first block is busy, used to drop the one below it and leave that block's
//! traces `HistoryPruned`).

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::trace::Trace;
use cowboy_devnet::engine::Address;
use cowboy_devnet::node::{
    Answer, CallActor, Mine, MiningMode, NodeConfig, NodeCore, Query, TraceQuery,
};
use cowboy_devnet::vm::DevnetRuntime;

const SCRIPT: &str = r#"
fn deploy() { storage_set("n", "0"); }
fn ping(p) {
    storage_set("n", "" + p.len());
    emit("pinged", "yes");
}
"#;

/// A manual-mining node keeping `history` heights, with a checkpoint after every `work` units
/// sealed (`None`: the default placement), tracing on or off.
fn node(history: usize, work: Option<u64>, trace: bool) -> NodeCore {
    let mut cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    cfg.mining = MiningMode::Manual;
    cfg.history = history;
    let mut node = NodeCore::new(cfg).expect("genesis");
    if let Some(w) = work {
        node.set_checkpoint_work(w);
    }
    node.set_tracing(trace);
    node
}

/// Deploys the actor in #1 (a busy first block) and seals `blocks` more, each with one call.
fn play(node: &mut NodeCore, blocks: u64) -> Address {
    let from = node.accounts()[0].address;
    let actor = common::node_deploy(node, ActorCode::rhai("tracee", SCRIPT), "tracee");
    node.apply(Mine { blocks: 1 }).unwrap();
    for i in 0..blocks {
        node.apply(CallActor {
            from,
            actor,
            handler: "ping".into(),
            payload: vec![7; (i % 5) as usize],
        })
        .expect("included");
        node.apply(Mine { blocks: 1 }).unwrap();
    }
    actor
}

/// A block's traces, finished off the node's thread when they are replayed.
fn traces(node: &NodeCore, h: u64) -> Result<Vec<Trace>, String> {
    match TraceQuery::Block(h).answer(node) {
        Answer::Off(work) => std::thread::spawn(work).join().expect("no panic"),
        Answer::Done(r) => r,
    }
    .map_err(|e| format!("#{h}: {e}"))
}

/// Every height from the first kept to the head answers the traces the traced node kept.
fn every_kept_block_is_traced(history: usize, work: Option<u64>, blocks: u64) {
    let mut on = node(history, work, true);
    let mut off = node(history, work, false);
    play(&mut on, blocks);
    play(&mut off, blocks);
    let (first, head) = (off.first_kept(), off.height());
    assert!(first <= head, "a window: #{first}..#{head}");
    for h in first..=head {
        let want = traces(&on, h).unwrap();
        assert!(!want.is_empty(), "#{h} is busy");
        assert_eq!(traces(&off, h), Ok(want), "#{h} replayed");
    }
    if first > 1 {
        let below = traces(&off, first - 1).unwrap_err();
        assert!(below.contains("HistoryPruned"), "{below}");
    }
}

/// Spec note 221: a checkpoint after every busy block, #1 included, keeps the genesis one
/// below it, so block #1's traces replay.
#[test]
fn issue31_the_first_block_is_traced_with_a_checkpoint_at_it() {
    every_kept_block_is_traced(10_000, Some(1), 6);
}

/// Spec note 221: with a checkpoint at every height and a short history, a checkpoint always
/// stands at the first kept height; the one below it is kept, so that height's traces replay.
#[test]
fn issue31_the_first_kept_block_is_traced_with_a_checkpoint_at_it() {
    for history in [3, 4, 7] {
        every_kept_block_is_traced(history, Some(1), 20);
    }
}

/// The default placement (Spec notes 151, 218): with the history's first kept height on a
/// checkpoint the chain placed by itself, that height's traces replay (and those after it).
#[test]
fn issue31_the_first_kept_block_is_traced_under_the_default_placement() {
    let blocks = 300;
    let mut probe = node(10_000, None, false);
    play(&mut probe, blocks);
    let heights = probe.checkpoint_bytes().heights;
    let head = probe.height();
    let c = *heights
        .iter()
        .find(|h| **h > 1 && **h < head)
        .unwrap_or_else(|| panic!("a checkpoint inside the run: {heights:?}"));
    let history = (head + 1 - c) as usize;
    let mut on = node(history, None, true);
    let mut off = node(history, None, false);
    play(&mut on, blocks);
    play(&mut off, blocks);
    assert_eq!(off.first_kept(), c, "the window starts on the checkpoint");
    for h in [c, c + 1, head] {
        let want = traces(&on, h).unwrap();
        assert!(!want.is_empty(), "#{h} is busy");
        assert_eq!(traces(&off, h), Ok(want), "#{h} replayed");
    }
    let below = traces(&off, c - 1).unwrap_err();
    assert!(below.contains("HistoryPruned"), "{below}");
}
