//! CIP-1 v3 scheduler math: the lane's EIP-1559 basefee (§5) against hand-computed vectors, the
//! fixed-point charges (§3 step 8), the p50 tip (§7.1), the fairness weight W and its window
//! (§8), and the sort and greedy fill of the lane (§3 steps 6–7, §10), with property tests.
//!
//! Prices are nanos per cycle (`PRICE_SCALE` = 10⁹ nanos per base unit). With the default
//! lane (capacity 2,000,000 cycles, target 50 % = 1,000,000, max step 1,250 bps = 1/8), the
//! `proportional` variant (Spec note 45): `step = floor(basefee × |used − target| / target /
//! 8)`; the default `clip` (§5 as written): `step = floor(basefee × min(|used − target| /
//! target, 1/8))`; both at least 1 nano for any deviation, never below the 8-nano floor.

use cowboy_devnet::engine::events::DeferReason;
use cowboy_devnet::engine::scheduler::fairness::FAIRNESS_WINDOW_BLOCKS;
use cowboy_devnet::engine::scheduler::{
    Candidate, Fairness, LaneParams, PRICE_SCALE, W_MAX_BPS, W_ONE_BPS, charge_ceil, charge_floor,
    effective_priority, next_lane_basefee, next_lane_basefee_proportional, p50_tip, select,
    select_naive,
};
use cowboy_devnet::engine::{Address, TimerId};
use proptest::prelude::*;
use std::collections::BTreeMap;

const CAP: u64 = 2_000_000;
const TARGET: u64 = 1_000_000;

/// The `proportional` variant's step (EIP-1559, Spec note 45), which the vectors below pin.
fn next(basefee: u128, used: u64) -> u128 {
    next_lane_basefee_proportional(basefee, used, CAP, &LaneParams::default())
}

/// The default `clip` step (CIP-1 v3 §5 as written).
fn clip(basefee: u128, used: u64) -> u128 {
    next_lane_basefee(basefee, used, CAP, &LaneParams::default())
}

#[test]
fn cip1_v3_5_clip_step_hand_computed_vectors() {
    // 75 %: (0.75 − 0.5) / 0.5 = 0.5, clipped to +0.125.
    assert_eq!(clip(1_000_000_000, 1_500_000), 1_125_000_000);
    assert_eq!(clip(1_000_000_000, 2_000_000), 1_125_000_000);
    assert_eq!(clip(1_000_000_000, 0), 875_000_000);
    assert_eq!(clip(1_000_000_000, 500_000), 875_000_000);
    assert_eq!(clip(1_000_000_000, 1_000_000), 1_000_000_000);
    // 56.25 %: exactly the clip's edge, +12.5 %.
    assert_eq!(clip(1_000_000_000, 1_125_000), 1_125_000_000);
    // 51 %: (0.51 − 0.5) / 0.5 = +2 %, not clipped.
    assert_eq!(clip(1_000_000_000, 1_020_000), 1_020_000_000);
    // 49.99995 %: −0.0001 % of 1,000 nanos floors to 0: the least step of 1 nano.
    assert_eq!(clip(1_000, 999_999), 999);
    assert_eq!(clip(8, 0), 8);
    assert_eq!(clip(7, CAP), 8);
}

/// go-ethereum's `CalcBaseFee` step as the issue describes it: `basefee × |used − target| /
/// target / 8`, floor-divided, with no least step. (go-ethereum itself adds `max(1, …)` on the
/// way up only, so its falls stick the same way.)
fn geth_floor(basefee: u128, used: u64) -> u128 {
    let (used, target) = (used as u128, TARGET as u128);
    if used >= target {
        basefee + basefee * (used - target) / target / 8
    } else {
        basefee - basefee * (target - used) / target / 8
    }
}

// ---------------------------------------------------------------- §5: lane basefee vectors

#[test]
fn cip1_v3_5_basefee_hand_computed_vectors() {
    // 1 base unit = 1,000,000,000 nanos; a full lane: |2,000,000 − 1,000,000| / 1,000,000 = 1,
    // step = 1,000,000,000 / 8 = 125,000,000 → 1,125,000,000.
    assert_eq!(next(1_000_000_000, 2_000_000), 1_125_000_000);
    // An empty lane: step 125,000,000 down → 875,000,000.
    assert_eq!(next(1_000_000_000, 0), 875_000_000);
    // At target: unchanged.
    assert_eq!(next(1_000_000_000, 1_000_000), 1_000_000_000);
    // 75 % full: deviation 500,000 / 1,000,000 = 1/2, step = 10⁹ / 2 / 8 = 62,500,000.
    assert_eq!(next(1_000_000_000, 1_500_000), 1_062_500_000);
    // 25 % full: step 62,500,000 down.
    assert_eq!(next(1_000_000_000, 500_000), 937_500_000);
    // 3 base units, 1,234,567 used: deviation 234,567;
    // step = 3,000,000,000 × 234,567 / 1,000,000 / 8 = 703,701,000,000,000 / 8,000,000
    //      = 87,962,625 exactly → 3,087,962,625.
    assert_eq!(next(3_000_000_000, 1_234_567), 3_087_962_625);
    // Floored step: 1,000,000,007 / 8 = 125,000,000.875 → 125,000,000.
    assert_eq!(next(1_000_000_007, 0), 875_000_007);
    assert_eq!(next(1_000_000_007, 2_000_000), 1_125_000_007);
    // 999,999 used: deviation 1; step = 10⁹ × 1 / 10⁶ / 8 = 125 exactly.
    assert_eq!(next(1_000_000_000, 999_999), 999_999_875);
    // 1,000 nanos, 1 cycle over target: step = 1,000 / 10⁶ / 8 = 0.000125 → 0 → least step 1.
    assert_eq!(next(1_000, 1_000_001), 1_001);
    assert_eq!(next(1_000, 999_999), 999);
    // Used beyond capacity is capped at capacity (utilisation ∈ [0, 1]).
    assert_eq!(next(1_000_000_000, 5_000_000), 1_125_000_000);
    // From the floor, a full lane: 8 + 8/8 = 9; 9 + floor(9/8) = 10; … 16 + 16/8 = 18;
    // 18 + floor(18/8) = 20.
    let mut f = 8;
    let mut seen = vec![f];
    for _ in 0..10 {
        f = next(f, CAP);
        seen.push(f);
    }
    assert_eq!(seen, vec![8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20]);
}

#[test]
fn cip1_v3_5_small_fees_do_not_stick_where_geth_floor_division_does() {
    // A fee of 7 under a full lane: floor(7 / 8) = 0, so a floor-divided step never raises it.
    assert_eq!(geth_floor(7, CAP), 7);
    // Ours: the least step of 1 nano lifts it to 8, then it keeps rising.
    assert_eq!(next(7, CAP), 8);
    assert_eq!(next(8, CAP), 9);
    // A fee of 8 under an empty lane: floor(8/8) = 1 → 7, then 7 sticks for ever.
    assert_eq!(geth_floor(8, 0), 7);
    assert_eq!(geth_floor(7, 0), 7);
    // Ours: 9 falls to the 8-nano floor and stays there (never 0, never below 8).
    assert_eq!(next(9, 0), 8);
    assert_eq!(next(8, 0), 8);
    // A fee of 0 (below the floor) never rises under floor division; ours goes to the floor.
    assert_eq!(geth_floor(0, CAP), 0);
    assert_eq!(next(0, CAP), 8);
    // A small deviation on a larger fee: 100 × 1 / 10⁶ / 8 = 0, so 1 cycle under target never
    // moves it under floor division; ours falls by 1 nano a block.
    assert_eq!(geth_floor(100, TARGET - 1), 100);
    assert_eq!(next(100, TARGET - 1), 99);
    assert_eq!(next(99, TARGET - 1), 98);
}

#[test]
fn cip1_v3_5_basefee_rises_under_a_full_lane_from_the_floor_and_returns_to_it() {
    let mut f = 8;
    for _ in 0..200 {
        f = next(f, CAP);
    }
    assert!(f > 1_000_000_000, "rises geometrically: {f}");
    for _ in 0..400 {
        f = next(f, 0);
    }
    assert_eq!(f, 8);
}

// ---------------------------------------------------------------- §3 step 8, §7.1

#[test]
fn cip1_v3_3_8_charges_round_up_for_the_payer_and_down_for_the_tip() {
    // 250,000 cycles at 1,125,000,001 nanos: 281,250,000,250,000 / 10⁹ = 281,250.00025.
    assert_eq!(charge_ceil(250_000, 1_125_000_001), 281_251);
    assert_eq!(charge_floor(250_000, 1_125_000_001), 281_250);
    // Exact: 1,000 cycles at 2 base units = 2,000.
    assert_eq!(charge_ceil(1_000, 2 * PRICE_SCALE), 2_000);
    assert_eq!(charge_floor(1_000, 2 * PRICE_SCALE), 2_000);
    // 3 cycles at 1 nano: 3 × 10⁻⁹ → 1 charged, 0 tipped.
    assert_eq!(charge_ceil(3, 1), 1);
    assert_eq!(charge_floor(3, 1), 0);
    assert_eq!(charge_ceil(0, u128::MAX), 0);
    // u64::MAX cycles at u128::MAX nanos: the exact quotient exceeds u128 → saturates.
    assert_eq!(charge_ceil(u64::MAX, u128::MAX), u128::MAX);
}

#[test]
fn cip1_v3_7_1_p50_tip_is_the_lower_median_and_0_when_none_fired() {
    assert_eq!(p50_tip(&mut []), 0);
    assert_eq!(p50_tip(&mut [42]), 42);
    // Even count: sorted [1, 3, 8, 20], index (4 − 1) / 2 = 1 → 3 (not (3 + 8) / 2).
    assert_eq!(p50_tip(&mut [20, 3, 1, 8]), 3);
    // Odd count: sorted [0, 0, 5, 7, 9] → 5.
    assert_eq!(p50_tip(&mut [9, 0, 7, 5, 0]), 5);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn cip1_v3_5_basefee_step_stays_within_12_5_percent(
        basefee in prop_oneof![8u128..10_000, 8u128..1u128 << 80],
        used in 0u64..3_000_000,
    ) {
        let n = next(basefee, used);
        let diff = n.abs_diff(basefee);
        prop_assert!(diff * 8 <= basefee, "{basefee} → {n}");
        let c = clip(basefee, used);
        prop_assert!(c.abs_diff(basefee) * 8 <= basefee, "clip {basefee} → {c}");
        // The clip never moves less than the proportional step.
        prop_assert!(c.abs_diff(basefee) >= diff || c == 8, "clip {basefee} → {c}, {n}");
        // The direction follows the utilisation (or the floor holds it).
        if used > TARGET {
            prop_assert!(n > basefee);
        } else if used < TARGET {
            prop_assert!(n < basefee || n == 8);
        } else {
            prop_assert_eq!(n, basefee);
        }
    }

    #[test]
    fn cip1_v3_5_basefee_never_below_the_floor_never_0(
        start in 0u128..1_000_000,
        uses in proptest::collection::vec(0u64..2_000_001, 1..200),
    ) {
        let mut f = start;
        for u in uses {
            f = next(f, u);
            prop_assert!(f >= 8);
        }
    }

    #[test]
    fn cip1_v3_5_basefee_matches_the_exact_rational_step_floored(
        basefee in 8u128..1u128 << 60,
        used in 0u64..2_000_001,
    ) {
        // basefee × dev × 1,250 / (target × 10,000), dev ≤ target, floored, least 1.
        let dev = (used as i128 - TARGET as i128).unsigned_abs();
        let step = if dev == 0 { 0 } else { (basefee * dev * 1_250 / (TARGET as u128 * 10_000)).max(1) };
        let want = if used as u128 >= TARGET as u128 { basefee + step } else { (basefee - step).max(8) };
        prop_assert_eq!(next(basefee, used), want);
    }
}

// ---------------------------------------------------------------- §8: fairness W

fn addr(n: u64) -> Address {
    Address::from_low_u64(n + 0x100)
}

fn counts(xs: &[(u64, u32)]) -> BTreeMap<Address, u32> {
    xs.iter().map(|&(a, n)| (addr(a), n)).collect()
}

#[test]
fn cip1_v3_8_weight_is_2_without_fires_1_at_or_above_the_median_linear_between() {
    let mut f = Fairness::new(FAIRNESS_WINDOW_BLOCKS);
    // Nothing in the window: median 0, every actor W = 2.
    assert_eq!(f.median(), 0);
    assert_eq!(f.weight_bps(&addr(1)), W_MAX_BPS);
    // Counts 1, 2, 3, 4, 4 → median 3.
    f.record_block(
        1,
        &counts(&[(1, 1), (2, 2), (3, 3), (4, 4), (5, 4)]),
        &BTreeMap::new(),
    );
    assert_eq!(f.median(), 3);
    assert_eq!(f.weight_bps(&addr(99)), 20_000); // ratio 0
    // ratio 1/3 = 3,333.33 bps, floored to 3,333 → W = 16,667 (rounded up).
    assert_eq!(f.weight_bps(&addr(1)), 16_667);
    // ratio 2/3 = 6,666.67 → 6,666 → W = 13,334.
    assert_eq!(f.weight_bps(&addr(2)), 13_334);
    assert_eq!(f.weight_bps(&addr(3)), W_ONE_BPS); // at the median
    assert_eq!(f.weight_bps(&addr(4)), W_ONE_BPS); // above it
}

#[test]
fn cip1_v3_8_median_of_an_even_count_is_the_lower_one() {
    let mut f = Fairness::new(10);
    // Counts 1, 2, 6, 9: lower median 2 (not 4).
    f.record_block(
        1,
        &counts(&[(1, 1), (2, 2), (3, 6), (4, 9)]),
        &BTreeMap::new(),
    );
    assert_eq!(f.median(), 2);
    assert_eq!(f.weight_bps(&addr(1)), 15_000);
    // An actor with only deferrals is listed but does not count toward the median.
    f.record_block(2, &BTreeMap::new(), &counts(&[(7, 3)]));
    assert_eq!(f.median(), 2);
    let row = f.rows().into_iter().find(|r| r.actor == addr(7)).unwrap();
    assert_eq!(
        (row.recent_fires, row.recent_deferrals, row.weight_bps),
        (0, 3, 20_000)
    );
}

#[test]
fn cip1_v3_8_window_rolls_exactly() {
    let w = 1_000;
    let mut f = Fairness::new(w);
    f.record_block(500, &counts(&[(1, 3)]), &BTreeMap::new());
    // A fire at height h counts through h + window − 1 ...
    f.skip_to(500 + w - 1);
    assert_eq!(f.recent_fires(&addr(1)), 3);
    assert_eq!(f.weight_bps(&addr(1)), W_ONE_BPS);
    // ... and not after.
    f.skip_to(500 + w);
    assert_eq!(f.recent_fires(&addr(1)), 0);
    assert_eq!(f.weight_bps(&addr(1)), W_MAX_BPS);
    // record_block rolls the same way.
    let mut g = Fairness::new(w);
    g.record_block(500, &counts(&[(1, 3)]), &BTreeMap::new());
    g.record_block(500 + w - 1, &counts(&[(2, 1)]), &BTreeMap::new());
    assert_eq!(g.recent_fires(&addr(1)), 3);
    g.record_block(500 + w, &counts(&[(2, 1)]), &BTreeMap::new());
    assert_eq!(g.recent_fires(&addr(1)), 0);
    assert_eq!(g.recent_fires(&addr(2)), 2);
}

#[test]
fn cip1_v3_8_actors_silent_for_the_whole_window_are_pruned() {
    let mut f = Fairness::new(100);
    f.record_block(1, &counts(&[(1, 1), (2, 1)]), &counts(&[(3, 1)]));
    f.record_block(60, &counts(&[(2, 1)]), &BTreeMap::new());
    assert_eq!(f.rows().len(), 3);
    f.skip_to(101); // height 1 leaves: actors 1 and 3 are silent for the whole window
    let rows: Vec<Address> = f.rows().iter().map(|r| r.actor).collect();
    assert_eq!(rows, vec![addr(2)]);
    assert_eq!(f.median(), 1);
    f.skip_to(160);
    assert!(f.rows().is_empty());
    assert!(f.is_idle());
    assert_eq!(f, Fairness::new(100));
}

/// A recorded block: height, fires and deferrals per actor.
type Recorded = (u64, BTreeMap<Address, u32>, BTreeMap<Address, u32>);
/// One generated block: the gap from the previous height, fires and deferrals per actor.
type Generated = (u64, Vec<(u64, u32)>, Vec<(u64, u32)>);

/// The naive model: every block kept, totals recomputed by scanning the window.
fn model(blocks: &[Recorded], at: u64, window: u64) -> (BTreeMap<Address, (u64, u64)>, u64) {
    let mut tot: BTreeMap<Address, (u64, u64)> = BTreeMap::new();
    for (h, fires, defs) in blocks {
        if *h + window > at {
            for (a, n) in fires {
                tot.entry(*a).or_default().0 += *n as u64;
            }
            for (a, n) in defs {
                tot.entry(*a).or_default().1 += *n as u64;
            }
        }
    }
    tot.retain(|_, t| t.0 > 0 || t.1 > 0);
    let mut fired: Vec<u64> = tot.values().map(|t| t.0).filter(|n| *n > 0).collect();
    fired.sort_unstable();
    let median = if fired.is_empty() {
        0
    } else {
        fired[(fired.len() - 1) / 2]
    };
    (tot, median)
}

fn block_strategy() -> impl Strategy<Value = Generated> {
    (
        1u64..6,
        proptest::collection::vec((0u64..12, 0u32..5), 0..6),
        proptest::collection::vec((0u64..12, 0u32..3), 0..3),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn cip1_v3_8_weight_stays_within_1_and_2_and_window_matches_a_model(
        window in 1u64..12,
        steps in proptest::collection::vec(block_strategy(), 1..40),
    ) {
        let mut f = Fairness::new(window);
        let mut kept = Vec::new();
        let mut h = 0;
        for (gap, fires, defs) in steps {
            h += gap;
            let fires = counts(&fires.iter().map(|&(a, n)| (a, n)).collect::<Vec<_>>());
            let defs = counts(&defs.iter().map(|&(a, n)| (a, n)).collect::<Vec<_>>());
            if gap % 2 == 0 {
                f.skip_to(h - 1);
            }
            f.record_block(h, &fires, &defs);
            kept.push((h, fires, defs));
            let (tot, median) = model(&kept, h, window);
            prop_assert_eq!(f.median(), median);
            let rows = f.rows();
            prop_assert_eq!(rows.len(), tot.len());
            for r in &rows {
                let t = tot[&r.actor];
                prop_assert_eq!((r.recent_fires, r.recent_deferrals), t);
                prop_assert!((W_ONE_BPS..=W_MAX_BPS).contains(&r.weight_bps));
                prop_assert_eq!(r.weight_bps, f.weight_bps(&r.actor));
                let m = median.max(1);
                let want = if t.0 >= m { 10_000 } else { 20_000 - (t.0 * 10_000 / m) as u32 };
                prop_assert_eq!(r.weight_bps, want);
            }
            for a in 0..12 {
                prop_assert!((W_ONE_BPS..=W_MAX_BPS).contains(&f.weight_bps(&addr(a))));
            }
        }
        // A dump round trip rebuilds the same state.
        let json = serde_json::to_string(&f).unwrap();
        let back: Fairness = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &f);
        // Skipping a whole window empties it.
        f.skip_to(h + window);
        prop_assert!(f.is_idle());
        prop_assert!(f.rows().is_empty());
    }
}

/// Issue 31 (the fairness update by dense slot), Spec note 200: a slot kept from before its
/// actor left the window, now another actor's, is not taken for it: both are counted as by
/// address.
#[test]
fn issue31_a_stale_slot_names_no_other_actor() {
    use cowboy_devnet::engine::scheduler::Tally;
    let mut f = Fairness::new(2);
    f.record_block(1, &counts(&[(1, 2)]), &BTreeMap::new());
    let stale = f.slot_of(&addr(1));
    assert!(stale.is_some());
    // Actor 1 leaves the window at height 3; actor 2 enters next and takes the freed slot.
    f.skip_to(3);
    f.record_block(4, &counts(&[(2, 5)]), &BTreeMap::new());
    assert_eq!(f.slot_of(&addr(1)), None);
    assert_eq!(f.slot_of(&addr(2)), stale);
    // Actor 1 fires again, handed over with its old slot (now actor 2's).
    let fires: BTreeMap<Address, Tally> = [(
        addr(1),
        Tally {
            count: 1,
            slot: stale,
        },
    )]
    .into();
    f.record_block_tallied(5, &fires, &BTreeMap::new());
    assert_eq!(f.recent_fires(&addr(1)), 1);
    assert_eq!(f.recent_fires(&addr(2)), 5);
    assert_eq!(f.actor_count(), 2);
    let mut g = Fairness::new(2);
    g.record_block(1, &counts(&[(1, 2)]), &BTreeMap::new());
    g.record_block(4, &counts(&[(2, 5)]), &BTreeMap::new());
    g.record_block(5, &counts(&[(1, 1)]), &BTreeMap::new());
    assert_eq!(f, g);
    assert_eq!(f.rows(), g.rows());
    assert_eq!(f.median(), g.median());
}

/// How a generated fire names its actor's slot: as the plan found it, a wrong slot, or none.
fn hint_strategy() -> impl Strategy<Value = (u8, u32)> {
    (0u8..3, 0u32..16)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Issue 31 (the fairness update by dense slot) and CIP-1 v3 §8: fires and deferrals handed
    /// over with the actor's slot (found before the block, as the `eip1559` plan finds it with W), with a
    /// wrong slot, or with none, give the same window as counts by address and as the naive
    /// model: the same W in [1, 2] for every actor, the same median (both rules), the same
    /// rows and the same committed state.
    #[test]
    fn issue31_fires_named_by_slot_keep_w_and_the_median_of_the_model(
        window in 1u64..12,
        steps in proptest::collection::vec(
            (block_strategy(), proptest::collection::vec(hint_strategy(), 6)),
            1..40,
        ),
    ) {
        use cowboy_devnet::engine::scheduler::Tally;
        use cowboy_devnet::engine::scheduler::variants::FairnessMedian;
        let mut by_slot = Fairness::new(window);
        let mut by_addr = Fairness::new(window);
        let mut kept = Vec::new();
        let mut seen = Vec::new();
        let mut h = 0;
        for ((gap, fires, defs), hints) in steps {
            h += gap;
            let fires = counts(&fires);
            let defs = counts(&defs);
            // A wrong slot: one seen before, now another actor's, free, or still this one's.
            let wrong = |n: u32| (!seen.is_empty()).then(|| seen[n as usize % seen.len()]);
            let tally = |m: &BTreeMap<Address, u32>, skip: usize| -> BTreeMap<Address, Tally> {
                m.iter()
                    .zip(hints.iter().cycle().skip(skip))
                    .map(|((a, &count), &(how, n))| {
                        let slot = match how {
                            0 => by_slot.slot_of(a),
                            1 => wrong(n),
                            _ => None,
                        };
                        (*a, Tally { count, slot })
                    })
                    .collect()
            };
            let tallies = tally(&fires, 0);
            let def_tallies = tally(&defs, 3);
            if gap % 2 == 0 {
                by_slot.skip_to(h - 1);
                by_addr.skip_to(h - 1);
            }
            by_slot.record_block_tallied(h, &tallies, &def_tallies);
            by_addr.record_block(h, &fires, &defs);
            kept.push((h, fires, defs));
            seen.extend((0..12).filter_map(|a| by_slot.slot_of(&addr(a))));
            let (tot, median) = model(&kept, h, window);
            prop_assert_eq!(by_slot.median(), median);
            prop_assert_eq!(&by_slot, &by_addr);
            prop_assert_eq!(by_slot.rows(), by_addr.rows());
            prop_assert_eq!(
                by_slot.median_by(FairnessMedian::Mean),
                by_addr.median_by(FairnessMedian::Mean)
            );
            prop_assert_eq!(by_slot.actor_count(), tot.len());
            for a in 0..12 {
                let a = addr(a);
                let w = by_slot.weight_bps(&a);
                prop_assert!((W_ONE_BPS..=W_MAX_BPS).contains(&w));
                prop_assert_eq!(w, by_addr.weight_bps(&a));
                let t = tot.get(&a).copied().unwrap_or((0, 0));
                prop_assert_eq!(by_slot.recent_fires(&a), t.0);
                prop_assert_eq!(by_slot.recent_deferrals(&a), t.1);
                prop_assert_eq!(
                    by_slot.weight_and_slot_by(&a, FairnessMedian::Lower),
                    (w, by_slot.slot_of(&a))
                );
            }
        }
        // What is stored is the same, and loads back to the same window.
        prop_assert_eq!(
            serde_json::to_string(&by_slot).unwrap(),
            serde_json::to_string(&by_addr).unwrap()
        );
        let back: Fairness = serde_json::from_str(&serde_json::to_string(&by_slot).unwrap()).unwrap();
        prop_assert_eq!(back.rows(), by_slot.rows());
    }
}

// ---------------------------------------------------------------- §3 steps 6–7, §10: select

fn tid(n: u64) -> TimerId {
    let mut t = [0u8; 32];
    t[..8].copy_from_slice(&n.to_be_bytes());
    TimerId(t)
}

fn cand(id: u64, budget: u64, prio: u128, w: u32) -> Candidate {
    Candidate {
        timer_id: tid(id),
        schedule_block: 7,
        budget,
        priority_per_cycle: prio,
        weight_bps: w,
    }
}

const AUCTION_CAP: u64 = 250_000;

#[test]
fn cip1_v3_3_6_effective_priority_is_priority_times_w() {
    assert_eq!(effective_priority(&cand(1, 1, 1_000, 15_000)), 15_000_000);
    assert_eq!(
        effective_priority(&cand(1, 1, u128::MAX, 20_000)),
        u128::MAX
    );
}

#[test]
fn cip1_v3_10_over_cap_timers_are_deferred_without_taking_lane_room() {
    let cands = vec![
        cand(1, 250_001, 1_000, 20_000), // the highest priority, over the cap
        cand(2, 200_000, 10, 10_000),
        cand(3, 100_000, 5, 10_000),
    ];
    let s = select(&cands, 300_000, AUCTION_CAP);
    assert_eq!(s.selected, vec![1, 2]);
    assert_eq!(s.deferred, vec![(0, DeferReason::OverCap)]);
    // Exactly at the cap is allowed.
    let s = select(&[cand(1, 250_000, 1, 10_000)], 2_000_000, AUCTION_CAP);
    assert_eq!(s.selected, vec![0]);
}

#[test]
fn cip1_v3_3_7_greedy_fill_lets_a_smaller_timer_pass_a_larger_one_that_does_not_fit() {
    let cands = vec![
        cand(1, 150_000, 30, 10_000), // fits: 50,000 left
        cand(2, 100_000, 20, 10_000), // does not fit, outbid by timer 1
        cand(3, 40_000, 10, 10_000),  // fits behind it: 10,000 left
        cand(4, 20_000, 10, 10_000),  // does not fit
    ];
    let s = select(&cands, 200_000, AUCTION_CAP);
    assert_eq!(s.selected, vec![0, 2]);
    assert_eq!(
        s.deferred,
        vec![(1, DeferReason::Outbid), (3, DeferReason::Outbid)]
    );
}

#[test]
fn cip1_v3_3_7_ties_break_by_timer_id_and_equal_priority_losers_are_lane() {
    // Equal effective priority (10 × 20,000 = 20 × 10,000): timer id 5 before id 9.
    let cands = vec![cand(9, 60_000, 10, 20_000), cand(5, 60_000, 20, 10_000)];
    let s = select(&cands, 100_000, AUCTION_CAP);
    assert_eq!(s.selected, vec![1]);
    // Not outbid: the selected timer's effective priority is equal, not higher.
    assert_eq!(s.deferred, vec![(0, DeferReason::Lane)]);
    // W decides over the raw tip: 10 × 20,000 > 15 × 10,000.
    let cands = vec![cand(1, 60_000, 15, 10_000), cand(2, 60_000, 10, 20_000)];
    let s = select(&cands, 100_000, AUCTION_CAP);
    assert_eq!(s.selected, vec![1]);
    assert_eq!(s.deferred, vec![(0, DeferReason::Outbid)]);
}

#[test]
fn cip1_v3_3_7_many_small_timers_widen_the_chunk_and_match_the_naive_fill() {
    // 5,000 timers of 1,000 cycles: the lane takes 2,000 of them, far beyond one chunk.
    let cands: Vec<Candidate> = (0..5_000)
        .map(|i| {
            cand(
                i,
                1_000,
                (i * 7919 % 997) as u128,
                10_000 + (i % 3) as u32 * 5_000,
            )
        })
        .collect();
    let s = select(&cands, 2_000_000, AUCTION_CAP);
    assert_eq!(s.selected.len(), 2_000);
    assert_eq!(s, select_naive(&cands, 2_000_000, AUCTION_CAP));
}

fn cand_strategy() -> impl Strategy<Value = Candidate> {
    (
        0u64..1_000_000,
        prop_oneof![1u64..300_000, 1u64..5_000, Just(0u64)],
        prop_oneof![0u128..20, 0u128..1_000_000_000_000],
        W_ONE_BPS..=W_MAX_BPS,
        0u64..4,
    )
        .prop_map(|(id, budget, prio, w, sb)| Candidate {
            timer_id: tid(id),
            schedule_block: sb,
            budget,
            priority_per_cycle: prio,
            weight_bps: w,
        })
}

/// Candidates with unique ids (as in a block).
fn cands_strategy(max: usize) -> impl Strategy<Value = Vec<Candidate>> {
    proptest::collection::vec(cand_strategy(), 0..max).prop_map(|mut v| {
        let mut seen = std::collections::BTreeSet::new();
        v.retain(|c| seen.insert(c.timer_id));
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn cip1_v3_3_7_selected_set_never_exceeds_the_lane(
        cands in cands_strategy(600),
        lane in 0u64..3_000_000,
    ) {
        let s = select(&cands, lane, AUCTION_CAP);
        let used: u64 = s.selected.iter().map(|&i| cands[i].budget).sum();
        prop_assert!(used <= lane);
        // Every candidate is either selected or deferred, once.
        let mut all: Vec<usize> = s.selected.iter().copied().chain(s.deferred.iter().map(|d| d.0)).collect();
        all.sort_unstable();
        prop_assert_eq!(all, (0..cands.len()).collect::<Vec<_>>());
        for (i, r) in &s.deferred {
            let c = &cands[*i];
            if c.budget > AUCTION_CAP {
                prop_assert_eq!(*r, DeferReason::OverCap);
            } else {
                prop_assert!(matches!(r, DeferReason::Lane | DeferReason::Outbid));
            }
        }
        for &i in &s.selected {
            prop_assert!(cands[i].budget <= AUCTION_CAP);
        }
    }

    #[test]
    fn cip1_v3_3_7_select_equals_select_naive(
        cands in cands_strategy(1_500),
        lane in prop_oneof![0u64..3_000_000, 0u64..50_000],
        cap in prop_oneof![Just(AUCTION_CAP), 0u64..300_000],
    ) {
        prop_assert_eq!(select(&cands, lane, cap), select_naive(&cands, lane, cap));
    }

    #[test]
    fn cip1_v3_3_7_selection_is_the_same_for_any_permutation(
        (cands, perm) in cands_strategy(400).prop_flat_map(|v| {
            let n = v.len();
            (Just(v), Just((0..n).collect::<Vec<usize>>()).prop_shuffle())
        }),
        lane in 0u64..2_000_000,
    ) {
        let shuffled: Vec<Candidate> = perm.iter().map(|&i| cands[i].clone()).collect();
        let a = select(&cands, lane, AUCTION_CAP);
        let b = select(&shuffled, lane, AUCTION_CAP);
        let ids_a: Vec<TimerId> = a.selected.iter().map(|&i| cands[i].timer_id).collect();
        let ids_b: Vec<TimerId> = b.selected.iter().map(|&i| shuffled[i].timer_id).collect();
        prop_assert_eq!(ids_a, ids_b);
        let mut def_a: Vec<(TimerId, DeferReason)> = a.deferred.iter().map(|&(i, r)| (cands[i].timer_id, r)).collect();
        let mut def_b: Vec<(TimerId, DeferReason)> = b.deferred.iter().map(|&(i, r)| (shuffled[i].timer_id, r)).collect();
        def_a.sort_by_key(|d| d.0);
        def_b.sort_by_key(|d| d.0);
        prop_assert_eq!(def_a, def_b);
    }

    #[test]
    fn cip1_v3_3_7_execution_order_follows_effective_priority_then_timer_id(
        cands in cands_strategy(300),
        lane in 0u64..3_000_000,
    ) {
        let s = select(&cands, lane, AUCTION_CAP);
        for w in s.selected.windows(2) {
            let (x, y) = (&cands[w[0]], &cands[w[1]]);
            let (ex, ey) = (effective_priority(x), effective_priority(y));
            prop_assert!(ex > ey || (ex == ey && x.timer_id < y.timer_id));
        }
    }
}
