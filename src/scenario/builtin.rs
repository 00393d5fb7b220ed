//! The fixtures shipped in `fixtures/`, compiled into the binary so that `cargo run` and
//! `cowboy-devnet run demo` work from any directory.

use super::fixture::{FixtureError, LoadedFixture};
use super::runner::{Scenario, ScriptLoadError};
use crate::chain::runtime::ActorRuntime;

/// `(name, fixture text)` of every shipped fixture.
pub const FIXTURES: &[(&str, &str)] = &[
    ("demo", include_str!("../../fixtures/demo.toml")),
    ("heartbeat", include_str!("../../fixtures/heartbeat.toml")),
    ("storm", include_str!("../../fixtures/storm.toml")),
    ("outage", include_str!("../../fixtures/outage.toml")),
    ("drain", include_str!("../../fixtures/drain.toml")),
    ("governance", include_str!("../../fixtures/governance.toml")),
    ("congestion", include_str!("../../fixtures/congestion.toml")),
    ("fairness", include_str!("../../fixtures/fairness.toml")),
    ("migration", include_str!("../../fixtures/migration.toml")),
    ("custom_gba", include_str!("../../fixtures/custom_gba.toml")),
    ("v19_height", include_str!("../../fixtures/v19_height.toml")),
    ("v19_watch", include_str!("../../fixtures/v19_watch.toml")),
    ("v19_quota", include_str!("../../fixtures/v19_quota.toml")),
    ("v19_target", include_str!("../../fixtures/v19_target.toml")),
    ("v19_replay", include_str!("../../fixtures/v19_replay.toml")),
    ("v19_period", include_str!("../../fixtures/v19_period.toml")),
];

/// `(path relative to fixtures/, text)` of every shipped script.
pub const SCRIPTS: &[(&str, &str)] = &[
    (
        "scripts/bidder.rhai",
        include_str!("../../fixtures/scripts/bidder.rhai"),
    ),
    (
        "scripts/drain.rhai",
        include_str!("../../fixtures/scripts/drain.rhai"),
    ),
    (
        "scripts/heartbeat.rhai",
        include_str!("../../fixtures/scripts/heartbeat.rhai"),
    ),
    (
        "scripts/mailbox.rhai",
        include_str!("../../fixtures/scripts/mailbox.rhai"),
    ),
    (
        "scripts/sponsored.rhai",
        include_str!("../../fixtures/scripts/sponsored.rhai"),
    ),
    (
        "scripts/urgent.rhai",
        include_str!("../../fixtures/scripts/urgent.rhai"),
    ),
    (
        "scripts/worker.rhai",
        include_str!("../../fixtures/scripts/worker.rhai"),
    ),
];

/// A shipped fixture by name (`demo`, `heartbeat`, ...).
pub fn fixture(name: &str) -> Option<Result<LoadedFixture, FixtureError>> {
    FIXTURES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, src)| LoadedFixture::parse(&format!("fixtures/{n}.toml"), src.to_string()))
}

/// A shipped fixture by name, checked against `runtime` with the embedded scripts: what
/// `cowboy-devnet run <name>` and `cowboy-devnet check <name>` play.
pub fn scenario(name: &str, runtime: &dyn ActorRuntime) -> Option<Result<Scenario, FixtureError>> {
    fixture(name).map(|lf| Scenario::prepare(&lf?, runtime, &script_loader))
}

/// The embedded copy of a shipped script, by its path as a shipped fixture writes it.
pub fn shipped_script(rel: &str) -> Option<&'static str> {
    let rel = rel.trim_start_matches("./");
    SCRIPTS.iter().find(|(p, _)| *p == rel).map(|(_, s)| *s)
}

/// Loads a script for a shipped fixture: from the embedded copies.
pub fn script_loader(_f: &LoadedFixture, rel: &str) -> Result<String, ScriptLoadError> {
    shipped_script(rel)
        .map(str::to_string)
        .ok_or_else(|| ScriptLoadError::NotShipped(rel.trim_start_matches("./").to_string()))
}
