//! One page of the carried bucket in the `eip1559` auction's order at a cost that follows the
//! page (issue 31, "the dashboard asks for what it shows", Spec note 217): exactly the rows
//! [`rank_preview`](super::rank_preview) lists at those positions, without ranking the bucket.
//!
//! As in the block ([`super::auction_carry`], Spec note 188), the carried timers with no fee
//! parameter of their own (*plain*) all get the default GBA's price (the preview prices no
//! custom GBA), so one priority per cycle `p` and an effective priority `p × W(actor)`: within
//! an actor they come in id order, which the carry queue's per-actor index keeps. The others
//! (fee parameters of their own, and the height's own timers, not yet in the carry queue) are
//! priced one by one, as `rank_preview` does, and placed in the order's stretches between the
//! plain levels by a counting pass; a page sorts only the rows it reads (a selection, then
//! those rows; a level's own priced timers by id). The order is then a sequence of
//! segments by effective priority: the priced timers above the next plain level, then one
//! *level* (the plain timers of every actor with that effective priority and the priced timers
//! with the same one, merged by id through a heap), and so on, then the timers below the lane
//! basefee in bucket order. A page skips whole segments by their sizes (the per-actor counts)
//! and merges only inside the level that holds its first row.
//!
//! Spec note 217 (what a deep page costs): building costs the priced timers (priced and
//! placed, no sort) and the actors with carried timers; a page in a stretch of priced timers
//! costs a selection over the stretch and a sort of its rows; a page at offset `k'` inside a level counts the
//! level's rows below an id guessed from the ids' spread (a scan of the runs, about `k'`
//! cheap steps: timer ids are hashes) and merges the rest, a few standard deviations of the
//! level's size, through a heap of its actors (`log(actors)` a row), plus its rows; ids that
//! are not spread cost `k' · log(actors)`, never other rows. The position of a timer costs the
//! timers of its level ahead of it (the same scan). The whole ranking is kept where this does
//! not apply (the page answers `None`): `tie_break = schedule_order`, a default GBA priced
//! below the basefee (the plain timers wait, listed in bucket order among the others), a
//! bucket other than the next block's, or before a block of the auction built the carry
//! queue's indexes.

use super::PolicyState;
use crate::engine::args::FeeArgs;
use crate::engine::queue::{CalendarQueue, Member};
use crate::engine::scheduler::pricing::{default_gba, priority_per_cycle, resolve};
use crate::engine::scheduler::variants::{BelowBasefee, TieBreak};
use crate::engine::timer::Timer;
use crate::engine::types::{Address, TimerId};
use hashbrown::HashMap;
use std::cmp::{Ordering, Reverse};
use std::collections::binary_heap::{BinaryHeap, PeekMut};
use std::ops::Range;

/// A timer priced one by one, with its effective priority.
#[derive(Clone, Copy)]
struct Priced<'q> {
    eff: u128,
    t: &'q Timer,
}

/// One actor's plain carried timers: their effective priority and count.
#[derive(Clone, Copy)]
struct Run {
    eff: u128,
    actor: Address,
    plain: u64,
}

/// A stretch of the order (see the module docs).
#[derive(Clone)]
enum Segment {
    /// Priced timers only (a stretch of `priced`, sorted only where a page reads it).
    Priced(Range<usize>),
    /// Every timer of one effective priority: priced ones and the plain runs, merged by id.
    Level {
        eff: u128,
        priced: Range<usize>,
        runs: Range<usize>,
        len: u64,
    },
    /// The timers below the lane basefee, in bucket order.
    Below,
}

/// The carried bucket of the next block, ready to be read a page at a time in the order of
/// [`rank_preview`](super::rank_preview) (see the module docs).
pub struct RankedBucket<'q> {
    queue: &'q CalendarQueue,
    priced: Vec<Priced<'q>>,
    below: Vec<&'q Timer>,
    runs: Vec<Run>,
    segments: Vec<Segment>,
    /// Bit `Member::index()` set: a member priced one by one (not in a plain run).
    special: Vec<u64>,
    total: u64,
}

/// The §3 step 7 order (effective priority descending, then id, then schedule block).
fn order(a: &Priced<'_>, b: &Priced<'_>) -> Ordering {
    b.eff
        .cmp(&a.eff)
        .then_with(|| a.t.timer_id.cmp(&b.t.timer_id))
        .then_with(|| a.t.schedule_block.cmp(&b.t.schedule_block))
}

impl<'q> RankedBucket<'q> {
    /// The bucket of `height` priced at `lane_basefee`, or `None` where the whole ranking is
    /// kept (see the module docs).
    pub fn new(
        queue: &'q CalendarQueue,
        state: &PolicyState,
        height: u64,
        lane_basefee: u128,
    ) -> Option<Self> {
        let cip1 = &state.cip1;
        let c = &cip1.config;
        if c.variants.tie_break != TieBreak::Id || height != queue.horizons().next_height {
            return None;
        }
        let default = default_gba(lane_basefee, cip1.p50_tip, None, c);
        let price = |fees: FeeArgs| {
            let (max_fee, tip) = resolve(fees, None, default, c, cip1.p50_tip);
            match priority_per_cycle(max_fee, tip, lane_basefee) {
                None if c.variants.below_basefee == BelowBasefee::FireWithoutTip => Some(0),
                p => p,
            }
        };
        let p = price(FeeArgs::of(None))?;
        let carried = queue.auction_priced()?;
        let mut special = vec![0u64; queue.auction_slot_bound().div_ceil(64)];
        // Per actor: W(actor) (asked once) and its carried timers priced one by one.
        let mut actors: HashMap<Address, (u32, usize)> = HashMap::new();
        let mut weight = |a: &Address, counted: usize| {
            let e = actors.entry(*a).or_insert_with(|| (cip1.weight_bps(a), 0));
            e.1 += counted;
            u128::from(e.0)
        };
        let mut priced = Vec::with_capacity(carried.len());
        let mut below_carried = Vec::new();
        for (pos, m, t) in carried {
            special[m.index() / 64] |= 1 << (m.index() % 64);
            let w = weight(&t.actor_address, 1);
            match price(FeeArgs::of(t.fee_caps.as_deref())) {
                Some(q) => priced.push(Priced {
                    eff: q.saturating_mul(w),
                    t,
                }),
                None => below_carried.push((pos, t)),
            }
        }
        // The timers below the lane basefee in bucket order: the carried ones by their
        // place in the carry queue, then the height's own.
        below_carried.sort_unstable_by_key(|(pos, _)| *pos);
        let mut below: Vec<&Timer> = below_carried.into_iter().map(|(_, t)| t).collect();
        for t in queue.ring_timers(height) {
            let w = weight(&t.actor_address, 0);
            match price(FeeArgs::of(t.fee_caps.as_deref())) {
                Some(q) => priced.push(Priced {
                    eff: q.saturating_mul(w),
                    t,
                }),
                None => below.push(t),
            }
        }
        let mut runs: Vec<Run> = queue
            .auction_runs()
            .filter_map(|(actor, n)| {
                let (w, priced_n) = actors
                    .get(&actor)
                    .copied()
                    .unwrap_or_else(|| (cip1.weight_bps(&actor), 0));
                let plain = (n - priced_n) as u64;
                let eff = p.saturating_mul(u128::from(w));
                (plain > 0).then_some(Run { eff, actor, plain })
            })
            .collect();
        runs.sort_unstable_by(|a, b| b.eff.cmp(&a.eff).then_with(|| a.actor.cmp(&b.actor)));
        let (priced, segments) = layout(priced, &runs);
        let plain: u64 = runs.iter().map(|r| r.plain).sum();
        let total = priced.len() as u64 + plain + below.len() as u64;
        Some(RankedBucket {
            queue,
            priced,
            below,
            runs,
            segments,
            special,
            total,
        })
    }

    /// Timers in the bucket.
    pub fn total(&self) -> u64 {
        self.total
    }

    fn is_special(&self, m: Member) -> bool {
        self.special[m.index() / 64] & (1 << (m.index() % 64)) != 0
    }

    /// An actor's plain timers in id order, from `from` on.
    fn plain_run(&self, actor: &Address, from: TimerId) -> impl Iterator<Item = Member> + '_ {
        self.queue
            .auction_run(actor, from)
            .filter(|m| !self.is_special(*m))
    }

    /// The rows at positions `offset..offset + limit` with their effective priorities (`None`:
    /// below the lane basefee). Sorts only the priced timers the page reads (see [`layout`]).
    pub fn rows(&mut self, offset: u64, limit: usize) -> Vec<(&'q Timer, Option<u128>)> {
        let mut out = Vec::with_capacity(limit.min(4_096));
        let mut skip = offset;
        for i in 0..self.segments.len() {
            if out.len() >= limit {
                break;
            }
            let seg = self.segments[i].clone();
            let len = self.len_of(&seg);
            if skip >= len {
                skip -= len;
                continue;
            }
            let want = limit - out.len();
            match seg {
                Segment::Priced(r) => {
                    let rows = sorted_window(&mut self.priced[r], skip as usize, want);
                    out.extend(rows.iter().map(|x| (x.t, Some(x.eff))));
                }
                Segment::Level {
                    eff,
                    priced,
                    runs,
                    len,
                } => {
                    // One effective priority: the order is the ids'.
                    self.priced[priced.clone()].sort_unstable_by(order);
                    let (start, below) = self.jump(&priced, &runs, skip, len);
                    self.level_rows((eff, priced, runs, start), skip - below, want, &mut out)
                }
                Segment::Below => out.extend(
                    self.below
                        .iter()
                        .skip(skip as usize)
                        .take(want)
                        .map(|t| (*t, None)),
                ),
            }
            skip = 0;
        }
        out
    }

    fn len_of(&self, seg: &Segment) -> u64 {
        match seg {
            Segment::Priced(r) => r.len() as u64,
            Segment::Level { len, .. } => *len,
            Segment::Below => self.below.len() as u64,
        }
    }

    /// Where to start merging a level (`len` rows) to reach its row `skip`: an id and how
    /// many of the level's rows are below it. Timer ids are hashes, spread evenly, so the id
    /// a little below the `skip`-th's share of the id space has, with a margin of a few
    /// standard deviations, fewer than `skip` rows below it; those are counted (a scan of the
    /// runs, no heap) and only the rest is merged. A guess past the row (ids not spread)
    /// starts at the level's start: the cost changes, never the rows.
    fn jump(
        &self,
        priced: &Range<usize>,
        runs: &Range<usize>,
        skip: u64,
        len: u64,
    ) -> (TimerId, u64) {
        let zero = TimerId([0; 32]);
        let margin = 4 * len.isqrt() + 64;
        if skip <= margin {
            return (zero, 0);
        }
        let hi = (u128::MAX / len as u128).saturating_mul((skip - margin) as u128);
        let mut x = [0u8; 32];
        x[..16].copy_from_slice(&hi.to_be_bytes());
        let x = TimerId(x);
        let plain: usize = self.runs[runs.clone()]
            .iter()
            .map(|r| {
                self.plain_run(&r.actor, zero)
                    .take_while(|m| m.id < x)
                    .count()
            })
            .sum();
        let priced = self.priced[priced.clone()].partition_point(|p| p.t.timer_id < x);
        let below = (plain + priced) as u64;
        if below > skip {
            return (zero, 0);
        }
        (x, below)
    }

    /// Rows `skip..skip + want` of one level (its effective priority, priced timers, runs and
    /// the id to start from): its plain runs and priced timers merged by id.
    fn level_rows(
        &self,
        (eff, priced, runs, start): (u128, Range<usize>, Range<usize>, TimerId),
        skip: u64,
        want: usize,
        out: &mut Vec<(&'q Timer, Option<u128>)>,
    ) {
        // Each source's next timer: a plain member (`Ok`) or a priced index (`Err`).
        type Next = Result<Member, usize>;
        let first =
            priced.start + self.priced[priced.clone()].partition_point(|p| p.t.timer_id < start);
        let priced = first..priced.end;
        let mut sources: Vec<Box<dyn Iterator<Item = (TimerId, Next)> + '_>> = self.runs[runs]
            .iter()
            .map(|r| {
                Box::new(self.plain_run(&r.actor, start).map(|m| (m.id, Ok(m))))
                    as Box<dyn Iterator<Item = _>>
            })
            .collect();
        sources.push(Box::new(
            priced.map(|i| (self.priced[i].t.timer_id, Err(i))),
        ));
        let mut heads: Vec<Option<Next>> = vec![None; sources.len()];
        let mut heap = BinaryHeap::with_capacity(sources.len());
        for (s, src) in sources.iter_mut().enumerate() {
            if let Some((id, n)) = src.next() {
                heads[s] = Some(n);
                heap.push(Reverse((id, s)));
            }
        }
        let (mut seen, mut taken) = (0u64, 0usize);
        while let Some(mut top) = heap.peek_mut() {
            let s = top.0.1;
            if seen >= skip {
                let t = match heads[s].expect("a head per entry") {
                    Ok(m) => self.queue.auction_member(m),
                    Err(i) => self.priced[i].t,
                };
                out.push((t, Some(eff)));
                taken += 1;
                if taken == want {
                    return;
                }
            }
            seen += 1;
            match sources[s].next() {
                Some((id, n)) => {
                    heads[s] = Some(n);
                    *top = Reverse((id, s));
                }
                None => {
                    PeekMut::pop(top);
                }
            }
        }
    }

    /// The position of `id` in the order, when it is in the bucket: the priced timers ordered
    /// before it are counted (one pass, no sort).
    pub fn position(&self, id: &TimerId) -> Option<u64> {
        let ahead = |key: &Priced<'_>| {
            self.priced
                .iter()
                .filter(|x| order(x, key) == Ordering::Less)
                .count() as u64
        };
        if let Some(x) = self.priced.iter().find(|x| x.t.timer_id == *id) {
            return Some(ahead(x) + self.plain_before(x.eff, id));
        }
        if let Some(k) = self.below.iter().position(|t| t.timer_id == *id) {
            return Some(self.total - self.below.len() as u64 + k as u64);
        }
        let t = self.queue.get(id)?;
        let run = self.runs.iter().find(|r| r.actor == t.actor_address)?;
        self.plain_run(&run.actor, *id)
            .next()
            .filter(|m| m.id == *id)?;
        Some(ahead(&Priced { eff: run.eff, t }) + self.plain_before(run.eff, id))
    }

    /// The plain timers ahead of a timer with effective priority `eff` and id `id`.
    fn plain_before(&self, eff: u128, id: &TimerId) -> u64 {
        let start = TimerId([0; 32]);
        self.runs
            .iter()
            .take_while(|r| r.eff >= eff)
            .map(|r| {
                if r.eff > eff {
                    r.plain
                } else {
                    self.plain_run(&r.actor, start)
                        .take_while(|m| m.id < *id)
                        .count() as u64
                }
            })
            .sum()
    }
}

/// The rows `skip..skip + want` of a stretch of priced timers in the order: a selection
/// puts them in place and only they are sorted (the stretch is otherwise left unsorted).
fn sorted_window<'a, 'q>(
    stretch: &'a mut [Priced<'q>],
    skip: usize,
    want: usize,
) -> &'a [Priced<'q>] {
    if skip > 0 {
        stretch.select_nth_unstable_by(skip, order);
    }
    let tail = &mut stretch[skip..];
    let want = want.min(tail.len());
    if want < tail.len() {
        tail.select_nth_unstable_by(want, order);
    }
    tail[..want].sort_unstable_by(order);
    &tail[..want]
}

/// The priced timers laid out in the order's segments, and the segments (effective priority
/// descending): for each level of the runs, the priced timers above it (and below the level
/// before), then the level (its runs and the priced timers of its effective priority), and
/// last the priced timers below every level. Each stretch is placed by a counting pass, not
/// sorted: a page sorts what it reads ([`RankedBucket::rows`]).
fn layout<'q>(priced: Vec<Priced<'q>>, runs: &[Run]) -> (Vec<Priced<'q>>, Vec<Segment>) {
    // The levels: runs[levels[g]..levels[g + 1]] share one effective priority.
    let mut levels: Vec<usize> = (0..runs.len())
        .filter(|&j| j == 0 || runs[j].eff != runs[j - 1].eff)
        .collect();
    levels.push(runs.len());
    let n_levels = levels.len() - 1;
    let effs: Vec<u128> = levels[..n_levels].iter().map(|&j| runs[j].eff).collect();
    // Stretch 2g: above level g; 2g + 1: level g's own; 2 * n_levels: below every level.
    let stretch = |x: &Priced<'_>| {
        let g = effs.partition_point(|e| *e > x.eff);
        2 * g + usize::from(g < n_levels && effs[g] == x.eff)
    };
    let mut starts = vec![0usize; 2 * n_levels + 2];
    let keys: Vec<usize> = priced.iter().map(stretch).collect();
    for &k in &keys {
        starts[k + 1] += 1;
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    let mut laid = priced.clone();
    let mut next = starts.clone();
    for (x, &k) in priced.iter().zip(&keys) {
        laid[next[k]] = *x;
        next[k] += 1;
    }
    let mut out = Vec::new();
    for g in 0..n_levels {
        let above = starts[2 * g]..starts[2 * g + 1];
        if !above.is_empty() {
            out.push(Segment::Priced(above));
        }
        let own = starts[2 * g + 1]..starts[2 * g + 2];
        let level = levels[g]..levels[g + 1];
        let plain: u64 = runs[level.clone()].iter().map(|r| r.plain).sum();
        out.push(Segment::Level {
            eff: effs[g],
            len: plain + own.len() as u64,
            priced: own,
            runs: level,
        });
    }
    let tail = starts[2 * n_levels]..starts[2 * n_levels + 1];
    if !tail.is_empty() {
        out.push(Segment::Priced(tail));
    }
    out.push(Segment::Below);
    (laid, out)
}
