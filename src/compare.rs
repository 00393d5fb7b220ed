//! `compare`: one fixture played under any set of schedulers and named variants (issue 21),
//! one column per run; `--jobs N` plays the runs on N threads with the output of a serial run.

use crate::cli::{CompareArgs, EXIT_FIXTURE, EXIT_OK, EXIT_OUTPUT};
use crate::commands::{Out, clip, load, write_plot};
use anyhow::{Context, Result};
use cowboy_devnet::chain::Event;
use cowboy_devnet::engine::scheduler::policy::COMPARE_DEFAULT;
use cowboy_devnet::engine::{SchedulerKind, TimerEvent, Variants};
use cowboy_devnet::scenario::plot::PlotRun;
use cowboy_devnet::scenario::report::{ActorRow, BlockRow};
use cowboy_devnet::scenario::{Report, RunOptions};
use cowboy_devnet::vm::DevnetRuntime;
use std::collections::BTreeMap;
use std::ops::ControlFlow;

/// A scheduler's name as the command line and fixtures spell it.
pub fn scheduler_name(k: SchedulerKind) -> String {
    k.to_string()
}

/// What one run of a comparison plays: a scheduler and the variants set on top of the
/// fixture's and `--variant`'s.
#[derive(Clone, Debug)]
struct RunSpec {
    scheduler: SchedulerKind,
    with: Vec<String>,
}

impl RunSpec {
    fn label(&self) -> String {
        let mut l = scheduler_name(self.scheduler);
        if !self.with.is_empty() {
            l.push(' ');
            l.push_str(&self.with.join(","));
        }
        l
    }
}

/// One run of `compare`.
struct CompareRun {
    label: String,
    variants: Variants,
    report: Report,
    /// The lane basefee's lowest and highest value over the blocks sealed under `eip1559`
    /// (nanos per cycle); `None` when no block was (the other schedulers have no lane basefee,
    /// CIP-1 v3 §5).
    basefee_range: Option<(u128, u128)>,
    plot: PlotRun,
}

/// The runs a comparison plays: each scheduler with the common variants, then, for each
/// `--with`, each scheduler again with it. Without `--schedulers`, a comparison with `--with`
/// plays `eip1559` alone (the variants are open points of its rules), so
/// `compare congestion --with basefee_step=proportional` is default against proportional.
///
/// A fixture with a `base` plays under the base's scheduler alone (its state holds it, Spec
/// note 130): `--schedulers` naming another is refused.
fn plan(a: &CompareArgs) -> Result<Vec<RunSpec>> {
    let base = load(&a.fixture)
        .ok()
        .and_then(|s| s.base().map(|b| (b.file.clone(), s.genesis().scheduler)));
    let schedulers = match (
        a.schedulers.as_ref().map(|s| s.concat()),
        a.with.is_empty(),
        &base,
    ) {
        (Some(s), _, Some((file, k))) if s.iter().any(|x| x != k) => anyhow::bail!(
            "--schedulers: the fixture starts from its base {file}, which runs `{}` (its state holds the scheduler)",
            scheduler_name(*k)
        ),
        (_, _, Some((_, k))) => vec![*k],
        (Some(s), _, None) => s,
        (None, true, None) => COMPARE_DEFAULT.to_vec(),
        (None, false, None) => COMPARE_DEFAULT[COMPARE_DEFAULT.len() - 1..].to_vec(),
    };
    let mut seen = Vec::new();
    for k in &schedulers {
        if seen.contains(k) {
            anyhow::bail!("--schedulers names `{}` twice", scheduler_name(*k));
        }
        seen.push(*k);
    }
    let mut sets: Vec<Vec<String>> = vec![Vec::new()];
    for w in &a.with {
        let set: Vec<String> = w.split(',').map(|p| p.trim().to_string()).collect();
        // Checked now, before any run starts.
        let mut v = Variants::default();
        for p in &set {
            v.set_pair(p).map_err(|e| anyhow::anyhow!("--with: {e}"))?;
        }
        if sets.contains(&set) {
            anyhow::bail!("--with `{w}` is given twice");
        }
        sets.push(set);
    }
    let mut v = Variants::default();
    for p in &a.variant {
        v.set_pair(p)
            .map_err(|e| anyhow::anyhow!("--variant: {e}"))?;
    }
    Ok(sets
        .into_iter()
        .flat_map(|with| {
            schedulers.iter().map(move |k| RunSpec {
                scheduler: *k,
                with: with.clone(),
            })
        })
        .collect())
}

/// Plays one run (its own scenario, chain and runtime handle: runs share nothing).
fn play(a: &CompareArgs, spec: &RunSpec) -> Result<CompareRun> {
    let mut scenario = load(&a.fixture)?;
    scenario.play_under(spec.scheduler);
    scenario
        .set_variants(&a.variant)
        .and_then(|()| scenario.set_variants(&spec.with))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let label = spec.label();
    let opts = RunOptions {
        blocks: a.blocks,
        skip_rows: true,
        keep_blocks: None,
    };
    let mut plot = PlotRun::new(label.clone());
    let want_plot = a.plot.is_some();
    let mut range: Option<(u128, u128)> = None;
    let (report, _) = scenario
        .run_with(DevnetRuntime::shared(), opts, &mut |b, _| {
            if b.lane.scheduler.facts().lane_basefee {
                let fee = b.lane.basefee;
                range = Some(range.map_or((fee, fee), |(lo, hi)| (lo.min(fee), hi.max(fee))));
            }
            if want_plot {
                plot.block(&BlockRow::of(b));
            }
            ControlFlow::Continue(())
        })
        .with_context(|| format!("the devnet refused a command under {label}"))?;
    plot.actors(&report.actors);
    Ok(CompareRun {
        label,
        variants: scenario.variants(),
        report,
        basefee_range: range,
        plot,
    })
}

/// Plays every run, on `jobs` threads: run `i` goes to thread `i % jobs`, and the results are
/// put back in run order, so the output is the serial run's.
fn play_all(a: &CompareArgs, specs: &[RunSpec]) -> Result<Vec<CompareRun>> {
    let jobs = (a.jobs as usize).clamp(1, specs.len().max(1));
    if jobs == 1 {
        return specs.iter().map(|s| play(a, s)).collect();
    }
    let mut slots: Vec<Option<Result<CompareRun>>> = specs.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|j| {
                scope.spawn(move || {
                    specs
                        .iter()
                        .enumerate()
                        .skip(j)
                        .step_by(jobs)
                        .map(|(i, s)| (i, play(a, s)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (i, r) in h.join().expect("a compare run panicked") {
                slots[i] = Some(r);
            }
        }
    });
    slots
        .into_iter()
        .map(|r| r.expect("every run played"))
        .collect()
}

pub fn compare(a: CompareArgs, out: &mut Out) -> Result<u8> {
    let specs = plan(&a)?;
    let runs = play_all(&a, &specs)?;
    for r in &runs {
        if let Some(e) = &r.report.refused {
            eprintln!("error: under {}: {e}", r.label);
        }
    }
    let (name, path) = runs
        .first()
        .map(|r| (r.report.name.clone(), r.report.fixture.clone()))
        .unwrap_or_default();
    if a.json {
        out.line(&compare_json(&name, &path, &runs));
    } else {
        for l in compare_table(&name, &path, &runs) {
            if !out.line(&l) {
                break;
            }
        }
    }
    let mut code = if runs.iter().any(|r| r.report.refused.is_some()) {
        EXIT_FIXTURE
    } else {
        EXIT_OK
    };
    let plots: Vec<PlotRun> = runs.iter().map(|r| r.plot.clone()).collect();
    if let Some(p) = &a.plot
        && !write_plot(p, &format!("{name}: {}", seen_names(&runs)), &plots, out)
    {
        code = EXIT_OUTPUT;
    }
    Ok(code)
}

fn seen_names(runs: &[CompareRun]) -> String {
    runs.iter()
        .map(|r| r.label.as_str())
        .collect::<Vec<_>>()
        .join(" vs ")
}

/// `TimerDeferred` events by reason.
fn deferrals_by_reason(r: &Report) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for e in &r.events {
        if let Event::Timer(TimerEvent::TimerDeferred { reason, .. }) = &e.event {
            *m.entry(reason.as_str().to_string()).or_insert(0) += 1;
        }
    }
    m
}

fn compare_json(name: &str, path: &str, runs: &[CompareRun]) -> String {
    let runs: Vec<serde_json::Value> = runs
        .iter()
        .map(|r| {
            let s = &r.report.summary;
            serde_json::json!({
                "run": r.label,
                "scheduler": r.report.scheduler,
                "variants": r.variants.named(),
                "blocks": s.blocks,
                "final_state_root": s.final_state_root,
                "fired": s.fired,
                "deferred": s.deferred,
                "deferred_by_reason": deferrals_by_reason(&r.report),
                "expired": s.expired,
                "unfunded": s.unfunded,
                "pending": s.pending,
                "burned": s.burned.to_string(),
                "tipped": s.tipped.to_string(),
                "lane_basefee_min": r.basefee_range.map(|x| x.0.to_string()),
                "lane_basefee_max": r.basefee_range.map(|x| x.1.to_string()),
                "full_lane_blocks": s.full_lane_blocks,
                "funds_conserved": s.funds_conserved,
                "expectations_passed": s.expectations_passed,
                "expectations_failed": s.expectations_failed,
                "refused": r.report.refused,
                "actors": r.report.actors,
            })
        })
        .collect();
    let v = serde_json::json!({ "fixture": path, "name": name, "runs": runs });
    serde_json::to_string_pretty(&v).expect("json")
}

/// The columns of one run in the per-actor table.
const ACTOR_COLUMNS: [(&str, usize); 6] = [
    ("fires", 7),
    ("deferrals", 10),
    ("lat_p50", 8),
    ("lat_p99", 8),
    ("fees", 16),
    ("tips", 12),
];

/// The width of a run's column in the per-run table.
const RUN_COLUMN: usize = 24;

/// The comparison as text: a title, the per-actor table, the per-run table, and each run's
/// settings with the steps it could not express.
fn compare_table(name: &str, path: &str, runs: &[CompareRun]) -> Vec<String> {
    let mut lines = vec![format!(
        "compare: {name} — {path}, {} blocks",
        runs.first().map_or(0, |r| r.report.summary.blocks)
    )];
    actor_table(&mut lines, runs);
    lines.push(String::new());
    run_table(&mut lines, runs);
    lines.push(String::new());
    run_notes(&mut lines, runs);
    lines
}

/// Every actor of any run, by name, with its columns per run.
fn actor_table(lines: &mut Vec<String>, runs: &[CompareRun]) {
    let group: usize = ACTOR_COLUMNS.iter().map(|(_, w)| w + 1).sum();
    let mut head = format!("{:<20}", "");
    let mut cols = format!("{:<20}", "actor");
    for (i, r) in runs.iter().enumerate() {
        let l = format!("{}: {}", i + 1, r.label);
        head += &format!("| {:<w$}", clip(&l, group), w = group);
        cols += "| ";
        for (c, w) in ACTOR_COLUMNS {
            cols += &format!("{c:>w$} ");
        }
    }
    lines.push(head.trim_end().to_string());
    lines.push(cols.trim_end().to_string());
    // Every actor of any run, by name.
    let mut actors: Vec<&str> = runs
        .iter()
        .flat_map(|r| r.report.actors.iter().map(|a| a.actor.as_str()))
        .collect();
    actors.sort_unstable();
    actors.dedup();
    for name in actors {
        let mut l = format!("{:<20}", clip(name, 20));
        for r in runs {
            l += "| ";
            match r.report.actors.iter().find(|a| a.actor == name) {
                Some(a) => l += &actor_cells(a),
                None => {
                    for (_, w) in ACTOR_COLUMNS {
                        l += &format!("{:>w$} ", "-");
                    }
                }
            }
        }
        lines.push(l.trim_end().to_string());
    }
}

/// The per-run figures, a row each: fees, the lane, fires and deferrals (by reason),
/// removals, steps not expressed, expectations.
fn run_table(lines: &mut Vec<String>, runs: &[CompareRun]) {
    let mut head = format!("{:<20}", "run");
    for (i, r) in runs.iter().enumerate() {
        let l = format!("{}: {}", i + 1, r.label);
        head += &format!("| {:>w$} ", clip(&l, RUN_COLUMN), w = RUN_COLUMN);
    }
    lines.push(head.trim_end().to_string());
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut row = |what: &str, cell: &dyn Fn(&CompareRun) -> String| {
        rows.push((what.to_string(), runs.iter().map(cell).collect()));
    };
    row("burned", &|r| r.report.summary.burned.to_string());
    row("tipped", &|r| r.report.summary.tipped.to_string());
    let fee = |f: fn((u128, u128)) -> u128| {
        move |r: &CompareRun| r.basefee_range.map_or("—".into(), |x| f(x).to_string())
    };
    row("lane basefee min", &fee(|x| x.0));
    row("lane basefee max", &fee(|x| x.1));
    row("full-lane blocks", &|r| {
        r.report.summary.full_lane_blocks.to_string()
    });
    row("fired", &|r| r.report.summary.fired.to_string());
    row("deferred", &|r| r.report.summary.deferred.to_string());
    let by_reason: Vec<BTreeMap<String, u64>> = runs
        .iter()
        .map(|r| deferrals_by_reason(&r.report))
        .collect();
    let mut reasons: Vec<&String> = by_reason.iter().flat_map(|m| m.keys()).collect();
    reasons.sort();
    reasons.dedup();
    for reason in reasons {
        let cells = by_reason
            .iter()
            .map(|m| m.get(reason).copied().unwrap_or(0).to_string())
            .collect();
        rows.push((format!("  {reason}"), cells));
    }
    let mut row = |what: &str, cell: &dyn Fn(&CompareRun) -> String| {
        rows.push((what.to_string(), runs.iter().map(cell).collect()));
    };
    row("expired + unfunded", &|r| {
        (r.report.summary.expired + r.report.summary.unfunded).to_string()
    });
    row("cannot express", &|r| {
        unexpressed(&r.report).len().to_string()
    });
    row("expectations held", &|r| {
        let s = &r.report.summary;
        format!(
            "{}/{}",
            s.expectations_passed,
            s.expectations_passed + s.expectations_failed
        )
    });
    for (what, cells) in rows {
        let mut l = format!("{what:<20}");
        for c in cells {
            l += &format!("| {c:>w$} ", w = RUN_COLUMN);
        }
        lines.push(l.trim_end().to_string());
    }
}

/// Each run's label, scheduler and variants, and the steps it could not express.
fn run_notes(lines: &mut Vec<String>, runs: &[CompareRun]) {
    for (i, r) in runs.iter().enumerate() {
        lines.push(format!(
            "run {}: {}, scheduler {}, variants: {}",
            i + 1,
            r.label,
            r.report.scheduler,
            r.variants.label()
        ));
        for st in unexpressed(&r.report) {
            lines.push(format!(
                "  cannot express line {} ({} at {}): {}",
                st.line,
                st.action,
                st.at,
                st.error.as_ref().map_or("", |e| e.message.as_str())
            ));
        }
    }
}

/// The steps a run's scheduler cannot express (issue 22): a `watch` or an `interval` refused
/// because the policy has no such timer (state watches need a CIP-5 draft, intervals
/// `cip5-draft-zh`), as opposed to a step that failed for another reason.
fn unexpressed(r: &Report) -> Vec<&cowboy_devnet::scenario::report::StepOutcome> {
    r.steps
        .iter()
        .filter(|s| {
            !s.ok
                && matches!(s.action.as_str(), "watch" | "interval")
                && s.error.as_ref().is_some_and(|e| {
                    e.message.contains("needs a CIP-5 draft scheduler")
                        || e.message.contains("not in the English CIP-5 draft")
                })
        })
        .collect()
}

fn actor_cells(a: &ActorRow) -> String {
    let cells = [
        a.fires.to_string(),
        a.deferrals.to_string(),
        a.latency_p50.to_string(),
        a.latency_p99.to_string(),
        a.fees.to_string(),
        a.tips.to_string(),
    ];
    let mut s = String::new();
    for ((_, w), c) in ACTOR_COLUMNS.iter().zip(cells) {
        s += &format!("{c:>w$} ", w = *w);
    }
    s
}
