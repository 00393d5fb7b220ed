//! `hunt` (issue 33): searches for the adversaries' scenario that makes a measure of a victim
//! as bad as it can, under each scheduler of a spec, shrinks the worst and writes it as a
//! fixture that `run` replays to the same figures.
//!
//! A run is a fixture text played by the headless runner (`sweep::play`); this module holds
//! no chain logic. The search is deterministic for a seed whatever `--jobs` is (Spec note 161).

pub mod candidate;
pub mod error;
pub mod eval;
pub mod invariants;
pub mod measure;
pub mod plot;
pub mod search;
pub mod spec;
pub mod text;
pub mod victim;

pub use spec::{Checked, HuntError, HuntSpec, Measure};

use candidate::{Candidate, Limits};
use eval::{Baseline, Outcome, evaluate, play_text};
use search::{Ctx, search, shrink};
use serde::Serialize;
use text::{Pins, Setting};

/// One scheduler's worst found.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    pub scheduler: String,
    /// The measure of the worst (the victim's figure; `fires_lost` against the baseline).
    #[serde(with = "crate::engine::types::u128_str")]
    pub measure: u128,
    /// The same measure with no adversary.
    #[serde(with = "crate::engine::types::u128_str")]
    pub baseline: u128,
    /// The invariant the worst breaks, if any.
    pub broken: Option<String>,
    pub victim_fires: u64,
    pub victim_latency_p50: u64,
    pub victim_latency_p99: u64,
    pub victim_latency_max: u64,
    #[serde(with = "crate::engine::types::u128_str")]
    pub victim_fees: u128,
    /// What the adversaries' bots paid for their fires.
    #[serde(with = "crate::engine::types::u128_str")]
    pub adversary_fees: u128,
    /// What they committed: endowments and top-ups.
    #[serde(with = "crate::engine::types::u128_str")]
    pub adversary_funds: u128,
    pub actions: usize,
    pub blocks: u64,
    /// Runs of the search (the shrinker's not counted).
    pub runs: u64,
    /// The worst replayed as `run` plays it (a state root per block) ended at the final state
    /// root of the hunt's run (one root at its end).
    pub replay_same_root: bool,
    /// The written fixture played again passed its expectations (a broken one: broke again).
    pub fixture_replays: bool,
    #[serde(skip)]
    pub fixture: String,
}

/// A hunt's outcome, one [`Found`] per scheduler in the spec's order.
#[derive(Debug, Clone, Serialize)]
pub struct Hunt {
    pub name: String,
    pub measure: String,
    pub seed: u64,
    pub found: Vec<Found>,
}

fn setting(ch: &Checked, k: crate::engine::SchedulerKind) -> Setting {
    Setting {
        name: format!("hunt-{}-{}", ch.spec.name, k.as_str()),
        scheduler: k,
        variants: ch.spec.variants.clone(),
        victim: ch.victim.clone(),
        funds: ch.funds,
    }
}

/// The adversaries' budget under scheduler `k`, and the actions it takes: state watches and
/// writes under the CIP-5 drafts, interval timers under the Chinese draft only.
fn limits(ch: &Checked, k: crate::engine::SchedulerKind) -> Limits {
    Limits {
        watches: k.facts().drafts,
        intervals: k.facts().intervals,
        adversaries: ch.spec.adversary.count as usize,
        funds: ch.funds,
        max_timers: ch.spec.adversary.max_timers,
        max_gas_per_block: ch.spec.adversary.max_gas_per_block,
        blocks: ch.spec.blocks,
    }
}

/// How a hunt runs: threads, and what to call after each run.
pub struct Options<'a> {
    pub jobs: usize,
    pub done: &'a (dyn Fn() + Sync),
}

/// Hunts under each scheduler of `ch`.
pub fn hunt(ch: &Checked, opts: &Options<'_>) -> Hunt {
    let deadline = ch
        .spec
        .budget
        .seconds
        .map(|s| std::time::Instant::now() + std::time::Duration::from_secs(s));
    let found = ch
        .schedulers
        .iter()
        .map(|k| hunt_one(ch, *k, opts, deadline))
        .collect();
    Hunt {
        name: ch.spec.name.clone(),
        measure: ch.measure.as_str().into(),
        seed: ch.spec.seed,
        found,
    }
}

fn hunt_one(
    ch: &Checked,
    k: crate::engine::SchedulerKind,
    opts: &Options<'_>,
    deadline: Option<std::time::Instant>,
) -> Found {
    let s = setting(ch, k);
    let l = limits(ch, k);
    let empty = Candidate::empty(l.blocks);
    let baseline = Baseline::default();
    let mut ctx = Ctx {
        setting: &s,
        limits: l,
        measure: ch.measure.clone(),
        baseline: &baseline,
        jobs: opts.jobs,
        done: opts.done,
    };
    let base_measure = evaluate(&s, &empty, &ch.measure, &baseline).score.measure;
    let b = &ch.spec.budget;
    let (c, o, runs) = search(&ctx, ch.spec.seed, b.runs, b.population, b.keep, deadline);
    ctx.jobs = 1;
    // Shrunk only when it is worse than no adversary at all (else there is nothing to keep).
    let (c, o) = if o.score.broken || o.score.measure > base_measure {
        shrink(&ctx, c, o, b.shrink)
    } else {
        (c, o)
    };
    // The worst replayed as `run` plays it (a root per block) ends at the root the hunt's own
    // run (one root at the end) reached: the replay is deterministic and the deferral sound.
    let again = eval::replay_root(&s, &c);
    let mut broken = o.broken.clone();
    let same = again.map_or(o.final_state_root.is_empty(), |r| r == o.final_state_root);
    if !same && broken.is_none() {
        broken = Some("a replay gave another state root".into());
    }
    let fixture = write_fixture(ch, &s, &c, &o, broken.as_deref());
    let fixture_replays = match play_text(&fixture, s.victim.scripts()) {
        Ok(Ok(r)) => r.passed() == broken.is_none(),
        _ => broken.is_some(),
    };
    Found {
        scheduler: k.as_str().into(),
        measure: o.score.measure,
        baseline: base_measure,
        broken,
        victim_fires: o.pins.fires,
        victim_latency_p50: o.pins.latency_p50,
        victim_latency_p99: o.pins.latency_p99,
        victim_latency_max: o.pins.latency_max,
        victim_fees: o.pins.fees,
        adversary_fees: o.adversary_fees,
        adversary_funds: c.funds_used(),
        actions: c.actions.len(),
        blocks: c.blocks,
        runs,
        replay_same_root: same,
        fixture_replays,
        fixture,
    }
}

fn write_fixture(
    ch: &Checked,
    s: &Setting,
    c: &Candidate,
    o: &Outcome,
    broken: Option<&str>,
) -> String {
    let mut d = format!(
        "Found by `cowboy-devnet hunt` (spec `{}`, seed {}): the worst {} of\n{} under {}, shrunk. Measure: {}.",
        ch.spec.name,
        ch.spec.seed,
        ch.measure.as_str(),
        ch.victim.describe(),
        s.scheduler.as_str(),
        o.score.measure
    );
    let pins: Option<&Pins> = match broken {
        Some(b) => {
            d.push_str(&format!("\nINVARIANT BROKEN: {b}"));
            None
        }
        None => Some(&o.pins),
    };
    let d = d.replace('"', "'");
    text::fixture(s, c, &o.step_errors, pins, &d)
}

/// The side-by-side table: per scheduler the worst measure and the adversaries' cost.
pub fn table(h: &Hunt) -> String {
    let mut out = format!(
        "hunt {} (measure {}, seed {})\n{:<14} {:>10} {:>9} {:>6} {:>8} {:>8} {:>8} {:>16} {:>20} {:>20} {:>8} {:>6}  {}\n",
        h.name,
        h.measure,
        h.seed,
        "scheduler",
        "worst",
        "baseline",
        "fires",
        "lat_p50",
        "lat_p99",
        "lat_max",
        "victim_fees",
        "adversary_fees",
        "adversary_funds",
        "actions",
        "runs",
        "invariants"
    );
    for f in &h.found {
        out.push_str(&format!(
            "{:<14} {:>10} {:>9} {:>6} {:>8} {:>8} {:>8} {:>16} {:>20} {:>20} {:>8} {:>6}  {}\n",
            f.scheduler,
            f.measure,
            f.baseline,
            f.victim_fires,
            f.victim_latency_p50,
            f.victim_latency_p99,
            f.victim_latency_max,
            f.victim_fees,
            f.adversary_fees,
            f.adversary_funds,
            f.actions,
            f.runs,
            f.broken.as_deref().unwrap_or("held")
        ));
    }
    out
}
