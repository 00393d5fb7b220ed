//! The `cip1-v1` auction over a standing backlog at a cost that follows the block's work
//! (issue 31, fifth session; Spec note 219).
//!
//! The block decides exactly what the walk of every due timer ([`super::cip1v1::plan_walk`])
//! decides: who fires and in which order, what each pays, which timers leave under the GC lane
//! and in which order, which are carried and why, the events in the same order, the carry
//! queue's order, the weights' update, counts and state roots. It avoids bidding, one by one,
//! the carried timers whose bid is the block's common one, and sorting them:
//!
//! 1. The *plain* carried timers (no fee parameter of their own, an owner without a custom
//!    GBA) all bid the default GBA's `(max_fee, tip)`: one effective tip `p` and one
//!    `max_cost` per budget, so v1's order (tip, the owner's weight, the id) ranks them by
//!    their owner's weight and then by id. Every other carried timer the block must look at
//!    is found through the carry queue's indexes ([`CalendarQueue::auction_visit`]: expired,
//!    its owner short of a plain timer's `max_cost`, a last reason other than `budget`, fee
//!    parameters of its own, an owner with a custom GBA) and bids as in the walk, in the
//!    bucket's order, followed by the height's own timers (the *candidates*).
//! 2. The lane's per-actor slices (v1 §3 d (ii)) are shared over the actors that bid: the
//!    candidates' owners and every actor with a plain carried timer. The first pass takes,
//!    per actor, its bids in order while they fit its slice: a slice never exceeds the room
//!    left (the slices sum to at most the lane and every take comes off both), so the actors
//!    are independent, and an actor stops once its slice is below the smallest budget. The
//!    second pass takes, in v1's order over everyone (the sorted candidates and the plain
//!    timers through a heap on `(weight, id)` per actor), what still fits the room, and stops
//!    once the room is below the smallest budget.
//! 3. The selected bids fire in v1's order, as in the walk (an owner that ran short is
//!    deferred `underfunded`); a candidate not selected is deferred `budget`; a plain timer not
//!    selected keeps its record (its last reason is `budget` already) and is not touched.
//! 4. The carried order the walk leaves (Spec note 219: its deferrals while bidding first, then
//!    those whose owner ran short at fire time, then the losers in bucket order) is kept by
//!    moving the first two groups to the front of the carry queue and appending the height's
//!    own losers; the others stay where they are.
//!
//! The backlog summary, the per-actor deferrals and the lateness of the carried timers (the
//! EMA's score) come from the carry queue's counts and per-actor sums of heights.
//!
//! Spec note 219: the plain timers' owner is their fee payer (v1 §4.1, `check_owner_pays`), so
//! the carry queue's index of fee payers finds the owners short of a plain `max_cost`.

use super::cip1v1::{Bid, Round, V1Block, bid_order};
use crate::engine::eob::{Backlog, EobPlan, Ledger, defer};
use crate::engine::events::{DeferReason, TimerEvent};
use crate::engine::queue::{AuctionVisit, CalendarQueue, DueTimer, Member, VisitQuery};
use crate::engine::scheduler::Tally;
use crate::engine::types::Address;
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

/// The fill's outcome: the candidates selected, and the plain timers selected with their
/// budgets and owners' weights.
struct Fill {
    chosen: Vec<bool>,
    plain: Vec<(Member, u64, u32)>,
}

/// [`super::cip1v1::plan_walk`]'s decisions over the carry queue (see the module docs); `p`
/// is the plain timers' effective tip.
pub(super) fn plan(
    queue: &mut CalendarQueue,
    block: &V1Block<'_>,
    ledger: &mut dyn Ledger,
    p: u128,
) -> EobPlan {
    let env = block.env;
    let (own, due) = queue.take_own_due(env.height);
    let mut visit = {
        let l: &dyn Ledger = &*ledger;
        queue.auction_visit(VisitQuery {
            height: env.height,
            over_cap_above: None,
            balance: &|a| l.balance(a),
            cost: &|gas| block.plain_cost(gas, p),
            has_gba: &|a| l.has_gba(a),
            plain_reasons: &[DeferReason::Budget],
        })
    };
    let mut r = Round::new(env);
    r.out.stats.due = due;
    let carried = std::mem::take(&mut visit.due);
    let from_own = carried.len();
    // Each bid's `order` is its place in bucket order; the own ones are told by their due index.
    let mut cands: Vec<(Bid, bool)> = Vec::new();
    for (i, d) in carried.into_iter().chain(own).enumerate() {
        if let Some(mut bid) = block.bid(&mut r, queue, ledger, d) {
            bid.order = cands.len();
            cands.push((bid, i >= from_own));
        }
    }
    cands.sort_by(|(a, _), (b, _)| bid_order((a.tip, a.weight, &a.id), (b.tip, b.weight, &b.id)));
    let fill = fill(block, queue, &cands, &visit, p);
    settle(block, queue, ledger, r, cands, fill, p)
}

/// Steps 2 of the module docs: the two passes of the slices' fill.
fn fill(
    block: &V1Block<'_>,
    queue: &CalendarQueue,
    cands: &[(Bid, bool)],
    visit: &AuctionVisit,
    p: u128,
) -> Fill {
    let budget_of = |m: Member| block.budget_of_gas(queue.auction_member(m).gas_limit_per_fire);
    // The actors that bid, ascending, with their weights; per actor its candidates in order.
    let mut weights: BTreeMap<Address, u32> = BTreeMap::new();
    let mut by_actor: BTreeMap<Address, Vec<usize>> = BTreeMap::new();
    for (i, (b, _)) in cands.iter().enumerate() {
        weights.insert(b.actor, b.weight);
        by_actor.entry(b.actor).or_default().push(i);
    }
    let mut plain_first: Vec<(Address, Member)> = Vec::new();
    for a in queue.auction_actors() {
        if let Some(m) = queue.auction_next(&a, None, visit) {
            weights.insert(a, block.weight(&a));
            plain_first.push((a, m));
        }
    }
    let lane = block.env.cfg.lane_timer_cycles;
    let total: u128 = weights.values().map(|&w| w as u128).sum();
    let min_budget = cands
        .iter()
        .map(|(b, _)| b.budget)
        .chain(queue.auction_min_gas().map(|g| block.budget_of_gas(g)))
        .min()
        .unwrap_or(u64::MAX);
    let mut f = Fill {
        chosen: vec![false; cands.len()],
        plain: Vec::new(),
    };
    let mut picked: BTreeSet<Member> = BTreeSet::new();
    let mut room = lane;
    // Pass 1: per actor, its bids in order (tip desc, id asc) against its slice.
    let first_of: BTreeMap<Address, Member> = plain_first.iter().copied().collect();
    for (a, &w) in &weights {
        let mut slice = (lane as u128 * w as u128 / total.max(1)) as u64;
        let mut ci = by_actor.get(a).into_iter().flatten().copied().peekable();
        let mut pm = first_of.get(a).copied();
        while slice >= min_budget {
            let take_cand = match (ci.peek(), pm) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(&i), Some(m)) => {
                    let b = &cands[i].0;
                    bid_order((b.tip, w, &b.id), (p, w, &m.id.0)).is_lt()
                }
            };
            if take_cand {
                let i = ci.next().expect("peeked");
                let budget = cands[i].0.budget;
                if budget <= slice {
                    slice -= budget;
                    room -= budget;
                    f.chosen[i] = true;
                }
            } else {
                let m = pm.expect("peeked");
                let budget = budget_of(m);
                if budget <= slice {
                    slice -= budget;
                    room -= budget;
                    picked.insert(m);
                    f.plain.push((m, budget, w));
                }
                pm = queue.auction_next(a, Some(m), visit);
            }
        }
    }
    // Pass 2: everyone in v1's order, what still fits the room.
    let mut heap: BinaryHeap<(u32, Reverse<Member>, Address)> = plain_first
        .iter()
        .map(|&(a, m)| (weights[&a], Reverse(m), a))
        .collect();
    let mut next = (0..cands.len()).peekable();
    while room >= min_budget {
        let take_cand = match (next.peek(), heap.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(&i), Some((w, Reverse(m), _))) => {
                let b = &cands[i].0;
                bid_order((b.tip, b.weight, &b.id), (p, *w, &m.id.0)).is_lt()
            }
        };
        if take_cand {
            let i = next.next().expect("peeked");
            let budget = cands[i].0.budget;
            if !f.chosen[i] && budget <= room {
                room -= budget;
                f.chosen[i] = true;
            }
            continue;
        }
        let (w, Reverse(m), a) = heap.pop().expect("peeked");
        let budget = budget_of(m);
        if !picked.contains(&m) && budget <= room {
            room -= budget;
            f.plain.push((m, budget, w));
        }
        if let Some(n) = queue.auction_next(&a, Some(m), visit) {
            heap.push((w, Reverse(n), a));
        }
    }
    // The plain picks in v1's order (one tip: the weight desc, then the id asc).
    f.plain
        .sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    f
}

/// Steps 3 and 4: the fires in v1's order, the losers' deferrals, the carry queue's order
/// and the block's counts.
fn settle(
    block: &V1Block<'_>,
    queue: &mut CalendarQueue,
    ledger: &mut dyn Ledger,
    mut r: Round,
    cands: Vec<(Bid, bool)>,
    fill: Fill,
    p: u128,
) -> EobPlan {
    let max_fee = block.plain_max_fee();
    let mut plain = fill.plain.into_iter().peekable();
    let mut own_losers: Vec<(usize, DueTimer)> = Vec::new();
    let mut cands = cands.into_iter().zip(fill.chosen).peekable();
    loop {
        let take_cand = match (cands.peek(), plain.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(((b, _), _)), Some((m, _, w))) => {
                bid_order((b.tip, b.weight, &b.id), (p, *w, &m.id.0)) == Ordering::Less
            }
        };
        if take_cand {
            let ((b, own), selected) = cands.next().expect("peeked");
            if selected {
                block.fire(&mut r, queue, ledger, b);
            } else {
                defer(&mut r.out, queue, &b.due, DeferReason::Budget);
                if own {
                    own_losers.push((b.order, b.due));
                }
            }
            continue;
        }
        let (m, budget, weight) = plain.next().expect("peeked");
        let t = queue.auction_member(m);
        let bid = Bid {
            due: queue.auction_take(m),
            event: Some(TimerEvent::TimerBid {
                timer_id: t.timer_id,
                actor: t.actor_address,
                max_fee_per_cycle: max_fee,
                tip_per_cycle: p,
            }),
            actor: t.actor_address,
            id: t.timer_id.0,
            budget,
            tip: p,
            weight,
            max_cost: block.plain_cost(t.gas_limit_per_fire, p),
            order: 0,
        };
        block.fire(&mut r, queue, ledger, bid);
    }
    queue.carry_to_front(std::mem::take(&mut r.carried));
    own_losers.sort_unstable_by_key(|l| l.0);
    for (_, d) in own_losers {
        queue.carry_push_back(d);
    }
    summarise(queue, r)
}

/// The block's backlog summary, per-actor deferrals and their heights, from the carry
/// queue's counts.
fn summarise(queue: &CalendarQueue, r: Round) -> EobPlan {
    let mut out = r.out;
    let s = queue.auction_summary();
    out.stats.deferred = s.count;
    out.stats.backlog = Backlog::of_carried(s, out.stats.backlog.reason_changes);
    out.deferrals.clear();
    let (counts, heights) = queue.auction_deferred_heights_by_actor();
    out.deferrals_by_actor = counts
        .into_iter()
        .map(|(a, count)| (a, Tally { count, slot: None }))
        .collect();
    out.deferred_heights = heights;
    out
}
