//! Deliver → Materialize for the CIP-5 drafts (English §7–§9, zh §8–§10): candidates, scores,
//! the total order, the quotas, `deliver_id`, the Mailbox.
//!
//! Candidates at height `h` (English §7.2, zh §8.2), deduplicated by timer id:
//! - the calendar queue's due timers (height timers and intervals due at or before `h`, the
//!   ones carried from earlier blocks included), minus expired ones (removed under the GC
//!   budget as CIP-5 §5.4 does);
//! - the watches whose `(target, prefix)` matches a key written by this block's transactions,
//!   registered in an earlier block (a write in the registration block does not fire, English
//!   §10 / zh §11 "timers created in the current block must not fire in it");
//! - the watches hit earlier and not yet delivered (Spec note: an unselected watch hit stays a
//!   candidate, its age counted from its first hit, zh §9.3 "未入选者保留", English §8.3 "remain
//!   in Globalbox").
//!
//! Score (fixed point, Q32.96 like `bid_fp`): `W_age·age·2^96 + W_bid·bid_fp` (English §8.1),
//! `+ W_fifo·fifo_rank·2^96` under zh (§9.1), saturating at `u128::MAX`. Spec note: the integer
//! age is scaled by 2^96, so one block of age weighs `W_age / W_bid` whole bid units.
//! Spec note (zh §9.1, `fifo_rank` "大在前" would favour the newest timer): the FIFO term ranks
//! the block's candidates by registration order, oldest highest (`fifo_rank` = how many of this
//! block's candidates registered after it), so the term means what its name says.
//!
//! Total order (English §8.2, zh §9.2): score (higher first), `priority_bucket` (none: every
//! fire is in one bucket), the per-target round-robin cursor (the pruning step's rounds under
//! zh; none under the English Globalbox), due height (earlier first), target, timer id.
//!
//! Fees where the drafts are silent (English §11, zh §12): CIP-5's rule, a fire is pre-charged
//! `max_cost` from its `fee_payer` and refunded the unused part; a fee payer who cannot pay is
//! removed (`TimerCancelledInsufficientFunds`) and does not use a quota slot. TTL: CIP-5's
//! `expires_at` applies to every draft timer (a watch past its TTL is swept, Spec note 127).
//! There is no timer lane: the quotas bound the end of block.

use super::{DraftKind, DraftState, GlobalFire, Hit, MailboxEntry};
use crate::engine::config::TimerConfig;
use crate::engine::eob::{self, EobPlan, FeeQuote, Fire, Ledger, Removal};
use crate::engine::events::{DeferReason, TimerEvent};
use crate::engine::queue::{CalendarQueue, DueTimer};
use crate::engine::scheduler::variants::{DraftExecOrder, DraftPruning, Variants, WatchAfterFire};
use crate::engine::types::{Address, TimerId, keccak_parts};
use hashbrown::{HashMap, HashSet};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Which draft plans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// `cip5-draft`: the English Globalbox (§5.3, §8.3).
    Globalbox,
    /// `cip5-draft-zh`: candidates re-sorted every block (zh §9).
    Resort,
}

/// What the draft plan step sees.
pub struct DraftEnv<'a> {
    pub height: u64,
    pub cfg: &'a TimerConfig,
    pub quote: &'a FeeQuote,
    pub variants: &'a Variants,
}

#[derive(Debug)]
enum Src {
    Due(DueTimer),
    Watch,
}

#[derive(Debug)]
struct Cand {
    id: TimerId,
    target: Address,
    anchor: u64,
    bid_fp: u128,
    rank: u64,
    score: u128,
    src: Src,
}

/// `W_age·age·2^96 + W_bid·bid_fp + W_fifo·fifo·2^96`, saturating.
pub fn score(w: (u64, u64, u64), age: u64, bid_fp: u128, fifo: u64) -> u128 {
    let one = super::BID_ONE;
    (w.0 as u128)
        .saturating_mul(age as u128)
        .saturating_mul(one)
        .saturating_add((w.1 as u128).saturating_mul(bid_fp))
        .saturating_add(
            (w.2 as u128)
                .saturating_mul(fifo as u128)
                .saturating_mul(one),
        )
}

/// `deliver_id = H(h, parent_state_root, timer_id, fire_seq)` (English §9.1).
pub fn deliver_id(h: u64, parent_root: &[u8; 32], id: &TimerId, fire_seq: u32) -> [u8; 32] {
    keccak_parts(&[
        &h.to_be_bytes(),
        parent_root,
        &id.0,
        &fire_seq.to_be_bytes(),
    ])
}

/// A fire's place in the total order (English §8.2, zh §9.2): ascending is the order's
/// (the highest score first, then due height, target, timer id).
type OrderKey<'a> = (std::cmp::Reverse<u128>, u64, &'a Address, &'a TimerId);

fn order_key<'a>(score: u128, anchor: u64, target: &'a Address, id: &'a TimerId) -> OrderKey<'a> {
    (std::cmp::Reverse(score), anchor, target, id)
}

/// Plans the end of block `env.height` under a draft policy.
pub fn plan(
    flavor: Flavor,
    queue: &mut CalendarQueue,
    st: &mut DraftState,
    env: &DraftEnv<'_>,
    ledger: &mut dyn Ledger,
) -> EobPlan {
    let h = env.height;
    let mut out = EobPlan::new(h);
    let mut gc_left = env.cfg.gc_cycles_per_block;
    let mut carried = Vec::new();
    st.dirty = !st.mailbox.is_empty()
        || !st.written.is_empty()
        || !st.hits.is_empty()
        || !st.globalbox.is_empty();
    st.mailbox.clear();
    let mut gc = Gc {
        out: &mut out,
        carried: &mut carried,
        left: &mut gc_left,
    };
    let mut cands = due_candidates(queue, st, h, &mut gc);
    out.stats.due = cands.len() as u64;
    st.sweep_expired(&mut out, h, &mut gc_left);
    collect_hits(st, &mut out, h, &mut gc_left);
    watch_candidates(st, h, &mut cands);
    rank(flavor, st, h, &mut cands);
    let mut m = Materializer {
        st: &mut *st,
        queue: &mut *queue,
        env,
        ledger,
        out: &mut out,
        fires: Vec::new(),
        seen: BTreeSet::new(),
        gc_left,
        carried,
    };
    let left = match flavor {
        Flavor::Resort => m.resort(cands),
        Flavor::Globalbox => m.globalbox(cands),
    };
    for c in left {
        if let Src::Due(d) = c.src {
            eob::defer(m.out, m.queue, &d, DeferReason::Quota);
            m.carried.push(d);
        }
    }
    let Materializer {
        mut fires, carried, ..
    } = m;
    queue.carry(carried);
    if flavor == Flavor::Resort && env.variants.draft_exec_order == DraftExecOrder::DeliverId {
        fires.sort_by(|a, b| a.0.deliver_id.cmp(&b.0.deliver_id));
    }
    for (mut entry, fire) in fires {
        entry.deliver_seq = st.next_deliver_seq;
        st.next_deliver_seq += 1;
        st.mailbox.push(entry);
        out.fires.push(fire);
    }
    out
}

/// Where a removal under the GC lane goes: the plan, the timers carried when the budget is
/// short, and the budget left.
struct Gc<'a> {
    out: &'a mut EobPlan,
    carried: &'a mut Vec<DueTimer>,
    left: &'a mut u64,
}

/// The timers due at `h` as candidates; an expired one is removed under the GC lane instead
/// (and forgotten by the drafts' state once it left the queue).
fn due_candidates(
    queue: &mut CalendarQueue,
    st: &mut DraftState,
    h: u64,
    gc: &mut Gc<'_>,
) -> Vec<Cand> {
    let mut cands = Vec::new();
    for d in queue.take_due(h) {
        st.dirty = true;
        let t = queue.due(&d);
        if h > t.expires_at {
            let id = t.timer_id;
            let r = Removal {
                height: h,
                expired: true,
                required: 0,
                available: 0,
            };
            eob::remove_under_gc(gc.out, gc.carried, queue, d, gc.left, r);
            if !queue.contains(&id) {
                st.forget(&id);
            }
            continue;
        }
        let (bid_fp, rank) = st
            .meta
            .get(&t.timer_id)
            .map_or((0, u64::MAX), |m| (m.bid_fp, m.fifo_rank));
        cands.push(Cand {
            id: t.timer_id,
            target: t.actor_address,
            anchor: t.height,
            bid_fp,
            rank,
            score: 0,
            src: Src::Due(d),
        });
    }
    cands
}

/// This block's watch hits as candidates, anchored at the height they were hit.
fn watch_candidates(st: &DraftState, h: u64, cands: &mut Vec<Cand>) {
    for (id, hit) in &st.hits {
        let (w, m) = (&st.watches[id], &st.meta[id]);
        if h > w.expires_at {
            // Past its TTL, left by a short GC budget: swept first in the next block.
            continue;
        }
        cands.push(Cand {
            id: *id,
            target: w.actor_address,
            anchor: hit.height,
            bid_fp: m.bid_fp,
            rank: m.fifo_rank,
            score: 0,
            src: Src::Watch,
        });
    }
}

/// Scores the candidates (age, bid and, under `Resort`, FIFO rank among this block's
/// candidates: how many registered after it) and, under `Resort`, sorts them in the total
/// order. Under `Globalbox` the FIFO weight is 0, so a score does not depend on the other
/// candidates and only the ones entering the Globalbox are sorted ([`Materializer::globalbox`]:
/// the queued ones keep their places, issue 31, the drafts' per-block walk).
fn rank(flavor: Flavor, st: &DraftState, h: u64, cands: &mut [Cand]) {
    let p = st.params;
    if flavor == Flavor::Globalbox {
        for c in cands.iter_mut() {
            c.score = score(
                (p.w_age, p.w_bid, 0),
                h.saturating_sub(c.anchor),
                c.bid_fp,
                0,
            );
        }
        return;
    }
    let mut by_rank: Vec<usize> = (0..cands.len()).collect();
    by_rank.sort_by_key(|&i| (cands[i].rank, cands[i].id));
    let n = cands.len() as u64;
    for (pos, &i) in by_rank.iter().enumerate() {
        let c = &mut cands[i];
        c.score = score(
            (p.w_age, p.w_bid, p.w_fifo),
            h.saturating_sub(c.anchor),
            c.bid_fp,
            n - 1 - pos as u64,
        );
    }
    cands.sort_by(cand_order);
}

/// The total order of two scored candidates.
fn cand_order(a: &Cand, b: &Cand) -> Ordering {
    order_key(a.score, a.anchor, &a.target, &a.id)
        .cmp(&order_key(b.score, b.anchor, &b.target, &b.id))
}

/// Adds this block's watch hits to `st.hits` (a watch registered in this block is not hit; a
/// watch past its TTL is removed instead, under the GC budget).
fn collect_hits(st: &mut DraftState, out: &mut EobPlan, h: u64, gc_left: &mut u64) {
    let mut hit: BTreeMap<TimerId, Vec<Vec<u8>>> = BTreeMap::new();
    for (a, k) in std::mem::take(&mut st.written) {
        for i in 0..=k.len() {
            if let Some(ids) = st.index.get(&(a, k[..i].to_vec())) {
                for id in ids {
                    let keys = hit.entry(*id).or_default();
                    if !keys.contains(&k) {
                        keys.push(k.clone());
                    }
                }
            }
        }
    }
    for (id, keys) in hit {
        let w = &st.watches[&id];
        if w.schedule_block >= h {
            continue;
        }
        if h > w.expires_at {
            if *gc_left < crate::engine::config::GC_CYCLES_PER_REMOVAL {
                continue;
            }
            *gc_left -= crate::engine::config::GC_CYCLES_PER_REMOVAL;
            out.stats.gc_cycles += crate::engine::config::GC_CYCLES_PER_REMOVAL;
            out.stats.expired += 1;
            out.events.push(TimerEvent::TimerExpired {
                timer_id: id,
                actor: w.actor_address,
                expires_at: w.expires_at,
                current_height: h,
            });
            st.forget(&id);
            continue;
        }
        let e = st.hits.entry(id).or_insert(Hit {
            height: h,
            keys: Vec::new(),
        });
        for k in keys {
            if !e.keys.contains(&k) {
                e.keys.push(k);
            }
        }
    }
}

struct Materializer<'a, 'b> {
    st: &'a mut DraftState,
    queue: &'a mut CalendarQueue,
    env: &'a DraftEnv<'b>,
    ledger: &'a mut dyn Ledger,
    out: &'a mut EobPlan,
    fires: Vec<(MailboxEntry, Fire)>,
    seen: BTreeSet<String>,
    gc_left: u64,
    carried: Vec<DueTimer>,
}

impl Materializer<'_, '_> {
    /// zh §9.3: quota pruning over the sorted candidates, round-robin across targets (each
    /// round gives every target, in the order of its best candidate, its next candidate) or,
    /// under the `draft_pruning = greedy` variant, §18's greedy fill. Returns the candidates
    /// left for a later block.
    fn resort(&mut self, cands: Vec<Cand>) -> Vec<Cand> {
        let p = self.st.params;
        let mut left = Vec::new();
        let mut fired = 0u32;
        if self.env.variants.draft_pruning == DraftPruning::Greedy {
            let mut per: BTreeMap<Address, u32> = BTreeMap::new();
            for c in cands {
                let n = per.get(&c.target).copied().unwrap_or(0);
                if fired >= p.max_fires_per_block || n >= p.max_fires_per_target {
                    left.push(c);
                    continue;
                }
                let target = c.target;
                if self.materialize(c) {
                    fired += 1;
                    *per.entry(target).or_default() += 1;
                }
            }
            self.st.last_skipped = left.len() as u64;
            return left;
        }
        // Each target's candidates, the targets in the order of their best candidate.
        let mut groups: Vec<(Address, VecDeque<Cand>)> = Vec::new();
        let mut group_of: BTreeMap<Address, usize> = BTreeMap::new();
        for c in cands {
            let next = groups.len();
            let g = *group_of.entry(c.target).or_insert(next);
            if g == next {
                groups.push((c.target, VecDeque::new()));
            }
            groups[g].1.push_back(c);
        }
        for _round in 0..p.max_fires_per_target {
            for g in groups.iter_mut() {
                while fired < p.max_fires_per_block {
                    let Some(c) = g.1.pop_front() else { break };
                    if self.materialize(c) {
                        fired += 1;
                        break;
                    }
                }
            }
        }
        for g in groups {
            left.extend(g.1);
        }
        self.st.last_skipped = left.len() as u64;
        left
    }

    /// English §8.3: the new candidates (sorted) are inserted into the Globalbox, whose queued
    /// fires keep their order; then fires are consumed from the head under the quotas, a fire
    /// over its target's quota staying queued. A queued fire whose timer left (cancelled,
    /// expired) is dropped when reached.
    ///
    /// Issue 31 (the drafts' per-block walk): the Globalbox is rebuilt once a block (a merge of
    /// the new fires, then one pass that consumes its head), not shifted once per inserted or
    /// consumed fire; the candidates are found by a hash of their ids, and the ones left are
    /// returned in id order, as the ordered map before did.
    fn globalbox(&mut self, cands: Vec<Cand>) -> Vec<Cand> {
        let h = self.env.height;
        let p = self.st.params;
        let queued: HashSet<TimerId> = self.st.globalbox.iter().map(|g| g.timer_id).collect();
        let mut by_id: HashMap<TimerId, Cand> = HashMap::with_capacity(cands.len());
        let mut new: Vec<GlobalFire> = Vec::new();
        for c in cands {
            if !queued.contains(&c.id) {
                let kind = self
                    .st
                    .meta
                    .get(&c.id)
                    .map_or("height", |m| m.kind.as_str());
                new.push(GlobalFire {
                    timer_id: c.id,
                    target: c.target,
                    anchor: c.anchor,
                    bid_fp: c.bid_fp,
                    score: c.score,
                    enqueued_at: h,
                    kind: kind.to_string(),
                });
            }
            by_id.insert(c.id, c);
        }
        drop(queued);
        let boxed = std::mem::take(&mut self.st.globalbox);
        let mut queue = insert_sorted(boxed, new, (p.w_age, p.w_bid), h);
        let mut fired = 0u32;
        let mut per: BTreeMap<Address, u32> = BTreeMap::new();
        let mut kept: Vec<GlobalFire> = Vec::with_capacity(queue.len());
        let mut rest = queue.drain(..);
        for e in rest.by_ref() {
            let (id, target) = (e.timer_id, e.target);
            let Some(c) = by_id.remove(&id) else {
                continue;
            };
            if per.get(&target).copied().unwrap_or(0) >= p.max_fires_per_target {
                by_id.insert(id, c);
                kept.push(e);
                continue;
            }
            if self.materialize(c) {
                fired += 1;
                *per.entry(target).or_default() += 1;
                if fired >= p.max_fires_per_block {
                    break;
                }
            }
        }
        kept.extend(rest);
        drop(queue);
        // Materializing queues nothing in the Globalbox (it was out of the state meanwhile).
        debug_assert!(self.st.globalbox.is_empty());
        self.st.globalbox = kept;
        self.st.last_skipped = by_id.len() as u64;
        let mut left: Vec<Cand> = by_id.into_values().collect();
        left.sort_unstable_by_key(|c| c.id);
        left
    }

    /// Materializes one candidate: checks and pre-charges its fee payer, derives its
    /// `deliver_id` (a duplicate is dropped, §9.2), concludes it and queues its Mailbox entry
    /// and fire. Returns whether it fired (an unfunded timer is removed and uses no quota).
    fn materialize(&mut self, c: Cand) -> bool {
        let (h, cfg, quote) = (self.env.height, self.env.cfg, self.env.quote);
        let (timer, keys) = match &c.src {
            Src::Due(d) => (self.queue.due(d).clone(), Vec::new()),
            Src::Watch => {
                let mut t = self.st.watches[&c.id].clone();
                let hit = &self.st.hits[&c.id];
                t.height = hit.height;
                (t, hit.keys.clone())
            }
        };
        let budget = eob::fire_budget(&timer, cfg);
        let cost = eob::max_cost(budget, cfg.max_cells_per_fire, quote, 0);
        let available = self.ledger.balance(&timer.fee_payer);
        if available < cost {
            match c.src {
                Src::Due(d) => {
                    let r = Removal {
                        height: h,
                        expired: false,
                        required: cost,
                        available,
                    };
                    let q = &mut *self.queue;
                    eob::remove_under_gc(self.out, &mut self.carried, q, d, &mut self.gc_left, r);
                    if !self.queue.contains(&c.id) {
                        self.st.forget(&c.id);
                    }
                }
                Src::Watch => {
                    self.out.stats.unfunded += 1;
                    self.out
                        .events
                        .push(TimerEvent::TimerCancelledInsufficientFunds {
                            timer_id: c.id,
                            actor: timer.actor_address,
                            fee_payer: timer.fee_payer,
                            required: cost,
                            available,
                        });
                    self.st.forget(&c.id);
                }
            }
            return false;
        }
        let meta = self.st.meta.get(&c.id).cloned();
        let fire_seq = meta.as_ref().map_or(0, |m| m.fire_seq);
        let did = hex::encode(deliver_id(h, &self.st.parent_root, &c.id, fire_seq));
        if !self.seen.insert(did.clone()) {
            // §9.2: a duplicate materialization is dropped (the dedup by id makes it
            // unreachable; a due timer would be carried).
            if let Src::Due(d) = c.src {
                self.carried.push(d);
            }
            return false;
        }
        self.ledger.debit(&timer.fee_payer, cost);
        let timer = match c.src {
            Src::Due(d) => self.queue.conclude(d),
            Src::Watch => timer,
        };
        if let Some(m) = self.st.meta.get_mut(&c.id) {
            m.fire_seq += 1;
            m.last_fire_height = Some(h);
        }
        let kind = meta.map_or(DraftKind::Height, |m| m.kind);
        match kind {
            DraftKind::Interval { every } => {
                // zh §11: the next due height is the executing height + every_blocks. It
                // re-arms at the end of the block if that height is within its `expires_at`
                // as the block's handlers left it (Spec note 138, `Engine::after_fires`).
                let mut t = timer.clone();
                t.height = h.saturating_add(every);
                self.st.rearm.push(t);
            }
            DraftKind::Watch { .. } => {
                self.st.hits.remove(&c.id);
                if self.env.variants.watch_after_fire == WatchAfterFire::Once {
                    self.st.forget(&c.id);
                }
            }
            DraftKind::Height => {
                self.st.forget(&c.id);
            }
        }
        self.out.stats.fired += 1;
        self.out.stats.lane_reserved += budget;
        let entry = MailboxEntry {
            deliver_id: did,
            deliver_seq: 0,
            height: h,
            target: c.target,
            timer_id: c.id,
            fire_seq,
            kind: kind.as_str().to_string(),
            due_height: c.anchor,
            matched_keys: keys,
            bid_fp: c.bid_fp,
            gas_limit: budget,
        };
        let price = eob::Price {
            budget,
            max_cost: cost,
            tip_per_cycle: 0,
            lane_basefee: 0,
        };
        let fire = Fire::new(timer, price, quote, cfg);
        self.fires.push((entry, fire));
        true
    }
}

/// A Globalbox fire's place in the total order at height `h` (its score now).
fn box_key(w: (u64, u64), h: u64, e: &GlobalFire) -> OrderKey<'_> {
    let cur = score((w.0, w.1, 0), h.saturating_sub(e.anchor), e.bid_fp, 0);
    order_key(cur, e.anchor, &e.target, &e.timer_id)
}

/// Inserts the fires of `new`, in their order, each before the first fire of `queued` that
/// ranks below it (English §8.3 as first written).
fn insert_one_by_one(
    mut queued: Vec<GlobalFire>,
    new: Vec<GlobalFire>,
    w: (u64, u64),
    h: u64,
) -> Vec<GlobalFire> {
    for g in new {
        let at = queued.partition_point(|e| box_key(w, h, e) <= box_key(w, h, &g));
        queued.insert(at, g);
    }
    queued
}

/// The Globalbox with `new` inserted (English §8.3), as inserting each new fire in its sorted
/// order before the first fire that ranks below it leaves it. A new fire's score was taken at
/// this height, so one key orders both. The queued fires' order under this block's scores is
/// kept from one block to the next (every age grows by one), so the two sorted lists are
/// merged in one pass; where it is not (a score saturated at `u128::MAX`), the fires are
/// inserted one by one, as before.
fn insert_sorted(
    queued: Vec<GlobalFire>,
    mut new: Vec<GlobalFire>,
    w: (u64, u64),
    h: u64,
) -> Vec<GlobalFire> {
    if new.is_empty() {
        return queued;
    }
    new.sort_by(|a, b| box_key(w, h, a).cmp(&box_key(w, h, b)));
    let sorted = queued
        .windows(2)
        .all(|p| box_key(w, h, &p[0]) < box_key(w, h, &p[1]));
    if !sorted {
        return insert_one_by_one(queued, new, w, h);
    }
    let mut out = Vec::with_capacity(queued.len() + new.len());
    let mut new = new.into_iter().peekable();
    for e in queued {
        let k = box_key(w, h, &e);
        while let Some(g) = new.next_if(|g| box_key(w, h, g) <= k) {
            out.push(g);
        }
        out.push(e);
    }
    out.extend(new);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fire(i: u8, anchor: u64, bid: u128, target: u8) -> GlobalFire {
        GlobalFire {
            timer_id: TimerId([i; 32]),
            target: Address([target; 20]),
            anchor,
            bid_fp: bid,
            score: 0,
            enqueued_at: 0,
            kind: "height".into(),
        }
    }

    /// English §8.3's insertion as first written: the new fires in the total order, each
    /// inserted before the first queued fire that ranks below it.
    fn one_by_one(
        queued: Vec<GlobalFire>,
        mut new: Vec<GlobalFire>,
        w: (u64, u64),
        h: u64,
    ) -> Vec<GlobalFire> {
        new.sort_by(|a, b| box_key(w, h, a).cmp(&box_key(w, h, b)));
        insert_one_by_one(queued, new, w, h)
    }

    proptest! {
        /// The merge leaves the Globalbox as the one-by-one insertion does, whether the
        /// queued fires are in order (the usual case) or not (scores saturated at `u128::MAX`
        /// by a large `W_age`).
        #[test]
        fn merge_is_the_one_by_one_insertion(
            fires in proptest::collection::vec((0u64..6, 0u128..4, 0u8..3), 0..24),
            split in 0usize..24,
            sort_queued in any::<bool>(),
            w_age in prop_oneof![Just(1u64), Just(u64::MAX)],
            h in 0u64..8,
        ) {
            let w = (w_age, 1);
            let all: Vec<GlobalFire> = fires
                .iter()
                .enumerate()
                .map(|(i, &(a, b, t))| fire(i as u8, a, b << 96, t))
                .collect();
            let split = split.min(all.len());
            let (mut queued, new) = (all[..split].to_vec(), all[split..].to_vec());
            if sort_queued {
                queued.sort_by(|a, b| box_key(w, h, a).cmp(&box_key(w, h, b)));
            }
            let ids = |v: &[GlobalFire]| v.iter().map(|g| g.timer_id).collect::<Vec<_>>();
            prop_assert_eq!(
                ids(&insert_sorted(queued.clone(), new.clone(), w, h)),
                ids(&one_by_one(queued, new, w, h))
            );
        }
    }
}
