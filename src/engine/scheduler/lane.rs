//! The timer lane's EIP-1559 price (CIP-1 v3 §5) and the fixed-point charges of §3 step 8.
//!
//! Every price in the lane is an integer number of **nanos per cycle**: [`PRICE_SCALE`] nanos are
//! one base unit, as wei are to ether. The lane basefee, `max_fee_per_cycle`,
//! `max_priority_fee_per_cycle`, effective priorities and the p50 tip all use this unit; the
//! CIP-3 cycle and cell basefees stay in base units. The fine unit keeps the ±12.5 % step exact
//! down to small fees and lets a fee of a few base units move at all.

use super::variants::{BasefeeStep, P50Even};
use serde::{Deserialize, Serialize};

/// Nanos per base unit: lane prices are integers in base units / `PRICE_SCALE` per cycle.
pub const PRICE_SCALE: u128 = 1_000_000_000;

/// One in basis points.
pub const BPS: u32 = 10_000;

/// The lane's EIP-1559 parameters (CIP-1 v3 §5). A field left out (a fixture's `[cip1.lane]`,
/// docs/FIXTURES.md) keeps its default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LaneParams {
    /// Target utilisation of the lane, in basis points of its capacity (§5: 50 %).
    pub target_bps: u32,
    /// The largest step per block, in basis points of the basefee (§5: 12.5 %), reached when the
    /// lane is full (or empty) at a 50 % target.
    pub max_step_bps: u32,
    /// The floor of the lane basefee, in nanos per cycle. Above 0 so that a basefee never
    /// reaches 0 (from which no proportional step could raise it), and at least 8 so that the
    /// 1-nano least step (see [`next_lane_basefee`]) is never more than 12.5 %.
    pub min_basefee_nanos: u128,
}

impl Default for LaneParams {
    fn default() -> Self {
        LaneParams {
            target_bps: 5_000,
            max_step_bps: 1_250,
            min_basefee_nanos: 8,
        }
    }
}

/// CIP-1 v3 §5 as written (the default, variant `basefee_step = clip`): the lane basefee of
/// the next block, from this block's basefee (nanos per cycle) and lane use.
///
/// `basefee_{H+1} = basefee_H × (1 + clip((u − target) / target, −max_step, +max_step))`, with
/// `u = used / capacity` (at the default 50 % target and 12.5 % step, §5's `clip((u − 0.5) /
/// 0.5, −0.125, +0.125)`): the relative step is the deviation over the target, clipped, so it
/// is the full 12.5 % as soon as utilisation is 6.25 points (1/8 of the target) off target,
/// and `dev / target` of the fee below that.
///
/// `used` is what the `utilisation` variant counts (reserved by default, Spec note 45), capped
/// at `capacity`; `target = capacity × target_bps / 10,000`.
///
/// Rounding (open point 12), integers only:
/// `step = floor(basefee × min(|used − target| × 10,000, max_step_bps × target) / (target ×
/// 10,000))`, then, as for the proportional step, a non-zero deviation moves the fee by at
/// least 1 nano and the fee never goes below `min_basefee_nanos` (default 8), so small fees
/// do not stick and a 1-nano step is never more than 12.5 %.
///
/// A zero capacity or zero target leaves the fee unchanged (up to the floor).
pub fn next_lane_basefee(basefee_nanos: u128, used: u64, capacity: u64, p: &LaneParams) -> u128 {
    lane_step(basefee_nanos, used, capacity, p, |dev, target| {
        (
            (dev * BPS as u128).min(p.max_step_bps as u128 * target),
            target * BPS as u128,
        )
    })
}

/// The lane basefee step of the `basefee_step` variant in force.
pub fn next_lane_basefee_with(
    step: BasefeeStep,
    basefee_nanos: u128,
    used: u64,
    capacity: u64,
    p: &LaneParams,
) -> u128 {
    match step {
        BasefeeStep::Clip => next_lane_basefee(basefee_nanos, used, capacity, p),
        BasefeeStep::Proportional => {
            next_lane_basefee_proportional(basefee_nanos, used, capacity, p)
        }
    }
}

/// EIP-1559's proportional step (variant `basefee_step = proportional`, Spec note 45): the
/// lane basefee of the next block, from this block's basefee (nanos per cycle) and lane use.
///
/// Rounding (CIP-1 v3 §5, open point 12):
///
/// `step = floor(basefee × min(|used − target|, target) × max_step_bps / (target × 10,000))`,
/// i.e. EIP-1559's `basefee × |used − target| / target / 8` with the 1/8 from `max_step_bps`,
/// floored; then **a non-zero deviation moves the fee by at least 1 nano**, so small fees do not
/// stick: go-ethereum's `CalcBaseFee` floors the same step and has its `max(1, …)` on the way up
/// only, so a fee of 7 or less never falls there, and a floored step without that least step
/// never raises one either. `next = basefee + step` above target,
/// `basefee − step` below, and never less than `min_basefee_nanos` (default 8): the fee never
/// reaches 0 and, at or above 8, a 1-nano step is at most 12.5 %, so `|next − basefee| ≤
/// basefee × max_step_bps / 10,000` whenever `basefee ≥ 8`.
pub fn next_lane_basefee_proportional(
    basefee_nanos: u128,
    used: u64,
    capacity: u64,
    p: &LaneParams,
) -> u128 {
    lane_step(basefee_nanos, used, capacity, p, |dev, target| {
        (
            dev.min(target) * p.max_step_bps as u128,
            target * BPS as u128,
        )
    })
}

/// The shared frame of both steps: `ratio(dev, target)` gives the step as a fraction
/// `(numerator, denominator)` of the basefee.
fn lane_step(
    basefee_nanos: u128,
    used: u64,
    capacity: u64,
    p: &LaneParams,
    ratio: impl Fn(u128, u128) -> (u128, u128),
) -> u128 {
    let floor = p.min_basefee_nanos;
    let target = capacity as u128 * p.target_bps as u128 / BPS as u128;
    if target == 0 {
        return basefee_nanos.max(floor);
    }
    let used = used.min(capacity) as u128;
    let (up, dev) = if used >= target {
        (true, used - target)
    } else {
        (false, target - used)
    };
    if dev == 0 {
        return basefee_nanos.max(floor);
    }
    let (num, den) = ratio(dev, target);
    let step = mul_div(basefee_nanos, num, den, false).max(1);
    let next = if up {
        basefee_nanos.saturating_add(step)
    } else {
        basefee_nanos.saturating_sub(step)
    };
    next.max(floor)
}

/// The median tip per cycle (nanos) of a block's fired timers, 0 when none fired (CIP-1 v3
/// §7.1's cold-start fallback).
///
/// Rounding (CIP-1 v3 §7.1): for an even count it is the **lower median**, the tip at index
/// `(n − 1) / 2` in ascending order, an actual tip paid rather than a mean of two. The slice is
/// reordered.
pub fn p50_tip(tips_nanos: &mut [u128]) -> u128 {
    if tips_nanos.is_empty() {
        return 0;
    }
    let mid = (tips_nanos.len() - 1) / 2;
    *tips_nanos.select_nth_unstable(mid).1
}

/// The p50 tip under the `p50_even` variant: the lower median (default), or for an even
/// count the floored mean of the two middle tips (`mean`). The slice is reordered.
pub fn p50_tip_with(rule: P50Even, tips_nanos: &mut [u128]) -> u128 {
    let n = tips_nanos.len();
    if rule == P50Even::Lower || n == 0 || n % 2 == 1 {
        return p50_tip(tips_nanos);
    }
    let lower = p50_tip(tips_nanos);
    // After the selection, everything past the lower median is at least it: the upper median
    // is the least of them.
    let upper = tips_nanos[n / 2..].iter().copied().min().unwrap_or(lower);
    lower / 2 + upper / 2 + (lower % 2 + upper % 2) / 2
}

/// `cycles × price_nanos / PRICE_SCALE` rounded up (what a fee payer is charged, §3 step 8;
/// saturating at `u128::MAX`).
pub fn charge_ceil(cycles: u64, price_nanos: u128) -> u128 {
    mul_div(cycles as u128, price_nanos, PRICE_SCALE, true)
}

/// `cycles × price_nanos / PRICE_SCALE` rounded down (the tip paid to the proposer, §3 step 8;
/// rounding down never pays out more than was charged).
pub fn charge_floor(cycles: u64, price_nanos: u128) -> u128 {
    mul_div(cycles as u128, price_nanos, PRICE_SCALE, false)
}

/// `a × b / c` rounded down (or up), exact over a 256-bit product, saturating at `u128::MAX`.
/// `c` must not be 0.
pub(crate) fn mul_div(a: u128, b: u128, c: u128, round_up: bool) -> u128 {
    debug_assert!(c != 0);
    if let Some(p) = a.checked_mul(b) {
        let q = p / c;
        return if round_up && p % c != 0 { q + 1 } else { q };
    }
    let (hi, lo) = mul_wide(a, b);
    if hi >= c {
        return u128::MAX;
    }
    let (q, r) = div_wide(hi, lo, c);
    if round_up && r != 0 {
        q.saturating_add(1)
    } else {
        q
    }
}

/// The 256-bit product of two `u128`s as (high, low) halves.
fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    const M: u128 = u64::MAX as u128;
    let (a1, a0) = (a >> 64, a & M);
    let (b1, b0) = (b >> 64, b & M);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 64) + (p01 & M) + (p10 & M);
    let lo = (p00 & M) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

/// (hi·2¹²⁸ + lo) / c and its remainder, for `hi < c` (so the quotient fits), bit by bit.
fn div_wide(hi: u128, lo: u128, c: u128) -> (u128, u128) {
    let mut r = hi;
    let mut q = 0u128;
    for i in (0..128).rev() {
        let carry = r >> 127;
        r = (r << 1) | ((lo >> i) & 1);
        q <<= 1;
        if carry == 1 || r >= c {
            r = r.wrapping_sub(c);
            q |= 1;
        }
    }
    (q, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_div_matches_u128_when_it_fits_and_widens_when_not() {
        assert_eq!(mul_div(10, 3, 4, false), 7);
        assert_eq!(mul_div(10, 3, 4, true), 8);
        assert_eq!(mul_div(12, 3, 4, true), 9);
        // 2^127 × 6 / 4 = 3 × 2^126 (the product needs 130 bits, the quotient fits).
        assert_eq!(mul_div(1 << 127, 6, 4, false), 3 << 126);
        // (2^128 − 1) × 4 / 2 > u128::MAX → saturates.
        assert_eq!(mul_div(u128::MAX, 4, 2, false), u128::MAX);
        // 2^127 × 6 / 8 = 3 × 2^125 exactly.
        assert_eq!(mul_div(1 << 127, 6, 8, false), 3 << 125);
        // (2^100 + 1) × 2^60 / 2^61 = 2^99 + 1/2 → 2^99 down, 2^99 + 1 up.
        assert_eq!(mul_div((1 << 100) + 1, 1 << 60, 1 << 61, false), 1 << 99);
        assert_eq!(
            mul_div((1 << 100) + 1, 1 << 60, 1 << 61, true),
            (1 << 99) + 1
        );
        assert_eq!(mul_div(u128::MAX, u128::MAX, u128::MAX, false), u128::MAX);
    }

    #[test]
    fn basefee_moves_by_an_eighth_at_full_and_empty_lane() {
        let p = LaneParams::default();
        for f in [next_lane_basefee, next_lane_basefee_proportional] {
            assert_eq!(f(8_000, 2_000_000, 2_000_000, &p), 9_000);
            assert_eq!(f(8_000, 0, 2_000_000, &p), 7_000);
            assert_eq!(f(8_000, 1_000_000, 2_000_000, &p), 8_000);
            assert_eq!(f(8, 0, 2_000_000, &p), 8);
            assert_eq!(f(9, 0, 2_000_000, &p), 8);
            assert_eq!(f(0, 2_000_000, 2_000_000, &p), 8);
        }
    }

    #[test]
    fn clip_takes_the_full_step_past_an_eighth_of_the_target() {
        let p = LaneParams::default();
        // 75 %: +12.5 % (clip) against +6.25 % (proportional).
        assert_eq!(next_lane_basefee(8_000, 1_500_000, 2_000_000, &p), 9_000);
        assert_eq!(
            next_lane_basefee_proportional(8_000, 1_500_000, 2_000_000, &p),
            8_500
        );
        // 6.25 points over target: the clip's edge, 12.5 % both ways of counting.
        assert_eq!(next_lane_basefee(8_000, 1_125_000, 2_000_000, &p), 9_000);
        // 1 point over: (u − 0.5)/0.5 = 2 %.
        assert_eq!(next_lane_basefee(8_000, 1_020_000, 2_000_000, &p), 8_160);
        assert_eq!(next_lane_basefee(8_000, 500_000, 2_000_000, &p), 7_000);
    }

    #[test]
    fn p50_is_the_lower_median() {
        assert_eq!(p50_tip(&mut []), 0);
        assert_eq!(p50_tip(&mut [5]), 5);
        assert_eq!(p50_tip(&mut [9, 1]), 1);
        assert_eq!(p50_tip(&mut [9, 1, 4, 7]), 4);
        assert_eq!(p50_tip(&mut [9, 1, 4]), 4);
        assert_eq!(p50_tip_with(P50Even::Mean, &mut [9, 1, 4, 7]), 5);
        assert_eq!(p50_tip_with(P50Even::Mean, &mut [9, 2]), 5);
        assert_eq!(p50_tip_with(P50Even::Mean, &mut [9, 1, 4]), 4);
    }

    #[test]
    fn charges_round_up_and_down() {
        assert_eq!(charge_ceil(3, 1), 1);
        assert_eq!(charge_floor(3, 1), 0);
        assert_eq!(charge_ceil(1_000, PRICE_SCALE), 1_000);
        assert_eq!(charge_floor(1_000, 1_500_000_000), 1_500);
        assert_eq!(charge_ceil(1, 1_500_000_001), 2);
    }
}
