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
use super::past::PastSeed;
use crate::node::NodeError;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

/// Past states a node keeps by default: the viewed height, and a few around it as `[` `]`
/// step. Each is a copy of the chain as of its height (as a checkpoint is).
pub const DEFAULT_PAST_CACHE: usize = 4;

/// A kept past node: shared with the past-read threads that run queries on it (issue 31
/// item 7), locked while one does.
pub(crate) type KeptNode = Arc<Mutex<NodeCore>>;

/// The kept past states, most recently used last.
#[derive(Default)]
pub(crate) struct PastCache {
    entries: Mutex<VecDeque<(u64, KeptNode)>>,
    capacity: usize,
    /// Counts the times the kept states were dropped: a state built off the node's thread
    /// from an older history is not kept ([`NodeCore::keep_past_state`]).
    generation: u64,
}

/// How a past read is answered ([`NodeCore::past_lease`]).
pub(crate) enum PastLease {
    /// The height is the head with nothing pending: the live node answers.
    Head,
    /// A kept state, brought up to date with the live node.
    Kept(KeptNode),
    /// A state to build (replay) first; kept afterwards when `keep` names the generation of
    /// the kept states it was taken in.
    Build {
        seed: Box<PastSeed>,
        keep: Option<u64>,
    },
}

/// Locks a kept node; a query that panicked while holding it left it as it was (reads do
/// not write).
pub(crate) fn lock(n: &KeptNode) -> MutexGuard<'_, NodeCore> {
    n.lock().unwrap_or_else(|e| e.into_inner())
}

impl PastCache {
    pub(crate) fn new(capacity: usize) -> Self {
        PastCache {
            entries: Mutex::new(VecDeque::new()),
            capacity,
            generation: 0,
        }
    }

    fn entries(&self) -> MutexGuard<'_, VecDeque<(u64, KeptNode)>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn clear(&mut self) {
        self.entries().clear();
        self.generation += 1;
    }

    fn len(&self) -> usize {
        self.entries().len()
    }

    /// The kept state of `height`, moved to most recently used.
    fn hit(&self, height: u64) -> Option<KeptNode> {
        let mut entries = self.entries();
        let i = entries.iter().position(|(h, _)| *h == height)?;
        let e = entries.remove(i).expect("found");
        let node = e.1.clone();
        entries.push_back(e);
        Some(node)
    }

    fn insert(&self, height: u64, node: KeptNode) {
        let mut entries = self.entries();
        if entries.iter().any(|(h, _)| *h == height) {
            return;
        }
        if entries.len() >= self.capacity {
            entries.pop_front();
        }
        entries.push_back((height, node));
    }
}

impl NodeCore {
    /// Runs `f` on the node as of sealed block `height` (within the retained history; the
    /// head itself when `height` is the head and no transaction is pending). A height below
    /// the head is kept after it was rebuilt ([`past_cache`](self)): asking it again costs a
    /// lookup.
    pub fn with_at<T>(&self, height: u64, f: impl FnOnce(&NodeCore) -> T) -> Result<T, NodeError> {
        match self.past_lease(height, true)? {
            PastLease::Head => Ok(f(self)),
            PastLease::Kept(node) => Ok(f(&lock(&node))),
            PastLease::Build { seed, keep } => {
                let node = Arc::new(Mutex::new(seed.build()?));
                if keep.is_some() {
                    self.past.insert(height, node.clone());
                }
                Ok(f(&lock(&node)))
            }
        }
    }

    /// How to answer a read as of sealed block `height`: the live node, a kept state, or a
    /// state to build from a [`PastSeed`] (the replay, which the shell runs off the node's
    /// thread). The bounds (pruned, not recorded) are checked first: a kept state never
    /// answers what a fresh read would refuse. A kept state is brought up to date with the
    /// live node here; one a past-read thread is using now is built again instead (`wait`:
    /// wait for it, as the node's own reads do).
    pub(crate) fn past_lease(&self, height: u64, wait: bool) -> Result<PastLease, NodeError> {
        if height == self.height() && self.pending_txs == 0 {
            return Ok(PastLease::Head);
        }
        if height >= self.height() || self.past.capacity == 0 {
            let seed = Box::new(self.past_seed(height)?);
            return Ok(PastLease::Build { seed, keep: None });
        }
        self.check_past(height)?;
        if let Some(node) = self.past.hit(height) {
            let followed = {
                let guard = match wait {
                    true => Some(lock(&node)),
                    false => node.try_lock().ok(),
                };
                guard.map(|mut n| n.follow(self)).is_some()
            };
            if followed {
                return Ok(PastLease::Kept(node));
            }
            let seed = Box::new(self.past_seed(height)?);
            return Ok(PastLease::Build { seed, keep: None });
        }
        let seed = Box::new(self.past_seed(height)?);
        let keep = Some(self.past.generation);
        Ok(PastLease::Build { seed, keep })
    }

    /// Keeps a past state built off the node's thread, unless the kept states were dropped
    /// since its seed was taken (the history changed) or the retained history no longer
    /// reaches its height.
    pub(crate) fn keep_past_state(&self, height: u64, generation: u64, node: KeptNode) {
        if generation == self.past.generation
            && height >= self.first_queryable()
            && height < self.height()
        {
            self.past.insert(height, node);
        }
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
        self.past.entries().retain(|(h, _)| *h >= first);
    }

    /// A kept past node brought up to what it takes from the live one as it is now.
    fn follow(&mut self, live: &NodeCore) {
        self.mining = live.mining;
        // What the live node pruned since this state was built (a fresh build takes it too).
        self.pruned_to = live.pruned_to;
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
