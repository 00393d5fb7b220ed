//! The per-actor fairness weight W(actor) of CIP-1 v3 §8.
//!
//! `recent_executions[actor]` is the number of timer fires of `actor` over the last
//! `window_blocks` blocks; the network median is taken over the actors with at least one fire in
//! the window; `W = clip(2 − recent / max(1, median), 1, 2)`, in basis points of 1.
//!
//! The window is kept as a ring of per-block lists of `(actor, fires, deferrals)` (only blocks
//! that had any), not as a `window_blocks`-slot ring per actor as §8 sketches: the per-block
//! cost then follows the actors of the block recorded and of the block leaving the window, not
//! all known actors, and memory follows the fires rather than `8 KiB` per actor. Beside it:
//! per-actor totals in a slab (the ring names actors by slot, so a block leaving the window
//! needs no lookup), an address → slot index, and a histogram of the totals (number of actors
//! per fire count) from which the median is read by a walk over the counts up to it.
//!
//! Dense slots (issue 31): a caller that already looked an actor up (the `eip1559` plan reads
//! W(actor) for every due timer and carried actor, [`Fairness::weight_and_slot_by`]) keeps the
//! actor's [`FairnessSlot`] with the fire or the deferral count and hands it back in [`Fairness::record_block`] (a [`Tally`]),
//! so the update reads and writes one compact record per actor, indexed by slot, instead of a
//! second lookup in the index of all actors. A slot is assigned when an actor first enters the
//! window (the last one freed first, else the next new one, in the order the rows are
//! recorded: ascending address) and freed when it leaves; a slot given back is checked against
//! its record's address and taken only while that actor is in the window, otherwise the actor
//! is looked up as before, so a stale or wrong slot costs a lookup and never changes a count
//! (Spec note 200).
//!
//! Nothing depends on hash-map order: the index is only looked up, never iterated for a
//! result; rows, dumps and the state encoding name actors by address, in ascending order or in
//! the order of the ring. Slot numbers are internal and never leave this type.

use super::lane::BPS;
use super::variants::FairnessMedian;
use crate::engine::types::{Address, HashEncode, HashEncoder};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// W = 1, in basis points.
pub const W_ONE_BPS: u32 = BPS;
/// W = 2 (the most boost), in basis points.
pub const W_MAX_BPS: u32 = 2 * BPS;
/// `FAIRNESS_WINDOW_BLOCKS` (§8).
pub const FAIRNESS_WINDOW_BLOCKS: u64 = 1_000;

/// One block's fires and deferrals per actor, as stored: actors ascending, no all-zero row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
struct BlockCounts {
    height: u64,
    rows: Vec<(Address, u32, u32)>,
}

/// One block in the ring: rows name actors by slot (in ascending address order).
#[derive(Clone, Debug)]
struct Block {
    height: u64,
    rows: Vec<(u32, u32, u32)>,
}

/// An actor's place in the fairness window: an index into its compact per-actor records,
/// valid while the actor stays in the window (see the module docs). Never serialised, never in
/// the state root; slots are rebuilt when a window is loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FairnessSlot(u32);

impl FairnessSlot {
    /// The slot's number: a small integer, below the most actors the window has held at once.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// One actor's count in a block as the update takes it: a bare `u32`, or a [`Tally`] carrying
/// the actor's slot.
trait BlockCount {
    /// The count (fires or deferrals); 0 is no row.
    fn count(&self) -> u32;
    /// The actor's slot, if the caller looked it up in this window.
    fn slot(&self) -> Option<FairnessSlot> {
        None
    }
}

impl BlockCount for u32 {
    fn count(&self) -> u32 {
        *self
    }
}

/// A count with the actor's [`FairnessSlot`] as the caller found it (the engine's per-block
/// fires and the auction's deferral counts: the slot found with W(actor) when the block was
/// planned), for
/// [`Fairness::record_block_tallied`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub count: u32,
    pub slot: Option<FairnessSlot>,
}

impl BlockCount for Tally {
    fn count(&self) -> u32 {
        self.count
    }
    fn slot(&self) -> Option<FairnessSlot> {
        self.slot
    }
}

/// An actor's record, per slot: its address and totals over the window (both zero: a free
/// slot). One record per actor so the check of a given slot and the update share a line.
#[derive(Clone, Copy, Debug)]
struct Totals {
    addr: Address,
    fires: u64,
    deferrals: u64,
}

impl Totals {
    fn free(addr: Address) -> Self {
        Totals {
            addr,
            fires: 0,
            deferrals: 0,
        }
    }

    fn live(&self) -> bool {
        self.fires != 0 || self.deferrals != 0
    }
}

/// What is stored (dumps, snapshots): the window length and the blocks in it. The totals, the
/// index, the histogram and the median are rebuilt from them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
struct FairnessState {
    window_blocks: u64,
    blocks: Vec<BlockCounts>,
}

/// Counts below this are histogram slots in a vector; larger ones go to a map.
const HIST_DENSE: u64 = 4_096;

/// Number of actors per fire count (counts ≥ 1).
#[derive(Clone, Debug, Default)]
struct Histogram {
    dense: Vec<u64>,
    sparse: BTreeMap<u64, u64>,
}

impl Histogram {
    fn inc(&mut self, count: u64) {
        if count < HIST_DENSE {
            let i = count as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, 0);
            }
            self.dense[i] += 1;
        } else {
            *self.sparse.entry(count).or_insert(0) += 1;
        }
    }

    fn dec(&mut self, count: u64) {
        if count < HIST_DENSE {
            self.dense[count as usize] -= 1;
        } else {
            let n = self.sparse.get_mut(&count).expect("count in histogram");
            *n -= 1;
            if *n == 0 {
                self.sparse.remove(&count);
            }
        }
    }

    /// The count at 0-based `rank` in ascending order.
    fn nth(&self, rank: u64) -> u64 {
        let mut seen = 0;
        for (count, &n) in self.dense.iter().enumerate() {
            seen += n;
            if seen > rank {
                return count as u64;
            }
        }
        for (&count, &n) in &self.sparse {
            seen += n;
            if seen > rank {
                return count;
            }
        }
        unreachable!("rank beyond the histogram")
    }
}

/// The §8 window state.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(from = "FairnessState", into = "FairnessState")]
pub struct Fairness {
    window: u64,
    /// The blocks in the window that had a fire or a deferral, oldest first.
    blocks: VecDeque<Block>,
    /// Slot of every actor with a fire or a deferral in the window (looked up only).
    index: hashbrown::HashMap<Address, u32>,
    /// Address and totals per slot; free slots are listed in `free`.
    totals: Vec<Totals>,
    free: Vec<u32>,
    hist: Histogram,
    /// Actors with at least one fire in the window (the histogram's total).
    firing: u64,
    /// The network median (§8), kept current: the lower median.
    median: u64,
    /// The mean of the two middle counts, floored (variant `fairness_median = mean`).
    median_mean: u64,
}

impl PartialEq for Fairness {
    /// Equal windows: the same length and the same blocks (what the state encoding commits).
    fn eq(&self, other: &Self) -> bool {
        self.window == other.window
            && self.blocks.len() == other.blocks.len()
            && self.blocks.iter().zip(&other.blocks).all(|(a, b)| {
                a.height == b.height
                    && a.rows.len() == b.rows.len()
                    && a.rows.iter().zip(&b.rows).all(|(x, y)| {
                        self.totals[x.0 as usize].addr == other.totals[y.0 as usize].addr
                            && (x.1, x.2) == (y.1, y.2)
                    })
            })
    }
}
impl Eq for Fairness {}

/// One actor's row for `scheduler_fairness`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FairnessRow {
    pub actor: Address,
    pub recent_fires: u64,
    pub recent_deferrals: u64,
    pub weight_bps: u32,
}

impl Default for Fairness {
    /// An empty window of `FAIRNESS_WINDOW_BLOCKS` (1,000) blocks.
    fn default() -> Self {
        Fairness::new(FAIRNESS_WINDOW_BLOCKS)
    }
}

impl From<FairnessState> for Fairness {
    fn from(s: FairnessState) -> Self {
        let mut f = Fairness::new(s.window_blocks);
        for b in s.blocks {
            let rows: Vec<(u32, u32, u32)> = b
                .rows
                .into_iter()
                .map(|(a, fires, defs)| (f.slot(a, None), fires, defs))
                .collect();
            f.apply(&rows, true);
            f.blocks.push_back(Block {
                height: b.height,
                rows,
            });
        }
        (f.median, f.median_mean) = f.compute_median();
        f
    }
}

impl From<Fairness> for FairnessState {
    fn from(f: Fairness) -> Self {
        FairnessState {
            window_blocks: f.window,
            blocks: f.blocks.iter().map(|b| f.stored(b)).collect(),
        }
    }
}

impl Fairness {
    /// An empty window of `window_blocks` blocks (a window of 0 is taken as 1).
    pub fn new(window_blocks: u64) -> Self {
        Fairness {
            window: window_blocks.max(1),
            blocks: VecDeque::new(),
            index: hashbrown::HashMap::new(),
            totals: Vec::new(),
            free: Vec::new(),
            hist: Histogram::default(),
            firing: 0,
            median: 0,
            median_mean: 0,
        }
    }

    pub fn window_blocks(&self) -> u64 {
        self.window
    }

    /// W(actor) in basis points of 1, in [10_000, 20_000] (§8):
    /// `20,000 − floor(recent × 10,000 / max(1, median))`, at least 10,000.
    ///
    /// Rounding (CIP-1 v3 §8): the ratio `recent / median` is floored in basis points, so W is
    /// rounded up, by less than 1 bps, in favour of the quieter actor. An actor with no fire in
    /// the window (or unknown) gets 20,000; one at or above the median 10,000.
    pub fn weight_bps(&self, actor: &Address) -> u32 {
        weight_bps(self.recent_fires(actor), self.median)
    }

    fn get(&self, actor: &Address) -> Totals {
        self.index
            .get(actor)
            .map_or_else(|| Totals::free(*actor), |&s| self.totals[s as usize])
    }

    /// `actor`'s slot while it is in the window.
    pub fn slot_of(&self, actor: &Address) -> Option<FairnessSlot> {
        self.index.get(actor).map(|&s| FairnessSlot(s))
    }

    /// [`weight_bps_by`](Self::weight_bps_by) and `actor`'s slot from one lookup: what a
    /// caller keeps to hand the slot back with the actor's counts ([`Tally`]).
    pub fn weight_and_slot_by(
        &self,
        actor: &Address,
        rule: FairnessMedian,
    ) -> (u32, Option<FairnessSlot>) {
        match self.index.get(actor) {
            Some(&s) => (
                weight_bps(self.totals[s as usize].fires, self.median_by(rule)),
                Some(FairnessSlot(s)),
            ),
            None => (weight_bps(0, self.median_by(rule)), None),
        }
    }

    /// Fires of `actor` in the window.
    pub fn recent_fires(&self, actor: &Address) -> u64 {
        self.get(actor).fires
    }

    /// Deferrals of `actor`'s timers in the window.
    pub fn recent_deferrals(&self, actor: &Address) -> u64 {
        self.get(actor).deferrals
    }

    /// The network median of recent fires over the actors with at least one fire in the window,
    /// 0 when none has (§8).
    ///
    /// Rounding (CIP-1 v3 §8): for an even number of such actors it is the **lower median** (the
    /// count at index `(n − 1) / 2` in ascending order), an actual actor's count, as the p50 tip
    /// is (§7.1).
    pub fn median(&self) -> u64 {
        self.median
    }

    /// The network median under the variant `fairness_median` (open point 22, Spec note 155):
    /// `lower` is [`median`](Self::median); `mean` is the usual median, the mean of the two
    /// middle counts of an even number of firing actors, floored (integer math).
    pub fn median_by(&self, rule: FairnessMedian) -> u64 {
        match rule {
            FairnessMedian::Lower => self.median,
            FairnessMedian::Mean => self.median_mean,
        }
    }

    /// [`weight_bps`](Self::weight_bps) against [`median_by`](Self::median_by)`(rule)`.
    pub fn weight_bps_by(&self, actor: &Address, rule: FairnessMedian) -> u32 {
        weight_bps(self.recent_fires(actor), self.median_by(rule))
    }

    /// §3 step 10 + §8: records block `height`'s fires and deferrals per actor and rolls the
    /// window to `height`: it then holds heights `height − window + 1 ..= height`, so a fire at
    /// height h counts through h + window − 1 and not after. An actor leaves the map when it
    /// has neither a fire nor a deferral left in the window (§8's pruning of actors silent for
    /// the whole window; an actor whose timers were only deferred stays listed with W = 2 so
    /// that starvation shows in `rows`, and does not count toward the median).
    ///
    /// Heights must not decrease. The cost follows the actors in this block and in the blocks
    /// leaving the window; each actor of the block is looked up by address
    /// ([`record_block_tallied`](Self::record_block_tallied) takes their slots instead).
    pub fn record_block(
        &mut self,
        height: u64,
        fires: &BTreeMap<Address, u32>,
        deferrals: &BTreeMap<Address, u32>,
    ) {
        self.record(height, fires, deferrals);
    }

    /// [`record_block`](Self::record_block) with each count carrying the actor's
    /// [`FairnessSlot`] when the caller found it in this window ([`Tally`]; issue 31): the
    /// actor's record is then reached by slot, without a lookup in the index of all actors. A
    /// slot that no longer names the actor in the window is ignored and the actor looked up
    /// (module docs), so the result never depends on the slots given.
    pub fn record_block_tallied(
        &mut self,
        height: u64,
        fires: &BTreeMap<Address, Tally>,
        deferrals: &BTreeMap<Address, Tally>,
    ) {
        self.record(height, fires, deferrals);
    }

    /// The update of both `record_block`s. The block is added before the oldest ones leave
    /// (the same totals either way), so the slots the caller found before the block still
    /// name their actors while they are read.
    fn record<F: BlockCount, D: BlockCount>(
        &mut self,
        height: u64,
        fires: &BTreeMap<Address, F>,
        deferrals: &BTreeMap<Address, D>,
    ) {
        let rows = merge_rows(fires, deferrals);
        if rows.is_empty() {
            self.roll(height);
            return;
        }
        // Slots first (a tight loop of independent loads, so the misses of a lookup overlap),
        // then the updates.
        let rows: Vec<(u32, u32, u32)> = rows
            .into_iter()
            .map(|(a, hint, f, d)| (self.slot(a, hint), f, d))
            .collect();
        self.apply(&rows, true);
        self.blocks.push_back(Block { height, rows });
        self.drop_old(height);
        (self.median, self.median_mean) = self.compute_median();
    }

    /// Advances an idle stretch (no fires, no deferrals) up to and including `height`: the
    /// window then holds heights `height − window + 1 ..= height`. The cost follows the blocks
    /// leaving the window, not the length of the stretch.
    pub fn skip_to(&mut self, height: u64) {
        self.roll(height);
    }

    /// Governance changed `FAIRNESS_WINDOW_BLOCKS` (§8, Tier-2) after block `height`: the
    /// window holds heights `height − window + 1 ..= height` from now on; a shorter window
    /// drops the blocks before them, a longer one keeps every block it still has (those that
    /// left the old window are gone and do not come back).
    pub fn set_window(&mut self, window_blocks: u64, height: u64) {
        self.window = window_blocks.max(1);
        self.roll(height);
    }

    /// One row per actor in the window, sorted by actor (W against the lower median).
    pub fn rows(&self) -> Vec<FairnessRow> {
        self.rows_by(FairnessMedian::Lower)
    }

    /// [`rows`](Self::rows) with W against [`median_by`](Self::median_by)`(rule)`.
    pub fn rows_by(&self, rule: FairnessMedian) -> Vec<FairnessRow> {
        let median = self.median_by(rule);
        let mut rows: Vec<FairnessRow> = self
            .index
            .iter()
            .map(|(a, &s)| {
                let t = self.totals[s as usize];
                FairnessRow {
                    actor: *a,
                    recent_fires: t.fires,
                    recent_deferrals: t.deferrals,
                    weight_bps: weight_bps(t.fires, median),
                }
            })
            .collect();
        rows.sort_unstable_by_key(|r| r.actor);
        rows
    }

    /// True when nothing is in the window (every actor has W = 2).
    pub fn is_idle(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Number of actors in the window.
    pub fn actor_count(&self) -> usize {
        self.index.len()
    }

    /// A ring block as stored, actors by address.
    fn stored(&self, b: &Block) -> BlockCounts {
        BlockCounts {
            height: b.height,
            rows: b
                .rows
                .iter()
                .map(|&(s, f, d)| (self.totals[s as usize].addr, f, d))
                .collect(),
        }
    }

    /// Drops the blocks at or below `height − window` and brings the median up to date.
    fn roll(&mut self, height: u64) {
        if self.drop_old(height) {
            (self.median, self.median_mean) = self.compute_median();
        }
    }

    /// Drops the blocks at or below `height − window`; whether any left.
    fn drop_old(&mut self, height: u64) -> bool {
        let Some(cutoff) = height.checked_sub(self.window) else {
            return false;
        };
        let mut changed = false;
        while self.blocks.front().is_some_and(|b| b.height <= cutoff) {
            let b = self.blocks.pop_front().expect("checked non-empty");
            self.apply(&b.rows, false);
            changed = true;
        }
        changed
    }

    /// Adds (`add`) or removes a block's rows to or from the totals and the histogram.
    fn apply(&mut self, rows: &[(u32, u32, u32)], add: bool) {
        for &(s, f, d) in rows {
            let old = self.totals[s as usize];
            let t = if add {
                Totals {
                    fires: old.fires + f as u64,
                    deferrals: old.deferrals + d as u64,
                    ..old
                }
            } else {
                Totals {
                    fires: old.fires - f as u64,
                    deferrals: old.deferrals - d as u64,
                    ..old
                }
            };
            self.totals[s as usize] = t;
            if t.fires != old.fires {
                self.move_count(old.fires, t.fires);
            }
            if !add && !t.live() {
                self.index.remove(&t.addr);
                self.free.push(s);
            }
        }
    }

    /// `a`'s slot: `hint` when it names `a` in the window (no lookup), else looked up, or
    /// created (with zero totals) if `a` is not in the window.
    fn slot(&mut self, a: Address, hint: Option<FairnessSlot>) -> u32 {
        if let Some(FairnessSlot(s)) = hint
            && self
                .totals
                .get(s as usize)
                .is_some_and(|t| t.addr == a && t.live())
        {
            return s;
        }
        match self.index.entry(a) {
            hashbrown::hash_map::Entry::Occupied(e) => *e.get(),
            hashbrown::hash_map::Entry::Vacant(e) => {
                let s = match self.free.pop() {
                    Some(s) => {
                        self.totals[s as usize] = Totals::free(a);
                        s
                    }
                    None => {
                        self.totals.push(Totals::free(a));
                        (self.totals.len() - 1) as u32
                    }
                };
                *e.insert(s)
            }
        }
    }

    /// Moves one actor in the histogram from fire count `old` to `new` (0 = not in it).
    fn move_count(&mut self, old: u64, new: u64) {
        if old > 0 {
            self.hist.dec(old);
            self.firing -= 1;
        }
        if new > 0 {
            self.hist.inc(new);
            self.firing += 1;
        }
    }

    /// The lower median of the histogram.
    /// The lower median and the floored mean of the two middle counts (equal for an odd count).
    fn compute_median(&self) -> (u64, u64) {
        if self.firing == 0 {
            return (0, 0);
        }
        let lo = self.hist.nth((self.firing - 1) / 2);
        if self.firing % 2 == 1 {
            return (lo, lo);
        }
        let hi = self.hist.nth(self.firing / 2);
        (lo, lo / 2 + hi / 2 + (lo % 2 + hi % 2) / 2)
    }
}

/// A block's rows `(actor, slot given, fires, deferrals)`, ascending by actor, no all-zero row:
/// the merge of the two maps.
fn merge_rows<F: BlockCount, D: BlockCount>(
    fires: &BTreeMap<Address, F>,
    deferrals: &BTreeMap<Address, D>,
) -> Vec<(Address, Option<FairnessSlot>, u32, u32)> {
    let mut rows = Vec::with_capacity(fires.len().max(deferrals.len()));
    let mut fi = fires.iter().filter(|(_, n)| n.count() > 0).peekable();
    let mut di = deferrals.iter().filter(|(_, n)| n.count() > 0).peekable();
    loop {
        let take_fire = match (fi.peek(), di.peek()) {
            (None, None) => break,
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (Some((fa, _)), Some((da, _))) => match fa.cmp(da) {
                std::cmp::Ordering::Less => Some(true),
                std::cmp::Ordering::Greater => Some(false),
                std::cmp::Ordering::Equal => None,
            },
        };
        let row = match take_fire {
            Some(true) => {
                let (a, f) = fi.next().expect("peeked");
                (*a, f.slot(), f.count(), 0)
            }
            Some(false) => {
                let (a, d) = di.next().expect("peeked");
                (*a, d.slot(), 0, d.count())
            }
            None => {
                let (a, f) = fi.next().expect("peeked");
                let (_, d) = di.next().expect("peeked");
                (*a, f.slot().or(d.slot()), f.count(), d.count())
            }
        };
        rows.push(row);
    }
    rows
}

/// `clip(2 − recent / max(1, median), 1, 2)` in basis points, the ratio floored (§8).
fn weight_bps(recent: u64, median: u64) -> u32 {
    let m = median.max(1) as u128;
    let recent = recent as u128;
    if recent >= m {
        return W_ONE_BPS;
    }
    let ratio_bps = (recent * BPS as u128 / m) as u32;
    W_MAX_BPS - ratio_bps
}

impl HashEncode for Fairness {
    /// The window length, then the blocks in the window oldest first, each its height and its
    /// rows `(actor, fires, deferrals)` ascending by actor. Advancing over idle heights changes
    /// the encoding only when a block leaves the window.
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u64(self.window);
        e.length(self.blocks.len());
        for b in &self.blocks {
            e.u64(b.height);
            e.length(b.rows.len());
            for &(s, f, d) in &b.rows {
                e.raw(&self.totals[s as usize].addr.0);
                e.u32(f);
                e.u32(d);
            }
        }
    }
}

impl Fairness {
    /// Writes the state into `e` (the same as its [`HashEncode`] impl).
    pub fn hash_encode(&self, e: &mut HashEncoder) {
        HashEncode::hash_encode(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(n: u64) -> Address {
        Address::from_low_u64(n)
    }

    fn map(xs: &[(u64, u32)]) -> BTreeMap<Address, u32> {
        xs.iter().map(|&(n, c)| (a(n), c)).collect()
    }

    #[test]
    fn weight_is_two_below_one_at_median_linear_between() {
        let mut f = Fairness::new(10);
        // counts: a1 = 1, a2 = 4, a3 = 4 → median 4.
        f.record_block(1, &map(&[(1, 1), (2, 4), (3, 4)]), &BTreeMap::new());
        assert_eq!(f.median(), 4);
        assert_eq!(f.weight_bps(&a(9)), 20_000);
        assert_eq!(f.weight_bps(&a(1)), 17_500);
        assert_eq!(f.weight_bps(&a(2)), 10_000);
    }

    #[test]
    fn window_rolls_and_prunes() {
        let mut f = Fairness::new(3);
        f.record_block(5, &map(&[(1, 2)]), &map(&[(2, 1)]));
        f.skip_to(7);
        assert_eq!(f.recent_fires(&a(1)), 2);
        assert_eq!(f.recent_deferrals(&a(2)), 1);
        f.skip_to(8);
        assert_eq!(f.recent_fires(&a(1)), 0);
        assert!(f.is_idle());
        assert!(f.rows().is_empty());
        assert_eq!(f.median(), 0);
    }

    #[test]
    fn serde_round_trip_rebuilds_totals() {
        let mut f = Fairness::new(4);
        f.record_block(1, &map(&[(1, 2), (2, 1)]), &map(&[(3, 1)]));
        f.record_block(2, &map(&[(2, 3)]), &BTreeMap::new());
        let s = serde_json::to_string(&f).unwrap();
        let g: Fairness = serde_json::from_str(&s).unwrap();
        assert_eq!(f, g);
        assert_eq!(g.recent_fires(&a(2)), 4);
    }
}
