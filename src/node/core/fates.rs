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
use hashbrown::{DefaultHashBuilder, HashTable};
use std::hash::BuildHasher;
use std::sync::Arc;

/// Records per chunk.
const CHUNK: usize = 1024;

// Spec note 210: a record is 120 bytes (checked when the crate compiles).
const _: () = assert!(std::mem::size_of::<TimerFate>() == 120);

/// What the node keeps of one timer for as long as it runs (bounded: 120 bytes, its `u128`
/// fee aligned to 8 bytes rather than 16, plus its index slot: Spec note 210).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(8))]
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

/// The records, in scheduling order, and their index.
#[derive(Clone, Default)]
pub(crate) struct Fates {
    chunks: Vec<Arc<Vec<TimerFate>>>,
    len: usize,
    /// Each record's position, found by its timer id's hash and checked against the record
    /// (Spec note 210): 4 bytes and a control byte a slot, where a map keyed by the id kept a
    /// second copy of its 32 bytes (about 77 B a timer at a million, 10 B now).
    index: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

/// The record at position `i`.
fn at(chunks: &[Arc<Vec<TimerFate>>], i: u32) -> &TimerFate {
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
        let mut out = Fates::default();
        for f in self.iter() {
            if f.schedule_block > height {
                continue;
            }
            let mut f = *f;
            if f.exit_height > height {
                f.status = None;
                f.exit_height = 0;
                f.fee_paid = 0;
            }
            out.push(f);
        }
        out
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &TimerFate> {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// The record of `id`, if the node saw it scheduled.
    pub(crate) fn get(&self, id: &TimerId) -> Option<&TimerFate> {
        let i = self.position(id)?;
        Some(at(&self.chunks, i))
    }

    fn get_mut(&mut self, id: &TimerId) -> Option<&mut TimerFate> {
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

    fn push(&mut self, f: TimerFate) {
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
                    self.push(TimerFate {
                        timer_id: *timer_id,
                        actor: *actor,
                        fee_payer: *fee_payer,
                        height: *at,
                        schedule_block: height,
                        exit_height: 0,
                        fee_paid: 0,
                        status: None,
                    });
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
