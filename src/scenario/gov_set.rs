//! A `gov_config` step's `set`: the fields merged over the configs in force, into a
//! `TimerConfig` or the scheduler parameters (issue 21 §3), and checked when a fixture is
//! prepared.

use crate::engine::draft::DraftParams;
use crate::engine::{SchedulerParams, TimerConfig};

/// Why a `gov_config` step's fields do not make a [`TimerConfig`] or a [`SchedulerParams`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeConfigError {
    #[error("`{0}` is not a TimerConfig field (nor a scheduler config field)")]
    UnknownField(String),
    /// A field of the wrong type or out of its type's range (the TOML decoder's message).
    #[error("{0}")]
    BadValue(String),
    /// Issue 21 §3: one step sets the `TimerConfig` or the scheduler parameters, not both.
    #[error(
        "a gov_config step sets TimerConfig fields or scheduler fields (tier_*_bps, fairness_window_blocks, max_cycles_per_fire_auction, and the CIP-5 drafts' max_fires_per_*, w_*, max_watch_keys, min_gas_limit_per_timer, max_payload_size, max_timers_per_target), not both"
    )]
    Mixed,
}

/// Overrides fields of `base` with the keys of `set` (names and types checked).
pub fn merge_config(
    base: &TimerConfig,
    set: &toml::Table,
) -> Result<TimerConfig, MergeConfigError> {
    merge_table(base, set)
}

fn merge_table<T: serde::Serialize + serde::de::DeserializeOwned>(
    base: &T,
    set: &toml::Table,
) -> Result<T, MergeConfigError> {
    let mut t = toml::Table::try_from(base)
        .map_err(|e: toml::ser::Error| MergeConfigError::BadValue(e.to_string()))?;
    for (k, v) in set {
        if !t.contains_key(k) {
            return Err(MergeConfigError::UnknownField(k.clone()));
        }
        t.insert(k.clone(), v.clone());
    }
    // Validation (`TimerConfig::validate`) is the chain's: an invalid config is a failed
    // instruction on chain, which a fixture may expect.
    toml::Value::Table(t)
        .try_into()
        .map_err(|e: toml::de::Error| MergeConfigError::BadValue(e.message().to_string()))
}

/// What a `gov_config` step sets (issue 21 §3: the step names `TimerConfig` fields for
/// `SYS_UPDATE_TIMER_CONFIG`, or CIP-1 v3 scheduler fields for `SYS_UPDATE_SCHEDULER_CONFIG`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GovSet {
    Timer(TimerConfig),
    /// The CIP-1 v3 parameters (restated when the step names none), and the CIP-5 drafts'
    /// when it names any of theirs (English §12, Spec note 126).
    Scheduler(SchedulerParams, Option<DraftParams>),
}

/// The config a `gov_config` step's `set` makes over the ones in force.
pub fn merge_gov_set(
    timer: &TimerConfig,
    sched: &SchedulerParams,
    draft: &DraftParams,
    set: &toml::Table,
) -> Result<GovSet, MergeConfigError> {
    let is_draft = |k: &String| DraftParams::is_field(k);
    let is_sched = |k: &String| SchedulerParams::FIELDS.contains(&k.as_str()) || is_draft(k);
    match (set.keys().any(is_sched), set.keys().all(is_sched)) {
        (false, _) => merge_config(timer, set).map(GovSet::Timer),
        (true, true) => {
            let (d, s): (toml::Table, toml::Table) =
                set.clone().into_iter().partition(|(k, _)| is_draft(k));
            let sched = merge_table(sched, &s)?;
            let draft = match d.is_empty() {
                true => None,
                false => Some(merge_table(draft, &d)?),
            };
            Ok(GovSet::Scheduler(sched, draft))
        }
        (true, false) => Err(MergeConfigError::Mixed),
    }
}

/// A `gov_config` step, checked when the fixture is prepared: its fields make a config, and
/// one the chain accepts (over those the earlier steps leave) unless the step expects the
/// failure; the configs in force follow it.
pub fn check_gov_set(
    timer: &mut TimerConfig,
    sched: &mut SchedulerParams,
    draft: &mut DraftParams,
    set: &toml::Table,
    expected: bool,
) -> Result<(), String> {
    let merged = merge_gov_set(timer, sched, draft, set).map_err(|e| e.to_string())?;
    let valid = match &merged {
        GovSet::Timer(c) => c.validate(),
        GovSet::Scheduler(p, d) => p
            .validate()
            .and_then(|()| d.as_ref().map_or(Ok(()), |d| d.validate())),
    };
    match (valid, merged) {
        (Ok(()), GovSet::Timer(c)) => *timer = c,
        (Ok(()), GovSet::Scheduler(p, d)) => {
            *sched = p;
            if let Some(d) = d {
                *draft = d;
            }
        }
        (Err(e), _) if !expected => return Err(e.to_string()),
        (Err(_), _) => {}
    }
    Ok(())
}
