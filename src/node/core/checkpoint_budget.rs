//! Checkpoints bounded by bytes (issue 31, serve under 300 MB; Spec note 194).
//!
//! A checkpoint is a clone of the chain: it shares the timer queue's slab pages and the
//! commitments' chunks with the live chain until one side writes them, and copies the queue's
//! indexes (the id index, the tiers' lists, the carry queue and the auction's indexes) whole.
//! Under a standing backlog the live chain writes pages and chunks all over between two
//! checkpoints, so each one ends up holding most of a chain of its own: 39 of them in a
//! 10,000-block window held most of a `serve`'s memory (docs/BENCHMARKS.md).
//!
//! So the node estimates what each checkpoint holds alone (what dropping it would free): the
//! bytes it copied whole ([`Chain::clone_bytes`]) and the shared allocations no other
//! checkpoint and not the live chain holds ([`Chain::visit_shared`]). When their total exceeds
//! the budget (`NodeConfig::checkpoint_budget`, default [`DEFAULT_CHECKPOINT_BUDGET`]),
//! checkpoints are dropped until what they held alone covers the excess, each time the one
//! whose going leaves the shortest replay between its neighbours (Spec note 226; the oldest,
//! which the window's first height replays from, and the newest stay), again until the total
//! fits or only those two are left. So the kept checkpoints stay spread over the session
//! log's work, and a past read replays at most about the window's work over their number.
//! Answers do not change: a replay from any checkpoint reaches the same state (the session
//! log is deterministic).
//!
//! A checkpoint but the newest that alone holds more than the whole budget goes first, the
//! oldest too (Spec note 225): a chain that rewrote most of its timers since (tier migrations
//! under a million pending, a backlog's churn) would otherwise keep a second chain's worth for
//! the window's first heights. Past states then start at the next checkpoint: a state read
//! below it answers `StateNotKept` naming that height (its block is still kept).

use super::NodeCore;
use crate::chain::Chain;

/// What the checkpoints may hold alone, in all, by default: 32 MiB (64 MiB until Spec note
/// 208: with the session log's compact entries it is what keeps a default `serve` with a
/// 100,000-timer backlog under 300 MB; a past read of a thinned span replays further).
pub const DEFAULT_CHECKPOINT_BUDGET: usize = 32 << 20;

/// The checkpoints' heights and the bytes each holds alone (estimated), oldest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointBytes {
    pub heights: Vec<u64>,
    pub held: Vec<usize>,
    pub budget: usize,
}

impl CheckpointBytes {
    pub fn total(&self) -> usize {
        self.held.iter().sum()
    }
}

/// The bytes each of `cps` holds alone: what it copied whole or built since (Spec note 223),
/// and the shared allocations (pages, chunks) that none of `others` (the live chain, ...) and
/// no other of `cps` holds.
pub(super) fn held_alone(others: &[&Chain], cps: &[&Chain]) -> Vec<usize> {
    held(others, cps, false)
}

/// As [`held_alone`], but an allocation that several of `cps` and none of `others` hold is
/// counted with the last of them (Spec note 223): for chains let go in order, first to last,
/// each one's figure is what letting it go frees then, and their sum is what they hold
/// between them (an allocation two kept past states share, one replayed from the other,
/// counted with neither, was a fifth of what the states held in a test's scene).
pub(super) fn held_by_last(others: &[&Chain], cps: &[&Chain]) -> Vec<usize> {
    held(others, cps, true)
}

fn held(others: &[&Chain], cps: &[&Chain], to_last: bool) -> Vec<usize> {
    const OTHER: usize = usize::MAX;
    // (address, holder, bytes) of every shared allocation of every chain.
    let mut all: Vec<(usize, usize, usize)> = Vec::new();
    for o in others {
        o.visit_shared(&mut |p, b| all.push((p, OTHER, b)));
    }
    for (i, c) in cps.iter().enumerate() {
        c.visit_shared(&mut |p, b| all.push((p, i, b)));
    }
    all.sort_unstable();
    let mut held: Vec<usize> = cps.iter().map(|c| c.held_bytes()).collect();
    for group in all.chunk_by(|a, b| a.0 == b.0) {
        // Sorted by holder within the address: the last is OTHER when any other holds it.
        let last = group[group.len() - 1].1;
        if last != OTHER && (to_last || group.iter().all(|g| g.1 == last)) {
            held[last] += group[0].2;
        }
    }
    held
}

/// The addresses of `chain`'s shared allocations (pages, chunks), sorted.
pub(super) fn shared_pages(chain: &Chain) -> Box<[usize]> {
    let mut pages = Vec::new();
    chain.visit_shared(&mut |p, _| pages.push(p));
    pages.sort_unstable();
    pages.into_boxed_slice()
}

/// At least what `chain` holds beyond the shared allocations `pages` (sorted, another
/// chain's): what it copied whole and each of its shared allocations not among them (one it
/// reaches twice is counted twice: the figure errs high, Spec note 222).
pub(super) fn held_beyond(pages: &[usize], chain: &Chain) -> usize {
    let mut held = chain.held_bytes();
    chain.visit_shared(&mut |p, b| {
        if pages.binary_search(&p).is_err() {
            held += b;
        }
    });
    held
}

/// Which checkpoints a thinning keeps (Spec note 226), given each one's place in the session
/// log (`counts`, ascending) and what it holds alone: the oldest and the newest, and of the
/// others, dropped one by one until what the dropped ones held covers `excess`, each time the
/// one whose neighbours (among those kept) are closest in the log, the older on a tie. A
/// past read then replays at most about the log's length over the number kept, wherever it
/// falls; note 194 dropped every other one of the older half, so a long busy stretch thinned
/// to its oldest checkpoint and a dense end, and its middle replayed from the oldest.
fn spread(counts: &[usize], held: &[usize], excess: usize) -> Vec<bool> {
    use std::collections::BTreeSet;
    let n = counts.len();
    let mut keep = vec![true; n];
    if n < 3 {
        return keep;
    }
    // The kept neighbours of each, and the interior ones by the replay their going leaves.
    let mut prev: Vec<usize> = (0..n).map(|i| i.saturating_sub(1)).collect();
    let mut next: Vec<usize> = (0..n).map(|i| (i + 1).min(n - 1)).collect();
    let gap = |p: usize, q: usize| counts[q] - counts[p];
    let mut by_gap: BTreeSet<(usize, usize)> =
        (1..n - 1).map(|i| (gap(prev[i], next[i]), i)).collect();
    let mut freed = 0;
    while freed < excess {
        let Some((_, i)) = by_gap.pop_first() else {
            break;
        };
        keep[i] = false;
        freed += held[i];
        let (p, q) = (prev[i], next[i]);
        // The neighbours' own gaps widen: re-keyed.
        for (j, before) in [(p, gap(prev[p], i)), (q, gap(i, next[q]))] {
            if j != 0 && j != n - 1 {
                by_gap.remove(&(before, j));
            }
        }
        next[p] = q;
        prev[q] = p;
        for j in [p, q] {
            if j != 0 && j != n - 1 {
                by_gap.insert((gap(prev[j], next[j]), j));
            }
        }
    }
    keep
}

impl NodeCore {
    /// The checkpoints' heights and the bytes each holds alone (Spec note 194).
    pub fn checkpoint_bytes(&self) -> CheckpointBytes {
        let chains: Vec<&Chain> = self.checkpoints.iter().map(|c| c.chain()).collect();
        CheckpointBytes {
            heights: self.checkpoints.iter().map(|c| c.height()).collect(),
            held: held_alone(&[&self.chain], &chains),
            budget: self.checkpoint_budget,
        }
    }

    /// The newest checkpoint's height: it changes when one is placed, and with it what the
    /// budget let go (the shell hands freed memory back then, Spec note 201).
    pub fn newest_checkpoint(&self) -> Option<u64> {
        self.checkpoints.back().map(|c| c.height())
    }

    /// Drops checkpoints while they hold more than the budget (Spec note 194), spread over
    /// the session log's work (Spec note 226), and first any but the newest that alone holds
    /// more than it (Spec note 225).
    /// Called when a checkpoint is placed.
    pub(super) fn fit_checkpoints(&mut self) {
        while self.checkpoints.len() > 1 {
            let bytes = self.checkpoint_bytes();
            if bytes.total() <= self.checkpoint_budget {
                return;
            }
            // Spec note 225: a checkpoint but the newest that alone holds more than the whole
            // budget goes first, the oldest too (past states then start at the next one);
            // when none does, the thinning.
            let newest = self.checkpoints.len() - 1;
            let under: Vec<bool> = (bytes.held.iter().enumerate())
                .map(|(i, b)| i == newest || *b <= self.checkpoint_budget)
                .collect();
            let keep = match under.iter().all(|k| *k) {
                true => {
                    let counts: Vec<usize> = self.checkpoints.iter().map(|c| c.count()).collect();
                    spread(&counts, &bytes.held, bytes.total() - self.checkpoint_budget)
                }
                false => under,
            };
            let mut i = 0;
            self.checkpoints.retain(|_| {
                i += 1;
                keep[i - 1]
            });
            if keep.iter().all(|k| *k) {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::spread;

    /// Spec note 226: the thinning keeps both ends and drops, first, the checkpoint whose
    /// neighbours are closest in the session log; it stops once the excess is covered.
    #[test]
    fn a_thinning_spreads_the_kept_checkpoints_over_the_log() {
        assert_eq!(spread(&[0, 5], &[9, 9], 100), vec![true, true]);
        // A dense end (counts 90..=99) and a sparse start: the dense end thins first.
        let counts = [0, 30, 60, 90, 92, 94, 96, 98, 99];
        let keep = spread(&counts, &[1; 9], 4);
        assert_eq!(keep.iter().filter(|k| !**k).count(), 4);
        assert!(keep[0] && keep[8] && keep[1] && keep[2] && keep[3]);
        // Dropping everything it may leaves the two ends.
        assert_eq!(
            spread(&counts, &[1; 9], 1_000),
            [true, false, false, false, false, false, false, false, true]
        );
        // Evenly spaced: the older of a tie goes first, and the kept stay spread.
        let even: Vec<usize> = (0..9).map(|i| i * 10).collect();
        let keep = spread(&even, &[1; 9], 4);
        let kept: Vec<usize> = (0..9).filter(|i| keep[*i]).map(|i| even[i]).collect();
        assert_eq!(kept, vec![0, 20, 40, 60, 80]);
        // What the dropped ones held alone decides how many go.
        let keep = spread(&even, &[1, 30, 1, 1, 1, 1, 1, 1, 1], 30);
        assert_eq!(
            keep,
            [true, false, true, true, true, true, true, true, true]
        );
    }
}
