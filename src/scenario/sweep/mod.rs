//! `sweep` (issue 33): a grid (or a seeded sample of it) of fixtures × schedulers × named
//! variants × governance parameters, each point one independent, deterministic run of the
//! headless runner, written as one row per run (CSV and JSON lines).
//!
//! Beyond one machine the sweep is sharded, not distributed: [`Plan::from_spec`] lists the
//! runs (with an id that fingerprints them), [`Plan::shard`] picks run `i` for shard `K/N`
//! when `i mod N = K - 1`, [`run_runs`] plays a share on `jobs` threads, and [`merge`] joins
//! shards' rows back in run order. The rows of a run depend on nothing but the plan and the
//! run's index, so the merged output is byte-identical to the sweep run whole.
//!
//! This module holds no chain logic: a run is a fixture text (the spec's parameters written
//! into it) checked by [`Scenario::prepare`] and played by [`Scenario::run_with`].

use super::builtin;
use super::fixture::LoadedFixture;
use super::report::{BlockRow, Report};
use super::runner::{RunOptions, Scenario, ScriptLoadError, disk_loader};
use crate::engine::{SchedulerKind, Variants};
use crate::vm::DevnetRuntime;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

pub mod plot;
mod shard;
pub use shard::{Shard, ShardHeader, merge, outputs, read_rows, shard_text};

/// What is wrong with a sweep's spec, plan, shard or merge: found before anything runs.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SweepError {
    #[error("BadSpec: {0}")]
    BadSpec(String),
    #[error("UnknownFixture: {0}")]
    UnknownFixture(String),
    #[error(
        "UnknownScheduler: `{0}` is not a scheduler ({names})",
        names = crate::engine::SchedulerKind::names_list(Some("all"))
    )]
    UnknownScheduler(String),
    #[error("UnknownVariant: {0}")]
    UnknownVariant(String),
    #[error("UnknownParameter: {0}")]
    UnknownParameter(String),
    #[error("UnknownMeasure: {0}")]
    UnknownMeasure(String),
    #[error("EmptyGrid: {0}")]
    EmptyGrid(String),
    #[error("BadShard: {0}")]
    BadShard(String),
    #[error("PlanMismatch: {0}")]
    PlanMismatch(String),
    #[error("IncompleteMerge: {0}")]
    IncompleteMerge(String),
}

/// A sweep's spec (TOML, docs/SWEEP.md). Unknown keys are errors.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Shown in the rows and the plots.
    pub name: String,
    /// Shipped fixture names or paths (relative to the spec's folder).
    pub fixtures: Vec<String>,
    /// Scheduler names, or `all`; default: each fixture's own.
    #[serde(default)]
    pub schedulers: Vec<String>,
    /// Play each run until this height (default: each fixture's `blocks`).
    #[serde(default)]
    pub blocks: Option<u64>,
    /// Variant name -> the values to sweep (each a value `cowboy-devnet variants` lists).
    #[serde(default)]
    pub variants: BTreeMap<String, Vec<String>>,
    /// A fixture key (dotted: `cip1.lane.target_bps`, `chain.timer.lane_timer_cycles`) -> the
    /// values to sweep; written into the fixture's text before it is checked.
    #[serde(default)]
    pub params: BTreeMap<String, Vec<toml::Value>>,
    /// Dotted fixture keys set in every run, before `params` (a table the fixture format
    /// requires whole, such as `cip1.lane`, is given here and one of its keys swept).
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
    /// A seeded random sample of the grid instead of the whole grid.
    #[serde(default)]
    pub sample: Option<Sample>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    /// How many points of the grid (at most the grid's size; no point twice).
    pub count: usize,
    /// The sample's seed: the same seed, the same points.
    pub seed: u64,
}

/// One run of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedRun {
    pub index: usize,
    /// As the spec names it.
    pub fixture: String,
    /// `None`: the fixture's own.
    pub scheduler: Option<String>,
    /// `name=value`, in the spec's (sorted) name order.
    pub variants: Vec<String>,
    /// `key=value` (the value as TOML writes it), sorted by key.
    pub params: Vec<String>,
}

/// The list of runs a sweep plays, with an id fingerprinting it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub name: String,
    /// The first 16 hex digits of keccak256 of the plan's JSON without its id.
    pub id: String,
    /// Where relative fixture paths are resolved (the spec's folder).
    pub dir: PathBuf,
    pub blocks: Option<u64>,
    /// What each run writes into its fixture's text, in order: the spec's `set`, then the
    /// run's parameters.
    pub param_values: Vec<Vec<(String, toml::Value)>>,
    pub runs: Vec<PlannedRun>,
}

/// A fixture's text and how its scripts load.
pub(crate) struct Source {
    pub(crate) path: String,
    pub(crate) text: String,
    pub(crate) shipped: bool,
}

fn is_bare(name: &str) -> bool {
    !name.contains('/')
        && !name.contains(std::path::MAIN_SEPARATOR)
        && Path::new(name).extension().is_none()
}

/// A fixture by a shipped name, else by its path relative to `dir`.
pub(crate) fn fixture_source(name: &str, dir: &Path) -> Result<Source, SweepError> {
    if is_bare(name) {
        let Some((n, text)) = builtin::FIXTURES.iter().find(|(n, _)| *n == name) else {
            let names: Vec<&str> = builtin::FIXTURES.iter().map(|(n, _)| *n).collect();
            return Err(SweepError::UnknownFixture(format!(
                "no shipped fixture `{name}` (shipped: {}); a file is given by its path",
                names.join(", ")
            )));
        };
        return Ok(Source {
            path: format!("fixtures/{n}.toml"),
            text: text.to_string(),
            shipped: true,
        });
    }
    let p = dir.join(name);
    let text = std::fs::read_to_string(&p)
        .map_err(|e| SweepError::UnknownFixture(format!("fixture file `{}`: {e}", p.display())))?;
    Ok(Source {
        path: p.display().to_string(),
        text,
        shipped: false,
    })
}

/// Writes `value` at the dotted `key` of the fixture text `text`.
fn with_params(text: &str, params: &[(String, toml::Value)]) -> Result<String, String> {
    if params.is_empty() {
        return Ok(text.to_string());
    }
    let mut doc: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    for (key, value) in params {
        let parts: Vec<&str> = key.split('.').collect();
        let mut t = &mut doc;
        for p in &parts[..parts.len() - 1] {
            let e = t
                .entry(p.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            t = e
                .as_table_mut()
                .ok_or_else(|| format!("`{key}`: `{p}` is not a table of the fixture"))?;
        }
        t.insert(parts[parts.len() - 1].to_string(), value.clone());
    }
    toml::to_string(&doc).map_err(|e| e.to_string())
}

fn schedulers_of(names: &[String]) -> Result<Vec<Option<String>>, SweepError> {
    if names.is_empty() {
        return Ok(vec![None]);
    }
    let mut out = Vec::new();
    for n in names {
        if n == "all" {
            out.extend(
                SchedulerKind::ALL
                    .iter()
                    .map(|k| Some(k.as_str().to_string())),
            );
            continue;
        }
        let k: SchedulerKind = n
            .parse()
            .map_err(|_| SweepError::UnknownScheduler(n.clone()))?;
        out.push(Some(k.as_str().to_string()));
    }
    let mut seen = Vec::new();
    for s in &out {
        if seen.contains(s) {
            return Err(SweepError::BadSpec(format!(
                "schedulers: `{}` is named twice",
                s.as_deref().unwrap_or("")
            )));
        }
        seen.push(s.clone());
    }
    Ok(out)
}

/// A deterministic PRNG: SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
/// number generators", OOPSLA 2014), the same sequence for a seed on every machine.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), by rejection (no modulo bias).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo + 1)
    }
}

impl Plan {
    /// Reads a spec file and plans it.
    pub fn read(path: &Path) -> Result<Plan, SweepError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SweepError::BadSpec(format!("{}: {e}", path.display())))?;
        let spec: SweepSpec = toml::from_str(&text)
            .map_err(|e| SweepError::BadSpec(format!("{}: {e}", path.display())))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Plan::from_spec(&spec, &dir)
    }

    /// Checks every name of the spec (fixtures, schedulers, variants and their values,
    /// parameter keys against each fixture) and lists the runs, in the grid's order:
    /// fixtures, then schedulers, then variants, then parameters (the last axis fastest).
    pub fn from_spec(spec: &SweepSpec, dir: &Path) -> Result<Plan, SweepError> {
        if spec.fixtures.is_empty() {
            return Err(SweepError::EmptyGrid("`fixtures` is empty".into()));
        }
        let schedulers = schedulers_of(&spec.schedulers)?;
        check_axes(spec)?;
        check_fixtures(spec, dir)?;
        let mut points = grid(spec, &schedulers);
        if let Some(sample) = &spec.sample {
            points = sample_points(sample, points)?;
        }
        let mut runs = Vec::new();
        let mut param_values = Vec::new();
        for (index, (fixture, scheduler, variants, params)) in points.into_iter().enumerate() {
            runs.push(PlannedRun {
                index,
                fixture,
                scheduler,
                variants,
                params: params.iter().map(|(k, v)| format!("{k}={v}")).collect(),
            });
            let mut values: Vec<_> = spec.set.clone().into_iter().collect();
            values.extend(params);
            param_values.push(values);
        }
        let mut plan = Plan {
            name: spec.name.clone(),
            id: String::new(),
            dir: dir.to_path_buf(),
            blocks: spec.blocks,
            param_values,
            runs,
        };
        plan.id = plan.fingerprint();
        Ok(plan)
    }

    fn fingerprint(&self) -> String {
        use sha3::{Digest, Keccak256};
        let mut p = self.clone();
        p.id = String::new();
        let json = serde_json::to_string(&p).expect("a plan serializes");
        hex::encode(&Keccak256::digest(json.as_bytes())[..8])
    }

    /// Reads a plan file (`sweep plan`'s output) and checks its id.
    pub fn from_json(text: &str) -> Result<Plan, SweepError> {
        let p: Plan = serde_json::from_str(text)
            .map_err(|e| SweepError::BadSpec(format!("not a sweep plan: {e}")))?;
        if p.fingerprint() != p.id {
            return Err(SweepError::PlanMismatch(format!(
                "the plan's runs do not match its id {} (edited by hand?)",
                p.id
            )));
        }
        Ok(p)
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a plan serializes");
        s.push('\n');
        s
    }

    /// The indexes of shard `k` of `n` (from 1): every `i` with `i mod n = k - 1`.
    pub fn shard(&self, shard: Shard) -> Vec<usize> {
        (0..self.runs.len())
            .filter(|i| i % shard.of == shard.k - 1)
            .collect()
    }
}

/// One point of the grid: a fixture, a scheduler (`None`: the fixture's), variants, and
/// parameter values.
type Point = (
    String,
    Option<String>,
    Vec<String>,
    Vec<(String, toml::Value)>,
);

/// Every variant name and value, `set` key and `params` axis of the spec is well formed, and
/// `blocks` is at least 1.
fn check_axes(spec: &SweepSpec) -> Result<(), SweepError> {
    for (name, values) in &spec.variants {
        if values.is_empty() {
            return Err(SweepError::EmptyGrid(format!(
                "variants.{name} has no value"
            )));
        }
        for v in values {
            Variants::default()
                .set_pair(&format!("{name}={v}"))
                .map_err(|e| SweepError::UnknownVariant(e.to_string()))?;
        }
    }
    for key in spec.set.keys() {
        if key.split('.').any(str::is_empty) {
            return Err(SweepError::UnknownParameter(format!(
                "`{key}` is not a key"
            )));
        }
    }
    for (key, values) in &spec.params {
        if values.is_empty() {
            return Err(SweepError::EmptyGrid(format!(
                "params.\"{key}\" has no value"
            )));
        }
        if key.split('.').any(str::is_empty) {
            return Err(SweepError::UnknownParameter(format!(
                "`{key}` is not a key"
            )));
        }
    }
    if spec.blocks == Some(0) {
        return Err(SweepError::BadSpec("blocks: at least 1".into()));
    }
    Ok(())
}

/// Each fixture exists, and each parameter key is one of its keys (the fixture's format
/// refuses unknown keys): checked with every parameter's first value.
fn check_fixtures(spec: &SweepSpec, dir: &Path) -> Result<(), SweepError> {
    for f in &spec.fixtures {
        let src = fixture_source(f, dir)?;
        LoadedFixture::parse(&src.path, src.text.clone())
            .map_err(|e| SweepError::UnknownFixture(e.to_string()))?;
        let set: Vec<_> = spec.set.clone().into_iter().collect();
        let text = with_params(&src.text, &set)
            .map_err(|e| SweepError::UnknownParameter(format!("set: {e}")))?;
        LoadedFixture::parse(&src.path, text).map_err(|e| {
            SweepError::UnknownParameter(format!(
                "set, in fixture `{f}`: {}: {}",
                e.field, e.message
            ))
        })?;
        for (key, values) in &spec.params {
            let mut one: Vec<_> = spec.set.clone().into_iter().collect();
            one.push((key.clone(), values[0].clone()));
            let text = with_params(&src.text, &one)
                .map_err(|e| SweepError::UnknownParameter(format!("{key}: {e}")))?;
            LoadedFixture::parse(&src.path, text).map_err(|e| {
                SweepError::UnknownParameter(format!(
                    "`{key}` in fixture `{f}`: {}: {}",
                    e.field, e.message
                ))
            })?;
        }
    }
    Ok(())
}

/// The grid, last axis fastest: fixtures, then schedulers, then variants, then parameters.
fn grid(spec: &SweepSpec, schedulers: &[Option<String>]) -> Vec<Point> {
    let variant_sets = product(
        spec.variants
            .iter()
            .map(|(n, vs)| vs.iter().map(|v| format!("{n}={v}")).collect())
            .collect(),
    );
    let param_axes: Vec<Vec<(String, toml::Value)>> = spec
        .params
        .iter()
        .map(|(k, vs)| vs.iter().map(|v| (k.clone(), v.clone())).collect())
        .collect();
    let param_sets = product(param_axes);
    let mut points = Vec::new();
    for f in &spec.fixtures {
        for s in schedulers {
            for v in &variant_sets {
                for p in &param_sets {
                    points.push((f.clone(), s.clone(), v.clone(), p.clone()));
                }
            }
        }
    }
    points
}

/// `count` points of the grid drawn with the sample's seed (a partial Fisher-Yates
/// shuffle), in grid order.
fn sample_points(sample: &Sample, points: Vec<Point>) -> Result<Vec<Point>, SweepError> {
    if sample.count == 0 {
        return Err(SweepError::EmptyGrid("sample.count is 0".into()));
    }
    // A partial Fisher-Yates shuffle, then the chosen points in grid order.
    let mut rng = SplitMix64::new(sample.seed);
    let n = points.len();
    let k = sample.count.min(n);
    let mut idx: Vec<usize> = (0..n).collect();
    for i in 0..k {
        let j = i + rng.below((n - i) as u64) as usize;
        idx.swap(i, j);
    }
    let mut chosen = idx[..k].to_vec();
    chosen.sort_unstable();
    Ok(chosen.into_iter().map(|i| points[i].clone()).collect())
}

fn product<T: Clone>(axes: Vec<Vec<T>>) -> Vec<Vec<T>> {
    let mut out: Vec<Vec<T>> = vec![Vec::new()];
    for axis in axes {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                axis.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(v.clone());
                    p
                })
            })
            .collect();
    }
    out
}

/// One run's row: the same for a run whether it was played whole, in a shard, or on any
/// number of threads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub plan: String,
    pub index: usize,
    pub fixture: String,
    /// The scheduler(s) the run played under (the report's label), or the planned one.
    pub scheduler: String,
    pub variants: String,
    pub params: String,
    /// `ok` (every expectation held), `failed` (played; an expectation or a step did not
    /// hold, or funds were not conserved), `refused` (stopped early), `error` (it could not
    /// be prepared, or it panicked).
    pub status: String,
    pub error: String,
    pub blocks: u64,
    pub final_state_root: String,
    pub fired: u64,
    pub deferred: u64,
    pub expired: u64,
    pub unfunded: u64,
    pub pending: u64,
    pub burned: String,
    pub tipped: String,
    pub full_lane_blocks: u64,
    pub funds_conserved: bool,
    /// The worst actor's latency p99 and p50, in blocks.
    pub max_latency_p99: u64,
    pub max_latency_p50: u64,
    /// The lane basefee (nanos per cycle) at the last block and its highest.
    pub lane_basefee_last: String,
    pub lane_basefee_max: String,
    /// Mean lane utilisation over the blocks, in basis points (floor).
    pub utilisation_bps_mean: u64,
}

impl Row {
    pub const CSV_HEADER: &'static str = "plan,index,fixture,scheduler,variants,params,status,error,blocks,final_state_root,fired,deferred,expired,unfunded,pending,burned,tipped,full_lane_blocks,funds_conserved,max_latency_p99,max_latency_p50,lane_basefee_last,lane_basefee_max,utilisation_bps_mean";

    fn empty(plan: &Plan, r: &PlannedRun) -> Row {
        Row {
            plan: plan.id.clone(),
            index: r.index,
            fixture: r.fixture.clone(),
            scheduler: r.scheduler.clone().unwrap_or_default(),
            variants: r.variants.join(","),
            params: r.params.join(";"),
            status: String::new(),
            error: String::new(),
            blocks: 0,
            final_state_root: String::new(),
            fired: 0,
            deferred: 0,
            expired: 0,
            unfunded: 0,
            pending: 0,
            burned: "0".into(),
            tipped: "0".into(),
            full_lane_blocks: 0,
            funds_conserved: false,
            max_latency_p99: 0,
            max_latency_p50: 0,
            lane_basefee_last: "0".into(),
            lane_basefee_max: "0".into(),
            utilisation_bps_mean: 0,
        }
    }

    pub fn csv(&self) -> String {
        let f = |s: &str| csv_field(s);
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            f(&self.plan),
            self.index,
            f(&self.fixture),
            f(&self.scheduler),
            f(&self.variants),
            f(&self.params),
            f(&self.status),
            f(&self.error),
            self.blocks,
            f(&self.final_state_root),
            self.fired,
            self.deferred,
            self.expired,
            self.unfunded,
            self.pending,
            self.burned,
            self.tipped,
            self.full_lane_blocks,
            self.funds_conserved,
            self.max_latency_p99,
            self.max_latency_p50,
            self.lane_basefee_last,
            self.lane_basefee_max,
            self.utilisation_bps_mean,
        )
    }

    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("a row serializes")
    }
}

/// RFC 4180: quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Prepares a planned run's scenario: the fixture's text with the run's parameters, its
/// scheduler and its variants.
pub fn prepare(plan: &Plan, index: usize) -> Result<Scenario, String> {
    let r = &plan.runs[index];
    let src = fixture_source(&r.fixture, &plan.dir).map_err(|e| e.to_string())?;
    let text = with_params(&src.text, &plan.param_values[index])?;
    let lf = LoadedFixture::parse(&src.path, text).map_err(|e| e.to_string())?;
    let rt = DevnetRuntime::new();
    let loader: &dyn Fn(&LoadedFixture, &str) -> Result<String, ScriptLoadError> = if src.shipped {
        &builtin::script_loader
    } else {
        &disk_loader
    };
    let mut s = Scenario::prepare(&lf, &rt, loader).map_err(|e| e.to_string())?;
    if let Some(k) = &r.scheduler {
        let k: SchedulerKind = k.parse()?;
        s.play_under(k);
    }
    s.set_variants(&r.variants).map_err(|e| e.to_string())?;
    Ok(s)
}

/// Plays a planned run and makes its row. A panic is caught and becomes the row's error.
pub fn run_one(plan: &Plan, index: usize) -> Row {
    let r = &plan.runs[index];
    let mut row = Row::empty(plan, r);
    let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let s = prepare(plan, index)?;
        play(&s, plan.blocks)
    }));
    match played {
        Ok(Ok((report, lane))) => fill(&mut row, &report, lane),
        Ok(Err(e)) => {
            row.status = "error".into();
            row.error = e;
        }
        Err(p) => {
            row.status = "error".into();
            row.error = format!("panic: {}", panic_text(&p));
        }
    }
    row
}

/// The text of a caught panic.
pub fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// Lane figures over a run: last and highest basefee, the sum of utilisation, blocks seen.
#[derive(Default, Clone, Copy)]
pub struct LaneTally {
    pub last: u128,
    pub max: u128,
    pub util_sum: u64,
    pub blocks: u64,
}

/// Plays a scenario headless (no block rows kept), with the lane figures of its blocks.
pub fn play(s: &Scenario, blocks: Option<u64>) -> Result<(Report, LaneTally), String> {
    play_on(s, blocks, DevnetRuntime::shared())
}

/// [`play`] with the actors' code run by `runtime` (a hunt keeps one per thread, so a
/// script is compiled once, not once per run).
pub fn play_on(
    s: &Scenario,
    blocks: Option<u64>,
    runtime: std::sync::Arc<dyn crate::chain::runtime::ActorRuntime>,
) -> Result<(Report, LaneTally), String> {
    let mut lane = LaneTally::default();
    let opts = RunOptions {
        blocks,
        skip_rows: true,
        keep_blocks: None,
    };
    let (report, _) = s
        .run_with(runtime, opts, &mut |b, _| {
            let row = BlockRow::of(b);
            lane.last = row.lane_basefee;
            lane.max = lane.max.max(row.lane_basefee);
            lane.util_sum += u64::from(row.utilisation_bps);
            lane.blocks += 1;
            ControlFlow::Continue(())
        })
        .map_err(|e| e.to_string())?;
    Ok((report, lane))
}

fn fill(row: &mut Row, report: &Report, lane: LaneTally) {
    let s = &report.summary;
    row.scheduler = report.scheduler.clone();
    row.status = if report.refused.is_some() {
        "refused"
    } else if report.passed() {
        "ok"
    } else {
        "failed"
    }
    .into();
    row.error = report.refused.clone().unwrap_or_default();
    row.blocks = s.blocks;
    row.final_state_root = s.final_state_root.to_string();
    row.fired = s.fired;
    row.deferred = s.deferred;
    row.expired = s.expired;
    row.unfunded = s.unfunded;
    row.pending = s.pending;
    row.burned = s.burned.to_string();
    row.tipped = s.tipped.to_string();
    row.full_lane_blocks = s.full_lane_blocks;
    row.funds_conserved = s.funds_conserved;
    row.max_latency_p99 = report
        .actors
        .iter()
        .map(|a| a.latency_p99)
        .max()
        .unwrap_or(0);
    row.max_latency_p50 = report
        .actors
        .iter()
        .map(|a| a.latency_p50)
        .max()
        .unwrap_or(0);
    row.lane_basefee_last = lane.last.to_string();
    row.lane_basefee_max = lane.max.to_string();
    row.utilisation_bps_mean = lane.util_sum.checked_div(lane.blocks).unwrap_or(0);
}

/// Plays the runs `indexes` on `jobs` threads (each takes the next unplayed run), calling
/// `done` after each; the rows come back in the order of `indexes` whatever `jobs` is.
pub fn run_runs(plan: &Plan, indexes: &[usize], jobs: usize, done: &(dyn Fn() + Sync)) -> Vec<Row> {
    let jobs = jobs.clamp(1, indexes.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Row>>> = Mutex::new(vec![None; indexes.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&index) = indexes.get(i) else { break };
                    let row = run_one(plan, index);
                    slots.lock().expect("no thread panics holding it")[i] = Some(row);
                    done();
                }
            });
        }
    });
    slots
        .into_inner()
        .expect("no thread panics holding it")
        .into_iter()
        .map(|r| r.expect("every run played"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_first_outputs_are_the_reference_ones() {
        // The reference sequence for seed 1234567 (Vigna's splitmix64.c).
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }

    #[test]
    fn shards_parse_and_refuse() {
        let none = |_: &str| None;
        assert_eq!(Shard::parse("2/4", &none), Ok(Shard { k: 2, of: 4 }));
        assert!(matches!(
            Shard::parse("5/4", &none),
            Err(SweepError::BadShard(_))
        ));
        assert!(matches!(
            Shard::parse("0/4", &none),
            Err(SweepError::BadShard(_))
        ));
        assert!(matches!(
            Shard::parse("auto/4", &none),
            Err(SweepError::BadShard(_))
        ));
        let job = |k: &str| (k == "JOB_COMPLETION_INDEX").then(|| "3".to_string());
        assert_eq!(Shard::parse("auto/4", &job), Ok(Shard { k: 4, of: 4 }));
        let slurm = |k: &str| (k == "SLURM_ARRAY_TASK_ID").then(|| "2".to_string());
        assert_eq!(Shard::parse("auto/4", &slurm), Ok(Shard { k: 2, of: 4 }));
    }
}
