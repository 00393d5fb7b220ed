//! The fixture format (TOML): chain settings, accounts, actors, steps at heights, and
//! expectations. See the README's "Fixture format" for a full example.

use crate::chain::BasefeeConfig;
use crate::engine::{Address, QueueConfig, SchedulerKind, TimerConfig};
use serde::{Deserialize, Deserializer};
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

/// An amount: a TOML integer or a decimal string (underscores allowed), up to u128.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Amount(pub u128);

/// What an amount field accepts, in error messages.
pub const AMOUNT_EXPECTED: &str = "an integer amount or a decimal string like \"1000000\"";

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Amount;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(AMOUNT_EXPECTED)
            }
            fn visit_i64<E: serde::de::Error>(self, i: i64) -> Result<Amount, E> {
                u128::try_from(i)
                    .map(Amount)
                    .map_err(|_| E::custom(format!("amount {i} is negative")))
            }
            fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<Amount, E> {
                Ok(Amount(u.into()))
            }
            fn visit_i128<E: serde::de::Error>(self, i: i128) -> Result<Amount, E> {
                u128::try_from(i)
                    .map(Amount)
                    .map_err(|_| E::custom(format!("amount {i} is negative")))
            }
            fn visit_u128<E: serde::de::Error>(self, u: u128) -> Result<Amount, E> {
                Ok(Amount(u))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Amount, E> {
                s.replace('_', "").parse::<u128>().map(Amount).map_err(|_| {
                    E::custom(format!(
                        "`{s}` is not an amount: expected {AMOUNT_EXPECTED}"
                    ))
                })
            }
        }
        d.deserialize_any(V)
    }
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
    #[serde(default)]
    pub chain: ChainSection,
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
}

/// One action at a height. `expect_error` names the error the action must fail with
/// (`Unauthorized`, `InvalidInput`, ...); without it, a failure is reported as a step error.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
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
    Halt { at: u64, blocks: u64 },
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
            | Step::Halt { at, .. } => *at,
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
            | Step::GovConfig { expect_error, .. } => expect_error.as_deref(),
            Step::SetBalance { .. } | Step::Halt { .. } => None,
        }
    }
}

/// An expectation, checked by the runner. Exactly one of `kind` (an event), `balance_of` (a
/// balance after block `at`) or `status` (a timer's status after block `at`) must be given.
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
    /// Shown in the report instead of a generated description.
    #[serde(default)]
    pub description: Option<String>,
}

/// A parsed fixture with where it came from (to resolve script paths and name errors).
#[derive(Debug)]
pub struct LoadedFixture {
    pub path: String,
    pub dir: Option<PathBuf>,
    pub source: String,
    pub fixture: Fixture,
}

fn line_of(source: &str, offset: usize) -> usize {
    source[..offset.min(source.len())].matches('\n').count() + 1
}

impl LoadedFixture {
    /// Parses fixture text. `path` is used in error messages and to resolve scripts.
    pub fn parse(path: &str, source: String) -> Result<Self, FixtureError> {
        let fixture: Fixture = toml::from_str(&source).map_err(|e| {
            let line = e.span().map_or(1, |s| line_of(&source, s.start));
            let message = e.message().to_string();
            let field = field_of(&source, e.span().map(|s| s.start));
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

    /// An error at a spanned item.
    pub fn error_at(
        &self,
        span: std::ops::Range<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> FixtureError {
        FixtureError {
            file: self.path.clone(),
            line: line_of(&self.source, span.start),
            field: field.into(),
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
    // A table header: report the table.
    let mut table = "fixture".to_string();
    for l in source[..line_start].lines() {
        let l = l.trim();
        if l.starts_with('[') {
            table = l.trim_matches(|c| c == '[' || c == ']').to_string();
        }
    }
    table
}
