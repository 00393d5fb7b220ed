//! Plays one candidate through the headless runner (`sweep::play`) and measures it: the
//! victim's figures, the adversaries' cost, and the invariants the report checks.

use super::candidate::Candidate;
use super::invariants::Limits;
use super::measure::{Measure, Metrics};
use super::text::{self, ActorPins, Pins, Setting};
use crate::scenario::builtin;
use crate::scenario::fixture::LoadedFixture;
use crate::scenario::report::Report;
use crate::scenario::runner::{Scenario, ScriptLoadError};
use crate::scenario::sweep::{panic_text, play_on};
use crate::vm::DevnetRuntime;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// How bad a run was: a broken invariant beats any measure; then the larger measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Score {
    pub broken: bool,
    pub measure: u128,
}

/// A played candidate.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub score: Score,
    /// The invariant broken (`panic: ...`, `funds not conserved`, `refused: ...`), if any.
    pub broken: Option<String>,
    pub pins: Pins,
    /// What the adversaries' bots paid for their fires.
    pub adversary_fees: u128,
    /// Each step's error kind, in step order (when the report's steps match the candidate's).
    pub step_errors: Vec<Option<String>>,
    pub final_state_root: String,
}

/// Plays the fixture text `t` (no expectations needed), its actors' scripts served from
/// `scripts` (path as written, text), else the bidder bots' ([`text::bot_script`]), else the
/// shipped copies, catching a panic.
pub fn play_text(t: &str, scripts: &[(String, String)]) -> Result<Result<Report, String>, String> {
    play_limited(t, scripts).map(|r| r.map(|(r, _)| r))
}

/// [`play_text`], with the limits the run is held to (its genesis's).
pub fn play_limited(
    t: &str,
    scripts: &[(String, String)],
) -> Result<Result<(Report, Limits), String>, String> {
    play_as(t, scripts, false)
}

/// The final state root of `c` played as `run` plays it (a root per block), to set beside
/// the hunt's own run of it (one root at the end, [`evaluate`]).
pub fn replay_root(s: &Setting, c: &Candidate) -> Option<String> {
    let t = text::fixture(s, c, &[], None, "hunt candidate");
    match play_limited(&t, s.victim.scripts()) {
        Ok(Ok((r, _))) => Some(r.summary.final_state_root.to_string()),
        _ => None,
    }
}

/// Plays `t`; `final_root_only`: the state root is committed once, at the end
/// (`Scenario::final_root_only`: the outcomes and the final root are the same, the run
/// costs about half).
fn play_as(
    t: &str,
    scripts: &[(String, String)],
    final_root_only: bool,
) -> Result<Result<(Report, Limits), String>, String> {
    let load = |f: &LoadedFixture, rel: &str| -> Result<String, ScriptLoadError> {
        match scripts.iter().find(|(p, _)| p == rel) {
            Some((_, t)) => Ok(t.clone()),
            None => text::bot_script(rel).map_or_else(|| builtin::script_loader(f, rel), Ok),
        }
    };
    let rt = runtime();
    let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let lf = LoadedFixture::parse("hunt.toml", t.to_string()).map_err(|e| e.to_string())?;
        let mut s = Scenario::prepare(&lf, &*rt, &load).map_err(|e| e.to_string())?;
        s.final_root_only = final_root_only;
        let lim = Limits::of(s.genesis());
        play_on(&s, None, rt.clone()).map(|(r, _)| (r, lim))
    }));
    played.map_err(|p| {
        // A run that panicked may have left the runtime's caches mid-update: the next run on
        // this thread starts with a fresh one.
        RUNTIME.with(|r| *r.borrow_mut() = Arc::new(DevnetRuntime::new()));
        panic_text(&p)
    })
}

/// Compiled scripts a thread's runtime keeps before it starts over (the bidder bots' scripts
/// vary with their figures, so the set a long hunt meets is not fixed).
const RUNTIME_SCRIPTS: usize = 256;

thread_local! {
    /// The runtime a thread's runs share: the victim's and the bots' scripts are compiled once
    /// per thread, not twice per run (once to prepare, once to play).
    static RUNTIME: RefCell<Arc<DevnetRuntime>> = RefCell::new(Arc::new(DevnetRuntime::new()));
}

fn runtime() -> Arc<DevnetRuntime> {
    RUNTIME.with(|r| {
        let mut r = r.borrow_mut();
        if r.rhai().cached_scripts() > RUNTIME_SCRIPTS {
            *r = Arc::new(DevnetRuntime::new());
        }
        r.clone()
    })
}

/// Each step's error kind, in step order: a report's step outcome names the line of its
/// `[[steps]]` header.
fn step_errors(t: &str, r: &Report, skip: usize, n: usize) -> Vec<Option<String>> {
    let lines: Vec<usize> = t
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == "[[steps]]")
        .map(|(i, _)| i + 1)
        .skip(skip)
        .collect();
    let mut out = vec![None; n];
    for st in &r.steps {
        if let (Some(e), Some(i)) = (&st.error, lines.iter().position(|l| *l == st.line))
            && i < n
        {
            out[i] = Some(e.kind.as_str().to_string());
        }
    }
    out
}

/// The victim's figures of a report: those of `actors` (an actor with no fire and no
/// deferral has no row: all zero).
pub fn pins_of(r: &Report, actors: &[String]) -> Pins {
    Pins::of(
        actors
            .iter()
            .map(|name| match r.actors.iter().find(|a| &a.actor == name) {
                Some(v) => ActorPins {
                    actor: name.clone(),
                    fires: v.fires,
                    latency_p50: v.latency_p50,
                    latency_p99: v.latency_p99,
                    latency_max: v.latency_max,
                    fees: v.fees,
                    weight_bps: v.weight_bps,
                },
                None => ActorPins {
                    actor: name.clone(),
                    ..ActorPins::default()
                },
            })
            .collect(),
    )
}

/// The victim's fires with no adversary, per run length: `fires_lost` compares a candidate
/// with the empty scenario of the same length, so a shrunk, shorter run has no more fires to
/// lose than it could have had (before, the shrinker's cut blocks counted as lost fires).
#[derive(Debug, Default)]
pub struct Baseline(Mutex<BTreeMap<u64, u64>>);

impl Baseline {
    /// The victim's fires in `blocks` blocks under `s` with no adversary (played once per
    /// length, then remembered).
    pub fn fires(&self, s: &Setting, blocks: u64) -> u64 {
        if let Some(f) = self.0.lock().expect("not poisoned").get(&blocks) {
            return *f;
        }
        let t = text::fixture(s, &Candidate::empty(blocks), &[], None, "hunt baseline");
        let f = match play_text(&t, s.victim.scripts()) {
            Ok(Ok(r)) => pins_of(&r, &s.victim.actors()).fires,
            _ => 0,
        };
        self.0.lock().expect("not poisoned").insert(blocks, f);
        f
    }
}

/// Plays `c` under `s` and measures it. A fixture that does not prepare (a bug of the
/// generator) and a panic are both broken invariants: they are what a developer replays.
/// The run commits its state root once, at its end (issue 33's speed: per-block roots were
/// half a run, and no measure reads them); [`replay_root`] checks the worst found against a
/// run with a root per block.
pub fn evaluate(s: &Setting, c: &Candidate, m: &Measure, baseline: &Baseline) -> Outcome {
    let t = text::fixture(s, c, &[], None, "hunt candidate");
    let mut o = Outcome::default();
    let (report, lim) = match play_as(&t, s.victim.scripts(), true) {
        Err(p) => {
            o.broken = Some(format!("panic: {p}"));
            o.score.broken = true;
            return o;
        }
        Ok(Err(e)) => {
            o.broken = Some(format!("not played: {e}"));
            o.score.broken = true;
            return o;
        }
        Ok(Ok(r)) => r,
    };
    if let Some(r) = &report.refused {
        o.broken = Some(format!("refused: {r}"));
    } else if !report.summary.funds_conserved {
        o.broken = Some("funds not conserved (balances + burned != supply)".into());
    } else {
        o.broken = super::invariants::broken(&report, &lim);
    }
    o.score.broken = o.broken.is_some();
    let victims = s.victim.actors();
    o.pins = pins_of(&report, &victims);
    let metrics = Metrics::of(&report, &victims, baseline.fires(s, c.blocks));
    o.score.measure = m.of(&metrics);
    o.adversary_fees = metrics.get("adversary_fees");
    o.step_errors = step_errors(&t, &report, s.victim.steps(), c.actions.len());
    o.final_state_root = report.summary.final_state_root.to_string();
    o
}
