//! What registering a CIP-5 draft watch or interval would do, without doing it
//! (`timer_estimateDraft`, the dashboard's `D` prompt): its id, its first fire heights, the
//! score its fire would enter the Globalbox / candidate set with (English §8.1, zh §9.1), the
//! fires known now that would rank ahead of it (§8.2 total order), whether the quotas (§8.3,
//! zh §9.3) would let it fire in its first block, its `max_cost` and its fee payer's funding.
//!
//! Spec note 129: the estimate is of the fire's first possible block `H`: an interval's first
//! due height, a watch's next block after registration (if a write hits it there). Its fire
//! enters with age 0, so its score is `W_bid·bid_fp` (plus, under zh, `W_fifo` times the
//! candidates registered after it, none: it is the newest). The fires it is ranked against
//! are the ones known now that would be candidates at `H`: the Globalbox (`cip5-draft`), the
//! watches' undelivered hits, and the timers due at `H`, each scored at `H`. "Fires in its
//! first block" reads the quotas as the Globalbox consumes them (per target, then per block,
//! in rank order); under zh's round-robin pruning and with fires still to come between now
//! and `H` (new hits, new registrations) it is an estimate, exact for a quiet chain.

use super::core::{NodeCore, Request};
use super::draft::DraftTimer;
use super::error::NodeError;
use super::read;
use super::requests::{Funding, act_as_sender};
use crate::chain::{Chain, TimerOp, Transaction, TxKind};
use crate::engine::draft::DraftKind;
use crate::engine::draft::deliver::score;
use crate::engine::eob::{fire_budget, max_cost};
use crate::engine::scheduler::policy::DraftCompetitor;
use crate::engine::{Address, Failure, Timer, TimerId};
use serde::Serialize;
use std::collections::BTreeMap;

/// How many fire heights of an interval the estimate lists.
pub const DUE_HEIGHTS: usize = 5;

/// Estimates a [`DraftTimer`] registration (`timer_estimateDraft`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct EstimateDraftTimer(pub DraftTimer);

/// The estimate (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct DraftEstimate {
    /// `watch` or `interval`.
    pub kind: String,
    /// The timer's id if it were registered now.
    pub timer_id: Option<TimerId>,
    /// Why the registration would be refused (written as `timer_estimate`'s `error`).
    #[serde(with = "super::command_reply::api_failure")]
    #[schemars(with = "Option<super::command_reply::api_failure::ApiFailure>")]
    pub error: Option<Failure>,
    /// `max_cost` of one fire under the current basefees.
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub max_cost: u128,
    /// The first block its fire could be in: an interval's first due height, a watch's next
    /// block.
    pub first_block: Option<u64>,
    /// An interval's next fire heights if each fires when due (at most [`DUE_HEIGHTS`], up to
    /// its `expires_at`); a watch has none.
    pub due_heights: Vec<u64>,
    /// The score its fire would enter with in `first_block` (Q32.96, like `bid_fp`).
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub score: u128,
    /// Fires known now that would rank ahead of it in `first_block`.
    pub ahead: u64,
    /// Of those, the ones of its own target.
    pub ahead_same_target: u64,
    /// Whether `MAX_FIRES_PER_BLOCK` and `MAX_FIRES_PER_TARGET` would let it fire in
    /// `first_block`.
    pub fires_in_first_block: bool,
    /// The fee payer's balance beside `max_cost` (as `timer_estimate.funding`).
    pub funding: Option<Funding>,
}

impl Request for EstimateDraftTimer {
    type Reply = DraftEstimate;
    fn apply(self, node: &mut NodeCore) -> Result<DraftEstimate, NodeError> {
        self.estimate(node)
    }
}

impl EstimateDraftTimer {
    /// The estimate from `&NodeCore` (tried on a copy of the chain: it changes nothing).
    pub fn estimate(self, node: &NodeCore) -> Result<DraftEstimate, NodeError> {
        let r = self.0;
        let from = act_as_sender(node, &r.actor, r.from)?;
        // A `client_nonce` repeat (English §6.2) names the bound timer, not a new one.
        let bound = super::registration::nonce_bound(node, &r.actor, r.args.client_nonce);
        let op = match r.interval {
            true => TimerOp::SetInterval(r.args),
            false => TimerOp::SetStateWatch(r.args),
        };
        let tx = Transaction::new(from, TxKind::ActAs { actor: r.actor, op });
        let mut est = DraftEstimate {
            kind: if r.interval { "interval" } else { "watch" }.into(),
            timer_id: None,
            error: None,
            max_cost: 0,
            first_block: None,
            due_heights: Vec::new(),
            score: 0,
            ahead: 0,
            ahead_same_target: 0,
            fires_in_first_block: false,
            funding: None,
        };
        let chain = node.chain();
        let mut trial = chain.clone();
        let receipt = match trial.apply_tx(tx) {
            Ok(r) => r,
            Err(e) => {
                est.error = Some(Failure::from_error(e.kind(), &e));
                return Ok(est);
            }
        };
        if !receipt.success {
            est.error = receipt.error;
            return Ok(est);
        }
        let (id, _) = super::registration::named_timer(&receipt, bound);
        est.timer_id = Some(id);
        let Some(timer) = trial.engine().get(&id).cloned() else {
            return Ok(est);
        };
        let Some((kind, bid_fp)) = trial.engine().policies().draft_timer(&id) else {
            return Ok(est);
        };
        fund(&mut est, &trial, &timer);
        let h = first_block(&mut est, &trial, &timer, kind);
        est.first_block = Some(h);
        let facts = chain.engine().scheduler_at(h).facts();
        let zh = facts.drafts && !facts.globalbox;
        let cands = competitors(chain, h);
        let ours = Ours {
            id,
            target: timer.actor_address,
            bid_fp,
            height: h,
        };
        rank_against(&mut est, chain, zh, &cands, &ours);
        Ok(est)
    }
}

/// The registration's `max_cost` and its fee payer's funding.
fn fund(est: &mut DraftEstimate, trial: &Chain, timer: &Timer) {
    let cfg = read::timer_config(trial);
    est.max_cost = max_cost(
        fire_budget(timer, cfg),
        cfg.max_cells_per_fire,
        &trial.fee_quote(),
        0,
    );
    est.funding = Some(Funding::of(
        timer.fee_payer,
        trial.balance(&timer.fee_payer),
        est.max_cost,
    ));
}

/// The fire's first possible block `H` (Spec note 129): an interval's first due height (its
/// due heights listed too), a watch's next block after registration.
fn first_block(est: &mut DraftEstimate, trial: &Chain, timer: &Timer, kind: &DraftKind) -> u64 {
    match kind {
        DraftKind::Interval { every } => {
            let mut x = timer.height;
            while est.due_heights.len() < DUE_HEIGHTS && x <= timer.expires_at {
                est.due_heights.push(x);
                x = x.saturating_add(*every);
            }
            timer.height
        }
        _ => trial.pending_height() + 1,
    }
}

/// A competitor at `H`: its bid, its anchor height, its target, its FIFO rank.
type Competitor = DraftCompetitor;

/// The competitors at `h` as the chain stands now (without the registration): the
/// Globalbox, the watches' undelivered hits, the timers due at `h`.
fn competitors(chain: &Chain, h: u64) -> BTreeMap<TimerId, Competitor> {
    let due = read::bucket(chain, h);
    chain.engine().policies().draft_competitors(&due, h)
}

/// The registered timer's fire, as it enters `H`.
struct Ours {
    id: TimerId,
    target: Address,
    bid_fp: u128,
    height: u64,
}

/// The fire's score at `H`, the fires ranked ahead of it (all, and of its own target), and
/// whether the quotas let it fire there.
fn rank_against(
    est: &mut DraftEstimate,
    chain: &Chain,
    zh: bool,
    cands: &BTreeMap<TimerId, Competitor>,
    ours: &Ours,
) {
    let p = chain.engine().policies().draft_params();
    let h = ours.height;
    let w = (p.w_age, p.w_bid, if zh { p.w_fifo } else { 0 });
    // zh §9.1's FIFO term: how many of the block's candidates registered after each one
    // (the new timer is the newest: none after it).
    let mut ranks: Vec<u64> = cands.values().map(|c| c.3).collect();
    ranks.sort_unstable();
    let after = |r: u64| (ranks.len() - ranks.partition_point(|&x| x <= r)) as u64 + 1;
    est.score = score(w, 0, ours.bid_fp, 0);
    let key = (est.score, h, ours.target, ours.id);
    let mut per: BTreeMap<Address, u64> = BTreeMap::new();
    for (cid, (bid, anchor, t, rank)) in cands {
        let s = score(w, h.saturating_sub(*anchor), *bid, after(*rank));
        let ahead = s > key.0 || (s == key.0 && (*anchor, *t, *cid) < (key.1, key.2, key.3));
        if ahead {
            *per.entry(*t).or_default() += 1;
        }
    }
    est.ahead = per.values().sum();
    est.ahead_same_target = per.get(&ours.target).copied().unwrap_or(0);
    let per_target = p.max_fires_per_target as u64;
    let fires_before: u64 = per.values().map(|&n| n.min(per_target)).sum();
    est.fires_in_first_block =
        est.ahead_same_target < per_target && fires_before < p.max_fires_per_block as u64;
}
