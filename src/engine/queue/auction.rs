//! The `eip1559` auction's indexes of the carried timers (issue 31, Spec note 188; also
//! `cip1-v1`'s, Spec note 219): what lets a block of the auction find, without walking the
//! backlog, the carried timers it must price one by one, and take the others in auction order
//! from the top.
//!
//! A carried timer is *plain* when it has no fee parameter of its own: priced by the default
//! GBA (when its actor has no custom one), every plain timer of a block has the same
//! `(max_fee, max_priority)`, so the same priority per cycle and the same `max_cost` for the
//! same budget; its effective priority differs only by W(actor), so within an actor the
//! auction orders plain timers by id. The indexes (all kept as members join and leave):
//!
//! * members per height: the oldest carried height (the block's backlog summary);
//! * members per `gas_limit_per_fire`: the smallest budget (when the lane can take no more);
//!   the budgets over the per-fire cap are found per fee payer in the carry queue's own index;
//! * per actor, by id: the plain timers in auction order (W(actor) is one number per actor);
//! * per actor and last reason: the timers whose reason changes in the block, and the
//!   deferrals per actor of the fairness window (§3 step 10); with the sum of their scheduled
//!   heights (the lateness of CIP-1 v1's EMA score);
//! * the timers with fee parameters of their own (priced one by one every block).

use super::{CalendarQueue, DueTimer};
use crate::engine::events::DeferReason;
use crate::engine::timer::Timer;
use crate::engine::types::{Address, TimerId};
use std::collections::{BTreeMap, BTreeSet};

/// The reason code of a last reason (`None`: never deferred, as a reason of its own).
fn code(r: Option<DeferReason>) -> u8 {
    match r {
        Some(DeferReason::Lane) => LANE,
        Some(DeferReason::GcBudget) => GC_BUDGET,
        Some(DeferReason::Outbid) => OUTBID,
        Some(DeferReason::OverCap) => 3,
        Some(DeferReason::BelowBasefee) => 4,
        Some(DeferReason::Budget) => 5,
        Some(DeferReason::Underfunded) => 6,
        Some(DeferReason::Quota) => 7,
        None => 8,
    }
}

fn last_reason(t: &Timer) -> Option<DeferReason> {
    t.carry().1
}

const LANE: u8 = 0;
const GC_BUDGET: u8 = 1;
const OUTBID: u8 = 2;

/// The indexes (see the module docs); members are the carry queue's. Kept only once `on`
/// (the first block of the auction builds them, [`CalendarQueue::ensure_auction_index`]), so a
/// chain that never runs the auction never pays for them (issue 31, brief "carry").
#[derive(Debug, Default)]
pub(super) struct AuctionIndex {
    on: bool,
    /// Members per scheduled height.
    by_height: BTreeMap<u64, u32>,
    /// Members per `gas_limit_per_fire`.
    by_gas: BTreeMap<u64, u32>,
    by_actor: BTreeMap<Address, BTreeSet<(TimerId, u32)>>,
    by_actor_reason: BTreeMap<(Address, u8), BTreeSet<u32>>,
    /// Per actor and last reason, the sum of the members' scheduled heights (CIP-1 v1's
    /// lateness of the carried timers, issue 31).
    heights: BTreeMap<(Address, u8), u128>,
    priced: BTreeSet<u32>,
}

fn has_fees(t: &Timer) -> bool {
    t.fee_caps.as_deref().is_some_and(|c| c.has_fees())
}

impl AuctionIndex {
    pub(super) fn is_on(&self) -> bool {
        self.on
    }

    /// Rough heap bytes (none while off: a clone's until its first auction).
    pub(super) fn bytes(&self) -> usize {
        use super::views::btree_bytes;
        use std::mem::size_of;
        if !self.on {
            return 0;
        }
        let sets = |n: usize, entry: usize, sets: usize, key: usize| {
            btree_bytes(sets, key + size_of::<BTreeSet<u32>>()) + btree_bytes(n, entry)
        };
        let by_actor: usize = self.by_actor.values().map(BTreeSet::len).sum();
        let by_reason: usize = self.by_actor_reason.values().map(BTreeSet::len).sum();
        btree_bytes(self.by_height.len(), size_of::<(u64, u32)>())
            + btree_bytes(self.by_gas.len(), size_of::<(u64, u32)>())
            + sets(
                by_actor,
                size_of::<(TimerId, u32)>(),
                self.by_actor.len(),
                size_of::<Address>(),
            )
            + sets(
                by_reason,
                size_of::<u32>(),
                self.by_actor_reason.len(),
                size_of::<(Address, u8)>(),
            )
            + btree_bytes(self.heights.len(), size_of::<((Address, u8), u128)>())
            + btree_bytes(self.priced.len(), size_of::<u32>())
    }

    pub(super) fn turn_on(&mut self) {
        self.on = true;
    }

    pub(super) fn add(&mut self, slot: u32, t: &Timer) {
        if !self.on {
            return;
        }
        *self.by_height.entry(t.height).or_insert(0) += 1;
        *self.by_gas.entry(t.gas_limit_per_fire).or_insert(0) += 1;
        let a = t.actor_address;
        self.by_actor
            .entry(a)
            .or_default()
            .insert((t.timer_id, slot));
        self.by_actor_reason
            .entry((a, code(last_reason(t))))
            .or_default()
            .insert(slot);
        self.file_height(a, code(last_reason(t)), t.height);
        if has_fees(t) {
            self.priced.insert(slot);
        }
    }

    pub(super) fn forget(&mut self, slot: u32, t: &Timer) {
        if !self.on {
            return;
        }
        uncount(&mut self.by_height, t.height);
        uncount(&mut self.by_gas, t.gas_limit_per_fire);
        let a = t.actor_address;
        if let Some(set) = self.by_actor.get_mut(&a) {
            set.remove(&(t.timer_id, slot));
            if set.is_empty() {
                self.by_actor.remove(&a);
            }
        }
        self.unfile(a, code(last_reason(t)), slot);
        self.unfile_height(a, code(last_reason(t)), t.height);
        self.priced.remove(&slot);
    }

    fn file_height(&mut self, a: Address, c: u8, height: u64) {
        *self.heights.entry((a, c)).or_insert(0) += height as u128;
    }

    fn unfile_height(&mut self, a: Address, c: u8, height: u64) {
        if let Some(sum) = self.heights.get_mut(&(a, c)) {
            *sum -= height as u128;
            if !self.by_actor_reason.contains_key(&(a, c)) {
                self.heights.remove(&(a, c));
            }
        }
    }

    fn unfile(&mut self, a: Address, c: u8, slot: u32) {
        if let Some(set) = self.by_actor_reason.get_mut(&(a, c)) {
            set.remove(&slot);
            if set.is_empty() {
                self.by_actor_reason.remove(&(a, c));
            }
        }
    }

    pub(super) fn reason_changed(
        &mut self,
        slot: u32,
        t: &Timer,
        before: Option<DeferReason>,
        now: Option<DeferReason>,
    ) {
        if !self.on {
            return;
        }
        let a = t.actor_address;
        self.unfile(a, code(before), slot);
        self.unfile_height(a, code(before), t.height);
        self.by_actor_reason
            .entry((a, code(now)))
            .or_default()
            .insert(slot);
        self.file_height(a, code(now), t.height);
    }

    /// The lowest scheduled height among the members (0 if none).
    pub(super) fn oldest_height(&self) -> u64 {
        debug_assert!(self.on, "auction index read before it was built");
        self.by_height.first_key_value().map_or(0, |e| *e.0)
    }

    pub(super) fn gas_changed(&mut self, t: &Timer, old: u64) {
        if !self.on {
            return;
        }
        uncount(&mut self.by_gas, old);
        *self.by_gas.entry(t.gas_limit_per_fire).or_insert(0) += 1;
    }
}

/// One member fewer under `key` in a count map.
fn uncount(map: &mut BTreeMap<u64, u32>, key: u64) {
    if let Some(c) = map.get_mut(&key) {
        *c -= 1;
        if *c == 0 {
            map.remove(&key);
        }
    }
}

/// A carried timer named by the auction's indexes (its id and where it is kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Member {
    pub id: TimerId,
    slot: u32,
}

impl Member {
    /// Where the member is kept: a number below [`CalendarQueue::auction_slot_bound`], one per
    /// live timer (a bit set of members needs no map).
    pub fn index(self) -> usize {
        self.slot as usize
    }
}

/// The carried timers a block of the auction prices one by one ([`CalendarQueue::auction_visit`]).
#[derive(Debug, Default)]
pub struct AuctionVisit {
    /// In the carry queue's order (the block's bucket order).
    pub due: Vec<DueTimer>,
    slots: BTreeSet<u32>,
}

/// What [`CalendarQueue::auction_visit`] asks about the block.
pub struct VisitQuery<'a> {
    pub height: u64,
    /// Budgets above this `gas_limit_per_fire` are over the per-fire cap (`None`: none is).
    pub over_cap_above: Option<u64>,
    pub balance: &'a dyn Fn(&Address) -> u128,
    /// A plain timer's `max_cost` for its `gas_limit_per_fire` (nondecreasing).
    pub cost: &'a dyn Fn(u64) -> u128,
    /// Whether the actor has a custom GBA (its plain timers are priced one by one).
    pub has_gba: &'a dyn Fn(&Address) -> bool,
    /// The last reasons a plain timer the block does not price keeps (`lane` and `outbid`
    /// under `eip1559`, `budget` under `cip1-v1`); a member with any other is priced.
    pub plain_reasons: &'a [DeferReason],
}

impl CalendarQueue {
    /// The members a block of the auction must price one by one: expired ones, the ones whose
    /// fee payer holds less than a plain timer's `max_cost` of their budget (per payer, the
    /// largest budget first), budgets over the per-fire cap, last reasons other than the
    /// query's plain ones (`lane` and `outbid` under `eip1559`, `budget` under `cip1-v1`), fee
    /// parameters of their own, and every member of an actor with a custom GBA. The cost
    /// follows the payers and actors with members and the timers found.
    pub fn auction_visit(&mut self, q: VisitQuery<'_>) -> AuctionVisit {
        self.ensure_carry_indexes();
        self.ensure_auction_index();
        let a = &self.carry.auction;
        let mut slots: BTreeSet<u32> = a.priced.clone();
        slots.extend(self.carry_by_expiry(q.height));
        self.carry_unfunded(q.balance, q.cost, &mut slots);
        if let Some(g) = q.over_cap_above {
            for set in self.carry.idx.by_payer.values() {
                slots.extend(set.range((g.saturating_add(1), 0)..).map(|e| e.1));
            }
        }
        for ((_, c), set) in &a.by_actor_reason {
            if !q.plain_reasons.iter().any(|r| code(Some(*r)) == *c) {
                slots.extend(set.iter().copied());
            }
        }
        for (actor, set) in &a.by_actor {
            if (q.has_gba)(actor) {
                slots.extend(set.iter().map(|e| e.1));
            }
        }
        let mut order: Vec<(u64, u32)> = slots.iter().map(|&s| (self.carry_pos_of(s), s)).collect();
        order.sort_unstable();
        AuctionVisit {
            due: order.into_iter().map(|(_, s)| DueTimer(s)).collect(),
            slots,
        }
    }

    /// The actors with carried timers, ascending.
    pub fn auction_actors(&self) -> Vec<Address> {
        self.carry.auction.by_actor.keys().copied().collect()
    }

    /// The first carried timer of `actor` after `after` in id order that `visit` does not
    /// price one by one.
    pub fn auction_next(
        &self,
        actor: &Address,
        after: Option<Member>,
        visit: &AuctionVisit,
    ) -> Option<Member> {
        let set = self.carry.auction.by_actor.get(actor)?;
        let mut it: Box<dyn Iterator<Item = &(TimerId, u32)>> = match after {
            None => Box::new(set.iter()),
            Some(m) => Box::new(set.range((
                std::ops::Bound::Excluded((m.id, m.slot)),
                std::ops::Bound::Unbounded,
            ))),
        };
        it.find(|e| !visit.slots.contains(&e.1))
            .map(|&(id, slot)| Member { id, slot })
    }

    /// A member's timer.
    pub fn auction_member(&self, m: Member) -> &Timer {
        self.slots[m.slot as usize]
            .timer
            .as_ref()
            .expect("live member")
    }

    /// A member as a due timer of the block (to fire it).
    pub fn auction_take(&self, m: Member) -> DueTimer {
        DueTimer(m.slot)
    }

    /// The smallest `gas_limit_per_fire` among the carried timers.
    pub fn auction_min_gas(&self) -> Option<u64> {
        debug_assert!(
            self.carry.auction.on,
            "auction index read before it was built"
        );
        self.carry.auction.by_gas.first_key_value().map(|e| *e.0)
    }

    /// The members of `actor` that `visit` does not price and whose last reason is `lane` or
    /// `outbid` but not `keep`: the ones whose reason changes to `keep`.
    pub fn auction_flips(
        &self,
        actor: Address,
        keep: DeferReason,
        visit: &AuctionVisit,
    ) -> Vec<DueTimer> {
        let other = if code(Some(keep)) == LANE {
            OUTBID
        } else {
            LANE
        };
        self.carry
            .auction
            .by_actor_reason
            .get(&(actor, other))
            .into_iter()
            .flatten()
            .filter(|s| !visit.slots.contains(s))
            .map(|&s| DueTimer(s))
            .collect()
    }

    /// The members per actor whose last reason is not `gc_budget` (the execution lane's
    /// deferrals of the fairness window, §3 step 10), actors with none left out.
    pub fn auction_deferrals_by_actor(&self) -> BTreeMap<Address, u32> {
        let mut out: BTreeMap<Address, u32> = BTreeMap::new();
        for ((a, c), set) in &self.carry.auction.by_actor_reason {
            if *c != GC_BUDGET && !set.is_empty() {
                *out.entry(*a).or_insert(0) += set.len() as u32;
            }
        }
        out
    }

    /// The members per actor whose last reason is not `gc_budget` (as
    /// [`auction_deferrals_by_actor`](Self::auction_deferrals_by_actor)), and the sum of
    /// their scheduled heights (CIP-1 v1's lateness, issue 31).
    pub fn auction_deferred_heights_by_actor(
        &self,
    ) -> (BTreeMap<Address, u32>, BTreeMap<Address, u128>) {
        let mut heights: BTreeMap<Address, u128> = BTreeMap::new();
        for ((a, c), sum) in &self.carry.auction.heights {
            if *c != GC_BUDGET {
                *heights.entry(*a).or_insert(0) += *sum;
            }
        }
        (self.auction_deferrals_by_actor(), heights)
    }

    /// Issue 31, the auction's page of the carried bucket (Spec note 217): the members with
    /// fee parameters of their own with their timers and their places in the carry queue's
    /// order (the bucket's), in no order (the page sorts only what it shows); `None` while
    /// the indexes are not built (no block of the auction ran them yet).
    pub fn auction_priced(&self) -> Option<Vec<(u64, Member, &Timer)>> {
        let a = &self.carry.auction;
        if !a.is_on() {
            return None;
        }
        Some(
            a.priced
                .iter()
                .map(|&slot| {
                    let t = self.slots[slot as usize]
                        .timer
                        .as_ref()
                        .expect("live member");
                    let m = Member {
                        id: t.timer_id,
                        slot,
                    };
                    (self.carry_pos_of(slot), m, t)
                })
                .collect(),
        )
    }

    /// Each actor with carried timers (ascending) and how many it has (fee parameters or
    /// not): counted by the index, never walked.
    pub fn auction_runs(&self) -> impl Iterator<Item = (Address, usize)> + '_ {
        self.carry
            .auction
            .by_actor
            .iter()
            .map(|(a, s)| (*a, s.len()))
    }

    /// The carried timers of `actor` in id order, from `from` on.
    pub fn auction_run(&self, actor: &Address, from: TimerId) -> impl Iterator<Item = Member> + '_ {
        self.carry
            .auction
            .by_actor
            .get(actor)
            .into_iter()
            .flat_map(move |s| s.range((from, 0)..))
            .map(|&(id, slot)| Member { id, slot })
    }

    /// One above the largest [`Member::index`].
    pub fn auction_slot_bound(&self) -> usize {
        self.slots.len()
    }
}
