//! Issue 29, "a policy ... its estimate": under `--scheduler cip1-v1` `timer_estimate` answers by
//! CIP-1 v1's own rules (`cip1-v1-calendar-queue-gba.md` §3 "Deliver Timers" d: the effective
//! tip, ties by the owner's weight then the timer id; §3 "Execute Prioritized Timers" d (ii): the
//! lane in per-actor slices), not by the CIP-1 v3 auction's priority × W and greedy fill. The
//! block that follows is the oracle: a timer the estimate selects fires there, one it does not
//! is carried, and its rank is its place in v1's order (Spec note 216).

mod common;

use common::*;
use cowboy_devnet::engine::scheduler::PRICE_SCALE;
use cowboy_devnet::engine::{Address, FeeArgs, ScheduleArgs, SchedulerKind};
use proptest::prelude::*;

const S: u128 = PRICE_SCALE;

fn owner(b: bool) -> Address {
    if b { actor_b() } else { actor_a() }
}

/// A timer at `height` with budget `gas` bidding `tip` hundredths of `S` (max fee 10 S).
fn args(height: u64, gas: u64, tip: u128) -> ScheduleArgs {
    ScheduleArgs {
        height,
        gas_limit: Some(gas),
        max_fee_per_cycle: Some(10 * S),
        max_priority_fee_per_cycle: Some(tip * S / 100),
        ..ScheduleArgs::default()
    }
}

fn fees(tip: u128) -> FeeArgs {
    FeeArgs {
        max_fee_per_cycle: Some(10 * S),
        max_priority_fee_per_cycle: Some(tip * S / 100),
        priority_tier: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// With every owner at weight 1.0, the estimate's selection and rank are the block's: the
    /// other timers bid even tips, the new one an odd tip, so no tie hides its place.
    #[test]
    fn cip1_v1_3_the_estimate_selects_and_ranks_as_the_block_does(
        others in prop::collection::vec(
            (any::<bool>(), prop_oneof![Just(250_000u64), Just(550_000)], 0..10u128), 0..12),
        new in (any::<bool>(), prop_oneof![Just(250_000u64), Just(550_000)], 0..10u128),
    ) {
        let mut c = v1_chain();
        let h = c.pending_height() + 1;
        for &(b, gas, tip) in &others {
            schedule(&mut c, owner(b), args(h, gas, 2 * tip));
        }
        let (b, gas, tip) = new;
        let est = c.estimate_auction(&owner(b), h, Some(gas), fees(2 * tip + 1));
        prop_assert_eq!(est.scheduler, SchedulerKind::Cip1V1);
        prop_assert_eq!(est.due_at_height, others.len() as u64);
        let ahead = others.iter().filter(|o| 2 * o.2 > 2 * tip + 1).count() as u64;
        prop_assert_eq!(est.rank, 1 + ahead);
        let id = schedule(&mut c, owner(b), args(h, gas, 2 * tip + 1));
        seal_until(&mut c, h);
        let block = c.seal_block().clone();
        prop_assert_eq!(fired(&block).contains(&id), est.would_be_selected,
            "estimate {:?}, fired {:?}", est, fired(&block));
    }
}

/// The owner's EMA weight breaks a tie of tips (§3 d): after actor a fired alone (weight
/// 0.9375), a new timer of a bidding the same tip as three of b's and three of a's ranks behind
/// all six (b's by weight, a's own by the tie given to the queued), the estimate says the
/// weight, and the block fires b's three before a's four.
#[test]
fn cip1_v1_3_the_estimate_ranks_a_tie_by_the_owners_weight() {
    let mut c = v1_chain();
    let h = c.pending_height() + 1;
    schedule(&mut c, actor_a(), args(h, 250_000, 1));
    seal_until(&mut c, h);
    c.seal_block();
    let at = h + 2;
    let mut of_b = Vec::new();
    for a in [actor_a(), actor_b()] {
        for _ in 0..3 {
            let id = schedule(&mut c, a, args(at, 250_000, 1));
            if a == actor_b() {
                of_b.push(id);
            }
        }
    }
    of_b.sort();
    let est = c.estimate_auction(&actor_a(), at, Some(250_000), fees(1));
    assert_eq!(est.weight_bps, 9_375, "a's weight after its lone fire");
    assert_eq!(est.effective_priority, S / 100, "v1 orders by the tip");
    assert_eq!(est.rank, 7);
    // Seven budgets of 250,000 fit the 2,000,000-cycle lane (the slices, then the room left).
    assert!(est.would_be_selected);
    let id = schedule(&mut c, actor_a(), args(at, 250_000, 1));
    seal_until(&mut c, at);
    let block = c.seal_block().clone();
    let order = fired(&block);
    assert_eq!(order.len(), 7);
    assert!(order.contains(&id));
    // b's three first (weight 1.0 against a's 0.9375), by id; the estimate's rank puts the new
    // timer after a's too, the conservative end of the tie it cannot know (its id).
    assert_eq!(order[..3], of_b[..]);
}
