//! The `eip1559` auction over a standing backlog at a cost that follows the block's work
//! (issue 31, Spec note 188).
//!
//! The block decides exactly what the walk of every due timer ([`super::eip1559::plan_walk`])
//! decides: who fires and in which order, what each pays, which timers leave under the GC lane
//! and in which order, which are carried and why, the events in the same order, the same
//! carry-queue order, counts and state roots. It avoids pricing, one by one, the carried timers
//! whose price is the block's common one, and sorting them:
//!
//! 1. The *plain* carried timers (no fee parameter of their own, an actor without a custom
//!    GBA) all get the default GBA's `(max_fee, max_priority)`, so one priority per cycle `p`
//!    and one `max_cost` per budget; their effective priority is `p × W(actor)`. Every other
//!    carried timer the block must look at is found through the carry queue's indexes
//!    ([`CalendarQueue::auction_visit`]: expired, its payer short of a plain timer's
//!    `max_cost`, over the per-fire cap, a last reason other than `lane`/`outbid`, fee
//!    parameters of its own, a custom GBA) and classified as the walk does, in the bucket's
//!    order, followed by the height's own timers.
//! 2. The lane is filled greedily in the §3 step 7 order from two streams: those candidates,
//!    sorted, and the plain timers, taken per actor in id order through a heap on
//!    `(p × W(actor), id)`; it stops once the room left is below the smallest budget of any
//!    candidate (none behind can be selected).
//! 3. The selected timers are pre-charged and fire in that order, as in the walk. A plain
//!    timer not selected is deferred `outbid` when the top selected effective priority is above
//!    its actor's, else `lane`: one reason per actor, so only the timers whose recorded reason
//!    differs are touched (Spec note 147: a change is counted, its leaf re-committed).
//! 4. The carried order the walk leaves (its deferrals of the classification first, then the
//!    fire-time `gc_budget` ones, then the candidates not selected in bucket order) is kept by
//!    moving the first two groups to the front of the carry queue and appending the height's
//!    own candidates; the others stay where they are.
//!
//! The backlog summary and the per-actor deferrals of the fairness window come from the carry
//! queue's counts. Under `deferred_place = back`, `tie_break = schedule_order`, or when the
//! default GBA would price below the basefee, the block takes the walk.

use super::PlanEnv;
use super::eip1559::{Auction, Priced, Round, plan_walk};
use crate::engine::eob::{Backlog, EobPlan, Ledger, defer, note_deferral};
use crate::engine::events::DeferReason;
use crate::engine::queue::{AuctionVisit, CalendarQueue, Member, VisitQuery};
use crate::engine::scheduler::pricing::priority_per_cycle;
use crate::engine::scheduler::select::{Candidate, effective_priority};
use crate::engine::scheduler::variants::{OverCap, TieBreak};
use crate::engine::scheduler::{FairnessSlot, Tally};
use crate::engine::types::{Address, TimerId};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// One pick of the fill, in selection order.
enum Pick {
    /// A candidate classified one by one (an index into the round's candidates).
    Cand(usize),
    /// A plain carried timer, with its budget and its owner's fairness slot.
    Plain(Member, u64, Option<FairnessSlot>),
}

/// The fill's outcome.
struct Fill {
    picks: Vec<Pick>,
    /// The highest selected effective priority.
    top: Option<u128>,
    /// Each actor with carried timers (ascending) and its plain effective priority.
    actors: Vec<(Address, u128)>,
    /// Each actor with carried timers (ascending) and its fairness slot, found with its W.
    slots: Vec<(Address, Option<FairnessSlot>)>,
    /// The plain timers' priority per cycle.
    p: u128,
    /// The first of the round's candidates that is one of the height's own timers.
    from_own: usize,
}

/// [`super::eip1559::plan_walk`]'s decisions over the carry queue (see the module docs).
pub(super) fn plan(
    queue: &mut CalendarQueue,
    env: &PlanEnv<'_>,
    ledger: &mut dyn Ledger,
) -> EobPlan {
    let auction = Auction::new(env);
    let v = auction.variants();
    let plain = priority_per_cycle(auction.default.0, auction.default.1, env.lane_basefee);
    let fast = queue.carries_in_front() && v.tie_break == TieBreak::Id && !queue.full_walk();
    let Some(p) = plain.filter(|_| fast) else {
        return plan_walk(queue, env, ledger);
    };
    let cap = auction.per_fire_cap();
    let over_cap_above =
        (v.over_cap == OverCap::Defer && env.cfg.max_cycles_per_fire > cap).then_some(cap);
    let (own, due) = queue.take_own_due(env.height);
    let mut visit = {
        let l: &dyn Ledger = &*ledger;
        queue.auction_visit(VisitQuery {
            height: env.height,
            over_cap_above,
            balance: &|a| l.balance(a),
            cost: &|gas| auction.plain_cost(gas, p),
            has_gba: &|a| l.has_gba(a),
            plain_reasons: &[DeferReason::Lane, DeferReason::Outbid],
        })
    };
    let mut r = Round::new(env.height, env.cfg.gc_cycles_per_block);
    r.out.stats.due = due;
    let carried = std::mem::take(&mut visit.due);
    for d in carried {
        auction.classify(&mut r, queue, ledger, d);
    }
    let from_own = r.cands.len();
    for d in own {
        auction.classify(&mut r, queue, ledger, d);
    }
    let mut fill = fill(&auction, queue, &r.cands, &visit, p, cap);
    fill.from_own = from_own;
    settle(&auction, queue, ledger, r, fill, &visit)
}

/// The §3 step 7 order of two candidates given by `(effective priority, id)`: `Less` when `a`
/// comes first.
fn first(a: (u128, &TimerId), b: (u128, &TimerId)) -> Ordering {
    b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1))
}

/// The greedy fill from the sorted candidates and the plain carried timers (step 2).
fn fill(
    auction: &Auction<'_>,
    queue: &CalendarQueue,
    cands: &[Candidate],
    visit: &AuctionVisit,
    p: u128,
    cap: u64,
) -> Fill {
    let mut order: Vec<usize> = (0..cands.len())
        .filter(|&i| cands[i].budget <= cap)
        .collect();
    let key = |i: usize| (effective_priority(&cands[i]), &cands[i].timer_id);
    order.sort_by(|&a, &b| {
        first(key(a), key(b)).then_with(|| cands[a].schedule_block.cmp(&cands[b].schedule_block))
    });
    // The member is unique in the heap, so the address and the slot after it never decide.
    type Entry = (u128, Reverse<Member>, Address, Option<FairnessSlot>);
    let mut heap: BinaryHeap<Entry> = BinaryHeap::new();
    let mut actors = Vec::new();
    let mut slots = Vec::new();
    for a in queue.auction_actors() {
        let (w, slot) = auction.weight_and_slot(&a);
        let eff = p.saturating_mul(w as u128);
        actors.push((a, eff));
        slots.push((a, slot));
        if let Some(m) = queue.auction_next(&a, None, visit) {
            heap.push((eff, Reverse(m), a, slot));
        }
    }
    let min_budget = order
        .iter()
        .map(|&i| cands[i].budget)
        .chain(queue.auction_min_gas().map(|g| auction.budget_of_gas(g)))
        .min()
        .unwrap_or(u64::MAX);
    let mut f = Fill {
        picks: Vec::new(),
        top: None,
        actors,
        slots,
        p,
        from_own: 0,
    };
    let mut room = auction.lane();
    let mut next = order.into_iter().peekable();
    while room >= min_budget {
        let take_cand = match (next.peek(), heap.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(&i), Some((eff, Reverse(m), _, _))) => first(key(i), (*eff, &m.id)).is_lt(),
        };
        if take_cand {
            let i = next.next().expect("peeked");
            if cands[i].budget <= room {
                room -= cands[i].budget;
                f.picks.push(Pick::Cand(i));
                f.top.get_or_insert(key(i).0);
            }
            continue;
        }
        let (eff, Reverse(m), a, slot) = heap.pop().expect("peeked");
        let budget = auction.budget_of_gas(queue.auction_member(m).gas_limit_per_fire);
        if budget <= room {
            room -= budget;
            f.picks.push(Pick::Plain(m, budget, slot));
            f.top.get_or_insert(eff);
        }
        if let Some(n) = queue.auction_next(&a, Some(m), visit) {
            heap.push((eff, Reverse(n), a, slot));
        }
    }
    f
}

/// Steps 3 and 4: the fires, the deferrals, the reasons that change, the carry queue's order
/// and the block's counts.
fn settle(
    auction: &Auction<'_>,
    queue: &mut CalendarQueue,
    ledger: &mut dyn Ledger,
    mut r: Round,
    fill: Fill,
    visit: &AuctionVisit,
) -> EobPlan {
    let (p, from_own) = (fill.p, fill.from_own);
    let mut slots: Vec<Option<Priced>> = std::mem::take(&mut r.priced)
        .into_iter()
        .map(Some)
        .collect();
    for pick in fill.picks {
        let priced = match pick {
            Pick::Cand(i) => slots[i].take().expect("selected once"),
            Pick::Plain(m, budget, slot) => Priced {
                due: queue.auction_take(m),
                budget,
                priority: p,
                max_cost: auction.plain_cost(queue.auction_member(m).gas_limit_per_fire, p),
                slot,
            },
        };
        auction.fire(&mut r, queue, ledger, priced);
    }
    let cap = auction.per_fire_cap();
    let mut own_back = Vec::new();
    for (i, slot) in slots.into_iter().enumerate() {
        let Some(priced) = slot else { continue };
        let c = &r.cands[i];
        let reason = if c.budget > cap {
            DeferReason::OverCap
        } else if fill.top.is_some_and(|t| t > effective_priority(c)) {
            DeferReason::Outbid
        } else {
            DeferReason::Lane
        };
        defer(&mut r.out, queue, &priced.due, reason);
        if i >= from_own {
            own_back.push(priced.due);
        }
    }
    for (a, eff) in fill.actors {
        let keep = if fill.top.is_some_and(|t| t > eff) {
            DeferReason::Outbid
        } else {
            DeferReason::Lane
        };
        for d in queue.auction_flips(a, keep, visit) {
            note_deferral(&mut r.out, queue, &d, keep);
        }
    }
    queue.carry_to_front(std::mem::take(&mut r.carried));
    for d in own_back {
        queue.carry_push_back(d);
    }
    summarise(queue, r, &fill.slots)
}

/// The block's backlog summary and per-actor deferrals, from the carry queue's counts, each
/// with the actor's fairness slot from `slots` (the carried actors, ascending).
fn summarise(
    queue: &CalendarQueue,
    r: Round,
    slots: &[(Address, Option<FairnessSlot>)],
) -> EobPlan {
    let mut out = r.out;
    let s = queue.auction_summary();
    out.stats.deferred = s.count;
    out.stats.backlog = Backlog::of_carried(s, out.stats.backlog.reason_changes);
    out.deferrals.clear();
    // Both ascending by actor: one merge walk.
    let mut known = slots.iter().peekable();
    out.deferrals_by_actor = queue
        .auction_deferrals_by_actor()
        .into_iter()
        .map(|(a, count)| {
            while known.next_if(|(k, _)| *k < a).is_some() {}
            let slot = known.peek().filter(|(k, _)| *k == a).and_then(|(_, s)| *s);
            (a, Tally { count, slot })
        })
        .collect();
    out
}
