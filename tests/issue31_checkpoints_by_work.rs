//! Issue 31, "Cost follows what happens, never the heights passed: checkpoints are placed by
//! work done (say every N fires or bytes written), not every 256 heights" (Spec notes 151,
//! 218). A checkpoint is placed after 256 blocks with a body, or sooner once the transactions
//! and events sealed since the last one reach 4,096 (more when the chain is large enough that
//! copying it costs more than replaying them). A past read so replays a bounded amount of work
//! from the nearest checkpoint, a jump over quiet heights places none, and every answer is the
//! one the node gave as the head.

use cowboy_devnet::node::{Mine, NodeCore};
use std::collections::BTreeMap;

mod common;

use common::history::{busy_block, devnet, transfers_block};

/// One block holding `n` transfers; the state root it sealed.
fn heavy_block(d: &mut NodeCore, n: usize) -> [u8; 32] {
    transfers_block(d, n);
    d.chain().state_root().0
}

fn checkpoints(d: &NodeCore) -> Vec<u64> {
    d.checkpoint_bytes().heights
}

#[test]
fn issue31_a_busy_stretch_places_checkpoints_by_its_work_not_by_its_blocks() {
    let mut d = devnet(10_000);
    let mut roots = BTreeMap::new();
    // 1,500 transactions a block: the third block passes 4,096 units of work.
    for _ in 0..2 {
        let root = heavy_block(&mut d, 1_500);
        roots.insert(d.height(), root);
        assert_eq!(
            checkpoints(&d),
            vec![0],
            "#{}: too little work yet",
            d.height()
        );
    }
    roots.insert(d.height() + 1, heavy_block(&mut d, 1_500));
    assert_eq!(
        checkpoints(&d),
        vec![0, 3],
        "placed after the work, three blocks in"
    );
    // Blocks of one transaction: the 256th busy block places the next, as before.
    for _ in 0..255 {
        busy_block(&mut d);
    }
    assert_eq!(checkpoints(&d), vec![0, 3], "255 light blocks since #3");
    busy_block(&mut d);
    assert_eq!(checkpoints(&d), vec![0, 3, 259]);
    // A jump over quiet heights is no work: it places none.
    d.apply(Mine { blocks: 5_000 }).unwrap();
    assert_eq!(checkpoints(&d), vec![0, 3, 259]);
    // Past reads replay from the nearest checkpoint to the root each height had as the head.
    for (h, root) in &roots {
        assert_eq!(&d.chain_at(*h).unwrap().state_root().0, root, "#{h}");
    }
}
