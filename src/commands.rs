//! The commands behind the command line: `run`, `check`, `fixtures`, and standard output
//! written with error handling.

use crate::cli::{EXIT_FAILED, EXIT_FIXTURE, EXIT_OK, EXIT_OUTPUT, RunArgs};
use anyhow::{Context, Result};
use cowboy_devnet::chain::{Block, Chain, ChainDump};
use cowboy_devnet::node::DumpState;
use cowboy_devnet::scenario::lines::{block_line, event_line};
use cowboy_devnet::scenario::plot::{PlotRun, draw_svg};
use cowboy_devnet::scenario::report::BlockRow;
use cowboy_devnet::scenario::runner::{Played, disk_loader};
use cowboy_devnet::scenario::{LoadedFixture, Report, RunOptions, Scenario, builtin};
use cowboy_devnet::vm::DevnetRuntime;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::Path;

/// Standard output, written with error handling: a closed pipe ends the program quietly
/// (exit 0), any other write error (a full disk) is exit 3 with a message.
pub struct Out {
    w: BufWriter<io::Stdout>,
    /// Flush after every line (a terminal shows each block as it is sealed).
    flush_lines: bool,
    error: Option<io::Error>,
}

impl Out {
    pub fn stdout() -> Self {
        let stdout = io::stdout();
        Out {
            flush_lines: stdout.is_terminal(),
            w: BufWriter::with_capacity(64 * 1024, stdout),
            error: None,
        }
    }

    /// Writes a line; `false` once stdout cannot be written (the caller stops).
    pub(crate) fn line(&mut self, s: &str) -> bool {
        if self.error.is_some() {
            return false;
        }
        let r = writeln!(self.w, "{s}").and_then(|()| {
            if self.flush_lines {
                self.w.flush()
            } else {
                Ok(())
            }
        });
        if let Err(e) = r {
            self.error = Some(e);
        }
        self.error.is_none()
    }

    fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Flushes; the exit code that a write error imposes, if any.
    pub fn finish(mut self) -> Option<u8> {
        if self.error.is_none()
            && let Err(e) = self.w.flush()
        {
            self.error = Some(e);
        }
        let e = self.error.take()?;
        // The buffer cannot be written: drop it rather than retry on drop.
        let (_, _) = self.w.into_parts();
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Some(EXIT_OK);
        }
        eprintln!("error: cannot write to stdout: {e}");
        Some(EXIT_OUTPUT)
    }
}

/// Loads a fixture: a bare name (no `/`, no extension) is a shipped fixture; anything else is
/// a path.
pub fn load(fixture: &str) -> Result<Scenario> {
    let rt = DevnetRuntime::new();
    let path = Path::new(fixture);
    let bare = !fixture.contains('/')
        && !fixture.contains(std::path::MAIN_SEPARATOR)
        && path.extension().is_none();
    if bare {
        return match builtin::scenario(fixture, &rt) {
            Some(s) => Ok(s?),
            None => {
                let names: Vec<&str> = builtin::FIXTURES.iter().map(|(n, _)| *n).collect();
                anyhow::bail!(
                    "no shipped fixture `{fixture}` (shipped: {}); a fixture file is given by its path, e.g. `./{fixture}`",
                    names.join(", ")
                )
            }
        };
    }
    if !path.is_file() {
        anyhow::bail!("no fixture file `{fixture}`");
    }
    let lf = LoadedFixture::read(path)?;
    Ok(Scenario::prepare(&lf, &rt, &disk_loader)?)
}

pub fn check(fixture: &str, variants: &[String], out: &mut Out) -> Result<u8> {
    let mut s = load(fixture)?;
    s.set_variants(variants)
        .map_err(|e| anyhow::anyhow!("--variant: {e}"))?;
    let v = s.variants().label();
    out.line(&format!(
        "{}: ok ({} blocks by default; variants: {v})",
        s.path, s.default_blocks
    ));
    Ok(EXIT_OK)
}

/// `cowboy-devnet variants`: every named variant with its values, default and spec section.
pub fn list_variants(json: bool, out: &mut Out) {
    use cowboy_devnet::engine::scheduler::CATALOG;
    if json {
        out.line(&serde_json::to_string_pretty(CATALOG).expect("the catalogue serializes"));
        return;
    }
    // Columns as wide as their widest entry, so a long value list never runs into the next.
    let width = |f: &dyn Fn(&cowboy_devnet::engine::scheduler::VariantInfo) -> usize,
                 head: &str| {
        CATALOG.iter().map(f).max().unwrap_or(0).max(head.len())
    };
    let (wn, wv, wd) = (
        width(&|v| v.name.len(), "variant"),
        width(&|v| v.values.join(" | ").len(), "values (default first)"),
        width(&|v| v.default.len(), "default"),
    );
    out.line(&format!(
        "{:<wn$} {:<wv$} {:<wd$} spec",
        "variant", "values (default first)", "default"
    ));
    for v in CATALOG {
        out.line(&format!(
            "{:<wn$} {:<wv$} {:<wd$} {}",
            v.name,
            v.values.join(" | "),
            v.default,
            v.spec
        ));
        out.line(&format!("    {}", v.about));
    }
}

/// Width of a description in `fixtures`.
const DESCRIPTION_WIDTH: usize = 66;

pub fn list_fixtures(out: &mut Out) {
    for (name, src) in builtin::FIXTURES {
        let desc = LoadedFixture::parse(name, src.to_string())
            .ok()
            .and_then(|f| f.fixture.description)
            .unwrap_or_default();
        if !out.line(&format!("{name:<12} {}", cut(&desc, DESCRIPTION_WIDTH))) {
            return;
        }
    }
}

/// `text` cut to `width` characters, with `…` when longer.
pub(crate) fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// `text` on one line, cut at a word with `…` when longer than `width` characters.
fn cut(text: &str, width: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut s = String::new();
    for (i, w) in words.iter().enumerate() {
        let len = s.chars().count() + usize::from(!s.is_empty()) + w.chars().count();
        let last = i + 1 == words.len();
        // Room for the word, and for the ellipsis unless it is the last word.
        if len + usize::from(!last) > width {
            s.push('…');
            return s;
        }
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(w);
    }
    s
}

fn progress_bar(total: u64, asked: bool) -> ProgressBar {
    let auto = total >= 200 && io::stderr().is_terminal() && !io::stdout().is_terminal();
    if !asked && !auto {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} blocks  {rate}  eta {eta}")
            .expect("valid template")
            // Whole blocks per second (`{per_sec}` prints e.g. `11,468.2999/s`).
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0} blocks/s", s.per_sec());
                },
            ),
    );
    pb
}

/// The CSV file, written a row per block as the run goes.
struct Csv {
    path: String,
    w: Option<BufWriter<File>>,
    error: Option<String>,
}

impl Csv {
    fn create(p: &Path) -> Self {
        let path = p.display().to_string();
        let mut csv = Csv {
            path,
            w: None,
            error: None,
        };
        match File::create(p) {
            Ok(f) => csv.w = Some(BufWriter::new(f)),
            Err(e) => csv.error = Some(e.to_string()),
        }
        csv.write(BlockRow::CSV_HEADER);
        csv
    }

    fn write(&mut self, line: &str) {
        if let Some(w) = &mut self.w
            && let Err(e) = writeln!(w, "{line}")
        {
            self.error = Some(e.to_string());
            self.w = None;
        }
    }

    fn finish(mut self) -> Result<()> {
        if let Some(mut w) = self.w.take()
            && let Err(e) = w.flush()
        {
            self.error = Some(e.to_string());
        }
        match self.error {
            None => Ok(()),
            Some(e) => anyhow::bail!("writing {}: {e}", self.path),
        }
    }
}

fn write_report(p: &Path, report: &Report) -> Result<()> {
    let f = File::create(p).with_context(|| format!("writing {}", p.display()))?;
    let mut w = BufWriter::new(f);
    report
        .write_json(&mut w)
        .and_then(|()| w.flush())
        .with_context(|| format!("writing {}", p.display()))
}

pub fn run(a: RunArgs, out: &mut Out) -> Result<u8> {
    let mut scenario = load(&a.fixture)?;
    scenario.trace = a.trace.is_some();
    scenario
        .set_scheduler(a.sched.scheduler, a.sched.activation_height)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    scenario
        .set_variants(&a.sched.variant)
        .map_err(|e| anyhow::anyhow!("--variant: {e}"))?;
    let total = a.blocks.unwrap_or(scenario.default_blocks);
    if !a.quiet {
        print_header(&scenario, total, out);
    }
    if out.failed() {
        return Ok(EXIT_OK);
    }
    let book = scenario.address_book();
    let bar = progress_bar(total, a.progress);
    let mut csv = a.csv.as_deref().map(Csv::create);
    let opts = RunOptions {
        blocks: a.blocks,
        skip_rows: a.report.is_none(),
        keep_blocks: None,
    };
    let mut plot = a
        .plot
        .as_ref()
        .map(|_| PlotRun::new(scenario.scheduler_label()));
    let mut on_block = |b: &Block, _chain: &Chain| {
        if csv.is_some() || plot.is_some() {
            let row = BlockRow::of(b);
            if let Some(csv) = &mut csv {
                csv.write(&row.csv());
            }
            if let Some(p) = &mut plot {
                p.block(&row);
            }
        }
        if a.quiet {
            return ControlFlow::Continue(());
        }
        let events = b.events.iter().filter(|_| a.events);
        let mut lines =
            std::iter::once(block_line(b)).chain(events.map(|r| event_line(&r.event, &book)));
        // Stdout gone: the run ends here.
        match lines.all(|l| out.line(&l)) {
            true => ControlFlow::Continue(()),
            false => ControlFlow::Break(()),
        }
    };
    // Quiet heights are jumped; a block is rebuilt only for a line, a CSV row or the plot.
    let per_block = !a.quiet || a.csv.is_some() || a.plot.is_some();
    let (report, mut devnet) = scenario
        .run_jumping(DevnetRuntime::shared(), opts, &mut |step, chain| {
            let (first, last) = match step {
                Played::Block(b) => (b.header.height, b.header.height),
                Played::Quiet { first, last } => (first, last),
            };
            bar.set_position(last.min(total));
            match step {
                Played::Block(b) => on_block(b, chain),
                Played::Quiet { .. } if per_block => (first..=last).try_for_each(|h| {
                    on_block(&chain.block(h).expect("a height just sealed"), chain)
                }),
                Played::Quiet { .. } => ControlFlow::Continue(()),
            }
        })
        .context("the devnet refused a command")?;
    bar.finish_and_clear();
    if out.failed() {
        // `main` reports how stdout failed.
        return Ok(EXIT_OK);
    }
    print_summary(&report, out);
    if let Some(only) = &a.trace {
        print_traces(&devnet, &book, &report.labels, only, out);
    }
    if let Some(r) = &report.refused {
        eprintln!("error: {r}");
    }
    let dump = match &a.dump {
        Some(_) => Some(*devnet.apply(DumpState).context("dumping the state")?),
        None => None,
    };
    let mut unwritten = write_outputs(&a, &report, dump, csv, out);
    if let (Some(p), Some(mut plot)) = (&a.plot, plot) {
        plot.actors(&report.actors);
        unwritten |= !write_plot(p, &scenario.name, &[plot], out);
    }
    Ok(if unwritten {
        EXIT_OUTPUT
    } else if report.refused.is_some() {
        EXIT_FIXTURE
    } else if report.passed() {
        EXIT_OK
    } else {
        EXIT_FAILED
    })
}

fn print_header(scenario: &Scenario, total: u64, out: &mut Out) {
    out.line(&format!(
        "cowboy-devnet: {} — {}",
        scenario.name, scenario.path
    ));
    for l in scenario.description.lines() {
        out.line(&format!("  {l}"));
    }
    out.line(&format!(
        "scheduler: {}; variants: {}",
        scenario.scheduler_label(),
        scenario.variants().label()
    ));
    out.line(&format!("playing {total} blocks (headless)\n"));
}

/// Writes the report, the dump and the CSV asked for; `true` if one could not be written.
/// An output that cannot be written is not a broken fixture: it is exit 3, after trying the
/// other outputs.
fn write_outputs(
    a: &RunArgs,
    report: &Report,
    dump: Option<ChainDump>,
    csv: Option<Csv>,
    out: &mut Out,
) -> bool {
    let mut unwritten = false;
    let mut written = |what: &str, p: &Path, r: Result<()>| match r {
        Ok(()) => {
            out.line(&format!("{what}: {}", p.display()));
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            unwritten = true;
        }
    };
    if let Some(p) = &a.report {
        written("report", p, write_report(p, report));
    }
    if let (Some(p), Some(dump)) = (&a.dump, dump) {
        let r = serde_json::to_string_pretty(&dump)
            .context("serializing the state")
            .and_then(|t| std::fs::write(p, t).with_context(|| format!("writing {}", p.display())));
        written("state dump", p, r);
    }
    if let (Some(p), Some(csv)) = (&a.csv, csv) {
        written("csv", p, csv.finish());
    }
    unwritten
}

/// Draws the plot to `p`; `false` (with a message) if it could not be written.
pub(crate) fn write_plot(p: &Path, title: &str, runs: &[PlotRun], out: &mut Out) -> bool {
    match draw_svg(p, title, runs) {
        Ok(()) => {
            out.line(&format!("plot: {}", p.display()));
            true
        }
        Err(e) => {
            eprintln!("error: writing {}: {e}", p.display());
            false
        }
    }
}

fn print_summary(r: &Report, out: &mut Out) {
    let s = &r.summary;
    out.line("");
    out.line(&format!(
        "summary: {} blocks to height {}, state root {}",
        s.blocks, s.final_height, s.final_state_root
    ));
    out.line(&format!(
        "  fired {}  deferred {}  expired {}  unfunded {}  still pending {}",
        s.fired, s.deferred, s.expired, s.unfunded, s.pending
    ));
    let kinds: Vec<String> = s
        .events_by_kind
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    out.line(&format!("  events: {}", kinds.join(", ")));
    out.line(&format!(
        "  supply {}  burned {}  tipped {}  balances + burned = supply: {}",
        s.supply,
        s.burned,
        s.tipped,
        if s.funds_conserved { "yes" } else { "NO" }
    ));
    out.line(&format!(
        "  blocks with a full lane: {}",
        s.full_lane_blocks
    ));
    if !r.actors.is_empty() {
        out.line(&format!(
            "  {:<20} {:>7} {:>10} {:>8} {:>8} {:>16} {:>12} {:>6}",
            "actor", "fires", "deferrals", "lat_p50", "lat_p99", "fees", "tips", "W"
        ));
        for a in &r.actors {
            let w = a
                .weight_bps
                .map_or_else(|| "-".to_string(), cowboy_devnet::node::views::fmt_w);
            out.line(&format!(
                "  {:<20} {:>7} {:>10} {:>8} {:>8} {:>16} {:>12} {:>6}",
                clip(&a.actor, 20),
                a.fires,
                a.deferrals,
                a.latency_p50,
                a.latency_p99,
                a.fees,
                a.tips,
                w
            ));
        }
    }
    for st in r.steps.iter().filter(|st| !st.as_expected) {
        out.line(&format!(
            "  step error: {}:{} {} at height {}: {}",
            r.fixture,
            st.line,
            st.action,
            st.at,
            st.error.as_ref().map_or_else(
                || "succeeded, but an error was expected".to_string(),
                |e| e.to_string()
            )
        ));
    }
    if !r.expectations.is_empty() {
        out.line(&format!(
            "  expectations: {} passed, {} failed",
            s.expectations_passed, s.expectations_failed
        ));
        for e in &r.expectations {
            let mark = if e.passed { "ok  " } else { "FAIL" };
            out.line(&format!(
                "    {mark} {}:{} {} ({})",
                r.fixture, e.line, e.description, e.detail
            ));
        }
    }
}

/// `run --trace`: every traced run (or those of the actors, or the fires of the timers
/// labelled or whose id starts with, the names given), after the summary.
fn print_traces(
    devnet: &cowboy_devnet::node::NodeCore,
    book: &std::collections::BTreeMap<cowboy_devnet::engine::Address, String>,
    labels: &std::collections::BTreeMap<String, cowboy_devnet::engine::TimerId>,
    only: &[String],
    out: &mut Out,
) {
    let only: Vec<&str> = only
        .iter()
        .map(|s| s.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    let wanted = |t: &cowboy_devnet::chain::trace::Trace| {
        only.is_empty()
            || only.iter().any(|n| {
                book.get(&t.actor).is_some_and(|a| a == n)
                    || t.of.timer().is_some_and(|timer_id| {
                        labels.get(*n) == Some(timer_id) || timer_id.to_string().starts_with(n)
                    })
            })
    };
    out.line("traces:");
    for block in devnet.kept_traces() {
        for t in block.iter().filter(|t| wanted(t)) {
            for l in cowboy_devnet::node::trace_text::trace_lines(t, book) {
                out.line(&format!("  {l}"));
            }
        }
    }
}
