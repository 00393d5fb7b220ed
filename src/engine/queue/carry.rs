//! The carry queue: the timers carried from earlier heights (deferred by the lane, or left
//! over by the GC budget, CIP-5 §6.5, §8), kept in one persistent FIFO in firing order instead
//! of being moved from bucket to bucket, with the indexes that let a block find, without
//! walking the backlog, the few carried timers whose outcome can change in it:
//!
//! * by `expires_at`: the ones that expire (CIP-5 §5.4 path 3);
//! * by fee payer, and within a payer by `gas_limit_per_fire`: the ones whose fee payer can no
//!   longer pay their `max_cost` (path 2), the largest budget first;
//! * the ones whose last reason is not `lane` (a reason that changes when they are carried by
//!   a closed FIFO lane).
//!
//! A carried timer that is none of these stays deferred by the lane and nothing about it
//! changes in the block: its leaf, its event record (Spec note 71) and its place are left as
//! they are. The carry queue is derived from the timer set (the pending timers below
//! `next_height`, in `(height, seq)` order), so it adds nothing to the state root, the dumps
//! or the state files (see [`super::CalendarQueue::dump`]).

use super::auction::AuctionIndex;
use super::tally::BucketTally;
use super::{CalendarQueue, DueTimer, Handle, Place};
use crate::engine::events::DeferReason;
use crate::engine::timer::Timer;
use crate::engine::types::Address;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The carry queue and its indexes (see the module docs). Members are the timers whose
/// `Meta::carried` is set; the queue itself may hold stale handles of members that left.
///
/// Issue 31 (brief "carry"): the indexes are derived from the members, so a clone (a history
/// checkpoint, a snapshot, a past read's replay) does not copy them: it gets them *stale*, and
/// rebuilds them from its carry queue the first time a block asks ([`CalendarQueue::
/// ensure_carry_indexes`]); the auction's are built only once an auction block asks for them
/// (a `fifo` chain never does). What the indexes answer is the same either way.
#[derive(Debug, Default)]
pub(super) struct Carry {
    pub(super) queue: VecDeque<CarryHandle>,
    /// Handles pushed at the back and at the front so far: a member's position in the queue
    /// (`Meta::carry_pos`) is `2^63 + backs` or `2^63 − 1 − fronts`, so positions follow the
    /// queue's order.
    backs: u64,
    fronts: u64,
    /// Members (live carried timers).
    pub(super) live: usize,
    /// Members per last reason, in [`reason_index`] order.
    reasons: [u64; 8],
    /// Members and their gas limits (issue 31, see [`super::tally`]).
    pub(super) tally: BucketTally,
    pub(super) idx: CarryIndexes,
    /// The `eip1559` auction's indexes of the members (issue 31).
    pub(super) auction: AuctionIndex,
}

impl Clone for Carry {
    /// The queue and the counts; the indexes are left to be rebuilt (see [`Carry`]).
    fn clone(&self) -> Self {
        Carry {
            queue: self.queue.clone(),
            backs: self.backs,
            fronts: self.fronts,
            live: self.live,
            reasons: self.reasons,
            tally: self.tally,
            idx: CarryIndexes {
                stale: true,
                ..Default::default()
            },
            auction: AuctionIndex::default(),
        }
    }
}

/// The carry queue's own indexes. Keys are compact (issue 31): a member's slot names it, and
/// its `(height, seq)` is read from the slab where an order needs it.
#[derive(Debug, Default)]
pub(super) struct CarryIndexes {
    /// Not kept up to date (a clone's): rebuilt before it is read.
    stale: bool,
    /// `(expires_at, slot)` of every member.
    by_expiry: BTreeSet<(u64, u32)>,
    /// Per fee payer, `(gas_limit_per_fire, slot)` of its members.
    pub(super) by_payer: BTreeMap<Address, BTreeSet<(u64, u32)>>,
    /// The members whose last reason is not `lane`.
    not_lane: BTreeSet<u32>,
}

impl CarryIndexes {
    /// Rough heap bytes (none while stale).
    fn bytes(&self) -> usize {
        use super::views::btree_bytes;
        use std::mem::size_of;
        if self.stale {
            return 0;
        }
        let payers: usize = self
            .by_payer
            .values()
            .map(|s| btree_bytes(s.len(), size_of::<(u64, u32)>()))
            .sum();
        btree_bytes(self.by_expiry.len(), size_of::<(u64, u32)>())
            + btree_bytes(
                self.by_payer.len(),
                size_of::<(Address, BTreeSet<(u64, u32)>)>(),
            )
            + payers
            + btree_bytes(self.not_lane.len(), size_of::<u32>())
    }

    fn add(&mut self, slot: u32, t: &Timer) {
        if self.stale {
            return;
        }
        self.by_expiry.insert((t.expires_at, slot));
        self.by_payer
            .entry(t.fee_payer)
            .or_default()
            .insert((t.gas_limit_per_fire, slot));
        if last_reason(t) != Some(DeferReason::Lane) {
            self.not_lane.insert(slot);
        }
    }

    fn forget(&mut self, slot: u32, t: &Timer) {
        if self.stale {
            return;
        }
        self.by_expiry.remove(&(t.expires_at, slot));
        if let Some(set) = self.by_payer.get_mut(&t.fee_payer) {
            set.remove(&(t.gas_limit_per_fire, slot));
            if set.is_empty() {
                self.by_payer.remove(&t.fee_payer);
            }
        }
        self.not_lane.remove(&slot);
    }
}

/// A carry-queue handle: live while the slot's generation and carry position match.
#[derive(Clone, Copy, Debug)]
pub(super) struct CarryHandle {
    pub(super) h: Handle,
    pub(super) pos: u64,
}

const MID: u64 = 1 << 63;

fn reason_index(r: Option<DeferReason>) -> usize {
    match r {
        Some(DeferReason::Lane) | None => 0,
        Some(DeferReason::GcBudget) => 1,
        Some(DeferReason::Outbid) => 2,
        Some(DeferReason::OverCap) => 3,
        Some(DeferReason::BelowBasefee) => 4,
        Some(DeferReason::Budget) => 5,
        Some(DeferReason::Underfunded) => 6,
        Some(DeferReason::Quota) => 7,
    }
}

fn last_reason(t: &Timer) -> Option<DeferReason> {
    t.carry().1
}

/// The carried timers as a block leaves them (for its backlog summary, Spec note 71).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CarriedSummary {
    pub count: u64,
    /// The lowest scheduled height among them (0 if none).
    pub oldest_height: u64,
    /// Counts by last reason: lane, gc_budget, outbid, over_cap, below_basefee.
    pub reasons: [u64; 8],
}

impl Carry {
    /// Rough heap bytes a clone copies (issue 31, checkpoints bounded by bytes): the carry
    /// queue's handles (a clone rebuilds the indexes rather than copy them, see [`Carry`]).
    pub(super) fn clone_bytes(&self) -> usize {
        self.queue.len() * std::mem::size_of::<CarryHandle>()
    }

    /// Rough heap bytes of the indexes, when built (a clone's are not until first use).
    pub(super) fn index_bytes(&self) -> usize {
        self.idx.bytes() + self.auction.bytes()
    }

    fn add(&mut self, slot: u32, t: &Timer) {
        self.live += 1;
        self.tally.add(t.gas_limit_per_fire);
        self.reasons[reason_index(last_reason(t))] += 1;
        self.idx.add(slot, t);
        self.auction.add(slot, t);
    }

    pub(super) fn forget(&mut self, slot: u32, t: &Timer) {
        self.live -= 1;
        self.tally.remove(t.gas_limit_per_fire);
        self.reasons[reason_index(last_reason(t))] -= 1;
        self.idx.forget(slot, t);
        self.auction.forget(slot, t);
    }
}

impl CalendarQueue {
    /// Rebuilds the carry queue's indexes if they are stale (a clone's, see [`Carry`]), from
    /// the members' live handles: every member has one between blocks.
    pub(super) fn ensure_carry_indexes(&mut self) {
        if !self.carry.idx.stale {
            return;
        }
        let mut idx = CarryIndexes::default();
        let mut n = 0;
        for c in &self.carry.queue {
            if self.carry_live(c) {
                let t = self.slots[c.h.slot as usize].timer.as_ref().expect("live");
                idx.add(c.h.slot, t);
                n += 1;
            }
        }
        debug_assert_eq!(n, self.carry.live, "a member without a live handle");
        self.carry.idx = idx;
    }

    /// Builds the auction's indexes of the members if they are not kept yet (see [`Carry`]).
    pub(super) fn ensure_auction_index(&mut self) {
        if self.carry.auction.is_on() {
            return;
        }
        let mut a = AuctionIndex::default();
        a.turn_on();
        for c in &self.carry.queue {
            if self.carry_live(c) {
                let t = self.slots[c.h.slot as usize].timer.as_ref().expect("live");
                a.add(c.h.slot, t);
            }
        }
        self.carry.auction = a;
    }

    /// Makes the timer in `slot` a member of the carry queue (if it is not one yet) and puts
    /// its handle at the back.
    pub(super) fn enlist(&mut self, slot: u32) {
        self.join_carry(slot);
        let pos = MID + self.carry.backs;
        self.carry.backs += 1;
        let c = self.place_carried(slot, pos);
        self.carry.queue.push_back(c);
    }

    /// Makes the timer in `slot` a member (if it is not one yet).
    fn join_carry(&mut self, slot: u32) {
        if !self.slots[slot as usize].meta.carried() {
            self.slots[slot as usize].meta.place = Place::Carried;
            let t = self.slots[slot as usize].timer.as_ref().expect("live slot");
            self.carry.add(slot, t);
        }
    }

    /// Gives a member its position `pos` (its older handle, if any, goes stale).
    fn place_carried(&mut self, slot: u32, pos: u64) -> CarryHandle {
        let meta = &mut self.slots[slot as usize].meta;
        meta.carry_pos = pos;
        CarryHandle {
            h: Handle {
                slot,
                generation: meta.generation,
            },
            pos,
        }
    }

    /// Puts due timers at the front of the carry queue, in the order given, ahead of every
    /// member (members among them move: their older handles go stale).
    pub fn carry_to_front(&mut self, front: Vec<DueTimer>) {
        for d in front.into_iter().rev() {
            self.join_carry(d.0);
            let pos = MID - 1 - self.carry.fronts;
            self.carry.fronts += 1;
            let c = self.place_carried(d.0, pos);
            self.carry.queue.push_front(c);
        }
        self.compact_carry();
    }

    /// Drops the stale handles once they outnumber the members (amortized: each handle is
    /// dropped once).
    fn compact_carry(&mut self) {
        if self.carry.queue.len() <= 2 * self.carry.live + 64 {
            return;
        }
        let mut q = std::mem::take(&mut self.carry.queue);
        q.retain(|c| self.carry_live(c));
        self.carry.queue = q;
    }

    /// Whether a carry-queue handle still names a member at that place.
    pub(super) fn carry_live(&self, c: &CarryHandle) -> bool {
        let s = &self.slots[c.h.slot as usize];
        s.meta.generation == c.h.generation
            && s.timer.is_some()
            && s.meta.carried()
            && s.meta.carry_pos == c.pos
    }

    /// A member's position in the carry queue (the order of the block's bucket).
    pub(super) fn carry_pos_of(&self, slot: u32) -> u64 {
        self.slots[slot as usize].meta.carry_pos
    }

    /// Takes the timer in `slot` out of the carry queue's indexes (its handle, if any, is left
    /// to go stale or be re-pushed by the caller).
    pub(super) fn delist(&mut self, slot: u32, t: &Timer) {
        let meta = &mut self.slots[slot as usize].meta;
        if meta.carried() {
            meta.place = Place::Due;
            self.carry.forget(slot, t);
        }
    }

    /// Re-indexes a member whose `expires_at` changes from `old` (an extension).
    pub(super) fn carried_expiry_changed(&mut self, slot: u32, old: u64) {
        if !self.slots[slot as usize].meta.carried() {
            return;
        }
        let t = self.slots[slot as usize].timer.as_ref().expect("live slot");
        let idx = &mut self.carry.idx;
        if !idx.stale {
            idx.by_expiry.remove(&(old, slot));
            idx.by_expiry.insert((t.expires_at, slot));
        }
    }

    /// Re-indexes a member whose `gas_limit_per_fire` changes from `old` (a draft timer's
    /// idempotent repeat, English §6.2).
    pub(super) fn carried_gas_changed(&mut self, slot: u32, old: u64) {
        if !self.slots[slot as usize].meta.carried() {
            self.tally_regas(slot, old);
            return;
        }
        let t = self.slots[slot as usize].timer.as_ref().expect("live slot");
        self.carry.tally.regas(old, t.gas_limit_per_fire);
        let idx = &mut self.carry.idx;
        if !idx.stale
            && let Some(set) = idx.by_payer.get_mut(&t.fee_payer)
        {
            set.remove(&(old, slot));
            set.insert((t.gas_limit_per_fire, slot));
        }
        self.carry.auction.gas_changed(t, old);
    }

    /// Re-indexes a due timer whose last reason changed from `before` (it is now its record's
    /// `last_defer`). Nothing to do for a timer that is not a member yet.
    pub fn carried_reason_changed(&mut self, due: &DueTimer, before: Option<DeferReason>) {
        let slot = due.0;
        if !self.slots[slot as usize].meta.carried() {
            return;
        }
        let t = self.slots[slot as usize].timer.as_ref().expect("live slot");
        let now = last_reason(t);
        self.carry.reasons[reason_index(before)] -= 1;
        self.carry.reasons[reason_index(now)] += 1;
        let idx = &mut self.carry.idx;
        if !idx.stale {
            if now == Some(DeferReason::Lane) {
                idx.not_lane.remove(&slot);
            } else {
                idx.not_lane.insert(slot);
            }
        }
        self.carry.auction.reason_changed(slot, t, before, now);
    }

    /// Whether carried timers go to the carry queue (the default placement, Spec note 4) rather
    /// than behind the next height's own timers (variant `deferred_place = back`).
    pub fn carries_in_front(&self) -> bool {
        !self.carry_back
    }

    /// Takes the bucket of `height` (the next undrained height) out, without the carried
    /// timers, which stay in the carry queue: the timers due there, in FIFO order, and how many
    /// timers are due in all (carried members included).
    pub fn take_own_due(&mut self, height: u64) -> (Vec<DueTimer>, u64) {
        let carried = std::mem::take(&mut self.carry.queue);
        let own = self.take_due(height);
        self.carry.queue = carried;
        let due = own.len() as u64 + self.carry.live as u64;
        (own, due)
    }

    /// The first live timer of the carry queue, taken off it (it stays a member until it is
    /// concluded or its handle is put back with [`carry_put_front`](Self::carry_put_front)).
    pub fn carry_pop_front(&mut self) -> Option<DueTimer> {
        while let Some(c) = self.carry.queue.pop_front() {
            if self.carry_live(&c) {
                return Some(DueTimer(c.h.slot));
            }
        }
        None
    }

    /// Puts timers taken with [`carry_pop_front`](Self::carry_pop_front) back at the front,
    /// keeping their order.
    pub fn carry_put_front(&mut self, kept: Vec<DueTimer>) {
        for d in kept.into_iter().rev() {
            let pos = self.slots[d.0 as usize].meta.carry_pos;
            let c = self.place_carried(d.0, pos);
            self.carry.queue.push_front(c);
        }
    }

    /// Puts a due timer that was not concluded at the back of the carry queue.
    pub fn carry_push_back(&mut self, d: DueTimer) {
        self.enlist(d.0);
    }

    /// The members after `after` (a `(height, seq)` position in firing order) whose outcome
    /// may change in the block ending at `height`: expired ones, ones whose fee payer holds
    /// less than `cost(budget)` of their largest budget, and ones whose last reason is not
    /// `lane`, in firing order. The cost follows the fee payers with members and the timers
    /// found, not the members.
    pub fn carried_changes(
        &mut self,
        height: u64,
        after: (u64, u64),
        balance: &mut dyn FnMut(&Address) -> u128,
        cost: &dyn Fn(u64) -> u128,
    ) -> Vec<DueTimer> {
        self.ensure_carry_indexes();
        let mut found: BTreeSet<(u64, u64, u32)> = BTreeSet::new();
        let slots = &self.slots;
        let mut add = |slot: u32| {
            let t = slots[slot as usize].timer.as_ref().expect("a live member");
            if (t.height, t.seq) > after {
                found.insert((t.height, t.seq, slot));
            }
        };
        let idx = &self.carry.idx;
        for &(_, slot) in idx.by_expiry.range(..(height, 0)) {
            add(slot);
        }
        for (payer, set) in &idx.by_payer {
            let available = balance(payer);
            for &(gas, slot) in set.iter().rev() {
                if cost(gas) <= available {
                    break;
                }
                add(slot);
            }
        }
        for &slot in &idx.not_lane {
            add(slot);
        }
        found.into_iter().map(|(_, _, s)| DueTimer(s)).collect()
    }

    /// The members expired at `height` (`expires_at < height`), by `expires_at`.
    pub(super) fn carry_by_expiry(&self, height: u64) -> impl Iterator<Item = u32> + '_ {
        debug_assert!(!self.carry.idx.stale, "carry indexes read before a rebuild");
        self.carry.idx.by_expiry.range(..(height, 0)).map(|e| e.1)
    }

    /// Adds to `slots` the members whose fee payer holds less than `cost(gas_limit)`: per
    /// payer, its balance once and its largest budgets first.
    pub(super) fn carry_unfunded(
        &self,
        balance: &dyn Fn(&Address) -> u128,
        cost: &dyn Fn(u64) -> u128,
        slots: &mut BTreeSet<u32>,
    ) {
        debug_assert!(!self.carry.idx.stale, "carry indexes read before a rebuild");
        for (payer, set) in &self.carry.idx.by_payer {
            let available = balance(payer);
            for &(gas, slot) in set.iter().rev() {
                if cost(gas) <= available {
                    break;
                }
                slots.insert(slot);
            }
        }
    }

    /// The members, as a block that ends leaves them.
    pub fn carried_summary(&mut self) -> CarriedSummary {
        let mut oldest_height = 0;
        while let Some(c) = self.carry.queue.front() {
            if self.carry_live(c) {
                oldest_height = self.slots[c.h.slot as usize]
                    .timer
                    .as_ref()
                    .expect("live")
                    .height;
                break;
            }
            self.carry.queue.pop_front();
        }
        CarriedSummary {
            count: self.carry.live as u64,
            oldest_height,
            reasons: self.carry.reasons,
        }
    }

    /// The members as a block of the auction leaves them (its backlog summary), from the
    /// indexes: the carry queue's front is not the oldest under the auction.
    pub fn auction_summary(&self) -> CarriedSummary {
        CarriedSummary {
            count: self.carry.live as u64,
            oldest_height: self.carry.auction.oldest_height(),
            reasons: self.carry.reasons,
        }
    }

    /// A due timer's `(height, seq)`, its place in firing order.
    pub fn due_key(&self, d: &DueTimer) -> (u64, u64) {
        let t = self.due(d);
        (t.height, t.seq)
    }

    /// Live members of the carry queue in firing order (for views and dumps).
    pub(super) fn carried_handles(&self) -> impl Iterator<Item = &Handle> {
        self.carry
            .queue
            .iter()
            .filter(|c| self.carry_live(c))
            .map(|c| &c.h)
    }
}
