//! The node's reads of events and timers over its history (moved out of `core.rs`).

use super::{NodeCore, fates};
use crate::chain::Block;
use crate::engine::TimerId;
use crate::node::read;
use crate::node::views::{EventFilter, EventView, TimerEntry, TimerFilter, TimerStatus, TimerView};
use std::collections::BTreeMap;

impl NodeCore {
    /// Events of the history (oldest first) that `filter` matches, at most `filter.limit`.
    /// Without history (a headless node): the chain's recent blocks.
    pub fn events(&self, filter: &EventFilter) -> Vec<EventView> {
        let limit = filter.limit.unwrap_or(usize::MAX);
        self.kept_blocks(filter.from_height.unwrap_or(0))
            .take_while(|b| filter.to_height.is_none_or(|t| b.header.height <= t))
            .flat_map(|b| b.events.iter())
            .filter(|r| filter.matches(r))
            .take(limit)
            .cloned()
            .collect()
    }

    /// The sealed blocks the node's event reads cover, oldest first, from height `from` on:
    /// the history; without one (a headless node) the chain's recent blocks.
    pub(crate) fn kept_blocks(
        &self,
        from: u64,
    ) -> Box<dyn DoubleEndedIterator<Item = &Block> + '_> {
        if self.keep_history {
            let start = self.history.partition_point(|b| b.header.height < from);
            Box::new(self.history.range(start..).map(|b| &**b))
        } else {
            Box::new(self.chain.blocks().filter(move |b| b.header.height >= from))
        }
    }

    /// Every timer the node knows, in the order they were scheduled (Spec note 172): the
    /// compact records of the timers that left (Spec note 150) merged with the pending ones
    /// by their places in that order (the queue's sequence numbers, Spec note 224), the open
    /// block's last (or, for a headless node, which keeps no records, every pending one).
    /// `handlers`: fill each entry's handler (a filter names one); without, none is read (a
    /// pending timer's is parsed from its payload: most of the walk, issue 32 item 2d).
    pub(crate) fn timer_entries(&self, handlers: bool) -> Vec<TimerEntry> {
        if !self.keep_history {
            return self.timer_entries_headless(handlers);
        }
        let handler_of = |id: &TimerId| {
            let t = self.chain.timer(id).filter(|_| handlers)?;
            Some(t.handler().name().to_string())
        };
        // The records and the pending queue timers, in scheduling order (Spec note 224).
        let mut keyed: Vec<(fates::OrderKey, TimerEntry)> = self
            .fates
            .ordered()
            .map(|(k, f)| {
                let e = TimerEntry {
                    id: f.timer_id,
                    actor: f.actor,
                    height: f.height,
                    status: f.status.unwrap_or(TimerStatus::Pending),
                    handler: f.status.map_or_else(|| handler_of(&f.timer_id), |_| None),
                };
                (k, e)
            })
            .collect();
        let has_records = !self.fates.is_empty();
        keyed.extend(
            read::pending_timers(&self.chain)
                .into_iter()
                .filter(|t| !has_records || self.fates.get(&t.timer_id).is_none())
                .map(|t| (fates::pending_key(t.seq), pending_entry(t, handlers))),
        );
        keyed.sort_unstable_by_key(|(k, _)| *k);
        keyed.into_iter().map(|(_, e)| e).collect()
    }

    /// [`timer_entries`](Self::timer_entries) of a headless node, which keeps no compact
    /// records: the timers the chain's recent blocks scheduled (their status from their
    /// concluding events), then the pending ones scheduled before them or in the open block.
    fn timer_entries_headless(&self, handlers: bool) -> Vec<TimerEntry> {
        let mut out: Vec<TimerEntry> = Vec::new();
        let mut at: BTreeMap<TimerId, usize> = BTreeMap::new();
        for r in self.chain.blocks().flat_map(|b| b.events.iter()) {
            if let crate::chain::Event::Timer(crate::engine::TimerEvent::TimerScheduled {
                timer_id,
                actor,
                height,
                handler,
                ..
            }) = &r.event
            {
                at.entry(*timer_id).or_insert_with(|| {
                    out.push(TimerEntry {
                        id: *timer_id,
                        actor: *actor,
                        height: *height,
                        status: TimerStatus::Pending,
                        handler: handlers.then(|| handler.clone()),
                    });
                    out.len() - 1
                });
            } else if let Some(id) = r.event.timer_id()
                && let Some(i) = at.get(&id)
                && let Some(s) = read::status_from_events(std::slice::from_ref(r))
            {
                out[*i].status = s;
            }
        }
        for e in &mut out {
            if read::live_timer(&self.chain, &e.id).is_some() {
                e.status = TimerStatus::Pending;
            }
        }
        out.extend(
            read::pending_timers(&self.chain)
                .into_iter()
                .filter(|t| !at.contains_key(&t.timer_id))
                .map(|t| pending_entry(t, handlers)),
        );
        out
    }

    /// The handlers of the timers whose `TimerScheduled` event the node still keeps.
    pub(crate) fn scheduled_handlers(&self) -> BTreeMap<TimerId, String> {
        let mut out = BTreeMap::new();
        for r in self.kept_blocks(0).flat_map(|b| b.events.iter()) {
            if let crate::chain::Event::Timer(crate::engine::TimerEvent::TimerScheduled {
                timer_id,
                handler,
                ..
            }) = &r.event
            {
                out.insert(*timer_id, handler.clone());
            }
        }
        out
    }

    /// Views of `ids` as [`timer`](Self::timer) gives each (pending or gone; a gone one
    /// whose events left the history from its compact record), their events gathered in
    /// one pass over the history; unknown ids left out.
    pub(crate) fn timer_views_full(&self, ids: Vec<TimerId>) -> Vec<TimerView> {
        let wanted: std::collections::BTreeSet<TimerId> = ids.iter().copied().collect();
        let mut events: BTreeMap<TimerId, Vec<EventView>> = BTreeMap::new();
        for r in self.kept_blocks(0).flat_map(|b| b.events.iter()) {
            if let Some(id) = r.event.timer_id()
                && wanted.contains(&id)
            {
                events.entry(id).or_default().push(r.clone());
            }
        }
        ids.into_iter()
            .filter_map(|id| self.timer_with(&id, events.remove(&id).unwrap_or_default()))
            .collect()
    }

    /// A timer, pending or gone (as far as the history reaches); `None` when unknown.
    pub fn timer(&self, id: &TimerId) -> Option<TimerView> {
        let events = self.events(&EventFilter {
            timer_id: Some(*id),
            ..EventFilter::default()
        });
        self.timer_with(id, events)
    }

    /// A timer's view from its events (the kept ones), or from its compact record.
    fn timer_with(&self, id: &TimerId, events: Vec<EventView>) -> Option<TimerView> {
        let fate = self.fates.get(id);
        let Some(mut v) = read::timer_view(&self.chain, id, events) else {
            // Its events left the history: its compact record answers (Spec note 150).
            return fate.filter(|f| f.status.is_some()).map(|f| {
                self.labelled(fate_view(
                    &f,
                    self.chain.engine().policies().client_nonce_for(id),
                ))
            });
        };
        // A pending queue timer has no record (Spec note 224): the queue knows its block.
        let scheduled_in = fate
            .map(|f| f.schedule_block)
            .or_else(|| self.chain.timer(id).map(|t| t.schedule_block));
        if let Some(block) = scheduled_in {
            v.history_pruned = self.keep_history && block < self.first_kept();
        }
        if let Some(f) = fate
            && f.status == Some(v.status)
        {
            v.exit_height = Some(f.exit_height);
            v.fee_paid = Some(f.fee_paid);
        }
        Some(self.labelled(v))
    }

    /// The timers of one height in execution order.
    pub fn bucket(&self, height: u64) -> Vec<TimerView> {
        let ids = read::bucket(&self.chain, height)
            .into_iter()
            .map(|t| t.timer_id)
            .collect();
        self.timer_views(ids)
    }

    /// Timers, pending (in firing order) and then gone (in the order they were scheduled),
    /// that `filter` matches, at most `filter.limit`.
    pub fn timers(&self, filter: &TimerFilter) -> Vec<TimerView> {
        let limit = filter.limit.unwrap_or(usize::MAX);
        let mut ids: Vec<TimerId> = Vec::new();
        if filter
            .status
            .is_none_or(|s| s == crate::node::TimerStatus::Pending)
        {
            ids.extend(
                read::pending_timers(&self.chain)
                    .into_iter()
                    .filter(|t| {
                        filter.matches_record(
                            &t.timer_id,
                            &t.actor_address,
                            t.height,
                            t.handler().name(),
                        ) && filter.label_matches(self.timer_label(&t.timer_id))
                    })
                    .map(|t| t.timer_id),
            );
        }
        if filter.status != Some(crate::node::TimerStatus::Pending) {
            let mut seen = std::collections::BTreeSet::new();
            for r in self.history.iter().flat_map(|b| b.events.iter()) {
                if let crate::chain::Event::Timer(crate::engine::TimerEvent::TimerScheduled {
                    timer_id,
                    actor,
                    height,
                    handler,
                    ..
                }) = &r.event
                    && filter.matches_record(timer_id, actor, *height, handler)
                    && filter.label_matches(self.timer_label(timer_id))
                    && read::live_timer(&self.chain, timer_id).is_none()
                    && seen.insert(*timer_id)
                {
                    ids.push(*timer_id);
                }
            }
        }
        if filter.status.is_none() {
            ids.truncate(limit);
        }
        let mut views = self.timer_views(ids);
        views.retain(|v| filter.status.is_none_or(|s| v.status == s));
        views.truncate(limit);
        views
    }

    /// Views of the pending timers `ids` (in that order; others left out) without their events
    /// or deferral counts (issue 31: a bucket's page costs its rows, not a pass over the
    /// history's events).
    pub(crate) fn pending_views(&self, ids: Vec<TimerId>) -> Vec<TimerView> {
        ids.into_iter()
            .filter(|id| self.chain.timer(id).is_some())
            .filter_map(|id| read::timer_view(&self.chain, &id, Vec::new()))
            .map(|v| self.labelled(v))
            .collect()
    }

    /// Views of `ids` (in that order; unknown ids left out), their events gathered in one
    /// pass over the history.
    fn timer_views(&self, ids: Vec<TimerId>) -> Vec<TimerView> {
        let wanted: std::collections::BTreeSet<TimerId> = ids.iter().copied().collect();
        let mut events: BTreeMap<TimerId, Vec<EventView>> = BTreeMap::new();
        let blocks: Box<dyn Iterator<Item = &Block>> = if self.keep_history {
            Box::new(self.history.iter().map(|b| &**b))
        } else {
            Box::new(self.chain.blocks())
        };
        for r in blocks.flat_map(|b| b.events.iter()) {
            if let Some(id) = r.event.timer_id()
                && wanted.contains(&id)
            {
                events.entry(id).or_default().push(r.clone());
            }
        }
        ids.into_iter()
            .filter_map(|id| {
                let ev = events.remove(&id).unwrap_or_default();
                read::timer_view(&self.chain, &id, ev).map(|v| self.labelled(v))
            })
            .collect()
    }
}

/// A gone timer's view from its compact record alone (Spec note 150): what the record keeps,
/// `history_pruned` set; the handler, the payload's length, the fee caps and the deferrals
/// went with its events.
fn fate_view(f: &super::fates::TimerFate, client_nonce: Option<u64>) -> TimerView {
    let status = f.status.expect("a gone timer's record has its status");
    TimerView {
        client_nonce,
        exit_height: Some(f.exit_height),
        fee_paid: Some(f.fee_paid),
        history_pruned: true,
        ..TimerView::gone(
            f.timer_id,
            f.actor,
            f.fee_payer,
            f.height,
            f.schedule_block,
            status,
        )
    }
}

impl NodeCore {
    /// Issue 32: trace every handler run from now on (`--trace`), keeping the traces of the
    /// retained history; off, traces are rebuilt on demand by replay.
    /// Issue 33: seal without committing the state root until [`Self::settle_roots`] (a
    /// headless run that reads only its outcomes; see `Chain::defer_roots`).
    pub fn defer_roots(&mut self) {
        self.chain.defer_roots();
    }

    /// Commits what [`Self::defer_roots`] deferred; returns the state root.
    pub fn settle_roots(&mut self) -> crate::engine::H256 {
        self.chain.settle_roots()
    }

    pub fn set_tracing(&mut self, on: bool) {
        self.traces.on = on;
        self.chain.set_tracing(on);
    }

    /// The last height `id` fired at that the node knows: the newest `TimerFired` among its
    /// events (the kept history's, or a headless node's recent blocks), else its compact
    /// record's exit (an interval re-armed after its last fire keeps no exit there).
    pub(crate) fn fired_at(&self, id: &TimerId) -> Option<u64> {
        let from_view = self.timer(id).and_then(|t| {
            t.events.iter().rev().find_map(|r| match &r.event {
                crate::chain::Event::Timer(crate::engine::TimerEvent::TimerFired { .. }) => {
                    Some(r.height)
                }
                _ => None,
            })
        });
        if from_view.is_some() {
            return from_view;
        }
        let f = self.fates.get(id)?;
        (f.status == Some(crate::node::TimerStatus::Fired)).then_some(f.exit_height)
    }
}

/// A pending timer as a [`TimerEntry`].
fn pending_entry(t: &crate::engine::timer::Timer, handlers: bool) -> TimerEntry {
    TimerEntry {
        id: t.timer_id,
        actor: t.actor_address,
        height: t.height,
        status: TimerStatus::Pending,
        handler: handlers.then(|| t.handler().name().to_string()),
    }
}
