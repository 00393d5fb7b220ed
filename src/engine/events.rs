//! Timer events (CIP-5 §5.4, §6.4), with the exact kind names the tools key on.

use super::config::{SchedulerParams, TimerConfig};
use super::error::Failure;
use super::types::{Address, HashEncode, HashEncoder, TimerId, u128_str};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Declares a fieldless enum of names with `ALL`, `as_str`, `Display` and `FromStr`.
macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident, $err:ident, $what:literal { $($(#[$vm:meta])* $v:ident => $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $($(#[$vm])* $v),+ }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$v),+];

            pub const fn as_str(self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }

        #[doc = concat!("A name that is not ", $what, ".")]
        #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
        #[error("`{0}` is not {what}", what = $what)]
        pub struct $err(pub String);

        impl FromStr for $name {
            type Err = $err;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $name::ALL
                    .iter()
                    .copied()
                    .find(|k| k.as_str() == s)
                    .ok_or_else(|| $err(s.to_string()))
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

named_enum! {
    /// The kind of an event a block records: the timer engine's ten and the chain's two
    /// (`ActorDeployed`, `ActorEmitted`). The names are the `"kind"` of the serialized events,
    /// which fixtures (`[[expect]] kind`) and tools key on.
    EventKind, UnknownEventKind, "an event kind" {
        TimerScheduled => "TimerScheduled",
        TimerFired => "TimerFired",
        TimerDeferred => "TimerDeferred",
        TimerExpired => "TimerExpired",
        TimerCancelledInsufficientFunds => "TimerCancelledInsufficientFunds",
        TimerCancelled => "TimerCancelled",
        TimerCancelledByGovernance => "TimerCancelledByGovernance",
        TimerExtended => "TimerExtended",
        TimerExtendedByGovernance => "TimerExtendedByGovernance",
        TimerConfigUpdated => "TimerConfigUpdated",
        TimerPriorityClampedAtSchedule => "TimerPriorityClampedAtSchedule",
        GbaFallback => "GbaFallback",
        SchedulerActivated => "SchedulerActivated",
        SchedulerConfigUpdated => "SchedulerConfigUpdated",
        TimerBid => "TimerBid",
        WeightUpdated => "WeightUpdated",
        TimerUpdated => "TimerUpdated",
        ActorDeployed => "ActorDeployed",
        ActorEmitted => "ActorEmitted",
    }
}

named_enum! {
    /// Where a timer stands, as its events tell: still queued, or how it left the queue.
    TimerStatus, UnknownTimerStatus, "a timer status" {
        Pending => "pending",
        Fired => "fired",
        Expired => "expired",
        /// Removed because its fee payer could not pay a fire (`TimerCancelledInsufficientFunds`).
        Unfunded => "unfunded",
        Cancelled => "cancelled",
        CancelledByGovernance => "cancelled_by_governance",
    }
}

/// Why a due timer was carried to the next block instead of concluding (Spec note 54).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DeferReason {
    /// Its `gas_limit_per_fire` did not fit the remaining `LANE_TIMER_CYCLES` (CIP-5 §6.5).
    /// Under `fifo`: the lane was closed; under `eip1559`: the timer did not fit and no
    /// selected timer had a strictly higher effective priority.
    Lane,
    /// It was to be removed (expired or unfunded) but the GC budget was spent (CIP-5 §8).
    GcBudget,
    /// CIP-1 v3 §3 step 7: it did not fit the lane and a selected timer had a strictly higher
    /// effective priority (under `eip1559`, `lane` then means none did).
    Outbid,
    /// CIP-1 v3 §10: its budget is above `MAX_CYCLES_PER_FIRE_AUCTION_PHASE`; deferred without
    /// an attempt, taking no lane room.
    OverCap,
    /// CIP-1 v3 §3 (open point 9, Spec note 54): its `max_fee_per_cycle` is below the lane
    /// basefee in force; it waits for the basefee to fall (or its TTL), nothing charged.
    BelowBasefee,
    /// CIP-1 v1 §3 "Execute Prioritized Timers": the `TIMER_PROCESSING_BUDGET_CYCLES` of the
    /// block (the lane) was used up before its turn.
    Budget,
    /// CIP-1 v1 §4.1: its owner's balance does not cover the bid; deferred, not destroyed.
    Underfunded,
    /// CIP-5 drafts (English §8.3, zh §9.3): over `MAX_FIRES_PER_BLOCK` or its target's
    /// `MAX_FIRES_PER_TARGET`; it stays for a later block.
    Quota,
}

impl DeferReason {
    /// The reason's stable one-byte tag in hashes and state encodings: `Lane` 0, `GcBudget` 1,
    /// `Outbid` 2, `OverCap` 3, `BelowBasefee` 4.
    pub const fn tag(self) -> u8 {
        match self {
            DeferReason::Lane => 0,
            DeferReason::GcBudget => 1,
            DeferReason::Outbid => 2,
            DeferReason::OverCap => 3,
            DeferReason::BelowBasefee => 4,
            DeferReason::Budget => 5,
            DeferReason::Underfunded => 6,
            DeferReason::Quota => 7,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            DeferReason::Lane => "lane",
            DeferReason::GcBudget => "gc_budget",
            DeferReason::Outbid => "outbid",
            DeferReason::OverCap => "over_cap",
            DeferReason::BelowBasefee => "below_basefee",
            DeferReason::Budget => "budget",
            DeferReason::Underfunded => "underfunded",
            DeferReason::Quota => "quota",
        }
    }
}

/// An event of the timer engine. Serialized with `"kind": "<name>"`; its JSON schema (in
/// `rpc.discover`, issue 29) is derived from this enum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind")]
pub enum TimerEvent {
    TimerScheduled {
        timer_id: TimerId,
        actor: Address,
        height: u64,
        fee_payer: Address,
        gas_limit_per_fire: u64,
        expires_at: u64,
        handler: String,
        payload_len: u64,
    },
    TimerFired {
        timer_id: TimerId,
        actor: Address,
        fee_payer: Address,
        /// The height the timer was scheduled for (below the block height if it was carried).
        height: u64,
        handler: String,
        cycles_used: u64,
        cells_used: u64,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        max_cost: u128,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        cost: u128,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        refund: u128,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        burned: u128,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        tip: u128,
        success: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<Failure>,
        /// Spec note 72 (CIP-5 §5.4, §6.3): the handler called `cancel_timer` on this timer, its
        /// own, while it ran. The fire concludes the timer all the same (it leaves by this one
        /// path); the cancel is this named outcome, not an error, and does not revert the
        /// handler. Absent (false) otherwise.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        cancelled_while_running: bool,
    },
    TimerDeferred {
        timer_id: TimerId,
        actor: Address,
        height: u64,
        reason: DeferReason,
        /// Blocks this timer has been carried so far, 1 on its first deferral (contract
        /// decision 6).
        #[serde(default)]
        carried: u32,
    },
    TimerExpired {
        timer_id: TimerId,
        actor: Address,
        expires_at: u64,
        current_height: u64,
    },
    TimerCancelledInsufficientFunds {
        timer_id: TimerId,
        actor: Address,
        fee_payer: Address,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        required: u128,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        available: u128,
    },
    TimerCancelled {
        timer_id: TimerId,
        actor: Address,
        /// A pre-charge refunded because the timer was cancelled between its pre-charge and its
        /// execution in the same end of block (CIP-5 §5.4); zero otherwise.
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        refund: u128,
    },
    TimerCancelledByGovernance {
        timer_id: TimerId,
        /// False when the timer was already gone: the instruction is idempotent (CIP-5 §5.4).
        existed: bool,
    },
    TimerExtended {
        timer_id: TimerId,
        actor: Address,
        old_expires_at: u64,
        new_expires_at: u64,
        /// Spec note 72 (CIP-5 §6.3, Spec note 20): the extension changes nothing, because the
        /// timer is the one whose handler is running (a fire concludes it) or a sibling already
        /// pre-charged to fire in this same end of block (it fires before any expiry applies).
        /// Absent (false) for an extension that moves a pending timer's `expires_at`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        no_effect: bool,
    },
    TimerExtendedByGovernance {
        timer_id: TimerId,
        old_expires_at: u64,
        new_expires_at: u64,
    },
    TimerConfigUpdated {
        config: TimerConfig,
    },
    /// CIP-1 v3 §6: the stated `max_priority_fee_per_cycle` was above `max_fee_per_cycle −
    /// lane basefee` and was clamped at schedule time (nanos per cycle).
    TimerPriorityClampedAtSchedule {
        timer_id: TimerId,
        actor: Address,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        stated: u128,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        clamped: u128,
    },
    /// CIP-1 v3 §7.2, Spec note 53: the actor's custom GBA failed, wrote, or ran out
    /// of its budget; the timer was priced by the default GBA.
    GbaFallback {
        timer_id: TimerId,
        actor: Address,
        reason: super::error::ErrorKind,
    },
    /// CIP-1 v3 §13.2: the eip1559 scheduler planned its first block, this one.
    SchedulerActivated {
        height: u64,
    },
    /// Issue 21 §3 (CIP-1 v3 §7.3, §8, §10): governance set the scheduler parameters
    /// (`SYS_UPDATE_SCHEDULER_CONFIG`), in force from the next block.
    SchedulerConfigUpdated {
        config: SchedulerParams,
        /// The CIP-5 drafts' parameters set with them (English §12, zh §13), if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        draft: Option<super::config::DraftParams>,
    },
    /// CIP-1 v1 §3 "Deliver Timers" b–c: the bid that priced a due timer (nanos per cycle):
    /// its GBA's (or the default's) `max_fee_per_cycle` and the effective tip it competes with.
    TimerBid {
        timer_id: TimerId,
        actor: Address,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        max_fee_per_cycle: u128,
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        tip_per_cycle: u128,
    },
    /// CIP-1 v1 §3 "Priority Weight": an actor's weight after this block, `w' = (1 − λ)·w +
    /// λ·S` clamped, with the floor and the inactivity decay (basis points of 1).
    WeightUpdated {
        actor: Address,
        old_bps: u32,
        new_bps: u32,
        /// The block's score S (bps); absent for an inactive actor's decay.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score_bps: Option<u32>,
    },
    /// CIP-5 drafts, English §6.2 / zh §7.2: a registration repeated a live timer's
    /// `client_nonce` and updated its `payload` / `gas_limit` / `bid` for its future fires;
    /// `fifo_rank_raised` under `cip5-draft-zh` (Spec notes 122-124).
    TimerUpdated {
        timer_id: TimerId,
        actor: Address,
        client_nonce: u64,
        payload_len: u64,
        gas_limit_per_fire: u64,
        /// The new bid, whole units.
        #[serde(with = "u128_str")]
        #[schemars(with = "String")]
        bid: u128,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        fifo_rank_raised: bool,
    },
}

impl TimerEvent {
    /// The event's kind.
    pub fn kind(&self) -> EventKind {
        match self {
            TimerEvent::TimerScheduled { .. } => EventKind::TimerScheduled,
            TimerEvent::TimerFired { .. } => EventKind::TimerFired,
            TimerEvent::TimerDeferred { .. } => EventKind::TimerDeferred,
            TimerEvent::TimerExpired { .. } => EventKind::TimerExpired,
            TimerEvent::TimerCancelledInsufficientFunds { .. } => {
                EventKind::TimerCancelledInsufficientFunds
            }
            TimerEvent::TimerCancelled { .. } => EventKind::TimerCancelled,
            TimerEvent::TimerCancelledByGovernance { .. } => EventKind::TimerCancelledByGovernance,
            TimerEvent::TimerExtended { .. } => EventKind::TimerExtended,
            TimerEvent::TimerExtendedByGovernance { .. } => EventKind::TimerExtendedByGovernance,
            TimerEvent::TimerConfigUpdated { .. } => EventKind::TimerConfigUpdated,
            TimerEvent::TimerPriorityClampedAtSchedule { .. } => {
                EventKind::TimerPriorityClampedAtSchedule
            }
            TimerEvent::GbaFallback { .. } => EventKind::GbaFallback,
            TimerEvent::SchedulerActivated { .. } => EventKind::SchedulerActivated,
            TimerEvent::SchedulerConfigUpdated { .. } => EventKind::SchedulerConfigUpdated,
            TimerEvent::TimerBid { .. } => EventKind::TimerBid,
            TimerEvent::WeightUpdated { .. } => EventKind::WeightUpdated,
            TimerEvent::TimerUpdated { .. } => EventKind::TimerUpdated,
        }
    }

    /// The timer this event is about, if any.
    pub fn timer_id(&self) -> Option<TimerId> {
        match self {
            TimerEvent::TimerScheduled { timer_id, .. }
            | TimerEvent::TimerFired { timer_id, .. }
            | TimerEvent::TimerDeferred { timer_id, .. }
            | TimerEvent::TimerExpired { timer_id, .. }
            | TimerEvent::TimerCancelledInsufficientFunds { timer_id, .. }
            | TimerEvent::TimerCancelled { timer_id, .. }
            | TimerEvent::TimerCancelledByGovernance { timer_id, .. }
            | TimerEvent::TimerExtended { timer_id, .. }
            | TimerEvent::TimerExtendedByGovernance { timer_id, .. }
            | TimerEvent::TimerPriorityClampedAtSchedule { timer_id, .. }
            | TimerEvent::GbaFallback { timer_id, .. }
            | TimerEvent::TimerBid { timer_id, .. }
            | TimerEvent::TimerUpdated { timer_id, .. } => Some(*timer_id),
            TimerEvent::TimerConfigUpdated { .. }
            | TimerEvent::SchedulerActivated { .. }
            | TimerEvent::SchedulerConfigUpdated { .. }
            | TimerEvent::WeightUpdated { .. } => None,
        }
    }

    /// The actor this event is about, if it names one.
    pub fn actor(&self) -> Option<Address> {
        match self {
            TimerEvent::TimerScheduled { actor, .. }
            | TimerEvent::TimerFired { actor, .. }
            | TimerEvent::TimerDeferred { actor, .. }
            | TimerEvent::TimerExpired { actor, .. }
            | TimerEvent::TimerCancelledInsufficientFunds { actor, .. }
            | TimerEvent::TimerCancelled { actor, .. }
            | TimerEvent::TimerExtended { actor, .. }
            | TimerEvent::TimerPriorityClampedAtSchedule { actor, .. }
            | TimerEvent::GbaFallback { actor, .. }
            | TimerEvent::TimerUpdated { actor, .. } => Some(*actor),
            _ => None,
        }
    }
}

impl HashEncode for DeferReason {
    /// One byte, [`DeferReason::tag`]: `Lane` 0, `GcBudget` 1, `Outbid` 2, `OverCap` 3,
    /// `BelowBasefee` 4.
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u8(self.tag());
    }
}

impl HashEncode for TimerEvent {
    /// A tag byte, 1 to 17 in the order the variants are declared (`TimerScheduled` 1 ...
    /// `TimerUpdated` 17), then every field in declaration order. The variants are encoded in
    /// three groups, each by its own method; this match keeps the list whole.
    fn hash_encode(&self, e: &mut HashEncoder) {
        match self {
            TimerEvent::TimerScheduled { .. }
            | TimerEvent::TimerFired { .. }
            | TimerEvent::TimerDeferred { .. }
            | TimerEvent::TimerExpired { .. }
            | TimerEvent::TimerCancelledInsufficientFunds { .. } => self.encode_life(e),
            TimerEvent::TimerCancelled { .. }
            | TimerEvent::TimerCancelledByGovernance { .. }
            | TimerEvent::TimerExtended { .. }
            | TimerEvent::TimerExtendedByGovernance { .. }
            | TimerEvent::TimerPriorityClampedAtSchedule { .. }
            | TimerEvent::TimerUpdated { .. } => self.encode_change(e),
            TimerEvent::TimerConfigUpdated { .. }
            | TimerEvent::GbaFallback { .. }
            | TimerEvent::SchedulerActivated { .. }
            | TimerEvent::SchedulerConfigUpdated { .. }
            | TimerEvent::TimerBid { .. }
            | TimerEvent::WeightUpdated { .. } => self.encode_scheduler(e),
        }
    }
}

impl TimerEvent {
    /// A timer's own life at the end of a block (tags 1 to 5): scheduled, fired, deferred,
    /// expired, cancelled for want of funds.
    fn encode_life(&self, e: &mut HashEncoder) {
        match self {
            TimerEvent::TimerScheduled {
                timer_id,
                actor,
                height,
                fee_payer,
                gas_limit_per_fire,
                expires_at,
                handler,
                payload_len,
            } => {
                e.u8(1);
                timer_id.hash_encode(e);
                actor.hash_encode(e);
                e.u64(*height);
                fee_payer.hash_encode(e);
                e.u64(*gas_limit_per_fire);
                e.u64(*expires_at);
                e.str(handler);
                e.u64(*payload_len);
            }
            TimerEvent::TimerFired {
                timer_id,
                actor,
                fee_payer,
                height,
                handler,
                cycles_used,
                cells_used,
                max_cost,
                cost,
                refund,
                burned,
                tip,
                success,
                error,
                cancelled_while_running,
            } => {
                e.u8(2);
                timer_id.hash_encode(e);
                actor.hash_encode(e);
                fee_payer.hash_encode(e);
                e.u64(*height);
                e.str(handler);
                e.u64(*cycles_used);
                e.u64(*cells_used);
                e.u128(*max_cost);
                e.u128(*cost);
                e.u128(*refund);
                e.u128(*burned);
                e.u128(*tip);
                e.bool(*success);
                error.hash_encode(e);
                // Appended only when set, so every other fire hashes as before.
                if *cancelled_while_running {
                    e.u8(1);
                }
            }
            TimerEvent::TimerDeferred {
                timer_id,
                actor,
                height,
                reason,
                carried,
            } => {
                e.u8(3);
                timer_id.hash_encode(e);
                actor.hash_encode(e);
                e.u64(*height);
                reason.hash_encode(e);
                e.u32(*carried);
            }
            TimerEvent::TimerExpired {
                timer_id,
                actor,
                expires_at,
                current_height,
            } => {
                e.u8(4);
                timer_id.hash_encode(e);
                actor.hash_encode(e);
                e.u64(*expires_at);
                e.u64(*current_height);
            }
            TimerEvent::TimerCancelledInsufficientFunds {
                timer_id,
                actor,
                fee_payer,
                required,
                available,
            } => {
                e.u8(5);
                timer_id.hash_encode(e);
                actor.hash_encode(e);
                fee_payer.hash_encode(e);
                e.u128(*required);
                e.u128(*available);
            }
            _ => unreachable!("encode_life is called for its own variants only"),
        }
    }

    /// A pending timer changed by a transaction or by governance (tags 6 to 9, 11, 17).
    fn encode_change(&self, e: &mut HashEncoder) {
        match self {
            TimerEvent::TimerCancelled {
                timer_id,
                actor,
                refund,
            } => {
                e.u8(6);
                timer_id.hash_encode(e);
                actor.hash_encode(e);
                e.u128(*refund);
            }
            TimerEvent::TimerCancelledByGovernance { timer_id, existed } => {
                e.u8(7);
                timer_id.hash_encode(e);
                e.bool(*existed);
            }
            TimerEvent::TimerExtended {
                timer_id,
                actor,
                old_expires_at,
                new_expires_at,
                no_effect,
            } => {
                e.u8(8);
                timer_id.hash_encode(e);
                actor.hash_encode(e);
                e.u64(*old_expires_at);
                e.u64(*new_expires_at);
                if *no_effect {
                    e.u8(1);
                }
            }
            TimerEvent::TimerExtendedByGovernance {
                timer_id,
                old_expires_at,
                new_expires_at,
            } => {
                e.u8(9);
                timer_id.hash_encode(e);
                e.u64(*old_expires_at);
                e.u64(*new_expires_at);
            }
            TimerEvent::TimerPriorityClampedAtSchedule {
                timer_id,
                actor,
                stated,
                clamped,
            } => {
                e.u8(11);
                timer_id.hash_encode(e);
                actor.hash_encode(e);
                e.u128(*stated);
                e.u128(*clamped);
            }
            TimerEvent::TimerUpdated {
                timer_id,
                actor,
                client_nonce,
                payload_len,
                gas_limit_per_fire,
                bid,
                fifo_rank_raised,
            } => {
                e.u8(17);
                timer_id.hash_encode(e);
                actor.hash_encode(e);
                e.u64(*client_nonce);
                e.u64(*payload_len);
                e.u64(*gas_limit_per_fire);
                e.u128(*bid);
                e.bool(*fifo_rank_raised);
            }
            _ => unreachable!("encode_change is called for its own variants only"),
        }
    }

    /// The scheduler's own facts (tags 10, 12 to 16): configuration, activation, GBA fallbacks,
    /// bids and weights.
    fn encode_scheduler(&self, e: &mut HashEncoder) {
        match self {
            TimerEvent::TimerConfigUpdated { config } => {
                e.u8(10);
                config.hash_encode(e);
            }
            TimerEvent::GbaFallback {
                timer_id,
                actor,
                reason,
            } => {
                e.u8(12);
                timer_id.hash_encode(e);
                actor.hash_encode(e);
                reason.hash_encode(e);
            }
            TimerEvent::SchedulerActivated { height } => {
                e.u8(13);
                e.u64(*height);
            }
            TimerEvent::SchedulerConfigUpdated { config, draft } => {
                e.u8(14);
                config.hash_encode(e);
                if let Some(d) = draft {
                    e.u8(1);
                    d.encode(e);
                }
            }
            TimerEvent::TimerBid {
                timer_id,
                actor,
                max_fee_per_cycle,
                tip_per_cycle,
            } => {
                e.u8(15);
                timer_id.hash_encode(e);
                actor.hash_encode(e);
                e.u128(*max_fee_per_cycle);
                e.u128(*tip_per_cycle);
            }
            TimerEvent::WeightUpdated {
                actor,
                old_bps,
                new_bps,
                score_bps,
            } => {
                e.u8(16);
                actor.hash_encode(e);
                e.u32(*old_bps);
                e.u32(*new_bps);
                match score_bps {
                    Some(s) => {
                        e.u8(1);
                        e.u32(*s);
                    }
                    None => e.u8(0),
                }
            }
            _ => unreachable!("encode_scheduler is called for its own variants only"),
        }
    }
}

/// A due timer carried to the next block (CIP-5 §6.5, §8), waiting for that block's height
/// to be recorded as a `TimerDeferred` event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Deferral {
    pub timer_id: TimerId,
    pub actor: Address,
    pub height: u64,
    pub reason: DeferReason,
    /// Blocks the timer has been carried, this deferral included (Spec note 54).
    #[serde(default)]
    pub carried: u32,
}

impl Deferral {
    /// Bytes the state root commits for a pending deferral (the carried count is committed
    /// apart, with the CIP-1 v3 state: see `PolicyState::root_parts`).
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(32 + 20 + 8 + 1);
        v.extend_from_slice(&self.timer_id.0);
        v.extend_from_slice(&self.actor.0);
        v.extend_from_slice(&self.height.to_be_bytes());
        v.push(self.reason.tag());
        v
    }
}
