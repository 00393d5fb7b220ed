//! The specs' open points as named variants (issue 21): each place where the devnet chose
//! between two readings of CIP-5 / CIP-1 v3 is a typed field of [`Variants`], with the
//! canonical reading as its default where the text is explicit. A variant changes nothing
//! unless named: the default [`Variants`] is not part of the state root (see
//! [`Variants::hash_encode`]), a non-default one is, with the CIP-1 config.
//!
//! Every variant is listed in [`CATALOG`] with its name, values, default and spec section;
//! `cowboy-devnet variants` prints it, fixtures set them in `[variants]` and the command line
//! with `--variant NAME=VALUE`.

use crate::engine::error::TimerError;
use crate::engine::types::{HashEncode, HashEncoder};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Declares a variant's value enum: its spellings, in catalogue order, the first the default.
macro_rules! variant_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident => $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
        pub enum $name {
            #[default]
            $($(#[$vm])* #[serde(rename = $s)] $v),+
        }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$v),+];
            pub const NAMES: &'static [&'static str] = &[$($s),+];
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }
            /// The position of the value in [`Self::ALL`] (its tag in the state root).
            pub fn tag(self) -> u8 {
                Self::ALL.iter().position(|v| *v == self).unwrap_or(0) as u8
            }
            fn parse(s: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == s)
            }
        }
    };
}

variant_enum! {
    /// CIP-1 v3 §5, open points 12 and 13: the lane basefee step.
    BasefeeStep {
        /// §5 as written: `basefee × (1 + clip((u − target)/target, −12.5 %, +12.5 %))`.
        Clip => "clip",
        /// EIP-1559's proportional step, `basefee × (u − target)/target / 8` (Spec note 45).
        Proportional => "proportional",
    }
}

variant_enum! {
    /// CIP-1 v3 §5, open points 3 and 14: what the lane utilisation counts.
    Utilisation {
        /// The cycles the fired handlers consumed (§5's `cycles_consumed_in_lane`, as written;
        /// the default since Spec note 152).
        Consumed => "consumed",
        /// The budgets (`gas_limit_per_fire`) the selected timers reserved (Spec note 45, the
        /// default before Spec note 152).
        Reserved => "reserved",
    }
}

variant_enum! {
    /// CIP-1 v3 §7.1: the p50 tip of an even count of fires.
    P50Even {
        /// The lower median, a tip actually paid (Spec note 46).
        Lower => "lower",
        /// The mean of the two middle tips, floored.
        Mean => "mean",
    }
}

variant_enum! {
    /// CIP-1 v3 §3 step 6 / §7.1, open point 9: a `max_fee_per_cycle` below the lane basefee at
    /// fire time.
    BelowBasefee {
        /// Deferred `below_basefee`, nothing charged (Spec note 54).
        Defer => "defer",
        /// Competes with a tip of 0 and pays the lane basefee although it is above its max fee.
        FireWithoutTip => "fire_without_tip",
        /// CIP-5 §5.4 path 2 applied (CIP-1 v3 §3 "on insufficient funds at any step",
        /// reading a max fee that cannot pay the price as insufficient funds): removed under
        /// the GC lane, `TimerCancelledInsufficientFunds` with `required` = its `max_cost` at
        /// the lane basefee with no tip and `available` = its fee payer's balance.
        SelfDestruct => "self_destruct",
    }
}

variant_enum! {
    /// CIP-1 v3 §3 step 8 vs §5, open point 8: the lane basefee in `max_cost` and the charge.
    LaneBasefeeInMaxCost {
        /// §5 "additional to the cycle basefee": charged and pre-charged (Spec note 50).
        Yes => "yes",
        /// §3 step 8 as written: `max_cost = gas × (basefee_cycle + priority) + cells ×
        /// basefee_cell`; the lane basefee only gates (§3 step 6's `max_fee − basefee`).
        No => "no",
    }
}

variant_enum! {
    /// CIP-5 §6.5, open point 4: where a deferred timer stands in the next height's bucket.
    DeferredPlace {
        /// Ahead of the timers originally due there, oldest due first (Spec note 4).
        Front => "front",
        /// Behind them: the next height's own timers go first.
        Back => "back",
    }
}

variant_enum! {
    /// CIP-1 v3 §10 vs §13.2 / §14, open point 15: a timer whose fire budget is above the
    /// auction cap (scheduled before activation, or before governance lowered the cap).
    OverCap {
        /// Competes with its budget cut to the cap (its handler gets the cap's cycles): §13.2 /
        /// §14 "existing callers keep working", as CIP-5's own lowered cap runs a timer at
        /// `min(gas, cap)` (the default since Spec note 153).
        Capped => "capped",
        /// Deferred `over_cap` until its TTL (Spec note 51, the default before Spec note 153).
        Defer => "defer",
        /// Competes at its own budget (§14 "existing callers keep working").
        OwnBudget => "own_budget",
    }
}

variant_enum! {
    /// CIP-1 v3 §3 step 7, open point 10: the order among equal effective priorities (the
    /// text's key is `(timer_id, schedule_block)`; ids are unique, so its second key never
    /// decides).
    TieBreak {
        /// `timer_id` ascending, as written (Spec note 48).
        Id => "timer_id",
        /// Schedule order: `schedule_block` ascending, then the order the timers were
        /// scheduled in (the queue's insertion sequence): "insertion order" as the second key
        /// suggests, first come first served among equals.
        ScheduleOrder => "schedule_order",
    }
}

variant_enum! {
    /// CIP-5 drafts, open point 19: zh §9.3's round-robin quota pruning vs §18's greedy fill.
    DraftPruning {
        /// §9.3 "以轮转方式按配额剪枝": rounds across targets, one candidate each per round.
        RoundRobin => "round_robin",
        /// §18's pseudocode: walk the sorted candidates, skip a target over its quota.
        Greedy => "greedy",
    }
}

variant_enum! {
    /// CIP-5 drafts, open point 19: the execution order of a block's Mailbox under
    /// `cip5-draft-zh` (the English draft runs `deliver_seq` order, its Globalbox order).
    DraftExecOrder {
        /// The selection order (the total order after the pruning rounds), = `deliver_seq`.
        Selection => "selection",
        /// zh's mailbox diagram, "phase → priority → RR → deliver_id": all timer fires are one
        /// phase and one priority here, so the `deliver_id` decides.
        DeliverId => "deliver_id",
    }
}

variant_enum! {
    /// CIP-5 drafts, open point 19: whether a state watch stays armed after it fired.
    WatchAfterFire {
        /// It stays armed (`fire_seq` counts its fires, English §5.1 / zh §6.1).
        Rearm => "rearm",
        /// One-shot: it leaves after its first fire.
        Once => "once",
    }
}

variant_enum! {
    /// CIP-5 drafts, open point 19 (zh §11 "或在失败场景按策略决定是否滚动"): an interval timer
    /// whose fire failed (reverted, out of cycles).
    IntervalAfterFailure {
        /// It rolls forward all the same (the fire was charged; the next one may succeed).
        Roll => "roll",
        /// It stops.
        Stop => "stop",
    }
}

variant_enum! {
    /// CIP-5 drafts, open point 19: an interval timer's first due height when none is given.
    IntervalFirst {
        /// The registering height + `every_blocks` (like every later roll-forward).
        Every => "every",
        /// The next block.
        NextBlock => "next_block",
    }
}

variant_enum! {
    /// CIP-5 drafts, open point 19 (zh §7.2 vs English §6.2): what an idempotent repeat that
    /// updates `payload` / `gas_limit` / `bid` does to `fifo_rank` under `cip5-draft-zh` (the
    /// English draft has no `fifo_rank` term: there the rank is kept).
    UpdateFifoRank {
        /// zh §7.2 "更新语义：更新 payload/gas_limit/bid 会提升 fifo_rank": raised to the next
        /// registration rank (the updated timer goes to the back of the FIFO).
        Raise => "raise",
        /// English §6.2: an update changes the future fires' payload, gas and bid only.
        Keep => "keep",
    }
}

variant_enum! {
    /// CIP-5 §6.5 / CIP-1 v3 §3 step 7, open point 3: under the FIFO scheduler, whether a
    /// timer that does not fit the lane blocks the smaller timers behind it.
    FifoLane {
        /// Strict FIFO: the first live timer that does not fit closes the lane for the block,
        /// the timers behind it wait too (Spec note 3).
        Strict => "strict",
        /// Timers behind it that still fit the lane fire (Spec note 154).
        Pass => "pass",
    }
}

variant_enum! {
    /// CIP-1 v3 §8: the network median of recent fires over an even count of actors.
    FairnessMedian {
        /// The lower median, an actual actor's count (the fairness window's rounding note).
        Lower => "lower",
        /// The usual median: the mean of the two middle counts, floored (Spec note 155).
        Mean => "mean",
    }
}

/// The named variants in force (CIP-1 config, `[variants]`, `--variant NAME=VALUE`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct Variants {
    pub basefee_step: BasefeeStep,
    pub utilisation: Utilisation,
    pub p50_even: P50Even,
    pub below_basefee: BelowBasefee,
    pub lane_basefee_in_max_cost: LaneBasefeeInMaxCost,
    pub deferred_place: DeferredPlace,
    pub over_cap: OverCap,
    pub tie_break: TieBreak,
    pub draft_pruning: DraftPruning,
    pub draft_exec_order: DraftExecOrder,
    pub watch_after_fire: WatchAfterFire,
    pub interval_after_failure: IntervalAfterFailure,
    pub interval_first: IntervalFirst,
    pub update_fifo_rank: UpdateFifoRank,
    pub fifo_lane: FifoLane,
    pub fairness_median: FairnessMedian,
}

/// One catalogue row: a variant's name, its values (the default first), the spec section and
/// what it chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct VariantInfo {
    pub name: &'static str,
    pub values: &'static [&'static str],
    pub default: &'static str,
    pub spec: &'static str,
    pub about: &'static str,
}

/// Every variant, in the order [`Variants`] holds them.
pub const CATALOG: &[VariantInfo] = &[
    VariantInfo {
        name: "basefee_step",
        values: BasefeeStep::NAMES,
        default: "clip",
        spec: "CIP-1 v3 §5 (open points 12, 13)",
        about: "lane basefee step: §5's clip (±12.5 % once 6.25 points off target) or EIP-1559's proportional step",
    },
    VariantInfo {
        name: "utilisation",
        values: Utilisation::NAMES,
        default: "consumed",
        spec: "CIP-1 v3 §5 (open points 3, 14, 20; Spec note 152)",
        about: "what drives the lane basefee: the cycles consumed (§5 as written) or the budgets reserved",
    },
    VariantInfo {
        name: "p50_even",
        values: P50Even::NAMES,
        default: "lower",
        spec: "CIP-1 v3 §7.1 (Spec note 46)",
        about: "p50 tip of an even count of fires: the lower median or the mean of the middle two",
    },
    VariantInfo {
        name: "below_basefee",
        values: BelowBasefee::NAMES,
        default: "defer",
        spec: "CIP-1 v3 §3 step 6, §7.1 (open point 9)",
        about: "a max fee below the lane basefee at fire time: deferred, fired with no tip at the lane basefee, or removed as unfunded (CIP-5 §5.4)",
    },
    VariantInfo {
        name: "lane_basefee_in_max_cost",
        values: LaneBasefeeInMaxCost::NAMES,
        default: "yes",
        spec: "CIP-1 v3 §3 step 8, §5 (open point 8)",
        about: "whether the lane basefee is pre-charged and charged on top of the cycle basefee",
    },
    VariantInfo {
        name: "deferred_place",
        values: DeferredPlace::NAMES,
        default: "front",
        spec: "CIP-5 §6.5 (open point 4)",
        about: "a carried timer goes to the front or the back of the next height's bucket",
    },
    VariantInfo {
        name: "over_cap",
        values: OverCap::NAMES,
        default: "capped",
        spec: "CIP-1 v3 §10, §13.2, §14 (open points 15, 21; Spec note 153)",
        about: "a timer over the auction per-fire cap: competes capped (runs at min(gas, cap)), deferred until its TTL, or at its own budget",
    },
    VariantInfo {
        name: "tie_break",
        values: TieBreak::NAMES,
        default: "timer_id",
        spec: "CIP-1 v3 §3 step 7 (open point 10)",
        about: "order among equal effective priorities: timer_id ascending, or schedule order (schedule block, then insertion)",
    },
    VariantInfo {
        name: "draft_pruning",
        values: DraftPruning::NAMES,
        default: "round_robin",
        spec: "CIP-5 draft zh §9.3 vs §18 (open point 19)",
        about: "cip5-draft-zh quota pruning: round-robin across targets, or the pseudocode's greedy fill",
    },
    VariantInfo {
        name: "draft_exec_order",
        values: DraftExecOrder::NAMES,
        default: "selection",
        spec: "CIP-5 drafts: English §10 vs zh mailbox order (open point 19)",
        about: "cip5-draft-zh execution order: the selection order (deliver_seq) or by deliver_id",
    },
    VariantInfo {
        name: "watch_after_fire",
        values: WatchAfterFire::NAMES,
        default: "rearm",
        spec: "CIP-5 drafts §5.1 / zh §6.1 (open point 19)",
        about: "a state watch stays armed after it fired, or leaves (one-shot)",
    },
    VariantInfo {
        name: "interval_after_failure",
        values: IntervalAfterFailure::NAMES,
        default: "roll",
        spec: "CIP-5 draft zh §11 (open point 19)",
        about: "an interval timer whose fire failed rolls forward, or stops",
    },
    VariantInfo {
        name: "interval_first",
        values: IntervalFirst::NAMES,
        default: "every",
        spec: "CIP-5 draft zh §8.2 (open point 19)",
        about: "an interval's first due height: registering height + every_blocks, or the next block",
    },
    VariantInfo {
        name: "update_fifo_rank",
        values: UpdateFifoRank::NAMES,
        default: "raise",
        spec: "CIP-5 draft zh §7.2 vs English §6.2 (open point 19)",
        about: "cip5-draft-zh: a client_nonce repeat that updates a timer raises its fifo_rank, or keeps it",
    },
    VariantInfo {
        name: "fifo_lane",
        values: FifoLane::NAMES,
        default: "strict",
        spec: "CIP-5 §6.5, CIP-1 v3 §3 step 7 (open point 3; Spec notes 3, 154)",
        about: "fifo: a timer that does not fit the lane blocks the timers behind it (strict), or those that fit pass it",
    },
    VariantInfo {
        name: "fairness_median",
        values: FairnessMedian::NAMES,
        default: "lower",
        spec: "CIP-1 v3 §8 (open point 22; Spec note 155)",
        about: "W(actor)'s network median of an even count: the lower middle count, or the mean of the two middle counts",
    },
];

impl Variants {
    pub fn is_default(&self) -> bool {
        *self == Variants::default()
    }

    /// Sets one variant by name (`--variant NAME=VALUE`, a `[variants]` entry); an unknown
    /// name or value is `InvalidInput` naming the choices, and changes nothing.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), TimerError> {
        fn pick<T: Copy>(
            name: &str,
            value: &str,
            parse: fn(&str) -> Option<T>,
            names: &[&str],
        ) -> Result<T, TimerError> {
            parse(value).ok_or_else(|| {
                TimerError::InvalidInput(format!(
                    "variant {name}: `{value}` is not one of {}",
                    names.join(" | ")
                ))
            })
        }
        match name {
            "basefee_step" => {
                self.basefee_step = pick(name, value, BasefeeStep::parse, BasefeeStep::NAMES)?
            }
            "utilisation" => {
                self.utilisation = pick(name, value, Utilisation::parse, Utilisation::NAMES)?
            }
            "p50_even" => self.p50_even = pick(name, value, P50Even::parse, P50Even::NAMES)?,
            "below_basefee" => {
                self.below_basefee = pick(name, value, BelowBasefee::parse, BelowBasefee::NAMES)?
            }
            "lane_basefee_in_max_cost" => {
                self.lane_basefee_in_max_cost = pick(
                    name,
                    value,
                    LaneBasefeeInMaxCost::parse,
                    LaneBasefeeInMaxCost::NAMES,
                )?
            }
            "deferred_place" => {
                self.deferred_place = pick(name, value, DeferredPlace::parse, DeferredPlace::NAMES)?
            }
            "over_cap" => self.over_cap = pick(name, value, OverCap::parse, OverCap::NAMES)?,
            "tie_break" => self.tie_break = pick(name, value, TieBreak::parse, TieBreak::NAMES)?,
            "draft_pruning" => {
                self.draft_pruning = pick(name, value, DraftPruning::parse, DraftPruning::NAMES)?
            }
            "draft_exec_order" => {
                self.draft_exec_order =
                    pick(name, value, DraftExecOrder::parse, DraftExecOrder::NAMES)?
            }
            "watch_after_fire" => {
                self.watch_after_fire =
                    pick(name, value, WatchAfterFire::parse, WatchAfterFire::NAMES)?
            }
            "interval_after_failure" => {
                self.interval_after_failure = pick(
                    name,
                    value,
                    IntervalAfterFailure::parse,
                    IntervalAfterFailure::NAMES,
                )?
            }
            "interval_first" => {
                self.interval_first = pick(name, value, IntervalFirst::parse, IntervalFirst::NAMES)?
            }
            "update_fifo_rank" => {
                self.update_fifo_rank =
                    pick(name, value, UpdateFifoRank::parse, UpdateFifoRank::NAMES)?
            }
            "fifo_lane" => self.fifo_lane = pick(name, value, FifoLane::parse, FifoLane::NAMES)?,
            "fairness_median" => {
                self.fairness_median =
                    pick(name, value, FairnessMedian::parse, FairnessMedian::NAMES)?
            }
            _ => {
                return Err(TimerError::InvalidInput(format!(
                    "`{name}` is not a variant (expected one of {})",
                    CATALOG
                        .iter()
                        .map(|v| v.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        Ok(())
    }

    /// Parses `NAME=VALUE` and sets it.
    pub fn set_pair(&mut self, pair: &str) -> Result<(), TimerError> {
        let (name, value) = pair.split_once('=').ok_or_else(|| {
            TimerError::InvalidInput(format!("variant `{pair}`: expected NAME=VALUE"))
        })?;
        self.set(name.trim(), value.trim())
    }

    /// Every variant's value, by name, in catalogue order.
    pub fn values(&self) -> [(&'static str, &'static str); 16] {
        [
            ("basefee_step", self.basefee_step.as_str()),
            ("utilisation", self.utilisation.as_str()),
            ("p50_even", self.p50_even.as_str()),
            ("below_basefee", self.below_basefee.as_str()),
            (
                "lane_basefee_in_max_cost",
                self.lane_basefee_in_max_cost.as_str(),
            ),
            ("deferred_place", self.deferred_place.as_str()),
            ("over_cap", self.over_cap.as_str()),
            ("tie_break", self.tie_break.as_str()),
            ("draft_pruning", self.draft_pruning.as_str()),
            ("draft_exec_order", self.draft_exec_order.as_str()),
            ("watch_after_fire", self.watch_after_fire.as_str()),
            (
                "interval_after_failure",
                self.interval_after_failure.as_str(),
            ),
            ("interval_first", self.interval_first.as_str()),
            ("update_fifo_rank", self.update_fifo_rank.as_str()),
            ("fifo_lane", self.fifo_lane.as_str()),
            ("fairness_median", self.fairness_median.as_str()),
        ]
    }

    /// The variants that differ from the default, by name (for report headers).
    pub fn named(&self) -> BTreeMap<String, String> {
        let d = Variants::default().values();
        self.values()
            .iter()
            .zip(d.iter())
            .filter(|(a, b)| a.1 != b.1)
            .map(|(a, _)| (a.0.to_string(), a.1.to_string()))
            .collect()
    }

    /// `name=value,…` of the non-default variants, or `default`.
    pub fn label(&self) -> String {
        let n = self.named();
        if n.is_empty() {
            return "default".into();
        }
        n.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl HashEncode for Variants {
    /// Nothing for the default variants (every earlier root stays as it was); else a marker
    /// and each variant's tag in catalogue order.
    fn hash_encode(&self, e: &mut HashEncoder) {
        if self.is_default() {
            return;
        }
        e.u32(0x5641_5231); // "VAR1"
        for t in [
            self.basefee_step.tag(),
            self.utilisation.tag(),
            self.p50_even.tag(),
            self.below_basefee.tag(),
            self.lane_basefee_in_max_cost.tag(),
            self.deferred_place.tag(),
            self.over_cap.tag(),
        ] {
            e.u32(t as u32);
        }
        // Added later (issue 21's last variants): written only when not the default, so a
        // chain with only the earlier variants keeps its root.
        if self.tie_break != TieBreak::default() {
            e.u32(self.tie_break.tag() as u32);
        }
        // The CIP-5 draft variants (open point 19) only when one is named, so that the roots of
        // chains naming only the variants above stay as they were.
        let draft = [
            self.draft_pruning.tag(),
            self.draft_exec_order.tag(),
            self.watch_after_fire.tag(),
            self.interval_after_failure.tag(),
            self.interval_first.tag(),
        ];
        if draft.iter().any(|t| *t != 0) {
            e.u32(0x4452_4631); // "DRF1"
            for t in draft {
                e.u32(t as u32);
            }
        }
        // The idempotent set's variant (Spec note 124), only when named.
        if self.update_fifo_rank != UpdateFifoRank::default() {
            e.u32(0x4e4f_4e31); // "NON1"
            e.u32(self.update_fifo_rank.tag() as u32);
        }
        // Spec notes 154 and 155's variants, only when named.
        if self.fifo_lane != FifoLane::default() {
            e.u32(0x4649_4631); // "FIF1"
            e.u32(self.fifo_lane.tag() as u32);
        }
        if self.fairness_median != FairnessMedian::default() {
            e.u32(0x4d45_4431); // "MED1"
            e.u32(self.fairness_median.tag() as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_matches_the_struct() {
        let v = Variants::default();
        for ((name, value), info) in v.values().iter().zip(CATALOG) {
            assert_eq!(*name, info.name);
            assert_eq!(*value, info.default);
            assert_eq!(info.values[0], info.default);
        }
        let mut v = Variants::default();
        v.set_pair("over_cap=own_budget").unwrap();
        assert_eq!(v.over_cap, OverCap::OwnBudget);
        assert_eq!(v.label(), "over_cap=own_budget");
        assert!(v.set_pair("over_cap=maybe").is_err());
        assert!(v.set_pair("nothing=1").is_err());
        assert!(v.set_pair("over_cap").is_err());
        assert_eq!(v.over_cap, OverCap::OwnBudget);
    }
}
