//! Issue 31, "a long-running serve bounded by the work" (Spec note 194): the history's
//! checkpoints are bounded by the bytes they hold alone, not by their count. Past the budget
//! the older ones are thinned (the newest stay dense), and a past read across a thinned span
//! answers what a node that kept every checkpoint answers (it replays further).

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::engine::{Address, ScheduleArgs};
use cowboy_devnet::node::{Mine, NodeConfig, NodeCore, ScheduleTimer};
use cowboy_devnet::vm::DevnetRuntime;

const ACTORS: usize = 8;
/// Busy blocks mined: five checkpoints' worth (one per 256 busy blocks, Spec note 151).
const BLOCKS: u64 = 5 * 256 + 20;

/// A manual-mining node whose checkpoints may hold `budget` bytes, with its actors.
fn devnet(budget: usize) -> (NodeCore, Vec<Address>) {
    let mut cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    cfg.checkpoint_budget = budget;
    common::node_with_actors(cfg, ACTORS)
}

/// Each block schedules two timers: one far ahead (a growing backlog written all over the
/// queue's commitment) and one due a few blocks later (fires keep every block busy).
fn run(budget: usize) -> NodeCore {
    let (mut n, actors) = devnet(budget);
    for b in 0..BLOCKS {
        let h = n.height();
        for (k, due) in [(0, h + 5), (1, h + 50_000 + 7 * b)] {
            let args = ScheduleArgs {
                height: due,
                ..Default::default()
            };
            let actor = actors[(b as usize * 2 + k) % ACTORS];
            n.apply(ScheduleTimer {
                actor,
                args,
                ..Default::default()
            })
            .expect("schedule");
        }
        n.apply(Mine { blocks: 1 }).expect("mine");
    }
    n
}

#[test]
fn checkpoints_stay_under_their_budget_and_past_reads_answer_the_same() {
    let whole = run(usize::MAX);
    let all = whole.checkpoint_bytes();
    assert!(all.heights.len() >= 5, "{:?}", all.heights);
    assert!(all.held.iter().all(|b| *b > 0));
    // A budget of half what every checkpoint holds: thinning has to happen.
    let budget = all.total() / 2;
    let thin = run(budget);
    let kept = thin.checkpoint_bytes();
    assert!(
        kept.total() <= budget,
        "{} bytes held against a budget of {budget}",
        kept.total()
    );
    assert!(kept.heights.len() < all.heights.len());
    // The oldest (the window's first height replays from it) and the newest stay.
    assert_eq!(kept.heights.first(), all.heights.first());
    assert_eq!(kept.heights.last(), all.heights.last());
    assert!(kept.heights.iter().all(|h| all.heights.contains(h)));
    // Same chain, same answers at every height, across the thinned spans too.
    assert_eq!(thin.chain().head().hash, whole.chain().head().hash);
    let first = thin.first_queryable();
    assert_eq!(first, whole.first_queryable());
    // The window's first height, heights in the spans thinned and the head's block.
    let head = thin.height();
    for h in [first, first + 300, first + 600, head - 300, head] {
        let (a, b) = (thin.chain_at(h).unwrap(), whole.chain_at(h).unwrap());
        assert_eq!(a.head().hash, b.head().hash, "#{h}");
        assert_eq!(a.state_root(), b.state_root(), "#{h}");
        assert_eq!(a.engine().queue().len(), b.engine().queue().len(), "#{h}");
    }
}
