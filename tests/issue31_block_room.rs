//! Issue 31, "a long-running serve holds under 300 MB" (Spec note 202): a sealed block keeps
//! no growth room. The history keeps every block of its window (10,000 heights by default),
//! and a block of 10 receipts and 10 events held room for 16 of each. What is stored changes only in that room: every kept
//! block still answers what it hashed when it was sealed (its body hash), and a past read
//! replays the same blocks.

mod common;

use cowboy_devnet::chain::{Genesis, body_hash};
use cowboy_devnet::engine::EventKind;
use cowboy_devnet::node::{Mine, NodeConfig, NodeCore};
use cowboy_devnet::vm::DevnetRuntime;

const ACTORS: usize = 5;
/// Timers scheduled per loaded block (as `benches/scripts/serve_rss.py` does: ten a block).
const PER_BLOCK: u64 = 10;
const LOADED_BLOCKS: u64 = 30;

/// A manual-mining node: 5 actors, then 30 blocks of 10 timers each, all due at a few
/// heights (a backlog: the lane fires a few a block, the rest are carried with a first
/// deferral), then 40 blocks more.
fn served() -> NodeCore {
    let cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    let (mut n, actors) = common::node_with_actors(cfg, ACTORS);
    let due = n.height() + LOADED_BLOCKS + 3;
    let count = LOADED_BLOCKS * PER_BLOCK;
    common::schedule_in_blocks(&mut n, &actors, count, PER_BLOCK, |i| due + i % 3);
    n.apply(Mine { blocks: 40 }).expect("mine");
    n
}

#[test]
fn kept_blocks_hold_no_growth_room_spec_note_202() {
    let n = served();
    let (mut receipts, mut events, mut deferred) = (0, 0, 0);
    for h in 1..=n.height() {
        let Some(b) = n.block(h) else { continue };
        assert_eq!(b.receipts.capacity(), b.receipts.len(), "#{h} receipts");
        assert_eq!(b.events.capacity(), b.events.len(), "#{h} events");
        receipts += b.receipts.len();
        events += b.events.len();
        deferred += b
            .events
            .iter()
            .filter(|e| e.event.kind() == EventKind::TimerDeferred)
            .count();
    }
    // The scene is the one the note is about: loaded blocks and a carried backlog.
    assert!(
        receipts >= (LOADED_BLOCKS * PER_BLOCK) as usize,
        "{receipts}"
    );
    assert!(events > receipts, "{events}");
    assert!(deferred > 0, "no timer was carried");
}

#[test]
fn kept_blocks_answer_what_they_hashed_when_sealed_spec_note_202() {
    let n = served();
    let mut checked = 0;
    for h in 1..=n.height() {
        let Some(b) = n.block(h) else { continue };
        assert_eq!(
            body_hash(&b.receipts, &b.events),
            b.header.body_hash,
            "#{h}"
        );
        checked += 1;
    }
    assert!(checked > LOADED_BLOCKS as usize, "{checked}");
    // A past read replays the session: the replayed chain's head block is the kept one.
    for h in [n.height() / 2, n.height() - 1] {
        let past = n.chain_at(h).expect("a kept height");
        let replayed = past.block(h).expect("the replayed head block");
        let kept = n.block(h).expect("a kept block");
        assert_eq!(*replayed, *kept, "#{h}");
    }
}
