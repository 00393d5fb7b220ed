//! One page of a bucket in execution order (issue 31, "the dashboard asks for what it shows"):
//! a reader of a bucket of 100,000 carried timers asks for the rows it shows, with the
//! bucket's total, and finds the page that holds a given timer, instead of reading the bucket
//! whole ([`super::BucketQuery`], kept as it was). `timer_bucketPage` over JSON-RPC.
//!
//! The order is the one the block would run: the queue's (FIFO) order, or, at or after the
//! CIP-1 v3 activation height, the `eip1559` auction's, ranked by the engine
//! ([`rank_preview`]: the block's pricing, W and sort). Only the page's timers are turned into
//! views. The carried bucket's page under the auction is read at the cost of its rows and the
//! timers priced one by one ([`RankedBucket`], Spec note 217), with [`rank_preview`] kept
//! where that does not apply.

use super::core::NodeCore;
use super::error::NodeError;
use super::query::Query;
use super::read;
use super::views::TimerView;
use crate::engine::TimerId;
use crate::engine::scheduler::policy::{RankedBucket, rank_preview};
use serde::{Deserialize, Serialize};

/// The most rows one page holds (`limit`).
pub const MAX_BUCKET_PAGE: u64 = 1_000;

/// `timer_bucketPage`: rows `offset..offset + limit` of the bucket at `height` in execution
/// order. With `timer`: when that timer is in the bucket but not in those rows, the page is
/// the `limit` rows around it instead (starting `limit / 2` rows before it, at 0 near the top),
/// and its position is answered either way. When `height` came due (below the next block's)
/// and the timer is not in it, the bucket of the next block is read instead, where a carried
/// timer waits (CIP-5 §6.5): the reply's `height` says which bucket was read. With
/// `follow_due`, a bucket that came due is read as the next block's whatever the timer (Spec
/// note 199: the dashboard's cursor on a standing backlog's bucket, which moves to the next
/// height every block; a refresh asked right after a block named the bucket that just
/// drained).
///
/// Spec note (issue 31, paging): an `offset` at or past the bucket's end is no error, it
/// answers no rows with the total (the bucket can drain between two pages, as a slice past
/// its end is empty); a `limit` of 0 or above [`MAX_BUCKET_PAGE`] is refused `InvalidInput`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BucketPageQuery {
    pub height: u64,
    pub offset: u64,
    pub limit: u64,
    /// The timer whose page to answer (the dashboard's selected one).
    pub timer: Option<TimerId>,
    /// A bucket that came due answers the next block's (where its timers were carried).
    pub follow_due: bool,
}

/// One row of a page: a timer with its place in the bucket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BucketEntry {
    /// Its place in the bucket's execution order, from 0.
    pub position: u64,
    /// Under the auction: its rank (1 runs first); `None` under fifo, or when its max fee is
    /// below the lane basefee (it would wait `below_basefee`, listed last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
    /// Under the auction: `priority per cycle × W` (nanos × bps) at the next block's lane
    /// basefee.
    #[serde(
        default,
        with = "crate::engine::types::opt_u128_str",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub effective_priority: Option<u128>,
    /// As `timer_get` shows it, without its `events` and `deferrals` (empty: a page costs its
    /// rows, never a pass over the history's events; `carried` and `last_defer` are the
    /// timer's own).
    pub timer: TimerView,
}

/// `timer_bucketPage`'s answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BucketPage {
    pub height: u64,
    /// Timers in the whole bucket.
    pub total: u64,
    /// The position of the page's first row (the asked one, or the one around `timer`).
    pub offset: u64,
    /// Whether the order is the auction's (eip1559 at that height) rather than the queue's.
    pub ranked: bool,
    /// Where the asked `timer` is in the bucket; `None` when it is not in it (or none asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer_position: Option<u64>,
    pub timers: Vec<BucketEntry>,
}

impl BucketPageQuery {
    /// `InvalidInput` for a `limit` outside `1..=MAX_BUCKET_PAGE`.
    pub fn check(&self) -> Result<(), NodeError> {
        if self.limit == 0 || self.limit > MAX_BUCKET_PAGE {
            return Err(NodeError::InvalidInput(format!(
                "limit must be in 1..={MAX_BUCKET_PAGE}, got {}",
                self.limit
            )));
        }
        Ok(())
    }
}

impl Query for BucketPageQuery {
    type Reply = BucketPage;
    fn run(&self, node: &NodeCore) -> Result<BucketPage, NodeError> {
        self.check()?;
        let next = node.chain().pending_height();
        // A bucket that came due holds nothing (`read::bucket`): a timer asked there was
        // carried to the next block's.
        let due = self.height < next;
        if due && (self.follow_due || self.timer.is_some()) {
            return BucketPageQuery {
                height: next,
                ..*self
            }
            .page(node);
        }
        self.page(node)
    }
}

impl BucketPageQuery {
    /// The page of the bucket at `height`.
    fn page(&self, node: &NodeCore) -> Result<BucketPage, NodeError> {
        let chain = node.chain();
        let next = chain.pending_height();
        let ranked = chain
            .activation_height()
            .is_some_and(|a| self.height.max(next) >= a);
        if !ranked && let Some(page) = self.queue_page(node) {
            return Ok(page);
        }
        if ranked && let Some(page) = self.ranked_page(node) {
            return Ok(page);
        }
        let timers = read::bucket(chain, self.height);
        // (index into `timers`, effective priority) in execution order.
        let order: Vec<(usize, Option<u128>)> = if ranked {
            let (cfg, _) = node.config();
            let policies = chain.engine().policies();
            rank_preview(&timers, policies, &cfg, chain.lane_basefee())
                .into_iter()
                .map(|r| (r.idx, r.effective_priority))
                .collect()
        } else {
            (0..timers.len()).map(|i| (i, None)).collect()
        };
        let total = order.len() as u64;
        let timer_position = self.timer.and_then(|id| {
            order
                .iter()
                .position(|(i, _)| timers[*i].timer_id == id)
                .map(|p| p as u64)
        });
        let offset = self.around(timer_position);
        let rows: Vec<(u64, usize, Option<u128>)> = order
            .iter()
            .enumerate()
            .skip(usize::try_from(offset).unwrap_or(usize::MAX))
            .take(self.limit as usize)
            .map(|(pos, (i, eff))| (pos as u64, *i, *eff))
            .collect();
        let views = node.pending_views(rows.iter().map(|(_, i, _)| timers[*i].timer_id).collect());
        let entries = rows
            .iter()
            .zip(views)
            .map(|((position, _, eff), timer)| BucketEntry {
                position: *position,
                rank: eff.map(|_| position + 1),
                effective_priority: *eff,
                timer,
            })
            .collect();
        Ok(BucketPage {
            height: self.height,
            total,
            offset,
            ranked,
            timer_position,
            timers: entries,
        })
    }
}

impl BucketPageQuery {
    /// The page's first row: the asked offset, or `limit / 2` rows before the asked timer's
    /// `position` when it is not in the asked rows.
    fn around(&self, position: Option<u64>) -> u64 {
        match position {
            Some(p) if !(self.offset..self.offset.saturating_add(self.limit)).contains(&p) => {
                p.saturating_sub(self.limit / 2)
            }
            _ => self.offset,
        }
    }

    /// The carried bucket's page in the auction's order at a cost that follows the page
    /// ([`RankedBucket`], Spec note 217): the same rows as [`rank_preview`]'s cut. `None`
    /// where the whole ranking is kept (see [`RankedBucket::new`]).
    fn ranked_page(&self, node: &NodeCore) -> Option<BucketPage> {
        let chain = node.chain();
        let q = chain.engine().queue();
        let mut ranked = RankedBucket::new(
            q,
            chain.engine().policies(),
            self.height,
            chain.lane_basefee(),
        )?;
        let timer_position = self.timer.and_then(|id| ranked.position(&id));
        let offset = self.around(timer_position);
        let rows = ranked.rows(offset, self.limit as usize);
        let views = node.pending_views(rows.iter().map(|(t, _)| t.timer_id).collect());
        let timers = rows
            .iter()
            .zip(views)
            .enumerate()
            .map(|(i, ((_, eff), timer))| {
                let position = offset + i as u64;
                BucketEntry {
                    position,
                    rank: eff.map(|_| position + 1),
                    effective_priority: *eff,
                    timer,
                }
            })
            .collect();
        Some(BucketPage {
            height: self.height,
            total: ranked.total(),
            offset,
            ranked: true,
            timer_position,
            timers,
        })
    }

    /// A ring bucket's page in the queue's (FIFO) order, read off the queue (issue 31, Spec
    /// note 207): its total from the queue's tallies, the asked timer's position by a search
    /// of the list it sits in, and the rows by their index, so the cost is the page's rows
    /// rather than the bucket (the walk stays where a list holds stale handles). `None` for a
    /// height outside the ring, which reads its timers from the other tiers as before.
    fn queue_page(&self, node: &NodeCore) -> Option<BucketPage> {
        let q = node.chain().engine().queue();
        let hz = q.horizons();
        if self.height < hz.next_height || self.height >= hz.ring_horizon {
            return None;
        }
        let total = q.bucket_len(self.height);
        let timer_position = self
            .timer
            .and_then(|id| q.bucket_position(self.height, &id));
        let offset = self.around(timer_position);
        let rows = q.bucket_rows(self.height, offset, self.limit);
        let views = node.pending_views(rows.iter().map(|t| t.timer_id).collect());
        let timers = views
            .into_iter()
            .enumerate()
            .map(|(i, timer)| BucketEntry {
                position: offset + i as u64,
                rank: None,
                effective_priority: None,
                timer,
            })
            .collect();
        Some(BucketPage {
            height: self.height,
            total,
            offset,
            ranked: false,
            timer_position,
            timers,
        })
    }
}

/// `scheduler_deferrals`: how many `TimerDeferred` events the kept blocks of sealed heights
/// `from_height..=to_height` hold, by reason (issue 31: the dashboard's lane pane counts them
/// by reason; reading the events themselves moved a first deferral per carried timer of a
/// backlog over the wire on every refresh). Heights the node no longer keeps count nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeferralsQuery {
    pub from_height: u64,
    pub to_height: u64,
}

/// One reason's count (`lane`, `outbid`, `over_cap`, `below_basefee`, `gc_budget`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReasonCount {
    pub reason: String,
    pub count: u64,
}

impl Query for DeferralsQuery {
    type Reply = Vec<ReasonCount>;
    fn run(&self, node: &NodeCore) -> Result<Vec<ReasonCount>, NodeError> {
        let mut counts: Vec<ReasonCount> = Vec::new();
        let blocks = node
            .kept_blocks(self.from_height)
            .take_while(|b| b.header.height <= self.to_height);
        // Each block's deferrals counted by reason once and kept with it (Spec note 204): in
        // block order, each block's reasons in the order they first occur in it, so the
        // reasons come out in the order they first occur in the window, as a walk of the
        // events lists them.
        for (reason, n) in blocks.flat_map(|b| b.tally().reasons.iter()) {
            let reason = reason.as_str();
            match counts.iter_mut().find(|c| c.reason == reason) {
                Some(c) => c.count += n,
                None => counts.push(ReasonCount {
                    reason: reason.to_string(),
                    count: *n,
                }),
            }
        }
        Ok(counts)
    }
}
