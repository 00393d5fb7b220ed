//! The three-tier calendar queue (CIP-1 v3 §2) holding pending timers.
//!
//! * Tier 1, the ring buffer: one FIFO bucket per height for the current epoch and the next.
//! * Tier 2, the epoch queue: one FIFO bucket per epoch for the following `epoch_slots − 1`
//!   epochs.
//! * Tier 3, the overflow sorted set: `(height, seq)`-ordered (sorted chunks, see [`overflow`])
//!   for everything later, with its own Merkle root.
//!
//! Timers live once, in a slab; buckets hold 8-byte generation-checked handles, so cancel and
//! extend find a timer through the id index without scanning, and a cancelled timer's handle is
//! simply skipped when its bucket is drained.
//!
//! **Records of a busy height sit together.** The slab is made of fixed pages of 64 records. A
//! ring bucket that already holds `BUSY_BUCKET` (512) handles takes the records of its further
//! timers in order from pages of its own, so a height with thousands of timers is written as a
//! few streams and drained as one, instead of touching one scattered record (a cache miss at a
//! million pending) per timer. Such a page is freed as a whole once every timer it held has left
//! (fired, removed, or carried on and concluded later). Quiet buckets and the epoch and overflow
//! tiers draw single slots from pooled pages, so a sparse schedule carries no page slack.
//!
//! **Amortized epoch maintenance.** During epoch `e` the queue migrates epoch `e+1` from the epoch
//! queue into the ring, and the overflow entries of epoch `e+S` into the epoch queue, a slice
//! per block (`ceil(remaining / blocks left in the epoch)`), so no block pays for a whole
//! epoch's migration. A tier's horizon moves only once its migration is complete, so a timer
//! scheduled meanwhile is appended behind the older ones of its height: FIFO order within a
//! height survives every migration.
//!
//! **Order of carried timers.** Spec note (open point 4, CIP-5 §6.5): a timer deferred by the lane
//! (or left over by the GC budget) keeps its original height and is carried to the *front* of
//! the next height's bucket, ahead of the timers originally due there, in its own FIFO order.
//! Every bucket is therefore ordered by `(original height, insertion seq)`: oldest due first.

mod auction;
mod carry;
mod commit;
mod departed;
mod dump;
mod maintain;
mod overflow;
mod parts;
mod slab;
mod tally;
mod update;
mod views;

pub use auction::{AuctionVisit, Member, VisitQuery};
pub use carry::CarriedSummary;
pub use departed::Departure;
pub use dump::QueueDump;
pub use parts::QueuePart;
use slab::{BUSY_BUCKET, NO_PAGE, Slab};

use super::config::QueueConfig;
use super::error::TimerError;
use super::merkle::{TimerCommitment, recycle};
use super::timer::Timer;
use super::types::{Address, TimerId};
use hashbrown::HashTable;
use std::collections::{BTreeMap, VecDeque};

/// Buckets of each timer commitment: `2^16`, so a million pending timers average ~15 leaves a
/// bucket.
const COMMIT_BITS: u32 = 16;

/// Removed timers whose index entries are deleted in one batch at the latest (see
/// `flush_retired`); normally a block's `maintain` flushes them first.
const RETIRED_FLUSH_AT: usize = 1 << 16;

/// Which tier a timer sits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    Ring,
    Epoch,
    Overflow,
}

/// A timer due in the block being ended, as [`CalendarQueue::take_due`] hands it out: only
/// the queue makes one, and it is used up by [`CalendarQueue::conclude`] or
/// [`CalendarQueue::carry`], so a due timer is never named by a bare slot number.
#[derive(Debug, PartialEq, Eq)]
pub struct DueTimer(u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Handle {
    slot: u32,
    generation: u32,
}

#[derive(Clone, Copy, Debug)]
struct Meta {
    generation: u32,
    tier: Tier,
    /// Which commitment holds the timer's leaf as of the last `commit`.
    committed: Side,
    /// A `Change::Dirty` for this slot is waiting for the next `commit`.
    dirty: bool,
    /// Which list holds the timer's live handle (see [`Place`]).
    place: Place,
    /// A member's place in the carry queue: only its handle with this position is live (a
    /// member moved to the front leaves a stale handle behind, see [`carry`]).
    carry_pos: u64,
}

impl Meta {
    const FRESH: Meta = Meta {
        generation: 0,
        tier: Tier::Ring,
        committed: Side::None,
        dirty: false,
        place: Place::Listed,
        carry_pos: 0,
    };

    /// Marks the record in `slot` dirty: the `Change::Dirty` the next `commit` needs, unless
    /// one is already waiting.
    #[inline]
    fn mark_dirty(&mut self, slot: u32) -> Option<Change> {
        (!std::mem::replace(&mut self.dirty, true)).then_some(Change::Dirty {
            slot,
            generation: self.generation,
        })
    }
}

/// Which list holds a live timer's handle (issue 31: the bucket tallies follow it, see
/// [`tally`]). One byte, in the place of the former `carried` flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Its tier's list: a ring bucket (its height's, or the next height's for a timer of an
    /// earlier height, see [`CalendarQueue::listed_pos`]), an epoch bucket or the overflow set.
    Listed,
    /// A member of the carry queue (see [`carry`]).
    Carried,
    /// Taken by [`CalendarQueue::take_due`] and not yet concluded or carried: in no list.
    Due,
}

impl Meta {
    fn carried(&self) -> bool {
        self.place == Place::Carried
    }
}

#[derive(Clone, Debug)]
struct Slot {
    timer: Option<Timer>,
    meta: Meta,
}

impl Slot {
    const EMPTY: Slot = Slot {
        timer: None,
        meta: Meta::FRESH,
    };
}

/// The commitment a timer's leaf belongs in: the overflow tier has its own root (CIP-1 v3 §2),
/// the ring and the epoch queue share the other.
///
/// Spec note (CIP-1 v3 §2.3): the spec's "Merkleized balanced binary search tree" would have a
/// root that depends on the order of inserts and removals. The overflow tier stays a
/// `(height, seq)`-sorted set (`overflow`), and its root is the history-independent
/// [`TimerCommitment`] over its timers' full leaves; each timer is committed once, under its
/// tier's root, and migration moves the leaf across.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    None,
    Main,
    Overflow,
}

impl Tier {
    fn side(self) -> Side {
        match self {
            Tier::Ring | Tier::Epoch => Side::Main,
            Tier::Overflow => Side::Overflow,
        }
    }
}

/// A change waiting for the next `commit`.
#[derive(Clone, Copy, Debug)]
enum Change {
    /// A committed timer left the queue.
    Gone { height: u64, seq: u64, side: Side },
    /// The timer in this slot is new, changed (extend) or changed sides (migration).
    Dirty { slot: u32, generation: u32 },
}

/// Counts per tier, for dashboards and benchmarks.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
pub struct TierCounts {
    pub ring: usize,
    pub epoch: usize,
    pub overflow: usize,
}

/// Where the queue stands: the scalars that, with the timer set, fix every timer's tier.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Horizons {
    pub next_height: u64,
    pub ring_horizon: u64,
    pub epoch_horizon: u64,
}

#[derive(Clone)]
pub struct CalendarQueue {
    cfg: QueueConfig,
    /// The slab: each timer record beside its bookkeeping, so that checking and taking a due
    /// timer touches one place in memory.
    slots: Slab,
    /// Free slots of pool pages.
    free: Vec<u32>,
    /// Free pages.
    free_pages: Vec<u32>,
    /// Per ring bucket, the page its timers' records are drawn from once it is busy.
    ring_page: Vec<u32>,
    /// Per ring bucket, its live timers and their gas limits (see [`tally`]; not state).
    ring_tally: Vec<tally::BucketTally>,
    /// Slots of removed timers whose id-index entries are still to be deleted, with their id
    /// hashes (see [`flush_retired`](Self::flush_retired)). Such a slot is empty and not yet
    /// free, so its stale index entry can never match a lookup.
    retired: Vec<(u64, u32)>,
    index: HashTable<u32>,
    ring: Vec<VecDeque<Handle>>,
    epochs: Vec<VecDeque<Handle>>,
    epoch_live: Vec<usize>,
    /// The overflow tier by `(height, seq)` (see [`overflow`]).
    overflow: overflow::OverflowSet,
    overflow_per_epoch: BTreeMap<u64, usize>,
    next_height: u64,
    ring_horizon: u64,
    epoch_horizon: u64,
    /// Live timers per actor. Only looked up, never iterated for a decision (views sort).
    per_actor: HashTable<(Address, u32)>,
    /// Emptied ring-bucket buffers kept for reuse, so a busy height does not regrow its bucket
    /// from nothing (not state: a restored queue starts without them).
    spare: Vec<VecDeque<Handle>>,
    counts: TierCounts,
    next_seq: u64,
    // State commitment (see `commit`): the ring and epoch tiers' timers, the overflow tier's.
    timers_commit: TimerCommitment,
    overflow_commit: TimerCommitment,
    changes: Vec<Change>,
    /// Variant `deferred_place = back` (open point 4): carried timers go behind the next
    /// height's own timers. Not state: the engine sets it from the CIP-1 config each block.
    carry_back: bool,
    /// Issue 31: the `eip1559` auction walks every carried timer and sorts every candidate
    /// (the naive baseline, for tests and benches). Not state: the decisions are the same.
    full_walk: bool,
    /// The timers carried from earlier heights, in firing order (see [`carry`]).
    carry: carry::Carry,
    /// The timers that left for good, noted for the node (see [`departed`]; not state).
    departed: departed::Departures,
}

/// Spare ring-bucket buffers kept at most, and the largest kept (in handles).
const SPARE_BUFFERS: usize = 64;
const SPARE_MAX_CAPACITY: usize = 1 << 16;

/// Hashes an address for the per-actor index: its 20 bytes read as three words, folded and
/// mixed (a splitmix64 finalizer). Fixed, not seeded: the index is only looked up, never
/// iterated for a decision, so its layout cannot influence consensus; and it is a few
/// multiplies where a general-purpose byte hasher spent a large share of a schedule's
/// bookkeeping on this 20-byte key.
#[inline]
fn addr_hash(a: &Address) -> u64 {
    let b = &a.0;
    let w0 = u64::from_le_bytes(b[0..8].try_into().expect("8 bytes"));
    let w1 = u64::from_le_bytes(b[8..16].try_into().expect("8 bytes"));
    let w2 = u64::from(u32::from_le_bytes(b[16..20].try_into().expect("4 bytes")));
    let mut z = w0 ^ w1.rotate_left(21) ^ w2.rotate_left(42);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Asks the CPU to start loading the memory of `r` (all of it, line by line) into the caches,
/// so that a later access to it does not wait for main memory. A hint only: it never faults and
/// changes no value, so it cannot affect what the queue computes.
#[inline(always)]
fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = (r as *const T).cast::<i8>();
        let mut off = 0;
        while off < std::mem::size_of::<T>() {
            // SAFETY: `prefetch` is a cache hint with no architectural effect: it cannot fault,
            // even on an invalid address, and reads or writes nothing. SSE, which provides it,
            // is part of the x86_64 baseline. `wrapping_add` keeps the address computation safe.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(off)) };
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

fn id_hash(id: &TimerId) -> u64 {
    u64::from_le_bytes(id.0[..8].try_into().expect("8 bytes"))
}

impl std::fmt::Debug for CalendarQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CalendarQueue")
            .field("horizons", &self.horizons())
            .field("counts", &self.counts)
            .finish()
    }
}

impl CalendarQueue {
    /// An empty queue whose first undrained height is `start_height`.
    pub fn new(cfg: QueueConfig, start_height: u64) -> Self {
        let ring = (0..cfg.ring_size()).map(|_| VecDeque::new()).collect();
        let epochs = (0..cfg.epoch_slots).map(|_| VecDeque::new()).collect();
        let mut q = CalendarQueue {
            epoch_live: vec![0; cfg.epoch_slots as usize],
            ring_page: vec![NO_PAGE; cfg.ring_size() as usize],
            ring_tally: vec![Default::default(); cfg.ring_size() as usize],
            cfg,
            slots: Slab::default(),
            free: Vec::new(),
            free_pages: Vec::new(),
            retired: Vec::new(),
            index: HashTable::new(),
            ring,
            epochs,
            overflow: Default::default(),
            overflow_per_epoch: BTreeMap::new(),
            next_height: start_height,
            ring_horizon: 0,
            epoch_horizon: 0,
            per_actor: HashTable::new(),
            spare: Vec::new(),
            counts: TierCounts::default(),
            next_seq: 0,
            timers_commit: TimerCommitment::new(COMMIT_BITS),
            overflow_commit: TimerCommitment::new(COMMIT_BITS),
            changes: Vec::new(),
            carry_back: false,
            full_walk: false,
            carry: carry::Carry::default(),
            departed: Default::default(),
        };
        q.reset_horizons(start_height);
        q
    }

    pub fn config(&self) -> &QueueConfig {
        &self.cfg
    }

    fn reset_horizons(&mut self, h: u64) {
        let e = h / self.cfg.epoch_blocks;
        self.ring_horizon = (e + 1) * self.cfg.epoch_blocks;
        self.epoch_horizon = (e + self.cfg.epoch_slots) * self.cfg.epoch_blocks;
    }

    pub fn horizons(&self) -> Horizons {
        Horizons {
            next_height: self.next_height,
            ring_horizon: self.ring_horizon,
            epoch_horizon: self.epoch_horizon,
        }
    }

    /// The lowest height whose bucket has not been drained yet.
    pub fn next_height(&self) -> u64 {
        self.next_height
    }

    pub fn len(&self) -> usize {
        self.counts.ring + self.counts.epoch + self.counts.overflow
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn counts(&self) -> TierCounts {
        self.counts
    }

    /// The insertion sequence number the next timer will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Live timers owned by `actor` (the CIP-5 §4.2 per-actor index).
    pub fn actor_count(&self, actor: &Address) -> u32 {
        self.per_actor
            .find(addr_hash(actor), |(a, _)| a == actor)
            .map_or(0, |(_, c)| *c)
    }

    /// Actors with live timers and their counts, in address order.
    pub fn actor_counts(&self) -> Vec<(Address, u32)> {
        let mut v: Vec<(Address, u32)> = self.per_actor.iter().copied().collect();
        v.sort_unstable();
        v
    }

    fn find_slot(&self, id: &TimerId) -> Option<u32> {
        let slots = &self.slots;
        self.index
            .find(id_hash(id), |&s| {
                slots[s as usize].timer.as_ref().map(|t| &t.timer_id) == Some(id)
            })
            .copied()
    }

    pub fn get(&self, id: &TimerId) -> Option<&Timer> {
        self.find_slot(id)
            .and_then(|s| self.slots[s as usize].timer.as_ref())
    }

    pub fn contains(&self, id: &TimerId) -> bool {
        self.find_slot(id).is_some()
    }

    /// The tier the timer with this id sits in.
    pub fn tier_of(&self, id: &TimerId) -> Option<Tier> {
        self.find_slot(id).map(|s| self.slots[s as usize].meta.tier)
    }

    fn place(&self, height: u64) -> Tier {
        if height < self.ring_horizon {
            Tier::Ring
        } else if height < self.epoch_horizon {
            Tier::Epoch
        } else {
            Tier::Overflow
        }
    }

    fn ring_pos(&self, height: u64) -> usize {
        (height % self.cfg.ring_size()) as usize
    }

    fn epoch_pos(&self, height: u64) -> usize {
        ((height / self.cfg.epoch_blocks) % self.cfg.epoch_slots) as usize
    }

    /// Inserts a timer. Its `seq` is assigned here (insertion order). The caller has validated
    /// it against CIP-5 §4.2; the queue only refuses a duplicate id or a height already drained.
    #[inline]
    pub fn insert(&mut self, mut timer: Timer) -> Result<TimerId, TimerError> {
        if timer.height < self.next_height {
            return Err(TimerError::InvalidInput(format!(
                "height {} is already past (next undrained height is {})",
                timer.height, self.next_height
            )));
        }
        if self.contains(&timer.timer_id) {
            return Err(TimerError::InvalidInput(format!(
                "timer id {} already exists",
                timer.timer_id
            )));
        }
        timer.seq = self.next_seq;
        self.next_seq += 1;
        let id = timer.timer_id;
        self.actor_added(&timer.actor_address);
        self.store(timer, None);
        Ok(id)
    }

    /// Puts a timer into a slot and the tier its height belongs to. `carry_to` places it at the
    /// back of that height's ring bucket instead (used when rebuilding after a height jump).
    #[inline]
    fn store(&mut self, timer: Timer, carry_to: Option<u64>) -> u32 {
        let tier = if carry_to.is_some() {
            Tier::Ring
        } else {
            self.place(timer.height)
        };
        let ring_pos =
            (tier == Tier::Ring).then(|| self.ring_pos(carry_to.unwrap_or(timer.height)));
        let slot = match ring_pos {
            Some(pos) if self.ring[pos].len() >= BUSY_BUCKET => self.alloc_for_height(pos),
            _ => self.alloc_pooled(),
        };
        let (hash, height, seq, gas) = (
            id_hash(&timer.timer_id),
            timer.height,
            timer.seq,
            timer.gas_limit_per_fire,
        );
        // The record is reached once (see `Slab`'s `IndexMut`): its bookkeeping, then the timer.
        let s = &mut self.slots[slot as usize];
        s.meta.tier = tier;
        s.meta.place = Place::Listed;
        let generation = s.meta.generation;
        let dirty = s.meta.mark_dirty(slot);
        s.timer = Some(timer);
        self.changes.extend(dirty);
        let h = Handle { slot, generation };
        match tier {
            Tier::Ring => {
                let pos = ring_pos.expect("a ring timer has a ring position");
                self.ring_bucket(pos).push_back(h);
                self.ring_tally[pos].add(gas);
                self.counts.ring += 1;
            }
            Tier::Epoch => {
                let pos = self.epoch_pos(height);
                self.epochs[pos].push_back(h);
                self.epoch_live[pos] += 1;
                self.counts.epoch += 1;
            }
            Tier::Overflow => {
                self.overflow.insert((height, seq), slot);
                *self
                    .overflow_per_epoch
                    .entry(height / self.cfg.epoch_blocks)
                    .or_insert(0) += 1;
                self.counts.overflow += 1;
            }
        }
        if self.index.len() == self.index.capacity() {
            // The index is about to grow, and growing rehashes every entry from its slot: delete
            // the stale entries first (their slots are empty).
            self.flush_retired();
        }
        let slots = &self.slots;
        self.index.insert_unique(hash, slot, |&s| {
            id_hash(
                &slots[s as usize]
                    .timer
                    .as_ref()
                    .expect("indexed slot is live")
                    .timer_id,
            )
        });
        slot
    }

    /// Takes the timer out of its slot and every index (its bucket handle goes stale).
    #[inline]
    fn unstore(&mut self, slot: u32) -> Timer {
        // The record is reached once (see `Slab`'s `IndexMut`): the timer taken out and its
        // bookkeeping reset; the lists and tallies follow from the bookkeeping as it was.
        let s = &mut self.slots[slot as usize];
        let timer = s.timer.take().expect("live slot");
        let meta = s.meta;
        s.meta.generation = meta.generation.wrapping_add(1);
        s.meta.dirty = false;
        s.meta.committed = Side::None;
        if meta.carried() {
            s.meta.place = Place::Due;
        }
        self.untally(&meta, &timer);
        if meta.carried() {
            self.carry.forget(slot, &timer);
        }
        if meta.committed != Side::None {
            self.changes.push(Change::Gone {
                height: timer.height,
                seq: timer.seq,
                side: meta.committed,
            });
        }
        match meta.tier {
            Tier::Ring => self.counts.ring -= 1,
            Tier::Epoch => {
                let pos = self.epoch_pos(timer.height);
                self.epoch_live[pos] -= 1;
                self.counts.epoch -= 1;
            }
            Tier::Overflow => {
                self.overflow.remove(&(timer.height, timer.seq));
                let e = timer.height / self.cfg.epoch_blocks;
                if let Some(c) = self.overflow_per_epoch.get_mut(&e) {
                    *c -= 1;
                    if *c == 0 {
                        self.overflow_per_epoch.remove(&e);
                    }
                }
                self.counts.overflow -= 1;
            }
        }
        self.retired.push((id_hash(&timer.timer_id), slot));
        if self.retired.len() >= RETIRED_FLUSH_AT {
            self.flush_retired();
        }
        timer
    }

    /// Deletes the id-index entries of removed timers and frees their slots.
    ///
    /// A block's drained timers leave together, so their index deletions are batched here (once
    /// per block, from [`maintain`](Self::maintain), or whenever enough accumulate) in index
    /// order: at a million pending timers each deletion is a cache miss in a table far larger
    /// than the caches, and walking the table in order lets the misses overlap instead of
    /// paying one full memory latency per timer.
    fn flush_retired(&mut self) {
        let mut retired = std::mem::take(&mut self.retired);
        // Freed in the order they left, so the next inserts reuse the records touched last.
        for &(_, slot) in &retired {
            self.free_slot(slot);
        }
        if retired.len() > 64 {
            // hashbrown places an entry by the low bits of its hash (buckets are a power of two,
            // at most 7/8 full).
            let mask = (self.index.capacity() * 8 / 7).next_power_of_two() as u64 - 1;
            retired.sort_unstable_by_key(|&(h, _)| h & mask);
        }
        for (hash, slot) in retired.drain(..) {
            if let Ok(e) = self.index.find_entry(hash, |&s| s == slot) {
                e.remove();
            }
        }
        self.retired = recycle(retired);
    }

    /// Removes a timer for good (fire, expiry, insufficient funds, cancel) and returns it.
    pub fn remove(&mut self, id: &TimerId) -> Option<Timer> {
        let slot = self.find_slot(id)?;
        Some(self.retire(slot))
    }

    #[inline]
    fn retire(&mut self, slot: u32) -> Timer {
        let timer = self.unstore(slot);
        self.departed.note(&timer);
        let actor = &timer.actor_address;
        if let Ok(mut e) = self
            .per_actor
            .find_entry(addr_hash(actor), |(a, _)| a == actor)
        {
            e.get_mut().1 -= 1;
            if e.get().1 == 0 {
                e.remove();
            }
        }
        timer
    }

    /// Counts one more live timer for `actor` in the per-actor index.
    #[inline]
    fn actor_added(&mut self, actor: &Address) {
        let h = addr_hash(actor);
        match self
            .per_actor
            .entry(h, |(a, _)| a == actor, |(a, _)| addr_hash(a))
        {
            hashbrown::hash_table::Entry::Occupied(mut e) => e.get_mut().1 += 1,
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert((*actor, 1));
            }
        }
    }

    /// Queues the timer in `slot` for (re)commitment at the next `commit`.
    #[inline]
    fn mark_dirty(&mut self, slot: u32) {
        let dirty = self.slots[slot as usize].meta.mark_dirty(slot);
        self.changes.extend(dirty);
    }

    /// Sets a timer's `expires_at` (extend). Returns the previous value.
    pub fn set_expires_at(&mut self, id: &TimerId, expires_at: u64) -> Option<u64> {
        let slot = self.find_slot(id)?;
        self.mark_dirty(slot);
        let t = self.slots[slot as usize].timer.as_mut().expect("live slot");
        let old = std::mem::replace(&mut t.expires_at, expires_at);
        self.carried_expiry_changed(slot, old);
        Some(old)
    }

    // ---- end of block -------------------------------------------------------------------

    /// Drains the bucket of `height` (which must be the next undrained height) and returns the
    /// due timers in bucket order: carried timers first, then FIFO. Each is then concluded
    /// ([`conclude`](Self::conclude)) or carried ([`carry`](Self::carry)) before the next
    /// block.
    pub fn take_due(&mut self, height: u64) -> Vec<DueTimer> {
        assert_eq!(
            height, self.next_height,
            "take_due out of order: expected height {}",
            self.next_height
        );
        let pos = self.ring_pos(height);
        let mut bucket = std::mem::take(&mut self.ring[pos]);
        self.ring_tally[pos] = Default::default();
        // The carried timers first (see `carry`): the carry queue is emptied into the bucket;
        // they stay members until concluded or carried on.
        if !self.carry.queue.is_empty() {
            let carried = std::mem::take(&mut self.carry.queue);
            for c in carried.into_iter().rev() {
                if self.carry_live(&c) {
                    bucket.push_front(c.h);
                }
            }
        }
        // The position's next height starts with pages of its own.
        self.close_page(pos);
        self.next_height = height + 1;
        const AHEAD: usize = 8;
        for h in bucket.iter().take(AHEAD) {
            prefetch(&self.slots[h.slot as usize]);
        }
        let mut due = Vec::with_capacity(bucket.len());
        for i in 0..bucket.len() {
            if let Some(next) = bucket.get(i + AHEAD) {
                prefetch(&self.slots[next.slot as usize]);
            }
            let h = bucket[i];
            let s = &self.slots[h.slot as usize];
            if s.meta.generation == h.generation && s.timer.is_some() {
                // Read first: a carried member is not written (its page may be shared), nor
                // is a stale handle's record.
                if !s.meta.carried() {
                    self.slots[h.slot as usize].meta.place = Place::Due;
                }
                due.push(DueTimer(h.slot));
            }
        }
        if self.spare.len() < SPARE_BUFFERS && bucket.capacity() <= SPARE_MAX_CAPACITY {
            bucket.clear();
            self.spare.push(bucket);
        }
        due
    }

    /// The ring bucket at `pos`, given a spare buffer if it has none.
    fn ring_bucket(&mut self, pos: usize) -> &mut VecDeque<Handle> {
        let b = &mut self.ring[pos];
        if b.capacity() == 0
            && let Some(spare) = self.spare.pop()
        {
            *b = spare;
        }
        b
    }

    /// A due timer returned by [`take_due`](Self::take_due).
    pub fn due(&self, due: &DueTimer) -> &Timer {
        self.slots[due.0 as usize]
            .timer
            .as_ref()
            .expect("live slot")
    }

    /// A due timer, to update its carry record (Spec note 54). The record's committed part
    /// (first deferral height, last reason) is in the timer's leaf: a caller that changes it
    /// marks the timer with [`recommit_due`](Self::recommit_due) (Spec note 71).
    pub fn due_mut(&mut self, due: &DueTimer) -> &mut Timer {
        self.slots[due.0 as usize]
            .timer
            .as_mut()
            .expect("live slot")
    }

    /// Queues a due timer's leaf for re-commitment (its carry record changed).
    pub fn recommit_due(&mut self, due: &DueTimer) {
        self.mark_dirty(due.0);
    }

    /// Concludes a due timer (fired or destroyed): removes it and returns it.
    #[inline]
    pub fn conclude(&mut self, due: DueTimer) -> Timer {
        self.retire(due.0)
    }

    /// Where [`carry`](Self::carry) puts carried timers: behind the next height's own timers
    /// (`true`, variant `deferred_place = back`) or ahead of them (the default, Spec note 4).
    pub fn set_carry_back(&mut self, back: bool) {
        self.carry_back = back;
    }

    /// Issue 31: with `true`, the `eip1559` auction takes the naive path (every carried timer
    /// walked, every candidate sorted); the decisions, events and roots are the same.
    pub fn set_full_walk(&mut self, on: bool) {
        self.full_walk = on;
    }

    /// Whether [`set_full_walk`](Self::set_full_walk) is on.
    pub fn full_walk(&self) -> bool {
        self.full_walk
    }

    /// Carries due timers that were not concluded ahead of the next height's own timers,
    /// keeping their order: to the back of the carry queue (see [`carry`], which
    /// [`take_due`](Self::take_due) emptied), or, under `deferred_place = back`, behind the next
    /// height's own timers in its bucket (see the module docs).
    pub fn carry(&mut self, carried: Vec<DueTimer>) {
        if !self.carry_back {
            for d in carried {
                self.enlist(d.0);
            }
            return;
        }
        let pos = self.ring_pos(self.next_height);
        for s in carried.into_iter().map(|d| d.0) {
            if let Some(t) = self.slots[s as usize].timer.take() {
                self.delist(s, &t);
                self.slots[s as usize].timer = Some(t);
            }
            let generation = self.slots[s as usize].meta.generation;
            self.ring_bucket(pos).push_back(Handle {
                slot: s,
                generation,
            });
            self.tally_listed(pos, s);
        }
    }
}
