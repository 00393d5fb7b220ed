//! Issue 31, "the dashboard asks for what it shows" under eip1559 (Spec note 217): a page of
//! the carried bucket in the auction's order is read at the cost of the page
//! (`engine::scheduler::policy::RankedBucket`), and its rows, positions and effective
//! priorities are exactly the cut of the whole ranking (`rank_preview`, the block's order),
//! over random buckets: plain and fee-capped timers, tiers, caps below the basefee, several
//! actors with their own W, the height's own timers beside the carried ones, and the variants
//! `tie_break` and `below_basefee` (where the page falls back to the whole ranking, that too).

mod common;

use common::fleet::{
    FLEET_RICH, bulk_timer, carried_bucket_genesis, fleet_actor, fleet_chain, node_from,
};
use cowboy_devnet::engine::scheduler::policy::{RankedBucket, rank_preview};
use cowboy_devnet::engine::{FeeCaps, PriorityTier, SchedulerKind, Timer, TimerId};
use cowboy_devnet::node::{BucketPageQuery, Mine, NodeCore};
use proptest::prelude::*;

const GAS: u64 = 10_000;

/// One timer's fee parameters (`kind` picks which).
fn fees(kind: u8, tip: u64) -> Option<Box<FeeCaps>> {
    let caps = |fee: u128, tip: u128| FeeCaps {
        max_fee_per_cycle: Some(fee),
        max_priority_fee_per_cycle: Some(tip),
        ..FeeCaps::default()
    };
    match kind % 6 {
        0 | 1 => None,
        2 => Some(caps(50_000_000_000, tip as u128 % 3_000_000_000)),
        3 => Some(FeeCaps {
            priority_tier: Some(PriorityTier::Fast),
            ..FeeCaps::default()
        }),
        4 => Some(caps(1, 1)),
        _ => Some(caps(50_000_000_000, (tip as u128 % 4) * 1_000_000_000)),
    }
    .map(Box::new)
}

/// A bucket carried behind a lane of four under `scheduler` with `variants`: `timers` (fee
/// kind, tip, actor, gas) due at 3 (fifo: CIP-1 v3 activated at 2), mined to 3 and then `more` blocks (the actors that fired
/// weigh less), with `own` more timers due at the next height.
fn node(
    scheduler: SchedulerKind,
    variants: &[&str],
    actors: u64,
    timers: &[(u8, u64, u64, u64)],
    more: u64,
    own: usize,
) -> NodeCore {
    let activation = (scheduler == SchedulerKind::Fifo).then_some(2);
    let genesis = carried_bucket_genesis(scheduler, activation, variants);
    let (mut c, genesis) = fleet_chain(genesis, actors, FLEET_RICH);
    c.seal_block();
    let mut node = node_from(&c, genesis);
    let timer = |k: usize, (kind, tip, a, gas): (u8, u64, u64, u64), height: u64| Timer {
        schedule_block: 1,
        gas_limit_per_fire: GAS / 4 + gas % (GAS * 3 / 4),
        fee_caps: fees(kind, tip),
        ..bulk_timer(k as u64, fleet_actor(actors, a), height)
    };
    let carried = timers.iter().enumerate().map(|(k, t)| timer(k, *t, 3));
    node.test_hook_insert_timers(carried).expect("fresh ids");
    node.apply(Mine {
        blocks: 3 - node.height() + more,
    })
    .expect("mine");
    let next = node.height() + 1;
    let mine = timers.iter().take(own).enumerate();
    let own = mine.map(|(k, t)| timer(timers.len() + k, *t, next));
    node.test_hook_insert_timers(own).expect("fresh ids");
    node
}

/// The whole ranking of the next bucket (the oracle): ids and effective priorities.
fn whole(node: &NodeCore) -> Vec<(TimerId, Option<u128>)> {
    let chain = node.chain();
    let q = chain.engine().queue();
    let timers = q.bucket(node.height() + 1);
    let (cfg, _) = node.config();
    rank_preview(
        &timers,
        chain.engine().policies(),
        &cfg,
        chain.lane_basefee(),
    )
    .into_iter()
    .map(|r| (timers[r.idx].timer_id, r.effective_priority))
    .collect()
}

/// Whether the page of the next bucket is read without the whole ranking.
fn paged(node: &NodeCore) -> bool {
    let chain = node.chain();
    RankedBucket::new(
        chain.engine().queue(),
        chain.engine().policies(),
        node.height() + 1,
        chain.lane_basefee(),
    )
    .is_some()
}

/// The page `offset..offset + limit` (around `timer` when given) equals the oracle's cut.
fn check_page(node: &NodeCore, oracle: &[(TimerId, Option<u128>)], q: BucketPageQuery) {
    let page = node.ask(&q).expect("page");
    assert_eq!(page.total, oracle.len() as u64, "total");
    assert!(page.ranked);
    let at = q
        .timer
        .and_then(|id| oracle.iter().position(|(t, _)| *t == id));
    assert_eq!(page.timer_position, at.map(|p| p as u64), "timer position");
    let want: Vec<(u64, TimerId, Option<u128>)> = oracle
        .iter()
        .enumerate()
        .skip(page.offset as usize)
        .take(q.limit as usize)
        .map(|(i, (id, eff))| (i as u64, *id, *eff))
        .collect();
    let got: Vec<(u64, TimerId, Option<u128>)> = page
        .timers
        .iter()
        .map(|e| (e.position, e.timer.timer_id, e.effective_priority))
        .collect();
    assert_eq!(got, want, "rows at offset {}", page.offset);
}

fn timers() -> impl Strategy<Value = Vec<(u8, u64, u64, u64)>> {
    prop::collection::vec((0u8..6, any::<u64>(), 0u64..6, any::<u64>()), 8..160)
}

const VARIANTS: [&[&str]; 4] = [
    &[],
    &["below_basefee=fire_without_tip"],
    &["tie_break=schedule_order"],
    &["fairness_median=mean"],
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Issue 31 item "the eip1559 page" (Spec note 217): every page, and the page around a
    /// timer, is the whole ranking's cut.
    #[test]
    fn issue31_ranked_pages_are_the_whole_rankings_cut(
        timers in timers(),
        actors in 1u64..6,
        more in 0u64..4,
        own in 0usize..6,
        variant in 0usize..VARIANTS.len(),
        v3 in any::<bool>(),
        pages in prop::collection::vec((0u64..200, 1u64..40, any::<prop::sample::Index>(), any::<bool>()), 4),
    ) {
        let kind = if v3 { SchedulerKind::Fifo } else { SchedulerKind::Eip1559 };
        let node = node(kind, VARIANTS[variant], actors, &timers, more, own);
        let oracle = whole(&node);
        // The fast page wherever the tie key is the id (the variant is the fallback's test).
        prop_assert_eq!(paged(&node), variant != 2, "paged");
        for (offset, limit, pick, with_timer) in pages {
            let timer = (with_timer && !oracle.is_empty()).then(|| oracle[pick.index(oracle.len())].0);
            check_page(&node, &oracle, BucketPageQuery {
                height: node.height() + 1,
                offset,
                limit,
                timer,
                follow_due: false,
            });
        }
    }
}

/// Issue 31 item "the eip1559 page": a bucket of 2,000 carried timers over 40 actors, paged
/// through whole 97 rows at a time and each timer's position asked, is the whole ranking.
#[test]
fn issue31_a_large_ranked_bucket_pages_through_as_the_whole_ranking() {
    let timers: Vec<(u8, u64, u64, u64)> = (0..2_000u64)
        .map(|k| ((k % 6) as u8, k.wrapping_mul(7_919), k % 40, k))
        .collect();
    let node = node(SchedulerKind::Eip1559, &[], 40, &timers, 3, 5);
    assert!(paged(&node));
    let oracle = whole(&node);
    assert!(oracle.len() > 1_900, "carried: {}", oracle.len());
    // Several effective priorities, timers below the basefee: levels, priced ones and the tail.
    let mut effs: Vec<Option<u128>> = oracle.iter().map(|(_, e)| *e).collect();
    effs.dedup();
    assert!(effs.len() > 10 && effs.contains(&None), "{effs:?}");
    let q = node.chain().engine().queue();
    let mut plain: Vec<u128> = oracle
        .iter()
        .filter(|(id, _)| q.get(id).is_some_and(|t| t.fee_caps.is_none()))
        .filter_map(|(_, e)| *e)
        .collect();
    plain.dedup();
    // The actors that fired weigh less: the plain timers stand on more than one level.
    assert!(plain.len() >= 2, "plain levels: {plain:?}");
    for offset in (0..oracle.len() as u64 + 97).step_by(97) {
        let timer = oracle.get(offset as usize / 2).map(|(id, _)| *id);
        let q = BucketPageQuery {
            height: node.height() + 1,
            offset,
            limit: 97,
            timer,
            follow_due: false,
        };
        check_page(&node, &oracle, q);
    }
}
