//! One page of the carried bucket in the `eip1559` auction's order at a cost that follows the
//! page (issue 31, "the dashboard asks for what it shows", Spec note 217): exactly the rows
//! [`rank_preview`](super::rank_preview) lists at those positions, without ranking the bucket.
//!
//! As in the block ([`super::auction_carry`], Spec note 188), the carried timers with no fee
//! parameter of their own (*plain*) all get the default GBA's price (the preview prices no
//! custom GBA), so one priority per cycle `p` and an effective priority `p × W(actor)`: within
//! an actor they come in id order, which the carry queue's per-actor index keeps. The others
//! (fee parameters of their own, and the height's own timers, not yet in the carry queue) are
//! priced one by one and sorted, as `rank_preview` does. The order is then a sequence of
//! segments by effective priority: the priced timers above the next plain level, then one
//! *level* (the plain timers of every actor with that effective priority and the priced timers
//! with the same one, merged by id through a heap), and so on, then the timers below the lane
//! basefee in bucket order. A page skips whole segments by their sizes (the per-actor counts)
//! and merges only inside the level that holds its first row.
//!
//! Spec note 217 (what a deep page costs): building costs the priced timers (priced and
//! sorted) and the actors with carried timers; a page at offset `k'` inside a level counts the
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
enum Segment {
    /// Priced timers only (indexes into the sorted priced ones).
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
        let mut priced_of: Vec<Address> = Vec::with_capacity(carried.len());
        for (m, t) in &carried {
            special[m.index() / 64] |= 1 << (m.index() % 64);
            priced_of.push(t.actor_address);
        }
        priced_of.sort_unstable();
        let mut priced = Vec::new();
        let mut below = Vec::new();
        let own = queue.ring_timers(height);
        for t in carried.into_iter().map(|(_, t)| t).chain(own) {
            match price(FeeArgs::of(t.fee_caps.as_deref())) {
                Some(q) => priced.push(Priced {
                    eff: q.saturating_mul(cip1.weight_bps(&t.actor_address) as u128),
                    t,
                }),
                None => below.push(t),
            }
        }
        priced.sort_unstable_by(order);
        let mut runs: Vec<Run> = queue
            .auction_runs()
            .filter_map(|(actor, n)| {
                let lo = priced_of.partition_point(|a| *a < actor);
                let hi = priced_of.partition_point(|a| *a <= actor);
                let plain = (n - (hi - lo)) as u64;
                let eff = p.saturating_mul(cip1.weight_bps(&actor) as u128);
                (plain > 0).then_some(Run { eff, actor, plain })
            })
            .collect();
        runs.sort_unstable_by(|a, b| b.eff.cmp(&a.eff).then_with(|| a.actor.cmp(&b.actor)));
        let segments = segments(&priced, &runs);
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
    /// below the lane basefee).
    pub fn rows(&self, offset: u64, limit: usize) -> Vec<(&'q Timer, Option<u128>)> {
        let mut out = Vec::with_capacity(limit.min(4_096));
        let mut skip = offset;
        for seg in &self.segments {
            if out.len() >= limit {
                break;
            }
            let len = self.len_of(seg);
            if skip >= len {
                skip -= len;
                continue;
            }
            let want = limit - out.len();
            match seg {
                Segment::Priced(r) => out.extend(
                    self.priced[r.clone()]
                        .iter()
                        .skip(skip as usize)
                        .take(want)
                        .map(|x| (x.t, Some(x.eff))),
                ),
                Segment::Level {
                    eff,
                    priced,
                    runs,
                    len,
                } => {
                    let (start, below) = self.jump(priced, runs, skip, *len);
                    let level = (*eff, priced.clone(), runs.clone(), start);
                    self.level_rows(level, skip - below, want, &mut out)
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

    /// The position of `id` in the order, when it is in the bucket.
    pub fn position(&self, id: &TimerId) -> Option<u64> {
        if let Some(k) = self.priced.iter().position(|x| x.t.timer_id == *id) {
            let x = &self.priced[k];
            return Some(k as u64 + self.plain_before(x.eff, id));
        }
        if let Some(k) = self.below.iter().position(|t| t.timer_id == *id) {
            return Some(self.total - self.below.len() as u64 + k as u64);
        }
        let t = self.queue.get(id)?;
        let run = self.runs.iter().find(|r| r.actor == t.actor_address)?;
        self.plain_run(&run.actor, *id)
            .next()
            .filter(|m| m.id == *id)?;
        let key = Priced { eff: run.eff, t };
        let ahead = self
            .priced
            .partition_point(|x| order(x, &key) == Ordering::Less);
        Some(ahead as u64 + self.plain_before(run.eff, id))
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

/// The segments of the order from the sorted priced timers and the runs (effective priority
/// descending).
fn segments(priced: &[Priced<'_>], runs: &[Run]) -> Vec<Segment> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while j < runs.len() {
        let eff = runs[j].eff;
        let j2 = j + runs[j..].iter().take_while(|r| r.eff == eff).count();
        let i1 = i + priced[i..].iter().take_while(|x| x.eff > eff).count();
        let i2 = i1 + priced[i1..].iter().take_while(|x| x.eff == eff).count();
        if i1 > i {
            out.push(Segment::Priced(i..i1));
        }
        let plain: u64 = runs[j..j2].iter().map(|r| r.plain).sum();
        out.push(Segment::Level {
            eff,
            priced: i1..i2,
            runs: j..j2,
            len: plain + (i2 - i1) as u64,
        });
        (i, j) = (i2, j2);
    }
    if i < priced.len() {
        out.push(Segment::Priced(i..priced.len()));
    }
    out.push(Segment::Below);
    out
}
