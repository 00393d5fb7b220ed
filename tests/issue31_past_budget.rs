//! Issue 31, "memory is bounded by the work" and "past reads" (Spec note 198): the past
//! states a node keeps for reads at a past height are bounded by the bytes they hold alone,
//! not by a count of four: a reader that keeps asking a few dozen heights is answered from
//! kept states, and a budget too small for them drops the least recently read. Either way the
//! answers are those of a node that keeps none.

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::engine::{Address, ScheduleArgs};
use cowboy_devnet::node::{
    At, DEFAULT_PAST_BUDGET, DeployActor, HeadQuery, NodeCore, ScheduleTimer, SetBalance,
};

/// A node whose 120 busy blocks each schedule a timer and change a balance, automine.
fn busy_node() -> (NodeCore, Address) {
    let mut n = common::fleet::node_on(Genesis::default());
    let from = n.dev_accounts()[1];
    let actor = n
        .apply(DeployActor {
            from: Some(from),
            code: ActorCode::rhai("a", "fn handle_timer(p) {}"),
            address: None,
            endowment: 1_000_000_000,
            name: None,
        })
        .unwrap()
        .address;
    for i in 0..120u64 {
        n.apply(ScheduleTimer {
            actor,
            args: ScheduleArgs {
                height: 10_000 + i,
                ..ScheduleArgs::default()
            },
            ..Default::default()
        })
        .unwrap();
        n.apply(SetBalance {
            address: Address([7; 20]),
            balance: u128::from(i) + 1,
        })
        .unwrap();
    }
    (n, from)
}

/// What a read at `h` answers: a balance that changes every block and the pending count.
fn read(n: &NodeCore, h: u64, from: &Address) -> (u128, u128, usize) {
    n.with_at(h, |p| {
        (
            p.balance(&Address([7; 20])),
            p.balance(from),
            p.chain().engine().pending(),
        )
    })
    .unwrap()
}

#[test]
fn issue31_past_states_are_kept_by_bytes_not_four_of_them() {
    let (n, from) = busy_node();
    let heights: Vec<u64> = (0..12).map(|i| 10 + i * 9).collect();
    let mut fresh = busy_node().0;
    fresh.set_past_cache(0);
    for &h in &heights {
        let want = read(&fresh, h, &from);
        assert_eq!(read(&n, h, &from), want, "#{h}");
        assert_eq!(read(&n, h, &from), want, "#{h} again, kept");
    }
    // All 12 kept (four were before): what they hold alone is within the default budget.
    assert_eq!(n.past_states_kept(), heights.len());
    let held = n.past_state_bytes();
    assert_eq!(held.len(), heights.len());
    let total: usize = held.iter().map(|(_, b)| b).sum();
    assert!(total <= DEFAULT_PAST_BUDGET, "{total} bytes held");
    assert!(
        held.iter().all(|(_, b)| *b > 0),
        "each holds its own pages: {held:?}"
    );
}

#[test]
fn issue31_a_small_past_budget_drops_the_least_recently_read() {
    let (mut n, from) = busy_node();
    let (fresh, _) = busy_node();
    n.set_past_budget(1);
    for h in [30, 60, 90] {
        assert_eq!(read(&n, h, &from), read(&fresh, h, &from), "#{h}");
    }
    // Asking #90 dropped #30 and #60 (built, over one byte): only the newest is kept.
    assert_eq!(n.past_states_kept(), 1);
    assert_eq!(n.past_state_bytes()[0].0, 90);
    // A dropped height is rebuilt on its next read, the same answer.
    assert_eq!(read(&n, 30, &from), read(&fresh, 30, &from));
    assert_eq!(
        n.past_state_bytes()
            .iter()
            .map(|(h, _)| *h)
            .collect::<Vec<_>>(),
        vec![30]
    );
}

/// Spec note 222: a kept state's bound, found once when it is built, is at least what it
/// holds alone (so a fit that finds the bounds within the budget may skip its walk), and it
/// counts something of its own.
#[test]
fn issue31_a_kept_states_bound_covers_what_it_holds_alone() {
    let (n, from) = busy_node();
    for h in (0..12).map(|i| 10 + i * 9) {
        read(&n, h, &from);
    }
    let held = n.past_state_bytes();
    let bounds = n.past_state_bounds();
    assert_eq!(held.len(), 12);
    assert_eq!(
        held.iter().map(|(h, _)| h).collect::<Vec<_>>(),
        bounds.iter().map(|(h, _)| h).collect::<Vec<_>>()
    );
    for ((h, alone), (_, bound)) in held.iter().zip(&bounds) {
        assert!(alone <= bound, "#{h}: holds {alone} alone, bound {bound}");
        assert!(*bound > 0, "#{h}");
    }
}

/// Spec note 222: the bounds only let a fit skip its walk; a budget at what the states' own
/// bounds add up to keeps them all, and a budget one byte under what they hold alone still
/// drops one (the walk runs), the answers the same either way.
#[test]
fn issue31_the_bounds_skip_the_walk_but_not_the_budget() {
    let heights: Vec<u64> = (0..12).map(|i| 10 + i * 9).collect();
    let (n, from) = busy_node();
    let (fresh, _) = busy_node();
    let mut want = Vec::new();
    for &h in &heights {
        want.push(read(&fresh, h, &from));
        read(&n, h, &from);
    }
    // The most recently read is never counted against the budget.
    let idle = |v: Vec<(u64, usize)>| -> usize { v[..v.len() - 1].iter().map(|(_, b)| b).sum() };
    let bounds = idle(n.past_state_bounds());
    let held = idle(n.past_state_bytes());
    assert!(held <= bounds);

    let (mut at_bounds, _) = busy_node();
    at_bounds.set_past_budget(bounds);
    let (mut under, _) = busy_node();
    under.set_past_budget(held - 1);
    for (&h, want) in heights.iter().zip(&want) {
        assert_eq!(&read(&at_bounds, h, &from), want, "#{h}");
        assert_eq!(&read(&under, h, &from), want, "#{h}");
    }
    assert_eq!(at_bounds.past_states_kept(), heights.len());
    assert!(under.past_states_kept() < heights.len());
    let kept = under.past_state_bytes();
    assert!(idle(kept) < held);
}

/// Spec note 222: reads of new heights on several threads at once skip the fits a newer one
/// will do, yet once they are all answered the kept states fit the budget (the last fit to
/// begin saw every state its read had left), and each answer is a fresh node's.
#[test]
fn issue31_concurrent_new_heights_still_fit_the_budget() {
    let (sizer, from) = busy_node();
    for h in [20, 50, 80] {
        read(&sizer, h, &from);
    }
    let largest = sizer
        .past_state_bounds()
        .iter()
        .map(|(_, b)| *b)
        .max()
        .unwrap();
    let budget = 3 * largest;
    let (mut n, _) = busy_node();
    n.set_past_budget(budget);
    let (fresh, _) = busy_node();
    let head_at = |h: u64| {
        let v = fresh.with_at(h, |p| p.ask(&HeadQuery)).unwrap().unwrap();
        (v.height, v.hash)
    };
    let want: Vec<_> = (0..32u64).map(|k| head_at(5 + k * 3)).collect();
    let live = cowboy_devnet::node::spawn(n);
    let readers: Vec<_> = (0..4u64)
        .map(|r| {
            let node = live.clone();
            std::thread::spawn(move || {
                (0..8u64)
                    .map(|k| {
                        let h = 5 + (k * 4 + r) * 3;
                        let v = node.ask_blocking(At::new(HeadQuery, Some(h))).unwrap();
                        (h, (v.height, v.hash))
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for r in readers {
        for (h, got) in r.join().expect("reader") {
            assert_eq!(got, want[((h - 5) / 3) as usize], "#{h}");
        }
    }
    let held = live.query_blocking(|c| c.past_state_bytes()).unwrap();
    let idle: usize = held[..held.len() - 1].iter().map(|(_, b)| b).sum();
    assert!(
        idle <= budget,
        "{idle} held over a budget of {budget}: {held:?}"
    );
    assert!(held.len() < 32);
    live.shutdown();
}
