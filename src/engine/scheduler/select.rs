//! Effective priority, sort and greedy selection of the timer lane (CIP-1 v3 §3 steps 6–7).
//!
//! The order (tie-break, open point 10): effective priority descending, then `timer_id`
//! ascending, then `schedule_block` ascending. Ids are unique, so the last key never decides;
//! it is written down to make the order total.
//!
//! Fill (open point 3): a timer reserves its whole budget (`gas_limit_per_fire`); the lane is
//! filled greedily in that order, and a timer that does not fit the room left is deferred while
//! smaller timers behind it may still be selected. A timer whose budget is above the per-fire cap
//! (§10) is deferred `over_cap` without an attempt and takes no room.

use crate::engine::events::DeferReason;
use crate::engine::types::TimerId;
use std::cmp::Ordering;

/// A due timer competing for the lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub timer_id: TimerId,
    pub schedule_block: u64,
    /// `gas_limit_per_fire`: the lane room it reserves.
    pub budget: u64,
    /// `min(max_priority_fee_per_cycle, max_fee_per_cycle − lane basefee)`, nanos per cycle.
    pub priority_per_cycle: u128,
    /// W(actor) in basis points (§8).
    pub weight_bps: u32,
}

/// `priority_per_cycle × W` (§3 step 6), in nanos × bps (saturating).
pub fn effective_priority(c: &Candidate) -> u128 {
    c.priority_per_cycle.saturating_mul(c.weight_bps as u128)
}

/// The outcome of one block's selection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Indices into the input, in execution order (the §3 step 7 order).
    pub selected: Vec<usize>,
    /// Indices into the input with why each was not selected (`lane`, `outbid` or `over_cap`),
    /// in input order.
    ///
    /// `outbid`: a selected timer had a strictly higher effective priority; `lane`: none did
    /// (the lane was too full for it at its turn and only equal or lower priorities got in).
    pub deferred: Vec<(usize, DeferReason)>,
}

/// The sort key of one candidate, compact so the sort moves little.
#[derive(Clone, Copy)]
struct Key<'a> {
    eff: u128,
    id: &'a [u8; 32],
    schedule_block: u64,
    budget: u64,
    idx: usize,
}

/// §3 step 7 order: effective priority desc, timer_id asc, schedule_block asc.
fn order(a: &Key, b: &Key) -> Ordering {
    b.eff
        .cmp(&a.eff)
        .then_with(|| a.id.cmp(b.id))
        .then_with(|| a.schedule_block.cmp(&b.schedule_block))
}

fn key(idx: usize, c: &Candidate) -> Key<'_> {
    Key {
        eff: effective_priority(c),
        id: &c.timer_id.0,
        schedule_block: c.schedule_block,
        budget: c.budget,
        idx,
    }
}

/// Why a timer that did not fit is deferred, given the highest selected effective priority.
fn reason(eff: u128, top_selected: Option<u128>) -> DeferReason {
    match top_selected {
        Some(top) if top > eff => DeferReason::Outbid,
        _ => DeferReason::Lane,
    }
}

/// §3 step 7: sorts by effective priority (tie-break above), fills `lane_left` greedily, defers
/// budgets above `per_fire_cap` as `over_cap`. Same output for any permutation of the same
/// input (up to the indices naming the same candidates; `deferred` lists them in input order).
///
/// Exactly [`select_naive`]'s result, without sorting every candidate: the lane holds few
/// timers, so it sorts the best chunk (found with a linear-time partial selection), fills, and
/// then keeps only the candidates whose budget still fits the room left (the room only
/// shrinks, so the others can never be selected), widening the chunk until the room is spent or
/// no candidate fits.
pub fn select(cands: &[Candidate], lane_left: u64, per_fire_cap: u64) -> Selection {
    const SELECTED: u8 = 1;
    const DEFERRED: u8 = 2;
    const OVER_CAP: u8 = 3;
    let mut status = vec![DEFERRED; cands.len()];
    let mut pool: Vec<Key> = Vec::with_capacity(cands.len());
    for (i, c) in cands.iter().enumerate() {
        if c.budget > per_fire_cap {
            status[i] = OVER_CAP;
        } else if c.budget <= lane_left {
            pool.push(key(i, c));
        }
    }
    let mut selected = Vec::new();
    let mut room = lane_left;
    let mut top: Option<u128> = None;
    let mut chunk = 256usize;
    while !pool.is_empty() {
        let k = chunk.min(pool.len());
        if k < pool.len() {
            pool.select_nth_unstable_by(k - 1, order);
        }
        pool[..k].sort_unstable_by(order);
        for key in &pool[..k] {
            if key.budget <= room {
                room -= key.budget;
                selected.push(key.idx);
                status[key.idx] = SELECTED;
                top.get_or_insert(key.eff);
            }
        }
        // The rest can only be selected if it fits the room left (the room only shrinks).
        let mut seen = 0;
        pool.retain(|key| {
            seen += 1;
            seen > k && key.budget <= room
        });
        chunk = chunk.saturating_mul(2);
    }
    let mut deferred = Vec::with_capacity(cands.len() - selected.len());
    for (i, s) in status.iter().enumerate() {
        match *s {
            SELECTED => {}
            OVER_CAP => deferred.push((i, DeferReason::OverCap)),
            _ => deferred.push((i, reason(effective_priority(&cands[i]), top))),
        }
    }
    Selection { selected, deferred }
}

/// The candidates' indices in the §3 step 7 order ([`select`]'s sort, without the fill): what
/// a bucket's preview lists (issue 31, "the dashboard asks for what it shows").
pub fn auction_order(cands: &[Candidate]) -> Vec<usize> {
    let mut keys: Vec<Key> = cands.iter().enumerate().map(|(i, c)| key(i, c)).collect();
    keys.sort_unstable_by(order);
    keys.into_iter().map(|k| k.idx).collect()
}

/// The naive baseline: compute every effective priority, sort all candidates, fill.
pub fn select_naive(cands: &[Candidate], lane_left: u64, per_fire_cap: u64) -> Selection {
    let mut keys: Vec<Key> = cands
        .iter()
        .enumerate()
        .filter(|(_, c)| c.budget <= per_fire_cap)
        .map(|(i, c)| key(i, c))
        .collect();
    keys.sort_by(order);
    let mut room = lane_left;
    let mut selected = Vec::new();
    let mut top = None;
    let mut missed = Vec::new();
    for k in &keys {
        if k.budget <= room {
            room -= k.budget;
            selected.push(k.idx);
            top.get_or_insert(k.eff);
        } else {
            missed.push((k.idx, k.eff));
        }
    }
    let mut deferred: Vec<(usize, DeferReason)> = missed
        .into_iter()
        .map(|(i, eff)| (i, reason(eff, top)))
        .chain(
            cands
                .iter()
                .enumerate()
                .filter(|(_, c)| c.budget > per_fire_cap)
                .map(|(i, _)| (i, DeferReason::OverCap)),
        )
        .collect();
    deferred.sort_by_key(|d| d.0);
    Selection { selected, deferred }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: u8, budget: u64, prio: u128, w: u32) -> Candidate {
        let mut t = [0u8; 32];
        t[0] = id;
        Candidate {
            timer_id: TimerId(t),
            schedule_block: 1,
            budget,
            priority_per_cycle: prio,
            weight_bps: w,
        }
    }

    #[test]
    fn greedy_fill_over_cap_and_reasons() {
        let cands = vec![
            c(1, 100, 10, 10_000), // eff 100,000
            c(2, 60, 5, 20_000),   // eff 100,000, id 2 after id 1
            c(3, 300, 99, 10_000), // over cap
            c(4, 30, 1, 10_000),   // eff 10,000, fits after 1
            c(5, 80, 10, 10_000),  // eff 100,000, id 5 after 2: does not fit → lane
        ];
        let s = select(&cands, 150, 200);
        assert_eq!(s.selected, vec![0, 3]);
        assert_eq!(
            s.deferred,
            vec![
                (1, DeferReason::Lane),
                (2, DeferReason::OverCap),
                (4, DeferReason::Lane)
            ]
        );
        assert_eq!(s, select_naive(&cands, 150, 200));
        let s = select(&cands, 100, 200);
        assert_eq!(s.selected, vec![0]);
    }

    #[test]
    fn lower_priority_is_outbid() {
        let cands = vec![c(1, 100, 10, 10_000), c(2, 50, 1, 10_000)];
        let s = select(&cands, 120, 200);
        assert_eq!(s.selected, vec![0]);
        assert_eq!(s.deferred, vec![(1, DeferReason::Outbid)]);
        assert_eq!(s, select_naive(&cands, 120, 200));
    }
}
