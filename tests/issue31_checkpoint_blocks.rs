//! Issue 31, "Bounded by work" and "a pending timer costs ≤ 400 B of RSS" (Spec note 209): no
//! block the history let go stays in memory. A live node keeps the last `--history` heights; the
//! chain's stored blocks, and the checkpoints past reads replay from, used to keep blocks by
//! count, so after a jump (or once a checkpoint aged) they held blocks no read reaches: a
//! backlog's loading blocks, or most of a window of blocks in the oldest checkpoint. Past reads,
//! reverts and the pruned heights' headers answer as before.

use cowboy_devnet::chain::{Block, BlockHeader};
use cowboy_devnet::node::{BlockAnswer, Mine, NodeCore, RevertTo};
use std::collections::BTreeMap;
use std::sync::{Arc, Weak};

mod common;

use common::history::{busy_block, devnet};

/// What the node answered for the head when it was sealed: its header and state root.
type Seen = BTreeMap<u64, (BlockHeader, [u8; 32])>;

/// A busy block, remembered: a weak pointer to it and its header and root as the head.
fn busy(d: &mut NodeCore, weak: &mut Vec<(u64, Weak<Block>)>, seen: &mut Seen) {
    busy_block(d);
    let b: Arc<Block> = d.chain().last_block_shared().expect("a head");
    weak.push((b.header.height, Arc::downgrade(&b)));
    seen.insert(
        b.header.height,
        (b.header.clone(), d.chain().state_root().0),
    );
}

fn header_of(d: &NodeCore, height: u64) -> BlockHeader {
    match d.block_answer(height).unwrap().expect("a sealed height") {
        BlockAnswer::Whole(b) => b.header.clone(),
        BlockAnswer::HeaderOnly(p) => p.header.clone(),
    }
}

/// Nothing holds a block below the kept history; every block in it is still held.
fn check_held(d: &NodeCore, weak: &[(u64, Weak<Block>)]) {
    let first_kept = d.first_kept();
    for (h, w) in weak {
        let held = w.upgrade().is_some();
        assert_eq!(
            held,
            *h >= first_kept,
            "#{h} (the history keeps #{first_kept} on) held: {held}"
        );
    }
}

/// Every height past reads answer replays to the root and header it had as the head.
fn check_past(d: &NodeCore, seen: &Seen) {
    for (h, (header, root)) in seen.range(d.first_queryable()..) {
        let chain = d.chain_at(*h).expect("a kept height");
        assert_eq!(chain.state_root().0, *root, "#{h}'s root");
        assert_eq!(&header_of(d, *h), header, "#{h}'s header");
    }
}

#[test]
fn issue31_an_aged_checkpoint_lets_go_of_the_blocks_the_history_pruned() {
    let (mut d, mut weak, mut seen) = (devnet(50), Vec::new(), Seen::new());
    // Past 256 busy blocks a checkpoint is placed (CHECKPOINT_EVERY); then it ages.
    for _ in 0..330 {
        busy(&mut d, &mut weak, &mut seen);
    }
    assert!(d.first_kept() > 256 + 20, "{}", d.first_kept());
    check_held(&d, &weak);
    check_past(&d, &seen);
}

#[test]
fn issue31_after_a_jump_neither_the_chain_nor_a_checkpoint_keeps_the_loading_blocks() {
    let (mut d, mut weak, mut seen) = (devnet(50), Vec::new(), Seen::new());
    for _ in 0..40 {
        busy(&mut d, &mut weak, &mut seen);
    }
    d.apply(Mine { blocks: 10_000 }).unwrap();
    // The loading blocks are out of the window: the chain held them by count before.
    check_held(&d, &weak);
    for _ in 0..300 {
        busy(&mut d, &mut weak, &mut seen);
    }
    check_held(&d, &weak);
    check_past(&d, &seen);
    // Every pruned busy height still answers the header it had.
    for (h, (header, _)) in seen.range(..d.first_kept()) {
        assert_eq!(&header_of(&d, *h), header, "#{h}");
    }
}

#[test]
fn issue31_a_revert_keeps_the_headers_of_the_pruned_heights() {
    let (mut d, mut weak, mut seen) = (devnet(50), Vec::new(), Seen::new());
    for i in 0..600 {
        busy(&mut d, &mut weak, &mut seen);
        if i % 100 == 99 {
            d.apply(Mine { blocks: 500 }).unwrap();
        }
    }
    let back = d.first_queryable() + 1;
    d.apply(RevertTo { height: back }).unwrap();
    assert_eq!(d.chain().height(), back);
    for (h, (header, _)) in seen.range(..=back) {
        assert_eq!(&header_of(&d, *h), header, "#{h} after the revert");
    }
    // And the chain goes on from there, holding no block the history let go.
    weak.retain(|(h, _)| *h <= back);
    for _ in 0..60 {
        busy(&mut d, &mut weak, &mut seen);
    }
    check_held(&d, &weak);
}
