//! Issue 31, "past reads off the node's thread" (the cold past-read mix) under "memory follows
//! the work" (Spec note 226, amending note 194): when the checkpoints hold more than their
//! budget, the ones let go are those whose neighbours are closest in the session log, so the
//! kept checkpoints stay spread over a busy stretch. Note 194 dropped every other one of the
//! older half: a long loading stretch thinned to its first checkpoint and a dense end, and a
//! state read in its middle replayed from the first. Answers do not change.

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::node::{NodeConfig, NodeCore};
use cowboy_devnet::vm::DevnetRuntime;

/// 450 timers each, under the 1,024 an actor may hold.
const ACTORS: usize = 16;
/// Timers scheduled, `PER_BLOCK` a block: a busy stretch of 96 blocks of the same work each.
const TIMERS: u64 = 7_200;
const PER_BLOCK: u64 = 75;

/// The busy stretch, the checkpoints' budget `budget`: timers due far ahead at heights spread
/// over 5,000, so each block writes all over the overflow commitment and every checkpoint
/// ends up holding its own copy of much of it.
fn run(budget: usize) -> NodeCore {
    let mut cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    cfg.checkpoint_budget = budget;
    let (mut n, actors) = common::node_with_actors(cfg, ACTORS);
    // A checkpoint every 1,000 units of work (about 7 blocks here), so the stretch has a
    // dozen of them.
    n.set_checkpoint_work(1_000);
    let due = n.height() + 20_000;
    common::schedule_in_blocks(&mut n, &actors, TIMERS, PER_BLOCK, |i| {
        due + (i * 2_654_435_761) % 5_000
    });
    n
}

#[test]
fn issue31_spec226_a_thinned_busy_stretch_keeps_its_checkpoints_spread() {
    let whole = run(usize::MAX);
    let all = whole.checkpoint_bytes();
    assert!(all.heights.len() >= 8, "{all:?}");
    // A budget that holds about half of them.
    let budget = all.total() / 2;
    let thin = run(budget);
    let kept = thin.checkpoint_bytes();
    assert!(kept.total() <= budget, "{kept:?}");
    assert!(kept.heights.len() >= 3, "{kept:?}");
    // Both ends stay.
    assert_eq!(kept.heights.first(), all.heights.first());
    assert_eq!(kept.heights.last(), all.heights.last());
    // Every block of the stretch holds the same work, so the session log's entries follow the
    // heights: no gap between kept checkpoints is more than twice the even share of the span
    // (under note 194 the first gap was most of it).
    let span = kept.heights.last().unwrap() - kept.heights[0];
    let even = span / (kept.heights.len() as u64 - 1);
    for w in kept.heights.windows(2) {
        assert!(
            w[1] - w[0] <= 2 * even,
            "gap #{}..#{} over twice {even}: {kept:?} of {all:?}",
            w[0],
            w[1]
        );
    }
    // The same chain, and the same state at every height as the node that kept them all.
    assert_eq!(thin.chain().head().hash, whole.chain().head().hash);
    let head = thin.height();
    for h in (thin.first_queryable()..=head).step_by(19) {
        let (a, b) = (thin.chain_at(h).unwrap(), whole.chain_at(h).unwrap());
        assert_eq!(a.head().hash, b.head().hash, "#{h}");
        assert_eq!(a.state_root(), b.state_root(), "#{h}");
    }
}
