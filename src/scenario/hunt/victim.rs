//! Who the hunt hurts (issue 33, "Who plays": "a victim with a fixed, named workload (say a
//! heartbeat that reschedules itself, or the actors of a given fixture)").
//!
//! `heartbeat` is a native actor the hunt writes itself. `fixture` takes a fixture's
//! accounts, actors and steps (and its `[chain]` settings but the scheduler, which the hunt
//! sets per run) as the victim's workload, its expectations left out; the measure reads the
//! actors `victim_actors` names (default: every actor of the fixture). Scripts its actors load
//! are read once, when the spec is checked, and travel with the fixture the hunt writes.

use super::error::HuntError;
use crate::scenario::builtin;
use crate::scenario::sweep::{Source, fixture_source};
use std::path::Path;

/// The victim's actor name in every hunt fixture.
pub const VICTIM: &str = "victim";

/// The victim's workload.
#[derive(Debug, Clone, PartialEq)]
pub enum Victim {
    /// The built-in `victim` actor re-arming a timer every `every` blocks, each fire burning
    /// `cycles`.
    Heartbeat {
        every: u64,
        cycles: u64,
    },
    Fixture(FixtureVictim),
}

/// A fixture taken as the victim's workload.
#[derive(Debug, Clone, PartialEq)]
pub struct FixtureVictim {
    /// As the spec names it.
    pub name: String,
    /// Its `[chain]` keys but `scheduler` and `activation_height`.
    pub chain: toml::Table,
    /// Its `[[accounts]]`, `[[actors]]` and `[[steps]]`, as TOML text.
    pub body: String,
    /// How many `[[steps]]` `body` holds (the hunt's own steps come after them).
    pub steps: usize,
    /// The actors measured.
    pub actors: Vec<String>,
    /// Each script an actor loads: its path as the fixture writes it, and its text.
    pub scripts: Vec<(String, String)>,
}

impl FixtureVictim {
    /// Its `[chain]` section with the run's scheduler.
    pub fn chain_text(&self, scheduler: &str) -> String {
        let mut c = self.chain.clone();
        c.insert("scheduler".into(), scheduler.into());
        let mut t = toml::Table::new();
        t.insert("chain".into(), toml::Value::Table(c));
        toml::to_string(&t).unwrap_or_default()
    }
}

impl Victim {
    /// The actors whose figures are the victim's.
    pub fn actors(&self) -> Vec<String> {
        match self {
            Victim::Heartbeat { .. } => vec![VICTIM.to_string()],
            Victim::Fixture(f) => f.actors.clone(),
        }
    }

    /// The steps the victim's workload writes before the adversaries'.
    pub fn steps(&self) -> usize {
        match self {
            Victim::Heartbeat { .. } => 0,
            Victim::Fixture(f) => f.steps,
        }
    }

    pub fn scripts(&self) -> &[(String, String)] {
        match self {
            Victim::Heartbeat { .. } => &[],
            Victim::Fixture(f) => &f.scripts,
        }
    }

    /// A short description for the written fixture.
    pub fn describe(&self) -> String {
        match self {
            Victim::Heartbeat { every, .. } => format!("a heartbeat victim (every {every} blocks)"),
            Victim::Fixture(f) => format!(
                "the fixture `{}`'s actors {} as the victim",
                f.name,
                f.actors.join(", ")
            ),
        }
    }
}

fn unknown(m: String) -> HuntError {
    HuntError::UnknownVictim(m)
}

fn array<'a>(t: &'a toml::Table, key: &str) -> &'a [toml::Value] {
    t.get(key)
        .and_then(toml::Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn names(actors: &[toml::Value]) -> Vec<String> {
    actors
        .iter()
        .filter_map(|a| a.get("name").and_then(toml::Value::as_str))
        .map(str::to_string)
        .collect()
}

/// Reads each script the fixture's actors load (shipped copies for a shipped fixture, else
/// files beside it). A script path that climbs out of the fixture's folder is refused.
fn scripts(
    actors: &[toml::Value],
    shipped: bool,
    name: &str,
    dir: &Path,
) -> Result<Vec<(String, String)>, HuntError> {
    let mut out: Vec<(String, String)> = Vec::new();
    for rel in actors
        .iter()
        .filter_map(|a| a.get("script").and_then(toml::Value::as_str))
    {
        if rel.split(['/', '\\']).any(|p| p == "..") || Path::new(rel).is_absolute() {
            return Err(unknown(format!(
                "victim_fixture `{name}`: script `{rel}` is outside the fixture's folder"
            )));
        }
        if out.iter().any(|(r, _)| r == rel) {
            continue;
        }
        let text = if shipped {
            builtin::shipped_script(rel)
                .map(str::to_string)
                .ok_or_else(|| unknown(format!("victim_fixture `{name}`: no script `{rel}`")))?
        } else {
            let base = Path::new(name)
                .parent()
                .map_or(dir.to_path_buf(), |p| dir.join(p));
            std::fs::read_to_string(base.join(rel))
                .map_err(|e| unknown(format!("victim_fixture `{name}`: script `{rel}`: {e}")))?
        };
        out.push((rel.to_string(), text));
    }
    Ok(out)
}

/// The fixture `name` (a shipped name or a path relative to `dir`) as the victim, measured
/// on `actors` (empty: every actor it deploys).
pub fn from_fixture(name: &str, actors: &[String], dir: &Path) -> Result<Victim, HuntError> {
    let Source { text, shipped, .. } =
        fixture_source(name, dir).map_err(|e| unknown(format!("victim_fixture: {e}")))?;
    let t: toml::Table = toml::from_str(&text)
        .map_err(|e| unknown(format!("victim_fixture `{name}` is not TOML: {e}")))?;
    let fixture_actors = array(&t, "actors");
    let all = names(fixture_actors);
    if all.is_empty() {
        return Err(unknown(format!("victim_fixture `{name}` deploys no actor")));
    }
    if let Some(a) = all.iter().find(|a| a.starts_with("adv-")) {
        return Err(unknown(format!(
            "victim_fixture `{name}`: actor `{a}` takes a name the adversaries use (adv-N)"
        )));
    }
    for a in actors {
        if !all.contains(a) {
            return Err(unknown(format!(
                "`{a}` is not an actor of victim_fixture `{name}` (its actors: {})",
                all.join(", ")
            )));
        }
    }
    let mut body = toml::Table::new();
    for key in ["accounts", "actors", "steps"] {
        if let Some(v) = t.get(key) {
            body.insert(key.into(), v.clone());
        }
    }
    let mut chain = t
        .get("chain")
        .and_then(toml::Value::as_table)
        .cloned()
        .unwrap_or_default();
    chain.remove("scheduler");
    chain.remove("activation_height");
    let to_text = |t: &toml::Table| {
        toml::to_string(t).map_err(|e| unknown(format!("victim_fixture `{name}`: {e}")))
    };
    Ok(Victim::Fixture(FixtureVictim {
        name: name.to_string(),
        chain,
        body: to_text(&body)?,
        steps: array(&t, "steps").len(),
        actors: if actors.is_empty() {
            all
        } else {
            actors.to_vec()
        },
        scripts: scripts(fixture_actors, shipped, name, dir)?,
    }))
}
