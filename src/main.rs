//! `cowboy-devnet`: a local Cowboy chain with the CIP-5 timer engine.
//!
//! With no arguments it plays the built-in demo scenario, headless.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use cowboy_devnet::chain::{Block, Chain, Event};
use cowboy_devnet::engine::Address;
use cowboy_devnet::scenario::builtin;
use cowboy_devnet::scenario::runner::disk_loader;
use cowboy_devnet::scenario::{LoadedFixture, Report, RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "cowboy-devnet", version, about = "A local Cowboy devnet with the CIP-5 timer engine", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Replay a fixture headless: a line per block, a summary, and reports.
    Run(RunArgs),
    /// Check a fixture (names, scripts, steps) without running it.
    Check {
        /// A fixture file, or the name of a shipped fixture (demo, heartbeat, ...).
        fixture: String,
    },
    /// List the shipped fixtures.
    Fixtures,
}

#[derive(clap::Args)]
struct RunArgs {
    /// A fixture file, or the name of a shipped fixture (demo, heartbeat, storm, outage,
    /// drain, governance).
    fixture: String,
    /// Play until this height (default: the fixture's `blocks`).
    #[arg(long)]
    blocks: Option<u64>,
    /// Write the JSON report (every block and every event) here.
    #[arg(long, value_name = "FILE.json")]
    report: Option<PathBuf>,
    /// Write one CSV row per block here.
    #[arg(long, value_name = "FILE.csv")]
    csv: Option<PathBuf>,
    /// Write the final chain state here (JSON, `Chain::load` reads it back).
    #[arg(long, value_name = "FILE.json")]
    dump: Option<PathBuf>,
    /// Print every event under its block.
    #[arg(long)]
    events: bool,
    /// Only the summary.
    #[arg(long, short)]
    quiet: bool,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        None => run(RunArgs {
            fixture: "demo".into(),
            blocks: None,
            report: None,
            csv: None,
            dump: None,
            events: true,
            quiet: false,
        }),
        Some(Cmd::Run(a)) => run(a),
        Some(Cmd::Check { fixture }) => check(&fixture),
        Some(Cmd::Fixtures) => {
            for (name, src) in builtin::FIXTURES {
                let desc = LoadedFixture::parse(name, src.to_string())
                    .ok()
                    .and_then(|f| f.fixture.description)
                    .unwrap_or_default();
                println!("{name:<12} {}", desc.lines().next().unwrap_or(""));
            }
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Loads a fixture from disk, or a shipped one by name.
fn load(fixture: &str) -> Result<Scenario> {
    let rt = DevnetRuntime::new();
    let path = Path::new(fixture);
    if path.exists() {
        let lf = LoadedFixture::read(path)?;
        return Ok(Scenario::prepare(&lf, &rt, &disk_loader)?);
    }
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or(fixture);
    match builtin::scenario(name, &rt) {
        Some(s) => Ok(s?),
        None => anyhow::bail!(
            "no fixture file `{fixture}` and no shipped fixture of that name (try `cowboy-devnet fixtures`)"
        ),
    }
}

fn check(fixture: &str) -> Result<ExitCode> {
    let s = load(fixture)?;
    println!("{}: ok ({} blocks by default)", s.path, s.default_blocks);
    Ok(ExitCode::SUCCESS)
}

fn short(h: &cowboy_devnet::engine::H256) -> String {
    hex::encode(&h.0[..4])
}

fn block_line(b: &Block, chain: &Chain) -> String {
    let e = &b.eob;
    let outage = if b.header.skipped > 0 {
        format!("  (resumed after {} skipped)", b.header.skipped)
    } else {
        String::new()
    };
    format!(
        "#{:<6} txs {:<3} fired {:<4} deferred {:<5} gc {:<4} lane {:>9}/{:<9} (used {:>9})  pending {:<6} root {}{}",
        b.header.height,
        b.receipts.len(),
        e.fired,
        e.deferred,
        e.gc_removed(),
        e.lane_reserved,
        chain.timer_config.lane_timer_cycles,
        e.lane_used,
        b.pending,
        short(&b.header.state_root),
        outage
    )
}

/// One event as a human line, with the fixture's names for addresses.
fn event_line(e: &Event, book: &BTreeMap<Address, String>) -> String {
    use cowboy_devnet::chain::ChainEvent;
    use cowboy_devnet::engine::TimerEvent as T;
    let who = |a: &Address| {
        book.get(a)
            .cloned()
            .unwrap_or_else(|| format!("{}…", &a.to_string()[..10]))
    };
    let id = |t: &cowboy_devnet::engine::TimerId| format!("timer {}", t.short());
    let body = match e {
        Event::Timer(t) => match t {
            T::TimerScheduled {
                timer_id,
                actor,
                height,
                fee_payer,
                gas_limit_per_fire,
                expires_at,
                handler,
                ..
            } => format!(
                "{} by {} for height {height} → {handler}, gas {gas_limit_per_fire}, paid by {}, expires {expires_at}",
                id(timer_id),
                who(actor),
                who(fee_payer)
            ),
            T::TimerFired {
                timer_id,
                actor,
                handler,
                cycles_used,
                cost,
                refund,
                success,
                error,
                ..
            } => format!(
                "{} of {} ran {handler}: {cycles_used} cycles, cost {cost}, refund {refund}{}",
                id(timer_id),
                who(actor),
                if *success {
                    String::new()
                } else {
                    format!(" — REVERTED ({})", error.as_deref().unwrap_or(""))
                }
            ),
            T::TimerDeferred {
                timer_id,
                actor,
                to_height,
                reason,
                ..
            } => format!(
                "{} of {} → height {to_height} ({})",
                id(timer_id),
                who(actor),
                match reason {
                    cowboy_devnet::engine::DeferReason::Lane => "lane full",
                    cowboy_devnet::engine::DeferReason::GcBudget => "GC budget spent",
                }
            ),
            T::TimerExpired {
                timer_id,
                actor,
                expires_at,
                current_height,
            } => format!(
                "{} of {} expired at {expires_at}, removed at {current_height}",
                id(timer_id),
                who(actor)
            ),
            T::TimerCancelledInsufficientFunds {
                timer_id,
                fee_payer,
                required,
                available,
                ..
            } => format!(
                "{}: {} holds {available}, a fire needs {required}",
                id(timer_id),
                who(fee_payer)
            ),
            T::TimerCancelled {
                timer_id,
                actor,
                refund,
            } => format!(
                "{} by its owner {}{}",
                id(timer_id),
                who(actor),
                if *refund > 0 {
                    format!(", pre-charge {refund} refunded")
                } else {
                    String::new()
                }
            ),
            T::TimerCancelledByGovernance { timer_id, existed } => format!(
                "{}{}",
                id(timer_id),
                if *existed {
                    ""
                } else {
                    " (already gone: no-op)"
                }
            ),
            T::TimerExtended {
                timer_id,
                actor,
                old_expires_at,
                new_expires_at,
            } => format!(
                "{} of {}: expires {old_expires_at} → {new_expires_at}",
                id(timer_id),
                who(actor)
            ),
            T::TimerExtendedByGovernance {
                timer_id,
                old_expires_at,
                new_expires_at,
            } => format!(
                "{}: expires {old_expires_at} → {new_expires_at}",
                id(timer_id)
            ),
            T::TimerConfigUpdated { config } => format!(
                "lane {} · GC {} · max/fire {} · TTL {} · cap {}",
                config.lane_timer_cycles,
                config.gc_cycles_per_block,
                config.max_cycles_per_fire,
                config.max_ttl_blocks,
                config.max_timers_per_actor
            ),
        },
        Event::Chain(ChainEvent::ActorDeployed { actor, deployer }) => {
            format!("{} by {}", who(actor), who(deployer))
        }
        Event::Chain(ChainEvent::ActorEmitted { actor, topic, data }) => {
            format!("{} [{topic}] {data}", who(actor))
        }
    };
    format!("         {:<32} {body}", e.kind())
}

fn run(a: RunArgs) -> Result<ExitCode> {
    let scenario = load(&a.fixture)?;
    let total = a.blocks.unwrap_or(scenario.default_blocks);
    let book = scenario.address_book();
    if !a.quiet {
        println!("cowboy-devnet: {} — {}", scenario.name, scenario.path);
        if !scenario.description.is_empty() {
            for l in scenario.description.lines() {
                println!("  {l}");
            }
        }
        println!("playing {total} blocks (headless)\n");
    }
    let bar = if total >= 200 && std::io::stderr().is_terminal() {
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
    } else {
        ProgressBar::hidden()
    };
    let print = |s: String| {
        if bar.is_hidden() {
            println!("{s}");
        } else {
            bar.println(s);
        }
    };
    let (report, mut devnet): (Report, _) = scenario
        .run_devnet(
            DevnetRuntime::shared(),
            RunOptions { blocks: a.blocks },
            &mut |b, chain| {
                bar.set_position(b.header.height.min(total));
                if a.quiet {
                    return;
                }
                print(block_line(b, chain));
                if a.events {
                    for r in &b.events {
                        print(event_line(&r.event, &book));
                    }
                }
            },
        )
        .context("the devnet refused a command")?;
    bar.finish_and_clear();
    print_summary(&report);
    // An output that cannot be written is not a broken fixture (exit 2): it is exit 3, after
    // trying the other outputs.
    let mut unwritten = false;
    let mut write_out = |what: &str, p: &Path, text: Result<String>| match text
        .and_then(|t| std::fs::write(p, t).with_context(|| format!("writing {}", p.display())))
    {
        Ok(()) => println!("{what}: {}", p.display()),
        Err(e) => {
            eprintln!("error: {e:#}");
            unwritten = true;
        }
    };
    if let Some(p) = &a.report {
        write_out("report", p, Ok(report.to_json()));
    }
    if let Some(p) = &a.dump {
        let dump = devnet.chain_mut().dump();
        let text = serde_json::to_string_pretty(&dump).context("serializing the state");
        write_out("state dump", p, text);
    }
    if let Some(p) = &a.csv {
        write_out("csv", p, Ok(report.to_csv()));
    }
    if unwritten {
        return Ok(ExitCode::from(3));
    }
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_summary(r: &Report) {
    let s = &r.summary;
    println!();
    println!(
        "summary: {} blocks to height {}, state root {}",
        s.blocks, s.final_height, s.final_state_root
    );
    println!(
        "  fired {}  deferred {}  expired {}  unfunded {}  still pending {}",
        s.fired, s.deferred, s.expired, s.unfunded, s.pending
    );
    let kinds: Vec<String> = s
        .events_by_kind
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    println!("  events: {}", kinds.join(", "));
    println!(
        "  supply {}  burned {}  balances + burned = supply: {}",
        s.supply,
        s.burned,
        if s.funds_conserved { "yes" } else { "NO" }
    );
    for st in r.steps.iter().filter(|st| !st.as_expected) {
        println!(
            "  step error: {}:{} {} at height {}: {}",
            r.fixture,
            st.line,
            st.action,
            st.at,
            st.error
                .as_deref()
                .unwrap_or("succeeded, but an error was expected")
        );
    }
    if !r.expectations.is_empty() {
        println!(
            "  expectations: {} passed, {} failed",
            s.expectations_passed, s.expectations_failed
        );
        for e in &r.expectations {
            let mark = if e.passed { "ok  " } else { "FAIL" };
            println!(
                "    {mark} {}:{} {} ({})",
                r.fixture, e.line, e.description, e.detail
            );
        }
    }
}
