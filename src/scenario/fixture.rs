//! The fixture format (TOML): chain settings, accounts, actors, steps at heights, and
//! expectations. See docs/FIXTURES.md ("The format") for a full example.

pub use super::amount::{AMOUNT_EXPECTED, Amount};
pub use super::fixture_expect::Expect;
use crate::chain::BasefeeConfig;
use crate::engine::{Address, QueueConfig, SchedulerKind, TimerConfig};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// A fixture could not be used. The message names the file, the line and the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {field}: {message}")]
pub struct FixtureError {
    pub file: String,
    pub line: usize,
    pub field: String,
    pub message: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// How many blocks `run` plays by default.
    #[serde(default)]
    pub blocks: Option<u64>,
    /// A state file the chain starts from (issue 24; `scenario::base`), relative to the fixture.
    #[serde(default)]
    pub base: Option<String>,
    #[serde(default)]
    pub chain: ChainSection,
    /// CIP-1 v3 parameters (`Cip1Config`).
    #[serde(default)]
    pub cip1: Option<crate::engine::Cip1Config>,
    /// CIP-1 v1 parameters (issue 21 §1), used when the run's scheduler is `cip1-v1`.
    #[serde(default)]
    pub cip1_v1: Option<crate::engine::scheduler::v1::V1Config>,
    /// Named variants (issue 21): `NAME = "VALUE"` (see `cowboy-devnet variants`).
    #[serde(default)]
    pub variants: Option<BTreeMap<String, toml::Value>>,
    /// The CIP-5 drafts' parameters (`DraftParams`: quotas, weights).
    #[serde(default)]
    pub cip5_draft: Option<crate::engine::draft::DraftParams>,
    #[serde(default)]
    pub accounts: Vec<Spanned<AccountSpec>>,
    #[serde(default)]
    pub actors: Vec<Spanned<ActorSpec>>,
    #[serde(default)]
    pub steps: Vec<Spanned<Step>>,
    #[serde(default)]
    pub expect: Vec<Spanned<Expect>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainSection {
    #[serde(default)]
    pub scheduler: Option<SchedulerKind>,
    /// CIP-1 v3 §13.2: the first height planned by eip1559 (Spec note 49).
    #[serde(default)]
    pub activation_height: Option<u64>,
    #[serde(default)]
    pub proposer: Option<String>,
    #[serde(default)]
    pub system_deployers: Option<Vec<String>>,
    #[serde(default)]
    pub timer: Option<TimerConfig>,
    #[serde(default)]
    pub basefee: Option<BasefeeConfig>,
    #[serde(default)]
    pub queue: Option<QueueConfig>,
    /// `false`: no implicit `governance` account at genesis (an exported session's genesis
    /// is the node's, issue 24).
    #[serde(default)]
    pub implicit_governance: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountSpec {
    pub name: String,
    #[serde(default)]
    pub balance: Amount,
    /// An explicit address; by default one is derived from the name.
    #[serde(default)]
    pub address: Option<Address>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorSpec {
    pub name: String,
    /// A Rhai script, relative to the fixture file.
    #[serde(default)]
    pub script: Option<String>,
    /// A native test program (JSON), inline.
    #[serde(default)]
    pub native: Option<String>,
    /// The deploying account (it pays the deploy and the endowment).
    pub deployer: String,
    /// Endowment moved from the deployer to the actor at deploy.
    #[serde(default)]
    pub balance: Amount,
    /// Height of the deploy (default 1).
    #[serde(default)]
    pub at: Option<u64>,
    /// Where it is deployed (default: derived from the name).
    #[serde(default)]
    pub address: Option<Address>,
    /// The Rhai source inline, `script` naming it (an exported session's actors, issue 24).
    #[serde(default)]
    pub source: Option<String>,
    /// `true`: the deploy leaves the address to the chain (derived from the deployer and its
    /// nonce), and `address` says where it lands.
    #[serde(default)]
    pub derived: Option<bool>,
}

/// One action at a height. `expect_error` names the error the action must fail with
/// (`Unauthorized`, `InvalidInput`, ...); without it, a failure is reported as a step error.
/// (`schedule` is the largest variant; steps are parsed once and kept in one list, so boxing its
/// fields would only complicate the serde layout.)
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
#[allow(clippy::large_enum_variant)]
pub enum Step {
    /// The actor schedules a timer (a transaction from its deployer, or `from`).
    Schedule {
        at: u64,
        actor: String,
        #[serde(default)]
        from: Option<String>,
        /// Absolute height, or `after` blocks past `at`.
        #[serde(default)]
        height: Option<u64>,
        #[serde(default)]
        after: Option<u64>,
        #[serde(default)]
        payload: Option<String>,
        /// Routes the payload to this handler (CIP-5 §4.2 `_handler` convention).
        #[serde(default)]
        handler: Option<String>,
        /// `self` (the actor, default), `sender`, or an account name.
        #[serde(default)]
        fee_payer: Option<String>,
        #[serde(default)]
        gas_limit: Option<u64>,
        #[serde(default)]
        expires_at: Option<u64>,
        /// `expires_at` as blocks past the timer's height.
        #[serde(default)]
        ttl: Option<u64>,
        /// Names the timer for later steps and expectations.
        #[serde(default)]
        label: Option<String>,
        /// CIP-1 v3 §6 fee caps, nanos per cycle (10^9 nanos = 1 base unit); left out, the
        /// default GBA prices the fire (§7.1).
        #[serde(default)]
        max_fee_per_cycle: Option<Amount>,
        #[serde(default)]
        max_priority_fee_per_cycle: Option<Amount>,
        /// `economy` | `standard` | `fast` | `urgent` (§7.3).
        #[serde(default)]
        priority_tier: Option<crate::engine::PriorityTier>,
        /// The legacy `bid` (§13.2): ignored in the deprecation window, then `TimerArgDeprecated`.
        #[serde(default)]
        bid: Option<Amount>,
        /// CIP-5 drafts' idempotent set (English §6.2, Spec note 122).
        #[serde(default)]
        client_nonce: Option<u64>,
        #[serde(default)]
        expect_error: Option<String>,
    },
    Cancel {
        at: u64,
        actor: String,
        timer: String,
        #[serde(default)]
        from: Option<String>,
        #[serde(default)]
        expect_error: Option<String>,
    },
    Extend {
        at: u64,
        actor: String,
        timer: String,
        /// New `expires_at`, absolute...
        #[serde(default)]
        to: Option<u64>,
        /// ...or blocks past `at`.
        #[serde(default)]
        by: Option<u64>,
        #[serde(default)]
        from: Option<String>,
        #[serde(default)]
        expect_error: Option<String>,
    },
    Call {
        at: u64,
        from: String,
        actor: String,
        handler: String,
        #[serde(default)]
        payload: Option<String>,
        #[serde(default)]
        expect_error: Option<String>,
    },
    Transfer {
        at: u64,
        from: String,
        to: String,
        amount: Amount,
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// `SYS_CANCEL_TIMER` (48).
    GovCancel {
        at: u64,
        timer: String,
        #[serde(default)]
        from: Option<String>,
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// `SYS_EXTEND_TIMER` (50).
    GovExtend {
        at: u64,
        timer: String,
        to: u64,
        #[serde(default)]
        from: Option<String>,
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// `SYS_UPDATE_TIMER_CONFIG` (49): the fields given override the current config.
    GovConfig {
        at: u64,
        set: toml::Table,
        #[serde(default)]
        from: Option<String>,
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// Sets a balance (devnet control).
    SetBalance {
        at: u64,
        account: String,
        balance: Amount,
    },
    /// After block `at`, the chain halts for `blocks` heights (an outage, CIP-5 §8).
    Halt {
        at: u64,
        blocks: u64,
    },
    /// A transaction as JSON (`chain::Transaction`), sent as is: what an exported session
    /// holds where no named step says the same transaction (issue 24).
    Tx {
        at: u64,
        tx: String,
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// One command of the node's vocabulary as written (issue 29; `scenario::command_step`):
    /// `command = { method = "timer_schedule", params = { ... } }`, `"@name"` standing for a
    /// fixture name's address. `label` names the timer it creates, as `schedule`'s does.
    Command {
        at: u64,
        command: serde_json::Value,
        #[serde(default)]
        label: Option<String>,
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// `gov_setActivationHeight` (CIP-1 v3 §13.2) from `from` (default: governance).
    Activate {
        at: u64,
        height: u64,
        #[serde(default)]
        from: Option<String>,
        #[serde(default)]
        expect_error: Option<String>,
    },
    /// CIP-5 drafts: a state watch, an interval timer, a storage write (see `DraftStep`).
    Watch(super::draft_step::DraftStep),
    Interval(super::draft_step::DraftStep),
    Write(super::draft_step::DraftStep),
}

impl Step {
    pub fn at(&self) -> u64 {
        match self {
            Step::Schedule { at, .. }
            | Step::Cancel { at, .. }
            | Step::Extend { at, .. }
            | Step::Call { at, .. }
            | Step::Transfer { at, .. }
            | Step::GovCancel { at, .. }
            | Step::GovExtend { at, .. }
            | Step::GovConfig { at, .. }
            | Step::SetBalance { at, .. }
            | Step::Halt { at, .. }
            | Step::Tx { at, .. }
            | Step::Command { at, .. }
            | Step::Activate { at, .. } => *at,
            Step::Watch(d) | Step::Interval(d) | Step::Write(d) => d.at,
        }
    }

    pub fn action(&self) -> &'static str {
        match self {
            Step::Schedule { .. } => "schedule",
            Step::Cancel { .. } => "cancel",
            Step::Extend { .. } => "extend",
            Step::Call { .. } => "call",
            Step::Transfer { .. } => "transfer",
            Step::GovCancel { .. } => "gov_cancel",
            Step::GovExtend { .. } => "gov_extend",
            Step::GovConfig { .. } => "gov_config",
            Step::SetBalance { .. } => "set_balance",
            Step::Halt { .. } => "halt",
            Step::Tx { .. } => "tx",
            Step::Command { .. } => "command",
            Step::Activate { .. } => "activate",
            Step::Watch(_) => "watch",
            Step::Interval(_) => "interval",
            Step::Write(_) => "write",
        }
    }

    pub fn expect_error(&self) -> Option<&str> {
        match self {
            Step::Schedule { expect_error, .. }
            | Step::Cancel { expect_error, .. }
            | Step::Extend { expect_error, .. }
            | Step::Call { expect_error, .. }
            | Step::Transfer { expect_error, .. }
            | Step::GovCancel { expect_error, .. }
            | Step::GovExtend { expect_error, .. }
            | Step::GovConfig { expect_error, .. }
            | Step::Tx { expect_error, .. }
            | Step::Command { expect_error, .. }
            | Step::Activate { expect_error, .. } => expect_error.as_deref(),
            Step::SetBalance { .. } | Step::Halt { .. } => None,
            Step::Watch(d) | Step::Interval(d) | Step::Write(d) => d.expect_error.as_deref(),
        }
    }

    /// The label a step gives the timer it creates (`schedule`, `watch`, `interval`).
    pub fn timer_label(&self) -> Option<&String> {
        match self {
            Step::Schedule { label, .. } | Step::Command { label, .. } => label.as_ref(),
            Step::Watch(d) | Step::Interval(d) => d.label.as_ref(),
            _ => None,
        }
    }
}

/// A figure a `metric` expectation checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Of the block at `at` (the report's block columns): the lane basefee in nanos per cycle,
    /// its utilisation in basis points, the p50 tip in nanos, timers selected and deferred.
    LaneBasefee,
    UtilisationBps,
    P50Tip,
    Selected,
    Deferred,
    /// Of an actor after block `at` (or at the end): W(actor) in basis points (CIP-1 v3 §8),
    /// and the report's per-actor columns so far.
    WeightBps,
    Fires,
    Deferrals,
    LatencyP50,
    LatencyP99,
    /// The largest fire latency of the actor so far (issue 33).
    LatencyMax,
    Fees,
    Tips,
}

impl Metric {
    pub const ALL: &'static [(&'static str, Metric)] = &[
        ("lane_basefee", Metric::LaneBasefee),
        ("utilisation_bps", Metric::UtilisationBps),
        ("p50_tip", Metric::P50Tip),
        ("selected", Metric::Selected),
        ("deferred", Metric::Deferred),
        ("weight_bps", Metric::WeightBps),
        ("fires", Metric::Fires),
        ("deferrals", Metric::Deferrals),
        ("latency_p50", Metric::LatencyP50),
        ("latency_p99", Metric::LatencyP99),
        ("latency_max", Metric::LatencyMax),
        ("fees", Metric::Fees),
        ("tips", Metric::Tips),
    ];

    pub fn parse(s: &str) -> Option<Metric> {
        Self::ALL.iter().find(|(n, _)| *n == s).map(|(_, m)| *m)
    }

    /// A figure of a block (else of an actor).
    pub fn of_block(self) -> bool {
        matches!(
            self,
            Metric::LaneBasefee
                | Metric::UtilisationBps
                | Metric::P50Tip
                | Metric::Selected
                | Metric::Deferred
        )
    }
}

/// A parsed fixture with where it came from (to resolve script paths and name errors).
#[derive(Debug)]
pub struct LoadedFixture {
    pub path: String,
    pub dir: Option<PathBuf>,
    pub source: String,
    pub fixture: Fixture,
    /// Offsets where each line of `source` starts, so that naming the line of an element is
    /// a binary search, not a rescan of the source (checking stays linear in the steps).
    line_starts: Vec<usize>,
}

fn line_of(source: &str, offset: usize) -> usize {
    source[..offset.min(source.len())].matches('\n').count() + 1
}

/// Where each line of `source` starts.
fn line_starts(source: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(source.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

impl LoadedFixture {
    /// Parses fixture text. `path` is used in error messages and to resolve scripts.
    pub fn parse(path: &str, source: String) -> Result<Self, FixtureError> {
        let fixture: Fixture = toml::from_str(&source).map_err(|e| {
            let (line, field, message) = locate(&source, &e);
            FixtureError {
                file: path.to_string(),
                line,
                field,
                message,
            }
        })?;
        let dir = Path::new(path).parent().map(Path::to_path_buf);
        Ok(LoadedFixture {
            path: path.to_string(),
            dir,
            line_starts: line_starts(&source),
            source,
            fixture,
        })
    }

    /// Reads and parses a fixture file.
    pub fn read(path: &Path) -> Result<Self, FixtureError> {
        let shown = path.display().to_string();
        let source = std::fs::read_to_string(path).map_err(|e| FixtureError {
            file: shown.clone(),
            line: 0,
            field: "file".into(),
            message: e.to_string(),
        })?;
        Self::parse(&shown, source)
    }

    /// The line (from 1) of a byte offset into the source.
    pub fn line(&self, offset: usize) -> usize {
        self.line_starts
            .partition_point(|&start| start <= offset)
            .max(1)
    }

    /// An error at a spanned item.
    pub fn error_at(
        &self,
        span: std::ops::Range<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> FixtureError {
        FixtureError {
            file: self.path.clone(),
            line: self.line(span.start),
            field: field.into(),
            message: message.into(),
        }
    }

    /// An error about `key` of element `index` (from 0) of the array of tables `array`
    /// (`steps`, `actors`, ...), named like TOML errors name it: `steps[2].actor`, elements
    /// counting from 1. It points at the key's line when the element has the key, else at the
    /// element's first line (`span`, the element's span).
    pub fn element_error(
        &self,
        array: &str,
        index: usize,
        span: std::ops::Range<usize>,
        key: &str,
        message: impl Into<String>,
    ) -> FixtureError {
        FixtureError {
            file: self.path.clone(),
            line: key_line(&self.source, &[array], Some(index), key)
                .unwrap_or_else(|| self.line(span.start)),
            field: format!("{array}[{}].{key}", index + 1),
            message: message.into(),
        }
    }

    /// An error about `key` of the table `table` (`chain`, `chain.timer`, ...), named
    /// `table.key`, at the key's line (line 1 when the fixture does not have it).
    pub fn table_error(&self, table: &str, key: &str, message: impl Into<String>) -> FixtureError {
        let path: Vec<&str> = table.split('.').collect();
        FixtureError {
            file: self.path.clone(),
            line: key_line(&self.source, &path, None, key).unwrap_or(1),
            field: format!("{table}.{key}"),
            message: message.into(),
        }
    }

    /// An error about the top-level key `key` (`blocks`, `name`, ...), at its line (line 1
    /// when the fixture does not have it).
    pub fn key_error(&self, key: &str, message: impl Into<String>) -> FixtureError {
        FixtureError {
            file: self.path.clone(),
            line: key_line(&self.source, &[], None, key).unwrap_or(1),
            field: key.to_string(),
            message: message.into(),
        }
    }

    /// An error about the fixture as a whole.
    pub fn error(&self, field: impl Into<String>, message: impl Into<String>) -> FixtureError {
        FixtureError {
            file: self.path.clone(),
            line: 1,
            field: field.into(),
            message: message.into(),
        }
    }
}

type DeItem<'i> = Spanned<toml::de::DeValue<'i>>;

/// The line of `key` in the table at `tables` (nested table names from the root), or in element
/// `index` of the array of tables at `tables` when `index` is given.
fn key_line(source: &str, tables: &[&str], index: Option<usize>, key: &str) -> Option<usize> {
    let root = toml::de::DeTable::parse(source).ok()?;
    let mut table = root.get_ref();
    for (n, name) in tables.iter().enumerate() {
        let (_, v) = table.iter().find(|(k, _)| k.get_ref() == name)?;
        let v = match (v.get_ref(), index) {
            (toml::de::DeValue::Array(a), Some(i)) if n + 1 == tables.len() => a.get(i)?,
            _ => v,
        };
        let toml::de::DeValue::Table(t) = v.get_ref() else {
            return None;
        };
        table = t;
    }
    let (k, _) = table.iter().find(|(k, _)| k.get_ref() == key)?;
    Some(line_of(source, k.span().start))
}

/// Line, field path (`steps[2].after`, `chain.timer.lane_timer_cycles`; array elements count
/// from 1) and message of a TOML error. A syntax error is named by the key on its line; a type
/// or unknown-key error is traced through the parsed document to the offending key.
fn locate(source: &str, e: &toml::de::Error) -> (usize, String, String) {
    let message = e.message().to_string();
    let fallback = || {
        let line = e.span().map_or(1, |s| line_of(source, s.start));
        (
            line,
            field_of(source, e.span().map(|s| s.start)),
            message.clone(),
        )
    };
    let (Some(span), Ok(root)) = (e.span(), toml::de::DeTable::parse(source)) else {
        return fallback();
    };
    let mut path = String::new();
    let Some(node) = find_in_table(root.get_ref(), &span, &mut path) else {
        return fallback();
    };
    match node {
        Found::Key(k) => (line_of(source, k.start), path, message),
        Found::Value(v) => match v.get_ref() {
            // An array of tables deserialized through a buffer (`[[steps]]`, a tagged enum)
            // reports the whole array: find the element and its key by checking each alone.
            toml::de::DeValue::Array(a) => match locate_in_array(source, &path, a) {
                Some((i, line, key, msg)) => (line, format!("{path}[{}]{key}", i + 1), msg),
                None => (line_of(source, span.start), path, message),
            },
            // A table reports an unknown key by its header: find the key.
            toml::de::DeValue::Table(t) => {
                match unknown_field(&message)
                    .and_then(|key| t.iter().find(|(k, _)| k.get_ref() == key))
                {
                    Some((k, _)) => (
                        line_of(source, k.span().start),
                        format!("{path}.{}", k.get_ref()),
                        message,
                    ),
                    None => (line_of(source, span.start), path, message),
                }
            }
            _ => (line_of(source, span.start), path, message),
        },
    }
}

enum Found<'a, 'i> {
    Key(std::ops::Range<usize>),
    Value(&'a DeItem<'i>),
}

/// The deepest key or value of `t` whose span holds `span.start`, its path appended to `path`.
fn find_in_table<'a, 'i>(
    t: &'a toml::de::DeTable<'i>,
    span: &std::ops::Range<usize>,
    path: &mut String,
) -> Option<Found<'a, 'i>> {
    for (k, v) in t.iter() {
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(k.get_ref());
        if k.span().contains(&span.start) {
            return Some(Found::Key(k.span()));
        }
        if let Some(found) = find_in_value(v, span, path) {
            return Some(found);
        }
        path.truncate(len);
    }
    None
}

fn find_in_value<'a, 'i>(
    v: &'a DeItem<'i>,
    span: &std::ops::Range<usize>,
    path: &mut String,
) -> Option<Found<'a, 'i>> {
    match v.get_ref() {
        // An array of tables is spanned by its first header, as may be its first element:
        // an error with exactly that span is about the array.
        toml::de::DeValue::Array(a) if is_array_of_tables(a) && v.span() == *span => {
            return Some(Found::Value(v));
        }
        toml::de::DeValue::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{}]", i + 1));
                if let Some(found) = find_in_value(x, span, path) {
                    return Some(found);
                }
                path.truncate(len);
            }
        }
        toml::de::DeValue::Table(t) => {
            if let Some(found) = find_in_table(t, span, path) {
                return Some(found);
            }
        }
        _ => {}
    }
    v.span().contains(&span.start).then_some(Found::Value(v))
}

fn is_array_of_tables(a: &toml::de::DeArray) -> bool {
    !a.is_empty() && a.iter().all(|x| x.get_ref().is_table())
}

/// The name in serde's "unknown field `x`, expected ..." message.
fn unknown_field(message: &str) -> Option<&str> {
    message.strip_prefix("unknown field `")?.split('`').next()
}

/// The first element of a top-level array of tables that does not deserialize alone, with the
/// line and key (`.after`, or empty when no single key is to blame) of the offending entry.
fn locate_in_array(
    source: &str,
    path: &str,
    a: &toml::de::DeArray,
) -> Option<(usize, usize, String, String)> {
    fn check<'i, T: serde::de::DeserializeOwned>(v: &DeItem<'i>) -> Result<(), toml::de::Error> {
        T::deserialize(toml::de::ValueDeserializer::from(v.clone())).map(|_| ())
    }
    let check: fn(&DeItem) -> Result<(), toml::de::Error> = match path {
        "accounts" => check::<AccountSpec>,
        "actors" => check::<ActorSpec>,
        "steps" => check::<Step>,
        "expect" => check::<Expect>,
        _ => return None,
    };
    for (i, item) in a.iter().enumerate() {
        let Err(e) = check(item) else { continue };
        let message = e.message().to_string();
        let toml::de::DeValue::Table(t) = item.get_ref() else {
            continue;
        };
        let mut keys: Vec<_> = t.iter().collect();
        keys.sort_by_key(|(k, _)| k.span().start);
        // A precise span inside the element names its key.
        // A precise span inside the element, or the key an unknown-field error names.
        let by_span = e.span().and_then(|sp| {
            keys.iter()
                .find(|(k, v)| k.span().contains(&sp.start) || v.span().contains(&sp.start))
        });
        let by_name = || {
            unknown_field(&message).and_then(|key| keys.iter().find(|(k, _)| k.get_ref() == key))
        };
        if let Some((k, _)) = by_span.or_else(by_name) {
            return Some((
                i,
                line_of(source, k.span().start),
                format!(".{}", k.get_ref()),
                message,
            ));
        }
        // A missing field is named, on the element's first line.
        if let Some(key) = message
            .strip_prefix("missing field `")
            .and_then(|m| m.split('`').next())
        {
            return Some((
                i,
                line_of(source, item.span().start),
                format!(".{key}"),
                message,
            ));
        }
        // Otherwise the key whose removal changes the error (removing an innocent key leaves
        // it as is: serde reports a bad value before a missing key). Without its tag `action`
        // every step fails, so the tag is only blamed for an unknown variant.
        let variant = message.contains("variant");
        for (k, _) in keys
            .iter()
            .filter(|(k, _)| variant || k.get_ref() != "action")
        {
            let rest: toml::de::DeTable = t
                .iter()
                .filter(|(k2, _)| k2.get_ref() != k.get_ref())
                .map(|(k2, v2)| (k2.clone(), v2.clone()))
                .collect();
            let without = Spanned::new(item.span(), toml::de::DeValue::Table(rest));
            let gone = match check(&without) {
                Ok(()) => true,
                Err(e2) => e2.message() != message,
            };
            if gone {
                return Some((
                    i,
                    line_of(source, k.span().start),
                    format!(".{}", k.get_ref()),
                    message,
                ));
            }
        }
        return Some((
            i,
            line_of(source, item.span().start),
            String::new(),
            message,
        ));
    }
    None
}

/// Best-effort name of the key at or before `offset` (TOML errors carry a span, not a path).
fn field_of(source: &str, offset: Option<usize>) -> String {
    let Some(off) = offset else {
        return "fixture".into();
    };
    let line_start = source[..off.min(source.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line = source[line_start..].lines().next().unwrap_or("");
    let t = line.trim();
    if let Some(k) = t.split('=').next().filter(|_| t.contains('=')) {
        return k.trim().to_string();
    }
    // A table header, broken or not: report its table.
    if t.starts_with('[') {
        return t
            .trim_matches(|c: char| c == '[' || c == ']' || c.is_whitespace())
            .to_string();
    }
    // Inside a table: report the table.
    let mut table = "fixture".to_string();
    for l in source[..line_start].lines() {
        let l = l.trim();
        if l.starts_with('[') {
            table = l.trim_matches(|c| c == '[' || c == ']').to_string();
        }
    }
    table
}
