//! Bounded history (issue 20, Spec note 73; `serve --history N`): a live node keeps the blocks
//! and events of the last N heights, answers `HistoryPruned` for older ones, and its
//! snapshots share the kept blocks.

use cowboy_devnet::engine::ErrorKind;
use cowboy_devnet::node::{
    EventFilter, Mine, MiningMode, NodeConfig, NodeCore, NodeError, Revert, RevertTo, Snapshot,
};

mod common;

use common::history::{busy_block, devnet};
use cowboy_devnet::vm::DevnetRuntime;

fn pruned(e: NodeError) -> (u64, usize) {
    assert_eq!(e.kind(), ErrorKind::HistoryPruned, "{e}");
    let msg = e.to_string();
    assert!(msg.contains("this node keeps the last"), "{msg}");
    match e {
        NodeError::HistoryPruned { first_kept, keep } => (first_kept, keep),
        _ => unreachable!(),
    }
}

#[test]
fn history_keeps_the_last_n_heights_and_names_what_it_pruned() {
    let mut d = devnet(5);
    for _ in 0..12 {
        busy_block(&mut d);
    }
    assert_eq!(d.chain().height(), 12);
    assert_eq!(d.first_kept(), 8);
    // Kept heights answer; a pruned one is a named error that says what is kept.
    assert!(d.block_kept(12).unwrap().is_some());
    assert!(d.block_kept(8).unwrap().is_some());
    assert_eq!(pruned(d.block_kept(7).unwrap_err()), (8, 5));
    let e = d.block_kept(1).unwrap_err().to_string();
    assert_eq!(
        e,
        "HistoryPruned: blocks before #8 are pruned; this node keeps the last 5 (--history)"
    );
    // Events: from a pruned height is refused; without a start, from the oldest kept height.
    let from = |h| EventFilter {
        from_height: Some(h),
        ..EventFilter::default()
    };
    assert_eq!(pruned(d.events_kept(&from(3)).unwrap_err()), (8, 5));
    let all = d.events_kept(&EventFilter::default()).unwrap();
    assert!(all.iter().all(|e| e.height >= 8), "only kept heights");
    assert_eq!(d.events_kept(&from(8)).unwrap().len(), all.len());
}

#[test]
fn history_snapshots_share_the_kept_blocks_and_revert_across_pruning() {
    let mut d = devnet(4);
    for _ in 0..3 {
        busy_block(&mut d);
    }
    let id = d.apply(Snapshot).unwrap();
    for _ in 0..6 {
        busy_block(&mut d);
    }
    assert_eq!(d.first_kept(), 6);
    assert!(d.block_kept(2).is_err());
    d.apply(Revert { id }).unwrap();
    // Back at height 3: the snapshot's blocks are there again.
    assert_eq!(d.chain().height(), 3);
    assert_eq!(d.first_kept(), 1);
    assert!(d.block_kept(2).unwrap().is_some());
}

/// Issue 31 item 4 (Spec note 148): after `devnet_revertTo` the head is lower, but the heights
/// whose events were pruned stay pruned: `first_kept` does not claim them, and the block and the
/// events of such a height answer `HistoryPruned` alike.
#[test]
fn issue31_revert_to_keeps_first_kept_at_what_the_history_still_holds() {
    let mut d = devnet(5);
    for _ in 0..12 {
        busy_block(&mut d);
    }
    assert_eq!(d.first_kept(), 8);
    d.apply(RevertTo { height: 10 }).unwrap();
    assert_eq!(d.chain().height(), 10);
    // head + 1 − N would be 6, but 6 and 7 were pruned.
    assert_eq!(d.first_kept(), 8);
    assert_eq!(pruned(d.block_kept(7).unwrap_err()), (8, 5));
    let from7 = EventFilter {
        from_height: Some(7),
        ..EventFilter::default()
    };
    assert_eq!(pruned(d.events_kept(&from7).unwrap_err()), (8, 5));
    let from8 = EventFilter {
        from_height: Some(8),
        ..EventFilter::default()
    };
    assert!(d.events_kept(&from8).is_ok());
    assert!(d.block_kept(8).unwrap().is_some());
    // As the chain goes on the window moves past them as before.
    for _ in 0..5 {
        busy_block(&mut d);
    }
    assert_eq!(d.first_kept(), 11);
}

/// Spec note 73: a dashboard's feed that had read up to a height the node has since pruned
/// (a jump longer than `--history` between two refreshes) goes on from the oldest kept height
/// instead of staying empty at every refresh.
#[test]
fn history_dashboard_feed_goes_on_from_the_oldest_kept_height() {
    use cowboy_devnet::scenario::live::FixturePlayer;
    use cowboy_devnet::scenario::{Scenario, builtin};
    use cowboy_devnet::tui::local::LocalDevnet;
    use cowboy_devnet::tui::model::DashboardSource;
    use std::sync::Arc;
    // The demo played live, its timers firing and deferring around #30.
    let lf = builtin::fixture("demo").unwrap().unwrap();
    let s = Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader).unwrap();
    let mut c = NodeConfig::new(s.genesis().clone(), DevnetRuntime::shared());
    c.mining = MiningMode::Manual;
    c.history = 20;
    c.keep_blocks = Some(20);
    let mut d = NodeCore::new(c).expect("genesis");
    d.set_hook(Box::new(FixturePlayer::new(Arc::new(s))));
    d.apply(Mine { blocks: 45 }).unwrap();
    let first_kept = d.first_kept();
    assert_eq!(first_kept, 26);
    let node = cowboy_devnet::node::spawn(d);
    let mut source = LocalDevnet::live(node.clone());
    // The view's lane window reaches before the kept heights: the dashboard still answers.
    let view = source.dashboard(&cowboy_devnet::tui::model::ViewQuery::default());
    assert_eq!(view.status.expect("a status").height, 45);
    let kept = source.events(first_kept, 1_000);
    assert!(!kept.is_empty(), "the kept heights have events");
    // A feed that had read up to #3 before the node pruned past it.
    let rows = source.events(3, 1_000);
    assert_eq!(
        rows.iter()
            .map(|r| (r.height, r.kind.clone()))
            .collect::<Vec<_>>(),
        kept.iter()
            .map(|r| (r.height, r.kind.clone()))
            .collect::<Vec<_>>()
    );
    node.shutdown();
}
