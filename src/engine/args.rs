//! What a schedule request carries (CIP-5 §4.1, CIP-1 v3 §6): [`ScheduleArgs`], its fee
//! parameters ([`FeeArgs`], [`PriorityTier`]) and the CIP-1 v3 per-timer extension kept on the
//! timer ([`FeeCaps`]). It imports only the leaves `types` and `events`.

use super::events::DeferReason;
use super::types::{Address, HashEncode, HashEncoder};
use serde::{Deserialize, Serialize};

/// The arguments of `schedule_timer` / `schedule_timer_ex` (CIP-5 §4.1, CIP-1 v3 §6). `None`
/// means the protocol default.
///
/// The CIP-1 v3 §6 fee parameters are prices in nanos per cycle (Spec note 44:
/// `PRICE_SCALE` nanos = one base unit). Omitted, the timer is priced at fire time by its
/// actor's custom GBA, if it has one, else by the default GBA (§7.1, §13.2 "caller
/// migration"). `priority_tier` (§7.3) sets the tip as a multiple of the fire-time p50 tip and
/// excludes an explicit `max_priority_fee_per_cycle`. `bid` is the withdrawn legacy argument
/// (§6, §13.2): accepted and ignored during the deprecation window, then `TimerArgDeprecated`.
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ScheduleArgs {
    pub height: u64,
    #[serde(default)]
    pub payload: Vec<u8>,
    #[serde(default)]
    pub fee_payer: Option<Address>,
    #[serde(default)]
    pub gas_limit: Option<u64>,
    #[serde(default)]
    pub expires_at: Option<u64>,
    #[serde(
        default,
        with = "super::types::opt_u128_str",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub max_fee_per_cycle: Option<u128>,
    #[serde(
        default,
        with = "super::types::opt_u128_str",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub max_priority_fee_per_cycle: Option<u128>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_tier: Option<PriorityTier>,
    #[serde(
        default,
        with = "super::types::opt_u128_str",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub bid: Option<u128>,
    /// CIP-5 drafts (English §6.2, zh §7.2): the idempotent set's `client_nonce`; refused by
    /// name under the other schedulers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_nonce: Option<u64>,
}

impl ScheduleArgs {
    /// Whether any CIP-1 v3 fee parameter (other than `bid`) was given.
    pub fn has_fee_params(&self) -> bool {
        self.max_fee_per_cycle.is_some()
            || self.max_priority_fee_per_cycle.is_some()
            || self.priority_tier.is_some()
    }
}

impl HashEncode for ScheduleArgs {
    /// Every field in declaration order (the payload as a byte string).
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u64(self.height);
        e.bytes(&self.payload);
        self.fee_payer.hash_encode(e);
        self.gas_limit.hash_encode(e);
        self.expires_at.hash_encode(e);
        self.max_fee_per_cycle.hash_encode(e);
        self.max_priority_fee_per_cycle.hash_encode(e);
        self.priority_tier.hash_encode(e);
        self.bid.hash_encode(e);
        // Added with the drafts' idempotent set: written only when given, so every earlier
        // transaction keeps its hash.
        if let Some(n) = self.client_nonce {
            e.u8(0x4e);
            e.u64(n);
        }
    }
}

/// CIP-1 v3 §7.3 `PriorityTier`: a multiplier on the p50 tip (`priority_tier` in
/// `schedule_timer`). Serde: `economy`, `standard`, `fast`, `urgent`.
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PriorityTier {
    Economy,
    Standard,
    Fast,
    Urgent,
}

impl PriorityTier {
    pub const ALL: [PriorityTier; 4] = [
        PriorityTier::Economy,
        PriorityTier::Standard,
        PriorityTier::Fast,
        PriorityTier::Urgent,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            PriorityTier::Economy => "economy",
            PriorityTier::Standard => "standard",
            PriorityTier::Fast => "fast",
            PriorityTier::Urgent => "urgent",
        }
    }

    /// The one-byte tag hashes commit to (1..=4).
    pub const fn tag(self) -> u8 {
        match self {
            PriorityTier::Economy => 1,
            PriorityTier::Standard => 2,
            PriorityTier::Fast => 3,
            PriorityTier::Urgent => 4,
        }
    }
}

impl std::fmt::Display for PriorityTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl std::str::FromStr for PriorityTier {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PriorityTier::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| {
                format!("`{s}` is not a priority tier (expected economy, standard, fast or urgent)")
            })
    }
}

impl HashEncode for PriorityTier {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u8(self.tag());
    }
}

/// The fee parameters of a schedule request (the estimate's input).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeeArgs {
    #[serde(default, with = "super::types::opt_u128_str")]
    pub max_fee_per_cycle: Option<u128>,
    #[serde(default, with = "super::types::opt_u128_str")]
    pub max_priority_fee_per_cycle: Option<u128>,
    #[serde(default)]
    pub priority_tier: Option<PriorityTier>,
}

impl FeeArgs {
    pub(crate) fn of(caps: Option<&FeeCaps>) -> FeeArgs {
        caps.map_or_else(FeeArgs::default, |c| FeeArgs {
            max_fee_per_cycle: c.max_fee_per_cycle,
            max_priority_fee_per_cycle: c.max_priority_fee_per_cycle,
            priority_tier: c.priority_tier,
        })
    }

    /// Whether a GBA has anything left to price.
    pub(crate) fn complete(&self) -> bool {
        self.max_fee_per_cycle.is_some()
            && (self.max_priority_fee_per_cycle.is_some() || self.priority_tier.is_some())
    }
}

/// The CIP-1 v3 per-timer extension, boxed so that a timer without one stays small: the §6 fee
/// parameters given at schedule (nanos per cycle; `None` = priced at fire time by a GBA, §7),
/// the §7.3 tier, and the carry record (Spec note 54: how many blocks the timer has
/// been carried and why, last).
///
/// The state root commits the fee parameters through the timer's leaf (only when one is set,
/// so a CIP-5 timer's leaf is unchanged) and the carry record (first deferral height, last
/// reason) through the same leaf once the timer has been deferred (Spec note 71).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FeeCaps {
    #[serde(
        default,
        with = "super::types::opt_u128_str",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub max_fee_per_cycle: Option<u128>,
    #[serde(
        default,
        with = "super::types::opt_u128_str",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub max_priority_fee_per_cycle: Option<u128>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_tier: Option<PriorityTier>,
    /// Blocks carried so far (0: never deferred): derived from `first_deferred` (Spec note 71).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub carried: u32,
    /// The height of the block that first deferred the timer (Spec note 71); committed in the
    /// timer's leaf with `last_defer`, so the leaf changes only when these do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_deferred: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_defer: Option<DeferReason>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl FeeCaps {
    /// Whether a fee parameter is set (the leaf then commits the extension).
    pub fn has_fees(&self) -> bool {
        self.max_fee_per_cycle.is_some()
            || self.max_priority_fee_per_cycle.is_some()
            || self.priority_tier.is_some()
    }
}
