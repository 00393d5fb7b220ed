//! A hunt's spec (issue 33, docs/HUNT.md): who plays, what is measured, how long to search.
//! Every name is checked before anything runs ([`HuntSpec::check`]).

use crate::engine::{SchedulerKind, Variants};
use serde::Deserialize;
use std::path::Path;

pub use super::error::HuntError;
pub use super::measure::Measure;
use super::victim::{self, Victim};

/// A hunt's spec (TOML). Unknown keys are errors.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HuntSpec {
    pub name: String,
    /// The victim's workload: `heartbeat` (a native actor re-arming a timer every
    /// `victim_every` blocks, each fire burning `victim_cycles`) or `fixture` (the accounts,
    /// actors and steps of `victim_fixture`, measured on `victim_actors`).
    pub victim: String,
    /// `victim = "fixture"`: a shipped fixture's name, or a path relative to the spec.
    #[serde(default)]
    pub victim_fixture: Option<String>,
    /// `victim = "fixture"`: the actors measured (default: every actor of the fixture).
    #[serde(default)]
    pub victim_actors: Vec<String>,
    /// The spec's folder (set by [`HuntSpec::read`]; a fixture path is relative to it).
    #[serde(skip)]
    pub dir: std::path::PathBuf,
    #[serde(default = "default_every")]
    pub victim_every: u64,
    #[serde(default = "default_victim_cycles")]
    pub victim_cycles: u64,
    /// Blocks of each run.
    pub blocks: u64,
    /// Scheduler names or `all` (default: all five).
    #[serde(default)]
    pub schedulers: Vec<String>,
    /// `name=value` variants applied to every run.
    #[serde(default)]
    pub variants: Vec<String>,
    pub measure: String,
    pub adversary: Adversary,
    pub budget: Budget,
    #[serde(default)]
    pub seed: u64,
}

/// The adversaries and their budget.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adversary {
    /// How many adversary accounts (each deploys one bot actor).
    #[serde(default = "one")]
    pub count: u32,
    /// Each adversary's funds (nanos; an integer or a decimal string with `_`).
    pub funds: toml::Value,
    /// Timers the adversaries schedule by steps, over the whole run (all adversaries).
    pub max_timers: u32,
    /// The sum of the `gas_limit`s of adversary timers due at one height.
    pub max_gas_per_block: u64,
}

/// How long to search: a number of runs per scheduler, and optionally seconds (a hunt cut by
/// seconds is not reproducible; one cut by runs is, for any `--jobs`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    pub runs: u64,
    #[serde(default)]
    pub seconds: Option<u64>,
    /// Candidates per generation.
    #[serde(default = "default_population")]
    pub population: usize,
    /// The best found, mutated in the next generation.
    #[serde(default = "default_keep")]
    pub keep: usize,
    /// Runs the shrinker may spend on each scheduler's worst.
    #[serde(default = "default_shrink")]
    pub shrink: u32,
}

fn default_every() -> u64 {
    5
}
fn default_victim_cycles() -> u64 {
    20_000
}
fn one() -> u32 {
    1
}
fn default_population() -> usize {
    8
}
fn default_keep() -> usize {
    3
}
fn default_shrink() -> u32 {
    60
}

/// A spec checked: every name resolved.
#[derive(Debug, Clone)]
pub struct Checked {
    pub spec: HuntSpec,
    pub measure: Measure,
    pub victim: Victim,
    pub schedulers: Vec<SchedulerKind>,
    pub funds: u128,
}

fn amount(v: &toml::Value) -> Option<u128> {
    match v {
        toml::Value::Integer(i) => u128::try_from(*i).ok(),
        toml::Value::String(s) => s.replace('_', "").parse().ok(),
        _ => None,
    }
}

impl HuntSpec {
    pub fn read(path: &Path) -> Result<HuntSpec, HuntError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| HuntError::BadSpec(format!("{}: {e}", path.display())))?;
        let mut spec: HuntSpec = toml::from_str(&text)
            .map_err(|e| HuntError::BadSpec(format!("{}: {e}", path.display())))?;
        spec.dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(spec)
    }

    /// The victim the spec names, its fixture read.
    fn victim(&self) -> Result<Victim, HuntError> {
        match (self.victim.as_str(), &self.victim_fixture) {
            ("heartbeat", None) if self.victim_actors.is_empty() => Ok(Victim::Heartbeat {
                every: self.victim_every,
                cycles: self.victim_cycles,
            }),
            ("heartbeat", _) => Err(HuntError::BadSpec(
                "victim_fixture and victim_actors go with victim = \"fixture\"".into(),
            )),
            ("fixture", Some(f)) => victim::from_fixture(f, &self.victim_actors, &self.dir),
            ("fixture", None) => Err(HuntError::UnknownVictim(
                "victim = \"fixture\" names its fixture in victim_fixture".into(),
            )),
            (v, _) => Err(HuntError::UnknownVictim(format!(
                "`{v}` is not a victim workload (heartbeat, fixture)"
            ))),
        }
    }

    /// Checks every name and figure of the spec.
    pub fn check(self) -> Result<Checked, HuntError> {
        let victim = self.victim()?;
        let measure = Measure::parse(&self.measure)?;
        if self.budget.runs == 0 {
            return Err(HuntError::ZeroBudget("budget.runs is 0".into()));
        }
        if self.budget.seconds == Some(0) {
            return Err(HuntError::ZeroBudget("budget.seconds is 0".into()));
        }
        if self.budget.population == 0 || self.budget.keep == 0 {
            return Err(HuntError::ZeroBudget(
                "budget.population and budget.keep: at least 1".into(),
            ));
        }
        let bad = |m: &str| Err(HuntError::BadSpec(m.to_string()));
        if self.blocks < 2 || self.blocks > 10_000 {
            return bad("blocks: 2 to 10,000");
        }
        if self.victim_every == 0 {
            return bad("victim_every: at least 1");
        }
        if self.adversary.count == 0 || self.adversary.count > 16 {
            return bad("adversary.count: 1 to 16");
        }
        if self.adversary.max_gas_per_block == 0 {
            return Err(HuntError::ZeroBudget(
                "adversary.max_gas_per_block is 0".into(),
            ));
        }
        let funds = amount(&self.adversary.funds)
            .ok_or_else(|| HuntError::BadSpec("adversary.funds: not an amount".into()))?;
        if funds == 0 {
            return Err(HuntError::ZeroBudget("adversary.funds is 0".into()));
        }
        let schedulers = schedulers_of(&self.schedulers)?;
        let mut v = Variants::default();
        for pair in &self.variants {
            v.set_pair(pair)
                .map_err(|e| HuntError::UnknownVariant(e.to_string()))?;
        }
        Ok(Checked {
            spec: self,
            measure,
            victim,
            schedulers,
            funds,
        })
    }
}

fn schedulers_of(names: &[String]) -> Result<Vec<SchedulerKind>, HuntError> {
    if names.is_empty() {
        return Ok(SchedulerKind::ALL.to_vec());
    }
    let mut out: Vec<SchedulerKind> = Vec::new();
    for n in names {
        let add: Vec<SchedulerKind> = if n == "all" {
            SchedulerKind::ALL.to_vec()
        } else {
            vec![
                n.parse()
                    .map_err(|_| HuntError::UnknownScheduler(n.clone()))?,
            ]
        };
        for k in add {
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    Ok(out)
}
