//! The last past states read (issue 24, "a past view is not re-read from a checkpoint on each
//! refresh"): a dashboard viewing a past height asks the same height on every refresh, which
//! would replay up to [`super::past::CHECKPOINT_EVERY`] busy blocks each time. The node
//! keeps the last [`DEFAULT_PAST_CACHE`] states it rebuilt, keyed by height, so a repeated
//! read at one past height costs a lookup.
//!
//! A kept state is the chain as of a sealed height strictly below the head: the blocks that
//! follow it cannot change it, only a change of the history itself can (a snapshot revert,
//! `devnet_revertTo`, a reset, a state load, the session log's base or recording): each of
//! these drops every kept state ([`NodeCore::drop_past_states`]). Heights the retained history
//! no longer reaches (pruning) are dropped when the head moves past them, and never answered:
//! the bounds are checked before the lookup. What a past node takes from the live one as it
//! is now (the names, the mining mode, the history's front after pruning) is brought up to
//! date on every hit, so an answer is the same with and without the cache.

use super::NodeCore;
use crate::node::NodeError;
use std::cell::RefCell;
use std::collections::VecDeque;

/// Past states a node keeps by default: the viewed height, and a few around it as `[` `]`
/// step. Each is a copy of the chain as of its height (as a checkpoint is).
pub const DEFAULT_PAST_CACHE: usize = 4;

/// The kept past states, most recently used last.
#[derive(Default)]
pub(crate) struct PastCache {
    entries: RefCell<VecDeque<(u64, Box<NodeCore>)>>,
    capacity: usize,
}

impl PastCache {
    pub(crate) fn new(capacity: usize) -> Self {
        PastCache {
            entries: RefCell::new(VecDeque::new()),
            capacity,
        }
    }

    pub(crate) fn clear(&mut self) {
        self.entries.get_mut().clear();
    }

    fn len(&self) -> usize {
        self.entries.borrow().len()
    }
}

impl NodeCore {
    /// Runs `f` on the node as of sealed block `height` (within the retained history; the
    /// head itself when `height` is the head and no transaction is pending). A height below
    /// the head is kept after it was rebuilt ([`past_cache`](self)): asking it again costs a
    /// lookup.
    pub fn with_at<T>(&self, height: u64, f: impl FnOnce(&NodeCore) -> T) -> Result<T, NodeError> {
        if height == self.height() && self.pending_txs == 0 {
            return Ok(f(self));
        }
        if height >= self.height() || self.past.capacity == 0 {
            return Ok(f(&self.build_at(height)?));
        }
        // The bounds (pruned, not recorded) first: a kept state never answers what a fresh
        // read would refuse.
        self.check_past(height)?;
        let mut entries = self.past.entries.borrow_mut();
        let node = match entries.iter().position(|(h, _)| *h == height) {
            Some(i) => {
                let (h, mut node) = entries.remove(i).expect("found");
                node.follow(self);
                entries.push_back((h, node));
                &entries.back().expect("pushed").1
            }
            None => {
                let node = Box::new(self.build_at(height)?);
                if entries.len() >= self.past.capacity {
                    entries.pop_front();
                }
                entries.push_back((height, node));
                &entries.back().expect("pushed").1
            }
        };
        Ok(f(node))
    }

    /// Sets how many past states the node keeps (0: none, every past read replays; the tests
    /// compare both), dropping the kept ones.
    pub fn set_past_cache(&mut self, capacity: usize) {
        self.past = PastCache::new(capacity);
    }

    /// How many past states are kept now.
    pub fn past_states_kept(&self) -> usize {
        self.past.len()
    }

    /// Drops every kept past state: the history they were read from changed.
    pub(crate) fn drop_past_states(&mut self) {
        self.past.clear();
    }

    /// Drops the kept states the retained history no longer reaches (after a seal).
    pub(super) fn prune_past_states(&mut self) {
        let first = self.first_queryable();
        self.past.entries.get_mut().retain(|(h, _)| *h >= first);
    }

    /// A kept past node brought up to what it takes from the live one as it is now.
    fn follow(&mut self, live: &NodeCore) {
        self.mining = live.mining;
        if self.names != live.names {
            self.names = live.names.clone();
        }
        match live.history.front() {
            Some(f) => {
                let first = f.header.height;
                while self
                    .history
                    .front()
                    .is_some_and(|b| b.header.height < first)
                {
                    self.history.pop_front();
                }
            }
            None => self.history.clear(),
        }
    }
}
