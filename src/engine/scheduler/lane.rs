//! The timer lane's EIP-1559 price (CIP-1 v3 §5) and the fixed-point charges of §3 step 8.
//!
//! Every price in the lane is an integer number of **nanos per cycle**: [`PRICE_SCALE`] nanos are
//! one base unit, as wei are to ether. The lane basefee, `max_fee_per_cycle`,
//! `max_priority_fee_per_cycle`, effective priorities and the p50 tip all use this unit; the
//! CIP-3 cycle and cell basefees stay in base units. The fine unit keeps the ±12.5 % step exact
//! down to small fees and lets a fee of a few base units move at all.

use serde::{Deserialize, Serialize};

/// Nanos per base unit: lane prices are integers in base units / `PRICE_SCALE` per cycle.
pub const PRICE_SCALE: u128 = 1_000_000_000;

/// One in basis points.
pub const BPS: u32 = 10_000;

/// The lane's EIP-1559 parameters (CIP-1 v3 §5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// CIP-1 v3 §5: the lane basefee of the next block, from this block's basefee (nanos per cycle)
/// and lane use.
///
/// `used` is the lane budget **reserved** by the block's selected timers (the sum of their
/// `gas_limit_per_fire`), the same quantity the lane is gated on in §3 step 7 (Spec notes 3
/// and 45 in docs/SPEC_NOTES.md, open point 3), capped at `capacity`;
/// `target = capacity × target_bps / 10,000`.
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
/// basefee × max_step_bps / 10,000` whenever `basefee ≥ 8`. The spec's literal
/// `clip((u − 0.5)/0.5, −0.125, 0.125)` would take the full 12.5 % step for any deviation above
/// 1/16 of the lane; the proportional EIP-1559 step is the one it names, and the clip is kept as
/// `min(|used − target|, target)` (which only matters for targets below 50 %).
///
/// A zero capacity or zero target leaves the fee unchanged (up to the floor).
pub fn next_lane_basefee(basefee_nanos: u128, used: u64, capacity: u64, p: &LaneParams) -> u128 {
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
    let dev = dev.min(target);
    let step = mul_div(
        basefee_nanos,
        dev * p.max_step_bps as u128,
        target * BPS as u128,
        false,
    )
    .max(1);
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
        assert_eq!(next_lane_basefee(8_000, 2_000_000, 2_000_000, &p), 9_000);
        assert_eq!(next_lane_basefee(8_000, 0, 2_000_000, &p), 7_000);
        assert_eq!(next_lane_basefee(8_000, 1_000_000, 2_000_000, &p), 8_000);
        assert_eq!(next_lane_basefee(8, 0, 2_000_000, &p), 8);
        assert_eq!(next_lane_basefee(9, 0, 2_000_000, &p), 8);
        assert_eq!(next_lane_basefee(0, 2_000_000, 2_000_000, &p), 8);
    }

    #[test]
    fn p50_is_the_lower_median() {
        assert_eq!(p50_tip(&mut []), 0);
        assert_eq!(p50_tip(&mut [5]), 5);
        assert_eq!(p50_tip(&mut [9, 1]), 1);
        assert_eq!(p50_tip(&mut [9, 1, 4, 7]), 4);
        assert_eq!(p50_tip(&mut [9, 1, 4]), 4);
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
