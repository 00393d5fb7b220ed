//! A fixture's `[[expect]]` table as written (moved out of `fixture.rs`).

use super::amount::Amount;
use serde::Deserialize;

/// An expectation, checked by the runner. Exactly one of `kind` (an event), `balance_of` (a
/// balance after block `at`), `status` (a timer's status after block `at`) or `metric` (a
/// figure of a block or of an actor) must be given.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Restrict to one height (events) or the height to check at (balances, statuses).
    #[serde(default)]
    pub at: Option<u64>,
    /// An event kind, e.g. `TimerFired`.
    #[serde(default)]
    pub kind: Option<String>,
    /// A timer label (events, status).
    #[serde(default)]
    pub timer: Option<String>,
    /// An actor name (events).
    #[serde(default)]
    pub actor: Option<String>,
    /// Exact number of matching events (default: at least one).
    #[serde(default)]
    pub count: Option<u64>,
    #[serde(default)]
    pub min: Option<u64>,
    #[serde(default)]
    pub max: Option<u64>,
    #[serde(default)]
    pub balance_of: Option<String>,
    #[serde(default)]
    pub equals: Option<Amount>,
    #[serde(default)]
    pub at_least: Option<Amount>,
    #[serde(default)]
    pub at_most: Option<Amount>,
    /// `pending`, `fired`, `expired`, `unfunded`, `cancelled` or `cancelled_by_governance`.
    #[serde(default)]
    pub status: Option<String>,
    /// A figure of the run (see [`Metric`]): of the block at `at` (block figures), or of
    /// `actor` after block `at` / at the end of the run (actor figures). Checked against
    /// `equals` / `at_least` / `at_most` and the comparisons below.
    #[serde(default)]
    pub metric: Option<String>,
    /// Block figures: the value at `at` is strictly above its value at this earlier height.
    #[serde(default)]
    pub above_at: Option<u64>,
    /// Block figures: the value at `at` is strictly below its value at this earlier height.
    #[serde(default)]
    pub below_at: Option<u64>,
    /// Actor figures: the value is strictly above that of this actor at the same point.
    #[serde(default)]
    pub above_actor: Option<String>,
    /// Actor figures: the value is strictly below that of this actor at the same point.
    #[serde(default)]
    pub below_actor: Option<String>,
    /// Shown in the report instead of a generated description.
    #[serde(default)]
    pub description: Option<String>,
    /// The state root after block `at` (an exported session pins what it saw, issue 24).
    #[serde(default)]
    pub state_root: Option<String>,
    /// Issue 32: a host call the handler runs made (`storage_set`, `emit`, ...) or `print` (a
    /// line printed), in the traces of `timer`'s fires or `actor`'s runs (at block `at`).
    #[serde(default)]
    pub trace: Option<String>,
    /// A `trace` expectation's storage key (`storage_get`, `storage_set`, `storage_remove`).
    #[serde(default)]
    pub key: Option<String>,
    /// A `trace` expectation's value: a storage write's new value, or text a printed line
    /// contains.
    #[serde(default)]
    pub value: Option<String>,
}
