//! A timer's fate outlives the window (issue 31 item 3, Spec note 150): a compact record per
//! timer that left (who, for which height, from which block), how (its final status), at
//! which height and what it paid in all. `timer_get` answers from it when the timer's events
//! have left the retained history, and says so.
//!
//! Spec note 224: a timer pending in the calendar queue has no record: the queue holds all a
//! record would (its actor, fee payer, height, scheduling block and order), so the record is
//! written as it leaves, from what the queue noted of it ([`Departure`]). A timer that never
//! sits in the queue (a draft's state watch, or one scheduled and gone within one block) gets
//! its record when scheduled, as before; so does an interval at its first fire, which keeps
//! its record (and the fees it paid) across its re-arms.
//!
//! The records are kept in the order they were written, each with its place in the scheduling
//! order ([`Fates::ordered`]), in fixed chunks shared on clone: a snapshot copies a list of
//! chunk pointers, and a write after it copies the one chunk it touches. An index maps a timer
//! id to its record; it is rebuilt (not kept in snapshots) when the node goes back (a snapshot
//! revert, `devnet_revertTo`).

use crate::chain::{Block, Event};
use crate::engine::{Address, Departure, TimerEvent, TimerId};
use crate::node::views::TimerStatus;
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};
use std::hash::BuildHasher;
use std::sync::Arc;

/// Records per chunk.
const CHUNK: usize = 1024;

/// What the node knows of one timer for as long as it runs: its compact record read out
/// ([`Record`], the addresses looked up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerFate {
    pub timer_id: TimerId,
    pub actor: Address,
    pub fee_payer: Address,
    /// The height it was scheduled for.
    pub height: u64,
    /// The block that scheduled it.
    pub schedule_block: u64,
    /// The block it left in (0 while pending).
    pub exit_height: u64,
    /// What its fires cost its fee payer in all (`actual_cost`, CIP-5 §6.3 step 6).
    pub fee_paid: u128,
    /// How it left (`None` while pending).
    pub status: Option<TimerStatus>,
}

// Spec notes 210, 224: a record is 88 bytes (checked when the crate compiles).
const _: () = assert!(std::mem::size_of::<Record>() == 88);

/// What the node keeps of one timer that left (bounded: 88 bytes, its two addresses as
/// positions in the [`AddressBook`], its `u128` fee aligned to 8 bytes, its status and its
/// place in the scheduling order in one word, plus its index slot: Spec notes 210, 224).
#[derive(Clone, Copy)]
#[repr(C, packed(8))]
struct Record {
    timer_id: TimerId,
    actor: u32,
    fee_payer: u32,
    height: u64,
    schedule_block: u64,
    exit_height: u64,
    /// Its place in the scheduling order and its status ([`Place`]).
    place: Place,
    fee_paid: u128,
}

/// A record's place in the scheduling order and its status, in one word: bits 0-55 the
/// queue's insertion sequence number, or for a timer that never sat in the queue the number
/// the queue's next timer was to get when its record was written ([`Fates::ordered`]); bit 56
/// set for the first (the second sorts before the queue timer that got that number); bits
/// 57-63 its status (0 while pending, else one more than its index in `TimerStatus::ALL`).
/// A sequence number past 2^56 (never reached: one a timer scheduled) is kept at 2^56 - 1.
#[derive(Clone, Copy)]
struct Place(u64);

impl Place {
    const ORDER: u64 = (1 << 56) - 1;
    const QUEUED: u64 = 1 << 56;
    const STATUS_SHIFT: u32 = 57;

    fn new(order: u64, queued: bool) -> Place {
        Place(order.min(Self::ORDER) | if queued { Self::QUEUED } else { 0 })
    }

    fn key(self, position: u32) -> OrderKey {
        (
            self.0 & Self::ORDER,
            u8::from(self.0 & Self::QUEUED != 0),
            position,
        )
    }

    fn status(self) -> Option<TimerStatus> {
        match self.0 >> Self::STATUS_SHIFT {
            0 => None,
            n => TimerStatus::ALL.get(n as usize - 1).copied(),
        }
    }

    fn with_status(self, s: Option<TimerStatus>) -> Place {
        let code = s.map_or(0, |s| {
            1 + TimerStatus::ALL
                .iter()
                .position(|a| *a == s)
                .expect("a status") as u64
        });
        Place((self.0 & (Self::QUEUED | Self::ORDER)) | code << Self::STATUS_SHIFT)
    }
}

/// Where a record or a pending timer sits in the scheduling order ([`Fates::ordered`]).
pub(crate) type OrderKey = (u64, u8, u32);

/// A pending queue timer's place in that order (after every record written at its number).
pub(crate) fn pending_key(seq: u64) -> OrderKey {
    (seq, 1, u32::MAX)
}

/// Every actor and fee payer a record names, once (Spec note 210): a record names them by
/// position. Shared on clone (a snapshot), copied when a new address comes after it.
#[derive(Clone, Default)]
struct AddressBook {
    list: Vec<Address>,
    index: HashMap<Address, u32>,
}

impl AddressBook {
    fn position(book: &mut Arc<AddressBook>, a: Address) -> u32 {
        if let Some(&i) = book.index.get(&a) {
            return i;
        }
        let b = Arc::make_mut(book);
        let i = b.list.len() as u32;
        b.list.push(a);
        b.index.insert(a, i);
        i
    }
}

/// The records, in scheduling order, and their index.
#[derive(Clone, Default)]
pub(crate) struct Fates {
    chunks: Vec<Arc<Vec<Record>>>,
    book: Arc<AddressBook>,
    len: usize,
    /// Each record's position, found by its timer id's hash and checked against the record
    /// (Spec note 210): 4 bytes and a control byte a slot, where a map keyed by the id kept a
    /// second copy of its 32 bytes (about 77 B a timer at a million, 10 B now).
    index: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

/// The record at position `i`.
fn at(chunks: &[Arc<Vec<Record>>], i: u32) -> &Record {
    let i = i as usize;
    &chunks[i / CHUNK][i % CHUNK]
}

impl std::fmt::Debug for Fates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fates({})", self.len)
    }
}

impl Fates {
    /// The records without their index (what a snapshot keeps: cheap to copy).
    pub(crate) fn shared(&self) -> Fates {
        Fates {
            chunks: self.chunks.clone(),
            book: self.book.clone(),
            len: self.len,
            index: HashTable::new(),
            hasher: self.hasher.clone(),
        }
    }

    /// These records, their index rebuilt (after a revert).
    pub(crate) fn reindexed(mut self) -> Fates {
        self.index = HashTable::with_capacity(self.len);
        for i in 0..self.len as u32 {
            self.insert(i);
        }
        self
    }

    /// These records as of sealed block `height` (`devnet_revertTo`): the timers scheduled
    /// after it are dropped, the ones that left after it are pending again; reindexed.
    pub(crate) fn back_to(self, height: u64) -> Fates {
        let mut out = Fates {
            book: self.book.clone(),
            ..Fates::default()
        };
        for r in self.chunks.iter().flat_map(|c| c.iter()) {
            if r.schedule_block > height {
                continue;
            }
            let mut r = *r;
            if r.exit_height > height {
                r.place = r.place.with_status(None);
                r.exit_height = 0;
                r.fee_paid = 0;
            }
            out.push(r);
        }
        out
    }

    /// The records, read out, each with its place in the scheduling order (Spec note 224):
    /// sorted by it, with the pending queue timers' [`pending_key`]s, they list every timer
    /// the node saw in the order it was scheduled, and a position in that list stays put as
    /// the chain goes on (a timer that leaves keeps its place). Written order, not sorted.
    pub(crate) fn ordered(&self) -> impl Iterator<Item = (OrderKey, TimerFate)> + '_ {
        self.chunks
            .iter()
            .flat_map(|c| c.iter())
            .enumerate()
            .map(|(i, r)| ({ r.place }.key(i as u32), self.read(r)))
    }

    /// Whether no record is kept.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The record of `id`, read out, if the node saw it scheduled.
    pub(crate) fn get(&self, id: &TimerId) -> Option<TimerFate> {
        let i = self.position(id)?;
        Some(self.read(at(&self.chunks, i)))
    }

    fn read(&self, r: &Record) -> TimerFate {
        let r = *r;
        TimerFate {
            timer_id: r.timer_id,
            actor: self.book.list[r.actor as usize],
            fee_payer: self.book.list[r.fee_payer as usize],
            height: r.height,
            schedule_block: r.schedule_block,
            exit_height: r.exit_height,
            fee_paid: r.fee_paid,
            status: r.place.status(),
        }
    }

    fn get_mut(&mut self, id: &TimerId) -> Option<&mut Record> {
        let i = self.position(id)? as usize;
        Arc::make_mut(self.chunks.get_mut(i / CHUNK)?).get_mut(i % CHUNK)
    }

    /// The position of `id`'s record.
    fn position(&self, id: &TimerId) -> Option<u32> {
        let hash = self.hasher.hash_one(id);
        let chunks = &self.chunks;
        self.index
            .find(hash, |&i| at(chunks, i).timer_id == *id)
            .copied()
    }

    /// Indexes the record at position `i` (already in the chunks).
    fn insert(&mut self, i: u32) {
        let Fates {
            chunks,
            index,
            hasher,
            ..
        } = self;
        let hash = hasher.hash_one(at(chunks, i).timer_id);
        index.insert_unique(hash, i, |&j| hasher.hash_one(at(chunks, j).timer_id));
    }

    fn push(&mut self, f: Record) {
        if self.len.is_multiple_of(CHUNK) {
            self.chunks.push(Arc::new(Vec::with_capacity(CHUNK)));
        }
        Arc::make_mut(self.chunks.last_mut().expect("a chunk")).push(f);
        self.insert(self.len as u32);
        self.len += 1;
    }

    /// Takes in what sealed block `b` did to timers: the timers that left (their records
    /// written from `departed`, what the queue noted of them as they left, Spec note 224), the
    /// fees their fires paid, the re-armed intervals, and the timers scheduled that the queue
    /// does not hold now (`queued`); `next_seq` is the queue's next sequence number.
    pub(crate) fn record(
        &mut self,
        b: &Block,
        departed: &[Departure],
        queued: impl Fn(&TimerId) -> bool,
        next_seq: u64,
    ) {
        let height = b.header.height;
        let departed: HashMap<TimerId, &Departure> =
            departed.iter().map(|d| (d.timer_id, d)).collect();
        for r in &b.events {
            let Event::Timer(e) = &r.event else { continue };
            let (id, status, fee) = match e {
                TimerEvent::TimerScheduled {
                    timer_id,
                    actor,
                    height: at,
                    fee_payer,
                    ..
                } => {
                    // A re-armed interval or a re-registered draft timer keeps its record.
                    if let Some(f) = self.get_mut(timer_id) {
                        f.place = f.place.with_status(None);
                        f.exit_height = 0;
                        f.height = *at;
                    } else if let Some(d) = departed.get(timer_id) {
                        // Scheduled and gone within the block: its record as it left.
                        let r = self.record_of(d);
                        self.push(r);
                    } else if !queued(timer_id) {
                        // Not in the queue (a state watch): its record now, from the event.
                        let record = Record {
                            timer_id: *timer_id,
                            actor: AddressBook::position(&mut self.book, *actor),
                            fee_payer: AddressBook::position(&mut self.book, *fee_payer),
                            height: *at,
                            schedule_block: height,
                            exit_height: 0,
                            place: Place::new(next_seq, false),
                            fee_paid: 0,
                        };
                        self.push(record);
                    }
                    continue;
                }
                TimerEvent::TimerFired { timer_id, cost, .. } => {
                    (timer_id, TimerStatus::Fired, *cost)
                }
                TimerEvent::TimerExpired { timer_id, .. } => (timer_id, TimerStatus::Expired, 0),
                TimerEvent::TimerCancelledInsufficientFunds { timer_id, .. } => {
                    (timer_id, TimerStatus::Unfunded, 0)
                }
                TimerEvent::TimerCancelled { timer_id, .. } => {
                    (timer_id, TimerStatus::Cancelled, 0)
                }
                TimerEvent::TimerCancelledByGovernance {
                    timer_id,
                    existed: true,
                } => (timer_id, TimerStatus::CancelledByGovernance, 0),
                _ => continue,
            };
            // A timer the queue did not note (none: a watch has its record since it was
            // scheduled) stays unknown, as one the node never saw.
            if self.position(id).is_none()
                && let Some(d) = departed.get(id)
            {
                let r = self.record_of(d);
                self.push(r);
            }
            self.left(id, height, status, fee);
        }
    }

    /// A departed timer's record, pending.
    fn record_of(&mut self, d: &Departure) -> Record {
        Record {
            timer_id: d.timer_id,
            actor: AddressBook::position(&mut self.book, d.actor),
            fee_payer: AddressBook::position(&mut self.book, d.fee_payer),
            height: d.height,
            schedule_block: d.schedule_block,
            exit_height: 0,
            place: Place::new(d.seq, true),
            fee_paid: 0,
        }
    }

    fn left(&mut self, id: &TimerId, height: u64, status: TimerStatus, fee: u128) {
        if let Some(f) = self.get_mut(id) {
            f.place = f.place.with_status(Some(status));
            f.exit_height = height;
            f.fee_paid = f.fee_paid.saturating_add(fee);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spec note 224: a record's place keeps its order, its flag and its status apart.
    #[test]
    fn a_place_keeps_order_flag_and_status_apart() {
        for order in [0, 1, 12_345, Place::ORDER, u64::MAX] {
            for queued in [false, true] {
                let p = Place::new(order, queued);
                let mut statuses = vec![None];
                statuses.extend(TimerStatus::ALL.iter().copied().map(Some));
                for s in statuses {
                    let q = p.with_status(s).with_status(s);
                    assert_eq!(q.status(), s);
                    assert_eq!(q.key(7), (order.min(Place::ORDER), u8::from(queued), 7));
                }
            }
        }
        // A record written when scheduled sorts before the queue timer of its number.
        assert!(Place::new(5, false).key(9) < Place::new(5, true).key(0));
        assert!(Place::new(5, true).key(0) < pending_key(6));
    }
}
