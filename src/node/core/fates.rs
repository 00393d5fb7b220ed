//! A timer's fate outlives the window (issue 31 item 3, Spec note 150): a compact record per
//! timer the node ever saw scheduled (who, for which height, from which block) and, once it
//! left, how (its final status), at which height and what it paid in all. `timer_get` answers
//! from it when the timer's events have left the retained history, and says so.
//!
//! The records are kept in the order the timers were scheduled, in fixed chunks shared on
//! clone: a snapshot copies a list of chunk pointers, and a write after it copies the one
//! chunk it touches. An index maps a timer id to its record; it is rebuilt (not kept in
//! snapshots) when the node goes back (a snapshot revert, `devnet_revertTo`).

use crate::chain::{Block, Event};
use crate::engine::{Address, TimerEvent, TimerId};
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

// Spec note 210: a record is 88 bytes (checked when the crate compiles).
const _: () = assert!(std::mem::size_of::<Record>() == 88);

/// What the node keeps of one timer (bounded: 88 bytes, its two addresses as positions in the
/// [`AddressBook`] and its `u128` fee aligned to 8 bytes, plus its index slot: Spec note 210).
#[derive(Clone, Copy)]
#[repr(C, packed(8))]
struct Record {
    timer_id: TimerId,
    actor: u32,
    fee_payer: u32,
    height: u64,
    schedule_block: u64,
    exit_height: u64,
    fee_paid: u128,
    status: Option<TimerStatus>,
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
                r.status = None;
                r.exit_height = 0;
                r.fee_paid = 0;
            }
            out.push(r);
        }
        out
    }

    /// The records, read out, in scheduling order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = TimerFate> + '_ {
        self.chunks
            .iter()
            .flat_map(|c| c.iter())
            .map(|r| self.read(r))
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
            status: r.status,
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

    /// Takes in what sealed block `b` did to timers: the ones it scheduled, the fees its fires
    /// paid, the ones that left.
    pub(crate) fn record(&mut self, b: &Block) {
        let height = b.header.height;
        for r in &b.events {
            let Event::Timer(e) = &r.event else { continue };
            match e {
                TimerEvent::TimerScheduled {
                    timer_id,
                    actor,
                    height: at,
                    fee_payer,
                    ..
                } => {
                    // A re-armed interval or a re-registered draft timer keeps its record.
                    if let Some(f) = self.get_mut(timer_id) {
                        f.status = None;
                        f.exit_height = 0;
                        f.height = *at;
                        continue;
                    }
                    let record = Record {
                        timer_id: *timer_id,
                        actor: AddressBook::position(&mut self.book, *actor),
                        fee_payer: AddressBook::position(&mut self.book, *fee_payer),
                        height: *at,
                        schedule_block: height,
                        exit_height: 0,
                        fee_paid: 0,
                        status: None,
                    };
                    self.push(record);
                }
                TimerEvent::TimerFired { timer_id, cost, .. } => {
                    self.left(timer_id, height, TimerStatus::Fired, *cost)
                }
                TimerEvent::TimerExpired { timer_id, .. } => {
                    self.left(timer_id, height, TimerStatus::Expired, 0)
                }
                TimerEvent::TimerCancelledInsufficientFunds { timer_id, .. } => {
                    self.left(timer_id, height, TimerStatus::Unfunded, 0)
                }
                TimerEvent::TimerCancelled { timer_id, .. } => {
                    self.left(timer_id, height, TimerStatus::Cancelled, 0)
                }
                TimerEvent::TimerCancelledByGovernance {
                    timer_id,
                    existed: true,
                } => self.left(timer_id, height, TimerStatus::CancelledByGovernance, 0),
                _ => {}
            }
        }
    }

    fn left(&mut self, id: &TimerId, height: u64, status: TimerStatus, fee: u128) {
        if let Some(f) = self.get_mut(id) {
            f.status = Some(status);
            f.exit_height = height;
            f.fee_paid = f.fee_paid.saturating_add(fee);
        }
    }
}
