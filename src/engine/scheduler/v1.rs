//! CIP-1 v1's per-actor priority weight (`cip1-v1-calendar-queue-gba.md` §3 "Priority Weight",
//! issue 21 §1): its parameters ([`V1Config`], `[cip1_v1]` in a fixture), the weights kept
//! between blocks ([`V1State`]) and their update after each block ([`V1State::update`]).
//!
//! Everything is integers in basis points of 1 (10,000 = 1.0); the weights live in an ordered
//! map, so every iteration is in address order.
//!
//! **The score S** (the spec names its four inputs and leaves it undefined). For an actor with
//! due timers in the block, four parts of 0..=5,000 bps each, summed to S in 0..=20,000:
//! - *tip*: `5,000 × min(r, 2) / 2`, `r` the actor's mean effective tip over its fired timers
//!   divided by the block's mean over all fired timers (an actor with no fire scores 0; when
//!   every fire tipped 0, each firing actor scores 2,500, `r` = 1);
//! - *outcome*: `5,000 × deferred / due` (an actor whose timers wait is pushed up);
//! - *lateness*: `5,000 × min(L, cap) / cap`, `L` the mean of `height − trigger height` over
//!   its due timers (floored), `cap` = `lateness_cap_blocks`;
//! - *consumption*: `5,000 × (lane − min(reserved, lane)) / lane`, `reserved` the budget its
//!   fired timers took of the block's lane (a heavy consumer is pulled down).
//!
//! Then `w' = ((10,000 − λ)·w + λ·S) / 10,000` (floored), clamped to `[weight_min, weight_max]`;
//! an actor none of whose due timers fired gets at least `starvation_floor` (§3 c). An actor
//! with no due timer decays towards `weight_init` by λ of the distance (at least 1 bps, so it
//! arrives); at `weight_init` it leaves the map (absent = `weight_init`).

use crate::engine::error::TimerError;
use crate::engine::events::{DeferReason, TimerEvent};
use crate::engine::types::{Address, HashEncode, HashEncoder};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const ONE: u64 = 10_000;
const PART: u64 = 5_000;

/// The CIP-1 v1 parameters (`[cip1_v1]`), all basis points of 1 but the lateness cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct V1Config {
    /// λ of the EMA (§3 b: "e.g., 0.2").
    pub lambda_bps: u32,
    /// The weight of an actor the map does not hold.
    pub weight_init_bps: u32,
    pub weight_min_bps: u32,
    pub weight_max_bps: u32,
    /// §3 c: the least weight of an actor whose due timers were all deferred.
    pub starvation_floor_bps: u32,
    /// Lateness at which the score's lateness part is full.
    pub lateness_cap_blocks: u64,
}

impl Default for V1Config {
    fn default() -> Self {
        V1Config {
            lambda_bps: 2_000,
            weight_init_bps: 10_000,
            weight_min_bps: 2_500,
            weight_max_bps: 20_000,
            starvation_floor_bps: 10_000,
            lateness_cap_blocks: 10,
        }
    }
}

impl V1Config {
    pub fn validate(&self) -> Result<(), TimerError> {
        let bad = |m: &str| Err(TimerError::InvalidInput(format!("cip1_v1: {m}")));
        if self.lambda_bps == 0 || self.lambda_bps > 10_000 {
            return bad("lambda_bps must be in 1..=10000");
        }
        if self.weight_min_bps == 0 || self.weight_min_bps > self.weight_max_bps {
            return bad("weight_min_bps must be in 1..=weight_max_bps");
        }
        if self.weight_max_bps > 1_000_000 {
            return bad("weight_max_bps must be at most 1000000");
        }
        let inside = |w: u32| (self.weight_min_bps..=self.weight_max_bps).contains(&w);
        if !inside(self.weight_init_bps) || !inside(self.starvation_floor_bps) {
            return bad(
                "weight_init_bps and starvation_floor_bps must be within [weight_min_bps, weight_max_bps]",
            );
        }
        if self.lateness_cap_blocks == 0 {
            return bad("lateness_cap_blocks must be at least 1");
        }
        Ok(())
    }
}

impl HashEncode for V1Config {
    fn hash_encode(&self, e: &mut HashEncoder) {
        for v in [
            self.lambda_bps,
            self.weight_init_bps,
            self.weight_min_bps,
            self.weight_max_bps,
            self.starvation_floor_bps,
        ] {
            e.u32(v);
        }
        e.u64(self.lateness_cap_blocks);
    }
}

/// The weights between blocks: only actors away from `weight_init`, ascending.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct V1State {
    /// Whether CIP-1 v1 plans the blocks (genesis `scheduler = "cip1-v1"`).
    pub active: bool,
    pub weights: BTreeMap<Address, u32>,
}

/// One due timer's part in an actor's score.
#[derive(Clone, Copy, Debug)]
pub struct DueOutcome {
    pub actor: Address,
    /// `current height − trigger height`.
    pub lateness: u64,
    /// `Some((effective tip per cycle, budget))` when it fired; `None` when deferred.
    pub fired: Option<(u128, u64)>,
}

/// An actor's deferred timers of a block counted, not listed (issue 31: the carried timers
/// under the auction over the carry queue): how many, and the sum of their lateness.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deferred {
    pub count: u64,
    pub late: u64,
}

#[derive(Default)]
struct Tally {
    due: u64,
    deferred: u64,
    late: u64,
    fired: u64,
    tips: u128,
    reserved: u64,
}

impl V1State {
    pub fn is_inactive(&self) -> bool {
        !self.active && self.weights.is_empty()
    }

    /// The weight of `actor` in bps.
    pub fn weight_bps(&self, actor: &Address, cfg: &V1Config) -> u32 {
        self.weights
            .get(actor)
            .copied()
            .unwrap_or(cfg.weight_init_bps)
    }

    /// The score S of each actor with due timers (see the module text), ascending by actor.
    /// `carried` adds, per actor, deferred timers counted rather than listed (issue 31).
    pub fn scores(
        outcomes: &[DueOutcome],
        carried: &BTreeMap<Address, Deferred>,
        lane: u64,
        cfg: &V1Config,
    ) -> BTreeMap<Address, u32> {
        let mut by: BTreeMap<Address, Tally> = BTreeMap::new();
        let (mut all_tips, mut all_fired) = (0u128, 0u128);
        for o in outcomes {
            let t = by.entry(o.actor).or_default();
            t.due += 1;
            t.late = t.late.saturating_add(o.lateness);
            match o.fired {
                Some((tip, budget)) => {
                    t.fired += 1;
                    t.tips = t.tips.saturating_add(tip);
                    t.reserved = t.reserved.saturating_add(budget);
                    all_tips = all_tips.saturating_add(tip);
                    all_fired += 1;
                }
                None => t.deferred += 1,
            }
        }
        for (a, d) in carried {
            let t = by.entry(*a).or_default();
            t.due += d.count;
            t.deferred += d.count;
            t.late = t.late.saturating_add(d.late);
        }
        let cap = cfg.lateness_cap_blocks;
        by.into_iter()
            .map(|(a, t)| {
                let tip = if t.fired == 0 {
                    0
                } else if all_tips == 0 {
                    PART / 2
                } else {
                    // r = (tips / fired) / (all_tips / all_fired), in bps, capped at 2.
                    let r = t.tips.saturating_mul(all_fired).saturating_mul(ONE as u128)
                        / (t.fired as u128).saturating_mul(all_tips).max(1);
                    (PART as u128 * r.min(2 * ONE as u128) / (2 * ONE as u128)) as u64
                };
                let outcome = PART * t.deferred / t.due;
                let late = (t.late / t.due).min(cap);
                let lateness = PART * late / cap;
                let consumption = if lane == 0 {
                    0
                } else {
                    (PART as u128 * (lane - t.reserved.min(lane)) as u128 / lane as u128) as u64
                };
                (a, (tip + outcome + lateness + consumption) as u32)
            })
            .collect()
    }

    /// §3 "Priority Weight" after a block: the EMA update of every actor with due timers, the
    /// decay of every other actor in the map; returns a `WeightUpdated` event per change, in
    /// address order.
    pub fn update(
        &mut self,
        outcomes: &[DueOutcome],
        carried: &BTreeMap<Address, Deferred>,
        lane: u64,
        cfg: &V1Config,
    ) -> Vec<TimerEvent> {
        let scores = Self::scores(outcomes, carried, lane, cfg);
        let starved: BTreeMap<Address, bool> = {
            let mut m: BTreeMap<Address, bool> = BTreeMap::new();
            for o in outcomes {
                let s = m.entry(o.actor).or_insert(true);
                *s &= o.fired.is_none();
            }
            for a in carried.keys() {
                m.entry(*a).or_insert(true);
            }
            m
        };
        let lambda = cfg.lambda_bps as u64;
        let mut events = Vec::new();
        let mut next: BTreeMap<Address, (u32, u32, Option<u32>)> = BTreeMap::new();
        for (a, &s) in &scores {
            let w = self.weight_bps(a, cfg) as u64;
            let mut n = (((ONE - lambda) * w + lambda * s as u64) / ONE) as u32;
            n = n.clamp(cfg.weight_min_bps, cfg.weight_max_bps);
            if starved[a] {
                n = n.max(cfg.starvation_floor_bps);
            }
            next.insert(*a, (w as u32, n, Some(s)));
        }
        for (a, &w) in &self.weights {
            if scores.contains_key(a) {
                continue;
            }
            let init = cfg.weight_init_bps as i64;
            let diff = init - w as i64;
            let step = diff * lambda as i64 / ONE as i64;
            let step = if step == 0 { diff.signum() } else { step };
            next.insert(*a, (w, (w as i64 + step) as u32, None));
        }
        for (a, (old, new, score)) in next {
            if new == cfg.weight_init_bps {
                self.weights.remove(&a);
            } else {
                self.weights.insert(a, new);
            }
            if old != new {
                events.push(TimerEvent::WeightUpdated {
                    actor: a,
                    old_bps: old,
                    new_bps: new,
                    score_bps: score,
                });
            }
        }
        events
    }
}

impl HashEncode for V1State {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u8(self.active as u8);
        e.u64(self.weights.len() as u64);
        for (a, w) in &self.weights {
            a.hash_encode(e);
            e.u32(*w);
        }
    }
}

/// Whether a deferral reason counts as "deferred" in the score (every execution-lane reason;
/// the GC lane's `gc_budget` is a removal waiting, not a loss of the auction).
pub fn counts_as_deferred(r: DeferReason) -> bool {
    r != DeferReason::GcBudget
}
