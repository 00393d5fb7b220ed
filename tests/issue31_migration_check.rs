//! Issue 31, "memory follows the work, never the time the devnet has run" (Spec note 227,
//! amending note 225): the tier migrations of a far backlog rewrite the timer pages and
//! commitment groups the newest checkpoint shared with the live chain, so it comes to hold
//! its own copy of them. Note 225 replaced such a checkpoint at the next placement or after a
//! request that jumped 256 quiet heights; a node sealing one height at a time (interval
//! mining, nothing else happening) kept it. Now the newest checkpoint's bytes are checked
//! once the timers migrated since the last placement or check reach an eighth of those
//! pending (1,024 at least), whatever the requests.

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::node::{Mine, NodeConfig, NodeCore};
use cowboy_devnet::vm::DevnetRuntime;

const ACTORS: usize = 8;
/// Timers in the queue's overflow tier: due in the epoch of heights 90,000..93,600 (the
/// default 3,600-height epochs, 24 of them ahead in the epoch tier), so they migrate into
/// the epoch tier during the epoch of heights 3,600..7,200, about one a height.
const TIMERS: u64 = 3_000;
const DUE: u64 = 90_000;
/// The first height of the migrating epoch.
const MIGRATING: u64 = 3_600;

/// The far backlog loaded, a checkpoint placed after it, then the heights up to the migrating
/// epoch jumped; returns the node and the loading's checkpoint.
fn loaded(budget: usize) -> (NodeCore, u64) {
    let mut cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    cfg.checkpoint_budget = budget;
    let (mut n, actors) = common::node_with_actors(cfg, ACTORS);
    common::schedule_in_blocks(&mut n, &actors, TIMERS, TIMERS / 8, |i| DUE + i);
    let loaded = n.height();
    while n.newest_checkpoint().is_none_or(|h| h <= loaded) {
        common::busy_block(&mut n, actors[0]);
    }
    let at = n.newest_checkpoint().unwrap();
    n.apply(Mine {
        blocks: MIGRATING - 1 - n.height(),
    })
    .expect("up to the migrating epoch");
    assert_eq!(n.newest_checkpoint(), Some(at));
    assert_eq!(
        n.chain().engine().queue().counts().overflow,
        TIMERS as usize
    );
    (n, at)
}

/// One height a request until the backlog left the overflow tier (as interval mining seals).
fn migrate(n: &mut NodeCore) {
    while n.chain().engine().queue().counts().overflow > 0 {
        n.apply(Mine { blocks: 1 }).expect("a height");
    }
}

#[test]
fn issue31_spec227_migrations_one_height_at_a_time_replace_a_newest_checkpoint_over_the_budget() {
    let (mut whole, at) = loaded(usize::MAX);
    migrate(&mut whole);
    assert!(whole.chain().migrated_total() >= TIMERS);
    let all = whole.checkpoint_bytes();
    // Without a budget the loading's checkpoint stays the newest, holding the migrations'
    // copies alone.
    assert_eq!(all.heights.last(), Some(&at), "{all:?}");
    let held = *all.held.last().unwrap();
    // A budget the migrations pass about a third of the way through.
    let budget = held / 3;
    let (mut thin, _) = loaded(budget);
    migrate(&mut thin);
    let kept = thin.checkpoint_bytes();
    // The loading's checkpoint went; the newest was placed during the migrations.
    assert!(!kept.heights.contains(&at), "{kept:?} against {all:?}");
    let newest = *kept.heights.last().unwrap();
    assert!(newest > MIGRATING && newest < thin.height(), "{kept:?}");
    // The same chain; the states from the new checkpoint on are the same.
    assert_eq!(thin.chain().head().hash, whole.chain().head().hash);
    for h in [newest, thin.height()] {
        let (a, b) = (thin.chain_at(h).unwrap(), whole.chain_at(h).unwrap());
        assert_eq!(a.state_root(), b.state_root(), "#{h}");
    }
}
