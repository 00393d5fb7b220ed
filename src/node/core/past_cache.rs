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
//!
//! Issue 31 item 7 (past reads off the node's thread): a kept state is a slot the node's
//! thread creates on the first read of its height and a past-read thread fills (the replay)
//! under the slot's lock; reads of the same height that arrive meanwhile wait on that lock
//! rather than replaying again. The node's thread never waits on a slot: what a read takes
//! from the live node ([`Follow`]) is taken there and applied under the lock by the reader.
//!
//! Issue 31 (Spec note 198): the kept states are bounded by the bytes they hold alone, not by
//! a count. Each is a clone of a checkpoint's chain replayed forward: it shares the pages the
//! replay did not write with the checkpoint (and the live chain), so a few MB each under a
//! light load, but a clone copies the queue's indexes whole (about 50 B per pending timer).
//! Once a new height is read, the reader estimates what each kept state holds alone (as for
//! the checkpoints, `checkpoint_budget.rs`: what dropping it would free; on the past-read
//! thread since Spec note 218, [`Fit`]) and drops the least recently used until they fit
//! [`DEFAULT_PAST_BUDGET`] (`serve --past-budget`). A state in use (being built or read) is
//! neither counted nor dropped at that moment, nor is the most recently used. A count cap,
//! [`DEFAULT_PAST_CACHE`], bounds the slots whatever their size.

use super::NodeCore;
use super::checkpoint_budget::{held_beyond, held_by_last};
use super::past::PastSeed;
use crate::chain::Chain;
use crate::engine::Address;
use crate::node::slot::{failed, filled};
use crate::node::{MiningMode, NodeError};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Past states a node keeps at most, whatever they hold (the budget below is what bounds them
/// by bytes). Each is a copy of the chain as of its height (as a checkpoint is).
pub const DEFAULT_PAST_CACHE: usize = 64;

/// What the kept past states may hold alone, in all, by default: 64 MiB (Spec note 198).
pub const DEFAULT_PAST_BUDGET: usize = 64 << 20;

/// A kept past state: empty until its first reader has built it.
pub(crate) type Slot = crate::node::slot::Slot<NodeCore>;

/// The kept past states, most recently used last.
#[derive(Default)]
pub(crate) struct PastCache {
    /// Shared with the leases of new heights, which fit the kept states to the budget off
    /// the node's thread ([`Fit`]).
    entries: Entries,
    capacity: usize,
    budget: usize,
    /// The new heights leased and the fits begun: a [`Fit`] is skipped while a newer one
    /// has yet to begin (Spec note 222).
    fits: Arc<FitCount>,
    /// In a kept past state itself (its own cache is unused): what it may hold alone.
    bound: Option<PastBound>,
}

/// How many new heights were leased (each with its [`Fit`]), and the newest fit begun.
#[derive(Default)]
struct FitCount {
    leased: AtomicU64,
    begun: AtomicU64,
}

/// At most what a kept past state holds alone while the checkpoint it was replayed from is
/// kept (Spec note 222): what it copied whole and the shared pages the checkpoint does not
/// hold, found once when it is built. The pages it shares with the checkpoint are not its
/// own while the checkpoint stays, and the state does not change once built.
pub(crate) struct PastBound {
    /// The checkpoint's chain (not kept alive by this: only compared).
    from: std::sync::Weak<Chain>,
    bytes: usize,
}

impl PastBound {
    /// The bound of `state`, replayed from the checkpoint chain `from` whose shared
    /// allocations are `pages` (sorted).
    pub(super) fn of(from: &Arc<Chain>, pages: &[usize], state: &Chain) -> PastBound {
        PastBound {
            from: Arc::downgrade(from),
            bytes: held_beyond(pages, state),
        }
    }
}

/// What a past node takes from the live one as it is when read (cheap to take: the names are
/// shared).
pub(crate) struct Follow {
    mining: MiningMode,
    pruned_to: u64,
    /// The height of the live history's oldest block (`None`: it holds none).
    first: Option<u64>,
    names: Arc<BTreeMap<Address, String>>,
}

/// The kept past states, most recently used last.
type Entries = Arc<Mutex<VecDeque<(u64, Slot)>>>;

/// A past state to read ([`NodeCore::past_lease`]): its slot, built first from `seed` when
/// it is empty.
pub(crate) struct PastLease {
    slot: Slot,
    seed: Option<Box<PastSeed>>,
    follow: Follow,
    /// For a new height: the kept states fitted to the budget once it is read.
    fit: Option<Fit>,
}

/// Fits the kept past states to their budget (Spec note 198) where the read of a new height
/// runs, not on the node's thread (Spec note 218): what each holds alone is found by a walk
/// over the pages of every kept state and checkpoint, which took the node's thread 4-14 ms per
/// new height with 16 kept. The live chain is not in the walk: a page a state shares with it
/// alone (its checkpoint since dropped) counts as the state's, so the estimate errs high and
/// the budget holds.
///
/// A fit is skipped while the fit of a newer height has yet to begin (Spec note 222): that
/// one walks every kept state, this one's included (its read has ended, its slot is free),
/// so this walk would be done again. A burst of cold reads (16 new heights at once in the
/// `rpc_requests` mix) so walks the kept states about once, not once a height: the walk was
/// two thirds of the past-read threads' time there (perf, BENCHMARKS.md). Once the newer fit
/// has begun it may have passed over this state (in use then), so this one runs. A lease
/// dropped unread runs its fit where it is dropped.
///
/// Nor does the walk run when the kept states' bounds ([`PastBound`]) add up to the budget
/// or less: the walk's total is at most theirs (Spec note 222).
struct Fit {
    entries: Entries,
    budget: usize,
    checkpoints: Vec<Arc<Chain>>,
    /// This fit's place among the new heights leased, and the count.
    nth: u64,
    count: Arc<FitCount>,
}

/// A fit runs when its lease is done with it: after the read, or where a lease is dropped
/// unread.
impl Drop for Fit {
    fn drop(&mut self) {
        self.run();
    }
}

impl Fit {
    /// Drops the least recently used kept states, built and not in use, while those hold
    /// more than the budget; the most recently used stays.
    /// The entries are copied out (shared slots) and walked unlocked, so the node's thread,
    /// which takes their lock for every past read, never waits for the walk.
    fn run(&self) {
        // The read's slot is free by now: a newer fit that has not begun will see it.
        let leased = self.count.leased.load(Ordering::SeqCst);
        if leased > self.nth && self.count.begun.load(Ordering::SeqCst) < leased {
            return;
        }
        self.count.begun.fetch_max(self.nth, Ordering::SeqCst);
        let entries = lock(&self.entries).clone();
        if entries.len() < 2 || self.within_bounds(&entries) {
            return;
        }
        let others: Vec<&Chain> = self.checkpoints.iter().map(|c| &**c).collect();
        let idle = idle_held(&entries, entries.len() - 1, &others);
        let mut total: usize = idle.iter().map(|(_, _, b)| b).sum();
        let mut drop = Vec::new();
        for (i, _, bytes) in idle {
            if total <= self.budget {
                break;
            }
            total -= bytes;
            drop.push(entries[i].1.clone());
        }
        if !drop.is_empty() {
            lock(&self.entries).retain(|(_, s)| !drop.iter().any(|d| Arc::ptr_eq(d, s)));
        }
    }

    /// Whether the states the walk would count (built, not in use, but the most recently
    /// used) hold the budget or less by their bounds: each replayed from a checkpoint still
    /// kept (else its bound says nothing and the walk runs).
    fn within_bounds(&self, entries: &VecDeque<(u64, Slot)>) -> bool {
        let mut total = 0usize;
        for (_, slot) in entries.iter().take(entries.len() - 1) {
            let Ok(guard) = slot.try_lock() else {
                continue;
            };
            let Some(state) = guard.as_ref() else {
                continue;
            };
            let Some(bound) = state.past.bound.as_ref().filter(|b| {
                self.checkpoints
                    .iter()
                    .any(|c| std::ptr::eq(Arc::as_ptr(c), b.from.as_ptr()))
            }) else {
                return false;
            };
            total = total.saturating_add(bound.bytes);
        }
        total <= self.budget
    }
}

fn lock(entries: &Entries) -> MutexGuard<'_, VecDeque<(u64, Slot)>> {
    entries.lock().unwrap_or_else(|e| e.into_inner())
}

/// Of the first `upto` of `entries`, those built and not in use (a slot locked by a reader
/// is skipped: never waits on one): their index, height and what each holds that `others`
/// (the live chain, the checkpoints) do not and no more recently used one of them does
/// (Spec note 223: what dropping them in order, least recently used first, frees).
fn idle_held(
    entries: &VecDeque<(u64, Slot)>,
    upto: usize,
    others: &[&Chain],
) -> Vec<(usize, u64, usize)> {
    let guards: Vec<_> = entries
        .iter()
        .take(upto)
        .enumerate()
        .filter_map(|(i, (h, s))| Some((i, *h, s.try_lock().ok().filter(|g| g.is_some())?)))
        .collect();
    if guards.is_empty() {
        return Vec::new();
    }
    let states: Vec<&Chain> = guards
        .iter()
        .map(|(_, _, g)| g.as_ref().expect("built").chain())
        .collect();
    let held = held_by_last(others, &states);
    guards
        .iter()
        .zip(held)
        .map(|((i, h, _), b)| (*i, *h, b))
        .collect()
}

impl PastLease {
    /// Whether this read builds its past state (a replay), not one kept or being built.
    pub(crate) fn builds(&self) -> bool {
        self.seed.is_some()
    }

    /// Runs `f` on the past node (on any thread): builds the slot if this lease holds its
    /// seed, else waits for the reader building it; brings it up to date with the live node
    /// first. A lease of a new height then fits the kept states to their budget (unless the
    /// fit of a newer height has yet to begin: it will, Spec note 222).
    pub(crate) fn read<T>(self, f: impl FnOnce(&NodeCore) -> T) -> Result<T, NodeError> {
        let PastLease {
            slot,
            seed,
            follow,
            fit,
        } = self;
        let read = filled(&slot, seed.map(|s| move || s.build()), || {
            "the past state could not be rebuilt (see the first read's error)".into()
        })
        .map(|mut guard| {
            let node = guard.as_mut().expect("built");
            node.follow(follow);
            f(node)
        });
        // The fit runs as it is dropped, when the read failed too: the fits it made earlier
        // ones skip are its own.
        drop(fit);
        read
    }
}

impl PastCache {
    pub(crate) fn new(capacity: usize, budget: usize) -> Self {
        PastCache {
            entries: Arc::new(Mutex::new(VecDeque::new())),
            capacity,
            budget,
            fits: Arc::default(),
            bound: None,
        }
    }

    /// The cache of a kept past state (none of its own), with the state's bound.
    pub(super) fn of_kept(bound: PastBound) -> Self {
        PastCache {
            bound: Some(bound),
            ..PastCache::default()
        }
    }

    fn entries(&self) -> MutexGuard<'_, VecDeque<(u64, Slot)>> {
        lock(&self.entries)
    }

    pub(crate) fn clear(&mut self) {
        self.entries().clear();
    }

    fn len(&self) -> usize {
        self.entries().len()
    }

    /// The kept state of the highest height below `height`, if any (built or not).
    pub(super) fn nearest_below(&self, height: u64) -> Option<(u64, Slot)> {
        self.entries()
            .iter()
            .filter(|(h, _)| *h < height)
            .max_by_key(|(h, _)| *h)
            .map(|(h, s)| (*h, s.clone()))
    }

    /// The slot of `height` (moved to most recently used), and whether it was just made.
    fn slot(&self, height: u64) -> (Slot, bool) {
        let mut entries = self.entries();
        if let Some(i) = entries.iter().position(|(h, _)| *h == height) {
            let e = entries.remove(i).expect("found");
            let slot = e.1.clone();
            entries.push_back(e);
            return (slot, false);
        }
        if entries.len() >= self.capacity {
            entries.pop_front();
        }
        let slot = Slot::default();
        entries.push_back((height, slot.clone()));
        (slot, true)
    }
}

impl NodeCore {
    /// Runs `f` on the node as of sealed block `height` (within the retained history; the
    /// head itself when `height` is the head and no transaction is pending). A height below
    /// the head is kept after it was rebuilt ([`past_cache`](self)): asking it again costs a
    /// lookup.
    pub fn with_at<T>(&self, height: u64, f: impl FnOnce(&NodeCore) -> T) -> Result<T, NodeError> {
        match self.past_lease(height)? {
            None => Ok(f(self)),
            Some(lease) => lease.read(f),
        }
    }

    /// How to answer a read as of sealed block `height`: `None`, the live node (the head with
    /// nothing pending), or a past state (a kept slot, or one to fill from a [`PastSeed`]: the
    /// replay, which the shell runs off the node's thread). The bounds (pruned, not recorded)
    /// are checked first: a kept state never answers what a fresh read would refuse. Never
    /// waits for a past-read thread.
    pub(crate) fn past_lease(&self, height: u64) -> Result<Option<PastLease>, NodeError> {
        if height == self.height() && self.pending_txs == 0 {
            return Ok(None);
        }
        let follow = Follow {
            mining: self.mining,
            pruned_to: self.pruned_to,
            first: self.history.front().map(|b| b.header.height),
            names: self.names.clone(),
        };
        if height >= self.height() || self.past.capacity == 0 {
            let seed = Some(Box::new(self.past_seed(height)?));
            let slot = Slot::default();
            return Ok(Some(PastLease {
                slot,
                seed,
                follow,
                fit: None,
            }));
        }
        self.check_past(height)?;
        let (slot, new) = self.past.slot(height);
        // A slot left empty and unlocked is one whose build failed: this read builds again.
        let seed = match new || failed(&slot) {
            true => Some(Box::new(
                self.past_seed(height)?
                    .nearer(self.past.nearest_below(height)),
            )),
            false => None,
        };
        let fit = new.then(|| Fit {
            entries: self.past.entries.clone(),
            budget: self.past.budget,
            checkpoints: self.checkpoint_chains(),
            nth: self.past.fits.leased.fetch_add(1, Ordering::SeqCst) + 1,
            count: self.past.fits.clone(),
        });
        Ok(Some(PastLease {
            slot,
            seed,
            follow,
            fit,
        }))
    }

    /// Sets how many past states the node keeps at most (0: none, every past read replays;
    /// the tests compare both), dropping the kept ones.
    pub fn set_past_cache(&mut self, capacity: usize) {
        self.past = PastCache::new(capacity, self.past.budget);
    }

    /// Sets what the kept past states may hold alone, in bytes (Spec note 198), dropping the
    /// kept ones.
    pub fn set_past_budget(&mut self, budget: usize) {
        self.past = PastCache::new(self.past.capacity, budget);
    }

    /// The heights of the kept past states that are built and not in use, with what each
    /// holds alone (Spec note 198; what it shares with more recently used ones only counted
    /// with the most recently used of them, Spec note 223), least recently used first.
    pub fn past_state_bytes(&self) -> Vec<(u64, usize)> {
        let entries = self.past.entries();
        let mut others: Vec<&Chain> = vec![&self.chain];
        others.extend(self.checkpoints.iter().map(|c| c.chain()));
        idle_held(&entries, entries.len(), &others)
            .into_iter()
            .map(|(_, h, bytes)| (h, bytes))
            .collect()
    }

    /// The heights of the kept past states that are built and not in use, with the bound
    /// each was given when built (Spec note 222), least recently used first: at least what
    /// it holds alone while the checkpoint it was replayed from is kept.
    pub fn past_state_bounds(&self) -> Vec<(u64, usize)> {
        let entries = self.past.entries();
        entries
            .iter()
            .filter_map(|(h, s)| {
                let guard = s.try_lock().ok()?;
                Some((*h, guard.as_ref()?.past.bound.as_ref()?.bytes))
            })
            .collect()
    }

    /// How many past states are kept now.
    pub fn past_states_kept(&self) -> usize {
        self.past.len()
    }

    /// Drops every kept past state: the history they were read from changed.
    pub(crate) fn drop_past_states(&mut self) {
        self.past.clear();
    }

    /// Drops the kept states the retained history no longer reaches (after a seal), and lets
    /// the others' blocks below the window go with the live node's (Spec note 223: a kept
    /// state would otherwise hold alone each block the history let go since it was built; one
    /// in use is trimmed on its next read).
    pub(super) fn prune_past_states(&mut self) {
        let first = self.first_queryable();
        let mut entries = self.past.entries();
        entries.retain(|(h, _)| *h >= first);
        let (pruned_to, front) = (
            self.pruned_to,
            self.history.front().map(|b| b.header.height),
        );
        for (_, slot) in entries.iter() {
            if let Ok(mut guard) = slot.try_lock()
                && let Some(node) = guard.as_mut()
            {
                node.let_go_below(pruned_to, front);
            }
        }
    }

    /// A kept past node brought up to what it takes from the live one as it is now.
    fn follow(&mut self, live: Follow) {
        self.mining = live.mining;
        // What the live node pruned since this state was built (a fresh build takes it too).
        self.pruned_to = live.pruned_to;
        self.names = live.names;
        self.let_go_below(live.pruned_to, live.first);
    }

    /// A kept past node lets go of what the live one let go: its history's blocks below the
    /// live history's first (`None`: it holds none) and (Spec note 223) its chain's below
    /// `pruned_to`, as the live chain's went.
    fn let_go_below(&mut self, pruned_to: u64, first: Option<u64>) {
        self.chain.drop_blocks_below(pruned_to);
        match first {
            Some(first) => {
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
