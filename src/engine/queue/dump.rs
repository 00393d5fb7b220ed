//! The queue in a serializable form ([`QueueDump`]) and its restore, which checks that the dump
//! is one a queue could have made.

use super::{CalendarQueue, Handle, Tier, id_hash};
use crate::engine::config::QueueConfig;
use crate::engine::error::RestoreError;
use crate::engine::events::Deferral;
use crate::engine::timer::Timer;
use crate::engine::types::TimerId;
use std::collections::{HashMap, HashSet, VecDeque};

/// The queue in a serializable form: the timers and the order of every bucket, so that a
/// restored queue is identical (same tiers, same FIFO order, same roots).
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct QueueDump {
    pub config: QueueConfig,
    pub next_height: u64,
    pub ring_horizon: u64,
    pub epoch_horizon: u64,
    pub next_seq: u64,
    /// Non-empty ring buckets: `(height, ids in firing order)`.
    pub ring: Vec<(u64, Vec<TimerId>)>,
    /// Non-empty epoch buckets: `(slot, ids in order)`.
    pub epochs: Vec<(u64, Vec<TimerId>)>,
    /// Every live timer, by seq. Those in no bucket list are in the overflow set.
    pub timers: Vec<Timer>,
    /// Deferrals waiting for the next block's events under the recording before Spec note 71;
    /// always written empty now, and ignored when an older image carries some (those timers
    /// are carried in their buckets all the same; only the late events are not recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deferrals: Vec<Deferral>,
}

impl CalendarQueue {
    /// Serializable image of the queue (see [`QueueDump`]).
    pub fn dump(&self) -> QueueDump {
        let live_ids = |b: &VecDeque<Handle>| -> Vec<TimerId> {
            b.iter()
                .filter(|h| self.slots[h.slot as usize].meta.generation == h.generation)
                .filter_map(|h| {
                    self.slots[h.slot as usize]
                        .timer
                        .as_ref()
                        .map(|t| t.timer_id)
                })
                .collect()
        };
        let mut ring = Vec::new();
        for h in self.next_height..self.next_height + self.cfg.ring_size() {
            let mut ids = live_ids(&self.ring[self.ring_pos(h)]);
            if h == self.next_height {
                // The carried timers head the next height's list, as they are due first.
                let carried: VecDeque<Handle> = self.carried_handles().copied().collect();
                ids.splice(0..0, live_ids(&carried));
            }
            if !ids.is_empty() {
                ring.push((h, ids));
            }
        }
        let epochs = self
            .epochs
            .iter()
            .enumerate()
            .map(|(i, b)| (i as u64, live_ids(b)))
            .filter(|(_, ids)| !ids.is_empty())
            .collect();
        let mut timers: Vec<Timer> = self
            .slots
            .iter()
            .filter_map(|s| s.timer.as_ref())
            .cloned()
            .collect();
        timers.sort_by_key(|t| t.seq);
        // A carried timer's count is derived; the carry queue does not rewrite it each block.
        for t in &mut timers {
            t.refresh_carried(self.next_height);
        }
        QueueDump {
            config: self.cfg.clone(),
            next_height: self.next_height,
            ring_horizon: self.ring_horizon,
            epoch_horizon: self.epoch_horizon,
            next_seq: self.next_seq,
            ring,
            epochs,
            timers,
            deferrals: Vec::new(),
        }
    }

    /// Rebuilds a queue from [`dump`](Self::dump). Rejects an inconsistent image.
    pub fn restore(d: QueueDump) -> Result<Self, RestoreError> {
        d.config.validate().map_err(RestoreError::Config)?;
        let mut q = CalendarQueue::new(d.config.clone(), d.next_height);
        q.ring_horizon = d.ring_horizon;
        q.epoch_horizon = d.epoch_horizon;
        q.next_seq = d.next_seq;
        let tier_of = q.listed_tiers(&d)?;
        let slot_of = q.place_timers(d.timers, &tier_of, d.next_seq)?;
        // Bucket placement and order are not covered by the state root (they follow from each
        // timer's height and seq), so a dump must agree with them: a ring bucket holds its own
        // height's timers in seq order (the next height's also the carried ones, in one run
        // ahead of or behind them, in firing order: Spec note 212); an epoch bucket holds its
        // epoch's timers, in seq order per height.
        for (h, ids) in d.ring {
            q.fill_ring_bucket(h, ids, &slot_of, d.next_height)?;
        }
        for (e, ids) in d.epochs {
            q.fill_epoch_bucket(e, ids, &slot_of)?;
        }
        Ok(q)
    }

    /// The tier and bucket of every timer a bucket list names, each bucket inside its tier's
    /// range and each timer listed once.
    fn listed_tiers(&self, d: &QueueDump) -> Result<HashMap<TimerId, (Tier, u64)>, RestoreError> {
        let ring_size = self.cfg.ring_size();
        let mut tier_of: HashMap<TimerId, (Tier, u64)> = HashMap::new();
        for (h, ids) in &d.ring {
            if *h < d.next_height || *h >= d.next_height + ring_size {
                return Err(RestoreError::RingBucketOutside(*h));
            }
            for id in ids {
                if tier_of.insert(*id, (Tier::Ring, *h)).is_some() {
                    return Err(RestoreError::ListedTwice(*id));
                }
            }
        }
        for (slot, ids) in &d.epochs {
            if *slot >= self.cfg.epoch_slots {
                return Err(RestoreError::EpochSlotOutOfRange(*slot));
            }
            for id in ids {
                if tier_of.insert(*id, (Tier::Epoch, *slot)).is_some() {
                    return Err(RestoreError::ListedTwice(*id));
                }
            }
        }
        Ok(tier_of)
    }

    /// Puts every timer in a slot of its tier (a timer no bucket lists is in the overflow
    /// set); returns each timer's slot.
    fn place_timers(
        &mut self,
        timers: Vec<Timer>,
        tier_of: &HashMap<TimerId, (Tier, u64)>,
        next_seq: u64,
    ) -> Result<HashMap<TimerId, u32>, RestoreError> {
        let mut placed: HashSet<TimerId> = HashSet::new();
        let mut slot_of: HashMap<TimerId, u32> = HashMap::new();
        for t in timers {
            if t.seq >= next_seq {
                return Err(RestoreError::SeqNotBelowNext {
                    timer: t.timer_id,
                    seq: t.seq,
                });
            }
            if !placed.insert(t.timer_id) {
                return Err(RestoreError::AppearsTwice(t.timer_id));
            }
            let id = t.timer_id;
            self.actor_added(&t.actor_address);
            let slot = self.alloc_pooled();
            let tier = tier_of.get(&id).map_or(Tier::Overflow, |(t, _)| *t);
            self.slots[slot as usize].meta.tier = tier;
            self.mark_dirty(slot);
            if tier == Tier::Overflow {
                if t.height < self.epoch_horizon {
                    return Err(RestoreError::BelowOverflowHorizon(id));
                }
                self.overflow.insert((t.height, t.seq), slot);
                *self
                    .overflow_per_epoch
                    .entry(t.height / self.cfg.epoch_blocks)
                    .or_insert(0) += 1;
                self.counts.overflow += 1;
            }
            let slots = &self.slots;
            self.index.insert_unique(id_hash(&id), slot, |&s| {
                id_hash(&slots[s as usize].timer.as_ref().expect("live").timer_id)
            });
            self.slots[slot as usize].timer = Some(t);
            slot_of.insert(id, slot);
        }
        Ok(slot_of)
    }

    /// A restored timer's `(height, seq)`.
    fn restored_key(&self, slot: u32) -> (u64, u64) {
        let t = self.slots[slot as usize].timer.as_ref().expect("restored");
        (t.height, t.seq)
    }

    /// The ring bucket of height `h`, checked: its own height's timers in seq order; the next
    /// height's bucket also the carried timers, in one run ahead of its own (where the dump
    /// puts the carry queue) or behind them (where `deferred_place = back` and the CIP-5
    /// drafts carry them, Spec note 212), in the order they are listed: their firing order,
    /// which their heights and seqs do not give once a carried timer is carried again.
    fn fill_ring_bucket(
        &mut self,
        h: u64,
        ids: Vec<TimerId>,
        slot_of: &HashMap<TimerId, u32>,
        next_height: u64,
    ) -> Result<(), RestoreError> {
        let pos = self.ring_pos(h);
        let mut last: Option<u64> = None;
        // How many runs of own and of carried timers the list has had so far, and the last's.
        let (mut runs, mut carried_run) = (0, None);
        for id in ids {
            let slot = *slot_of.get(&id).ok_or(RestoreError::RingUnknownTimer(id))?;
            let key = self.restored_key(slot);
            if key.0 != h && !(h == next_height && key.0 < h) {
                return Err(RestoreError::WrongRingBucket {
                    timer: id,
                    height: key.0,
                    bucket: h,
                });
            }
            let carried = key.0 < h;
            if carried_run != Some(carried) {
                (runs, carried_run) = (runs + 1, Some(carried));
            }
            let own_out_of_order = !carried && last.is_some_and(|l| l >= key.1);
            if runs > 2 || own_out_of_order {
                return Err(RestoreError::RingOutOfOrder {
                    bucket: h,
                    timer: id,
                });
            }
            if !carried {
                last = Some(key.1);
            }
            self.ring[pos].push_back(Handle {
                slot,
                generation: 0,
            });
            self.tally_listed(pos, slot);
            self.counts.ring += 1;
        }
        Ok(())
    }

    /// After a restore, under the default placement (carried timers ahead of the next
    /// height's own, `carry_back` false): the first carried timer listed behind one of the
    /// next height's own timers, which only `deferred_place = back` puts there (Spec note 212).
    pub fn check_carried_place(&self, carry_back: bool) -> Result<(), RestoreError> {
        if carry_back {
            return Ok(());
        }
        let h = self.next_height;
        let mut own = false;
        for handle in &self.ring[self.ring_pos(h)] {
            let t = self.slots[handle.slot as usize].timer.as_ref();
            let Some(t) = t else { continue };
            if t.height == h {
                own = true;
            } else if own {
                return Err(RestoreError::RingOutOfOrder {
                    bucket: h,
                    timer: t.timer_id,
                });
            }
        }
        Ok(())
    }

    /// The epoch bucket of slot `e`, checked: its epoch's timers, in seq order per height.
    fn fill_epoch_bucket(
        &mut self,
        e: u64,
        ids: Vec<TimerId>,
        slot_of: &HashMap<TimerId, u32>,
    ) -> Result<(), RestoreError> {
        let mut last_seq: HashMap<u64, u64> = HashMap::new();
        for id in ids {
            let slot = *slot_of
                .get(&id)
                .ok_or(RestoreError::EpochUnknownTimer(id))?;
            let (height, seq) = self.restored_key(slot);
            if self.epoch_pos(height) as u64 != e
                || height < self.ring_horizon
                || height >= self.epoch_horizon.saturating_add(self.cfg.epoch_blocks)
            {
                return Err(RestoreError::WrongEpochSlot {
                    timer: id,
                    height,
                    slot: e,
                });
            }
            if last_seq.insert(height, seq).is_some_and(|l| l >= seq) {
                return Err(RestoreError::EpochOutOfOrder { slot: e, timer: id });
            }
            self.epochs[e as usize].push_back(Handle {
                slot,
                generation: 0,
            });
            self.epoch_live[e as usize] += 1;
            self.counts.epoch += 1;
        }
        Ok(())
    }
}
