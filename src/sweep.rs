//! `sweep` and its steps (`plan`, `run --shard K/N`, `merge`), issue 33: the command line over
//! `scenario::sweep`, which plans, plays and merges.

use crate::cli::{EXIT_FIXTURE, EXIT_OK, EXIT_OUTPUT, SweepArgs, SweepCmd, SweepRunFlags};
use crate::commands::Out;
use anyhow::{Context, Result};
use cowboy_devnet::scenario::sweep::{self, Plan, Row, Shard};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;

/// Threads for `--jobs N` (0: every core).
pub fn jobs(n: u64) -> usize {
    if n == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        n as usize
    }
}

/// A progress bar on stderr over `len` runs, drawn when asked or when stderr is a terminal.
pub fn progress(len: u64, asked: bool, what: &str) -> ProgressBar {
    if !(asked || std::io::stderr().is_terminal()) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} runs ({per_sec}, eta {eta})")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// A plan from a plan file (JSON) or a spec (anything else).
fn read_plan(p: &Path) -> Result<Plan> {
    if p.extension().is_some_and(|e| e == "json") {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
        return Ok(Plan::from_json(&text)?);
    }
    Ok(Plan::read(p)?)
}

fn play(plan: &Plan, indexes: &[usize], flags: SweepRunFlags) -> Vec<Row> {
    let bar = progress(indexes.len() as u64, flags.progress, &plan.name);
    let rows = sweep::run_runs(plan, indexes, jobs(flags.jobs), &|| bar.inc(1));
    bar.finish_and_clear();
    rows
}

fn write(path: &Path, text: &str) -> bool {
    match std::fs::write(path, text) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("error: writing {}: {e}", path.display());
            false
        }
    }
}

/// Writes the summary plots to `dir/plots/` (none when no parameter was swept over numbers),
/// and says where.
fn write_plots(dir: &Path, rows: &[Row], out: &mut Out) -> bool {
    let figures = sweep::plot::summary(rows);
    if figures.is_empty() {
        out.line("plots: none (no parameter was swept over two or more numbers)");
        return true;
    }
    let plots = dir.join("plots");
    if let Err(e) = std::fs::create_dir_all(&plots) {
        eprintln!("error: creating {}: {e}", plots.display());
        return false;
    }
    if !figures.iter().all(|f| write(&plots.join(&f.file), &f.svg)) {
        return false;
    }
    out.line(&format!("plots: {} in {}", figures.len(), plots.display()));
    true
}

/// Writes runs.csv, runs.jsonl and the summary plots to `dir`, and prints where and how the
/// runs went.
fn write_outputs(dir: &Path, rows: &[Row], out: &mut Out) -> u8 {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("error: creating {}: {e}", dir.display());
        return EXIT_OUTPUT;
    }
    let (csv, jsonl) = sweep::outputs(rows);
    let (c, j) = (dir.join("runs.csv"), dir.join("runs.jsonl"));
    if !(write(&c, &csv) && write(&j, &jsonl)) {
        return EXIT_OUTPUT;
    }
    let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
    out.line(&format!(
        "{} runs: {} ok, {} failed, {} refused, {} error",
        rows.len(),
        count("ok"),
        count("failed"),
        count("refused"),
        count("error")
    ));
    for r in rows.iter().filter(|r| r.status == "error") {
        out.line(&format!("  run {} error: {}", r.index, r.error));
    }
    out.line(&format!("rows: {} {}", c.display(), j.display()));
    if !write_plots(dir, rows, out) {
        return EXIT_OUTPUT;
    }
    EXIT_OK
}

/// `sweep plot ROWS --x PARAM --y COLUMN --out FILE.svg`.
fn plot(rows: &Path, x: &str, y: &str, file: &Path, out: &mut Out) -> Result<u8> {
    let text =
        std::fs::read_to_string(rows).with_context(|| format!("reading {}", rows.display()))?;
    let rows = match sweep::read_rows(&text) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}: {e}", rows.display());
            return Ok(EXIT_FIXTURE);
        }
    };
    match sweep::plot::chart(&rows, x, y) {
        Ok(svg) => {
            if !write(file, &svg) {
                return Ok(EXIT_OUTPUT);
            }
            out.line(&format!("{y} against {x} -> {}", file.display()));
            Ok(EXIT_OK)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(EXIT_FIXTURE)
        }
    }
}

pub fn sweep(a: SweepArgs, out: &mut Out) -> Result<u8> {
    match a.step {
        None => {
            let Some(spec) = a.spec else {
                anyhow::bail!("sweep: give a SPEC, or one of plan / run / merge");
            };
            let plan = read_plan(&spec)?;
            let all: Vec<usize> = (0..plan.runs.len()).collect();
            let rows = play(&plan, &all, a.common);
            Ok(write_outputs(&a.out, &rows, out))
        }
        Some(SweepCmd::Plan { spec, out: file }) => {
            let plan = read_plan(&spec)?;
            let text = plan.to_json();
            match file {
                Some(f) => {
                    if !write(&f, &text) {
                        return Ok(EXIT_OUTPUT);
                    }
                    out.line(&format!(
                        "plan {}: {} runs -> {}",
                        plan.id,
                        plan.runs.len(),
                        f.display()
                    ));
                }
                None => {
                    out.line(text.trim_end());
                }
            }
            Ok(EXIT_OK)
        }
        Some(SweepCmd::Run {
            plan,
            shard,
            out: file,
            common,
        }) => {
            let shard = Shard::parse(&shard, &|k| std::env::var(k).ok())?;
            let plan = read_plan(&plan)?;
            let indexes = plan.shard(shard);
            let rows = play(&plan, &indexes, common);
            if !write(&file, &sweep::shard_text(&plan, shard, &rows)) {
                return Ok(EXIT_OUTPUT);
            }
            out.line(&format!(
                "shard {}/{} of plan {}: {} runs -> {}",
                shard.k,
                shard.of,
                plan.id,
                rows.len(),
                file.display()
            ));
            Ok(EXIT_OK)
        }
        Some(SweepCmd::Merge { shards, out: dir }) => {
            let mut texts = Vec::new();
            for s in &shards {
                let t = std::fs::read_to_string(s)
                    .with_context(|| format!("reading {}", s.display()))?;
                texts.push((s.display().to_string(), t));
            }
            let (h, rows) = match sweep::merge(&texts) {
                Ok(x) => x,
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(EXIT_FIXTURE);
                }
            };
            out.line(&format!("merged {} shards of plan {}", h.of, h.plan));
            Ok(write_outputs(&dir, &rows, out))
        }
        Some(SweepCmd::Plot {
            rows,
            x,
            y,
            out: file,
        }) => plot(&rows, &x, &y, &file, out),
    }
}
