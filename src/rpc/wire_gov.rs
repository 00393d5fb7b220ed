//! The governance and CIP-5 draft commands' params (see [`super::wire`]).

use super::types::{Amount, Bytes};
use crate::engine::{Address, TimerId};
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// System instruction 48 (SYS_CANCEL_TIMER) from a system deployer (CIP-5 §5.4).
#[derive(JsonSchema)]
pub struct GovCancelParams {
    /// from, timer_id
    pub cancel: GovCancelFields,
}

/// A governance cancel.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct GovCancelFields {
    pub from: Address,
    pub timer_id: TimerId,
}

/// System instruction 50 (SYS_EXTEND_TIMER) from a system deployer.
#[derive(JsonSchema)]
pub struct GovExtendParams {
    /// from, timer_id, new_expires_at
    pub extend: GovExtendFields,
}

/// A governance extension.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct GovExtendFields {
    pub from: Address,
    pub timer_id: TimerId,
    pub new_expires_at: u64,
}

/// System instruction 49 (SYS_UPDATE_TIMER_CONFIG) from a system deployer: the named fields of
/// the TimerConfig change.
#[derive(JsonSchema)]
pub struct GovUpdateConfigParams {
    /// from, config (partial)
    pub update: GovUpdateFields,
}

/// A partial config from a system deployer.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct GovUpdateFields {
    pub from: Address,
    /// the fields that change, by name
    pub config: Map<String, Value>,
}

/// System instruction 51 (SYS_UPDATE_SCHEDULER_CONFIG, issue 21) from a system deployer: the
/// named CIP-1 v3 parameters change from the next block (tier_economy_bps, tier_standard_bps,
/// tier_fast_bps, tier_urgent_bps, fairness_window_blocks, max_cycles_per_fire_auction); under
/// cip5-draft / cip5-draft-zh also the drafts' (English §12, zh §13: max_fires_per_block,
/// max_fires_per_target, w_age, w_bid, w_fifo, max_watch_keys, min_gas_limit_per_timer,
/// max_payload_size, max_timers_per_target).
#[derive(JsonSchema)]
pub struct GovUpdateSchedulerParams {
    /// from, config (partial)
    pub update: GovUpdateFields,
}

/// CIP-1 v3 §13.2: the height from which eip1559 plans blocks, set by a system deployer
/// before activation (a height above the current one).
#[derive(JsonSchema)]
pub struct ActivationParams {
    /// from, height
    pub activation: ActivationFields,
}

/// An activation height from a system deployer.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ActivationFields {
    pub from: Address,
    pub height: u64,
}

/// CIP-5 drafts: what timer_watch (kind watch) or timer_interval (kind interval) would do:
/// timer_id, first_block, an interval's due_heights, the score its fire would enter with, the
/// fires ranked ahead of it now, whether the quotas let it fire in its first block, max_cost
/// and the fee payer's funding, or its error. Changes nothing.
#[derive(JsonSchema)]
pub struct EstimateDraftParams {
    /// kind (watch | interval), then timer_watch's or timer_interval's fields
    pub timer: DraftFields,
}

/// Which draft registration.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DraftKind {
    Watch,
    Interval,
}

/// A CIP-5 draft registration: a watch (keys) or an interval (every, first?).
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct DraftFields {
    /// only for timer_estimateDraft
    pub kind: Option<DraftKind>,
    pub actor: Address,
    /// a watch's storage keys or prefixes
    pub keys: Option<Vec<String>>,
    /// an interval's period in blocks
    pub every: Option<u64>,
    /// an interval's first due height (default: now + every)
    pub first: Option<u64>,
    pub payload: Option<Bytes>,
    pub handler: Option<String>,
    pub fee_payer: Option<Address>,
    pub gas_limit: Option<u64>,
    pub expires_at: Option<u64>,
    /// whole units
    pub bid: Option<Amount>,
    /// idempotent set (English §6.2, zh §7.2)
    pub client_nonce: Option<u64>,
    pub from: Option<Address>,
    /// the node's label for the timer (1 to 64 bytes of printable text; not unique; not
    /// chain state): timer_list finds the timer by it (Spec note 191)
    pub label: Option<String>,
}

/// CIP-5 drafts: a transaction in which `actor` registers a state watch on its storage keys or
/// prefixes (set_state_watch, English §6.1); it fires in a later block whose transactions
/// write one.
#[derive(JsonSchema)]
pub struct WatchParams {
    /// actor, keys, payload?, handler?, fee_payer?, gas_limit?, expires_at?, bid? (whole
    /// units), client_nonce? (English §6.2 idempotent set), from?, label?
    pub timer: WatchFields,
}

/// A state watch.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct WatchFields {
    pub actor: Address,
    /// storage keys or prefixes, at least one
    pub keys: Vec<String>,
    pub payload: Option<Bytes>,
    pub handler: Option<String>,
    pub fee_payer: Option<Address>,
    pub gas_limit: Option<u64>,
    pub expires_at: Option<u64>,
    pub bid: Option<Amount>,
    pub client_nonce: Option<u64>,
    pub from: Option<Address>,
    /// the node's label for the timer (1 to 64 bytes of printable text; not unique; not
    /// chain state): timer_list finds the timer by it (Spec note 191)
    pub label: Option<String>,
}

/// cip5-draft-zh: a transaction in which `actor` registers an interval timer (set_interval, zh
/// §7.1): due at `first` (default: now + every), then every `every` blocks after each fire.
#[derive(JsonSchema)]
pub struct IntervalParams {
    /// actor, every, first?, payload?, handler?, fee_payer?, gas_limit?, expires_at?, bid?
    /// (whole units), client_nonce? (zh §7.2 idempotent set), from?, label?
    pub timer: IntervalFields,
}

/// An interval timer.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct IntervalFields {
    pub actor: Address,
    pub every: u64,
    pub first: Option<u64>,
    pub payload: Option<Bytes>,
    pub handler: Option<String>,
    pub fee_payer: Option<Address>,
    pub gas_limit: Option<u64>,
    pub expires_at: Option<u64>,
    pub bid: Option<Amount>,
    pub client_nonce: Option<u64>,
    pub from: Option<Address>,
    /// the node's label for the timer (1 to 64 bytes of printable text; not unique; not
    /// chain state): timer_list finds the timer by it (Spec note 191)
    pub label: Option<String>,
}
