//! Issue 31, "memory is bounded by the work" and "past reads" (Spec note 198): the past
//! states a node keeps for reads at a past height are bounded by the bytes they hold alone,
//! not by a count of four: a reader that keeps asking a few dozen heights is answered from
//! kept states, and a budget too small for them drops the least recently read. Either way the
//! answers are those of a node that keeps none.

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::engine::{Address, ScheduleArgs};
use cowboy_devnet::node::{DEFAULT_PAST_BUDGET, DeployActor, NodeCore, ScheduleTimer, SetBalance};

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
