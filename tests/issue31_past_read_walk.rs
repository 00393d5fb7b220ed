//! Issue 31, "Past reads off the node's thread" and "cost follows what happens" (Spec note
//! 220): a past read replays the session log from the checkpoint at or below its height, and
//! walks the log back from the nearest checkpoint above the height (the log's tail when there
//! is none), not from the head: the work and the log sealed after that checkpoint cost a read
//! of an older height nothing. Every answer stays the one the node gave as the head, also when
//! the checkpoint above stands on an entry a replay does not stop at (a name).

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::node::{DeployActor, Mine, NodeCore};
use std::collections::BTreeMap;

mod common;

use common::history::{alice, busy_block, devnet, transfers, transfers_block};

/// Seals one block of `n` transfers; records the root it sealed at its height.
fn block(d: &mut NodeCore, n: usize, roots: &mut BTreeMap<u64, [u8; 32]>) {
    transfers_block(d, n);
    roots.insert(d.height(), d.chain().state_root().0);
}

fn checkpoints(d: &NodeCore) -> Vec<u64> {
    d.checkpoint_bytes().heights
}

#[test]
fn issue31_a_past_read_walks_the_log_up_to_the_next_checkpoint_not_up_to_the_head() {
    let mut d = devnet(10_000);
    let mut roots = BTreeMap::new();
    busy_block(&mut d);
    roots.insert(1, d.chain().state_root().0);
    // #2..#4: 4,501 units of work in all, the checkpoint at #4.
    for _ in 0..3 {
        block(&mut d, 1_500, &mut roots);
    }
    assert_eq!(checkpoints(&d), vec![0, 4]);
    let below = d.past_read_walk(1).unwrap();
    let above = d.past_read_walk(4).unwrap();
    assert!(
        (4_500..4_520).contains(&below),
        "#1 walks the links up to the checkpoint at #4 (its 4,501 transactions and seals): {below}"
    );
    // 6,000 more transactions above it, a checkpoint at #7, and a block after.
    for _ in 0..4 {
        block(&mut d, 1_500, &mut roots);
    }
    assert_eq!(checkpoints(&d), vec![0, 4, 7]);
    assert_eq!(
        d.past_read_walk(1).unwrap(),
        below,
        "what was sealed above the checkpoint at #4 is not walked by a read below it"
    );
    assert_eq!(
        above, 1,
        "a read at the newest checkpoint's height walks its one seal"
    );
    assert!(
        d.past_read_walk(5).unwrap() < 4_600,
        "#5 walks up to the checkpoint at #7 (#5..#7), not block #8 after it"
    );
    // Quiet heights, then a block whose last entry is a name (an actor deployed with one),
    // sealed as its work places a checkpoint: a replay does not stop at a name, so a read
    // below that checkpoint walks back from the log's tail instead, and answers the same.
    d.apply(Mine { blocks: 5 }).unwrap();
    block(&mut d, 1_500, &mut roots);
    transfers(&mut d, 1_500);
    d.apply(DeployActor {
        from: Some(alice()),
        code: ActorCode::rhai("walk", "fn handle_timer(payload) {}"),
        address: None,
        endowment: 0,
        name: Some("walk".into()),
    })
    .unwrap();
    d.apply(Mine { blocks: 1 }).unwrap();
    roots.insert(d.height(), d.chain().state_root().0);
    let named = d.height();
    assert_eq!(checkpoints(&d), vec![0, 4, 7, named]);
    busy_block(&mut d);
    roots.insert(d.height(), d.chain().state_root().0);
    assert!(
        d.past_read_walk(10).unwrap() > 3_000,
        "#10 walks back from the tail: the checkpoint at #{named} stands on a name"
    );
    // Every height answers the root it had as the head; the quiet ones their own height.
    for (h, root) in &roots {
        assert_eq!(&d.chain_at(*h).unwrap().state_root().0, root, "#{h}");
    }
    for h in 1..d.height() {
        assert_eq!(d.chain_at(h).unwrap().height(), h);
    }
}
