//! Issue 31, "Cost follows what happens, never the heights passed" (the long-jump item):
//!
//! * Spec note 214: a height where only epoch maintenance happened (timers migrated between
//!   tiers: no transaction, no event, nothing due) stores no body; it is the first height of
//!   a quiet run, and every read of it answers what a stored block answered (header, root,
//!   hash, `migrated`, lane, end-of-block counters, pending).
//! * Spec notes 209 and 213: a live node's chain holds no body below the kept window (`--history`);
//!   a height below it answers its header, the same as before.

use cowboy_devnet::chain::{Block, Chain, Genesis};
use cowboy_devnet::node::{BlockAnswer, Mine, NodeCore};

mod common;

use common::fleet;

const ACTORS: u64 = 4;

/// A sealed chain at height 1 with `timers` timers spread evenly over the next `span` heights.
fn chain(timers: u64, span: u64) -> (Chain, Genesis) {
    fleet::spread_chain(ACTORS, timers, span)
}

fn is_migration_only(b: &Block) -> bool {
    b.migrated > 0 && b.receipts.is_empty() && b.events.is_empty()
}

#[test]
fn spec_note_214_a_migration_only_height_stores_no_body_and_reads_the_same() {
    let span = 40_000;
    let (start, _) = chain(200, span);
    let mut reference = start.clone();
    reference.test_hook_no_quiet(true);
    let mut stepped = start.clone();
    let mut jumped = start.clone();
    for _ in 0..span {
        reference.seal_next();
        stepped.seal_next();
    }
    let mut left = span;
    while left > 0 {
        let n = jumped.jump_quiet(left);
        if n == 0 {
            jumped.seal_next();
            left -= 1;
        } else {
            left -= n;
        }
    }
    let mut migration_only = 0;
    for h in 2..=start.height() + span {
        let r = reference.block(h).expect("kept");
        migration_only += usize::from(is_migration_only(&r));
        for c in [&stepped, &jumped] {
            fleet::assert_same_block(&r, &c.block(h).expect("kept"), "a migration-only height");
        }
    }
    assert!(
        migration_only > 50,
        "the span has migration-only heights: {migration_only}"
    );
    for c in [&stepped, &jumped] {
        assert_eq!(c.head(), reference.head());
        assert_eq!(c.dump().expect("sealed"), reference.dump().expect("sealed"));
        assert!(
            c.blocks().all(|b| !is_migration_only(b)),
            "no migration-only body is stored"
        );
        assert_eq!(
            c.blocks().count(),
            reference.blocks().filter(|b| !b.events.is_empty()).count(),
            "one stored body per height where something a user sees happened"
        );
    }
}

fn node_with_history(c: &Chain, genesis: Genesis, history: usize) -> NodeCore {
    let mut cfg =
        cowboy_devnet::node::NodeConfig::new(genesis, cowboy_devnet::vm::DevnetRuntime::shared());
    cfg.mining = cowboy_devnet::node::MiningMode::Manual;
    cfg.dev_accounts = 0;
    cfg.history = history;
    cfg.keep_blocks = Some(history);
    let mut node = NodeCore::new(cfg).expect("node");
    node.apply(cowboy_devnet::node::LoadState(Box::new(
        c.dump().expect("sealed"),
    )))
    .expect("load");
    node
}

#[test]
fn spec_note_213_the_chain_holds_no_body_below_the_window_and_old_heights_answer_the_same_header() {
    let span = 40_000;
    let history = 2_000;
    let (start, genesis) = chain(400, span);
    let mut reference = start.clone();
    reference.test_hook_no_quiet(true);
    for _ in 0..span {
        reference.seal_next();
    }
    let mut node = node_with_history(&start, genesis, history);
    node.apply(Mine { blocks: span }).expect("mine");
    let first_kept = node.first_kept();
    assert_eq!(first_kept, node.chain().height() + 1 - history as u64);
    let bodies: Vec<u64> = node.chain().blocks().map(|b| b.header.height).collect();
    assert!(
        bodies.iter().all(|h| *h >= first_kept),
        "no body below #{first_kept}: {:?}",
        &bodies[..bodies.len().min(5)]
    );
    assert!(bodies.len() < history, "{} bodies", bodies.len());
    for h in 2..=node.chain().height() {
        let want = reference.block(h).expect("kept");
        match node.block_answer(h).expect("answers").expect("sealed") {
            BlockAnswer::Whole(b) => {
                assert!(h >= first_kept, "#{h} whole below the window");
                assert_eq!(b.header, want.header, "header at {h}");
                assert_eq!(b.migrated, want.migrated, "migrated at {h}");
            }
            BlockAnswer::HeaderOnly(p) => {
                assert!(h < first_kept, "#{h} header only inside the window");
                assert_eq!(p.header, want.header, "header at {h}");
            }
        }
    }
}
